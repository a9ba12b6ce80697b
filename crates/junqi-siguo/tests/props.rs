//! Properties of random games: pieces are only ever lost as §10.7–§10.8
//! say, the notation (§10.4) reads back what it wrote, and a seed fixes the game.

use junqi_core::piece::{Kind, KINDS};
use junqi_core::position::CombatOutcome;
use junqi_core::setup::rng_from_seed;
use junqi_siguo::{parse, Army, Effect, Mode, MoveList, Position, Rules};
use proptest::prelude::*;
use rand::seq::IndexedRandom;

fn any_rules() -> impl Strategy<Value = Rules> {
    (0usize..3, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())
        .prop_map(|(mode, cw, one, arcs, fly, front, trade, stop)| {
            let mut r = Rules::preset(Mode::ALL[mode]);
            let set = |r: &mut Rules, on: bool, o: &str| {
                if on {
                    r.apply_override(o).unwrap();
                }
            };
            set(&mut r, cw, "turn_order=clockwise");
            set(&mut r, one, "rail_turns=one_turn");
            set(&mut r, arcs, "palace_arcs=true");
            set(&mut r, fly, "bomb_flies=true");
            set(&mut r, front, "bomb_front_rank=true");
            set(&mut r, trade, "mine_rule=trade");
            set(&mut r, stop, "commander_hits_mine=false");
            r
        })
}

fn counts(pos: &Position) -> [[u8; KINDS]; 4] {
    let mut c = [[0; KINDS]; 4];
    for (_, p) in pos.pieces() {
        c[p.army.index()][p.kind.index()] += 1;
    }
    c
}

/// Pieces removed by one effect, by army (before any army's end).
fn removed(effect: &Effect) -> Vec<(Army, Kind)> {
    match *effect {
        Effect::Move { .. } => vec![],
        Effect::Attack { attacker, defender, outcome } => match outcome {
            CombatOutcome::AttackerWon => vec![(defender.army, defender.kind)],
            CombatOutcome::DefenderWon | CombatOutcome::Scouted => vec![(attacker.army, attacker.kind)],
            CombatOutcome::BothRemoved => vec![(attacker.army, attacker.kind), (defender.army, defender.kind)],
            CombatOutcome::FlagCaptured if attacker.kind == Kind::Bomb => {
                vec![(attacker.army, attacker.kind), (defender.army, defender.kind)]
            }
            CombatOutcome::FlagCaptured => vec![(defender.army, defender.kind)],
            CombatOutcome::Bounced => vec![],
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Conservation: after every move each army has exactly what it had,
    /// minus what the move's combat removed, minus everything of an army
    /// that ended; the counters and the turn follow §10.5 and §10.9.
    #[test]
    fn pieces_are_conserved_and_notation_round_trips(rules in any_rules(), seed in any::<u64>()) {
        let mut pos = Position::new_game(rules, seed);
        let mut rng = rng_from_seed(seed ^ 0x5eed);
        let mut list = MoveList::new();
        prop_assert_eq!(pos.piece_count(), 100);
        while !pos.is_game_over() && pos.ply() < 600 {
            pos.legal_moves(&mut list);
            let mv = *list.as_slice().choose(&mut rng).unwrap();
            let before = counts(&pos);
            let (ply, quiet) = (pos.ply(), pos.quiet());
            let ended_before: Vec<bool> = Army::ALL.iter().map(|&a| pos.ended(a).is_some()).collect();
            let effect = pos.play(mv).unwrap();
            let mut expected = before;
            for (army, kind) in removed(&effect) {
                expected[army.index()][kind.index()] -= 1;
            }
            let mut newly_ended = false;
            for army in Army::ALL {
                if pos.ended(army).is_some() {
                    expected[army.index()] = [0; KINDS];
                    newly_ended |= !ended_before[army.index()];
                }
            }
            prop_assert_eq!(counts(&pos), expected, "{}", mv);
            prop_assert_eq!(pos.ply(), ply + 1);
            let lost = !removed(&effect).is_empty() || newly_ended;
            prop_assert_eq!(pos.quiet(), if lost { 0 } else { quiet + 1 });
            prop_assert!(pos.ended(pos.turn()).is_none());
            // §10.4: the notation reads back the same position, result included.
            let text = pos.to_string();
            let back = parse(&text, rules).unwrap();
            prop_assert_eq!(&back, &pos, "{}", text);
            prop_assert_eq!(back.to_string(), text);
        }
    }

    /// A seed fixes the start; the same seed and the same choices replay the same game.
    #[test]
    fn a_seed_determines_the_game(rules in any_rules(), seed in any::<u64>()) {
        let play = || {
            let mut pos = Position::new_game(rules, seed);
            let mut rng = rng_from_seed(seed);
            let mut list = MoveList::new();
            let mut record = vec![pos.to_string()];
            for _ in 0..200 {
                pos.legal_moves(&mut list);
                let Some(&mv) = list.as_slice().choose(&mut rng) else { break };
                pos.play(mv).unwrap();
                record.push(mv.to_string());
            }
            (record, pos)
        };
        let (a, pa) = play();
        let (b, pb) = play();
        prop_assert_eq!(a, b);
        prop_assert_eq!(pa, pb);
        prop_assert_ne!(Position::new_game(rules, seed), Position::new_game(rules, seed.wrapping_add(1)));
    }
}

/// `random_game` plays to the end, and its moves replay to the same result.
#[test]
fn a_random_game_ends_and_replays() {
    let mut rng = rng_from_seed(8);
    for seed in 0..20 {
        let game = junqi_siguo::random_game(Position::new_game(Rules::preset(Mode::Anqi), seed), &mut rng);
        let mut pos = game.start.clone();
        for &mv in &game.moves {
            pos.play(mv).unwrap();
        }
        assert_eq!(pos.outcome(), Some(game.outcome));
        assert_eq!(pos.ply() as usize, game.moves.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// §10.4: a damaged position line is refused with an error or read as some
    /// position, never a panic; whatever is read writes back to a line that
    /// reads as the same position.
    #[test]
    fn damaged_position_lines_never_panic(seed in 0u64..50, edits in proptest::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec!['1', '2', '9', '0', 'K', 'F', 'M', 's', 'e', 'n', 'w', 'x', 'f', ',', '/', ' ', '-', 'E', '中'])), 1..4)) {
        let rules = Rules::preset(Mode::Anqi);
        let mut chars: Vec<char> = Position::new_game(rules, seed).to_string().chars().collect();
        for (at, c) in edits {
            let i = at.index(chars.len());
            chars[i] = c;
        }
        let text: String = chars.into_iter().collect();
        if let Ok(pos) = parse(&text, rules) {
            let again = parse(&pos.to_string(), rules).unwrap();
            prop_assert_eq!(again, pos);
        }
    }
}
