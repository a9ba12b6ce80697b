//! MCTS parameters and their spec form.

use super::eval::{RolloutEvaluator, RolloutPolicy};
use crate::spec::{BotSpec, BotSpecError};

/// Parameters of `mcts` / `cheat-mcts`.
///
/// | key | meaning | default |
/// |---|---|---|
/// | `sims` | simulations per move (1 to 1 000 000); `mcts:800` = `mcts:sims=800` | 400 |
/// | `c` | exploration constant (values are in [-1, 1]) | 0.7 |
/// | `depth` | playout plies before the material score (0 to 1000) | 4 |
/// | `rollout` | playout policy: `random`, or `capture` (best winning capture, else random) | capture |
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MctsConfig {
    pub sims: u32,
    pub c: f32,
    pub depth: u32,
    pub rollout: RolloutPolicy,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig { sims: 400, c: 0.7, depth: 4, rollout: RolloutPolicy::Capture }
    }
}

/// The spec keys, in the order [`MctsConfig::spec`] writes them.
pub(crate) const MCTS_KEYS: [&str; 4] = ["sims", "c", "depth", "rollout"];

impl MctsConfig {
    /// Read the parameters of a parsed `mcts` / `cheat-mcts` spec.
    pub fn from_spec(spec: &BotSpec) -> Result<MctsConfig, BotSpecError> {
        spec.check_keys(&MCTS_KEYS)?;
        let d = MctsConfig::default();
        let rollout = match spec.get("rollout") {
            None => d.rollout,
            Some(v) => RolloutPolicy::from_name(v).ok_or_else(|| spec.bad("rollout", "expected random or capture"))?,
        };
        Ok(MctsConfig {
            sims: spec.integer("sims", d.sims, 1, 1_000_000)?,
            c: spec.number("c", d.c, 0.0, 100.0)?,
            depth: spec.integer("depth", d.depth, 0, 1000)?,
            rollout,
        })
    }

    /// The canonical spec, e.g. `mcts:sims=800` or `mcts:sims=200,c=1`:
    /// `sims` always, the other parameters where they differ from the defaults.
    pub fn spec(&self, name: &str) -> String {
        let d = MctsConfig::default();
        let mut out = format!("{name}:sims={}", self.sims);
        if self.c != d.c {
            out.push_str(&format!(",c={}", self.c));
        }
        if self.depth != d.depth {
            out.push_str(&format!(",depth={}", self.depth));
        }
        if self.rollout != d.rollout {
            out.push_str(&format!(",rollout={}", self.rollout.name()));
        }
        out
    }

    /// The default leaf evaluator for these parameters.
    pub fn evaluator(&self) -> RolloutEvaluator {
        RolloutEvaluator::new(self.depth, self.rollout)
    }
}
