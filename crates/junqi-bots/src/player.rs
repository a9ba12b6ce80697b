//! A seat's player as the game runners see it: a fair [`Agent`], or a
//! [`CheatingAgent`] that is handed the whole truth.
//!
//! A fair bot cannot read hidden information: [`Agent::act`] receives only an
//! [`junqi_core::InfoSet`], whose one position is a view with hidden kinds
//! erased (tested in `tests/infoset.rs`), and whose fields are private. A bot
//! that tries to reach the truth does not compile:
//!
//! ```compile_fail
//! use junqi_bots::{Agent, Decision};
//! use junqi_core::{GameRng, InfoSet};
//! struct Peeker;
//! impl Agent for Peeker {
//!     fn name(&self) -> String { "peeker".into() }
//!     fn act(&mut self, info: &InfoSet, _rng: &mut GameRng) -> Decision {
//!         let truth = &info.truth; // no such field: the truth never enters an InfoSet
//!         unimplemented!()
//!     }
//! }
//! ```
//!
//! ```compile_fail
//! use junqi_bots::{Agent, Decision};
//! use junqi_core::{Game, GameRng};
//! struct Peeker;
//! impl Agent for Peeker {
//!     fn name(&self) -> String { "peeker".into() }
//!     // The trait's signature takes an InfoSet; asking for the Game is a type error.
//!     fn act(&mut self, game: &Game, _rng: &mut GameRng) -> Decision { unimplemented!() }
//! }
//! ```

use crate::{Agent, Decision};
use junqi_core::{Colour, Deployment, Game, GameRng, Outcome, Position, Rules, Seat};
use std::task::Poll;

/// A reference player that reads the true state (e.g. `cheat-mcts`). Only the
/// runners hand it the truth, and only through [`Player::Cheating`], so a fair
/// [`Agent`] can never get it; everything that shows a cheating bot marks it.
pub trait CheatingAgent: Send {
    /// The bot's spec, e.g. `cheat-mcts:sims=400`.
    fn name(&self) -> String;
    /// Choose an action for the side to move in `truth`.
    fn act(&mut self, truth: &Position, rng: &mut GameRng) -> Decision;
    /// Choose a 暗棋/明棋 deployment for `colour` (default: uniformly random legal).
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        let _ = rules;
        Deployment::random(colour, rng)
    }
}

/// One seat's player.
pub enum Player {
    /// Sees only its seat's information set.
    Fair(Box<dyn Agent>),
    /// Sees the whole truth: an upper reference, never a fair opponent.
    Cheating(Box<dyn CheatingAgent>),
}

impl Player {
    /// The bot's spec (recorded with games).
    pub fn name(&self) -> String {
        match self {
            Player::Fair(a) => a.name(),
            Player::Cheating(c) => c.name(),
        }
    }
    /// Whether this player reads hidden information.
    pub fn cheats(&self) -> bool {
        matches!(self, Player::Cheating(_))
    }
    /// Decide for the side to move in `game`: a fair agent gets that seat's
    /// information set, a cheating one the truth.
    pub fn act(&mut self, game: &Game, rng: &mut GameRng) -> Decision {
        match self {
            Player::Fair(a) => a.act(game.infoset(game.truth().turn()), rng),
            Player::Cheating(c) => c.act(game.truth(), rng),
        }
    }
    /// [`Player::act`] one step at a time (see [`Agent::poll_act`]).
    pub fn poll_act(&mut self, game: &Game, rng: &mut GameRng) -> Poll<Decision> {
        match self {
            Player::Fair(a) => a.poll_act(game.infoset(game.truth().turn()), rng),
            Player::Cheating(c) => Poll::Ready(c.act(game.truth(), rng)),
        }
    }
    /// Block until what the last `Pending` of [`Player::poll_act`] waited for is there.
    pub fn wait(&mut self) {
        if let Player::Fair(a) = self {
            a.wait()
        }
    }
    /// Whether the player gains from many games in flight.
    pub fn batches(&self) -> bool {
        matches!(self, Player::Fair(a) if a.batches())
    }
    /// Why the last decision or deployment forfeits the game (see [`Agent::take_forfeit`]).
    pub fn take_forfeit(&mut self) -> Option<String> {
        match self {
            Player::Fair(a) => a.take_forfeit(),
            Player::Cheating(_) => None,
        }
    }
    /// Whether the player plays `rules` (see [`Agent::can_play`]).
    pub fn can_play(&self, rules: &Rules) -> Result<(), String> {
        match self {
            Player::Fair(a) => a.can_play(rules),
            Player::Cheating(_) => Ok(()),
        }
    }
    /// The game this player played as `seat` is over (see [`Agent::game_over`]).
    pub fn game_over(&mut self, seat: Seat, outcome: &Outcome) {
        if let Player::Fair(a) = self {
            a.game_over(seat, outcome)
        }
    }
    /// Choose a 暗棋/明棋 deployment for `colour`.
    pub fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        match self {
            Player::Fair(a) => a.deploy(colour, rules, rng),
            Player::Cheating(c) => c.deploy(colour, rules, rng),
        }
    }
    /// [`Player::deploy`] for a game that stops on a bad deployment: `Err`
    /// says (after `bot \`NAME\` `) why the bot forfeited, or what is wrong
    /// with its deployment (the wrong colour, a broken deployment rule).
    pub fn deploy_checked(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Result<Deployment, String> {
        let d = self.deploy(colour, rules, rng);
        if let Some(reason) = self.take_forfeit() {
            return Err(format!("could not deploy: {reason}"));
        }
        if d.colour != colour {
            return Err(format!("deployed {:?} pieces when asked for {colour:?}", d.colour));
        }
        d.validate().map_err(|e| format!("gave an illegal deployment: {e}"))?;
        Ok(d)
    }
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.cheats() { "Cheating" } else { "Fair" };
        write!(f, "{kind}({})", self.name())
    }
}
