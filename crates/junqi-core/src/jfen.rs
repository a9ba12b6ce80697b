//! JFEN, the position notation of docs/rules.md §7:
//! `<board> <mode> <turn> <colours> <quiet> <ply>`.

use crate::board::{Square, CAMPS, FILES, RANKS};
use crate::piece::{Colour, Kind, Piece, Seat};
use crate::position::{LooseFlag, Position};
use crate::rules::{ColorRule, Mode, Rules};

/// Why a JFEN string was rejected; every variant names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JfenError {
    #[error("JFEN needs 6 fields `<board> <mode> <turn> <colours> <quiet> <ply>`, found {0}")]
    FieldCount(usize),
    #[error("JFEN board: expected 12 ranks separated by `/`, found {0}")]
    RankCount(usize),
    #[error("JFEN board, rank {rank}: {problem}")]
    Rank { rank: usize, problem: String },
    #[error("JFEN board: {0}")]
    Board(String),
    #[error("JFEN mode: `{0}` is not anqi, mingqi or fanqi")]
    Mode(String),
    #[error("JFEN turn: `{0}` is not 1 or 2")]
    Turn(String),
    #[error("JFEN colours: `{found}` {problem}")]
    Colours { found: String, problem: String },
    #[error("JFEN {field}: `{found}` {problem}")]
    Counter { field: &'static str, found: String, problem: &'static str },
    #[error("rules are for {rules} but the position is {position}")]
    ModeMismatch { rules: Mode, position: Mode },
    #[error(
        "JFEN colours: seat 1 plays {seat1} but the rules say first_player = {first}; pass --set first_player={seat1}"
    )]
    FirstPlayerMismatch { seat1: &'static str, first: &'static str },
}

/// The mode field of a JFEN string, read without parsing the rest, so the
/// caller can pick the mode's default rules.
pub fn peek_mode(text: &str) -> Result<Mode, JfenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 6 {
        return Err(JfenError::FieldCount(fields.len()));
    }
    fields[1].parse::<Mode>().map_err(|_| JfenError::Mode(fields[1].to_string()))
}

/// Check that `rules` can govern `pos` (same mode; 暗棋/明棋 seat 1 colour
/// agrees with `first_player`).
pub(crate) fn check_rules_fit(pos: &Position, rules: &Rules) -> Result<(), JfenError> {
    if rules.mode != pos.rules.mode {
        return Err(JfenError::ModeMismatch { rules: rules.mode, position: pos.rules.mode });
    }
    if rules.mode != Mode::Fanqi {
        let first = rules.first_player.colour();
        if let Some(seat1) = pos.seat1 {
            if seat1 != first {
                return Err(JfenError::FirstPlayerMismatch { seat1: Colour::name(seat1), first: Colour::name(first) });
            }
        }
    }
    if let Some(p) = pos.mountain.iter().flatten().find(|p| !rules.mountains.admits(p.kind)) {
        return Err(JfenError::Board(format!(
            "a {} in a mountain (`^`), which mountains={} does not allow",
            p.kind.english(),
            rules.mountains.name()
        )));
    }
    if pos.mountain.iter().any(Option::is_some) && pos.seat1.is_none() {
        return Err(JfenError::Board("a piece in a mountain but colours are unassigned".into()));
    }
    if !rules.flag_carry && pos.loose.iter().any(Option::is_some) {
        return Err(JfenError::Board(
            "a flag shares a node with a piece (`+`/`-`), which needs flag_carry=true".into(),
        ));
    }
    if pos.loose.iter().any(Option::is_some) && pos.seat1.is_none() {
        return Err(JfenError::Board("a flag was picked up but colours are unassigned".into()));
    }
    // Under first_flip the first flip assigns colours, so nothing is face-up
    // and no previous flip is recorded while they are unassigned.
    if rules.mode == Mode::Fanqi && rules.color_rule == ColorRule::FirstFlip && pos.seat1.is_none() {
        if pos.last_flip.is_some() {
            return Err(JfenError::Colours {
                found: crate::jfen::colours_field(pos),
                problem: "records a previous flip, which only color_rule=two_in_a_row allows".into(),
            });
        }
        if pos.occupied & !pos.hidden != 0 {
            return Err(JfenError::Board(
                "face-up pieces while colours are unassigned: under color_rule=first_flip the first flip assigns them"
                    .into(),
            ));
        }
    }
    Ok(())
}

fn parse_counter(field: &'static str, text: &str) -> Result<u32, JfenError> {
    let bad = |problem| JfenError::Counter { field, found: text.to_string(), problem };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("is not a non-negative integer"));
    }
    text.parse::<u32>().map_err(|_| bad("is too large"))
}

impl Position {
    /// Parse a JFEN position to be played under `rules` (whose mode must match).
    pub fn from_jfen(text: &str, rules: Rules) -> Result<Position, JfenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(JfenError::FieldCount(fields.len()));
        }
        let mode: Mode = fields[1].parse().map_err(|_| JfenError::Mode(fields[1].to_string()))?;
        let mut pos = Position::empty(rules);
        pos.rules.mode = mode;
        parse_board(&mut pos, fields[0], mode)?;
        pos.turn = match fields[2] {
            "1" => Seat::First,
            "2" => Seat::Second,
            other => return Err(JfenError::Turn(other.to_string())),
        };
        parse_colours(&mut pos, fields[3], mode)?;
        pos.quiet = parse_counter("quiet", fields[4])?;
        pos.ply = parse_counter("ply", fields[5])?;
        check_counts(&pos)?;
        check_rules_fit(&pos, &rules)?;
        pos.rules = rules;
        Ok(pos)
    }

    /// The position in JFEN. Pieces a view does not know print as `?`.
    pub fn to_jfen(&self) -> String {
        to_jfen(self)
    }
}

fn parse_board(pos: &mut Position, board: &str, mode: Mode) -> Result<(), JfenError> {
    // `mountains`: `^xy` after the ranks holds the two mountains' pieces.
    let (board, mountains) = match board.split_once('^') {
        Some((b, m)) => (b, Some(m)),
        None => (board, None),
    };
    if let Some(m) = mountains {
        let cells: Vec<char> = m.chars().collect();
        if cells.len() != 2 {
            return Err(JfenError::Board(format!("mountains `^{m}`: expected two cells, `-` or a piece letter")));
        }
        for (i, &c) in cells.iter().enumerate() {
            if c == '-' {
                continue;
            }
            let piece = Piece::from_letter(c)
                .filter(|p| p.kind.is_movable())
                .ok_or_else(|| JfenError::Board(format!("mountains `^{m}`: `{c}` is not a movable piece")))?;
            pos.mountain[i] = Some(piece);
            pos.counts[piece.colour.index()][piece.kind.index()] += 1;
        }
    }
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != RANKS {
        return Err(JfenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = RANKS - i;
        let err = |problem: String| JfenError::Rank { rank, problem };
        let mut file = 0usize;
        let mut chars = text.chars().peekable();
        let mut after_digit = false;
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=5).contains(&d) {
                    return Err(err(format!("`{c}` is not an empty-run digit 1-5")));
                }
                if after_digit {
                    return Err(err(format!("`{text}` splits a run of empty nodes over two digits")));
                }
                after_digit = true;
                file += d as usize;
                if file > FILES {
                    return Err(err(format!("`{text}` describes more than 5 files")));
                }
                continue;
            }
            after_digit = false;
            let face_down = c == '~';
            let letter = if face_down {
                chars.next().ok_or_else(|| err("`~` must be followed by a piece letter".into()))?
            } else {
                c
            };
            let piece = Piece::from_letter(letter)
                .ok_or_else(|| err(format!("`{letter}` is not a piece letter (KGDROJCLEBMF, lower case for Black)")))?;
            if file >= FILES {
                return Err(err(format!("`{text}` describes more than 5 files")));
            }
            let sq = Square::from_coords(file, rank).expect("file and rank checked");
            if face_down {
                if mode != Mode::Fanqi {
                    return Err(err(format!(
                        "face-down piece `~{letter}` on {sq}, but only fanqi has face-down pieces"
                    )));
                }
                if CAMPS & sq.bit() != 0 {
                    return Err(err(format!(
                        "face-down piece on camp {sq}: camps start empty and face-down pieces never move"
                    )));
                }
            }
            pos.put(sq, piece, face_down);
            // flag_carry: `+f` after a piece carrying Black's flag, `-f` after
            // one standing on it (put down); `F` for Red's flag.
            if let Some(&mark) = chars.peek().filter(|&&c| c == '+' || c == '-') {
                chars.next();
                let flag = chars
                    .next()
                    .and_then(Piece::from_letter)
                    .filter(|p| p.kind == Kind::Flag)
                    .ok_or_else(|| err(format!("`{mark}` after the piece on {sq} must be followed by F or f")))?;
                if mode != Mode::Fanqi || face_down || !piece.kind.is_movable() {
                    return Err(err(format!(
                        "a flag with the piece on {sq}: only a face-up movable piece in fanqi can hold one"
                    )));
                }
                if mark == '+' && flag.colour == piece.colour {
                    return Err(err(format!("the piece on {sq} carries its own flag: only the enemy flag is carried")));
                }
                if pos.loose[flag.colour.index()].is_some() {
                    return Err(err(format!("a second {} flag on {sq}", Colour::name(flag.colour))));
                }
                pos.loose[flag.colour.index()] = Some(LooseFlag { at: sq, carried: mark == '+' });
                pos.counts[flag.colour.index()][Kind::Flag.index()] += 1;
            }
            file += 1;
        }
        if file != FILES {
            return Err(err(format!("`{text}` describes {file} files, not 5")));
        }
    }
    Ok(())
}

fn parse_colours(pos: &mut Position, text: &str, mode: Mode) -> Result<(), JfenError> {
    let err = |problem: &str| JfenError::Colours { found: text.to_string(), problem: problem.to_string() };
    let colour = |c: &str| match c {
        "r" => Some(Colour::Red),
        "b" => Some(Colour::Black),
        _ => None,
    };
    if let Some(rest) = text.strip_prefix('-') {
        if mode != Mode::Fanqi {
            return Err(err("must be `r` or `b` in anqi and mingqi (the colour of seat 1)"));
        }
        pos.seat1 = None;
        pos.last_flip = match rest {
            "" => None,
            c => Some(colour(c).ok_or_else(|| err("must be -, -r or -b before colours are assigned"))?),
        };
    } else {
        pos.seat1 = Some(colour(text).ok_or_else(|| err("must be r or b (seat 1's colour), or -, -r, -b in fanqi"))?);
        pos.last_flip = None;
    }
    Ok(())
}

/// Piece counts must be possible: at most the §2 army per colour, and not both flags gone.
fn check_counts(pos: &Position) -> Result<(), JfenError> {
    for colour in Colour::ALL {
        for kind in Kind::ALL {
            let n = pos.count(colour, kind);
            if n > kind.count() {
                return Err(JfenError::Board(format!(
                    "{} {} {} on the board, but a side has only {}",
                    n,
                    Colour::name(colour),
                    kind.english(),
                    kind.count()
                )));
            }
        }
    }
    let flags = pos.count(Colour::Red, Kind::Flag) + pos.count(Colour::Black, Kind::Flag);
    // Both flags leave together only under 混棋, when two moving flags meet.
    if flags == 0 && !pos.rules.hunqi {
        return Err(JfenError::Board(
            "both flags are gone; a game ends when the first is captured (both go together only under hunqi)".into(),
        ));
    }
    if pos.seat1.is_none() && flags < 2 {
        return Err(JfenError::Board(
            "a flag is gone but colours are unassigned; nothing can be captured before colours are assigned".into(),
        ));
    }
    Ok(())
}

/// Print `pos` as JFEN.
pub fn to_jfen(pos: &Position) -> String {
    let mut out = String::with_capacity(96);
    for rank in (1..=RANKS).rev() {
        let mut empty = 0;
        for file in 0..FILES {
            let sq = Square::from_coords(file, rank).unwrap();
            if !pos.is_occupied(sq) {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(char::from_digit(empty, 10).unwrap());
                empty = 0;
            }
            if pos.is_face_down(sq) {
                out.push('~');
            }
            out.push(pos.piece_at(sq).map_or('?', Piece::letter));
            for flag in Colour::ALL {
                if let Some(l) = pos.loose[flag.index()].filter(|l| l.at == sq) {
                    out.push(if l.carried { '+' } else { '-' });
                    out.push(Piece::new(flag, Kind::Flag).letter());
                }
            }
        }
        if empty > 0 {
            out.push(char::from_digit(empty, 10).unwrap());
        }
        if rank > 1 {
            out.push('/');
        }
    }
    if pos.mountain.iter().any(Option::is_some) {
        out.push('^');
        for m in pos.mountain {
            out.push(m.map_or('-', Piece::letter));
        }
    }
    format!("{} {} {} {} {} {}", out, pos.mode(), pos.turn.number(), colours_field(pos), pos.quiet, pos.ply)
}

/// The colours field of §7: `r`/`b` (seat 1's colour), or `-`, `-r`, `-b`.
pub(crate) fn colours_field(pos: &Position) -> String {
    match (pos.seat1, pos.last_flip) {
        (Some(c), _) => c.letter().to_string(),
        (None, None) => "-".to_string(),
        (None, Some(c)) => format!("-{}", c.letter()),
    }
}
