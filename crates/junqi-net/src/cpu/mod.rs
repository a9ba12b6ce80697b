//! The forward pass on the CPU, in plain Rust: the net of `junqi-train`
//! (`Net`) computed from the compact observation ([`ObsCode`]) for the
//! legal actions only.
//!
//! What it does differently from the libtorch forward pass, each exact up
//! to the order of floating-point sums:
//!
//! * **Batch norm folded** into the preceding convolution (inference only).
//! * **The stem reads the code, not 132 planes.** The 53 per-node planes
//!   (27 of pieces, 8 of the last actions, 18 of loose flags and mountains)
//!   are 0/1, so the 3×3 stem adds one weight vector per set node and tap (a
//!   few hundred vector adds instead of 53 × 9 × 60 multiply-adds per output
//!   channel). A net made before the history planes reads the first 100 and
//!   ignores the rest, one made before the rule-state planes the first 110.
//!   The 76 planes that are constant over the board contribute
//!   `value × (the 3×3 convolution of an all-ones plane)`, a map computed
//!   once at load time; the three static board planes are a fixed map.
//! * **Only the legal actions' logits**: the policy head's embeddings are
//!   computed for all 60 nodes, then one dot product per legal action, and
//!   the softmax runs over the legal actions (in the libtorch net the other
//!   3,600 − n logits are masked to probability exactly 0).
//!
//! The trunk's 3×3 convolutions, nearly all of the work, run in
//! [`kernels::Conv3`] (FP32), or in bf16 ([`bf16::Conv3Bf16`]) or int8
//! ([`int8::Conv3Int8`]) where asked for ([`CpuNet::with_precision`]) and
//! the CPU has the instructions ([`precision`]).

pub mod bf16;
pub mod int8;
pub mod kernels;
pub mod precision;
pub mod siguo;

use crate::file::NetFile;
use crate::model::{ModelConfig, NetGame, PolicyHead, BELIEF_KINDS};
use crate::{Evaluation, NetError};
use bf16::Conv3Bf16;
use int8::Conv3Int8;
use junqi_env::observation::{varies_per_node, CAMP, NET_WIDTHS, OBS_CHANNELS, PLANE, RAIL};
use junqi_env::ObsCode;
use kernels::{axpy, dot, padded, Conv3, Dense, Grid, BOARD, NODES, PAD_NODES};
pub use precision::{CpuFeatures, Precision};
pub use siguo::{SiguoCpuNet, SiguoEvaluation, SiguoInput, SiguoScratch};
use std::path::Path;

/// Batch norm's epsilon in `junqi-train` (libtorch's default).
const BN_EPS: f32 = 1e-5;
/// The planes that vary per node and are 0/1 (all but the static board).
fn is_spatial(plane: usize) -> bool {
    varies_per_node(plane) && !(CAMP..=RAIL).contains(&plane)
}

/// A net ready to evaluate positions on the CPU. Immutable: share it
/// between threads, each with its own [`Scratch`].
#[derive(Clone, Debug)]
pub struct CpuNet {
    model: ModelConfig,
    simd: bool,
    /// The planes the net reads: all of them, or the first 100 or 110 for a
    /// net made before the history or the rule-state planes (it ignores the rest).
    planes: usize,
    /// `[plane][tap][channel]` for the per-node planes (zero for the others).
    stem_taps: Vec<f32>,
    /// Per constant plane (indexed by plane; empty for the others): its
    /// contribution per unit value, `[edge pattern][channel]` (a constant
    /// plane's 3×3 convolution depends only on which neighbours of a node
    /// are on the board: 9 patterns, see [`edge_pattern`]).
    stem_constant: Vec<Vec<f32>>,
    /// Bias, plus the static board planes' contribution: `[node][channel]`.
    stem_base: Vec<f32>,
    /// For each node, the (output node, tap) pairs it feeds through the 3×3 stem.
    node_taps: Vec<Vec<(usize, usize)>>,
    blocks: Vec<(Conv3, Conv3)>,
    /// The residual blocks in the reduced precision in use, if any.
    reduced: Reduced,
    heads: Heads,
}

/// The heads on the trunk's features at the board's nodes: the policy,
/// the value and the belief head, the same for both games' nets (only the
/// node count differs).
#[derive(Clone, Debug)]
struct Heads {
    nodes: usize,
    channels: usize,
    policy: Policy,
    value_conv: Dense,
    value_fc: Dense,
    value_out: Dense,
    /// The belief head's 1×1 convolution to 12 kind logits per node, if any.
    belief: Option<Dense>,
}

/// The trunk's convolutions in a reduced precision (the FP32 ones are kept
/// for [`Reduced::None`]).
#[derive(Clone, Debug)]
enum Reduced {
    None,
    Bf16(Vec<(Conv3Bf16, Conv3Bf16)>),
    /// Every block but the first, which runs its FP32 convolutions.
    Int8(Vec<(Conv3Int8, Conv3Int8)>),
}

#[derive(Clone, Debug)]
enum Policy {
    /// `[to][channel]` weights and `[to]` biases: logit(from, to) = x[from] · w[to] + b[to].
    Conv { w: Vec<f32>, b: Vec<f32> },
    /// q and k embeddings; logit = q[from] · k[to] / √channels.
    Bilinear { q: Dense, k: Dense, scale: f32 },
}

/// Buffers of one evaluating thread.
#[derive(Clone, Debug)]
pub struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    flat: Vec<f32>,
    heads: HeadScratch,
    patterns: Vec<f32>,
    /// The input board of a convolution in bf16 or 8 bits.
    xb: Vec<u16>,
    xq: Vec<u8>,
}

/// The per-output-channel scale and shift of a batch norm.
fn bn_fold(file: &NetFile, prefix: &str, n: usize) -> Result<(Vec<f32>, Vec<f32>), NetError> {
    let gamma = file.tensor(&format!("{prefix}.weight"), &[n])?;
    let beta = file.tensor(&format!("{prefix}.bias"), &[n])?;
    let mean = file.tensor(&format!("{prefix}.running_mean"), &[n])?;
    let var = file.tensor(&format!("{prefix}.running_var"), &[n])?;
    let scale: Vec<f32> = (0..n).map(|i| gamma[i] / (var[i] + BN_EPS).sqrt()).collect();
    let shift = (0..n).map(|i| beta[i] - mean[i] * scale[i]).collect();
    Ok((scale, shift))
}

/// Buffers of the heads.
#[derive(Clone, Debug)]
struct HeadScratch {
    q: Vec<f32>,
    k: Vec<f32>,
    value: Vec<f32>,
    value_nchw: Vec<f32>,
    hidden: Vec<f32>,
    logits: Vec<f32>,
}

/// A 3×3 conv + batch norm on `grid` as a [`Conv3`]: torch weight `[cout][cin][3][3]`.
fn conv3(file: &NetFile, grid: Grid, prefix: &str, cin: usize, cout: usize) -> Result<Conv3, NetError> {
    let w = file.tensor(&format!("{prefix}.conv.weight"), &[cout, cin, 3, 3])?;
    let (scale, shift) = bn_fold(file, &format!("{prefix}.bn"), cout)?;
    let mut folded = vec![0.0; 9 * cin * cout];
    for co in 0..cout {
        for ci in 0..cin {
            for t in 0..9 {
                folded[(t * cin + ci) * cout + co] = w[(co * cin + ci) * 9 + t] * scale[co];
            }
        }
    }
    Ok(Conv3::on(grid, cin, cout, folded, shift))
}

/// The residual blocks of `m` on `grid`.
fn residual_blocks(file: &NetFile, m: &ModelConfig, grid: Grid) -> Result<Vec<(Conv3, Conv3)>, NetError> {
    let ch = m.channels;
    (0..m.blocks)
        .map(|i| {
            let half = |h: &str| conv3(file, grid, &format!("blocks.{i}.{h}"), ch, ch);
            Ok((half("a")?, half("b")?))
        })
        .collect()
}

/// The residual blocks in FP32 on the padded boards `a` (input, then
/// output), `b` and `c`: a → (b = relu(conv_a(a))) → (c = relu(conv_b(b) +
/// a)), then c is the next a.
#[inline(always)]
fn run_blocks(blocks: &[(Conv3, Conv3)], a: &mut Vec<f32>, b: &mut [f32], c: &mut Vec<f32>, simd: bool) {
    for (ca, cb) in blocks {
        ca.forward(a, None, b, simd);
        cb.forward(b, Some(a), c, simd);
        std::mem::swap(a, c);
    }
}

/// A 1×1 conv (`[cout][cin][1][1]`) or linear layer (`[cout][cin]`) as a
/// [`Dense`], scaled and shifted per output channel.
fn dense(w: &[f32], b: &[f32], cin: usize, cout: usize, scale: Option<&[f32]>) -> Dense {
    let s = |co: usize| scale.map_or(1.0, |s| s[co]);
    let mut t = vec![0.0; cin * cout];
    for co in 0..cout {
        for ci in 0..cin {
            t[ci * cout + co] = w[co * cin + ci] * s(co);
        }
    }
    Dense::new(cin, cout, t, b.to_vec())
}

/// The stem's 3×3 taps: for an output node and tap `t = dy * 3 + dx`, the
/// input node `(row + dy - 1, col + dx - 1)` if it is on the board.
fn tap_source(out: usize, t: usize) -> Option<usize> {
    let (r, c) = ((out / 5) as i64 + (t / 3) as i64 - 1, (out % 5) as i64 + (t % 3) as i64 - 1);
    ((0..12).contains(&r) && (0..5).contains(&c)).then_some((r * 5 + c) as usize)
}

impl CpuNet {
    /// Read and prepare the net at `path` (an exported net or a checkpoint).
    pub fn load(path: &Path) -> Result<CpuNet, NetError> {
        CpuNet::from_file(&NetFile::read(path)?)
    }

    pub fn from_file(file: &NetFile) -> Result<CpuNet, NetError> {
        file.expect_game(NetGame::TwoPlayer)?;
        let m = file.model.clone();
        let planes = m.in_channels;
        if !NET_WIDTHS.contains(&planes) {
            return Err(NetError::File { path: file.path.clone(), message: crate::model::width_refusal(planes) });
        }
        let ch = m.channels;
        // The stem, split by what its input planes are.
        let w = file.tensor("stem.conv.weight", &[ch, planes, 3, 3])?;
        let (scale, shift) = bn_fold(file, "stem.bn", ch)?;
        let wf = |co: usize, plane: usize, t: usize| w[(co * planes + plane) * 9 + t] * scale[co];
        let mut stem_taps = vec![0.0; planes * 9 * ch];
        for plane in (0..planes).filter(|&p| is_spatial(p)) {
            for t in 0..9 {
                for co in 0..ch {
                    stem_taps[(plane * 9 + t) * ch + co] = wf(co, plane, t);
                }
            }
        }
        // A constant plane of value 1 through the stem (zero padding at the edge).
        let plane_map = |plane: usize, on: &dyn Fn(usize) -> bool| -> Vec<f32> {
            let mut map = vec![0.0; NODES * ch];
            for out in 0..NODES {
                for t in 0..9 {
                    if tap_source(out, t).is_some_and(on) {
                        for co in 0..ch {
                            map[out * ch + co] += wf(co, plane, t);
                        }
                    }
                }
            }
            map
        };
        let mut stem_constant = vec![Vec::new(); OBS_CHANNELS];
        let static_planes = CAMP..CAMP + 3;
        for (plane, constant) in stem_constant.iter_mut().enumerate().take(planes) {
            if !is_spatial(plane) && !static_planes.contains(&plane) {
                let map = plane_map(plane, &|_| true);
                let mut by_pattern = vec![0.0; 9 * ch];
                for n in 0..NODES {
                    let p = edge_pattern(n);
                    by_pattern[p * ch..(p + 1) * ch].copy_from_slice(&map[n * ch..(n + 1) * ch]);
                }
                *constant = by_pattern;
            }
        }
        let mut stem_base: Vec<f32> = (0..NODES).flat_map(|_| shift.iter().copied()).collect();
        let statics = junqi_env::observation::static_planes();
        for plane in static_planes {
            let on = |n: usize| statics[(plane - CAMP) * PLANE + n] != 0.0;
            axpy(1.0, &plane_map(plane, &on), &mut stem_base);
        }
        let node_taps = (0..NODES)
            .map(|n| {
                (0..NODES)
                    .flat_map(|out| (0..9).map(move |t| (out, t)))
                    .filter(|&(out, t)| tap_source(out, t) == Some(n))
                    .collect()
            })
            .collect();

        let blocks = residual_blocks(file, &m, BOARD)?;
        let heads = Heads::load(file, &m, NODES)?;
        Ok(CpuNet {
            model: m,
            simd: CpuFeatures::detect().avx2_fma,
            planes,
            stem_taps,
            stem_constant,
            stem_base,
            node_taps,
            blocks,
            reduced: Reduced::None,
            heads,
        })
    }

    pub fn model(&self) -> &ModelConfig {
        &self.model
    }

    /// Whether the AVX2/FMA kernels are in use.
    pub fn uses_simd(&self) -> bool {
        self.simd
    }

    /// Use the portable kernels even where AVX2 is available (tests compare
    /// the two); FP32 only.
    pub fn portable(mut self) -> CpuNet {
        self.simd = false;
        self.reduced = Reduced::None;
        self
    }

    /// Run the trunk's convolutions in `wanted` where this CPU can
    /// ([`CpuFeatures::detect`], so `JUNQI_CPU_FEATURES` applies), else in
    /// FP32; [`CpuNet::precision`] says which.
    pub fn with_precision(mut self, wanted: Precision) -> CpuNet {
        let features = CpuFeatures::detect();
        let p = if self.simd { features.resolve(wanted) } else { Precision::Fp32 };
        fn all<T>(blocks: &[(Conv3, Conv3)], f: impl Fn(&Conv3) -> Option<T>) -> Option<Vec<(T, T)>> {
            blocks.iter().map(|(a, b)| Some((f(a)?, f(b)?))).collect()
        }
        self.reduced = match p {
            Precision::Fp32 => None,
            Precision::Bf16 => all(&self.blocks, Conv3Bf16::new).map(Reduced::Bf16),
            // The first block stays FP32: in int8 it alone cost `net:fanqi`
            // 0.26 points of argmax agreement with FP32 and its largest value
            // difference went 0.019 → 0.025 (crates/junqi-net/tests/net/precision.rs).
            // A net of one block would then run no int8 at all: it stays FP32
            // and says so.
            Precision::Int8 if self.blocks.len() < 2 => None,
            Precision::Int8 => all(&self.blocks[1..], Conv3Int8::new).map(Reduced::Int8),
        }
        .unwrap_or(Reduced::None);
        self
    }

    /// The arithmetic of the trunk's convolutions.
    pub fn precision(&self) -> Precision {
        match self.reduced {
            Reduced::None => Precision::Fp32,
            Reduced::Bf16(_) => Precision::Bf16,
            Reduced::Int8(_) => Precision::Int8,
        }
    }

    /// What computes the forward pass: `avx2+fma`, `portable`, `bf16
    /// (avx512-bf16)` or `int8 (avx512-vnni)`.
    pub fn describe(&self) -> &'static str {
        match (self.precision(), self.simd) {
            (Precision::Bf16, _) => "bf16 (avx512-bf16)",
            (Precision::Int8, _) => "int8 (avx512-vnni)",
            (Precision::Fp32, true) => "avx2+fma",
            (Precision::Fp32, false) => "portable",
        }
    }

    /// Buffers for [`CpuNet::evaluate`].
    pub fn scratch(&self) -> Scratch {
        let ch = self.model.channels;
        Scratch {
            a: vec![0.0; PAD_NODES * ch],
            b: vec![0.0; PAD_NODES * ch],
            c: vec![0.0; PAD_NODES * ch],
            flat: vec![0.0; NODES * ch],
            heads: self.heads.scratch(&self.model),
            patterns: vec![0.0; 9 * ch],
            xb: match self.reduced {
                Reduced::Bf16(_) => vec![0; PAD_NODES * ch],
                _ => Vec::new(),
            },
            xq: match self.reduced {
                Reduced::Int8(_) => vec![0; PAD_NODES * ch],
                _ => Vec::new(),
            },
        }
    }

    /// The net's answer for the seat whose observation is `code`: the
    /// probabilities of `legal` (action ids in that seat's frame, in the
    /// given order; they sum to 1) and win/draw/loss.
    pub fn evaluate(&self, code: &ObsCode, legal: &[u16], s: &mut Scratch) -> Evaluation {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is only set when the CPU has AVX2 and FMA.
            return unsafe { self.evaluate_avx2(code, legal, s) };
        }
        self.evaluate_body(code, legal, s)
    }

    /// [`CpuNet::evaluate`] compiled for AVX2/FMA, so the small loops of the
    /// stem and the heads (inlined into it) use 8-lane instructions too.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn evaluate_avx2(&self, code: &ObsCode, legal: &[u16], s: &mut Scratch) -> Evaluation {
        self.evaluate_body(code, legal, s)
    }

    #[inline(always)]
    fn evaluate_body(&self, code: &ObsCode, legal: &[u16], s: &mut Scratch) -> Evaluation {
        let ch = self.model.channels;
        self.stem(code, s);
        // Residual blocks: a → (b = relu(conv_a(a))) → (c = relu(conv_b(b) + a)), then c is the next a.
        match &self.reduced {
            Reduced::None => run_blocks(&self.blocks, &mut s.a, &mut s.b, &mut s.c, self.simd),
            Reduced::Bf16(blocks) => {
                for (ca, cb) in blocks {
                    bf16::to_bf16(&s.a, &mut s.xb);
                    ca.forward(&s.xb, None, &mut s.b);
                    bf16::to_bf16(&s.b, &mut s.xb);
                    cb.forward(&s.xb, Some(&s.a), &mut s.c);
                    std::mem::swap(&mut s.a, &mut s.c);
                }
            }
            Reduced::Int8(blocks) => {
                run_blocks(&self.blocks[..1], &mut s.a, &mut s.b, &mut s.c, self.simd);
                for (ca, cb) in blocks {
                    let scale = int8::quantize(&s.a, &mut s.xq);
                    ca.forward(&s.xq, scale, None, &mut s.b);
                    let scale = int8::quantize(&s.b, &mut s.xq);
                    cb.forward(&s.xq, scale, Some(&s.a), &mut s.c);
                    std::mem::swap(&mut s.a, &mut s.c);
                }
            }
        }
        gather_nodes(&s.a, (0..NODES).map(padded), ch, &mut s.flat);
        let priors = self.heads.policy(&s.flat, legal, &mut s.heads);
        let wdl = self.heads.wdl(&s.flat, &mut s.heads);
        Evaluation { priors, wdl, belief: None }
    }

    /// The belief head's answer for the position [`CpuNet::evaluate`] last
    /// evaluated with `s`: per node of the mover's frame, the probabilities
    /// of the 12 kinds (`node * 12 + kind`). `None` without a belief head.
    pub fn belief_after_evaluate(&self, s: &Scratch) -> Option<Vec<f32>> {
        self.heads.belief(&s.flat)
    }

    /// The stem into `s.a` (padded; the border stays 0).
    #[inline(always)]
    fn stem(&self, code: &ObsCode, s: &mut Scratch) {
        let ch = self.model.channels;
        // The constant planes: summed per edge pattern, then added per node.
        s.patterns.fill(0.0);
        for (plane, value) in code.constant_planes() {
            if value != 0.0 && plane < self.planes {
                axpy(value, &self.stem_constant[plane], &mut s.patterns);
            }
        }
        s.flat.copy_from_slice(&self.stem_base);
        for n in 0..NODES {
            let p = edge_pattern(n);
            axpy(1.0, &s.patterns[p * ch..(p + 1) * ch], &mut s.flat[n * ch..(n + 1) * ch]);
        }
        let (taps, flat) = (&self.stem_taps, &mut s.flat);
        let planes = self.planes;
        code.for_each_spatial(|plane, node| {
            if plane >= planes {
                return;
            }
            for &(out, t) in &self.node_taps[node] {
                let w = &taps[(plane * 9 + t) * ch..(plane * 9 + t + 1) * ch];
                axpy(1.0, w, &mut flat[out * ch..(out + 1) * ch]);
            }
        });
        s.a.fill(0.0);
        for n in 0..NODES {
            let dst = &mut s.a[padded(n) * ch..(padded(n) + 1) * ch];
            for (d, &v) in dst.iter_mut().zip(&s.flat[n * ch..(n + 1) * ch]) {
                *d = v.max(0.0);
            }
        }
    }
}

impl Heads {
    /// The heads of the net `m` in `file`, on `nodes` nodes.
    fn load(file: &NetFile, m: &ModelConfig, nodes: usize) -> Result<Heads, NetError> {
        let ch = m.channels;
        let policy = match m.policy_head {
            PolicyHead::Conv => {
                let w = file.tensor("policy.weight", &[nodes, ch, 1, 1])?;
                Policy::Conv { w: w.to_vec(), b: file.tensor("policy.bias", &[nodes])?.to_vec() }
            }
            PolicyHead::Bilinear => {
                let layer = |name: &str| -> Result<Dense, NetError> {
                    let w = file.tensor(&format!("{name}.weight"), &[ch, ch, 1, 1])?;
                    Ok(dense(w, file.tensor(&format!("{name}.bias"), &[ch])?, ch, ch, None))
                };
                Policy::Bilinear { q: layer("policy")?, k: layer("policy_to")?, scale: 1.0 / (ch as f32).sqrt() }
            }
        };
        let (vp, vh) = (m.value_planes, m.value_hidden);
        let (vscale, vshift) = bn_fold(file, "value.bn", vp)?;
        let value_conv = dense(file.tensor("value.conv.weight", &[vp, ch, 1, 1])?, &vshift, ch, vp, Some(&vscale));
        let value_fc = dense(
            file.tensor("value_fc.weight", &[vh, vp * nodes])?,
            file.tensor("value_fc.bias", &[vh])?,
            vp * nodes,
            vh,
            None,
        );
        let value_out =
            dense(file.tensor("value_out.weight", &[3, vh])?, file.tensor("value_out.bias", &[3])?, vh, 3, None);
        let belief = if m.belief {
            let w = file.tensor("belief.weight", &[BELIEF_KINDS, ch, 1, 1])?;
            Some(dense(w, file.tensor("belief.bias", &[BELIEF_KINDS])?, ch, BELIEF_KINDS, None))
        } else {
            None
        };
        Ok(Heads { nodes, channels: ch, policy, value_conv, value_fc, value_out, belief })
    }

    fn scratch(&self, m: &ModelConfig) -> HeadScratch {
        let (n, ch) = (self.nodes, self.channels);
        HeadScratch {
            q: vec![0.0; n * ch],
            k: vec![0.0; n * ch],
            value: vec![0.0; n * m.value_planes],
            value_nchw: vec![0.0; n * m.value_planes],
            hidden: vec![0.0; m.value_hidden],
            logits: Vec::new(),
        }
    }

    /// The probabilities of the actions `legal` (`from * nodes + to`, in
    /// the given order) from the trunk's features `flat` (`[node][channel]`).
    #[inline(always)]
    fn policy(&self, flat: &[f32], legal: &[u16], s: &mut HeadScratch) -> Vec<f32> {
        let (ch, nodes) = (self.channels, self.nodes);
        let ends = |id: u16| (id as usize / nodes, id as usize % nodes);
        s.logits.clear();
        match &self.policy {
            Policy::Conv { w, b } => {
                for &id in legal {
                    let (from, to) = ends(id);
                    s.logits.push(dot(&flat[from * ch..(from + 1) * ch], &w[to * ch..(to + 1) * ch]) + b[to]);
                }
            }
            Policy::Bilinear { q, k, scale } => {
                // The embeddings of the nodes some legal action starts or ends on only.
                let (mut froms, mut tos) = (NodeSet::default(), NodeSet::default());
                for &id in legal {
                    let (from, to) = ends(id);
                    froms.insert(from);
                    tos.insert(to);
                }
                for (layer, nodes, out) in [(q, froms, &mut s.q), (k, tos, &mut s.k)] {
                    nodes.for_each(|n| {
                        layer.forward(&flat[n * ch..(n + 1) * ch], &mut out[n * ch..(n + 1) * ch], false)
                    });
                }
                for &id in legal {
                    let (from, to) = ends(id);
                    s.logits.push(dot(&s.q[from * ch..(from + 1) * ch], &s.k[to * ch..(to + 1) * ch]) * scale);
                }
            }
        }
        let mut priors = Vec::with_capacity(legal.len());
        softmax_into(&s.logits, &mut priors);
        priors
    }

    /// Win, draw and loss from the trunk's features `flat`.
    #[inline(always)]
    fn wdl(&self, flat: &[f32], s: &mut HeadScratch) -> [f32; 3] {
        // 1×1 conv + BN + ReLU, flattened in the libtorch net's [plane][node] order.
        let (vp, nodes) = (self.value_conv.cout, self.nodes);
        self.value_conv.forward(flat, &mut s.value, true);
        for n in 0..nodes {
            for c in 0..vp {
                s.value_nchw[c * nodes + n] = s.value[n * vp + c];
            }
        }
        self.value_fc.forward(&s.value_nchw, &mut s.hidden, true);
        let mut out = [0.0f32; 3];
        self.value_out.forward(&s.hidden, &mut out, false);
        softmax_in_place(&mut out);
        out
    }

    /// Per node, the belief head's probabilities of the 12 kinds (`node *
    /// 12 + kind`); `None` without a belief head.
    fn belief(&self, flat: &[f32]) -> Option<Vec<f32>> {
        let head = self.belief.as_ref()?;
        let ch = self.channels;
        let mut out = Vec::with_capacity(self.nodes * BELIEF_KINDS);
        let mut logits = [0.0f32; BELIEF_KINDS];
        for n in 0..self.nodes {
            head.forward(&flat[n * ch..(n + 1) * ch], &mut logits, false);
            softmax_in_place(&mut logits);
            out.extend_from_slice(&logits);
        }
        Some(out)
    }
}

/// The features at the padded cells `cells` of the board `a` into `flat`
/// (`[node][channel]`, in the cells' order).
#[inline(always)]
fn gather_nodes(a: &[f32], cells: impl Iterator<Item = usize>, ch: usize, flat: &mut [f32]) {
    for (cell, dst) in cells.zip(flat.chunks_exact_mut(ch)) {
        dst.copy_from_slice(&a[cell * ch..(cell + 1) * ch]);
    }
}

/// A set of node indices below 192 (both games' boards).
#[derive(Clone, Copy, Default)]
struct NodeSet([u64; 3]);

impl NodeSet {
    #[inline(always)]
    fn insert(&mut self, n: usize) {
        self.0[n / 64] |= 1 << (n % 64);
    }

    /// `f` of every node in the set, ascending.
    #[inline(always)]
    fn for_each(self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut left = word;
            while left != 0 {
                f(w * 64 + left.trailing_zeros() as usize);
                left &= left - 1;
            }
        }
    }
}

/// Which of a node's neighbours are on the board: top row / middle / bottom
/// row, times left column / middle / right column.
#[inline(always)]
fn edge_pattern(n: usize) -> usize {
    let (r, c) = (n / 5, n % 5);
    let band = |x: usize, last: usize| {
        if x == 0 {
            0
        } else if x == last {
            2
        } else {
            1
        }
    };
    band(r, 11) * 3 + band(c, 4)
}

/// A numerically stable softmax of `logits` appended to `out` (nothing
/// for no logits), without a buffer of its own.
fn softmax_into(logits: &[f32], out: &mut Vec<f32>) {
    let start = out.len();
    out.extend_from_slice(logits);
    softmax_in_place(&mut out[start..]);
}

/// A numerically stable softmax, in place.
fn softmax_in_place(x: &mut [f32]) {
    let top = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in x.iter_mut() {
        *v = (*v - top).exp();
    }
    let sum: f32 = x.iter().sum();
    for v in x.iter_mut() {
        *v /= sum;
    }
}
