//! The forward pass of a four-player (四国) net on the CPU: the net of
//! `junqi-train` built for [`NetGame::Siguo`], from one seat's
//! [`SiguoInfoSet`] (encoded by `junqi_siguo::observation`, seat-relative)
//! to the probabilities of that seat's legal moves, its team's win, draw
//! and loss, and, with a belief head, each node's kind probabilities.
//!
//! The same trunk and heads as the two-player [`CpuNet`](super::CpuNet)
//! (batch norm folded, only the legal actions' logits), on the 17 × 17 grid:
//! the stem is a plain 3×3 convolution of the 74 planes, the residual
//! blocks run on the padded 19 × 19 grid, and the heads read the trunk's
//! features at the 129 cells that are nodes. FP32 only; the trunk's
//! convolutions run in the two-player net's kernels ([`Conv3`]: AVX2/FMA
//! where the CPU has them, 16 output channels at a time). The stem adds up
//! only the observation's nonzero values ([`sparse_stem`]): most of the 74
//! planes are 0 at most cells, and the dense stem was over a third of the
//! work of a 2 × 32 net.
//!
//! What the net is asked is a [`SiguoInput`]: the seat's observation code
//! ([`SiguoCode`], from which the planes are rebuilt exactly), its legal
//! actions and whether the belief is wanted. That is what the batching
//! inference service takes for a four-player net, and its cache's key.

use super::kernels::{Conv3, Grid};
use super::{conv3, gather_nodes, residual_blocks, run_blocks, CpuFeatures, HeadScratch, Heads};
use crate::file::NetFile;
use crate::model::{ModelConfig, NetGame};
use crate::service::{CpuEngine, Query};
use crate::{Evaluation, NetError};
use junqi_siguo::observation::{action_index, OBS_LEN, PLANES};
use junqi_siguo::{Move, MoveList, SiguoCode, SiguoInfoSet};
use std::path::Path;

/// What a four-player net is asked about one seat's position: its
/// observation code, its legal actions (`from × 129 + to`, seat-relative
/// nodes, in the order the answer's priors follow) and whether the belief
/// is wanted. The whole value is the evaluation cache's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiguoInput {
    pub code: SiguoCode,
    pub legal: Vec<u16>,
    pub belief: bool,
}

impl SiguoInput {
    /// The input for `info`'s seat, with its legal moves (none when it is
    /// not to move) in the order of [`SiguoInput::legal`].
    pub fn of(info: &SiguoInfoSet, belief: bool) -> (SiguoInput, Vec<Move>) {
        let mut list = MoveList::new();
        info.legal_moves(&mut list);
        let moves: Vec<Move> = list.iter().copied().collect();
        let seat = info.seat();
        let legal = moves.iter().map(|&mv| action_index(seat, mv) as u16).collect();
        (SiguoInput { code: SiguoCode::of(info), legal, belief }, moves)
    }
}

impl Query for SiguoInput {
    fn hash64(&self) -> u64 {
        let c = &self.code;
        let header = [c.seat.index() as u32, c.to_move as u32, c.ended as u32, c.rule_flags as u32];
        let numbers = [c.quiet, c.ply, c.no_progress_plies, c.max_plies];
        let words = header.into_iter().chain(numbers).chain(c.nodes.iter().map(|&n| n as u32));
        let words = words.chain(self.legal.iter().map(|&a| a as u32)).chain([self.legal.len() as u32]);
        let h = words.fold(0u64, |h, x| (h.rotate_left(5) ^ x as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95));
        h ^ (self.belief as u64) << 63
    }
}

/// A four-player net ready to evaluate positions on the CPU. Immutable:
/// share it between threads, each with its own [`SiguoScratch`].
#[derive(Clone, Debug)]
pub struct SiguoCpuNet {
    model: ModelConfig,
    simd: bool,
    grid: Grid,
    stem: Conv3,
    blocks: Vec<(Conv3, Conv3)>,
    heads: Heads,
    /// The padded cell of every node, in node order.
    node_cells: Vec<usize>,
}

/// Buffers of one evaluating thread.
#[derive(Clone, Debug)]
pub struct SiguoScratch {
    obs: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    flat: Vec<f32>,
    heads: HeadScratch,
}

/// The net's answer for one seat: its legal moves and, in their order, the
/// evaluation ([`Evaluation::priors`] one per move; [`Evaluation::wdl`]
/// for the seat's team; [`Evaluation::belief`] per seat-relative node).
#[derive(Clone, Debug, PartialEq)]
pub struct SiguoEvaluation {
    pub moves: Vec<Move>,
    pub evaluation: Evaluation,
}

impl SiguoCpuNet {
    /// Read and prepare the four-player net at `path` (a two-player net is
    /// refused by name).
    pub fn load(path: &Path) -> Result<SiguoCpuNet, NetError> {
        SiguoCpuNet::from_file(&NetFile::read_game(path, NetGame::Siguo)?)
    }

    pub fn from_file(file: &NetFile) -> Result<SiguoCpuNet, NetError> {
        file.expect_game(NetGame::Siguo)?;
        let m = file.model.clone();
        m.check_planes(NetGame::Siguo).map_err(|message| NetError::File { path: file.path.clone(), message })?;
        let grid = NetGame::Siguo.grid();
        let nodes = NetGame::Siguo.nodes();
        Ok(SiguoCpuNet {
            simd: CpuFeatures::detect().avx2_fma,
            grid,
            stem: conv3(file, grid, "stem", PLANES, m.channels)?,
            blocks: residual_blocks(file, &m, grid)?,
            heads: Heads::load(file, &m, nodes)?,
            node_cells: NetGame::Siguo.node_cells().into_iter().map(|c| grid.padded(c)).collect(),
            model: m,
        })
    }

    pub fn model(&self) -> &ModelConfig {
        &self.model
    }

    /// Use the portable kernels even where AVX2 is available (tests compare the two).
    pub fn portable(mut self) -> SiguoCpuNet {
        self.simd = false;
        self
    }

    /// Buffers for [`SiguoCpuNet::evaluate`].
    pub fn scratch(&self) -> SiguoScratch {
        let (ch, pad) = (self.model.channels, self.grid.pad_cells());
        SiguoScratch {
            obs: vec![0.0; OBS_LEN],
            a: vec![0.0; pad * ch],
            b: vec![0.0; pad * ch],
            c: vec![0.0; pad * ch],
            flat: vec![0.0; self.node_cells.len() * ch],
            heads: self.heads.scratch(&self.model),
        }
    }

    /// The net's answer for `info`'s seat, from what that seat knows only:
    /// its legal moves (none when it is not to move) with their
    /// probabilities, and win/draw/loss for its team; with `belief` (and a
    /// belief head) the kind probabilities at every seat-relative node.
    pub fn evaluate(&self, info: &SiguoInfoSet, belief: bool, s: &mut SiguoScratch) -> SiguoEvaluation {
        let (input, moves) = SiguoInput::of(info, belief);
        SiguoEvaluation { moves, evaluation: self.evaluate_input(&input, s) }
    }

    /// The net's answer to `input`: the probabilities of its legal actions
    /// in their order, win/draw/loss, and the belief if asked for and present.
    pub fn evaluate_input(&self, input: &SiguoInput, s: &mut SiguoScratch) -> Evaluation {
        let mut obs = std::mem::take(&mut s.obs);
        input.code.planes_into(&mut obs).expect("the scratch holds one observation");
        let evaluation = self.evaluate_planes(&obs, &input.legal, input.belief, s);
        s.obs = obs;
        evaluation
    }

    /// The net's answer for the observation `obs` (`junqi_siguo::observation`'s
    /// planes, [`OBS_LEN`] floats) and the actions `legal` (`from × 129 +
    /// to`, seat-relative nodes, any order): their probabilities in that
    /// order, win/draw/loss, and the belief if asked for and present.
    pub fn evaluate_planes(&self, obs: &[f32], legal: &[u16], belief: bool, s: &mut SiguoScratch) -> Evaluation {
        assert_eq!(obs.len(), OBS_LEN, "an observation of the four-player board");
        let ch = self.model.channels;
        sparse_stem(&self.stem, obs, &mut s.a, self.simd);
        run_blocks(&self.blocks, &mut s.a, &mut s.b, &mut s.c, self.simd);
        gather_nodes(&s.a, self.node_cells.iter().copied(), ch, &mut s.flat);
        let priors = self.heads.policy(&s.flat, legal, &mut s.heads);
        let wdl = self.heads.wdl(&s.flat, &mut s.heads);
        let belief = if belief { self.heads.belief(&s.flat) } else { None };
        Evaluation { priors, wdl, belief }
    }
}

/// The stem, `out = relu(conv(obs) + b)` on the padded board `out`
/// (`[pad cells][cout]`, its border left 0), as a scatter of the nonzero
/// values of `obs` (`[plane][cell]`, the grid's cells unpadded): each
/// adds its weight row to the (up to) nine outputs whose 3×3 window holds
/// it. The same sums as [`Conv3::forward`] over the padded planes, in
/// another order (so equal within float rounding).
fn sparse_stem(stem: &Conv3, obs: &[f32], out: &mut [f32], simd: bool) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is only set when the CPU has AVX2 and FMA.
        return unsafe { sparse_stem_avx2(stem, obs, out) };
    }
    let _ = simd;
    sparse_stem_body(stem, obs, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sparse_stem_avx2(stem: &Conv3, obs: &[f32], out: &mut [f32]) {
    sparse_stem_body(stem, obs, out)
}

#[inline(always)]
fn sparse_stem_body(stem: &Conv3, obs: &[f32], out: &mut [f32]) {
    let (grid, cin, cout) = (stem.grid, stem.cin, stem.cout);
    assert_eq!(obs.len(), grid.cells() * cin, "the stem's planes");
    assert_eq!(out.len(), grid.pad_cells() * cout, "the stem's padded board");
    let pad_cols = grid.cols + 2;
    out.fill(0.0);
    for cell in 0..grid.cells() {
        let o = grid.padded(cell) * cout;
        out[o..o + cout].copy_from_slice(&stem.b);
    }
    for (ci, plane) in obs.chunks_exact(grid.cells()).enumerate() {
        for (cell, &v) in plane.iter().enumerate() {
            if v == 0.0 {
                continue;
            }
            // Output (y, x) reads padded input (y + ty, x + tx) with tap t = ty * 3 + tx;
            // this value is at padded (row + 1, col + 1).
            let (row, col) = (cell / grid.cols, cell % grid.cols);
            for t in 0..9 {
                let (y, x) = ((row + 1).wrapping_sub(t / 3), (col + 1).wrapping_sub(t % 3));
                if y >= grid.rows || x >= grid.cols {
                    continue;
                }
                let o = ((y + 1) * pad_cols + x + 1) * cout;
                let w = &stem.w[(t * cin + ci) * cout..(t * cin + ci + 1) * cout];
                for (a, &wv) in out[o..o + cout].iter_mut().zip(w) {
                    *a += v * wv;
                }
            }
        }
    }
    for a in out.iter_mut() {
        *a = a.max(0.0);
    }
}

impl CpuEngine for SiguoCpuNet {
    type Query = SiguoInput;
    type Scratch = SiguoScratch;
    fn scratch(&self) -> SiguoScratch {
        SiguoCpuNet::scratch(self)
    }
    fn answer(&self, input: &SiguoInput, scratch: &mut SiguoScratch) -> Evaluation {
        self.evaluate_input(input, scratch)
    }
    fn describe(&self) -> String {
        if self.simd { "avx2+fma" } else { "portable" }.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_siguo::observation::CELLS;
    use junqi_siguo::{Mode, Position, Rules};
    use rand::{Rng, SeedableRng};

    /// The scatter stem equals the dense 3×3 convolution of the padded
    /// planes, with and without AVX2, on observations of random 四国 games
    /// in every mode (and on random planes, every value nonzero).
    #[test]
    fn the_sparse_stem_equals_the_dense_convolution() {
        let grid = NetGame::Siguo.grid();
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let cout = 32;
        let w: Vec<f32> = (0..9 * PLANES * cout).map(|_| rng.random_range(-1.0..1.0)).collect();
        let b: Vec<f32> = (0..cout).map(|_| rng.random_range(-1.0..1.0)).collect();
        let stem = Conv3::on(grid, PLANES, cout, w, b);
        let mut observations = Vec::new();
        let mut moves = MoveList::new();
        for (deal, mode) in [Mode::Anqi, Mode::Shuangming, Mode::Quanming].into_iter().enumerate() {
            let mut pos = Position::new_game(Rules::preset(mode), deal as u64);
            for _ in 0..40 {
                let mut obs = vec![0.0; OBS_LEN];
                SiguoCode::of(&SiguoInfoSet::new(&pos, pos.turn())).planes_into(&mut obs).unwrap();
                observations.push(obs);
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let mv = moves.iter().copied().nth(rng.random_range(0..moves.len())).unwrap();
                pos.play_unchecked(mv);
            }
        }
        observations.push((0..OBS_LEN).map(|_| rng.random_range(0.1..1.0)).collect());
        let pad = grid.pad_cells();
        let (mut dense, mut sparse) = (vec![0.0; pad * cout], vec![7.0; pad * cout]);
        for obs in &observations {
            let mut input = vec![0.0; pad * PLANES];
            for (plane, values) in obs.chunks_exact(CELLS).enumerate() {
                for (cell, &v) in values.iter().enumerate() {
                    input[grid.padded(cell) * PLANES + plane] = v;
                }
            }
            for simd in [false, crate::cpu::kernels::simd_available()] {
                dense.fill(0.0);
                stem.forward(&input, None, &mut dense, simd);
                sparse_stem(&stem, obs, &mut sparse, simd);
                for (i, (x, y)) in dense.iter().zip(&sparse).enumerate() {
                    assert!(
                        (x - y).abs() <= 1e-4 * (1.0 + x.abs()),
                        "cell {} channel {}: {x} vs {y}",
                        i / cout,
                        i % cout
                    );
                }
            }
        }
        assert!(observations.len() > 60, "{}", observations.len());
    }
}
