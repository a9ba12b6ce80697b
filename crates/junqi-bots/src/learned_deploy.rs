//! Learned 暗棋/明棋 deployments: a linear value over deployments, fitted to
//! game outcomes, choosing among a fresh pool of legal candidates each game.
//!
//! **Features.** A deployment is seen in its own side's frame (its back rank
//! is rank 1) and mirrored so that its flag stands in the left headquarters
//! (b1); then every (node, kind) pair is one 0/1 feature: 30 nodes of ranks
//! 1–6 × 12 kinds. Mirroring makes the features relative to the flag, so
//! "a mine beside the flag" or "a bomb in front of it" is one weight, not two.
//!
//! **Value.** `P(win) = σ(bias + Σ w[feature])`, fitted by L2-regularised
//! logistic regression on the deployments of finished games, a draw
//! counting as half a win ([`DeploymentModel::fit`]).
//!
//! **Choice.** Each call draws [`CANDIDATES`] legal deployments (the
//! heuristic bot's formations, three in four of them changed by one to
//! three random swaps of two pieces that keep the deployment legal) and
//! samples one with probability ∝ `exp(score / temperature)`. The pool is
//! new every time, so the choice never collapses to one deployment an
//! opponent could read off; the temperature (default 1: the scores are
//! log-odds) sets how hard it leans on the model. (Half uniformly random
//! candidates were tried first: the model had seen few of their features,
//! could not tell them from good ones, and a loop's first net rated about
//! 120 Elo lower against `heuristic` with them.)

use crate::heuristic_deployment;
use junqi_core::piece::KINDS;
use junqi_core::{Colour, Deployment, Kind, Rules, Square};
use rand::Rng;

/// Nodes of one side's half (ranks 1–6), camps included (never used).
const HALF_NODES: usize = 30;
/// Features of a deployment: (node of the half, kind).
pub const DEPLOY_FEATURES: usize = HALF_NODES * KINDS;
/// Candidates drawn per choice.
pub const CANDIDATES: usize = 128;

/// A linear value over deployments; see the [module docs](self).
#[derive(Clone, Debug, PartialEq)]
pub struct DeploymentModel {
    /// One weight per feature ([`DEPLOY_FEATURES`]).
    pub weights: Vec<f32>,
    pub bias: f32,
    /// Softmax temperature of the choice (> 0).
    pub temperature: f32,
}

/// How [`DeploymentModel::fit`] fits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// L2 penalty per weight (on the mean loss).
    pub l2: f32,
    /// Full-batch gradient steps.
    pub steps: usize,
    /// Step size as a fraction of the largest stable one (below 2).
    pub lr: f32,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { l2: 1e-3, steps: 1000, lr: 1.0 }
    }
}

/// Active features per deployment plus the bias: the squared norm of every
/// example's feature vector, which bounds the curvature of the mean
/// logistic loss by a quarter of it. Gradient descent is stable below a
/// step of 2 / (that bound); formations share many features (every flag is
/// on b1 after mirroring), so the bound is nearly reached.
const ROW_NORM2: f32 = 26.0;

/// A deployment chosen by `model` when there is one, else one of the
/// heuristic bot's formations (what the net bots do without a learned model).
pub fn deploy_with<R: Rng + ?Sized>(
    model: Option<&DeploymentModel>,
    colour: Colour,
    rules: &Rules,
    rng: &mut R,
) -> Deployment {
    match model {
        Some(model) => model.choose(colour, rules, rng),
        None => heuristic_deployment(colour, rules, rng),
    }
}

/// Swap the kinds of two random pieces of `d`, `n` times, keeping only
/// swaps that leave it legal (§5.1).
fn random_swaps<R: Rng + ?Sized>(d: &mut Deployment, n: usize, rng: &mut R) {
    let len = d.pieces.len();
    let mut done = 0;
    for _ in 0..20 * n {
        if done == n || len < 2 {
            return;
        }
        let (i, j) = (rng.random_range(0..len), rng.random_range(0..len));
        let (ki, kj) = (d.pieces[i].1, d.pieces[j].1);
        if ki == kj {
            continue;
        }
        d.pieces[i].1 = kj;
        d.pieces[j].1 = ki;
        if d.validate().is_ok() {
            done += 1;
        } else {
            d.pieces[i].1 = ki;
            d.pieces[j].1 = kj;
        }
    }
}

/// The 25 active features of `d` (see the [module docs](self)).
pub fn deployment_features(d: &Deployment) -> Vec<u16> {
    let own_rank = |sq: Square| if d.colour == Colour::Red { sq.rank() } else { 13 - sq.rank() };
    let own_file = |sq: Square| if d.colour == Colour::Red { sq.file() } else { 4 - sq.file() };
    // Mirror so the flag is on file b (1) in the side's own frame.
    let flag_file = d.pieces.iter().find(|p| p.1 == Kind::Flag).map_or(1, |&(sq, _)| own_file(sq));
    let mirror = flag_file > 2;
    d.pieces
        .iter()
        .filter_map(|&(sq, kind)| {
            let (rank, file) = (own_rank(sq), own_file(sq));
            let file = if mirror { 4 - file } else { file };
            (1..=6).contains(&rank).then(|| (((rank - 1) * 5 + file) * KINDS + kind.index()) as u16)
        })
        .collect()
}

impl DeploymentModel {
    /// All weights 0: every candidate equally likely.
    pub fn uniform() -> DeploymentModel {
        DeploymentModel { weights: vec![0.0; DEPLOY_FEATURES], bias: 0.0, temperature: 1.0 }
    }

    /// From stored weights; `Err` says what is wrong.
    pub fn from_weights(weights: Vec<f32>, bias: f32, temperature: f32) -> Result<DeploymentModel, String> {
        if weights.len() != DEPLOY_FEATURES {
            return Err(format!("{} deployment weights, expected {DEPLOY_FEATURES}", weights.len()));
        }
        if !weights.iter().chain([&bias]).all(|w| w.is_finite()) || !(temperature > 0.0 && temperature.is_finite()) {
            return Err("deployment weights must be finite and the temperature positive".into());
        }
        Ok(DeploymentModel { weights, bias, temperature })
    }

    /// The log-odds of winning with `d` (bias included).
    pub fn score(&self, d: &Deployment) -> f32 {
        self.bias + deployment_features(d).iter().map(|&f| self.weights[f as usize]).sum::<f32>()
    }

    /// A deployment for `colour`: one of [`CANDIDATES`] fresh legal
    /// candidates, sampled ∝ `exp(score / temperature)`.
    pub fn choose<R: Rng + ?Sized>(&self, colour: Colour, rules: &Rules, rng: &mut R) -> Deployment {
        let candidates: Vec<Deployment> = (0..CANDIDATES)
            .map(|i| {
                let mut d = heuristic_deployment(colour, rules, rng);
                if i % 4 != 0 {
                    let swaps = rng.random_range(1..=3);
                    random_swaps(&mut d, swaps, rng);
                }
                d
            })
            .collect();
        let scores: Vec<f32> = candidates.iter().map(|d| self.score(d) / self.temperature).collect();
        let top = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f32> = scores.iter().map(|s| (s - top).exp()).collect();
        let total: f32 = weights.iter().sum();
        let mut r = rng.random::<f32>() * total;
        let mut pick = candidates.len() - 1;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                pick = i;
                break;
            }
            r -= w;
        }
        candidates.into_iter().nth(pick).expect("a candidate")
    }

    /// A deployment for one army of the four-player game (docs/rules.md
    /// §10.5), whose zone is the two-player half written as Red's: Red's
    /// choice. The candidates keep bombs off the front rank, so the choice
    /// is legal whether a four-player variant lifts that rule or not (the
    /// formations read no rule; the preset only fills the argument).
    pub fn choose_red_half<R: Rng + ?Sized>(&self, rng: &mut R) -> Deployment {
        self.choose(Colour::Red, &Rules::preset(junqi_core::Mode::Anqi), rng)
    }

    /// Fit to `games`: each a deployment and its result for that side (1
    /// won, 0.5 drawn, 0 lost), by full-batch gradient descent on the mean
    /// logistic loss plus `l2 / 2 · |w|²`, starting from `self`.
    pub fn fit(&self, games: &[(Deployment, f32)], options: &FitOptions) -> DeploymentModel {
        let mut m = self.clone();
        if games.is_empty() {
            return m;
        }
        let features: Vec<Vec<u16>> = games.iter().map(|(d, _)| deployment_features(d)).collect();
        let n = games.len() as f32;
        let mut grad = vec![0.0f32; DEPLOY_FEATURES];
        for _ in 0..options.steps {
            grad.iter_mut().for_each(|g| *g = 0.0);
            let mut grad_bias = 0.0;
            for (f, (_, y)) in features.iter().zip(games) {
                let z = m.bias + f.iter().map(|&i| m.weights[i as usize]).sum::<f32>();
                let err = 1.0 / (1.0 + (-z).exp()) - y;
                grad_bias += err;
                for &i in f {
                    grad[i as usize] += err;
                }
            }
            let step = options.lr / (0.25 * ROW_NORM2 + options.l2);
            m.bias -= step * grad_bias / n;
            for (w, g) in m.weights.iter_mut().zip(&grad) {
                *w -= step * (g / n + options.l2 * *w);
            }
        }
        m
    }

    /// The mean logistic loss on `games` (for reports and tests).
    pub fn loss(&self, games: &[(Deployment, f32)]) -> f32 {
        let total: f32 = games
            .iter()
            .map(|(d, y)| {
                let p = (1.0 / (1.0 + (-self.score(d)).exp())).clamp(1e-6, 1.0 - 1e-6);
                -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
            })
            .sum();
        total / games.len().max(1) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{rng_from_seed, Mode};

    /// Every chosen deployment is legal (§5.1), for both colours, whatever
    /// the weights; and the choice keeps its entropy: 200 choices are 200
    /// different deployments, with the flag in both headquarters.
    #[test]
    fn chosen_deployments_are_legal_and_varied() {
        let rules = Rules::preset(Mode::Anqi);
        let mut rng = rng_from_seed(3);
        let mut skewed = DeploymentModel::uniform();
        for (i, w) in skewed.weights.iter_mut().enumerate() {
            *w = ((i * 7919) % 13) as f32 - 6.0;
        }
        for model in [DeploymentModel::uniform(), skewed] {
            for colour in Colour::ALL {
                let mut seen = std::collections::HashSet::new();
                let mut flag_files = [0; 5];
                for _ in 0..200 {
                    let d = model.choose(colour, &rules, &mut rng);
                    d.validate().unwrap();
                    let flag = d.pieces.iter().find(|p| p.1 == Kind::Flag).unwrap().0;
                    flag_files[flag.file()] += 1;
                    let mut key = d.pieces.clone();
                    key.sort();
                    seen.insert(key);
                }
                assert_eq!(seen.len(), 200, "{colour:?}: repeated deployments");
                assert!(flag_files[1] > 20 && flag_files[3] > 20, "{colour:?}: flag files {flag_files:?}");
            }
        }
    }

    /// Mirrored and colour-swapped versions of one deployment have the same
    /// features: they are the same formation relative to the flag.
    #[test]
    fn features_are_relative_to_the_flag_and_the_side() {
        let d = Deployment::random(Colour::Red, &mut rng_from_seed(1));
        let mirror = |sq: Square| Square::from_coords(4 - sq.file(), sq.rank()).unwrap();
        let mirrored =
            Deployment { colour: Colour::Red, pieces: d.pieces.iter().map(|&(s, k)| (mirror(s), k)).collect() };
        let black =
            Deployment { colour: Colour::Black, pieces: d.pieces.iter().map(|&(s, k)| (s.rotated(), k)).collect() };
        let sorted = |d: &Deployment| {
            let mut f = deployment_features(d);
            f.sort();
            f
        };
        assert_eq!(sorted(&d).len(), 25);
        assert_eq!(sorted(&d), sorted(&mirrored));
        assert_eq!(sorted(&d), sorted(&black));
    }

    /// Fitted to outcomes where deployments with a mine beside the flag win
    /// and the others lose, the model scores such deployments higher and
    /// the choice picks them more often than an untrained one does.
    #[test]
    fn the_fit_learns_what_wins_and_the_choice_follows() {
        let mut rng = rng_from_seed(9);
        let guarded = |d: &Deployment| {
            let flag = d.pieces.iter().find(|p| p.1 == Kind::Flag).unwrap().0;
            d.pieces
                .iter()
                .any(|&(s, k)| k == Kind::Mine && s.rank() == flag.rank() && s.file().abs_diff(flag.file()) == 1)
        };
        let games: Vec<(Deployment, f32)> = (0..600)
            .map(|_| {
                let d = Deployment::random(Colour::Red, &mut rng);
                let y = if guarded(&d) { 1.0 } else { 0.0 };
                (d, y)
            })
            .collect();
        let base = DeploymentModel::uniform();
        let fitted = base.fit(&games, &FitOptions::default());
        assert!(fitted.loss(&games) < base.loss(&games) * 0.7, "{} vs {}", fitted.loss(&games), base.loss(&games));
        // Formations share most of their features (the fit once diverged on
        // them): on coin-flip results the fit still never does worse than
        // knowing nothing.
        let rules = Rules::preset(Mode::Anqi);
        let coin_flips: Vec<(Deployment, f32)> =
            (0..800).map(|i| (heuristic_deployment(Colour::Red, &rules, &mut rng), [0.0, 0.5, 1.0][i % 3])).collect();
        let noise_fit = base.fit(&coin_flips, &FitOptions::default());
        assert!(noise_fit.loss(&coin_flips) <= base.loss(&coin_flips) + 1e-4, "{}", noise_fit.loss(&coin_flips));
        let rules = Rules::preset(Mode::Anqi);
        let rate = |m: &DeploymentModel, rng: &mut junqi_core::GameRng| {
            (0..200).filter(|_| guarded(&m.choose(Colour::Black, &rules, rng))).count()
        };
        let (before, after) = (rate(&base, &mut rng), rate(&fitted, &mut rng));
        // (Most formations in the pool guard their flag already, so the
        // untrained choice is high too; the fitted one all but always.)
        assert!(after > before && after >= 190, "guarded flags: {before} before, {after} after of 200");
    }
}
