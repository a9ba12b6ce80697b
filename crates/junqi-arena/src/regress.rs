//! The strength regression suite: fixed arenas (bots, games, seeds) in a
//! versioned TOML file; results stored as JSON and compared with a baseline.

use crate::arena::{run_arena, ArenaConfig, Schedule};
use crate::report::{ArenaReport, WithInterval};
use crate::ArenaError;
use junqi_core::{Mode, Rules};
use junqi_selfplay::RunOptions;
use junqi_stats::Z95;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A suite file (`configs/regress/*.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Bumped whenever the games change; results of different versions are not compared.
    pub version: u32,
    /// A bot fails when its Elo falls by more than this against the baseline.
    pub margin_elo: f64,
    pub games_per_pair: u64,
    pub seed: u64,
    pub arena: Vec<SuiteArena>,
}

/// One arena of the suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteArena {
    /// A rules preset: `anqi`, `mingqi` or `fanqi`.
    pub rules: String,
    /// Option overrides, `name=value`.
    #[serde(default)]
    pub set: Vec<String>,
    pub bots: Vec<String>,
}

impl Suite {
    pub fn from_file(path: &Path) -> Result<Suite, ArenaError> {
        let text = junqi_core::read_text(path).map_err(ArenaError::io(path))?;
        let suite: Suite =
            toml::from_str(&text).map_err(|e| ArenaError::Config(format!("{}: {}", path.display(), e.message())))?;
        if suite.arena.is_empty() {
            return Err(ArenaError::Config(format!("{}: the suite has no [[arena]]", path.display())));
        }
        if !(suite.margin_elo.is_finite() && suite.margin_elo > 0.0) {
            return Err(ArenaError::Config(format!(
                "{}: margin_elo must be a positive number, got {}",
                path.display(),
                suite.margin_elo
            )));
        }
        suite.arena_configs()?;
        Ok(suite)
    }

    /// The arena configs of the suite, in order.
    pub fn arena_configs(&self) -> Result<Vec<ArenaConfig>, ArenaError> {
        self.arena
            .iter()
            .map(|a| {
                let mode: Mode = a.rules.parse().map_err(|e| ArenaError::Config(format!("suite rules: {e}")))?;
                let mut rules = Rules::preset(mode);
                for s in &a.set {
                    rules.apply_override(s).map_err(|e| ArenaError::Config(format!("suite rules: {e}")))?;
                }
                ArenaConfig::new(rules, &a.bots, Schedule::RoundRobin, self.games_per_pair, self.seed)
            })
            .collect()
    }
}

/// A suite's stored result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteResult {
    pub suite: Suite,
    pub code_version: String,
    pub arenas: Vec<ArenaReport>,
}

/// Play (or resume) every arena of the suite under `out/arena-<k>`.
pub fn run_suite(
    suite: &Suite,
    out: &Path,
    options: &RunOptions,
    mut on_matchup: impl FnMut(&str, &str),
) -> Result<SuiteResult, ArenaError> {
    let mut arenas = Vec::new();
    for (k, config) in suite.arena_configs()?.iter().enumerate() {
        arenas.push(run_arena(config, &out.join(format!("arena-{k}")), options, &mut on_matchup)?);
    }
    Ok(SuiteResult { suite: suite.clone(), code_version: junqi_selfplay::code_version(), arenas })
}

/// One bot compared with the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub mode: String,
    pub bot: String,
    pub baseline: f64,
    pub now: f64,
    /// now − baseline with its 95% interval (the two fits' errors combined).
    pub change: WithInterval,
    /// The Elo fell by more than the margin.
    pub failed: bool,
}

/// Compare `now` with `baseline`: every bot present in the same arena of both.
pub fn compare(now: &SuiteResult, baseline: &SuiteResult) -> Result<Vec<Comparison>, ArenaError> {
    // The same games on both sides: everything but the margin must match.
    let same_games = |s: &Suite| Suite { margin_elo: 0.0, ..s.clone() };
    if same_games(&now.suite) != same_games(&baseline.suite) || now.arenas.len() != baseline.arenas.len() {
        return Err(ArenaError::Config(format!(
            "the baseline holds other games (suite version {}, {} arenas) than this run (version {}, {} arenas); store a new baseline",
            baseline.suite.version,
            baseline.arenas.len(),
            now.suite.version,
            now.arenas.len()
        )));
    }
    let mut out = Vec::new();
    for (a, b) in now.arenas.iter().zip(&baseline.arenas) {
        for line in &a.bots {
            let Some(base) = b.bots.iter().find(|x| x.bot == line.bot) else {
                return Err(ArenaError::Data(format!("bot `{}` is missing from the baseline", line.bot)));
            };
            let diff = line.elo.value - base.elo.value;
            let half = Z95 * (line.stderr.powi(2) + base.stderr.powi(2)).sqrt();
            out.push(Comparison {
                mode: a.config.rules.mode.name().to_string(),
                bot: line.bot.clone(),
                baseline: base.elo.value,
                now: line.elo.value,
                change: WithInterval { value: diff, low: diff - half, high: diff + half },
                failed: diff < -now.suite.margin_elo,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(elos: &[(&str, f64)], margin: f64) -> SuiteResult {
        let suite = Suite {
            version: 1,
            margin_elo: margin,
            games_per_pair: 2,
            seed: 0,
            arena: vec![SuiteArena { rules: "fanqi".into(), set: vec![], bots: vec![] }],
        };
        let config = ArenaConfig::new(
            Rules::preset(Mode::Fanqi),
            &elos.iter().map(|(b, _)| b.to_string()).collect::<Vec<_>>(),
            Schedule::RoundRobin,
            2,
            0,
        )
        .unwrap();
        let bots = elos
            .iter()
            .map(|&(b, e)| crate::report::BotLine {
                bot: b.into(),
                cheats: false,
                elo: WithInterval { value: e, low: e - 20.0, high: e + 20.0 },
                stderr: 10.0,
                games: 2,
                score: 0.5,
                moves_per_s: None,
            })
            .collect();
        let report = ArenaReport {
            config,
            code_version: String::new(),
            anchor: "random".into(),
            bots,
            first_mover: WithInterval { value: 0.0, low: 0.0, high: 0.0 },
            prior_draws: 0.0,
            crosstable: vec![],
            matchups: vec![],
            ladder: vec![],
            notes: vec![],
        };
        SuiteResult { suite, code_version: String::new(), arenas: vec![report] }
    }

    #[test]
    fn a_drop_beyond_the_margin_fails_and_smaller_changes_pass() {
        let base = result(&[("random", 0.0), ("greedy", 300.0)], 50.0);
        let same = compare(&result(&[("random", 0.0), ("greedy", 260.0)], 50.0), &base).unwrap();
        assert!(same.iter().all(|c| !c.failed));
        let worse = compare(&result(&[("random", 0.0), ("greedy", 240.0)], 50.0), &base).unwrap();
        let g = worse.iter().find(|c| c.bot == "greedy").unwrap();
        assert!(g.failed);
        assert!((g.change.value + 60.0).abs() < 1e-9);
        // Combined error: 1.96 * sqrt(10² + 10²).
        assert!((g.change.high - g.change.value - Z95 * 200f64.sqrt()).abs() < 1e-9);
        let mut other = result(&[("random", 0.0), ("greedy", 300.0)], 50.0);
        other.suite.version = 2;
        assert!(compare(&other, &base).is_err());
        let mut other = result(&[("random", 0.0), ("greedy", 300.0)], 50.0);
        other.suite.seed = 9;
        assert!(compare(&other, &base).is_err());
        // Another margin is the same games.
        assert!(compare(&result(&[("random", 0.0), ("greedy", 300.0)], 80.0), &base).is_ok());
    }
}
