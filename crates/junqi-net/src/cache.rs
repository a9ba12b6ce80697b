//! The evaluation cache: a net's answers by position (as lc0's NNCache),
//! so a position met again — by another game, a transposition, the next
//! move's search — costs no forward pass.
//!
//! The key is the whole input (a [`Query`]: for a two-player net the
//! [`NetInput`], the compact observation and the legal actions; for a
//! four-player one the seat's observation code, its legal actions and
//! whether the belief is asked for); its 64-bit hash only picks the slot. An entry keeps
//! its full key and a lookup compares it, so a hash collision is a miss,
//! never another position's answer. Memory is bounded by two generations:
//! inserts go to the young one; when it holds half the capacity it becomes
//! the old one and the previous old one is dropped; a hit in the old
//! generation moves the entry back to the young one.

use crate::service::Query;
use crate::{Evaluation, NetInput};
use std::collections::HashMap;
use std::sync::Mutex;

/// Shards: independent locks, so threads rarely wait on each other.
const SHARDS: usize = 16;

struct Shard<Q> {
    young: HashMap<u64, (Q, Evaluation)>,
    old: HashMap<u64, (Q, Evaluation)>,
}

impl<Q> Default for Shard<Q> {
    fn default() -> Self {
        Shard { young: HashMap::new(), old: HashMap::new() }
    }
}

/// A bounded map from a [`Query`] (by default a two-player [`NetInput`])
/// to [`Evaluation`], safe to share.
pub struct EvalCache<Q = NetInput> {
    shards: Vec<Mutex<Shard<Q>>>,
    /// Entries per shard per generation.
    per_generation: usize,
    /// Only these bits of the hash are used (all, but for tests that force collisions).
    hash_mask: u64,
}

impl<Q: Query> EvalCache<Q> {
    /// Room for about `capacity` entries (at least a few per shard).
    pub fn new(capacity: usize) -> EvalCache<Q> {
        EvalCache::with_hash_mask(capacity, u64::MAX)
    }

    /// A cache that keeps only `hash_mask`'s bits of every hash: with a
    /// small mask nearly every key collides (tests use this to check that
    /// a collision is never answered with another position's entry).
    pub fn with_hash_mask(capacity: usize, hash_mask: u64) -> EvalCache<Q> {
        EvalCache {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            per_generation: (capacity / SHARDS / 2).max(4),
            hash_mask,
        }
    }

    fn slot(&self, input: &Q) -> (usize, u64) {
        let h = input.hash64() & self.hash_mask;
        // The shard from the high bits, the map key from all of them.
        ((h.rotate_left(17) % SHARDS as u64) as usize, h)
    }

    /// The cached answer for exactly `input`, if any.
    pub fn get(&self, input: &Q) -> Option<Evaluation> {
        let (shard, key) = self.slot(input);
        let mut s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, e)) = s.young.get(&key) {
            return (k == input).then(|| e.clone());
        }
        let (k, e) = s.old.remove(&key)?;
        if &k != input {
            s.old.insert(key, (k, e));
            return None;
        }
        let found = e.clone();
        Self::insert_young(&mut s, self.per_generation, key, (k, e));
        Some(found)
    }

    /// Remember `eval` as the answer for `input` (replacing whatever had its slot).
    pub fn insert(&self, input: &Q, eval: &Evaluation) {
        let (shard, key) = self.slot(input);
        let mut s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        Self::insert_young(&mut s, self.per_generation, key, (input.clone(), eval.clone()));
    }

    fn insert_young(s: &mut Shard<Q>, per_generation: usize, key: u64, entry: (Q, Evaluation)) {
        if s.young.len() >= per_generation {
            s.old = std::mem::take(&mut s.young);
        }
        s.young.insert(key, entry);
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let s = s.lock().unwrap_or_else(|e| e.into_inner());
                s.young.len() + s.old.len()
            })
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
