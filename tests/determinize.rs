//! Determinization (`InfoSet::sample_world`): every sampled world is a possible
//! truth for the seat — public facts and own pieces exact, hidden kinds from the
//! seat's beliefs, the full army accounted for, the same legal actions — and
//! the draws are (near) uniform and reproducible from the seed.

use junqi_core::piece::{Kind, KindSet, MOVABLE};
use junqi_core::{
    rng_from_seed, Colour, Deployment, Game, InfoSet, KindBelief, Mode, Move, MoveList, Position, Rules, Seat, Square,
};
use rand::Rng;

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Can the enemy pieces missing from the board (`remaining[k]` of kind k) be
/// matched one to one with the removed pieces' kind sets? Hall's condition
/// over every set of kinds.
fn removed_pieces_fit(remaining: [i32; 12], removed: &[KindSet]) -> bool {
    if remaining.iter().any(|&r| r < 0) || remaining.iter().sum::<i32>() != removed.len() as i32 {
        return false;
    }
    (0u16..1 << 12).all(|t| {
        let inside = removed.iter().filter(|&&s| s & !t == 0).count() as i32;
        let room: i32 = (0..12).filter(|k| t >> k & 1 != 0).map(|k| remaining[k]).sum();
        inside <= room
    })
}

/// Every check of one sampled world against the truth and the seat's information set.
fn check_world(info: &InfoSet, truth: &Position, world: &Position, what: &str) {
    let view = info.view();
    assert_eq!(world.rules(), truth.rules(), "{what}");
    assert_eq!(world.occupied(), truth.occupied(), "{what}: occupied squares");
    assert_eq!(world.face_down(), truth.face_down(), "{what}: face-down squares");
    assert_eq!(
        (world.turn(), world.quiet(), world.ply(), world.seat1_colour(), world.last_flip()),
        (truth.turn(), truth.quiet(), truth.ply(), truth.seat1_colour(), truth.last_flip()),
        "{what}: public counters"
    );
    for colour in Colour::ALL {
        // Face-down pieces' colours are drawn too (翻棋); every other colour is public.
        let up = !truth.face_down();
        assert_eq!(world.colour_bb(colour) & up, truth.colour_bb(colour) & up, "{what}: {colour:?} squares");
    }
    for s in Square::all() {
        // What the seat sees (own pieces, face-up and identified pieces) is kept exactly.
        if let Some(p) = view.piece_at(s) {
            assert_eq!(world.piece_at(s), Some(p), "{what}: {s} changed");
        }
        if truth.is_occupied(s) {
            let p = world.piece_at(s).unwrap_or_else(|| panic!("{what}: {s} has no piece"));
            if !truth.is_face_down(s) {
                assert_eq!(Some(p.colour), truth.piece_at(s).map(|t| t.colour), "{what}: {s} colour");
            }
            // (After a flag capture the capturer's square has no kind set left.)
            if view.piece_at(s).is_none() && truth.outcome().is_none() {
                assert_ne!(info.possible_kinds(s) & p.kind.bit(), 0, "{what}: {s} is {:?}, not possible", p.kind);
            }
        }
    }
    match info.mode() {
        Mode::Mingqi => assert_eq!(world, truth, "{what}"),
        Mode::Fanqi => {
            for colour in Colour::ALL {
                for kind in Kind::ALL {
                    assert_eq!(world.count(colour, kind), truth.count(colour, kind), "{what}: counts");
                    let down = Square::all()
                        .filter(|&s| {
                            world.is_face_down(s) && world.piece_at(s) == Some(junqi_core::Piece::new(colour, kind))
                        })
                        .count();
                    assert_eq!(down, info.unseen(colour, kind) as usize, "{what}: face-down {colour:?} {kind:?}");
                }
            }
        }
        Mode::Anqi => {
            let own = info.colour().unwrap();
            let enemy = own.other();
            let mut remaining = [0i32; 12];
            for kind in Kind::ALL {
                assert_eq!(world.count(own, kind), truth.count(own, kind), "{what}: own counts");
                let on_board =
                    Square::all().filter(|&s| world.piece_at(s) == Some(junqi_core::Piece::new(enemy, kind))).count();
                assert_eq!(world.count(enemy, kind) as usize, on_board, "{what}: enemy counts field");
                remaining[kind.index()] = kind.count() as i32 - on_board as i32;
            }
            // (A captured flag is in no one's list of removed pieces: only while the game goes on.)
            if truth.outcome().is_none() {
                assert!(removed_pieces_fit(remaining, info.removed_enemy()), "{what}: the full army does not add up");
            }
        }
    }
    // While the game goes on it goes on in every world, and the seat to move has
    // the same legal actions there. (Only the referee declares a game over by
    // material, so a finished truth is not compared.)
    if truth.outcome().is_none() {
        assert_eq!(world.outcome(), None, "{what}: the game is over in {world}");
    }
    if truth.turn() == info.seat() && truth.outcome().is_none() {
        let (mut a, mut b) = (MoveList::new(), MoveList::new());
        info.legal_moves(&mut a);
        world.legal_moves(&mut b);
        assert_eq!(a.as_slice(), b.as_slice(), "{what}: legal actions differ in {world}");
    }
}

fn rules_for(mode: Mode, rng: &mut impl Rng) -> Rules {
    let mut rules = Rules::preset(mode);
    let mut pick = |options: &[&str]| {
        let o = options[rng.random_range(0..options.len())];
        rules.apply_override(o).unwrap();
    };
    pick(&["mine_rule=spring", "mine_rule=trade"]);
    pick(&["flag_capturer=any", "flag_capturer=lowest"]);
    pick(&["rail_turns=engineer", "rail_turns=all"]);
    match mode {
        Mode::Anqi => pick(&["engineer_scout=false", "engineer_scout=true"]),
        Mode::Fanqi => pick(&["attack_hidden=false", "attack_hidden=true"]),
        Mode::Mingqi => {}
    }
    rules
}

/// Plays a random game of `mode` (some variant options drawn) from `seed`
/// and checks, for both seats at every ply, the world `draw` samples from
/// the seat's information set. Returns the number of worlds checked.
fn check_worlds_of_a_random_game(
    mode: Mode,
    seed: u64,
    mut draw: impl FnMut(&InfoSet, &mut junqi_core::GameRng) -> Position,
) -> usize {
    let mut rng = rng_from_seed(seed);
    let rules = rules_for(mode, &mut rng);
    let mut game = Game::new(Position::new_game_with(rules, &mut rng));
    let mut list = MoveList::new();
    let mut worlds = 0;
    for ply in 0..400 {
        let truth = game.truth().clone();
        for seat in Seat::BOTH {
            let world = draw(game.infoset(seat), &mut rng);
            check_world(game.infoset(seat), &truth, &world, &format!("{mode} seed {seed} ply {ply} {seat}"));
            worlds += 1;
        }
        truth.legal_moves(&mut list);
        if list.is_empty() {
            break;
        }
        game.play(list[rng.random_range(0..list.len())]).unwrap();
    }
    worlds
}

/// Random games in every mode (with some variant options): worlds sampled for
/// both seats at every ply pass every check, and sampling never panics.
#[test]
fn sampled_worlds_are_possible_truths() {
    let mut worlds = 0;
    for mode in Mode::ALL {
        for seed in 0..25u64 {
            worlds += check_worlds_of_a_random_game(mode, seed, |info, rng| info.sample_world(rng));
        }
    }
    assert!(worlds > 5_000, "only {worlds} worlds checked");
}

/// The truth can be drawn: a late 暗棋 position where Black has two pieces on
/// the board (the flag and one movable piece, kinds unknown to Red), and every
/// removed piece's kind is unknown. The flag must be on the board and one piece
/// movable, so the 20 on-board assignments (flag on either square, the other a
/// movable kind) all occur, the truth among them, with frequencies near the
/// uniform law over whole armies: P(movable kind k) ∝ its count.
#[test]
fn truth_is_drawn_in_a_late_anqi_position() {
    let rules = Rules::preset(Mode::Anqi);
    // Black: flag b12, 连长 a7. Red: 司令 e3, flag b1, engineer c2. Ply 60: not a deployment.
    let truth = Position::from_jfen("1f3/5/5/5/5/c4/5/5/4K/2E2/5/1F3 anqi 1 r 0 60", rules).unwrap();
    let info = InfoSet::new(&truth, Seat::First);
    let mut rng = rng_from_seed(5);
    let n = 20_000;
    let mut seen_truth = 0;
    let mut flag_on_b12 = 0;
    let mut kind_at_a7 = [0u32; 12];
    for _ in 0..n {
        let world = info.sample_world(&mut rng);
        check_world(&info, &truth, &world, "late anqi");
        let (a7, b12) = (world.piece_at(sq("a7")).unwrap().kind, world.piece_at(sq("b12")).unwrap().kind);
        assert!(a7 == Kind::Flag || b12 == Kind::Flag, "the flag was not captured, so it is on the board");
        assert_ne!(MOVABLE & (a7.bit() | b12.bit()), 0, "the game goes on, so Black has a movable piece");
        if world == truth {
            seen_truth += 1;
        }
        if b12 == Kind::Flag {
            flag_on_b12 += 1;
            kind_at_a7[a7.index()] += 1;
        }
    }
    assert!(seen_truth > 0, "the truth was never drawn");
    let within = |count: u32, trials: u32, p: f64| {
        let mean = trials as f64 * p;
        let sigma = (trials as f64 * p * (1.0 - p)).sqrt();
        (count as f64 - mean).abs() < 5.0 * sigma
    };
    assert!(within(flag_on_b12, n, 0.5), "flag on b12 in {flag_on_b12} of {n}");
    for kind in Kind::ALL {
        let p = if MOVABLE & kind.bit() != 0 { kind.count() as f64 / 21.0 } else { 0.0 };
        if p == 0.0 {
            assert_eq!(kind_at_a7[kind.index()], 0, "{kind:?}");
        } else {
            assert!(within(kind_at_a7[kind.index()], flag_on_b12, p), "{kind:?}: {}", kind_at_a7[kind.index()]);
        }
    }
}

/// At ply 0 of 暗棋 the consistent worlds are exactly the legal deployments of
/// the enemy, so the sampler should match the uniform deployment law node by
/// node (the same numbers as `random_deployments_are_uniform_per_node`,
/// mirrored for Black): a test of how close to uniform the 暗棋 sampler is.
#[test]
fn anqi_sampling_at_deployment_is_near_uniform() {
    let start = Position::new_game(Rules::preset(Mode::Anqi), 3);
    let info = InfoSet::new(&start, Seat::First);
    let mut rng = rng_from_seed(11);
    let n = 20_000u32;
    let (mut flag_b12, mut mine_a12, mut mine_b12, mut bomb_c10, mut commander_c10) = (0, 0, 0, 0, 0);
    for _ in 0..n {
        let world = info.sample_world(&mut rng);
        let kind = |s: &str| world.piece_at(sq(s)).unwrap().kind;
        flag_b12 += (kind("b12") == Kind::Flag) as u32;
        mine_a12 += (kind("a12") == Kind::Mine) as u32;
        mine_b12 += (kind("b12") == Kind::Mine) as u32;
        bomb_c10 += (kind("c10") == Kind::Bomb) as u32;
        commander_c10 += (kind("c10") == Kind::Commander) as u32;
    }
    let within = |count: u32, p: f64| {
        let mean = n as f64 * p;
        let sigma = (n as f64 * p * (1.0 - p)).sqrt();
        (count as f64 - mean).abs() < 5.0 * sigma
    };
    assert!(within(flag_b12, 0.5), "flag on b12 {flag_b12}");
    assert!(within(mine_a12, 3.0 / 9.0), "mine on a12 {mine_a12}");
    assert!(within(mine_b12, 0.5 * 3.0 / 9.0), "mine on b12 {mine_b12}");
    assert!(within(bomb_c10, 2.0 / 16.0), "bomb on c10 {bomb_c10}");
    assert!(within(commander_c10, (14.0 / 16.0) / 19.0), "commander on c10 {commander_c10}");
}

/// 翻棋: each face-down square holds each (colour, kind) with the pool's
/// proportion, at the start and after some flips.
#[test]
fn fanqi_squares_follow_the_pool() {
    let rules = Rules::preset(Mode::Fanqi);
    let mut game = Game::new(Position::new_game(rules, 4));
    let mut rng = rng_from_seed(8);
    let mut list = MoveList::new();
    for _ in 0..12 {
        game.truth().legal_moves(&mut list);
        let flips: Vec<Move> = list.iter().copied().filter(|m| m.is_flip()).collect();
        game.play(flips[rng.random_range(0..flips.len())]).unwrap();
    }
    let info = game.infoset(game.truth().turn());
    let down: Vec<Square> = Square::all().filter(|&s| info.view().is_face_down(s)).collect();
    let total = down.len() as f64;
    let n = 20_000u32;
    let probe = [down[0], down[down.len() / 2], down[down.len() - 1]];
    let mut hits = [[[0u32; 12]; 2]; 3];
    for _ in 0..n {
        let world = info.sample_world(&mut rng);
        for (i, &s) in probe.iter().enumerate() {
            let p = world.piece_at(s).unwrap();
            hits[i][p.colour.index()][p.kind.index()] += 1;
        }
    }
    for (i, s) in probe.iter().enumerate() {
        for colour in Colour::ALL {
            for kind in Kind::ALL {
                let p = info.unseen(colour, kind) as f64 / total;
                let count = hits[i][colour.index()][kind.index()];
                let mean = n as f64 * p;
                let sigma = (n as f64 * p * (1.0 - p)).sqrt();
                assert!(
                    (count as f64 - mean).abs() <= 5.0 * sigma,
                    "{s} {colour:?} {kind:?}: {count}, expected {mean}"
                );
            }
        }
    }
}

/// The same generator state gives the same world; other states differ.
#[test]
fn worlds_are_functions_of_the_seed() {
    for mode in [Mode::Fanqi, Mode::Anqi] {
        let game = Game::new(Position::new_game(Rules::preset(mode), 2));
        let info = game.infoset(Seat::First);
        let a = info.sample_world(&mut rng_from_seed(1));
        let b = info.sample_world(&mut rng_from_seed(1));
        let c = info.sample_world(&mut rng_from_seed(2));
        assert_eq!(a, b, "{mode}");
        assert_ne!(a, c, "{mode}");
    }
}

/// A belief of random probabilities on every square (seeded).
fn random_belief(rng: &mut impl Rng) -> KindBelief {
    let mut belief = KindBelief::empty();
    for probs in belief.probs.iter_mut() {
        let mut sum = 0.0;
        for p in probs.iter_mut() {
            // Peaked: most of the mass on a few kinds, as a trained head's is.
            *p = rng.random::<f32>().powi(6);
            sum += *p;
        }
        probs.iter_mut().for_each(|p| *p /= sum);
    }
    belief
}

/// Worlds drawn from a belief (any belief, even a wrong one) are still
/// possible truths: the belief weighs the consistent assignments, it never
/// adds others.
#[test]
fn belief_weighted_worlds_are_possible_truths() {
    let mut worlds = 0;
    for seed in 0..12u64 {
        worlds += check_worlds_of_a_random_game(Mode::Anqi, 100 + seed, |info, rng| {
            let belief = random_belief(rng);
            info.sample_world_believing(rng, Some(&belief))
        });
    }
    assert!(worlds > 1_000, "only {worlds} worlds checked");
}

/// Two truths that differ only in the enemy's hidden deployment give the
/// seat the same information set, and then the same worlds from the same
/// seed and belief: the draw reads the information set and the belief,
/// never the true kinds.
#[test]
fn belief_weighted_worlds_never_read_the_true_kinds() {
    let rules = Rules::preset(Mode::Anqi);
    let mut rng = rng_from_seed(21);
    let red = Deployment::random(Colour::Red, &mut rng);
    for trial in 0..20 {
        let (b1, b2) = (Deployment::random(Colour::Black, &mut rng), Deployment::random(Colour::Black, &mut rng));
        let (t1, t2) = (
            Position::from_deployments(rules, &red, &b1).unwrap(),
            Position::from_deployments(rules, &red, &b2).unwrap(),
        );
        assert_ne!(t1, t2);
        let (i1, i2) = (InfoSet::new(&t1, Seat::First), InfoSet::new(&t2, Seat::First));
        assert_eq!(i1.view(), i2.view(), "trial {trial}: the views differ");
        let belief = random_belief(&mut rng);
        for s in 0..5 {
            let w1 = i1.sample_world_believing(&mut rng_from_seed(s), Some(&belief));
            let w2 = i2.sample_world_believing(&mut rng_from_seed(s), Some(&belief));
            assert_eq!(w1, w2, "trial {trial} seed {s}");
        }
    }
}

/// A belief moves the draw toward what it says: with the enemy 司令 believed
/// on c10 (a post where the uniform law puts it 4.6% of the time) it is drawn
/// there in most worlds, and a belief that a flag stands off the
/// headquarters (impossible) changes nothing about where flags go.
#[test]
fn belief_shifts_the_draw_toward_its_kinds() {
    let start = Position::new_game(Rules::preset(Mode::Anqi), 3);
    let info = InfoSet::new(&start, Seat::First);
    let mut belief = KindBelief::empty();
    belief.probs[sq("c10").index()][Kind::Commander.index()] = 1.0;
    belief.probs[sq("a12").index()][Kind::Flag.index()] = 1.0;
    let mut rng = rng_from_seed(5);
    let n = 2_000;
    let (mut commander_c10, mut flag_hq) = (0, 0);
    for _ in 0..n {
        let world = info.sample_world_believing(&mut rng, Some(&belief));
        commander_c10 += (world.piece_at(sq("c10")).unwrap().kind == Kind::Commander) as u32;
        flag_hq += ["b12", "d12"].iter().filter(|s| world.piece_at(sq(s)).unwrap().kind == Kind::Flag).count() as u32;
    }
    assert!(commander_c10 > n * 8 / 10, "司令 on c10 in {commander_c10} of {n} worlds");
    assert_eq!(flag_hq, n, "a flag off the headquarters");
}
