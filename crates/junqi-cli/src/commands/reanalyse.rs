//! `junqi reanalyse`: relabel a stored four-player run's positions with
//! another bot's policy (docs/data.md, "Reanalysis"), written as a samples
//! dataset that `junqi train` reads.

use crate::live::Live;
use crate::Interrupted;
use anyhow::{bail, Result};
use junqi_selfplay::{ReanalyseConfig, Seats};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A four-player self-play output (`selfplay --siguo`), or its games/ folder.
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// The bot whose policy becomes the target: the search (`mcts`,
    /// `mcts:sims=800`), a net (`net:FILE`), any four-player bot.
    #[arg(long, value_name = "SPEC")]
    bot: String,
    /// Whose positions: `a` (team A, the first bot of `--bots`), `b`, or `all`.
    #[arg(long, value_name = "a|b|all", default_value = "all")]
    seats: String,
    /// Only positions whose quiet counter (plies since a piece was lost) is at least N.
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_quiet: u32,
    /// The target is one-hot on the bot's choice instead of its policy (for a
    /// search whose visit shares are flat: the rollout search `mcts` spreads its
    /// simulations almost evenly over the moves and chooses by their values).
    #[arg(long)]
    one_hot: bool,
    /// Also keep the run's own samples (its samples/ folder) of the chosen
    /// seats below --min-quiet, so the output is a whole dataset for those
    /// seats: the players' targets until the game stalls, the bot's after.
    #[arg(long)]
    keep_stored: bool,
    /// Seeds the bot's random streams (one per game).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write run.json and samples/ (resumed when it holds the same reanalysis).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

pub fn run(args: Args) -> Result<()> {
    let seats = match args.seats.as_str() {
        "a" | "A" => Seats::A,
        "b" | "B" => Seats::B,
        "all" => Seats::All,
        other => bail!("--seats `{other}`: expected a, b or all"),
    };
    let config = ReanalyseConfig::new(&args.bot, seats, args.min_quiet, args.seed)?
        .with_one_hot(args.one_hot)
        .with_keep_stored(args.keep_stored);
    let threads = crate::commands::arena::threads(args.threads)?;
    let start = std::time::Instant::now();
    let live = Live::start(threads, source_games(&args.data), 0)?;
    let result = junqi_selfplay::run_reanalyse(
        &args.data,
        &args.out,
        &config,
        threads,
        &live.options.progress.games,
        &live.options.stop,
    );
    live.finish();
    let s = result?;
    let mut w = std::io::stdout().lock();
    if s.shards_resumed > 0 {
        eprintln!("resumed: {} shard(s) were already done", s.shards_resumed);
    }
    writeln!(
        w,
        "reanalysed {} games ({} shards) with {}: {} samples in {:.1} s; {}",
        s.games,
        s.shards,
        config.bot,
        s.samples,
        start.elapsed().as_secs_f64(),
        args.out.display()
    )?;
    if s.interrupted {
        return Err(Interrupted("interrupted: run the same command again to resume".into()).into());
    }
    Ok(())
}

/// The source run's game count (its run.json), for the progress bar; 0 when unknown.
fn source_games(data: &std::path::Path) -> u64 {
    let run = if data.ends_with("games") { data.join("../run.json") } else { data.join("run.json") };
    std::fs::read_to_string(run)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["config"]["games"].as_u64())
        .unwrap_or(0)
}
