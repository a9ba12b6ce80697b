//! Determinization: a full [`Position`] (a possible truth) drawn from what one
//! seat knows, for information-set search (ISMCTS) and belief tests.
//!
//! [`InfoSet::sample_world`] keeps everything public exactly (occupied and
//! face-down squares, colours, turn, draw counters, own pieces) and fills in
//! only the hidden kinds:
//!
//! * 明棋: the view is the truth.
//! * 翻棋: the face-down pool (per colour and kind, public) is dealt uniformly
//!   at random onto the face-down squares, which stay face-down. Flipping a
//!   square in the world then reveals a kind drawn from the pool: exactly the
//!   chance node of a real flip. This is *exactly* uniform over the deals.
//! * 暗棋: every enemy piece on the board and every removed enemy piece gets
//!   a kind from its set ([`InfoSet::possible_kinds`], [`InfoSet::removed_enemy`])
//!   so that together they make up the full army of docs/rules.md §2, with at
//!   least one movable piece on the board (the game is not over) and, on the
//!   enemy's turn, one that can move. Drawn by weighted sequential choice
//!   (most constrained piece first), repaired by augmenting paths, then mixed
//!   by random kind swaps: near-uniform, see `KindAssigner` in the source for
//!   how near (at a deployment, per-node frequencies match the exact uniform
//!   law within 2σ over 20 000 draws). A consistent assignment is always
//!   found when one exists (the truth is one); when none exists (an
//!   inconsistent hand-made position) the pieces left over get any kind of
//!   their set, so the call never panics.
//!
//! [`InfoSet::sample_world_believing`] draws the 暗棋 enemy kinds from a
//! [`KindBelief`] instead (e.g. a network's belief head): the law of an
//! assignment is proportional to the product of its pieces' belief
//! weights, restricted to the same consistent assignments, so the belief
//! can shift the odds but never make a world that contradicts the
//! information set. Only the belief and the information set enter the
//! draw, never the true kinds.
//!
//! [`InfoSet::inconsistency`] asks the same assigner whether any world fits
//! at all (an engine behind the text protocol is handed hand-made sets), and
//! [`InfoSet::game_over`] whether the game goes on in one that does.
//!
//! Not used (yet): that the enemy 司令 is alive while its flag has not been
//! revealed under `reveal_flag_on_commander_loss`; the information set does
//! not narrow removed pieces by it, so neither do the worlds.

use crate::board::{squares, CAMPS, HEADQUARTERS};
use crate::infoset::InfoSet;
use crate::piece::{Colour, Kind, KindSet, Piece, ALL_KINDS, KINDS, MOVABLE};
use crate::position::Position;
use crate::rules::Mode;
use crate::setup::back_ranks;
use rand::Rng;

/// Most pieces the 暗棋 assigner handles (on the board plus removed): a side
/// has 25; anything beyond this many is ignored (never happens in play).
const MAX_ITEMS: usize = 64;
const UNASSIGNED: u8 = u8::MAX;

impl InfoSet {
    /// A full position consistent with this information set, drawn with `rng`
    /// (see the [module docs](crate::determinize)). The same `rng` state gives
    /// the same world.
    pub fn sample_world<R: Rng + ?Sized>(&self, rng: &mut R) -> Position {
        self.sample_world_believing(rng, None)
    }

    /// [`InfoSet::sample_world`], with the 暗棋 enemy pieces on the board
    /// weighted by `belief` (see the [module docs](crate::determinize));
    /// `None`, or any other mode, draws as `sample_world` does.
    pub fn sample_world_believing<R: Rng + ?Sized>(&self, rng: &mut R, belief: Option<&KindBelief>) -> Position {
        let mut world = self.view().clone();
        match self.mode() {
            Mode::Mingqi => {}
            Mode::Fanqi => self.deal_face_down(&mut world, rng),
            Mode::Anqi => self.assign_enemy_kinds(&mut world, rng, belief),
        }
        world
    }

    /// Why no true position fits this information set, or `None` when one
    /// does: in 暗棋 and 明棋 flags stand in a headquarters and mines on
    /// their side's two back ranks (they never move from where deployment put
    /// them), and in 暗棋 the enemy pieces on the board and removed, each of
    /// a kind of its set, make up the army of docs/rules.md §2; in every
    /// mode the history is one a game reaches ([`crate::History::inconsistency`]).
    /// Every set the referee keeps passes (the truth fits); a hand-made one may not.
    pub fn inconsistency(&self) -> Option<String> {
        let view = self.view();
        if let Some(why) = self.history().inconsistency(view.quiet()) {
            return Some(why);
        }
        if self.mode() == Mode::Fanqi {
            return None; // dealt anywhere; the pool is checked by the position's counts
        }
        for sq in squares(view.occupied) {
            if let Some(p) = view.piece_at(sq) {
                if placeable(sq, p.colour) & p.kind.bit() == 0 {
                    return Some(format!("{} {} on {sq}: {}", Colour::name(p.colour), p.kind.english(), why(p.kind)));
                }
            }
        }
        let enemy = match (self.mode(), view.colour_of(self.seat().other())) {
            (Mode::Anqi, Some(enemy)) => enemy,
            _ => return None,
        };
        let on_board = view.colour_bb(enemy);
        let total = on_board.count_ones() as usize + self.removed_enemy().len();
        if total > 25 {
            return Some(format!(
                "{} enemy pieces on the board and {} removed, but an army has 25",
                on_board.count_ones(),
                self.removed_enemy().len()
            ));
        }
        let mut assigner = KindAssigner::new();
        for sq in squares(on_board) {
            // An empty set (the piece that took a flag, in a finished game): any kind.
            let set = self.possible_kinds(sq);
            let set = if set == 0 { ALL_KINDS } else { set } & placeable(sq, enemy);
            if set == 0 {
                return Some(format!("the enemy piece on {sq} can be no kind: a flag or mine cannot stand there"));
            }
            assigner.push(set, 0);
        }
        for &set in self.removed_enemy() {
            assigner.push(if set == 0 { ALL_KINDS & !Kind::Flag.bit() } else { set }, 0);
        }
        let mut full_army = [0u8; KINDS];
        for kind in Kind::ALL {
            full_army[kind.index()] = kind.count();
        }
        // Complete (augmenting paths): false only when no assignment exists.
        if !assigner.try_assign(&full_army, &mut crate::rng_from_seed(0)) {
            return Some("no army of 25 fits the kinds of the enemy pieces on the board and removed".into());
        }
        None
    }

    /// Whether the game is over in every world that fits (a flag captured,
    /// a side without a piece that can move, the draw counters run out): a
    /// finished game, in which no bot may be asked to act. Only meaningful
    /// for a consistent set ([`InfoSet::inconsistency`]).
    pub fn game_over(&self) -> bool {
        // The assigner insists on a world where the game goes on when one exists.
        self.sample_world(&mut crate::rng_from_seed(0)).outcome().is_some()
    }

    /// 翻棋: shuffle the unseen pool onto the face-down squares.
    fn deal_face_down<R: Rng + ?Sized>(&self, world: &mut Position, rng: &mut R) {
        let mut pool = [Piece::new(Colour::Red, Kind::Flag); 2 * 25];
        let mut n = 0;
        for colour in Colour::ALL {
            for kind in Kind::ALL {
                for _ in 0..self.unseen(colour, kind) {
                    if n < pool.len() {
                        pool[n] = Piece::new(colour, kind);
                        n += 1;
                    }
                }
            }
        }
        // Fisher–Yates, one square at a time.
        for (i, sq) in squares(world.hidden).enumerate() {
            if i >= n {
                break; // a pool smaller than the face-down squares: cannot happen in play
            }
            let j = rng.random_range(i..n);
            pool.swap(i, j);
            world.place_hidden_kind(sq, pool[i]);
        }
    }

    /// 暗棋: draw kinds for the enemy pieces (on the board and removed).
    fn assign_enemy_kinds<R: Rng + ?Sized>(&self, world: &mut Position, rng: &mut R, belief: Option<&KindBelief>) {
        let Some(enemy) = world.colour_of(self.seat().other()) else { return };
        let mut assigner = KindAssigner::new();
        assigner.weighted = belief.is_some();
        let on_board = world.colour_bb(enemy);
        // While the game goes on the enemy has a movable piece on the board, and
        // on its turn one that can move (what it may reach does not depend on
        // the kinds we do not know, except through who flies).
        let enemy_to_move = world.colour_of(world.turn()) == Some(enemy);
        let targets = !world.occupied | (world.colour_bb(enemy.other()) & !CAMPS);
        for sq in squares(on_board) {
            let set = self.possible_kinds(sq);
            let need = if !enemy_to_move {
                MOVABLE
            } else if world.rules.hq_locked && HEADQUARTERS & sq.bit() != 0 {
                0
            } else {
                Kind::in_set(MOVABLE).filter(|&k| world.reach(sq, k) & targets != 0).fold(0, |s, k| s | k.bit())
            };
            assigner.push(if set == 0 { ALL_KINDS } else { set }, need);
            if let Some(b) = belief {
                assigner.set_weights(assigner.len - 1, &b.weights(sq.index()));
            }
        }
        for &set in self.removed_enemy() {
            assigner.push(if set == 0 { ALL_KINDS & !Kind::Flag.bit() } else { set }, 0);
        }
        let mut full_army = [0u8; KINDS];
        for kind in Kind::ALL {
            full_army[kind.index()] = kind.count();
        }
        assigner.assign(&full_army, rng);
        world.mines &= !on_board;
        world.flags &= !on_board;
        world.counts[enemy.index()] = [0; KINDS];
        for (i, sq) in squares(on_board).enumerate() {
            let kind = assigner.kind(i);
            let piece = Piece::new(enemy, kind);
            world.board[sq.index()] = Some(piece);
            match kind {
                Kind::Mine => world.mines |= sq.bit(),
                Kind::Flag => world.flags |= sq.bit(),
                _ => {}
            }
            world.counts[enemy.index()][kind.index()] += 1;
        }
    }
}

/// Kinds of `colour` that may stand on `sq` in 暗棋/明棋 whatever has
/// happened: flags and mines never move, so a flag is in one of its side's
/// headquarters and a mine on its side's two back ranks.
fn placeable(sq: crate::board::Square, colour: Colour) -> KindSet {
    let mut set = ALL_KINDS;
    if HEADQUARTERS & back_ranks(colour) & sq.bit() == 0 {
        set &= !Kind::Flag.bit();
    }
    if back_ranks(colour) & sq.bit() == 0 {
        set &= !Kind::Mine.bit();
    }
    set
}

fn why(kind: Kind) -> &'static str {
    match kind {
        Kind::Flag => "a flag never moves from its side's headquarters",
        _ => "a mine never moves from its side's two back ranks",
    }
}

/// A distribution over the kind of the piece on each node, e.g. a
/// network's belief about the enemy's hidden pieces ([`Kind::index`]
/// order). The two-player one ([`KindBelief::empty`]) is indexed by
/// absolute squares ([`crate::Square::index`]); the four-player game's
/// ([`KindBelief::with_nodes`]) by its absolute nodes. Nodes it says
/// nothing about hold all zeros (then every kind weighs the same).
#[derive(Clone, Debug, PartialEq)]
pub struct KindBelief {
    pub probs: Box<[[f32; KINDS]]>,
}

/// Every kind keeps at least this weight, so a confident but wrong belief
/// slows the draw down but never starves a consistent assignment.
const BELIEF_FLOOR: f32 = 1e-3;

impl KindBelief {
    /// A two-player belief (one entry per square) with nothing in it.
    pub fn empty() -> KindBelief {
        KindBelief::with_nodes(crate::board::NODES)
    }

    /// A belief over `nodes` nodes with nothing in it (all zeros).
    pub fn with_nodes(nodes: usize) -> KindBelief {
        KindBelief { probs: vec![[0.0; KINDS]; nodes].into_boxed_slice() }
    }

    /// The draw weights of the piece on node `node`: its probabilities
    /// (non-finite or negative ones as 0) plus a small floor; a node past
    /// the belief's end weighs every kind the same.
    pub fn weights(&self, node: usize) -> [f32; KINDS] {
        let probs = self.probs.get(node).copied().unwrap_or([0.0; KINDS]);
        probs.map(|p| if p.is_finite() && p > 0.0 { p + BELIEF_FLOOR } else { BELIEF_FLOOR })
    }
}

impl Position {
    /// Give a face-down square of a view its (sampled) piece; it stays face-down.
    /// Piece counts already include face-down pieces.
    fn place_hidden_kind(&mut self, sq: crate::Square, piece: Piece) {
        self.board[sq.index()] = Some(piece);
        self.by_colour[piece.colour.index()] |= sq.bit();
        match piece.kind {
            Kind::Mine => self.mines |= sq.bit(),
            Kind::Flag => self.flags |= sq.bit(),
            _ => {}
        }
    }
}

/// Draws kinds for a list of pieces, each with a set of possible kinds, so
/// that every kind is used at most its count (exactly, when the counts add up
/// to the number of pieces), and at least one piece meets its `need` (a piece
/// on the board that is movable, or on the enemy's turn one that can move).
///
/// How: (1) pieces in order of fewest possible kinds first (ties in random
/// order), each takes a kind of its set with probability proportional to the
/// pieces of that kind still unassigned; (2) a piece whose kinds are all used
/// up gets one by an augmenting path (Kuhn's algorithm on kinds with
/// capacities), so a complete assignment is found whenever one exists;
/// (3) `4 × pieces` Metropolis proposals to swap the kinds of two random
/// pieces (accepted when both kinds fit the other's set and some piece still
/// meets its need). The swaps are a symmetric chain whose stationary law
/// is uniform over the assignments it connects, so they wash out most of the
/// bias of steps 1–2. Not exactly uniform: assignments that differ only by a
/// rotation of three or more kinds are not linked by single swaps, and 4
/// sweeps do not fully mix. Checked against the exact law at a 暗棋
/// deployment, where the consistent worlds are the legal deployments (test
/// `anqi_sampling_at_deployment_is_near_uniform` in `tests/determinize.rs`):
/// over 20 000 draws, flag on an HQ 0.502 (exact 1/2), mine on a corner 0.333
/// (1/3), mine on an HQ 0.167 (1/6), bomb on a mid post 0.125 (1/8), 司令 on a
/// mid post 0.044 (0.046), all within 2σ of sampling noise.
struct KindAssigner {
    sets: [KindSet; MAX_ITEMS],
    /// The "one piece can move" constraint: at least one piece `i` (when any
    /// has a non-zero mask) gets a kind in `need[i]`.
    need: [KindSet; MAX_ITEMS],
    kind: [u8; MAX_ITEMS],
    len: usize,
    left: [u8; KINDS],
    /// Whether [`KindAssigner::weight`] is used: the law is then ∝ the
    /// product of the chosen kinds' weights (steps 1 and 3 weigh by them).
    weighted: bool,
    weight: [[f32; KINDS]; MAX_ITEMS],
}

impl KindAssigner {
    fn new() -> KindAssigner {
        KindAssigner {
            sets: [0; MAX_ITEMS],
            need: [0; MAX_ITEMS],
            kind: [UNASSIGNED; MAX_ITEMS],
            len: 0,
            left: [0; KINDS],
            weighted: false,
            weight: [[1.0; KINDS]; MAX_ITEMS],
        }
    }

    fn set_weights(&mut self, i: usize, weights: &[f32; KINDS]) {
        if i < MAX_ITEMS {
            self.weight[i] = *weights;
        }
    }

    fn push(&mut self, set: KindSet, need: KindSet) {
        if self.len < MAX_ITEMS {
            self.sets[self.len] = set;
            self.need[self.len] = need;
            self.len += 1;
        }
    }

    /// The kind drawn for piece `i` (after [`KindAssigner::assign`]).
    fn kind(&self, i: usize) -> Kind {
        Kind::from_index(self.kind[i] as usize).unwrap_or(Kind::Flag)
    }

    /// Pieces whose kind meets their `need` mask.
    fn needs_met(&self) -> usize {
        (0..self.len).filter(|&i| self.kind[i] != UNASSIGNED && self.need[i] >> self.kind[i] & 1 != 0).count()
    }

    fn constrained(&self) -> bool {
        self.need[..self.len].iter().any(|&n| n != 0)
    }

    fn assign<R: Rng + ?Sized>(&mut self, counts: &[u8; KINDS], rng: &mut R) {
        let original = self.sets;
        if !self.try_assign(counts, rng) {
            self.fill_leftovers(rng);
            return;
        }
        if self.constrained() && self.needs_met() == 0 {
            // Insist on one piece meeting its need, trying the pieces that may
            // in random order.
            let mut candidates = [0usize; MAX_ITEMS];
            let mut n = 0;
            for (i, (set, need)) in original.iter().zip(&self.need).enumerate().take(self.len) {
                if set & need != 0 {
                    candidates[n] = i;
                    n += 1;
                }
            }
            let mut found = false;
            for k in 0..n {
                let pick = rng.random_range(k..n);
                candidates.swap(k, pick);
                let i = candidates[k];
                self.sets = original;
                self.sets[i] &= self.need[i];
                if self.try_assign(counts, rng) {
                    found = true;
                    break;
                }
            }
            self.sets = original;
            if !found {
                let _ = self.try_assign(counts, rng);
                return;
            }
        }
        self.sets = original;
        self.swap_chain(rng);
    }

    /// Steps 1–2; false when some piece could not be given a kind.
    fn try_assign<R: Rng + ?Sized>(&mut self, counts: &[u8; KINDS], rng: &mut R) -> bool {
        self.left = *counts;
        let n = self.len;
        self.kind[..n].fill(UNASSIGNED);
        // Most constrained first, ties in random order.
        let mut order = [0u8; MAX_ITEMS];
        for (i, o) in order.iter_mut().enumerate().take(n) {
            *o = i as u8;
        }
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let sets = self.sets;
        if self.weighted {
            // Most confident first (the largest share of one kind in the
            // piece's weights over its set; uniform weights make this the
            // fewest kinds first), so what the belief is sure of is placed
            // before other pieces use those kinds up.
            let share = |i: u8| {
                let w = &self.weight[i as usize];
                let set = sets[i as usize];
                let (top, sum) =
                    Kind::in_set(set).map(|k| w[k.index()]).fold((0f32, 0f32), |(t, s), x| (t.max(x), s + x));
                if sum > 0.0 {
                    top / sum
                } else {
                    0.0
                }
            };
            order[..n].sort_by(|&a, &b| share(b).total_cmp(&share(a)));
        } else {
            order[..n].sort_by_key(|&i| sets[i as usize].count_ones());
        }
        let mut complete = true;
        for &i in &order[..n] {
            let i = i as usize;
            let set = self.sets[i];
            let total: u32 = (0..KINDS).filter(|&k| set >> k & 1 != 0).map(|k| self.left[k] as u32).sum();
            if total > 0 && self.weighted {
                self.kind[i] = self.draw_weighted(i, set, rng);
                self.left[self.kind[i] as usize] -= 1;
            } else if total > 0 {
                let mut r = rng.random_range(0..total);
                for k in (0..KINDS).filter(|&k| set >> k & 1 != 0) {
                    let w = self.left[k] as u32;
                    if r < w {
                        self.kind[i] = k as u8;
                        self.left[k] -= 1;
                        break;
                    }
                    r -= w;
                }
            } else if !self.augment(i) {
                complete = false;
            }
        }
        complete
    }

    /// A kind of `set` with pieces left, with probability ∝ pieces left ×
    /// piece `i`'s weight (the caller made sure some kind has pieces left).
    fn draw_weighted<R: Rng + ?Sized>(&self, i: usize, set: KindSet, rng: &mut R) -> u8 {
        let w = |k: usize| self.left[k] as f32 * self.weight[i][k];
        let total: f32 = (0..KINDS).filter(|&k| set >> k & 1 != 0).map(w).sum();
        let mut r = rng.random::<f32>() * total;
        let mut last = UNASSIGNED;
        for k in (0..KINDS).filter(|&k| set >> k & 1 != 0 && self.left[k] > 0) {
            last = k as u8;
            if r < w(k) {
                break;
            }
            r -= w(k);
        }
        last
    }

    /// Kuhn's augmenting path for piece `start`: move assigned pieces along a
    /// chain of kinds until one with a free slot is reached.
    fn augment(&mut self, start: usize) -> bool {
        const NONE: u8 = u8::MAX;
        // via[k] = (piece that moves into kind k, the kind it leaves).
        let mut via = [(NONE, NONE); KINDS];
        let mut queue = [0u8; KINDS];
        let (mut head, mut tail) = (0, 0);
        for k in Kind::in_set(self.sets[start]) {
            via[k.index()] = (start as u8, NONE);
            queue[tail] = k.index() as u8;
            tail += 1;
        }
        while head < tail {
            let k = queue[head] as usize;
            head += 1;
            if self.left[k] > 0 {
                // Unwind: each piece on the path moves into the kind it reached.
                let mut cur = k;
                self.left[k] -= 1;
                loop {
                    let (piece, from) = via[cur];
                    self.kind[piece as usize] = cur as u8;
                    if from == NONE {
                        return true;
                    }
                    cur = from as usize;
                }
            }
            for j in 0..self.len {
                if self.kind[j] as usize != k {
                    continue;
                }
                for k2 in Kind::in_set(self.sets[j]) {
                    if via[k2.index()].0 == NONE {
                        via[k2.index()] = (j as u8, k as u8);
                        queue[tail] = k2.index() as u8;
                        tail += 1;
                    }
                }
            }
        }
        false
    }

    /// Step 3: Metropolis swaps between two pieces' kinds.
    fn swap_chain<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let n = self.len;
        if n < 2 {
            return;
        }
        let constrained = self.constrained();
        let mut met = self.needs_met();
        let meets = |need: KindSet, kind: u8| (need >> kind & 1) as usize;
        for _ in 0..4 * n {
            let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
            let (ki, kj) = (self.kind[i], self.kind[j]);
            if ki == kj || self.sets[i] >> kj & 1 == 0 || self.sets[j] >> ki & 1 == 0 {
                continue;
            }
            let after = met + meets(self.need[i], kj) + meets(self.need[j], ki)
                - meets(self.need[i], ki)
                - meets(self.need[j], kj);
            if constrained && after == 0 {
                continue;
            }
            if self.weighted {
                // Metropolis: accept with the ratio of the weights after and before.
                let (wi, wj) = (&self.weight[i], &self.weight[j]);
                let ratio = wi[kj as usize] * wj[ki as usize] / (wi[ki as usize] * wj[kj as usize]);
                if ratio < 1.0 && rng.random::<f32>() >= ratio {
                    continue;
                }
            }
            met = after;
            self.kind.swap(i, j);
        }
    }

    /// No complete assignment exists: give every piece left over a kind of its set.
    fn fill_leftovers<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        for i in 0..self.len {
            if self.kind[i] == UNASSIGNED {
                let set = if self.sets[i] == 0 { ALL_KINDS } else { self.sets[i] };
                let options = set.count_ones();
                let pick = rng.random_range(0..options) as usize;
                self.kind[i] = Kind::in_set(set).nth(pick).map_or(0, |k| k.index() as u8);
            }
        }
    }
}
