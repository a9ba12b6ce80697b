//! Search bots that play by time (`movetime`, `tc`): each move comes back
//! by its deadline, a clock runs down through a game and never runs out,
//! and bad time specs are refused.

use crate::common::check_decision;
use junqi_bots::{from_spec, Agent, Mcts, MctsConfig, Player};
use junqi_core::{rng_from_seed, Game, Mode, Position, Rules};
use std::time::{Duration, Instant};

/// What a move may overrun its deadline by in this (debug, shared-machine)
/// test: the last simulation, the decision, the scheduler.
const MARGIN: Duration = Duration::from_millis(60);

/// Positions a few plies into games of each mode (random moves).
fn positions() -> Vec<Game> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        for seed in 0..2u64 {
            let mut rng = rng_from_seed(seed);
            let mut random = from_spec("random").unwrap();
            let mut g = Game::new(Position::new_game_with(Rules::preset(mode), &mut rng));
            for _ in 0..(6 + 7 * seed) {
                let d = random.act(&g, &mut rng);
                g.play(d.action).unwrap();
            }
            out.push(g);
        }
    }
    out
}

#[test]
fn a_movetime_search_answers_by_its_deadline() {
    for (spec, name) in [
        ("mcts:movetime=50", "mcts:movetime=50"),
        ("cheat-mcts:movetime=50", "cheat-mcts:movetime=50"),
        ("mcts:movetime=50,search=gumbel,sims=100000", "mcts:sims=100000,movetime=50,search=gumbel"),
    ] {
        let mut bot = from_spec(spec).unwrap();
        assert_eq!(bot.name(), name);
        for (i, g) in positions().iter().enumerate() {
            let started = Instant::now();
            let d = bot.act(g, &mut rng_from_seed(i as u64));
            let took = started.elapsed();
            check_decision(g, &d);
            assert!(took <= Duration::from_millis(50) + MARGIN, "{spec}, position {i}: {took:?}");
        }
    }
    // More time, more simulations (the policy's visit shares are finer).
    let g = &positions()[0];
    let visits = |ms: u64| {
        let mut bot = from_spec(&format!("mcts:movetime={ms}")).unwrap();
        let d = bot.act(g, &mut rng_from_seed(1));
        d.policy.iter().map(|p| p.1).filter(|&p| p > 0.0).fold(1.0f32, f32::min)
    };
    assert!(visits(200) < visits(5), "the smallest visit share shrinks with time");
}

#[test]
fn simulations_cap_a_timed_search() {
    // sims=1 with a long move time: one simulation, at once.
    let g = &positions()[1];
    let mut bot = from_spec("mcts:sims=1,movetime=60000").unwrap();
    let started = Instant::now();
    let d = bot.act(g, &mut rng_from_seed(3));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(d.policy.len(), 1, "one simulation visits one action");
}

#[test]
fn a_clock_runs_down_through_a_game_and_never_runs_out() {
    let config = MctsConfig::from_spec(&"mcts:tc=1.5+0.01".parse().unwrap()).unwrap();
    let mut bot = Mcts::new(config);
    let mut random = from_spec("random").unwrap();
    for game in 0..2u64 {
        let mut rng = rng_from_seed(game);
        let mut g = Game::new(Position::new_game_with(Rules::preset(Mode::Fanqi), &mut rng));
        let mut left = Vec::new();
        let mut ply = 0;
        while g.outcome().is_none() && ply < 80 {
            let d = if ply % 2 == 0 {
                let before = if ply == 0 { Duration::from_secs_f64(1.5) } else { bot.clock().unwrap().remaining() };
                let started = Instant::now();
                let d = bot.act(g.infoset(g.truth().turn()), &mut rng);
                let took = started.elapsed();
                assert!(took < before, "game {game}, ply {ply}: {took:?} of {before:?} left");
                left.push(bot.clock().unwrap().remaining());
                d
            } else {
                random.act(&g, &mut rng)
            };
            check_decision(&g, &d);
            g.play(d.action).unwrap();
            ply += 1;
        }
        assert!(left.len() > 10, "game {game}: too few moves");
        assert!(left[0] < Duration::from_secs_f64(1.5), "the first move spent time: {:?}", left[0]);
        assert!(left.last().unwrap() < &left[0], "game {game}: the clock runs down: {left:?}");
        assert!(left.iter().all(|l| !l.is_zero()), "game {game}: never out of time");
        bot.game_over(junqi_core::Seat::First, &junqi_core::Outcome::forfeit(junqi_core::Seat::Second));
        assert_eq!(bot.clock().unwrap().remaining(), Duration::from_secs_f64(1.5), "a new game: the base again");
    }
}

#[test]
fn timed_specs_round_trip_and_bad_ones_say_why() {
    for spec in
        ["mcts:movetime=100", "mcts:tc=60+0.5", "mcts:sims=800,movetime=20", "cheat-mcts:tc=2+0", "mcts:tc=0.5+0"]
    {
        let name = from_spec(spec).unwrap().name();
        assert_eq!(name, spec);
        assert!(matches!(from_spec(&name).unwrap(), Player::Fair(_) | Player::Cheating(_)));
    }
    assert_eq!(from_spec("mcts:tc=60").unwrap().name(), "mcts:tc=60+0");
    let err = |s: &str| from_spec(s).err().unwrap().to_string();
    assert!(err("mcts:movetime=0").contains("bad value `0` for `movetime`: expected a whole number from 1"));
    assert!(err("mcts:movetime=1.5").contains("for `movetime`"));
    assert!(err("mcts:tc=abc").contains("bad value `abc` for `tc`: expected <seconds>+<increment seconds>"));
    assert!(err("mcts:tc=0+1").contains("for `tc`"));
    assert!(err("mcts:tc=1+x").contains("for `tc`"));
    assert!(err("mcts:movetime=100,tc=60+1").contains("give movetime (each move) or tc (a clock per game), not both"));
    assert!(err("mcts:movetime=").contains("must be key=value"));
}
