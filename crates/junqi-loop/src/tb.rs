//! The loop's own progress as TensorBoard scalars, in `<out>/tb/` beside
//! the trainer's `<out>/train/tb/` (`tensorboard --logdir <out>` shows
//! both): one point per generation, at step = the generation's index,
//! written once when the generation finishes (a resume opens a new event
//! file and writes only what it adds, as the trainer does).
//!
//! Tags: `elo/<anchor>` with `elo_low/…` and `elo_high/…` (95% interval);
//! `best/score` (against the best net), `best/promoted` (0 or 1);
//! `gate/llr`, `gate/games`, `gate/verdict` (1 H1, −1 H0, 0 undecided);
//! `selfplay/games`, `selfplay/games_per_s`, `selfplay/positions_per_s`,
//! `selfplay/mean_batch`, `selfplay/cache_share`; `resign/threshold`,
//! `resign/resigned_share`, `resign/false_rate`; `train/samples_per_s`,
//! `train/policy_loss`, `train/value_loss`, `train/belief_loss` (nets with
//! a belief head), `train/deploy_loss` (learned deployments); `loop/minutes`;
//! in an exploit run, `score/<anchor>` with `score_low/…` and `score_high/…`.

use crate::config::LoopConfig;
use crate::state::Generation;
use crate::Result;
use junqi_train::{Metrics, TensorBoardMetrics};
use std::path::Path;

/// The loop's event files, under the run directory.
pub const LOOP_TB_DIR: &str = "tb";

/// The scalars of a finished generation (those it has: the first net has
/// no score against a best, a generation without a gate no LLR).
pub fn generation_scalars(config: &LoopConfig, g: &Generation) -> Vec<(String, f64)> {
    let mut s: Vec<(String, f64)> = Vec::new();
    let mut put = |tag: &str, value: Option<f64>| {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            s.push((tag.to_string(), v));
        }
    };
    let per_s = |n: u64, seconds: f64| (seconds > 0.0).then(|| n as f64 / seconds);
    put("best/score", g.score_vs_best.map(|x| x[0]));
    put("best/promoted", Some(f64::from(u8::from(g.promoted))));
    if let Some(gate) = &g.gate {
        put("gate/llr", Some(gate.llr));
        put("gate/games", Some(gate.games as f64));
        put("gate/verdict", Some(verdict_value(&gate.verdict)));
    }
    put("selfplay/games", Some(g.selfplay_games as f64));
    put("selfplay/games_per_s", per_s(g.selfplay_games, g.selfplay_seconds));
    put("selfplay/positions_per_s", per_s(g.selfplay_plies, g.selfplay_seconds));
    put(
        "selfplay/mean_batch",
        (g.inference_batches > 0).then(|| g.inference_positions as f64 / g.inference_batches as f64),
    );
    put(
        "selfplay/cache_share",
        (g.inference_requests > 0).then(|| 1.0 - g.inference_positions as f64 / g.inference_requests as f64),
    );
    put("resign/threshold", g.resign_threshold);
    put("resign/resigned_share", (g.selfplay_games > 0).then(|| g.resign.resigned as f64 / g.selfplay_games as f64));
    put("resign/false_rate", g.resign.false_rate());
    put("train/samples_per_s", Some(g.train_samples_per_s));
    put("train/policy_loss", Some(g.policy_loss));
    put("train/value_loss", Some(g.value_loss));
    put("train/belief_loss", g.belief_loss);
    put("train/deploy_loss", g.deploy_loss);
    put("loop/minutes", Some(g.minutes));
    if let Some(elo) = g.elo_vs_anchor {
        s.extend(elo_scalars(&config.evaluate.anchor.to_string(), elo));
    }
    for a in &g.elo_vs_more {
        s.extend(elo_scalars(&a.anchor, a.elo));
    }
    if config.exploit.is_some() {
        for a in &g.score_vs_anchors {
            let [v, low, high] = a.score;
            let anchor = &a.anchor;
            s.extend([
                (format!("score/{anchor}"), v),
                (format!("score_low/{anchor}"), low),
                (format!("score_high/{anchor}"), high),
            ]);
        }
    }
    s
}

/// `elo/<anchor>`, `elo_low/<anchor>`, `elo_high/<anchor>`.
pub fn elo_scalars(anchor: &str, elo: [f64; 3]) -> [(String, f64); 3] {
    [(format!("elo/{anchor}"), elo[0]), (format!("elo_low/{anchor}"), elo[1]), (format!("elo_high/{anchor}"), elo[2])]
}

fn verdict_value(verdict: &str) -> f64 {
    match verdict {
        "H1" => 1.0,
        "H0" => -1.0,
        _ => 0.0,
    }
}

/// The loop's TensorBoard writer, opened at its first scalar (a finished
/// loop run again leaves no empty event file).
#[derive(Default)]
pub(crate) struct LoopBoard {
    metrics: Option<TensorBoardMetrics>,
}

impl LoopBoard {
    /// Write `scalars` at `step` and make them durable.
    pub(crate) fn write(&mut self, out: &Path, step: u32, scalars: &[(String, f64)]) -> Result<()> {
        let metrics = match &mut self.metrics {
            Some(m) => m,
            None => self.metrics.insert(TensorBoardMetrics::new(&out.join(LOOP_TB_DIR))?),
        };
        for (tag, value) in scalars {
            metrics.scalar(tag, u64::from(step), *value)?;
        }
        Ok(metrics.flush()?)
    }
}
