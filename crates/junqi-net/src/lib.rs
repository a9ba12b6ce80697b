//! # junqi-net
//!
//! The policy/value nets of `junqi-train`, used without libtorch:
//!
//! * [`NetFile`]: the safetensors files `junqi-train` writes (exported nets
//!   and checkpoints), read and checked.
//! * [`CpuNet`]: the forward pass on the CPU in plain Rust, from the compact
//!   observation ([`junqi_env::ObsCode`]) to the probabilities of the legal
//!   actions and win/draw/loss.
//! * [`InferenceService`]: one per net per process; batches the positions
//!   of every game in flight, with an evaluation cache ([`EvalCache`]).
//! * [`bots`]: the `net:…` and `mcts:…,eval=net:…` bots.
//! * Four-player (四国) nets ([`NetGame::Siguo`]): the same files under
//!   their own format, their CPU forward pass ([`SiguoCpuNet`]) behind the
//!   same inference service ([`SiguoNet`]), and the four-player `net:FILE`
//!   player and search evaluator (`mcts:…,eval=net:FILE`, [`siguo_bots`]).
//!
//! See `docs/training.md` for the architecture.

pub mod bots;
mod cache;
pub mod cpu;
mod file;
mod model;
pub mod service;
pub mod siguo_bots;

pub use bots::{
    default_net_for, inference_settings, register_net_bots, release_shared_services, resolve_net_path,
    set_inference_settings, shared_net, shared_net_in, shared_service, shared_stats, BackendMaker, InferenceSettings,
    NetAgent, NetEvaluator, NetExtras, NetPrecision, ANQI_NET, FANQI_DECISIVE_NET, FANQI_NET, SHIPPED_NETS, SIGUO_NET,
};
pub use cache::EvalCache;
pub use cpu::{CpuFeatures, CpuNet, Precision, Scratch, SiguoCpuNet, SiguoEvaluation, SiguoInput, SiguoScratch};
pub use file::{
    fnv1a, write_safetensors, NetFile, CHECKPOINT_FORMAT, FNV_START, MAX_NET_BYTES, NET_FORMAT,
    SIGUO_CHECKPOINT_FORMAT, SIGUO_NET_FORMAT,
};
pub use model::{width_refusal, ModelConfig, NetGame, PolicyHead, BELIEF_KINDS};
pub use service::{
    Backend, BackendFactory, CpuBackend, CpuEngine, InferenceService, Query, ServiceOptions, StatsSnapshot, Ticket,
};
pub use siguo_bots::{shared_siguo_net, siguo_net_player, SiguoNet, SiguoNetEvaluator, SiguoNetPlayer};

use junqi_core::{Move, Seat};
use junqi_env::{action_to_frame, ObsCode};
use std::path::PathBuf;

/// What the net is asked about one position: the mover's compact
/// observation and its legal actions (ids in the mover's frame, ascending),
/// and whether the belief head's answer is wanted too. The whole value is
/// the evaluation cache's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NetInput {
    pub code: ObsCode,
    pub legal: Vec<u16>,
    /// Ask for [`Evaluation::belief`] (a net without a belief head gives none).
    pub belief: bool,
}

impl NetInput {
    /// The input for `moves` (absolute moves of `seat`, any order), and for
    /// each move its place in the input's ascending list of ids (so answers
    /// can be put back in the moves' order).
    pub fn from_moves(code: ObsCode, moves: &[Move], seat: Seat) -> (NetInput, Vec<usize>) {
        let mut ids: Vec<(u16, usize)> =
            moves.iter().enumerate().map(|(i, &m)| (action_to_frame(m, seat) as u16, i)).collect();
        ids.sort_unstable();
        let mut place = vec![0; moves.len()];
        for (k, &(_, i)) in ids.iter().enumerate() {
            place[i] = k;
        }
        (NetInput { code, legal: ids.into_iter().map(|(id, _)| id).collect(), belief: false }, place)
    }

    /// A 64-bit hash of the whole input.
    pub fn hash64(&self) -> u64 {
        let mut h = self.code.hash64();
        for &a in &self.legal {
            h = (h.rotate_left(5) ^ a as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        h ^ self.legal.len() as u64 ^ (self.belief as u64) << 63
    }
}

/// The net's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities of the requested legal actions, in request order (they sum to 1).
    pub priors: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// When asked for and the net has a belief head: for every node of the
    /// mover's frame (`node * 12 + kind`, [`junqi_core::Kind::index`]
    /// order), the probability of each kind for the piece standing there.
    pub belief: Option<Vec<f32>>,
}

impl Evaluation {
    /// Expected score in [-1, 1]: P(win) - P(loss).
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// What can go wrong loading or serving a net.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    // The cause is part of the message (not a `source`), so error chains print it once.
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    /// A file that is not a usable net.
    #[error("{}: not a usable net: {message}", path.display())]
    File { path: PathBuf, message: String },
    #[error("{0}")]
    Config(String),
}

impl NetError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> NetError {
        let path = path.into();
        move |cause| NetError::Io { path, cause }
    }
}
