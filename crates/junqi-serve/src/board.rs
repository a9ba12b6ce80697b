//! The board as the page draws it: its geometry once ([`geometry`]), and
//! each position as 60 short tokens ([`encode`]) in square order `a1` … `e12`.
//!
//! Tokens: `.` an empty node; `#` a face-down piece (翻棋); `#rX` a
//! face-down piece the view knows (the omniscient replay only); `rX` / `bX`
//! a red / black piece of kind `X` (the JFEN letter); `r?` / `b?` a piece
//! of that colour whose kind the view does not know; `??` a piece of
//! unknown colour. A seat's view comes from its information set, whose
//! position has every hidden kind erased, so its tokens cannot carry one.
//! Beside the tokens, [`extras`]: a flag riding on or lying under a piece
//! (扛军旗) and the pieces in the mountains (山界), both public.

use junqi_core::board::{is_rail_edge, mountain_of, ADJACENT, CAMPS, HEADQUARTERS, NODES, RAILWAY};
use junqi_core::rules::Mountains;
use junqi_core::{Colour, Kind, Move, Piece, Position, Square};
use serde::Serialize;

/// Nodes, edges and piece kinds, for drawing.
#[derive(Serialize)]
pub struct Geometry {
    pub squares: Vec<SquareInfo>,
    pub edges: Vec<Edge>,
    pub kinds: Vec<KindInfo>,
    /// 山界: each mountain's four side nodes (`b6`–`b7`'s first), from
    /// which a piece enters it and onto which it comes out.
    pub mountains: Vec<Vec<String>>,
}

#[derive(Serialize)]
pub struct SquareInfo {
    pub name: String,
    /// 0 = a … 4 = e.
    pub file: usize,
    /// 1 ..= 12.
    pub rank: usize,
    pub camp: bool,
    pub hq: bool,
    pub rail: bool,
}

/// A road or railway edge between two nodes (by index).
#[derive(Serialize)]
pub struct Edge {
    pub a: usize,
    pub b: usize,
    pub rail: bool,
}

#[derive(Serialize)]
pub struct KindInfo {
    pub letter: char,
    pub chinese: &'static str,
    pub english: &'static str,
    /// Pieces of this kind in one army.
    pub count: u8,
}

pub fn geometry() -> Geometry {
    let squares = Square::all()
        .map(|sq| SquareInfo {
            name: sq.to_string(),
            file: sq.file(),
            rank: sq.rank(),
            camp: CAMPS & sq.bit() != 0,
            hq: HEADQUARTERS & sq.bit() != 0,
            rail: RAILWAY & sq.bit() != 0,
        })
        .collect();
    let mut edges = Vec::new();
    for a in 0..NODES {
        for b in a + 1..NODES {
            if ADJACENT[a] & (1u64 << b) != 0 {
                edges.push(Edge { a, b, rail: is_rail_edge(a, b) });
            }
        }
    }
    let kinds = Kind::ALL
        .into_iter()
        .map(|k| KindInfo { letter: k.letter(), chinese: k.chinese(), english: k.english(), count: k.count() })
        .collect();
    let mountains = (0..2)
        .map(|m| Square::all().filter(|&sq| mountain_of(sq) == Some(m)).map(|sq| sq.to_string()).collect())
        .collect();
    Geometry { squares, edges, kinds, mountains }
}

/// A flag sharing its node with a piece (扛军旗, `flag_carry`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct FlagOnPiece {
    /// The flag's colour: `red` or `black`.
    pub colour: &'static str,
    /// The node of the piece carrying it, or standing on it.
    pub at: String,
    /// Carried (it moves with the piece), or put down under it.
    pub carried: bool,
    /// A carried flag: the node it was picked up from, when known.
    pub from: Option<String>,
}

/// What a position holds beside its 60 tokens; empty in the older rules.
#[derive(Serialize, Debug, Clone, Default, PartialEq)]
pub struct Extras {
    /// Flags riding on or lying under a piece.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loose_flags: Vec<FlagOnPiece>,
    /// With the mountains open: the piece in each (a token) or `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mountains: Option<[Option<String>; 2]>,
}

/// Where each colour's flag was last picked up (扛军旗), followed move by
/// move: the page marks that node as the flag's, now gone.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlagOrigins([Option<Square>; 2]);

impl FlagOrigins {
    /// Notes a pick-up by `mv` (from `before` to `after`): a flag now
    /// carried from the node the piece moved onto, not carried before.
    pub fn note(&mut self, before: &Position, after: &Position, mv: Move) {
        if mv.is_flip() {
            return;
        }
        if let Some(flag) = after.carried_flag_at(mv.to) {
            if before.carried_flag_at(mv.from) != Some(flag) {
                self.0[flag.index()] = Some(mv.to);
            }
        }
    }
}

/// The flags on pieces and the mountains' pieces of `pos` (the truth, or
/// a seat's view: both are public, as a carried flag was face up when
/// picked up and only a face-up piece enters a mountain).
pub fn extras(pos: &Position, origins: &FlagOrigins) -> Extras {
    let loose_flags = Colour::ALL
        .into_iter()
        .filter_map(|c| {
            let l = pos.loose_flag(c)?;
            Some(FlagOnPiece {
                colour: c.name(),
                at: l.at.to_string(),
                carried: l.carried,
                from: origins.0[c.index()].filter(|_| l.carried).map(|sq| sq.to_string()),
            })
        })
        .collect();
    let mountains =
        (pos.rules().mountains != Mountains::Closed).then(|| [0, 1].map(|m| pos.mountain(m).map(piece_token)));
    Extras { loose_flags, mountains }
}

fn colour_letter(c: Colour) -> char {
    match c {
        Colour::Red => 'r',
        Colour::Black => 'b',
    }
}

/// One piece as a token: colour letter and kind letter.
pub fn piece_token(p: Piece) -> String {
    format!("{}{}", colour_letter(p.colour), p.kind.letter())
}

/// `pos` (the truth, or a seat's view) as 60 tokens joined by spaces.
pub fn encode(pos: &Position) -> String {
    let mut out = String::with_capacity(NODES * 3);
    for sq in Square::all() {
        if sq.index() > 0 {
            out.push(' ');
        }
        let token = if !pos.is_occupied(sq) {
            ".".to_string()
        } else if pos.is_face_down(sq) {
            match pos.piece_at(sq) {
                Some(p) => format!("#{}", piece_token(p)),
                None => "#".to_string(),
            }
        } else {
            match pos.piece_at(sq) {
                Some(p) => piece_token(p),
                None => match pos.colour_at(sq) {
                    Some(c) => format!("{}?", colour_letter(c)),
                    None => "??".to_string(),
                },
            }
        };
        out.push_str(&token);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Game, Mode, Rules, Seat};

    #[test]
    fn geometry_has_every_node_and_the_railway() {
        let g = geometry();
        assert_eq!(g.squares.len(), 60);
        assert_eq!(g.squares.iter().filter(|s| s.camp).count(), 10);
        assert_eq!(g.squares.iter().filter(|s| s.hq).count(), 4);
        assert!(g.edges.iter().any(|e| e.rail) && g.edges.iter().any(|e| !e.rail));
        assert_eq!(g.kinds.iter().map(|k| k.count as u32).sum::<u32>(), 25);
    }

    #[test]
    fn a_seat_view_of_an_anqi_game_shows_no_enemy_kind() {
        let start = Position::new_game(Rules::preset(Mode::Anqi), 7);
        let game = Game::new(start);
        let truth = encode(game.truth());
        assert_eq!(truth.split(' ').count(), 60);
        assert!(truth.split(' ').all(|t| t == "." || t.len() == 2 && !t.ends_with('?')));
        for seat in Seat::BOTH {
            let view = game.infoset(seat).view();
            let own = view.colour_of(seat).unwrap();
            let (mine, theirs) = match own {
                Colour::Red => ('r', 'b'),
                Colour::Black => ('b', 'r'),
            };
            let text = encode(view);
            let tokens: Vec<&str> = text.split(' ').collect();
            assert_eq!(tokens.iter().filter(|t| t.starts_with(mine) && !t.ends_with('?')).count(), 25);
            assert_eq!(tokens.iter().filter(|t| **t == format!("{theirs}?")).count(), 25, "{tokens:?}");
        }
    }
}
