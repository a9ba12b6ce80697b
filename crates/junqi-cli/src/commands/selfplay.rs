//! `junqi selfplay`: games between two bots on worker threads, written to the
//! `games/` and `samples/` Parquet datasets of `--out` (see docs/data.md);
//! with `--siguo`, four-player games between two teams, written as the
//! four-seat `games/` schema and the four-player `samples/`; both resume
//! and play parts alike.

use crate::live::Live;
use crate::rules_arg::RulesArgs;
use crate::Interrupted;
use anyhow::{bail, Context, Result};
use junqi_bots::BotSpec;
use junqi_core::Mode;
use junqi_selfplay::{dataset_stats, describe_part, prepare_part, Config, Resign, SamplesPerGame};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Games to play (game ids 0..N).
    #[arg(long, value_name = "N", required_unless_present = "config")]
    games: Option<u64>,
    /// The run's whole config as JSON (the `config` object of a run's
    /// run.json, as `junqi loop` writes one per generation), instead of the
    /// flags that make one: how a driver runs the parts of any run.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["games", "bots", "bot", "swap", "paired", "seed", "shard_games", "resign_threshold", "rules", "set", "samples_per_game"]
    )]
    config: Option<PathBuf>,
    /// Bots of seat 1 and seat 2, e.g. `random,greedy` or `greedy:epsilon=0.1,random`;
    /// one spec plays both seats. Bots: random, greedy, heuristic, mcts, cheat-mcts,
    /// net:NAME|FILE, engine:cmd=PROGRAM.
    #[arg(long, value_name = "A,B", default_value = "random,random", conflicts_with = "bot")]
    bots: String,
    /// One bot spec, whole (commas inside it stay part of it); repeat for
    /// seat 2. Instead of --bots.
    #[arg(long = "bot", value_name = "SPEC")]
    bot: Vec<BotSpec>,
    /// Swap the bots' seats every other game (odd game ids).
    #[arg(long)]
    swap: bool,
    /// Paired games: games 2k and 2k+1 share a seed (the same 翻棋 deal, the
    /// same deployment draws) with the seats swapped. Implies --swap.
    #[arg(long)]
    paired: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Games each worker keeps going at once, stepped in turn (the output
    /// does not depend on it); 0 = automatic: 192 for net bots, whose
    /// positions the net evaluates in batches across games, else 1.
    #[arg(long, value_name = "N", default_value_t = junqi_selfplay::DEFAULT_IN_FLIGHT)]
    in_flight: usize,
    /// Run seed; game i plays from a seed derived from (seed, i).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output directory (games/, samples/, run.json). Re-running the same
    /// command resumes an interrupted run.
    #[arg(long, value_name = "DIR", required_unless_present = "no_write")]
    out: Option<PathBuf>,
    /// Positions per game written to samples/: a number (chosen uniformly
    /// among the game's plies; 0 = none) or `all`.
    #[arg(long, value_name = "K|all", default_value = "all")]
    samples_per_game: SamplesPerGame,
    /// Games per shard file (default: about 32 shards, 256 to 10,000 games each).
    #[arg(long, value_name = "N")]
    shard_games: Option<u64>,
    /// Play only part I of N (0 ≤ I < N) of the run: the shards s with
    /// s % N == I. N processes (on one machine or many) with parts 0/N …
    /// N-1/N play the same games as one run; `junqi merge` joins them.
    #[arg(long, value_name = "I/N")]
    part: Option<junqi_selfplay::Part>,
    /// Play (and encode samples) but write nothing: to measure the cost of writing.
    #[arg(long, conflicts_with = "out")]
    no_write: bool,
    /// Start the games from these openings in turn (one JFEN position or one
    /// deal seed per line; `#` comments), as the arena's --openings: e.g. the
    /// endings of earlier games, so a teacher's games reach them. Recorded in
    /// run.json; each game's moves and samples still come from its own seed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "siguo"])]
    openings: Option<PathBuf>,
    /// Four-player games (四国军棋): --bots A,B names two teams' bots (A plays
    /// armies 0 and 2, B armies 1 and 3; every deal is played twice, the
    /// teams swapped), --rules the mode (anqi, shuangming, quanming) or a
    /// four-player rules file. Bots: random, greedy, heuristic, mcts:N.
    /// Writes run.json, games/ and samples/ (the four-player samples:
    /// docs/data.md); resumes when re-run and plays --part I/N like a
    /// two-player run.
    #[arg(long, conflicts_with_all = ["config", "bot", "swap", "paired", "no_write", "resign_threshold"])]
    siguo: bool,
    #[command(flatten)]
    resign: ResignArgs,
    #[command(flatten)]
    rules: RulesArgs,
}

/// Resignation: off unless `--resign-threshold` is given.
#[derive(clap::Args)]
struct ResignArgs {
    /// Let a bot resign when its own value estimate (search or net, in
    /// [-1, 1]) stays below this; bots without one (random, greedy,
    /// heuristic) never resign.
    #[arg(long, value_name = "V", allow_hyphen_values = true)]
    resign_threshold: Option<f64>,
    /// Decisions in a row below the threshold before it resigns.
    #[arg(long, value_name = "N", default_value_t = Resign::default().consecutive, requires = "resign_threshold")]
    resign_consecutive: u32,
    /// No resignation before this ply.
    #[arg(long, value_name = "PLY", default_value_t = Resign::default().min_ply, requires = "resign_threshold")]
    resign_min_ply: u32,
    /// Fraction of games played to the end anyway, to count false resignations.
    #[arg(long, value_name = "F", default_value_t = Resign::default().playthrough, requires = "resign_threshold")]
    resign_playthrough: f64,
}

impl ResignArgs {
    fn resign(&self) -> Option<Resign> {
        self.resign_threshold.map(|threshold| Resign {
            threshold,
            consecutive: self.resign_consecutive,
            min_ply: self.resign_min_ply,
            playthrough: self.resign_playthrough,
        })
    }
}

/// The run's config from the flags.
fn config_from_flags(args: &Args) -> Result<Config> {
    let mode = if args.rules.rules.is_none() { Some(Mode::Fanqi) } else { None };
    let rules = args.rules.resolve(mode)?;
    let specs = crate::commands::arena::bot_list(args.bot.is_empty().then_some(args.bots.as_str()), &args.bot)?;
    let bots: [&BotSpec; 2] = match specs.as_slice() {
        [one] => [one, one],
        [a, b] => [a, b],
        _ => bail!("--bots/--bot take one or two bot specs (seat 1, seat 2), got {}", specs.len()),
    };
    let games = args.games.expect("clap requires --games without --config");
    let mut config = Config::new(rules, games, bots, args.seed)?
        .with_samples(args.samples_per_game)
        .with_swap(args.swap)
        .with_resign(args.resign.resign());
    if let Some(n) = args.shard_games {
        config = config.with_shard_games(n);
    }
    let openings = crate::commands::arena::read_openings(args.openings.as_deref(), &rules)?;
    Ok(config.with_pairs(args.paired).with_openings(openings))
}

/// `--config FILE`: a run's config as JSON (checked when the run is prepared).
fn config_file(path: &std::path::Path) -> Result<Config> {
    let text = junqi_core::read_text(path).with_context(|| format!("--config {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("--config {}: not a self-play config", path.display()))
}

/// `--siguo`: a four-player run.
fn run_siguo(args: &Args, threads: usize) -> Result<()> {
    let rules = super::perft::siguo_rules(&args.rules, None)?;
    let specs = junqi_bots::split_bot_list(&args.bots);
    let bots: [String; 2] = match specs.as_slice() {
        [one] => [one.clone(), one.clone()],
        [a, b] => [a.clone(), b.clone()],
        _ => bail!("--siguo --bots takes one or two bots (team A, team B), got {}", specs.len()),
    };
    let games = args.games.expect("clap requires --games without --config");
    let mut config =
        junqi_selfplay::SiguoConfig::new(rules, games, bots, args.seed)?.with_samples(args.samples_per_game);
    if let Some(n) = args.shard_games {
        config = config.with_shard_games(n)?;
    }
    let out = args.out.as_deref().expect("clap requires --out without --no-write");
    let start = std::time::Instant::now();
    let layout = junqi_selfplay::Layout { games: config.games, shard_games: config.shard_games };
    let mut live = Live::start(threads, layout.part_games(args.part), 0)?;
    live.options.part = args.part;
    let result = junqi_selfplay::run_siguo(&config, out, &live.options);
    live.finish();
    let s = result?;
    for note in &s.notes {
        eprintln!("note: {note}");
    }
    let of = args.part.map_or(String::new(), |p| format!(" of part {p}"));
    let mut w = std::io::stdout().lock();
    if s.games == 0 && !s.interrupted {
        writeln!(w, "nothing to do: all {} games{of} are already in {}", s.games_total, out.display())?;
        return Ok(());
    }
    if s.games_complete > s.games {
        eprintln!("resumed: {} of {} games{of} were already complete", s.games_complete - s.games, s.games_total);
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let pct = |p: f64| 100.0 * p / s.games.max(1) as f64;
    writeln!(
        w,
        "played {} four-player games, {} plies, {} samples in {secs:.2} s on {threads} thread(s): {:.0} plies/s",
        s.games,
        s.plies,
        s.samples,
        s.plies as f64 / secs
    )?;
    writeln!(
        w,
        "results: team {} {:.1} ({:.1}%), team {} {:.1} ({:.1}%); {} draws",
        config.bots[0],
        s.points[0],
        pct(s.points[0]),
        config.bots[1],
        s.points[1],
        pct(s.points[1]),
        s.games - s.decided
    )?;
    let d = dataset_stats(out)?;
    writeln!(
        w,
        "{}{}: {} of {} games in {} of {} shards; samples/ {} rows",
        out.display(),
        args.part.map_or(String::new(), |p| format!(" (part {p}; join the parts with `junqi merge`)")),
        s.games_complete,
        s.games_total,
        s.shards_complete,
        s.shards_total,
        d.samples
    )?;
    if s.interrupted {
        return Err(Interrupted(format!(
            "interrupted: {} of {} games in complete shards; run the same command again to resume",
            s.games_complete, s.games_total
        ))
        .into());
    }
    Ok(())
}

pub fn run(args: Args) -> Result<()> {
    if let Some(dir) = &args.out {
        junqi_engine::log_to(dir); // engines' stderr and traffic logs
    }
    let threads = crate::commands::arena::threads(args.threads)?;
    if args.siguo {
        return run_siguo(&args, threads);
    }
    junqi_selfplay::limits::in_range("--in-flight", args.in_flight, 0, junqi_selfplay::limits::MAX_IN_FLIGHT)
        .map_err(anyhow::Error::msg)?;
    let config = match &args.config {
        Some(path) => config_file(path)?,
        None => config_from_flags(&args)?,
    };
    let plan = prepare_part(config, args.out.as_deref(), args.part)?;
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    let total = plan.games_total();
    if plan.pending.is_empty() {
        let of = args.part.map_or(String::new(), |p| format!(" of part {p}"));
        match &args.out {
            Some(out) => {
                writeln!(std::io::stdout(), "nothing to do: all {total} games{of} are already in {}", out.display())?
            }
            // Without --out only a part can have nothing to play.
            None => writeln!(
                std::io::stdout(),
                "nothing to do: {} holds no games (fewer shards than parts)",
                describe_part(args.part)
            )?,
        }
        return Ok(());
    }
    if plan.complete_games > 0 {
        eprintln!(
            "resuming: {} of {} shards ({} games) already complete",
            plan.shards_total() - plan.pending.len() as u64,
            plan.shards_total(),
            plan.complete_games
        );
    }

    let mut live = Live::start(threads, total, plan.complete_games)?;
    live.options.in_flight = args.in_flight;
    let result = plan.run(&live.options);
    live.finish();
    let summary = result?;

    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "played {} games, {} plies, {} samples in {:.2} s on {threads} thread(s): {} games/s, {:.0} plies/s",
        summary.games_played,
        summary.plies,
        summary.samples,
        secs,
        crate::live::si(summary.games_played as f64 / secs),
        summary.plies as f64 / secs
    )?;
    let nets = junqi_net::shared_stats();
    if nets.requests > 0 {
        writeln!(
            out,
            "nets: {} positions asked ({:.1} per ply), {:.1}% from the cache, {} forward passes in batches of {:.1} on average ({:.1} per ply); {} games in flight per thread",
            nets.requests,
            nets.requests as f64 / summary.plies.max(1) as f64,
            100.0 * nets.cache_hit_rate(),
            nets.positions,
            nets.mean_batch(),
            nets.positions as f64 / summary.plies.max(1) as f64,
            // A shard's games are all a worker has: fewer than in_flight when shards are small.
            (summary.in_flight as u64).min(plan.config.shard_games),
        )?;
    }
    let t = &summary.tally;
    if t.games > 0 {
        let pct = |points: f64| 100.0 * points / t.games as f64;
        let bots = &plan.config.bots;
        let name =
            |i: usize| if bots[0] == bots[1] { format!("{} (player {})", bots[i], i + 1) } else { bots[i].to_string() };
        writeln!(
            out,
            "results: {} {:.1} ({:.1}%), {} {:.1} ({:.1}%); {} draws; seat 1 scored {:.1}%",
            name(0),
            t.points(0),
            pct(t.points(0)),
            name(1),
            t.points(1),
            pct(t.points(1)),
            t.draws,
            pct(t.seat1_points()),
        )?;
        if plan.config.resign.is_some() {
            writeln!(out, "{}", t.resign)?;
        }
    }
    match &plan.out {
        Some(dir) => {
            let s = dataset_stats(dir)?;
            let per = |bytes: u64, rows: u64, what: &str| {
                if rows == 0 {
                    String::new()
                } else {
                    format!(" ({:.1} bytes/{what})", bytes as f64 / rows as f64)
                }
            };
            writeln!(
                out,
                "{}{}: {} of {total} games in {} of {} shards; games/ {} bytes{}, samples/ {} rows, {} bytes{}",
                dir.display(),
                args.part.map_or(String::new(), |p| format!(" (part {p}; join the parts with `junqi merge`)")),
                s.games,
                s.shards,
                summary.shards_total,
                s.games_bytes,
                per(s.games_bytes, s.games, "game"),
                s.samples,
                s.samples_bytes,
                per(s.samples_bytes, s.samples, "sample"),
            )?;
        }
        None => writeln!(out, "nothing written (--no-write)")?,
    }
    if summary.interrupted {
        return Err(Interrupted(format!(
            "interrupted: {} of {total} games in complete shards; run the same command again to resume",
            summary.games_complete
        ))
        .into());
    }
    Ok(())
}
