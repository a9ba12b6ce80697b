//! The game state of all three modes, applying actions with the combat rules
//! of docs/rules.md §4–§5, and the end conditions of §8.

use crate::board::{squares, Bitboard, Square, NODES};
use crate::moves::{Move, MoveList};
use crate::piece::{Colour, Kind, Piece, Seat, KINDS, MOVABLE};
use crate::rules::{ColorRule, FlagCapturer, MineRule, Mode, Rules};
use std::fmt;

/// A position: the board (the whole truth, including face-down kinds), whose
/// turn it is, the colour assignment and the draw counters, plus the rules it
/// is played under.
///
/// Positions built by [`crate::InfoSet`] are *views*: squares whose piece is
/// unknown to the viewer are occupied but hold no piece ([`Position::piece_at`]
/// is `None`), and the move generator never needs to look at them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) rules: Rules,
    pub(crate) board: [Option<Piece>; NODES],
    pub(crate) occupied: Bitboard,
    /// Pieces known to be of each colour.
    pub(crate) by_colour: [Bitboard; 2],
    /// Face-down pieces (翻棋).
    pub(crate) hidden: Bitboard,
    /// Known mines and flags.
    pub(crate) mines: Bitboard,
    pub(crate) flags: Bitboard,
    /// Pieces on the board per colour and kind, face-up or face-down.
    pub(crate) counts: [[u8; KINDS]; 2],
    pub(crate) turn: Seat,
    /// Colour of seat 1, once assigned.
    pub(crate) seat1: Option<Colour>,
    /// Colour of the previous flip while colours are unassigned (`two_in_a_row`).
    pub(crate) last_flip: Option<Colour>,
    pub(crate) quiet: u32,
    pub(crate) ply: u32,
    /// `flag_carry` (翻棋), per flag colour: a flag that does not stand alone
    /// on its node but is carried by, or lies under, the piece there. Its
    /// colour's flag count still includes it.
    pub(crate) loose: [Option<LooseFlag>; 2],
    /// `mountains` (山界): the piece in each mountain (`MOUNTAIN_SIDES`
    /// order), off the 60 nodes but counted in `counts`.
    pub(crate) mountain: [Option<Piece>; 2],
}

/// `flag_carry` (翻棋, docs/rules.md §5.3): a flag sharing its node with a piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LooseFlag {
    /// The node of the piece that carries it or stands on it.
    pub at: Square,
    /// Carried (moves with the piece) or put down (stays when the piece leaves).
    pub carried: bool,
}

/// How an attack ended, as the referee announces it (docs/rules.md §5.1 Information).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CombatOutcome {
    /// The defender was removed and the attacker moved in.
    AttackerWon,
    /// The attacker was removed; the defender stays.
    DefenderWon,
    /// Both were removed.
    BothRemoved,
    /// The flag was captured (a capturing bomb is removed too).
    FlagCaptured,
    /// `engineer_scout`: the engineer was removed and the defender's kind is public.
    Scouted,
    /// `attack_hidden`: the face-down defender was turned up but could not be
    /// taken (own colour, or a flag not yet capturable); the attacker stays.
    Bounced,
}

/// What an action did, with the true kinds involved. The referee turns this
/// into what each seat may learn ([`crate::infoset::Observation`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// A face-down piece was turned up.
    Flip { piece: Piece },
    /// A move onto an empty node.
    Move { piece: Piece },
    /// A move onto an occupied node.
    Attack { attacker: Piece, defender: Piece, outcome: CombatOutcome },
}

/// Why a game ended (docs/rules.md §8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    FlagCaptured,
    /// A side (or both, in one attack) lost its last movable piece.
    NoMovablePieces,
    NoLegalMove,
    /// `quiet >= no_progress_plies`.
    QuietPlies,
    /// `ply >= max_plies`.
    MaxPlies,
    /// The side to move gave the game up. Not a board rule (docs/rules.md lists
    /// none): self-play ends games its bots judge lost, and the record keeps
    /// the moves up to the resignation, so the position after them is not over.
    Resignation,
    /// The side to move lost by forfeit: an external engine crashed, hung
    /// past its time or answered with an illegal or malformed move. Not a
    /// board rule either; the record keeps the moves before the forfeit.
    Forfeit,
    /// The side to move lost on time: its move took longer than the match's
    /// per-move limit for the Nth time (a match setting of arena/sprt, not a
    /// board rule; docs/evaluation.md). The record keeps the moves before it.
    Timeouts,
}

impl Termination {
    pub fn name(self) -> &'static str {
        match self {
            Termination::FlagCaptured => "flag_captured",
            Termination::NoMovablePieces => "no_movable_pieces",
            Termination::NoLegalMove => "no_legal_move",
            Termination::QuietPlies => "quiet_plies",
            Termination::MaxPlies => "max_plies",
            Termination::Resignation => "resignation",
            Termination::Forfeit => "forfeit",
            Termination::Timeouts => "timeouts",
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Seat>,
    pub termination: Termination,
}

impl Outcome {
    /// `seat` resigned: the other seat wins.
    pub fn resignation(seat: Seat) -> Outcome {
        Outcome { winner: Some(seat.other()), termination: Termination::Resignation }
    }
    /// `seat` forfeited: the other seat wins.
    pub fn forfeit(seat: Seat) -> Outcome {
        Outcome { winner: Some(seat.other()), termination: Termination::Forfeit }
    }
    /// `seat` ran out of timeouts: the other seat wins.
    pub fn timeouts(seat: Seat) -> Outcome {
        Outcome { winner: Some(seat.other()), termination: Termination::Timeouts }
    }
    /// `1-0`, `0-1` or `1/2-1/2`, from seat 1's side.
    pub fn result_str(&self) -> &'static str {
        match self.winner {
            Some(Seat::First) => "1-0",
            Some(Seat::Second) => "0-1",
            None => "1/2-1/2",
        }
    }
    /// Score of `seat`: 1, ½ or 0.
    pub fn score(&self, seat: Seat) -> f64 {
        match self.winner {
            Some(w) if w == seat => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

/// Why an action could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("illegal move {0}")]
    Illegal(Move),
    #[error("the game is over ({0})")]
    GameOver(&'static str),
    #[error("the piece on {0} is unknown in this view; only the referee can play this action")]
    UnknownPiece(Square),
}

impl Position {
    /// An empty board (no pieces), seat 1 to move, colours as the mode starts.
    pub fn empty(rules: Rules) -> Position {
        let seat1 = rules.fixed_colour(Seat::First);
        Position {
            rules,
            board: [None; NODES],
            occupied: 0,
            by_colour: [0; 2],
            hidden: 0,
            mines: 0,
            flags: 0,
            counts: [[0; KINDS]; 2],
            turn: Seat::First,
            seat1,
            last_flip: None,
            quiet: 0,
            ply: 0,
            loose: [None; 2],
            mountain: [None; 2],
        }
    }

    /// Put a piece on an empty node (face-down when `face_down`).
    pub(crate) fn put(&mut self, sq: Square, piece: Piece, face_down: bool) {
        debug_assert!(self.occupied & sq.bit() == 0);
        self.board[sq.index()] = Some(piece);
        self.occupied |= sq.bit();
        self.by_colour[piece.colour.index()] |= sq.bit();
        if face_down {
            self.hidden |= sq.bit();
        }
        match piece.kind {
            Kind::Mine => self.mines |= sq.bit(),
            Kind::Flag => self.flags |= sq.bit(),
            _ => {}
        }
        self.counts[piece.colour.index()][piece.kind.index()] += 1;
    }

    /// Take whatever stands on `sq` off the board.
    pub(crate) fn remove(&mut self, sq: Square) {
        if let Some(p) = self.board[sq.index()].take() {
            self.counts[p.colour.index()][p.kind.index()] -= 1;
        }
        let keep = !sq.bit();
        self.occupied &= keep;
        self.by_colour[0] &= keep;
        self.by_colour[1] &= keep;
        self.hidden &= keep;
        self.mines &= keep;
        self.flags &= keep;
    }

    /// Move a face-up piece (known or not, in a view) to an empty node.
    pub(crate) fn relocate(&mut self, from: Square, to: Square) {
        debug_assert!(self.occupied & to.bit() == 0);
        let (f, both) = (from.bit(), from.bit() | to.bit());
        self.board[to.index()] = self.board[from.index()].take();
        self.occupied ^= both;
        let [red, black] = &mut self.by_colour;
        for bb in [red, black, &mut self.mines, &mut self.flags] {
            if *bb & f != 0 {
                *bb ^= both;
            }
        }
    }

    // ---- accessors ----

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn mode(&self) -> Mode {
        self.rules.mode
    }
    /// The seat to move.
    pub fn turn(&self) -> Seat {
        self.turn
    }
    /// Plies since the last attack or flip.
    pub fn quiet(&self) -> u32 {
        self.quiet
    }
    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// The piece on `sq`, face-up or face-down; `None` when empty or unknown to a view.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }
    pub fn is_face_down(&self, sq: Square) -> bool {
        self.hidden & sq.bit() != 0
    }
    pub fn is_occupied(&self, sq: Square) -> bool {
        self.occupied & sq.bit() != 0
    }
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }
    /// Face-down pieces.
    pub fn face_down(&self) -> Bitboard {
        self.hidden
    }
    /// Pieces known to be of `colour` (face-up or face-down).
    pub fn colour_bb(&self, colour: Colour) -> Bitboard {
        self.by_colour[colour.index()]
    }
    /// The colour of the piece on `sq`, when this position (or view) knows it.
    pub fn colour_at(&self, sq: Square) -> Option<Colour> {
        Colour::ALL.into_iter().find(|&c| self.colour_bb(c) & sq.bit() != 0)
    }
    /// The colour of `seat`, once assigned.
    pub fn colour_of(&self, seat: Seat) -> Option<Colour> {
        self.seat1.map(|c| if seat == Seat::First { c } else { c.other() })
    }
    /// The seat playing `colour`, once assigned.
    pub fn seat_of(&self, colour: Colour) -> Option<Seat> {
        self.seat1.map(|c| if c == colour { Seat::First } else { Seat::Second })
    }
    /// The colour of seat 1, once assigned.
    pub fn seat1_colour(&self) -> Option<Colour> {
        self.seat1
    }
    /// The previous flip's colour while colours are unassigned (for `two_in_a_row`).
    pub fn last_flip(&self) -> Option<Colour> {
        self.last_flip
    }
    /// Pieces of `kind` and `colour` on the board, face-up or face-down.
    pub fn count(&self, colour: Colour, kind: Kind) -> u8 {
        self.counts[colour.index()][kind.index()]
    }
    /// Pieces of `colour` whose kind is in `set`.
    pub fn count_in(&self, colour: Colour, set: crate::piece::KindSet) -> u32 {
        Kind::in_set(set).map(|k| self.counts[colour.index()][k.index()] as u32).sum()
    }
    /// `flag_carry`: where `colour`'s flag is when it shares a node with a
    /// piece (carried, or put down under it); `None` when it stands alone on
    /// its node or is gone.
    pub fn loose_flag(&self, colour: Colour) -> Option<LooseFlag> {
        self.loose[colour.index()]
    }
    /// `mountains`: the piece in mountain `i` (0: between b6 and b7, 1:
    /// between d6 and d7; [`crate::board::MOUNTAIN_SIDES`]), if any.
    pub fn mountain(&self, i: usize) -> Option<Piece> {
        self.mountain[i]
    }
    /// Total pieces on the board.
    pub fn piece_count(&self) -> u32 {
        self.occupied.count_ones()
    }

    /// Replace the rules (e.g. a variant option); the mode must stay the same.
    pub fn set_rules(&mut self, rules: Rules) -> Result<(), crate::jfen::JfenError> {
        crate::jfen::check_rules_fit(self, &rules)?;
        self.rules = rules;
        Ok(())
    }

    // ---- flag-capture rules shared by move generation and combat ----

    /// The weakest ranked kind `colour` still has on the board (face-up or not).
    pub(crate) fn lowest_ranked(&self, colour: Colour) -> Option<Kind> {
        let c = &self.counts[colour.index()];
        (0..=Kind::Engineer as usize).rev().find(|&k| c[k] > 0).and_then(Kind::from_index)
    }

    /// May a `kind` of `colour` capture a flag, by `bomb_captures_flag` and
    /// `flag_capturer`? (The 翻棋 "mines first" rule is checked separately.)
    /// Reads only `colour`'s own piece counts, which every view has exactly.
    pub fn may_capture_flag(&self, colour: Colour, kind: Kind) -> bool {
        match kind {
            Kind::Bomb => {
                self.rules.bomb_captures_flag
                    && (self.rules.flag_capturer == FlagCapturer::Any || self.lowest_ranked(colour).is_none())
            }
            k if k.is_ranked() => {
                self.rules.flag_capturer == FlagCapturer::Any || self.lowest_ranked(colour) == Some(k)
            }
            _ => false,
        }
    }

    /// 翻棋: a flag may be attacked only once all its side's mines are gone.
    pub(crate) fn flag_unguarded(&self, flag_colour: Colour) -> bool {
        self.counts[flag_colour.index()][Kind::Mine.index()] == 0
    }

    /// 混棋 (`hunqi`): `colour`'s flag moves once `colour` has removed all
    /// three enemy mines (docs/rules.md §5.3 混棋). Reads only counts every
    /// view has exactly (removed pieces are public in 翻棋).
    #[inline]
    pub fn hunqi_flag_moves(&self, colour: Colour) -> bool {
        self.rules.hunqi && self.counts[colour.other().index()][Kind::Mine.index()] == 0
    }

    /// 混棋: may a face-up `attacker` kind attack the face-up enemy
    /// `defender` (docs/rules.md §5.3 混棋)? Never upward in rank; mines only
    /// by engineers and bombs; a standing flag once its side's mines are
    /// gone, by anything but an engineer or a moving flag; a moving flag only
    /// by an engineer, a bomb or the other moving flag; bombs by anyone.
    pub fn hunqi_may_attack(&self, attacker: Kind, defender: Piece) -> bool {
        match defender.kind {
            Kind::Mine => matches!(attacker, Kind::Engineer | Kind::Bomb),
            Kind::Flag if self.hunqi_flag_moves(defender.colour) => {
                matches!(attacker, Kind::Engineer | Kind::Bomb | Kind::Flag)
            }
            Kind::Flag => self.flag_unguarded(defender.colour) && !matches!(attacker, Kind::Engineer | Kind::Flag),
            Kind::Bomb => true,
            // A ranked defender: a bomb takes it, a moving flag any but an
            // engineer, a ranked piece one of its own rank or lower.
            ranked => match attacker {
                Kind::Bomb => true,
                Kind::Flag => ranked != Kind::Engineer,
                _ => attacker <= ranked,
            },
        }
    }

    // ---- playing ----

    /// Play `mv` if it is legal.
    pub fn play(&mut self, mv: Move) -> Result<Effect, PlayError> {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        if list.is_empty() {
            let o = self.outcome().expect("no legal action means the game is over");
            return Err(PlayError::GameOver(o.result_str()));
        }
        if !list.contains(mv) {
            return Err(PlayError::Illegal(mv));
        }
        // A view (InfoSet) cannot say what an unknown piece does.
        for sq in [mv.from, mv.to] {
            if self.is_occupied(sq) && self.board[sq.index()].is_none() {
                return Err(PlayError::UnknownPiece(sq));
            }
        }
        Ok(self.play_unchecked(mv))
    }

    /// Play a move taken from [`Position::legal_moves`] of this position.
    /// Playing anything else leaves the position meaningless (but is memory safe).
    pub fn play_unchecked(&mut self, mv: Move) -> Effect {
        let effect = if self.rules.flag_carry {
            self.do_carry_action(mv)
        } else if mv.is_flip() {
            self.do_diagonal(mv.from)
        } else {
            self.do_move(mv.from, mv.to)
        };
        self.ply += 1;
        self.turn = self.turn.other();
        effect
    }

    /// `flag_carry`: the colour of the flag carried from `sq`, if any.
    #[inline]
    pub fn carried_flag_at(&self, sq: Square) -> Option<Colour> {
        Colour::ALL.into_iter().find(|&c| self.loose[c.index()] == Some(LooseFlag { at: sq, carried: true }))
    }

    /// May a `kind` of `colour` pick up the enemy flag under `flag_carry`?
    /// Only a piece of the lowest rank `colour` still has (face-up or
    /// face-down, the engineer lowest of all); a bomb, having no rank, never.
    pub fn may_carry_flag(&self, colour: Colour, kind: Kind) -> bool {
        kind.is_ranked() && self.lowest_ranked(colour) == Some(kind)
    }

    /// An action under `flag_carry` (docs/rules.md §5.3 Carrying the flag).
    /// Cold: kept out of the default rules' hot path (BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn do_carry_action(&mut self, mv: Move) -> Effect {
        if mv.is_flip() {
            if let Some(flag) = self.carried_flag_at(mv.from) {
                // Put the flag down under the carrier.
                self.loose[flag.index()] = Some(LooseFlag { at: mv.from, carried: false });
                self.quiet += 1;
                let piece = self.board[mv.from.index()].expect("a carrier stands on its node");
                return Effect::Move { piece };
            }
            // A piece standing on a put-down flag may enter a mountain: the flag stays.
            let left = Colour::ALL.into_iter().find(|&c| self.loose[c.index()].is_some_and(|l| l.at == mv.from));
            let effect = self.do_diagonal(mv.from);
            return self.finish_leave(mv.from, left, effect);
        }
        let (from, to) = (mv.from, mv.to);
        // A flag on the node the piece leaves: carried along onto an empty
        // node; otherwise (put down, or dropped to attack) it stays behind.
        let left = Colour::ALL.into_iter().find(|&c| self.loose[c.index()].is_some_and(|l| l.at == from));
        let attack = self.occupied & to.bit() != 0;
        if attack {
            // A carrier puts its flag down before it attacks.
            if let Some(flag) = left {
                self.loose[flag.index()] = Some(LooseFlag { at: from, carried: false });
            }
        }
        let effect = match self.board[to.index()] {
            Some(defender) if defender.kind == Kind::Flag && self.hidden & to.bit() == 0 => {
                // Picking up the enemy flag: the flag leaves its node, rides on the piece.
                let attacker = self.board[from.index()].expect("move from an empty node");
                self.quiet = 0;
                self.lift_flag(to);
                self.relocate(from, to);
                self.loose[defender.colour.index()] = Some(LooseFlag { at: to, carried: true });
                Effect::Attack { attacker, defender, outcome: CombatOutcome::FlagCaptured }
            }
            Some(defender) if defender.kind == Kind::Flag && self.hidden & to.bit() != 0 => {
                // attack_hidden uncovering a flag: picked up when this piece may.
                let attacker = self.board[from.index()].expect("move from an empty node");
                self.quiet = 0;
                self.hidden &= !to.bit();
                let may = defender.colour != attacker.colour
                    && self.flag_unguarded(defender.colour)
                    && self.may_carry_flag(attacker.colour, attacker.kind);
                if !may {
                    return self.finish_leave(
                        from,
                        left,
                        Effect::Attack { attacker, defender, outcome: CombatOutcome::Bounced },
                    );
                }
                self.lift_flag(to);
                self.relocate(from, to);
                self.loose[defender.colour.index()] = Some(LooseFlag { at: to, carried: true });
                Effect::Attack { attacker, defender, outcome: CombatOutcome::FlagCaptured }
            }
            _ => {
                let carried = left.filter(|c| self.loose[c.index()].is_some_and(|l| l.carried));
                let under_target = Colour::ALL.into_iter().find(|&c| self.loose[c.index()].is_some_and(|l| l.at == to));
                let effect = self.do_move(from, to);
                if let (Some(flag), false) = (carried, attack) {
                    // The carrier walked on with its flag.
                    self.loose[flag.index()] = Some(LooseFlag { at: to, carried: true });
                    return effect;
                }
                if let (Some(flag), Effect::Attack { outcome, .. }) = (under_target, effect) {
                    // A flag under the defender stays on its node: under the
                    // winner (who cannot move it), or alone once the node is
                    // empty; a defender that held stays as it was.
                    match outcome {
                        CombatOutcome::AttackerWon => {
                            self.loose[flag.index()] = Some(LooseFlag { at: to, carried: false })
                        }
                        CombatOutcome::BothRemoved => self.set_down_flag(flag, to),
                        _ => {}
                    }
                }
                effect
            }
        };
        self.finish_leave(from, left, effect)
    }

    /// After an action from `from`: a flag that was on `from` and did not
    /// move on stands alone there, or stays under a piece that did not move.
    fn finish_leave(&mut self, from: Square, left: Option<Colour>, effect: Effect) -> Effect {
        if let Some(flag) = left {
            if self.loose[flag.index()].is_some_and(|l| l.at == from) {
                // (A piece that stayed, after a bounce, keeps it under itself.)
                if self.occupied & from.bit() == 0 {
                    self.set_down_flag(flag, from);
                }
            }
        }
        effect
    }

    /// Take a lone flag off its node, keeping it in its colour's count.
    fn lift_flag(&mut self, sq: Square) {
        let flag = self.board[sq.index()].expect("a flag stands there");
        self.remove(sq);
        self.counts[flag.colour.index()][Kind::Flag.index()] += 1;
    }

    /// A loose flag of `colour` stands alone on the empty node `sq` again.
    fn set_down_flag(&mut self, colour: Colour, sq: Square) {
        self.loose[colour.index()] = None;
        self.counts[colour.index()][Kind::Flag.index()] -= 1;
        self.put(sq, Piece::new(colour, Kind::Flag), false);
    }

    /// An action naming one node twice: a flip of a face-down piece, or
    /// (`mountains`) an own piece entering the mountain beside it, or the
    /// piece in that mountain coming out onto the empty node.
    fn do_diagonal(&mut self, sq: Square) -> Effect {
        if self.hidden & sq.bit() != 0 || self.rules.mountains == crate::rules::Mountains::Closed {
            return self.do_flip(sq);
        }
        self.do_mountain_action(sq)
    }

    /// `mountains`: the piece on `sq` enters the mountain beside it, or the
    /// piece in that mountain comes out onto `sq`. Cold, as `do_carry_action`.
    #[cold]
    #[inline(never)]
    fn do_mountain_action(&mut self, sq: Square) -> Effect {
        let m = crate::board::mountain_of(sq).expect("a mountain action on a mountain's side");
        self.quiet += 1;
        match self.board[sq.index()] {
            Some(piece) => {
                self.remove(sq);
                self.counts[piece.colour.index()][piece.kind.index()] += 1;
                self.mountain[m] = Some(piece);
                Effect::Move { piece }
            }
            None => {
                let piece = self.mountain[m].take().expect("a piece in the mountain");
                self.counts[piece.colour.index()][piece.kind.index()] -= 1;
                self.put(sq, piece, false);
                Effect::Move { piece }
            }
        }
    }

    fn do_flip(&mut self, sq: Square) -> Effect {
        let piece = self.board[sq.index()].expect("flip of an empty node");
        self.hidden &= !sq.bit();
        self.quiet = 0;
        if self.seat1.is_none() {
            let flipper = piece.colour;
            let assign = match self.rules.color_rule {
                ColorRule::FirstFlip => true,
                ColorRule::TwoInARow => self.last_flip == Some(flipper),
            };
            if assign {
                // The flipper takes this colour.
                self.seat1 = Some(if self.turn == Seat::First { flipper } else { flipper.other() });
                self.last_flip = None;
            } else {
                self.last_flip = Some(flipper);
            }
        }
        Effect::Flip { piece }
    }

    fn do_move(&mut self, from: Square, to: Square) -> Effect {
        let attacker = self.board[from.index()].expect("move from an empty node");
        if self.occupied & to.bit() == 0 {
            self.relocate(from, to);
            self.quiet += 1;
            return Effect::Move { piece: attacker };
        }
        self.quiet = 0;
        let defender = self.board[to.index()].expect("attack on an unknown piece");
        let defender_was_hidden = self.hidden & to.bit() != 0;
        if defender_was_hidden {
            // attack_hidden: the defender is turned up first.
            self.hidden &= !to.bit();
            let capturable_flag = defender.kind != Kind::Flag
                || (self.flag_unguarded(defender.colour) && self.may_capture_flag(attacker.colour, attacker.kind));
            if defender.colour == attacker.colour || !capturable_flag {
                return Effect::Attack { attacker, defender, outcome: CombatOutcome::Bounced };
            }
        }
        let outcome = self.resolve_combat(attacker, defender);
        match outcome {
            CombatOutcome::AttackerWon => {
                self.remove(to);
                self.relocate(from, to);
            }
            CombatOutcome::DefenderWon | CombatOutcome::Scouted => self.remove(from),
            CombatOutcome::BothRemoved => {
                self.remove(from);
                self.remove(to);
            }
            CombatOutcome::FlagCaptured => {
                self.remove(to);
                // A bomb, or (混棋) a moving flag, goes with the flag it takes.
                if matches!(attacker.kind, Kind::Bomb | Kind::Flag) {
                    self.remove(from);
                } else {
                    self.relocate(from, to);
                }
            }
            CombatOutcome::Bounced => unreachable!("bounces return early"),
        }
        Effect::Attack { attacker, defender, outcome }
    }

    fn resolve_combat(&self, attacker: Piece, defender: Piece) -> CombatOutcome {
        let may_take_flag = defender.kind == Kind::Flag && self.may_capture_flag(attacker.colour, attacker.kind);
        combat(&self.rules, attacker.kind, defender.kind, may_take_flag)
    }

    // ---- end of game (§8) ----

    /// The result when it is decided without looking at legal moves (§8 steps 1–2).
    fn decided_by_material(&self) -> Option<Outcome> {
        let seat1 = self.seat1?;
        // 1. A flag was captured: flags only ever leave the board that way.
        for colour in Colour::ALL {
            if self.counts[colour.index()][Kind::Flag.index()] == 0 {
                let mut winner = if colour == seat1 { Seat::Second } else { Seat::First };
                if self.counts[colour.other().index()][Kind::Flag.index()] == 0 {
                    // 混棋: two moving flags removed each other; the side that
                    // just moved attacked, and took the enemy flag.
                    winner = self.turn.other();
                }
                return Some(Outcome { winner: Some(winner), termination: Termination::FlagCaptured });
            }
        }
        // 1'. flag_carry: a flag carried into its captor's own headquarters.
        if self.rules.flag_carry {
            if let Some(o) = self.flag_carried_home(seat1) {
                return Some(o);
            }
        }
        // 2. Movable pieces (officers, engineers, bombs; face-up or face-down).
        // (混棋: a flag that moves is a movable piece too.)
        let alive = |c: Colour| self.count_in(c, MOVABLE) > 0 || self.hunqi_flag_moves(c);
        match (alive(seat1), alive(seat1.other())) {
            (true, true) => None,
            (false, false) => Some(Outcome { winner: None, termination: Termination::NoMovablePieces }),
            (true, false) => Some(Outcome { winner: Some(Seat::First), termination: Termination::NoMovablePieces }),
            (false, true) => Some(Outcome { winner: Some(Seat::Second), termination: Termination::NoMovablePieces }),
        }
    }

    /// `flag_carry`: the win of a side that carried the enemy flag into
    /// its own headquarters, if one did. Cold, as `do_carry_action`.
    #[cold]
    #[inline(never)]
    fn flag_carried_home(&self, seat1: Colour) -> Option<Outcome> {
        for flag in Colour::ALL {
            if let Some(LooseFlag { at, carried: true }) = self.loose[flag.index()] {
                if at.bit() & home_headquarters(flag.other()) != 0 {
                    let winner = if flag == seat1 { Seat::Second } else { Seat::First };
                    return Some(Outcome { winner: Some(winner), termination: Termination::FlagCaptured });
                }
            }
        }
        None
    }

    /// §8 step 4.
    fn decided_by_counters(&self) -> Option<Outcome> {
        if self.quiet >= self.rules.no_progress_plies {
            Some(Outcome { winner: None, termination: Termination::QuietPlies })
        } else if self.ply >= self.rules.max_plies {
            Some(Outcome { winner: None, termination: Termination::MaxPlies })
        } else {
            None
        }
    }

    /// The game's result given how many legal actions the seat to move has
    /// (pass the count from [`Position::legal_moves`] to avoid generating twice).
    pub fn outcome_given(&self, legal_action_count: usize) -> Option<Outcome> {
        if let Some(o) = self.decided_by_material() {
            return Some(o);
        }
        let no_legal_move = Outcome { winner: Some(self.turn.other()), termination: Termination::NoLegalMove };
        if let Some(draw) = self.decided_by_counters() {
            // `legal_moves` lists nothing once the counters have run out, so the
            // count cannot tell step 3 from step 4 here: look at the raw actions
            // (rare: once per game at most).
            let mut list = MoveList::new();
            self.generate_actions(&mut list);
            return Some(if list.is_empty() { no_legal_move } else { draw });
        }
        if legal_action_count == 0 {
            return Some(no_legal_move);
        }
        None
    }

    /// The game's result, or `None` while it goes on (docs/rules.md §8, in order).
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.decided_by_material() {
            return Some(o);
        }
        let mut list = MoveList::new();
        self.generate_actions(&mut list);
        self.outcome_given(list.len())
    }

    pub fn is_game_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Legal actions of the seat to move, written into `out` (cleared first).
    /// Empty once the game is over.
    pub fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        if self.decided_by_material().is_some() {
            return;
        }
        self.generate_actions(out);
        if !out.is_empty() && self.decided_by_counters().is_some() {
            out.clear();
        }
    }

    /// All (square, piece, face-down) triples, for drawing and encoding.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Option<Piece>, bool)> + '_ {
        squares(self.occupied).map(move |sq| (sq, self.board[sq.index()], self.hidden & sq.bit() != 0))
    }

    /// The movable-kind pieces `colour` has left (for tests and reports).
    pub fn movable_count(&self, colour: Colour) -> u32 {
        self.count_in(colour, MOVABLE)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::jfen::to_jfen(self))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::jfen::to_jfen(self))
    }
}

/// The two headquarters of `colour`'s half of the board (docs/rules.md §1):
/// where its carrier must bring the enemy flag under `flag_carry`.
pub fn home_headquarters(colour: Colour) -> Bitboard {
    let half = match colour {
        Colour::Red => crate::board::RED_HALF,
        Colour::Black => crate::board::BLACK_HALF,
    };
    crate::board::HEADQUARTERS & half
}

/// The outcome of `attacker` moving onto `defender` (docs/rules.md §4, plus
/// `engineer_scout` of §5.1). `attacker_may_take_flag` says whether the rules
/// let this attacker capture a flag (see `bomb_captures_flag`, `flag_capturer`).
/// A pure function, shared by the referee and by information-set reasoning.
pub fn combat(rules: &Rules, attacker: Kind, defender: Kind, attacker_may_take_flag: bool) -> CombatOutcome {
    if rules.mode == Mode::Anqi && rules.engineer_scout && attacker == Kind::Engineer {
        return CombatOutcome::Scouted;
    }
    if attacker == Kind::Flag {
        // 混棋's moving flag: it takes a flag (and goes with it), trades
        // with a bomb and beats every officer (move generation offers no
        // other attack).
        return match defender {
            Kind::Flag => CombatOutcome::FlagCaptured,
            Kind::Bomb => CombatOutcome::BothRemoved,
            _ => CombatOutcome::AttackerWon,
        };
    }
    if defender == Kind::Flag {
        // In 暗棋/明棋 a flag attack the rules forbid costs the attacker (the
        // referee cannot refuse it without revealing the flag); in 翻棋 move
        // generation never offers one on a face-up flag.
        return if attacker_may_take_flag { CombatOutcome::FlagCaptured } else { CombatOutcome::DefenderWon };
    }
    if attacker == Kind::Bomb || defender == Kind::Bomb {
        return CombatOutcome::BothRemoved;
    }
    if defender == Kind::Mine {
        return match (attacker, rules.mine_rule) {
            (Kind::Engineer, _) => CombatOutcome::AttackerWon,
            (_, MineRule::Spring) => CombatOutcome::DefenderWon,
            (_, MineRule::Trade) => CombatOutcome::BothRemoved,
        };
    }
    // Two ranked pieces: a lower kind index is the stronger piece.
    use std::cmp::Ordering::*;
    match attacker.cmp(&defender) {
        Less => CombatOutcome::AttackerWon,
        Greater => CombatOutcome::DefenderWon,
        Equal => CombatOutcome::BothRemoved,
    }
}
