//! A quick match between two bot specs, seats swapped every game, with the
//! time each bot spends per move: for tuning bots without the full CLI.
//!
//! `cargo run --release -p junqi-bots --example arena -- fanqi mcts:200 greedy 50 [seed]`

use junqi_bots::{from_spec, Player};
use junqi_core::{rng_from_seed, Colour, Game, Mode, Position, Rules, Seat};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: arena <fanqi|anqi|mingqi> <bot A> <bot B> <games> [seed]");
        std::process::exit(2);
    }
    let rules = Rules::preset_named(&args[0]).expect("rules preset");
    let specs = [args[1].as_str(), args[2].as_str()];
    let games: u64 = args[3].parse().expect("games");
    let seed0: u64 = args.get(4).map_or(1, |s| s.parse().expect("seed"));
    let mut bots: Vec<Player> = specs.iter().map(|s| from_spec(s).expect("bot spec")).collect();
    let (mut score_a, mut time, mut moves, mut plies) = (0.0, [Duration::ZERO; 2], [0u64; 2], 0u64);
    for g in 0..games {
        let seed = seed0 + g;
        let mut rng = rng_from_seed(seed);
        // Bot A sits in seat 1 in even games.
        let a_seat = if g % 2 == 0 { Seat::First } else { Seat::Second };
        let bot_of = |seat: Seat| if seat == a_seat { 0 } else { 1 };
        let start = match rules.mode {
            Mode::Fanqi => Position::new_game_with(rules, &mut rng),
            _ => {
                let first = rules.first_player.colour();
                let d1 = bots[bot_of(Seat::First)].deploy(first, &rules, &mut rng);
                let d2 = bots[bot_of(Seat::Second)].deploy(first.other(), &rules, &mut rng);
                let (red, black) = if first == Colour::Red { (d1, d2) } else { (d2, d1) };
                Position::from_deployments(rules, &red, &black).expect("deployments")
            }
        };
        let mut game = Game::new(start);
        while game.outcome().is_none() {
            let b = bot_of(game.truth().turn());
            let t = Instant::now();
            let d = bots[b].act(&game, &mut rng);
            time[b] += t.elapsed();
            moves[b] += 1;
            game.play(d.action).expect("legal action");
        }
        plies += game.moves().len() as u64;
        let o = game.outcome().unwrap();
        score_a += o.score(a_seat);
        eprintln!(
            "game {g}: {} ({}), {} plies, A score so far {score_a}/{}",
            o.result_str(),
            o.termination.name(),
            game.moves().len(),
            g + 1
        );
    }
    for (i, spec) in specs.iter().enumerate() {
        let per = time[i].as_secs_f64() / moves[i].max(1) as f64;
        println!("{spec}: {} moves, {:.2} ms/move, {:.1} moves/s", moves[i], per * 1e3, 1.0 / per);
    }
    println!(
        "{} vs {} in {}: {games} games, A scores {score_a} ({:.1}%), {:.0} plies/game",
        specs[0],
        specs[1],
        args[0],
        100.0 * score_a / games as f64,
        plies as f64 / games as f64
    );
}
