//! The network bots, registered with `junqi-bots` so every command that
//! takes a bot spec knows them:
//!
//! * `net:FILE` / `net:path=FILE,temp=T`: plays from the policy head, the
//!   most probable action at `temp=0` (the default), else sampled
//!   ∝ p^(1/temp).
//! * `mcts:sims=N,…,eval=net:FILE`: the information-set search with the
//!   net's priors (PUCT) and values (P(win) − P(loss)) at its leaves; in
//!   暗棋, with a net that has a belief head, its worlds are drawn from the
//!   head's belief about the enemy's kinds.
//!
//! Either net spec takes `precision=fp32|bf16|int8|fp16` (default `fp32`,
//! [`NetPrecision`]): the arithmetic of the CPU engine's trunk
//! ([`Precision`]), where the CPU has the instructions (else FP32;
//! `JUNQI_CPU_FEATURES=none` forces it; fp16 is refused there). Each
//! precision of a file has its own service and cache. A backend other than
//! the CPU engine (libtorch on a GPU) gets it too ([`BackendMaker`]).
//!
//! Both deploy (暗棋/明棋) with the learned deployment model stored in the
//! net file when it has one ([`NetExtras`]), else as `heuristic`.
//!
//! `FILE` is an exported net or a checkpoint, or the name of a shipped net:
//! `fanqi`, `anqi`, or `default`, which plays the shipped net of the mode
//! being played ([`default_net_for`]). Every bot on the same file shares
//! that file's [`InferenceService`] (one per file per process), so the
//! positions of all games in flight share its batches and its cache.

use crate::service::{BackendFactory, CpuBackend, InferenceService, ServiceOptions, StatsSnapshot, Ticket};
use crate::siguo_bots::SiguoNet;
use crate::{CpuNet, Evaluation, NetError, NetFile, NetInput, Precision, BELIEF_KINDS};
use junqi_bots::mcts::{sample_at_temperature, RolloutEvaluator};
use junqi_bots::{
    deploy_with, register_bot, spec_value, Agent, BotSpec, BotSpecError, Decision, DeploymentModel, LeafEvaluator,
    LeafValue, Mcts, MctsConfig, Player,
};
use junqi_core::{
    Colour, Deployment, GameRng, InfoSet, KindBelief, Mode, Move, MoveList, Position, Rules, Seat, Square,
};
use junqi_env::{square_to_frame, ObsCode};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::task::Poll;

/// The shipped 翻棋 net, relative to the repository root: the net that plays
/// to win (issue 40), a copy of [`FANQI_DECISIVE_NET`]. Its plain policy
/// beats `heuristic` by about +110 Elo with under half the games drawn.
pub const FANQI_NET: &str = "data/nets/fanqi.safetensors";
/// The shipped 翻棋 net until 2026-12-05 (`net:fanqi-policy`): 4×64, trained
/// on the 128-simulation Gumbel search of `net:fanqi-gumbel`
/// (`configs/train/distill-gumbel128-q5k.toml`), before the history planes.
pub const FANQI_POLICY_NET: &str = "data/nets/fanqi-policy/net.safetensors";
/// The shipped 暗棋 net (belief head, learned deployments, history planes):
/// [`ANQI_Q_NET`] widened to the history planes and trained on 600 games of
/// its own search (`configs/train/anqi-decisive-r1.toml`), a copy of
/// `data/nets/anqi-decisive-r1/net.safetensors`.
pub const ANQI_NET: &str = "data/nets/anqi.safetensors";
/// The shipped 暗棋 net until 2026-12-05 (`net:anqi-q`): the last net of the
/// loop `configs/loop/anqi-q.toml`.
pub const ANQI_Q_NET: &str = "data/nets/anqi-q/net.safetensors";
/// The shipped nets by name (`net:NAME`), relative to the repository root.
/// `default` names the 翻棋 net where no mode is known (e.g. `junqi bench
/// --net default`); a bot `net:default` plays [`default_net_for`] its game's mode.
/// The other names keep earlier nets that configs and reports name:
/// `fanqi-policy` is [`FANQI_POLICY_NET`], `net:fanqi` until 2026-12-05;
/// `fanqi-gumbel` is the best net of the Gumbel loop (`net:fanqi` before
/// it, the teacher of `configs/train/distill-gumbel*.toml`);
/// `fanqi-decisive` is [`FANQI_DECISIVE_NET`], today's `fanqi` under the
/// name of its directory of reports; `fanqi-1h-bilinear` is the
/// one-hour loop's net, where the Gumbel loop started; `anqi-q` is
/// [`ANQI_Q_NET`]; `anqi-distilled` is the 暗棋 net distilled from
/// `mcts:3200`, where the loop that made `net:anqi-q` started; `siguo` is
/// [`SIGUO_NET`], the four-player net (its bots are four-player bots). A loop
/// config names these rather than a path, which would depend on the
/// working directory.
pub const SHIPPED_NETS: [(&str, &str); 10] = [
    ("default", FANQI_NET),
    ("fanqi", FANQI_NET),
    ("anqi", ANQI_NET),
    ("fanqi-policy", FANQI_POLICY_NET),
    ("fanqi-gumbel", "data/nets/fanqi-gumbel/net-005.safetensors"),
    ("fanqi-1h-bilinear", "data/nets/fanqi-1h-bilinear.safetensors"),
    ("anqi-distilled", ANQI_DISTILLED_NET),
    ("fanqi-decisive", FANQI_DECISIVE_NET),
    ("anqi-q", ANQI_Q_NET),
    ("siguo", SIGUO_NET),
];
/// The 四国暗棋 net (issue 44): generation 2 of `configs/loop/siguo.toml`
/// from nothing after one DAgger round (`scripts/siguo-recipe.sh`), a 2×32
/// net with a belief head and learned deployments; `net:siguo` in `selfplay --siguo`, `arena
/// --siguo`, `play --siguo` and the search's `eval=net:siguo`.
pub const SIGUO_NET: &str = "data/nets/siguo/net.safetensors";
/// The 翻棋 net that plays to win (issue 40): `net:fanqi` widened to the
/// history planes, four rounds of its own search with the quiet-counter
/// value target, and a policy target that damps the way back
/// (`configs/train/history-fanqi-quiet-r4-return1.toml`); its plain policy
/// beats `heuristic` by about +110 Elo with under half the games drawn.
/// The same bytes as [`FANQI_NET`] since it became the shipped net.
pub const FANQI_DECISIVE_NET: &str = "data/nets/fanqi-history-quiet-r4-return1/net.safetensors";
/// The 暗棋 net distilled from `mcts:3200` (BENCHMARKS.md, "A value target
/// from the teacher's search"): no learned deployments.
pub const ANQI_DISTILLED_NET: &str = "data/nets/anqi-mcts3200-q/net.safetensors";

/// The shipped net `net:default` plays in `mode`: the 翻棋 net in 翻棋; the
/// 暗棋 net in 暗棋 and in 明棋, whose games also start from two deployed
/// armies (the 翻棋 net has never seen one, nor can it deploy).
pub fn default_net_for(mode: Mode) -> &'static str {
    match mode {
        Mode::Fanqi => "fanqi",
        Mode::Anqi | Mode::Mingqi => "anqi",
    }
}

/// Make `net:…` and `mcts:…,eval=net:…` specs known to [`junqi_bots::from_spec`],
/// `net:FILE` a four-player agent ([`crate::siguo_bots`]) to
/// `junqi_siguo::build_agent` and a four-player bot to
/// `junqi_siguo::bot_from_spec` (`selfplay --siguo`), and `eval=net:FILE` a four-player search's
/// leaf evaluator (`mcts:sims=N,eval=net:FILE`, to `junqi_siguo::bot_from_spec`).
pub fn register_net_bots() {
    register_bot("net", build);
    junqi_siguo::register_siguo_agent(crate::siguo_bots::build_siguo_agent);
    junqi_siguo::register_siguo_bot(crate::siguo_bots::build_siguo_bot);
    junqi_siguo::register_siguo_evaluator(crate::siguo_bots::build_siguo_evaluator);
}

/// Where `net:NAME` or `net:FILE` points: a name of [`SHIPPED_NETS`]
/// is that file under the working directory,
/// else under the repository this binary was built from; anything else is
/// a path.
pub fn resolve_net_path(file: &str) -> PathBuf {
    let Some(&(_, shipped)) = SHIPPED_NETS.iter().find(|(name, _)| *name == file) else {
        return PathBuf::from(file);
    };
    let here = PathBuf::from(shipped);
    if here.exists() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(shipped)
}

/// Makes the backend of a net file's service in a spec's precision, for a
/// backend other than the CPU engine (`junqi-train` installs libtorch's for
/// `--device cuda`).
pub type BackendMaker = Arc<dyn Fn(&Path, NetPrecision) -> Result<BackendFactory, NetError> + Send + Sync>;

/// A net spec's `precision`: the CPU engine's [`Precision`]s, and fp16,
/// which only libtorch on a GPU runs (the CPU engine has no fp16 kernels:
/// a spec is refused, [`shared_net_in`] runs FP32).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NetPrecision {
    #[default]
    Fp32,
    Bf16,
    Int8,
    Fp16,
}

impl NetPrecision {
    pub const ALL: [NetPrecision; 4] = [NetPrecision::Fp32, NetPrecision::Bf16, NetPrecision::Int8, NetPrecision::Fp16];

    pub fn name(self) -> &'static str {
        match self {
            NetPrecision::Fp16 => "fp16",
            p => p.engine().name(),
        }
    }

    /// What the CPU engine runs for it.
    pub fn engine(self) -> Precision {
        match self {
            NetPrecision::Fp32 | NetPrecision::Fp16 => Precision::Fp32,
            NetPrecision::Bf16 => Precision::Bf16,
            NetPrecision::Int8 => Precision::Int8,
        }
    }
}

impl From<Precision> for NetPrecision {
    fn from(p: Precision) -> NetPrecision {
        match p {
            Precision::Fp32 => NetPrecision::Fp32,
            Precision::Bf16 => NetPrecision::Bf16,
            Precision::Int8 => NetPrecision::Int8,
        }
    }
}

impl std::fmt::Display for NetPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for NetPrecision {
    type Err = String;
    fn from_str(s: &str) -> Result<NetPrecision, String> {
        NetPrecision::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("expected fp32, bf16, int8 or fp16, got `{s}`"))
    }
}

/// How services started from now on run: batching and cache, and the backend.
#[derive(Clone, Default)]
pub struct InferenceSettings {
    pub options: ServiceOptions,
    /// `None`: the CPU engine ([`CpuNet`]).
    pub backend: Option<BackendMaker>,
}

static SETTINGS: Mutex<Option<InferenceSettings>> = Mutex::new(None);

/// Every net file loaded in this process, of either game, each behind its
/// one service.
#[derive(Default)]
struct Registry {
    /// Two-player nets' services and extras, by canonical path and precision.
    two_player: HashMap<(PathBuf, NetPrecision), (InferenceService, NetExtras)>,
    /// Four-player nets (FP32 only), by canonical path.
    four_player: HashMap<PathBuf, SiguoNet>,
}

static NETS: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

/// The registry, locked.
fn registry() -> MutexGuard<'static, Registry> {
    NETS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The four-player net at `path` from the registry, `load`ed (from its
/// canonical path) on first use.
pub(crate) fn shared_siguo(
    path: &Path,
    load: impl FnOnce(&Path) -> Result<SiguoNet, NetError>,
) -> Result<SiguoNet, NetError> {
    let canonical = std::fs::canonicalize(path).map_err(NetError::io(path))?;
    let mut nets = registry();
    if let Some(net) = nets.four_player.get(&canonical) {
        return Ok(net.clone());
    }
    let net = load(&canonical)?;
    nets.four_player.insert(canonical, net.clone());
    Ok(net)
}

/// Set how nets loaded from now on are served (the CLI's `--device` and
/// inference options).
pub fn set_inference_settings(settings: InferenceSettings) {
    *SETTINGS.lock().unwrap_or_else(|e| e.into_inner()) = Some(settings);
}

/// The settings in force.
pub fn inference_settings() -> InferenceSettings {
    SETTINGS.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default()
}

/// What a net file holds besides the weights its service runs.
#[derive(Clone, Debug, Default)]
pub struct NetExtras {
    /// The learned deployment model, if any.
    pub deployer: Option<Arc<DeploymentModel>>,
    /// Whether the net has a belief head.
    pub belief: bool,
}

/// The shared service of the net at `path`, started on first use, and
/// what else the file holds (the file is read once per process).
pub fn shared_net(path: &Path) -> Result<(InferenceService, NetExtras), NetError> {
    shared_net_in(path, NetPrecision::Fp32)
}

/// [`shared_net`] in `precision` (one service per file and precision).
pub fn shared_net_in(
    path: &Path,
    precision: impl Into<NetPrecision>,
) -> Result<(InferenceService, NetExtras), NetError> {
    let precision = precision.into();
    let canonical = std::fs::canonicalize(path).map_err(NetError::io(path))?;
    let key = (canonical.clone(), precision);
    let mut registry = registry();
    let nets = &mut registry.two_player;
    if let Some(n) = nets.get(&key) {
        return Ok(n.clone());
    }
    let file = NetFile::read(&canonical)?;
    let extras = NetExtras { deployer: file.deployment_model()?.map(Arc::new), belief: file.model.belief };
    let settings = inference_settings();
    let factory = match &settings.backend {
        None => CpuBackend::factory(Arc::new(CpuNet::from_file(&file)?.with_precision(precision.engine()))),
        Some(make) => make(&canonical, precision)?,
    };
    let mut service = InferenceService::start(factory, &settings.options)?;
    if !file.model.reads_history() {
        service = service.ignoring_history();
    }
    let net = (service, extras);
    nets.insert(key, net.clone());
    Ok(net)
}

/// The shared service of the net at `path` ([`shared_net`] without the extras).
pub fn shared_service(path: &Path) -> Result<InferenceService, NetError> {
    shared_net(path).map(|(service, _)| service)
}

/// Forget the services of both games (their threads end once no bot uses
/// them), e.g. between generations of the training loop.
pub fn release_shared_services() {
    *registry() = Registry::default();
}

/// Counters summed over the services of both games running now.
pub fn shared_stats() -> StatsSnapshot {
    let nets = registry();
    let two = nets.two_player.values().map(|(s, _)| s.stats());
    two.chain(nets.four_player.values().map(SiguoNet::stats)).fold(StatsSnapshot::default(), |acc, s| acc.plus(&s))
}

/// The service(s) a bot's net runs on: one file's, or for `net:default`
/// the shipped net of each mode, chosen per position.
#[derive(Clone)]
enum Served {
    One(InferenceService),
    ByMode { fanqi: InferenceService, anqi: InferenceService },
}

impl Served {
    /// Whether a net it serves reads the history planes.
    fn reads_history(&self) -> bool {
        match self {
            Served::One(service) => service.reads_history(),
            Served::ByMode { fanqi, anqi } => fanqi.reads_history() || anqi.reads_history(),
        }
    }

    fn service(&self, mode: Mode) -> &InferenceService {
        match self {
            Served::One(service) => service,
            Served::ByMode { fanqi, anqi } => match default_net_for(mode) {
                "fanqi" => fanqi,
                _ => anqi,
            },
        }
    }
}

/// [`shared_net`] of net `file` (a name or a path), errors as the spec's.
/// `default` loads both shipped nets; its extras are the 暗棋 net's (only
/// 暗棋 and 明棋 deploy or ask for a belief, and there it plays that net).
fn service_for(spec: &BotSpec, file: &str, precision: NetPrecision) -> Result<(Served, NetExtras), BotSpecError> {
    let load = |name: &str| {
        shared_net_in(&resolve_net_path(name), precision).map_err(|e| BotSpecError::BadValue {
            bot: spec.name.clone(),
            key: "path".into(),
            value: file.into(),
            message: e.to_string(),
        })
    };
    if file != "default" {
        let (service, extras) = load(file)?;
        return Ok((Served::One(service), extras));
    }
    let (fanqi, _) = load(default_net_for(Mode::Fanqi))?;
    let (anqi, extras) = load(default_net_for(Mode::Anqi))?;
    Ok((Served::ByMode { fanqi, anqi }, extras))
}

/// The spec of the net bot playing `file` at temperature 0, as its name:
/// `net:FILE`, or `net:path="…"` for a path that would not read back bare
/// (one with `=`, a comma or a quote); `,precision=P` unless FP32.
fn net_name(file: &str, precision: NetPrecision) -> String {
    let name = if file.contains(['=', ',', '"']) || file.trim() != file {
        format!("net:path={}", spec_value(file))
    } else {
        format!("net:{file}")
    };
    match precision {
        NetPrecision::Fp32 => name,
        p => format!("{name},precision={p}"),
    }
}

/// A net spec's `precision` key (default FP32).
fn precision_of(spec: &BotSpec) -> Result<NetPrecision, BotSpecError> {
    let precision = spec
        .get("precision")
        .map_or(Ok(NetPrecision::Fp32), |v| v.parse().map_err(|e: String| spec.bad("precision", &e)))?;
    // The CPU engine has no fp16 kernels: refused rather than run as FP32 unasked.
    if precision == NetPrecision::Fp16 && inference_settings().backend.is_none() {
        return Err(
            spec.bad("precision", "fp16 runs on libtorch (--device cuda); the CPU engine takes fp32, bf16 or int8")
        );
    }
    Ok(precision)
}

fn build(spec: &BotSpec) -> Result<Player, BotSpecError> {
    match spec.name.as_str() {
        "net" => {
            spec.check_keys(&["path", "temp", "precision"])?;
            let file = spec.get("path").unwrap_or("default").to_string();
            let temp = spec.non_negative("temp", 0.0)?;
            let precision = precision_of(spec)?;
            let (service, extras) = service_for(spec, &file, precision)?;
            Ok(Player::Fair(Box::new(NetAgent {
                request: Request::new(service),
                file,
                precision,
                temp,
                moves: MoveList::new(),
                deployer: extras.deployer,
            })))
        }
        "mcts" => {
            let eval = spec.get("eval").expect("from_spec passes mcts specs with eval");
            let net = BotSpec::parse(eval)?;
            if net.name != "net" {
                return Err(spec.bad("eval", "expected net:FILE"));
            }
            net.check_keys(&["path", "precision"])?;
            let file = net.get("path").unwrap_or("default").to_string();
            let precision = precision_of(&net)?;
            let config = MctsConfig::from_spec(spec)?;
            let (service, extras) = service_for(spec, &file, precision)?;
            let evaluator =
                NetEvaluator::serving(service).with_playout(config.mix, config.evaluator()).with_belief(extras.belief);
            let mcts = Mcts::with_evaluator(config, evaluator)
                .with_name_suffix(format!(",eval={}", spec_value(&net_name(&file, precision))))
                .with_deployer(extras.deployer);
            Ok(Player::Fair(Box::new(mcts)))
        }
        other => Err(BotSpecError::UnknownBot { name: other.to_string() }),
    }
}

/// One position asked of a service at a time: submitted on the first poll,
/// answered on a later one (or at once, from the cache).
struct Request {
    served: Served,
    /// The ticket and, per move of the caller's list, its place in the
    /// input's sorted ids.
    pending: Option<(Ticket, Vec<usize>)>,
}

impl Request {
    fn new(served: Served) -> Request {
        Request { served, pending: None }
    }

    /// The net's answer, in a game of `mode`, for the mover `seat` whose
    /// observation `code` gives and whose legal actions are `moves` (its
    /// priors in that order), asking for it on the first call (only then is
    /// `code` called).
    fn poll(
        &mut self,
        code: impl FnOnce() -> ObsCode,
        mode: Mode,
        seat: Seat,
        moves: &[Move],
    ) -> Poll<(Evaluation, Vec<f32>)> {
        let (ticket, _) = self.pending.get_or_insert_with(|| {
            let (input, place) = NetInput::from_moves(code(), moves, seat);
            (self.served.service(mode).submit(input), place)
        });
        let Some(e) = ticket.try_take() else { return Poll::Pending };
        let (_, place) = self.pending.take().expect("pending");
        let priors = place.iter().map(|&k| e.priors[k]).collect();
        Poll::Ready((e, priors))
    }

    fn wait(&self) {
        if let Some((ticket, _)) = &self.pending {
            ticket.block();
        }
    }
}

/// `net:…`: plays from the policy head.
pub struct NetAgent {
    request: Request,
    file: String,
    precision: NetPrecision,
    temp: f32,
    moves: MoveList,
    /// The net file's learned deployment model, if it has one.
    deployer: Option<Arc<DeploymentModel>>,
}

impl Agent for NetAgent {
    fn name(&self) -> String {
        if self.temp == 0.0 {
            net_name(&self.file, self.precision)
        } else {
            let name = format!("net:path={},temp={}", spec_value(&self.file), self.temp);
            match self.precision {
                NetPrecision::Fp32 => name,
                p => format!("{name},precision={p}"),
            }
        }
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        loop {
            match self.poll_act(info, rng) {
                Poll::Ready(d) => return d,
                Poll::Pending => self.wait(),
            }
        }
    }

    fn poll_act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Poll<Decision> {
        if self.request.pending.is_none() {
            info.legal_moves(&mut self.moves);
            assert!(!self.moves.is_empty(), "act called on a finished game");
        }
        let code = || ObsCode::from_infoset(info);
        let Poll::Ready((evaluation, priors)) =
            self.request.poll(code, info.mode(), info.seat(), self.moves.as_slice())
        else {
            return Poll::Pending;
        };
        let policy: Vec<(Move, f32)> = self.moves.iter().copied().zip(priors).collect();
        let action = if self.temp == 0.0 {
            policy.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("a legal action").0
        } else {
            sample_at_temperature(&policy, self.temp, rng)
        };
        Poll::Ready(Decision { action, policy, value: Some(evaluation.value()) })
    }

    fn wait(&mut self) {
        self.request.wait()
    }

    fn batches(&self) -> bool {
        true
    }

    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        deploy_with(self.deployer.as_deref(), colour, rules, rng)
    }
}

/// The search's leaf evaluator: the net's value and priors for a world.
///
/// A leaf is a whole world drawn by the search. In 暗棋 the net sees the
/// searching seat's information set where the search hands it one (the
/// root, and below it the nodes where that seat moves, with what the moves
/// in between showed); elsewhere the world as its mover would see it at the
/// start of a game in that position ([`InfoSet::new`]): exact in 翻棋 and
/// 明棋, in 暗棋 the opponent's own knowledge is not the searcher's to know.
pub struct NetEvaluator {
    request: Request,
    /// Whether the net has a belief head (else none is asked for).
    has_belief: bool,
    /// The root's belief (暗棋), asked once per search.
    belief: Option<Ticket>,
    /// Weight of the playout's value in the leaf value (0 = the net's alone).
    mix: f32,
    playout: RolloutEvaluator,
}

impl NetEvaluator {
    pub fn new(service: InferenceService) -> NetEvaluator {
        NetEvaluator::serving(Served::One(service))
    }

    fn serving(served: Served) -> NetEvaluator {
        NetEvaluator {
            request: Request::new(served),
            has_belief: true,
            belief: None,
            mix: 0.0,
            playout: MctsConfig::default().evaluator(),
        }
    }

    /// Whether to ask the net for its belief (暗棋): only worth an
    /// evaluation when it has a belief head (default: ask; a net without
    /// one answers none).
    pub fn with_belief(mut self, has_belief: bool) -> NetEvaluator {
        self.has_belief = has_belief;
        self
    }

    /// Value leaves by `(1 - mix) · net + mix · playout` (AlphaGo's mixed
    /// evaluation): the playout's captures give a weak net a signal.
    pub fn with_playout(mut self, mix: f32, playout: RolloutEvaluator) -> NetEvaluator {
        self.mix = mix;
        self.playout = playout;
        self
    }

    fn ask(&mut self, world: &Position, info: Option<&InfoSet>, moves: &[Move]) -> Poll<(Evaluation, Vec<f32>)> {
        let code = || match info {
            Some(info) => ObsCode::from_infoset(info),
            None => ObsCode::from_infoset(&InfoSet::new(world, world.turn())),
        };
        self.request.poll(code, world.mode(), world.turn(), moves)
    }
}

impl LeafEvaluator for NetEvaluator {
    fn evaluate(
        &mut self,
        world: &Position,
        info: Option<&InfoSet>,
        moves: &[Move],
        priors: &mut Vec<f32>,
        rng: &mut GameRng,
    ) -> Poll<LeafValue> {
        let Poll::Ready((e, p)) = self.ask(world, info, moves) else { return Poll::Pending };
        priors.extend(p);
        let net = leaf_value(&e);
        Poll::Ready(if self.mix > 0.0 { net.mix(self.playout.playout(world, rng), self.mix) } else { net })
    }

    fn root_priors(
        &mut self,
        world: &Position,
        info: Option<&InfoSet>,
        moves: &[Move],
        priors: &mut Vec<f32>,
    ) -> Poll<Option<LeafValue>> {
        let Poll::Ready((e, p)) = self.ask(world, info, moves) else { return Poll::Pending };
        priors.extend(p);
        Poll::Ready(Some(leaf_value(&e)))
    }

    fn wants_info(&self) -> bool {
        true
    }

    fn wants_history(&self) -> bool {
        self.request.served.reads_history()
    }

    /// 暗棋: the belief head's kinds for the searching seat's real
    /// information set (what earlier fights showed included); none in the
    /// other modes or from a net without the head.
    fn belief(&mut self, info: &InfoSet) -> Poll<Option<KindBelief>> {
        if info.mode() != Mode::Anqi || !self.has_belief {
            return Poll::Ready(None);
        }
        let ticket = self.belief.get_or_insert_with(|| {
            let input = NetInput { code: ObsCode::from_infoset(info), legal: Vec::new(), belief: true };
            self.request.served.service(Mode::Anqi).submit(input)
        });
        let Some(e) = ticket.try_take() else { return Poll::Pending };
        self.belief = None;
        Poll::Ready(e.belief.map(|probs| belief_in_squares(&probs, info.seat())))
    }

    fn wait(&mut self) {
        match &self.belief {
            Some(ticket) => ticket.block(),
            None => self.request.wait(),
        }
    }

    fn batches(&self) -> bool {
        true
    }
}

/// The net's value for the mover, with the draw chance of its win/draw/loss head.
fn leaf_value(e: &Evaluation) -> LeafValue {
    LeafValue { value: e.value(), draw: e.wdl[1] }
}

/// The belief head's output (per node of `seat`'s frame, 12 kinds each) on
/// absolute squares.
fn belief_in_squares(probs: &[f32], seat: Seat) -> KindBelief {
    let mut belief = KindBelief::empty();
    for sq in Square::all() {
        let node = square_to_frame(sq, seat).index();
        if let Some(p) = probs.get(node * BELIEF_KINDS..(node + 1) * BELIEF_KINDS) {
            belief.probs[sq.index()].copy_from_slice(p);
        }
    }
    belief
}
