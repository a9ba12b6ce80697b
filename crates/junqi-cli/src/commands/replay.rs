//! `junqi replay`: re-play stored games through the rules engine and report
//! every game whose stored record disagrees with it.

use crate::CheckFailed;
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A self-play output directory, or its games/ folder.
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Only this game id.
    #[arg(long, value_name = "ID")]
    game: Option<u64>,
}

pub fn run(args: Args) -> Result<()> {
    let report = junqi_selfplay::replay_dir(&args.games, args.game)?;
    let mut out = std::io::stdout().lock();
    for (id, file, why) in &report.mismatches {
        let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        writeln!(out, "mismatch: game {id} ({name}): {why}")?;
    }
    for id in &report.duplicates {
        writeln!(out, "duplicate: game {id} is stored more than once")?;
    }
    let bad = report.mismatches.len() + report.duplicates.len();
    if bad == 0 {
        writeln!(out, "replayed {} game(s): all match", report.games)?;
        Ok(())
    } else {
        writeln!(
            out,
            "replayed {} game(s): {} mismatch(es), {} duplicate(s)",
            report.games,
            report.mismatches.len(),
            report.duplicates.len()
        )?;
        Err(CheckFailed.into())
    }
}
