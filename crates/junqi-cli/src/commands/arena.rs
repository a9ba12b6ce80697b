//! `junqi arena`: paired games among bots, crosstable and Bradley–Terry Elo.

use crate::live::Live;
use crate::rules_arg::RulesArgs;
use crate::Interrupted;
use anyhow::{Context, Result};
use junqi_arena::arena::{run_arena, ArenaConfig, Schedule};
use junqi_arena::{write_atomic, ArenaError};
use junqi_core::Mode;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Bots, comma-separated, e.g. `random,greedy,mcts:sims=200` (a bot's
    /// parameters stay with it). `random`, when present, is anchored at 0 Elo.
    #[arg(long, value_name = "A,B,...")]
    bots: String,
    /// Games per pair of bots: each seed is played twice with the seats swapped, so it must be even.
    #[arg(long, value_name = "N", default_value_t = 100)]
    games_per_pair: u64,
    /// `round-robin` (every bot against every other) or `gauntlet` (the first bot against the rest).
    #[arg(long, default_value = "round-robin")]
    schedule: Schedule,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the deals and deployments; every matchup plays the same seeds.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output directory: arena.json, matchups/*/games/*.parquet, results.json, results.md.
    /// Re-running the same command resumes.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    rules: RulesArgs,
}

/// Worker threads: the flag, or one per core.
pub fn threads(flag: Option<usize>) -> Result<usize> {
    let n = flag.unwrap_or_else(|| junqi_selfplay::workers(0));
    junqi_selfplay::limits::in_range("--threads", n, 1, junqi_selfplay::limits::MAX_THREADS).map_err(anyhow::Error::msg)
}

/// Turn an interrupted run into exit 130 with how to resume.
pub fn interrupted(e: ArenaError, out: &Path) -> anyhow::Error {
    match e {
        ArenaError::Interrupted => Interrupted(format!(
            "interrupted: finished shards are kept in {}; run the same command again to resume",
            out.display()
        ))
        .into(),
        e => e.into(),
    }
}

pub fn run(args: Args) -> Result<()> {
    let mode = if args.rules.rules.is_none() { Some(Mode::Fanqi) } else { None };
    let rules = args.rules.resolve(mode)?;
    let bots = junqi_bots::split_bot_list(&args.bots);
    let config = ArenaConfig::new(rules, &bots, args.schedule, args.games_per_pair, args.seed)?;
    let threads = threads(args.threads)?;
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", &args.out.display()))?;
    let _lock = junqi_selfplay::RunLock::hold(&args.out)?;
    let live = Live::start(threads, config.total_games(), 0)?;
    let report = run_arena(&config, &args.out, &live.options, |a, b| live.set_label(&format!("{a} vs {b}")));
    live.finish();
    let report = report.map_err(|e| interrupted(e, &args.out))?;
    let markdown = report.to_markdown();
    write_atomic(&args.out.join("results.json"), &serde_json::to_string_pretty(&report)?)?;
    write_atomic(&args.out.join("results.md"), &markdown)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{markdown}")?;
    writeln!(out, "written: {} and results.md", args.out.join("results.json").display())?;
    Ok(())
}
