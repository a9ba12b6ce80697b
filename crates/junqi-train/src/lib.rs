//! # junqi-train
//!
//! A policy/value network for Junqi over the `[C, 12, 5]` observation
//! (`docs/observation.md`), trained through libtorch (`tch`) on the
//! `samples/` Parquet data that `junqi selfplay` writes (`docs/data.md`).
//! See `docs/training.md`.
//!
//! * [`Net`]: a residual convolutional net with a policy head over the 3,600
//!   from×to actions (illegal actions get probability exactly 0) and a
//!   win/draw/loss value head.
//! * [`TrainConfig`]: every setting, read from TOML, each with a default.
//! * [`DataWindow`] / [`Loader`]: the newest `window_games` games of a
//!   dataset, streamed through a shuffle buffer into [`Batch`]es.
//! * [`Trainer`]: one optimisation step ([`Trainer::train_step`]) with
//!   gradient clipping, returning [`StepMetrics`]; atomic checkpoints that
//!   a restart resumes from; safetensors export with the architecture in
//!   the file's metadata.
//! * [`Metrics`]: where scalars go: TensorBoard ([`TensorBoardMetrics`]), memory
//!   ([`MemoryMetrics`]) or nowhere ([`NoMetrics`]).
//! * [`train`]: the whole loop (resume, batches, logging, checkpoints);
//!   [`train_window`] for a caller that picks the data (the closed
//!   self-play → train → evaluate → promote loop lives in `junqi-loop`).
//! * [`deployments`]: learned 暗棋/明棋 deployments fitted into a net file.
//! * Four-player (四国) nets: [`Net::for_game`], written and read by
//!   [`init_siguo_net`], [`export_siguo_net`] and [`load_siguo_net`], and
//!   trained by [`train`] on four-player samples (`junqi-siguo-samples/2`, or `/1`,
//!   told apart by the shards' footers).
//! * [`inference`]: libtorch as a backend of `junqi-net`'s inference
//!   service (for GPUs); the net bots themselves live in `junqi-net`.

mod autocast;
pub mod bench;
mod checkpoint;
mod config;
mod data;
pub mod deployments;
mod driver;
pub mod inference;
mod metrics;
mod net;
mod optim;
mod siguo;
pub mod siguo_deployments;
mod tb_events;
mod trainer;

pub use checkpoint::{
    export_checkpoint, latest_checkpoint, load_net, read_metadata, CheckpointInfo, CHECKPOINT_FORMAT, NET_FORMAT,
};
pub use config::{
    DataConfig, DeviceChoice, LrSchedule, ModelConfig, OptimConfig, OptimizerKind, PolicyHead, TrainConfig,
    TrainPrecision,
};
pub use data::{held_out, Batch, DataWindow, Example, Loader, PositionCode, SampleKind};
pub use driver::{
    check_for_samples, train, train_until, train_window, TrainObserver, TrainSummary, CHECKPOINT_DIR, TB_DIR,
};
pub use inference::{torch_backend, TorchBackend};
pub use metrics::{MemoryMetrics, Metrics, NoMetrics, TensorBoardMetrics};
pub use net::{Net, ACTIONS, MASK_LOGIT, WDL};
pub use siguo::{export_siguo_net, init_siguo_net, load_siguo_net};
pub use tb_events::{read_scalars, ScalarEvent};
pub use trainer::{StepMetrics, Trainer};

use std::path::PathBuf;

/// What can go wrong while training.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Config(String),
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error(transparent)]
    Data(#[from] junqi_selfplay::SelfplayError),
    /// A shard or sample that cannot be used (unreadable, inconsistent).
    #[error("{}: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
    /// A checkpoint or exported net that cannot be read.
    #[error("{}: not a usable checkpoint: {message}", path.display())]
    Checkpoint { path: PathBuf, message: String },
    /// Stopped on request (Ctrl-C); what was finished is saved.
    #[error("{0}")]
    Interrupted(String),
    /// The loss became NaN or infinite: training diverged.
    #[error("the loss is {loss} at step {step}")]
    Diverged { loss: f64, step: u64 },
    #[error("torch: {0}")]
    Torch(#[from] tch::TchError),
    /// A net file or the network crate's service (its message names the file).
    #[error(transparent)]
    Net(#[from] junqi_net::NetError),
}

impl TrainError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TrainError {
        let path = path.into();
        move |cause| TrainError::Io { path, cause }
    }
}

pub type Result<T, E = TrainError> = std::result::Result<T, E>;
