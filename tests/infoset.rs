//! Information sets (issue: "what each seat is allowed to see"): nothing hidden
//! leaks into a seat's information set, the legal actions it derives equal the
//! referee's, and the 暗棋 kind sets only ever narrow in ways the truth allows.

use junqi_core::piece::{Kind, KindSet};
use junqi_core::{rng_from_seed, Colour, Game, InfoSet, Mode, Move, MoveList, Position, Rules, Seat, Square};
use junqi_tests::{swap_squares, two_black_officers_to_swap};
use rand::Rng;

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}
fn mv(text: &str) -> Move {
    text.parse().unwrap()
}
fn kinds(list: &[Kind]) -> KindSet {
    list.iter().fold(0, |s, k| s | k.bit())
}

/// Two 暗棋 games whose truths differ only in the kinds of two Black pieces give
/// Red identical information sets, move after move, until those pieces fight.
#[test]
fn anqi_hidden_enemy_kinds_do_not_leak() {
    let rules = Rules::preset(Mode::Anqi);
    for seed in 0..40 {
        let start = Position::new_game(rules, seed);
        let (a, b) = two_black_officers_to_swap(&start);
        let other = swap_squares(&start, a, b);
        assert_ne!(start, other);
        let (mut g1, mut g2) = (Game::new(start), Game::new(other));
        let mut rng = rng_from_seed(seed);
        let mut list = MoveList::new();
        for _ in 0..200 {
            assert_eq!(g1.infoset(Seat::First), g2.infoset(Seat::First), "seed {seed}");
            g1.truth().legal_moves(&mut list);
            // Stop before anything touches the swapped pieces (a fight would differ).
            let quiet: Vec<Move> =
                list.iter().copied().filter(|m| !g1.truth().is_occupied(m.to) && m.from != a && m.from != b).collect();
            if quiet.is_empty() {
                break;
            }
            let m = quiet[rng.random_range(0..quiet.len())];
            g1.play(m).unwrap();
            g2.play(m).unwrap();
        }
    }
}

/// 翻棋: two deals that differ only in which face-down piece lies where give
/// both seats identical information sets, including the public unseen pool.
#[test]
fn fanqi_face_down_pieces_do_not_leak() {
    let rules = Rules::preset(Mode::Fanqi);
    for seed in 0..40 {
        let start = Position::new_game(rules, seed);
        let (a, b) = (
            sq("a1"),
            (0..60)
                .map(|i| Square::new(i).unwrap())
                .find(|&s| start.piece_at(s).is_some() && start.piece_at(s) != start.piece_at(sq("a1")))
                .unwrap(),
        );
        let other = swap_squares(&start, a, b);
        for seat in Seat::BOTH {
            let (i1, i2) = (InfoSet::new(&start, seat), InfoSet::new(&other, seat));
            assert_eq!(i1, i2);
            assert!(i1.view().piece_at(a).is_none(), "a face-down kind is visible");
            for colour in Colour::ALL {
                let total: u32 = Kind::ALL.iter().map(|&k| i1.unseen(colour, k) as u32).sum();
                assert_eq!(total, 25);
            }
        }
    }
}

/// Over many random games with random options, in every mode: the legal
/// actions an information set derives equal the referee's, every 暗棋 kind set
/// contains the true kind, and the sets of removed pieces contain theirs.
#[test]
fn infosets_agree_with_the_truth_in_random_games() {
    let mut checked = 0;
    for mode in Mode::ALL {
        for seed in 0..120u64 {
            let mut rng = rng_from_seed(seed);
            let mut rules = Rules::preset(mode);
            let pick = |rng: &mut junqi_core::GameRng, options: &[&str]| {
                options[rng.random_range(0..options.len())].to_string()
            };
            for o in [
                pick(&mut rng, &["mine_rule=spring", "mine_rule=trade"]),
                pick(&mut rng, &["flag_capturer=any", "flag_capturer=lowest"]),
                pick(&mut rng, &["rail_turns=engineer", "rail_turns=none", "rail_turns=all"]),
                pick(&mut rng, &["bomb_flies=false", "bomb_flies=true"]),
                pick(&mut rng, &["bomb_captures_flag=true", "bomb_captures_flag=false"]),
            ] {
                rules.apply_override(&o).unwrap();
            }
            if mode == Mode::Anqi {
                rules.apply_override(&pick(&mut rng, &["engineer_scout=false", "engineer_scout=true"])).unwrap();
            }
            if mode == Mode::Fanqi {
                rules.apply_override(&pick(&mut rng, &["attack_hidden=false", "attack_hidden=true"])).unwrap();
                rules.apply_override(&pick(&mut rng, &["color_rule=first_flip", "color_rule=two_in_a_row"])).unwrap();
            }
            let mut game = Game::new(Position::new_game_with(rules, &mut rng));
            let mut removed_truth: [Vec<Kind>; 2] = [Vec::new(), Vec::new()];
            let (mut truth_list, mut info_list) = (MoveList::new(), MoveList::new());
            loop {
                let truth = game.truth().clone();
                truth.legal_moves(&mut truth_list);
                if truth_list.is_empty() {
                    break;
                }
                let mut a: Vec<Move> = truth_list.iter().copied().collect();
                game.infoset(truth.turn()).legal_moves(&mut info_list);
                let mut b: Vec<Move> = info_list.iter().copied().collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{mode} seed {seed}: {truth}");
                // The consistency check an engine applies to a hand-made set
                // passes every set the referee keeps, and sees the game go on.
                for seat in Seat::BOTH {
                    assert_eq!(game.infoset(seat).inconsistency(), None, "{mode} seed {seed} seat {seat}: {truth}");
                }
                assert!(!game.infoset(truth.turn()).game_over(), "{mode} seed {seed}: {truth}");
                if mode == Mode::Anqi {
                    for seat in Seat::BOTH {
                        let info = game.infoset(seat);
                        let enemy = truth.colour_of(seat.other()).unwrap();
                        for s in Square::all() {
                            if let Some(p) = truth.piece_at(s).filter(|p| p.colour == enemy) {
                                assert_ne!(
                                    info.possible_kinds(s) & p.kind.bit(),
                                    0,
                                    "seed {seed} {s} {:?} excluded; {truth}",
                                    p.kind
                                );
                            }
                        }
                        // Removed pieces: each true kind fits some distinct set (checked as a multiset bound).
                        for k in Kind::ALL {
                            let truly = removed_truth[enemy.index()].iter().filter(|&&x| x == k).count();
                            let sure = info.removed_enemy().iter().filter(|&&s| s == k.bit()).count();
                            assert!(sure <= truly, "seed {seed}: {sure} removed {k} claimed, {truly} true");
                        }
                        checked += 1;
                    }
                }
                let m = truth_list[rng.random_range(0..truth_list.len())];
                game.play(m).unwrap();
                // Whatever left the board in this action, by colour and kind.
                for colour in Colour::ALL {
                    for k in Kind::ALL {
                        let gone = truth.count(colour, k) - game.truth().count(colour, k);
                        removed_truth[colour.index()].extend(std::iter::repeat_n(k, gone as usize));
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} 暗棋 information sets checked");
}

/// 暗棋 deductions of the issue: an enemy that survived our 旅长's attack is
/// bigger than a 旅长 or a mine; once it moves it cannot be a mine.
#[test]
fn anqi_survivor_of_a_brigade_attack_is_bigger_or_a_mine() {
    let rules = Rules::preset(Mode::Anqi);
    let start = Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", rules).unwrap();
    let mut game = Game::new(start);
    game.play(mv("c10c11")).unwrap(); // 旅长 attacks the 师长 and loses
    let red = game.infoset(Seat::First);
    assert_eq!(red.possible_kinds(sq("c11")), kinds(&[Kind::Commander, Kind::General, Kind::Division, Kind::Mine]));
    // Only the two black pieces are on the board: b12 must be the flag.
    assert_eq!(red.possible_kinds(sq("b12")), Kind::Flag.bit());
    game.play(mv("c11c12")).unwrap(); // it moves: not a mine
    let red = game.infoset(Seat::First);
    assert_eq!(red.possible_kinds(sq("c12")), kinds(&[Kind::Commander, Kind::General, Kind::Division]));
    assert_eq!(red.possible_kinds(sq("c11")), 0);
    // Black sees its own pieces but not Red's kinds.
    let black = game.infoset(Seat::Second);
    assert!(black.view().piece_at(sq("e1")).is_none());
    assert!(black.view().is_occupied(sq("e1")));
}

/// A piece that turns a corner on the railway in one move is a flier: under
/// the default rules, an engineer.
#[test]
fn anqi_corner_turn_reveals_an_engineer() {
    let rules = Rules::preset(Mode::Anqi);
    let start = Position::from_jfen("1f3/e4/5/5/5/5/5/5/5/5/5/1F2K anqi 2 r 0 1", rules).unwrap();
    let mut game = Game::new(start);
    game.play(mv("a11a7")).unwrap(); // straight along file a: anything movable
    assert_eq!(game.infoset(Seat::First).possible_kinds(sq("a7")) & kinds(&[Kind::Mine, Kind::Flag]), 0);
    assert!(game.infoset(Seat::First).possible_kinds(sq("a7")).count_ones() > 1);
    game.play(mv("e1e2")).unwrap();
    game.play(mv("a7e7")).unwrap(); // straight along rank 7
    game.play(mv("e2e1")).unwrap();
    game.play(mv("e7c7")).unwrap();
    game.play(mv("e1e2")).unwrap();
    game.play(mv("c7a6")).unwrap(); // c7 → c6 → b6 → a6: a corner turn
    assert_eq!(game.infoset(Seat::First).possible_kinds(sq("a6")), Kind::Engineer.bit());
}

/// `reveal_flag_on_commander_loss`: when a side's 司令 falls, the other seat
/// sees where its flag is.
#[test]
fn commander_loss_reveals_the_flag_to_the_opponent() {
    for reveal in [true, false] {
        let mut rules = Rules::preset(Mode::Anqi);
        rules.apply_override(&format!("reveal_flag_on_commander_loss={reveal}")).unwrap();
        // Red's 司令 on c6 attacks Black's 司令 on c7: both fall. Both red HQs hold
        // a piece, so without the reveal Black cannot tell which is the flag.
        let start = Position::from_jfen("3f1/5/5/5/5/2k2/2K2/5/5/5/5/1F1G1 anqi 1 r 0 0", rules).unwrap();
        let mut game = Game::new(start);
        let (_, obs) = game.play(mv("c6c7")).unwrap();
        let red = game.infoset(Seat::First);
        let black = game.infoset(Seat::Second);
        if reveal {
            assert_eq!(red.view().piece_at(sq("d12")).map(|p| p.kind), Some(Kind::Flag));
            assert_eq!(black.view().piece_at(sq("b1")).map(|p| p.kind), Some(Kind::Flag));
            assert!(obs[0].commander_lost[Colour::Black.index()]);
            // The black piece removed was the 司令.
            assert_eq!(red.removed_enemy().iter().filter(|&&s| s == Kind::Commander.bit()).count(), 1);
        } else {
            assert!(obs.iter().all(|o| o.revealed.iter().all(|r| r.is_none())));
            assert!(obs.iter().all(|o| o.commander_lost == [false, false]));
            assert!(black.view().piece_at(sq("b1")).is_none());
        }
    }
}
