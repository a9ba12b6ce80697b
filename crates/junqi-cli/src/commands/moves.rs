//! `junqi moves`: legal moves of one position, or of each JFEN line on stdin.

use crate::rules_arg::RulesArgs;
use crate::AlreadyReported;
use anyhow::Result;
use junqi_core::MoveList;
use std::io::{BufRead, Write};

#[derive(clap::Args)]
pub struct Args {
    /// The position (JFEN). Without it, JFEN lines are read from stdin and each
    /// gets one output line of space-separated moves.
    #[arg(long)]
    position: Option<String>,
    #[command(flatten)]
    rules: RulesArgs,
}

pub fn run(args: Args) -> Result<()> {
    let mut list = MoveList::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Some(text) = &args.position {
        let pos = args.rules.position(text)?;
        pos.legal_moves(&mut list);
        for m in &list {
            writeln!(out, "{m}")?;
        }
        return Ok(());
    }
    let mut failed = false;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        match args.rules.position(&line) {
            Ok(pos) => {
                pos.legal_moves(&mut list);
                let text: Vec<String> = list.iter().map(|m| m.to_string()).collect();
                writeln!(out, "{}", text.join(" "))?;
            }
            Err(e) => {
                failed = true;
                writeln!(out, "error: {e:#}")?;
            }
        }
    }
    out.flush()?;
    if failed {
        return Err(AlreadyReported.into());
    }
    Ok(())
}
