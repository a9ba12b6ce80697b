//! Text game records: JGN, a PGN-like format for the rows of `games/`
//! (specified in `docs/records.md`).
//!
//! A record is a block of tag pairs (`[Name "value"]`, one per line), a
//! blank line, then the moves, numbered like PGN (`1. a6a7 a7a6 2. …`) and
//! wrapped at 80 columns, ending with the result token; a blank line ends
//! the record. Every column of a `games/` row has its tag, so writing a row
//! as a record and reading it back gives the row again, column for column
//! ([`write_record`], [`RecordReader`]).

use crate::StoredGame;
use junqi_core::rules::{option_applies, OPTION_NAMES};
use junqi_core::{Mode, Move, Position, Rules, Seat};
use serde_json::Value;
use std::io::BufRead;

/// The three results a record may hold, from seat 1's side.
pub const RESULTS: [&str; 3] = ["1-0", "0-1", "1/2-1/2"];
/// The longest line of moves [`write_record`] writes.
pub const WRAP_COLUMNS: usize = 80;
/// The longest line [`RecordReader`] reads (a longer one is an error, not
/// an allocation without end).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The tags of a record, in the order [`write_record`] writes them.
pub mod tag {
    pub const EVENT: &str = "Event";
    pub const GAME_ID: &str = "GameId";
    pub const MODE: &str = "Mode";
    pub const RULES: &str = "Rules";
    pub const RULES_JSON: &str = "RulesJSON";
    pub const SEAT1: &str = "Seat1";
    pub const SEAT2: &str = "Seat2";
    pub const RESULT: &str = "Result";
    pub const TERMINATION: &str = "Termination";
    pub const PLIES: &str = "Plies";
    pub const SEED: &str = "Seed";
    pub const CODE_VERSION: &str = "CodeVersion";
    pub const START: &str = "Start";
}

/// Why a row cannot be written as a record, or cannot be a row: the
/// checks both directions share, so that whatever [`write_record`] writes,
/// [`RecordReader`] reads back.
fn check_game(g: &StoredGame) -> Result<(Rules, Seat), String> {
    let texts = [
        ("rules", &g.rules),
        ("start position", &g.start_jfen),
        ("termination", &g.termination),
        ("seat 1 bot", &g.bots[0]),
        ("seat 2 bot", &g.bots[1]),
        ("code version", &g.code_version),
    ];
    for (what, text) in texts {
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            return Err(format!("the {what} holds the control character {c:?}, which a tag value cannot"));
        }
    }
    let rules = crate::stored_rules::stored_rules(&g.rules).map_err(|e| format!("the rules are not valid: {e}"))?;
    let start = Position::from_jfen(&g.start_jfen, rules).map_err(|e| format!("start position: {e}"))?;
    if !RESULTS.contains(&g.result.as_str()) {
        return Err(format!("result `{}` is none of 1-0, 0-1, 1/2-1/2", g.result));
    }
    check_termination(&g.termination)?;
    if g.plies as usize != g.moves.len() {
        return Err(format!("plies {} but {} moves", g.plies, g.moves.len()));
    }
    for (i, m) in g.moves.iter().enumerate() {
        check_move(m).map_err(|e| format!("move {}: {e}", i + 1))?;
    }
    Ok((rules, start.turn()))
}

/// A termination is a name like `flag_captured` (`junqi replay` checks
/// that it is the one the rules give).
pub(crate) fn check_termination(t: &str) -> Result<(), String> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return Err(format!("termination `{t}` is not a name like `flag_captured`"));
    }
    Ok(())
}

/// A move in its one spelling (`a6a7`, a flip `c6c6`).
fn check_move(text: &str) -> Result<(), String> {
    let mv: Move = text.parse().map_err(|e| format!("`{text}` is not a move ({e})"))?;
    if mv.to_string() != text {
        return Err(format!("`{text}` is not written as a record writes it: `{mv}`"));
    }
    Ok(())
}

/// A number in its one spelling: digits, no sign, no leading zero.
pub(crate) fn canonical_number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits || (text.len() > 1 && text.starts_with('0')) {
        return Err(format!("`{text}` is not a number (decimal digits, no leading zero)"));
    }
    text.parse().map_err(|_| format!("`{text}` is out of range"))
}

/// The rules' options that apply to their mode, as `option=value` words in
/// the order of docs/rules.md §6 (`rail_turns=engineer bomb_flies=false …`).
fn compact_rules(rules: &Rules) -> String {
    let value = serde_json::to_value(rules).expect("rules serialize");
    let words = OPTION_NAMES.iter().filter(|n| option_applies(n, rules.mode)).filter_map(|n| {
        value.get(*n).map(|v| match v {
            Value::String(s) => format!("{n}={s}"),
            other => format!("{n}={other}"),
        })
    });
    words.collect::<Vec<_>>().join(" ")
}

/// The rules of a `Rules` tag: `mode` from the `Mode` tag, each option from
/// its word, the options left out (those that do not apply to the mode) at
/// their defaults.
fn rules_from_compact(mode: Mode, text: &str) -> Result<Rules, String> {
    let mut map = serde_json::Map::new();
    map.insert("mode".into(), Value::String(mode.name().into()));
    if !text.is_empty() {
        for word in text.split(' ') {
            let (name, value) = word
                .split_once('=')
                .filter(|(n, v)| !n.is_empty() && !v.is_empty())
                .ok_or_else(|| format!("`{word}` is not option=value (words are separated by one space)"))?;
            if name == "mode" {
                return Err("the mode goes in the Mode tag, not in Rules".into());
            }
            if !OPTION_NAMES.contains(&name) {
                return Err(format!("unknown rule option `{name}`"));
            }
            if !option_applies(name, mode) {
                return Err(format!("option `{name}` does not apply to {mode}"));
            }
            let value = match value {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                v if v.bytes().all(|b| b.is_ascii_digit()) => {
                    Value::Number(canonical_number::<u64>(v).map_err(|e| format!("{name}: {e}"))?.into())
                }
                v => Value::String(v.into()),
            };
            if map.insert(name.into(), value).is_some() {
                return Err(format!("option `{name}` is given twice"));
            }
        }
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())
}

/// The rules' tag: `Rules` with the options as words when they give back
/// the stored JSON exactly (every dataset this program writes), else
/// `RulesJSON` with the stored JSON as it is.
fn rules_tag(json: &str, rules: &Rules) -> (&'static str, String) {
    let compact = compact_rules(rules);
    let back = rules_from_compact(rules.mode, &compact).ok().and_then(|r| serde_json::to_string(&r).ok());
    if back.as_deref() == Some(json) {
        (tag::RULES, compact)
    } else {
        (tag::RULES_JSON, json.to_string())
    }
}

/// A tag value in double quotes, `\` and `"` escaped with a backslash.
pub(crate) fn push_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("\"]\n");
}

/// Lines of at most [`WRAP_COLUMNS`] (a longer unit gets a line of its own).
pub(crate) struct Wrapped<'a> {
    pub(crate) out: &'a mut String,
    pub(crate) line: usize,
}

impl Wrapped<'_> {
    pub(crate) fn push(&mut self, unit: &str) {
        if self.line > 0 && self.line + 1 + unit.len() > WRAP_COLUMNS {
            self.out.push('\n');
            self.line = 0;
        }
        if self.line > 0 {
            self.out.push(' ');
            self.line += 1;
        }
        self.out.push_str(unit);
        self.line += unit.len();
    }
}

/// Append the record of `game` to `out`: its tags (`Event` first when
/// given), a blank line, the numbered moves and the result, a blank line.
/// `Err` says why the row cannot be a record (a value a tag cannot hold,
/// an unknown result, a move not written as moves are, plies that are not
/// the number of moves, rules or a start position that do not parse).
pub fn write_record(out: &mut String, game: &StoredGame, event: Option<&str>) -> Result<(), String> {
    let (rules, first) = check_game(game)?;
    if let Some(e) = event {
        if e.chars().any(char::is_control) {
            return Err("the event holds a control character, which a tag value cannot".into());
        }
        push_tag(out, tag::EVENT, e);
    }
    push_tag(out, tag::GAME_ID, &game.game_id.to_string());
    push_tag(out, tag::MODE, rules.mode.name());
    let (name, value) = rules_tag(&game.rules, &rules);
    push_tag(out, name, &value);
    push_tag(out, tag::SEAT1, &game.bots[0]);
    push_tag(out, tag::SEAT2, &game.bots[1]);
    push_tag(out, tag::RESULT, &game.result);
    push_tag(out, tag::TERMINATION, &game.termination);
    push_tag(out, tag::PLIES, &game.plies.to_string());
    push_tag(out, tag::SEED, &game.seed.to_string());
    push_tag(out, tag::CODE_VERSION, &game.code_version);
    push_tag(out, tag::START, &game.start_jfen);
    out.push('\n');
    let offset = usize::from(first == Seat::Second);
    let mut w = Wrapped { out, line: 0 };
    for (i, m) in game.moves.iter().enumerate() {
        let p = i + offset;
        // A move number stays on the line of the move it numbers.
        if p % 2 == 0 {
            w.push(&format!("{}. {m}", p / 2 + 1));
        } else if i == 0 {
            w.push(&format!("1... {m}"));
        } else {
            w.push(m);
        }
    }
    w.push(&game.result);
    out.push_str("\n\n");
    Ok(())
}

/// The record of `game` as a string (see [`write_record`]).
pub fn record_text(game: &StoredGame, event: Option<&str>) -> Result<String, String> {
    let mut s = String::new();
    write_record(&mut s, game, event)?;
    Ok(s)
}

/// What is wrong in a text of records, and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub line: u64,
    pub message: String,
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
impl std::error::Error for RecordError {}

fn err<T>(line: u64, message: impl Into<String>) -> Result<T, RecordError> {
    Err(RecordError { line, message: message.into() })
}

/// The pending line if there is one, else the next line `read` gives: the
/// two-player and the four-player readers walk a record's lines so.
pub(crate) fn pending_or_next(
    pending: &mut Option<(u64, String)>,
    read: impl FnOnce() -> Result<Option<(u64, String)>, RecordError>,
) -> Result<Option<(u64, String)>, RecordError> {
    match pending.take() {
        Some(x) => Ok(Some(x)),
        None => read(),
    }
}

/// The checks on a result token among the moves, shared by the two-player
/// and the four-player readers: no move number before it, the same result
/// as tag Result, nothing after it on its line (`after`).
pub(crate) fn check_result_token(token: &str, after: Option<&str>, numbered: bool, result: &str) -> Result<(), String> {
    if numbered {
        return Err("a move number with no move after it".into());
    }
    if token != result {
        return Err(format!("the moves end with {token}, but tag Result says {result}"));
    }
    if let Some(extra) = after {
        return Err(format!("`{}` after the result token, which ends the game", clip(extra)));
    }
    Ok(())
}

/// A token among the moves that is no move: `*` or a comment, variation or
/// annotation (shared by the two-player and the four-player readers).
pub(crate) fn refuse_non_move(token: &str) -> Result<(), String> {
    if token == "*" {
        return Err("`*` (a game not over): records hold finished games, ending in 1-0, 0-1 or 1/2-1/2".into());
    }
    if token.starts_with(['{', ';', '(', '$', '%']) {
        return Err(format!("`{}`: comments, variations and annotations are not part of JGN", clip(token)));
    }
    Ok(())
}

/// One game read from a text of records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub game: StoredGame,
    /// The line of its first tag.
    pub line: u64,
    /// Its `Event` tag, if any (not part of a `games/` row).
    pub event: Option<String>,
}

/// Parse one tag line `[Name "value"]` (trailing spaces allowed).
pub(crate) fn parse_tag(line: &str) -> Result<(String, String), String> {
    let shape = "a tag pair is `[Name \"value\"]` on one line";
    let inner = line.trim_end().strip_prefix('[').and_then(|s| s.strip_suffix(']')).ok_or(shape)?;
    let (name, rest) = inner.split_once(' ').ok_or(shape)?;
    let name_ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !name_ok {
        return Err(format!("tag name `{name}`: a letter, then letters, digits or `_`"));
    }
    let body = rest.strip_prefix('"').ok_or_else(|| format!("the value of tag {name} must be in double quotes"))?;
    let mut value = String::new();
    let mut chars = body.chars();
    loop {
        match chars.next() {
            None => return Err(format!("the value of tag {name} has no closing `\"`")),
            Some('\\') => match chars.next() {
                Some(c @ ('\\' | '"')) => value.push(c),
                Some(c) => return Err(format!("unknown escape `\\{c}` in tag {name} (only `\\\"` and `\\\\`)")),
                None => return Err(format!("the value of tag {name} has no closing `\"`")),
            },
            Some('"') => break,
            Some(c) if c.is_control() => return Err(format!("tag {name} holds the control character {c:?}")),
            Some(c) => value.push(c),
        }
    }
    if !chars.as_str().is_empty() {
        return Err(format!("text after the closing quote of tag {name} (write a `\"` inside a value as `\\\"`)"));
    }
    Ok((name.to_string(), value))
}

/// The tags of one record: name, value and line, in file order.
struct Tags {
    start: u64,
    list: Vec<(String, String, u64)>,
}

impl Tags {
    fn find(&self, name: &str) -> Option<(&str, u64)> {
        self.list.iter().find(|(n, _, _)| n == name).map(|(_, v, l)| (v.as_str(), *l))
    }
    fn get(&self, name: &str) -> Result<(&str, u64), RecordError> {
        self.find(name).map_or_else(|| err(self.start, format!("the game starting here has no [{name} \"…\"] tag")), Ok)
    }
    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<T, RecordError> {
        let (v, line) = self.get(name)?;
        canonical_number(v).map_err(|e| RecordError { line, message: format!("tag {name}: {e}") })
    }
}

/// The row's columns from the tags (all but the moves), the rules and the
/// start position's side to move.
fn game_from_tags(t: &Tags) -> Result<(StoredGame, Seat), RecordError> {
    let at = |line: u64| move |message: String| RecordError { line, message };
    let game_id = t.number::<u64>(tag::GAME_ID)?;
    if let Some((game, line)) = t.find(crate::siguo_jgn::GAME_TAG) {
        if game == crate::siguo_jgn::SIGUO_GAME {
            return err(line, crate::siguo_jgn::MIXED_FOUR_IN_TWO);
        }
    }
    let (mode_text, mode_line) = t.get(tag::MODE)?;
    let mode: Mode = mode_text.parse().map_err(|e: junqi_core::RulesError| at(mode_line)(e.to_string()))?;
    let (rules, rules_json) = match (t.find(tag::RULES), t.find(tag::RULES_JSON)) {
        (Some(_), Some((_, line))) => return err(line, "a game has either a Rules or a RulesJSON tag, not both"),
        (None, None) => return err(t.start, "the game starting here has no [Rules \"…\"] tag"),
        (Some((text, line)), None) => {
            let rules = rules_from_compact(mode, text).map_err(|e| at(line)(format!("tag Rules: {e}")))?;
            (rules, serde_json::to_string(&rules).expect("rules serialize"))
        }
        (None, Some((json, line))) => {
            let rules: Rules =
                serde_json::from_str(json).map_err(|e| at(line)(format!("tag RulesJSON is not rules: {e}")))?;
            rules.validate().map_err(|e| at(line)(format!("tag RulesJSON: {e}")))?;
            if rules.mode != mode {
                return err(line, format!("tag RulesJSON gives {} rules, tag Mode says {mode}", rules.mode));
            }
            (rules, json.to_string())
        }
    };
    let (start, start_line) = t.get(tag::START)?;
    let first = Position::from_jfen(start, rules).map_err(|e| at(start_line)(format!("tag Start: {e}")))?.turn();
    let (result, line) = t.get(tag::RESULT)?;
    if !RESULTS.contains(&result) {
        return err(line, format!("tag Result `{result}` is none of 1-0, 0-1, 1/2-1/2"));
    }
    let (termination, line) = t.get(tag::TERMINATION)?;
    check_termination(termination).map_err(at(line))?;
    let game = StoredGame {
        game_id,
        rules: rules_json,
        seed: t.number(tag::SEED)?,
        start_jfen: start.to_string(),
        moves: Vec::new(),
        result: result.to_string(),
        termination: termination.to_string(),
        plies: t.number(tag::PLIES)?,
        bots: [t.get(tag::SEAT1)?.0.to_string(), t.get(tag::SEAT2)?.0.to_string()],
        code_version: t.get(tag::CODE_VERSION)?.0.to_string(),
    };
    Ok((game, first))
}

/// Reads records one at a time from a text (a file of any size: memory
/// holds one record). Strict: anything that is not a record as
/// docs/records.md specifies it is an error naming its line, never a
/// guess. After an error the reader returns nothing more.
pub struct RecordReader<R> {
    input: R,
    line: u64,
    buf: Vec<u8>,
    /// A line read but not yet used.
    ahead: Option<(u64, String)>,
    failed: bool,
}

impl<R: BufRead> RecordReader<R> {
    pub fn new(input: R) -> Self {
        RecordReader { input, line: 0, buf: Vec::new(), ahead: None, failed: false }
    }

    /// The next line without its line break (`\n` or `\r\n`), numbered.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, String)>, RecordError> {
        if let Some(l) = self.ahead.take() {
            return Ok(Some(l));
        }
        self.buf.clear();
        let n = <&mut R as std::io::Read>::take(&mut self.input, MAX_LINE_BYTES as u64 + 2)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| RecordError { line: self.line + 1, message: format!("cannot read: {e}") })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut bytes = &self.buf[..];
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.len() > MAX_LINE_BYTES {
            return err(self.line, format!("longer than {MAX_LINE_BYTES} bytes"));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| RecordError { line: self.line, message: "not UTF-8 text".into() })?;
        // A byte-order mark some editors put first is not text.
        let text = if self.line == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
        Ok(Some((self.line, text.to_string())))
    }

    /// The next record, `None` at the end of the text.
    pub fn next_record(&mut self) -> Result<Option<Record>, RecordError> {
        if self.failed {
            return Ok(None);
        }
        let r = self.read_record();
        self.failed = r.is_err();
        r
    }

    fn read_record(&mut self) -> Result<Option<Record>, RecordError> {
        // Blank lines, then the first tag.
        let (start, first) = loop {
            match self.next_line()? {
                None => return Ok(None),
                Some((_, l)) if l.trim().is_empty() => continue,
                Some(x) => break x,
            }
        };
        if !first.starts_with('[') {
            return err(
                start,
                format!("expected a tag pair such as `[GameId \"0\"]` to start a game, found `{}`", clip(&first)),
            );
        }
        // The tags, up to the first line of moves.
        let mut tags = Tags { start, list: Vec::new() };
        let mut line = Some((start, first));
        let moves_start = loop {
            let Some((n, l)) = pending_or_next(&mut line, || self.next_line())? else {
                return err(
                    self.line,
                    format!(
                        "the file ends after the tags of the game starting at line {start}: its moves and result are missing"
                    ),
                );
            };
            if l.trim().is_empty() {
                continue;
            }
            if !l.starts_with('[') {
                break (n, l);
            }
            let (name, value) = parse_tag(&l).map_err(|message| RecordError { line: n, message })?;
            if let Some((_, l0)) = tags.find(&name) {
                return err(n, format!("tag {name} is given twice (also on line {l0})"));
            }
            tags.list.push((name, value, n));
        };
        let (mut game, first_seat) = game_from_tags(&tags)?;
        let event = tags.find(tag::EVENT).map(|(v, _)| v.to_string());
        // The moves, up to the result token.
        let offset = usize::from(first_seat == Seat::Second);
        let mut numbered = false;
        let mut line = Some(moves_start);
        loop {
            let Some((n, l)) = pending_or_next(&mut line, || self.next_line())? else {
                return err(
                    self.line,
                    format!(
                        "the file ends inside the moves of the game starting at line {start}: no result token \
                         (1-0, 0-1 or 1/2-1/2) ends them (a truncated file?)"
                    ),
                );
            };
            if l.starts_with('[') {
                return err(
                    n,
                    format!(
                        "a tag pair among the moves of the game starting at line {start}: its result token \
                     (1-0, 0-1 or 1/2-1/2) is missing"
                    ),
                );
            }
            let mut tokens = l.split_whitespace();
            while let Some(token) = tokens.next() {
                let p = game.moves.len() + offset;
                if RESULTS.contains(&token) {
                    check_result_token(token, tokens.next(), numbered, &game.result)
                        .map_err(|message| RecordError { line: n, message })?;
                    if game.moves.len() != game.plies as usize {
                        let line = tags.get(tag::PLIES)?.1;
                        return err(
                            line,
                            format!("tag Plies says {}, but the moves hold {}", game.plies, game.moves.len()),
                        );
                    }
                    if let Err(why) = check_game(&game) {
                        return err(start, format!("the game starting here: {why}"));
                    }
                    return Ok(Some(Record { game, line: start, event }));
                }
                if let Some(number) = token.strip_suffix('.') {
                    // `N.` before seat 1's move, `N...` before seat 2's.
                    let (number, dots) = match number.strip_suffix("..") {
                        Some(n) => (n, "..."),
                        None => (number, "."),
                    };
                    let want = if p % 2 == 0 { "." } else { "..." };
                    if numbered {
                        return err(n, format!("two move numbers in a row (`{}`)", clip(token)));
                    }
                    if canonical_number::<u64>(number).ok() != Some((p / 2 + 1) as u64) || dots != want {
                        return err(n, format!("move number `{}` where `{}{want}` belongs", clip(token), p / 2 + 1));
                    }
                    numbered = true;
                    continue;
                }
                refuse_non_move(token).map_err(|message| RecordError { line: n, message })?;
                check_move(token).map_err(|message| RecordError { line: n, message })?;
                game.moves.push(token.to_string());
                numbered = false;
            }
        }
    }
}

impl<R: BufRead> Iterator for RecordReader<R> {
    type Item = Result<Record, RecordError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Every record of a text (see [`RecordReader`]).
pub fn parse_records(text: &str) -> Result<Vec<Record>, RecordError> {
    RecordReader::new(text.as_bytes()).collect()
}

/// At most 40 characters of some text, for an error message.
pub(crate) fn clip(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0";

    fn game() -> StoredGame {
        let rules = Rules::preset(Mode::Anqi);
        StoredGame {
            game_id: 7,
            rules: serde_json::to_string(&rules).unwrap(),
            seed: u64::MAX,
            start_jfen: START.into(),
            moves: vec!["c10c11".into(), "c11c12".into()],
            result: "1-0".into(),
            termination: "flag_captured".into(),
            plies: 2,
            bots: ["mcts:sims=8,c=0.7,eval=net:\"x\\y\"".into(), "greedy:epsilon=0.1".into()],
            code_version: "0.1.0+abc".into(),
        }
    }

    #[test]
    fn a_record_reads_back_as_the_row() {
        let g = game();
        let text = record_text(&g, Some("a \"quoted\" event")).unwrap();
        assert!(
            text.starts_with(
                "[Event \"a \\\"quoted\\\" event\"]\n[GameId \"7\"]\n[Mode \"anqi\"]\n[Rules \"rail_turns="
            ),
            "{text}"
        );
        assert!(text.contains("[Seat1 \"mcts:sims=8,c=0.7,eval=net:\\\"x\\\\y\\\"\"]\n"), "{text}");
        assert!(text.contains("[Seed \"18446744073709551615\"]\n"), "{text}");
        assert!(text.ends_with(&format!("[Start \"{START}\"]\n\n1. c10c11 c11c12 1-0\n\n")), "{text}");
        let back = parse_records(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].game, g);
        assert_eq!((back[0].line, back[0].event.as_deref()), (1, Some("a \"quoted\" event")));
        // Two records in a row, CRLF line ends, extra blank lines: the same games.
        let two = format!("\n{text}\n{}", record_text(&g, None).unwrap()).replace('\n', "\r\n");
        let back = parse_records(&two).unwrap();
        assert_eq!(back.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 18]);
        assert!(back.iter().all(|r| r.game == g));
        // A byte-order mark before the first tag is passed over.
        assert_eq!(parse_records(&format!("\u{feff}{text}")).unwrap()[0].game, g);
    }

    #[test]
    fn the_rules_tag_lists_the_options_of_the_mode() {
        let mut rules = Rules::preset(Mode::Fanqi);
        rules.apply_override("max_plies=300").unwrap();
        let words = compact_rules(&rules);
        assert!(words.contains("max_plies=300") && words.contains("color_rule="), "{words}");
        assert!(!words.contains("first_player") && !words.contains("engineer_scout"), "{words}");
        assert_eq!(rules_from_compact(Mode::Fanqi, &words).unwrap(), rules);
        for bad in ["max_plies", "mode=anqi", "max_plies=1 max_plies=2", "nope=1", "max_plies=0300", "bomb_flies=yes"] {
            assert!(rules_from_compact(Mode::Fanqi, bad).is_err(), "{bad}");
        }
        // Stored JSON the words would not give back exactly is kept as it is.
        let mut g = game();
        g.rules = format!(" {}", g.rules);
        let text = record_text(&g, None).unwrap();
        assert!(text.contains("[RulesJSON \" {\\\"mode\\\":\\\"anqi\\\""), "{text}");
        assert_eq!(parse_records(&text).unwrap()[0].game, g);
    }

    #[test]
    fn moves_are_numbered_and_wrapped() {
        let mut g = game();
        g.moves = ["c10c11", "c11c10"].iter().cycle().take(41).map(|s| s.to_string()).collect();
        g.plies = 41;
        let text = record_text(&g, None).unwrap();
        let moves: Vec<&str> = text.split("\n\n").nth(1).unwrap().lines().collect();
        assert!(moves.len() > 2 && moves.iter().all(|l| l.len() <= WRAP_COLUMNS), "{moves:?}");
        assert!(moves[0].starts_with("1. c10c11 c11c10 2. c10c11"), "{moves:?}");
        assert!(moves.last().unwrap().ends_with("21. c10c11 1-0"), "{moves:?}");
        assert!(moves.iter().all(|l| !l.ends_with('.')), "a number stays with its move: {moves:?}");
        assert_eq!(parse_records(&text).unwrap()[0].game, g);
        // Seat 2 to move first: `1...`.
        g.start_jfen = START.replace("anqi 1 r", "anqi 2 r");
        g.moves = vec!["e1d1".into(), "c10c11".into(), "d1e1".into()];
        g.plies = 3;
        let text = record_text(&g, None).unwrap();
        assert!(text.contains("\n\n1... e1d1 2. c10c11 d1e1 1-0\n"), "{text}");
        assert_eq!(parse_records(&text).unwrap()[0].game, g);
        // Numbers may be left out; no moves at all is a result alone.
        let bare = text.replace("1... ", "").replace("2. ", "");
        assert_eq!(parse_records(&bare).unwrap()[0].game, g);
        g.moves.clear();
        g.plies = 0;
        let text = record_text(&g, None).unwrap();
        assert!(text.ends_with("\n\n1-0\n\n"), "{text}");
        assert_eq!(parse_records(&text).unwrap()[0].game, g);
    }

    #[test]
    fn rows_a_record_cannot_hold_are_refused() {
        type Change = fn(&mut StoredGame);
        let cases: [(Change, &str); 6] = [
            (|g| g.bots[0] = "a\nb".into(), "control character"),
            (|g| g.result = "*".into(), "result `*`"),
            (|g| g.plies = 3, "plies 3 but 2 moves"),
            (|g| g.moves[1] = "c11-c12".into(), "not written as a record writes it"),
            (|g| g.start_jfen = "nonsense".into(), "start position"),
            (|g| g.termination = "Flag captured".into(), "termination"),
        ];
        for (change, message) in cases {
            let mut g = game();
            change(&mut g);
            let e = record_text(&g, None).unwrap_err();
            assert!(e.contains(message), "{e}");
        }
    }

    #[test]
    fn bad_text_is_an_error_on_its_line() {
        let good = record_text(&game(), None).unwrap();
        let cases: Vec<(String, u64, &str)> = vec![
            (good.replace("[GameId \"7\"]", "[GameId \"07\"]"), 1, "tag GameId: `07` is not a number"),
            (good.replace("[Seed", "[Seed \"1\"]\n[Seed"), 10, "tag Seed is given twice"),
            (good.replace("[Seat2 \"greedy:epsilon=0.1\"]", "[Seat2 \"a\\tb\"]"), 5, "unknown escape `\\t`"),
            (good.replace("[Seat2 \"greedy:epsilon=0.1\"]", "[Seat2 \"a\"b\"]"), 5, "text after the closing quote"),
            (good.replace("[Seat2 \"greedy:epsilon=0.1\"]", "[Seat2 greedy]"), 5, "double quotes"),
            (good.replace("[Termination \"flag_captured\"]\n", ""), 1, "no [Termination"),
            (good.replace("[Mode \"anqi\"]", "[Mode \"fanqi\"]"), 3, "`first_player` does not apply to fanqi"),
            (good.replace("anqi 1 r 0 0", "fanqi 1 - 0 0"), 11, "tag Start"),
            (good.replace("c11c12", "c11c13"), 13, "`c11c13` is not a move"),
            (good.replace("1. c10c11", "2. c10c11"), 13, "move number `2.` where `1.` belongs"),
            (good.replace(" 1-0\n", " 0-1\n"), 13, "tag Result says 1-0"),
            (good.replace(" 1-0\n", " 1-0 c10c11\n"), 13, "after the result token"),
            (good.replace(" 1-0\n", " *\n"), 13, "records hold finished games"),
            (good.replace("c10c11 ", "c10c11 {good} "), 13, "comments"),
            (good.replace("[Plies \"2\"]", "[Plies \"3\"]"), 8, "tag Plies says 3, but the moves hold 2"),
            (good.replace(" 1-0\n\n", "\n"), 13, "no result token"),
            (format!("{}{good}", good.replace(" 1-0\n\n", "\n")), 14, "a tag pair among the moves"),
            (good.split("\n\n").next().unwrap().to_string(), 11, "moves and result are missing"),
            ("1. c10c11 1-0\n".to_string(), 1, "expected a tag pair"),
        ];
        for (text, line, message) in cases {
            let e = parse_records(&text).unwrap_err();
            assert!(e.message.contains(message), "{message}: {e}\n{text}");
            assert_eq!(e.line, line, "{message}: {e}");
        }
        // Not UTF-8, and an endless line, are errors too.
        let e = RecordReader::new(&b"\n\xff\n"[..]).next().unwrap().unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "not UTF-8 text"));
        let long = vec![b'['; MAX_LINE_BYTES + 10];
        let e = RecordReader::new(&long[..]).next().unwrap().unwrap_err();
        assert!(e.message.contains("longer than"), "{e}");
    }
}
