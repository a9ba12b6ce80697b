//! The referee: the true position, each seat's information set, and the moves so far.

use crate::infoset::{InfoSet, Observation};
use crate::moves::Move;
use crate::piece::Seat;
use crate::position::{Effect, Outcome, PlayError, Position};

/// A game in progress. Bots are given [`Game::infoset`], never [`Game::truth`].
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    truth: Position,
    infosets: [InfoSet; 2],
    moves: Vec<Move>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let infosets = [InfoSet::new(&start, Seat::First), InfoSet::new(&start, Seat::Second)];
        Game { truth: start.clone(), start, infosets, moves: Vec::new() }
    }

    /// What `seat` may know.
    pub fn infoset(&self, seat: Seat) -> &InfoSet {
        &self.infosets[seat.index()]
    }
    /// The whole truth: for the referee, logging and tests, never for a bot.
    pub fn truth(&self) -> &Position {
        &self.truth
    }
    pub fn start(&self) -> &Position {
        &self.start
    }
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.truth.outcome()
    }

    /// Play a legal action; returns what happened and what each seat saw.
    pub fn play(&mut self, mv: Move) -> Result<(Effect, [Observation; 2]), PlayError> {
        let before = self.truth.clone();
        let effect = self.truth.play(mv)?;
        Ok(self.record(before, mv, effect))
    }

    /// Play an action taken from this game's current legal actions, without
    /// checking it again (for callers that already did, e.g. a vectorised env).
    pub fn play_unchecked(&mut self, mv: Move) -> (Effect, [Observation; 2]) {
        let before = self.truth.clone();
        let effect = self.truth.play_unchecked(mv);
        self.record(before, mv, effect)
    }

    /// Tell each seat what it saw of `effect` and keep the move.
    fn record(&mut self, before: Position, mv: Move, effect: Effect) -> (Effect, [Observation; 2]) {
        let observations =
            Seat::BOTH.map(|seat| self.infosets[seat.index()].witness(&before, &self.truth, mv, &effect));
        self.moves.push(mv);
        (effect, observations)
    }
}
