//! The four-player board of docs/rules.md §10.1–§10.3: 129 nodes (four army
//! zones of 30 nodes and the 9 nodes of the 九宫), their edges, the railway
//! lines and the corner arcs (弧形线).
//!
//! Node index: army `s` (0–3) owns indices `30 s … 30 s + 29`, where the
//! offset inside the zone is the two-player index of the same square in
//! Red's half (`(rank - 1) * 5 + file`, so `a1` = 0 … `e6` = 29); the centre
//! follows: 120 the middle palace, 121 + s the edge palace in front of army
//! `s`, 125 + s the corner palace between army `s` and army `s + 1`.
//!
//! The zone's nodes, kinds and edges come from `junqi_core::board` (an army
//! zone *is* the two-player half); only the centre, the links into it and the
//! arcs are defined here, as railway lines (§10.3). Every table is built once
//! from those two sources.

use junqi_core::board::{self as core_board, Square};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// Number of nodes on the four-player board.
pub const NODES: usize = 129;
/// Nodes in one army zone.
pub const ZONE: usize = 30;
/// Index of the middle palace (中宫).
pub const MIDDLE: usize = 120;

/// One of the four armies (seats). Seats 0 and 2 are one team, 1 and 3 the other (§10.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Army(u8);

impl Army {
    pub const ALL: [Army; 4] = [Army(0), Army(1), Army(2), Army(3)];
    /// Army `i` (0–3).
    pub const fn new(i: usize) -> Option<Army> {
        if i < 4 {
            Some(Army(i as u8))
        } else {
            None
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// 0 for armies 0 and 2, 1 for armies 1 and 3.
    #[inline]
    pub const fn team(self) -> Team {
        if self.0.is_multiple_of(2) {
            Team::A
        } else {
            Team::B
        }
    }
    /// The army opposite (the ally).
    pub const fn ally(self) -> Army {
        Army((self.0 + 2) % 4)
    }
    /// The next army counterclockwise (to this army's right at the table).
    pub const fn next(self) -> Army {
        Army((self.0 + 1) % 4)
    }
    /// The next army clockwise.
    pub const fn prev(self) -> Army {
        Army((self.0 + 3) % 4)
    }
    /// `s`, `e`, `n`, `w`: where the army sits (south, east, north, west), the
    /// letter of §10.4's node names and position notation.
    pub const fn letter(self) -> char {
        match self.0 {
            0 => 's',
            1 => 'e',
            2 => 'n',
            _ => 'w',
        }
    }
    pub fn from_letter(c: char) -> Option<Army> {
        match c {
            's' => Some(Army(0)),
            'e' => Some(Army(1)),
            'n' => Some(Army(2)),
            'w' => Some(Army(3)),
            _ => None,
        }
    }
}

impl fmt::Display for Army {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "army {} ({})", self.0, self.letter())
    }
}

/// The two teams: A = armies 0 and 2, B = armies 1 and 3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Team {
    A = 0,
    B = 1,
}

impl Team {
    pub const BOTH: [Team; 2] = [Team::A, Team::B];
    pub const fn other(self) -> Team {
        match self {
            Team::A => Team::B,
            Team::B => Team::A,
        }
    }
    pub const fn armies(self) -> [Army; 2] {
        match self {
            Team::A => [Army(0), Army(2)],
            Team::B => [Army(1), Army(3)],
        }
    }
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// What a node is (§10.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// 兵站: an ordinary node (every centre node is one).
    Post,
    /// 行营: a camp.
    Camp,
    /// 大本营: a headquarters.
    Headquarters,
}

/// One of the 129 nodes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(u8);

impl Node {
    pub const fn new(index: usize) -> Option<Node> {
        if index < NODES {
            Some(Node(index as u8))
        } else {
            None
        }
    }
    #[inline]
    pub(crate) const fn new_unchecked(index: usize) -> Node {
        Node(index as u8)
    }
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The node of `army`'s zone on the two-player square `square` of Red's
    /// half (`a1` … `e6`); `None` for a square above rank 6.
    pub fn in_zone(army: Army, square: Square) -> Option<Node> {
        (square.index() < ZONE).then(|| Node((army.index() * ZONE + square.index()) as u8))
    }
    /// The middle palace (中宫).
    pub const fn middle() -> Node {
        Node(MIDDLE as u8)
    }
    /// The edge palace (边宫) in front of `army`.
    pub const fn edge_palace(army: Army) -> Node {
        Node((121 + army.index()) as u8)
    }
    /// The corner palace (角宫) between `army` and the next army counterclockwise.
    pub const fn corner_palace(army: Army) -> Node {
        Node((125 + army.index()) as u8)
    }
    /// The army whose zone holds the node; `None` in the centre.
    pub const fn zone(self) -> Option<Army> {
        if (self.0 as usize) < 4 * ZONE {
            Some(Army(self.0 / ZONE as u8))
        } else {
            None
        }
    }
    /// For a zone node, its two-player square (Red's half: `a1` … `e6`).
    pub fn square(self) -> Option<Square> {
        self.zone().and_then(|_| Square::new(self.index() % ZONE))
    }
    pub fn all() -> impl Iterator<Item = Node> {
        (0..NODES).map(Node::new_unchecked)
    }

    /// Where the node is drawn: column `x` and row `y` of the 17 × 17 grid of
    /// §10.1 (row 0 at the top; army 0 sits at the bottom).
    pub fn coords(self) -> (i32, i32) {
        let (base, turns) = match self.zone() {
            Some(army) => {
                let sq = self.index() % ZONE;
                let (file, rank) = ((sq % 5) as i32, (sq / 5 + 1) as i32);
                ((file - 2, 9 - rank), army.index())
            }
            None => match self.index() {
                MIDDLE => ((0, 0), 0),
                i if i < 125 => ((0, 2), i - 121),
                i => ((2, 2), i - 125),
            },
        };
        let (mut dx, mut dy) = base;
        for _ in 0..turns {
            (dx, dy) = (dy, -dx);
        }
        (8 + dx, 8 + dy)
    }

    /// 兵站, 行营 or 大本营.
    pub fn kind(self) -> NodeKind {
        match self.square() {
            Some(sq) if core_board::CAMPS & sq.bit() != 0 => NodeKind::Camp,
            Some(sq) if core_board::HEADQUARTERS & sq.bit() != 0 => NodeKind::Headquarters,
            _ => NodeKind::Post,
        }
    }
}

impl fmt::Display for Node {
    /// §10.4: `sa1` … `we6` in the zones; `m`, `ms`…`mw`, `mse`…`mws` in the centre.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.zone(), self.square()) {
            (Some(army), Some(sq)) => write!(f, "{}{}", army.letter(), sq),
            _ => match self.index() {
                MIDDLE => f.write_str("m"),
                i if i < 125 => write!(f, "m{}", Army((i - 121) as u8).letter()),
                i => {
                    let a = Army((i - 125) as u8);
                    write!(f, "m{}{}", a.letter(), a.next().letter())
                }
            },
        }
    }
}

/// Why a node name was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid node `{0}`: expected an army letter (s, e, n, w) and a square a1-e6 like `sc6`, or a centre node (m, ms, me, mn, mw, mse, men, mnw, mws)")]
pub struct ParseNodeError(pub String);

impl FromStr for Node {
    type Err = ParseNodeError;
    fn from_str(s: &str) -> Result<Node, ParseNodeError> {
        let err = || ParseNodeError(s.to_string());
        let mut chars = s.chars();
        let first = chars.next().ok_or_else(err)?;
        let rest = chars.as_str();
        if first == 'm' {
            let letters: Vec<Army> = rest.chars().map(Army::from_letter).collect::<Option<_>>().ok_or_else(err)?;
            return match letters[..] {
                [] => Ok(Node::middle()),
                [a] => Ok(Node::edge_palace(a)),
                [a, b] if a.next() == b => Ok(Node::corner_palace(a)),
                _ => Err(err()),
            };
        }
        let army = Army::from_letter(first).ok_or_else(err)?;
        let sq: Square = rest.parse().map_err(|_| err())?;
        Node::in_zone(army, sq).ok_or_else(err)
    }
}

/// A railway line (§10.3): a named sequence of nodes along which a piece
/// runs straight (a corner arc continues the line it joins).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub name: String,
    pub nodes: Vec<Node>,
}

fn zone_node(army: Army, name: &str) -> Node {
    Node::in_zone(army, name.parse().expect("a square")).expect("a square of ranks 1-6")
}

fn file_nodes(army: Army, file: char, ranks: impl Iterator<Item = u32>) -> Vec<Node> {
    ranks.map(|r| zone_node(army, &format!("{file}{r}"))).collect()
}

/// The railway lines of §10.3, in the order of its table; with
/// `palace_arcs` (§10.11) the two arcs between opposite corner palaces follow.
pub fn build_lines(palace_arcs: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    for army in Army::ALL {
        for rank in [2, 6] {
            let nodes = "abcde".chars().map(|f| zone_node(army, &format!("{f}{rank}"))).collect();
            lines.push(Line { name: format!("{} rank {rank}", army.letter()), nodes });
        }
    }
    for army in [Army(0), Army(1)] {
        let across = army.ally();
        // The a-file, through the centre, into the opposite army's e-file.
        let mut nodes = file_nodes(army, 'a', 2..=6);
        nodes.extend([Node::corner_palace(army.prev()), Node::edge_palace(army.prev()), Node::corner_palace(across)]);
        nodes.extend(file_nodes(across, 'e', (2..=6).rev()));
        lines.push(Line { name: format!("{} a-file to {} e-file", army.letter(), across.letter()), nodes });
        let nodes = vec![
            zone_node(army, "c6"),
            Node::edge_palace(army),
            Node::middle(),
            Node::edge_palace(across),
            zone_node(across, "c6"),
        ];
        lines.push(Line { name: format!("{} c6 to {} c6", army.letter(), across.letter()), nodes });
        let mut nodes = file_nodes(army, 'e', 2..=6);
        nodes.extend([Node::corner_palace(army), Node::edge_palace(army.next()), Node::corner_palace(army.next())]);
        nodes.extend(file_nodes(across, 'a', (2..=6).rev()));
        lines.push(Line { name: format!("{} e-file to {} a-file", army.letter(), across.letter()), nodes });
    }
    for army in Army::ALL {
        let mut nodes = file_nodes(army, 'e', 2..=6);
        nodes.extend(file_nodes(army.next(), 'a', (2..=6).rev()));
        lines.push(Line { name: format!("arc {}e6-{}a6", army.letter(), army.next().letter()), nodes });
    }
    if palace_arcs {
        for army in [Army(0), Army(1)] {
            let nodes = vec![Node::corner_palace(army), Node::corner_palace(army.ally())];
            lines.push(Line { name: format!("palace arc {}-{}", nodes[0], nodes[1]), nodes });
        }
    }
    lines
}

/// A set of nodes (129 bits).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeSet([u64; 3]);

impl NodeSet {
    pub const EMPTY: NodeSet = NodeSet([0; 3]);
    #[inline]
    pub fn insert(&mut self, n: Node) {
        self.0[n.index() >> 6] |= 1u64 << (n.index() & 63);
    }
    #[inline]
    pub fn remove(&mut self, n: Node) {
        self.0[n.index() >> 6] &= !(1u64 << (n.index() & 63));
    }
    #[inline]
    pub fn contains(&self, n: Node) -> bool {
        self.0[n.index() >> 6] >> (n.index() & 63) & 1 != 0
    }
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 3]
    }
    /// The nodes, lowest index first.
    pub fn iter(&self) -> impl Iterator<Item = Node> + '_ {
        (0..3).flat_map(move |w| {
            let mut bits = self.0[w];
            std::iter::from_fn(move || {
                if bits == 0 {
                    None
                } else {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    Some(Node::new_unchecked(w * 64 + i))
                }
            })
        })
    }
}

impl FromIterator<Node> for NodeSet {
    fn from_iter<I: IntoIterator<Item = Node>>(iter: I) -> NodeSet {
        let mut s = NodeSet::EMPTY;
        for n in iter {
            s.insert(n);
        }
        s
    }
}

/// The precomputed tables of one board (with or without the palace arcs).
#[derive(Debug)]
pub struct Tables {
    pub lines: Vec<Line>,
    /// Railway nodes.
    pub railway: NodeSet,
    /// One-step neighbours over road and railway edges (§10.2).
    pub adjacent: Vec<Vec<Node>>,
    /// Railway neighbours (engineer flight, §10.6).
    pub rail_adjacent: Vec<Vec<Node>>,
    /// Road neighbours.
    pub road_adjacent: Vec<Vec<Node>>,
    /// Straight rays from each railway node: the nodes beyond it along one
    /// line in one direction, nearest first (deduplicated).
    pub rays: Vec<Vec<Vec<Node>>>,
}

fn build(palace_arcs: bool) -> Tables {
    let lines = build_lines(palace_arcs);
    let mut railway = NodeSet::EMPTY;
    let mut rail_adjacent = vec![Vec::new(); NODES];
    let mut rays: Vec<Vec<Vec<Node>>> = vec![Vec::new(); NODES];
    let link = |t: &mut Vec<Vec<Node>>, a: Node, b: Node| {
        if !t[a.index()].contains(&b) {
            t[a.index()].push(b);
        }
    };
    for line in &lines {
        for w in line.nodes.windows(2) {
            link(&mut rail_adjacent, w[0], w[1]);
            link(&mut rail_adjacent, w[1], w[0]);
        }
        for (i, &n) in line.nodes.iter().enumerate() {
            railway.insert(n);
            let up: Vec<Node> = line.nodes[i + 1..].to_vec();
            let down: Vec<Node> = line.nodes[..i].iter().rev().copied().collect();
            for ray in [up, down] {
                if !ray.is_empty() && !rays[n.index()].contains(&ray) {
                    rays[n.index()].push(ray);
                }
            }
        }
    }
    let mut road_adjacent = vec![Vec::new(); NODES];
    for army in Army::ALL {
        for a in 0..ZONE {
            for b in core_board::squares(core_board::ROAD_ADJACENT[a] & core_board::RED_HALF) {
                road_adjacent[army.index() * ZONE + a].push(Node::new_unchecked(army.index() * ZONE + b.index()));
            }
        }
    }
    let mut adjacent = vec![Vec::new(); NODES];
    for n in 0..NODES {
        let mut all: Vec<Node> = road_adjacent[n].iter().chain(&rail_adjacent[n]).copied().collect();
        all.sort();
        all.dedup();
        adjacent[n] = all;
        rail_adjacent[n].sort();
        road_adjacent[n].sort();
    }
    Tables { lines, railway, adjacent, rail_adjacent, road_adjacent, rays }
}

/// The tables of the standard board, or of the board with `palace_arcs` (§10.11).
pub fn tables(palace_arcs: bool) -> &'static Tables {
    static PLAIN: OnceLock<Tables> = OnceLock::new();
    static ARCS: OnceLock<Tables> = OnceLock::new();
    if palace_arcs {
        ARCS.get_or_init(|| build(true))
    } else {
        PLAIN.get_or_init(|| build(false))
    }
}
