//! `junqi show`: the board in the terminal, in Chinese, with colours; with
//! `--siguo`, the four-player board (docs/rules.md §10).

use crate::rules_arg::RulesArgs;
use anyhow::Result;
use junqi_core::board::{CAMPS, HEADQUARTERS, RAILWAY};
use junqi_core::{Colour, Position, Square};
use std::io::IsTerminal;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The position (JFEN).
    #[arg(long)]
    position: String,
    /// Colour the pieces: auto (when stdout is a terminal), always or never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// The four-player game (四国军棋): the position in the notation of
    /// docs/rules.md §10.4, drawn whole (the referee's board); --rules names
    /// its mode or a four-player rules file, --set takes its options.
    #[arg(long)]
    siguo: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

const RED: &str = "\x1b[1;31m";
const BLACK: &str = "\x1b[1;34m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// Draw `pos`: the board, then a status line (mode, turn, counters, result).
pub fn render(pos: &Position, color: bool) -> String {
    let mut out = render_board(pos, color);
    let side = |seat| match pos.colour_of(seat) {
        Some(c) => c.chinese().to_string(),
        None => "colour not yet assigned".to_string(),
    };
    out.push_str(&format!(
        "{}, {} to move ({}), quiet {}, ply {}",
        pos.mode(),
        pos.turn(),
        side(pos.turn()),
        pos.quiet(),
        pos.ply()
    ));
    if let Some(o) = pos.outcome() {
        out.push_str(&format!(", result {} ({})", o.result_str(), o.termination.name()));
    }
    out.push('\n');
    out
}

/// Draw the board of `pos` (the truth, or a seat's [`junqi_core::InfoSet`]
/// view): each node is 8 columns; `( )` marks camps, `[ ]` headquarters,
/// `暗子` a face-down piece, `黑 ??` a piece whose colour is known but not its
/// kind (an enemy piece in a 暗棋 view), `=` railway ranks, `‖` the three
/// frontier crossings.
pub fn render_board(pos: &Position, color: bool) -> String {
    let paint = |code: &str, text: String| if color { format!("{code}{text}{RESET}") } else { text };
    let mut out = String::new();
    let files = "         a       b       c       d       e\n";
    out.push_str(files);
    for rank in (1..=12).rev() {
        let rail_rank = matches!(rank, 2 | 6 | 7 | 11);
        out.push_str(&format!("{:>3} {} ", rank, if rail_rank { '=' } else { ' ' }));
        for file in 0..5 {
            let sq = Square::from_coords(file, rank).unwrap();
            let (open, close) = if CAMPS & sq.bit() != 0 {
                ('(', ')')
            } else if HEADQUARTERS & sq.bit() != 0 {
                ('[', ']')
            } else {
                (' ', ' ')
            };
            let body = if !pos.is_occupied(sq) {
                if open == ' ' {
                    paint(DIM, format!("   {}    ", if RAILWAY & sq.bit() != 0 { '+' } else { '.' }))
                } else {
                    format!("{open}      {close}")
                }
            } else if pos.is_face_down(sq) {
                format!("{open}{} {close}", paint(DIM, " 暗子".to_string()))
            } else {
                match pos.piece_at(sq) {
                    Some(p) => {
                        let code = if p.colour == Colour::Red { RED } else { BLACK };
                        format!("{open}{}{close}", paint(code, format!("{}{}", p.colour.chinese(), p.kind.chinese())))
                    }
                    // Occupied, kind unknown to this view: its colour if known.
                    None => match pos.colour_at(sq) {
                        Some(c) => {
                            let code = if c == Colour::Red { RED } else { BLACK };
                            format!("{open}{}{close}", paint(code, format!("{} ?? ", c.chinese())))
                        }
                        None => format!("{open} ??   {close}"),
                    },
                }
            };
            out.push_str(&body);
        }
        out.push('\n');
        if rank == 7 {
            out.push_str("         ‖      山界     ‖      山界     ‖\n");
        }
    }
    out.push_str(files);
    out
}

pub fn run(args: Args) -> Result<()> {
    if args.siguo {
        use super::siguo_board::{position, render_truth, status_line};
        let pos = position(&args.rules, &args.position)?;
        let color = use_color(&args.color);
        writeln!(std::io::stdout(), "{}{}", render_truth(&pos, color), status_line(&pos))?;
        return Ok(());
    }
    let pos = args.rules.position(&args.position)?;
    write!(std::io::stdout(), "{}", render(&pos, use_color(&args.color)))?;
    Ok(())
}

/// `--color auto|always|never`: colour the output?
pub fn use_color(choice: &str) -> bool {
    match choice {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal(),
    }
}
