//! Information sets: what one seat is allowed to know (docs/rules.md §5).
//!
//! * 明棋: everything.
//! * 翻棋: the public board: face-up pieces, where face-down pieces lie, and
//!   the multiset of face-down kinds per colour (public, since every piece
//!   that ever left the board was face-up when it did).
//! * 暗棋: its own pieces, where enemy pieces stand, combat outcomes, pieces
//!   made public (a flag after its side's 司令 falls, `engineer_scout`
//!   reveals), and, per enemy piece, the set of kinds still possible given
//!   everything seen so far.
//!
//! A bot is handed an [`InfoSet`], never the [`Position`]: the only position
//! inside is a *view* with every hidden kind erased, so no bot can peek.

use crate::board::{rail_run_targets, squares, Square, ADJACENT, HEADQUARTERS, NODES};
use crate::history::History;
use crate::moves::{Move, MoveList};
use crate::piece::{Colour, Kind, KindSet, Piece, Seat, ALL_KINDS, KINDS, MOVABLE};
use crate::position::{combat, CombatOutcome, Effect, Position};
use crate::rules::Mode;
use crate::setup::{back_ranks, front_rank};

/// What happened in one action, as one seat is allowed to see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    pub mv: Move,
    pub mover: Seat,
    pub event: ObservedEvent,
    /// Pieces made public by this action: a scouted defender, a flag revealed
    /// after its side lost its 司令.
    pub revealed: [Option<(Square, Piece)>; 2],
    /// Per colour: did that colour lose its 司令 in this action (public when
    /// `reveal_flag_on_commander_loss` shows its flag)?
    pub commander_lost: [bool; 2],
}

/// The kind of action, with the pieces' identities where the seat may see them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObservedEvent {
    Flip { piece: Piece },
    Move { piece: Option<Piece> },
    Attack { attacker: Option<Piece>, defender: Option<Piece>, outcome: CombatOutcome },
}

impl Observation {
    /// What `seat` learns from `effect` of `mv`, played in `before` and giving `after`.
    pub fn for_seat(before: &Position, after: &Position, mv: Move, effect: &Effect, seat: Seat) -> Observation {
        let mover = before.turn();
        let rules = before.rules();
        let secret = rules.mode == Mode::Anqi;
        let own = before.colour_of(seat);
        let visible = |p: Piece| if !secret || Some(p.colour) == own { Some(p) } else { None };
        let mut revealed = [None; 2];
        let mut commander_lost = [false; 2];
        let event = match *effect {
            Effect::Flip { piece } => ObservedEvent::Flip { piece },
            Effect::Move { piece } => ObservedEvent::Move { piece: visible(piece) },
            Effect::Attack { attacker, defender, outcome } => {
                if outcome == CombatOutcome::Scouted {
                    revealed[0] = Some((mv.to, defender));
                }
                let attacker_lost = matches!(outcome, CombatOutcome::DefenderWon | CombatOutcome::BothRemoved);
                let defender_lost = matches!(outcome, CombatOutcome::AttackerWon | CombatOutcome::BothRemoved);
                for (piece, lost) in [(attacker, attacker_lost), (defender, defender_lost)] {
                    if lost
                        && piece.kind == Kind::Commander
                        && rules.mode != Mode::Fanqi
                        && rules.reveal_flag_on_commander_loss
                    {
                        commander_lost[piece.colour.index()] = true;
                        let flag = after.flags & after.colour_bb(piece.colour);
                        // One slot per colour: both 司令 can fall in one attack. (A scout
                        // reveal never comes with a fallen 司令, so slot 0 is free then.)
                        if let Some(sq) = squares(flag).next() {
                            revealed[piece.colour.index()] = Some((sq, Piece::new(piece.colour, Kind::Flag)));
                        }
                    }
                }
                let scouted = outcome == CombatOutcome::Scouted;
                ObservedEvent::Attack {
                    attacker: visible(attacker),
                    defender: if scouted { Some(defender) } else { visible(defender) },
                    outcome,
                }
            }
        };
        Observation { mv, mover, event, revealed, commander_lost }
    }
}

/// Everything one seat may know about the game, and the only game state a bot receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoSet {
    seat: Seat,
    view: Position,
    /// 暗棋: the kinds the enemy piece on each node may still be.
    possible: [KindSet; NODES],
    /// 暗棋: the kinds each removed enemy piece may have been.
    removed: Vec<KindSet>,
    /// 翻棋: face-down pieces per colour and kind.
    unseen: [[u8; KINDS]; 2],
    /// The last actions and the views seen since the last attack or flip.
    history: History,
}

impl InfoSet {
    /// The information set of `seat` at the start of a game (or in any
    /// position where nothing beyond the rules' constraints has been seen).
    pub fn new(truth: &Position, seat: Seat) -> InfoSet {
        let mut info = InfoSet {
            seat,
            view: truth.clone(),
            possible: [0; NODES],
            removed: Vec::new(),
            unseen: [[0; KINDS]; 2],
            history: History::default(),
        };
        if truth.mode() == Mode::Anqi {
            if let Some(enemy) = truth.colour_of(seat.other()) {
                // A ply-0 position is a deployment, so its rules say what may stand
                // where. A later start (any JFEN) makes no such promise: JFEN does
                // not require flags and mines to stand where deployment allows.
                let deployed = truth.ply() == 0;
                for sq in squares(truth.colour_bb(enemy)) {
                    info.possible[sq.index()] = deployable_kinds(sq, enemy, deployed);
                }
                // Pieces missing from a full army were removed: kind unknown.
                let missing = 25usize.saturating_sub(truth.colour_bb(enemy).count_ones() as usize);
                info.removed = vec![ALL_KINDS & !Kind::Flag.bit(); missing];
            }
            info.propagate_counts(truth);
        }
        info.rebuild_view(truth);
        info
    }

    /// 暗棋: the information set of `seat` rebuilt from what the seat knows,
    /// without the truth. `stand_in` agrees with the seat's view (its own
    /// pieces, where the enemy pieces stand, counters and turn) and may give
    /// the enemy pieces any kinds: they are never read. `possible` gives the
    /// kinds each enemy piece may be (a node left out: any kind), `removed`
    /// the kinds each removed enemy piece may have been. An engine behind the
    /// text protocol, which is told exactly these sets, recovers the
    /// information set the referee keeps for its seat. In 翻棋 and 明棋 the
    /// plain [`InfoSet::new`] does it: a stand-in with the public face-down
    /// pool placed face-down in any order gives the same set.
    pub fn from_kind_sets(
        stand_in: &Position,
        seat: Seat,
        possible: &[(Square, KindSet)],
        removed: Vec<KindSet>,
    ) -> InfoSet {
        let mut info = InfoSet {
            seat,
            view: stand_in.clone(),
            possible: [0; NODES],
            removed,
            unseen: [[0; KINDS]; 2],
            history: History::default(),
        };
        if stand_in.mode() == Mode::Anqi {
            if let Some(enemy) = stand_in.colour_of(seat.other()) {
                for sq in squares(stand_in.colour_bb(enemy)) {
                    info.possible[sq.index()] = ALL_KINDS;
                }
                for &(sq, set) in possible {
                    if stand_in.colour_bb(enemy) & sq.bit() != 0 {
                        info.possible[sq.index()] = set;
                    }
                }
            }
        }
        info.rebuild_view(stand_in);
        info
    }

    /// The same information set with `history` as what the seat remembers
    /// (an engine told the recent actions and repetitions by its host).
    pub fn with_history(mut self, history: History) -> InfoSet {
        self.history = history;
        self
    }

    /// Update after `mv` (with `effect`) took `before` to `after`, from what
    /// this seat saw of it, which is returned: the one step the referee
    /// ([`crate::Game`]) and a search replaying a world both take.
    pub fn witness(&mut self, before: &Position, after: &Position, mv: Move, effect: &Effect) -> Observation {
        let observation = Observation::for_seat(before, after, mv, effect, self.seat());
        self.update(after, &observation);
        observation
    }

    /// Update after an action, from the referee's truth and this seat's observation.
    pub fn update(&mut self, truth_after: &Position, obs: &Observation) {
        if self.view.mode() == Mode::Anqi {
            self.track_anqi(obs);
            self.propagate_counts(truth_after);
        }
        // The board the history starts at, keyed at its first action only
        // (a set that never sees one, e.g. a search's leaf, hashes nothing).
        let start = self.history.unstarted().then(|| crate::history::view_key(&self.view));
        self.rebuild_view(truth_after);
        self.history.push(obs.mv, start, &self.view);
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }
    pub fn mode(&self) -> Mode {
        self.view.mode()
    }
    /// The board as this seat sees it: unknown pieces are occupied squares
    /// with no piece (`piece_at` is `None`). Draw counters, turn and colours
    /// are public. Enemy piece counts in a 暗棋 view are upper bounds.
    pub fn view(&self) -> &Position {
        &self.view
    }
    /// This seat's colour, once assigned.
    pub fn colour(&self) -> Option<Colour> {
        self.view.colour_of(self.seat)
    }
    /// This seat's legal actions when it is to move (empty otherwise, and once
    /// the draw counters have run out). They depend only on what both seats may
    /// know, so while the game goes on this is exactly the referee's list; the
    /// referee alone declares a game over by capture of the last pieces.
    pub fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        let v = &self.view;
        if v.turn() != self.seat || v.quiet() >= v.rules().no_progress_plies || v.ply() >= v.rules().max_plies {
            return;
        }
        v.generate_actions(out);
    }
    /// 暗棋: kinds the enemy piece on `sq` may be (0 when no enemy piece stands
    /// there); elsewhere the known kind of a face-up piece, the kinds left in
    /// the face-down pool for a face-down one, and 0 for an empty node.
    pub fn possible_kinds(&self, sq: Square) -> KindSet {
        match self.view.mode() {
            Mode::Anqi => self.possible[sq.index()],
            _ => match self.view.piece_at(sq) {
                Some(p) => p.kind.bit(),
                // 翻棋 face-down: any kind still in the face-down pool.
                None if self.view.is_occupied(sq) => Kind::ALL
                    .into_iter()
                    .filter(|&k| Colour::ALL.iter().any(|&c| self.unseen(c, k) > 0))
                    .fold(0, |s, k| s | k.bit()),
                None => 0,
            },
        }
    }
    /// 暗棋: kinds each removed enemy piece may have been.
    pub fn removed_enemy(&self) -> &[KindSet] {
        &self.removed
    }
    /// What the seat remembers: the last actions and how often it has seen
    /// the board in front of it (docs/rules.md §5).
    pub fn history(&self) -> &History {
        &self.history
    }
    /// 翻棋: face-down pieces of `colour` and `kind` (public knowledge).
    pub fn unseen(&self, colour: Colour, kind: Kind) -> u8 {
        self.unseen[colour.index()][kind.index()]
    }

    /// Copy from the truth exactly what this seat may see.
    fn rebuild_view(&mut self, truth: &Position) {
        let mut view = truth.clone();
        match truth.mode() {
            Mode::Mingqi => {}
            Mode::Fanqi => {
                self.unseen = [[0; KINDS]; 2];
                for sq in squares(truth.hidden) {
                    let p = truth.board[sq.index()].expect("face-down squares hold a piece");
                    self.unseen[p.colour.index()][p.kind.index()] += 1;
                    view.board[sq.index()] = None;
                }
                view.by_colour[0] &= !truth.hidden;
                view.by_colour[1] &= !truth.hidden;
                view.mines &= !truth.hidden;
                view.flags &= !truth.hidden;
            }
            Mode::Anqi => {
                let enemy = truth.colour_of(self.seat.other()).expect("暗棋 colours are fixed from the start");
                let enemy_bb = truth.colour_bb(enemy);
                view.mines &= !enemy_bb;
                view.flags &= !enemy_bb;
                for sq in squares(enemy_bb) {
                    let set = self.possible[sq.index()];
                    view.board[sq.index()] = if set.count_ones() == 1 {
                        let kind = Kind::from_index(set.trailing_zeros() as usize).unwrap();
                        match kind {
                            Kind::Mine => view.mines |= sq.bit(),
                            Kind::Flag => view.flags |= sq.bit(),
                            _ => {}
                        }
                        Some(Piece::new(enemy, kind))
                    } else {
                        None
                    };
                }
                // Upper bounds: the army less the removed pieces known exactly.
                let mut counts = [0u8; KINDS];
                for k in Kind::ALL {
                    let gone = self.removed.iter().filter(|&&s| s == k.bit()).count() as u8;
                    counts[k.index()] = k.count().saturating_sub(gone);
                }
                view.counts[enemy.index()] = counts;
            }
        }
        self.view = view;
    }

    /// 暗棋: move and narrow the enemy kind sets after one action.
    fn track_anqi(&mut self, obs: &Observation) {
        let before = &self.view;
        let (from, to) = (obs.mv.from, obs.mv.to);
        let enemy_moved = obs.mover != self.seat;
        let mut removed_now: Option<usize> = None;
        match obs.event {
            ObservedEvent::Flip { .. } => {}
            ObservedEvent::Move { .. } => {
                if enemy_moved {
                    let set = self.possible[from.index()] & self.path_kinds(from, to);
                    self.possible[from.index()] = 0;
                    self.possible[to.index()] = set;
                }
            }
            ObservedEvent::Attack { attacker, defender, outcome } => {
                if enemy_moved {
                    // The enemy attacked one of our pieces, whose kind we know.
                    let own = defender.expect("own pieces are always visible");
                    let candidates = self.possible[from.index()] & self.path_kinds(from, to);
                    let set = narrow(candidates, |x| {
                        // Whether the enemy piece may take our flag depends on enemy counts we
                        // may not know, so accept a kind that fits either way.
                        [true, false].iter().any(|&m| combat(before.rules(), x, own.kind, m) == outcome)
                    });
                    self.possible[from.index()] = 0;
                    match outcome {
                        CombatOutcome::AttackerWon => self.possible[to.index()] = set,
                        CombatOutcome::FlagCaptured => {}
                        _ => {
                            self.removed.push(set);
                            removed_now = Some(self.removed.len() - 1);
                        }
                    }
                } else {
                    // We attacked an enemy piece.
                    let own = attacker.expect("own pieces are always visible");
                    let m = before.may_capture_flag(own.colour, own.kind);
                    let mut set =
                        narrow(self.possible[to.index()], |x| combat(before.rules(), own.kind, x, m) == outcome);
                    if let (CombatOutcome::Scouted, Some(d)) = (outcome, defender) {
                        set = d.kind.bit();
                    }
                    match outcome {
                        CombatOutcome::AttackerWon | CombatOutcome::BothRemoved => {
                            self.possible[to.index()] = 0;
                            self.removed.push(set);
                            removed_now = Some(self.removed.len() - 1);
                        }
                        CombatOutcome::FlagCaptured => self.possible[to.index()] = 0,
                        _ => self.possible[to.index()] = set,
                    }
                }
            }
        }
        let enemy = before.colour_of(self.seat.other());
        if let Some(enemy) = enemy {
            if obs.commander_lost[enemy.index()] {
                if let Some(i) = removed_now {
                    self.removed[i] = Kind::Commander.bit();
                }
            }
            for (sq, piece) in obs.revealed.iter().flatten() {
                if piece.colour == enemy {
                    self.possible[sq.index()] = piece.kind.bit();
                }
            }
        }
    }

    /// Kinds that could have made the move `from → to` on the board before it:
    /// any movable piece for a step or a straight run, only fliers otherwise.
    fn path_kinds(&self, from: Square, to: Square) -> KindSet {
        let v = &self.view;
        let straight = (ADJACENT[from.index()] | rail_run_targets(from, v.occupied)) & to.bit() != 0;
        let mut set =
            if straight { MOVABLE } else { Kind::in_set(MOVABLE).filter(|&k| v.flies(k)).fold(0, |s, k| s | k.bit()) };
        if v.rules().hq_locked && HEADQUARTERS & from.bit() != 0 {
            set = 0; // cannot happen under the rules; keep the set honest if it does
        }
        set
    }

    /// Remaining-count reasoning over all 25 enemy pieces (on the board or removed):
    /// a kind whose every piece is identified is impossible elsewhere, and when
    /// exactly as many pieces may be some kind as that kind has, they all are it.
    /// Only where enemy pieces stand is read from `truth` (public in 暗棋).
    fn propagate_counts(&mut self, truth: &Position) {
        let Some(enemy) = truth.colour_of(self.seat.other()) else { return };
        let on_board = truth.colour_bb(enemy);
        loop {
            let mut changed = false;
            for kind in Kind::ALL {
                let bit = kind.bit();
                let total = kind.count() as usize;
                let sets = squares(on_board).map(|sq| self.possible[sq.index()]).chain(self.removed.iter().copied());
                let (mut sure, mut maybe) = (0, 0);
                for s in sets {
                    if s & bit != 0 {
                        maybe += 1;
                        if s == bit {
                            sure += 1;
                        }
                    }
                }
                if sure >= total && maybe > sure {
                    for i in squares(on_board).map(Square::index) {
                        if self.possible[i] != bit && self.possible[i] & bit != 0 {
                            self.possible[i] &= !bit;
                            changed = true;
                        }
                    }
                    for s in self.removed.iter_mut() {
                        if *s != bit && *s & bit != 0 {
                            *s &= !bit;
                            changed = true;
                        }
                    }
                } else if maybe == total && maybe > sure {
                    for i in squares(on_board).map(Square::index) {
                        if self.possible[i] & bit != 0 && self.possible[i] != bit {
                            self.possible[i] = bit;
                            changed = true;
                        }
                    }
                    for s in self.removed.iter_mut() {
                        if *s & bit != 0 && *s != bit {
                            *s = bit;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }
}

/// The kinds of `set` for which `keep` holds.
fn narrow(set: KindSet, keep: impl Fn(Kind) -> bool) -> KindSet {
    Kind::in_set(set).filter(|&k| keep(k)).fold(0, |s, k| s | k.bit())
}

/// Kinds that may stand on `sq` for `colour`: by the deployment rules of §5.1
/// when `deployed` (nothing has moved yet), else any kind.
fn deployable_kinds(sq: Square, colour: Colour, deployed: bool) -> KindSet {
    let mut set = ALL_KINDS;
    if !deployed {
        return set;
    }
    if HEADQUARTERS & sq.bit() == 0 {
        set &= !Kind::Flag.bit();
    }
    if back_ranks(colour) & sq.bit() == 0 {
        set &= !Kind::Mine.bit();
    }
    if front_rank(colour) & sq.bit() != 0 {
        set &= !Kind::Bomb.bit();
    }
    set
}
