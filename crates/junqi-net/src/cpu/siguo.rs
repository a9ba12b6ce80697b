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
//! features at the 129 cells that are nodes. FP32 only.

use super::kernels::{Conv3, Grid};
use super::{conv3, gather_nodes, residual_blocks, run_blocks, CpuFeatures, HeadScratch, Heads};
use crate::file::NetFile;
use crate::model::{ModelConfig, NetGame};
use crate::{Evaluation, NetError};
use junqi_siguo::observation::{action_index, encode_into, CELLS, OBS_LEN, PLANES};
use junqi_siguo::{Move, MoveList, SiguoInfoSet};
use std::path::Path;

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
    /// The observation as a padded board, `[padded cell][plane]`.
    input: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    flat: Vec<f32>,
    heads: HeadScratch,
    moves: MoveList,
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

    /// Buffers for [`SiguoCpuNet::evaluate`].
    pub fn scratch(&self) -> SiguoScratch {
        let (ch, pad) = (self.model.channels, self.grid.pad_cells());
        SiguoScratch {
            obs: vec![0.0; OBS_LEN],
            input: vec![0.0; pad * PLANES],
            a: vec![0.0; pad * ch],
            b: vec![0.0; pad * ch],
            c: vec![0.0; pad * ch],
            flat: vec![0.0; self.node_cells.len() * ch],
            heads: self.heads.scratch(&self.model),
            moves: MoveList::new(),
        }
    }

    /// The net's answer for `info`'s seat, from what that seat knows only:
    /// its legal moves (none when it is not to move) with their
    /// probabilities, and win/draw/loss for its team; with `belief` (and a
    /// belief head) the kind probabilities at every seat-relative node.
    pub fn evaluate(&self, info: &SiguoInfoSet, belief: bool, s: &mut SiguoScratch) -> SiguoEvaluation {
        encode_into(info, &mut s.obs).expect("the scratch holds one observation");
        info.legal_moves(&mut s.moves);
        let moves: Vec<Move> = s.moves.iter().copied().collect();
        let seat = info.seat();
        let legal: Vec<u16> = moves.iter().map(|&mv| action_index(seat, mv) as u16).collect();
        let obs = std::mem::take(&mut s.obs);
        let evaluation = self.evaluate_planes(&obs, &legal, belief, s);
        s.obs = obs;
        SiguoEvaluation { moves, evaluation }
    }

    /// The net's answer for the observation `obs` (`junqi_siguo::observation`'s
    /// planes, [`OBS_LEN`] floats) and the actions `legal` (`from × 129 +
    /// to`, seat-relative nodes, any order): their probabilities in that
    /// order, win/draw/loss, and the belief if asked for and present.
    pub fn evaluate_planes(&self, obs: &[f32], legal: &[u16], belief: bool, s: &mut SiguoScratch) -> Evaluation {
        assert_eq!(obs.len(), OBS_LEN, "an observation of the four-player board");
        let ch = self.model.channels;
        s.input.fill(0.0);
        for (plane, values) in obs.chunks_exact(CELLS).enumerate() {
            for (cell, &v) in values.iter().enumerate() {
                s.input[self.grid.padded(cell) * PLANES + plane] = v;
            }
        }
        self.stem.forward(&s.input, None, &mut s.a, self.simd);
        run_blocks(&self.blocks, &mut s.a, &mut s.b, &mut s.c, self.simd);
        gather_nodes(&s.a, self.node_cells.iter().copied(), ch, &mut s.flat);
        let priors = self.heads.policy(&s.flat, legal, &mut s.heads);
        let wdl = self.heads.wdl(&s.flat, &mut s.heads);
        let belief = if belief { self.heads.belief(&s.flat) } else { None };
        Evaluation { priors, wdl, belief }
    }
}
