//! The network bots, registered with `junqi-bots` so every command that
//! takes a bot spec knows them:
//!
//! * `net:FILE` / `net:path=FILE,temp=T`: plays from the policy head, the
//!   most probable action at `temp=0` (the default), else sampled
//!   ∝ p^(1/temp).
//! * `mcts:sims=N,…,eval=net:FILE`: the information-set search with the
//!   net's priors (PUCT) and values (P(win) - P(loss)) at its leaves.
//!
//! `FILE` is an exported net or a checkpoint; `default` is the net shipped
//! in `data/nets/default.safetensors`. Positions go through the shared,
//! batching server of their file ([`crate::inference`]).

use crate::inference::{shared_client, Evaluation, NetClient};
use junqi_bots::{
    heuristic_deployment,
    mcts::{sample_at_temperature, RolloutEvaluator},
    register_bot, Agent, BotSpec, BotSpecError, Decision, LeafEvaluator, Mcts, MctsConfig, Player,
};
use junqi_core::{Colour, Deployment, GameRng, InfoSet, Move, MoveList, Position, Rules, Seat};
use junqi_env::{action_to_frame, encode_observation, OBS_SIZE};
use std::path::{Path, PathBuf};

/// The shipped net, relative to the repository root.
pub const DEFAULT_NET: &str = "data/nets/default.safetensors";

/// Make `net:…` and `mcts:…,eval=net:…` specs known to [`junqi_bots::from_spec`].
pub fn register_net_bots() {
    register_bot("net", build);
}

/// Where `net:default` or `net:FILE` points: `default` is [`DEFAULT_NET`]
/// under the working directory, else under the repository this binary was
/// built from.
pub fn resolve_net_path(file: &str) -> PathBuf {
    if file != "default" {
        return PathBuf::from(file);
    }
    let here = PathBuf::from(DEFAULT_NET);
    if here.exists() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(DEFAULT_NET)
}

fn client_for(spec: &BotSpec, file: &str) -> Result<NetClient, BotSpecError> {
    let path = resolve_net_path(file);
    shared_client(&path).map_err(|e| BotSpecError::BadValue {
        bot: spec.name.clone(),
        key: "path".into(),
        value: file.into(),
        message: e.to_string(),
    })
}

fn build(spec: &BotSpec) -> Result<Player, BotSpecError> {
    match spec.name.as_str() {
        "net" => {
            spec.check_keys(&["path", "temp"])?;
            let file = spec.get("path").unwrap_or("default").to_string();
            let temp = spec.non_negative("temp", 0.0)?;
            let client = client_for(spec, &file)?;
            Ok(Player::Fair(Box::new(NetAgent { client, file, temp, moves: MoveList::new() })))
        }
        "mcts" => {
            let eval = spec.get("eval").expect("from_spec passes mcts specs with eval");
            let net = BotSpec::parse(eval)?;
            if net.name != "net" {
                return Err(spec.bad("eval", "expected net:FILE"));
            }
            net.check_keys(&["path"])?;
            let file = net.get("path").unwrap_or("default").to_string();
            let config = MctsConfig::from_spec(spec)?;
            let evaluator = NetEvaluator::new(client_for(spec, &file)?).with_playout(config.mix, config.evaluator());
            let mcts = Mcts::with_evaluator(config, evaluator).with_name_suffix(format!(",eval=net:{file}"));
            Ok(Player::Fair(Box::new(mcts)))
        }
        other => Err(BotSpecError::UnknownBot { name: other.to_string() }),
    }
}

/// The mover's observation and legal action ids (mover's frame) of `info`.
fn encode(info: &InfoSet, moves: &mut MoveList) -> (Vec<f32>, Vec<u16>) {
    let mut obs = vec![0.0; OBS_SIZE];
    encode_observation(info, &mut obs);
    info.legal_moves(moves);
    let seat = info.view().turn();
    (obs, frame_ids(moves, seat))
}

fn frame_ids(moves: &MoveList, seat: Seat) -> Vec<u16> {
    moves.iter().map(|&m| action_to_frame(m, seat) as u16).collect()
}

/// `net:…`: plays from the policy head.
pub struct NetAgent {
    client: NetClient,
    file: String,
    temp: f32,
    moves: MoveList,
}

impl Agent for NetAgent {
    fn name(&self) -> String {
        if self.temp == 0.0 {
            format!("net:{}", self.file)
        } else {
            format!("net:path={},temp={}", self.file, self.temp)
        }
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        let (obs, legal) = encode(info, &mut self.moves);
        assert!(!legal.is_empty(), "act called on a finished game");
        let evaluation = self.client.evaluate(obs, legal);
        let value = evaluation.value();
        let Evaluation { priors, .. } = evaluation;
        let policy: Vec<(Move, f32)> = self.moves.iter().copied().zip(priors.iter().copied()).collect();
        let action = if self.temp == 0.0 {
            policy.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("a legal action").0
        } else {
            sample_at_temperature(&policy, self.temp, rng)
        };
        Decision { action, policy, value: Some(value) }
    }

    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        // The net has no deployment head: deploy as the heuristic bot does.
        heuristic_deployment(colour, rules, rng)
    }
}

/// The search's leaf evaluator: one net call gives the value and, right
/// after, the priors of the same world.
///
/// A leaf is a whole world drawn by the search; the net sees it as the
/// mover would at the start of a game in that position
/// ([`InfoSet::new`]): in 翻棋 that is exact (face-down pieces stay
/// unknown), in 暗棋 the mover forgets what earlier fights showed of the
/// enemy's pieces below the root.
pub struct NetEvaluator {
    client: NetClient,
    /// Weight of the playout's value in the leaf value (0 = the net's alone).
    mix: f32,
    playout: RolloutEvaluator,
    moves: MoveList,
    /// The last evaluated world's legal moves and their priors.
    cached: Option<(Vec<Move>, Vec<f32>)>,
}

impl NetEvaluator {
    pub fn new(client: NetClient) -> NetEvaluator {
        NetEvaluator {
            client,
            mix: 0.0,
            playout: MctsConfig::default().evaluator(),
            moves: MoveList::new(),
            cached: None,
        }
    }

    /// Value leaves by `(1 - mix) · net + mix · playout` (AlphaGo's mixed
    /// evaluation): the playout's captures give a weak net a signal.
    pub fn with_playout(mut self, mix: f32, playout: RolloutEvaluator) -> NetEvaluator {
        self.mix = mix;
        self.playout = playout;
        self
    }

    fn call(&mut self, world: &Position) -> f32 {
        let info = InfoSet::new(world, world.turn());
        let (obs, legal) = encode(&info, &mut self.moves);
        let e = self.client.evaluate(obs, legal);
        let value = e.value();
        self.cached = Some((self.moves.iter().copied().collect(), e.priors));
        value
    }
}

impl LeafEvaluator for NetEvaluator {
    fn evaluate(&mut self, world: &Position, rng: &mut GameRng) -> f32 {
        let net = self.call(world);
        if self.mix > 0.0 {
            (1.0 - self.mix) * net + self.mix * self.playout.evaluate(world, rng)
        } else {
            net
        }
    }

    fn priors(&mut self, world: &Position, moves: &[Move], out: &mut Vec<f32>) -> bool {
        let fresh = matches!(&self.cached, Some((m, _)) if m.as_slice() == moves);
        if !fresh {
            self.call(world);
        }
        let (m, p) = self.cached.take().expect("just evaluated");
        if m.as_slice() != moves {
            return false;
        }
        out.extend_from_slice(&p);
        true
    }
}
