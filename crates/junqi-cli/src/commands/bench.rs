//! `junqi bench`: random-playout speed per mode (generate every legal action
//! each ply, pick one uniformly), on one thread and on all threads; with
//! `--net FILE`, the net's speed (see [`super::bench_net`]); with `--siguo`,
//! random four-player playouts (docs/rules.md §10).

use crate::rules_arg::RulesArgs;
use anyhow::{bail, Result};
use junqi_core::{playout, rng_from_seed, Mode, MoveList, Position};
use rand::Rng;
use std::io::Write;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Seconds per measurement (with --net: of the self-play window; default 3, with --net 30).
    #[arg(long)]
    seconds: Option<f64>,
    /// Measure a net instead: `default`, a net file, or `random:BLOCKSxCHANNELS`
    /// (a fresh net of that shape, e.g. random:10x128): forward passes, training,
    /// the loader, self-play with the net and the cost of writing samples.
    #[arg(long, value_name = "FILE")]
    net: Option<String>,
    /// With --net: simulations of the self-play search.
    #[arg(long, default_value_t = 48, requires = "net")]
    sims: u32,
    /// With --net: the self-play bot instead of `mcts:sims=N,c=4,noise=0.25,alpha=0.3,temp=1,temp_plies=30,mix=0.5,eval=net:FILE`.
    #[arg(long, value_name = "SPEC", requires = "net")]
    bot: Option<junqi_bots::BotSpec>,
    /// With --net: self-play games in flight per thread (0 = automatic).
    #[arg(long, default_value_t = 0, requires = "net")]
    in_flight: usize,
    /// With --net: seconds of self-play before the measured window.
    #[arg(long, default_value_t = 10.0, requires = "net")]
    warmup: f64,
    /// Threads for the parallel measurement (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Modes to measure (default: all three).
    #[arg(long, value_delimiter = ',')]
    modes: Vec<Mode>,
    /// Random playouts of the four-player game (四国军棋) instead: --rules names
    /// its mode (anqi, shuangming, quanming; default anqi) or a rules file,
    /// --set takes its options (docs/rules.md §10.11).
    #[arg(long, conflicts_with_all = ["net", "modes"])]
    siguo: bool,
    /// Base seed; thread i uses seed + i.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    rules: RulesArgs,
}

#[derive(Clone, Copy, Default)]
struct Tally {
    games: u64,
    plies: u64,
}

/// Play whole random games until `budget` has passed.
fn run_games(rules: junqi_core::Rules, seed: u64, budget: Duration) -> Tally {
    let mut rng = rng_from_seed(seed);
    let mut list = MoveList::new();
    let mut tally = Tally::default();
    let start = Instant::now();
    while start.elapsed() < budget {
        let mut pos = Position::new_game_with(rules, &mut rng);
        let (_, plies) = playout::random_playout(&mut pos, &mut rng, &mut list);
        tally.games += 1;
        tally.plies += plies as u64;
    }
    tally
}

/// Play whole random four-player games until `budget` has passed.
fn run_siguo_games(rules: junqi_siguo::Rules, seed: u64, budget: Duration) -> Tally {
    let mut rng = rng_from_seed(seed);
    let mut list = junqi_siguo::MoveList::new();
    let mut tally = Tally::default();
    let start = Instant::now();
    while start.elapsed() < budget {
        let mut pos = junqi_siguo::Position::new_game_with(rules, &mut rng);
        while !pos.is_game_over() {
            pos.legal_moves(&mut list);
            pos.play_unchecked(list[rng.random_range(0..list.len())]);
            tally.plies += 1;
        }
        tally.games += 1;
    }
    tally
}

/// What one measurement plays: two-player or four-player games.
#[derive(Clone, Copy)]
enum Game {
    Two(junqi_core::Rules),
    Four(junqi_siguo::Rules),
}

/// Run `threads` independent playout loops for `budget`; total tally and wall seconds.
fn measure(game: Game, threads: usize, seed: u64, budget: Duration) -> Result<(Tally, f64)> {
    let start = Instant::now();
    let tallies: Vec<Tally> = std::thread::scope(|s| -> Result<Vec<Tally>> {
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let thread_seed = seed.wrapping_add(i as u64);
            handles.push(std::thread::Builder::new().spawn_scoped(s, move || match game {
                Game::Two(rules) => run_games(rules, thread_seed, budget),
                Game::Four(rules) => run_siguo_games(rules, thread_seed, budget),
            })?);
        }
        Ok(handles.into_iter().map(|h| h.join().expect("bench thread")).collect())
    })?;
    let secs = start.elapsed().as_secs_f64();
    let total =
        tallies.iter().fold(Tally::default(), |a, t| Tally { games: a.games + t.games, plies: a.plies + t.plies });
    Ok((total, secs))
}

pub fn run(args: Args, device: Option<&str>) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = args.threads.unwrap_or(cores);
    if threads == 0 || threads > 1024 {
        bail!("--threads must be between 1 and 1024");
    }
    if let Some(net) = args.net {
        return super::bench_net::run(super::bench_net::NetBench {
            net,
            threads,
            seconds: args.seconds.unwrap_or(30.0),
            warmup: args.warmup,
            sims: args.sims,
            in_flight: args.in_flight,
            bot: args.bot,
            seed: args.seed,
            device: device.map(str::to_string),
        });
    }
    let seconds = args.seconds.unwrap_or(3.0);
    if !(seconds > 0.0 && seconds <= 3600.0) {
        bail!("--seconds must be in (0, 3600]");
    }
    let budget = Duration::from_secs_f64(seconds);
    let games: Vec<(String, Game)> = if args.siguo {
        let rules = super::perft::siguo_rules(&args.rules, None)?;
        vec![(format!("siguo-{}", rules.mode.name()), Game::Four(rules))]
    } else {
        let modes = if args.modes.is_empty() { Mode::ALL.to_vec() } else { args.modes.clone() };
        modes
            .into_iter()
            .map(|mode| Ok((mode.name().to_string(), Game::Two(args.rules.resolve(Some(mode))?))))
            .collect::<Result<_>>()?
    };
    let w = games.iter().map(|(name, _)| name.len()).max().unwrap_or(0).max(7);
    let mut out = std::io::stdout();
    writeln!(out, "random playouts, {seconds} s per measurement, {threads} thread(s) for the parallel run")?;
    writeln!(
        out,
        "{:<w$} {:>8} {:>12} {:>14} {:>11} {:>8}",
        "mode", "threads", "games/s", "plies/s", "plies/game", "scaling"
    )?;
    for (name, game) in games {
        let single = measure(game, 1, args.seed, budget)?;
        let parallel = measure(game, threads, args.seed, budget)?;
        let single_rate = single.0.plies as f64 / single.1;
        for ((tally, secs), n) in [(single, 1), (parallel, threads)] {
            let rate = tally.plies as f64 / secs;
            writeln!(
                out,
                "{:<w$} {:>8} {:>12.0} {:>14.0} {:>11.1} {:>7.2}x",
                name,
                n,
                tally.games as f64 / secs,
                rate,
                tally.plies as f64 / tally.games.max(1) as f64,
                rate / single_rate
            )?;
        }
    }
    Ok(())
}
