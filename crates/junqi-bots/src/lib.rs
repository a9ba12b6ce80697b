//! # junqi-bots
//!
//! Players behind one [`Agent`] trait. An agent is handed its seat's
//! [`InfoSet`] and never the [`junqi_core::Position`] or
//! [`junqi_core::Game`], so the type system keeps hidden kinds away from it.
//! It answers with a [`Decision`]: the action and the probability
//! distribution it sampled that action from (the training target of
//! self-play). An agent also chooses its 暗棋/明棋 deployment (default:
//! uniformly random among the legal ones).
//!
//! Bots are built from a spec string, `name` or `name:key=value,key=value`
//! ([`from_spec`]):
//!
//! | spec | plays |
//! |---|---|
//! | `random` | uniformly among the legal actions |
//! | `greedy` | the most valuable capture it can prove by the rules from what it knows, else uniformly random |
//! | `greedy:epsilon=0.1` | as `greedy`, but a uniformly random action with probability 0.1 |
//! | `heuristic` | scores every action by hand-written rules (expected combat value over the defender's possible kinds, one-ply threats, flag guard, approach, 翻棋 flips) and samples a softmax over the scores at temperature 0.1; deploys in named formations |
//! | `heuristic:temp=0` | as `heuristic`, always a best-scored action (ties uniformly); `temp` is any number ≥ 0 |
//! | `mcts:sims=400,c=0.7,depth=4,rollout=capture` | information-set MCTS over worlds drawn from its information set ([`mcts`]); `mcts:800` = `mcts:sims=800` |
//! | `mcts:movetime=100`, `mcts:tc=60+0.5` | the same search by time: 100 ms a move, or a clock of 60 s plus 0.5 s a move kept through each game ([`mcts::clock`]); with `sims` too, whichever ends first |
//! | `cheat-mcts:sims=400` | the same search in the true position: a cheating reference ([`Player::Cheating`]) |
//! | `net:default`, `net:path=FILE,temp=0` | a policy/value network (crate `junqi-train`, registered by the `junqi` binary built with `torch`) |
//! | `mcts:sims=200,eval=net:FILE` | the search with the network's priors (PUCT) and values at the leaves |
//! | `mcts:sims=400,opponent=heuristic` | a search best response: where the other seat moves, the search plays the target bot's own decision, made in a world drawn from the searcher's information set ([`Agent::model_opponent`]; docs/exploit.md) |
//!
//! ```
//! use junqi_bots::from_spec;
//! use junqi_core::{rng_from_seed, Game, Mode, Position, Rules};
//! let mut bot = from_spec("greedy").unwrap();
//! let game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 1));
//! let mut rng = rng_from_seed(1);
//! let decision = bot.act(&game, &mut rng);
//! assert!(decision.action.is_flip()); // nothing is face-up yet
//! ```

mod greedy;
pub mod heuristic;
pub mod learned_deploy;
pub mod mcts;
mod player;
mod random;
mod spec;

pub use greedy::{piece_value, provable_captures, Greedy, ProvableCapture};
pub use heuristic::{heuristic_deployment, Heuristic};
pub use learned_deploy::{deploy_with, deployment_features, DeploymentModel, FitOptions, DEPLOY_FEATURES};
pub use mcts::{CheatMcts, DrawScore, LeafEvaluator, LeafValue, Mcts, MctsConfig, RootOptions, MCTS_KEYS};
pub use player::{CheatingAgent, Player};
pub use random::RandomBot;
pub use spec::{
    build, from_spec, register_bot, spec_value, split_bot_list, BotFactory, BotSpec, BotSpecError, IntoBotSpec,
    BOT_NAMES,
};

use junqi_core::{Colour, Deployment, GameRng, InfoSet, Move, Outcome, Rules, Seat};
use std::task::Poll;

/// What an agent does on its turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The action to play: one of the seat's legal actions.
    pub action: Move,
    /// The distribution `action` was sampled from, sparse: every action with
    /// a non-zero probability, once. The probabilities sum to 1.
    pub policy: Vec<(Move, f32)>,
    /// The agent's own estimate of its expected result, in [-1, 1] (+1 a
    /// sure win): a search's mean value of its most visited action (the one
    /// played unless `temp` samples another), a net's P(win) − P(loss).
    /// `None` for bots without one. Self-play resigns on it.
    pub value: Option<f32>,
}

/// A player. It sees only its own seat's information set.
pub trait Agent: Send {
    /// The bot's spec, e.g. `random` or `greedy:epsilon=0.1` (recorded with games).
    fn name(&self) -> String;
    /// Choose an action for the seat to move in `info` (the agent's own seat).
    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision;
    /// [`Agent::act`] for drivers that keep many games going: `Pending`
    /// when the agent waits for an answer it asked for (a net's evaluation);
    /// the driver then calls [`Agent::wait`] (after starting its other
    /// games' requests, so they are answered together) and polls again with
    /// the same `info`. The decision is the one `act` would make.
    fn poll_act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Poll<Decision> {
        Poll::Ready(self.act(info, rng))
    }
    /// Block until what the last `Pending` waited for is there.
    fn wait(&mut self) {}
    /// Whether the agent gains from many games in flight (its evaluations
    /// are batched across games).
    fn batches(&self) -> bool {
        false
    }
    /// Choose a 暗棋/明棋 deployment for `colour` (default: uniformly random legal).
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        let _ = rules;
        Deployment::random(colour, rng)
    }
    /// Why the agent's last decision (or deployment) forfeits the game, if
    /// it does: an external engine that crashed, hung or answered with an
    /// illegal move. The runner asks right after each decision and ends the
    /// game as a loss for this seat; the decision itself is then ignored.
    /// Built-in bots never forfeit.
    fn take_forfeit(&mut self) -> Option<String> {
        None
    }
    /// Whether the agent plays `rules`; the error says why not. Runners ask
    /// before the first game (an external engine declares the rules it
    /// plays); built-in bots play every rule.
    fn can_play(&self, _rules: &Rules) -> Result<(), String> {
        Ok(())
    }
    /// The game this agent played as `seat` ended with `outcome` (an
    /// external engine is told its result).
    fn game_over(&mut self, _seat: Seat, _outcome: &Outcome) {}
    /// Search the next move (only) for `time` instead of the agent's own
    /// budget: `junqi engine` passes on a host's `go movetime` or clock.
    /// `keep_sims`: the agent's simulation count still caps the search
    /// (the host gave one too); else time alone decides. Returns whether
    /// the agent plays by time (a search does; others ignore it).
    fn time_next_move(&mut self, _time: std::time::Duration, _keep_sims: bool) -> bool {
        false
    }
    /// Model the other seat by `target` (a best response's search: spec key
    /// `opponent=SPEC` of `mcts`): where that seat moves, the agent's search
    /// plays `target`'s own decision, made from that seat's information set
    /// of a world drawn from this agent's information set. `Err` says why
    /// the agent cannot (only a search can).
    fn model_opponent(&mut self, target: Box<dyn Agent>) -> Result<(), String> {
        Err(format!("`{}` does not search, so it cannot model an opponent (only `mcts` can)", target.name()))
    }
}

impl<A: Agent + ?Sized> Agent for Box<A> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        (**self).act(info, rng)
    }
    fn poll_act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Poll<Decision> {
        (**self).poll_act(info, rng)
    }
    fn wait(&mut self) {
        (**self).wait()
    }
    fn batches(&self) -> bool {
        (**self).batches()
    }
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        (**self).deploy(colour, rules, rng)
    }
    fn take_forfeit(&mut self) -> Option<String> {
        (**self).take_forfeit()
    }
    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        (**self).can_play(rules)
    }
    fn game_over(&mut self, seat: Seat, outcome: &Outcome) {
        (**self).game_over(seat, outcome)
    }
    fn model_opponent(&mut self, target: Box<dyn Agent>) -> Result<(), String> {
        (**self).model_opponent(target)
    }
    fn time_next_move(&mut self, time: std::time::Duration, keep_sims: bool) -> bool {
        (**self).time_next_move(time, keep_sims)
    }
}

/// The uniform distribution over `moves`.
pub(crate) fn uniform(moves: &[Move]) -> Vec<(Move, f32)> {
    let p = 1.0 / moves.len() as f32;
    moves.iter().map(|&m| (m, p)).collect()
}
