//! Uniformly random games (a test driver, and `junqi random-game --siguo`).

use crate::position::{Move, MoveList, Outcome, Position};
use rand::Rng;

/// A finished random game.
#[derive(Clone, Debug)]
pub struct Playout {
    pub start: Position,
    pub moves: Vec<Move>,
    pub outcome: Outcome,
}

/// Play uniformly random legal moves from `start` until the game ends.
pub fn random_game<R: Rng + ?Sized>(start: Position, rng: &mut R) -> Playout {
    let mut pos = start.clone();
    let mut list = MoveList::new();
    let mut moves = Vec::new();
    loop {
        if let Some(outcome) = pos.outcome() {
            return Playout { start, moves, outcome };
        }
        pos.legal_moves(&mut list);
        let mv = list[rng.random_range(0..list.len())];
        pos.play_unchecked(mv);
        moves.push(mv);
    }
}
