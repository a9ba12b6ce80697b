//! The closed training loop (`junqi loop`): self-play with the best net →
//! train on the newest generations' games → evaluate the new net against the
//! best (paired games) and against a fixed anchor bot → promote on success.
//!
//! Every stage writes its output under the run directory and the loop's
//! state (`state.json`) is rewritten atomically after each stage, so a run
//! stopped anywhere (Ctrl-C, a crash) resumes where it was with the same
//! command. Layout of `<out>/`:
//!
//! ```text
//! loop.toml               the config of the run (a resume must match it)
//! state.json              generations done, each net's scores and Elo, the best net
//! gen-NNN/selfplay/       generation NNN's games and samples (junqi selfplay layout)
//! gen-NNN/eval-best/      paired games of net NNN against the best net so far
//! gen-NNN/eval-anchor/    paired games of net NNN against the anchor bot
//! gen-NNN/eval-vs-SPEC/   … and against each of `evaluate.more_anchors`
//! nets/net-NNN.safetensors  every generation's net (exported, with metadata)
//! train/                  one continuing training run: checkpoints/, tb/
//! elo.csv                 each generation's Elo against the anchor
//! elo_anchors.csv         one row per generation and anchor rated
//! elo.svg, summary.md     the Elo against every anchor over time, the table
//! .lock                   held while a loop runs in the directory
//! ```
//!
//! Generation 0's games come from the `bootstrap` bot (there is no net yet);
//! every later generation's from `mcts:…,eval=net:<best>` with Dirichlet
//! noise at the root and a temperature for the first plies.

use crate::config::TrainConfig;
use crate::data::DataWindow;
use crate::deployments::{deployment_games, fit_into_net};
use crate::driver::train_window;
use crate::metrics::TensorBoardMetrics;
use crate::{export_checkpoint, Result, TrainError};
use junqi_arena::{matchup_config, pair_scores, play_matchup};
use junqi_core::{Mode, Rules};
use junqi_net::{release_shared_services, shared_stats};
use junqi_selfplay::{prepare, Config, Resign, RunOptions, SamplesPerGame};
use junqi_stats::{pair_estimates, Penta};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The loop's settings (`configs/loop/*.toml`); every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    pub seed: u64,
    /// Game mode (its preset rules): fanqi, anqi or mingqi.
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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BootstrapConfig {
    /// The bot that plays generation 0.
    pub bot: String,
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
    pub anchor: String,
    /// Paired games against each anchor (even; 0 = none).
    pub anchor_games: u64,
    /// Further fixed opponents every generation is also rated against
    /// (`anchor_games` each), e.g. `["mcts:3200"]`: each its own line on the
    /// chart. Only rates, never gates, so a resumed run may change them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_anchors: Vec<String>,
    /// `[evaluate.sprt]`: the new net replaces the best only when a
    /// sequential test accepts that it is stronger (then `promote_score` is
    /// not used); absent = promote on the score of `games` games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtGate>,
}

/// The SPRT gate's hypotheses (normalized Elo, as `junqi sprt`), error rates
/// and game limit; a test that reaches the limit undecided keeps the best.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SprtGate {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub max_games: u64,
}

impl Default for SprtGate {
    fn default() -> Self {
        SprtGate { elo0: 0.0, elo1: 40.0, alpha: 0.05, beta: 0.1, max_games: 400 }
    }
}

impl Default for LoopConfig {
    fn default() -> Self {
        let mut train = TrainConfig::default();
        train.optim.schedule = crate::LrSchedule::Constant;
        LoopConfig {
            seed: 0,
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
        }
    }
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig { bot: "heuristic".into(), games: 1000, steps: 0 }
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
            samples_per_game: "all".into(),
            resign: None,
            resign_false_rate: 0.05,
            deploy: "learned".into(),
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
            anchor: "greedy".into(),
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
        Ok(self.selfplay.deploy == "learned" && self.rules()?.mode != Mode::Fanqi)
    }

    /// The self-play workers: `threads`, or one per core.
    pub fn workers(&self) -> usize {
        junqi_selfplay::workers(self.threads)
    }

    pub fn from_toml(text: &str) -> Result<LoopConfig> {
        let c: LoopConfig = toml::from_str(text).map_err(|e| TrainError::Config(format!("bad loop config: {e}")))?;
        c.check()?;
        Ok(c)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("the config serialises")
    }

    pub fn rules(&self) -> Result<Rules> {
        let mode: Mode = self.mode.parse().map_err(|e| TrainError::Config(format!("mode: {e}")))?;
        let mut rules = Rules::preset(mode);
        for a in &self.rules_set {
            rules.apply_override(a).map_err(|e| TrainError::Config(format!("rules_set `{a}`: {e}")))?;
        }
        Ok(rules)
    }

    fn samples(&self) -> Result<SamplesPerGame> {
        self.selfplay
            .samples_per_game
            .parse()
            .map_err(|e| TrainError::Config(format!("selfplay.samples_per_game: {e}")))
    }

    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(TrainError::Config(m));
        self.rules()?;
        self.samples()?;
        self.train.check()?;
        if self.threads > 1024 {
            return bad(format!("threads must be at most 1024, not {}", self.threads));
        }
        use junqi_selfplay::limits::{finite_in_range, in_range, MAX_GAMES, MAX_STEPS};
        let range = |r: Result<u64, String>| r.map(|_| ()).map_err(TrainError::Config);
        range(in_range("bootstrap.games", self.bootstrap.games, 1, MAX_GAMES))?;
        range(in_range("selfplay.games", self.selfplay.games, 1, MAX_GAMES))?;
        range(in_range("evaluate.games", self.evaluate.games, 2, MAX_GAMES))?;
        range(in_range("evaluate.anchor_games", self.evaluate.anchor_games, 0, MAX_GAMES))?;
        range(in_range("bootstrap.steps", self.bootstrap.steps, 0, MAX_STEPS))?;
        // Generations × steps stays a count of steps training can reach.
        range(in_range("steps_per_generation", self.steps_per_generation, 1, MAX_STEPS / 1_000_000))?;
        in_range("window_generations", self.window_generations, 1, 1_000_000).map_err(TrainError::Config)?;
        in_range("generations", self.generations, 0, 1_000_000).map_err(TrainError::Config)?;
        finite_in_range("minutes", self.minutes, 0.0, 1e9).map_err(TrainError::Config)?;
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
            r.check().map_err(|m| TrainError::Config(format!("selfplay.resign: {m}")))?;
        }
        if !(0.0..1.0).contains(&self.selfplay.resign_false_rate) {
            return bad("selfplay.resign_false_rate must be in [0, 1)".into());
        }
        if !(0.0..=1.0).contains(&e.promote_score) {
            return bad("evaluate.promote_score must be in [0, 1]".into());
        }
        if let Some(t) = &e.sprt {
            junqi_stats::Sprt::new(t.elo0, t.elo1, t.alpha, t.beta)
                .map_err(|err| TrainError::Config(format!("evaluate.sprt: {err}")))?;
            if t.max_games < e.games {
                return bad(format!("evaluate.sprt.max_games ({}) must be at least evaluate.games", t.max_games));
            }
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
        junqi_bots::from_spec(&self.bootstrap.bot)
            .map_err(|err| TrainError::Config(format!("bootstrap.bot: {err}")))?;
        // The bots of later generations, checked now rather than after the
        // bootstrap (their net does not exist yet: only the spec is read).
        let placeholder = Path::new("net.safetensors");
        for (what, spec) in [("selfplay", self.selfplay_bot(placeholder)), ("evaluate", self.eval_bot(placeholder))] {
            let parsed = junqi_bots::BotSpec::parse(&spec).map_err(|e| TrainError::Config(format!("{what}: {e}")))?;
            let check = match parsed.name.as_str() {
                "mcts" => junqi_bots::MctsConfig::from_spec(&parsed).map(|_| ()),
                _ => parsed.non_negative("temp", 0.0).map(|_| ()),
            };
            check.map_err(|e| TrainError::Config(format!("{what}: {e}")))?;
        }
        if e.anchor_games > 0 {
            junqi_bots::from_spec(&e.anchor).map_err(|err| TrainError::Config(format!("evaluate.anchor: {err}")))?;
            for a in &e.more_anchors {
                junqi_bots::from_spec(a).map_err(|err| TrainError::Config(format!("evaluate.more_anchors: {err}")))?;
            }
        }
        Ok(())
    }

    /// The self-play bot of a generation whose best net is `net`.
    pub fn selfplay_bot(&self, net: &Path) -> String {
        let s = &self.selfplay;
        if s.sims == 0 {
            return format!("net:path={},temp={}", net.display(), s.temp);
        }
        if s.search == "gumbel" {
            // The Gumbel draw explores and samples: no noise, no temperature.
            return format!(
                "mcts:sims={},c={}{}{},eval=net:{}",
                s.sims,
                s.c,
                optional_part("mix", s.mix),
                self.gumbel_part(true),
                net.display()
            );
        }
        format!(
            "mcts:sims={},c={},noise={},alpha={},temp={},temp_plies={}{},eval=net:{}",
            s.sims,
            s.c,
            s.noise,
            s.alpha,
            s.temp,
            s.temp_plies,
            optional_part("qtemp", s.qtemp) + &optional_part("mix", s.mix),
            net.display()
        )
    }

    /// `,search=gumbel,k=…` when self-play searches with Gumbel, else
    /// nothing; `sample = false` adds `gscale=0` (the prior's top k, no draw).
    fn gumbel_part(&self, sample: bool) -> String {
        match self.selfplay.search.as_str() {
            "gumbel" if sample => format!(",search=gumbel,k={}", self.selfplay.considered),
            "gumbel" => format!(",search=gumbel,k={},gscale=0", self.selfplay.considered),
            _ => String::new(),
        }
    }

    /// The bot that plays `net` in evaluations.
    pub fn eval_bot(&self, net: &Path) -> String {
        match self.evaluate.sims {
            0 => format!("net:{}", net.display()),
            n => {
                format!(
                    "mcts:sims={n},c={}{}{},eval=net:{}",
                    self.selfplay.c,
                    optional_part("mix", self.evaluate.mix),
                    // Evaluations play their best: measured at 32 simulations,
                    // gscale=0 beat PUCT 59%, the sampling search lost 44%.
                    // The deals still vary the games.
                    self.gumbel_part(false),
                    net.display()
                )
            }
        }
    }
}

/// `,key=value` for a spec, or nothing when the value is 0 (the default).
fn optional_part(key: &str, value: f32) -> String {
    if value > 0.0 {
        format!(",{key}={value}")
    } else {
        String::new()
    }
}

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
    /// Minutes since the loop started (summed over resumes) when the generation finished.
    pub minutes: f64,
    pub done: bool,
}

/// A generation's Elo against one of the further anchors, with its 95% interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnchorElo {
    pub anchor: String,
    pub elo: [f64; 3],
}

impl Generation {
    /// The Elo against `anchor` (the main one or a further one), if rated.
    pub fn elo_against(&self, config: &LoopConfig, anchor: &str) -> Option<[f64; 3]> {
        if anchor == config.evaluate.anchor {
            return self.elo_vs_anchor;
        }
        self.elo_vs_more.iter().find(|a| a.anchor == anchor).map(|a| a.elo)
    }
}

impl EvalSettings {
    /// The anchor, then the further ones (each once).
    pub fn anchors(&self) -> Vec<&str> {
        let mut all = vec![self.anchor.as_str()];
        for a in &self.more_anchors {
            if !all.contains(&a.as_str()) {
                all.push(a);
            }
        }
        all
    }
}

/// The directory of a generation's games against `anchor`: `eval-anchor`
/// for the main one, `eval-vs-SPEC` (spec made a file name) for the others.
fn anchor_dir(config: &LoopConfig, anchor: &str) -> String {
    if anchor == config.evaluate.anchor {
        return "eval-anchor".into();
    }
    let name: String = anchor.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
    format!("eval-vs-{name}")
}

/// How a generation's SPRT gate ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub games: u64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// "H1" (stronger: promoted), "H0" (not stronger), or "limit" (undecided at max_games).
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
    pub code_version: String,
}

/// What the caller sees of a running loop.
pub trait LoopObserver {
    /// A stage starts (`total` games, or 0 for training); the progress
    /// counters of `options` were reset.
    fn stage(&mut self, label: &str, total: u64);
    /// A line for the log.
    fn line(&mut self, text: &str);
}

fn gen_dir(out: &Path, g: u32) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).expect("serialises");
    junqi_arena::write_atomic(path, &text).map_err(|e| TrainError::Config(e.to_string()))
}

/// Run (or resume) the loop in `out` until `config.generations` or
/// `config.minutes`, or until `options.stop` is set (then an error
/// [`TrainError::Interrupted`] after the finished stages are saved).
pub fn run_loop(
    config: &LoopConfig,
    out: &Path,
    options: &RunOptions,
    observer: &mut dyn LoopObserver,
) -> Result<LoopState> {
    config.check()?;
    // Net paths go into bot specs, where `,` and `=` separate parameters.
    if out.to_string_lossy().contains([',', '=']) {
        return Err(TrainError::Config(format!(
            "{}: the run directory's path may not contain `,` or `=`",
            out.display()
        )));
    }
    std::fs::create_dir_all(out).map_err(TrainError::io(out))?;
    let _lock = junqi_selfplay::RunLock::hold(out).map_err(|e| TrainError::Config(e.to_string()))?;
    let config_path = out.join("loop.toml");
    let text = config.to_toml();
    match junqi_core::read_text(&config_path) {
        Ok(old) if old != text => {
            let old_cfg = LoopConfig::from_toml(&old)?;
            // Only when to stop, where the net runs, and the further anchors
            // (ratings, not training) may change on a resume.
            let mut same = LoopConfig { generations: config.generations, minutes: config.minutes, ..old_cfg };
            same.train.device = config.train.device;
            same.evaluate.more_anchors = config.evaluate.more_anchors.clone();
            if &same != config {
                return Err(TrainError::Config(format!(
                    "{} holds a loop with another config ({}); use a new --out",
                    out.display(),
                    config_path.display()
                )));
            }
            std::fs::write(&config_path, &text).map_err(TrainError::io(&config_path))?;
        }
        Ok(_) => {}
        Err(_) => std::fs::write(&config_path, &text).map_err(TrainError::io(&config_path))?,
    }
    let state_path = out.join("state.json");
    let mut state: LoopState = match junqi_core::read_text(&state_path) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| TrainError::Corrupt { path: state_path.clone(), message: e.to_string() })?,
        Err(_) => LoopState::default(),
    };
    state.code_version = junqi_selfplay::code_version();
    let started = Instant::now();
    let base_minutes = state.minutes;
    let rules = config.rules()?;
    let stop = || options.stop.load(Ordering::Relaxed);
    let interrupted =
        || TrainError::Interrupted(format!("stopped; run the same command to resume from {}", out.display()));
    let minutes_now = || base_minutes + started.elapsed().as_secs_f64() / 60.0;
    let save = |state: &mut LoopState| -> Result<()> {
        state.minutes = minutes_now();
        write_json(&state_path, state)
    };
    // The generations, until a stopping rule or an error; `?` and `return`
    // inside leave this closure, not `run_loop`.
    let mut generations = || -> Result<()> {
        // Anchors added on a resume: rate the finished generations first.
        let mut backfilled = false;
        for k in 0..state.generations.len() {
            let (done, net) = (state.generations[k].done, state.generations[k].net.clone());
            if let (true, Some(net)) = (done, net) {
                let net_path = out.join(net);
                if rate_against_anchors(config, &rules, out, &mut state, k, &net_path, options, observer, &save)? {
                    backfilled = true;
                    release_shared_services();
                }
            }
        }
        if backfilled {
            write_reports(config, out, &state)?;
        }
        loop {
            let g = match state.generations.last() {
                Some(last) if !last.done => last.index,
                Some(last) => last.index + 1,
                None => 0,
            };
            let finished = state.generations.iter().filter(|x| x.done).count() as u32;
            if config.generations > 0 && finished >= config.generations {
                break;
            }
            if config.minutes > 0.0
                && minutes_now() >= config.minutes
                && state.generations.last().is_none_or(|x| x.done)
            {
                observer.line(&format!("time budget of {} minutes used: stopping", config.minutes));
                break;
            }
            if state.generations.last().is_none_or(|x| x.done) {
                state.generations.push(Generation { index: g, ..Default::default() });
            }
            let dir = gen_dir(out, g);

            // ---- 1. self-play ----
            let bot = match &state.best {
                None => config.bootstrap.bot.clone(),
                Some(best) => config.selfplay_bot(&out.join(best)),
            };
            let games = if g == 0 || state.best.is_none() { config.bootstrap.games } else { config.selfplay.games };
            let sp_seed = config.seed.wrapping_add(1_000_003u64.wrapping_mul(g as u64 + 1));
            let resign = match config.selfplay.resign {
                Some(r) if state.best.is_some() => {
                    let threshold = match state.generations.last().expect("pushed").resign_threshold {
                        // A resumed generation keeps its threshold.
                        Some(t) => t,
                        None => resign_threshold(config, &state, g, r.threshold),
                    };
                    state.generations.last_mut().expect("pushed").resign_threshold = Some(threshold);
                    Some(Resign { threshold, ..r })
                }
                _ => None,
            };
            let sp_config = Config::new(rules.clone(), games, [&bot, &bot], sp_seed)?
                .with_samples(config.samples()?)
                .with_swap(false)
                .with_resign(resign)
                // One shard per worker at least: a shard's games run one after another.
                .with_shard_games(games.div_ceil(config.workers() as u64).clamp(1, 1000));
            let plan = prepare(sp_config, Some(&dir.join("selfplay")))?;
            if !plan.pending.is_empty() {
                reset(options);
                options.progress.resumed.store(plan.complete_games, Ordering::Relaxed);
                observer.stage(&format!("gen {g}: self-play ({bot})"), games);
                let before = shared_stats();
                let summary = plan.run(options)?;
                let after = shared_stats();
                let rec = state.generations.last_mut().expect("pushed");
                rec.selfplay_bot = bot.clone();
                // Games of written shards only: a stopped run replays its unwritten shards.
                rec.selfplay_games += summary.tally.games;
                rec.selfplay_plies += summary.plies;
                rec.selfplay_seconds += summary.elapsed.as_secs_f64();
                let used = after.since(&before);
                rec.inference_batches += used.batches;
                rec.inference_positions += used.positions;
                rec.inference_requests += used.requests;
                rec.resign.merge(&summary.tally.resign);
                save(&mut state)?;
                if summary.interrupted {
                    return Err(interrupted());
                }
                let rec = state.generations.last().expect("pushed");
                let mean_batch = if rec.inference_batches > 0 {
                    format!(
                        ", mean inference batch {:.1}, {:.0}% answered by the cache",
                        rec.inference_positions as f64 / rec.inference_batches as f64,
                        100.0 * (1.0 - rec.inference_positions as f64 / rec.inference_requests.max(1) as f64)
                    )
                } else {
                    String::new()
                };
                let resigned = match resign {
                    Some(r) => format!("; threshold {:.2}, {}", r.threshold, rec.resign),
                    None => String::new(),
                };
                observer.line(&format!(
                "gen {g}: self-play {} games, {} plies in {:.0} s ({:.2} games/s, {:.0} positions/s{mean_batch}){resigned}",
                rec.selfplay_games,
                rec.selfplay_plies,
                rec.selfplay_seconds,
                rec.selfplay_games as f64 / rec.selfplay_seconds.max(1e-9),
                rec.selfplay_plies as f64 / rec.selfplay_seconds.max(1e-9),
            ));
            }
            if stop() {
                return Err(interrupted());
            }

            // ---- 2. train ----
            let net_rel = format!("nets/net-{g:03}.safetensors");
            let net_path = out.join(&net_rel);
            if state.generations.last().expect("pushed").net.is_none() {
                let first = (g + 1).saturating_sub(config.window_generations);
                let runs: Vec<PathBuf> = (first..=g).map(|k| gen_dir(out, k).join("selfplay")).collect();
                let window = DataWindow::of_runs(out, &runs)?;
                let mut tc = config.train.clone();
                let first_steps = match config.bootstrap.steps {
                    0 => config.steps_per_generation,
                    n => n,
                };
                tc.optim.steps = first_steps + config.steps_per_generation * g as u64;
                tc.seed = config.seed.wrapping_add(g as u64);
                tc.checkpoint_every = tc.checkpoint_every.min(config.steps_per_generation);
                reset(options);
                observer.stage(&format!("gen {g}: training to step {} on {} samples", tc.optim.steps, window.rows), 0);
                let train_dir = out.join("train");
                let mut metrics = TensorBoardMetrics::for_run(&train_dir)?;
                let generation_start = if g == 0 { 0 } else { tc.optim.steps - config.steps_per_generation };
                let summary =
                    train_window(&tc, window, generation_start, &train_dir, &mut metrics, &mut (), &options.stop)?;
                if summary.interrupted {
                    return Err(interrupted());
                }
                let ckpt = summary
                    .checkpoint
                    .clone()
                    .ok_or_else(|| TrainError::Config("training wrote no checkpoint".into()))?;
                std::fs::create_dir_all(out.join("nets")).map_err(TrainError::io(out.join("nets")))?;
                export_checkpoint(&ckpt, &net_path)?;
                let deploy_loss = if config.learns_deployments()? {
                    let games = deployment_games(&runs, &config.rules()?)?;
                    Some((fit_into_net(&net_path, &games)?, games.len()))
                } else {
                    None
                };
                let rec = state.generations.last_mut().expect("pushed");
                rec.deploy_loss = deploy_loss.map(|l| l.0 as f64);
                rec.net = Some(net_rel.clone());
                rec.train_step = summary.end_step;
                rec.train_samples_per_s = summary.samples_per_s;
                rec.train_seconds = summary.seconds;
                if let Some(m) = &summary.last {
                    rec.policy_loss = m.policy_loss;
                    rec.value_loss = m.value_loss;
                    rec.belief_loss = tc.model.belief.then_some(m.belief_loss);
                }
                let (policy_loss, value_loss) = (rec.policy_loss, rec.value_loss);
                let mut belief = rec.belief_loss.map(|b| format!(", belief loss {b:.3}")).unwrap_or_default();
                if let Some((loss, n)) = deploy_loss {
                    belief += &format!(", deployments fitted to {n} (loss {loss:.3})");
                }
                save(&mut state)?;
                observer.line(&format!(
                "gen {g}: trained to step {} in {:.0} s ({:.0} samples/s), policy loss {policy_loss:.3}, value loss {value_loss:.3}{belief}",
                summary.end_step, summary.seconds, summary.samples_per_s
            ));
            }

            // ---- 3. evaluate against the best, and against the anchor ----
            let candidate = config.eval_bot(&net_path);
            let eval_seed = eval_seed(config, g);
            if !state.generations.last().expect("pushed").evaluated {
                if let (Some(best), Some(gate)) = (state.best.clone(), config.evaluate.sprt) {
                    let best_bot = config.eval_bot(&out.join(&best));
                    reset(options);
                    observer.stage(&format!("gen {g}: SPRT, net {g} vs best ({best})"), gate.max_games);
                    let (record, est) = sprt_gate(
                        &rules,
                        [&candidate, &best_bot],
                        config.evaluate.games,
                        &gate,
                        eval_seed,
                        &dir.join("gate"),
                        options,
                    )?;
                    let rec = state.generations.last_mut().expect("pushed");
                    rec.score_vs_best = Some(est);
                    rec.promoted = record.verdict == "H1";
                    observer.line(&format!(
                        "gen {g}: SPRT after {} games: LLR {:.2} in [{:.2}, {:.2}], {}; net {g} scored {:.1}% [{:.1}, {:.1}] against {best}: {}",
                        record.games,
                        record.llr,
                        record.lower,
                        record.upper,
                        record.verdict,
                        100.0 * est[0],
                        100.0 * est[1],
                        100.0 * est[2],
                        if rec.promoted { "promoted" } else { "kept the best" }
                    ));
                    rec.gate = Some(record);
                } else if let Some(best) = state.best.clone() {
                    let best_bot = config.eval_bot(&out.join(&best));
                    let (est, _) = matchup(
                        &rules,
                        [&candidate, &best_bot],
                        config.evaluate.games,
                        eval_seed,
                        &dir.join("eval-best"),
                        options,
                        observer,
                        &format!("gen {g}: net {g} vs best ({best})"),
                    )?;
                    let rec = state.generations.last_mut().expect("pushed");
                    rec.score_vs_best = Some(est);
                    rec.promoted = est[0] >= config.evaluate.promote_score;
                    observer.line(&format!(
                        "gen {g}: net {g} scored {:.1}% [{:.1}, {:.1}] against {best}: {}",
                        100.0 * est[0],
                        100.0 * est[1],
                        100.0 * est[2],
                        if rec.promoted { "promoted" } else { "kept the best" }
                    ));
                } else {
                    state.generations.last_mut().expect("pushed").promoted = true;
                }
                state.generations.last_mut().expect("pushed").evaluated = true;
                save(&mut state)?;
            }
            let last = state.generations.len() - 1;
            rate_against_anchors(config, &rules, out, &mut state, last, &net_path, options, observer, &save)?;
            let rec = state.generations.last_mut().expect("pushed");
            if rec.promoted {
                state.best = Some(net_rel.clone());
            }
            let rec = state.generations.last_mut().expect("pushed");
            rec.done = true;
            rec.minutes = minutes_now();
            save(&mut state)?;
            write_reports(config, out, &state)?;
            // The next generation loads the (maybe new) best net afresh.
            release_shared_services();
        }
        Ok(())
    };
    let result = generations();
    // A stopped stage keeps what it finished (shards, checkpoints, matchups);
    // the minutes it ran count too.
    if matches!(result, Err(TrainError::Interrupted(_))) {
        save(&mut state)?;
    }
    result?;
    write_reports(config, out, &state)?;
    Ok(state)
}

/// Generation `g`'s resignation threshold: calibrated on the play-through
/// games of the finished generations in the window, or `fixed` until they
/// hold [`RESIGN_MIN_SIGNALS`] would-be resignations (or with no target rate).
fn resign_threshold(config: &LoopConfig, state: &LoopState, g: u32, fixed: f64) -> f64 {
    let rate = config.selfplay.resign_false_rate;
    if rate <= 0.0 {
        return fixed;
    }
    let first = g.saturating_sub(config.window_generations);
    let mut pooled = junqi_selfplay::ResignTally::default();
    for rec in state.generations.iter().filter(|x| x.done && x.index >= first) {
        pooled.merge(&rec.resign);
    }
    if pooled.would_resign_at(junqi_selfplay::LEVEL_BINS).0 < RESIGN_MIN_SIGNALS {
        return fixed;
    }
    // The lowest threshold on the grid when every one is too often wrong.
    pooled.calibrate(rate, RESIGN_MIN_SIGNALS).unwrap_or(-1.0 + junqi_selfplay::LEVEL_WIDTH)
}

fn reset(options: &RunOptions) {
    let p = &options.progress;
    for c in [&p.games, &p.plies, &p.samples, &p.resumed] {
        c.store(0, Ordering::Relaxed);
    }
}

/// Play (or resume) paired games; the first bot's score and Elo, each with its 95% interval.
#[allow(clippy::too_many_arguments)]
fn matchup(
    rules: &Rules,
    bots: [&str; 2],
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
    let config = matchup_config(rules.clone(), bots, games, seed)
        .map_err(|e| TrainError::Config(e.to_string()))?
        .with_shard_games(shard);
    reset(options);
    observer.stage(label, games);
    let m = play_matchup(config, dir, options).map_err(|e| arena_error(e, dir))?;
    let penta = Penta::from_pairs(pair_scores(&m.results, 0)).map_err(|e| TrainError::Config(e.to_string()))?;
    let est = pair_estimates(&penta);
    Ok((
        [est.score.value, est.score.interval.low, est.score.interval.high],
        [est.elo.value, est.elo.interval.low, est.elo.interval.high],
    ))
}

/// The seed of generation `g`'s evaluation games (the anchors' games use
/// it xor a constant, the same for every anchor: common deals).
fn eval_seed(config: &LoopConfig, g: u32) -> u64 {
    config.seed.wrapping_add(7_919u64.wrapping_mul(g as u64 + 1))
}

/// Rate generation `k` of `state` (its net at `net_path`) against every
/// anchor it has no rating for, saving after each; whether it rated any.
#[allow(clippy::too_many_arguments)]
fn rate_against_anchors(
    config: &LoopConfig,
    rules: &Rules,
    out: &Path,
    state: &mut LoopState,
    k: usize,
    net_path: &Path,
    options: &RunOptions,
    observer: &mut dyn LoopObserver,
    save: &dyn Fn(&mut LoopState) -> Result<()>,
) -> Result<bool> {
    if config.evaluate.anchor_games == 0 {
        return Ok(false);
    }
    let mut rated = false;
    let g = state.generations[k].index;
    let candidate = config.eval_bot(net_path);
    for anchor in config.evaluate.anchors() {
        if state.generations[k].elo_against(config, anchor).is_some() {
            continue;
        }
        // Every anchor plays the same deals (paired comparisons).
        let (_, elo) = matchup(
            rules,
            [&candidate, anchor],
            config.evaluate.anchor_games,
            eval_seed(config, g) ^ 0x5A5A,
            &gen_dir(out, g).join(anchor_dir(config, anchor)),
            options,
            observer,
            &format!("gen {g}: net {g} vs {anchor}"),
        )?;
        let rec = &mut state.generations[k];
        if anchor == config.evaluate.anchor {
            rec.elo_vs_anchor = Some(elo);
        } else {
            rec.elo_vs_more.push(AnchorElo { anchor: anchor.to_string(), elo });
        }
        save(state)?;
        rated = true;
        observer.line(&format!("gen {g}: Elo {:+.0} [{:+.0}, {:+.0}] against {anchor}", elo[0], elo[1], elo[2]));
    }
    Ok(rated)
}

/// An arena error of a loop stage playing in `dir`: a stop is resumable.
fn arena_error(e: junqi_arena::ArenaError, dir: &Path) -> TrainError {
    match e {
        junqi_arena::ArenaError::Interrupted => {
            TrainError::Interrupted(format!("stopped; run the same command to resume ({})", dir.display()))
        }
        other => TrainError::Config(other.to_string()),
    }
}

/// The SPRT gate: batches of `batch_games` paired games of `bots[0]` (the
/// candidate) against `bots[1]` until the test decides or reaches
/// `gate.max_games` (then the best stays). Resumable: the batches are
/// matchups in `dir`. Returns the record and the candidate's score with its
/// 95% interval.
pub fn sprt_gate(
    rules: &Rules,
    bots: [&str; 2],
    batch_games: u64,
    gate: &SprtGate,
    seed: u64,
    dir: &Path,
    options: &RunOptions,
) -> Result<(GateRecord, [f64; 3])> {
    let config = junqi_arena::sprt::SprtConfig {
        rules: *rules,
        candidate: bots[0].to_string(),
        baseline: bots[1].to_string(),
        elo0: gate.elo0,
        elo1: gate.elo1,
        alpha: gate.alpha,
        beta: gate.beta,
        batch_games,
        max_games: gate.max_games,
        seed,
        openings: None,
    };
    let outcome = junqi_arena::sprt::run_sprt(&config, dir, options, |_, _| {}).map_err(|e| arena_error(e, dir))?;
    let s = &outcome.summary;
    let verdict = match s.decision {
        junqi_stats::Decision::AcceptH1 => "H1",
        junqi_stats::Decision::AcceptH0 => "H0",
        junqi_stats::Decision::Continue => "limit",
    };
    let record = GateRecord {
        games: outcome.games,
        llr: s.llr,
        lower: s.bounds.lower,
        upper: s.bounds.upper,
        verdict: verdict.into(),
    };
    Ok((record, [s.score.value, s.score.interval.low, s.score.interval.high]))
}

/// `elo.csv` (against the main anchor), `elo_anchors.csv` (one row per
/// generation and anchor), `elo.svg` and `summary.md` from the state.
fn write_reports(config: &LoopConfig, out: &Path, state: &LoopState) -> Result<()> {
    let done: Vec<&Generation> = state.generations.iter().filter(|g| g.done).collect();
    // The configured anchors, then any a resumed run no longer rates.
    let mut anchors: Vec<&str> = config.evaluate.anchors();
    for a in done.iter().flat_map(|g| &g.elo_vs_more) {
        if !anchors.contains(&a.anchor.as_str()) {
            anchors.push(&a.anchor);
        }
    }
    let mut csv = String::from(
        "generation,minutes,net,promoted,score_vs_best,elo_vs_anchor,elo_low,elo_high,train_step,selfplay_games,resign_threshold,false_resign_rate\n",
    );
    let mut long_csv = String::from("generation,minutes,anchor,elo,elo_low,elo_high\n");
    let elo_columns: String = anchors.iter().map(|a| format!(" Elo vs `{a}` |")).collect();
    let mut md = format!(
        "# junqi loop: {}\n\nElo against each anchor (0 = as strong as that anchor), 95% intervals from paired games.\n\n\
         | gen | minutes | net | score vs best | promoted |{elo_columns} step | self-play games | resign threshold, false resignations |\n\
         |---|---|---|---|---|{}---|---|---|\n",
        out.display(),
        "---|".repeat(anchors.len()),
    );
    let mut series: Vec<(String, Vec<ChartPoint>)> = anchors.iter().map(|a| (a.to_string(), Vec::new())).collect();
    for g in done {
        let mut score = match g.score_vs_best {
            Some(s) => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * s[0], 100.0 * s[1], 100.0 * s[2]),
            _ => "(first net)".into(),
        };
        let resign = match (g.resign_threshold, g.resign.false_rate()) {
            (Some(t), Some(r)) => format!("{t:.2}, {:.0}% of {}", 100.0 * r, g.resign.signalled),
            (Some(t), None) => format!("{t:.2}, none signalled"),
            _ => String::new(),
        };
        if let Some(t) = &g.gate {
            score.push_str(&format!(", SPRT {} after {} games (LLR {:.2})", t.verdict, t.games, t.llr));
        }
        let mut elo = String::new();
        for (anchor, points) in series.iter_mut() {
            let rated = g.elo_against(config, anchor);
            if let Some(e) = rated {
                elo += &format!(" {:+.0} [{:+.0}, {:+.0}] |", e[0], e[1], e[2]);
                long_csv += &format!("{},{:.2},\"{anchor}\",{:.1},{:.1},{:.1}\n", g.index, g.minutes, e[0], e[1], e[2]);
                points.push(ChartPoint { minutes: g.minutes, elo: e, generation: g.index });
            } else {
                elo += " |";
            }
        }
        let e = g.elo_vs_anchor.map(|e| e.map(|x| format!("{x:.1}"))).unwrap_or_default();
        csv.push_str(&format!(
            "{},{:.2},{},{},{},{},{},{},{},{},{},{}\n",
            g.index,
            g.minutes,
            g.net.clone().unwrap_or_default(),
            g.promoted,
            g.score_vs_best.map(|s| format!("{:.4}", s[0])).unwrap_or_default(),
            e[0],
            e[1],
            e[2],
            g.train_step,
            g.selfplay_games,
            g.resign_threshold.map(|t| format!("{t:.2}")).unwrap_or_default(),
            g.resign.false_rate().map(|r| format!("{r:.4}")).unwrap_or_default(),
        ));
        md.push_str(&format!(
            "| {} | {:.1} | {} | {score} | {} |{elo} {} | {} | {resign} |\n",
            g.index,
            g.minutes,
            g.net.clone().unwrap_or_default(),
            if g.promoted { "yes" } else { "no" },
            g.train_step,
            g.selfplay_games
        ));
    }
    if let Some(best) = &state.best {
        md.push_str(&format!("\nBest net: `{best}`.\n"));
    }
    let write = |name: &str, text: &str| {
        junqi_arena::write_atomic(&out.join(name), text).map_err(|e| TrainError::Config(e.to_string()))
    };
    write("elo.csv", &csv)?;
    write("elo_anchors.csv", &long_csv)?;
    write("summary.md", &md)?;
    write("elo.svg", &elo_chart(&series))?;
    Ok(())
}

/// A generation's Elo against one anchor, as the chart draws it.
struct ChartPoint {
    minutes: f64,
    /// Estimate, low, high.
    elo: [f64; 3],
    generation: u32,
}

/// Line colours of the chart's anchors, in order (then repeated).
const CHART_COLOURS: [&str; 5] = ["#36c", "#d62", "#393", "#939", "#777"];

/// Elo against each anchor (y, with 95% bars) over minutes of training
/// (x): one coloured line per anchor, a legend at the top left.
fn elo_chart(series: &[(String, Vec<ChartPoint>)]) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 360.0, 60.0, 20.0, 40.0, 50.0);
    let all = || series.iter().flat_map(|(_, p)| p);
    let x_max = all().map(|p| p.minutes).fold(1.0f64, f64::max) * 1.05;
    let y_lo = all().map(|p| p.elo[1]).fold(0.0f64, f64::min).max(-1500.0);
    let y_hi = all().map(|p| p.elo[2]).fold(0.0f64, f64::max).min(1500.0);
    let pad = ((y_hi - y_lo) * 0.08).max(20.0);
    let (y_lo, y_hi) = (y_lo - pad, y_hi + pad + 14.0 * series.len() as f64);
    let x = |m: f64| left + (w - left - right) * m / x_max;
    let y = |e: f64| top + (h - top - bottom) * (1.0 - (e.clamp(y_lo, y_hi) - y_lo) / (y_hi - y_lo));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">Elo of each generation's net against the anchors (95% intervals)</text>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">minutes of the loop</text>\n",
        w / 2.0,
        y(0.0),
        w - right,
        y(0.0),
        h - bottom,
        h - bottom,
        w - right,
        h - bottom,
        (left + w - right) / 2.0,
        h - 12.0,
    );
    for k in 0..=4 {
        let e = y_lo + (y_hi - y_lo) * k as f64 / 4.0;
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{:+.0}</text>\n",
            left - 6.0,
            y(e) + 4.0,
            e
        ));
        let m = x_max * k as f64 / 4.0;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{:.0}</text>\n",
            x(m),
            h - bottom + 16.0,
            m
        ));
    }
    for (k, (anchor, points)) in series.iter().enumerate() {
        let colour = CHART_COLOURS[k % CHART_COLOURS.len()];
        // Each anchor's bars a few pixels apart, so equal minutes do not hide one another.
        let dx = 4.0 * k as f64;
        let legend_y = top + 14.0 * (k as f64 + 1.0);
        s.push_str(&format!(
            "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>\n\
             <text x=\"{3}\" y=\"{4:.1}\">vs {5}</text>\n",
            left + 10.0,
            legend_y - 4.0,
            left + 30.0,
            left + 36.0,
            legend_y,
            junqi_arena::svg::escape(anchor)
        ));
        let path: Vec<String> = points.iter().map(|p| format!("{:.1},{:.1}", x(p.minutes) + dx, y(p.elo[0]))).collect();
        if !path.is_empty() {
            s.push_str(&format!("<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\"/>\n", path.join(" ")));
        }
        for p in points {
            s.push_str(&format!(
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"{colour}\"/>\n\
                 <circle cx=\"{0:.1}\" cy=\"{3:.1}\" r=\"4\" fill=\"{colour}\"/>\n\
                 <text x=\"{4:.1}\" y=\"{5:.1}\" font-size=\"10\">g{6}</text>\n",
                x(p.minutes) + dx,
                y(p.elo[1]),
                y(p.elo[2]),
                y(p.elo[0]),
                x(p.minutes) + dx + 5.0,
                y(p.elo[0]) - 5.0,
                p.generation
            ));
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_levels(
        index: u32,
        lost: [u64; junqi_selfplay::LEVEL_BINS],
        not_lost: [u64; junqi_selfplay::LEVEL_BINS],
    ) -> Generation {
        let resign = junqi_selfplay::ResignTally { lost_at: lost, not_lost_at: not_lost, ..Default::default() };
        Generation { index, resign, done: true, ..Default::default() }
    }

    #[test]
    fn the_resign_threshold_calibrates_on_the_window_once_there_is_enough_data() {
        let mut config = LoopConfig { window_generations: 2, ..LoopConfig::default() };
        config.selfplay.resign_false_rate = 0.05;
        let mut state = LoopState::default();
        // No data: the fixed threshold.
        assert_eq!(resign_threshold(&config, &state, 1, -0.9), -0.9);
        // Generation 0: 30 sides at level -0.99, all lost; 30 at -0.69, half lost.
        let (mut lost, mut not_lost) = ([0; junqi_selfplay::LEVEL_BINS], [0; junqi_selfplay::LEVEL_BINS]);
        lost[0] = 30;
        lost[15] = 15;
        not_lost[15] = 15;
        state.generations.push(with_levels(0, lost, not_lost));
        // Up to -0.7 every would-be resignation was right; above it 25% were false.
        let t = resign_threshold(&config, &state, 1, -0.9);
        assert!((t - -0.7).abs() < 1e-9, "{t}");
        // With no target rate it stays fixed.
        config.selfplay.resign_false_rate = 0.0;
        assert_eq!(resign_threshold(&config, &state, 1, -0.9), -0.9);
        config.selfplay.resign_false_rate = 0.05;
        // Generations outside the window do not count.
        assert_eq!(resign_threshold(&config, &state, 3, -0.9), -0.9);
        // When even the lowest threshold is too often wrong: the lowest.
        let mut bad = [0; junqi_selfplay::LEVEL_BINS];
        bad[0] = 30;
        state.generations.push(with_levels(1, [0; junqi_selfplay::LEVEL_BINS], bad));
        let t = resign_threshold(&config, &state, 2, -0.9);
        assert!((t - -0.98).abs() < 1e-9, "{t}");
    }
}
