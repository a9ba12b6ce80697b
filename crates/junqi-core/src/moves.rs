//! Actions in docs/rules.md §7 notation (`a6a7`; a flip is `c6c6`) and the move buffer.

use crate::board::{ParseSquareError, Square, NODES};
use std::fmt;
use std::str::FromStr;

/// One action: a move `from → to`, or a flip when `from == to`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

/// Size of the action table (60 × 60; flips on the diagonal).
pub const ACTIONS: usize = NODES * NODES;

impl Move {
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
    pub const fn flip(at: Square) -> Move {
        Move { from: at, to: at }
    }
    #[inline]
    pub const fn is_flip(self) -> bool {
        self.from.index() == self.to.index()
    }
    /// Index into the 3600-entry action table: `from * 60 + to`.
    #[inline]
    pub const fn action_id(self) -> usize {
        self.from.index() * NODES + self.to.index()
    }
    pub fn from_action_id(id: usize) -> Option<Move> {
        if id >= ACTIONS {
            return None;
        }
        Some(Move::new(Square::new(id / NODES)?, Square::new(id % NODES)?))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Why a move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error("invalid move `{text}`: expected <from><to> such as a6a7 or c6c6 (flip)")]
    Shape { text: String },
    #[error("invalid move `{text}`: {source}")]
    Square { text: String, source: ParseSquareError },
}

impl FromStr for Move {
    type Err = ParseMoveError;
    /// Accepts `a6a7`, and also `a6 a7` / `a6-a7` as people type them.
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let text = s.trim();
        let shape = || ParseMoveError::Shape { text: text.to_string() };
        if !text.is_ascii() {
            return Err(shape());
        }
        // At most one separator (spaces or `-`) between the two squares.
        let parts: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == '-').filter(|p| !p.is_empty()).collect();
        let (a, b) = match parts[..] {
            [a, b] => (a, b),
            [compact] => {
                // The second square starts at the second letter.
                let split = compact
                    .char_indices()
                    .skip(1)
                    .find(|(_, c)| c.is_ascii_alphabetic())
                    .map(|(i, _)| i)
                    .ok_or_else(shape)?;
                compact.split_at(split)
            }
            _ => return Err(shape()),
        };
        let square =
            |t: &str| t.parse::<Square>().map_err(|source| ParseMoveError::Square { text: text.to_string(), source });
        Ok(Move::new(square(a)?, square(b)?))
    }
}

/// Capacity of a [`MoveList`]: far above the most actions any position allows
/// (50 flips, or at most 25 movable pieces with at most 40 destinations each).
pub const MOVE_LIST_CAPACITY: usize = 1536;

/// A fixed-capacity buffer the move generator writes into, so generating moves
/// never allocates. Reuse one per thread.
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MOVE_LIST_CAPACITY],
}

impl MoveList {
    pub fn new() -> MoveList {
        let zero = Square::new(0).unwrap();
        MoveList { len: 0, moves: [Move::new(zero, zero); MOVE_LIST_CAPACITY] }
    }
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for text in ["a6a7", "e2e11", "c7c8", "c6c6", "e12a1"] {
            let m: Move = text.parse().unwrap();
            assert_eq!(m.to_string(), text);
            assert_eq!(Move::from_action_id(m.action_id()), Some(m));
        }
        assert!("c6c6".parse::<Move>().unwrap().is_flip());
        assert_eq!("c6 c7".parse::<Move>().unwrap().to_string(), "c6c7");
        assert_eq!("c6-c7".parse::<Move>().unwrap().to_string(), "c6c7");
        for bad in ["", "a6", "a6a", "f6a7", "a6a13", "a0a1", "6a7a", "a6a7a8", "司令", "a1-0a2", "a1 a2 a3", "a-6a7"]
        {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }
}
