//! The four-seat position notation of docs/rules.md §10.4, both ways.
//!
//! ```text
//! <board> <mode> <turn> <ended> <quiet> <ply>
//! ```
//!
//! The board is five groups separated by `/`: the zones of armies `s`, `e`,
//! `n`, `w`, each as its six ranks from the front (rank 6) to the back
//! (rank 1) separated by `,` and read from file `a` to `e`, then the nine
//! centre nodes in index order (`m ms me mn mw mse men mnw mws`). A piece is
//! its kind letter (§2, upper case) followed by its army's letter; a digit
//! stands for that many empty nodes.

use crate::board::{Army, Node, MIDDLE, ZONE};
use crate::position::{EndCause, Piece, Position};
use crate::rules::{Mode, Rules};
use junqi_core::piece::Kind;
use std::fmt::Write;

/// Why a position text was rejected; every variant names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("expected 6 fields (<board> <mode> <turn> <ended> <quiet> <ply>), found {0}")]
    Fields(usize),
    #[error("board: {0}")]
    Board(String),
    #[error("mode: expected anqi, shuangming or quanming, found `{0}`")]
    Mode(String),
    #[error("turn: expected an army letter s, e, n or w, found `{0}`")]
    Turn(String),
    #[error(
        "ended: expected `-` or army letters each followed by f (flag captured) or x (no legal move), found `{0}`"
    )]
    Ended(String),
    #[error("{field}: expected a number, found `{text}`")]
    Number { field: &'static str, text: String },
    #[error("turn: army {0} has ended and cannot be to move")]
    TurnEnded(char),
}

fn ranks_of_zone(army: Army) -> impl Iterator<Item = Vec<Node>> {
    (1..=6).rev().map(move |rank| {
        (0..5).map(move |file| Node::new((army.index() * ZONE) + (rank - 1) * 5 + file).unwrap()).collect()
    })
}

fn centre() -> Vec<Node> {
    (MIDDLE..MIDDLE + 9).map(|i| Node::new(i).unwrap()).collect()
}

/// What the board part of the notation says about one node: the army of its
/// piece and its kind, `None` where the text writes `?` (a kind not known).
pub type Square = Option<(Army, Option<Kind>)>;

fn write_run(out: &mut String, nodes: &[Node], at: &impl Fn(Node) -> Square) {
    let mut empty = 0;
    for &n in nodes {
        match at(n) {
            None => empty += 1,
            Some((army, kind)) => {
                if empty > 0 {
                    write!(out, "{empty}").unwrap();
                    empty = 0;
                }
                out.push(kind.map_or('?', |k| k.letter()));
                out.push(army.letter());
            }
        }
    }
    if empty > 0 {
        write!(out, "{empty}").unwrap();
    }
}

/// Write the board part of the notation (the four zones in army order, rank
/// 6 to rank 1 separated by `,`, each zone ended by `/`, then the centre),
/// with what `at` says of each node; a kind `None` is written `?`.
pub fn write_board(out: &mut String, at: impl Fn(Node) -> Square) {
    for army in Army::ALL {
        for (i, rank) in ranks_of_zone(army).enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_run(out, &rank, &at);
        }
        out.push('/');
    }
    write_run(out, &centre(), &at);
}

/// The position as one line of §10.4 notation.
pub fn to_notation(pos: &Position) -> String {
    let mut out = String::new();
    write_board(&mut out, |n| pos.piece_at(n).map(|p| (p.army, Some(p.kind))));
    let mut ended = String::new();
    for army in Army::ALL {
        if let Some(cause) = pos.ended(army) {
            ended.push(army.letter());
            ended.push(match cause {
                EndCause::FlagCaptured => 'f',
                EndCause::NoLegalMove => 'x',
            });
        }
    }
    if ended.is_empty() {
        ended.push('-');
    }
    write!(out, " {} {} {} {} {}", pos.rules().mode, pos.turn().letter(), ended, pos.quiet(), pos.ply()).unwrap();
    out
}

fn read_run(
    text: &str,
    nodes: &[Node],
    unknown: bool,
    put: &mut impl FnMut(Node, Army, Option<Kind>),
    what: &str,
) -> Result<(), String> {
    let bad = |msg: String| format!("{what}: {msg}");
    let not_a_kind = |c: char| bad(format!("`{c}` is not a kind letter{}", if unknown { " or `?`" } else { "" }));
    let mut i = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if let Some(d) = c.to_digit(10) {
            if d == 0 {
                return Err(bad("a run of empty nodes is 1 to 9".into()));
            }
            i += d as usize;
        } else {
            let kind = match c {
                '?' if unknown => None,
                c => Some(Kind::from_letter(c).filter(|_| c.is_ascii_uppercase()).ok_or_else(|| not_a_kind(c))?),
            };
            let army = chars
                .next()
                .and_then(Army::from_letter)
                .ok_or_else(|| bad(format!("`{c}` must be followed by an army letter s, e, n or w")))?;
            if i >= nodes.len() {
                return Err(bad(format!("more than {} nodes", nodes.len())));
            }
            put(nodes[i], army, kind);
            i += 1;
        }
        if i > nodes.len() {
            return Err(bad(format!("more than {} nodes", nodes.len())));
        }
    }
    if i != nodes.len() {
        return Err(bad(format!("{i} nodes, expected {}", nodes.len())));
    }
    Ok(())
}

/// Read the board part of the notation, already split at `/` into its five
/// groups (the four zones in army order, then the centre), handing every
/// piece to `put` with its node. With `unknown`, `?` stands for a kind not
/// known (as in the engine protocol's views); without it only kind letters
/// are read. An error names the zone or the centre and what is wrong.
pub fn read_board(
    groups: &[&str; 5],
    unknown: bool,
    mut put: impl FnMut(Node, Army, Option<Kind>),
) -> Result<(), String> {
    for army in Army::ALL {
        let ranks: Vec<&str> = groups[army.index()].split(',').collect();
        if ranks.len() != 6 {
            return Err(format!("zone {}: {} ranks, expected 6", army.letter(), ranks.len()));
        }
        for (text, nodes) in ranks.iter().zip(ranks_of_zone(army)) {
            read_run(text, &nodes, unknown, &mut put, &format!("zone {}", army.letter()))?;
        }
    }
    read_run(groups[4], &centre(), unknown, &mut put, "centre")
}

/// Read a position under `rules` (whose mode must match the text's; the
/// other options are not part of the notation). The army to move is settled
/// as if its turn had just come (§10.8).
pub fn parse(text: &str, rules: Rules) -> Result<Position, NotationError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 6 {
        return Err(NotationError::Fields(fields.len()));
    }
    let mode: Mode = fields[1].parse().map_err(|_| NotationError::Mode(fields[1].to_string()))?;
    let mut pos = Position::empty(Rules { mode, ..rules });
    let groups: Vec<&str> = fields[0].split('/').collect();
    if groups.len() != 5 {
        return Err(NotationError::Board(format!(
            "{} groups separated by `/`, expected 5 (four zones and the centre)",
            groups.len()
        )));
    }
    let groups: [&str; 5] = groups.try_into().expect("five groups");
    read_board(&groups, false, |node, army, kind| pos.put(node, Piece::new(army, kind.expect("a kind letter"))))
        .map_err(NotationError::Board)?;
    for army in Army::ALL {
        for kind in Kind::ALL {
            if pos.count(army, kind) > kind.count() {
                return Err(NotationError::Board(format!(
                    "army {} has {} {}(s), an army has {}",
                    army.letter(),
                    pos.count(army, kind),
                    kind.english(),
                    kind.count()
                )));
            }
        }
    }
    let turn = match fields[2].chars().collect::<Vec<_>>()[..] {
        [c] => Army::from_letter(c),
        _ => None,
    }
    .ok_or_else(|| NotationError::Turn(fields[2].to_string()))?;
    if fields[3] != "-" {
        let chars: Vec<char> = fields[3].chars().collect();
        if !chars.len().is_multiple_of(2) {
            return Err(NotationError::Ended(fields[3].to_string()));
        }
        for pair in chars.chunks(2) {
            let army = Army::from_letter(pair[0]).ok_or_else(|| NotationError::Ended(fields[3].to_string()))?;
            let cause = match pair[1] {
                'f' => EndCause::FlagCaptured,
                'x' => EndCause::NoLegalMove,
                _ => return Err(NotationError::Ended(fields[3].to_string())),
            };
            if pos.ended(army).is_some() || pos.pieces().any(|(_, p)| p.army == army) {
                return Err(NotationError::Ended(format!(
                    "{} (army {} listed twice or still has pieces)",
                    fields[3], pair[0]
                )));
            }
            pos.set_ended(army, Some(cause));
        }
    }
    if pos.ended(turn).is_some() {
        return Err(NotationError::TurnEnded(turn.letter()));
    }
    let number = |field: &'static str, text: &str| {
        text.parse::<u32>().map_err(|_| NotationError::Number { field, text: text.to_string() })
    };
    let (quiet, ply) = (number("quiet", fields[4])?, number("ply", fields[5])?);
    pos.set_turn(turn);
    pos.set_counters(quiet, ply);
    pos.settle();
    Ok(pos)
}
