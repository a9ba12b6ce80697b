//! `heuristic`: a hand-written player that scores every legal action from
//! what its seat knows and samples from a softmax over the scores.
//!
//! * [`eval`]: expected combat values over the defender's possible kinds, a
//!   one-ply threat check (escape threatened pieces, do not walk into
//!   captures), flag guarding, approach towards beatable targets, a 翻棋 flip
//!   policy and pressure to attack before the no-progress draw.
//! * [`belief`]: per enemy piece, a distribution over its kinds.
//! * [`deploy`]: sensible randomized 暗棋/明棋 deployments
//!   ([`heuristic_deployment`], also used by other bots).

mod belief;
mod deploy;
mod eval;

pub use deploy::{formation_deployment, heuristic_deployment, Formation};
pub use eval::{material, WIN};

use crate::{uniform, Agent, Decision};
use junqi_core::{Colour, Deployment, GameRng, InfoSet, Move, MoveList, Rules};
use rand::Rng;

/// The temperature `heuristic` plays with unless told otherwise.
pub const DEFAULT_TEMP: f32 = 0.1;

/// The heuristic bot. `temp`: softmax temperature over action scores (in
/// material units); 0 plays the best-scored action (ties uniformly).
#[derive(Clone, Debug)]
pub struct Heuristic {
    pub temp: f32,
    moves: MoveList,
    scores: Vec<f32>,
}

impl Default for Heuristic {
    fn default() -> Self {
        Heuristic::new(DEFAULT_TEMP)
    }
}

impl Heuristic {
    pub fn new(temp: f32) -> Heuristic {
        Heuristic { temp, moves: MoveList::new(), scores: Vec::with_capacity(128) }
    }

    /// The score of every legal action of the seat to move in `info`, in
    /// the order of [`InfoSet::legal_moves`] (for tests and analysis).
    pub fn scores(info: &InfoSet) -> Vec<(Move, f32)> {
        let mut moves = MoveList::new();
        info.legal_moves(&mut moves);
        let Some(me) = info.colour() else { return moves.iter().map(|&m| (m, 0.0)).collect() };
        let scorer = eval::Scorer::new(info, me);
        moves.iter().map(|&m| (m, scorer.score(m))).collect()
    }
}

impl Agent for Heuristic {
    fn name(&self) -> String {
        if self.temp == DEFAULT_TEMP {
            "heuristic".to_string()
        } else {
            format!("heuristic:temp={}", self.temp)
        }
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        info.legal_moves(&mut self.moves);
        let all = self.moves.as_slice();
        assert!(!all.is_empty(), "act called on a finished game");
        let Some(me) = info.colour() else {
            // 翻棋 before colours are assigned: every flip is alike.
            let action = all[rng.random_range(0..all.len())];
            return Decision { action, policy: uniform(all), value: None };
        };
        let scorer = eval::Scorer::new(info, me);
        self.scores.clear();
        self.scores.extend(all.iter().map(|&m| scorer.score(m)));
        let policy = softmax(all, &self.scores, self.temp);
        let mut x = rng.random::<f32>();
        let mut action = policy[policy.len() - 1].0;
        for &(m, p) in &policy {
            if x < p {
                action = m;
                break;
            }
            x -= p;
        }
        Decision { action, policy, value: None }
    }

    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        heuristic_deployment(colour, rules, rng)
    }
}

/// The distribution over `moves` with weights `exp((s - max) / temp)`; with
/// `temp == 0` uniform over the best scores. Actions whose probability would
/// be negligible (below 1e-6 of the best) are left out; the rest sum to 1.
fn softmax(moves: &[Move], scores: &[f32], temp: f32) -> Vec<(Move, f32)> {
    let best = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut out: Vec<(Move, f32)> = Vec::new();
    if temp <= 0.0 {
        let tol = 1e-5 * best.abs().max(1.0);
        out.extend(moves.iter().zip(scores).filter(|(_, &s)| s >= best - tol).map(|(&m, _)| (m, 1.0)));
    } else {
        let cut = (1e-6f64).ln() * temp as f64;
        for (&m, &s) in moves.iter().zip(scores) {
            let z = (s - best) as f64;
            if z >= cut {
                out.push((m, (z / temp as f64).exp() as f32));
            }
        }
    }
    let total: f64 = out.iter().map(|&(_, w)| w as f64).sum();
    for e in out.iter_mut() {
        e.1 = (e.1 as f64 / total) as f32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_is_a_distribution_and_argmax_at_zero() {
        let a = "a1a2".parse().unwrap();
        let b = "b1b2".parse().unwrap();
        let c = "c1c2".parse().unwrap();
        let p = softmax(&[a, b, c], &[1.0, 1.0, 0.0], 0.0);
        assert_eq!(p, vec![(a, 0.5), (b, 0.5)]);
        let p = softmax(&[a, b, c], &[1.0, 0.5, 0.0], 0.5);
        assert_eq!(p.len(), 3);
        assert!((p.iter().map(|x| x.1).sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(p[0].1 > p[1].1 && p[1].1 > p[2].1);
        // A far worse action drops out instead of getting probability 0.
        let p = softmax(&[a, b], &[10.0, 0.0], 0.1);
        assert_eq!(p, vec![(a, 1.0)]);
    }
}
