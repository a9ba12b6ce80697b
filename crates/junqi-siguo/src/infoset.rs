//! Information sets per seat (docs/rules.md §10.10, §10.13): what one seat
//! of a four-player table may know, updated move by move from what the
//! referee announces to the whole table.
//!
//! * 四国暗棋: the seat knows its own pieces' kinds; of every other piece it
//!   knows the army and the node, and the kinds it may still be.
//! * 双明: as 四国暗棋, with the ally's pieces known too.
//! * 全明: everything.
//!
//! The referee's [`Announcement`] is the same for every seat: the move, who
//! moved, the ruling on an attack (attacker won, defender won, both lost, a
//! flag captured, a 司令 stopped at a mine), the flag shown when an army's 司令
//! leaves the board, the armies that ended, and the counters. A seat updates
//! from that alone, with the kinds it saw at the start, so no hidden kind can
//! enter its set. Kind sets start from the deployment rules (§10.5) and are
//! narrowed by moves (a mover is movable; a move no straight run makes was a
//! flier's), by rulings (every pair of kinds whose attack would have been
//! ruled otherwise is dropped, through the combat function the referee
//! uses), by 司令阵亡 (a piece lost with no flag shown was not the 司令; the
//! one lost when it is shown was), by shown flags and by counts per army.

use crate::board::{Army, Node, NODES};
use crate::position::{Effect, EndCause, Move, MoveList, Outcome, Piece, Position};
use crate::rules::{Mode, Rules};
use junqi_core::board::HEADQUARTERS;
use junqi_core::piece::{Colour, Kind, KindSet, ALL_KINDS, KINDS, MOVABLE};
use junqi_core::position::{combat, CombatOutcome};
use junqi_core::rules::MineRule;
use junqi_core::setup::{back_ranks, front_rank};
use std::sync::OnceLock;

/// How the referee rules on a move (§10.7), as the whole table hears it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ruling {
    /// A move onto an empty node.
    Move,
    /// The attacker won and took the node.
    AttackerWon,
    /// The attacker was removed.
    DefenderWon,
    /// Both pieces were removed.
    BothRemoved,
    /// The defender was a flag: its army ends. `capturer_removed` when the
    /// capturer (a bomb) left the board with it (seen at the table).
    FlagCaptured { capturer_removed: bool },
    /// `commander_hits_mine = false` stopped a 司令 at a mine: both stay.
    Stopped,
}

/// The ruling the referee gives when a piece of `attacker` kind attacks one of
/// `defender` kind under `rules`: the combat function of §4 (one source for
/// both games) with §10.7's stopped 司令.
pub fn ruling(rules: &Rules, attacker: Kind, defender: Kind) -> Ruling {
    ruling_table(rules)[attacker.index()][defender.index()]
}

fn ruling_with(core: &junqi_core::Rules, commander_hits_mine: bool, attacker: Kind, defender: Kind) -> Ruling {
    if defender == Kind::Mine && attacker == Kind::Commander && !commander_hits_mine {
        return Ruling::Stopped;
    }
    match combat(core, attacker, defender, true) {
        CombatOutcome::AttackerWon => Ruling::AttackerWon,
        CombatOutcome::DefenderWon | CombatOutcome::Scouted => Ruling::DefenderWon,
        CombatOutcome::BothRemoved => Ruling::BothRemoved,
        CombatOutcome::FlagCaptured => Ruling::FlagCaptured { capturer_removed: attacker == Kind::Bomb },
        CombatOutcome::Bounced => Ruling::Stopped,
    }
}

/// Every ruling under `rules`, by attacker and defender kind (only
/// `mine_rule` and `commander_hits_mine` matter: four tables, built once).
fn ruling_table(rules: &Rules) -> &'static [[Ruling; KINDS]; KINDS] {
    type Table = [[Ruling; KINDS]; KINDS];
    static TABLES: [OnceLock<Table>; 4] = [const { OnceLock::new() }; 4];
    let i = 2 * (rules.mine_rule == MineRule::Trade) as usize + rules.commander_hits_mine as usize;
    TABLES[i].get_or_init(|| {
        let core = rules.combat_rules();
        Kind::ALL.map(|x| Kind::ALL.map(|y| ruling_with(&core, rules.commander_hits_mine, x, y)))
    })
}

/// What the referee announces to the table after one move: the same for
/// every seat, and nothing a seat at a real table would not see or hear.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Announcement {
    pub mv: Move,
    pub mover: Army,
    pub ruling: Ruling,
    /// Per army: its 司令 left the board in this move (司令阵亡, §10.8), and
    /// where its flag stands, shown to every seat.
    pub flag_shown: [Option<Node>; 4],
    /// Per army: it ended in this move (全军覆没), and why; its pieces left.
    pub ended: [Option<EndCause>; 4],
    /// After the move: the army to move, the counters of §10.9, the result.
    pub turn: Army,
    pub quiet: u32,
    pub ply: u32,
    pub outcome: Option<Outcome>,
}

impl Announcement {
    /// The referee's announcement of `mv`, which took `before` to `after` with `effect`.
    pub fn new(before: &Position, mv: Move, effect: &Effect, after: &Position) -> Announcement {
        let ruling = match *effect {
            Effect::Move { .. } => Ruling::Move,
            Effect::Attack { attacker, defender, .. } => ruling(before.rules(), attacker.kind, defender.kind),
        };
        let mut flag_shown = [None; 4];
        let mut ended = [None; 4];
        for army in Army::ALL {
            let i = army.index();
            if before.ended(army).is_none() {
                ended[i] = after.ended(army);
            }
            if ended[i].is_none() && before.count(army, Kind::Commander) > 0 {
                flag_shown[i] = after.revealed_flag(army);
            }
        }
        Announcement {
            mv,
            mover: before.turn(),
            ruling,
            flag_shown,
            ended,
            turn: after.turn(),
            quiet: after.quiet(),
            ply: after.ply(),
            outcome: after.outcome(),
        }
    }
}

/// Everything one seat may know about a four-player game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SiguoInfoSet {
    seat: Army,
    rules: Rules,
    /// Per node: the army of the piece there and the kinds it may be (one
    /// kind for a piece the seat sees).
    board: [Option<(Army, KindSet)>; NODES],
    /// Per army: the kinds each of its removed pieces may have been (an
    /// ended army's list is emptied: nothing of it matters any more).
    removed: [Vec<KindSet>; 4],
    ended: [Option<EndCause>; 4],
    turn: Army,
    quiet: u32,
    ply: u32,
    outcome: Option<Outcome>,
}

/// Kinds that fly (§10.6): engineers, and bombs under `bomb_flies`.
fn fliers(rules: &Rules) -> KindSet {
    Kind::Engineer.bit() | if rules.bomb_flies { Kind::Bomb.bit() } else { 0 }
}

/// Kinds §10.5's deployment allows on `node` for `army` (a piece that has
/// not moved since the start stands where it was deployed).
fn deployable(rules: &Rules, army: Army, node: Node) -> KindSet {
    let Some(sq) = node.square().filter(|_| node.zone() == Some(army)) else {
        return ALL_KINDS & !(Kind::Flag.bit() | Kind::Mine.bit());
    };
    let mut set = ALL_KINDS;
    if HEADQUARTERS & sq.bit() == 0 {
        set &= !Kind::Flag.bit();
    }
    if back_ranks(Colour::Red) & sq.bit() == 0 {
        set &= !Kind::Mine.bit();
    }
    if front_rank(Colour::Red) & sq.bit() != 0 && !rules.bomb_front_rank {
        set &= !Kind::Bomb.bit();
    }
    set
}

fn single(set: KindSet) -> Option<Kind> {
    (set.count_ones() == 1).then(|| Kind::from_index(set.trailing_zeros() as usize)).flatten()
}

impl SiguoInfoSet {
    /// The information set of `seat` in `truth`, as the seat knows it when
    /// its knowledge starts there: the kinds it sees (§10.10) and, of the
    /// other pieces, their armies and nodes. At ply 0 the deployment rules
    /// narrow the hidden kinds; a later position promises no more than that
    /// flags and mines never move (they are not narrowed). Pieces missing
    /// from a live army were removed, the 司令 among them exactly when its
    /// flag is shown.
    pub fn new(truth: &Position, seat: Army) -> SiguoInfoSet {
        let rules = *truth.rules();
        let mut info = SiguoInfoSet {
            seat,
            rules,
            board: [None; NODES],
            removed: Default::default(),
            ended: Army::ALL.map(|a| truth.ended(a)),
            turn: truth.turn(),
            quiet: truth.quiet(),
            ply: truth.ply(),
            outcome: truth.outcome(),
        };
        let deployed = truth.ply() == 0;
        for (node, piece) in truth.pieces() {
            let set = if info.sees(piece.army) {
                piece.kind.bit()
            } else if deployed {
                deployable(&rules, piece.army, node)
            } else {
                ALL_KINDS
            };
            info.board[node.index()] = Some((piece.army, set));
        }
        for army in Army::ALL {
            if info.sees(army) || info.ended[army.index()].is_some() {
                continue;
            }
            let shown = truth.revealed_flag(army);
            if let Some(flag) = shown {
                info.board[flag.index()] = Some((army, Kind::Flag.bit()));
            }
            let on_board = info.pieces_of(army).count();
            let missing = 25usize.saturating_sub(on_board);
            let mut removed = vec![ALL_KINDS & !Kind::Flag.bit() & !Kind::Commander.bit(); missing];
            if let (Some(_), Some(first)) = (shown, removed.first_mut()) {
                *first = Kind::Commander.bit();
            }
            info.removed[army.index()] = removed;
            info.propagate(army);
        }
        info
    }

    /// The information set `army` would hold in `world`, a world drawn from
    /// this seat's set ([`SiguoInfoSet::sample_world`]: the same position,
    /// turn and counters), derived from what this seat knows; the search
    /// starts each simulation's other armies from it (this seat's own is
    /// this set itself). `army` knows:
    /// * the kinds it sees (§10.10) as the world has them;
    /// * of an army neither it nor this seat sees: this seat's kind sets and
    ///   removed pieces (the deployment rules, moves, rulings, 司令阵亡 and
    ///   counts as the table heard them; what this seat's own fights proved
    ///   is included, what `army`'s fights proved with its own kinds beyond
    ///   that is not);
    /// * of an army this seat sees and `army` does not (this seat's own, its
    ///   ally's in 双明): what the table knows without its history: at ply 0
    ///   the deployment rules (§10.5), later that flags and mines never move
    ///   (a flag only in its headquarters, a mine only on its last two
    ///   lines), the shown flag, and the removed 司令 exactly when its flag
    ///   is shown;
    ///
    /// then the counts per army (25 pieces of §2).
    pub fn view_of(&self, world: &Position, army: Army) -> SiguoInfoSet {
        if army == self.seat {
            return self.clone();
        }
        let mut info = SiguoInfoSet {
            seat: army,
            rules: self.rules,
            board: [None; NODES],
            removed: Default::default(),
            ended: self.ended,
            turn: self.turn,
            quiet: self.quiet,
            ply: self.ply,
            outcome: self.outcome,
        };
        let deployed = self.ply == 0;
        for (node, piece) in world.pieces() {
            let set = if info.sees(piece.army) {
                piece.kind.bit()
            } else if !self.sees(piece.army) {
                self.possible_kinds(node)
            } else if deployed {
                deployable(&self.rules, piece.army, node)
            } else {
                deployable(&self.rules, piece.army, node) | MOVABLE
            };
            info.board[node.index()] = Some((piece.army, set));
        }
        for other in Army::ALL {
            if info.sees(other) || info.ended[other.index()].is_some() {
                continue;
            }
            if !self.sees(other) {
                info.removed[other.index()] = self.removed[other.index()].clone();
            } else {
                let shown = world.revealed_flag(other);
                if let Some(flag) = shown {
                    info.board[flag.index()] = Some((other, Kind::Flag.bit()));
                }
                let missing = 25usize.saturating_sub(info.pieces_of(other).count());
                let mut removed = vec![ALL_KINDS & !Kind::Flag.bit() & !Kind::Commander.bit(); missing];
                if let (Some(_), Some(first)) = (shown, removed.first_mut()) {
                    *first = Kind::Commander.bit();
                }
                info.removed[other.index()] = removed;
            }
            info.propagate(other);
        }
        info
    }

    /// Does this seat see the kinds of `army`'s pieces (§10.10)?
    pub fn sees(&self, army: Army) -> bool {
        match self.rules.mode {
            Mode::Anqi => army == self.seat,
            Mode::Shuangming => army.team() == self.seat.team(),
            Mode::Quanming => true,
        }
    }

    pub fn seat(&self) -> Army {
        self.seat
    }
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn mode(&self) -> Mode {
        self.rules.mode
    }
    /// The army to move (public).
    pub fn turn(&self) -> Army {
        self.turn
    }
    pub fn quiet(&self) -> u32 {
        self.quiet
    }
    pub fn ply(&self) -> u32 {
        self.ply
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn ended(&self, army: Army) -> Option<EndCause> {
        self.ended[army.index()]
    }
    /// The army whose piece stands on `node` (public in every mode).
    pub fn army_at(&self, node: Node) -> Option<Army> {
        self.board[node.index()].map(|(a, _)| a)
    }
    /// The kinds the piece on `node` may be (0 for an empty node; one kind
    /// for a piece the seat sees or has identified).
    pub fn possible_kinds(&self, node: Node) -> KindSet {
        self.board[node.index()].map_or(0, |(_, s)| s)
    }
    /// The kind of the piece on `node` when the seat knows it.
    pub fn known_kind(&self, node: Node) -> Option<Kind> {
        single(self.possible_kinds(node))
    }
    /// The kinds each removed piece of `army` may have been (an army whose
    /// kinds the seat sees, or that ended, lists none).
    pub fn removed(&self, army: Army) -> &[KindSet] {
        &self.removed[army.index()]
    }
    /// Every piece on the board: node, army, possible kinds.
    pub fn pieces(&self) -> impl Iterator<Item = (Node, Army, KindSet)> + '_ {
        Node::all().filter_map(move |n| self.board[n.index()].map(|(a, s)| (n, a, s)))
    }
    fn pieces_of(&self, army: Army) -> impl Iterator<Item = Node> + '_ {
        self.pieces().filter(move |&(_, a, _)| a == army).map(|(n, _, _)| n)
    }

    /// A position with every piece where the seat sees it: the kinds it
    /// knows, and for the others `filler` (only the occupancy and the armies
    /// of such pieces are ever read from it).
    fn stand_in(&self, filler: Kind) -> Position {
        let mut pos = Position::empty(self.rules);
        for (node, army, set) in self.pieces() {
            pos.put(node, Piece::new(army, single(set).unwrap_or(filler)));
        }
        for army in Army::ALL {
            pos.set_ended(army, self.ended[army.index()]);
        }
        pos.set_turn(self.turn);
        pos.set_counters(self.quiet, self.ply);
        pos.outcome = self.outcome;
        pos
    }

    /// This seat's legal moves when it is to move and the game goes on
    /// (empty otherwise): exactly the referee's list, since they depend only
    /// on the seat's own kinds and where every piece stands.
    pub fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        if self.outcome.is_some() || self.turn != self.seat {
            return;
        }
        self.stand_in(Kind::Mine).moves_of(self.seat, out);
    }

    /// Kinds that could have made `mv` on the board before it: any movable
    /// piece for a step or a run (one turn under `rail_turns = one_turn`),
    /// only fliers otherwise.
    fn path_kinds(&self, mv: Move) -> KindSet {
        let Some((army, _)) = self.board[mv.from.index()] else { return 0 };
        let mut pos = self.stand_in(Kind::Mine);
        let mut dest = crate::board::NodeSet::EMPTY;
        let mut set = 0;
        for (kind, kinds) in [(Kind::Platoon, MOVABLE), (Kind::Engineer, fliers(&self.rules))] {
            pos.put(mv.from, Piece::new(army, kind));
            pos.destinations(mv.from, &mut dest);
            if dest.contains(mv.to) {
                set |= kinds;
            }
        }
        set
    }

    /// Update after one move from the referee's announcement (and nothing else).
    pub fn update(&mut self, a: &Announcement) {
        let (from, to) = (a.mv.from, a.mv.to);
        let mut lost: Vec<(Army, KindSet)> = Vec::new();
        if let Some((mover, set)) = self.board[from.index()] {
            let mset = set & self.path_kinds(a.mv);
            self.board[from.index()] = None;
            match (a.ruling, self.board[to.index()]) {
                (Ruling::Move, _) | (_, None) => self.board[to.index()] = Some((mover, mset)),
                (r, Some((defender, dset))) => {
                    // 司令阵亡，军旗亮开: a piece lost was the 司令 exactly when its flag is
                    // shown (an army that ended in this move shows nothing).
                    let commander = |army: Army, set: KindSet, lost: bool| match (lost, a.flag_shown[army.index()]) {
                        (true, Some(_)) => set & Kind::Commander.bit(),
                        (true, None) if a.ended[army.index()].is_none() => set & !Kind::Commander.bit(),
                        _ => set,
                    };
                    let attacker_lost = matches!(
                        r,
                        Ruling::DefenderWon | Ruling::BothRemoved | Ruling::FlagCaptured { capturer_removed: true }
                    );
                    let defender_lost = matches!(r, Ruling::AttackerWon | Ruling::BothRemoved);
                    let mset = commander(mover, mset, attacker_lost);
                    let dset = commander(defender, dset, defender_lost);
                    let table = ruling_table(&self.rules);
                    let fits = |x: Kind, y: Kind| table[x.index()][y.index()] == r;
                    let aset = Kind::in_set(mset)
                        .filter(|&x| Kind::in_set(dset).any(|y| fits(x, y)))
                        .fold(0, |s, k| s | k.bit());
                    let dset = Kind::in_set(dset)
                        .filter(|&y| Kind::in_set(mset).any(|x| fits(x, y)))
                        .fold(0, |s, k| s | k.bit());
                    let (stays, taken) = match r {
                        Ruling::AttackerWon => (Some((mover, aset)), vec![(defender, dset)]),
                        Ruling::DefenderWon => (Some((defender, dset)), vec![(mover, aset)]),
                        Ruling::BothRemoved => (None, vec![(mover, aset), (defender, dset)]),
                        Ruling::FlagCaptured { capturer_removed: true } => (None, vec![(mover, aset)]),
                        Ruling::FlagCaptured { capturer_removed: false } => (Some((mover, aset)), vec![]),
                        Ruling::Stopped | Ruling::Move => {
                            self.board[from.index()] = Some((mover, aset));
                            (Some((defender, dset)), vec![])
                        }
                    };
                    self.board[to.index()] = stays;
                    lost = taken;
                }
            }
        }
        for (army, set) in lost {
            if !self.sees(army) {
                self.removed[army.index()].push(set);
            }
        }
        for army in Army::ALL {
            if let Some(flag) = a.flag_shown[army.index()] {
                if let Some((owner, set)) = &mut self.board[flag.index()] {
                    if *owner == army {
                        *set &= Kind::Flag.bit();
                    }
                }
            }
            if let Some(cause) = a.ended[army.index()] {
                for n in 0..NODES {
                    if self.board[n].is_some_and(|(owner, _)| owner == army) {
                        self.board[n] = None;
                    }
                }
                self.removed[army.index()].clear();
                self.ended[army.index()] = Some(cause);
            }
        }
        self.turn = a.turn;
        self.quiet = a.quiet;
        self.ply = a.ply;
        self.outcome = a.outcome;
        for army in Army::ALL {
            if !self.sees(army) && self.ended[army.index()].is_none() {
                self.propagate(army);
            }
        }
    }

    /// The referee's step: announce `mv` (which took `before` to `after`
    /// with `effect`), update from the announcement, and return it.
    pub fn witness(&mut self, before: &Position, mv: Move, effect: &Effect, after: &Position) -> Announcement {
        let a = Announcement::new(before, mv, effect, after);
        self.update(&a);
        a
    }

    /// Counting over all 25 pieces of `army` (on the board or removed): a
    /// kind whose every piece is identified is impossible elsewhere, and when
    /// exactly as many pieces may be a kind as the army has, they all are.
    fn propagate(&mut self, army: Army) {
        let nodes: Vec<usize> = self.pieces_of(army).map(Node::index).collect();
        loop {
            let mut changed = false;
            for kind in Kind::ALL {
                let bit = kind.bit();
                let total = kind.count() as usize;
                let sets = nodes
                    .iter()
                    .map(|&n| self.board[n].map_or(0, |(_, s)| s))
                    .chain(self.removed[army.index()].iter().copied());
                let (mut sure, mut maybe) = (0, 0);
                for s in sets {
                    if s & bit != 0 {
                        maybe += 1;
                        if s == bit {
                            sure += 1;
                        }
                    }
                }
                if maybe <= sure {
                    continue;
                }
                let new = |s: KindSet| -> KindSet {
                    if s & bit == 0 || s == bit {
                        s
                    } else if sure >= total {
                        s & !bit
                    } else if maybe == total {
                        bit
                    } else {
                        s
                    }
                };
                for &n in &nodes {
                    if let Some((_, s)) = &mut self.board[n] {
                        let t = new(*s);
                        changed |= t != *s;
                        *s = t;
                    }
                }
                for s in self.removed[army.index()].iter_mut() {
                    let t = new(*s);
                    changed |= t != *s;
                    *s = t;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Total pieces per kind an army has (§2), for determinization.
    pub(crate) fn composition() -> [u8; KINDS] {
        Kind::ALL.map(Kind::count)
    }
}
