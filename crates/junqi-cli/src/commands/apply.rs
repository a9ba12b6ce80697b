//! `junqi apply`: play moves from a position; print the resulting JFEN and
//! result; with `--siguo`, of the four-player game (docs/rules.md §10).

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
    /// Space-separated moves, e.g. "a6a7 c7c6" (a flip is written c6c6); with
    /// --siguo "sc6-ms ea4-ea5".
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    /// The four-player game (四国军棋): positions in the notation of
    /// docs/rules.md §10.4, moves as `sc6-ms`; --rules names its mode (anqi,
    /// shuangming, quanming; default: the position's) or a four-player rules
    /// file, and --set takes its options (§10.11). The result line adds the
    /// termination: `result: 1-0 (team_eliminated)`.
    #[arg(long)]
    siguo: bool,
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

/// The four-player [`apply`]: the position after `moves`, and its result line.
fn apply_siguo(rules: &RulesArgs, text: &str, moves: &str) -> Result<String> {
    let mut pos = super::siguo_board::position(rules, text)?;
    let list: Vec<&str> = moves.split_whitespace().collect();
    for (i, text) in list.iter().enumerate() {
        let which = format!("move {} of {} (`{}`)", i + 1, list.len(), text);
        let mv: junqi_siguo::Move = text.parse().map_err(|e| anyhow!("{which}: {e}"))?;
        pos.play(mv).map_err(|e| anyhow!("{which}: {e} in {pos}"))?;
    }
    Ok(format!("{pos}\nresult: {}", super::siguo_board::result_word(&pos)))
}

/// The output of one `<position> | <moves>` request.
fn answer(args: &Args, text: &str, moves: &str) -> Result<String> {
    if args.siguo {
        return apply_siguo(&args.rules, text, moves);
    }
    let pos = apply(&args.rules, text, moves)?;
    Ok(format!("{pos}\nresult: {}", result_word(&pos)))
}

pub fn run(args: Args) -> Result<()> {
    if args.position.is_none() && !args.moves.is_empty() {
        anyhow::bail!("--moves needs --position; on stdin write `<JFEN> | <moves>` per line");
    }
    if let Some(text) = &args.position {
        writeln!(std::io::stdout(), "{}", answer(&args, text, &args.moves)?)?;
        return Ok(());
    }
    super::answer_stdin_lines(
        |line| {
            let (jfen, moves) = line.split_once('|').unwrap_or((line, ""));
            answer(&args, jfen, moves)
        },
        "\nresult: error",
    )
}
