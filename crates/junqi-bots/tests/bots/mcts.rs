//! `mcts` and `cheat-mcts`: legal decisions with well-formed policies in every
//! mode, reproducible from the seed; the search takes a win in one and parries
//! a threat to its flag; only `cheat-mcts`, a `Player::Cheating`, reads the truth.

use crate::common::check_decision;
use junqi_bots::{from_spec, Agent, Mcts, MctsConfig, Player};
use junqi_core::{rng_from_seed, Game, Mode, Move, MoveList, Position, Rules};
use rand::Rng;

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

fn game(jfen: &str, mode: Mode) -> Game {
    Game::new(Position::from_jfen(jfen, Rules::preset(mode)).unwrap())
}

/// Stretches of games in each mode, mcts against random: every mcts decision
/// is legal and well formed, and a second run from the same seeds decides
/// exactly the same.
#[test]
fn mcts_decisions_are_legal_and_reproducible() {
    for mode in Mode::ALL {
        let run = || {
            let mut decisions = Vec::new();
            for seed in 0..3u64 {
                let mut rng = rng_from_seed(seed);
                let mut bots = [from_spec("mcts:sims=40,depth=6").unwrap(), from_spec("random").unwrap()];
                let mut g = Game::new(Position::new_game_with(Rules::preset(mode), &mut rng));
                for ply in 0..60 {
                    if g.outcome().is_some() {
                        break;
                    }
                    let d = bots[ply % 2].act(&g, &mut rng);
                    check_decision(&g, &d);
                    if ply % 2 == 0 {
                        decisions.push(d.clone());
                    }
                    g.play(d.action).unwrap();
                }
            }
            decisions
        };
        let first = run();
        assert!(first.len() > 40, "{mode}: too few decisions checked");
        assert!(first.iter().any(|d| d.policy.len() > 1), "{mode}: the search never spread its visits");
        assert_eq!(first, run(), "{mode}: not reproducible from the seed");
    }
}

/// 明棋: the red 旅长 on b11 takes the black flag on b12 at once (a sure
/// capture), although it has other moves, some of them captures too.
#[test]
fn mcts_takes_the_flag_when_it_can() {
    // Black: flag b12, 排长 a11, 司令 e9. Red: 旅长 b11, flag b1.
    let g = game("1f3/lR3/5/4k/5/5/5/5/5/5/5/1F3 mingqi 1 r 0 10", Mode::Mingqi);
    assert_mcts_plays(&g, 200, "b11b12");
}

/// `mcts` with `sims` simulations plays `expected` in `g`, from several seeds.
fn assert_mcts_plays(g: &Game, sims: u32, expected: &str) {
    for seed in 0..3 {
        let mut bot = Mcts::new(MctsConfig { sims, ..MctsConfig::default() });
        let d = bot.act(g.infoset(g.truth().turn()), &mut rng_from_seed(seed));
        check_decision(g, &d);
        assert_eq!(d.action, mv(expected), "seed {seed}: {:?}", d.policy);
    }
}

/// 明棋: a black 连长 on b2 threatens the red flag on b1. Only taking it with
/// the 司令 on c2 saves the game; red also has a free capture elsewhere (its
/// 师长 on a7 can take a black 排长 on a8) that loses at once.
#[test]
fn mcts_parries_a_threat_to_its_flag() {
    // Black: flag b12, 工兵 e10, 排长 a8, 连长 b2. Red: 师长 a7, 排长 e3,
    // 司令 c2, flag b1.
    let g = game("1f3/5/4e/5/l4/D4/5/5/5/4L/1cK2/1F3 mingqi 1 r 0 10", Mode::Mingqi);
    assert_mcts_plays(&g, 400, "c2b2");
}

/// 暗棋: red 司令 on c12 between two black pieces in the headquarters b12 and
/// d12, one the flag and one a mine; Red cannot tell which. `cheat-mcts` is a
/// `Player::Cheating`, reads the truth and takes the flag wherever it is; fair
/// `mcts` gets the same information set in both cases and so decides the same.
#[test]
fn only_cheat_mcts_sees_the_truth() {
    let flag_on = |sq: &str| {
        let rank12 = if sq == "b12" { "1fKm1" } else { "1mKf1" };
        game(&format!("{rank12}/5/5/4e/5/5/5/5/5/5/5/1F3 anqi 1 r 0 30"), Mode::Anqi)
    };
    let mut fair_decisions = Vec::new();
    for (sq, target) in [("b12", "c12b12"), ("d12", "c12d12")] {
        let g = flag_on(sq);
        let mut cheat = from_spec("cheat-mcts:sims=200").unwrap();
        assert!(matches!(cheat, Player::Cheating(_)), "cheat-mcts must be a cheating player");
        let d = cheat.act(&g, &mut rng_from_seed(1));
        check_decision(&g, &d);
        assert_eq!(d.action, mv(target), "flag on {sq}: {:?}", d.policy);
        let mut fair = from_spec("mcts:sims=200").unwrap();
        assert!(!fair.cheats());
        let d = fair.act(&g, &mut rng_from_seed(1));
        check_decision(&g, &d);
        fair_decisions.push(d);
    }
    assert_eq!(fair_decisions[0], fair_decisions[1], "the fair bot's decision depends on hidden kinds");
}

/// A bot reused over many positions keeps working (its buffers are reset
/// per search), and a tiny budget still gives a decision.
#[test]
fn mcts_survives_reuse_and_tiny_budgets() {
    let mut rng = rng_from_seed(9);
    for spec in ["mcts:1", "mcts:sims=3,depth=0", "mcts:sims=20,c=0,rollout=random", "cheat-mcts:2"] {
        let mut bot = from_spec(spec).unwrap();
        for mode in Mode::ALL {
            let mut g = Game::new(Position::new_game_with(Rules::preset(mode), &mut rng));
            for _ in 0..30 {
                if g.outcome().is_some() {
                    break;
                }
                let d = bot.act(&g, &mut rng);
                check_decision(&g, &d);
                let mut list = MoveList::new();
                g.truth().legal_moves(&mut list);
                // Vary the game: half the time play a random action instead.
                let m = if rng.random::<bool>() { d.action } else { list[rng.random_range(0..list.len())] };
                g.play(m).unwrap();
            }
        }
    }
}
