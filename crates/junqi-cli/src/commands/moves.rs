//! `junqi moves`: legal moves of one position, or of each JFEN line on stdin.

use crate::rules_arg::RulesArgs;
use anyhow::Result;
use junqi_core::MoveList;
use std::io::Write;

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
    if let Some(text) = &args.position {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let pos = args.rules.position(text)?;
        pos.legal_moves(&mut list);
        for m in &list {
            writeln!(out, "{m}")?;
        }
        out.flush()?;
        return Ok(());
    }
    super::answer_stdin_lines(
        |line| {
            args.rules.position(line)?.legal_moves(&mut list);
            Ok(list.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "))
        },
        "",
    )
}
