//! Fuzzing of the notation (issue 15): JFEN and move text, arbitrary and
//! mutated from real positions of seeded random games, through the parsers,
//! the move player, the information sets and world sampling. Every input
//! gives a value or a clean error: never a panic, a hang or an absurd
//! allocation; whatever parses prints and parses back to itself.
//!
//! The cases are fixed: a fixed seed and a fixed number of cases per
//! property, so CI runs the same ones every time. `JUNQI_FUZZ_CASES=N` runs N
//! cases of every property instead, `JUNQI_FUZZ_SEED=S` other cases:
//!
//! ```text
//! JUNQI_FUZZ_CASES=20000 JUNQI_FUZZ_SEED=7 cargo test --release -p junqi-tests --test rules fuzz_jfen
//! ```
//!
//! The CLI's side (bot specs, `--set`, TOML configs, the binary on mutated
//! JFEN) is crates/junqi-cli/tests/fuzz.rs.

use junqi_core::jfen::peek_mode;
use junqi_core::rules::ColorRule;
use junqi_core::{rng_from_seed, Game, Mode, Move, MoveList, PlayError, Position, Rules, Seat, ACTIONS};
use junqi_tests::reference::sampling::random_rules;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rand::Rng;
use std::sync::OnceLock;
use std::time::Duration;

#[path = "fuzz_harness/mod.rs"]
mod fuzz_harness;
use fuzz_harness::{byte_edit, fuzz_config, ByteEdit, Case};

/// A case longer than this is a hang: the watchdog ends the process, naming it.
const CASE_LIMIT: Duration = Duration::from_secs(60);
const MAX_SHRINK_ITERS: u32 = 2048;
fn before_case() {}

// ---------------------------------------------------------------------------
// The corpus: real positions, and mutations of their text.

/// Positions of seeded random games under random rules of every mode (every
/// ninth ply and the last), and hand-made ones at the edges of the notation.
fn corpus() -> &'static [(String, Rules)] {
    static CORPUS: OnceLock<Vec<(String, Rules)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut out = Vec::new();
        let mut list = MoveList::new();
        for (m, mode) in Mode::ALL.into_iter().enumerate() {
            for game in 0..6u64 {
                let mut rng = rng_from_seed(0xf022_0000 + 100 * m as u64 + game);
                let rules = random_rules(mode, &mut rng);
                let mut pos = Position::new_game_with(rules, &mut rng);
                loop {
                    pos.legal_moves(&mut list);
                    if list.is_empty() || pos.ply().is_multiple_of(9) {
                        out.push((pos.to_jfen(), rules));
                    }
                    if list.is_empty() {
                        break;
                    }
                    pos.play_unchecked(list[rng.random_range(0..list.len())]);
                }
            }
        }
        let two_in_a_row = {
            let mut r = Rules::preset(Mode::Fanqi);
            r.apply_override("color_rule=two_in_a_row").unwrap();
            r
        };
        let black_first = {
            let mut r = Rules::preset(Mode::Anqi);
            r.apply_override("first_player=black").unwrap();
            r
        };
        for (text, rules) in [
            ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0 0", Rules::preset(Mode::Anqi)),
            ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 2 b 69 4294967295", black_first),
            ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 mingqi 2 r 4294967295 1999", Rules::preset(Mode::Mingqi)),
            ("~f~k~M2/5/5/5/5/5/5/5/5/5/5/~F~K3 fanqi 1 - 0 0", Rules::preset(Mode::Fanqi)),
            ("~f~kM2/5/5/5/5/5/5/5/5/5/5/~F~K3 fanqi 2 -r 0 1", two_in_a_row),
            ("~f~kM2/5/5/5/5/5/5/5/5/5/5/~F~Kg2 fanqi 1 -b 1 2", two_in_a_row),
            ("fkgdr/5/5/5/5/5/5/5/5/5/5/FKGDR fanqi 1 b 0 30", Rules::preset(Mode::Fanqi)),
        ] {
            Position::from_jfen(text, rules).unwrap_or_else(|e| panic!("corpus `{text}`: {e}"));
            out.push((text.to_string(), rules));
        }
        out
    })
}

/// Tokens that sit at the edges of JFEN's fields.
const TOKENS: &[&str] = &[
    "",
    " ",
    "  ",
    "\t",
    "\n",
    "/",
    "//",
    "~",
    "~~",
    "0",
    "1",
    "5",
    "6",
    "9",
    "55",
    "-",
    "-r",
    "-b",
    "-x",
    "r",
    "b",
    "rb",
    "R",
    "anqi",
    "mingqi",
    "fanqi",
    "Anqi",
    "xiangqi",
    "-0",
    "+1",
    "1.5",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "?",
    "司令",
    "é",
    "\u{0}",
    "\u{feff}",
    "１",
];

/// The JFEN alphabet, for byte edits that stay near the notation.
const ALPHABET: &[u8] = b"~KGDROJCLEBMFkgdrojclebmf0123456789/ -rb";

/// One edit of a byte string, at a position taken modulo its length.
#[derive(Clone, Debug)]
enum Edit {
    Bytes(ByteEdit),
    /// Replace a whitespace-separated field (or a `/` rank) with a token.
    Field(usize, &'static str),
    Rank(usize, &'static str),
    /// Swap two fields.
    SwapFields(usize, usize),
}

fn byte() -> impl Strategy<Value = u8> + Clone {
    prop_oneof![3 => prop::sample::select(ALPHABET.to_vec()), 1 => any::<u8>()]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        7 => byte_edit(byte(), 24).prop_map(Edit::Bytes),
        1 => (0..7usize, prop::sample::select(TOKENS)).prop_map(|(f, t)| Edit::Field(f, t)),
        1 => (0..13usize, prop::sample::select(TOKENS)).prop_map(|(r, t)| Edit::Rank(r, t)),
        1 => (0..6usize, 0..6usize).prop_map(|(a, b)| Edit::SwapFields(a, b)),
    ]
}

fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        match *e {
            Edit::Bytes(ref b) => b.apply(&mut bytes),
            Edit::Field(f, token) | Edit::Rank(f, token) => {
                let separator = if matches!(e, Edit::Field(..)) { " " } else { "/" };
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let mut parts: Vec<String> = s.split(separator).map(str::to_string).collect();
                match parts.get_mut(f) {
                    Some(p) => *p = token.to_string(),
                    None => parts.push(token.to_string()),
                }
                bytes = parts.join(separator).into_bytes();
            }
            Edit::SwapFields(a, b) => {
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let mut parts: Vec<&str> = s.split(' ').collect();
                if a < parts.len() && b < parts.len() {
                    parts.swap(a, b);
                }
                bytes = parts.join(" ").into_bytes();
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A corpus position's JFEN and rules, with 1 to 4 edits.
fn mutated_jfen() -> impl Strategy<Value = (String, Rules)> {
    (0..corpus().len(), prop::collection::vec(edit(), 1..5)).prop_map(|(i, edits)| {
        let (text, rules) = &corpus()[i];
        (apply_edits(text, &edits), *rules)
    })
}

// ---------------------------------------------------------------------------
// The checks.

fn fail(message: String) -> TestCaseError {
    TestCaseError::fail(message)
}

/// The rules to try `text` under: its mode's preset (as the CLI picks),
/// `rules` when given, and the other colour rule / first player.
fn rules_to_try(text: &str, rules: Option<Rules>) -> Vec<Rules> {
    let mut out: Vec<Rules> = Mode::ALL.into_iter().map(Rules::preset).collect();
    out.extend(rules);
    if let Ok(mode) = peek_mode(text) {
        let mut other = Rules::preset(mode);
        let set = if mode == Mode::Fanqi { "color_rule=two_in_a_row" } else { "first_player=black" };
        other.apply_override(set).unwrap();
        out.push(other);
    }
    out
}

/// Parse `text` under every rule set worth trying; every position accepted
/// round-trips and is then exercised.
fn check_jfen(text: &str, rules: Option<Rules>) -> Result<(), TestCaseError> {
    let mode = peek_mode(text);
    for rules in rules_to_try(text, rules) {
        let Ok(pos) = Position::from_jfen(text, rules) else { continue };
        prop_assert_eq!(mode.clone(), Ok(pos.mode()), "peek_mode of accepted `{}`", text);
        round_trip(&pos).map_err(|e| fail(format!("accepted `{text}`: {e}")))?;
        exercise(&pos).map_err(|e| fail(format!("accepted `{text}`: {e}")))?;
    }
    Ok(())
}

/// `pos` prints as JFEN that parses back to `pos` and prints the same.
fn round_trip(pos: &Position) -> Result<(), TestCaseError> {
    let text = pos.to_jfen();
    let back = Position::from_jfen(&text, *pos.rules()).map_err(|e| fail(format!("printed as `{text}`: {e}")))?;
    prop_assert_eq!(&back, pos, "printed as `{}`", text);
    prop_assert_eq!(back.to_jfen(), text);
    Ok(())
}

/// Everything a caller does with a parsed position returns: legal moves
/// (each plays, and the result round-trips), the outcome, every one of the
/// 3600 actions through `play` (legal exactly when generated), the
/// information sets of both seats and worlds sampled from them.
fn exercise(pos: &Position) -> Result<(), TestCaseError> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let over = pos.outcome();
    prop_assert_eq!(list.is_empty(), over.is_some(), "legal moves {:?}, outcome {:?}", list, over);
    prop_assert_eq!(pos.outcome_given(list.len()), over);
    for id in 0..ACTIONS {
        let mv = Move::from_action_id(id).unwrap();
        let mut after = pos.clone();
        match after.play(mv) {
            Ok(_) => {
                prop_assert!(list.contains(mv), "{} played but is not legal", mv);
                round_trip(&after).map_err(|e| fail(format!("after {mv}: {e}")))?;
                let _ = after.outcome();
            }
            Err(PlayError::Illegal(m)) => prop_assert!(m == mv && !list.contains(mv), "{} legal but refused", mv),
            Err(PlayError::GameOver(_)) => prop_assert!(over.is_some(), "{}: game over, but the outcome is None", mv),
            Err(e @ PlayError::UnknownPiece(_)) => return Err(fail(format!("{mv}: {e} in the referee's position"))),
        }
        prop_assert!(after == *pos || list.contains(mv), "a refused {} changed the position", mv);
    }
    let game = Game::new(pos.clone());
    let mut rng = rng_from_seed(pos.ply() as u64);
    for seat in Seat::BOTH {
        let info = game.infoset(seat);
        let mut mine = MoveList::new();
        info.legal_moves(&mut mine);
        let _ = info.view().to_jfen();
        let world = info.sample_world(&mut rng);
        world.legal_moves(&mut mine);
        let _ = (world.outcome(), world.to_jfen());
    }
    Ok(())
}

/// Move text: parsed or refused; what parses prints and parses back.
fn check_move_text(text: &str) -> Result<Option<Move>, TestCaseError> {
    let Ok(mv) = text.parse::<Move>() else { return Ok(None) };
    let printed = mv.to_string();
    prop_assert_eq!(printed.parse::<Move>(), Ok(mv), "`{}` parsed as {}", text, printed);
    prop_assert_eq!(Move::from_action_id(mv.action_id()), Some(mv));
    Ok(Some(mv))
}

/// Move-looking text: squares, separators and near misses.
fn move_like() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        "[a-f][0-9]{1,3}",
        "[a-eA-E]1[0-3]",
        prop::sample::select(vec![" ", "-", "  ", "--", "\t", "", "a", "0", "é", "a6a7", "\u{3000}"])
            .prop_map(str::to_string),
    ];
    prop::collection::vec(part, 0..5).prop_map(|p| p.concat())
}

// ---------------------------------------------------------------------------
// The properties.

proptest! {
    #![proptest_config(fuzz_config(10000))]

    /// Arbitrary text (any Unicode, and any bytes read lossily) as JFEN and as a move.
    #[test]
    fn arbitrary_text_is_parsed_or_refused(text in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        for text in [text, String::from_utf8_lossy(&bytes).into_owned()] {
            let case = Case::start(|| format!("arbitrary text {text:?}"));
            check_jfen(&text, None)?;
            check_move_text(&text)?;
            case.finish()?;
        }
    }

    /// Move-looking text: parsed moves round-trip, and playing one on a real
    /// position is legal exactly when generated, an error otherwise.
    #[test]
    fn move_text_is_parsed_or_refused(text in move_like(), at in 0..corpus().len()) {
        let case = Case::start(|| format!("move text {text:?} on corpus {at}"));
        if let Some(mv) = check_move_text(&text)? {
            let (jfen, rules) = &corpus()[at];
            let mut pos = Position::from_jfen(jfen, *rules).unwrap();
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let before = pos.clone();
            match pos.play(mv) {
                Ok(_) => prop_assert!(list.contains(mv)),
                Err(e) => {
                    prop_assert!(!list.contains(mv), "legal {} refused: {}", mv, e);
                    prop_assert_eq!(&pos, &before);
                }
            }
        }
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(6000))]

    /// Edits of real positions' JFEN (bytes flipped, inserted, deleted,
    /// runs duplicated, fields replaced or swapped): parsed or refused under
    /// every rule set; what parses round-trips and plays (see `exercise`).
    #[test]
    fn mutated_jfen_is_parsed_or_refused((text, rules) in mutated_jfen()) {
        let case = Case::start(|| format!("mutated JFEN {text:?}"));
        check_jfen(&text, Some(rules))?;
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(200))]

    /// The unmutated corpus itself: every position round-trips and plays.
    #[test]
    fn corpus_positions_round_trip(at in 0..corpus().len()) {
        let (text, rules) = &corpus()[at];
        let case = Case::start(|| format!("corpus {text:?}"));
        check_jfen(text, Some(*rules))?;
        case.finish()?;
    }
}

/// The harness itself: the seed is fixed (two runners draw the same
/// values), and the corpus holds positions of every mode.
#[test]
fn fuzz_cases_are_fixed() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let draw = || {
        let mut runner = TestRunner::new(fuzz_config(1));
        mutated_jfen().new_tree(&mut runner).unwrap().current()
    };
    assert_eq!(draw().0, draw().0);
    for mode in Mode::ALL {
        assert!(corpus().iter().any(|(_, r)| r.mode == mode));
    }
    assert!(corpus().iter().any(|(_, r)| r.color_rule == ColorRule::TwoInARow));
}
