//! `junqi apply`: play moves from a position; print the resulting JFEN and result.

use crate::rules_arg::RulesArgs;
use anyhow::{anyhow, Result};
use junqi_core::{Move, Position};
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The position (JFEN). Without it, stdin lines `<JFEN> | <moves>` are read
    /// and each gets the same two output lines.
    #[arg(long)]
    position: Option<String>,
    /// Space-separated moves, e.g. "a6a7 c7c6" (a flip is written c6c6).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    #[command(flatten)]
    rules: RulesArgs,
}

/// `result: …` value of a position.
pub fn result_word(pos: &Position) -> &'static str {
    pos.outcome().map_or("ongoing", |o| o.result_str())
}

fn apply(rules: &RulesArgs, jfen: &str, moves: &str) -> Result<Position> {
    let mut pos = rules.position(jfen.trim())?;
    let list: Vec<&str> = moves.split_whitespace().collect();
    for (i, text) in list.iter().enumerate() {
        let which = format!("move {} of {} (`{}`)", i + 1, list.len(), text);
        let mv: Move = text.parse().map_err(|e| anyhow!("{which}: {e}"))?;
        pos.play(mv).map_err(|e| anyhow!("{which}: {e} in {pos}"))?;
    }
    Ok(pos)
}

pub fn run(args: Args) -> Result<()> {
    if args.position.is_none() && !args.moves.is_empty() {
        anyhow::bail!("--moves needs --position; on stdin write `<JFEN> | <moves>` per line");
    }
    if let Some(text) = &args.position {
        let pos = apply(&args.rules, text, &args.moves)?;
        writeln!(std::io::stdout(), "{pos}\nresult: {}", result_word(&pos))?;
        return Ok(());
    }
    super::answer_stdin_lines(
        |line| {
            let (jfen, moves) = line.split_once('|').unwrap_or((line, ""));
            let pos = apply(&args.rules, jfen, moves)?;
            Ok(format!("{pos}\nresult: {}", result_word(&pos)))
        },
        "\nresult: error",
    )
}
