//! Properties that must hold on every position and action, checked on seeded
//! random games (docs/rules.md §4, §7, §8): JFEN and move notation round-trip,
//! pieces only ever leave the board through combat, everything is a function
//! of the seed, and malformed input is rejected without a panic.

use junqi_core::jfen::peek_mode;
use junqi_core::playout::random_game;
use junqi_core::{
    rng_from_seed, CombatOutcome, Effect, JfenError, Kind, Mode, Move, MoveList, Piece, Position, Rules, Square,
    ACTIONS,
};
use junqi_tests::reference::may_capture_flag;
use junqi_tests::reference::sampling::random_rules;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rand::Rng;

fn mode_strategy() -> impl Strategy<Value = Mode> {
    prop::sample::select(Mode::ALL.to_vec())
}

/// Play one seeded random game (rules and deal drawn from `seed` too),
/// calling `visit(before, mv, after, effect)` for every action through the
/// checked `Position::play`. Returns the final position.
fn play_random_game(
    mode: Mode,
    seed: u64,
    mut visit: impl FnMut(&Position, Move, &Position, Effect) -> Result<(), TestCaseError>,
) -> Result<Position, TestCaseError> {
    let mut rng = rng_from_seed(seed);
    let mut rules = random_rules(mode, &mut rng);
    // The accounting below is that of pieces on nodes: `flag_carry` and
    // `mountains` take pieces off the nodes without combat, and have their
    // own clause and reference tests.
    rules.flag_carry = false;
    rules.mountains = junqi_core::rules::Mountains::Closed;
    let mut pos = Position::new_game_with(rules, &mut rng);
    let mut list = MoveList::new();
    loop {
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return Ok(pos);
        }
        let mv = list[rng.random_range(0..list.len())];
        let before = pos.clone();
        let effect = pos.play(mv).map_err(|e| TestCaseError::fail(format!("{e} in {}", before.to_jfen())))?;
        visit(&before, mv, &pos, effect)?;
    }
}

fn parse_again(pos: &Position) -> Result<Position, TestCaseError> {
    let text = pos.to_jfen();
    Position::from_jfen(&text, *pos.rules()).map_err(|e| TestCaseError::fail(format!("{text} rejected: {e}")))
}

// ---------------------------------------------------------------------------
// (a) Notation round-trips (§7)

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every position of a random game prints and parses back to itself, and
    /// every legal action's notation parses back to the action.
    #[test]
    fn jfen_and_moves_round_trip(mode in mode_strategy(), seed in any::<u64>()) {
        let check = |pos: &Position| -> Result<(), TestCaseError> {
            let text = pos.to_jfen();
            let back = parse_again(pos)?;
            prop_assert_eq!(&back, pos, "JFEN {}", text);
            prop_assert_eq!(back.to_jfen(), text.clone());
            prop_assert_eq!(peek_mode(&text), Ok(mode));
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            for &mv in list.iter() {
                prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
            }
            Ok(())
        };
        let last = play_random_game(mode, seed, |before, _, _, _| check(before))?;
        check(&last)?;
    }
}

/// All 3600 entries of the action table print and parse back (§7 Move).
#[test]
fn every_action_id_round_trips() {
    for id in 0..ACTIONS {
        let mv = Move::from_action_id(id).unwrap();
        assert_eq!(mv.action_id(), id);
        let text = mv.to_string();
        assert_eq!(text.parse::<Move>(), Ok(mv), "{text}");
        assert_eq!(mv.is_flip(), mv.from == mv.to);
    }
    assert_eq!(Move::from_action_id(ACTIONS), None);
}

// ---------------------------------------------------------------------------
// (b) Pieces only leave through combat (§3, §4, §8 counters)

fn counts(pos: &Position) -> Vec<u8> {
    junqi_core::Colour::ALL.iter().flat_map(|&c| Kind::ALL.map(|k| pos.count(c, k))).collect()
}

/// The outcome §4 (with §5.1 `engineer_scout` and §5.3 `attack_hidden`)
/// prescribes for `attacker` moving onto `defender` in `before`.
fn expected_outcome(before: &Position, attacker: Piece, defender: Piece, defender_hidden: bool) -> CombatOutcome {
    let rules = before.rules();
    if rules.mode == Mode::Anqi && rules.engineer_scout && attacker.kind == Kind::Engineer {
        return CombatOutcome::Scouted;
    }
    let mines_gone = rules.mode != Mode::Fanqi || before.count(defender.colour, Kind::Mine) == 0;
    // 混棋 (§5.3 clause 6) offers only the flag attacks that take the flag.
    let may_take_flag = rules.hunqi || (mines_gone && may_capture_flag(before, attacker.colour, attacker.kind));
    if defender_hidden && (defender.colour == attacker.colour || (defender.kind == Kind::Flag && !may_take_flag)) {
        return CombatOutcome::Bounced;
    }
    match (attacker.kind, defender.kind) {
        // 混棋 (§5.3 clause 5): a moving flag takes a flag, trades with a
        // bomb, and beats the officers it may attack.
        (Kind::Flag, Kind::Flag) => CombatOutcome::FlagCaptured,
        (Kind::Flag, Kind::Bomb) => CombatOutcome::BothRemoved,
        (Kind::Flag, _) => CombatOutcome::AttackerWon,
        // A flag attack the rules forbid is still playable in 暗棋/明棋 (the
        // attacker cannot know); the engine's reading is that the attacker loses.
        (_, Kind::Flag) if may_take_flag => CombatOutcome::FlagCaptured,
        (_, Kind::Flag) => CombatOutcome::DefenderWon,
        (Kind::Bomb, _) | (_, Kind::Bomb) => CombatOutcome::BothRemoved,
        (Kind::Engineer, Kind::Mine) => CombatOutcome::AttackerWon,
        (_, Kind::Mine) => match rules.mine_rule {
            junqi_core::rules::MineRule::Spring => CombatOutcome::DefenderWon,
            junqi_core::rules::MineRule::Trade => CombatOutcome::BothRemoved,
        },
        (a, d) => {
            // Chinese numbers: 司令 40 … 工兵 32.
            let (a, d) = (a.number().unwrap(), d.number().unwrap());
            if a > d {
                CombatOutcome::AttackerWon
            } else if a < d {
                CombatOutcome::DefenderWon
            } else {
                CombatOutcome::BothRemoved
            }
        }
    }
}

/// Check one action: what moved, what left the board, and the counters.
fn check_action(before: &Position, mv: Move, after: &Position, effect: Effect) -> Result<(), TestCaseError> {
    let ctx = format!("{mv} in {} gave {effect:?}", before.to_jfen());
    let (from, to) = (mv.from, mv.to);
    // Nothing but `from` and `to` ever changes.
    for sq in Square::all().filter(|&s| s != from && s != to) {
        prop_assert_eq!(before.piece_at(sq), after.piece_at(sq), "{} at {}", ctx, sq);
        prop_assert_eq!(before.is_face_down(sq), after.is_face_down(sq), "{} at {}", ctx, sq);
    }
    prop_assert_eq!(after.ply(), before.ply() + 1, "{}", ctx);
    prop_assert_eq!(after.turn(), before.turn().other(), "{}", ctx);
    // No colour ever gains a piece of any kind.
    let (was, now) = (counts(before), counts(after));
    prop_assert!(was.iter().zip(&now).all(|(w, n)| n <= w), "{}: counts {:?} -> {:?}", ctx, was, now);
    let lost = before.piece_count() - after.piece_count();
    let lost_kinds: u32 = was.iter().zip(&now).map(|(w, n)| (w - n) as u32).sum();
    prop_assert_eq!(lost, lost_kinds, "{}", ctx);

    match effect {
        Effect::Flip { piece } => {
            prop_assert!(mv.is_flip() && before.is_face_down(from) && !after.is_face_down(from), "{}", ctx);
            prop_assert_eq!(before.piece_at(from), Some(piece), "{}", ctx);
            prop_assert_eq!(after.piece_at(from), Some(piece), "{}", ctx);
            prop_assert_eq!(lost, 0, "{}", ctx);
            prop_assert_eq!(after.quiet(), 0, "{}", ctx);
        }
        Effect::Move { piece } => {
            prop_assert!(!before.is_occupied(to) && !after.is_occupied(from), "{}", ctx);
            prop_assert_eq!(before.piece_at(from), Some(piece), "{}", ctx);
            prop_assert_eq!(after.piece_at(to), Some(piece), "{}", ctx);
            prop_assert!(!before.is_face_down(from) && !after.is_face_down(to), "{}", ctx);
            prop_assert_eq!(lost, 0, "{}", ctx);
            prop_assert_eq!(after.quiet(), before.quiet() + 1, "{}", ctx);
        }
        Effect::Attack { attacker, defender, outcome } => {
            prop_assert_eq!(before.piece_at(from), Some(attacker), "{}", ctx);
            prop_assert_eq!(before.piece_at(to), Some(defender), "{}", ctx);
            prop_assert_eq!(after.quiet(), 0, "{}", ctx);
            let hidden = before.is_face_down(to);
            prop_assert_eq!(outcome, expected_outcome(before, attacker, defender, hidden), "{}", ctx);
            // Where each piece ends up (None = removed).
            let (at_from, at_to, removed) = match outcome {
                CombatOutcome::Bounced => (Some(attacker), Some(defender), 0),
                CombatOutcome::AttackerWon => (None, Some(attacker), 1),
                CombatOutcome::DefenderWon | CombatOutcome::Scouted => (None, Some(defender), 1),
                CombatOutcome::BothRemoved => (None, None, 2),
                CombatOutcome::FlagCaptured if matches!(attacker.kind, Kind::Bomb | Kind::Flag) => (None, None, 2),
                CombatOutcome::FlagCaptured => (None, Some(attacker), 1),
            };
            prop_assert_eq!(after.piece_at(from), at_from, "{}", ctx);
            prop_assert_eq!(after.piece_at(to), at_to, "{}", ctx);
            prop_assert_eq!(lost, removed, "{}", ctx);
            // Whoever stays on `to` is face-up (a bounce turns the defender up).
            prop_assert!(!after.is_face_down(to), "{}", ctx);
            // Exactly the removed pieces left the counts.
            let mut expected = was.clone();
            let slot = |p: Piece| p.colour.index() * Kind::ALL.len() + p.kind.index();
            if at_to != Some(defender) {
                expected[slot(defender)] -= 1;
            }
            if at_from != Some(attacker) && at_to != Some(attacker) {
                expected[slot(attacker)] -= 1;
            }
            prop_assert_eq!(&now, &expected, "{}", ctx);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn pieces_leave_only_through_combat(mode in mode_strategy(), seed in any::<u64>()) {
        play_random_game(mode, seed, check_action)?;
    }
}

// ---------------------------------------------------------------------------
// (c) Determinism

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A deal, and a random game driven by `rng_from_seed`, depend on the seed only.
    #[test]
    fn games_are_functions_of_their_seeds(mode in mode_strategy(), deal in any::<u64>(), play in any::<u64>()) {
        let mut rules = Rules::preset(mode);
        rules.max_plies = 400;
        let start = Position::new_game(rules, deal);
        prop_assert_eq!(&start, &Position::new_game(rules, deal));
        let a = random_game(start.clone(), &mut rng_from_seed(play));
        let b = random_game(start.clone(), &mut rng_from_seed(play));
        prop_assert_eq!(&a.moves, &b.moves);
        prop_assert_eq!(a.outcome, b.outcome);
        // Replaying the moves through the checked API reaches the same place twice.
        let replay = |moves: &[Move]| -> Result<Position, TestCaseError> {
            let mut pos = start.clone();
            for &mv in moves {
                pos.play(mv).map_err(|e| TestCaseError::fail(format!("{e} replaying {mv}")))?;
            }
            Ok(pos)
        };
        prop_assert_eq!(replay(&a.moves)?, replay(&b.moves)?);
    }
}

/// Different seeds deal differently (a collision among 16 seeds would take
/// astronomically bad luck, or a seed that is ignored).
#[test]
fn different_seeds_give_different_deals() {
    for mode in Mode::ALL {
        let deals: Vec<String> = (0..16).map(|seed| Position::new_game(Rules::preset(mode), seed).to_jfen()).collect();
        for i in 0..deals.len() {
            for j in i + 1..deals.len() {
                assert_ne!(deals[i], deals[j], "{mode}: seeds {i} and {j} dealt the same");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// End of game: the cheap outcome query agrees with the full one (§8)

/// `Position::outcome_given` is documented to take the count from
/// `Position::legal_moves`, and the playout drivers do exactly that. But
/// `legal_moves` is empty once `quiet >= no_progress_plies` (or `ply >=
/// max_plies`), and `outcome_given(0)` then reports §8 step 3 (no legal
/// action: the seat to move loses) instead of step 4 (draw).
#[test]
fn outcome_given_legal_move_count_agrees_with_outcome() {
    for jfen in [
        // quiet = 70 = no_progress_plies: a draw (§8 step 4), Red has moves.
        "1fk2/5/5/5/5/5/5/5/5/5/E4/1F3 mingqi 1 r 70 100",
        // ply = 2000 = max_plies.
        "1fk2/5/5/5/5/5/5/5/5/5/E4/1F3 mingqi 1 r 0 2000",
    ] {
        let pos = Position::from_jfen(jfen, Rules::preset(Mode::Mingqi)).unwrap();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let full = pos.outcome();
        assert!(full.is_some_and(|o| o.winner.is_none()), "{jfen}: {full:?}");
        assert_eq!(pos.outcome_given(list.len()), full, "{jfen}");
    }
}

/// A random game's reported outcome is the outcome of the position it ends in.
#[test]
fn random_game_outcome_is_the_final_positions_outcome() {
    for seed in 0..12 {
        let mode = Mode::ALL[seed as usize % 3];
        let mut rules = Rules::preset(mode);
        rules.no_progress_plies = 40;
        let start = Position::new_game(rules, seed);
        let game = random_game(start.clone(), &mut rng_from_seed(seed));
        let mut pos = start;
        for &mv in &game.moves {
            pos.play_unchecked(mv);
        }
        assert_eq!(Some(game.outcome), pos.outcome(), "{mode} seed {seed}, final {}", pos.to_jfen());
    }
}

// ---------------------------------------------------------------------------
// Malformed input

const ANQI_OK: &str = "1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0 0";
const FANQI_OK: &str = "~f~k~M2/5/5/5/5/5/5/5/5/5/5/~F~K3 fanqi 1 - 0 0";

/// The rules a caller would pick for `text`: its mode's preset.
fn preset_for(text: &str) -> Rules {
    Rules::preset(peek_mode(text).unwrap_or(Mode::Fanqi))
}

#[test]
fn malformed_jfen_is_rejected() {
    use JfenError as E;
    // The two bases are valid; each bad string breaks one thing.
    for ok in [ANQI_OK, FANQI_OK] {
        Position::from_jfen(ok, preset_for(ok)).unwrap();
    }
    let anqi = |board: &str| format!("{board} anqi 1 r 0 0");
    let fanqi = |board: &str| format!("{board} fanqi 1 - 0 0");
    let ranks = |n: usize| vec!["5"; n].join("/");
    // Each bad string with a test of the error it must give.
    type Expect = fn(&JfenError) -> bool;
    let bad: Vec<(String, Expect)> = vec![
        (String::new(), |e| matches!(e, E::FieldCount(0))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0".into(), |e| matches!(e, E::FieldCount(5))),
        (format!("{ANQI_OK} 0"), |e| matches!(e, E::FieldCount(7))),
        (anqi(&ranks(11)), |e| matches!(e, E::RankCount(11))),
        (anqi(&format!("{}/1F3", ranks(12))), |e| matches!(e, E::RankCount(13))),
        (anqi("1f3/5/5/5/5/2k2/2K2/5/5/5/6/1F3"), |e| matches!(e, E::Rank { rank: 2, .. })),
        (anqi("1f3/5/5/5/5/2k2/2K2/5/5/5/05/1F3"), |e| matches!(e, E::Rank { rank: 2, .. })),
        (anqi("1f4/5/5/5/5/2k2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Rank { rank: 12, .. })),
        (anqi("1f2/5/5/5/5/2k2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Rank { rank: 12, .. })),
        (anqi("1f3/5/5/5/5/2k2/2K2/5/5/5//1F3"), |e| matches!(e, E::Rank { rank: 2, .. })),
        (anqi("1f3/5/5/5/5/2x2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Rank { rank: 7, .. })),
        (anqi("1f3/5/5/5/5/2司2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Rank { rank: 7, .. })),
        (fanqi("~f~k~M1~/5/5/5/5/5/5/5/5/5/5/~F~K3"), |e| matches!(e, E::Rank { rank: 12, .. })),
        (fanqi("~~f4/5/5/5/5/5/5/5/5/5/5/~F~K3"), |e| matches!(e, E::Rank { rank: 12, .. })),
        // `~` outside fanqi.
        (anqi("1~f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Rank { rank: 12, .. })),
        // Face-down piece in camp b3.
        (fanqi("~f~k~M2/5/5/5/5/5/5/5/5/1~M3/5/~F~K3"), |e| matches!(e, E::Rank { rank: 3, .. })),
        // Two Red commanders; four Black mines.
        (anqi("1f3/5/5/5/5/2k2/KK3/5/5/5/5/1F3"), |e| matches!(e, E::Board(_))),
        (anqi("1f3/mmmm1/5/5/5/2k2/2K2/5/5/5/5/1F3"), |e| matches!(e, E::Board(_))),
        // Both flags gone; one flag gone before colours are assigned.
        (anqi("5/5/5/5/5/2k2/2K2/5/5/5/5/5"), |e| matches!(e, E::Board(_))),
        (fanqi("~f~k~M2/5/5/5/5/5/5/5/5/5/5/1~K3"), |e| matches!(e, E::Board(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 chess 1 r 0 0".into(), |e| matches!(e, E::Mode(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 Anqi 1 r 0 0".into(), |e| matches!(e, E::Mode(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 3 r 0 0".into(), |e| matches!(e, E::Turn(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 0 r 0 0".into(), |e| matches!(e, E::Turn(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi r 1 0 0".into(), |e| matches!(e, E::Turn(_))),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 x 0 0".into(), |e| matches!(e, E::Colours { .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 R 0 0".into(), |e| matches!(e, E::Colours { .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 rb 0 0".into(), |e| matches!(e, E::Colours { .. })),
        // `-` (unassigned) only exists in fanqi; `-x` nowhere.
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 - 0 0".into(), |e| matches!(e, E::Colours { .. })),
        ("~f~k~M2/5/5/5/5/5/5/5/5/5/5/~F~K3 fanqi 1 -x 0 0".into(), |e| matches!(e, E::Colours { .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r -1 0".into(), |e| matches!(e, E::Counter { field: "quiet", .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r +3 0".into(), |e| matches!(e, E::Counter { field: "quiet", .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r abc 0".into(), |e| matches!(e, E::Counter { field: "quiet", .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0 1.5".into(), |e| matches!(e, E::Counter { field: "ply", .. })),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0 4294967296".into(), |e| {
            matches!(e, E::Counter { field: "ply", .. })
        }),
        ("1f3/5/5/5/5/2k2/2K2/5/5/5/5/1F3 anqi 1 r 0 -0".into(), |e| matches!(e, E::Counter { field: "ply", .. })),
    ];
    for (text, expected) in &bad {
        match Position::from_jfen(text, preset_for(text)) {
            Ok(pos) => panic!("accepted malformed JFEN `{text}` as {}", pos.to_jfen()),
            Err(e) => {
                assert!(expected(&e), "`{text}` rejected for an unexpected reason: {e:?}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
    // Well-formed, but not for these rules.
    let fanqi_rules = Rules::preset(Mode::Fanqi);
    assert!(matches!(Position::from_jfen(ANQI_OK, fanqi_rules), Err(E::ModeMismatch { .. })));
    let black_first = ANQI_OK.replace(" 1 r ", " 1 b ");
    assert!(matches!(Position::from_jfen(&black_first, Rules::preset(Mode::Anqi)), Err(E::FirstPlayerMismatch { .. })));
}

/// Whatever the text, parsing returns rather than panics, and anything it
/// accepts prints and parses back to the same thing.
fn parse_anything(text: &str) -> Result<(), TestCaseError> {
    let _ = peek_mode(text);
    for mode in Mode::ALL {
        if let Ok(pos) = Position::from_jfen(text, Rules::preset(mode)) {
            prop_assert_eq!(&parse_again(&pos)?, &pos, "accepted `{}`", text);
        }
    }
    if let Ok(mv) = text.parse::<Move>() {
        prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(mv), "accepted `{}`", text);
    }
    Ok(())
}

/// JFEN-looking text: the right alphabet and roughly the right shape.
fn jfen_like() -> impl Strategy<Value = String> {
    (
        "[~KGDROJCLEBMFkgdrojclebmf0-9/]{0,80}",
        prop::sample::select(vec!["anqi", "mingqi", "fanqi", "xiangqi", ""]),
        "[0-3]",
        prop::sample::select(vec!["r", "b", "-", "-r", "-b", "-x", "rb"]),
        "[0-9-]{0,4}",
        "[0-9]{0,11}",
    )
        .prop_map(|(board, mode, turn, colours, quiet, ply)| format!("{board} {mode} {turn} {colours} {quiet} {ply}"))
}

/// An edit of a string: 0 replace, 1 delete, 2 insert, 3 swap with the next
/// character, at a position taken modulo the length.
fn edits() -> impl Strategy<Value = Vec<(u8, usize, char)>> {
    let chars = prop_oneof![
        3 => prop::sample::select("~KGDROJCLEBMFkgdrojclebmf0123456789/ -rb".chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ];
    prop::collection::vec((0..4u8, any::<usize>(), chars), 1..5)
}

fn apply_edits(text: &str, edits: &[(u8, usize, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(op, at, c) in edits {
        let at = at % (chars.len() + 1);
        match op {
            0 if at < chars.len() => chars[at] = c,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            3 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => chars.insert(at, c),
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        parse_anything(&text)?;
    }

    #[test]
    fn jfen_like_text_never_panics(text in jfen_like()) {
        parse_anything(&text)?;
    }

    #[test]
    fn move_like_text_never_panics(text in "[a-f0-9 -]{0,8}") {
        parse_anything(&text)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Small edits of a real position's JFEN (a random deal, a few random
    /// plies in) are parsed or rejected, never a panic.
    #[test]
    fn mutated_jfen_never_panics(mode in mode_strategy(), seed in any::<u64>(), plies in 0..80usize, edits in edits()) {
        let mut rng = rng_from_seed(seed);
        let mut pos = Position::new_game_with(Rules::preset(mode), &mut rng);
        let mut list = MoveList::new();
        for _ in 0..plies {
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            pos.play_unchecked(list[rng.random_range(0..list.len())]);
        }
        parse_anything(&apply_edits(&pos.to_jfen(), &edits))?;
    }
}
