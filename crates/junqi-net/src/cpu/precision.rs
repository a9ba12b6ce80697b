//! Which arithmetic the CPU forward pass runs in, and what this CPU offers.
//!
//! * [`Precision::Fp32`]: the reference (AVX2/FMA kernels, or portable code).
//! * [`Precision::Bf16`]: the trunk's 3×3 convolutions with bf16 weights and
//!   activations, products summed in FP32 (`vdpbf16ps`, AVX-512 BF16): twice
//!   the multiply-adds per instruction of FP32.
//! * [`Precision::Int8`]: the same convolutions with int8 weights (a scale
//!   per output channel) and unsigned 8-bit activations (one scale per
//!   position and layer: the inputs are ReLU outputs, never negative),
//!   products summed in int32 (`vpdpbusd`, AVX-512 VNNI): four times.
//!
//! The stem and the heads stay FP32 in every precision (a few percent of
//! the work), and so does the first residual block in int8 (where the
//! int8 error cost the most agreement with FP32). A precision the CPU cannot run falls back to FP32
//! ([`CpuFeatures::resolve`]); the environment variable
//! `JUNQI_CPU_FEATURES` narrows what is detected: `none` (portable FP32
//! only), `avx2` (AVX2/FMA, no AVX-512), anything else or unset: all the
//! CPU has.

use std::fmt;
use std::str::FromStr;

/// The arithmetic of the trunk's convolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    #[default]
    Fp32,
    Bf16,
    Int8,
}

impl Precision {
    pub const ALL: [Precision; 3] = [Precision::Fp32, Precision::Bf16, Precision::Int8];

    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Precision, String> {
        Precision::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("expected fp32, bf16 or int8, got `{s}`"))
    }
}

/// The environment variable that narrows the detected features.
pub const FEATURES_ENV: &str = "JUNQI_CPU_FEATURES";

/// What the CPU forward pass may use here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuFeatures {
    /// AVX2 and FMA: the FP32 kernels.
    pub avx2_fma: bool,
    /// AVX-512 F and BF16: the bf16 kernels.
    pub avx512_bf16: bool,
    /// AVX-512 F, BW and VNNI: the int8 kernels.
    pub avx512_vnni: bool,
}

impl CpuFeatures {
    /// Nothing: the portable FP32 code.
    pub const NONE: CpuFeatures = CpuFeatures { avx2_fma: false, avx512_bf16: false, avx512_vnni: false };

    /// What this CPU has, narrowed by `JUNQI_CPU_FEATURES` (read each call).
    pub fn detect() -> CpuFeatures {
        CpuFeatures::narrowed(CpuFeatures::hardware(), std::env::var(FEATURES_ENV).ok().as_deref())
    }

    /// What this CPU has.
    pub fn hardware() -> CpuFeatures {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2_fma = std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
            let f = avx2_fma && std::is_x86_feature_detected!("avx512f");
            CpuFeatures {
                avx2_fma,
                avx512_bf16: f && std::is_x86_feature_detected!("avx512bf16"),
                avx512_vnni: f
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vnni"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            CpuFeatures::NONE
        }
    }

    /// `have` as the value of `JUNQI_CPU_FEATURES` narrows it.
    pub fn narrowed(have: CpuFeatures, env: Option<&str>) -> CpuFeatures {
        match env.map(str::trim) {
            Some("none") => CpuFeatures::NONE,
            Some("avx2") => CpuFeatures { avx2_fma: have.avx2_fma, ..CpuFeatures::NONE },
            _ => have,
        }
    }

    /// Whether the kernels of `p` can run.
    pub fn supports(self, p: Precision) -> bool {
        match p {
            Precision::Fp32 => true,
            Precision::Bf16 => self.avx512_bf16,
            Precision::Int8 => self.avx512_vnni,
        }
    }

    /// The precision that runs when `wanted` is asked for: itself, or FP32.
    pub fn resolve(self, wanted: Precision) -> Precision {
        if self.supports(wanted) {
            wanted
        } else {
            Precision::Fp32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_missing_features_fall_back_to_fp32() {
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        assert!("fp16".parse::<Precision>().is_err());
        let all = CpuFeatures { avx2_fma: true, avx512_bf16: true, avx512_vnni: true };
        for env in [Some("none"), Some("avx2")] {
            let f = CpuFeatures::narrowed(all, env);
            assert_eq!(f.resolve(Precision::Bf16), Precision::Fp32);
            assert_eq!(f.resolve(Precision::Int8), Precision::Fp32);
        }
        assert!(!CpuFeatures::narrowed(all, Some("none")).avx2_fma);
        assert!(CpuFeatures::narrowed(all, Some("avx2")).avx2_fma);
        assert_eq!(CpuFeatures::narrowed(all, None).resolve(Precision::Int8), Precision::Int8);
    }
}
