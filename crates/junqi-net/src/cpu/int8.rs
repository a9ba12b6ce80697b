//! The trunk's 3×3 convolutions in int8 (AVX-512 VNNI): weights as int8
//! with one scale per output channel (its largest magnitude ↦ 127), the
//! input board as unsigned 8-bit with one scale per position and layer
//! (the inputs are ReLU outputs: 0 ↦ 0, the board's largest value ↦ 255),
//! `vpdpbusd` multiplying four input channels at a time and summing in
//! int32, then `acc · scale_in · scale_out[co] + b[co]` (+ residual, ReLU)
//! in FP32.
//!
//! The scale depends on the position only (never on the batch), so a
//! position's outputs stay the same in any batch.

use super::kernels::{Conv3, COLS, PAD_COLS, PAD_NODES, ROWS};
use super::precision::CpuFeatures;

/// A 3×3 convolution with int8 weights. Only made where the CPU has
/// AVX-512 F, BW and VNNI ([`Conv3Int8::new`] checks).
#[derive(Clone, Debug)]
pub struct Conv3Int8 {
    cin: usize,
    cout: usize,
    /// Groups of 16 output channels per kernel block (4, 2 or 1).
    ng: usize,
    /// `[block][tap][quad of input channels][group of the block][16 lanes][4]`.
    w: Vec<i8>,
    /// Per output channel: the weights' scale.
    scale: Vec<f32>,
    b: Vec<f32>,
}

impl Conv3Int8 {
    /// `conv` in int8, or `None` where the CPU lacks AVX-512 VNNI or the
    /// shape does not fit the kernel (input channels in fours, output
    /// channels in sixteens, the two-player board).
    pub fn new(conv: &Conv3) -> Option<Conv3Int8> {
        let (cin, cout) = (conv.cin, conv.cout);
        if !CpuFeatures::hardware().avx512_vnni || !conv.fits_reduced(4) {
            return None;
        }
        let ng = [4, 2, 1].into_iter().find(|g| cout % (16 * g) == 0).expect("cout % 16 == 0");
        let scale: Vec<f32> = (0..cout)
            .map(|co| {
                let top = (0..9 * cin).map(|k| conv.w[k * cout + co].abs()).fold(0.0f32, f32::max);
                if top > 0.0 {
                    top / 127.0
                } else {
                    1.0
                }
            })
            .collect();
        let mut w = Vec::with_capacity(9 * cin * cout);
        for block in 0..cout / (16 * ng) {
            for t in 0..9 {
                for q in 0..cin / 4 {
                    for g in 0..ng {
                        for lane in 0..16 {
                            let co = (block * ng + g) * 16 + lane;
                            for ci in 4 * q..4 * q + 4 {
                                let v = conv.w[(t * cin + ci) * cout + co] / scale[co];
                                w.push(v.round().clamp(-127.0, 127.0) as i8);
                            }
                        }
                    }
                }
            }
        }
        Some(Conv3Int8 { cin, cout, ng, w, scale, b: conv.b.clone() })
    }

    /// `out = relu(conv(inp) + b [+ res])` as [`Conv3::forward`], from the
    /// padded input board quantised by [`quantize`] with scale `scale`.
    pub fn forward(&self, inp: &[u8], scale: f32, res: Option<&[f32]>, out: &mut [f32]) {
        assert_eq!(inp.len(), PAD_NODES * self.cin);
        assert_eq!(out.len(), PAD_NODES * self.cout);
        if let Some(r) = res {
            assert_eq!(r.len(), PAD_NODES * self.cout);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Conv3Int8` exists only where the CPU has AVX-512 F, BW
        // and VNNI (`new` checked), its shape fits the kernel and the sizes
        // were checked above.
        unsafe {
            match self.ng {
                4 => conv3_int8::<4>(self, inp, scale, res, out),
                2 => conv3_int8::<2>(self, inp, scale, res, out),
                _ => conv3_int8::<1>(self, inp, scale, res, out),
            }
        };
    }
}

/// `src` (not negative) as unsigned 8-bit, its largest value ↦ 255:
/// returns the scale (`src ≈ dst · scale`).
pub fn quantize(src: &[f32], dst: &mut [u8]) -> f32 {
    assert_eq!(src.len(), dst.len());
    #[cfg(target_arch = "x86_64")]
    if CpuFeatures::hardware().avx512_vnni {
        // SAFETY: the CPU has AVX-512 F and BW (checked just above); the lengths are equal.
        return unsafe { quantize_avx512(src, dst) };
    }
    let top = src.iter().copied().fold(0.0f32, f32::max);
    let (scale, inv) = scales(top);
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = (s * inv).round_ties_even().clamp(0.0, 255.0) as u8;
    }
    scale
}

/// The scale of a board whose largest value is `top`, and its inverse.
fn scales(top: f32) -> (f32, f32) {
    if top > 0.0 {
        (top / 255.0, 255.0 / top)
    } else {
        (1.0, 0.0)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quantize_avx512(src: &[f32], dst: &mut [u8]) -> f32 {
    use std::arch::x86_64::*;
    let n = src.len() / 16 * 16;
    let mut top = _mm512_setzero_ps();
    for i in (0..n).step_by(16) {
        // SAFETY: `i + 16 <= n <= src.len()`.
        top = _mm512_max_ps(top, unsafe { _mm512_loadu_ps(src.as_ptr().add(i)) });
    }
    let top = src[n..].iter().copied().fold(_mm512_reduce_max_ps(top), f32::max);
    let (scale, inv) = scales(top);
    let (vinv, zero) = (_mm512_set1_ps(inv), _mm512_setzero_ps());
    for i in (0..n).step_by(16) {
        // SAFETY: `i + 16 <= n <= src.len() == dst.len()`; unaligned loads and stores.
        unsafe {
            let x = _mm512_max_ps(_mm512_mul_ps(_mm512_loadu_ps(src.as_ptr().add(i)), vinv), zero);
            let q = _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(x));
            _mm_storeu_si128(dst.as_mut_ptr().add(i).cast(), q);
        }
    }
    for (d, &s) in dst[n..].iter_mut().zip(&src[n..]) {
        *d = (s * inv).round_ties_even().clamp(0.0, 255.0) as u8;
    }
    scale
}

/// # Safety
/// AVX-512 F, BW and VNNI must be available; the buffers must have the
/// sizes [`Conv3Int8::forward`] checks and `c.ng == NG`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn conv3_int8<const NG: usize>(c: &Conv3Int8, inp: &[u8], sx: f32, res: Option<&[f32]>, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let (cin, cout, quads) = (c.cin, c.cout, c.cin / 4);
    let ip = inp.as_ptr();
    // SAFETY: (all pointer arithmetic below) the caller guarantees the sizes
    // `forward` checks: every input offset is inside the padded board of
    // `PAD_NODES * cin` bytes, every weight offset inside `9 * cin * cout`,
    // every output/residual offset inside `PAD_NODES * cout`.
    unsafe {
        for block in 0..cout / (16 * NG) {
            let wb = c.w.as_ptr().add(block * 9 * quads * NG * 64);
            let (mut bias, mut mul) = ([_mm512_setzero_ps(); NG], [_mm512_setzero_ps(); NG]);
            for g in 0..NG {
                let at = (block * NG + g) * 16;
                bias[g] = _mm512_loadu_ps(c.b.as_ptr().add(at));
                mul[g] = _mm512_mul_ps(_mm512_set1_ps(sx), _mm512_loadu_ps(c.scale.as_ptr().add(at)));
            }
            for y in 0..ROWS {
                let mut acc = [[_mm512_setzero_si512(); NG]; COLS];
                for t in 0..9 {
                    let row = ip.add(((y + t / 3) * PAD_COLS + t % 3) * cin);
                    let wt = wb.add(t * quads * NG * 64);
                    for q in 0..quads {
                        let mut w = [_mm512_setzero_si512(); NG];
                        for (g, v) in w.iter_mut().enumerate() {
                            *v = _mm512_loadu_si512(wt.add((q * NG + g) * 64).cast());
                        }
                        for (x, a) in acc.iter_mut().enumerate() {
                            let quad = row.add(x * cin + 4 * q).cast::<i32>().read_unaligned();
                            let xv = _mm512_set1_epi32(quad);
                            for g in 0..NG {
                                a[g] = _mm512_dpbusd_epi32(a[g], xv, w[g]);
                            }
                        }
                    }
                }
                let zero = _mm512_setzero_ps();
                for (x, a) in acc.iter().enumerate() {
                    let o = ((y + 1) * PAD_COLS + x + 1) * cout + block * NG * 16;
                    for g in 0..NG {
                        let mut v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[g]), mul[g], bias[g]);
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

/// The int8 multiply-add rate one thread reaches here in `time`, in
/// GOP/s (2 per multiply-add): 24 independent chains of `vpdpbusd` (64
/// multiply-adds each) in registers. `None` without AVX-512 VNNI.
pub fn peak_gops(time: std::time::Duration) -> Option<f64> {
    if !CpuFeatures::hardware().avx512_vnni {
        return None;
    }
    Some(super::kernels::rate_for(time, || {
        const ROUNDS: u64 = 1 << 20;
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the CPU has AVX-512 F, BW and VNNI (checked above).
            std::hint::black_box(unsafe { dp_chains(ROUNDS) });
        }
        ROUNDS * 24 * 128
    }))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn dp_chains(rounds: u64) -> i32 {
    use std::arch::x86_64::*;
    let a = _mm512_set1_epi32(std::hint::black_box(0x0102_0301));
    let b = _mm512_set1_epi32(std::hint::black_box(0x01ff_0201));
    let mut c = [_mm512_setzero_si512(); 24];
    for _ in 0..rounds {
        for x in c.iter_mut() {
            *x = _mm512_dpbusd_epi32(*x, a, b);
        }
    }
    let mut sum = _mm512_setzero_si512();
    for x in c {
        sum = _mm512_add_epi32(sum, x);
    }
    _mm512_reduce_add_epi32(sum)
}
