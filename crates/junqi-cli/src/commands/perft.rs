//! `junqi perft`: leaf count of the action tree (the engine sees face-down kinds).

use crate::rules_arg::RulesArgs;
use anyhow::{bail, Result};
use junqi_core::{MoveList, Position};
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The position (JFEN).
    #[arg(long)]
    position: String,
    /// Plies to search.
    #[arg(long)]
    depth: u32,
    /// Also print the count below each root action.
    #[arg(long)]
    divide: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

/// Leaf nodes at exactly `depth` plies (finished games end a branch early and count 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            perft(&child, depth - 1)
        })
        .sum()
}

pub fn run(args: Args) -> Result<()> {
    if args.depth > 12 {
        bail!("--depth {} is too deep (at most 12)", args.depth);
    }
    let pos = args.rules.position(&args.position)?;
    if args.divide && args.depth > 0 {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for &m in &list {
            let mut child = pos.clone();
            child.play_unchecked(m);
            writeln!(std::io::stdout(), "{m}: {}", perft(&child, args.depth - 1))?;
        }
    }
    writeln!(std::io::stdout(), "{}", perft(&pos, args.depth))?;
    Ok(())
}
