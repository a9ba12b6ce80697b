//! The arithmetic of the CPU forward pass: 3×3 convolutions over the
//! padded board and small dense layers, each in a portable form and, on
//! x86-64 with AVX2 and FMA, a hand-vectorised one.
//!
//! Activations are node-major ("NHWC"): `[node][channel]`. The 3×3
//! convolutions read a padded board of 14 × 7 nodes (the 12 × 5 board with
//! a zero border), so every output node reads its nine neighbours without a
//! bounds check, and write the interior of another padded board. A
//! convolution on another [`Grid`] (the four-player board's 17 × 17) pads
//! it the same way.
//!
//! Each position is computed on its own, by the same instructions in the
//! same order whatever else is in the batch, so a position's outputs are
//! bit-for-bit the same in any batch (the search's games do not depend on
//! how the inference service happens to batch them).

/// Rows and columns of the padded board.
pub const PAD_ROWS: usize = 14;
pub const PAD_COLS: usize = 7;
/// Nodes of the padded board.
pub const PAD_NODES: usize = PAD_ROWS * PAD_COLS;
/// Board nodes, rows and columns.
pub const NODES: usize = 60;
pub(crate) const ROWS: usize = 12;
pub(crate) const COLS: usize = 5;

/// The padded index of board node `n` (`row * 5 + col`).
#[inline]
pub fn padded(n: usize) -> usize {
    BOARD.padded(n)
}

/// The rows and columns a 3×3 convolution runs over (zero-padded by one
/// cell on every side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
}

/// The two-player board, 12 × 5.
pub const BOARD: Grid = Grid { rows: ROWS, cols: COLS };

impl Grid {
    /// Cells of the grid.
    pub const fn cells(self) -> usize {
        self.rows * self.cols
    }

    /// Cells of the padded grid.
    pub const fn pad_cells(self) -> usize {
        (self.rows + 2) * (self.cols + 2)
    }

    /// The padded index of cell `n` (`row * cols + col`).
    #[inline]
    pub fn padded(self, n: usize) -> usize {
        (n / self.cols + 1) * (self.cols + 2) + n % self.cols + 1
    }
}

/// Whether the AVX2/FMA kernels can run here.
pub fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A 3×3 convolution with its batch norm folded in: `w[(tap * cin + ci) *
/// cout + co]` (tap = dy * 3 + dx) and `b[co]`; `blocked` holds the same
/// weights as `[group][tap][ci][16]` for the 16-channel kernel (any grid).
#[derive(Clone, Debug)]
pub struct Conv3 {
    pub cin: usize,
    pub cout: usize,
    pub w: Vec<f32>,
    pub b: Vec<f32>,
    /// The grid it runs over.
    pub grid: Grid,
    blocked: Vec<f32>,
}

const GROUP: usize = 16;

/// `n % k == 0` (the workspace's minimum Rust predates `is_multiple_of`).
#[allow(clippy::manual_is_multiple_of)]
fn is_multiple(n: usize, k: usize) -> bool {
    n % k == 0
}

impl Conv3 {
    /// On the two-player board.
    pub fn new(cin: usize, cout: usize, w: Vec<f32>, b: Vec<f32>) -> Conv3 {
        Conv3::on(BOARD, cin, cout, w, b)
    }

    /// On `grid`.
    pub fn on(grid: Grid, cin: usize, cout: usize, w: Vec<f32>, b: Vec<f32>) -> Conv3 {
        assert_eq!(w.len(), 9 * cin * cout);
        assert_eq!(b.len(), cout);
        let mut blocked = Vec::new();
        if is_multiple(cout, GROUP) {
            blocked.reserve(w.len());
            for g in (0..cout).step_by(GROUP) {
                for t in 0..9 {
                    for ci in 0..cin {
                        let at = (t * cin + ci) * cout + g;
                        blocked.extend_from_slice(&w[at..at + GROUP]);
                    }
                }
            }
        }
        Conv3 { cin, cout, w, b, grid, blocked }
    }

    /// Whether the reduced-precision kernels take this convolution: on the
    /// two-player board, input channels in groups of `cin_step`, output
    /// channels in sixteens, neither none.
    pub(crate) fn fits_reduced(&self, cin_step: usize) -> bool {
        let (cin, cout) = (self.cin, self.cout);
        self.grid == BOARD && cin > 0 && cout > 0 && is_multiple(cin, cin_step) && is_multiple(cout, GROUP)
    }

    /// `out = relu(conv(inp) + b [+ res])` on padded boards: `inp`
    /// `[pad cells][cin]` with a zero border, `res` and `out`
    /// `[pad cells][cout]`; only `out`'s interior is written.
    pub fn forward(&self, inp: &[f32], res: Option<&[f32]>, out: &mut [f32], simd: bool) {
        let pad = self.grid.pad_cells();
        assert_eq!(inp.len(), pad * self.cin);
        assert_eq!(out.len(), pad * self.cout);
        if let Some(r) = res {
            assert_eq!(r.len(), pad * self.cout);
        }
        #[cfg(target_arch = "x86_64")]
        if simd {
            // SAFETY: the CPU has AVX2 and FMA (`simd` comes from
            // `simd_available`), and the sizes were checked above.
            unsafe {
                if !self.blocked.is_empty() {
                    conv3_avx2_16(self, inp, res, out);
                } else {
                    conv3_portable_avx2(self, inp, res, out);
                }
            }
            return;
        }
        let _ = simd;
        conv3_portable(self, inp, res, out);
    }
}

#[inline(always)]
fn conv3_body(c: &Conv3, inp: &[f32], res: Option<&[f32]>, out: &mut [f32]) {
    let (cin, cout) = (c.cin, c.cout);
    let pad_cols = c.grid.cols + 2;
    let mut acc = vec![0.0f32; cout];
    for y in 0..c.grid.rows {
        for x in 0..c.grid.cols {
            acc.copy_from_slice(&c.b);
            for t in 0..9 {
                let at = ((y + t / 3) * pad_cols + x + t % 3) * cin;
                for (ci, &v) in inp[at..at + cin].iter().enumerate() {
                    let w = &c.w[(t * cin + ci) * cout..(t * cin + ci + 1) * cout];
                    for (a, &wv) in acc.iter_mut().zip(w) {
                        *a += v * wv;
                    }
                }
            }
            let o = ((y + 1) * pad_cols + x + 1) * cout;
            if let Some(r) = res {
                for (a, &rv) in acc.iter_mut().zip(&r[o..o + cout]) {
                    *a += rv;
                }
            }
            for (dst, &a) in out[o..o + cout].iter_mut().zip(&acc) {
                *dst = a.max(0.0);
            }
        }
    }
}

fn conv3_portable(c: &Conv3, inp: &[f32], res: Option<&[f32]>, out: &mut [f32]) {
    conv3_body(c, inp, res, out)
}

/// The portable loops compiled for AVX2/FMA (channel counts the
/// 16-channel kernel does not take).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv3_portable_avx2(c: &Conv3, inp: &[f32], res: Option<&[f32]>, out: &mut [f32]) {
    conv3_body(c, inp, res, out)
}

/// The 3×3 convolution for `cout % 16 == 0`, on any grid: for each grid
/// row and each group of 16 output channels, the row's cells in blocks of
/// up to five ([`conv3_avx2_block`]).
///
/// # Safety
/// AVX2 and FMA must be available; `inp`, `res` and `out` must have the
/// sizes [`Conv3::forward`] checks and `cout % 16 == 0`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv3_avx2_16(c: &Conv3, inp: &[f32], res: Option<&[f32]>, out: &mut [f32]) {
    // SAFETY: as this function's (every block lies inside the grid's rows).
    unsafe {
        for g in 0..c.cout / GROUP {
            for y in 0..c.grid.rows {
                let mut x = 0;
                while x < c.grid.cols {
                    let at = Block { g, y, x };
                    x += match c.grid.cols - x {
                        1 => conv3_avx2_block::<1>(c, inp, res, out, at),
                        2 => conv3_avx2_block::<2>(c, inp, res, out, at),
                        3 => conv3_avx2_block::<3>(c, inp, res, out, at),
                        4 => conv3_avx2_block::<4>(c, inp, res, out, at),
                        _ => conv3_avx2_block::<5>(c, inp, res, out, at),
                    };
                }
            }
        }
    }
}

/// Where a block of [`conv3_avx2_block`] starts: output-channel group `g`,
/// grid row `y`, first column `x`.
#[derive(Clone, Copy)]
struct Block {
    g: usize,
    y: usize,
    x: usize,
}

/// `W` cells of one row for one group of 16 output channels: they
/// accumulate in `2 W` 8-lane registers over the nine taps and all input
/// channels (per input channel: two weight loads, `W` broadcasts, `2 W`
/// fused multiply-adds), each output in the same order whatever `W` (so a
/// cell's result does not depend on the block it falls in). Returns `W`.
///
/// # Safety
/// As [`conv3_avx2_16`]'s, and the block inside the grid.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn conv3_avx2_block<const W: usize>(
    c: &Conv3,
    inp: &[f32],
    res: Option<&[f32]>,
    out: &mut [f32],
    at: Block,
) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees AVX2/FMA, the buffer sizes that `Conv3::forward`
    // checks and a block inside the grid, so every offset below stays inside `inp`,
    // `res`, `out` and the weights.
    unsafe {
        let (cin, cout, pad_cols) = (c.cin, c.cout, c.grid.cols + 2);
        let Block { g, y, x } = at;
        let wg = c.blocked.as_ptr().add(g * 9 * cin * GROUP);
        let b0 = _mm256_loadu_ps(c.b.as_ptr().add(g * GROUP));
        let b1 = _mm256_loadu_ps(c.b.as_ptr().add(g * GROUP + 8));
        let mut acc = [[b0, b1]; W];
        for t in 0..9 {
            let row = inp.as_ptr().add(((y + t / 3) * pad_cols + x + t % 3) * cin);
            let wt = wg.add(t * cin * GROUP);
            for ci in 0..cin {
                let w0 = _mm256_loadu_ps(wt.add(ci * GROUP));
                let w1 = _mm256_loadu_ps(wt.add(ci * GROUP + 8));
                for (k, a) in acc.iter_mut().enumerate() {
                    let v = _mm256_broadcast_ss(&*row.add(k * cin + ci));
                    a[0] = _mm256_fmadd_ps(v, w0, a[0]);
                    a[1] = _mm256_fmadd_ps(v, w1, a[1]);
                }
            }
        }
        let zero = _mm256_setzero_ps();
        for (k, [lo, hi]) in acc.into_iter().enumerate() {
            let o = ((y + 1) * pad_cols + x + k + 1) * cout + g * GROUP;
            let (mut lo, mut hi) = (lo, hi);
            if let Some(r) = res {
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(r.as_ptr().add(o)));
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(r.as_ptr().add(o + 8)));
            }
            _mm256_storeu_ps(out.as_mut_ptr().add(o), _mm256_max_ps(lo, zero));
            _mm256_storeu_ps(out.as_mut_ptr().add(o + 8), _mm256_max_ps(hi, zero));
        }
        W
    }
}

/// A dense layer `out[n][co] = b[co] + Σ_ci x[n][ci] · w[ci][co]` over `n`
/// rows (a 1×1 convolution over nodes, or a linear layer with one row),
/// with an optional ReLU.
#[derive(Clone, Debug)]
pub struct Dense {
    pub cin: usize,
    pub cout: usize,
    /// `[cin][cout]`.
    pub w: Vec<f32>,
    /// `[cout][cin]`: the dot-product form, for few output channels.
    wt: Vec<f32>,
    pub b: Vec<f32>,
}

/// Output channels accumulated at once in the row form (two 8-lane registers).
const LANES: usize = 16;

impl Dense {
    /// From `[cin][cout]` weights and `[cout]` biases.
    pub fn new(cin: usize, cout: usize, w: Vec<f32>, b: Vec<f32>) -> Dense {
        assert_eq!(w.len(), cin * cout);
        assert_eq!(b.len(), cout);
        let mut wt = vec![0.0; cin * cout];
        for ci in 0..cin {
            for co in 0..cout {
                wt[co * cin + ci] = w[ci * cout + co];
            }
        }
        Dense { cin, cout, w, wt, b }
    }

    /// Inlined into the caller, so it runs with the caller's instruction set
    /// (the AVX2 build of the forward pass).
    #[inline(always)]
    pub fn forward(&self, x: &[f32], out: &mut [f32], relu: bool) {
        assert_eq!(x.len() % self.cin, 0);
        assert_eq!(out.len(), x.len() / self.cin * self.cout);
        let (cin, cout) = (self.cin, self.cout);
        for (row, o) in x.chunks_exact(cin).zip(out.chunks_exact_mut(cout)) {
            if cout < LANES {
                for (co, dst) in o.iter_mut().enumerate() {
                    *dst = self.b[co] + dot(row, &self.wt[co * cin..(co + 1) * cin]);
                }
            } else {
                // Sixteen output channels at a time, held in registers over the inputs.
                let mut co0 = 0;
                while co0 + LANES <= cout {
                    // A fixed width, so the accumulators stay in registers.
                    let mut acc: [f32; LANES] = self.b[co0..co0 + LANES].try_into().expect("16 biases");
                    for (ci, &v) in row.iter().enumerate() {
                        let w: &[f32; LANES] = self.w[ci * cout + co0..][..LANES].try_into().expect("16 weights");
                        for j in 0..LANES {
                            acc[j] += v * w[j];
                        }
                    }
                    o[co0..co0 + LANES].copy_from_slice(&acc);
                    co0 += LANES;
                }
                for (co, dst) in o.iter_mut().enumerate().skip(co0) {
                    *dst = self.b[co] + row.iter().enumerate().map(|(ci, &v)| v * self.w[ci * cout + co]).sum::<f32>();
                }
            }
            if relu {
                for a in o.iter_mut() {
                    *a = a.max(0.0);
                }
            }
        }
    }
}

/// `acc += a · x` over equal-length slices (vectorised by the compiler).
#[inline(always)]
pub fn axpy(a: f32, x: &[f32], acc: &mut [f32]) {
    for (s, &v) in acc.iter_mut().zip(x) {
        *s += a * v;
    }
}

/// The dot product of two equal-length slices, in a fixed order.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight partial sums: vectorisable, and the same order every call.
    let mut s = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            s[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])) + tail
}

/// The floating-point rate one thread reaches here in `time`, in GFLOP/s:
/// with AVX2/FMA, twelve independent chains of 8-lane fused multiply-adds
/// in registers (the machine's peak FP32 rate, which no real kernel
/// exceeds); elsewhere the same chains in portable code.
pub fn peak_gflops(time: std::time::Duration) -> f64 {
    rate_for(time, || {
        const ROUNDS: u64 = 1 << 20;
        #[cfg(target_arch = "x86_64")]
        if simd_available() {
            // SAFETY: AVX2 and FMA are available.
            std::hint::black_box(unsafe { fma_chains(ROUNDS) });
            return ROUNDS * 12 * 16;
        }
        let mut acc = [1.0f32; 96];
        for r in 0..ROUNDS / 8 {
            let x = 1.0 + (r & 1) as f32 * 1e-7;
            for a in acc.iter_mut() {
                *a = a.mul_add(0.999_999, x * 1e-9);
            }
        }
        std::hint::black_box(acc.iter().sum::<f32>());
        ROUNDS / 8 * 96 * 2
    })
}

/// Billions of operations a second that `round` reaches when called over
/// and over for `time`; each call returns the operations it did (the
/// peak measurements of every precision share this loop).
pub(crate) fn rate_for(time: std::time::Duration, mut round: impl FnMut() -> u64) -> f64 {
    let start = std::time::Instant::now();
    let mut ops = 0u64;
    while start.elapsed() < time {
        ops += round();
    }
    ops as f64 / start.elapsed().as_secs_f64() / 1e9
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_chains(rounds: u64) -> f32 {
    use std::arch::x86_64::*;
    // SAFETY: the caller checked AVX2/FMA; the only pointer is `out`, 8 floats.
    unsafe {
        let a = _mm256_set1_ps(0.999_999);
        let b = _mm256_set1_ps(1e-9);
        let mut c = [_mm256_set1_ps(1.0); 12];
        for _ in 0..rounds {
            for x in c.iter_mut() {
                *x = _mm256_fmadd_ps(*x, a, b);
            }
        }
        let mut out = [0.0f32; 8];
        let mut sum = _mm256_setzero_ps();
        for x in c {
            sum = _mm256_add_ps(sum, x);
        }
        _mm256_storeu_ps(out.as_mut_ptr(), sum);
        out.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }

    /// The convolution straight from its definition on the unpadded grid.
    fn reference(c: &Conv3, inp: &[f32], res: Option<&[f32]>) -> Vec<f32> {
        let Grid { rows, cols } = c.grid;
        let mut out = vec![0.0f32; c.grid.pad_cells() * c.cout];
        for y in 0..rows as i64 {
            for x in 0..cols as i64 {
                for co in 0..c.cout {
                    let mut s = c.b[co] as f64;
                    for dy in -1..=1i64 {
                        for dx in -1..=1i64 {
                            let (yy, xx) = (y + dy, x + dx);
                            if !(0..rows as i64).contains(&yy) || !(0..cols as i64).contains(&xx) {
                                continue;
                            }
                            let t = ((dy + 1) * 3 + dx + 1) as usize;
                            let n = c.grid.padded((yy * cols as i64 + xx) as usize);
                            for ci in 0..c.cin {
                                s += inp[n * c.cin + ci] as f64 * c.w[(t * c.cin + ci) * c.cout + co] as f64;
                            }
                        }
                    }
                    let o = c.grid.padded((y * cols as i64 + x) as usize) * c.cout + co;
                    if let Some(r) = res {
                        s += r[o] as f64;
                    }
                    out[o] = s.max(0.0) as f32;
                }
            }
        }
        out
    }

    /// Both kernels on the two-player board, the four-player 17 × 17 grid
    /// and grids whose rows end in blocks of one to four cells.
    #[test]
    fn both_kernels_match_the_definition() {
        let mut seed = 5;
        // Rows of 5, 17 (5+5+5+2), 9 (5+4), 3 and 6 (5+1) cells.
        let grids = [
            BOARD,
            Grid { rows: 17, cols: 17 },
            Grid { rows: 3, cols: 9 },
            Grid { rows: 2, cols: 3 },
            Grid { rows: 2, cols: 6 },
        ];
        for (cin, cout, grid) in [
            (32, 32, BOARD),
            (27, 16, BOARD),
            (8, 24, BOARD),
            (5, 3, BOARD),
            (74, 16, grids[1]),
            (16, 32, grids[1]),
            (5, 3, grids[1]),
            (7, 16, grids[2]),
            (7, 16, grids[3]),
            (7, 16, grids[4]),
        ] {
            let w = (0..9 * cin * cout).map(|_| lcg(&mut seed)).collect();
            let b = (0..cout).map(|_| lcg(&mut seed)).collect();
            let conv = Conv3::on(grid, cin, cout, w, b);
            let pad = grid.pad_cells();
            let mut inp = vec![0.0f32; pad * cin];
            for n in 0..grid.cells() {
                for ci in 0..cin {
                    inp[grid.padded(n) * cin + ci] = lcg(&mut seed);
                }
            }
            let res: Vec<f32> = (0..pad * cout).map(|_| lcg(&mut seed)).collect();
            for r in [None, Some(res.as_slice())] {
                let want = reference(&conv, &inp, r);
                for simd in [false, simd_available()] {
                    let mut out = vec![0.0f32; pad * cout];
                    conv.forward(&inp, r, &mut out, simd);
                    for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                        assert!((a - b).abs() < 1e-4, "{cin}->{cout} on {grid:?} simd {simd}: {i}: {a} vs {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn dense_layers_and_dots_match_their_definition() {
        let mut seed = 9;
        for cout in [3, 13, 16, 40] {
            let d = Dense::new(
                7,
                cout,
                (0..7 * cout).map(|_| lcg(&mut seed)).collect(),
                (0..cout).map(|_| lcg(&mut seed)).collect(),
            );
            let x: Vec<f32> = (0..21).map(|_| lcg(&mut seed)).collect();
            let mut out = vec![0.0; 3 * cout];
            d.forward(&x, &mut out, true);
            for r in 0..3 {
                for co in 0..cout {
                    let s: f32 = d.b[co] + (0..7).map(|ci| x[r * 7 + ci] * d.w[ci * cout + co]).sum::<f32>();
                    assert!((out[r * cout + co] - s.max(0.0)).abs() < 1e-5, "{cout}");
                }
            }
        }
        let a: Vec<f32> = (0..19).map(|_| lcg(&mut seed)).collect();
        let b: Vec<f32> = (0..19).map(|_| lcg(&mut seed)).collect();
        let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - want).abs() < 1e-5);
    }

    #[test]
    fn every_peak_measures_a_positive_rate() {
        let t = std::time::Duration::from_millis(20);
        let fp32 = peak_gflops(t);
        assert!(fp32.is_finite() && fp32 > 0.0, "{fp32}");
        // The reduced precisions answer only where the CPU has their instructions.
        for peak in [crate::cpu::bf16::peak_gflops(t), crate::cpu::int8::peak_gops(t)].into_iter().flatten() {
            assert!(peak.is_finite() && peak > 0.0, "{peak}");
        }
        // The shared loop counts what each round reports over the time it took.
        let rate = rate_for(t, || 1_000);
        assert!(rate.is_finite() && rate > 0.0, "{rate}");
    }
}
