//! Colours, piece kinds and pieces (docs/rules.md §2).

use std::fmt;

/// A side's colour. Red owns ranks 1–6 in 暗棋/明棋; in 翻棋 colours are won by flipping.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    Red = 0,
    Black = 1,
}

impl Colour {
    pub const ALL: [Colour; 2] = [Colour::Red, Colour::Black];
    #[inline]
    pub const fn other(self) -> Colour {
        match self {
            Colour::Red => Colour::Black,
            Colour::Black => Colour::Red,
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    pub const fn letter(self) -> char {
        match self {
            Colour::Red => 'r',
            Colour::Black => 'b',
        }
    }
    /// `red` / `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Black => "black",
        }
    }
    pub fn chinese(self) -> &'static str {
        match self {
            Colour::Red => "红",
            Colour::Black => "黑",
        }
    }
}

/// A seat: seat 1 moves first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    First = 0,
    Second = 1,
}

impl Seat {
    pub const BOTH: [Seat; 2] = [Seat::First, Seat::Second];
    #[inline]
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// 1 or 2, as written in JFEN and results.
    pub const fn number(self) -> u8 {
        self as u8 + 1
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.number())
    }
}

/// The twelve kinds of piece. Officers come first in rank order, so
/// `Commander < General < … < Engineer` in declaration order means *stronger*.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Commander = 0,
    General = 1,
    Division = 2,
    Brigade = 3,
    Regiment = 4,
    Battalion = 5,
    Company = 6,
    Platoon = 7,
    Engineer = 8,
    Bomb = 9,
    Mine = 10,
    Flag = 11,
}

/// Number of piece kinds.
pub const KINDS: usize = 12;

/// Bit set over kinds (bit `k` = `Kind` with index `k`).
pub type KindSet = u16;
pub const ALL_KINDS: KindSet = (1 << KINDS) - 1;
/// Officers and engineers: the pieces that fight by rank.
pub const RANKED: KindSet = (1 << 9) - 1;
/// Officers, engineers and bombs: the pieces that can move (§5.1 End).
pub const MOVABLE: KindSet = RANKED | (1 << Kind::Bomb as u16);

impl Kind {
    pub const ALL: [Kind; KINDS] = [
        Kind::Commander,
        Kind::General,
        Kind::Division,
        Kind::Brigade,
        Kind::Regiment,
        Kind::Battalion,
        Kind::Company,
        Kind::Platoon,
        Kind::Engineer,
        Kind::Bomb,
        Kind::Mine,
        Kind::Flag,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub const fn from_index(i: usize) -> Option<Kind> {
        if i < KINDS {
            Some(Kind::ALL[i])
        } else {
            None
        }
    }
    #[inline]
    pub const fn bit(self) -> KindSet {
        1 << self as u16
    }

    /// Pieces of this kind per side at the start (§2).
    pub const fn count(self) -> u8 {
        match self {
            Kind::Commander | Kind::General | Kind::Flag => 1,
            Kind::Division | Kind::Brigade | Kind::Regiment | Kind::Battalion | Kind::Bomb => 2,
            Kind::Company | Kind::Platoon | Kind::Engineer | Kind::Mine => 3,
        }
    }

    /// Officers and the engineer fight by rank.
    #[inline]
    pub const fn is_ranked(self) -> bool {
        (self as u8) <= Kind::Engineer as u8
    }
    /// Flag and mines never move.
    #[inline]
    pub const fn is_movable(self) -> bool {
        (self as u8) <= Kind::Bomb as u8
    }
    /// Chinese numeric name: 司令 = 40 … 工兵 = 32 (only for ranked pieces).
    pub const fn number(self) -> Option<u8> {
        if self.is_ranked() {
            Some(40 - self as u8)
        } else {
            None
        }
    }

    /// Upper-case letter of docs/rules.md §2.
    pub const fn letter(self) -> char {
        match self {
            Kind::Commander => 'K',
            Kind::General => 'G',
            Kind::Division => 'D',
            Kind::Brigade => 'R',
            Kind::Regiment => 'O',
            Kind::Battalion => 'J',
            Kind::Company => 'C',
            Kind::Platoon => 'L',
            Kind::Engineer => 'E',
            Kind::Bomb => 'B',
            Kind::Mine => 'M',
            Kind::Flag => 'F',
        }
    }
    /// Accepts the letter in either case.
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.letter() == c.to_ascii_uppercase())
    }

    pub const fn chinese(self) -> &'static str {
        match self {
            Kind::Commander => "司令",
            Kind::General => "军长",
            Kind::Division => "师长",
            Kind::Brigade => "旅长",
            Kind::Regiment => "团长",
            Kind::Battalion => "营长",
            Kind::Company => "连长",
            Kind::Platoon => "排长",
            Kind::Engineer => "工兵",
            Kind::Bomb => "炸弹",
            Kind::Mine => "地雷",
            Kind::Flag => "军旗",
        }
    }
    pub const fn english(self) -> &'static str {
        match self {
            Kind::Commander => "commander",
            Kind::General => "general",
            Kind::Division => "division",
            Kind::Brigade => "brigade",
            Kind::Regiment => "regiment",
            Kind::Battalion => "battalion",
            Kind::Company => "company",
            Kind::Platoon => "platoon",
            Kind::Engineer => "engineer",
            Kind::Bomb => "bomb",
            Kind::Mine => "mine",
            Kind::Flag => "flag",
        }
    }

    /// Iterate over the kinds in a set.
    pub fn in_set(set: KindSet) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |k| set & k.bit() != 0)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.english())
    }
}

/// A piece: a colour and a kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub colour: Colour,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(colour: Colour, kind: Kind) -> Piece {
        Piece { colour, kind }
    }
    /// Upper case for Red, lower case for Black.
    pub fn letter(self) -> char {
        match self.colour {
            Colour::Red => self.kind.letter(),
            Colour::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }
    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        let colour = if c.is_ascii_uppercase() { Colour::Red } else { Colour::Black };
        Some(Piece { colour, kind })
    }
}

/// The full set of 25 pieces one side starts with, as (kind, count).
pub fn full_army() -> impl Iterator<Item = Kind> {
    Kind::ALL.into_iter().flat_map(|k| std::iter::repeat_n(k, k.count() as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn army_has_25_pieces_as_in_section_2() {
        assert_eq!(full_army().count(), 25);
        assert_eq!(Kind::Commander.number(), Some(40));
        assert_eq!(Kind::Engineer.number(), Some(32));
        assert_eq!(Kind::Bomb.number(), None);
        for k in Kind::ALL {
            assert_eq!(Kind::from_letter(k.letter()), Some(k));
            assert_eq!(Kind::from_letter(k.letter().to_ascii_lowercase()), Some(k));
        }
        assert_eq!(Piece::from_letter('k'), Some(Piece::new(Colour::Black, Kind::Commander)));
        assert_eq!(Piece::from_letter('x'), None);
    }
}
