//! Observation planes on hand-built positions in all three modes (including
//! seat 2's rotated frame), no leaks of hidden kinds, and legal-action masks
//! against the rules' legal moves on many random positions.

use junqi_core::piece::{KindSet, ALL_KINDS};
use junqi_core::{rng_from_seed, Game, InfoSet, Kind, Mode, Move, MoveList, Position, Rules, Seat, Square, ACTIONS};
use junqi_env::observation::*;
use junqi_tests::{swap_squares, two_black_officers_to_swap};
use rand::Rng;

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn encode(info: &InfoSet) -> Vec<f32> {
    let mut out = vec![f32::NAN; OBS_SIZE];
    encode_observation(info, &mut out);
    out
}

fn plane(obs: &[f32], c: usize) -> &[f32] {
    &obs[c * 60..(c + 1) * 60]
}

/// The nodes (frame indices) where plane `c` is non-zero.
fn nodes(obs: &[f32], c: usize) -> Vec<usize> {
    plane(obs, c).iter().enumerate().filter(|(_, &v)| v != 0.0).map(|(i, _)| i).collect()
}

/// Frame index of a named node for `seat`.
fn at(name: &str, seat: Seat) -> usize {
    let i = sq(name).index();
    match seat {
        Seat::First => i,
        Seat::Second => 59 - i,
    }
}

fn constant(obs: &[f32], c: usize) -> f32 {
    let p = plane(obs, c);
    assert!(p.iter().all(|&v| v == p[0]), "plane {c} ({:?}) is not constant", plane_name(c));
    p[0]
}

/// Piece planes as a map: (plane, frame node) for every non-zero entry of the
/// own/enemy kind, occupancy and face-down planes.
fn piece_entries(obs: &[f32]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for c in OWN_KIND..POOL_OWN {
        for n in nodes(obs, c) {
            assert_eq!(plane(obs, c)[n], 1.0);
            v.push((c, n));
        }
    }
    v
}

fn expect_pieces(obs: &[f32], expected: &[(usize, &str)], seat: Seat) {
    let mut want: Vec<(usize, usize)> = expected.iter().map(|&(c, s)| (c, at(s, seat))).collect();
    want.sort();
    let mut got = piece_entries(obs);
    got.sort();
    assert_eq!(got, want);
}

/// Every plane of the kinds in `set` at node `s`.
fn enemy_set(set: KindSet, s: &'static str) -> Vec<(usize, &'static str)> {
    Kind::in_set(set).map(|k| (ENEMY_KIND + k.index(), s)).collect()
}

fn static_and_rule_planes_match(obs: &[f32], rules: &Rules) {
    use junqi_core::board::{CAMPS, HEADQUARTERS, RAILWAY};
    // Both seats see the same static planes: the board is symmetric under the rotation.
    for (c, bb) in [(CAMP, CAMPS), (HQ, HEADQUARTERS), (RAIL, RAILWAY)] {
        let want: Vec<usize> = (0..60).filter(|i| bb >> i & 1 != 0).collect();
        assert_eq!(nodes(obs, c), want, "{:?}", plane_name(c));
    }
    let b = |x: bool| x as u8 as f32;
    let mode = [Mode::Fanqi, Mode::Anqi, Mode::Mingqi];
    for (i, m) in mode.iter().enumerate() {
        assert_eq!(constant(obs, MODE + i), b(rules.mode == *m));
    }
    assert_eq!(constant(obs, OPT_HQ_LOCKED), b(rules.hq_locked));
    assert_eq!(constant(obs, OPT_BOMB_CAPTURES_FLAG), b(rules.bomb_captures_flag));
    assert_eq!(constant(obs, OPT_RAIL_TURNS), 1.0, "presets use rail_turns = engineer");
    assert_eq!(constant(obs, OPT_RAIL_TURNS + 1) + constant(obs, OPT_RAIL_TURNS + 2), 0.0);
}

#[test]
fn mingqi_planes_for_both_seats() {
    let rules = Rules::preset(Mode::Mingqi);
    // Black: flag b12, division c11. Red: brigade c10, flag b1, commander e1.
    let pos = Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 35 1000", rules).unwrap();
    let red = encode(&InfoSet::new(&pos, Seat::First));
    expect_pieces(
        &red,
        &[
            (OWN_KIND + Kind::Commander.index(), "e1"),
            (OWN_KIND + Kind::Flag.index(), "b1"),
            (OWN_KIND + Kind::Brigade.index(), "c10"),
            (OWN_OCCUPANCY, "e1"),
            (OWN_OCCUPANCY, "b1"),
            (OWN_OCCUPANCY, "c10"),
            (ENEMY_KIND + Kind::Flag.index(), "b12"),
            (ENEMY_KIND + Kind::Division.index(), "c11"),
            (ENEMY_OCCUPANCY, "b12"),
            (ENEMY_OCCUPANCY, "c11"),
        ],
        Seat::First,
    );
    // Concrete indices, so the frame convention itself is pinned: e1 = 4, c10 = 47.
    assert_eq!(nodes(&red, OWN_KIND + Kind::Commander.index()), vec![4]);
    assert_eq!(nodes(&red, OWN_KIND + Kind::Brigade.index()), vec![47]);

    // Seat 2 plays Black and sees the board rotated: its flag b12 is at its d1.
    let black = encode(&InfoSet::new(&pos, Seat::Second));
    expect_pieces(
        &black,
        &[
            (OWN_KIND + Kind::Flag.index(), "b12"),
            (OWN_KIND + Kind::Division.index(), "c11"),
            (OWN_OCCUPANCY, "b12"),
            (OWN_OCCUPANCY, "c11"),
            (ENEMY_KIND + Kind::Commander.index(), "e1"),
            (ENEMY_KIND + Kind::Flag.index(), "b1"),
            (ENEMY_KIND + Kind::Brigade.index(), "c10"),
            (ENEMY_OCCUPANCY, "e1"),
            (ENEMY_OCCUPANCY, "b1"),
            (ENEMY_OCCUPANCY, "c10"),
        ],
        Seat::Second,
    );
    assert_eq!(nodes(&black, OWN_KIND + Kind::Flag.index()), vec![sq("d1").index()]);
    assert_eq!(nodes(&black, OWN_KIND + Kind::Division.index()), vec![sq("c2").index()]);
    assert_eq!(nodes(&black, ENEMY_KIND + Kind::Brigade.index()), vec![sq("c3").index()]);

    for (obs, seat) in [(&red, Seat::First), (&black, Seat::Second)] {
        static_and_rule_planes_match(obs, &rules);
        assert_eq!(constant(obs, QUIET), 0.5);
        assert_eq!(constant(obs, PLY), 0.5);
        assert_eq!(constant(obs, COLOURS_ASSIGNED), 1.0);
        assert_eq!(constant(obs, MY_COLOUR_RED), (seat == Seat::First) as u8 as f32);
        assert_eq!(constant(obs, SEAT_TWO), (seat == Seat::Second) as u8 as f32);
        assert_eq!(constant(obs, OPT_REVEAL_FLAG), 1.0);
        for c in POOL_OWN..MATERIAL_OWN {
            assert_eq!(constant(obs, c), 0.0, "no pool outside fanqi");
        }
    }
    // Material: Red has K, R, F; Black has D, F (count / army count).
    assert_eq!(constant(&red, MATERIAL_OWN + Kind::Commander.index()), 1.0);
    assert_eq!(constant(&red, MATERIAL_OWN + Kind::Brigade.index()), 0.5);
    assert_eq!(constant(&red, MATERIAL_OWN + Kind::Engineer.index()), 0.0);
    assert_eq!(constant(&red, MATERIAL_ENEMY + Kind::Division.index()), 0.5);
    assert_eq!(constant(&black, MATERIAL_OWN + Kind::Division.index()), 0.5);
    assert_eq!(constant(&black, MATERIAL_ENEMY + Kind::Brigade.index()), 0.5);
    assert_eq!(constant(&black, MATERIAL_ENEMY + Kind::Flag.index()), 1.0);
}

#[test]
fn anqi_belief_planes_for_both_seats() {
    let rules = Rules::preset(Mode::Anqi);
    let pos = Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", rules).unwrap();
    let red_info = InfoSet::new(&pos, Seat::First);
    let red = encode(&red_info);
    // Red knows its own pieces. Of Black's, b12 (a headquarters) is the only
    // node the flag can be on, so it is known; c11 may be anything but a flag.
    let mut want = vec![
        (OWN_KIND + Kind::Commander.index(), "e1"),
        (OWN_KIND + Kind::Flag.index(), "b1"),
        (OWN_KIND + Kind::Brigade.index(), "c10"),
        (OWN_OCCUPANCY, "e1"),
        (OWN_OCCUPANCY, "b1"),
        (OWN_OCCUPANCY, "c10"),
        (ENEMY_OCCUPANCY, "b12"),
        (ENEMY_OCCUPANCY, "c11"),
    ];
    want.extend(enemy_set(Kind::Flag.bit(), "b12"));
    want.extend(enemy_set(ALL_KINDS & !Kind::Flag.bit(), "c11"));
    expect_pieces(&red, &want, Seat::First);
    assert_eq!(red_info.possible_kinds(sq("c11")), ALL_KINDS & !Kind::Flag.bit());
    // Enemy material is an upper bound: the army less removed pieces known exactly.
    for k in Kind::ALL {
        assert_eq!(constant(&red, MATERIAL_ENEMY + k.index()), 1.0, "{k}");
    }

    // Black: Red's b1 is the flag (the only headquarters in use); e1 (back
    // rank) may be a mine but not the flag; c10 (Black's half) neither.
    let black = encode(&InfoSet::new(&pos, Seat::Second));
    let mut want = vec![
        (OWN_KIND + Kind::Flag.index(), "b12"),
        (OWN_KIND + Kind::Division.index(), "c11"),
        (OWN_OCCUPANCY, "b12"),
        (OWN_OCCUPANCY, "c11"),
        (ENEMY_OCCUPANCY, "e1"),
        (ENEMY_OCCUPANCY, "b1"),
        (ENEMY_OCCUPANCY, "c10"),
    ];
    want.extend(enemy_set(Kind::Flag.bit(), "b1"));
    want.extend(enemy_set(ALL_KINDS & !Kind::Flag.bit(), "e1"));
    want.extend(enemy_set(ALL_KINDS & !Kind::Flag.bit() & !Kind::Mine.bit(), "c10"));
    expect_pieces(&black, &want, Seat::Second);
    for (obs, seat) in [(&red, Seat::First), (&black, Seat::Second)] {
        static_and_rule_planes_match(obs, &rules);
        assert_eq!(constant(obs, SEAT_TWO), (seat == Seat::Second) as u8 as f32);
        assert_eq!(constant(obs, QUIET), 0.0);
        assert_eq!(constant(obs, OPT_ENGINEER_SCOUT), 0.0);
    }
}

#[test]
fn anqi_beliefs_narrow_after_a_fight() {
    // Red's brigade c10 attacks the black piece on c11 and loses: Red learns the
    // defender is bigger than a brigade, or a mine (spring rule), or a bomb
    // would have removed both.
    let rules = Rules::preset(Mode::Anqi);
    let pos = Position::from_jfen("1f3/2g2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", rules).unwrap();
    let mut game = Game::new(pos);
    game.play("c10c11".parse().unwrap()).unwrap();
    let info = game.infoset(Seat::First);
    let obs = encode(info);
    let set = info.possible_kinds(sq("c11"));
    assert_eq!(set, Kind::Commander.bit() | Kind::General.bit() | Kind::Division.bit() | Kind::Mine.bit());
    let got: Vec<usize> =
        (0..12).filter(|&k| plane(&obs, ENEMY_KIND + k)[sq("c11").index()] == 1.0).collect::<Vec<_>>();
    assert_eq!(got, vec![0, 1, 2, 10]);
    assert!(nodes(&obs, OWN_KIND + Kind::Brigade.index()).is_empty(), "the brigade is gone");
    assert_eq!(constant(&obs, MATERIAL_OWN + Kind::Brigade.index()), 0.0);
}

#[test]
fn fanqi_planes_with_face_down_pieces() {
    let rules = Rules::preset(Mode::Fanqi);
    // Seat 1 plays Black, seat 2 Red; seat 2 to move. Face-down: black flag a12,
    // red flag a1. Face-up: black division c11, red engineer c1, red commander e1.
    let pos = Position::from_jfen("~f4/2d2/5/5/5/5/5/5/5/5/5/~F1E1K fanqi 2 b 7 10", rules).unwrap();
    let red = encode(&InfoSet::new(&pos, Seat::Second));
    expect_pieces(
        &red,
        &[
            (OWN_KIND + Kind::Engineer.index(), "c1"),
            (OWN_KIND + Kind::Commander.index(), "e1"),
            (OWN_OCCUPANCY, "c1"),
            (OWN_OCCUPANCY, "e1"),
            (ENEMY_KIND + Kind::Division.index(), "c11"),
            (ENEMY_OCCUPANCY, "c11"),
            (FACE_DOWN, "a12"),
            (FACE_DOWN, "a1"),
        ],
        Seat::Second,
    );
    assert_eq!(nodes(&red, FACE_DOWN), vec![sq("e1").index(), sq("e12").index()]);
    for k in Kind::ALL {
        let flag = (k == Kind::Flag) as u8 as f32;
        assert_eq!(constant(&red, POOL_OWN + k.index()), flag, "{k}");
        assert_eq!(constant(&red, POOL_ENEMY + k.index()), flag, "{k}");
    }
    assert_eq!(constant(&red, MATERIAL_OWN + Kind::Engineer.index()), 1.0 / 3.0);
    assert_eq!(constant(&red, MATERIAL_OWN + Kind::Flag.index()), 1.0);
    assert_eq!(constant(&red, MATERIAL_ENEMY + Kind::Division.index()), 0.5);
    assert_eq!(constant(&red, QUIET), 0.1);
    assert_eq!(constant(&red, PLY), 0.005);
    assert_eq!(constant(&red, MY_COLOUR_RED), 1.0);
    assert_eq!(constant(&red, SEAT_TWO), 1.0);
    assert_eq!(constant(&red, COLOURS_ASSIGNED), 1.0);
    assert_eq!(constant(&red, OPT_HQ_LOCKED), 0.0);
    assert_eq!(constant(&red, OPT_REVEAL_FLAG), 0.0);
    static_and_rule_planes_match(&red, &rules);

    let black = encode(&InfoSet::new(&pos, Seat::First));
    expect_pieces(
        &black,
        &[
            (OWN_KIND + Kind::Division.index(), "c11"),
            (OWN_OCCUPANCY, "c11"),
            (ENEMY_KIND + Kind::Engineer.index(), "c1"),
            (ENEMY_KIND + Kind::Commander.index(), "e1"),
            (ENEMY_OCCUPANCY, "c1"),
            (ENEMY_OCCUPANCY, "e1"),
            (FACE_DOWN, "a12"),
            (FACE_DOWN, "a1"),
        ],
        Seat::First,
    );
    assert_eq!(constant(&black, MY_COLOUR_RED), 0.0);
    assert_eq!(constant(&black, SEAT_TWO), 0.0);
}

#[test]
fn fanqi_before_colours_are_assigned() {
    let mut rules = Rules::preset(Mode::Fanqi);
    rules.apply_override("color_rule=two_in_a_row").unwrap();
    rules.apply_override("attack_hidden=true").unwrap();
    // Seat 1 flipped a red commander on b1 (no colour yet under two_in_a_row).
    let pos = Position::from_jfen("~f4/5/5/5/5/5/5/5/5/5/5/~FK3 fanqi 2 -r 0 1", rules).unwrap();
    for seat in Seat::BOTH {
        let obs = encode(&InfoSet::new(&pos, seat));
        // Unassigned: "own" planes show Red, "enemy" planes Black.
        expect_pieces(
            &obs,
            &[(OWN_KIND + Kind::Commander.index(), "b1"), (OWN_OCCUPANCY, "b1"), (FACE_DOWN, "a12"), (FACE_DOWN, "a1")],
            seat,
        );
        assert_eq!(constant(&obs, COLOURS_ASSIGNED), 0.0);
        assert_eq!(constant(&obs, MY_COLOUR_RED), 0.0);
        assert_eq!(constant(&obs, LAST_FLIP), 1.0);
        assert_eq!(constant(&obs, LAST_FLIP + 1), 0.0);
        assert_eq!(constant(&obs, OPT_TWO_IN_A_ROW), 1.0);
        assert_eq!(constant(&obs, OPT_ATTACK_HIDDEN), 1.0);
        assert_eq!(constant(&obs, POOL_OWN + Kind::Flag.index()), 1.0);
        assert_eq!(constant(&obs, POOL_OWN + Kind::Commander.index()), 0.0);
        assert_eq!(constant(&obs, MATERIAL_OWN + Kind::Commander.index()), 1.0);
        assert_eq!(constant(&obs, POOL_ENEMY + Kind::Flag.index()), 1.0);
    }
}

// ---- nothing hidden leaks ----

/// Play the same random actions in two games whose truths differ only in
/// hidden kinds; while a seat's observed events are identical in both, its
/// observation tensor must be identical too. Returns the plies compared.
fn compare_observations(g1: &mut Game, g2: &mut Game, seats: &[Seat], seed: u64) -> usize {
    let mut rng = rng_from_seed(seed);
    let mut list = MoveList::new();
    let mut alike = [true; 2];
    let mut compared = 0;
    for _ in 0..300 {
        for &seat in seats {
            if alike[seat.index()] {
                assert_eq!(encode(g1.infoset(seat)), encode(g2.infoset(seat)), "seed {seed}, {seat}");
                // The history too (its planes are in the tensor): no hidden kind enters it.
                assert_eq!(g1.infoset(seat).history(), g2.infoset(seat).history(), "seed {seed}, {seat}");
                compared += 1;
            }
        }
        g1.truth().legal_moves(&mut list);
        let mut other = MoveList::new();
        g2.truth().legal_moves(&mut other);
        if list.is_empty() || list.as_slice() != other.as_slice() {
            break;
        }
        let m = list[rng.random_range(0..list.len())];
        let (_, o1) = g1.play(m).unwrap();
        let (_, o2) = g2.play(m).unwrap();
        for seat in Seat::BOTH {
            alike[seat.index()] &= o1[seat.index()] == o2[seat.index()];
        }
        if seats.iter().all(|s| !alike[s.index()]) {
            break;
        }
    }
    compared
}

#[test]
fn anqi_hidden_enemy_kinds_do_not_leak_into_observations() {
    let rules = Rules::preset(Mode::Anqi);
    let mut compared = 0;
    for seed in 0..40 {
        let start = Position::new_game(rules, seed);
        let (a, b) = two_black_officers_to_swap(&start);
        let other = swap_squares(&start, a, b);
        assert_ne!(start, other);
        compared += compare_observations(&mut Game::new(start), &mut Game::new(other), &[Seat::First], seed);
    }
    assert!(compared > 400, "only {compared} observations compared");
}

#[test]
fn fanqi_face_down_swaps_do_not_leak_into_observations() {
    let rules = Rules::preset(Mode::Fanqi);
    let mut compared = 0;
    for seed in 0..40 {
        let start = Position::new_game(rules, seed);
        let a = sq("a1");
        let b = Square::all().find(|&s| start.piece_at(s).is_some() && start.piece_at(s) != start.piece_at(a)).unwrap();
        let other = swap_squares(&start, a, b);
        assert_ne!(start, other);
        compared += compare_observations(&mut Game::new(start), &mut Game::new(other), &Seat::BOTH, seed);
    }
    assert!(compared > 400, "only {compared} observations compared");
}

// ---- masks and general invariants on random positions ----

/// The mask by an independent formula: seat 2's id is (59 - from) * 60 + (59 - to).
fn reference_mask(moves: &[Move], seat: Seat) -> Vec<u8> {
    let mut m = vec![0u8; ACTIONS];
    for mv in moves {
        let (f, t) = (mv.from.index(), mv.to.index());
        let id = match seat {
            Seat::First => f * 60 + t,
            Seat::Second => (59 - f) * 60 + (59 - t),
        };
        m[id] = 1;
    }
    m
}

fn check_invariants(obs: &[f32], info: &InfoSet) {
    assert!(obs.iter().all(|&v| (0.0..=1.0).contains(&v)), "values outside [0, 1]");
    let view = info.view();
    // Every occupied node is exactly one of own / enemy / face-down.
    for n in 0..60 {
        let occ = plane(obs, OWN_OCCUPANCY)[n] + plane(obs, ENEMY_OCCUPANCY)[n] + plane(obs, FACE_DOWN)[n];
        let abs = match info.seat() {
            Seat::First => n,
            Seat::Second => 59 - n,
        };
        let occupied = view.is_occupied(Square::new(abs).unwrap());
        assert_eq!(occ, occupied as u8 as f32, "node {n}");
        let own_kinds: f32 = (0..12).map(|k| plane(obs, OWN_KIND + k)[n]).sum();
        assert_eq!(own_kinds, plane(obs, OWN_OCCUPANCY)[n], "own pieces have one known kind");
        let enemy_kinds: f32 = (0..12).map(|k| plane(obs, ENEMY_KIND + k)[n]).sum();
        assert_eq!(enemy_kinds > 0.0, plane(obs, ENEMY_OCCUPANCY)[n] > 0.0, "enemy pieces have a kind set");
        if info.mode() != Mode::Anqi {
            assert!(enemy_kinds <= 1.0, "a known enemy has one kind");
        }
    }
    for c in POOL_OWN..CAMP {
        constant(obs, c);
    }
    for c in QUIET..HISTORY {
        constant(obs, c);
    }
    // The last actions: one node per plane, the same pair as the history says.
    for (i, mv) in info.history().recent().iter().enumerate() {
        for (c, sq) in [(HISTORY + 2 * i, mv.map(|m| m.from)), (HISTORY + 2 * i + 1, mv.map(|m| m.to))] {
            let ones: Vec<usize> = (0..60).filter(|&n| plane(obs, c)[n] == 1.0).collect();
            let want: Vec<usize> = sq.map(|s| junqi_env::square_to_frame(s, info.seat()).index()).into_iter().collect();
            assert_eq!(ones, want, "plane {c}");
        }
    }
    for c in SEEN_BEFORE..FLAG_WITH_PIECE {
        constant(obs, c);
    }
}

#[test]
fn masks_equal_the_rules_legal_moves_on_random_positions() {
    let mut checked = 0;
    for mode in Mode::ALL {
        for seed in 0..30u64 {
            let mut rules = Rules::preset(mode);
            if seed % 3 == 1 {
                rules.apply_override("rail_turns=all").unwrap();
            }
            if mode == Mode::Fanqi && seed % 2 == 1 {
                rules.apply_override("attack_hidden=true").unwrap();
            }
            let mut rng = rng_from_seed(seed);
            let mut game = Game::new(Position::new_game(rules, seed));
            let (mut list, mut scratch) = (MoveList::new(), MoveList::new());
            let mut mask = vec![0u8; ACTIONS];
            let mut obs = vec![0f32; OBS_SIZE];
            loop {
                game.truth().legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let seat = game.truth().turn();
                let info = game.infoset(seat);
                encode_mask(info, &mut scratch, &mut mask);
                assert_eq!(mask, reference_mask(list.as_slice(), seat), "{mode} seed {seed}");
                assert_eq!(mask.iter().filter(|&&b| b == 1).count(), list.len());
                if rng.random_range(0..7) == 0 {
                    encode_observation(info, &mut obs);
                    check_invariants(&obs, info);
                    let other = game.infoset(seat.other());
                    encode_observation(other, &mut obs);
                    check_invariants(&obs, other);
                }
                let m = list[rng.random_range(0..list.len())];
                game.play(m).unwrap();
                checked += 1;
            }
        }
    }
    assert!(checked > 20_000, "only {checked} masks checked");
}

/// A position of `board` (JFEN's board field, with its `^` cells) to move
/// for seat 1 under the preset of `mode` and `overrides`.
fn position_under(mode: &str, board: &str, overrides: &[&str]) -> Position {
    let mut rules = Rules::preset(mode.parse().unwrap());
    for o in overrides {
        rules.apply_override(o).unwrap();
    }
    Position::from_jfen(&format!("{board} {mode} 1 r 0 10"), rules).unwrap()
}

/// The frame nodes of the named nodes for `seat`, sorted.
fn frame_nodes(names: &[&str], seat: Seat) -> Vec<usize> {
    let mut v: Vec<usize> = names.iter().map(|n| at(n, seat)).collect();
    v.sort();
    v
}

/// The encoder and the code agree on a position, both ways.
fn code_agrees(info: &InfoSet, obs: &[f32]) {
    let code = junqi_env::ObsCode::from_infoset(info);
    assert!(code.planes().iter().zip(obs).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert_eq!(junqi_env::ObsCode::from_planes(obs).unwrap(), code);
    assert_eq!(junqi_env::ObsCode::from_bytes(code.as_bytes()).unwrap(), code);
}

/// Planes 110–117 under `flag_carry` (翻棋): the option, then where each
/// flag shares a node with a piece, carried or lying under it, by colour
/// and in each seat's frame.
#[test]
fn flag_carry_planes_for_both_seats() {
    // A Red engineer on b2 carries Black's flag; a Black 排长 stands on
    // Red's flag, left on d1 by a captured carrier.
    let board = junqi_tests::board_field(&[("b2", "E+f"), ("d1", "l-F"), ("e12", "l")]);
    let p = position_under("fanqi", &board, &["flag_carry=true"]);
    for seat in Seat::BOTH {
        let info = InfoSet::new(&p, seat);
        let obs = encode(&info);
        check_invariants(&obs, &info);
        code_agrees(&info, &obs);
        assert_eq!(constant(&obs, OPT_FLAG_CARRY), 1.0);
        for c in [OPT_HUNQI, OPT_MOUNTAINS, OPT_MOUNTAINS + 1] {
            assert_eq!(constant(&obs, c), 0.0, "{:?}", plane_name(c));
        }
        // Mine / enemy are colours: Red's flag is seat 1's own.
        let (own, enemy) = if seat == Seat::First { ("d1", "b2") } else { ("b2", "d1") };
        let (own_carried, enemy_carried) = (own == "b2", enemy == "b2");
        let want = |carried: bool, node: &str, which: bool| {
            if carried == which {
                vec![at(node, seat)]
            } else {
                vec![]
            }
        };
        assert_eq!(nodes(&obs, FLAG_WITH_PIECE), want(own_carried, own, true), "{seat}");
        assert_eq!(nodes(&obs, FLAG_WITH_PIECE + 1), want(own_carried, own, false), "{seat}");
        assert_eq!(nodes(&obs, FLAG_WITH_PIECE + 2), want(enemy_carried, enemy, true), "{seat}");
        assert_eq!(nodes(&obs, FLAG_WITH_PIECE + 3), want(enemy_carried, enemy, false), "{seat}");
        for c in MOUNTAIN_OWN..OBS_CHANNELS {
            assert!(nodes(&obs, c).is_empty());
        }
    }
    // Without the option the same pieces give none of these planes.
    let plain = junqi_tests::board_field(&[("b2", "E"), ("d1", "F"), ("c8", "f"), ("e12", "l")]);
    let plain = position_under("fanqi", &plain, &[]);
    let obs = encode(&InfoSet::new(&plain, Seat::First));
    assert!(obs[OPT_FLAG_CARRY * 60..].iter().all(|&v| v == 0.0));
}

/// Planes 118–131 under `mountains` (明棋): who holds each mountain and its
/// kind, on the mountain's four side nodes; seat 2's rotation puts the left
/// mountain on its right.
#[test]
fn mountain_planes_for_both_seats() {
    // Red's 师长 in the left mountain (b6–b7), a Black engineer in the right.
    let board = junqi_tests::board_field(&[("b12", "f"), ("e12", "l"), ("b1", "F")]);
    let p = position_under("mingqi", &format!("{board}^De"), &["mountains=open"]);
    let left = ["a6", "b6", "a7", "b7"];
    let right = ["d6", "e6", "d7", "e7"];
    for seat in Seat::BOTH {
        let info = InfoSet::new(&p, seat);
        let obs = encode(&info);
        check_invariants(&obs, &info);
        code_agrees(&info, &obs);
        assert_eq!((constant(&obs, OPT_MOUNTAINS), constant(&obs, OPT_MOUNTAINS + 1)), (1.0, 0.0));
        let (own, enemy) = if seat == Seat::First { (left, right) } else { (right, left) };
        assert_eq!(nodes(&obs, MOUNTAIN_OWN), frame_nodes(&own, seat), "{seat}");
        assert_eq!(nodes(&obs, MOUNTAIN_ENEMY), frame_nodes(&enemy, seat), "{seat}");
        assert_eq!(nodes(&obs, MOUNTAIN_KIND + Kind::Division.index()), frame_nodes(&left, seat));
        assert_eq!(nodes(&obs, MOUNTAIN_KIND + Kind::Engineer.index()), frame_nodes(&right, seat));
        let kinds: usize = (0..12).map(|k| nodes(&obs, MOUNTAIN_KIND + k).len()).sum();
        assert_eq!(kinds, 8, "one kind per held mountain");
        // The pieces still count as on the board, not on a node.
        assert!(nodes(&obs, OWN_OCCUPANCY).iter().all(|n| !frame_nodes(&own, seat).contains(n)));
    }
    // `engineer`, and an option that does not apply to the mode reads as off.
    let p = position_under("mingqi", &format!("{board}^-E"), &["mountains=engineer"]);
    let obs = encode(&InfoSet::new(&p, Seat::First));
    assert_eq!((constant(&obs, OPT_MOUNTAINS), constant(&obs, OPT_MOUNTAINS + 1)), (0.0, 1.0));
    let p = junqi_tests::board_field(&[("b2", "E"), ("d1", "F"), ("c8", "f"), ("e12", "l")]);
    let p = position_under("fanqi", &p, &["hunqi=true"]);
    let obs = encode(&InfoSet::new(&p, Seat::First));
    assert_eq!((constant(&obs, OPT_HUNQI), constant(&obs, OPT_FLAG_CARRY)), (1.0, 0.0));
}
