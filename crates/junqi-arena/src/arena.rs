//! Round robin or gauntlet of paired games among several bots.

use crate::matchup::{matchup_config, play_matchup, GameResult};
use crate::report::ArenaReport;
use crate::{ensure_run_file, slug, ArenaError};
use junqi_bots::{BotSpec, IntoBotSpec};
use junqi_core::Rules;
use junqi_selfplay::{Openings, RunOptions, Tally, Thinking, TimeoutRule};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// Every bot against every other.
    RoundRobin,
    /// The first bot against each of the others.
    Gauntlet,
}

impl std::str::FromStr for Schedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "round-robin" => Ok(Schedule::RoundRobin),
            "gauntlet" => Ok(Schedule::Gauntlet),
            other => Err(format!("unknown schedule `{other}`; schedules are: round-robin, gauntlet")),
        }
    }
}

/// Everything that decides an arena's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    pub rules: Rules,
    /// Canonical bot specs.
    pub bots: Vec<BotSpec>,
    pub schedule: Schedule,
    /// Games per matchup (even: each seed is played twice, seats swapped).
    pub games_per_pair: u64,
    /// Every matchup plays the same seeds, so all bots meet the same deals.
    pub seed: u64,
    /// Fixed openings every matchup plays in turn (absent: deals from the seeds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<Openings>,
    /// A per-move time limit and the timeout that loses (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<TimeoutRule>,
}

/// The arena file's name inside the output directory.
pub const ARENA_FILE: &str = "arena.json";

impl ArenaConfig {
    /// An arena of `bots` (specs, as text or parsed; checked and made canonical).
    pub fn new(
        rules: Rules,
        bots: impl IntoIterator<Item = impl IntoBotSpec>,
        schedule: Schedule,
        games_per_pair: u64,
        seed: u64,
    ) -> Result<ArenaConfig, ArenaError> {
        let bots: Vec<BotSpec> = bots.into_iter().map(|b| b.into_bot_spec()?.canonical()).collect::<Result<_, _>>()?;
        if bots.len() < 2 {
            return Err(ArenaError::Config(format!("an arena needs at least two bots, got {}", bots.len())));
        }
        for (i, b) in bots.iter().enumerate() {
            if bots[..i].contains(b) {
                return Err(ArenaError::Config(format!("bot `{b}` is listed twice")));
            }
        }
        let config = ArenaConfig { rules, bots, schedule, games_per_pair, seed, openings: None, timeouts: None };
        matchup_config(rules, [&config.bots[0], &config.bots[1]], games_per_pair, seed)?;
        Ok(config)
    }

    /// Play every matchup from `openings` (see [`Openings`]).
    pub fn with_openings(mut self, openings: Option<Openings>) -> ArenaConfig {
        self.openings = openings;
        self
    }

    /// Play every game under `timeouts` (see [`TimeoutRule`]).
    pub fn with_timeouts(mut self, timeouts: Option<TimeoutRule>) -> ArenaConfig {
        self.timeouts = timeouts;
        self
    }

    /// The matchups as pairs of bot indices, in play order.
    pub fn matchups(&self) -> Vec<(usize, usize)> {
        let n = self.bots.len();
        match self.schedule {
            Schedule::RoundRobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
            Schedule::Gauntlet => (1..n).map(|j| (0, j)).collect(),
        }
    }

    /// Games in the whole arena.
    pub fn total_games(&self) -> u64 {
        // Saturating: a count past the limit is refused when the games are
        // prepared (with the allowed range), not by an overflow here.
        (self.matchups().len() as u64).saturating_mul(self.games_per_pair)
    }

    /// The directory of matchup `k` inside `out`.
    pub fn matchup_dir(&self, out: &Path, k: usize) -> PathBuf {
        let (i, j) = self.matchups()[k];
        out.join("matchups").join(format!(
            "{k:02}-{}-vs-{}",
            slug(&self.bots[i].to_string()),
            slug(&self.bots[j].to_string())
        ))
    }
}

/// One matchup's games and what this call measured of it.
#[derive(Clone, Debug)]
pub struct MatchupGames {
    /// Bot indices into the arena's bots: `bots.0` is player 0 of the results.
    pub bots: (usize, usize),
    pub results: Vec<GameResult>,
    /// Results and thinking time of the games played by this call (empty when resumed as done).
    pub tally: Tally,
    /// Decisions and thinking time of every game on disk (the report's moves/s).
    pub thinking: Thinking,
}

/// Play (or resume) an arena into `out`; `on_matchup` hears each matchup's
/// bots before it starts. Returns the report over all games on disk.
pub fn run_arena(
    config: &ArenaConfig,
    out: &Path,
    options: &RunOptions,
    mut on_matchup: impl FnMut(&BotSpec, &BotSpec),
) -> Result<ArenaReport, ArenaError> {
    // Held to the end: one writer per directory.
    let _lock = ensure_run_file(out, ARENA_FILE, ARENA_FORMAT, config, None)?;
    let options = RunOptions { part: None, ..options.clone() };
    let (mut games, mut notes) = (Vec::new(), Vec::new());
    for (k, &(i, j)) in config.matchups().iter().enumerate() {
        on_matchup(&config.bots[i], &config.bots[j]);
        let m = play_arena_matchup(config, out, k, &options)?;
        notes.extend(m.notes);
        games.push(MatchupGames {
            bots: (i, j),
            results: m.results,
            tally: m.summary.map(|s| s.tally).unwrap_or_default(),
            thinking: m.thinking,
        });
    }
    let mut report = ArenaReport::new(config, &games)?;
    report.notes = notes;
    Ok(report)
}

const ARENA_FORMAT: &str = "junqi-arena/1";

/// Matchup `k` of the arena, played (or resumed) into its directory.
fn play_arena_matchup(
    config: &ArenaConfig,
    out: &Path,
    k: usize,
    options: &RunOptions,
) -> Result<crate::Matchup, ArenaError> {
    let (i, j) = config.matchups()[k];
    let c = matchup_config(config.rules, [&config.bots[i], &config.bots[j]], config.games_per_pair, config.seed)?
        .with_openings(config.openings.clone())
        .with_timeouts(config.timeouts);
    play_matchup(c, &config.matchup_dir(out, k), options)
}

/// Play (or resume) part `part` of the arena into `out`: that part of every
/// matchup ([`junqi_selfplay::Part::rotated`] by the matchup's index); no report, which needs every game
/// (`junqi merge` joins the parts and writes it). Returns the part's games
/// on disk and notes from resuming.
pub fn run_arena_part(
    config: &ArenaConfig,
    out: &Path,
    options: &RunOptions,
    part: junqi_selfplay::Part,
    mut on_matchup: impl FnMut(&BotSpec, &BotSpec),
) -> Result<(u64, Vec<String>), ArenaError> {
    let _lock = ensure_run_file(out, ARENA_FILE, ARENA_FORMAT, config, Some(part))?;
    let (mut games, mut notes) = (0, Vec::new());
    for (k, &(i, j)) in config.matchups().iter().enumerate() {
        on_matchup(&config.bots[i], &config.bots[j]);
        let options = RunOptions { part: Some(part.rotated(k as u64)), ..options.clone() };
        let m = play_arena_matchup(config, out, k, &options)?;
        games += m.results.len() as u64;
        notes.extend(m.notes);
    }
    Ok((games, notes))
}
