//! Four-player (四国军棋) text game records: JGN for the rows of a
//! `junqi-siguo-games/1` dataset (docs/records.md, "Four-player records").
//!
//! A four-player record is a two-player record's shape (tag pairs, a blank
//! line, the moves, the result) with its own tags: `[Game "siguo"]` first,
//! the four seats' bots, the rules as the §10.11 options, the start in the
//! four-seat notation of docs/rules.md §10.4 and the moves as `sc6-ms`,
//! numbered every four plies. Writing a row as a record and reading it back
//! gives the row again, column for column ([`write_siguo_record`],
//! [`SiguoRecordReader`]); the reader also re-plays the moves, so a move
//! that is not legal under the four-player rules is an error.

use crate::records::{
    canonical_number, check_result_token, check_termination, clip, parse_tag, pending_or_next, push_tag,
    refuse_non_move, Wrapped,
};
use crate::{RecordError, RecordReader, SelfplayError, SiguoGame, RESULTS};
use junqi_siguo::{Mode, Move, MoveList, Rules, OPTION_NAMES};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

/// The tag that makes a record a four-player one: `[Game "siguo"]`.
pub const GAME_TAG: &str = "Game";
/// Its value.
pub const SIGUO_GAME: &str = "siguo";
/// The tag line a four-player record starts with.
pub const GAME_LINE: &str = "[Game \"siguo\"]";
/// The bots of armies 0–3 (columns `bot_seat0` … `bot_seat3`).
pub const SEAT_TAGS: [&str; 4] = ["Seat0", "Seat1", "Seat2", "Seat3"];
/// Why a game was forfeited (the shard footer's `junqi.forfeits` entry).
pub const FORFEIT_TAG: &str = "Forfeit";
/// The footer key of a four-player shard's forfeits: a JSON object from
/// game id (a string) to the reason, as `junqi arena --siguo` writes it.
pub const FORFEITS_KEY: &str = "junqi.forfeits";
/// Plies per move number: `1.` before ply 1, `2.` before ply 5, …
pub const PLIES_PER_NUMBER: usize = 4;
/// The two-player reader's error for a four-player record.
pub const MIXED_FOUR_IN_TWO: &str = "a four-player record ([Game \"siguo\"]) among two-player records: a file \
                                     holds the records of one game; import the two kinds from separate files";
/// The four-player reader's error for a two-player record.
pub const MIXED_TWO_IN_FOUR: &str = "a two-player record (no [Game \"siguo\"] tag) among four-player records: a \
                                     file holds the records of one game; import the two kinds from separate files";

/// The four-player tags, in the order [`write_siguo_record`] writes them
/// (`Event` and `Forfeit` only when there is one).
pub const TAGS: [&str; 16] = [
    GAME_TAG,
    "Event",
    "GameId",
    "Mode",
    "Rules",
    "Seat0",
    "Seat1",
    "Seat2",
    "Seat3",
    "Result",
    "Termination",
    "Plies",
    "Seed",
    "CodeVersion",
    FORFEIT_TAG,
    "Start",
];

/// The §10.11 options as `option=value` words, in §10.11 order.
pub fn rules_words(rules: &Rules) -> String {
    rules.overrides().join(" ")
}

/// The rules of a `Rules` tag: the `Mode` tag's preset with every word
/// applied; each option at most once, an option left out keeps its preset.
pub fn rules_from_words(mode: Mode, text: &str) -> Result<Rules, String> {
    let mut rules = Rules::preset(mode);
    let mut seen: Vec<&str> = Vec::new();
    if text.is_empty() {
        return Ok(rules);
    }
    for word in text.split(' ') {
        let (name, value) = word
            .split_once('=')
            .filter(|(n, v)| !n.is_empty() && !v.is_empty())
            .ok_or_else(|| format!("`{}` is not option=value (words are separated by one space)", clip(word)))?;
        if name == "mode" || name == "game" {
            return Err(format!("`{name}` is not a Rules word (the mode goes in the Mode tag)"));
        }
        if !OPTION_NAMES.contains(&name) {
            return Err(format!("unknown four-player rule option `{}`", clip(name)));
        }
        if seen.contains(&name) {
            return Err(format!("option `{name}` is given twice"));
        }
        seen.push(name);
        if value.bytes().all(|b| b.is_ascii_digit()) {
            canonical_number::<u32>(value).map_err(|e| format!("{name}: {e}"))?;
        }
        rules.set(name, value).map_err(|e| e.to_string())?;
    }
    Ok(rules)
}

/// Why a row cannot be written as a record (or read back as one): its rules
/// are not the rules file the writer writes, a value a tag cannot hold, …
fn check_game(g: &SiguoGame) -> Result<Rules, String> {
    let rules = Rules::from_toml_str(&g.rules).map_err(|e| format!("the rules are not valid: {e}"))?;
    if rules.to_toml_string() != g.rules {
        return Err("the rules text is not the rules file this program writes for them".into());
    }
    let texts = [
        ("start position", g.start.as_str()),
        ("termination", &g.termination),
        ("seat 0 bot", &g.bots[0]),
        ("seat 1 bot", &g.bots[1]),
        ("seat 2 bot", &g.bots[2]),
        ("seat 3 bot", &g.bots[3]),
        ("code version", &g.code_version),
    ];
    for (what, text) in texts {
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            return Err(format!("the {what} holds the control character {c:?}, which a tag value cannot"));
        }
    }
    junqi_siguo::parse(&g.start, rules).map_err(|e| format!("start position: {e}"))?;
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
    Ok(rules)
}

/// A move in its one spelling (`sc6-ms`).
fn check_move(text: &str) -> Result<Move, String> {
    let mv: Move = text.parse().map_err(|e| format!("`{}` is not a four-player move ({e})", clip(text)))?;
    if mv.to_string() != text {
        return Err(format!("`{}` is not written as a record writes it: `{mv}`", clip(text)));
    }
    Ok(mv)
}

/// Re-play the moves from the start: every move legal, none after the game
/// ended (result and termination are `junqi replay`'s business). `Err`
/// holds the index of the first bad move and why.
fn check_moves(g: &SiguoGame, rules: Rules) -> Result<(), (usize, String)> {
    let mut pos = junqi_siguo::parse(&g.start, rules).map_err(|e| (0, format!("start position: {e}")))?;
    let mut list = MoveList::new();
    for (i, text) in g.moves.iter().enumerate() {
        let mv = check_move(text).map_err(|e| (i, format!("move {}: {e}", i + 1)))?;
        if let Some(o) = pos.outcome() {
            return Err((
                i,
                format!(
                    "move {} `{text}`: the game is already over ({}, {}) after {i} plies",
                    i + 1,
                    o.result_str(),
                    o.termination.name()
                ),
            ));
        }
        pos.legal_moves(&mut list);
        if !list.contains(mv) {
            return Err((
                i,
                format!("move {} `{text}` is illegal under the four-player rules ({} to move)", i + 1, pos.turn()),
            ));
        }
        pos.play_unchecked(mv);
    }
    Ok(())
}

/// Append the record of `game` to `out`: `[Game "siguo"]`, `Event` when
/// given, the row's tags, `Forfeit` when the game was forfeited, `Start`,
/// a blank line, the moves (a number every four plies) and the result, a
/// blank line. `Err` says why the row cannot be a record.
pub fn write_siguo_record(
    out: &mut String,
    game: &SiguoGame,
    event: Option<&str>,
    forfeit: Option<&str>,
) -> Result<(), String> {
    let rules = check_game(game)?;
    for (what, text) in [("event", event), ("forfeit reason", forfeit)] {
        if text.is_some_and(|t| t.chars().any(char::is_control)) {
            return Err(format!("the {what} holds a control character, which a tag value cannot"));
        }
    }
    out.push_str(GAME_LINE);
    out.push('\n');
    if let Some(e) = event {
        push_tag(out, "Event", e);
    }
    push_tag(out, "GameId", &game.game_id.to_string());
    push_tag(out, "Mode", &rules.mode.to_string());
    push_tag(out, "Rules", &rules_words(&rules));
    for (name, bot) in SEAT_TAGS.iter().zip(&game.bots) {
        push_tag(out, name, bot);
    }
    push_tag(out, "Result", &game.result);
    push_tag(out, "Termination", &game.termination);
    push_tag(out, "Plies", &game.plies.to_string());
    push_tag(out, "Seed", &game.seed.to_string());
    push_tag(out, "CodeVersion", &game.code_version);
    if let Some(f) = forfeit {
        push_tag(out, FORFEIT_TAG, f);
    }
    push_tag(out, "Start", &game.start);
    out.push('\n');
    let mut w = Wrapped { out, line: 0 };
    for (i, m) in game.moves.iter().enumerate() {
        if i.is_multiple_of(PLIES_PER_NUMBER) {
            w.push(&format!("{}. {m}", i / PLIES_PER_NUMBER + 1));
        } else {
            w.push(m);
        }
    }
    w.push(&game.result);
    out.push_str("\n\n");
    Ok(())
}

/// The record of `game` as a string (see [`write_siguo_record`]).
pub fn siguo_record_text(game: &SiguoGame, event: Option<&str>, forfeit: Option<&str>) -> Result<String, String> {
    let mut s = String::new();
    write_siguo_record(&mut s, game, event, forfeit)?;
    Ok(s)
}

/// One four-player game read from a text of records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiguoRecord {
    pub game: SiguoGame,
    /// The line of its first tag.
    pub line: u64,
    /// Its place in the file, from 1.
    pub number: u64,
    pub event: Option<String>,
    /// Its `Forfeit` tag (the shard footer's reason), if any.
    pub forfeit: Option<String>,
}

/// Reads four-player records one at a time. Strict, as the two-player
/// [`RecordReader`]; every error names the line and the record's number
/// (`line 14: record 2: …`). After an error it returns nothing more.
pub struct SiguoRecordReader<R> {
    lines: RecordReader<R>,
    ahead: Option<(u64, String)>,
    records: u64,
    failed: bool,
}

type Tags = Vec<(String, String, u64)>;

impl<R: BufRead> SiguoRecordReader<R> {
    pub fn new(input: R) -> Self {
        SiguoRecordReader { lines: RecordReader::new(input), ahead: None, records: 0, failed: false }
    }

    fn next_line(&mut self) -> Result<Option<(u64, String)>, RecordError> {
        match self.ahead.take() {
            Some(l) => Ok(Some(l)),
            None => self.lines.next_line(),
        }
    }

    /// The next record, `None` at the end of the text.
    pub fn next_record(&mut self) -> Result<Option<SiguoRecord>, RecordError> {
        if self.failed {
            return Ok(None);
        }
        let number = self.records + 1;
        let r = self
            .read_record(number)
            .map_err(|e| RecordError { line: e.line, message: format!("record {number}: {}", e.message) });
        self.failed = r.is_err();
        if let Ok(Some(_)) = r {
            self.records = number;
        }
        r
    }

    fn read_record(&mut self, number: u64) -> Result<Option<SiguoRecord>, RecordError> {
        let fail = |line: u64, message: String| RecordError { line, message };
        let (start, first) = loop {
            match self.next_line()? {
                None => return Ok(None),
                Some((_, l)) if l.trim().is_empty() => continue,
                Some(x) => break x,
            }
        };
        if !first.starts_with('[') {
            return Err(fail(
                start,
                format!("expected a tag pair such as `{GAME_LINE}` to start a game, found `{}`", clip(&first)),
            ));
        }
        let mut tags: Tags = Vec::new();
        let mut line = Some((start, first));
        let moves_start = loop {
            let Some((n, l)) = pending_or_next(&mut line, || self.next_line())? else {
                return Err(fail(
                    start,
                    format!(
                        "the file ends after the tags of the game starting at line {start}: its moves and result are missing"
                    ),
                ));
            };
            if l.trim().is_empty() {
                continue;
            }
            if !l.starts_with('[') {
                break (n, l);
            }
            let (name, value) = parse_tag(&l).map_err(|m| fail(n, m))?;
            if let Some((_, _, l0)) = tags.iter().find(|(t, _, _)| *t == name) {
                return Err(fail(n, format!("tag {name} is given twice (also on line {l0})")));
            }
            tags.push((name, value, n));
        };
        let find = |name: &str| tags.iter().find(|(t, _, _)| t == name).map(|(_, v, l)| (v.as_str(), *l));
        let get = |name: &str| {
            find(name).ok_or_else(|| fail(start, format!("the game starting here has no [{name} \"…\"] tag")))
        };
        let number_of = |name: &str| -> Result<u64, RecordError> {
            let (v, l) = get(name)?;
            canonical_number(v).map_err(|e| fail(l, format!("tag {name}: {e}")))
        };
        match find(GAME_TAG) {
            Some((SIGUO_GAME, _)) => {}
            Some((other, l)) => {
                return Err(fail(l, format!("tag Game `{}`: a four-player record has [Game \"siguo\"]", clip(other))))
            }
            None => return Err(fail(start, MIXED_TWO_IN_FOUR.into())),
        }
        let game_id = number_of("GameId")?;
        let (mode_text, mode_line) = get("Mode")?;
        let mode: Mode =
            mode_text.parse().map_err(|e: junqi_siguo::RulesError| fail(mode_line, format!("tag Mode: {e}")))?;
        let (words, rules_line) = get("Rules")?;
        let rules = rules_from_words(mode, words).map_err(|e| fail(rules_line, format!("tag Rules: {e}")))?;
        let (start_text, start_line) = get("Start")?;
        junqi_siguo::parse(start_text, rules).map_err(|e| fail(start_line, format!("tag Start: {e}")))?;
        let (result, result_line) = get("Result")?;
        if !RESULTS.contains(&result) {
            return Err(fail(result_line, format!("tag Result `{}` is none of 1-0, 0-1, 1/2-1/2", clip(result))));
        }
        let (termination, l) = get("Termination")?;
        check_termination(termination).map_err(|e| fail(l, e))?;
        let plies_line = get("Plies")?.1;
        let plies = number_of("Plies")?;
        let plies =
            u32::try_from(plies).map_err(|_| fail(plies_line, format!("tag Plies: `{plies}` is out of range")))?;
        let seed = number_of("Seed")?;
        let mut bots: [String; 4] = Default::default();
        for (b, name) in bots.iter_mut().zip(SEAT_TAGS) {
            *b = get(name)?.0.to_string();
        }
        let mut game = SiguoGame {
            game_id,
            rules: rules.to_toml_string(),
            seed,
            start: start_text.to_string(),
            moves: Vec::new(),
            result: result.to_string(),
            termination: termination.to_string(),
            plies,
            bots,
            code_version: get("CodeVersion")?.0.to_string(),
        };
        let event = find("Event").map(|(v, _)| v.to_string());
        let forfeit = find(FORFEIT_TAG).map(|(v, _)| v.to_string());
        // The moves, up to the result token.
        let mut numbered = false;
        let mut move_lines: Vec<u64> = Vec::new();
        let mut line = Some(moves_start);
        loop {
            let Some((n, l)) = pending_or_next(&mut line, || self.next_line())? else {
                return Err(fail(
                    start,
                    format!(
                        "the file ends inside the moves of the game starting at line {start}: no result token \
                         (1-0, 0-1 or 1/2-1/2) ends them (a truncated file?)"
                    ),
                ));
            };
            if l.starts_with('[') {
                return Err(fail(
                    n,
                    format!("a tag pair among the moves of the game starting at line {start}: its result token (1-0, 0-1 or 1/2-1/2) is missing"),
                ));
            }
            let mut tokens = l.split_whitespace();
            while let Some(token) = tokens.next() {
                let p = game.moves.len();
                if RESULTS.contains(&token) {
                    check_result_token(token, tokens.next(), numbered, &game.result).map_err(|e| fail(n, e))?;
                    if game.moves.len() != game.plies as usize {
                        return Err(fail(
                            plies_line,
                            format!("tag Plies says {}, but the moves hold {}", game.plies, game.moves.len()),
                        ));
                    }
                    check_moves(&game, rules).map_err(|(i, e)| fail(move_lines.get(i).copied().unwrap_or(start), e))?;
                    check_game(&game).map_err(|e| fail(start, format!("the game starting here: {e}")))?;
                    return Ok(Some(SiguoRecord { game, line: start, number, event, forfeit }));
                }
                if let Some(num) = token.strip_suffix('.') {
                    if numbered {
                        return Err(fail(n, format!("two move numbers in a row (`{}`)", clip(token))));
                    }
                    let want = (p / PLIES_PER_NUMBER + 1) as u64;
                    if !p.is_multiple_of(PLIES_PER_NUMBER) || canonical_number::<u64>(num).ok() != Some(want) {
                        let at = if p.is_multiple_of(PLIES_PER_NUMBER) {
                            format!("`{want}.` belongs")
                        } else {
                            "no number belongs".into()
                        };
                        return Err(fail(
                            n,
                            format!(
                                "move number `{}` where {at} (a number every {PLIES_PER_NUMBER} plies)",
                                clip(token)
                            ),
                        ));
                    }
                    numbered = true;
                    continue;
                }
                refuse_non_move(token).map_err(|e| fail(n, e))?;
                check_move(token).map_err(|e| fail(n, format!("move {}: {e}", p + 1)))?;
                game.moves.push(token.to_string());
                move_lines.push(n);
                numbered = false;
            }
        }
    }
}

impl<R: BufRead> Iterator for SiguoRecordReader<R> {
    type Item = Result<SiguoRecord, RecordError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Every four-player record of a text (see [`SiguoRecordReader`]).
pub fn parse_siguo_records(text: &str) -> Result<Vec<SiguoRecord>, RecordError> {
    SiguoRecordReader::new(text.as_bytes()).collect()
}

/// Is a text's first record a four-player one? `lines` are its first lines
/// up to its moves: a `[Game "siguo"]` tag among them says so.
pub fn starts_four_player<'a>(lines: impl IntoIterator<Item = &'a str>) -> bool {
    lines.into_iter().any(|l| l.trim_end() == GAME_LINE)
}

/// Is the games shard at `path` of the four-seat schema (its footer's
/// `junqi.format`)? Verified against its checksum record, as every reader.
pub fn is_siguo_games_file(path: &Path) -> Result<bool, SelfplayError> {
    Ok(crate::siguo::is_siguo_shard(&crate::replay::batches_and_metadata(path)?.1))
}

/// The forfeits of a four-player games shard (game id → reason), from its
/// footer's [`FORFEITS_KEY`]; none when it has no such key.
pub fn read_siguo_forfeits(path: &Path) -> Result<BTreeMap<u64, String>, SelfplayError> {
    let (_, metadata) = crate::replay::batches_and_metadata(path)?;
    match metadata.iter().find(|(k, _)| k == FORFEITS_KEY) {
        None => Ok(BTreeMap::new()),
        Some((_, text)) => serde_json::from_str(text).map_err(|e| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("footer {FORFEITS_KEY} is not a map of game ids to reasons: {e}"),
        }),
    }
}

/// The footer entry of forfeits, as [`read_siguo_forfeits`] reads it.
pub fn forfeits_footer(forfeits: &BTreeMap<u64, String>) -> (String, String) {
    (FORFEITS_KEY.to_string(), serde_json::to_string(forfeits).expect("a map of strings serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> SiguoGame {
        let rules = Rules::preset(Mode::Anqi);
        let start = junqi_siguo::Position::new_game(rules, 1);
        let mut pos = start.clone();
        let mut list = MoveList::new();
        let mut moves = Vec::new();
        for _ in 0..6 {
            pos.legal_moves(&mut list);
            let mv = list.iter().next().copied().expect("a legal move");
            moves.push(mv.to_string());
            pos.play_unchecked(mv);
        }
        SiguoGame {
            game_id: 3,
            rules: rules.to_toml_string(),
            seed: 1,
            start: start.to_string(),
            plies: moves.len() as u32,
            moves,
            result: "1/2-1/2".into(),
            termination: "max_plies".into(),
            bots: ["random".into(), "greedy".into(), "random".into(), "gr\"eedy".into()],
            code_version: "0.1.0+abc".into(),
        }
    }

    #[test]
    fn a_four_player_record_reads_back_as_the_row() {
        let g = game();
        let text = siguo_record_text(&g, Some("e"), Some("army 1: gone")).unwrap();
        assert!(text.starts_with("[Game \"siguo\"]\n[Event \"e\"]\n[GameId \"3\"]\n[Mode \"anqi\"]\n"), "{text}");
        assert!(text.contains("\n\n1. "), "{text}");
        assert!(text.contains(" 2. "), "{text}");
        let back = parse_siguo_records(&format!("{text}\n{text}")).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].game, g);
        assert_eq!((back[1].number, back[1].forfeit.as_deref()), (2, Some("army 1: gone")));
        // A two-player record after it is refused, with the record's number.
        let two = crate::record_text(
            &crate::StoredGame {
                game_id: 0,
                rules: serde_json::to_string(&junqi_core::Rules::preset(junqi_core::Mode::Anqi)).unwrap(),
                seed: 0,
                start_jfen: "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0".into(),
                moves: vec![],
                result: "1-0".into(),
                termination: "flag_captured".into(),
                plies: 0,
                bots: ["a".into(), "b".into()],
                code_version: "x".into(),
            },
            None,
        )
        .unwrap();
        let e = parse_siguo_records(&format!("{text}{two}")).unwrap_err();
        assert!(e.message.starts_with("record 2: a two-player record"), "{e}");
        let e = crate::parse_records(&format!("{two}{text}")).unwrap_err();
        assert!(e.message.contains("a four-player record"), "{e}");
    }

    #[test]
    fn rules_words_round_trip() {
        let mut rules = Rules::preset(Mode::Quanming);
        rules.apply_override("turn_order=clockwise").unwrap();
        assert_eq!(rules_from_words(Mode::Quanming, &rules_words(&rules)).unwrap(), rules);
        for bad in ["max_plies", "mode=anqi", "max_plies=1 max_plies=2", "nope=1", "max_plies=0300", "hq_locked=yes"] {
            assert!(rules_from_words(Mode::Anqi, bad).is_err(), "{bad}");
        }
    }
}
