//! Test support shared by the integration tests in this folder and by other
//! crates' tests (`junqi-env`).

pub mod reference;

use junqi_core::{Colour, Position, Square};

/// Swap the pieces on two squares of a position through JFEN, so the test does
/// not depend on engine internals.
pub fn swap_squares(pos: &Position, a: Square, b: Square) -> Position {
    let text = pos.to_jfen();
    let (board, rest) = text.split_once(' ').unwrap();
    // Expand the board to one token per node, swap, and compress again.
    let mut cells: Vec<String> = Vec::new();
    for rank in board.split('/') {
        let mut chars = rank.chars();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                cells.extend((0..d).map(|_| String::new()));
            } else if c == '~' {
                cells.push(format!("~{}", chars.next().unwrap()));
            } else {
                cells.push(c.to_string());
            }
        }
    }
    // cells are listed rank 12 first, files a..e.
    let index = |s: Square| (12 - s.rank()) * 5 + s.file();
    cells.swap(index(a), index(b));
    let out = compress_board(&cells);
    Position::from_jfen(&format!("{out} {rest}"), *pos.rules()).unwrap()
}

/// The JFEN board field of 60 cells listed rank 12 first, files a..e; an
/// empty string is an empty node, anything else a piece token (`K`, `~m`).
fn compress_board(cells: &[String]) -> String {
    let ranks: Vec<String> = cells
        .chunks(5)
        .map(|rank| {
            let mut out = String::new();
            let mut empty = 0;
            for c in rank {
                if c.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push_str(c);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    ranks.join("/")
}

/// The JFEN board field holding `pieces`, each a node and a piece token, e.g.
/// `("a6", "K")` or `("c4", "~m")` (face-down). Panics on a bad node name or
/// two pieces on one node: it builds test positions.
pub fn board_field(pieces: &[(&str, &str)]) -> String {
    let mut cells = vec![String::new(); 60];
    for &(node, token) in pieces {
        let s: Square = node.parse().unwrap_or_else(|e| panic!("bad square {node}: {e}"));
        let cell = &mut cells[(12 - s.rank()) * 5 + s.file()];
        assert!(cell.is_empty(), "two pieces on {node}");
        *cell = token.to_string();
    }
    compress_board(&cells)
}

/// Two squares of a fresh 暗棋/明棋 deployment holding Black ranked pieces of
/// different kinds on ranks 8–10 (off the HQs, front and back ranks), so that
/// swapping them keeps the deployment legal: the truths differ only in what
/// Red cannot see.
pub fn two_black_officers_to_swap(start: &Position) -> (Square, Square) {
    let candidates: Vec<Square> = Square::all()
        .filter(|&s| (8..=10).contains(&s.rank()))
        .filter(|&s| start.piece_at(s).is_some_and(|p| p.colour == Colour::Black && p.kind.is_ranked()))
        .collect();
    candidates
        .iter()
        .flat_map(|&a| candidates.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| start.piece_at(a).unwrap().kind != start.piece_at(b).unwrap().kind)
        .expect("a deployment has ranked pieces of several kinds on ranks 8-10")
}
