//! Helpers: hand-built positions and the text of docs/rules.md §10.

use junqi_core::piece::Kind;
use junqi_siguo::{Army, Node, NodeSet, Piece, Position, Rules};

pub fn node(name: &str) -> Node {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

pub fn army(i: usize) -> Army {
    Army::new(i).unwrap()
}

pub fn kind(c: char) -> Kind {
    Kind::from_letter(c).unwrap()
}

/// A position from `(node, army, kind letter)` triples, `turn` to move, settled.
pub fn build(rules: Rules, pieces: &[(&str, usize, char)], turn: usize) -> Position {
    let mut pos = Position::empty(rules);
    for &(n, a, k) in pieces {
        pos.put(node(n), Piece::new(army(a), kind(k)));
    }
    pos.set_turn(army(turn));
    pos.settle();
    pos
}

/// Where the piece on `from` may move, as node names.
pub fn dests(pos: &Position, from: &str) -> Vec<String> {
    let mut out = NodeSet::EMPTY;
    pos.destinations(node(from), &mut out);
    out.iter().map(|n| n.to_string()).collect()
}

pub fn reaches(pos: &Position, from: &str, to: &str) -> bool {
    dests(pos, from).iter().any(|d| d == to)
}

/// docs/rules.md from `## 10.` to the end.
pub fn section_10() -> &'static str {
    let doc = include_str!("../../../docs/rules.md");
    doc.split("## 10. ").nth(1).expect("docs/rules.md has §10")
}

/// The subsection `### 10.n` of §10.
pub fn subsection(n: u32) -> &'static str {
    let marker = format!("### 10.{n} ");
    let s = section_10().split(&marker).nth(1).unwrap_or_else(|| panic!("no §10.{n}"));
    s.split("\n### ").next().unwrap()
}

/// The rows of the markdown tables in a text, as trimmed cells.
pub fn table_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.trim_start().starts_with('|') && !l.contains("---"))
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The backticked words of a cell.
pub fn backticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}
