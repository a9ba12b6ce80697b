//! Bots: greedy takes the captures it can prove on hand-built positions and
//! never "proves" a capture the referee then loses; every bot plays only legal
//! actions and its policy is a distribution over legal actions that sums to 1.

use crate::common::check_decision;
use junqi_bots::{from_spec, provable_captures, Agent, Decision, Greedy, RandomBot};
use junqi_core::{rng_from_seed, CombatOutcome, Effect, Game, Mode, Move, MoveList, Position, Rules, Seat};

fn rules(mode: Mode, sets: &[&str]) -> Rules {
    let mut r = Rules::preset(mode);
    for s in sets {
        r.apply_override(s).unwrap();
    }
    r
}

fn game(jfen: &str, rules: Rules) -> Game {
    Game::new(Position::from_jfen(jfen, rules).unwrap())
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

/// The greedy decision for the seat to move.
fn greedy_decision(g: &Game) -> Decision {
    let mut bot = Greedy::new(0.0);
    let mut rng = rng_from_seed(3);
    bot.act(g.infoset(g.truth().turn()), &mut rng)
}

fn legal(g: &Game) -> Vec<Move> {
    let mut list = MoveList::new();
    g.truth().legal_moves(&mut list);
    list.as_slice().to_vec()
}

#[test]
fn greedy_takes_the_most_valuable_provable_capture_in_mingqi() {
    // Red 司令 a6 can take the black 军长 a7 or the black 连长 b6.
    let g = game("1f3/5/5/5/5/g4/Kc3/5/5/5/5/1F3 mingqi 1 r 0 0", Rules::preset(Mode::Mingqi));
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    assert_eq!(d.action, mv("a6a7"));
    assert_eq!(d.policy, vec![(mv("a6a7"), 1.0)]);
    // A bomb on a7 is no provable capture (both are removed): the 连长 it is.
    let g = game("1f3/5/5/5/5/b4/Kc3/5/5/5/5/1F3 mingqi 1 r 0 0", Rules::preset(Mode::Mingqi));
    let d = greedy_decision(&g);
    assert_eq!(d.action, mv("a6b6"));
    // A 军长 cannot prove anything against the 司令: random, uniform policy.
    let g = game("1f3/5/5/5/5/k4/Gc3/5/5/5/5/1F3 mingqi 1 r 0 0", Rules::preset(Mode::Mingqi));
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    assert_eq!(d.action, mv("a6b6"), "the 连长 is still a provable capture");
}

#[test]
fn greedy_proves_a_flag_capture_from_the_anqi_kind_sets() {
    // 暗棋: the only black piece in a headquarters must be the flag (the other
    // black piece is off the HQs and removed pieces are never flags), so the
    // red 旅长 on b11 provably captures it; a11 may be a bomb or a mine.
    let g = game("1f3/lR3/5/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", Rules::preset(Mode::Anqi));
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    assert_eq!(d.policy, vec![(mv("b11b12"), 1.0)]);
    // With flag_capturer = lowest and a red 工兵 alive, the 旅长 may not take
    // the flag (it would be removed): nothing is provable, the policy is uniform.
    let r = rules(Mode::Anqi, &["flag_capturer=lowest"]);
    let g = game("1f3/lR3/5/5/5/5/5/5/5/5/5/EF2K anqi 1 r 0 0", r);
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    let n = legal(&g).len();
    assert_eq!(d.policy.len(), n);
    assert!(d.policy.iter().all(|&(_, p)| (p - 1.0 / n as f32).abs() < 1e-6));
    // Two black pieces in headquarters: either may be the flag. Nothing is provable.
    let g = game("1f1l1/1R3/5/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", Rules::preset(Mode::Anqi));
    let mut list = MoveList::new();
    assert!(provable_captures(g.infoset(Seat::First), &mut list).is_empty());
}

#[test]
fn greedy_in_fanqi_sees_face_up_kinds_and_never_proves_a_face_down_one() {
    let g = game("~f4/5/5/5/5/g4/K~c3/5/5/5/5/~F4 fanqi 1 r 0 0", Rules::preset(Mode::Fanqi));
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    assert_eq!(d.policy, vec![(mv("a6a7"), 1.0)]);
    // attack_hidden: the 司令 may attack the face-down b6, which may be red: not provable.
    let g = game("~f4/5/5/5/5/~g4/K~c3/5/5/5/5/~F4 fanqi 1 r 0 0", rules(Mode::Fanqi, &["attack_hidden=true"]));
    assert!(legal(&g).contains(&mv("a6b6")));
    let mut list = MoveList::new();
    assert!(provable_captures(g.infoset(Seat::First), &mut list).is_empty());
    let d = greedy_decision(&g);
    check_decision(&g, &d);
    assert_eq!(d.policy.len(), legal(&g).len());
}

#[test]
fn greedy_with_epsilon_mixes_in_the_uniform_policy() {
    let g = game("1f3/5/5/5/5/g4/Kc3/5/5/5/5/1F3 mingqi 1 r 0 0", Rules::preset(Mode::Mingqi));
    let mut bot = from_spec("greedy:epsilon=0.5").unwrap();
    let mut rng = rng_from_seed(1);
    let d = bot.act(&g, &mut rng);
    check_decision(&g, &d);
    let n = legal(&g).len() as f32;
    let p = d.policy.iter().find(|&&(m, _)| m == mv("a6a7")).unwrap().1;
    assert!((p - (0.5 + 0.5 / n)).abs() < 1e-6);
}

/// Play whole games with `bots` in many rule sets; check every decision, and
/// that every capture greedy claims to prove wins when the referee plays it.
#[test]
fn bots_play_legal_moves_and_greedy_never_proves_a_capture_that_fails() {
    let variants: Vec<Rules> = vec![
        rules(Mode::Fanqi, &[]),
        rules(Mode::Fanqi, &["attack_hidden=true"]),
        rules(Mode::Fanqi, &["flag_capturer=lowest", "mine_rule=trade"]),
        rules(Mode::Fanqi, &["color_rule=two_in_a_row", "bomb_captures_flag=false"]),
        rules(Mode::Anqi, &[]),
        rules(Mode::Anqi, &["engineer_scout=true"]),
        rules(Mode::Anqi, &["mine_rule=trade", "rail_turns=all"]),
        rules(Mode::Anqi, &["flag_capturer=lowest", "bomb_captures_flag=false"]),
        rules(Mode::Mingqi, &[]),
        rules(Mode::Mingqi, &["flag_capturer=lowest", "bomb_flies=true"]),
    ];
    let mut proven = 0;
    let mut list = MoveList::new();
    for (v, r) in variants.iter().enumerate() {
        for i in 0..12u64 {
            let seed = v as u64 * 1000 + i;
            let mut rng = rng_from_seed(seed);
            let mut bots: [Box<dyn Agent>; 2] = if i % 2 == 0 {
                [Box::new(Greedy::new(0.0)), Box::new(RandomBot::new())]
            } else {
                [Box::new(RandomBot::new()), Box::new(Greedy::new(0.1))]
            };
            let mut g = Game::new(Position::new_game(*r, seed));
            while g.outcome().is_none() {
                let seat = g.truth().turn();
                let info = g.infoset(seat);
                for c in provable_captures(info, &mut list) {
                    let mut probe = g.clone();
                    let (effect, _) = probe.play(c.mv).unwrap();
                    match effect {
                        Effect::Attack {
                            outcome: CombatOutcome::AttackerWon | CombatOutcome::FlagCaptured, ..
                        } => {}
                        other => panic!("{:?}: greedy proved {} but got {other:?} in {}", r.mode, c.mv, g.truth()),
                    }
                    proven += 1;
                }
                let d = bots[seat.index()].act(info, &mut rng);
                check_decision(&g, &d);
                g.play(d.action).unwrap();
            }
        }
    }
    assert!(proven > 500, "only {proven} provable captures seen");
}
