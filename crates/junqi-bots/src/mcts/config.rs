//! MCTS parameters and their spec form.

use super::clock::{parse_clock, TimeControl, TIMED_SIMS};
use super::eval::{LeafEvaluator, RolloutEvaluator, RolloutPolicy};
use super::gumbel::GumbelOptions;
use super::search::{DrawScore, RootOptions, Search};
use crate::spec::{BotSpec, BotSpecError};

/// Parameters of `mcts` / `cheat-mcts`.
///
/// | key | meaning | default |
/// |---|---|---|
/// | `sims` | simulations per move (1 to 1 000 000); `mcts:800` = `mcts:sims=800`; with `movetime` or `tc` a cap besides the time (the search stops at whichever comes first) | 400; 1 000 000 with `movetime` or `tc` |
/// | `movetime` | milliseconds per move (1 to 3 600 000): the search stops at the deadline, after at least one simulation ([`super::clock`]) | none |
/// | `tc` | a clock per game, `BASE+INC` in seconds (`60+0.5`, or `60`), as the `engine:` bot's `tc`: each move spends 1/30 of what is left plus ¾ of the increment, at most half of what is left; not with `movetime` | none |
/// | `c` | exploration constant (values are in [-1, 1]) | 0.7 |
/// | `depth` | playout plies before the material score (0 to 1000) | 4 |
/// | `rollout` | playout policy: `random`, or `capture` (best winning capture, else random) | capture |
/// | `noise` | weight of Dirichlet noise in the root priors (self-play; needs an evaluator with priors) | 0 |
/// | `alpha` | the noise's concentration | 0.3 |
/// | `temp` | sample the move ∝ visits^(1/temp) in the first `temp_plies` plies (self-play) | 0 |
/// | `temp_plies` | plies of the game during which `temp` applies | 30 |
/// | `qtemp` | the policy written for training (and sampled by `temp`): 0 = root visit shares, above 0 = softmax of the root actions' mean values at this temperature | 0 |
/// | `mix` | with `eval`: weight of the playout's value in the leaf value, the rest the evaluator's (AlphaGo's λ) | 0 |
/// | `draw` | what a draw is worth to the searching seat, in [-1, 1] (win 1, loss -1; below 0 it plays for a win, the opponent modelled as valuing draws the other way), or `auto`: `-max(v, 0)` from the evaluator's value `v` of the root ([`DrawScore`]); the decision's stored value stays the plain one | 0 |
/// | `eval` | a leaf evaluator from outside this crate, e.g. `net:default` (see [`crate::register_bot`]) | the rollout |
/// | `search` | `puct` (PUCT where there are priors, else UCB1), or `gumbel`: Gumbel-top-k and sequential halving at the root, the improved policy as the decision's policy ([`GumbelOptions`]; `temp` then does not apply: the Gumbel draw samples) | puct |
/// | `k` | `gumbel`: actions considered at the root | 16 |
/// | `cvisit`, `cscale` | `gumbel`: σ(q) = (cvisit + max visits) · cscale · q, q rescaled to [0, 1] | 50, 0.1 |
/// | `gscale` | `gumbel`: scale of the Gumbel noise (0: the prior's top k, no sampling) | 1 |
/// | `belief` | 暗棋 with an evaluator that has a belief (a net's belief head): 1 = draw the worlds from it, 0 = uniformly from the information set | 1 |
/// | `opponent` | (`mcts` only, read by [`crate::build`]) a fair bot spec that models the other seat: at its turns the search plays that bot's decision instead of choosing ([`super::Search::opponent`]) | none |
/// | `recall` | with an evaluator that reads information sets (a net): 1 = it sees what the searching seat knows (at the root, and carried down each simulation where that seat moves): in 暗棋 what fights showed, in every mode for a net that reads them the history planes; 0 = a fresh information set of each world | 1 |
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MctsConfig {
    pub sims: u32,
    pub c: f32,
    pub depth: u32,
    pub rollout: RolloutPolicy,
    pub root: RootOptions,
    /// Weight of the playout value in a mixed leaf value (outside evaluators only).
    pub mix: f32,
    /// `Some`: Gumbel search at the root.
    pub gumbel: Option<GumbelOptions>,
    /// Draw 暗棋 worlds from the evaluator's belief when it has one.
    pub belief: bool,
    /// Hand the evaluator the searching seat's 暗棋 information set ([`Search::recall`]).
    pub recall: bool,
    /// What a draw is worth to the searching seat.
    pub draw: DrawScore,
    /// Play by time (besides `sims`): `movetime` or `tc`.
    pub time: Option<TimeControl>,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            sims: 400,
            c: 0.7,
            depth: 4,
            rollout: RolloutPolicy::Capture,
            root: RootOptions { temp_plies: 30, ..RootOptions::default() },
            mix: 0.0,
            gumbel: None,
            belief: true,
            recall: true,
            draw: DrawScore::default(),
            time: None,
        }
    }
}

/// The spec keys, in the order [`MctsConfig::spec`] writes them.
pub const MCTS_KEYS: [&str; 21] = [
    "sims",
    "movetime",
    "tc",
    "c",
    "depth",
    "rollout",
    "noise",
    "alpha",
    "temp",
    "temp_plies",
    "qtemp",
    "mix",
    "search",
    "k",
    "cvisit",
    "cscale",
    "gscale",
    "belief",
    "recall",
    "draw",
    "eval",
];

impl MctsConfig {
    /// Read the parameters of a parsed `mcts` / `cheat-mcts` spec.
    pub fn from_spec(spec: &BotSpec) -> Result<MctsConfig, BotSpecError> {
        spec.check_keys(&MCTS_KEYS)?;
        let d = MctsConfig::default();
        let root = RootOptions {
            noise_frac: spec.number("noise", d.root.noise_frac, 0.0, 1.0)?,
            noise_alpha: spec.number("alpha", d.root.noise_alpha, 0.001, 100.0)?,
            temp: spec.number("temp", d.root.temp, 0.0, 100.0)?,
            temp_plies: spec.integer("temp_plies", d.root.temp_plies, 0, 100_000)?,
            qtemp: spec.number("qtemp", d.root.qtemp, 0.0, 100.0)?,
        };
        let rollout = match spec.get("rollout") {
            None => d.rollout,
            Some(v) => RolloutPolicy::from_name(v).ok_or_else(|| spec.bad("rollout", "expected random or capture"))?,
        };
        let g = GumbelOptions::default();
        let gumbel = match spec.get("search") {
            None | Some("puct") => {
                if let Some(key) = ["k", "cvisit", "cscale", "gscale"].into_iter().find(|k| spec.get(k).is_some()) {
                    return Err(spec.bad(key, "applies only with search=gumbel"));
                }
                None
            }
            Some("gumbel") => Some(GumbelOptions {
                considered: spec.integer("k", g.considered, 1, 1000)?,
                c_visit: spec.number("cvisit", g.c_visit, 0.0, 100_000.0)?,
                c_scale: spec.number("cscale", g.c_scale, 0.0, 1000.0)?,
                gumbel_scale: spec.number("gscale", g.gumbel_scale, 0.0, 100.0)?,
            }),
            Some(_) => return Err(spec.bad("search", "expected puct or gumbel")),
        };
        let time = match (spec.get("movetime"), spec.get("tc")) {
            (Some(_), Some(_)) => {
                return Err(spec.bad("tc", "give movetime (each move) or tc (a clock per game), not both"))
            }
            (Some(_), None) => Some(TimeControl::MoveTime(std::time::Duration::from_millis(
                spec.integer("movetime", 1, 1, 3_600_000)?.into(),
            ))),
            (None, Some(tc)) => {
                let (base, inc) = parse_clock(tc)
                    .ok_or_else(|| spec.bad("tc", "expected <seconds>+<increment seconds>, e.g. 60+0.5"))?;
                Some(TimeControl::Clock { base, inc })
            }
            (None, None) => None,
        };
        let default_sims = if time.is_some() { TIMED_SIMS } else { d.sims };
        Ok(MctsConfig {
            gumbel,
            time,
            sims: spec.integer("sims", default_sims, 1, 1_000_000)?,
            c: spec.number("c", d.c, 0.0, 100.0)?,
            depth: spec.integer("depth", d.depth, 0, 1000)?,
            rollout,
            root,
            mix: spec.number("mix", d.mix, 0.0, 1.0)?,
            belief: spec.integer("belief", 1, 0, 1)? == 1,
            recall: spec.integer("recall", 1, 0, 1)? == 1,
            draw: match spec.get("draw") {
                Some("auto") => DrawScore::Auto,
                _ => DrawScore::Fixed(spec.number("draw", 0.0, -1.0, 1.0)?),
            },
        })
    }

    /// The canonical spec, e.g. `mcts:sims=800` or `mcts:sims=200,c=1`:
    /// `sims` always, the other parameters where they differ from the defaults.
    pub fn spec(&self, name: &str) -> String {
        let d = MctsConfig::default();
        let mut out = match self.time {
            // By time alone: no simulations cap to write.
            Some(time) if self.sims == TIMED_SIMS => format!("{name}:{}", time.spec()),
            Some(time) => format!("{name}:sims={},{}", self.sims, time.spec()),
            None => format!("{name}:sims={}", self.sims),
        };
        if self.c != d.c {
            out.push_str(&format!(",c={}", self.c));
        }
        if self.depth != d.depth {
            out.push_str(&format!(",depth={}", self.depth));
        }
        if self.rollout != d.rollout {
            out.push_str(&format!(",rollout={}", self.rollout.name()));
        }
        let (r, dr) = (&self.root, &d.root);
        for (key, value, default) in [
            ("noise", r.noise_frac, dr.noise_frac),
            ("alpha", r.noise_alpha, dr.noise_alpha),
            ("temp", r.temp, dr.temp),
            ("temp_plies", r.temp_plies as f32, dr.temp_plies as f32),
            ("qtemp", r.qtemp, dr.qtemp),
            ("mix", self.mix, d.mix),
        ] {
            if value != default {
                out.push_str(&format!(",{key}={value}"));
            }
        }
        if let Some(g) = &self.gumbel {
            let dg = GumbelOptions::default();
            out.push_str(",search=gumbel");
            for (key, value, default) in [
                ("k", g.considered as f32, dg.considered as f32),
                ("cvisit", g.c_visit, dg.c_visit),
                ("cscale", g.c_scale, dg.c_scale),
                ("gscale", g.gumbel_scale, dg.gumbel_scale),
            ] {
                if value != default {
                    out.push_str(&format!(",{key}={value}"));
                }
            }
        }
        if !self.belief {
            out.push_str(",belief=0");
        }
        if !self.recall {
            out.push_str(",recall=0");
        }
        match self.draw {
            DrawScore::Fixed(d) if d == 0.0 => {}
            DrawScore::Fixed(d) => out.push_str(&format!(",draw={d}")),
            DrawScore::Auto => out.push_str(",draw=auto"),
        }
        out
    }

    /// A search with these parameters and `evaluator`.
    pub fn search<E: LeafEvaluator>(&self, evaluator: E) -> Search<E> {
        let mut search = Search::new(evaluator, self.c);
        search.root = self.root;
        search.gumbel = self.gumbel;
        search.recall = self.recall;
        search.draw = self.draw;
        search
    }

    /// The default leaf evaluator for these parameters.
    pub fn evaluator(&self) -> RolloutEvaluator {
        RolloutEvaluator::new(self.depth, self.rollout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(spec: &str) -> Result<MctsConfig, BotSpecError> {
        MctsConfig::from_spec(&spec.parse::<BotSpec>()?)
    }

    #[test]
    fn the_draw_score_is_a_spec_key_that_round_trips() {
        assert_eq!(config("mcts:sims=8").unwrap().draw, DrawScore::Fixed(0.0));
        for (spec, draw, canonical) in [
            ("mcts:sims=8,draw=-0.3", DrawScore::Fixed(-0.3), "mcts:sims=8,draw=-0.3"),
            ("mcts:sims=8,draw=auto", DrawScore::Auto, "mcts:sims=8,draw=auto"),
            ("mcts:sims=8,draw=0", DrawScore::Fixed(0.0), "mcts:sims=8"),
        ] {
            let c = config(spec).unwrap();
            assert_eq!(c.draw, draw, "{spec}");
            assert_eq!(c.spec("mcts"), canonical);
            assert_eq!(config(&c.spec("mcts")).unwrap(), c, "{spec} reads back");
            assert_eq!(c.search(c.evaluator()).draw, draw, "the search gets it");
        }
        for bad in ["mcts:draw=1.5", "mcts:draw=-2", "mcts:draw=win", "mcts:draw="] {
            assert!(config(bad).is_err(), "{bad}");
        }
    }
}
