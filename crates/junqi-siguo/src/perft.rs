//! `perft`: the number of move sequences of a given length (docs/rules.md
//! §10.12), the standard check of a move generator. A finished game has no
//! moves, so its branch counts 0.

use crate::position::{MoveList, Position};

/// Leaves of the move tree `depth` plies deep.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|&mv| perft(&pos.played(mv), depth - 1)).sum()
}
