//! Evaluation: paired matchups of a generation's net, its ratings against
//! the fixed anchors, and the SPRT gate against the best net.

use crate::config::{LoopConfig, SprtGate};
use crate::stages::{gen_dir, reset, Stages};
use crate::state::{GateRecord, Generation};
use crate::{LoopError, LoopObserver, Result};
use junqi_arena::{matchup_config, pair_scores, play_matchup, ArenaError};
use junqi_bots::BotSpec;
use junqi_core::Rules;
use junqi_selfplay::RunOptions;
use junqi_stats::{pair_estimates, Penta};
use std::path::Path;

/// Play (or resume) paired games; the first bot's score and Elo, each with its 95% interval.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matchup(
    rules: &Rules,
    bots: [&BotSpec; 2],
    games: u64,
    seed: u64,
    dir: &Path,
    options: &RunOptions,
    observer: &mut dyn LoopObserver,
    label: &str,
) -> Result<([f64; 3], [f64; 3])> {
    // Small shards (pairs stay whole): every worker has games, so a net's
    // positions from many games share its batches.
    let shard = (games / junqi_selfplay::workers(options.threads) as u64).next_multiple_of(2).max(2);
    let config = matchup_config(*rules, bots, games, seed)?.with_shard_games(shard);
    reset(options);
    observer.stage(label, games);
    let m = play_matchup(config, dir, options).map_err(|e| arena_error(e, dir))?;
    let penta = Penta::from_pairs(pair_scores(&m.results, 0))?;
    let est = pair_estimates(&penta);
    Ok(([est.score.value, est.score.low, est.score.high], [est.elo.value, est.elo.low, est.elo.high]))
}

/// The seed of generation `g`'s evaluation games (the anchors' games use
/// it xor a constant, the same for every anchor: common deals).
pub(crate) fn eval_seed(config: &LoopConfig, g: u32) -> u64 {
    config.seed.wrapping_add(7_919u64.wrapping_mul(g as u64 + 1))
}

/// The directory of a generation's games against `anchor`: `eval-anchor`
/// for the main one, `eval-vs-SPEC` (spec made a file name) for the others.
pub(crate) fn anchor_dir(config: &LoopConfig, anchor: &BotSpec) -> String {
    if *anchor == config.evaluate.anchor {
        return "eval-anchor".into();
    }
    let name: String =
        anchor.to_string().chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
    format!("eval-vs-{name}")
}

/// The anchors `rec` has no rating against yet (none with
/// `evaluate.anchor_games = 0`).
pub(crate) fn unrated(config: &LoopConfig, rec: &Generation) -> Vec<BotSpec> {
    if config.evaluate.anchor_games == 0 {
        return Vec::new();
    }
    let anchors = config.evaluate.anchors().into_iter();
    anchors.filter(|a| rec.elo_against(config, &a.to_string()).is_none()).cloned().collect()
}

/// Saves one rating: the anchor, the Elo and the score (each with its 95% interval).
pub(crate) type RecordRating<'a> = dyn FnMut(&str, [f64; 3], [f64; 3]) -> Result<()> + 'a;

/// Rate generation `g` (its net at `net_path`) against each of `anchors`,
/// handing each rating (Elo, then score) to `record` (which saves it)
/// before the next game starts; whether it rated any.
pub(crate) fn rate_against_anchors(
    stages: &mut Stages,
    g: u32,
    net_path: &Path,
    anchors: &[BotSpec],
    record: &mut RecordRating,
) -> Result<bool> {
    if let Some(rules) = stages.siguo {
        return stages.siguo_rate(rules, g, net_path, anchors, record);
    }
    let config = stages.config;
    let candidate = config.rated_bot(net_path);
    for anchor in anchors {
        // Every anchor plays the same deals (paired comparisons).
        let (score, elo) = matchup(
            &stages.rules,
            [&candidate, anchor],
            config.evaluate.anchor_games,
            eval_seed(config, g) ^ 0x5A5A,
            &gen_dir(stages.out, g).join(anchor_dir(config, anchor)),
            stages.options,
            stages.observer,
            &format!("gen {g}: net {g} vs {anchor}"),
        )?;
        record(&anchor.to_string(), elo, score)?;
        stages.observer.line(&format!("gen {g}: Elo {:+.0} [{:+.0}, {:+.0}] against {anchor}", elo[0], elo[1], elo[2]));
    }
    Ok(!anchors.is_empty())
}
/// An arena error of a loop stage playing in `dir`: a stop is resumable.
pub(crate) fn arena_error(e: ArenaError, dir: &Path) -> LoopError {
    match e {
        ArenaError::Interrupted => {
            LoopError::Interrupted(format!("stopped; run the same command to resume ({})", dir.display()))
        }
        other => LoopError::Arena(other),
    }
}

/// The SPRT gate: batches of `batch_games` paired games of `bots[0]` (the
/// candidate) against `bots[1]` until the test decides or reaches
/// `gate.max_games` (then [`SprtGate::promotes`] decides by `gate.at_limit`). Resumable: the batches are
/// matchups in `dir`. Returns the record and the candidate's score with its
/// 95% interval.
pub fn sprt_gate(
    rules: &Rules,
    bots: [&BotSpec; 2],
    batch_games: u64,
    gate: &SprtGate,
    seed: u64,
    dir: &Path,
    options: &RunOptions,
) -> Result<(GateRecord, [f64; 3])> {
    let config = junqi_arena::sprt::SprtConfig {
        rules: *rules,
        candidate: bots[0].clone(),
        baseline: bots[1].clone(),
        elo0: gate.elo0,
        elo1: gate.elo1,
        alpha: gate.alpha,
        beta: gate.beta,
        batch_games,
        max_games: gate.max_games,
        seed,
        openings: None,
        timeouts: None,
    };
    let outcome = junqi_arena::sprt::run_sprt(&config, dir, options, |_, _| {}).map_err(|e| arena_error(e, dir))?;
    Ok(gate_record(&outcome.summary, outcome.games))
}

/// How a gate's test ended after `games` games: its record (verdict
/// "H1", "H0", or "limit" when undecided) and the candidate's score with
/// its 95% interval.
pub(crate) fn gate_record(s: &junqi_stats::SprtSummary, games: u64) -> (GateRecord, [f64; 3]) {
    let verdict = match s.decision {
        junqi_stats::Decision::AcceptH1 => "H1",
        junqi_stats::Decision::AcceptH0 => "H0",
        junqi_stats::Decision::Continue => "limit",
    };
    let record =
        GateRecord { games, llr: s.llr, lower: s.bounds.lower, upper: s.bounds.upper, verdict: verdict.into() };
    (record, [s.score.value, s.score.low, s.score.high])
}
