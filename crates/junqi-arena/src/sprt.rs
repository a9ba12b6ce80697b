//! A sequential probability ratio test of a candidate against a baseline:
//! batches of paired games until fishtest's normalized pentanomial GSPRT
//! decides (or the game limit is reached).

use crate::matchup::{matchup_config, pair_scores, play_matchup};
use crate::{ensure_run_file, ArenaError};
use junqi_bots::BotSpec;
use junqi_core::Rules;
use junqi_selfplay::{game_seed, RunOptions};
use junqi_stats::{Decision, Penta, Sprt, SprtSummary};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Everything that decides a test's games and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    pub rules: Rules,
    /// Specs of the candidate and the baseline (canonical from `junqi sprt`;
    /// the loop's gate stores its evaluation specs as it builds them).
    pub candidate: BotSpec,
    pub baseline: BotSpec,
    /// Hypotheses in normalized Elo: H0 nElo = elo0, H1 nElo = elo1.
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Games per batch (even); the LLR is checked after each batch.
    pub batch_games: u64,
    /// Stop without a decision after this many games.
    pub max_games: u64,
    pub seed: u64,
    /// Fixed openings, taken in turn across the batches (absent: deals from the seeds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<junqi_selfplay::Openings>,
    /// A per-move time limit and the timeout that loses (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<junqi_selfplay::TimeoutRule>,
}

impl SprtConfig {
    /// The most batches the test plays (its game limit).
    pub fn batches(&self) -> u64 {
        self.max_games / self.batch_games
    }

    /// The directory of batch `b`'s games inside `out`.
    pub fn batch_dir(&self, out: &Path, b: u64) -> PathBuf {
        out.join("batches").join(format!("{b:05}"))
    }

    /// The test statistic's parameters.
    pub fn sprt(&self) -> Result<Sprt, ArenaError> {
        Ok(Sprt::new(self.elo0, self.elo1, self.alpha, self.beta)?)
    }
    /// Everything [`run_sprt`] checks before it writes anything.
    pub fn check(&self) -> Result<(), ArenaError> {
        // The same spec on both sides is allowed: an A/A test (the CLI asks
        // for --allow-same, so that a typo does not pass for one).
        self.sprt()?;
        if self.max_games < self.batch_games {
            return Err(ArenaError::Config(format!(
                "--max-games ({}) must be at least one batch ({} games)",
                self.max_games, self.batch_games
            )));
        }
        matchup_config(self.rules, [&self.candidate, &self.baseline], self.batch_games, self.seed).map(|_| ())
    }
}

/// Where a test stopped.
#[derive(Clone, Debug, Serialize)]
pub struct SprtOutcome {
    pub config: SprtConfig,
    pub summary: SprtSummary,
    pub games: u64,
    /// Stopped by `max_games` with the LLR still inside the bounds.
    pub limit_reached: bool,
    /// Things found while resuming (e.g. games written by another code version).
    pub notes: Vec<String>,
}

/// The file holding a test's config inside its output directory.
pub const SPRT_FILE: &str = "sprt.json";

/// Play (or resume) the test in `out`, batch after batch; `on_batch` hears the
/// statistics after each. Batch `b` is a matchup run in `out/batches/<b>` with
/// its own seed, so a resumed test replays the same decisions.
pub fn run_sprt(
    config: &SprtConfig,
    out: &Path,
    options: &RunOptions,
    mut on_batch: impl FnMut(&SprtSummary, u64),
) -> Result<SprtOutcome, ArenaError> {
    config.check()?;
    // Held to the end: one writer per directory.
    let _lock = ensure_run_file(out, SPRT_FILE, SPRT_FORMAT, config, None)?;
    let options = &RunOptions { part: None, ..options.clone() };
    let sprt = config.sprt()?;
    let mut penta = Penta::default();
    let mut games = 0;
    let mut notes = Vec::new();
    for batch in 0.. {
        let m = play_batch(config, out, batch, options)?;
        notes.extend(m.notes);
        for (a, b) in pair_scores(&m.results, 0) {
            penta.add_pair(a, b)?;
        }
        games += m.results.len() as u64;
        let summary = sprt.evaluate(&penta)?;
        on_batch(&summary, games);
        let limit_reached = games + config.batch_games > config.max_games;
        if summary.decision != Decision::Continue || limit_reached {
            let limit_reached = limit_reached && summary.decision == Decision::Continue;
            return Ok(SprtOutcome { config: config.clone(), summary, games, limit_reached, notes });
        }
    }
    unreachable!("the loop returns")
}

const SPRT_FORMAT: &str = "junqi-sprt/1";

/// Batch `batch` of the test, played (or resumed) into its directory.
fn play_batch(config: &SprtConfig, out: &Path, batch: u64, options: &RunOptions) -> Result<crate::Matchup, ArenaError> {
    let seed = game_seed(config.seed, batch);
    // Batch b continues the openings where batch b - 1 stopped.
    let openings = config.openings.as_ref().map(|o| o.from_offset(o.offset + batch * config.batch_games / 2));
    let c = matchup_config(config.rules, [&config.candidate, &config.baseline], config.batch_games, seed)?
        .with_openings(openings)
        .with_timeouts(config.timeouts);
    play_matchup(c, &config.batch_dir(out, batch), options)
}

/// Play (or resume) part `part` of the test into `out`: the batches `b` with
/// `b % N == I` up to the game limit, each whole, without stopping at a
/// decision (a part cannot see the others' games). `junqi merge` joins the
/// parts; `junqi sprt` with the same options on the merged directory then
/// reads the batches in order and stops where a single run would have
/// (playing more only if the limit was not reached). Returns the part's
/// games and notes from resuming.
pub fn run_sprt_part(
    config: &SprtConfig,
    out: &Path,
    options: &RunOptions,
    part: junqi_selfplay::Part,
    mut on_batch: impl FnMut(u64),
) -> Result<(u64, Vec<String>), ArenaError> {
    config.check()?;
    let _lock = ensure_run_file(out, SPRT_FILE, SPRT_FORMAT, config, Some(part))?;
    let options = RunOptions { part: None, ..options.clone() };
    let (mut games, mut notes) = (0, Vec::new());
    for batch in part.shards(config.batches()) {
        on_batch(batch);
        let m = play_batch(config, out, batch, &options)?;
        games += m.results.len() as u64;
        notes.extend(m.notes);
    }
    Ok((games, notes))
}

/// The verdict in words; `limit_reached`: the test stopped at its game limit.
pub fn verdict(summary: &SprtSummary, limit_reached: bool) -> &'static str {
    match summary.decision {
        // Worded for any bounds: with non-regression bounds (H0 below 0, H1 at
        // 0) "stronger" would be wrong.
        Decision::AcceptH1 => "H1 accepted: the games favour nElo = elo1 over nElo = elo0 (pass)",
        Decision::AcceptH0 => "H0 accepted: the games favour nElo = elo0 over nElo = elo1 (fail)",
        Decision::Continue if limit_reached => {
            "inconclusive: the game limit was reached with the LLR inside the bounds"
        }
        Decision::Continue => "no decision yet (the LLR is inside the bounds)",
    }
}

/// A multi-line report of a test's statistics.
pub fn describe(s: &SprtSummary, nelo0: f64, nelo1: f64, limit_reached: bool) -> String {
    let c = s.penta.counts;
    format!(
        "LLR {:.7} (bounds [{:.7}, {:.7}]) for H0 nElo={nelo0} vs H1 nElo={nelo1}\n\
         pentanomial [{}, {}, {}, {}, {}] over {} pairs (pair points 0, ½, 1, 1½, 2)\n\
         score {:.2}%; Elo {}; nElo {:+.2} [{:+.2}, {:+.2}] (95%)\n\
         {}",
        s.llr,
        s.bounds.lower,
        s.bounds.upper,
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        s.pairs,
        100.0 * s.score.value,
        s.elo.show_with(2),
        s.nelo.value,
        s.nelo.low,
        s.nelo.high,
        verdict(s, limit_reached)
    )
}
