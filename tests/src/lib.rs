//! Test support shared by the integration tests in this folder and by other
//! crates' tests (`junqi-env`).

pub mod reference;

use junqi_core::{Position, Square};

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
    let mut out = String::new();
    for (r, rank) in cells.chunks(5).enumerate() {
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
        if r < 11 {
            out.push('/');
        }
    }
    Position::from_jfen(&format!("{out} {rest}"), *pos.rules()).unwrap()
}
