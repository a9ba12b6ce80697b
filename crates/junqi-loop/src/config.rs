//! The loop's settings (`configs/loop/*.toml`): [`LoopConfig`] and its
//! sections, read from TOML with a default for every key, checked before
//! anything runs, and the bot specs they make.

use crate::{LoopError, Result};
use junqi_bots::BotSpec;
use junqi_core::{Mode, Rules};
use junqi_selfplay::{Resign, SamplesPerGame};
use junqi_train::{LrSchedule, TrainConfig};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// What the config is for, printed when the loop starts and ends (e.g.
    /// that a quick config only shows the cycle). A note: it may change on
    /// a resume.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub about: String,
    pub seed: u64,
    /// The game: empty for the two-player game, `siguo` for the four-player
    /// one (四国军棋, two teams of two; `crate::siguo` runs its stages).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub game: String,
    /// Game mode (its preset rules): fanqi, anqi or mingqi; with `game =
    /// "siguo"`, the four-player preset (anqi, shuangming or quanming).
    pub mode: String,
    /// Rule overrides, e.g. `["max_plies=400"]`.
    pub rules_set: Vec<String>,
    /// Stop after this many generations (0 = no limit).
    pub generations: u32,
    /// Start no new generation after this many minutes of this run (0 = no limit).
    pub minutes: f64,
    /// Worker threads for self-play and evaluation (0 = one per core). Each
    /// keeps its shard's games in flight (up to 192 with a net bot), so the
    /// positions of all of them share the net's batches.
    pub threads: usize,
    pub bootstrap: BootstrapConfig,
    pub selfplay: SelfplaySettings,
    /// Train on the games of the newest this many generations.
    pub window_generations: u32,
    /// Optimisation steps added each generation.
    pub steps_per_generation: u64,
    /// The net and optimiser (`optim.steps` is set by the loop).
    pub train: TrainConfig,
    pub evaluate: EvalSettings,
    /// `[exploit]`: the loop trains a best response to a fixed target bot
    /// instead of improving by self-play (`junqi exploit`, docs/exploit.md).
    /// Absent: the self-play loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploit: Option<ExploitSettings>,
}

/// A best response's settings (`[exploit]`): the learner's games are all
/// against `target`, which is never trained; only the learner's positions
/// are sampled; every generation's net becomes the learner (there is no
/// gate) and is rated against the anchors, `evaluate.anchor` being the
/// target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExploitSettings {
    /// The frozen bot the learner plays.
    pub target: BotSpec,
    /// The learner's first net (its weights start training, its search plays
    /// generation 0); empty = from scratch, generation 0 played by
    /// `bootstrap.bot`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub init: String,
    /// The learner's self-play search models the target at its turns
    /// (`opponent=TARGET`, docs/exploit.md); off: a plain search.
    pub model_target: bool,
    /// The learner is rated as it plays: with `evaluate.sims > 0` its net's
    /// search models the target (in every rating game, also against the
    /// other anchors, where that model is wrong: so a score there is
    /// general strength); off: the net's plain search.
    pub eval_model: bool,
}

impl Default for ExploitSettings {
    fn default() -> Self {
        ExploitSettings { target: BotSpec::new("heuristic"), init: String::new(), model_target: true, eval_model: true }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BootstrapConfig {
    /// The bot that plays generation 0.
    pub bot: BotSpec,
    pub games: u64,
    /// Training steps after generation 0 (0 = `steps_per_generation`).
    pub steps: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplaySettings {
    /// Games per generation (after the bootstrap).
    pub games: u64,
    /// Search simulations per move; 0 = play from the net's policy at `temp`
    /// for the whole game (no noise, no `temp_plies`; the net then trains on
    /// its own priors).
    pub sims: u32,
    /// PUCT exploration constant.
    pub c: f32,
    /// Dirichlet noise weight and concentration at the root.
    pub noise: f32,
    pub alpha: f32,
    /// Temperature of the move choice during the first `temp_plies` plies
    /// (then the most visited move).
    pub temp: f32,
    pub temp_plies: u32,
    /// Weight of a short capture playout in the leaf values (0 = the net's alone).
    pub mix: f32,
    /// The policy the net trains on: 0 = the root visit shares, above 0 =
    /// the softmax of the root actions' values at this temperature (the
    /// search's `qtemp`).
    pub qtemp: f32,
    /// The search: "puct" (visit shares or `qtemp` as the policy target), or
    /// "gumbel" (Gumbel-top-k with sequential halving at the root; the
    /// improved policy is the target and the Gumbel draw samples the move,
    /// so `temp`, `temp_plies` and `qtemp` do not apply).
    pub search: String,
    /// "gumbel": actions considered at the root.
    pub considered: u32,
    /// The search's draw score (its `draw` key): what a draw is worth to the
    /// searching seat, a number in [-1, 1] or "auto"; empty = 0 (a draw is
    /// half a win). Below 0 self-play plays on for a win, and with "gumbel"
    /// the improved policy it trains on does too.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub draw: String,
    /// Positions written per game: a number or "all".
    pub samples_per_game: String,
    /// `[selfplay.resign]`: the net-guided games resign on the search's value
    /// (threshold, consecutive, min_ply, playthrough; see
    /// [`junqi_selfplay::Resign`]); absent = games are played out. The
    /// bootstrap games never resign (a rollout search's value is a material
    /// score, not a chance of winning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resign: Option<Resign>,
    /// With `[selfplay.resign]`: each generation's threshold is the highest
    /// at which at most this fraction of the earlier generations'
    /// play-through resignations (within the window) would have been false;
    /// `resign.threshold` serves until there are enough of them. 0 = the
    /// threshold stays fixed.
    pub resign_false_rate: f64,
    /// 暗棋/明棋 deployments of the net bots: "learned" (a deployment value
    /// fitted each generation to the window's games and stored in the net
    /// file, choosing among fresh candidates; see `docs/training.md`) or
    /// "heuristic" (the heuristic bot's formations).
    pub deploy: String,
    /// Where the self-play runs: "local" (this machine's threads) or "ray"
    /// (`[selfplay.ray]`: parts on a Ray cluster through the `junqi-ray`
    /// driver, merged back into the generation's directory; training stays
    /// here).
    #[serde(skip_serializing_if = "is_local")]
    pub backend: String,
    /// `[selfplay.ray]`: the cluster, with `backend = "ray"`.
    #[serde(skip_serializing_if = "RayBackend::is_default")]
    pub ray: RayBackend,
}

fn is_local(backend: &str) -> bool {
    backend == "local"
}

/// How the loop reaches a Ray cluster (`[selfplay.ray]`). The loop's
/// directory must be one the cluster's nodes can read and write under the
/// same path (a shared file system): the workers read the best net from
/// it and write their parts into it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RayBackend {
    /// The cluster address (`auto`, `HOST:PORT`, `ray://HOST:10001`).
    pub address: String,
    /// Parts (Ray tasks) per generation; 0 = the driver's default (the
    /// cluster's CPUs / `cpus_per_part`).
    pub parts: u64,
    /// CPUs each task reserves (and junqi's threads there).
    pub cpus_per_part: u64,
    /// The driver command, e.g. `["junqi-ray"]` or `[".deps/ray/bin/junqi-ray"]`.
    pub command: Vec<String>,
    /// The junqi binary the workers run (a path on the workers, or a name on
    /// their PATH); empty = the binary running the loop.
    pub binary: String,
}

impl Default for RayBackend {
    fn default() -> Self {
        RayBackend {
            address: "auto".into(),
            parts: 0,
            cpus_per_part: 1,
            command: vec!["junqi-ray".into()],
            binary: String::new(),
        }
    }
}

impl RayBackend {
    fn is_default(&self) -> bool {
        self == &RayBackend::default()
    }
}

/// Would-be resignations needed before the loop calibrates the threshold.
pub const RESIGN_MIN_SIGNALS: u64 = 20;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalSettings {
    /// Paired games of the new net against the best (even); with `[evaluate.sprt]`,
    /// the games of each batch of the test.
    pub games: u64,
    /// Simulations of the evaluation bots; 0 = the net's policy, argmax
    /// (two argmax nets tend to shuffle into a draw: a search varies the games).
    pub sims: u32,
    /// Weight of the playout in the evaluation bots' leaf values.
    pub mix: f32,
    /// Promote when the new net scores at least this against the best.
    pub promote_score: f64,
    /// The fixed opponent every net is rated against (Elo 0 on the chart).
    pub anchor: BotSpec,
    /// Paired games against each anchor (even; 0 = none).
    pub anchor_games: u64,
    /// Further fixed opponents every generation is also rated against
    /// (`anchor_games` each), e.g. `["mcts:3200"]`: each its own line on the
    /// chart. Only rates, never gates, so a resumed run may change them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_anchors: Vec<BotSpec>,
    /// `[evaluate.sprt]`: the new net replaces the best when a sequential
    /// test accepts that it is stronger, or as [`SprtGate::at_limit`] says
    /// when the test reaches its limit (then `promote_score` is not used);
    /// absent = promote on the score of `games` games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtGate>,
}

/// The SPRT gate's hypotheses (normalized Elo, as `junqi sprt`), error rates,
/// game limit, and what a test that reaches the limit undecided does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SprtGate {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub max_games: u64,
    pub at_limit: AtLimit,
}

impl Default for SprtGate {
    fn default() -> Self {
        SprtGate { elo0: 0.0, elo1: 40.0, alpha: 0.05, beta: 0.1, max_games: 400, at_limit: AtLimit::Keep }
    }
}

/// What an SPRT gate undecided at `max_games` does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AtLimit {
    /// The best stays: only an accepted H1 promotes.
    #[default]
    Keep,
    /// A truncated SPRT: promote when the log-likelihood ratio is above
    /// zero, i.e. the games are likelier under `elo1` than under `elo0`
    /// (the observed strength lies past the middle of the two). Slightly
    /// more false promotions than `alpha`, far fewer stuck gates.
    Llr,
}

impl SprtGate {
    /// Whether a gate that ended with `verdict` ("H1", "H0" or "limit") and
    /// log-likelihood ratio `llr` promotes the candidate.
    pub fn promotes(&self, verdict: &str, llr: f64) -> bool {
        match verdict {
            "H1" => true,
            "limit" => self.at_limit == AtLimit::Llr && llr > 0.0,
            _ => false,
        }
    }
}

impl Default for LoopConfig {
    fn default() -> Self {
        let mut train = TrainConfig::default();
        train.optim.schedule = LrSchedule::Constant;
        LoopConfig {
            about: String::new(),
            seed: 0,
            game: String::new(),
            mode: "fanqi".into(),
            rules_set: Vec::new(),
            generations: 0,
            minutes: 0.0,
            threads: 0,
            bootstrap: BootstrapConfig::default(),
            selfplay: SelfplaySettings::default(),
            window_generations: 4,
            steps_per_generation: 500,
            train,
            evaluate: EvalSettings::default(),
            exploit: None,
        }
    }
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig { bot: BotSpec::new("heuristic"), games: 1000, steps: 0 }
    }
}

impl Default for SelfplaySettings {
    fn default() -> Self {
        SelfplaySettings {
            games: 200,
            sims: 32,
            // With a young net's broad priors, c = 1.5 only followed them:
            // net-000 of the one-hour run scored 50% against greedy at
            // c = 1.5 and 75% at c = 4 (64 simulations, 16 games each).
            c: 4.0,
            noise: 0.25,
            alpha: 0.3,
            temp: 1.0,
            temp_plies: 30,
            mix: 0.0,
            qtemp: 0.0,
            search: "puct".into(),
            considered: 16,
            draw: String::new(),
            samples_per_game: "all".into(),
            resign: None,
            resign_false_rate: 0.05,
            deploy: "learned".into(),
            backend: "local".into(),
            ray: RayBackend::default(),
        }
    }
}

impl Default for EvalSettings {
    fn default() -> Self {
        EvalSettings {
            games: 40,
            sims: 8,
            mix: 0.0,
            promote_score: 0.55,
            anchor: BotSpec::new("greedy"),
            anchor_games: 40,
            more_anchors: Vec::new(),
            sprt: None,
        }
    }
}

impl LoopConfig {
    /// Whether the nets learn their deployments (`selfplay.deploy`, in a
    /// mode that deploys).
    pub fn learns_deployments(&self) -> Result<bool> {
        // Every four-player mode deploys.
        Ok(self.selfplay.deploy == "learned" && (self.is_siguo() || self.rules()?.mode != Mode::Fanqi))
    }

    /// Whether the loop plays the four-player game (`game = "siguo"`).
    pub fn is_siguo(&self) -> bool {
        self.game == "siguo"
    }

    /// The four-player rules (`game = "siguo"`): the preset `mode` with `rules_set`.
    pub fn siguo_rules(&self) -> Result<junqi_siguo::Rules> {
        junqi_siguo::Rules::preset_with(&self.mode, &self.rules_set).map_err(|e| {
            LoopError::Config(format!("four-player mode `{}`, rules_set {:?}: {e}", self.mode, self.rules_set))
        })
    }

    /// The self-play workers: `threads`, or one per core.
    pub fn workers(&self) -> usize {
        junqi_selfplay::workers(self.threads)
    }

    pub fn from_toml(text: &str) -> Result<LoopConfig> {
        let c: LoopConfig = toml::from_str(text).map_err(|e| {
            LoopError::Config(format!("bad loop config: {}", junqi_core::toml_error_line(text, &e, false)))
        })?;
        c.check()?;
        Ok(c)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("the config serialises")
    }

    pub fn rules(&self) -> Result<Rules> {
        Rules::preset_with(&self.mode, &self.rules_set)
            .map_err(|e| LoopError::Config(format!("mode `{}`, rules_set {:?}: {e}", self.mode, self.rules_set)))
    }

    pub(crate) fn samples(&self) -> Result<SamplesPerGame> {
        self.selfplay.samples_per_game.parse().map_err(|e| LoopError::Config(format!("selfplay.samples_per_game: {e}")))
    }

    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(LoopError::Config(m));
        match self.game.as_str() {
            "" => {
                self.rules()?;
                // Before any game is played: what two-player samples cannot train.
                junqi_train::check_for_samples(&self.train, junqi_train::SampleKind::TwoPlayer)?;
            }
            "siguo" => self.check_siguo()?,
            other => return bad(format!("game: expected \"siguo\" or nothing (the two-player game), not {other:?}")),
        }
        self.samples()?;
        self.train.check()?;
        if self.threads > 1024 {
            return bad(format!("threads must be at most 1024, not {}", self.threads));
        }
        use junqi_selfplay::limits::{finite_in_range, in_range, MAX_GAMES, MAX_STEPS};
        let range = |r: Result<u64, String>| r.map(|_| ()).map_err(LoopError::Config);
        range(in_range("bootstrap.games", self.bootstrap.games, 1, MAX_GAMES))?;
        range(in_range("selfplay.games", self.selfplay.games, 1, MAX_GAMES))?;
        range(in_range("evaluate.games", self.evaluate.games, 2, MAX_GAMES))?;
        range(in_range("evaluate.anchor_games", self.evaluate.anchor_games, 0, MAX_GAMES))?;
        range(in_range("bootstrap.steps", self.bootstrap.steps, 0, MAX_STEPS))?;
        // Generations × steps stays a count of steps training can reach.
        range(in_range("steps_per_generation", self.steps_per_generation, 1, MAX_STEPS / 1_000_000))?;
        in_range("window_generations", self.window_generations, 1, 1_000_000).map_err(LoopError::Config)?;
        in_range("generations", self.generations, 0, 1_000_000).map_err(LoopError::Config)?;
        finite_in_range("minutes", self.minutes, 0.0, 1e9).map_err(LoopError::Config)?;
        // The training steps the last generation reaches must stay a valid `optim.steps`.
        let generations = if self.generations == 0 { 1_000_000 } else { self.generations as u64 };
        let last = self.bootstrap.steps.max(self.steps_per_generation) + self.steps_per_generation * generations;
        if last > MAX_STEPS {
            return bad(format!(
                "bootstrap.steps + steps_per_generation × generations would reach {last} training steps, \
                 more than {MAX_STEPS}"
            ));
        }
        let e = &self.evaluate;
        if e.games < 2 || e.games % 2 == 1 || e.anchor_games % 2 == 1 {
            return bad("evaluate.games (at least 2) and evaluate.anchor_games must be even: paired games".into());
        }
        if !(0.0..=1.0).contains(&e.mix) || !(0.0..=1.0).contains(&self.selfplay.mix) {
            return bad("selfplay.mix and evaluate.mix must be in [0, 1]".into());
        }
        let qtemp = self.selfplay.qtemp;
        if !(qtemp.is_finite() && qtemp >= 0.0) || (qtemp > 0.0 && self.selfplay.sims == 0) {
            return bad("selfplay.qtemp must be ≥ 0, and needs a search (selfplay.sims > 0)".into());
        }
        if let Some(r) = &self.selfplay.resign {
            r.check().map_err(|m| LoopError::Config(format!("selfplay.resign: {m}")))?;
        }
        if !(0.0..1.0).contains(&self.selfplay.resign_false_rate) {
            return bad("selfplay.resign_false_rate must be in [0, 1)".into());
        }
        if !(0.0..=1.0).contains(&e.promote_score) {
            return bad("evaluate.promote_score must be in [0, 1]".into());
        }
        if let Some(t) = &e.sprt {
            junqi_stats::Sprt::new(t.elo0, t.elo1, t.alpha, t.beta)
                .map_err(|err| LoopError::Config(format!("evaluate.sprt: {err}")))?;
            if t.max_games < e.games {
                return bad(format!("evaluate.sprt.max_games ({}) must be at least evaluate.games", t.max_games));
            }
        }
        if !["local", "ray"].contains(&self.selfplay.backend.as_str()) {
            return bad(format!("selfplay.backend: expected \"local\" or \"ray\", not {:?}", self.selfplay.backend));
        }
        if self.selfplay.backend == "ray"
            && (self.selfplay.ray.command.is_empty() || self.selfplay.ray.cpus_per_part == 0)
        {
            return bad("selfplay.ray: `command` must name the driver and `cpus_per_part` be at least 1".into());
        }
        if !["learned", "heuristic"].contains(&self.selfplay.deploy.as_str()) {
            return bad(format!(
                "selfplay.deploy: expected \"learned\" or \"heuristic\", not {:?}",
                self.selfplay.deploy
            ));
        }
        match self.selfplay.search.as_str() {
            "puct" => {}
            "gumbel" if self.selfplay.sims > 0 && self.selfplay.qtemp == 0.0 && self.selfplay.considered > 0 => {}
            "gumbel" if self.selfplay.qtemp != 0.0 || self.selfplay.considered == 0 => {
                return bad("selfplay.search = \"gumbel\" takes no qtemp (its target is the improved policy) and needs considered ≥ 1".into())
            }
            "gumbel" => return bad("selfplay.search = \"gumbel\" needs a search (selfplay.sims > 0)".into()),
            other => return bad(format!("selfplay.search: expected \"puct\" or \"gumbel\", not {other:?}")),
        }
        if !self.selfplay.draw.is_empty() && self.selfplay.sims == 0 {
            return bad("selfplay.draw is the search's draw score: it needs a search (selfplay.sims > 0)".into());
        }
        if self.is_siguo() {
            // Its bots were checked by `check_siguo`.
            return Ok(());
        }
        junqi_bots::build(&self.bootstrap.bot).map_err(|err| LoopError::Config(format!("bootstrap.bot: {err}")))?;
        // The bots of later generations, checked now rather than after the
        // bootstrap (their net does not exist yet: only the spec is read).
        let placeholder = Path::new("net.safetensors");
        for (what, spec) in [("selfplay", self.selfplay_bot(placeholder)), ("evaluate", self.eval_bot(placeholder))] {
            let check = match spec.name.as_str() {
                "mcts" => junqi_bots::MctsConfig::from_spec(&spec).map(|_| ()),
                _ => spec.non_negative("temp", 0.0).map(|_| ()),
            };
            check.map_err(|e| LoopError::Config(format!("{what}: {e}")))?;
        }
        if let Some(x) = &self.exploit {
            self.check_exploit(x)?;
        }
        if e.anchor_games > 0 {
            junqi_bots::build(&e.anchor).map_err(|err| LoopError::Config(format!("evaluate.anchor: {err}")))?;
            for a in &e.more_anchors {
                junqi_bots::build(a).map_err(|err| LoopError::Config(format!("evaluate.more_anchors: {err}")))?;
            }
        }
        Ok(())
    }

    /// The `[exploit]` section: a fair target that builds, rated as the main
    /// anchor; no SPRT gate and no Ray (their stages assume self-play).
    fn check_exploit(&self, x: &ExploitSettings) -> Result<()> {
        let bad = |m: String| Err(LoopError::Config(m));
        match junqi_bots::build(&x.target) {
            Err(err) => return bad(format!("exploit.target: {err}")),
            Ok(p) if p.cheats() => {
                return bad(format!(
                    "exploit.target: `{}` reads hidden information; a best response needs a fair target",
                    x.target
                ))
            }
            Ok(_) => {}
        }
        if self.evaluate.anchor != x.target || self.evaluate.anchor_games == 0 {
            return bad("exploit: evaluate.anchor must be the target and evaluate.anchor_games above 0 (the learner is rated against it)".into());
        }
        if self.evaluate.sprt.is_some() || self.selfplay.backend != "local" {
            return bad("exploit: no [evaluate.sprt] gate and no Ray backend (every net becomes the learner; games are played here)".into());
        }
        if !x.init.is_empty() && !Path::new(&x.init).is_file() {
            return bad(format!("exploit.init: no net file {}", x.init));
        }
        Ok(())
    }

    /// The learner's self-play bot in an exploit run, whose net is `net` (None:
    /// the bootstrap bot): with `model_target`, its search models the target.
    pub fn learner_bot(&self, net: Option<&Path>) -> BotSpec {
        let bot = match net {
            Some(net) => self.selfplay_bot(net),
            None => self.bootstrap.bot.clone(),
        };
        match &self.exploit {
            Some(x) if x.model_target && bot.name == "mcts" => bot.with("opponent", &x.target),
            _ => bot,
        }
    }

    /// The bot a generation's net is rated as: [`LoopConfig::eval_bot`], in an
    /// exploit run with `eval_model` its search modelling the target.
    pub fn rated_bot(&self, net: &Path) -> BotSpec {
        let bot = self.eval_bot(net);
        match &self.exploit {
            Some(x) if x.eval_model && bot.name == "mcts" => bot.with("opponent", &x.target),
            _ => bot,
        }
    }

    /// The self-play bot of a generation whose best net is `net`.
    pub fn selfplay_bot(&self, net: &Path) -> BotSpec {
        let s = &self.selfplay;
        if s.sims == 0 {
            return BotSpec::new("net").with("path", net.display()).with("temp", s.temp);
        }
        let spec = BotSpec::new("mcts").with("sims", s.sims).with("c", s.c);
        let spec = if s.search == "gumbel" {
            // The Gumbel draw explores and samples: no noise, no temperature.
            self.with_gumbel(with_optional(spec, "mix", s.mix), true)
        } else {
            let spec = spec
                .with("noise", s.noise)
                .with("alpha", s.alpha)
                .with("temp", s.temp)
                .with("temp_plies", s.temp_plies);
            with_optional(with_optional(spec, "qtemp", s.qtemp), "mix", s.mix)
        };
        let spec = if s.draw.is_empty() { spec } else { spec.with("draw", &s.draw) };
        spec.with("eval", net_spec(net))
    }

    /// `spec` with `search=gumbel,k=…` when self-play searches with Gumbel;
    /// `sample = false` adds `gscale=0` (the prior's top k, no draw).
    fn with_gumbel(&self, spec: BotSpec, sample: bool) -> BotSpec {
        if self.selfplay.search != "gumbel" {
            return spec;
        }
        let spec = spec.with("search", "gumbel").with("k", self.selfplay.considered);
        if sample {
            spec
        } else {
            spec.with("gscale", 0)
        }
    }

    /// The bot that plays `net` in evaluations.
    pub fn eval_bot(&self, net: &Path) -> BotSpec {
        match self.evaluate.sims {
            0 => net_spec(net),
            n => {
                let spec = BotSpec::new("mcts").with("sims", n).with("c", self.selfplay.c);
                let spec = with_optional(spec, "mix", self.evaluate.mix);
                // Evaluations play their best: measured at 32 simulations,
                // gscale=0 beat PUCT 59%, the sampling search lost 44%.
                // The deals still vary the games.
                self.with_gumbel(spec, false).with("eval", net_spec(net))
            }
        }
    }
}

/// `net:FILE` for the net file `net` (any path: the spec quotes what needs it).
fn net_spec(net: &Path) -> BotSpec {
    BotSpec::new("net").with("path", net.display())
}

/// `spec` with `key=value` when `value` is set (above 0).
fn with_optional(spec: BotSpec, key: &str, value: f32) -> BotSpec {
    if value > 0.0 {
        spec.with(key, value)
    } else {
        spec
    }
}

impl EvalSettings {
    /// The anchor, then the further ones (each once). A spec's text names
    /// it in the state, the reports and the directories.
    pub fn anchors(&self) -> Vec<&BotSpec> {
        let mut all = vec![&self.anchor];
        for a in &self.more_anchors {
            if !all.contains(&a) {
                all.push(a);
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_bots::BotSpec;

    /// The net path inside a search spec's `eval=…` (or a net spec's path).
    fn net_path_of(spec: &BotSpec) -> String {
        let net = match spec.get("eval") {
            Some(eval) => BotSpec::parse(eval).unwrap(),
            None => spec.clone(),
        };
        assert_eq!(net.name, "net");
        net.get("path").unwrap().to_string()
    }

    #[test]
    fn a_type_error_is_one_line_naming_its_key() {
        let err = LoopConfig::from_toml("minutes = \"an hour\"\n").unwrap_err().to_string();
        assert!(!err.contains('\n') && err.contains("at `minutes = \"an hour\"`: invalid type"), "{err}");
    }

    #[test]
    fn any_run_path_survives_the_bot_specs() {
        let net = Path::new(r#"runs/a,b=c/"q"/net-003.safetensors"#);
        for search in ["gumbel", "puct"] {
            for sims in [0, 32] {
                let mut config = LoopConfig::default();
                config.selfplay.search = search.to_string();
                config.selfplay.sims = sims;
                config.evaluate.sims = sims;
                for spec in [config.selfplay_bot(net), config.eval_bot(net)] {
                    assert_eq!(net_path_of(&spec), net.to_str().unwrap(), "{spec}");
                }
            }
        }
        // An ordinary path reads as before: `…,eval=net:path=FILE`.
        let plain = LoopConfig::default().selfplay_bot(Path::new("runs/x/net-001.safetensors")).to_string();
        assert!(plain.ends_with(",eval=net:path=runs/x/net-001.safetensors"), "{plain}");
    }

    #[test]
    fn the_self_play_draw_score_reaches_the_search_and_is_checked() {
        let net = Path::new("runs/x/net-001.safetensors");
        let mut config = LoopConfig::default();
        let json = serde_json::to_value(&config).unwrap();
        assert!(json["selfplay"].get("draw").is_none(), "a config without it reads as before: {json}");
        assert_eq!(config.selfplay_bot(net).get("draw"), None);
        for draw in ["-0.3", "auto"] {
            config.selfplay.draw = draw.into();
            config.check().unwrap();
            let spec = config.selfplay_bot(net);
            assert_eq!(spec.get("draw"), Some(draw));
            assert_ne!(junqi_bots::MctsConfig::from_spec(&spec).unwrap().draw, junqi_bots::DrawScore::Fixed(0.0));
        }
        config.selfplay.draw = "2".into();
        assert!(config.check().unwrap_err().to_string().contains("draw"));
        config.selfplay.draw = "-0.3".into();
        config.selfplay.sims = 0;
        assert!(config.check().unwrap_err().to_string().contains("selfplay.draw"));
    }

    #[test]
    fn the_ray_backend_is_checked_and_a_local_config_reads_as_before() {
        let mut config = LoopConfig::default();
        let json = serde_json::to_value(&config).unwrap();
        assert!(json["selfplay"].get("backend").is_none() && json["selfplay"].get("ray").is_none(), "{json}");
        config.selfplay.backend = "cluster".into();
        assert!(config.check().unwrap_err().to_string().contains("selfplay.backend"));
        config.selfplay.backend = "ray".into();
        config.check().unwrap();
        config.selfplay.ray.command.clear();
        assert!(config.check().unwrap_err().to_string().contains("selfplay.ray"));
    }

    /// A two-player loop refuses before its first game what two-player
    /// samples cannot train: a four-player progress lead.
    #[test]
    fn a_two_player_loop_refuses_a_progress_lead_at_once() {
        let mut config = LoopConfig::default();
        config.check().unwrap();
        config.train.data.policy_target_progress_lead = 2.0;
        let err = config.check().unwrap_err().to_string();
        assert!(err.contains("data.policy_target_progress_lead = 2"), "{err}");
    }
}
