//! The four-player bots (src/bots.rs): legal moves, decisions from the
//! seat's information set only, and the heuristic's strength as a team.

use junqi_core::piece::Kind;
use junqi_core::setup::rng_from_seed;
use junqi_siguo::bots::{bot_from_spec, play_bots, SiguoBot, BOT_NAMES};
use junqi_siguo::{Announcement, Army, Mode, MoveList, NodeKind, Piece, Position, Rules, SiguoInfoSet, Team};
use rand::Rng;

fn bots(spec: &str) -> Box<dyn SiguoBot> {
    bot_from_spec(spec).unwrap()
}

/// Every bot's move is one of the referee's legal moves, at every position
/// of random games in all three modes.
#[test]
fn every_bot_moves_legally() {
    let mut checked = 0;
    for (i, mode) in [Mode::Anqi, Mode::Shuangming, Mode::Quanming].into_iter().enumerate() {
        for seed in 0..4u64 {
            let mut pos = Position::new_game(Rules::preset(mode), 100 * i as u64 + seed);
            let mut infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
            let mut rng = rng_from_seed(seed);
            let mut all: Vec<Box<dyn SiguoBot>> = BOT_NAMES.iter().map(|n| bots(n)).collect();
            let mut legal = MoveList::new();
            while pos.outcome().is_none() && pos.ply() < 600 {
                pos.legal_moves(&mut legal);
                let seat = pos.turn();
                for bot in &mut all {
                    let mv = bot.choose(&infos[seat.index()], &mut rng).expect("a move while the army can move");
                    assert!(legal.contains(mv), "{} chose {mv}, not legal at ply {}", bot.name(), pos.ply());
                    checked += 1;
                }
                // Not to move: no move.
                for bot in &mut all {
                    assert_eq!(bot.choose(&infos[seat.next().index()], &mut rng), None);
                }
                let mv = legal[rng.random_range(0..legal.len())];
                let before = pos.clone();
                let effect = pos.play(mv).unwrap();
                let a = Announcement::new(&before, mv, &effect, &pos);
                infos.iter_mut().for_each(|i| i.update(&a));
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// World B is world A with two of army 1's movable pieces of different
/// kinds swapped: seat 0 (and in 四国暗棋 seat 2) cannot tell them apart.
fn swapped(a: &Position) -> Position {
    let mine: Vec<_> = a
        .pieces()
        .filter(|(n, p)| {
            p.army.index() == 1
                && p.kind.is_movable()
                && p.kind != Kind::Bomb
                && n.kind() != NodeKind::Headquarters
        })
        .collect();
    let (n1, p1) = mine[0];
    let (n2, p2) = *mine.iter().find(|(_, p)| p.kind != p1.kind).unwrap();
    let mut b = a.clone();
    b.put(n1, Piece::new(p1.army, p2.kind));
    b.put(n2, Piece::new(p2.army, p1.kind));
    b.settle();
    b
}

/// Fairness: while two worlds that differ only in kinds seat 0 cannot know
/// give the same announcements, seat 0's information sets are equal and every
/// bot's choice for seat 0 (from the same random stream) is the same; seat 1,
/// who knows its own kinds, does tell the worlds apart.
#[test]
fn bots_decide_from_the_seat_information_only() {
    let mut compared = 0;
    for mode in [Mode::Anqi, Mode::Shuangming] {
        for seed in 0..6u64 {
            let a0 = Position::new_game(Rules::preset(mode), seed);
            let b0 = swapped(&a0);
            assert_ne!(a0, b0);
            assert_ne!(SiguoInfoSet::new(&a0, Army::ALL[1]), SiguoInfoSet::new(&b0, Army::ALL[1]));
            for name in BOT_NAMES {
                let (mut a, mut b) = (a0.clone(), b0.clone());
                let mut ia: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&s| SiguoInfoSet::new(&a, s)).collect();
                let mut ib: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&s| SiguoInfoSet::new(&b, s)).collect();
                let mut bot = bots(name);
                let mut rng = rng_from_seed(seed + 7);
                while a.outcome().is_none() {
                    let seat = a.turn();
                    assert_eq!(ia[0], ib[0], "seat 0's sets differ at ply {}", a.ply());
                    let ra: u64 = rng.random();
                    let mv = bot.choose(&ia[seat.index()], &mut rng_from_seed(ra)).unwrap();
                    if seat.index() == 0 {
                        let other = bot.choose(&ib[0], &mut rng_from_seed(ra)).unwrap();
                        assert_eq!(mv, other, "{name} chose differently for seat 0 at ply {}", a.ply());
                        compared += 1;
                    }
                    let (ba, bb) = (a.clone(), b.clone());
                    let ea = a.play(mv).unwrap();
                    let Ok(eb) = b.play(mv) else { break };
                    let (xa, xb) = (Announcement::new(&ba, mv, &ea, &a), Announcement::new(&bb, mv, &eb, &b));
                    if xa != xb {
                        break;
                    }
                    ia.iter_mut().for_each(|i| i.update(&xa));
                    ib.iter_mut().for_each(|i| i.update(&xb));
                }
            }
        }
    }
    assert!(compared > 200, "{compared}");
}

/// Team A's mean score when `a` plays seats 0 and 2 and `b` seats 1 and 3,
/// each deal played twice with the teams swapped.
fn team_score(a: &str, b: &str, deals: u64) -> (f64, usize) {
    let (mut score, mut decided) = (0.0, 0);
    for seed in 0..deals {
        let start = Position::new_game(Rules::preset(Mode::Anqi), 1000 + seed);
        for swap in [false, true] {
            let (x, y) = if swap { (b, a) } else { (a, b) };
            let mut seats = [bots(x), bots(y), bots(x), bots(y)];
            let g = play_bots(start.clone(), &mut seats, &mut rng_from_seed(seed)).unwrap();
            let team = if swap { Team::B } else { Team::A };
            score += g.outcome.score(team);
            decided += g.outcome.winner.is_some() as usize;
        }
    }
    (score / (2 * deals) as f64, decided)
}

#[test]
fn heuristic_beats_random_and_greedy_as_a_team() {
    for other in ["random", "greedy"] {
        let (s, decided) = team_score("heuristic", other, 10);
        eprintln!("heuristic vs {other}: {s:.3} ({decided} of 20 decided)");
        assert!(s >= 0.75, "heuristic scored {s:.3} against {other}");
    }
}
