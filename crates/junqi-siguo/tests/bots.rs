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
                    let s: u64 = rng.random();
                    let mv = bot
                        .choose(&infos[seat.index()], &mut rng_from_seed(s))
                        .expect("a move while the army can move");
                    assert!(legal.contains(mv), "{} chose {mv}, not legal at ply {}", bot.name(), pos.ply());
                    // A bot that decides from the legal moves alone chooses the same from the referee's list.
                    let among = bot.choose_among(&legal, &mut rng_from_seed(s));
                    assert_eq!(among, bot.moves_only().then_some(mv), "{}", bot.name());
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

/// `random`, but kept with an information set by `play_bots`.
struct KeptRandom(Box<dyn SiguoBot>);

impl SiguoBot for KeptRandom {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn rand::RngCore) -> Option<junqi_siguo::Move> {
        self.0.choose(info, rng)
    }
}

/// `play_bots` keeps no information set for a `random` seat; the games are
/// the same as with one kept, alone or beside a heuristic.
#[test]
fn random_seats_play_the_same_without_information_sets() {
    for seed in 0..6u64 {
        let start = Position::new_game(Rules::preset(Mode::Anqi), seed);
        let kept = || -> Box<dyn SiguoBot> { Box::new(KeptRandom(bots("random"))) };
        let other = if seed % 2 == 0 { "random" } else { "heuristic" };
        let mut fast = [bots("random"), bots(other), bots("random"), bots(other)];
        let mut slow = [kept(), bots(other), kept(), bots(other)];
        let a = play_bots(start.clone(), &mut fast, &mut rng_from_seed(seed)).unwrap();
        let b = play_bots(start, &mut slow, &mut rng_from_seed(seed)).unwrap();
        assert_eq!((a.moves, a.outcome), (b.moves, b.outcome), "seed {seed}");
    }
}

/// World B is world A with two of army 1's movable pieces of different
/// kinds swapped: seat 0 (and in 四国暗棋 seat 2) cannot tell them apart.
fn swapped(a: &Position) -> Position {
    let mine: Vec<_> = a
        .pieces()
        .filter(|(n, p)| {
            p.army.index() == 1 && p.kind.is_movable() && p.kind != Kind::Bomb && n.kind() != NodeKind::Headquarters
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

/// Four flags and a 排长 of each army on rank 6, with `extra`, army 0 to move, 全明.
fn table(extra: &[(&'static str, usize, char)]) -> Position {
    let mut pieces = vec![
        ("sb1", 0, 'F'),
        ("eb1", 1, 'F'),
        ("nb1", 2, 'F'),
        ("wb1", 3, 'F'),
        ("sa6", 0, 'L'),
        ("ea6", 1, 'L'),
        ("na6", 2, 'L'),
        ("wa6", 3, 'L'),
    ];
    pieces.extend_from_slice(extra);
    crate::common::build(Rules::preset(Mode::Quanming), &pieces, 0)
}

/// The heuristic's moves for seat 0 over many random streams.
fn heuristic_choices(pos: &Position) -> Vec<String> {
    let info = SiguoInfoSet::new(pos, Army::ALL[0]);
    let mut bot = bots("heuristic");
    (0..40).map(|s| bot.choose(&info, &mut rng_from_seed(s)).unwrap().to_string()).collect()
}

/// It never attacks where it knows it loses: a 连长 next to an enemy 军长 it sees.
#[test]
fn heuristic_does_not_attack_a_known_loss() {
    let pos = table(&[("sc2", 0, 'C'), ("sc3", 1, 'G')]);
    let choices = heuristic_choices(&pos);
    assert!(!choices.iter().any(|m| m == "sc2-sc3"), "{choices:?}");
    // The same 连长 does take an enemy 排长 it sees there.
    let pos = table(&[("sc2", 0, 'C'), ("sc3", 1, 'L')]);
    assert!(heuristic_choices(&pos).iter().all(|m| m == "sc2-sc3"));
}

/// It spends a bomb on an enemy 司令, not on a 排长.
#[test]
fn heuristic_does_not_waste_bombs() {
    let on_platoon = heuristic_choices(&table(&[("sc2", 0, 'B'), ("sc3", 1, 'L')]));
    assert!(!on_platoon.iter().any(|m| m == "sc2-sc3"), "{on_platoon:?}");
    let on_commander = heuristic_choices(&table(&[("sc2", 0, 'B'), ("sc3", 1, 'K')]));
    assert!(on_commander.iter().all(|m| m == "sc2-sc3"), "{on_commander:?}");
}

/// It defends its ally's flag first: of two equal captures, it takes the
/// enemy beside its ally's headquarters (where the flag is), not the one far
/// from every flag of its team.
#[test]
fn heuristic_protects_its_ally_flag() {
    let pos = table(&[("nc2", 0, 'D'), ("nc1", 1, 'L'), ("ec4", 0, 'D'), ("ec5", 3, 'L')]);
    let choices = heuristic_choices(&pos);
    assert!(choices.iter().all(|m| m == "nc2-nc1"), "{choices:?}");
    // The same enemy away from the ally's headquarters (on nc5) is no more
    // urgent than the other one: the bot takes either.
    let pos = table(&[("nc6", 0, 'D'), ("nc5", 1, 'L'), ("ec4", 0, 'D'), ("ec5", 3, 'L')]);
    let choices = heuristic_choices(&pos);
    assert!(choices.iter().all(|m| m == "nc6-nc5" || m == "ec4-ec5"), "{choices:?}");
    assert!(choices.iter().any(|m| m == "nc6-nc5"), "{choices:?}");
    assert!(choices.iter().any(|m| m == "ec4-ec5"), "{choices:?}");
}
