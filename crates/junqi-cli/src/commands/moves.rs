//! `junqi moves`: legal moves of one position, or of each JFEN line on stdin;
//! with `--siguo`, of the four-player game (docs/rules.md §10).

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
    /// The four-player game (四国军棋): positions in the notation of
    /// docs/rules.md §10.4, moves as `sc6-ms`; --rules names its mode (anqi,
    /// shuangming, quanming; default: the position's) or a four-player rules
    /// file, and --set takes its options (§10.11).
    #[arg(long)]
    siguo: bool,
    /// Print only the number of legal moves.
    #[arg(long)]
    count: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

/// The legal moves of one position line, as text.
fn legal(args: &Args, text: &str) -> Result<Vec<String>> {
    if args.siguo {
        let mut list = junqi_siguo::MoveList::new();
        super::siguo_board::position(&args.rules, text)?.legal_moves(&mut list);
        return Ok(list.iter().map(|m| m.to_string()).collect());
    }
    let mut list = MoveList::new();
    args.rules.position(text)?.legal_moves(&mut list);
    Ok(list.iter().map(|m| m.to_string()).collect())
}

pub fn run(args: Args) -> Result<()> {
    if let Some(text) = &args.position {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let moves = legal(&args, text)?;
        if args.count {
            writeln!(out, "{}", moves.len())?;
        }
        for m in moves.iter().filter(|_| !args.count) {
            writeln!(out, "{m}")?;
        }
        out.flush()?;
        return Ok(());
    }
    super::answer_stdin_lines(
        |line| {
            let moves = legal(&args, line)?;
            Ok(if args.count { moves.len().to_string() } else { moves.join(" ") })
        },
        "",
    )
}
