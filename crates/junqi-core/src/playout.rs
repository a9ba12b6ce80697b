//! Uniformly random playouts: the benchmark workload and a test driver.

use crate::moves::{Move, MoveList};
use crate::position::{Outcome, Position};
use rand::Rng;

/// A finished random game.
#[derive(Clone, Debug)]
pub struct Playout {
    pub start: Position,
    pub moves: Vec<Move>,
    pub outcome: Outcome,
}

/// Play uniformly random legal actions from `pos` until the game ends and
/// return the outcome and the number of plies played. `moves` is scratch space.
#[inline]
pub fn random_playout<R: Rng + ?Sized>(pos: &mut Position, rng: &mut R, moves: &mut MoveList) -> (Outcome, u32) {
    let mut plies = 0;
    loop {
        pos.legal_moves(moves);
        if let Some(outcome) = pos.outcome_given(moves.len()) {
            return (outcome, plies);
        }
        let mv = moves[rng.random_range(0..moves.len())];
        pos.play_unchecked(mv);
        plies += 1;
    }
}

/// A whole random game from `start`, keeping its moves.
pub fn random_game<R: Rng + ?Sized>(start: Position, rng: &mut R) -> Playout {
    let mut pos = start.clone();
    let mut list = MoveList::new();
    let mut moves = Vec::new();
    loop {
        pos.legal_moves(&mut list);
        if let Some(outcome) = pos.outcome_given(list.len()) {
            return Playout { start, moves, outcome };
        }
        let mv = list[rng.random_range(0..list.len())];
        pos.play_unchecked(mv);
        moves.push(mv);
    }
}
