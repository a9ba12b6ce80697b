//! The first-move study along a strength ladder: how the first mover's
//! advantage moves with the players' strength.
//!
//! For each preset (or variant) of the ladder:
//!
//! 1. one round-robin arena among the ladder's bots puts every rung on one
//!    Elo scale (`random` at 0 when it is a rung, else the first rung);
//! 2. each rung plays the first-move study of that preset against itself,
//!    as a precision study (its state is its `tallies.json`, so a finished
//!    rung is never played again, even without its games);
//! 3. the report: rung → Elo → the first mover's score and Elo advantage
//!    → draws, and a chart of the advantage against the rung's Elo.
//!
//! A round robin rather than a chain of neighbours: with a few rungs it
//! costs little more, and every pair that meets ties the scale together, so
//! one lopsided pair (e.g. `random` against `heuristic`, which `random`
//! never beats) does not leave the rungs above it floating.

use crate::arena::{run_arena, ArenaConfig, Schedule};
use crate::matchup::{matchup_config, play_matchup};
use crate::report::ArenaReport;
use crate::study::{run_study_from, Precision, Resume, StudyConfig, Variant, VariantLine};
use crate::svg::{scatter_chart, Point};
use crate::{ensure_run_file, slug, write_atomic, ArenaError};
use junqi_bots::BotSpec;
use junqi_selfplay::RunOptions;
use junqi_stats::Estimate;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The file holding a ladder study's config (and its plan) in its directory.
pub const LADDER_FILE: &str = "ladder.json";
const LADDER_FORMAT: &str = "junqi-study-ladder/1";

/// How each rung's number of games was chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Budget {
    /// The whole study (arenas and rungs) to fit `hours` on this machine:
    /// every rung to one common precision, its games from a timing of
    /// `timing_games` games of the rung.
    Hours { hours: f64, timing_games: u64 },
    /// Every rung to ±`elo` Elo, at most `max_games` games, in rounds of `round`.
    Precision { elo: f64, max_games: u64, round: u64 },
    /// `games` games per rung.
    Games { games: u64 },
}

impl Budget {
    /// The options that give this budget, e.g. `--hours 2 --timing-games 32`.
    pub fn describe(&self) -> String {
        match self {
            Budget::Hours { hours, timing_games } => format!("--hours {hours} --timing-games {timing_games}"),
            Budget::Precision { elo, max_games, round } => {
                format!("--precision {elo} --max-games {max_games} --games {round}")
            }
            Budget::Games { games } => format!("--games {games}"),
        }
    }
}

/// One rung's share of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RungPlan {
    /// Games per round of the rung's study.
    pub round: u64,
    /// The rung's precision target and game cap.
    pub precision: Precision,
    /// From the timing (with `--hours`): wall seconds per game on this
    /// machine with the threads used, and the share of drawn games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secs_per_game: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_rate: Option<f64>,
}

/// Everything that decides a ladder study's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderConfig {
    /// The rungs, canonical specs, in the order given.
    pub bots: Vec<BotSpec>,
    /// The presets (or variants) each rung is studied on.
    pub presets: Vec<Variant>,
    /// Games per pair of bots in each preset's arena.
    pub arena_games: u64,
    pub seed: u64,
    pub budget: Budget,
    /// `rungs[p][r]`: bot `r`'s study of preset `p`.
    pub rungs: Vec<Vec<RungPlan>>,
    /// The plan's estimate of the whole study's wall time, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_secs: Option<f64>,
}

/// The rungs `list` (comma-separated bot specs) names, checked: known bots,
/// at least two, none twice.
pub fn parse_ladder(list: &str) -> Result<Vec<BotSpec>, ArenaError> {
    let mut bots: Vec<BotSpec> = Vec::new();
    // A rung's own parameters may hold commas (`mcts:sims=32,eval=net:default`).
    for spec in junqi_bots::split_bot_list(list) {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(ArenaError::Config(format!("--ladder {list}: an empty rung")));
        }
        let bot: BotSpec = spec.parse().map_err(|e| ArenaError::Config(format!("--ladder: rung `{spec}`: {e}")))?;
        let bot = bot.canonical().map_err(|e| ArenaError::Config(format!("--ladder: rung `{spec}`: {e}")))?;
        if let Some(j) = bots.iter().position(|b| *b == bot) {
            return Err(ArenaError::Config(format!(
                "--ladder: rung `{spec}` is given twice (as rung {} and {})",
                j + 1,
                bots.len() + 1
            )));
        }
        bots.push(bot);
    }
    if bots.len() < 2 {
        return Err(ArenaError::Config(format!(
            "--ladder {list}: a ladder needs at least two rungs (to put them on one Elo scale), got {}",
            bots.len()
        )));
    }
    Ok(bots)
}

impl LadderConfig {
    /// Preset `p`'s directory inside `out`.
    pub fn preset_dir(&self, out: &Path, p: usize) -> PathBuf {
        out.join("presets").join(format!("{p:02}-{}", slug(&self.presets[p].name)))
    }

    /// Preset `p`'s arena among the rungs: a round robin, every seed played with the seats swapped.
    pub fn arena(&self, p: usize) -> Result<ArenaConfig, ArenaError> {
        ArenaConfig::new(self.presets[p].rules, &self.bots, Schedule::RoundRobin, self.arena_games, self.seed)
    }

    pub fn arena_dir(&self, out: &Path, p: usize) -> PathBuf {
        self.preset_dir(out, p).join("arena")
    }

    /// Rung `r`'s first-move study of preset `p`.
    pub fn rung_study(&self, p: usize, r: usize) -> StudyConfig {
        let plan = &self.rungs[p][r];
        StudyConfig {
            variants: vec![self.presets[p].clone()],
            bot: self.bots[r].clone(),
            games: plan.round,
            seed: self.seed,
            precision: Some(plan.precision),
            factorial: None,
        }
    }

    pub fn rung_dir(&self, out: &Path, p: usize, r: usize) -> PathBuf {
        self.preset_dir(out, p).join("rungs").join(slug(&self.bots[r].to_string()))
    }

    /// Everything checked before anything is played.
    pub fn check(&self) -> Result<(), ArenaError> {
        if self.presets.is_empty() {
            return Err(ArenaError::Config("the ladder study has no presets".into()));
        }
        if self.rungs.len() != self.presets.len() || self.rungs.iter().any(|r| r.len() != self.bots.len()) {
            return Err(ArenaError::Config("the ladder's plan does not match its bots and presets".into()));
        }
        for p in 0..self.presets.len() {
            self.arena(p)?;
            for r in 0..self.bots.len() {
                self.rung_study(p, r).check()?;
            }
        }
        Ok(())
    }

    /// Games in the whole study at most (the arenas and every rung's cap).
    pub fn max_games(&self) -> u64 {
        let pairs = (self.bots.len() * (self.bots.len() - 1) / 2) as u64;
        let rungs: u64 = self.rungs.iter().flatten().map(|r| r.precision.max_games).sum();
        pairs * self.arena_games * self.presets.len() as u64 + rungs
    }

    /// The ladder's config with the plan of `budget` for games from `rungs` fixed
    /// counts or precision (no timing needed).
    pub fn fixed(
        bots: Vec<BotSpec>,
        presets: Vec<Variant>,
        arena_games: u64,
        seed: u64,
        budget: Budget,
    ) -> Result<LadderConfig, ArenaError> {
        let plan = match &budget {
            Budget::Games { games } => RungPlan {
                round: *games,
                // A target any round meets: one round of `games`.
                precision: Precision { elo: 1000.0, max_games: *games },
                secs_per_game: None,
                draw_rate: None,
            },
            Budget::Precision { elo, max_games, round } => RungPlan {
                round: *round,
                precision: Precision { elo: *elo, max_games: *max_games },
                secs_per_game: None,
                draw_rate: None,
            },
            Budget::Hours { .. } => {
                return Err(ArenaError::Config("an --hours plan needs the rungs' timing".into()));
            }
        };
        let rungs = vec![vec![plan; bots.len()]; presets.len()];
        let config = LadderConfig { bots, presets, arena_games, seed, budget, rungs, estimated_secs: None };
        config.check()?;
        Ok(config)
    }
}

/// One rung's timing: wall seconds per game on this machine with all its
/// workers busy, and the share of drawn games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub secs_per_game: f64,
    pub draw_rate: f64,
}

/// The file a rung's timing is kept in, inside the timing's directory.
pub const TIMING_FILE: &str = "timing.json";

/// Time rung `bot` on `preset`: `games` games of self-play into `dir`, on
/// seeds of their own. The timing is kept in `dir/timing.json`, so a plan
/// made again after a kill reads the same. Measured by the wall clock
/// (scaled to all workers busy: a short timing has fewer shards than
/// workers), and never below the bots' thinking time spread over the
/// workers; a timing resumed from games on disk has only the latter.
pub fn time_rung(
    preset: &Variant,
    bot: &BotSpec,
    games: u64,
    seed: u64,
    dir: &Path,
    options: &RunOptions,
) -> Result<Timing, ArenaError> {
    let file = dir.join(TIMING_FILE);
    if file.is_file() {
        let text = junqi_core::read_text(&file).map_err(ArenaError::io(&file))?;
        return serde_json::from_str(&text).map_err(|e| ArenaError::Data(format!("{}: {e}", file.display())));
    }
    let c = matchup_config(preset.rules, [bot, bot], games, junqi_selfplay::game_seed(seed, 1 << 40))?;
    let shards = c.shards();
    let started = std::time::Instant::now();
    let m = play_matchup(c, dir, &RunOptions { part: None, ..options.clone() })?;
    let wall = started.elapsed().as_secs_f64();
    let n = m.results.len().max(1) as f64;
    let workers = junqi_selfplay::workers(options.threads) as f64;
    let think = (m.thinking.secs[0] + m.thinking.secs[1]) / n / workers;
    let played_now = m.summary.as_ref().map_or(0, |s| s.games_played);
    let busy = (shards as f64).min(workers);
    let by_wall = if played_now == games { wall * busy / (n * workers) } else { 0.0 };
    let draws = m.results.iter().filter(|r| r.seat1_score == 0.5).count() as f64;
    let timing = Timing { secs_per_game: by_wall.max(think).max(1e-5), draw_rate: draws / n };
    let json = serde_json::to_string_pretty(&timing).map_err(|e| ArenaError::Data(e.to_string()))?;
    write_atomic(&file, &json)?;
    Ok(timing)
}

/// The common precision target (Elo) and each rung's games for a study of
/// `budget_secs`, given each rung's timing (`timings[p][r]`) and the
/// arenas' estimated seconds: the smallest target whose games fit (games
/// per rung from the draw rate, even, at least `min_games`).
pub fn plan_hours(
    timings: &[Vec<Timing>],
    arena_secs: f64,
    budget_secs: f64,
    min_games: u64,
) -> Result<(f64, Vec<Vec<u64>>), ArenaError> {
    let games = |elo: f64| -> Result<Vec<Vec<u64>>, ArenaError> {
        timings
            .iter()
            .map(|row| {
                row.iter()
                    .map(|t| {
                        // A timing of few games may see only draws: the plan assumes at most 90%.
                        let n = junqi_stats::power::games_for_elo_half_width(elo, t.draw_rate.min(0.9))?;
                        Ok(n.max(min_games).div_ceil(2) * 2)
                    })
                    .collect()
            })
            .collect()
    };
    let secs = |g: &[Vec<u64>]| -> f64 {
        let rungs: f64 = g
            .iter()
            .zip(timings)
            .flat_map(|(gr, tr)| gr.iter().zip(tr).map(|(n, t)| *n as f64 * t.secs_per_game))
            .sum();
        rungs + arena_secs
    };
    let (mut lo, mut hi) = (0.25_f64, 1000.0_f64);
    if secs(&games(hi)?) > budget_secs {
        return Err(ArenaError::Config(format!(
            "the budget ({}) is too small: the arenas and the smallest rung studies take about {}",
            human_secs(budget_secs),
            human_secs(secs(&games(hi)?))
        )));
    }
    if secs(&games(lo)?) <= budget_secs {
        hi = lo;
    }
    // Bisect on a log scale: the games go as 1/elo².
    for _ in 0..60 {
        if hi / lo < 1.001 {
            break;
        }
        let mid = (lo * hi).sqrt();
        if secs(&games(mid)?) <= budget_secs {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // One decimal, rounded up, so the plan reads as it is.
    let elo = (hi * 10.0).ceil() / 10.0;
    Ok((elo, games(elo)?))
}

/// The arenas' estimated seconds: each pair's games at the mean of the two
/// bots' seconds per game (`timings[p][r]`).
pub fn arena_secs(timings: &[Vec<Timing>], arena_games: u64) -> f64 {
    let mut secs = 0.0;
    for row in timings {
        for i in 0..row.len() {
            for j in i + 1..row.len() {
                secs += arena_games as f64 * 0.5 * (row[i].secs_per_game + row[j].secs_per_game);
            }
        }
    }
    secs
}

/// `secs` as `1 h 05 min`, `12 min 30 s` or `4.2 s`.
pub fn human_secs(secs: f64) -> String {
    if secs >= 3600.0 {
        let m = (secs / 60.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    } else if secs >= 60.0 {
        let s = secs.round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{secs:.1} s")
    }
}

/// The plan as text: each rung's games, target and estimated time.
pub fn plan_text(config: &LadderConfig) -> String {
    let mut s = String::new();
    let pairs = config.bots.len() * (config.bots.len() - 1) / 2;
    let _ = writeln!(
        s,
        "Ladder plan: {} rungs ({}), {} preset{} ({}); each preset's arena a round robin of {} pair{} × {} games ({} at 0).",
        config.bots.len(),
        config.bots.iter().map(BotSpec::to_string).collect::<Vec<_>>().join(", "),
        config.presets.len(),
        if config.presets.len() == 1 { "" } else { "s" },
        config.presets.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "),
        pairs,
        if pairs == 1 { "" } else { "s" },
        config.arena_games,
        anchor_of(&config.bots)
    );
    match &config.budget {
        Budget::Hours { hours, timing_games } => {
            let elo = config.rungs.iter().flatten().next().map_or(0.0, |r| r.precision.elo);
            let _ = writeln!(
                s,
                "Budget {hours} h: every rung to ±{elo} Elo of first-mover advantage (games from a timing of {timing_games} games per rung and its draws)."
            );
        }
        Budget::Precision { elo, max_games, round } => {
            let _ = writeln!(s, "Every rung to ±{elo} Elo, at most {max_games} games, in rounds of {round}.");
        }
        Budget::Games { games } => {
            let _ = writeln!(s, "{games} games per rung.");
        }
    }
    for (p, preset) in config.presets.iter().enumerate() {
        for (r, bot) in config.bots.iter().enumerate() {
            let plan = &config.rungs[p][r];
            let mut line = format!("  {} / {bot}: up to {} games", preset.name, plan.precision.max_games);
            if let (Some(t), Some(d)) = (plan.secs_per_game, plan.draw_rate) {
                let _ = write!(
                    line,
                    " ({:.2} ms a game, {:.0}% draws in the timing: about {})",
                    1e3 * t,
                    100.0 * d,
                    human_secs(t * plan.precision.max_games as f64)
                );
            }
            let _ = writeln!(s, "{line}");
        }
    }
    if let Some(secs) = config.estimated_secs {
        let _ = writeln!(s, "Estimated time of the whole study: {} (arenas included).", human_secs(secs));
    }
    s
}

/// The bot an arena of `bots` anchors at Elo 0: `random` when it is one, else the first.
pub fn anchor_of(bots: &[BotSpec]) -> String {
    let random = BotSpec::new("random");
    bots.iter().find(|b| **b == random).unwrap_or(&bots[0]).to_string()
}

/// Create `out` holding `config` (its `ladder.json`), or check that the one
/// there is the same; returns the lock on `out`, held while playing.
pub fn ensure_ladder_file(
    out: &Path,
    config: &LadderConfig,
) -> Result<std::sync::Arc<junqi_selfplay::RunLock>, ArenaError> {
    ensure_run_file(out, LADDER_FILE, LADDER_FORMAT, config, None)
}

/// The ladder config stored in `out`, if any (e.g. to resume its plan
/// without timing the rungs again).
pub fn read_ladder_file(out: &Path) -> Result<Option<LadderConfig>, ArenaError> {
    let path = out.join(LADDER_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let text = junqi_core::read_text(&path).map_err(ArenaError::io(&path))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ArenaError::Data(format!("{}: {e}", path.display())))?;
    let config = serde_json::from_value(value["config"].clone())
        .map_err(|e| ArenaError::Data(format!("{}: not a ladder study this program can read: {e}", path.display())))?;
    Ok(Some(config))
}

/// One rung of one preset in the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RungLine {
    pub bot: String,
    /// The rung's Elo in the preset's arena (95% interval).
    pub elo: Estimate,
    /// The rung's first-move study (its one line).
    pub study: VariantLine,
}

/// One preset's ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresetLadder {
    pub preset: String,
    /// The bot at Elo 0.
    pub anchor: String,
    /// The arena's games per pair and its first-mover Elo (all pairings).
    pub arena_games: u64,
    pub arena_first_mover: Estimate,
    pub rungs: Vec<RungLine>,
}

/// A finished ladder study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderResult {
    pub presets: Vec<PresetLadder>,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// What the ladder is doing, for a progress line.
pub enum Stage<'a> {
    Arena { preset: &'a str },
    Rung { preset: &'a str, bot: &'a BotSpec, what: &'a str },
}

/// Play (or resume) the ladder study `config` into `out`: each preset's
/// arena (its report written as `results.json` and `results.md` in the
/// arena's directory), then each rung's study.
pub fn run_ladder(
    config: &LadderConfig,
    out: &Path,
    options: &RunOptions,
    mut on_stage: impl FnMut(Stage),
) -> Result<LadderResult, ArenaError> {
    config.check()?;
    let _lock = ensure_ladder_file(out, config)?;
    let mut result = LadderResult { presets: Vec::new(), notes: Vec::new() };
    for (p, preset) in config.presets.iter().enumerate() {
        on_stage(Stage::Arena { preset: &preset.name });
        let arena_dir = config.arena_dir(out, p);
        let report = run_arena(&config.arena(p)?, &arena_dir, options, |_, _| {})?;
        write_arena_report(&report, &arena_dir)?;
        result.notes.extend(report.notes.iter().cloned());
        let mut rungs = Vec::new();
        for (r, bot) in config.bots.iter().enumerate() {
            let study = config.rung_study(p, r);
            let dir = config.rung_dir(out, p, r);
            let s = run_study_from(&study, &dir, options, &Resume::default(), |what| {
                on_stage(Stage::Rung { preset: &preset.name, bot, what })
            })?;
            result.notes.extend(s.notes);
            let line = s.lines.into_iter().next().ok_or_else(|| ArenaError::Data("a rung without a line".into()))?;
            rungs.push(RungLine { bot: bot.to_string(), elo: report.bots[r].elo, study: line });
        }
        result.presets.push(PresetLadder {
            preset: preset.name.clone(),
            anchor: report.anchor.clone(),
            arena_games: config.arena_games,
            arena_first_mover: report.first_mover,
            rungs,
        });
    }
    Ok(result)
}

/// An arena's report as the arena command writes it: `results.json` and `results.md`.
pub fn write_arena_report(report: &ArenaReport, dir: &Path) -> Result<(), ArenaError> {
    let json = serde_json::to_string_pretty(report).map_err(|e| ArenaError::Data(e.to_string()))?;
    write_atomic(&dir.join("results.json"), &json)?;
    write_atomic(&dir.join("results.md"), &report.to_markdown())
}

fn ci(e: &Estimate, digits: usize) -> String {
    format!("{:+.*} [{:+.*}, {:+.*}]", digits, e.value, digits, e.low, digits, e.high)
}

/// The report as Markdown: per preset, rung → Elo → first mover → draws.
pub fn to_markdown(config: &LadderConfig, result: &LadderResult, code: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# The first-mover advantage along a strength ladder\n");
    let _ = writeln!(s, "Code: {code}. Seed {}.\n", config.seed);
    let _ = writeln!(
        s,
        "Each rung's Elo comes from one round-robin arena per preset among the rungs ({} games per pair, each deal played with the seats swapped; Bradley–Terry with a first-mover term). Each rung's first-move study is its self-play on the preset: the first mover's score and its Elo advantage, 95% intervals from the paired games.\n",
        config.arena_games
    );
    let mut plan = plan_text(config);
    plan = plan.lines().map(|l| format!("    {l}\n")).collect();
    let _ = writeln!(s, "The plan:\n\n{plan}");
    for p in &result.presets {
        let _ = writeln!(
            s,
            "## {}\n\nElo anchor: {} = 0. First mover in the arena (all pairings): {} Elo.\n",
            p.preset,
            p.anchor,
            ci(&p.arena_first_mover, 0)
        );
        let _ = writeln!(s, "| rung | Elo [95% CI] | games | first mover's score [95% CI] | first mover's Elo [95% CI] | draws | endings |");
        let _ = writeln!(s, "|---|---|---:|---|---|---:|---|");
        for r in &p.rungs {
            let l = &r.study;
            let endings: Vec<String> = l.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.1}% [{:.1}, {:.1}] | {} | {:.1}% | {} |",
                r.bot,
                ci(&r.elo, 0),
                l.games,
                100.0 * l.score.value,
                100.0 * l.score.low,
                100.0 * l.score.high,
                ci(&l.elo, 1),
                100.0 * l.draws.rate,
                endings.join(", ")
            );
        }
        let _ = writeln!(s);
    }
    if !result.notes.is_empty() {
        let _ = writeln!(s, "Notes:\n");
        for n in &result.notes {
            let _ = writeln!(s, "* {n}");
        }
    }
    s
}

/// The report as CSV, one line per preset and rung.
pub fn to_csv(result: &LadderResult) -> String {
    let mut s = String::from(
        "preset,bot,elo,elo_low,elo_high,games,first_mover_score,score_low,score_high,first_mover_elo,first_mover_elo_low,first_mover_elo_high,draw_rate,terminations\n",
    );
    for p in &result.presets {
        for r in &p.rungs {
            let l = &r.study;
            let endings: BTreeMap<&str, u64> = l.terminations.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            let endings: Vec<String> = endings.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(
                s,
                "{},{},{:.2},{:.2},{:.2},{},{:.5},{:.5},{:.5},{:.2},{:.2},{:.2},{:.5},{}",
                crate::csv_field(&p.preset),
                crate::csv_field(&r.bot),
                r.elo.value,
                r.elo.low,
                r.elo.high,
                l.games,
                l.score.value,
                l.score.low,
                l.score.high,
                l.elo.value,
                l.elo.low,
                l.elo.high,
                l.draws.rate,
                crate::csv_field(&endings.join(";"))
            );
        }
    }
    s
}

/// The ladder's chart: the first mover's Elo advantage against the rung's Elo, one series per preset.
pub fn chart(config: &LadderConfig, result: &LadderResult) -> String {
    let series: Vec<(String, Vec<Point>)> = result
        .presets
        .iter()
        .map(|p| {
            let points = p.rungs.iter().map(|r| Point { label: r.bot.clone(), x: r.elo, y: r.study.elo }).collect();
            (p.preset.clone(), points)
        })
        .collect();
    let anchor = result.presets.first().map_or_else(|| anchor_of(&config.bots), |p| p.anchor.clone());
    scatter_chart(
        "The first mover's advantage against playing strength (95% CI)",
        &format!("the rung's Elo in its preset's arena ({anchor} = 0)"),
        "first mover's Elo advantage, self-play",
        &series,
        0.0,
    )
}

/// Write the report (`ladder.md`, `.csv`, `.svg`, `.json`) into `out`; returns the Markdown.
pub fn write_report(
    config: &LadderConfig,
    result: &LadderResult,
    out: &Path,
    code: &str,
) -> Result<String, ArenaError> {
    let markdown = to_markdown(config, result, code);
    write_atomic(&out.join("ladder.md"), &markdown)?;
    write_atomic(&out.join("ladder.csv"), &to_csv(result))?;
    write_atomic(&out.join("ladder.svg"), &chart(config, result))?;
    let json = serde_json::to_string_pretty(result).map_err(|e| ArenaError::Data(e.to_string()))?;
    write_atomic(&out.join("ladder-results.json"), &json)?;
    Ok(markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(v: f64) -> Estimate {
        Estimate { value: v, low: v - 10.0, high: v + 10.0 }
    }

    #[test]
    fn bad_ladders_are_refused_by_name() {
        let err = |s: &str| parse_ladder(s).unwrap_err().to_string();
        assert!(err("random,nope").contains("rung `nope`"), "{}", err("random,nope"));
        assert!(err("random").contains("at least two rungs"));
        assert!(err("random,greedy,random").contains("given twice"));
        assert!(err("random,,greedy").contains("empty rung"));
        assert_eq!(parse_ladder("random, greedy").unwrap().len(), 2);
    }

    #[test]
    fn a_rung_may_hold_commas_of_its_own() {
        let bots = parse_ladder("random,mcts:sims=32,c=2,greedy").unwrap();
        let names: Vec<String> = bots.iter().map(ToString::to_string).collect();
        assert_eq!(names.len(), 2 + 1, "{names:?}");
        assert!(names[1].starts_with("mcts:") && names[1].contains("sims=32") && names[1].contains("c=2"), "{names:?}");
        assert_eq!(names[2], "greedy");
    }

    #[test]
    fn the_hours_plan_fits_its_budget_and_more_time_buys_precision() {
        let t = |s, d| Timing { secs_per_game: s, draw_rate: d };
        let timings = vec![vec![t(0.001, 0.0), t(0.01, 0.5), t(0.1, 0.8)]];
        let arena = arena_secs(&timings, 100);
        let (e1, g1) = plan_hours(&timings, arena, 600.0, 2).unwrap();
        let (e2, _) = plan_hours(&timings, arena, 6000.0, 2).unwrap();
        assert!(e2 < e1, "{e1} {e2}");
        let used: f64 = g1[0].iter().zip(&timings[0]).map(|(n, t)| *n as f64 * t.secs_per_game).sum::<f64>() + arena;
        assert!(used <= 600.0 * 1.01, "{used}");
        assert!(g1[0].iter().all(|n| n % 2 == 0));
        assert!(plan_hours(&timings, arena, 1.0, 2).unwrap_err().to_string().contains("too small"));
    }

    #[test]
    fn the_chart_puts_each_point_at_its_x() {
        let series = vec![(
            "fanqi".to_string(),
            vec![
                Point { label: "random".into(), x: est(0.0), y: est(30.0) },
                Point { label: "heuristic".into(), x: est(812.0), y: est(-4.0) },
            ],
        )];
        let svg = scatter_chart("t", "x", "y", &series, 0.0);
        let ticks: Vec<(f64, f64)> = svg
            .split(r#"class="x-tick" data-value=""#)
            .skip(1)
            .map(|p| {
                let v: f64 = p.split('"').next().unwrap().parse().unwrap();
                let x: f64 = p.split("x=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
                (v, x)
            })
            .collect();
        assert!(ticks.len() >= 2);
        let ((v0, x0), (v1, x1)) = (ticks[0], ticks[ticks.len() - 1]);
        for (label, want) in [("random", 0.0), ("heuristic", 812.0)] {
            let c = svg.split("<circle ").find(|c| c.contains(&format!("data-label=\"{label}\""))).unwrap();
            let cx: f64 = c.split("cx=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
            let elo = v0 + (cx - x0) / (x1 - x0) * (v1 - v0);
            assert!((elo - want).abs() < 1.0, "{label}: {elo}");
        }
    }
}
