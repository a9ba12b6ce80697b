//! Gumbel search at the root (Danihelka, Guez, Schrittwieser & Silver,
//! "Policy improvement by planning with Gumbel", ICLR 2022).
//!
//! * **Gumbel-top-k**: the root draws one Gumbel(0, 1) variable `g(a)` per
//!   legal action and considers the `k` actions with the largest
//!   `g(a) + logit(a)`: a sample without replacement from the prior.
//! * **Sequential halving** spreads the simulation budget over the
//!   considered actions in rounds, halving them after each round by
//!   `g + logit + σ(q̂)`. [`considered_visits`] lays the whole schedule out in
//!   advance, so a search of `n` simulations spends exactly `n`.
//! * **Completed Q-values**: an action never visited takes the mixed value
//!   (the root's own value blended with the visited actions' values, by
//!   prior); `σ` rescales them to [0, 1] and by `(c_visit + max N) · c_scale`.
//! * **The improved policy** `softmax(logit + σ(completed q))` is the
//!   policy-training target: it moves mass to the better actions even at a
//!   handful of simulations, where visit counts say little.
//!
//! Below the root the search stays PUCT (the paper's deterministic interior
//! rule is a refinement we have not needed). The formulas follow DeepMind's
//! reference implementation (mctx, `qtransform_completed_by_mix_value`).
//!
//! The root is generic over the move type (`M`, the two-player [`Move`] by
//! default), so the four-player search (junqi-siguo's `search=gumbel`) uses
//! the same one.

use junqi_core::Move;
use rand::Rng;

/// Gumbel root parameters (bot-spec keys `k`, `cvisit`, `cscale`, `gscale`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GumbelOptions {
    /// Actions considered at the root (Gumbel-top-k); at most the legal ones.
    pub considered: u32,
    /// `c_visit` of σ: how much the values count before the root is visited much.
    pub c_visit: f32,
    /// `c_scale` of σ.
    pub c_scale: f32,
    /// Scale of the Gumbel noise: 1 samples (self-play), 0 takes the prior's top k.
    pub gumbel_scale: f32,
}

impl Default for GumbelOptions {
    fn default() -> GumbelOptions {
        GumbelOptions { considered: 16, c_visit: 50.0, c_scale: 0.1, gumbel_scale: 1.0 }
    }
}

/// The visit count each simulation's root action must have before it, for
/// `considered` actions and `sims` simulations (mctx's
/// `get_sequence_of_considered_visits`). Entry `i` is the visit count that
/// simulation `i` tops up: every considered action gets one visit per pass,
/// a round is `max(1, sims / (⌈log2 k⌉ · considered))` passes, then the
/// considered set halves (never below 2).
pub fn considered_visits(considered: u32, sims: u32) -> Vec<u32> {
    if considered <= 1 {
        return (0..sims).collect();
    }
    let log2 = (considered as f64).log2().ceil().max(1.0) as u32;
    let mut sequence = Vec::with_capacity(sims as usize);
    let mut visits = vec![0u32; considered as usize];
    let mut now = considered;
    while (sequence.len() as u32) < sims {
        let passes = (sims / (log2 * now)).max(1);
        for _ in 0..passes {
            sequence.extend_from_slice(&visits[..now as usize]);
            for v in &mut visits[..now as usize] {
                *v += 1;
            }
        }
        now = (now / 2).max(2);
    }
    sequence.truncate(sims as usize);
    sequence
}

/// One root action's numbers.
#[derive(Copy, Clone, Debug)]
pub struct RootAction<M = Move> {
    pub mv: M,
    /// log prior (clamped, so a zero prior is a very small logit, not -∞).
    pub logit: f32,
    /// The Gumbel draw times the scale.
    pub gumbel: f32,
    pub visits: u32,
    /// Mean value for the seat to move at the root (meaningless at 0 visits).
    pub q: f32,
}

/// The root of one Gumbel search: its actions, the considered set and the
/// visit schedule.
#[derive(Clone, Debug)]
pub struct GumbelRoot<M = Move> {
    pub actions: Vec<RootAction<M>>,
    /// Indices into `actions` of the considered ones.
    considered: Vec<usize>,
    schedule: Vec<u32>,
    /// The evaluator's value of the root for its mover (0 without one).
    pub raw_value: f32,
    options: GumbelOptions,
}

/// Smallest logit given to an action (a zero prior).
const LOW_LOGIT: f32 = -30.0;

impl<M> Default for GumbelRoot<M> {
    fn default() -> GumbelRoot<M> {
        GumbelRoot {
            actions: Vec::new(),
            considered: Vec::new(),
            schedule: Vec::new(),
            raw_value: 0.0,
            options: GumbelOptions::default(),
        }
    }
}

impl<M: Copy> GumbelRoot<M> {
    /// Draw the Gumbel variables and the considered set for `moves` with
    /// `priors` (one per move, or empty for uniform), for `sims` simulations.
    pub fn new<R: Rng + ?Sized>(
        moves: &[M],
        priors: &[f32],
        raw_value: Option<f32>,
        sims: u32,
        options: GumbelOptions,
        rng: &mut R,
    ) -> GumbelRoot<M> {
        let uniform = 1.0 / moves.len().max(1) as f32;
        let actions: Vec<RootAction<M>> = moves
            .iter()
            .enumerate()
            .map(|(i, &mv)| {
                let p = if priors.len() == moves.len() { priors[i] } else { uniform };
                // Gumbel(0, 1) = -ln(-ln U), U in (0, 1).
                let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
                let g = -(-u.ln()).ln() as f32;
                RootAction {
                    mv,
                    logit: p.max(0.0).ln().max(LOW_LOGIT),
                    gumbel: options.gumbel_scale * g,
                    visits: 0,
                    q: 0.0,
                }
            })
            .collect();
        let k = (options.considered.max(1) as usize).min(actions.len());
        let mut order: Vec<usize> = (0..actions.len()).collect();
        let key = |i: usize| actions[i].gumbel + actions[i].logit;
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
        order.truncate(k);
        GumbelRoot {
            actions,
            considered: order,
            schedule: considered_visits(k as u32, sims),
            raw_value: raw_value.unwrap_or(0.0),
            options,
        }
    }

    /// The value an unvisited action is completed with: the raw value and
    /// the visited actions' values weighted by their priors, as if the raw
    /// value were one more visit (mctx `_compute_mixed_value`).
    fn mixed_value(&self) -> f32 {
        let total: u32 = self.actions.iter().map(|a| a.visits).sum();
        let visited = || self.actions.iter().filter(|a| a.visits > 0);
        let prob_sum: f32 = visited().map(|a| a.logit.exp()).sum();
        if total == 0 || !(prob_sum > 0.0) {
            return self.raw_value;
        }
        let weighted_q: f32 = visited().map(|a| a.logit.exp() * a.q).sum::<f32>() / prob_sum;
        (self.raw_value + total as f32 * weighted_q) / (total as f32 + 1.0)
    }

    /// σ(completed q) for every action, in `actions` order.
    pub fn sigma(&self) -> Vec<f32> {
        let mixed = self.mixed_value();
        let completed: Vec<f32> = self.actions.iter().map(|a| if a.visits > 0 { a.q } else { mixed }).collect();
        let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let max_visits = self.actions.iter().map(|a| a.visits).max().unwrap_or(0);
        let scale = (self.options.c_visit + max_visits as f32) * self.options.c_scale;
        completed.iter().map(|&q| scale * (q - lo) / (hi - lo).max(1e-8)).collect()
    }

    /// The action (index into `actions`) the next simulation goes through:
    /// among the considered actions that have the visit count the schedule
    /// asks for at simulation `done`, the best by `g + logit + σ`.
    pub fn next_action(&self, done: u32) -> usize {
        let want = self.schedule.get(done as usize).copied();
        self.best_considered_with(want)
            // Past the schedule (a caller that asks for more simulations than
            // planned) or off it: the least visited considered action.
            .or_else(|| self.best_considered_with(self.considered.iter().map(|&i| self.actions[i].visits).min()))
            .expect("a root has at least one considered action")
    }

    /// The decision: among the most visited considered actions, the best by
    /// `g + logit + σ`.
    pub fn best_action(&self) -> usize {
        self.best_considered_with(self.considered.iter().map(|&i| self.actions[i].visits).max())
            .expect("a root has at least one considered action")
    }

    /// Among the considered actions with exactly `visits` visits, the best
    /// by `g + logit + σ` (None: no such action, or no count given).
    fn best_considered_with(&self, visits: Option<u32>) -> Option<usize> {
        let visits = visits?;
        let sigma = self.sigma();
        let score = |i: usize| self.actions[i].gumbel + self.actions[i].logit + sigma[i];
        self.considered
            .iter()
            .copied()
            .filter(|&i| self.actions[i].visits == visits)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)))
    }

    /// The improved policy `softmax(logit + σ(completed q))`, in `actions` order.
    pub fn improved_policy(&self) -> Vec<f32> {
        let sigma = self.sigma();
        let z: Vec<f32> = self.actions.iter().zip(&sigma).map(|(a, s)| a.logit + s).collect();
        let top = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let w: Vec<f32> = z.iter().map(|x| (x - top).exp()).collect();
        let sum: f32 = w.iter().sum();
        w.iter().map(|x| x / sum).collect()
    }

    /// The improved policy as (action, share) pairs for a decision: with
    /// many visits σ spreads the scores so far that exp() underflows to 0
    /// for the worst actions, and those drop out (a policy lists positive
    /// shares only); action `kept`, the one played, stays however small.
    pub fn decision_policy(&self, kept: usize) -> Vec<(M, f32)>
    where
        M: Copy,
    {
        let shares = self.improved_policy();
        let kept_share = shares[kept].max(f32::MIN_POSITIVE);
        self.actions
            .iter()
            .zip(shares)
            .enumerate()
            .filter_map(|(i, (a, p))| {
                let p = if i == kept { kept_share } else { p };
                (p > 0.0).then_some((a.mv, p))
            })
            .collect()
    }

    /// The prior, in `actions` order (for comparison with the improved policy).
    pub fn prior(&self) -> Vec<f32> {
        self.actions.iter().map(|a| a.logit.exp()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::rng_from_seed;

    #[test]
    fn the_schedule_spends_exactly_the_budget_and_halves() {
        for k in 1..=40u32 {
            for sims in [1u32, 2, 3, 7, 8, 16, 31, 48, 64, 100, 200, 800] {
                let s = considered_visits(k, sims);
                assert_eq!(s.len(), sims as usize, "k={k} sims={sims}");
            }
        }
        // 4 actions, 16 simulations: 2 passes over 4, then 2 actions get
        // visits 2.. until the budget ends (mctx's example).
        assert_eq!(considered_visits(4, 16), vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        assert_eq!(considered_visits(1, 3), vec![0, 1, 2]);
    }

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    /// A root whose simulations are answered from a table of action values.
    fn simulate(root: &mut GumbelRoot, values: &[f32], sims: u32) {
        for done in 0..sims {
            let i = root.next_action(done);
            let a = &mut root.actions[i];
            a.q = (a.q * a.visits as f32 + values[i]) / (a.visits + 1) as f32;
            a.visits += 1;
        }
    }

    #[test]
    fn the_improved_policy_moves_mass_to_the_better_action() {
        let moves = [mv("a1a2"), mv("b1b2"), mv("c1c2"), mv("d1d2")];
        // The prior likes a1a2; b1b2 is the good action.
        let priors = [0.55, 0.15, 0.15, 0.15];
        let values = [-0.5, 0.8, 0.0, -0.2];
        let mut rng = rng_from_seed(1);
        let mut better = 0;
        for _ in 0..200 {
            let mut root = GumbelRoot::new(&moves, &priors, Some(0.0), 8, GumbelOptions::default(), &mut rng);
            simulate(&mut root, &values, 8);
            assert_eq!(root.actions.iter().map(|a| a.visits).sum::<u32>(), 8, "exactly the budget");
            let improved = root.improved_policy();
            assert!((improved.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(improved[1] > root.prior()[1], "{improved:?}");
            assert!(improved[0] < root.prior()[0], "{improved:?}");
            better += (root.best_action() == 1) as u32;
        }
        // Every action is considered (k = 16 > 4), so the search always
        // finds b1b2's value; the Gumbel draw and the prior decide the rest.
        assert!(better > 150, "chose the good action {better} times of 200");
    }

    #[test]
    fn a_decision_policy_lists_positive_shares_and_the_kept_action() {
        let moves = [mv("a1a2"), mv("b1b2"), mv("c1c2")];
        let priors = [0.4, 0.3, 0.3];
        let mut root = GumbelRoot::new(&moves, &priors, None, 30_000, GumbelOptions::default(), &mut rng_from_seed(3));
        simulate(&mut root, &[1.0, 0.0, -1.0], 30_000);
        // Thousands of visits: the worst action's exp() underflows.
        assert!(root.improved_policy().contains(&0.0), "{:?}", root.improved_policy());
        for kept in 0..3 {
            let policy = root.decision_policy(kept);
            assert!(policy.iter().all(|&(_, p)| p > 0.0), "{policy:?}");
            assert!(policy.iter().any(|&(m, _)| m == moves[kept]), "kept {kept}: {policy:?}");
            let sum: f32 = policy.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-4, "{sum}");
        }
    }

    #[test]
    fn without_noise_the_top_k_of_the_prior_is_considered() {
        let moves = [mv("a1a2"), mv("b1b2"), mv("c1c2"), mv("d1d2")];
        let priors = [0.1, 0.4, 0.3, 0.2];
        let options = GumbelOptions { considered: 2, gumbel_scale: 0.0, ..GumbelOptions::default() };
        let mut root = GumbelRoot::new(&moves, &priors, None, 10, options, &mut rng_from_seed(2));
        simulate(&mut root, &[1.0, 0.0, 0.0, 0.0], 10);
        // a1a2 would be best, but it is not among the two considered.
        let visits: Vec<u32> = root.actions.iter().map(|a| a.visits).collect();
        assert_eq!(visits, vec![0, 5, 5, 0]);
    }
}
