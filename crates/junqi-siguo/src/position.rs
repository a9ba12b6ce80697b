//! The four-player game state (docs/rules.md §10.5–§10.9): pieces of four
//! armies, legal-move generation into a buffer, combat through the
//! two-player combat function, an army's end, skipped turns, the team
//! result and the draw counters.

use crate::board::{tables, Army, Node, NodeKind, NodeSet, Team, NODES};
use crate::rules::{RailTurns, Rules, TurnOrder};
use junqi_core::piece::{Kind, KINDS};
use junqi_core::position::{combat, CombatOutcome};
use std::fmt;
use std::str::FromStr;

/// A piece: the army it belongs to and its kind (the two-player kinds, §2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub army: Army,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(army: Army, kind: Kind) -> Piece {
        Piece { army, kind }
    }
}

/// A move `from → to`, written `sc6-ms` (§10.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Node,
    pub to: Node,
}

impl Move {
    pub const fn new(from: Node, to: Node) -> Move {
        Move { from, to }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

/// Why a move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error("invalid move `{0}`: expected <from>-<to> such as sc6-ms")]
    Shape(String),
    #[error("invalid move: {0}")]
    Node(#[from] crate::board::ParseNodeError),
}

impl FromStr for Move {
    type Err = ParseMoveError;
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let (a, b) = s.trim().split_once('-').ok_or_else(|| ParseMoveError::Shape(s.to_string()))?;
        Ok(Move::new(a.parse()?, b.parse()?))
    }
}

/// The buffer legal moves are written into; reuse one to avoid allocating.
#[derive(Clone, Debug, Default)]
pub struct MoveList(Vec<Move>);

impl MoveList {
    pub fn new() -> MoveList {
        MoveList(Vec::with_capacity(256))
    }
    pub fn clear(&mut self) {
        self.0.clear();
    }
    pub fn push(&mut self, m: Move) {
        self.0.push(m);
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn as_slice(&self) -> &[Move] {
        &self.0
    }
    pub fn contains(&self, m: Move) -> bool {
        self.0.contains(&m)
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.0[i]
    }
}

/// What a move did, with the true kinds (the referee's view).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    Move {
        piece: Piece,
    },
    /// `outcome` is `Bounced` when `commander_hits_mine = false` stopped a 司令 at a mine (§10.11).
    Attack {
        attacker: Piece,
        defender: Piece,
        outcome: CombatOutcome,
    },
}

/// Why an army ended (§10.8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndCause {
    /// Its flag was captured.
    FlagCaptured,
    /// It had no legal move when its turn came.
    NoLegalMove,
}

/// Why the game ended (§10.8, §10.9).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// Both armies of the losing team ended.
    TeamEliminated,
    /// The army to move had no legal move and neither had any other army left: a draw.
    NoLegalMoveAnywhere,
    /// `quiet` reached `no_progress_plies`: a draw.
    QuietPlies,
    /// `ply` reached `max_plies`: a draw.
    MaxPlies,
}

impl Termination {
    pub const fn name(self) -> &'static str {
        match self {
            Termination::TeamEliminated => "team_eliminated",
            Termination::NoLegalMoveAnywhere => "no_legal_move_anywhere",
            Termination::QuietPlies => "quiet_plies",
            Termination::MaxPlies => "max_plies",
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Team>,
    pub termination: Termination,
}

impl Outcome {
    /// `1-0` (team A, armies 0 and 2, wins), `0-1` (team B) or `1/2-1/2`.
    pub const fn result_str(&self) -> &'static str {
        match self.winner {
            Some(Team::A) => "1-0",
            Some(Team::B) => "0-1",
            None => "1/2-1/2",
        }
    }
    /// Score of `team`: 1, ½ or 0.
    pub fn score(&self, team: Team) -> f64 {
        match self.winner {
            Some(w) if w == team => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

/// Why a move could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("illegal move {0}")]
    Illegal(Move),
    #[error("the game is over ({0})")]
    GameOver(&'static str),
}

/// A four-player position: the whole truth (every piece's kind), the army
/// to move, the armies that ended, the counters and the result once decided.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) rules: Rules,
    combat_rules: junqi_core::Rules,
    pub(crate) board: [Option<Piece>; NODES],
    pub(crate) counts: [[u8; KINDS]; 4],
    pub(crate) ended: [Option<EndCause>; 4],
    pub(crate) turn: Army,
    pub(crate) quiet: u32,
    pub(crate) ply: u32,
    pub(crate) outcome: Option<Outcome>,
}

impl Position {
    /// An empty board, army 0 to move, nobody ended.
    pub fn empty(rules: Rules) -> Position {
        Position {
            rules,
            combat_rules: rules.combat_rules(),
            board: [None; NODES],
            counts: [[0; KINDS]; 4],
            ended: [None; 4],
            turn: Army::ALL[0],
            quiet: 0,
            ply: 0,
            outcome: None,
        }
    }

    /// Put a piece on a node, replacing whatever stood there (for building
    /// positions; call [`Position::settle`] when done).
    pub fn put(&mut self, node: Node, piece: Piece) {
        self.remove(node);
        self.board[node.index()] = Some(piece);
        self.counts[piece.army.index()][piece.kind.index()] += 1;
    }

    fn remove(&mut self, node: Node) {
        if let Some(p) = self.board[node.index()].take() {
            self.counts[p.army.index()][p.kind.index()] -= 1;
        }
    }

    // ---- accessors ----

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The army to move; after the game ends, the army that moved last, or
    /// (when nobody could move) the army whose turn it was. Never an ended army.
    pub fn turn(&self) -> Army {
        self.turn
    }
    /// Plies since a piece last left the board (§10.9).
    pub fn quiet(&self) -> u32 {
        self.quiet
    }
    /// Moves played so far; skipped turns are not plies (§10.9).
    pub fn ply(&self) -> u32 {
        self.ply
    }
    pub fn piece_at(&self, node: Node) -> Option<Piece> {
        self.board[node.index()]
    }
    /// Why `army` ended, or `None` while it plays.
    pub fn ended(&self, army: Army) -> Option<EndCause> {
        self.ended[army.index()]
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn is_game_over(&self) -> bool {
        self.outcome.is_some()
    }
    pub fn count(&self, army: Army, kind: Kind) -> u8 {
        self.counts[army.index()][kind.index()]
    }
    /// Every piece with its node, lowest node first.
    pub fn pieces(&self) -> impl Iterator<Item = (Node, Piece)> + '_ {
        Node::all().filter_map(move |n| self.board[n.index()].map(|p| (n, p)))
    }
    pub fn piece_count(&self) -> usize {
        self.board.iter().flatten().count()
    }
    /// 司令阵亡，军旗亮开 (§10.8): once `army`'s 司令 has left the board, the
    /// node of its flag is public; this returns it then, `None` otherwise.
    pub fn revealed_flag(&self, army: Army) -> Option<Node> {
        if self.count(army, Kind::Commander) != 0 {
            return None;
        }
        self.pieces().find(|(_, p)| p.army == army && p.kind == Kind::Flag).map(|(n, _)| n)
    }

    /// The army that moves after `army` in the turn order, skipping ended armies.
    pub fn next_army(&self, army: Army) -> Army {
        let mut a = army;
        for _ in 0..4 {
            a = match self.rules.turn_order {
                TurnOrder::Counterclockwise => a.next(),
                TurnOrder::Clockwise => a.prev(),
            };
            if self.ended[a.index()].is_none() {
                return a;
            }
        }
        army
    }

    // ---- move generation (§10.6) ----

    #[inline]
    fn flies(&self, kind: Kind) -> bool {
        kind == Kind::Engineer || (kind == Kind::Bomb && self.rules.bomb_flies)
    }

    /// May a piece of `mover` end its move on `to`: empty, or an enemy piece outside a camp.
    #[inline]
    fn may_enter(&self, mover: Army, to: Node) -> bool {
        match self.board[to.index()] {
            None => true,
            Some(p) => p.army.team() != mover.team() && to.kind() != NodeKind::Camp,
        }
    }

    #[inline]
    fn is_empty(&self, n: Node) -> bool {
        self.board[n.index()].is_none()
    }

    /// Run along `ray`: every empty node, then the first occupied one if it may be attacked.
    fn run(&self, mover: Army, ray: &[Node], out: &mut NodeSet) {
        for &n in ray {
            if self.is_empty(n) {
                out.insert(n);
            } else {
                if self.may_enter(mover, n) {
                    out.insert(n);
                }
                return;
            }
        }
    }

    /// Every node the piece on `from` may move to.
    pub fn destinations(&self, from: Node, out: &mut NodeSet) {
        *out = NodeSet::EMPTY;
        let Some(piece) = self.board[from.index()] else { return };
        if !piece.kind.is_movable() || (self.rules.hq_locked && from.kind() == NodeKind::Headquarters) {
            return;
        }
        let t = tables(self.rules.palace_arcs);
        for &n in &t.adjacent[from.index()] {
            if self.may_enter(piece.army, n) {
                out.insert(n);
            }
        }
        if !t.railway.contains(from) {
            return;
        }
        if self.flies(piece.kind) {
            // Engineer flight: flood fill over empty railway nodes.
            let mut seen = NodeSet::EMPTY;
            seen.insert(from);
            let mut stack = [from; NODES];
            let mut top = 1;
            while top > 0 {
                top -= 1;
                let u = stack[top];
                for &v in &t.rail_adjacent[u.index()] {
                    if seen.contains(v) {
                        continue;
                    }
                    seen.insert(v);
                    if self.is_empty(v) {
                        out.insert(v);
                        stack[top] = v;
                        top += 1;
                    } else if self.may_enter(piece.army, v) {
                        out.insert(v);
                    }
                }
            }
            return;
        }
        for ray in &t.rays[from.index()] {
            self.run(piece.army, ray, out);
            if self.rules.rail_turns == RailTurns::OneTurn {
                // One change of line at an empty node, never back the way it came.
                let mut prev = from;
                for &n in ray {
                    if !self.is_empty(n) {
                        break;
                    }
                    for ray2 in &t.rays[n.index()] {
                        if ray2[0] != prev {
                            self.run(piece.army, ray2, out);
                        }
                    }
                    prev = n;
                }
            }
        }
        out.remove(from);
    }

    /// Does `army` have a legal move? (Every legal move's first node is a
    /// neighbour, so looking one edge away is enough.)
    pub fn has_move(&self, army: Army) -> bool {
        let t = tables(self.rules.palace_arcs);
        self.pieces().any(|(from, p)| {
            p.army == army
                && p.kind.is_movable()
                && !(self.rules.hq_locked && from.kind() == NodeKind::Headquarters)
                && t.adjacent[from.index()].iter().any(|&n| self.may_enter(army, n))
        })
    }

    /// The moves `army` could make on this board, whoever is to move.
    pub fn moves_of(&self, army: Army, out: &mut MoveList) {
        out.clear();
        let mut dest = NodeSet::EMPTY;
        for from in Node::all() {
            match self.board[from.index()] {
                Some(p) if p.army == army => {}
                _ => continue,
            }
            self.destinations(from, &mut dest);
            for to in dest.iter() {
                out.push(Move::new(from, to));
            }
        }
    }

    /// Legal moves of the army to move, written into `out` (cleared first);
    /// none once the game is over.
    pub fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        if self.outcome.is_none() {
            self.moves_of(self.turn, out);
        }
    }

    // ---- playing ----

    /// Play `mv` if it is legal.
    pub fn play(&mut self, mv: Move) -> Result<Effect, PlayError> {
        if let Some(o) = self.outcome {
            return Err(PlayError::GameOver(o.result_str()));
        }
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        if !list.contains(mv) {
            return Err(PlayError::Illegal(mv));
        }
        Ok(self.play_unchecked(mv))
    }

    /// The position after `mv` (play into a copy).
    pub fn played(&self, mv: Move) -> Position {
        let mut next = self.clone();
        next.play_unchecked(mv);
        next
    }

    /// Play a move from [`Position::legal_moves`] of this position.
    pub fn play_unchecked(&mut self, mv: Move) -> Effect {
        let (from, to) = (mv.from, mv.to);
        let attacker = self.board[from.index()].expect("a move from an empty node");
        let effect = match self.board[to.index()] {
            None => {
                self.board[to.index()] = self.board[from.index()].take();
                self.quiet += 1;
                Effect::Move { piece: attacker }
            }
            Some(defender) => {
                let outcome = if defender.kind == Kind::Mine
                    && attacker.kind == Kind::Commander
                    && !self.rules.commander_hits_mine
                {
                    CombatOutcome::Bounced
                } else {
                    combat(&self.combat_rules, attacker.kind, defender.kind, true)
                };
                match outcome {
                    CombatOutcome::AttackerWon => {
                        self.remove(to);
                        self.board[to.index()] = self.board[from.index()].take();
                    }
                    CombatOutcome::DefenderWon | CombatOutcome::Scouted => self.remove(from),
                    CombatOutcome::BothRemoved => {
                        self.remove(from);
                        self.remove(to);
                    }
                    CombatOutcome::FlagCaptured => {
                        self.remove(to);
                        if attacker.kind == Kind::Bomb {
                            self.remove(from);
                        } else {
                            self.board[to.index()] = self.board[from.index()].take();
                        }
                        self.end_army(defender.army, EndCause::FlagCaptured);
                    }
                    CombatOutcome::Bounced => {}
                }
                if outcome == CombatOutcome::Bounced {
                    self.quiet += 1;
                } else {
                    self.quiet = 0;
                }
                Effect::Attack { attacker, defender, outcome }
            }
        };
        self.ply += 1;
        if !self.decide_team() {
            let next = self.next_army(self.turn);
            self.settle_from(next);
        }
        effect
    }

    /// An army ends (全军覆没, §10.8): all its pieces leave the board.
    fn end_army(&mut self, army: Army, cause: EndCause) {
        for n in 0..NODES {
            if self.board[n].is_some_and(|p| p.army == army) {
                self.remove(Node::new_unchecked(n));
            }
        }
        self.ended[army.index()] = Some(cause);
        self.quiet = 0;
    }

    /// §10.8: a team whose armies have both ended loses.
    fn decide_team(&mut self) -> bool {
        for team in Team::BOTH {
            if team.armies().iter().all(|a| self.ended[a.index()].is_some()) {
                self.outcome = Some(Outcome { winner: Some(team.other()), termination: Termination::TeamEliminated });
                return true;
            }
        }
        false
    }

    /// Give the turn to `army` (or the next live army after it), ending every
    /// army that has no legal move when its turn comes, then check the draw
    /// counters (§10.8, §10.9 in order).
    fn settle_from(&mut self, army: Army) {
        let mut army = if self.ended[army.index()].is_some() { self.next_army(army) } else { army };
        loop {
            if self.has_move(army) {
                self.turn = army;
                break;
            }
            if Army::ALL.iter().all(|&a| self.ended[a.index()].is_some() || !self.has_move(a)) {
                self.turn = army;
                self.outcome = Some(Outcome { winner: None, termination: Termination::NoLegalMoveAnywhere });
                return;
            }
            self.end_army(army, EndCause::NoLegalMove);
            if self.decide_team() {
                // The turn stays with the army that moved last: an ended army is never to move.
                return;
            }
            army = self.next_army(army);
        }
        if self.quiet >= self.rules.no_progress_plies {
            self.outcome = Some(Outcome { winner: None, termination: Termination::QuietPlies });
        } else if self.ply >= self.rules.max_plies {
            self.outcome = Some(Outcome { winner: None, termination: Termination::MaxPlies });
        }
    }

    /// Decide a hand-built or freshly read position as if its army to move
    /// had just received the turn (§10.8, §10.9).
    pub fn settle(&mut self) {
        self.outcome = None;
        if !self.decide_team() {
            self.settle_from(self.turn);
        }
    }

    /// Set the army to move (for building positions; call [`Position::settle`] after).
    pub fn set_turn(&mut self, army: Army) {
        self.turn = army;
    }
    /// Mark an army as ended without removing anything (for building positions).
    pub fn set_ended(&mut self, army: Army, cause: Option<EndCause>) {
        self.ended[army.index()] = cause;
    }
    /// Set the counters (for building positions).
    pub fn set_counters(&mut self, quiet: u32, ply: u32) {
        self.quiet = quiet;
        self.ply = ply;
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::notation::to_notation(self))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::notation::to_notation(self))
    }
}
