//! The four-player game (四国军棋, docs/rules.md §10) for the terminal tools
//! `moves`, `apply`, `show` and `play` with `--siguo`: a position read under
//! `--rules`/`--set`, its result line, and the 129-node board drawn as text,
//! either the referee's truth or one seat's information set.

use super::perft::siguo_rules;
use crate::rules_arg::RulesArgs;
use anyhow::{Context, Result};
use junqi_core::piece::Kind;
use junqi_siguo::{tables, Army, Mode, Node, NodeKind, Position, SiguoInfoSet};

/// A four-player position (§10.4 notation) under `--rules` (a mode or a
/// four-player rules file; default: the position's mode) and `--set`.
pub fn position(rules: &RulesArgs, text: &str) -> Result<Position> {
    let text = text.trim();
    let rules = siguo_rules(rules, text.split_whitespace().nth(1))?;
    junqi_siguo::parse(text, rules).context("four-player position")
}

/// `result: …` value: `ongoing`, or `1-0`, `0-1`, `1/2-1/2` and the termination.
pub fn result_word(pos: &Position) -> String {
    pos.outcome().map_or("ongoing".to_string(), |o| format!("{} ({})", o.result_str(), o.termination.name()))
}

/// The Chinese name of the mode: 四国暗棋, 双明 or 全明.
pub fn mode_chinese(mode: Mode) -> &'static str {
    match mode {
        Mode::Anqi => "四国暗棋",
        Mode::Shuangming => "双明",
        Mode::Quanming => "全明",
    }
}

/// One character per kind, as a four-player board writes it: 司 军 师 旅 团
/// 营 连 排 工 (工兵) 炸 (炸弹) 雷 (地雷) 旗 (军旗).
pub fn glyph(kind: Kind) -> &'static str {
    match kind {
        Kind::Commander => "司",
        Kind::General => "军",
        Kind::Division => "师",
        Kind::Brigade => "旅",
        Kind::Regiment => "团",
        Kind::Battalion => "营",
        Kind::Company => "连",
        Kind::Platoon => "排",
        Kind::Engineer => "工",
        Kind::Bomb => "炸",
        Kind::Mine => "雷",
        Kind::Flag => "旗",
    }
}

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";

fn army_colour(army: Army) -> &'static str {
    ["\x1b[1;31m", "\x1b[1;34m", "\x1b[1;35m", "\x1b[1;32m"][army.index()]
}

/// The 17 × 17 grid of §10.1: the node drawn at each (row, column).
fn grid() -> [[Option<Node>; 17]; 17] {
    let mut g = [[None; 17]; 17];
    for n in Node::all() {
        let (x, y) = n.coords();
        g[y as usize][x as usize] = Some(n);
    }
    g
}

/// A margin label for a zone node: its army letter and the coordinate that
/// stays the same along a grid column (`along_column`) or row: the file of a
/// north or south zone's column, the rank of an east or west zone's column.
fn label(node: Node, along_column: bool) -> String {
    let (Some(army), Some(sq)) = (node.zone(), node.square()) else { return String::new() };
    let name = sq.to_string();
    let (file, rank) = name.split_at(1);
    let vertical = army.index() % 2 == 0;
    format!("{}{}", army.letter(), if along_column == vertical { file } else { rank })
}

/// Draw the four-player board: each grid point 5 columns; a piece as its
/// army letter (s, e, n, w) and kind ([`glyph`]) or `??` when the kind is not
/// known to the view; `( )` a camp (行营), `[ ]` a headquarters (大本营),
/// `+` an empty railway node, `.` an empty road node. The margins name the
/// zones' files and ranks (`sa` … `se` under the south zone, `s1` … `s6`
/// beside it, and so on round the board), so `sc6` is found at column `sc`,
/// row `s6`; the centre nodes are `m`, `ms me mn mw` and `mse men mnw mws`.
pub fn render_board(piece: impl Fn(Node) -> Option<(Army, Option<Kind>)>, palace_arcs: bool, color: bool) -> String {
    let paint = |code: &str, text: String| if color { format!("{code}{text}{RESET}") } else { text };
    let g = grid();
    let railway = &tables(palace_arcs).railway;
    let header = |top: bool| {
        let mut line = "    ".to_string();
        for x in 0..17 {
            let mut col = g.iter().filter_map(|row| row[x]).filter(|n| n.zone().is_some());
            let node = if top { col.next() } else { col.next_back() };
            line.push_str(&format!("{:^5}", node.map_or(String::new(), |n| label(n, true))));
        }
        line.trim_end().to_string() + "\n"
    };
    let mut out = header(true);
    for row in &g {
        let mut zone_nodes = row.iter().flatten().filter(|n| n.zone().is_some());
        let left = zone_nodes.next().map_or(String::new(), |&n| label(n, false));
        let right = zone_nodes.next_back().map_or(left.clone(), |&n| label(n, false));
        let mut line = format!("{left:>3} ");
        for cell in row {
            let Some(node) = *cell else {
                line.push_str("     ");
                continue;
            };
            let (open, close) = match node.kind() {
                NodeKind::Camp => ('(', ')'),
                NodeKind::Headquarters => ('[', ']'),
                NodeKind::Post => (' ', ' '),
            };
            let body = match piece(node) {
                Some((army, kind)) => {
                    paint(army_colour(army), format!("{}{}", army.letter(), kind.map_or("??", glyph)))
                }
                None if open != ' ' => "   ".to_string(),
                None => paint(DIM, format!(" {} ", if railway.contains(node) { '+' } else { '.' })),
            };
            line.push(open);
            line.push_str(&body);
            line.push(close);
        }
        out.push_str(format!("{line} {right}").trim_end());
        out.push('\n');
    }
    out.push_str(&header(false));
    out
}

/// The referee's board: every kind shown.
pub fn render_truth(pos: &Position, color: bool) -> String {
    render_board(|n| pos.piece_at(n).map(|p| (p.army, Some(p.kind))), pos.rules().palace_arcs, color)
}

/// The board as `info`'s seat knows it: a kind only where the seat knows it.
pub fn render_view(info: &SiguoInfoSet, color: bool) -> String {
    render_board(|n| info.army_at(n).map(|a| (a, info.known_kind(n))), info.rules().palace_arcs, color)
}

/// `-`, or the armies that ended and why (`e: flag captured`).
fn ended_list(ended: impl Fn(Army) -> Option<junqi_siguo::EndCause>) -> String {
    let list: Vec<String> = Army::ALL
        .iter()
        .filter_map(|&a| {
            ended(a).map(|c| {
                let why = match c {
                    junqi_siguo::EndCause::FlagCaptured => "flag captured",
                    junqi_siguo::EndCause::NoLegalMove => "no legal move",
                };
                format!("{}: {why}", a.letter())
            })
        })
        .collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

/// The line under a board: mode, army to move, ended armies, counters, result.
pub fn status_line(pos: &Position) -> String {
    let mut line = format!(
        "{} ({}), {} to move, ended: {}, quiet {}, ply {}",
        pos.rules().mode,
        mode_chinese(pos.rules().mode),
        pos.turn(),
        ended_list(|a| pos.ended(a)),
        pos.quiet(),
        pos.ply()
    );
    if let Some(o) = pos.outcome() {
        line.push_str(&format!(", result {} ({})", o.result_str(), o.termination.name()));
    }
    line
}

/// The same line from a seat's information set (all of it public).
pub fn view_status_line(info: &SiguoInfoSet) -> String {
    format!(
        "{} ({}), ply {}, quiet {}/{}, ended: {}, {} to move",
        info.mode(),
        mode_chinese(info.mode()),
        info.ply(),
        info.quiet(),
        info.rules().no_progress_plies,
        ended_list(|a| info.ended(a)),
        info.turn()
    )
}
