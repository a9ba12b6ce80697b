//! The 5×12 board of docs/rules.md §1 as squares, bitboards and precomputed tables.
//!
//! Node index = `(rank - 1) * 5 + file` with `a = 0 … e = 4`, so a [`Bitboard`]
//! over the 60 nodes fits in the low 60 bits of a `u64`. Every table here is
//! computed at compile time from the edge rules of §1, so there is one source
//! of truth and no hand-typed adjacency list to get wrong.

use std::fmt;
use std::str::FromStr;

/// A set of nodes: bit `i` is node `i`.
pub type Bitboard = u64;

/// All 60 nodes.
pub const ALL: Bitboard = (1u64 << 60) - 1;

pub const FILES: usize = 5;
pub const RANKS: usize = 12;
pub const NODES: usize = 60;

/// One of the 60 nodes (`a1` = 0 … `e12` = 59).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The node with this index; `None` when `index >= 60`.
    pub const fn new(index: usize) -> Option<Square> {
        if index < NODES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Caller guarantees `index < 60`.
    #[inline]
    pub(crate) const fn new_unchecked(index: usize) -> Square {
        debug_assert!(index < NODES);
        Square(index as u8)
    }

    /// `file` 0..5 (a..e), `rank` 1..=12.
    pub const fn from_coords(file: usize, rank: usize) -> Option<Square> {
        if file < FILES && rank >= 1 && rank <= RANKS {
            Some(Square(((rank - 1) * FILES + file) as u8))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// 0 = a … 4 = e.
    #[inline]
    pub const fn file(self) -> usize {
        self.0 as usize % FILES
    }
    /// 1 ..= 12.
    #[inline]
    pub const fn rank(self) -> usize {
        self.0 as usize / FILES + 1
    }
    #[inline]
    pub const fn bit(self) -> Bitboard {
        1u64 << self.0
    }
    /// The same node seen from the other side of the board (180° rotation).
    #[inline]
    pub const fn rotated(self) -> Square {
        Square((NODES - 1 - self.0 as usize) as u8)
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..NODES).map(Square::new_unchecked)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

/// Why a node name such as `c13` was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid square `{0}`: expected a file a-e and a rank 1-12, like `c6`")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_string());
        let mut chars = s.chars();
        let file = match chars.next() {
            Some(c @ 'a'..='e') => c as usize - 'a' as usize,
            _ => return Err(err()),
        };
        let rest = chars.as_str();
        if rest.is_empty() || rest.len() > 2 || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with('0') {
            return Err(err());
        }
        let rank: usize = rest.parse().map_err(|_| err())?;
        Square::from_coords(file, rank).ok_or_else(err)
    }
}

/// Iterate over the squares of a bitboard, lowest index first.
#[inline]
pub fn squares(mut bb: Bitboard) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let i = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            Some(Square::new_unchecked(i))
        }
    })
}

const fn sq(file: usize, rank: usize) -> usize {
    (rank - 1) * FILES + file
}
const fn bit(file: usize, rank: usize) -> Bitboard {
    1u64 << sq(file, rank)
}

/// Headquarters (大本营): b1 d1 b12 d12.
pub const HEADQUARTERS: Bitboard = bit(1, 1) | bit(3, 1) | bit(1, 12) | bit(3, 12);
/// Camps (行营): b3 d3 c4 b5 d5 and b8 d8 c9 b10 d10.
pub const CAMPS: Bitboard = bit(1, 3)
    | bit(3, 3)
    | bit(2, 4)
    | bit(1, 5)
    | bit(3, 5)
    | bit(1, 8)
    | bit(3, 8)
    | bit(2, 9)
    | bit(1, 10)
    | bit(3, 10);

const fn rank_mask(rank: usize) -> Bitboard {
    0b11111u64 << ((rank - 1) * FILES)
}
const fn ranks_mask(lo: usize, hi: usize) -> Bitboard {
    let mut m = 0;
    let mut r = lo;
    while r <= hi {
        m |= rank_mask(r);
        r += 1;
    }
    m
}
pub const fn rank_bb(rank: usize) -> Bitboard {
    rank_mask(rank)
}

/// 山界 (`mountains`, docs/rules.md §3): the railway nodes around each of
/// the two mountains, from which a piece enters it and onto which it leaves:
/// `a6 b6 a7 b7` for the mountain between b6 and b7, `d6 e6 d7 e7` for the
/// one between d6 and d7.
pub const MOUNTAIN_SIDES: [Bitboard; 2] =
    [bit(0, 6) | bit(1, 6) | bit(0, 7) | bit(1, 7), bit(3, 6) | bit(4, 6) | bit(3, 7) | bit(4, 7)];

/// The mountain whose side `sq` is on, if any.
#[inline]
pub fn mountain_of(sq: Square) -> Option<usize> {
    MOUNTAIN_SIDES.iter().position(|&m| m & sq.bit() != 0)
}

/// Red's half (ranks 1–6) and Black's half (ranks 7–12).
pub const RED_HALF: Bitboard = ranks_mask(1, 6);
pub const BLACK_HALF: Bitboard = ranks_mask(7, 12);

/// The four railway ranks.
const RAIL_RANKS: Bitboard = rank_mask(2) | rank_mask(6) | rank_mask(7) | rank_mask(11);
const FILE_A: Bitboard = file_mask(0);
const FILE_E: Bitboard = file_mask(4);
const fn file_mask(file: usize) -> Bitboard {
    let mut m = 0;
    let mut r = 1;
    while r <= RANKS {
        m |= bit(file, r);
        r += 1;
    }
    m
}

/// Railway nodes: the four rail ranks plus files a and e from rank 2 to 11.
pub const RAILWAY: Bitboard = RAIL_RANKS | (ranks_mask(2, 11) & (FILE_A | FILE_E));

// Sources of the four kinds of railway edge, for shift-based flood fill:
// x → x+1 along a rail rank, x → x+5 along files a/e (ranks 2..10) and c6 → c7.
const RAIL_RIGHT_SRC: Bitboard = RAIL_RANKS & !FILE_E;
const RAIL_LEFT_SRC: Bitboard = RAIL_RANKS & !FILE_A;
const RAIL_UP_SRC: Bitboard = (ranks_mask(2, 10) & (FILE_A | FILE_E)) | bit(2, 6);
const RAIL_DOWN_SRC: Bitboard = (ranks_mask(3, 11) & (FILE_A | FILE_E)) | bit(2, 7);

/// Nodes joined to some node of `x` by one railway edge.
#[inline]
pub const fn rail_neighbours(x: Bitboard) -> Bitboard {
    ((x & RAIL_RIGHT_SRC) << 1)
        | ((x & RAIL_LEFT_SRC) >> 1)
        | ((x & RAIL_UP_SRC) << FILES)
        | ((x & RAIL_DOWN_SRC) >> FILES)
}

/// True when `a`–`b` is a railway edge.
pub const fn is_rail_edge(a: usize, b: usize) -> bool {
    rail_neighbours(1u64 << a) & (1u64 << b) != 0
}

/// True when a camp diagonal joins `a` and `b`.
const fn is_camp_diagonal(a: usize, b: usize) -> bool {
    let (fa, ra) = ((a % FILES) as isize, (a / FILES) as isize);
    let (fb, rb) = ((b % FILES) as isize, (b / FILES) as isize);
    let diagonal = (fa - fb == 1 || fb - fa == 1) && (ra - rb == 1 || rb - ra == 1);
    diagonal && (CAMPS & ((1u64 << a) | (1u64 << b))) != 0
}

/// True when `a`–`b` is a road edge: an orthogonal neighbour pair inside one
/// half that is not a railway edge, or a camp diagonal.
const fn is_road_edge(a: usize, b: usize) -> bool {
    let (fa, ra) = (a % FILES, a / FILES);
    let (fb, rb) = (b % FILES, b / FILES);
    let same_half = (ra < 6) == (rb < 6);
    let orthogonal = (fa == fb && (ra + 1 == rb || rb + 1 == ra)) || (ra == rb && (fa + 1 == fb || fb + 1 == fa));
    (same_half && orthogonal && !is_rail_edge(a, b)) || is_camp_diagonal(a, b)
}

/// The neighbour table of an edge kind: `road_only` keeps the road edges,
/// otherwise road and railway edges both count.
const fn build_neighbours(road_only: bool) -> [Bitboard; NODES] {
    let mut t = [0u64; NODES];
    let mut a = 0;
    while a < NODES {
        let mut b = 0;
        while b < NODES {
            if a != b && (is_road_edge(a, b) || (!road_only && is_rail_edge(a, b))) {
                t[a] |= 1u64 << b;
            }
            b += 1;
        }
        a += 1;
    }
    t
}

/// One-step neighbours of every node, over road and railway edges (§3 Step).
pub const ADJACENT: [Bitboard; NODES] = build_neighbours(false);
/// Road (公路) neighbours only.
pub const ROAD_ADJACENT: [Bitboard; NODES] = build_neighbours(true);

/// A straight railway ray from a node: the nodes beyond it, in one direction,
/// up to the end of its line. `up` rays go to higher indices.
#[derive(Copy, Clone, Debug, Default)]
pub struct Rays {
    /// Along the rank line (+1) and the file line (+5), towards higher indices.
    pub up: [Bitboard; 2],
    /// The same lines towards lower indices.
    pub down: [Bitboard; 2],
}

const fn build_rays() -> [Rays; NODES] {
    let mut t = [Rays { up: [0; 2], down: [0; 2] }; NODES];
    let mut n = 0;
    while n < NODES {
        let b = 1u64 << n;
        // Along a rail rank: walk +1 / -1 while the edge is a rail edge.
        let mut x = b;
        while x & RAIL_RIGHT_SRC != 0 {
            x <<= 1;
            t[n].up[0] |= x;
        }
        x = b;
        while x & RAIL_LEFT_SRC != 0 {
            x >>= 1;
            t[n].down[0] |= x;
        }
        // Along files a, e and the c6–c7 crossing.
        x = b;
        while x & RAIL_UP_SRC != 0 {
            x <<= FILES;
            t[n].up[1] |= x;
        }
        x = b;
        while x & RAIL_DOWN_SRC != 0 {
            x >>= FILES;
            t[n].down[1] |= x;
        }
        n += 1;
    }
    t
}

/// Straight railway rays of every node (§3 Rail run).
pub const RAYS: [Rays; NODES] = build_rays();

/// Nodes a piece on `from` reaches by a straight rail run: along each ray,
/// every empty node up to and including the first occupied one.
#[inline]
pub fn rail_run_targets(from: Square, occupied: Bitboard) -> Bitboard {
    let rays = &RAYS[from.index()];
    let mut out = 0;
    for &ray in &rays.up {
        let blockers = ray & occupied;
        out |= if blockers == 0 {
            ray
        } else {
            let first = blockers.trailing_zeros();
            ray & ((2u64 << first) - 1)
        };
    }
    for &ray in &rays.down {
        let blockers = ray & occupied;
        out |= if blockers == 0 {
            ray
        } else {
            let first = 63 - blockers.leading_zeros();
            ray & !((1u64 << first) - 1)
        };
    }
    out
}

/// Nodes an engineer on `from` reaches by flight (§3 Engineer flight): every
/// railway node joined to `from` by a railway path whose intermediate nodes are
/// empty. Occupied nodes are included (the caller filters by what may be attacked).
#[inline]
pub fn flight_targets(from: Square, occupied: Bitboard) -> Bitboard {
    if from.bit() & RAILWAY == 0 {
        return 0;
    }
    let passable = RAILWAY & !occupied;
    let mut region = from.bit();
    loop {
        let grown = region | (rail_neighbours(region) & passable);
        if grown == region {
            break;
        }
        region = grown;
    }
    (region | rail_neighbours(region)) & !from.bit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn indices_follow_the_contract() {
        assert_eq!(s("a1").index(), 0);
        assert_eq!(s("e12").index(), 59);
        assert_eq!(s("c6").index(), 27);
        assert_eq!(s("c6").to_string(), "c6");
        assert!("f1".parse::<Square>().is_err());
        assert!("a13".parse::<Square>().is_err());
        assert!("a0".parse::<Square>().is_err());
        assert!("a01".parse::<Square>().is_err());
    }

    #[test]
    fn thirty_two_railway_nodes() {
        assert_eq!(RAILWAY.count_ones(), 32);
        assert_eq!(CAMPS.count_ones(), 10);
        assert_eq!(HEADQUARTERS.count_ones(), 4);
        assert_eq!(CAMPS & RAILWAY, 0);
        assert_eq!(HEADQUARTERS & RAILWAY, 0);
    }

    #[test]
    fn adjacency_is_symmetric() {
        for a in 0..NODES {
            for b in 0..NODES {
                assert_eq!(ADJACENT[a] >> b & 1, ADJACENT[b] >> a & 1, "{a} {b}");
            }
        }
    }
}
