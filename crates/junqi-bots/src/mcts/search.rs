//! Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).
//!
//! Each simulation draws a world (a determinization, or the truth for
//! `cheat-mcts`), walks down the one tree of action sequences choosing among
//! the children whose action is legal in that world, adds one node, values it
//! with the [`LeafEvaluator`] and backs the value up. Both seats' choices are
//! in the tree; each node's value is kept for the seat that chose its action.

use super::eval::{outcome_value, LeafEvaluator};
use super::tree::{Tree, NONE};
use crate::Decision;
use junqi_core::{GameRng, Move, MoveList, Position, Seat};
use rand::Rng;

/// The search, with its buffers kept between moves.
pub struct Search<E> {
    pub evaluator: E,
    /// Exploration constant (UCB1, or PUCT where priors are given).
    pub c: f32,
    tree: Tree,
    moves: MoveList,
    /// Nodes visited in this simulation and the seat that chose each.
    path: Vec<(u32, Seat)>,
    priors: Vec<f32>,
}

impl<E: LeafEvaluator> Search<E> {
    pub fn new(evaluator: E, c: f32) -> Search<E> {
        Search { evaluator, c, tree: Tree::new(), moves: MoveList::new(), path: Vec::new(), priors: Vec::new() }
    }

    /// Run `sims` simulations, each in a world drawn by `world`, and decide:
    /// the most visited root action, and the root visit shares as the policy.
    /// Every world must give the seat to move the same legal actions (true of
    /// determinizations of its information set, and of the truth).
    pub fn run(&mut self, sims: u32, mut world: impl FnMut(&mut GameRng) -> Position, rng: &mut GameRng) -> Decision {
        self.tree.reset();
        let first = world(rng);
        first.legal_moves(&mut self.moves);
        assert!(!self.moves.is_empty(), "act called on a finished game");
        if self.moves.len() == 1 {
            return Decision { action: self.moves[0], policy: vec![(self.moves[0], 1.0)] };
        }
        self.priors.clear();
        if self.evaluator.priors(&first, self.moves.as_slice(), &mut self.priors)
            && self.priors.len() == self.moves.len()
        {
            self.tree.set_priors(0, self.moves.as_slice(), &self.priors);
        }
        let mut next = Some(first);
        for _ in 0..sims.max(1) {
            let w = next.take().unwrap_or_else(|| world(rng));
            self.simulate(w, rng);
        }
        self.decide()
    }

    fn simulate(&mut self, mut world: Position, rng: &mut GameRng) {
        self.path.clear();
        let mut node = 0u32;
        let value = loop {
            world.legal_moves(&mut self.moves);
            if let Some(outcome) = world.outcome_given(self.moves.len()) {
                break outcome_value(&outcome, world.turn());
            }
            let mover = world.turn();
            let (child, created) = self.select(node, rng);
            world.play_unchecked(self.tree.nodes[child as usize].mv);
            self.path.push((child, mover));
            if created {
                break self.evaluate_leaf(child, &world, rng);
            }
            node = child;
        };
        // `value` is for the seat to move in the final world.
        let leaf_turn = world.turn();
        self.tree.nodes[0].visits += 1;
        for &(id, mover) in &self.path {
            let n = &mut self.tree.nodes[id as usize];
            n.visits += 1;
            n.value += if mover == leaf_turn { value } else { -value };
        }
    }

    /// Value of a new node's world for its side to move, and its priors.
    fn evaluate_leaf(&mut self, id: u32, world: &Position, rng: &mut GameRng) -> f32 {
        world.legal_moves(&mut self.moves);
        if let Some(outcome) = world.outcome_given(self.moves.len()) {
            return outcome_value(&outcome, world.turn());
        }
        let v = self.evaluator.evaluate(world, rng).clamp(-1.0, 1.0);
        self.priors.clear();
        if self.evaluator.priors(world, self.moves.as_slice(), &mut self.priors)
            && self.priors.len() == self.moves.len()
        {
            self.tree.set_priors(id, self.moves.as_slice(), &self.priors);
        }
        v
    }

    /// Choose among the actions legal in this world (`self.moves`) at `node`:
    /// returns the child and whether it was just added.
    fn select(&mut self, node: u32, rng: &mut GameRng) -> (u32, bool) {
        self.tree.index_children(node);
        let moves = self.moves.as_slice();
        let puct = self.tree.nodes[node as usize].priors_at.1 > 0;
        let mut untried = 0u32;
        let mut best = (f32::NEG_INFINITY, NONE, moves[0]);
        let sqrt_n = (self.tree.nodes[node as usize].visits.max(1) as f32).sqrt();
        for &mv in moves {
            match self.tree.child(mv) {
                Some(c) => {
                    let n = &mut self.tree.nodes[c as usize];
                    n.avail += 1;
                    let score = if puct {
                        n.mean() + self.c * n.prior * sqrt_n / (1.0 + n.visits as f32)
                    } else {
                        n.mean() + self.c * ((n.avail as f32).ln() / n.visits as f32).sqrt()
                    };
                    if score > best.0 {
                        best = (score, c, mv);
                    }
                }
                None if puct => {
                    let p = self.tree.prior(node, mv).unwrap_or(1.0 / moves.len() as f32);
                    let score = self.c * p * sqrt_n;
                    if score > best.0 {
                        best = (score, NONE, mv);
                    }
                }
                None => untried += 1,
            }
        }
        if untried > 0 {
            // UCB1: an action never tried here comes first (uniformly among them).
            let mut k = rng.random_range(0..untried);
            for &mv in moves {
                if self.tree.child(mv).is_none() {
                    if k == 0 {
                        return (self.tree.add_child(node, mv, 0.0), true);
                    }
                    k -= 1;
                }
            }
        }
        if best.1 == NONE {
            let p = self.tree.prior(node, best.2).unwrap_or(0.0);
            return (self.tree.add_child(node, best.2, p), true);
        }
        (best.1, false)
    }

    /// The most visited root action (ties: the better mean value) and the
    /// visit shares of the root actions.
    fn decide(&self) -> Decision {
        let total: u32 = self.tree.root_children().map(|n| n.visits).sum();
        let mut policy: Vec<(Move, f32)> = self
            .tree
            .root_children()
            .filter(|n| n.visits > 0)
            .map(|n| (n.mv, n.visits as f32 / total as f32))
            .collect();
        policy.sort_by_key(|&(m, _)| m);
        let best = self
            .tree
            .root_children()
            .filter(|n| n.visits > 0)
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.mean().total_cmp(&b.mean())).then(b.mv.cmp(&a.mv)))
            .expect("every simulation visits a root action");
        Decision { action: best.mv, policy }
    }
}
