//! `junqi perft`: leaf count of the action tree (the engine sees face-down kinds);
//! with `--siguo`, of the four-player game (docs/rules.md §10).

use crate::rules_arg::RulesArgs;
use anyhow::{bail, Result};
use junqi_core::{MoveList, Position};
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The position (JFEN; with --siguo the four-player notation of docs/rules.md §10.4).
    #[arg(long)]
    position: String,
    /// The four-player game (四国军棋): --rules names its mode (anqi, shuangming,
    /// quanming; default: the position's) and --set takes its options (§10.11).
    #[arg(long)]
    siguo: bool,
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
    if args.siguo {
        return run_siguo(&args);
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

/// The four-player rules for a position line: the mode of `--rules` (or of
/// the line) with the `--set` options.
pub fn siguo_rules(rules: &RulesArgs, mode: Option<&str>) -> Result<junqi_siguo::Rules> {
    // `--rules` may be a mode or a rules file: compare the mode it loads.
    let Some(given) = &rules.rules else {
        return Ok(junqi_siguo::Rules::preset_with(mode.unwrap_or("anqi"), &rules.set)?);
    };
    let loaded = junqi_siguo::Rules::preset_with(given, &rules.set)?;
    match mode {
        Some(found) if loaded.mode.name() != found => {
            bail!("--rules gives {} but the position is {found}", loaded.mode.name())
        }
        _ => Ok(loaded),
    }
}

fn run_siguo(args: &Args) -> Result<()> {
    let rules = siguo_rules(&args.rules, args.position.split_whitespace().nth(1))?;
    let pos = junqi_siguo::parse(&args.position, rules)?;
    if args.divide && args.depth > 0 {
        let mut list = junqi_siguo::MoveList::new();
        pos.legal_moves(&mut list);
        for &m in &list {
            writeln!(std::io::stdout(), "{m}: {}", junqi_siguo::perft(&pos.played(m), args.depth - 1))?;
        }
    }
    writeln!(std::io::stdout(), "{}", junqi_siguo::perft(&pos, args.depth))?;
    Ok(())
}
