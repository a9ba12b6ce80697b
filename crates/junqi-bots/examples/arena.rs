//! Quick strength check without the CLI: `cargo run --release -p junqi-bots
//! --example arena -- <bot1> <bot2> <mode> <games> [seed] [set=value ...]`.
//! Seats alternate every game; prints bot1's score, draws, terminations and moves/s.

use junqi_bots::from_spec;
use junqi_core::{rng_from_seed, Colour, Game, Mode, Position, Rules, Seat};
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b) = (&args[0], &args[1]);
    let mode: Mode = args[2].parse().unwrap();
    let games: u64 = args[3].parse().unwrap();
    let seed: u64 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(1);
    let mut rules = Rules::preset(mode);
    for s in args.iter().skip(5) {
        rules.apply_override(s).unwrap();
    }
    let (mut score, mut draws) = (0.0, 0);
    let mut terms: BTreeMap<&str, u32> = BTreeMap::new();
    let (mut plies, mut think) = (0u64, [0f64; 2]);
    let mut acts = [0u64; 2];
    for g in 0..games {
        let mut rng = rng_from_seed(seed * 100_000 + g);
        let swap = g % 2 == 1;
        let specs = if swap { [b, a] } else { [a, b] };
        let mut players = specs.map(|s| from_spec(s).unwrap());
        let start = match mode {
            Mode::Fanqi => Position::new_game_with(rules, &mut rng),
            _ => {
                // Seat 1 plays Red unless first_player = black.
                let first = rules.first_player.colour();
                let (ri, bi) = if first == Colour::Red { (0, 1) } else { (1, 0) };
                let red = players[ri].deploy(Colour::Red, &rules, &mut rng);
                let black = players[bi].deploy(Colour::Black, &rules, &mut rng);
                Position::from_deployments(rules, &red, &black).unwrap()
            }
        };
        let mut game = Game::new(start);
        while game.outcome().is_none() {
            let seat = game.truth().turn();
            let t = Instant::now();
            let d = players[seat.index()].act(&game, &mut rng);
            let who = (seat.index() + swap as usize) % 2;
            think[who] += t.elapsed().as_secs_f64();
            acts[who] += 1;
            game.play(d.action).unwrap();
            plies += 1;
        }
        let o = game.outcome().unwrap();
        let a_seat = if swap { Seat::Second } else { Seat::First };
        score += o.score(a_seat);
        if o.winner.is_none() {
            draws += 1;
        }
        *terms.entry(o.termination.name()).or_default() += 1;
    }
    println!(
        "{a} vs {b} {mode}: {games} games, score {:.1}% ({score}), draws {draws} ({:.1}%), plies/game {:.0}, {terms:?}, moves/s {a}: {:.0} {b}: {:.0}",
        100.0 * score / games as f64,
        100.0 * draws as f64 / games as f64,
        plies as f64 / games as f64,
        acts[0] as f64 / think[0],
        acts[1] as f64 / think[1],
    );
}
