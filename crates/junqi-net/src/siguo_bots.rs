//! The four-player net player: `net:FILE` (or `net:path=FILE`) in
//! `arena --siguo` and `sprt --siguo`, registered with `junqi-siguo`'s agent
//! registry by [`crate::register_net_bots`]. It plays the most probable
//! legal move of a four-player net's policy ([`SiguoCpuNet`]) at `temp=0`
//! (the default), else one drawn ∝ p^(1/temp) (`net:path=FILE,temp=T`, as
//! the two-player net bot), for varied games. (A temperature did not
//! remove generation 2's draws against `random`: those were endgames the
//! policy did not convert, not a loop of the argmax; BENCHMARKS.md. The
//! DAgger round that made today's `net:siguo` did.) Its move is
//! computed from its seat's [`SiguoInfoSet`]
//! alone: that is all [`SiguoAgent::choose`] and [`SiguoBot::choose`] are
//! given, so it cannot read a hidden kind.
//!
//! The same net guides the four-player search as its leaf evaluator,
//! `mcts:sims=N,eval=net:FILE` ([`SiguoNetEvaluator`], registered with
//! `junqi_siguo::register_siguo_evaluator` by [`crate::register_net_bots`]):
//! it is handed the information set of the army to move at a new node and
//! answers the policy over that army's legal moves and its team's expected
//! score (win + ½ draw). A net with a belief head also answers the
//! search's [`SiguoEvaluator::belief`]: the head's kind probabilities for
//! the searching seat's information set, by absolute node, through which
//! the search draws its worlds.
//!
//! A net file with a learned deployment model (`deploy.*`, fitted by
//! `junqi-train`'s `siguo_deployments`) deploys its armies by it, the
//! player as [`SiguoBot::deploy`] and the search through its evaluator:
//! each army's zone is the two-player half (docs/rules.md §10.5), so the
//! two-player [`DeploymentModel`] chooses on Red's half. Without a model
//! the armies keep the deal's deployments, as before.
//!
//! Every player of the same file shares one loaded net and its batching
//! inference service ([`shared_siguo_net`], in the same per-file registry
//! as the two-player nets' services): the positions of every game in
//! flight, on every thread, share its batches and its evaluation cache
//! (keyed by the seat's observation code, legal actions and whether the
//! belief is asked). A two-player net is refused by name, as the two-player
//! `net:` bot refuses a four-player one.

use crate::cpu::siguo::{SiguoCpuNet, SiguoEvaluation, SiguoInput};
use crate::service::{CpuBackend, InferenceService, ServiceOptions, StatsSnapshot};
use crate::{inference_settings, resolve_net_path, ModelConfig, NetError, NetFile, NetGame};
use junqi_bots::mcts::sample_at_temperature;
use junqi_bots::{BotSpec, DeploymentModel};
use junqi_core::{Deployment, GameRng, KindBelief};
use junqi_siguo::{
    belief_by_node, Army, LeafEstimate, Move, Rules, SiguoAgent, SiguoBot, SiguoEvaluator, SiguoInfoSet,
};
use rand::RngCore;
use std::path::Path;
use std::sync::Arc;

/// A four-player net as its players ask it: its inference service and its
/// shape. Cheap to clone (clones share the service).
#[derive(Clone)]
pub struct SiguoNet {
    service: InferenceService<SiguoInput>,
    model: ModelConfig,
    /// The file's learned deployment model, if any.
    deployer: Option<Arc<DeploymentModel>>,
}

impl std::fmt::Debug for SiguoNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiguoNet").field("model", &self.model).field("service", &self.service.describe()).finish()
    }
}

impl SiguoNet {
    /// `net` behind a service of its own, started with `options` (players
    /// of a file share the registry's instead: [`shared_siguo_net`]).
    pub fn serving(net: Arc<SiguoCpuNet>, options: &ServiceOptions) -> Result<SiguoNet, NetError> {
        let model = net.model().clone();
        Ok(SiguoNet { service: InferenceService::start(CpuBackend::factory(net), options)?, model, deployer: None })
    }

    /// The net deploying by `deployer` (its file's learned model).
    pub fn with_deployer(mut self, deployer: Option<DeploymentModel>) -> SiguoNet {
        self.deployer = deployer.map(Arc::new);
        self
    }

    /// The learned deployment model its players deploy by, if any.
    pub fn deployer(&self) -> Option<&DeploymentModel> {
        self.deployer.as_deref()
    }

    /// A deployment by the learned model (any army: each deploys on Red's
    /// half); `None` without one, so the army keeps the deal's.
    fn deploy(&self, rng: &mut dyn RngCore) -> Option<Deployment> {
        self.deployer().map(|m| m.choose_red_half(rng))
    }

    pub fn model(&self) -> &ModelConfig {
        &self.model
    }

    pub fn service(&self) -> &InferenceService<SiguoInput> {
        &self.service
    }

    /// The service's counters.
    pub fn stats(&self) -> StatsSnapshot {
        self.service.stats()
    }

    /// The net's answer for `info`'s seat through the service (as
    /// [`SiguoCpuNet::evaluate`] computes it), waiting for it.
    pub fn evaluate(&self, info: &SiguoInfoSet, belief: bool) -> SiguoEvaluation {
        let (input, moves) = SiguoInput::of(info, belief);
        SiguoEvaluation { moves, evaluation: self.service.evaluate(input) }
    }
}

/// A four-player net playing its policy's most probable legal move, or
/// one drawn at a temperature.
#[derive(Clone, Debug)]
pub struct SiguoNetPlayer {
    net: SiguoNet,
    name: String,
    /// 0: the most probable move; else drawn ∝ p^(1/temp).
    temp: f32,
    /// As an agent (which is given no stream at each move), the stream its
    /// draws come from, seeded by [`SiguoAgent::start`].
    rng: Option<GameRng>,
    /// The net's policy at the last move ([`SiguoBot::last_policy`]), so
    /// that self-play samples of a plain net keep its whole distribution
    /// (a target to distil or reshape), not only the move it played.
    last: Option<Vec<(Move, f32)>>,
}

impl SiguoNetPlayer {
    /// The player of `net` at temperature 0, called `name` (its spec).
    pub fn new(net: SiguoNet, name: impl Into<String>) -> SiguoNetPlayer {
        SiguoNetPlayer { net, name: name.into(), temp: 0.0, rng: None, last: None }
    }

    /// The same player drawing its moves at temperature `temp` (0: the most probable).
    pub fn with_temperature(mut self, temp: f32) -> SiguoNetPlayer {
        self.temp = temp;
        self
    }

    /// The most probable legal move of `info`'s seat (the first of equals,
    /// in move-generation order); `None` when it has none.
    pub fn best_move(&mut self, info: &SiguoInfoSet) -> Option<Move> {
        let policy = self.policy(info)?;
        let best = (0..policy.len()).fold(0, |b, i| if policy[b].1 >= policy[i].1 { b } else { i });
        Some(policy[best].0)
    }

    /// The net's policy over `info`'s seat's legal moves (`None` when it
    /// has none), kept as the player's last policy.
    fn policy(&mut self, info: &SiguoInfoSet) -> Option<&[(Move, f32)]> {
        let answer = self.net.evaluate(info, false);
        let policy: Vec<(Move, f32)> = answer.moves.into_iter().zip(answer.evaluation.priors).collect();
        self.last = (!policy.is_empty()).then_some(policy);
        self.last.as_deref()
    }

    /// The player's move for `info`'s seat: the most probable at
    /// temperature 0 (drawing nothing from `rng`), else one drawn from `rng`.
    fn play<R: rand::Rng + ?Sized>(&mut self, info: &SiguoInfoSet, rng: &mut R) -> Option<Move> {
        if self.temp == 0.0 {
            return self.best_move(info);
        }
        let temp = self.temp;
        self.policy(info).map(|policy| sample_at_temperature(policy, temp, rng))
    }
}

impl SiguoBot for SiguoNetPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        self.play(info, rng)
    }

    fn last_policy(&self) -> Option<Vec<(Move, f32)>> {
        self.last.clone()
    }

    fn deploy(&mut self, _army: Army, _rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        self.net.deploy(rng)
    }
}

impl SiguoAgent for SiguoNetPlayer {
    fn start(&mut self, _rules: &Rules, _seat: Army, rng: &mut dyn RngCore) -> Result<(), String> {
        self.rng = Some(junqi_core::rng_from_seed(rng.next_u64()));
        Ok(())
    }

    /// By the file's learned deployment model, drawn from the agent's own
    /// stream (as a bot, [`SiguoBot::deploy`], it draws from the army's
    /// deployment stream of the deal; the arena builds a net spec as a bot).
    fn deploy(&mut self) -> Result<Option<Deployment>, String> {
        let mut rng = self.rng.take().unwrap_or_else(|| junqi_core::rng_from_seed(0));
        let deployment = self.net.deploy(&mut rng);
        self.rng = Some(rng);
        Ok(deployment)
    }

    fn begin(&mut self, _info: &SiguoInfoSet) {}

    fn observe(&mut self, _announcement: &junqi_siguo::Announcement) {}

    fn choose(&mut self, info: &SiguoInfoSet) -> Result<Move, String> {
        let mut rng = self.rng.take().unwrap_or_else(|| junqi_core::rng_from_seed(0));
        let chosen = self.play(info, &mut rng);
        self.rng = Some(rng);
        chosen.ok_or_else(|| format!("{}: no legal move for {}", self.name, info.seat()))
    }
}

/// The four-player net at `path` behind its service, read and started once
/// per process (the registry of [`crate::shared_net`]; the inference
/// settings' batching and cache, always the CPU engine), with the file's
/// learned deployment model.
pub fn shared_siguo_net(path: &Path) -> Result<SiguoNet, NetError> {
    crate::bots::shared_siguo(path, |canonical| {
        let file = NetFile::read_game(canonical, NetGame::Siguo)?;
        let deployer = file.deployment_model()?;
        let net = SiguoNet::serving(Arc::new(SiguoCpuNet::from_file(&file)?), &inference_settings().options)?;
        Ok(net.with_deployer(deployer))
    })
}

/// The four-player net of a `net:FILE` spec whose keys are among `keys`
/// (`None` for a spec of another bot), with the parsed spec.
fn siguo_net_of(spec: &str, keys: &[&str]) -> Option<Result<(SiguoNet, BotSpec), String>> {
    let parsed = BotSpec::parse(spec).ok().filter(|s| s.name == "net")?;
    Some((|| {
        parsed.check_keys(keys).map_err(|e| e.to_string())?;
        let file =
            parsed.get("path").ok_or("net: give the net's file, or `net:siguo` (the shipped four-player net)")?;
        let net = shared_siguo_net(&resolve_net_path(file)).map_err(|e| e.to_string())?;
        Ok((net, parsed))
    })())
}

/// The player of a `net:FILE` or `net:path=FILE,temp=T` spec (`None` for
/// a spec of another bot).
pub fn siguo_net_player(spec: &str) -> Option<Result<SiguoNetPlayer, String>> {
    siguo_net_of(spec, &["path", "temp"]).map(|net| {
        let (net, parsed) = net?;
        let temp = parsed.non_negative("temp", 0.0).map_err(|e| e.to_string())?;
        Ok(SiguoNetPlayer::new(net, spec.trim()).with_temperature(temp))
    })
}

/// A four-player net as the search's leaf evaluator (`eval=net:FILE`).
#[derive(Clone, Debug)]
pub struct SiguoNetEvaluator {
    net: SiguoNet,
    name: String,
    /// The root's estimate from the forward pass that answered its belief
    /// (the search asks the belief first), for the root's evaluation next.
    root: Option<(SiguoInfoSet, LeafEstimate)>,
}

impl SiguoNetEvaluator {
    /// The evaluator of `net`, called `name` (its spec, `net:FILE`).
    pub fn new(net: SiguoNet, name: impl Into<String>) -> SiguoNetEvaluator {
        SiguoNetEvaluator { net, name: name.into(), root: None }
    }
}

impl SiguoEvaluator for SiguoNetEvaluator {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The policy over `info`'s seat's legal moves and its team's expected
    /// score from the net's win/draw/loss (win + ½ draw).
    fn evaluate(&mut self, info: &SiguoInfoSet) -> LeafEstimate {
        if let Some((root, estimate)) = self.root.take() {
            if &root == info {
                return estimate;
            }
        }
        leaf_estimate(self.net.evaluate(info, false))
    }

    /// The belief head's kinds for `info`'s seat, by absolute node; `None`
    /// for a net without the head. The same forward pass gives `info`'s
    /// estimate, kept for its evaluation (the search's root) so the root
    /// costs one pass, not two.
    fn belief(&mut self, info: &SiguoInfoSet) -> Option<KindBelief> {
        if !self.net.model().belief {
            return None;
        }
        let answer = self.net.evaluate(info, true);
        let belief = answer.evaluation.belief.as_ref().map(|probs| belief_by_node(info.seat(), probs));
        self.root = Some((info.clone(), leaf_estimate(answer)));
        belief
    }

    /// The net's learned deployment, which the search deploys by.
    fn deploy(&mut self, _army: Army, _rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        self.net.deploy(rng)
    }
}

/// A net's answer as the search's estimate: the policy over the seat's legal
/// moves and its team's expected score from the win/draw/loss (win + ½ draw).
fn leaf_estimate(answer: SiguoEvaluation) -> LeafEstimate {
    let [win, draw, _] = answer.evaluation.wdl;
    LeafEstimate {
        priors: answer.moves.into_iter().zip(answer.evaluation.priors).collect(),
        value: (win + 0.5 * draw) as f64,
    }
}

/// The evaluator factory registered with `junqi_siguo::register_siguo_evaluator`.
pub(crate) fn build_siguo_evaluator(spec: &str) -> Option<Result<Box<dyn SiguoEvaluator>, String>> {
    siguo_net_of(spec, &["path"])
        .map(|net| net.map(|(net, _)| Box::new(SiguoNetEvaluator::new(net, spec.trim())) as Box<dyn SiguoEvaluator>))
}

/// The bot factory registered with `junqi_siguo::register_siguo_bot`
/// (`selfplay --siguo --bots net:FILE,…`).
pub(crate) fn build_siguo_bot(spec: &str) -> Option<Result<Box<dyn SiguoBot>, String>> {
    siguo_net_player(spec).map(|p| p.map(|p| Box::new(p) as Box<dyn SiguoBot>))
}

/// The agent factory registered with `junqi_siguo::register_siguo_agent`.
pub(crate) fn build_siguo_agent(spec: &str, _rules: &Rules) -> Option<Result<Box<dyn SiguoAgent>, String>> {
    siguo_net_player(spec).map(|p| p.map(|p| Box::new(p) as Box<dyn SiguoAgent>))
}
