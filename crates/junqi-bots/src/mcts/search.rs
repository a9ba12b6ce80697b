//! Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).
//!
//! Each simulation draws a world (a determinization, or the truth for
//! `cheat-mcts`), walks down the one tree of action sequences choosing among
//! the children whose action is legal in that world, adds one node, values it
//! with the [`LeafEvaluator`] and backs the value up. Both seats' choices are
//! in the tree; each node's value is kept for the seat that chose its action.

use super::eval::{LeafEvaluator, LeafValue};
use super::gumbel::{GumbelOptions, GumbelRoot};
use super::tree::{Tree, NONE};
use crate::{Agent, Decision};
use junqi_core::{GameRng, InfoSet, Mode, Move, MoveList, Position, Seat};
use rand::Rng;
use std::task::Poll;

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
    /// Root exploration for self-play (noise, temperature); off by default.
    pub root: RootOptions,
    /// `Some`: Gumbel search at the root (sequential halving, the improved
    /// policy as the decision's policy); `None`: PUCT / UCB1 everywhere.
    pub gumbel: Option<GumbelOptions>,
    /// The Gumbel root of the search under way.
    groot: GumbelRoot,
    /// Where a search interrupted by a pending evaluation resumes.
    phase: Phase,
    /// 暗棋, with an evaluator that [wants it](LeafEvaluator::wants_info):
    /// hand it what the searching seat knows at the root and, carried down
    /// each simulation's moves, at the nodes where that seat moves (off: a
    /// fresh information set of each world, which forgets what earlier
    /// fights showed). On by default.
    pub recall: bool,
    /// The searching seat's information set (when recalled) carried down
    /// this simulation's path (the leaf's, while it waits).
    path_info: Option<InfoSet>,
    /// What a draw is worth to the searching seat ([`DrawScore`]); 0 by default.
    pub draw: DrawScore,
    /// The seat to move at the root of the search under way, and the draw
    /// score it counts with (the other seat counts the negation: the game
    /// the tree models stays zero-sum).
    root_seat: Seat,
    root_draw: f32,
    /// A model of the other seat (a best response's target): where that
    /// seat moves in a simulation, the action is the model's decision in
    /// the simulation's world, made from that seat's information set of the
    /// world ([`InfoSet::new`]: the world is drawn from the searching seat's
    /// information set, so the model never sees the truth), in place of the
    /// search's own choice. The tree's statistics then average over what the
    /// model does, and the searching seat's choices maximise against it.
    pub opponent: Option<Box<dyn Agent>>,
    /// Stop simulating at this instant (after at least one simulation),
    /// whatever `sims` says: a bot that plays by time sets it before each
    /// move ([`super::clock`]). `None`: `sims` alone.
    pub deadline: Option<std::time::Instant>,
}

/// What a draw is worth to the searching seat, on the value's scale
/// (win 1, loss -1; 0 = half a win, the plain value). Below 0 the seat plays
/// for a win: a safe draw loses to a line that wins more often than it
/// loses by enough (lc0's draw score, "contempt"). The opponent is modelled
/// as valuing draws the other way round, so the tree stays zero-sum.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum DrawScore {
    /// The same score in every position.
    Fixed(f32),
    /// From the evaluator's value `v` of the root (a net's win/draw/loss
    /// head): `-max(v, 0)`: the seat that expects to win counts a draw as
    /// a loss of what it expected; the seat that expects to lose takes a
    /// draw at its plain worth. 0 with an evaluator that values no root
    /// (the playouts of plain `mcts`).
    Auto,
}

impl Default for DrawScore {
    fn default() -> DrawScore {
        DrawScore::Fixed(0.0)
    }
}

impl DrawScore {
    /// The score for a search whose root the evaluator valued `root` (None: not at all).
    pub fn resolve(self, root: Option<LeafValue>) -> f32 {
        match self {
            DrawScore::Fixed(d) => d,
            DrawScore::Auto => -root.map_or(0.0, |r| r.value.clamp(0.0, 1.0)),
        }
    }
}

/// The state of a search between two calls of [`Search::poll`].
enum Phase {
    /// No search under way: the next poll starts one.
    Idle,
    /// Waiting for the root's priors (the first world drawn).
    Root { first: Position },
    /// Simulating: `done` simulations backed up; `next` is the first world
    /// (used by the first simulation); `sample` says whether the move is
    /// sampled at the temperature.
    Running { done: u32, next: Option<Position>, sample: bool },
    /// Waiting for the value of `node`'s world, reached down `self.path`.
    Leaf { done: u32, sample: bool, world: Position, node: u32 },
}

/// Self-play exploration at the root (AlphaZero): Dirichlet noise mixed into
/// the root priors, and the action sampled from the visit counts at a
/// temperature during the game's first plies. Both off by default, so a
/// search decides deterministically by visits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RootOptions {
    /// Weight of the noise in the root priors (0 = none). Only applies when
    /// the evaluator gives priors.
    pub noise_frac: f32,
    /// Concentration of the symmetric Dirichlet noise.
    pub noise_alpha: f32,
    /// Sample the action ∝ visits^(1/temp) while the game's ply is below
    /// `temp_plies` (0 = always the most visited).
    pub temp: f32,
    pub temp_plies: u32,
    /// The decision's policy (what self-play trains on, and what `temp`
    /// samples from): 0 = the root visit shares; above 0, the softmax of the
    /// root actions' mean values at this temperature (over the actions
    /// searched at least once). With few simulations per action the visit
    /// shares are near uniform whatever the values say (UCB1 explores them
    /// all about equally), while the mean values tell a capture from a
    /// blunder.
    pub qtemp: f32,
}

impl Default for RootOptions {
    fn default() -> RootOptions {
        RootOptions { noise_frac: 0.0, noise_alpha: 0.3, temp: 0.0, temp_plies: 0, qtemp: 0.0 }
    }
}

impl<E: LeafEvaluator> Search<E> {
    pub fn new(evaluator: E, c: f32) -> Search<E> {
        Search {
            evaluator,
            c,
            tree: Tree::new(),
            moves: MoveList::new(),
            path: Vec::new(),
            priors: Vec::new(),
            root: RootOptions::default(),
            gumbel: None,
            groot: GumbelRoot::default(),
            phase: Phase::Idle,
            recall: true,
            path_info: None,
            draw: DrawScore::default(),
            root_seat: Seat::First,
            root_draw: 0.0,
            opponent: None,
            deadline: None,
        }
    }

    /// The draw score of `seat` in the search under way.
    fn draw_score_of(&self, seat: Seat) -> f32 {
        if seat == self.root_seat {
            self.root_draw
        } else {
            -self.root_draw
        }
    }

    /// Run `sims` simulations, each in a world drawn by `world`, and decide:
    /// the most visited root action, and the root visit shares (or, with
    /// `qtemp`, the softmax of the root values) as the policy.
    /// Every world must give the seat to move the same legal actions (true of
    /// determinizations of its information set, and of the truth).
    pub fn run(&mut self, sims: u32, mut world: impl FnMut(&mut GameRng) -> Position, rng: &mut GameRng) -> Decision {
        loop {
            match self.poll(sims, &mut world, rng) {
                Poll::Ready(d) => return d,
                Poll::Pending => self.evaluator.wait(),
            }
        }
    }

    /// [`Search::run`] one step at a time: `Pending` when the evaluator is
    /// waiting for an answer (call [`LeafEvaluator::wait`], or do other work,
    /// then poll again with the same `sims` and the same information set
    /// behind `world`). The search draws the same worlds and random numbers
    /// and decides the same whether its evaluations come at once or later.
    pub fn poll(
        &mut self,
        sims: u32,
        world: impl FnMut(&mut GameRng) -> Position,
        rng: &mut GameRng,
    ) -> Poll<Decision> {
        self.poll_informed(sims, None, world, rng)
    }

    /// [`Search::poll`] for a seat that searches from its information set
    /// `info` (the worlds are drawn from it): with [`Search::recall`] and an
    /// evaluator that wants it, the evaluator sees what that seat knows (in
    /// 暗棋; elsewhere a world shows the mover all it may know).
    pub fn poll_informed(
        &mut self,
        sims: u32,
        info: Option<&InfoSet>,
        mut world: impl FnMut(&mut GameRng) -> Position,
        rng: &mut GameRng,
    ) -> Poll<Decision> {
        // Every poll of one search gets the same `info`, so this is derived afresh each time.
        let recalled = self.recall && self.evaluator.wants_info();
        // Elsewhere than 暗棋 a world shows the mover all it may know but the history.
        let info = info.filter(|i| recalled && (i.mode() == Mode::Anqi || self.evaluator.wants_history()));
        loop {
            match std::mem::replace(&mut self.phase, Phase::Idle) {
                Phase::Idle => {
                    self.tree.reset();
                    let first = world(rng);
                    first.legal_moves(&mut self.moves);
                    assert!(!self.moves.is_empty(), "act called on a finished game");
                    self.root_seat = first.turn();
                    self.root_draw = 0.0;
                    if self.moves.len() == 1 {
                        // A forced move needs no search, so no value comes with it.
                        let only = self.moves[0];
                        return Poll::Ready(Decision { action: only, policy: vec![(only, 1.0)], value: None });
                    }
                    self.phase = Phase::Root { first };
                }
                Phase::Root { first } => {
                    first.legal_moves(&mut self.moves);
                    self.priors.clear();
                    let Poll::Ready(root_value) =
                        self.evaluator.root_priors(&first, info, self.moves.as_slice(), &mut self.priors)
                    else {
                        self.phase = Phase::Root { first };
                        return Poll::Pending;
                    };
                    self.root_draw = self.draw.resolve(root_value);
                    if self.priors.len() == self.moves.len() {
                        if self.root.noise_frac > 0.0 {
                            mix_dirichlet(&mut self.priors, self.root.noise_frac, self.root.noise_alpha, rng);
                        }
                        self.tree.set_priors(0, self.moves.as_slice(), &self.priors);
                    }
                    if let Some(options) = self.gumbel {
                        let moves = self.moves.as_slice();
                        let root_value = root_value.map(|v| v.scored(self.root_draw));
                        self.groot = GumbelRoot::new(moves, &self.priors, root_value, sims.max(1), options, rng);
                    }
                    // Gumbel search samples its action through the Gumbel draw, not a temperature.
                    let sample = self.gumbel.is_none() && self.root.temp > 0.0 && first.ply() < self.root.temp_plies;
                    self.phase = Phase::Running { done: 0, next: Some(first), sample };
                }
                Phase::Running { done, next, sample } => {
                    // The clock is read after every simulation: tens of ns against µs of work.
                    let timed_out = done > 0 && self.deadline.is_some_and(|d| std::time::Instant::now() >= d);
                    if done >= sims.max(1) || timed_out {
                        let mut decision = if self.gumbel.is_some() { self.decide_gumbel() } else { self.decide() };
                        if sample {
                            decision.action = sample_at_temperature(&decision.policy, self.root.temp, rng);
                        }
                        return Poll::Ready(decision);
                    }
                    let mut w = next.unwrap_or_else(|| world(rng));
                    self.phase = match self.descend(&mut w, info, rng) {
                        None => Phase::Running { done: done + 1, next: None, sample },
                        Some(node) => Phase::Leaf { done, sample, world: w, node },
                    };
                }
                Phase::Leaf { done, sample, world, node } => match self.evaluate_leaf(node, &world, rng) {
                    Poll::Pending => {
                        self.phase = Phase::Leaf { done, sample, world, node };
                        return Poll::Pending;
                    }
                    Poll::Ready(value) => {
                        self.backup(value, world.turn());
                        self.phase = Phase::Running { done: done + 1, next: None, sample };
                    }
                },
            }
        }
    }

    /// Walk down from the root, playing the tree's actions in `world`, until
    /// a game end (backed up at once: `None`) or a new node, whose world
    /// (`world` now) still needs a value (`Some(node)`, the path in `self.path`).
    fn descend(&mut self, world: &mut Position, info: Option<&InfoSet>, rng: &mut GameRng) -> Option<u32> {
        self.path.clear();
        match (info, &mut self.path_info) {
            (Some(info), Some(carried)) => carried.clone_from(info),
            (info, carried) => *carried = info.cloned(),
        }
        let mut node = 0u32;
        loop {
            world.legal_moves(&mut self.moves);
            if let Some(outcome) = world.outcome_given(self.moves.len()) {
                self.backup(LeafValue::outcome(&outcome, world.turn()), world.turn());
                return None;
            }
            let mover = world.turn();
            // The opponent model's action needs no leaf value: its new node is
            // passed through, so leaves are valued where the searching seat
            // moves (a leaf value assumes a generic opponent, not the model).
            let (child, created) = match self.model_choice(world, mover, rng) {
                Some(mv) => {
                    self.tree.index_children(node);
                    match self.tree.child(mv) {
                        Some(c) => (c, false),
                        None => (self.tree.add_child(node, mv, 1.0), false),
                    }
                }
                None => self.select(node, mover, rng),
            };
            let mv = self.tree.nodes[child as usize].mv;
            match &mut self.path_info {
                Some(info) => {
                    // What the searching seat would see of this action in this world.
                    let before = world.clone();
                    let effect = world.play_unchecked(mv);
                    info.witness(&before, world, mv, &effect);
                }
                None => {
                    world.play_unchecked(mv);
                }
            }
            self.path.push((child, mover));
            if created {
                return Some(child);
            }
            node = child;
        }
    }

    /// The opponent model's action where the other seat than the searching
    /// one moves in `world` (`None`: no model, the searching seat's turn, or
    /// an answer that is not one of the world's legal actions, when the
    /// search chooses as usual). `self.moves` holds the world's legal actions.
    fn model_choice(&mut self, world: &Position, mover: Seat, rng: &mut GameRng) -> Option<Move> {
        if mover == self.root_seat {
            return None;
        }
        let model = self.opponent.as_mut()?;
        let info = InfoSet::new(world, mover);
        let decision = model.act(&info, rng);
        self.moves.contains(decision.action).then_some(decision.action)
    }

    /// Add `leaf` (for `leaf_turn`, the seat to move at the leaf) to the
    /// nodes of `self.path` and to the root's visits.
    fn backup(&mut self, leaf: LeafValue, leaf_turn: Seat) {
        self.tree.nodes[0].visits += 1;
        for &(id, mover) in &self.path {
            let n = &mut self.tree.nodes[id as usize];
            n.visits += 1;
            n.value += if mover == leaf_turn { leaf.value } else { -leaf.value };
            n.draws += leaf.draw;
        }
        if self.gumbel.is_some() {
            // Mirror the root child's statistics into the Gumbel root.
            if let Some(&(id, _)) = self.path.first() {
                let n = &self.tree.nodes[id as usize];
                if let Some(a) = self.groot.actions.iter_mut().find(|a| a.mv == n.mv) {
                    a.visits = n.visits;
                    a.q = n.score(self.root_draw);
                }
            }
        }
    }

    /// Value of a new node's world for its side to move, and its priors.
    fn evaluate_leaf(&mut self, id: u32, world: &Position, rng: &mut GameRng) -> Poll<LeafValue> {
        world.legal_moves(&mut self.moves);
        if let Some(outcome) = world.outcome_given(self.moves.len()) {
            return Poll::Ready(LeafValue::outcome(&outcome, world.turn()));
        }
        self.priors.clear();
        // The searching seat's knowledge where it moves; the other seat's is
        // not ours to know, but the history is public: a net that reads it
        // sees the world as its mover would at the start, with the history.
        let opponent;
        let info = match self.path_info.as_ref() {
            Some(i) if i.seat() == world.turn() => Some(i),
            Some(i) if self.evaluator.wants_history() => {
                opponent = InfoSet::new(world, world.turn()).with_history(i.history().clone());
                Some(&opponent)
            }
            _ => None,
        };
        let Poll::Ready(v) = self.evaluator.evaluate(world, info, self.moves.as_slice(), &mut self.priors, rng) else {
            return Poll::Pending;
        };
        if self.priors.len() == self.moves.len() {
            self.tree.set_priors(id, self.moves.as_slice(), &self.priors);
        }
        Poll::Ready(LeafValue { value: v.value.clamp(-1.0, 1.0), draw: v.draw.clamp(0.0, 1.0) })
    }

    /// Choose for `mover` among the actions legal in this world
    /// (`self.moves`) at `node`: returns the child and whether it was just added.
    fn select(&mut self, node: u32, mover: Seat, rng: &mut GameRng) -> (u32, bool) {
        self.tree.index_children(node);
        if node == 0 && self.gumbel.is_some() {
            // Sequential halving: the schedule names the root action.
            let done = self.tree.nodes[0].visits;
            let a = self.groot.actions[self.groot.next_action(done)];
            return match self.tree.child(a.mv) {
                Some(c) => (c, false),
                None => (self.tree.add_child(0, a.mv, a.logit.exp()), true),
            };
        }
        let draw_score = self.draw_score_of(mover);
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
                    let q = n.score(draw_score);
                    let score = if puct {
                        q + self.c * n.prior * sqrt_n / (1.0 + n.visits as f32)
                    } else {
                        q + self.c * ((n.avail as f32).ln() / n.visits as f32).sqrt()
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

    /// With `qtemp` > 0: the softmax of the visited root actions' mean
    /// values at that temperature. `None` without `qtemp`, or when no value
    /// is finite (then the visit shares serve).
    fn value_policy(&self) -> Option<Vec<(Move, f32)>> {
        if self.root.qtemp <= 0.0 {
            return None;
        }
        let q = |n: &super::tree::Node| n.score(self.root_draw);
        let visited = || self.tree.root_children().filter(|n| n.visits > 0 && q(n).is_finite());
        let top = visited().map(q).reduce(f32::max)?;
        let weights: Vec<(Move, f32)> = visited().map(|n| (n.mv, ((q(n) - top) / self.root.qtemp).exp())).collect();
        // The top action weighs exp(0) = 1, so the sum is at least 1.
        let sum: f32 = weights.iter().map(|w| w.1).sum();
        // exp(x) underflows to 0 far below the top; such actions drop out.
        Some(weights.into_iter().map(|(m, w)| (m, w / sum)).filter(|w| w.1 > 0.0).collect())
    }

    /// The most visited root action (ties: the better score) and the root
    /// policy: the visit shares, or the score softmax with `qtemp`. The
    /// decision's value is the action's plain mean (no draw score): what
    /// self-play stores as the search's value.
    fn decide(&self) -> Decision {
        let mut policy = match self.value_policy() {
            Some(p) => p,
            None => {
                let total: u32 = self.tree.root_children().map(|n| n.visits).sum();
                let visited = self.tree.root_children().filter(|n| n.visits > 0);
                visited.map(|n| (n.mv, n.visits as f32 / total as f32)).collect()
            }
        };
        policy.sort_by_key(|&(m, _)| m);
        let best = self
            .tree
            .root_children()
            .filter(|n| n.visits > 0)
            .max_by(|a, b| {
                let (qa, qb) = (a.score(self.root_draw), b.score(self.root_draw));
                a.visits.cmp(&b.visits).then(qa.total_cmp(&qb)).then(b.mv.cmp(&a.mv))
            })
            .expect("every simulation visits a root action");
        Decision { action: best.mv, policy, value: Some(best.mean()) }
    }
}

impl<E: LeafEvaluator> Search<E> {
    /// Gumbel search's decision: the action sequential halving kept, the
    /// improved policy over every legal root action (both by the scores,
    /// draw score included), and the kept action's plain mean value.
    fn decide_gumbel(&self) -> Decision {
        let g = &self.groot;
        let kept = g.best_action();
        let best = g.actions[kept];
        let mut policy = g.decision_policy(kept);
        policy.sort_by_key(|&(m, _)| m);
        let value = self.tree.root_children().find(|n| n.mv == best.mv && n.visits > 0).map(|n| n.mean());
        Decision { action: best.mv, policy, value }
    }
}

/// Mix symmetric Dirichlet(`alpha`) noise into `priors` with weight `frac`.
fn mix_dirichlet(priors: &mut [f32], frac: f32, alpha: f32, rng: &mut GameRng) {
    use rand_distr::{Distribution, Gamma};
    let Ok(gamma) = Gamma::new(alpha.max(1e-3) as f64, 1.0) else { return };
    let noise: Vec<f64> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let sum: f64 = noise.iter().sum();
    if !(sum > 0.0) {
        return;
    }
    for (p, n) in priors.iter_mut().zip(noise) {
        *p = (1.0 - frac) * *p + frac * (n / sum) as f32;
    }
}

/// An action drawn with probability ∝ share^(1/temp) from a distribution
/// (search visits, a net's policy); `temp` > 0. Generic over the action
/// (the four-player net player samples its moves with it too).
pub fn sample_at_temperature<M: Copy, R: Rng + ?Sized>(policy: &[(M, f32)], temp: f32, rng: &mut R) -> M {
    // Relative to the largest share, so a small temperature cannot underflow
    // every weight to 0 (the largest keeps weight 1).
    let top = policy.iter().map(|p| p.1 as f64).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let weights: Vec<f64> = policy.iter().map(|&(_, p)| (p as f64 / top).powf(1.0 / temp as f64)).collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (&(mv, _), w) in policy.iter().zip(&weights) {
        if x < *w {
            return mv;
        }
        x -= w;
    }
    policy.last().expect("a decision has a policy").0
}

#[cfg(test)]
mod root_tests {
    use super::*;
    use junqi_core::rng_from_seed;

    /// Values a world +0.8 for `seat` once the piece on `square` is face up, else 0.
    struct FlipIsGood {
        seat: Seat,
        square: junqi_core::Square,
    }
    impl LeafEvaluator for FlipIsGood {
        fn evaluate(
            &mut self,
            world: &Position,
            _: Option<&InfoSet>,
            _: &[Move],
            _: &mut Vec<f32>,
            _: &mut GameRng,
        ) -> Poll<LeafValue> {
            Poll::Ready(LeafValue::from(match (world.is_face_down(self.square), world.turn() == self.seat) {
                (true, _) => 0.0,
                (false, true) => 0.8,
                (false, false) => -0.8,
            }))
        }
    }

    #[test]
    fn the_q_policy_follows_the_values_where_visit_shares_barely_move() {
        let mut rng = rng_from_seed(4);
        let start = Position::deal_fanqi(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), &mut rng);
        let square = (0..60).filter_map(junqi_core::Square::new).find(|&sq| start.is_face_down(sq)).unwrap();
        let good = Move::flip(square);
        let mut policies = Vec::new();
        for qtemp in [0.0, 0.1] {
            let evaluator = FlipIsGood { seat: start.turn(), square };
            let mut search = Search::new(evaluator, 0.7);
            search.root = RootOptions { qtemp, ..RootOptions::default() };
            let d = search.run(150, |_| start.clone(), &mut rng);
            assert!((d.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(d.value.unwrap() > 0.5, "{:?}", d.value);
            policies.push(d.policy.iter().find(|p| p.0 == good).map_or(0.0, |p| p.1));
        }
        // 50 flips, 150 simulations: UCB1 gives the good flip a few more
        // visits; its value puts nearly all the Q policy on it.
        assert!(policies[0] < 0.3, "visit share {}", policies[0]);
        assert!(policies[1] > 0.9, "Q policy {}", policies[1]);
    }

    #[test]
    fn gumbel_search_spends_the_budget_and_its_policy_finds_the_good_flip() {
        let mut rng = rng_from_seed(4);
        let start = Position::deal_fanqi(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), &mut rng);
        // The last face-down square: last in the prior's order too.
        let square = (0..60).filter_map(junqi_core::Square::new).filter(|&sq| start.is_face_down(sq)).last().unwrap();
        let good = Move::flip(square);
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        for (sims, k) in [(16u32, 4u32), (48, 16), (200, 50)] {
            let mut search = Search::new(FlipIsGood { seat: start.turn(), square }, 0.7);
            search.gumbel = Some(GumbelOptions { considered: k, gumbel_scale: 0.0, ..GumbelOptions::default() });
            // The good flip is not the first in the prior's order, so with
            // no Gumbel noise it is considered only when k reaches it.
            let d = search.run(sims, |_| start.clone(), &mut rng);
            assert_eq!(search.tree.nodes[0].visits, sims, "exactly the budget");
            let visits: u32 = search.tree.root_children().map(|n| n.visits).sum();
            assert_eq!(visits, sims);
            assert_eq!(d.policy.len(), moves.len(), "the improved policy covers every legal action");
            assert!((d.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-5);
            let share = d.policy.iter().find(|p| p.0 == good).unwrap().1;
            let considered = search.groot.actions.iter().position(|a| a.mv == good).unwrap() < k as usize;
            assert_eq!(considered, k == 50, "all 50 flips are considered only at k = 50");
            if considered {
                assert_eq!(d.action, good, "{sims} sims, k={k}");
                assert!(share > 5.0 / moves.len() as f32, "{sims} sims, k={k}: improved {share}");
            } else {
                assert!(share < 1.5 / moves.len() as f32, "never visited: about the prior, {share}");
            }
        }
    }

    /// Checks every information set the search hands it (暗棋) and counts them.
    #[derive(Default)]
    struct InfoRecorder {
        root: Option<InfoSet>,
        informed: u32,
        uninformed: u32,
        /// Leaves where the carried set rules out a kind a fresh one allows.
        knows_more: u32,
    }
    impl LeafEvaluator for InfoRecorder {
        fn evaluate(
            &mut self,
            world: &Position,
            info: Option<&InfoSet>,
            _: &[Move],
            _: &mut Vec<f32>,
            _: &mut GameRng,
        ) -> Poll<LeafValue> {
            let Some(info) = info else {
                self.uninformed += 1;
                return Poll::Ready(LeafValue::default());
            };
            self.informed += 1;
            assert_eq!(info.seat(), world.turn(), "only the seat to move's own knowledge");
            let fresh = InfoSet::new(world, info.seat());
            let own = world.colour_of(info.seat());
            let mut narrower = false;
            for sq in junqi_core::Square::all() {
                assert_eq!(info.view().is_occupied(sq), world.is_occupied(sq), "{sq:?}: the world's board");
                let (carried, anew) = (info.possible_kinds(sq), fresh.possible_kinds(sq));
                if let Some(piece) = world.piece_at(sq).filter(|p| Some(p.colour) != own) {
                    assert_ne!(carried & piece.kind.bit(), 0, "{sq:?}: the world's own kind is possible");
                    assert_eq!(carried & !anew, 0, "{sq:?}: never more than a fresh set allows");
                    narrower |= carried != anew;
                }
            }
            self.knows_more += narrower as u32;
            Poll::Ready(LeafValue::default())
        }
        fn root_priors(
            &mut self,
            _: &Position,
            info: Option<&InfoSet>,
            _: &[Move],
            _: &mut Vec<f32>,
        ) -> Poll<Option<LeafValue>> {
            self.root = info.cloned();
            Poll::Ready(None)
        }
        fn wants_info(&self) -> bool {
            true
        }
    }

    #[test]
    fn an_anqi_search_recalls_what_the_searching_seat_knows_down_each_simulation() {
        use junqi_core::{Colour, Game, Mode, Rules};
        let mut rng = rng_from_seed(9);
        let rules = Rules::preset(Mode::Anqi);
        let deploy = |c, rng: &mut GameRng| crate::mcts::mcts_deployment(c, &rules, rng);
        let (red, black) = (deploy(Colour::Red, &mut rng), deploy(Colour::Black, &mut rng));
        let mut game = Game::new(Position::from_deployments(rules, &red, &black).unwrap());
        let mut moves = MoveList::new();
        for _ in 0..60 {
            game.truth().legal_moves(&mut moves);
            if game.outcome().is_some() {
                break;
            }
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        assert!(game.outcome().is_none(), "the test needs a game still going");
        let seat = game.truth().turn();
        let info = game.infoset(seat).clone();
        let fresh = InfoSet::new(game.truth(), seat);
        assert!(
            junqi_core::Square::all().any(|sq| info.possible_kinds(sq) != fresh.possible_kinds(sq)),
            "after 60 plies the seat knows more than a fresh information set shows"
        );
        for recall in [true, false] {
            let mut search = Search::new(InfoRecorder::default(), 0.7);
            search.recall = recall;
            let decision = search.poll_informed(300, Some(&info), |rng| info.sample_world(rng), &mut rng);
            assert!(decision.is_ready());
            let seen = &search.evaluator;
            if recall {
                assert_eq!(seen.root.as_ref(), Some(&info), "the root's priors come from the real information set");
                assert!(seen.informed > 0 && seen.uninformed > 0, "{} / {}", seen.informed, seen.uninformed);
                assert!(seen.knows_more > 0, "what fights showed is carried below the root");
            } else {
                assert!(seen.root.is_none());
                assert_eq!(seen.informed, 0);
            }
        }
    }

    /// Values every unfinished position the same: Red a little worse
    /// (`red` for Red, its negation for Black), no draw chance; the root
    /// valued `root` for Red (or not at all).
    struct RedSlightlyWorse {
        red: f32,
        root: Option<f32>,
    }
    impl LeafEvaluator for RedSlightlyWorse {
        fn evaluate(
            &mut self,
            world: &Position,
            _: Option<&InfoSet>,
            _: &[Move],
            _: &mut Vec<f32>,
            _: &mut GameRng,
        ) -> Poll<LeafValue> {
            let red_to_move = world.colour_of(world.turn()) == Some(junqi_core::Colour::Red);
            Poll::Ready(LeafValue::from(if red_to_move { self.red } else { -self.red }))
        }
        fn root_priors(
            &mut self,
            _: &Position,
            _: Option<&InfoSet>,
            _: &[Move],
            _: &mut Vec<f32>,
        ) -> Poll<Option<LeafValue>> {
            Poll::Ready(self.root.map(LeafValue::from))
        }
    }

    /// 明棋, Red to move one ply before the quiet-move draw: every quiet
    /// move draws at once (a safe draw), the one attack (the 旅长 on c10
    /// into the 师长 on c11) goes on into a game Red expects to lose a
    /// little more often than to win (the evaluator's -0.2: a risky win).
    fn safe_draw_or_risky_win() -> (Position, Move) {
        let rules = junqi_core::Rules::preset(Mode::Mingqi);
        let pos = Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 69 100", rules).unwrap();
        (pos, "c10c11".parse().unwrap())
    }

    /// The search's choice and the plain value it reports, with `draw`.
    fn choose(draw: DrawScore, root: Option<f32>, gumbel: bool) -> Decision {
        let (pos, _) = safe_draw_or_risky_win();
        let mut search = Search::new(RedSlightlyWorse { red: -0.2, root }, 0.7);
        search.draw = draw;
        if gumbel {
            search.gumbel = Some(GumbelOptions { gumbel_scale: 0.0, ..GumbelOptions::default() });
        }
        search.run(400, |_| pos.clone(), &mut rng_from_seed(5))
    }

    #[test]
    fn a_draw_score_below_zero_turns_a_safe_draw_into_a_try_for_a_win() {
        let (pos, attack) = safe_draw_or_risky_win();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert!(moves.len() > 2 && moves.contains(attack), "{moves:?}");
        for gumbel in [false, true] {
            // A draw at its plain worth (0) beats the risky line (-0.2).
            let plain = choose(DrawScore::Fixed(0.0), None, gumbel);
            assert_ne!(plain.action, attack, "gumbel={gumbel}: draw score 0 takes the draw");
            assert!(plain.value.unwrap().abs() < 1e-6, "the draw's plain value: {:?}", plain.value);
            // A draw worth a loss of half a game is worse than the risky line.
            let keen = choose(DrawScore::Fixed(-0.5), None, gumbel);
            assert_eq!(keen.action, attack, "gumbel={gumbel}: draw score -0.5 attacks");
            // The stored value stays the plain one, whatever the draw score.
            assert!((keen.value.unwrap() + 0.2).abs() < 0.05, "{:?}", keen.value);
            // A draw score above the risky line's worth still draws.
            assert_ne!(choose(DrawScore::Fixed(-0.1), None, gumbel).action, attack, "gumbel={gumbel}");
        }
    }

    #[test]
    fn the_automatic_draw_score_plays_on_only_for_the_seat_that_expects_to_win() {
        let (_, attack) = safe_draw_or_risky_win();
        for gumbel in [false, true] {
            // The root looks won (+0.6 for Red): a draw is worth -0.6 to it.
            assert_eq!(choose(DrawScore::Auto, Some(0.6), gumbel).action, attack, "gumbel={gumbel}");
            // The root looks lost (-0.3), or has no value: a draw at its plain worth.
            assert_ne!(choose(DrawScore::Auto, Some(-0.3), gumbel).action, attack, "gumbel={gumbel}");
            assert_ne!(choose(DrawScore::Auto, None, gumbel).action, attack, "gumbel={gumbel}");
        }
        assert_eq!(DrawScore::Auto.resolve(Some(LeafValue { value: 0.6, draw: 0.2 })), -0.6);
        assert_eq!(DrawScore::Auto.resolve(Some(LeafValue::from(-0.6))), 0.0);
        assert_eq!(DrawScore::Fixed(-0.3).resolve(Some(LeafValue::from(0.9))), -0.3);
    }

    #[test]
    fn dirichlet_noise_keeps_a_distribution_and_zero_weight_changes_nothing() {
        let mut rng = rng_from_seed(3);
        let base = vec![0.7f32, 0.2, 0.1, 0.0];
        let mut p = base.clone();
        mix_dirichlet(&mut p, 0.0, 0.3, &mut rng);
        assert_eq!(p, base);
        let mut moved = 0;
        for _ in 0..50 {
            let mut p = base.clone();
            mix_dirichlet(&mut p, 0.25, 0.3, &mut rng);
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{p:?}");
            assert!(p.iter().all(|&x| x >= 0.0));
            // Each prior keeps at least 75% of its weight.
            assert!(p.iter().zip(&base).all(|(a, b)| *a >= 0.75 * b - 1e-6));
            moved += (p[3] > 0.0) as u32;
        }
        assert!(moved > 40, "the noise reaches actions without prior mass");
    }

    #[test]
    fn temperature_samples_in_proportion_and_sharpens_below_one() {
        let mut rng = rng_from_seed(9);
        let m = |s: &str| s.parse::<Move>().unwrap();
        let policy = vec![(m("a1a2"), 0.6f32), (m("b1b2"), 0.3), (m("c1c2"), 0.1)];
        let count = |temp: f32, rng: &mut GameRng| {
            let mut n = [0u32; 3];
            for _ in 0..20_000 {
                let a = sample_at_temperature(&policy, temp, rng);
                n[policy.iter().position(|p| p.0 == a).unwrap()] += 1;
            }
            n.map(|x| x as f64 / 20_000.0)
        };
        let at1 = count(1.0, &mut rng);
        for (f, p) in at1.iter().zip([0.6, 0.3, 0.1]) {
            assert!((f - p).abs() < 0.015, "{at1:?}");
        }
        // T = 0.5 squares the shares: 0.36 : 0.09 : 0.01.
        let at_half = count(0.5, &mut rng);
        assert!((at_half[0] - 0.36 / 0.46).abs() < 0.015, "{at_half:?}");
        // A tiny temperature is the most probable move (no underflow to the last one).
        assert_eq!(count(1e-4, &mut rng), [1.0, 0.0, 0.0]);
    }
}
