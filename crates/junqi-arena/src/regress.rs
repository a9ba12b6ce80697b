//! The strength regression suite: fixed arenas (bots, games, seeds) in a
//! versioned TOML file; results stored as JSON and compared with a baseline.
//!
//! **The verdict.** Each bot of each arena is tested on its own: its score
//! against every other bot of the arena, now against the baseline, each
//! opponent weighted by how much a drop would move the score against it
//! ([`junqi_stats::drop_test`]). It fails when that one-sided test finds a
//! drop at level `alpha / k` (`k` = the bots tested in the whole suite:
//! Bonferroni, so that a change that reshuffles every game raises a false
//! alarm with probability at most `alpha`), and, in suites that set
//! `margin_elo` (v1), also when its Bradley–Terry Elo fell by more than the
//! margin. The opponents are the yardsticks: the test assumes they did not
//! change, so a bot that got *stronger* makes the bots it beat look weaker;
//! the failure lines show each opponent's score so one can tell.
//!
//! **The power.** [`power_analysis`] says how many games per pair each bot
//! needs for that test to catch a drop of `detect_elo` with probability
//! `power` ([`junqi_stats::games_to_detect_drop`]: the normal-approximation
//! sample size, doubled because the baseline is a sample of the same size),
//! from the scores and pentanomial variances of a stored result, or from
//! even opponents with variance ¼ when there is none.
//!
//! Games are deterministic given the suite: a bot whose code did not change
//! replays exactly the baseline's games, so its change is exactly 0.

use crate::arena::{run_arena, ArenaConfig, Schedule};
use crate::report::ArenaReport;
use crate::ArenaError;
use junqi_core::Rules;
use junqi_selfplay::RunOptions;
use junqi_stats::Estimate;
use junqi_stats::{drop_test, games_to_detect_drop, power_of, Penta, Samples, StatsError, Yardstick, Z95};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A suite file (`configs/regress/*.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Bumped whenever the games change; results of different versions are not compared.
    pub version: u32,
    /// A bot also fails when its Bradley–Terry Elo fell by more than this
    /// against the baseline (optional; suite v1 has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_elo: Option<f64>,
    /// The Elo drop of any one bot that the suite is sized to catch.
    #[serde(default = "default_detect_elo")]
    pub detect_elo: f64,
    /// The suite's false-alarm rate, split evenly over the bots it tests.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// The chance of catching a drop of `detect_elo` in one bot.
    #[serde(default = "default_power")]
    pub power: f64,
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
    /// Bot specs (checked when the suite is read). `net:…` bots are
    /// welcome: the result records which file each net was
    /// ([`SuiteResult::nets`]), and a baseline of other net files is refused.
    pub bots: Vec<junqi_bots::BotSpec>,
    /// An openings file (one JFEN or deal seed per line, relative to the
    /// working directory, e.g. `data/openings/fanqi.txt`) that every matchup
    /// plays in turn; absent: deals from the seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<String>,
}

fn default_detect_elo() -> f64 {
    50.0
}
fn default_alpha() -> f64 {
    0.05
}
fn default_power() -> f64 {
    0.95
}

impl Suite {
    pub fn from_file(path: &Path) -> Result<Suite, ArenaError> {
        let text = junqi_core::read_text(path).map_err(ArenaError::io(path))?;
        let suite: Suite =
            toml::from_str(&text).map_err(|e| ArenaError::Config(format!("{}: {}", path.display(), e.message())))?;
        if suite.arena.is_empty() {
            return Err(ArenaError::Config(format!("{}: the suite has no [[arena]]", path.display())));
        }
        if let Some(margin) = suite.margin_elo {
            if !(margin.is_finite() && margin > 0.0) {
                return Err(ArenaError::Config(format!(
                    "{}: margin_elo must be a positive number, got {margin}",
                    path.display()
                )));
            }
        }
        check_drop(suite.detect_elo).map_err(|e| ArenaError::Config(format!("{}: detect_elo {e}", path.display())))?;
        for (name, p) in [("alpha", suite.alpha), ("power", suite.power)] {
            if !(p > 0.0 && p < 1.0) {
                return Err(ArenaError::Config(format!(
                    "{}: {name} must be a probability between 0 and 1 (exclusive), got {p}",
                    path.display()
                )));
            }
        }
        suite.arena_configs()?;
        Ok(suite)
    }

    /// The bots tested: every bot of every arena.
    pub fn tested(&self) -> usize {
        self.arena.iter().map(|a| a.bots.len()).sum()
    }

    /// The level each bot is tested at: `alpha / tested()` (Bonferroni).
    pub fn alpha_per_bot(&self) -> f64 {
        self.alpha / self.tested().max(1) as f64
    }

    /// The same games (everything but the verdict's settings).
    fn games(&self) -> Suite {
        Suite { margin_elo: None, detect_elo: 0.0, alpha: 0.0, power: 0.0, ..self.clone() }
    }

    /// The arena configs of the suite, in order.
    pub fn arena_configs(&self) -> Result<Vec<ArenaConfig>, ArenaError> {
        self.arena
            .iter()
            .map(|a| {
                let rules = Rules::preset_with(&a.rules, &a.set)
                    .map_err(|e| ArenaError::Config(format!("suite rules: {e}")))?;
                let openings = a.openings.as_deref().map(|file| read_openings(file, &rules)).transpose()?;
                Ok(ArenaConfig::new(rules, &a.bots, Schedule::RoundRobin, self.games_per_pair, self.seed)?
                    .with_openings(openings))
            })
            .collect()
    }
}

/// An arena's openings file, every position checked against its rules.
fn read_openings(file: &str, rules: &Rules) -> Result<junqi_selfplay::Openings, ArenaError> {
    let path = Path::new(file);
    let text = junqi_core::read_text(path).map_err(ArenaError::io(path))?;
    junqi_selfplay::Openings::parse(&text, rules).map_err(|e| ArenaError::Config(format!("openings {file}: {e}")))
}

/// A detect_elo, or why not: a positive number up to 2000.
fn check_drop(elo: f64) -> Result<f64, String> {
    if elo.is_finite() && elo > 0.0 && elo <= 2000.0 {
        Ok(elo)
    } else {
        Err(format!("must be a positive number of Elo up to 2000, got {elo}"))
    }
}

/// A suite's stored result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteResult {
    pub suite: Suite,
    pub code_version: String,
    pub arenas: Vec<ArenaReport>,
    /// How long the call that wrote it played (absent in older results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Each net the suite's bots name (`net:NAME` or `net:FILE`, also inside
    /// a search's `eval=`), and which file it was: a net's games change with
    /// its file while its spec stays the same (filled by the caller, which
    /// can read nets; absent in older results and in suites without nets).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nets: BTreeMap<String, String>,
}

/// Refuse a baseline of other games than `suite` with `arenas` arenas and
/// these `nets` (before playing, or when comparing): the verdict's settings may differ.
pub fn same_games(
    suite: &Suite,
    arenas: usize,
    nets: &BTreeMap<String, String>,
    baseline: &SuiteResult,
) -> Result<(), ArenaError> {
    if suite.games() != baseline.suite.games() || arenas != baseline.arenas.len() {
        return Err(ArenaError::Config(format!(
            "the baseline holds other games (suite version {}, {} arenas) than this run (version {}, {arenas} arenas); store a new baseline",
            baseline.suite.version,
            baseline.arenas.len(),
            suite.version,
        )));
    }
    check_nets(nets, baseline)
}

/// Refuse a baseline whose nets were other files than `nets` (this run's):
/// its games are not this suite's games, so a change would be blamed on the code.
fn check_nets(nets: &BTreeMap<String, String>, baseline: &SuiteResult) -> Result<(), ArenaError> {
    for (net, file) in nets {
        match baseline.nets.get(net) {
            Some(then) if then != file => return Err(ArenaError::Config(format!(
                "{net} is another file ({file}) than the baseline's ({then}): its games differ; store a new baseline"
            ))),
            None => {
                return Err(ArenaError::Config(format!(
                    "the baseline does not say which file {net} was (older results do not): store a new baseline"
                )))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The `net:…` specs inside `spec` (itself, or nested in its parameters, a
/// few levels deep), as written.
pub fn net_specs(spec: &junqi_bots::BotSpec) -> Vec<junqi_bots::BotSpec> {
    fn walk(spec: &junqi_bots::BotSpec, depth: usize, out: &mut Vec<junqi_bots::BotSpec>) {
        if spec.name == "net" {
            out.push(spec.clone());
        }
        if depth < 8 {
            for (_, v) in &spec.params {
                if let Ok(inner) = junqi_bots::BotSpec::parse(v) {
                    walk(&inner, depth + 1, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(spec, 0, &mut out);
    out
}

/// Wall-clock time of the games one `junqi regress` call played.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub threads: usize,
    /// Games played by the call (a resumed run counts only its own).
    pub games: u64,
    pub seconds: f64,
}

/// Play (or resume) every arena of the suite under `out/arena-<k>`.
pub fn run_suite(
    suite: &Suite,
    out: &Path,
    options: &RunOptions,
    mut on_matchup: impl FnMut(&junqi_bots::BotSpec, &junqi_bots::BotSpec),
) -> Result<SuiteResult, ArenaError> {
    let mut arenas = Vec::new();
    for (k, config) in suite.arena_configs()?.iter().enumerate() {
        arenas.push(run_arena(config, &out.join(format!("arena-{k}")), options, &mut on_matchup)?);
    }
    Ok(SuiteResult {
        suite: suite.clone(),
        code_version: junqi_selfplay::code_version(),
        arenas,
        timing: None,
        nets: BTreeMap::new(),
    })
}

/// One bot compared with the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub mode: String,
    pub bot: String,
    /// Bradley–Terry Elo (random = 0) in the baseline and now.
    pub baseline: f64,
    pub now: f64,
    /// now − baseline with its 95% interval (the two fits' errors combined).
    pub change: Estimate,
    /// The Elo change that the bot's scores against the other bots of its
    /// arena say (they held fixed), with its 95% interval: what is tested.
    pub score_change: Estimate,
    /// `score_change / stderr`: a drop when below `−z` at the per-bot level.
    pub z: f64,
    /// The bot's score against each opponent: (opponent, baseline, now).
    pub scores: Vec<(String, f64, f64)>,
    /// The one-sided test at the per-bot level found a drop.
    pub dropped: bool,
    /// The Bradley–Terry Elo fell by more than the suite's `margin_elo`.
    pub beyond_margin: bool,
    pub failed: bool,
}

/// The pentanomial counts of `bot` against each other bot of `report`, from
/// `bot`'s side: (opponent, counts, games).
fn counts_of(report: &ArenaReport, bot: &str) -> Vec<(String, Penta, u64)> {
    report
        .matchups
        .iter()
        .filter_map(|m| {
            let penta = Penta::new(m.penta);
            if m.bots[0] == bot {
                Some((m.bots[1].clone(), penta, m.games))
            } else if m.bots[1] == bot {
                Some((m.bots[0].clone(), penta.mirrored(), m.games))
            } else {
                None
            }
        })
        .collect()
}

fn mean_score(p: &Penta) -> f64 {
    let pairs = p.pairs().max(1) as f64;
    p.counts.iter().enumerate().map(|(i, &c)| c as f64 * i as f64 / 4.0).sum::<f64>() / pairs
}

fn stats_error(e: StatsError) -> ArenaError {
    ArenaError::Data(e.to_string())
}

/// Compare `now` with `baseline`: every bot present in the same arena of both.
pub fn compare(now: &SuiteResult, baseline: &SuiteResult) -> Result<Vec<Comparison>, ArenaError> {
    same_games(&now.suite, now.arenas.len(), &now.nets, baseline)?;
    if now.arenas.iter().zip(&baseline.arenas).any(|(a, b)| a.config.openings != b.config.openings) {
        return Err(ArenaError::Config(
            "the baseline played other openings (the suite's openings file changed): store a new baseline".into(),
        ));
    }
    let alpha = now.suite.alpha_per_bot();
    let mut out = Vec::new();
    for (a, b) in now.arenas.iter().zip(&baseline.arenas) {
        for line in &a.bots {
            let Some(base) = b.bots.iter().find(|x| x.bot == line.bot) else {
                return Err(ArenaError::Data(format!("bot `{}` is missing from the baseline", line.bot)));
            };
            let diff = line.elo.value - base.elo.value;
            let half = Z95 * (line.stderr.powi(2) + base.stderr.powi(2)).sqrt();
            let then = counts_of(b, &line.bot);
            let mut pairs = Vec::new();
            let mut scores = Vec::new();
            for (opponent, penta, _) in counts_of(a, &line.bot) {
                let Some((_, old, _)) = then.iter().find(|(o, _, _)| *o == opponent) else {
                    return Err(ArenaError::Data(format!(
                        "the baseline has no games of `{}` against `{opponent}`",
                        line.bot
                    )));
                };
                scores.push((opponent, mean_score(old), mean_score(&penta)));
                pairs.push((*old, penta));
            }
            let test = drop_test(&pairs, now.suite.detect_elo).map_err(stats_error)?;
            let dropped = test.dropped(alpha).map_err(stats_error)?;
            let beyond_margin = now.suite.margin_elo.is_some_and(|m| diff < -m);
            let score_half = Z95 * test.stderr;
            out.push(Comparison {
                mode: a.config.rules.mode.name().to_string(),
                bot: line.bot.clone(),
                baseline: base.elo.value,
                now: line.elo.value,
                change: Estimate { value: diff, low: diff - half, high: diff + half },
                score_change: Estimate {
                    value: test.elo_change,
                    low: test.elo_change - score_half,
                    high: test.elo_change + score_half,
                },
                z: test.z,
                scores,
                dropped,
                beyond_margin,
                failed: dropped || beyond_margin,
            });
        }
    }
    Ok(out)
}

/// What the power analysis assumed of one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpponentPower {
    pub bot: String,
    /// The bot's score against it and the per-game variance (pentanomial).
    pub yardstick: Yardstick,
    /// Read from a stored result (else assumed: even, variance ¼).
    pub observed: bool,
    /// Games against this opponent alone that the bot would need.
    pub alone: f64,
}

/// One bot's power.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotPower {
    pub mode: String,
    pub bot: String,
    pub opponents: Vec<OpponentPower>,
    /// Games per pair (against each opponent) needed; not rounded.
    pub needed: f64,
    /// The chance of catching the drop with the suite's games per pair.
    pub power_now: f64,
}

/// How many games each bot of a suite needs to catch a drop ([`power_analysis`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerAnalysis {
    pub drop_elo: f64,
    /// The suite's false-alarm rate, the bots it tests and the level each is tested at.
    pub alpha: f64,
    pub tested: usize,
    pub alpha_per_bot: f64,
    pub power: f64,
    /// The suite's games per pair and matchups.
    pub games_per_pair: u64,
    pub matchups: u64,
    pub bots: Vec<BotPower>,
    /// Seconds per game of the stored result's own run, scaled to one thread
    /// (when it has the same bots and rules and a timing).
    pub thread_seconds_per_game: Option<f64>,
}

impl PowerAnalysis {
    /// The smallest even games per pair that gives every bot the power.
    pub fn games_per_pair_needed(&self) -> u64 {
        let most = self.bots.iter().map(|b| b.needed).fold(0.0, f64::max).ceil();
        let n = if most.is_finite() && most < 1e15 { most as u64 } else { u64::MAX - 1 };
        n.div_ceil(2).saturating_mul(2).max(2)
    }

    /// Every bot has the power with the suite's games.
    pub fn enough(&self) -> bool {
        self.bots.iter().all(|b| b.needed <= self.games_per_pair as f64)
    }

    /// Predicted wall-clock seconds on `threads` for `games_per_pair`.
    pub fn predicted_seconds(&self, games_per_pair: u64, threads: usize) -> Option<f64> {
        self.thread_seconds_per_game
            .map(|s| s * (games_per_pair.saturating_mul(self.matchups)) as f64 / threads.max(1) as f64)
    }

    /// The analysis as Markdown: a line per bot.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Power: games per pair that catch a {} Elo drop of one bot with {:.0}% power (one-sided test at α = {} / {} bots = {:.4}, against a baseline of the same size):\n",
            self.drop_elo,
            100.0 * self.power,
            self.alpha,
            self.tested,
            self.alpha_per_bot
        );
        let _ = writeln!(s, "| mode | bot | against: score (games that opponent alone would need) | games/pair needed | power at {} | |", self.games_per_pair);
        let _ = writeln!(s, "|---|---|---|---:|---:|---|");
        for b in &self.bots {
            let against: Vec<String> = b
                .opponents
                .iter()
                .map(|o| {
                    let score = if o.observed {
                        format!("{:.1}%", 100.0 * o.yardstick.score)
                    } else {
                        "assumed 50%".to_string()
                    };
                    format!("{} {score} ({})", o.bot, fmt_games(o.alone))
                })
                .collect();
            let ok = b.needed <= self.games_per_pair as f64;
            let power =
                if b.power_now >= 0.9995 { ">99.9%".to_string() } else { format!("{:.1}%", 100.0 * b.power_now) };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {power} | {} |",
                b.mode,
                b.bot,
                against.join(", "),
                fmt_games(b.needed),
                if ok { "enough" } else { "SHORT" }
            );
        }
        let need = self.games_per_pair_needed();
        let _ = writeln!(
            s,
            "\nThe suite plays {} games per pair ({} games); every bot has the power from {} games per pair ({} games).",
            self.games_per_pair,
            self.games_per_pair.saturating_mul(self.matchups),
            need,
            need.saturating_mul(self.matchups)
        );
        if self.bots.iter().any(|b| b.opponents.iter().any(|o| !o.observed)) {
            let _ = writeln!(
                s,
                "Matchups without a stored result were assumed even with variance 1/4 (give --baseline with a result of these bots)."
            );
        }
        s
    }
}

/// A game count, rounded up, grouped by thousands: `1 234`; `>1e9` past that.
fn fmt_games(n: f64) -> String {
    if !n.is_finite() || n >= 1e9 {
        return ">1e9".to_string();
    }
    let n = n.ceil() as u64;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// The games per pair each bot of `suite` needs to catch a drop of
/// `drop_elo` with the suite's power at its per-bot level, from the scores
/// and variances in `observed` (arena by arena, matched by rules and bot
/// names; a stored result of this or another suite) or, where it has none,
/// from an even opponent with variance ¼.
pub fn power_analysis(
    suite: &Suite,
    observed: Option<&SuiteResult>,
    drop_elo: f64,
) -> Result<PowerAnalysis, ArenaError> {
    let drop_elo = check_drop(drop_elo).map_err(|e| ArenaError::Config(format!("the Elo drop {e}")))?;
    let alpha = suite.alpha_per_bot();
    let configs = suite.arena_configs()?;
    let mut bots = Vec::new();
    for (k, config) in configs.iter().enumerate() {
        let seen = observed.and_then(|o| o.arenas.get(k)).filter(|r| r.config.rules == config.rules);
        for (i, bot) in config.bots.iter().enumerate() {
            let counts = seen.map(|r| counts_of(r, &bot.to_string())).unwrap_or_default();
            let mut opponents = Vec::new();
            for (p, q) in config.matchups() {
                let opponent = match (p == i, q == i) {
                    (true, _) => &config.bots[q],
                    (_, true) => &config.bots[p],
                    _ => continue,
                };
                let opponent = opponent.to_string();
                let found = counts.iter().find(|(o, penta, _)| *o == opponent && penta.pairs() > 0);
                let yardstick = found.map_or(Yardstick::UNKNOWN, |(_, penta, _)| Yardstick::from_penta(penta));
                let alone = games_to_detect_drop(&[yardstick], drop_elo, alpha, suite.power, Samples::Two)
                    .map_err(stats_error)?;
                opponents.push(OpponentPower { bot: opponent, yardstick, observed: found.is_some(), alone });
            }
            let sticks: Vec<Yardstick> = opponents.iter().map(|o| o.yardstick).collect();
            let needed =
                games_to_detect_drop(&sticks, drop_elo, alpha, suite.power, Samples::Two).map_err(stats_error)?;
            let power_now =
                power_of(&sticks, drop_elo, alpha, suite.games_per_pair as f64, Samples::Two).map_err(stats_error)?;
            bots.push(BotPower {
                mode: config.rules.mode.name().to_string(),
                bot: bot.to_string(),
                opponents,
                needed,
                power_now,
            });
        }
    }
    let matchups = configs.iter().map(|c| c.matchups().len() as u64).sum();
    // Seconds per game from the stored run, when it played these very matchups.
    let same_matchups = observed.is_some_and(|o| {
        o.arenas.len() == configs.len()
            && o.arenas.iter().zip(&configs).all(|(r, c)| r.config.rules == c.rules && r.config.bots == c.bots)
    });
    let thread_seconds_per_game = observed
        .and_then(|o| o.timing)
        .filter(|t| same_matchups && t.games > 0 && t.seconds > 0.0)
        .map(|t| t.seconds * t.threads as f64 / t.games as f64);
    Ok(PowerAnalysis {
        drop_elo,
        alpha: suite.alpha,
        tested: suite.tested(),
        alpha_per_bot: alpha,
        power: suite.power,
        games_per_pair: suite.games_per_pair,
        matchups,
        bots,
        thread_seconds_per_game,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BotLine, MatchupLine};
    use junqi_core::Mode;
    use junqi_stats::normal_quantile;

    fn suite(margin: Option<f64>, games_per_pair: u64) -> Suite {
        Suite {
            version: 1,
            margin_elo: margin,
            detect_elo: 50.0,
            alpha: 0.05,
            power: 0.95,
            games_per_pair,
            seed: 0,
            arena: vec![SuiteArena {
                rules: "fanqi".into(),
                set: vec![],
                bots: vec![junqi_bots::BotSpec::new("random"), junqi_bots::BotSpec::new("greedy")],
                openings: None,
            }],
        }
    }

    /// random and greedy: their Bradley–Terry Elo and random's pair counts against greedy.
    fn result(greedy_elo: f64, margin: Option<f64>, penta: [u64; 5]) -> SuiteResult {
        let bots = ["random", "greedy"].map(String::from);
        let config = ArenaConfig::new(Rules::preset(Mode::Fanqi), &bots, Schedule::RoundRobin, 2, 0).unwrap();
        let games = 2 * penta.iter().sum::<u64>();
        let line = |b: &str, e: f64| BotLine {
            bot: b.into(),
            cheats: false,
            elo: Estimate { value: e, low: e - 20.0, high: e + 20.0 },
            stderr: 10.0,
            games,
            score: 0.5,
            moves_per_s: None,
        };
        let report = ArenaReport {
            config,
            code_version: String::new(),
            anchor: "random".into(),
            bots: vec![line("random", 0.0), line("greedy", greedy_elo)],
            first_mover: Estimate { value: 0.0, low: 0.0, high: 0.0 },
            prior_draws: 0.0,
            crosstable: vec![],
            matchups: vec![MatchupLine {
                bots: bots.clone(),
                games,
                score: 0.0,
                penta,
                elo: Estimate { value: 0.0, low: 0.0, high: 0.0 },
                endings: Default::default(),
            }],
            ladder: vec![],
            notes: vec![],
        };
        SuiteResult {
            suite: suite(margin, 2),
            code_version: String::new(),
            arenas: vec![report],
            timing: None,
            nets: BTreeMap::new(),
        }
    }

    const EVEN: [u64; 5] = [10, 20, 40, 20, 10];

    #[test]
    fn a_drop_beyond_the_margin_fails_and_smaller_changes_pass() {
        let base = result(300.0, Some(50.0), EVEN);
        let same = compare(&result(260.0, Some(50.0), EVEN), &base).unwrap();
        assert!(same.iter().all(|c| !c.failed && !c.dropped && c.z == 0.0));
        let worse = compare(&result(240.0, Some(50.0), EVEN), &base).unwrap();
        let g = worse.iter().find(|c| c.bot == "greedy").unwrap();
        assert!(g.failed && g.beyond_margin && !g.dropped);
        assert!((g.change.value + 60.0).abs() < 1e-9);
        // Combined error: 1.96 * sqrt(10² + 10²).
        assert!((g.change.high - g.change.value - Z95 * 200f64.sqrt()).abs() < 1e-9);
        let mut other = result(300.0, Some(50.0), EVEN);
        other.suite.version = 2;
        assert!(compare(&other, &base).is_err());
        let mut other = result(300.0, Some(50.0), EVEN);
        other.suite.seed = 9;
        assert!(compare(&other, &base).is_err());
        // Another margin, level or power is the same games.
        let mut other = result(300.0, Some(80.0), EVEN);
        other.suite.alpha = 0.01;
        other.suite.power = 0.9;
        other.suite.detect_elo = 30.0;
        assert!(compare(&other, &base).is_ok());
        // Without a margin the Bradley–Terry Elo alone fails nobody.
        assert!(compare(&result(0.0, None, EVEN), &result(300.0, None, EVEN)).unwrap().iter().all(|c| !c.failed));
    }

    #[test]
    fn a_significant_score_drop_fails_the_bot_that_dropped() {
        // random's side: 50% before; now random scores 60.5%, i.e. greedy fell by about 74 Elo
        // over 200 games; z ≈ −2.7, beyond z_{1 − 0.05/2} = 1.96.
        let base = result(0.0, None, EVEN);
        let now = result(0.0, None, [4, 12, 40, 26, 18]);
        let c = compare(&now, &base).unwrap();
        let (r, g) = (&c[0], &c[1]);
        assert!(g.failed && g.dropped && !g.beyond_margin, "{g:?}");
        assert!(g.score_change.value < -50.0 && g.score_change.value > -90.0, "{g:?}");
        assert!(g.z < -normal_quantile(1.0 - 0.025).unwrap());
        assert_eq!(g.scores, vec![("random".to_string(), 0.5, 0.395)]);
        assert!(!r.failed && r.score_change.value > 0.0);
        // A smaller fall is not significant.
        let now = result(0.0, None, [9, 19, 40, 21, 11]);
        assert!(compare(&now, &base).unwrap().iter().all(|c| !c.failed));
    }

    #[test]
    fn the_power_analysis_matches_the_formula() {
        // Nothing observed: each bot needs 2 · (z_{1 − 0.05/2} + z_0.95)² · ¼ / Δs², Δs = 0.0714631.
        let s = suite(None, 40);
        let p = power_analysis(&s, None, 50.0).unwrap();
        let z = normal_quantile(0.975).unwrap() + normal_quantile(0.95).unwrap();
        let by_hand = 2.0 * z * z * 0.25 / 0.071_463_117_408_381_4f64.powi(2);
        assert!((by_hand - 1272.5).abs() < 0.5, "{by_hand}");
        assert_eq!(p.bots.len(), 2);
        for b in &p.bots {
            assert!((b.needed - by_hand).abs() < 1e-6, "{b:?}");
            assert!(!b.opponents[0].observed && b.power_now < 0.3);
        }
        assert_eq!(p.games_per_pair_needed(), 1274);
        assert!(!p.enough());
        let md = p.to_markdown();
        assert!(md.contains("| fanqi | greedy | random assumed 50% (1 273) | 1 273 |"), "{md}");
        assert!(md.contains("SHORT") && md.contains("from 1274 games per pair"), "{md}");
        // Sized so, it has the power.
        let p = power_analysis(&suite(None, 1274), None, 50.0).unwrap();
        assert!(p.enough() && p.bots.iter().all(|b| (b.power_now - 0.95).abs() < 1e-3));
        // A bigger drop needs fewer games.
        assert!(power_analysis(&s, None, 100.0).unwrap().games_per_pair_needed() < 400);
        assert!(power_analysis(&s, None, 0.0).is_err());
        // From observed lopsided counts: more games, and they are marked observed.
        let seen = result(0.0, None, [12, 4, 3, 1, 0]);
        let p = power_analysis(&s, Some(&seen), 50.0).unwrap();
        assert!(p.bots.iter().all(|b| b.opponents[0].observed && b.needed > by_hand));
        assert!(p.to_markdown().contains("| greedy | random 82.1% (1 327) |"), "{}", p.to_markdown());
        assert_eq!(p.thread_seconds_per_game, None);
        let mut timed = seen.clone();
        timed.timing = Some(Timing { threads: 2, games: 100, seconds: 10.0 });
        let p = power_analysis(&s, Some(&timed), 50.0).unwrap();
        assert_eq!(p.thread_seconds_per_game, Some(0.2));
        assert_eq!(p.predicted_seconds(1000, 2), Some(100.0));
    }

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn the_stored_v1_baseline_still_loads_and_matches_itself() {
        let text = std::fs::read_to_string(root().join("data/regress/baseline-v1.json")).unwrap();
        let base: SuiteResult = serde_json::from_str(&text).unwrap();
        assert_eq!(base.suite.margin_elo, Some(150.0));
        assert_eq!((base.suite.detect_elo, base.suite.alpha, base.suite.power), (50.0, 0.05, 0.95));
        assert_eq!(base.timing, None);
        let v1 = Suite::from_file(&root().join("configs/regress/v1.toml")).unwrap();
        assert_eq!(v1.games(), base.suite.games());
        let c = compare(&base, &base).unwrap();
        assert_eq!(c.len(), 8);
        assert!(c.iter().all(|c| !c.failed && c.change.value == 0.0 && c.score_change.value == 0.0));
        // 40 games per pair are far too few for 50 Elo.
        let p = power_analysis(&v1, Some(&base), 50.0).unwrap();
        assert!(!p.enough() && p.bots.iter().all(|b| b.power_now < 0.5), "{}", p.to_markdown());
    }

    #[test]
    fn the_shipped_v2_suite_has_its_power_by_its_baseline() {
        let v2 = Suite::from_file(&root().join("configs/regress/v2.toml")).unwrap();
        let text = std::fs::read_to_string(root().join("data/regress/baseline-v2.json")).unwrap();
        let base: SuiteResult = serde_json::from_str(&text).unwrap();
        assert_eq!(v2, base.suite);
        assert_eq!((v2.margin_elo, v2.detect_elo, v2.alpha, v2.power), (None, 50.0, 0.05, 0.95));
        assert_eq!(v2.tested(), 8);
        let p = power_analysis(&v2, Some(&base), v2.detect_elo).unwrap();
        assert!(p.enough(), "{}", p.to_markdown());
        assert!(p.bots.iter().all(|b| b.opponents.iter().all(|o| o.observed) && b.power_now > 0.95));
        // Each bot needs well over a thousand games per pair: the lopsided matchups tell little.
        assert!(p.bots.iter().all(|b| b.needed > 900.0 && b.needed < 0.8 * v2.games_per_pair as f64));
        assert!(p.thread_seconds_per_game.is_some());
        let c = compare(&base, &base).unwrap();
        assert!(c.iter().all(|c| !c.failed && c.score_change.value == 0.0));
        // The test's standard error is what the analysis planned: a 50 Elo drop is
        // z_{1-α/8} + z_0.95 = 4.14 errors at the games needed, more at the games played.
        for c in &c {
            let se = (c.score_change.high - c.score_change.value) / Z95;
            assert!(se > 5.0 && se < 50.0 / 4.14, "{c:?}");
        }
    }
}
