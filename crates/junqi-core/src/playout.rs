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

/// Play uniformly random legal actions from `pos` until the game ends, calling
/// `on_move` with each; returns the outcome and the number of plies played.
/// `moves` is scratch space.
#[inline]
fn play_randomly<R: Rng + ?Sized>(
    pos: &mut Position,
    rng: &mut R,
    moves: &mut MoveList,
    mut on_move: impl FnMut(Move),
) -> (Outcome, u32) {
    let mut plies = 0;
    loop {
        pos.legal_moves(moves);
        if let Some(outcome) = pos.outcome_given(moves.len()) {
            return (outcome, plies);
        }
        let mv = moves[rng.random_range(0..moves.len())];
        pos.play_unchecked(mv);
        on_move(mv);
        plies += 1;
    }
}

/// A random playout from `pos` (left at the final position): outcome and plies.
#[inline]
pub fn random_playout<R: Rng + ?Sized>(pos: &mut Position, rng: &mut R, moves: &mut MoveList) -> (Outcome, u32) {
    play_randomly(pos, rng, moves, |_| {})
}

/// A whole random game from `start`, keeping its moves.
pub fn random_game<R: Rng + ?Sized>(start: Position, rng: &mut R) -> Playout {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let (outcome, _) = play_randomly(&mut pos, rng, &mut MoveList::new(), |m| moves.push(m));
    Playout { start, moves, outcome }
}
