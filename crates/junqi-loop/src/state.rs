//! The loop's saved state (`state.json`): each generation's record, the
//! best net, the minutes run; read at the start of a run and rewritten
//! atomically (written, synced, renamed) after every stage.

use crate::config::LoopConfig;
use crate::{LoopError, Result};
use junqi_selfplay::RunDir;
use serde::{Deserialize, Serialize};

use std::time::Instant;

/// One generation's record in `state.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub index: u32,
    /// The bot that played this generation's games.
    pub selfplay_bot: String,
    pub selfplay_games: u64,
    pub selfplay_plies: u64,
    pub selfplay_seconds: f64,
    /// Net forward passes and positions during self-play (mean batch = positions / batches).
    pub inference_batches: u64,
    pub inference_positions: u64,
    /// Positions the searches asked the net about (the cache and merged
    /// duplicates answered `requests - positions` of them).
    #[serde(default)]
    pub inference_requests: u64,
    /// Self-play games resigned; played-through games where a side would
    /// have resigned, and of those the ones it did not lose.
    #[serde(default)]
    pub resign: junqi_selfplay::ResignTally,
    /// The resignation threshold this generation's self-play used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign_threshold: Option<f64>,
    /// The net trained after this generation's games.
    pub net: Option<String>,
    pub train_step: u64,
    pub train_samples_per_s: f64,
    pub train_seconds: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    /// The belief head's loss (nets with one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief_loss: Option<f64>,
    /// Learned deployments: the fitted model's logistic loss on the
    /// window's deployments (ln 2 = 0.693 knows nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_loss: Option<f64>,
    /// Score of the new net against the best, with its 95% interval (None: first net).
    pub score_vs_best: Option<[f64; 3]>,
    /// With `[evaluate.sprt]`: how the test ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateRecord>,
    /// The comparison with the best is done (or there was no best).
    pub evaluated: bool,
    pub promoted: bool,
    /// Elo against the anchor with its 95% interval.
    pub elo_vs_anchor: Option<[f64; 3]>,
    /// Elo against each of `evaluate.more_anchors` rated so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elo_vs_more: Vec<AnchorElo>,
    /// The score (win 1, draw ½) against each anchor rated, with its 95%
    /// interval: what an exploit run reports (an Elo past ±1200 is clamped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub score_vs_anchors: Vec<AnchorScore>,
    /// Minutes since the loop started (summed over resumes) when the generation finished.
    pub minutes: f64,
    pub done: bool,
    /// The code version that finished the generation (a resumed loop may
    /// run a newer build than the one that started it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub code_version: String,
}

/// A generation's Elo against one of the further anchors, with its 95% interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnchorElo {
    pub anchor: String,
    pub elo: [f64; 3],
}

/// A generation's score against one anchor, with its 95% interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnchorScore {
    pub anchor: String,
    pub score: [f64; 3],
}

impl Generation {
    /// The score against `anchor`, if rated since scores were recorded.
    pub fn score_against(&self, anchor: &str) -> Option<[f64; 3]> {
        self.score_vs_anchors.iter().find(|a| a.anchor == anchor).map(|a| a.score)
    }

    /// The Elo against `anchor` (the main one or a further one), if rated.
    pub fn elo_against(&self, config: &LoopConfig, anchor: &str) -> Option<[f64; 3]> {
        if anchor == config.evaluate.anchor.to_string() {
            return self.elo_vs_anchor;
        }
        self.elo_vs_more.iter().find(|a| a.anchor == anchor).map(|a| a.elo)
    }

    /// Record the score against `anchor`.
    pub fn set_score(&mut self, anchor: &str, score: [f64; 3]) {
        self.score_vs_anchors.retain(|a| a.anchor != anchor);
        self.score_vs_anchors.push(AnchorScore { anchor: anchor.to_string(), score });
    }

    /// Record the Elo against `anchor` (the main one or a further one).
    pub fn set_elo(&mut self, config: &LoopConfig, anchor: &str, elo: [f64; 3]) {
        if anchor == config.evaluate.anchor.to_string() {
            self.elo_vs_anchor = Some(elo);
        } else {
            self.elo_vs_more.push(AnchorElo { anchor: anchor.to_string(), elo });
        }
    }
}

/// How a generation's SPRT gate ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub games: u64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// "H1" (stronger: promoted), "H0" (not stronger), or "limit" (undecided
    /// at max_games: promoted only with `at_limit = "llr"` and a positive LLR).
    pub verdict: String,
}

/// `state.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    pub generations: Vec<Generation>,
    /// The best net so far (relative to the run directory).
    pub best: Option<String>,
    /// Minutes the loop has run, summed over resumes (stopped stages included).
    pub minutes: f64,
    /// The code version of the latest run (each generation records its own).
    pub code_version: String,
}

/// `state.json` as written: [`LoopState`]'s fields, in its order, with the
/// generation in progress (held apart while it runs) after the others.
#[derive(Serialize)]
struct Saved<'a> {
    generations: Vec<&'a Generation>,
    best: &'a Option<String>,
    minutes: f64,
    code_version: &'a str,
}

/// The loop's saved state in its run directory.
pub const STATE_FILE: &str = "state.json";

/// A run's `state.json` and its clock: the minutes of earlier runs plus
/// those of this one.
pub(crate) struct StateFile {
    dir: RunDir,
    started: Instant,
    base_minutes: f64,
}

impl StateFile {
    /// The state saved in the run directory `out` (a fresh one if there is
    /// none), and the file to save it to; this run's clock starts now.
    pub(crate) fn open(dir: &RunDir) -> Result<(StateFile, LoopState)> {
        let state: LoopState = match dir.read(STATE_FILE)? {
            Some(t) => serde_json::from_str(&t)
                .map_err(|e| LoopError::Corrupt { path: dir.path().join(STATE_FILE), message: e.to_string() })?,
            None => LoopState::default(),
        };
        let file = StateFile { dir: dir.clone(), started: Instant::now(), base_minutes: state.minutes };
        Ok((file, state))
    }

    /// Minutes the loop has run, this run included.
    pub(crate) fn minutes_now(&self) -> f64 {
        self.base_minutes + self.started.elapsed().as_secs_f64() / 60.0
    }

    /// Rewrite `state.json` atomically (a temporary file, synced, renamed
    /// over it) with the minutes so far and `current`, the generation in
    /// progress, as the last one.
    pub(crate) fn save(&self, state: &mut LoopState, current: Option<&Generation>) -> Result<()> {
        state.minutes = self.minutes_now();
        let saved = Saved {
            generations: state.generations.iter().chain(current).collect(),
            best: &state.best,
            minutes: state.minutes,
            code_version: &state.code_version,
        };
        let text = serde_json::to_string_pretty(&saved).expect("serialises");
        Ok(self.dir.write(STATE_FILE, &text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_state_is_the_loop_state_with_the_generation_in_progress_last() {
        let dir = std::env::temp_dir().join(format!("junqi-loop-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (file, mut state) = StateFile::open(&RunDir::open(&dir).unwrap()).unwrap();
        state.best = Some("nets/net-000.safetensors".into());
        state.code_version = "v".into();
        let elo_vs_more = vec![AnchorElo { anchor: "greedy".into(), elo: [-1.0, -2.0, 0.5] }];
        state.generations.push(Generation { index: 0, done: true, elo_vs_more, ..Default::default() });
        let current = Generation { index: 1, resign_threshold: Some(-0.9), ..Default::default() };
        file.save(&mut state, Some(&current)).unwrap();
        let text = std::fs::read_to_string(dir.join("state.json")).unwrap();
        let mut whole = state.clone();
        whole.generations.push(current);
        assert_eq!(text, serde_json::to_string_pretty(&whole).unwrap());
        // (serde_json's float parsing may miss the last bit of the minutes)
        let mut back = serde_json::from_str::<LoopState>(&text).unwrap();
        assert!((back.minutes - whole.minutes).abs() <= 1e-12 * whole.minutes.abs().max(1.0));
        back.minutes = whole.minutes;
        assert_eq!(back, whole);
        assert!(!dir.join(".state.json.tmp").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
