//! Determinization (docs/rules.md §10.13): a full [`Position`] drawn from
//! what one seat knows, for information-set search.
//!
//! [`SiguoInfoSet::sample_world`] keeps everything public exactly (where
//! every piece stands and whose it is, the ended armies, the turn, the
//! counters, the result) and the kinds the seat sees, and gives every other
//! piece a kind: for each live army whose kinds the seat does not see, its
//! pieces on the board and its removed pieces each get a kind of their set
//! ([`SiguoInfoSet::possible_kinds`], [`SiguoInfoSet::removed`]) so that
//! together they are exactly the 25 pieces of §2. The sets already hold the
//! deployment rules (§10.5), the moves, the rulings and 司令阵亡.
//!
//! Drawn piece by piece in a random order, each kind with weight its
//! remaining count, a kind kept only when the pieces left can still be
//! completed (a bipartite matching of pieces to the kinds left); then mixed
//! by random swaps of two pieces' kinds where both sets allow it, which
//! leaves the uniform law over consistent worlds invariant. So the draw
//! always succeeds when any consistent world exists (the truth is one) and
//! is close to uniform, not exactly so. When the army to move is one the
//! seat does not see and the draw leaves it no legal move, it is drawn again
//! (up to 256 times): the referee gave it the turn, so it had one.
//! The same `rng` state gives the same world.
//!
//! [`SiguoInfoSet::sample_world_believing`] draws from a [`KindBelief`] (a
//! four-player net's belief head, by absolute node) the same way the
//! two-player 暗棋 determinization does: each piece's kind is picked with
//! weight its remaining count times its belief weight, the swaps accepted
//! by the ratio of the weights, so among the same consistent worlds one is
//! the likelier the more the belief believes it; only the belief and the
//! information set enter the draw, never the true kinds.

use crate::board::{Army, Node};
use crate::infoset::SiguoInfoSet;
use crate::position::{Piece, Position};
use junqi_core::piece::{Kind, KindSet, KINDS};
use junqi_core::KindBelief;
use rand::seq::SliceRandom;
use rand::Rng;

/// Why no world fits an information set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeterminizeError {
    #[error("{army}: no assignment of kinds makes its 25 pieces ({pieces} tracked) fit what the seat knows")]
    NoAssignment { army: Army, pieces: usize },
    #[error("{army} is to move but no world drawn gave it a legal move")]
    NoMoveForTurn { army: Army },
}

/// Assign kinds to `sets` so that kind `k` is used exactly `need[k]` times;
/// `fixed[i]` (when `Some`) pins item `i`. Kuhn's augmenting paths over the
/// kinds' slots. Returns the assignment or `None`.
fn complete(sets: &[KindSet], need: &[u8; KINDS], fixed: &[Option<Kind>]) -> Option<Vec<Kind>> {
    let mut left = *need;
    for k in fixed.iter().flatten() {
        if left[k.index()] == 0 {
            return None;
        }
        left[k.index()] -= 1;
    }
    // Slot s belongs to kind slot_kind[s].
    let slot_kind: Vec<Kind> =
        Kind::ALL.iter().flat_map(|&k| std::iter::repeat_n(k, left[k.index()] as usize)).collect();
    let free: Vec<usize> = (0..sets.len()).filter(|&i| fixed[i].is_none()).collect();
    if free.len() != slot_kind.len() {
        return None;
    }
    let mut owner: Vec<Option<usize>> = vec![None; slot_kind.len()];
    fn augment(i: usize, sets: &[KindSet], slot_kind: &[Kind], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
        for s in 0..slot_kind.len() {
            if seen[s] || sets[i] & slot_kind[s].bit() == 0 {
                continue;
            }
            seen[s] = true;
            if owner[s].is_none_or(|j| augment(j, sets, slot_kind, owner, seen)) {
                owner[s] = Some(i);
                return true;
            }
        }
        false
    }
    for &i in &free {
        let mut seen = vec![false; slot_kind.len()];
        if !augment(i, sets, &slot_kind, &mut owner, &mut seen) {
            return None;
        }
    }
    let mut out: Vec<Kind> = fixed.iter().map(|f| f.unwrap_or(Kind::Flag)).collect();
    for (s, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            out[*i] = slot_kind[s];
        }
    }
    Some(out)
}

/// A kind of `candidates` (each with pieces `left`), with probability ∝
/// pieces left, times `weight`'s entry where given (a belief's).
fn pick<R: Rng + ?Sized>(candidates: &[Kind], left: &[u8; KINDS], weight: Option<&[f32; KINDS]>, rng: &mut R) -> Kind {
    let Some(w) = weight else {
        let total: u32 = candidates.iter().map(|k| left[k.index()] as u32).sum();
        let mut r = rng.random_range(0..total);
        for &k in candidates {
            let n = left[k.index()] as u32;
            if r < n {
                return k;
            }
            r -= n;
        }
        return candidates[0];
    };
    let share = |k: Kind| left[k.index()] as f32 * w[k.index()];
    let total: f32 = candidates.iter().map(|&k| share(k)).sum();
    let mut r = rng.random::<f32>() * total;
    for &k in candidates {
        if r < share(k) {
            return k;
        }
        r -= share(k);
    }
    *candidates.last().expect("a candidate")
}

/// A random assignment of kinds to `sets` with exactly the army's counts;
/// with `weights` (one row per item, a belief's), each assignment's odds
/// are multiplied by the product of its items' weights.
fn draw<R: Rng + ?Sized>(sets: &[KindSet], weights: Option<&[[f32; KINDS]]>, rng: &mut R) -> Option<Vec<Kind>> {
    let need = SiguoInfoSet::composition();
    complete(sets, &need, &vec![None; sets.len()])?;
    let mut fixed: Vec<Option<Kind>> = vec![None; sets.len()];
    let mut order: Vec<usize> = (0..sets.len()).collect();
    order.shuffle(rng);
    let mut left = need;
    for i in order {
        let mut allowed = sets[i];
        loop {
            let candidates: Vec<Kind> = Kind::in_set(allowed).filter(|k| left[k.index()] > 0).collect();
            if candidates.is_empty() {
                return None; // cannot happen: the rest was completable
            }
            let chosen = pick(&candidates, &left, weights.map(|w| &w[i]), rng);
            fixed[i] = Some(chosen);
            if complete(sets, &need, &fixed).is_some() {
                left[chosen.index()] -= 1;
                break;
            }
            fixed[i] = None;
            allowed &= !chosen.bit();
        }
    }
    let mut kinds: Vec<Kind> = fixed.into_iter().map(|k| k.expect("every piece drawn")).collect();
    // Mix: swap two pieces' kinds where both sets allow it (weighted:
    // Metropolis, accepted with the ratio of the weights after and before).
    let n = kinds.len();
    if n >= 2 {
        for _ in 0..8 * n {
            let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
            let (a, b) = (kinds[i], kinds[j]);
            if a == b || sets[i] & b.bit() == 0 || sets[j] & a.bit() == 0 {
                continue;
            }
            if let Some(w) = weights {
                let ratio = w[i][b.index()] * w[j][a.index()] / (w[i][a.index()] * w[j][b.index()]);
                if ratio < 1.0 && rng.random::<f32>() >= ratio {
                    continue;
                }
            }
            kinds.swap(i, j);
        }
    }
    Some(kinds)
}

impl SiguoInfoSet {
    /// The pieces of `army` the draw assigns: its nodes, then its removed sets.
    fn items(&self, army: Army) -> (Vec<Node>, Vec<KindSet>) {
        let nodes: Vec<Node> = self.pieces().filter(|&(_, a, _)| a == army).map(|(n, _, _)| n).collect();
        let sets = nodes.iter().map(|&n| self.possible_kinds(n)).chain(self.removed(army).iter().copied()).collect();
        (nodes, sets)
    }

    /// The armies whose kinds are drawn: live ones the seat does not see.
    fn hidden_armies(&self) -> impl Iterator<Item = Army> + '_ {
        Army::ALL.into_iter().filter(|&a| !self.sees(a) && self.ended(a).is_none())
    }

    /// Why no world fits this information set, or `None` when one does.
    pub fn inconsistency(&self) -> Option<DeterminizeError> {
        for army in self.hidden_armies() {
            let (_, sets) = self.items(army);
            if complete(&sets, &SiguoInfoSet::composition(), &vec![None; sets.len()]).is_none() {
                return Some(DeterminizeError::NoAssignment { army, pieces: sets.len() });
            }
        }
        None
    }

    /// A full position consistent with this information set, drawn with
    /// `rng` (see the [module docs](crate::determinize)).
    pub fn sample_world<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Position, DeterminizeError> {
        self.sample_world_believing(rng, None)
    }

    /// [`SiguoInfoSet::sample_world`] with the kinds of the pieces on the
    /// board weighted by `belief` (indexed by absolute node, e.g. a net's
    /// belief head): among the same consistent worlds, each one's odds
    /// times the product of its pieces' belief weights
    /// ([`KindBelief::weights`]; removed pieces weigh every kind alike).
    /// `None` draws as `sample_world` does.
    pub fn sample_world_believing<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        belief: Option<&KindBelief>,
    ) -> Result<Position, DeterminizeError> {
        let turn_hidden = self.outcome().is_none() && !self.sees(self.turn());
        for _ in 0..256 {
            let mut world = Position::empty(*self.rules());
            for (node, army, _) in self.pieces() {
                if let Some(kind) = self.known_kind(node).filter(|_| self.sees(army)) {
                    world.put(node, Piece::new(army, kind));
                }
            }
            for army in self.hidden_armies() {
                let (nodes, sets) = self.items(army);
                let weights: Option<Vec<[f32; KINDS]>> = belief.map(|b| {
                    let removed = sets.len() - nodes.len();
                    nodes
                        .iter()
                        .map(|n| b.weights(n.index()))
                        .chain(std::iter::repeat_n([1.0; KINDS], removed))
                        .collect()
                });
                let kinds = draw(&sets, weights.as_deref(), rng)
                    .ok_or(DeterminizeError::NoAssignment { army, pieces: sets.len() })?;
                for (&node, &kind) in nodes.iter().zip(&kinds) {
                    world.put(node, Piece::new(army, kind));
                }
            }
            for army in Army::ALL {
                world.set_ended(army, self.ended(army));
            }
            world.set_turn(self.turn());
            world.set_counters(self.quiet(), self.ply());
            world.outcome = self.outcome();
            if !turn_hidden || world.has_move(self.turn()) {
                return Ok(world);
            }
        }
        Err(DeterminizeError::NoMoveForTurn { army: self.turn() })
    }
}
