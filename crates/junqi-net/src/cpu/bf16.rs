//! The trunk's 3×3 convolutions in bf16 (AVX-512 BF16): weights stored as
//! bf16, the input board converted to bf16 per layer (round to nearest
//! even), `vdpbf16ps` multiplying pairs of input channels and summing in
//! FP32; bias, residual and ReLU in FP32 as in [`Conv3`].
//!
//! The kernel holds up to 4 groups of 16 output channels for the five
//! nodes of a board row in 20 registers: per pair of input channels and
//! tap, 4 weight loads, 5 broadcasts and 20 dot products (32
//! multiply-adds each).

use super::kernels::{Conv3, COLS, PAD_COLS, PAD_NODES, ROWS};
use super::precision::CpuFeatures;

/// A 3×3 convolution with bf16 weights. Only made where the CPU has
/// AVX-512 F and BF16 ([`Conv3Bf16::new`] checks), so its kernel may run.
#[derive(Clone, Debug)]
pub struct Conv3Bf16 {
    cin: usize,
    cout: usize,
    /// Groups of 16 output channels per kernel block (4, 2 or 1).
    ng: usize,
    /// `[block][tap][pair of input channels][group of the block][16 lanes][2]` bf16 bits.
    w: Vec<u16>,
    b: Vec<f32>,
}

/// `x` rounded to the nearest bf16 (ties to even), as bits.
pub fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// The f32 of bf16 bits.
pub fn bf16_value(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

impl Conv3Bf16 {
    /// `conv` in bf16, or `None` where the CPU lacks AVX-512 BF16 or the
    /// shape does not fit the kernel (input channels in pairs, output
    /// channels in sixteens, the two-player board).
    pub fn new(conv: &Conv3) -> Option<Conv3Bf16> {
        let (cin, cout) = (conv.cin, conv.cout);
        if !CpuFeatures::hardware().avx512_bf16 || !conv.fits_reduced(2) {
            return None;
        }
        let ng = [4, 2, 1].into_iter().find(|g| cout % (16 * g) == 0).expect("cout % 16 == 0");
        let mut w = Vec::with_capacity(9 * cin * cout);
        for block in 0..cout / (16 * ng) {
            for t in 0..9 {
                for p in 0..cin / 2 {
                    for g in 0..ng {
                        for lane in 0..16 {
                            let co = (block * ng + g) * 16 + lane;
                            for ci in [2 * p, 2 * p + 1] {
                                w.push(bf16_bits(conv.w[(t * cin + ci) * cout + co]));
                            }
                        }
                    }
                }
            }
        }
        Some(Conv3Bf16 { cin, cout, ng, w, b: conv.b.clone() })
    }

    /// `out = relu(conv(inp) + b [+ res])` as [`Conv3::forward`], from the
    /// padded input board in bf16 ([`to_bf16`]).
    pub fn forward(&self, inp: &[u16], res: Option<&[f32]>, out: &mut [f32]) {
        assert_eq!(inp.len(), PAD_NODES * self.cin);
        assert_eq!(out.len(), PAD_NODES * self.cout);
        if let Some(r) = res {
            assert_eq!(r.len(), PAD_NODES * self.cout);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Conv3Bf16` exists only where the CPU has AVX-512 F and
        // BF16 (`new` checked), its shape fits the kernel and the sizes were
        // checked above.
        unsafe {
            match self.ng {
                4 => conv3_bf16::<4>(self, inp, res, out),
                2 => conv3_bf16::<2>(self, inp, res, out),
                _ => conv3_bf16::<1>(self, inp, res, out),
            }
        };
    }
}

/// `dst = bf16(src)`, rounding to nearest even (AVX-512 BF16 where present).
pub fn to_bf16(src: &[f32], dst: &mut [u16]) {
    assert_eq!(src.len(), dst.len());
    #[cfg(target_arch = "x86_64")]
    if CpuFeatures::hardware().avx512_bf16 {
        // SAFETY: the CPU has AVX-512 F and BF16 (checked just above); the lengths are equal.
        unsafe { to_bf16_avx512(src, dst) };
        return;
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = bf16_bits(s);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn to_bf16_avx512(src: &[f32], dst: &mut [u16]) {
    use std::arch::x86_64::*;
    let n = src.len() / 16 * 16;
    for i in (0..n).step_by(16) {
        // SAFETY: `i + 16 <= n <= src.len() == dst.len()`; unaligned loads and stores.
        unsafe {
            let h = _mm512_cvtneps_pbh(_mm512_loadu_ps(src.as_ptr().add(i)));
            _mm256_storeu_si256(dst.as_mut_ptr().add(i).cast(), std::mem::transmute::<__m256bh, __m256i>(h));
        }
    }
    for (d, &s) in dst[n..].iter_mut().zip(&src[n..]) {
        *d = bf16_bits(s);
    }
}

/// # Safety
/// AVX-512 F and BF16 must be available; the buffers must have the sizes
/// [`Conv3Bf16::forward`] checks and `c.ng == NG`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn conv3_bf16<const NG: usize>(c: &Conv3Bf16, inp: &[u16], res: Option<&[f32]>, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let (cin, cout, pairs) = (c.cin, c.cout, c.cin / 2);
    let ip = inp.as_ptr();
    // SAFETY: (all pointer arithmetic below) the caller guarantees the sizes
    // `forward` checks: every input offset is inside the padded board of
    // `PAD_NODES * cin` values, every weight offset inside `9 * cin * cout`,
    // every output/residual offset inside `PAD_NODES * cout`.
    unsafe {
        for block in 0..cout / (16 * NG) {
            let wb = c.w.as_ptr().add(block * 9 * pairs * NG * 32);
            let mut bias = [_mm512_setzero_ps(); NG];
            for (g, v) in bias.iter_mut().enumerate() {
                *v = _mm512_loadu_ps(c.b.as_ptr().add((block * NG + g) * 16));
            }
            for y in 0..ROWS {
                let mut acc = [bias; COLS];
                for t in 0..9 {
                    let row = ip.add(((y + t / 3) * PAD_COLS + t % 3) * cin);
                    let wt = wb.add(t * pairs * NG * 32);
                    for p in 0..pairs {
                        let mut w = [_mm512_setzero_si512(); NG];
                        for (g, v) in w.iter_mut().enumerate() {
                            *v = _mm512_loadu_si512(wt.add((p * NG + g) * 32).cast());
                        }
                        for (x, a) in acc.iter_mut().enumerate() {
                            let pair = row.add(x * cin + 2 * p).cast::<i32>().read_unaligned();
                            let xv: __m512bh = std::mem::transmute(_mm512_set1_epi32(pair));
                            for g in 0..NG {
                                a[g] = _mm512_dpbf16_ps(a[g], xv, std::mem::transmute::<__m512i, __m512bh>(w[g]));
                            }
                        }
                    }
                }
                let zero = _mm512_setzero_ps();
                for (x, a) in acc.iter().enumerate() {
                    let o = ((y + 1) * PAD_COLS + x + 1) * cout + block * NG * 16;
                    for (g, &v) in a.iter().enumerate() {
                        let mut v = v;
                        if let Some(r) = res {
                            v = _mm512_add_ps(v, _mm512_loadu_ps(r.as_ptr().add(o + g * 16)));
                        }
                        _mm512_storeu_ps(out.as_mut_ptr().add(o + g * 16), _mm512_max_ps(v, zero));
                    }
                }
            }
        }
    }
}

/// The bf16 multiply-add rate one thread reaches here in `time`, in
/// GFLOP/s (2 per multiply-add): 24 independent chains of `vdpbf16ps`
/// (32 multiply-adds each) in registers. `None` without AVX-512 BF16.
pub fn peak_gflops(time: std::time::Duration) -> Option<f64> {
    if !CpuFeatures::hardware().avx512_bf16 {
        return None;
    }
    Some(super::kernels::rate_for(time, || {
        const ROUNDS: u64 = 1 << 20;
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the CPU has AVX-512 F and BF16 (checked above).
            std::hint::black_box(unsafe { dp_chains(ROUNDS) });
        }
        ROUNDS * 24 * 64
    }))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn dp_chains(rounds: u64) -> f32 {
    use std::arch::x86_64::*;
    let a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(std::hint::black_box(1e-3)), _mm512_set1_ps(1e-3));
    let b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(std::hint::black_box(0.5)), _mm512_set1_ps(0.5));
    let mut c = [_mm512_set1_ps(1.0); 24];
    for _ in 0..rounds {
        for x in c.iter_mut() {
            *x = _mm512_dpbf16_ps(*x, a, b);
        }
    }
    let mut sum = _mm512_setzero_ps();
    for x in c {
        sum = _mm512_add_ps(sum, x);
    }
    _mm512_reduce_add_ps(sum)
}
