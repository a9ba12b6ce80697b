//! What a seat knows, as protocol text, and back.
//!
//! A `position` line carries a seat's whole information set, so an engine
//! needs no memory between moves (docs/protocol.md, "Positions"):
//!
//! ```text
//! position <view JFEN> [pool <pieces>] [kinds <node>=<kinds> …] [removed <kinds> …]
//! ```
//!
//! * the view JFEN writes a piece whose kind the seat does not know as `?`
//!   (`~?` for a 翻棋 face-down piece);
//! * `pool`: 翻棋, the face-down pieces as piece letters (public: every piece
//!   that left the board was face-up when it did);
//! * `kinds`: 暗棋, per enemy piece of unknown kind, the kinds it may still be;
//! * `removed`: 暗棋, per removed enemy piece, the kinds it may have been.
//!
//! [`decode_position`] rebuilds exactly the [`InfoSet`] that
//! [`encode_position`] wrote (tested on every ply of random games).

use junqi_core::{
    Colour, Deployment, DeploymentError, History, InfoSet, JfenError, Kind, Mode, Move, Piece, Position, Rules,
    RulesError, Seat, Square, HISTORY_PLIES, MAX_TOLD_SEEN,
};
use std::collections::HashMap;

/// A bit set of kinds (bit `Kind::index`), as in `junqi_core`.
type KindSet = u16;
const ALL_KINDS: KindSet = (1 << 12) - 1;

/// Why a protocol message was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("{0}")]
    Syntax(String),
    #[error(transparent)]
    Jfen(#[from] JfenError),
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("deployment: {0}")]
    Deployment(#[from] DeploymentError),
    #[error("inconsistent position: {0}")]
    Inconsistent(String),
}

fn syntax(message: impl Into<String>) -> ProtocolError {
    ProtocolError::Syntax(message.into())
}

/// The rules as `<mode> <option>=<value> …`: every option that applies to
/// the mode, so the reader needs no knowledge of the presets' defaults.
pub fn encode_rules(rules: &Rules) -> String {
    let table = toml::Table::try_from(*rules).expect("rules serialize");
    let mut out = rules.mode.name().to_string();
    for name in junqi_core::rules::OPTION_NAMES {
        if !junqi_core::rules::option_applies(name, rules.mode) {
            continue;
        }
        if let Some(value) = table.get(name) {
            let text = match value {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push_str(&format!(" {name}={text}"));
        }
    }
    out
}

/// Rules from `<mode> [<option>=<value> …]`: the mode's preset with each
/// option set in turn.
pub fn decode_rules(tokens: &[&str]) -> Result<Rules, ProtocolError> {
    let (mode, options) = tokens.split_first().ok_or_else(|| syntax("expected a mode: fanqi, anqi or mingqi"))?;
    if mode.parse::<Mode>().is_err() {
        return Err(syntax(format!("`{mode}` is not a mode: fanqi, anqi or mingqi")));
    }
    Ok(Rules::preset_with(mode, options)?)
}

fn kinds_text(set: KindSet) -> String {
    if set == 0 {
        return "-".into();
    }
    Kind::ALL.into_iter().filter(|k| set & k.bit() != 0).map(Kind::letter).collect()
}

fn parse_kinds(text: &str) -> Result<KindSet, ProtocolError> {
    if text == "-" {
        return Ok(0);
    }
    text.chars().try_fold(0, |set, c| match Kind::from_letter(c) {
        Some(k) => Ok(set | k.bit()),
        None => Err(syntax(format!("`{c}` in `{text}` is not a kind letter (KGDROJCLEBMF)"))),
    })
}

/// The seat's information set as the arguments of a `position` line.
pub fn encode_position(info: &InfoSet) -> String {
    encode_position_with(info, true)
}

/// [`encode_position`], with the seat's history (`last`, `seen`) or without
/// it (for an engine of protocol version 1, which knows no such words).
pub fn encode_position_with(info: &InfoSet, history: bool) -> String {
    let view = info.view();
    let mut out = view.to_jfen();
    match view.mode() {
        Mode::Fanqi => {
            let pool: String = Colour::ALL
                .into_iter()
                .flat_map(|c| Kind::ALL.into_iter().map(move |k| (c, k)))
                .flat_map(|(c, k)| std::iter::repeat_n(Piece::new(c, k).letter(), info.unseen(c, k) as usize))
                .collect();
            if !pool.is_empty() {
                out.push_str(" pool ");
                out.push_str(&pool);
            }
        }
        Mode::Anqi => {
            if let Some(enemy) = view.colour_of(info.seat().other()) {
                let unknown: Vec<String> = Square::all()
                    .filter(|&sq| view.colour_bb(enemy) & sq.bit() != 0 && view.piece_at(sq).is_none())
                    .map(|sq| format!("{sq}={}", kinds_text(info.possible_kinds(sq))))
                    .collect();
                if !unknown.is_empty() {
                    out.push_str(" kinds ");
                    out.push_str(&unknown.join(" "));
                }
            }
            if !info.removed_enemy().is_empty() {
                let removed: Vec<String> = info.removed_enemy().iter().map(|&s| kinds_text(s)).collect();
                out.push_str(" removed ");
                out.push_str(&removed.join(" "));
            }
        }
        Mode::Mingqi => {}
    }
    if !history {
        return out;
    }
    // What the seat remembers (rules §5.4), in every mode.
    let history = info.history();
    let last: Vec<String> = history.recent().iter().map_while(|m| m.map(|m| m.to_string())).collect();
    if !last.is_empty() {
        out.push_str(" last ");
        out.push_str(&last.join(" "));
    }
    if history.repetitions() > 0 {
        out.push_str(&format!(" seen {}", history.repetitions()));
    }
    out
}

/// The parts of a `position` line after its six JFEN fields.
#[derive(Default)]
struct Extras {
    /// Whether a `pool` section was given at all (`pool -` included).
    pool_given: bool,
    pool: Vec<Piece>,
    kinds: HashMap<Square, KindSet>,
    removed: Vec<KindSet>,
    /// The seat's last actions, newest first (`last`).
    last: Vec<Move>,
    /// How often the seat saw this board before (`seen`).
    seen: u32,
}

fn parse_extras(tokens: &[&str]) -> Result<Extras, ProtocolError> {
    let mut extras = Extras::default();
    let mut section: Option<&str> = None;
    for &token in tokens {
        if matches!(token, "pool" | "kinds" | "removed" | "last" | "seen") {
            extras.pool_given |= token == "pool";
            section = Some(token);
            continue;
        }
        match section {
            Some("pool") => {
                // One token: the pool's letters (`-` for none).
                for c in token.chars().filter(|_| token != "-") {
                    let piece = Piece::from_letter(c).ok_or_else(|| {
                        syntax(format!("pool: `{c}` is not a piece letter (KGDROJCLEBMF, lower case for Black)"))
                    })?;
                    extras.pool.push(piece);
                }
                section = None;
            }
            Some("kinds") => {
                let (node, set) = token
                    .split_once('=')
                    .ok_or_else(|| syntax(format!("kinds: expected <node>=<kinds>, got `{token}`")))?;
                let sq: Square = node.parse().map_err(|_| syntax(format!("kinds: `{node}` is not a node")))?;
                if extras.kinds.insert(sq, parse_kinds(set)?).is_some() {
                    return Err(syntax(format!("kinds: {sq} given twice")));
                }
            }
            Some("removed") => extras.removed.push(parse_kinds(token)?),
            Some("last") => {
                if extras.last.len() == HISTORY_PLIES {
                    return Err(syntax(format!("last: at most {HISTORY_PLIES} actions")));
                }
                extras.last.push(token.parse().map_err(|_| syntax(format!("last: `{token}` is not an action")))?);
            }
            Some("seen") => {
                extras.seen = token
                    .parse()
                    .ok()
                    .filter(|&n| n <= MAX_TOLD_SEEN)
                    .ok_or_else(|| syntax(format!("seen: `{token}` is not a count from 0 to {MAX_TOLD_SEEN}")))?;
                section = None;
            }
            _ => {
                return Err(syntax(format!(
                    "unexpected `{token}` after the position; expected pool, kinds, removed, last or seen"
                )))
            }
        }
    }
    if section == Some("seen") {
        return Err(syntax("seen: expected a count after it"));
    }
    Ok(extras)
}

/// The nodes of a view board's `?`, in the order written, each with whether
/// it is face-down (`~?`); and how many known pieces each letter has.
struct ViewBoard {
    unknown: Vec<(Square, bool)>,
    known: HashMap<char, u8>,
}

fn unknown_nodes(board: &str) -> Result<ViewBoard, ProtocolError> {
    let mut unknown = Vec::new();
    let mut known: HashMap<char, u8> = HashMap::new();
    for (i, rank_text) in board.split('/').enumerate() {
        let rank = 12usize.checked_sub(i).filter(|&r| r >= 1).ok_or(JfenError::RankCount(i + 1))?;
        let mut file = 0usize;
        let mut face_down = false;
        for c in rank_text.chars() {
            match c {
                '~' => face_down = true,
                '1'..='5' => file += c.to_digit(10).unwrap() as usize,
                _ => {
                    if c == '?' {
                        let sq = Square::from_coords(file, rank)
                            .ok_or_else(|| syntax(format!("view board: rank {rank} has more than 5 files")))?;
                        unknown.push((sq, face_down));
                    } else {
                        *known.entry(c).or_default() += 1;
                    }
                    face_down = false;
                    file += 1;
                }
            }
        }
    }
    Ok(ViewBoard { unknown, known })
}

/// Kinds for the unknown enemy pieces, each from its set, no kind more often
/// than the army allows beside the enemy pieces already known: a matching
/// (augmenting paths), since a greedy choice can paint itself into a corner.
fn assign_kinds(sets: &[KindSet], capacity: [u8; 12]) -> Option<Vec<Kind>> {
    let slots: Vec<Kind> =
        Kind::ALL.into_iter().flat_map(|k| std::iter::repeat_n(k, capacity[k.index()] as usize)).collect();
    let mut owner: Vec<Option<usize>> = vec![None; slots.len()];
    fn augment(u: usize, sets: &[KindSet], slots: &[Kind], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
        for s in 0..slots.len() {
            if seen[s] || sets[u] & slots[s].bit() == 0 {
                continue;
            }
            seen[s] = true;
            if owner[s].is_none_or(|v| augment(v, sets, slots, owner, seen)) {
                owner[s] = Some(u);
                return true;
            }
        }
        false
    }
    for u in 0..sets.len() {
        let mut seen = vec![false; slots.len()];
        if !augment(u, sets, &slots, &mut owner, &mut seen) {
            return None;
        }
    }
    let mut kinds = vec![Kind::Flag; sets.len()];
    for (s, o) in owner.iter().enumerate() {
        if let Some(u) = o {
            kinds[*u] = slots[s];
        }
    }
    Some(kinds)
}

/// The information set of `seat` from the arguments of a `position` line,
/// under `rules` (those of the `newgame`).
pub fn decode_position(args: &str, rules: Rules, seat: Seat) -> Result<InfoSet, ProtocolError> {
    let tokens: Vec<&str> = args.split_whitespace().collect();
    if tokens.len() < 6 {
        return Err(JfenError::FieldCount(tokens.len()).into());
    }
    let (jfen, rest) = tokens.split_at(6);
    let extras = parse_extras(rest)?;
    let mode = junqi_core::jfen::peek_mode(&jfen.join(" "))?;
    if mode != rules.mode {
        return Err(JfenError::ModeMismatch { rules: rules.mode, position: mode }.into());
    }
    if mode != Mode::Fanqi && extras.pool_given {
        return Err(syntax(format!("pool is for fanqi only, not {mode}")));
    }
    let ViewBoard { unknown, known } = unknown_nodes(jfen[0])?;
    let mut fill: Vec<char> = Vec::with_capacity(unknown.len());
    let mut kind_sets: Vec<(Square, KindSet)> = Vec::new();
    match mode {
        Mode::Mingqi => {
            if let Some((sq, _)) = unknown.first() {
                return Err(ProtocolError::Inconsistent(format!("`?` on {sq}: in mingqi every piece is known")));
            }
        }
        Mode::Fanqi => {
            if let Some((sq, _)) = unknown.iter().find(|(_, down)| !down) {
                return Err(ProtocolError::Inconsistent(format!(
                    "`?` on {sq}: in fanqi only face-down pieces (`~?`) are unknown"
                )));
            }
            if extras.pool.len() != unknown.len() {
                return Err(ProtocolError::Inconsistent(format!(
                    "{} face-down pieces on the board but {} in the pool",
                    unknown.len(),
                    extras.pool.len()
                )));
            }
            fill.extend(extras.pool.iter().map(|p| p.letter()));
        }
        Mode::Anqi => {
            if let Some((sq, _)) = unknown.iter().find(|(_, down)| *down) {
                return Err(ProtocolError::Inconsistent(format!("`~?` on {sq}: only fanqi has face-down pieces")));
            }
            let seat1 = match jfen[3] {
                "r" => Colour::Red,
                "b" => Colour::Black,
                other => return Err(syntax(format!("colours `{other}`: anqi needs r or b"))),
            };
            let enemy = if seat == Seat::First { seat1.other() } else { seat1 };
            let letter = |k: Kind| Piece::new(enemy, k).letter();
            let mut capacity = [0u8; 12];
            for k in Kind::ALL {
                capacity[k.index()] = k.count().saturating_sub(known.get(&letter(k)).copied().unwrap_or(0));
            }
            let sets: Vec<KindSet> =
                unknown.iter().map(|(sq, _)| extras.kinds.get(sq).copied().unwrap_or(ALL_KINDS)).collect();
            if let Some(sq) = extras.kinds.keys().find(|sq| !unknown.iter().any(|(u, _)| u == *sq)) {
                return Err(ProtocolError::Inconsistent(format!(
                    "kinds for {sq}, which holds no piece of unknown kind"
                )));
            }
            // An empty set (the piece that just took a flag, in a finished
            // game) may stand in as any kind: stand-in kinds are never read.
            let fit: Vec<KindSet> = sets.iter().map(|&s| if s == 0 { ALL_KINDS } else { s }).collect();
            // Once the seat's own flag has fallen (a finished game), the
            // stand-in needs the enemy flag on the board: JFEN forbids both gone.
            let own = |k: Kind| Piece::new(enemy.other(), k).letter();
            let need_flag = !known.contains_key(&own(Kind::Flag)) && !known.contains_key(&letter(Kind::Flag));
            let with_flag = need_flag
                .then(|| {
                    (0..fit.len()).filter(|&u| fit[u] & Kind::Flag.bit() != 0).find_map(|u| {
                        let mut forced = fit.clone();
                        forced[u] = Kind::Flag.bit();
                        assign_kinds(&forced, capacity)
                    })
                })
                .flatten();
            let kinds = with_flag.or_else(|| assign_kinds(&fit, capacity)).ok_or_else(|| {
                ProtocolError::Inconsistent("no army fits the kinds given for the unknown pieces".into())
            })?;
            fill.extend(kinds.iter().map(|&k| letter(k)));
            kind_sets.extend(unknown.iter().zip(&sets).map(|((sq, _), &set)| (*sq, set)));
        }
    }
    // The stand-in: the view with every `?` given a kind that fits.
    let mut fills = fill.into_iter();
    let board: String =
        jfen[0].chars().map(|c| if c == '?' { fills.next().expect("one fill per `?`") } else { c }).collect();
    let stand_in_text = std::iter::once(board.as_str()).chain(jfen[1..].iter().copied()).collect::<Vec<_>>().join(" ");
    let stand_in = Position::from_jfen(&stand_in_text, rules)?;
    let info = match mode {
        Mode::Anqi => {
            let Some(enemy) = stand_in.colour_of(seat.other()) else {
                return Err(syntax("anqi colours must be assigned"));
            };
            for sq in Square::all() {
                if stand_in.colour_bb(enemy) & sq.bit() != 0 && !unknown.iter().any(|(u, _)| *u == sq) {
                    let kind = stand_in.piece_at(sq).expect("known enemy piece").kind;
                    kind_sets.push((sq, kind.bit()));
                }
            }
            InfoSet::from_kind_sets(&stand_in, seat, &kind_sets, extras.removed)
        }
        _ => {
            if !extras.kinds.is_empty() || !extras.removed.is_empty() {
                return Err(syntax(format!("kinds and removed are for anqi only, not {mode}")));
            }
            InfoSet::new(&stand_in, seat)
        }
    };
    let history = History::told(&extras.last, extras.seen, info.view());
    let info = info.with_history(history);
    // The check the referee's sets pass on every ply (tests/infoset.rs).
    match info.inconsistency() {
        Some(why) => Err(ProtocolError::Inconsistent(why)),
        None => Ok(info),
    }
}

/// A deployment as `<node><kind> …` (e.g. `a1M b1F …`), by node.
pub fn encode_deployment(d: &Deployment) -> String {
    let mut pieces = d.pieces.clone();
    pieces.sort_by_key(|(sq, _)| *sq);
    pieces.iter().map(|(sq, k)| format!("{sq}{}", k.letter())).collect::<Vec<_>>().join(" ")
}

/// A deployment of `colour` from `<node><kind>` tokens, checked against the
/// deployment rules.
pub fn decode_deployment(tokens: &[&str], colour: Colour) -> Result<Deployment, ProtocolError> {
    let mut pieces = Vec::with_capacity(25);
    for token in tokens {
        let bad = || syntax(format!("deployment: expected <node><kind> like a1F, got `{token}`"));
        let letter = token.chars().last().ok_or_else(bad)?;
        let kind = Kind::from_letter(letter).ok_or_else(bad)?;
        let sq: Square = token[..token.len() - letter.len_utf8()].parse().map_err(|_| bad())?;
        pieces.push((sq, kind));
    }
    let d = Deployment { colour, pieces };
    d.validate()?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_sets_round_trip_and_reject_strangers() {
        for set in [0, 1, 0b1010, ALL_KINDS, ALL_KINDS & !Kind::Flag.bit()] {
            assert_eq!(parse_kinds(&kinds_text(set)).unwrap(), set);
        }
        assert!(parse_kinds("KX").unwrap_err().to_string().contains("`X`"));
    }

    #[test]
    fn the_matching_finds_the_army_a_greedy_choice_misses() {
        // Two pieces: the first may be a 司令 or a 军长, the second only a
        // 司令; one of each exists. Taking 司令 for the first fails greedily.
        let mut capacity = [0u8; 12];
        capacity[Kind::Commander.index()] = 1;
        capacity[Kind::General.index()] = 1;
        let sets = [Kind::Commander.bit() | Kind::General.bit(), Kind::Commander.bit()];
        assert_eq!(assign_kinds(&sets, capacity).unwrap(), vec![Kind::General, Kind::Commander]);
        assert!(assign_kinds(&[Kind::Commander.bit(), Kind::Commander.bit()], capacity).is_none());
    }

    #[test]
    fn rules_round_trip_through_text() {
        for mode in Mode::ALL {
            let mut rules = Rules::preset(mode);
            rules.apply_override("no_progress_plies=33").unwrap();
            let text = encode_rules(&rules);
            let tokens: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(decode_rules(&tokens).unwrap(), rules, "{text}");
        }
        // 混棋 comes last in §6's order, after the options it needs set its way.
        let hunqi = Rules::preset_with("fanqi", ["hunqi=true"]).unwrap();
        let text = encode_rules(&hunqi);
        assert!(text.ends_with(" hunqi=true"), "{text}");
        assert_eq!(decode_rules(&text.split_whitespace().collect::<Vec<_>>()).unwrap(), hunqi);
        assert!(decode_rules(&["chess"]).is_err());
        assert!(decode_rules(&["fanqi", "bogus=1"]).is_err());
    }
}
