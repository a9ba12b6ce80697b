//! `junqi regress`: the versioned strength suite, optionally against a stored baseline.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use crate::CheckFailed;
use anyhow::{Context, Result};
use junqi_arena::regress::{compare, run_suite, Suite, SuiteResult};
use junqi_arena::write_atomic;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The suite file (bots, games, seeds), e.g. configs/regress/v1.toml.
    #[arg(long, value_name = "FILE", default_value = "configs/regress/v1.toml")]
    suite: PathBuf,
    /// A stored result of the same suite to compare with; exit 1 when a bot's
    /// Elo fell by more than the suite's margin.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output directory: the arenas' games and regress.json. Re-running the same command resumes.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let suite = Suite::from_file(&args.suite)?;
    let baseline: Option<SuiteResult> = match &args.baseline {
        Some(path) => {
            let text = junqi_core::read_text(path).with_context(|| format!("{}", path.display()))?;
            Some(serde_json::from_str(&text).with_context(|| format!("{}: not a regress result", path.display()))?)
        }
        None => None,
    };
    let total: u64 = suite.arena_configs()?.iter().map(|c| c.total_games()).fold(0, u64::saturating_add);
    let threads = threads(args.threads)?;
    // The suite directory's lock, held to the end (each arena in it has its own).
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let _lock = junqi_selfplay::RunLock::hold(&args.out)?;
    let live = Live::start(threads, total, 0)?;
    let result = run_suite(&suite, &args.out, &live.options, |a, b| live.set_label(&format!("{a} vs {b}")));
    live.finish();
    let result = result.map_err(|e| interrupted(e, &args.out))?;
    let path = args.out.join("regress.json");
    write_atomic(&path, &serde_json::to_string_pretty(&result)?)?;
    let mut out = std::io::stdout().lock();
    for a in &result.arenas {
        writeln!(out, "{}", a.to_markdown())?;
    }
    writeln!(out, "written: {}", path.display())?;
    let Some(baseline) = baseline else { return Ok(()) };
    let comparisons = compare(&result, &baseline)?;
    writeln!(out, "\nAgainst the baseline ({}; margin {} Elo):\n", baseline.code_version, suite.margin_elo)?;
    writeln!(out, "| mode | bot | baseline Elo | now | change [95% CI] | verdict |")?;
    writeln!(out, "|---|---|---:|---:|---|---|")?;
    for c in &comparisons {
        writeln!(
            out,
            "| {} | {} | {:+.0} | {:+.0} | {} | {} |",
            c.mode,
            c.bot,
            c.baseline,
            c.now,
            c.change.show(),
            if c.failed { "FAIL: dropped beyond the margin" } else { "ok" }
        )?;
    }
    if comparisons.iter().any(|c| c.failed) {
        return Err(CheckFailed.into());
    }
    Ok(())
}
