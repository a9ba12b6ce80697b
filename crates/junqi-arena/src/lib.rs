//! # junqi-arena
//!
//! Measuring bots against each other, the way engine testers do:
//!
//! * [`arena`]: a round robin or gauntlet of paired games (each seed played
//!   twice with the seats swapped), a crosstable, and Elo for every bot from
//!   a maximum-likelihood Bradley–Terry fit with a first-mover term,
//!   `random` anchored at 0.
//! * [`sprt`]: a sequential probability ratio test of a candidate against a
//!   baseline on pentanomial pair statistics (fishtest's normalized GSPRT).
//! * [`study`]: the first-move study: per rule variant, how much moving first is worth.
//! * [`ladder`]: the first-move study along a ladder of bots on one Elo scale.
//! * [`regress`]: a fixed strength suite compared with a stored baseline.
//! * [`tallies`]: a precision study's state, per round, without the games.
//! * [`siguo`]: the four-player arena and test: two bots as two teams, every
//!   deal played with the teams' seats swapped.
//!
//! Every matchup is a `junqi-selfplay` run of paired games without samples,
//! so its games land in the `games/` Parquet dataset, a killed run resumes,
//! and the statistics are computed from the games read back from disk.

pub mod arena;
pub mod factorial;
pub mod ladder;
mod matchup;
pub mod regress;
pub mod report;
pub mod siguo;
pub mod sprt;
pub mod study;
pub mod svg;
pub mod tallies;

pub use matchup::{matchup_config, pair_scores, play_matchup, read_results, GameResult, Matchup};

use std::path::PathBuf;

/// What can go wrong in an arena, test or study.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Selfplay(#[from] junqi_selfplay::SelfplayError),
    #[error(transparent)]
    Stats(#[from] junqi_stats::StatsError),
    #[error(transparent)]
    Bot(#[from] junqi_bots::BotSpecError),
    #[error("{0}")]
    Data(String),
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("interrupted")]
    Interrupted,
}

impl ArenaError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ArenaError {
        let path = path.into();
        move |cause| ArenaError::Io { path, cause }
    }
}

/// Write `text` to `path` atomically (a temporary name, then a rename), so a
/// killed run never leaves half a report.
pub fn write_atomic(path: &std::path::Path, text: &str) -> Result<(), ArenaError> {
    junqi_core::write_atomic(path, text.as_bytes()).map_err(ArenaError::io(path))
}

/// `text` as one CSV field: quoted, with its quotes doubled (RFC 4180), so
/// commas and quotes in variant names and bot specs stay inside the field.
pub fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// A file-system-safe name for a bot spec: `mcts:sims=200` → `mcts_sims_200`.
pub fn slug(spec: &str) -> String {
    spec.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct RunFile<C> {
    format: String,
    config: C,
    code_version: String,
    /// The part of the work this directory holds (absent: all of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    part: Option<junqi_selfplay::Part>,
}

/// Create `out/<name>` holding `config` and the code version, or check that
/// the one there holds the same config (so a re-run resumes the same work and
/// never mixes two configs, or two parts, in one directory).
pub(crate) fn ensure_run_file<C>(
    out: &std::path::Path,
    name: &str,
    format: &str,
    config: &C,
    part: Option<junqi_selfplay::Part>,
) -> Result<std::sync::Arc<junqi_selfplay::RunLock>, ArenaError>
where
    C: serde::Serialize + serde::de::DeserializeOwned + Clone,
{
    let dir = junqi_selfplay::RunDir::open(out)?;
    if let Some(file) = dir.read_json::<RunFile<serde_json::Value>>(name)? {
        use junqi_selfplay::WorkMismatch;
        let same = if file.format == format {
            junqi_selfplay::same_work(&file.config, file.part, config, part)
        } else {
            Err(WorkMismatch::Config(vec![format!("format: {} in the directory, {format} now", file.format)]))
        };
        match same {
            Ok(()) => {}
            Err(WorkMismatch::Config(diffs)) => {
                return Err(ArenaError::Config(format!(
                    "{} holds other work ({}); re-run with the same options to resume it, or choose another --out",
                    out.display(),
                    diffs.join("; ")
                )))
            }
            Err(WorkMismatch::Part { stored, now }) => {
                return Err(ArenaError::Config(WorkMismatch::part_message(out, stored, now)))
            }
        }
        return Ok(dir.lock());
    }
    let file = RunFile {
        format: format.to_string(),
        config: config.clone(),
        code_version: junqi_selfplay::code_version(),
        part,
    };
    dir.write_json(name, &file)?;
    Ok(dir.lock())
}
