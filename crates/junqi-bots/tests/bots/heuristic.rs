//! The heuristic bot: legal decisions and well-formed policies over whole
//! games in every mode and several variants, deployments that validate and
//! guard the flag, and hand-built positions for its main rules.

use crate::common::check_decision;
use junqi_bots::heuristic::{formation_deployment, Formation};
use junqi_bots::{from_spec, heuristic_deployment, Agent, Decision, Greedy, Heuristic, RandomBot};
use junqi_core::board::{Square, ADJACENT, HEADQUARTERS};
use junqi_core::piece::Kind;
use junqi_core::{rng_from_seed, Colour, Game, Mode, Move, Position, Rules, Seat};

fn rules(mode: Mode, sets: &[&str]) -> Rules {
    let mut r = Rules::preset(mode);
    for s in sets {
        r.apply_override(s).unwrap();
    }
    r
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

fn sq(text: &str) -> Square {
    text.parse().unwrap()
}

/// A JFEN position from `(node, piece)` pairs (`~` before a letter: face-down).
fn jfen(pieces: &[(&str, &str)], mode: &str, turn: u8, colours: &str) -> String {
    format!("{} {mode} {turn} {colours} 0 10", junqi_tests::board_field(pieces))
}

fn game(pieces: &[(&str, &str)], mode: Mode, r: Rules) -> Game {
    Game::new(Position::from_jfen(&jfen(pieces, mode.name(), 1, "r"), r).unwrap())
}

fn decide(g: &Game, temp: f32, seed: u64) -> Decision {
    let mut bot = Heuristic::new(temp);
    let mut rng = rng_from_seed(seed);
    let d = bot.act(g.infoset(g.truth().turn()), &mut rng);
    check_decision(g, &d);
    d
}

fn prob(d: &Decision, m: Move) -> f32 {
    d.policy.iter().find(|&&(x, _)| x == m).map_or(0.0, |&(_, p)| p)
}

#[test]
fn heuristic_plays_legal_actions_with_well_formed_policies_in_every_mode() {
    let variants: Vec<Rules> = vec![
        rules(Mode::Fanqi, &[]),
        rules(Mode::Fanqi, &["attack_hidden=true"]),
        rules(Mode::Fanqi, &["flag_capturer=lowest", "mine_rule=trade"]),
        rules(Mode::Fanqi, &["color_rule=two_in_a_row", "bomb_captures_flag=false", "rail_turns=all"]),
        rules(Mode::Anqi, &[]),
        rules(Mode::Anqi, &["engineer_scout=true"]),
        rules(Mode::Anqi, &["mine_rule=trade", "rail_turns=all", "hq_locked=false"]),
        rules(Mode::Anqi, &["flag_capturer=lowest", "bomb_captures_flag=false", "first_player=black"]),
        rules(Mode::Mingqi, &[]),
        rules(Mode::Mingqi, &["flag_capturer=lowest", "bomb_flies=true"]),
    ];
    let mut decisions = 0;
    for (v, r) in variants.iter().enumerate() {
        for i in 0..6u64 {
            let seed = 7000 + v as u64 * 100 + i;
            let mut rng = rng_from_seed(seed);
            let specs = match i % 3 {
                0 => ["heuristic", "greedy"],
                1 => ["random", "heuristic:temp=0"],
                _ => ["heuristic:temp=0.5", "heuristic"],
            };
            let mut players = specs.map(|s| from_spec(s).unwrap());
            let start = match r.mode {
                Mode::Fanqi => Position::new_game_with(*r, &mut rng),
                _ => {
                    let first = r.first_player.colour();
                    let (ri, bi) = if first == Colour::Red { (0, 1) } else { (1, 0) };
                    let red = players[ri].deploy(Colour::Red, r, &mut rng);
                    let black = players[bi].deploy(Colour::Black, r, &mut rng);
                    Position::from_deployments(*r, &red, &black).unwrap()
                }
            };
            let mut g = Game::new(start);
            while g.outcome().is_none() {
                let seat = g.truth().turn();
                let d = players[seat.index()].act(&g, &mut rng);
                check_decision(&g, &d);
                g.play(d.action).unwrap();
                decisions += 1;
            }
        }
    }
    assert!(decisions > 3000, "only {decisions} decisions");
}

#[test]
fn deployments_validate_and_guard_the_flag_with_a_mine() {
    let r = Rules::preset(Mode::Anqi);
    let mut formations = std::collections::HashSet::new();
    let mut layouts = std::collections::HashSet::new();
    for seed in 0..400u64 {
        let mut rng = rng_from_seed(seed);
        for colour in Colour::ALL {
            let d = heuristic_deployment(colour, &r, &mut rng);
            d.validate().unwrap_or_else(|e| panic!("seed {seed} {colour:?}: {e}"));
            let flag = d.pieces.iter().find(|p| p.1 == Kind::Flag).unwrap().0;
            assert!(HEADQUARTERS & flag.bit() != 0);
            let mines_beside = d.pieces.iter().filter(|p| p.1 == Kind::Mine && ADJACENT[flag.index()] & p.0.bit() != 0);
            assert!(mines_beside.count() >= 1, "no mine beside the flag: {d:?}");
            // Engineers stay back: never on the front rank.
            let front = if colour == Colour::Red { 6 } else { 7 };
            let commander = d.pieces.iter().find(|p| p.1 == Kind::Commander).unwrap().0;
            assert!(commander.rank() != 1 && commander.rank() != 12, "司令 on the back rank: {d:?}");
            assert!(d.pieces.iter().all(|p| p.1 != Kind::Engineer || p.0.rank() != front), "{d:?}");
            layouts.insert(d.pieces.clone());
        }
        for f in Formation::ALL {
            let d = formation_deployment(f, Colour::Red, &r, &mut rng);
            d.validate().unwrap();
            formations.insert(f.chinese());
        }
    }
    assert_eq!(formations.len(), 5);
    assert!(layouts.len() > 700, "deployments repeat: {} distinct of 800", layouts.len());
    // The bot deploys through the Agent trait with the same function.
    let mut bot = Heuristic::default();
    let mut rng = rng_from_seed(1);
    bot.deploy(Colour::Black, &r, &mut rng).validate().unwrap();
}

#[test]
fn takes_a_sure_flag_capture() {
    // 明棋: the red 司令 on d11 can take the flag on d12 or the 军长 on c11.
    let pieces = [("d12", "f"), ("c11", "g"), ("d11", "K"), ("a7", "l"), ("b1", "F"), ("a3", "L")];
    let g = game(&pieces, Mode::Mingqi, Rules::preset(Mode::Mingqi));
    let d = decide(&g, 0.1, 1);
    assert_eq!(d.action, mv("d11d12"));
    assert!(prob(&d, mv("d11d12")) > 0.999, "{:?}", d.policy);
    // 暗棋: the only black piece in a headquarters must be the flag (greedy's test position).
    let g = Game::new(
        Position::from_jfen("1f3/lR3/5/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0", Rules::preset(Mode::Anqi)).unwrap(),
    );
    let d = decide(&g, 0.1, 2);
    assert_eq!(d.action, mv("b11b12"));
    // 翻棋 with the black mines gone: the 排长 takes the face-up flag.
    let pieces = [("d12", "f"), ("d11", "L"), ("c11", "g"), ("a1", "F"), ("a3", "~M"), ("e5", "~c")];
    let g = game(&pieces, Mode::Fanqi, Rules::preset(Mode::Fanqi));
    let d = decide(&g, 0.1, 3);
    assert_eq!(d.action, mv("d11d12"));
}

/// 混棋 (`hunqi`): Black's flag on c7 moves (no red mine left) though a
/// black mine stands on a12; the red 工兵 takes it and wins. And Red's own
/// moving flag takes the black 师长 rather than trade itself for a bomb.
#[test]
fn hunqi_takes_a_moving_flag_and_uses_its_own() {
    let r = rules(Mode::Fanqi, &["hunqi=true"]);
    let pieces = [("c7", "f"), ("a12", "m"), ("e12", "l"), ("c6", "E"), ("b1", "F"), ("e1", "C")];
    let d = decide(&game(&pieces, Mode::Fanqi, r), 0.1, 6);
    assert_eq!(d.action, mv("c6c7"), "{:?}", d.policy);
    // Red's flag on c6 moves (no black mine); a black 师长 on c7, a black bomb on b6.
    let pieces = [("c6", "F"), ("c7", "d"), ("b6", "b"), ("a1", "M"), ("b12", "f"), ("e12", "l"), ("e1", "C")];
    let d = decide(&game(&pieces, Mode::Fanqi, r), 0.1, 7);
    assert_eq!(d.action, mv("c6c7"), "{:?}", d.policy);
    assert!(prob(&d, mv("c6b6")) < 1e-3, "the flag trades itself for a bomb: {:?}", d.policy);
}

#[test]
fn does_not_attack_a_piece_known_to_be_stronger() {
    // 明棋: the red 团长 on a6 could attack the black 军长 on a7 (or a bomb on c7).
    for (enemy, name) in [("g", "军长"), ("d", "师长")] {
        let pieces = [("d12", "f"), ("a7", enemy), ("a6", "O"), ("c4", "L"), ("b1", "F"), ("e3", "C")];
        let g = game(&pieces, Mode::Mingqi, Rules::preset(Mode::Mingqi));
        for temp in [0.0, 0.1] {
            let d = decide(&g, temp, 4);
            assert!(prob(&d, mv("a6a7")) < 1e-3, "attacks the {name}: {:?}", d.policy);
        }
    }
    // 翻棋: a face-up black 师长 next to a face-up red 营长: no attack.
    let pieces = [("d12", "~f"), ("c6", "d"), ("b6", "J"), ("a1", "~F"), ("a3", "~M"), ("e5", "~c"), ("e1", "C")];
    let g = game(&pieces, Mode::Fanqi, Rules::preset(Mode::Fanqi));
    let d = decide(&g, 0.1, 5);
    assert!(prob(&d, mv("b6c6")) < 1e-3, "{:?}", d.policy);
}

#[test]
fn moves_a_threatened_commander_or_general_away() {
    // The red 军长 on b4 stands next to the black 司令 on a4; the red 司令 on
    // d4 next to a black bomb on e4. Each must step away (camps are safe).
    for (attacker, target, at, from) in [("k", "G", "a4", "b4"), ("b", "K", "e4", "d4"), ("g", "G", "a4", "b4")] {
        let pieces = [("d12", "f"), (at, attacker), (from, target), ("c2", "L"), ("b1", "F"), ("e11", "l")];
        for mode in [Mode::Mingqi, Mode::Fanqi] {
            // 翻棋: the same pieces face-up, plus a face-down one.
            let mut pieces = pieces.to_vec();
            if mode == Mode::Fanqi {
                pieces.push(("a1", "~M"));
            }
            let g = game(&pieces, mode, Rules::preset(mode));
            for temp in [0.0, 0.1] {
                let d = decide(&g, temp, 6);
                assert_eq!(d.action.from, sq(from), "{mode:?} {attacker} vs {target}: {}", d.action);
                // Safe: not where the attacker can reach next (a camp, or out of reach).
                let to = d.action.to;
                let safe = junqi_core::board::CAMPS & to.bit() != 0 || ADJACENT[sq(at).index()] & to.bit() == 0;
                assert!(safe, "{mode:?}: {} stays in reach of {at}", d.action);
            }
        }
    }
}

#[test]
fn captures_with_the_cheapest_sure_winner() {
    // 明棋: a black 排长 on c5 can be taken by the red 司令 (b5 camp), 旅长 (d5
    // camp) or 连长 (c4 camp): the 连长 it is.
    let pieces = [("d12", "f"), ("c5", "l"), ("b5", "K"), ("d5", "R"), ("c4", "C"), ("b1", "F"), ("e11", "c")];
    let g = game(&pieces, Mode::Mingqi, Rules::preset(Mode::Mingqi));
    let d = decide(&g, 0.0, 7);
    assert_eq!(d.policy, vec![(mv("c4c5"), 1.0)]);
    let d = decide(&g, 0.1, 7);
    let best = d.policy.iter().copied().fold((mv("a1a1"), 0.0), |b, x| if x.1 > b.1 { x } else { b });
    assert_eq!(best.0, mv("c4c5"), "{:?}", d.policy);
    assert!(best.1 > 0.7, "{:?}", d.policy);
    // 翻棋 with the same pieces face-up: same choice.
    let pieces = [("d12", "~f"), ("c5", "l"), ("b5", "K"), ("d5", "R"), ("c4", "C"), ("b1", "~F"), ("e11", "c")];
    let g = game(&pieces, Mode::Fanqi, Rules::preset(Mode::Fanqi));
    let d = decide(&g, 0.0, 8);
    assert_eq!(d.action, mv("c4c5"));
}

#[test]
fn beats_greedy_in_a_short_match() {
    // A cheap guard against a broken evaluation: 16 games per mode, seats swapped.
    for mode in [Mode::Fanqi, Mode::Anqi] {
        let mut score = 0.0;
        for i in 0..16u64 {
            let mut rng = rng_from_seed(500 + i);
            let heur_seat = if i % 2 == 0 { Seat::First } else { Seat::Second };
            let mut bots: [Box<dyn Agent>; 2] = if heur_seat == Seat::First {
                [Box::new(Heuristic::default()), Box::new(Greedy::new(0.0))]
            } else {
                [Box::new(Greedy::new(0.0)), Box::new(Heuristic::default())]
            };
            let r = Rules::preset(mode);
            let start = match mode {
                Mode::Fanqi => Position::new_game_with(r, &mut rng),
                _ => {
                    let red = bots[0].deploy(Colour::Red, &r, &mut rng);
                    let black = bots[1].deploy(Colour::Black, &r, &mut rng);
                    Position::from_deployments(r, &red, &black).unwrap()
                }
            };
            let mut g = Game::new(start);
            while g.outcome().is_none() {
                let seat = g.truth().turn();
                let d = bots[seat.index()].act(g.infoset(seat), &mut rng);
                g.play(d.action).unwrap();
            }
            score += g.outcome().unwrap().score(heur_seat);
        }
        assert!(score >= 12.0, "{mode:?}: heuristic scored only {score} of 16 against greedy");
    }
    let _ = RandomBot::new();
}
