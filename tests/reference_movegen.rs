//! The fast generator (`Position::legal_moves`) against the slow reference of
//! `junqi_tests::reference`, on positions drawn from seeded random games
//! under randomly drawn variant options (docs/rules.md §6).
//!
//! Besides the positions the games pass through, some sampled positions are
//! also checked under a second, independently drawn rule set, and some with
//! random pieces taken off: random play rarely reaches boards where, say, a
//! side has lost all its mines, so thinning is what exercises the flag rules.

use junqi_core::{rng_from_seed, GameRng, Kind, Mode, Move, MoveList, Position, Square, Termination};
use junqi_tests::reference::sampling::{random_rules, random_rules_for, thinned_jfen, turn_on_hunqi};
use junqi_tests::reference::{board, reference_moves};
use rand::Rng;
use std::collections::BTreeSet;

/// Positions straight from games that must be checked per mode.
const GAME_POSITIONS_PER_MODE: usize = 30_000;

/// Compare both generators on `pos`; panic with everything needed to
/// reproduce a disagreement.
fn compare(pos: &Position, list: &mut MoveList) -> Vec<Move> {
    pos.legal_moves(list);
    let mut fast: Vec<Move> = list.as_slice().to_vec();
    fast.sort();
    let emitted = fast.len();
    fast.dedup();
    let slow = reference_moves(pos);
    if fast != slow || emitted != fast.len() {
        let fast_set: BTreeSet<Move> = fast.iter().copied().collect();
        let slow_set: BTreeSet<Move> = slow.iter().copied().collect();
        let show = |moves: Vec<&Move>| moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
        panic!(
            "move generators disagree\nJFEN: {}\nrules:\n{}\nonly in engine:    [{}]\nonly in reference: [{}]\n\
             engine emitted {} moves, {} distinct",
            pos.to_jfen(),
            pos.rules().to_toml_string(),
            show(fast_set.difference(&slow_set).collect()),
            show(slow_set.difference(&fast_set).collect()),
            emitted,
            fast.len(),
        );
    }
    // No legal action exactly when the game is over (docs/rules.md §8).
    assert_eq!(
        slow.is_empty(),
        pos.outcome().is_some(),
        "outcome {:?} but {} legal moves\nJFEN: {}\nrules:\n{}",
        pos.outcome(),
        slow.len(),
        pos.to_jfen(),
        pos.rules().to_toml_string()
    );
    slow
}

/// What the checked positions covered, so a sampling change that stops
/// reaching some rule is noticed.
#[derive(Default, Debug)]
struct Coverage {
    games: usize,
    game_positions: usize,
    reruled: usize,
    thinned: usize,
    finished: usize,
    /// Finished only by `no_progress_plies` / `max_plies` (§8 step 4).
    cut_off: usize,
    flips: usize,
    flights: usize,
    mine_attacks: usize,
    flag_attacks: usize,
    hidden_attacks: usize,
}

impl Coverage {
    fn record(&mut self, pos: &Position, moves: &[Move]) {
        if moves.is_empty() {
            self.finished += 1;
            if pos.outcome().is_some_and(|o| matches!(o.termination, Termination::QuietPlies | Termination::MaxPlies)) {
                self.cut_off += 1;
            }
        }
        let b = board();
        let mut flips = false;
        let mut flights = false;
        let mut mines = false;
        let mut flags = false;
        let mut hidden = false;
        for m in moves {
            if m.is_flip() {
                // (a face-up node twice is a put-down or a mountain action)
                flips |= pos.is_face_down(m.from);
                continue;
            }
            // Two railway nodes on no common line: only flight gets there.
            let on_common_line = b.lines.iter().any(|l| l.contains(&m.from.index()) && l.contains(&m.to.index()));
            if b.is_railway(m.from.index()) && b.is_railway(m.to.index()) && !on_common_line {
                flights = true;
            }
            if pos.is_face_down(m.to) {
                hidden = true;
            } else if let Some(p) = pos.piece_at(m.to) {
                mines |= p.kind == Kind::Mine;
                flags |= p.kind == Kind::Flag;
            }
        }
        self.flips += flips as usize;
        self.flights += flights as usize;
        self.mine_attacks += mines as usize;
        self.flag_attacks += flags as usize;
        self.hidden_attacks += hidden as usize;
    }
}

/// A copy of `pos` with each non-flag piece removed with probability `p`.
fn thinned(pos: &Position, p: f64, rng: &mut GameRng) -> Position {
    let text = thinned_jfen(pos, &mut |_: Square| rng.random_bool(p));
    Position::from_jfen(&text, *pos.rules()).unwrap_or_else(|e| panic!("thinned JFEN {text} rejected: {e}"))
}

/// Play seeded random games in `mode` until enough of their positions have
/// been checked; returns what was covered.
fn check_mode(mode: Mode, seed: u64) -> Coverage {
    let mut rng = rng_from_seed(seed);
    let mut list = MoveList::new();
    let mut cov = Coverage::default();
    while cov.game_positions < GAME_POSITIONS_PER_MODE {
        let rules = random_rules(mode, &mut rng);
        let mut pos = Position::new_game_with(rules, &mut rng);
        cov.games += 1;
        // Each game samples at its own rate, so some contribute many
        // neighbouring positions and others a few spread-out ones.
        let rate = rng.random_range(0.02..0.3);
        loop {
            pos.legal_moves(&mut list);
            let finished = list.is_empty();
            // Always check the last position: that is where the end
            // conditions (and the draw cut-off) decide.
            if finished || rng.random_bool(rate) {
                let moves = compare(&pos, &mut list);
                cov.game_positions += 1;
                cov.record(&pos, &moves);
                if rng.random_bool(0.3) {
                    let mut other = pos.clone();
                    other.set_rules(random_rules_for(&pos, &mut rng)).expect("rules fit the position");
                    let moves = compare(&other, &mut list);
                    cov.reruled += 1;
                    cov.record(&other, &moves);
                }
                if rng.random_bool(0.3) {
                    let p = rng.random_range(0.2..0.9);
                    let sparse = thinned(&pos, p, &mut rng);
                    let moves = compare(&sparse, &mut list);
                    cov.thinned += 1;
                    cov.record(&sparse, &moves);
                }
            }
            if finished {
                break;
            }
            // `compare` reused the buffer: generate again before choosing.
            pos.legal_moves(&mut list);
            let mv = list[rng.random_range(0..list.len())];
            pos.play_unchecked(mv);
        }
    }
    eprintln!("{mode}: {cov:?}");
    cov
}

#[test]
fn fanqi_agrees_with_reference() {
    let cov = check_mode(Mode::Fanqi, 0xF0_0001);
    assert!(cov.cut_off > 0 && cov.flips > 0 && cov.flights > 0, "{cov:?}");
    assert!(cov.mine_attacks > 0 && cov.flag_attacks > 0 && cov.hidden_attacks > 0, "{cov:?}");
}

/// `flag_carry` (docs/rules.md §5.3 Carrying the flag): random 翻棋 games,
/// thinned once colours are out so that mines run out and flags get picked
/// up, carried, put down, captured with their carrier and brought home,
/// checked against the reference at every ply.
#[test]
fn fanqi_flag_carry_agrees_with_reference() {
    let mut rng = rng_from_seed(0xF1A6_0001);
    let mut list = MoveList::new();
    let (mut checked, mut carrying, mut put_downs, mut lying, mut carried_home) = (0, 0, 0, 0, 0);
    for _ in 0..600 {
        let mut rules = random_rules(Mode::Fanqi, &mut rng);
        rules.apply_override("hunqi=false").unwrap();
        rules.apply_override("flag_carry=true").unwrap();
        rules.apply_override("no_progress_plies=200").unwrap();
        rules.apply_override("max_plies=600").unwrap();
        let mut pos = Position::new_game_with(rules, &mut rng);
        let mut thinned_once = false;
        loop {
            if !thinned_once && pos.colour_of(pos.turn()).is_some() && pos.ply() > 10 {
                thinned_once = true;
                let p = rng.random_range(0.5..0.95);
                pos = thinned(&pos, p, &mut rng);
            }
            let moves = compare(&pos, &mut list);
            checked += 1;
            for c in junqi_core::Colour::ALL {
                match pos.loose_flag(c) {
                    Some(l) if l.carried => carrying += 1,
                    Some(_) => lying += 1,
                    None => {}
                }
            }
            put_downs += moves.iter().filter(|m| m.is_flip() && !pos.is_face_down(m.from)).count();
            if moves.is_empty() {
                if pos.outcome().is_some_and(|o| o.termination == Termination::FlagCaptured) {
                    carried_home += 1;
                }
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos.play(mv).unwrap();
        }
    }
    eprintln!("flag_carry: {checked} positions, {carrying} carrying, {lying} lying, {put_downs} put-downs, {carried_home} won home");
    assert!(carrying > 100 && lying > 100 && put_downs > 100 && carried_home > 5);
}

/// 混棋 (`hunqi`, docs/rules.md §5.3 混棋): random 翻棋 games under it,
/// thinned once colours are out so that mines run out and flags start to
/// move, checked against the reference at every ply.
#[test]
fn fanqi_hunqi_agrees_with_reference() {
    let mut rng = rng_from_seed(0x4D10_0001);
    let mut list = MoveList::new();
    let (mut checked, mut flag_moves, mut flag_attacks, mut on_moving_flags, mut flags_taken) = (0, 0, 0, 0, 0);
    for game in 0..600 {
        let mut rules = random_rules(Mode::Fanqi, &mut rng);
        turn_on_hunqi(&mut rules);
        rules.apply_override("no_progress_plies=200").unwrap();
        rules.apply_override("max_plies=600").unwrap();
        let mut pos = Position::new_game_with(rules, &mut rng);
        let mut thinned_once = false;
        loop {
            if !thinned_once && pos.colour_of(pos.turn()).is_some() && pos.ply() > 10 + game % 40 {
                thinned_once = true;
                let p = rng.random_range(0.5..0.95);
                pos = thinned(&pos, p, &mut rng);
            }
            let moves = compare(&pos, &mut list);
            checked += 1;
            for m in moves.iter().filter(|m| !m.is_flip()) {
                let kind = |sq: Square| pos.piece_at(sq).filter(|_| !pos.is_face_down(sq)).map(|p| p.kind);
                if kind(m.from) == Some(Kind::Flag) {
                    flag_moves += 1;
                    flag_attacks += pos.is_occupied(m.to) as usize;
                }
                if kind(m.to) == Some(Kind::Flag) && pos.hunqi_flag_moves(pos.piece_at(m.to).unwrap().colour) {
                    on_moving_flags += 1;
                }
            }
            if moves.is_empty() {
                if pos.outcome().is_some_and(|o| o.termination == Termination::FlagCaptured) {
                    flags_taken += 1;
                }
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos.play(mv).unwrap();
        }
    }
    eprintln!(
        "hunqi: {checked} positions, {flag_moves} flag moves ({flag_attacks} attacks), \
         {on_moving_flags} attacks on moving flags, {flags_taken} games won by a flag"
    );
    assert!(flag_moves > 1000 && flag_attacks > 50 && on_moving_flags > 50 && flags_taken > 20);
}

/// `mountains` (docs/rules.md §3 Mountains) in 翻棋 and 明棋: random games
/// under `open` and `engineer`, thinned once so pieces reach the front
/// ranks, checked against the reference at every ply.
#[test]
fn mountains_agree_with_reference() {
    let mut rng = rng_from_seed(0x5A_0001);
    let mut list = MoveList::new();
    let (mut checked, mut occupied, mut entries, mut exits) = (0, 0, 0, 0);
    for game in 0..400 {
        let mode = if game % 2 == 0 { Mode::Fanqi } else { Mode::Mingqi };
        let mut rules = random_rules(mode, &mut rng);
        rules.apply_override("hunqi=false").unwrap();
        rules.apply_override(if game % 4 < 2 { "mountains=open" } else { "mountains=engineer" }).unwrap();
        rules.apply_override("no_progress_plies=200").unwrap();
        rules.apply_override("max_plies=400").unwrap();
        let mut pos = Position::new_game_with(rules, &mut rng);
        let mut thinned_once = false;
        loop {
            if !thinned_once && pos.colour_of(pos.turn()).is_some() && pos.ply() > 6 {
                thinned_once = true;
                let p = rng.random_range(0.3..0.8);
                pos = thinned(&pos, p, &mut rng);
            }
            let moves = compare(&pos, &mut list);
            checked += 1;
            occupied += (0..2).filter(|&i| pos.mountain(i).is_some()).count();
            for m in moves.iter().filter(|m| m.is_flip() && !pos.is_face_down(m.from)) {
                if pos.is_occupied(m.from) {
                    entries += 1;
                } else {
                    exits += 1;
                }
            }
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos.play(mv).unwrap();
        }
    }
    eprintln!(
        "mountains: {checked} positions, {occupied} occupied mountains, {entries} entries, {exits} exits offered"
    );
    assert!(occupied > 1000 && entries > 1000 && exits > 1000);
}

#[test]
fn anqi_agrees_with_reference() {
    let cov = check_mode(Mode::Anqi, 0xA0_0001);
    assert!(cov.cut_off > 0 && cov.flights > 0 && cov.mine_attacks > 0 && cov.flag_attacks > 0, "{cov:?}");
    assert_eq!(cov.flips + cov.hidden_attacks, 0, "anqi has no face-down pieces");
}

#[test]
fn mingqi_agrees_with_reference() {
    let cov = check_mode(Mode::Mingqi, 0x30_0001);
    assert!(cov.cut_off > 0 && cov.flights > 0 && cov.mine_attacks > 0 && cov.flag_attacks > 0, "{cov:?}");
    assert_eq!(cov.flips + cov.hidden_attacks, 0, "mingqi has no face-down pieces");
}

/// The reference's own board agrees with the numbers implied by docs/rules.md §1,
/// so the comparison above is not two copies of one mistake.
#[test]
fn reference_board_matches_section_1() {
    let b = board();
    let count = |adj: &Vec<BTreeSet<usize>>| adj.iter().map(BTreeSet::len).sum::<usize>() / 2;
    // Ranks 2, 6, 7, 11: 4 × 4; files a and e: 2 × 9; c6–c7: 1.
    assert_eq!(count(&b.rail), 35);
    // Per half 24 horizontal + 25 vertical orthogonal pairs, less the 16
    // railway ones; plus 10 camps × 4 diagonals, 8 of them shared by two camps.
    assert_eq!(count(&b.road), 2 * (49 - 16) + 32);
    assert_eq!((0..60).filter(|&n| b.is_railway(n)).count(), 32);
    for n in 0..60 {
        for m in b.step_neighbours(n) {
            assert!(b.step_neighbours(m).any(|x| x == n), "edge {n}-{m} one-way");
        }
        // Camps and headquarters are never railway nodes.
        assert!(!(b.camp[n] || b.headquarters[n]) || !b.is_railway(n));
    }
    let sq = |name: &str| name.parse::<Square>().unwrap().index();
    // Mountains: b and d do not cross the frontier; a, c, e do, by rail.
    for (x, y) in [("b6", "b7"), ("d6", "d7")] {
        assert!(!b.step_neighbours(sq(x)).any(|m| m == sq(y)));
    }
    for (x, y) in [("a6", "a7"), ("c6", "c7"), ("e6", "e7")] {
        assert!(b.rail[sq(x)].contains(&sq(y)));
    }
    // No diagonal except the camp ones: a2–b3 yes, a2–b1 no.
    assert!(b.road[sq("a2")].contains(&sq("b3")));
    assert!(!b.road[sq("a2")].contains(&sq("b1")));
}

/// Hand-counted answers for the reference itself, on a nearly empty board.
#[test]
fn reference_known_answers() {
    // A lone Red engineer on a2 (and a Black commander so the game is on).
    let jfen = "1fk2/5/5/5/5/5/5/5/5/5/E4/1F3 mingqi 1 r 0 0";
    let mut rules = junqi_core::Rules::preset(Mode::Mingqi);
    let pos = Position::from_jfen(jfen, rules).unwrap();
    let from_a2 = |moves: Vec<Move>| moves.iter().filter(|m| m.from.to_string() == "a2").count();
    // Flight reaches the other 31 railway nodes; steps add a1 and camp b3.
    assert_eq!(from_a2(reference_moves(&pos)), 33);
    // Without turns: rank 2 (b2–e2) and file a (a3–a11), plus a1 and b3.
    rules.apply_override("rail_turns=none").unwrap();
    let pos = Position::from_jfen(jfen, rules).unwrap();
    assert_eq!(from_a2(reference_moves(&pos)), 4 + 9 + 2);
    // 翻棋 flag rules: a Red general on c6 next to Black's face-up flag on c7.
    // Its other moves: a6 b6 d6 e6 (rank 6), c5, camps b5 and d5.
    let from_c6 = |jfen: &str, overrides: &[&str]| {
        let mut rules = junqi_core::Rules::preset(Mode::Fanqi);
        for o in overrides {
            rules.apply_override(o).unwrap();
        }
        let pos = Position::from_jfen(jfen, rules).unwrap();
        let moves = compare(&pos, &mut MoveList::new());
        moves.iter().filter(|m| m.from.to_string() == "c6").count()
    };
    // A Black mine left on b7: the flag may not be attacked yet, nor the mine by a general.
    assert_eq!(from_c6("4k/5/5/5/5/1mf2/2G2/5/5/5/5/1F3 fanqi 1 r 0 0", &[]), 7);
    // All Black mines gone: the flag may be taken ...
    assert_eq!(from_c6("4k/5/5/5/5/2f2/2G2/5/5/5/5/1F3 fanqi 1 r 0 0", &[]), 8);
    // ... but with flag_capturer = lowest only by Red's lowest piece, here the engineer on a1.
    assert_eq!(from_c6("4k/5/5/5/5/2f2/2G2/5/5/5/5/EF3 fanqi 1 r 0 0", &["flag_capturer=lowest"]), 7);
    // Fanqi start: 50 flips, nothing else.
    let start = Position::new_game(junqi_core::Rules::preset(Mode::Fanqi), 1);
    let moves = reference_moves(&start);
    assert_eq!(moves.len(), 50);
    assert!(moves.iter().all(|m| m.is_flip()));
}
