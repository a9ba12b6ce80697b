//! Legal-action generation (docs/rules.md §3, §5.3) into a caller-supplied buffer.
//!
//! Destinations are built as bitboards: one-step neighbours, straight rail
//! runs (ray + first blocker) or engineer flights (flood fill over empty
//! railway nodes), intersected with the set of nodes that kind of piece may
//! enter. A bitboard has no duplicates, so a node reached both by a step and
//! by a rail run is emitted once.

use crate::board::{
    flight_targets, rail_run_targets, squares, Bitboard, Square, ADJACENT, ALL, CAMPS, HEADQUARTERS, MOUNTAIN_SIDES,
    RAILWAY,
};
use crate::moves::{Move, MoveList};
use crate::piece::{Colour, Kind, KINDS};
use crate::position::{LooseFlag, Position};
use crate::rules::{Mode, Mountains, RailTurns};

impl Position {
    /// Does a piece of `kind` fly along the railway like an engineer?
    #[inline]
    pub(crate) fn flies(&self, kind: Kind) -> bool {
        match self.rules.rail_turns {
            RailTurns::All => true,
            RailTurns::Engineer => kind == Kind::Engineer || (kind == Kind::Bomb && self.rules.bomb_flies),
            RailTurns::None => kind == Kind::Bomb && self.rules.bomb_flies,
        }
    }

    /// Nodes a piece of `kind` on `from` can reach on an otherwise given board,
    /// ignoring what stands on them (steps, rail runs or flights).
    #[inline]
    pub(crate) fn reach(&self, from: Square, kind: Kind) -> Bitboard {
        let mut dest = ADJACENT[from.index()];
        if from.bit() & RAILWAY != 0 {
            dest |= if self.flies(kind) {
                flight_targets(from, self.occupied)
            } else {
                rail_run_targets(from, self.occupied)
            };
        }
        dest
    }

    /// For each kind of `colour`, the nodes it may move onto: empty nodes plus
    /// the enemy pieces it may attack.
    fn target_masks(&self, colour: Colour) -> [Bitboard; KINDS] {
        let empty = ALL & !self.occupied;
        // A piece in a camp cannot be attacked.
        let enemy = self.by_colour[colour.other().index()] & !self.hidden & !CAMPS;
        let mut masks = [0; KINDS];
        if self.rules.mode != Mode::Fanqi {
            // Hidden or not, any enemy piece outside a camp may be attacked:
            // what happens is decided by combat (§4).
            masks.fill(empty | enemy);
            return masks;
        }
        let enemy_mines = enemy & self.mines;
        let enemy_flag = if self.flag_unguarded(colour.other()) { enemy & self.flags } else { 0 };
        let ordinary = (enemy & !self.mines & !self.flags) | empty;
        let face_down = if self.rules.attack_hidden { self.hidden } else { 0 };
        for kind in Kind::ALL {
            if !kind.is_movable() {
                continue;
            }
            let mut m = ordinary | face_down;
            if matches!(kind, Kind::Engineer | Kind::Bomb) {
                m |= enemy_mines;
            }
            let takes_flag = if self.rules.flag_carry {
                self.may_carry_flag(colour, kind)
            } else {
                self.may_capture_flag(colour, kind)
            };
            if enemy_flag != 0 && takes_flag {
                m |= enemy_flag;
            }
            masks[kind.index()] = m;
        }
        masks
    }

    /// Every action of the seat to move, ignoring whether the game is over.
    pub(crate) fn generate_actions(&self, out: &mut MoveList) {
        out.clear();
        // 翻棋: any face-down piece may be flipped.
        for sq in squares(self.hidden) {
            out.push(Move::flip(sq));
        }
        let Some(colour) = self.colour_of(self.turn) else {
            return; // Colours unassigned: flips only.
        };
        if self.rules.hunqi {
            return self.hunqi_actions(colour, out);
        }
        let targets = self.target_masks(colour);
        let mut movers = self.by_colour[colour.index()] & !self.hidden & !self.mines & !self.flags;
        if self.rules.hq_locked {
            movers &= !HEADQUARTERS;
        }
        for from in squares(movers) {
            // Views may hold own pieces only, so a mover's kind is always known.
            let Some(piece) = self.board[from.index()] else { continue };
            let dest = self.reach(from, piece.kind) & targets[piece.kind.index()];
            for to in squares(dest) {
                out.push(Move::new(from, to));
            }
        }
        // flag_carry: a carrier may put its flag down (its own node twice).
        let carrier = match self.loose[colour.other().index()] {
            Some(LooseFlag { at, carried: true }) => {
                if movers & at.bit() != 0 {
                    out.push(Move::flip(at));
                }
                at.bit()
            }
            _ => 0,
        };
        if self.rules.mountains != Mountains::Closed {
            self.mountain_actions(colour, movers & !carrier, out);
        }
    }

    /// 混棋 (`hunqi`, docs/rules.md §5.3 混棋): the moves of `colour`'s
    /// face-up pieces, its flag among them once it moves, onto empty nodes
    /// and the face-up enemies [`Position::hunqi_may_attack`] allows (the
    /// flips are already in `out`). Cold: off the default rules' path.
    #[cold]
    #[inline(never)]
    fn hunqi_actions(&self, colour: Colour, out: &mut MoveList) {
        let enemy = self.by_colour[colour.other().index()] & !self.hidden & !CAMPS;
        let open = (ALL & !self.occupied) | enemy;
        let mut movers = self.by_colour[colour.index()] & !self.hidden & !self.mines;
        if !self.hunqi_flag_moves(colour) {
            movers &= !self.flags;
        }
        for from in squares(movers) {
            let Some(piece) = self.board[from.index()] else { continue };
            for to in squares(self.reach(from, piece.kind) & open) {
                match self.board[to.index()] {
                    Some(defender) if self.occupied & to.bit() != 0 => {
                        if self.hunqi_may_attack(piece.kind, defender) {
                            out.push(Move::new(from, to));
                        }
                    }
                    _ => out.push(Move::new(from, to)),
                }
            }
        }
        if self.rules.mountains != Mountains::Closed {
            self.mountain_actions(colour, movers, out);
        }
    }

    /// `mountains` (山界): an own piece on a mountain's side enters it (its
    /// node twice) when the mountain is empty; the own piece in a mountain
    /// comes out onto any empty node of its side (that node twice).
    #[cold]
    #[inline(never)]
    fn mountain_actions(&self, colour: Colour, movers: Bitboard, out: &mut MoveList) {
        for (m, &side) in MOUNTAIN_SIDES.iter().enumerate() {
            match self.mountain[m] {
                None => {
                    for sq in squares(movers & side) {
                        if self.board[sq.index()].is_some_and(|p| self.rules.mountains.admits(p.kind)) {
                            out.push(Move::flip(sq));
                        }
                    }
                }
                Some(p) if p.colour == colour => {
                    for sq in squares(side & !self.occupied) {
                        out.push(Move::flip(sq));
                    }
                }
                Some(_) => {}
            }
        }
    }
}
