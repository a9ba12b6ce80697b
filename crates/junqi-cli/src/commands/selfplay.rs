//! `junqi selfplay`: games between two bots on worker threads, written to the
//! `games/` and `samples/` Parquet datasets of `--out` (see docs/data.md).

use crate::rules_arg::RulesArgs;
use crate::Interrupted;
use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use junqi_core::Mode;
use junqi_selfplay::{dataset_stats, prepare, Config, RunOptions, SamplesPerGame};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Games to play (game ids 0..N).
    #[arg(long, value_name = "N")]
    games: u64,
    /// Bots of seat 1 and seat 2, e.g. `random,greedy` or `greedy:epsilon=0.1,random`;
    /// one spec plays both seats. Bots: random, greedy, heuristic.
    #[arg(long, value_name = "A,B", default_value = "random,random")]
    bots: String,
    /// Swap the bots' seats every other game (odd game ids).
    #[arg(long)]
    swap: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
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
    /// Play (and encode samples) but write nothing: to measure the cost of writing.
    #[arg(long, conflicts_with = "out")]
    no_write: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

/// `1234567` → `1.23M`.
fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s / 60 % 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

pub fn run(args: Args) -> Result<()> {
    let mode = if args.rules.rules.is_none() { Some(Mode::Fanqi) } else { None };
    let rules = args.rules.resolve(mode)?;
    let specs = junqi_bots::split_bot_list(&args.bots);
    let bots: [&str; 2] = match specs.as_slice() {
        [one] => [one, one],
        [a, b] => [a, b],
        _ => bail!("--bots takes one or two bot specs (seat 1, seat 2), got {}", specs.len()),
    };
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    let mut config =
        Config::new(rules, args.games, bots, args.seed)?.with_samples(args.samples_per_game).with_swap(args.swap);
    if let Some(n) = args.shard_games {
        config = config.with_shard_games(n);
    }
    let plan = prepare(config, args.out.as_deref())?;
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    let total = plan.config.games;
    if plan.pending.is_empty() {
        writeln!(
            std::io::stdout(),
            "nothing to do: all {total} games are already in {}",
            args.out.as_ref().unwrap().display()
        )?;
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

    let options = RunOptions { threads, ..Default::default() };
    // Ctrl-C: stop cleanly (shards in flight are abandoned); a second one exits at once.
    let stop = options.stop.clone();
    let pressed = Arc::new(AtomicBool::new(false));
    ctrlc::set_handler(move || {
        if pressed.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        stop.store(true, Ordering::SeqCst);
    })?;

    let target =
        if std::io::stderr().is_terminal() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
    let bar = ProgressBar::with_draw_target(Some(total), target).with_position(plan.complete_games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let done = Arc::new(AtomicBool::new(false));
    let ticker = {
        let (bar, done, progress, stop) = (bar.clone(), done.clone(), options.progress.clone(), options.stop.clone());
        let (start, base) = (Instant::now(), plan.complete_games);
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                let games = progress.games.load(Ordering::Relaxed);
                let plies = progress.plies.load(Ordering::Relaxed);
                let rate = games as f64 / secs;
                let left = total.saturating_sub(base + games) as f64;
                let eta = if rate > 0.0 { duration(left / rate) } else { "?".into() };
                let state = if stop.load(Ordering::Relaxed) { "  stopping…" } else { "" };
                bar.set_position(base + games);
                bar.set_message(format!("{} games/s  {} plies/s  ETA {eta}{state}", si(rate), si(plies as f64 / secs)));
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let result = plan.run(&options);
    done.store(true, Ordering::Relaxed);
    let _ = ticker.join();
    bar.finish_and_clear();
    let summary = result?;

    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "played {} games, {} plies, {} samples in {:.2} s on {threads} thread(s): {:.0} games/s, {:.0} plies/s",
        summary.games_played,
        summary.plies,
        summary.samples,
        secs,
        summary.games_played as f64 / secs,
        summary.plies as f64 / secs
    )?;
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
                "{}: {} of {total} games in {} of {} shards; games/ {} bytes{}, samples/ {} rows, {} bytes{}",
                dir.display(),
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
