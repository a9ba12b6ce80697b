//! What can go wrong in the loop: its own failures, and those of the
//! crates it drives, kept whole (`#[from]`) rather than flattened to text.

use std::path::PathBuf;

/// What can go wrong while the loop runs.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// A bad loop config, or a run directory that cannot hold this loop.
    #[error("{0}")]
    Config(String),
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    /// A `state.json` that cannot be read back.
    #[error("{}: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
    /// Stopped on request (Ctrl-C); what was finished is saved, and the
    /// same command resumes.
    #[error("{0}")]
    Interrupted(String),
    /// Training ended without a checkpoint to export.
    #[error("training wrote no checkpoint")]
    NoCheckpoint,
    /// Training: the net, its data, a checkpoint, a diverged loss.
    #[error(transparent)]
    Train(#[from] junqi_train::TrainError),
    /// Evaluation games (matchups, the SPRT gate, reports).
    #[error(transparent)]
    Arena(#[from] junqi_arena::ArenaError),
    /// Scoring paired games.
    #[error(transparent)]
    Stats(#[from] junqi_stats::StatsError),
    /// Self-play: its config, its games and samples, the run lock.
    #[error(transparent)]
    Selfplay(#[from] junqi_selfplay::SelfplayError),
}

impl LoopError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> LoopError {
        let path = path.into();
        move |cause| LoopError::Io { path, cause }
    }
}

pub type Result<T, E = LoopError> = std::result::Result<T, E>;
