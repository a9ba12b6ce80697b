//! Logistic regression by iteratively reweighted least squares (Newton's method on the log-likelihood).
//!
//! Model: observation `i` with predictors `xᵢ` (a row of the design matrix, usually with a leading column of
//! ones) has expected outcome `μᵢ = 1 / (1 + e^(−xᵢ·β))`. The outcome `yᵢ` may be any number in `[0, 1]`, not
//! only 0 or 1: a game's score (1 win, ½ draw, 0 loss) enters as `yᵢ·ln μᵢ + (1 − yᵢ)·ln(1 − μᵢ)`, so a draw
//! counts as half a win and half a loss. This is the **quasi-binomial** model: the estimating equations
//! `Σ wᵢ xᵢ (yᵢ − μᵢ) = 0` are the binomial ones, and they are unbiased whatever the draw rate, because only
//! the mean `E[y] = μ` is modelled. The variance of a score with draws is below the binomial `μ(1 − μ)`, so the
//! standard errors use one of:
//!
//! * [`Dispersion::Binomial`]: the inverse Fisher information `(Xᵀ W X)⁻¹`, `W = diag(wᵢ μᵢ (1 − μᵢ))` (right for
//!   0/1 outcomes; conservative with draws);
//! * [`Dispersion::Pearson`]: that times the Pearson dispersion `φ = Σ wᵢ (yᵢ − μᵢ)² / (μᵢ(1 − μᵢ)) / (n − p)`
//!   (the quasi-binomial standard errors, as R's `glm(family = quasibinomial)`);
//! * clusters ([`LogisticData::clusters`]): the cluster-robust "sandwich" `c · I⁻¹ (Σ_g s_g s_gᵀ) I⁻¹`, with
//!   `I = Xᵀ W X`, `s_g = Σ_{i∈g} wᵢ xᵢ (yᵢ − μᵢ)` the score of cluster `g` and `c = G / (G − 1)` for `G`
//!   clusters. Observations of one cluster may be correlated in any way (the two games of a seed with the
//!   seats swapped, the variants played on the same seed); clusters must be independent.
//!
//! Wald 95% intervals are `β̂ ± 1.959964·se` and p-values are two-sided normal ones of `β = 0`.
//!
//! Failures are errors, not panics: dependent columns ([`StatsError::SingularDesign`]), outcomes that some
//! combination of predictors separates perfectly, so that the maximum-likelihood coefficients are infinite
//! ([`StatsError::PerfectSeparation`]), and Newton iterations that do not settle ([`StatsError::NotConverged`]).

use serde::{Deserialize, Serialize};

use crate::elo::logistic;
use crate::error::{finite, Result, StatsError};
use crate::interval::{Interval, Z95};
use crate::linalg::{cholesky, inverse, solve};
use crate::multiple::two_sided_p;
use crate::student_t::{t_two_sided_p, t_two_sided_quantile};

/// How the standard errors scale the inverse Fisher information (ignored when clusters are given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dispersion {
    /// `φ = 1`: plain binomial.
    Binomial,
    /// `φ` = Pearson χ² / (n − p): quasi-binomial.
    Pearson,
}

/// How to fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogisticOptions {
    /// Newton iterations before giving up (default 100).
    pub max_iterations: usize,
    /// Converged when no coefficient moves by more than this in one step (default 1e-9).
    pub tolerance: f64,
    /// The variance scale when no clusters are given (default [`Dispersion::Binomial`]).
    pub dispersion: Dispersion,
}

impl Default for LogisticOptions {
    fn default() -> Self {
        LogisticOptions { max_iterations: 100, tolerance: 1e-9, dispersion: Dispersion::Binomial }
    }
}

/// The data of a fit.
#[derive(Debug, Clone, Copy)]
pub struct LogisticData<'a> {
    /// The design matrix, row-major: `y.len()` rows of `columns` predictors.
    pub x: &'a [f64],
    pub columns: usize,
    /// Outcomes in `[0, 1]`.
    pub y: &'a [f64],
    /// Non-negative weights per row (absent: all 1).
    pub weights: Option<&'a [f64]>,
    /// A cluster id per row for cluster-robust standard errors (absent: model-based).
    pub clusters: Option<&'a [u64]>,
}

/// One coefficient with its standard error, Wald 95% interval and two-sided p-value of zero.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Coefficient {
    pub value: f64,
    pub std_error: f64,
    pub interval: Interval,
    pub p_value: f64,
}

/// Which variance the standard errors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarianceKind {
    /// The inverse Fisher information (times the dispersion).
    Model,
    /// The cluster-robust sandwich over this many clusters.
    ClusterRobust { clusters: usize },
}

/// A fitted logistic regression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogisticFit {
    /// One per design column, in order.
    pub coefficients: Vec<Coefficient>,
    /// The covariance of the coefficients, row-major `columns × columns`.
    pub covariance: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
    /// `2 Σ wᵢ [yᵢ ln(yᵢ/μᵢ) + (1 − yᵢ) ln((1 − yᵢ)/(1 − μᵢ))]`.
    pub deviance: f64,
    /// The Pearson dispersion estimate (reported whatever the variance used).
    pub dispersion: f64,
    pub variance: VarianceKind,
}

/// `y ln μ + (1 − y) ln(1 − μ)` with `μ = logistic(η)`, written without overflow: `y η − ln(1 + e^η)`.
fn log_lik(y: f64, eta: f64) -> f64 {
    let softplus = if eta > 0.0 { eta + (-eta).exp().ln_1p() } else { eta.exp().ln_1p() };
    y * eta - softplus
}

/// `y ln y` with `0 ln 0 = 0`.
fn xlogx(y: f64) -> f64 {
    if y > 0.0 {
        y * y.ln()
    } else {
        0.0
    }
}

/// Linear predictors above this size (probabilities within about 1e-13 of 0 or 1) mean separation.
const SEPARATED_ETA: f64 = 30.0;

/// Fit a logistic regression of `data.y` on the columns of `data.x` by Newton's method with step halving.
pub fn fit_logistic(data: &LogisticData, options: &LogisticOptions) -> Result<LogisticFit> {
    let (n, p) = (data.y.len(), data.columns);
    if n == 0 {
        return Err(StatsError::NoData("a logistic regression needs at least one observation"));
    }
    if p == 0 {
        return Err(StatsError::SingularDesign("the design has no columns".into()));
    }
    if data.x.len() != n * p {
        return Err(StatsError::InvalidArgument {
            name: "design matrix size",
            value: data.x.len() as f64,
            reason: "must be rows × columns (rows = outcomes)",
        });
    }
    for &v in data.x {
        finite("design matrix entry", v)?;
    }
    for &y in data.y {
        if !(0.0..=1.0).contains(&y) {
            return Err(StatsError::InvalidArgument { name: "outcome", value: y, reason: "must be in [0, 1]" });
        }
    }
    let ones = vec![1.0; n];
    let w = data.weights.unwrap_or(&ones);
    if w.len() != n {
        return Err(StatsError::InvalidArgument {
            name: "weights' length",
            value: w.len() as f64,
            reason: "must equal the number of outcomes",
        });
    }
    if let Some(&bad) = w.iter().find(|&&v| !(v.is_finite() && v >= 0.0)) {
        return Err(StatsError::InvalidArgument { name: "weight", value: bad, reason: "must be finite and ≥ 0" });
    }
    if let Some(c) = data.clusters {
        if c.len() != n {
            return Err(StatsError::InvalidArgument {
                name: "clusters' length",
                value: c.len() as f64,
                reason: "must equal the number of outcomes",
            });
        }
    }
    let used = w.iter().filter(|&&v| v > 0.0).count();
    if used < p {
        return Err(StatsError::SingularDesign(format!(
            "{used} weighted observations cannot determine {p} coefficients"
        )));
    }
    let row = |i: usize| &data.x[i * p..(i + 1) * p];
    let eta_of = |beta: &[f64], i: usize| row(i).iter().zip(beta).map(|(a, b)| a * b).sum::<f64>();
    let total_ll = |beta: &[f64]| (0..n).map(|i| w[i] * log_lik(data.y[i], eta_of(beta, i))).sum::<f64>();
    // The information `Xᵀ W X` and the score `Xᵀ w (y − μ)` at `beta`.
    let info_and_score = |beta: &[f64]| {
        let (mut info, mut score) = (vec![0.0; p * p], vec![0.0; p]);
        for (i, &wi) in w.iter().enumerate() {
            if wi == 0.0 {
                continue;
            }
            let mu = logistic(eta_of(beta, i));
            let (r, v) = (wi * (data.y[i] - mu), wi * mu * (1.0 - mu));
            let xi = row(i);
            for a in 0..p {
                score[a] += xi[a] * r;
                for b in 0..=a {
                    info[a * p + b] += xi[a] * xi[b] * v;
                }
            }
        }
        for a in 0..p {
            for b in 0..a {
                info[b * p + a] = info[a * p + b];
            }
        }
        (info, score)
    };
    const REL_TOL: f64 = 1e-10;
    let mut beta = vec![0.0; p];
    // At β = 0 every weight is ¼: a failure here is the design's own rank.
    if cholesky(&info_and_score(&beta).0, p, REL_TOL).is_none() {
        return Err(StatsError::SingularDesign("some design columns are linear combinations of others".into()));
    }
    let max_eta = |beta: &[f64]| (0..n).filter(|&i| w[i] > 0.0).map(|i| eta_of(beta, i).abs()).fold(0.0, f64::max);
    let separated = || {
        StatsError::PerfectSeparation(
            "the outcomes are perfectly predicted by some combination of the terms (e.g. a cell won or lost every game), so a coefficient is infinite".into(),
        )
    };
    let mut ll = total_ll(&beta);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < options.max_iterations {
        iterations += 1;
        let (info, score) = info_and_score(&beta);
        let Some(l) = cholesky(&info, p, REL_TOL) else {
            // Full rank at the start, singular now: fitted probabilities have run to 0 or 1.
            return Err(if max_eta(&beta) > SEPARATED_ETA / 2.0 {
                separated()
            } else {
                StatsError::SingularDesign("the information matrix became singular".into())
            });
        };
        let step = solve(&l, p, &score);
        let mut t = 1.0;
        let mut next: Vec<f64>;
        loop {
            next = beta.iter().zip(&step).map(|(b, s)| b + t * s).collect();
            let new_ll = total_ll(&next);
            if new_ll >= ll - 1e-12 * ll.abs().max(1.0) || t < 1e-6 {
                ll = new_ll;
                break;
            }
            t /= 2.0;
        }
        let moved = step.iter().map(|s| (t * s).abs()).fold(0.0, f64::max);
        beta = next;
        if !moved.is_finite() || !ll.is_finite() {
            return Err(StatsError::Numerical("the logistic regression diverged"));
        }
        if max_eta(&beta) > SEPARATED_ETA {
            return Err(separated());
        }
        if moved < options.tolerance {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(if max_eta(&beta) > SEPARATED_ETA / 2.0 {
            separated()
        } else {
            StatsError::NotConverged { iterations }
        });
    }
    let (info, _) = info_and_score(&beta);
    let Some(l) = cholesky(&info, p, REL_TOL) else {
        return Err(separated());
    };
    let inv = inverse(&l, p);
    let (mut pearson, mut deviance) = (0.0, 0.0);
    for (i, (&y, &wi)) in data.y.iter().zip(w).enumerate() {
        let eta = eta_of(&beta, i);
        let mu = logistic(eta);
        let v = (mu * (1.0 - mu)).max(f64::MIN_POSITIVE);
        pearson += wi * (y - mu).powi(2) / v;
        deviance += 2.0 * wi * (xlogx(y) + xlogx(1.0 - y) - log_lik(y, eta));
    }
    let dispersion = if used > p { pearson / (used - p) as f64 } else { f64::NAN };
    let (covariance, variance) = match data.clusters {
        Some(ids) => {
            // Sum the score contributions per cluster, then the sandwich.
            let mut sums: std::collections::BTreeMap<u64, Vec<f64>> = std::collections::BTreeMap::new();
            for i in 0..n {
                if w[i] == 0.0 {
                    continue;
                }
                let r = w[i] * (data.y[i] - logistic(eta_of(&beta, i)));
                let s = sums.entry(ids[i]).or_insert_with(|| vec![0.0; p]);
                for (a, x) in row(i).iter().enumerate() {
                    s[a] += x * r;
                }
            }
            let g = sums.len();
            if g < 2 {
                return Err(StatsError::NoData("cluster-robust errors need at least 2 clusters"));
            }
            let mut meat = vec![0.0; p * p];
            for s in sums.values() {
                for a in 0..p {
                    for b in 0..p {
                        meat[a * p + b] += s[a] * s[b];
                    }
                }
            }
            let c = g as f64 / (g - 1) as f64;
            let half = mat_mul(&inv, &meat, p);
            let cov: Vec<f64> = mat_mul(&half, &inv, p).into_iter().map(|v| v * c).collect();
            (cov, VarianceKind::ClusterRobust { clusters: g })
        }
        None => {
            let phi = match options.dispersion {
                Dispersion::Binomial => 1.0,
                Dispersion::Pearson if dispersion.is_finite() => dispersion,
                Dispersion::Pearson => {
                    return Err(StatsError::NoData("a Pearson dispersion needs more observations than coefficients"))
                }
            };
            (inv.into_iter().map(|v| v * phi).collect(), VarianceKind::Model)
        }
    };
    // Over G clusters the sandwich carries about G − 1 degrees of freedom:
    // t(G − 1) rather than the normal, which would be too sure with few seeds.
    let t_df = match variance {
        VarianceKind::ClusterRobust { clusters } => Some((clusters - 1) as f64),
        VarianceKind::Model => None,
    };
    let multiplier = t_df.map_or(Z95, |df| t_two_sided_quantile(0.05, df));
    let coefficients = (0..p)
        .map(|j| {
            let se = covariance[j * p + j].max(0.0).sqrt();
            let value = beta[j];
            let p_value = if se.is_nan() {
                f64::NAN
            } else if se > 0.0 {
                t_df.map_or_else(|| two_sided_p(value / se), |df| t_two_sided_p(value / se, df))
            } else {
                f64::from(u8::from(value == 0.0))
            };
            Coefficient {
                value,
                std_error: se,
                interval: Interval { low: value - multiplier * se, high: value + multiplier * se },
                p_value,
            }
        })
        .collect();
    Ok(LogisticFit { coefficients, covariance, iterations, deviance, dispersion, variance })
}

fn mat_mul(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            for j in 0..n {
                out[i * n + j] += aik * b[k * n + j];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// A 2×2 design, effect-coded (±1), with an interaction: rows `[1, a, b, ab]`.
    fn design_row(a: f64, b: f64) -> [f64; 4] {
        [1.0, a, b, a * b]
    }

    /// `n` observations per cell of the 2×2 design under `beta`; a draw with probability `draw` (a score of
    /// ½), otherwise a win or loss so that the expected score is `logistic(x·β)`.
    fn simulate(rng: &mut Pcg64, beta: &[f64; 4], per_cell: usize, draw: f64) -> (Vec<f64>, Vec<f64>) {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for a in [-1.0, 1.0] {
            for b in [-1.0, 1.0] {
                let r = design_row(a, b);
                let s = logistic(r.iter().zip(beta).map(|(u, v)| u * v).sum());
                // P(win) + P(draw)/2 = s.
                let win = s - draw / 2.0;
                assert!(win >= 0.0 && win + draw <= 1.0);
                for _ in 0..per_cell {
                    x.extend_from_slice(&r);
                    let u: f64 = rng.random();
                    y.push(if u < win {
                        1.0
                    } else if u < win + draw {
                        0.5
                    } else {
                        0.0
                    });
                }
            }
        }
        (x, y)
    }

    const TRUTH: [f64; 4] = [0.2, 0.5, -0.3, 0.25];

    #[test]
    fn recovers_main_effects_and_an_interaction() {
        let mut rng = Pcg64::seed_from_u64(17);
        let (x, y) = simulate(&mut rng, &TRUTH, 5000, 0.0);
        let data = LogisticData { x: &x, columns: 4, y: &y, weights: None, clusters: None };
        let fit = fit_logistic(&data, &LogisticOptions::default()).unwrap();
        for (c, t) in fit.coefficients.iter().zip(TRUTH) {
            eprintln!(
                "true {t:+.4} fitted {:+.4} ± {:.4} [{:+.4}, {:+.4}]",
                c.value, c.std_error, c.interval.low, c.interval.high
            );
            assert!(c.interval.contains(t), "{c:?} misses {t}");
            assert!((c.value - t).abs() < 0.05, "{c:?} vs {t}");
            // 20 000 games: se ≈ 1/sqrt(n·μ(1−μ)) ≈ 0.015.
            assert!(c.std_error > 0.01 && c.std_error < 0.02, "{c:?}");
        }
        assert!(fit.coefficients[1].p_value < 1e-6 && fit.coefficients[3].p_value < 1e-6);
        assert!(fit.iterations < 10);
        // The saturated 2×2 model reproduces each cell's mean exactly.
        let cell_mean: f64 = y[..5000].iter().sum::<f64>() / 5000.0;
        let eta: f64 = design_row(-1.0, -1.0).iter().zip(&fit.coefficients).map(|(u, c)| u * c.value).sum();
        assert!((logistic(eta) - cell_mean).abs() < 1e-9);
    }

    /// Over many simulated data sets the Wald intervals cover the truth about 95% of the time, without draws
    /// (binomial) and with 40% draws (quasi-binomial, Pearson dispersion; and cluster-robust).
    #[test]
    fn intervals_cover_the_truth_at_their_nominal_rate() {
        let mut rng = Pcg64::seed_from_u64(5);
        let reps = 300;
        for (draw, dispersion, clustered) in
            [(0.0, Dispersion::Binomial, false), (0.4, Dispersion::Pearson, false), (0.4, Dispersion::Binomial, true)]
        {
            let mut covered = [0usize; 4];
            let mut phi = 0.0;
            for _ in 0..reps {
                let (x, y) = simulate(&mut rng, &TRUTH, 250, draw);
                let ids: Vec<u64> = (0..y.len() as u64).collect();
                let data =
                    LogisticData { x: &x, columns: 4, y: &y, weights: None, clusters: clustered.then_some(&ids[..]) };
                let fit = fit_logistic(&data, &LogisticOptions { dispersion, ..LogisticOptions::default() }).unwrap();
                phi += fit.dispersion / reps as f64;
                for (k, (c, t)) in fit.coefficients.iter().zip(TRUTH).enumerate() {
                    covered[k] += usize::from(c.interval.contains(t));
                }
            }
            for (k, c) in covered.iter().enumerate() {
                let rate = *c as f64 / reps as f64;
                assert!((0.91..=0.985).contains(&rate), "draws {draw}, term {k}: coverage {rate}");
            }
            // Draws shrink the variance of a score below the binomial one.
            if draw > 0.0 {
                assert!(phi < 0.75, "dispersion {phi}");
            } else {
                assert!((phi - 1.0).abs() < 0.05, "dispersion {phi}");
            }
        }
    }

    #[test]
    fn weights_count_as_repeated_rows() {
        let x = [1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0];
        let y = [1.0, 1.0, 0.0, 0.0];
        let w = [3.0, 5.0, 2.0, 1.0];
        let a = fit_logistic(
            &LogisticData { x: &x, columns: 2, y: &y, weights: Some(&w), clusters: None },
            &LogisticOptions::default(),
        )
        .unwrap();
        let (mut xx, mut yy) = (Vec::new(), Vec::new());
        for i in 0..4 {
            for _ in 0..w[i] as usize {
                xx.extend_from_slice(&x[2 * i..2 * i + 2]);
                yy.push(y[i]);
            }
        }
        let b = fit_logistic(
            &LogisticData { x: &xx, columns: 2, y: &yy, weights: None, clusters: None },
            &LogisticOptions::default(),
        )
        .unwrap();
        for (c, d) in a.coefficients.iter().zip(&b.coefficients) {
            assert!((c.value - d.value).abs() < 1e-9 && (c.std_error - d.std_error).abs() < 1e-9);
        }
        // a = −1: 3 of 5 won; a = +1: 5 of 6.
        let low = logistic(a.coefficients[0].value - a.coefficients[1].value);
        assert!((low - 0.6).abs() < 1e-9, "{low}");
    }

    #[test]
    fn separation_and_singular_designs_are_errors() {
        // The first mover won every game with a = +1 and lost every game with a = −1.
        let x = [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0];
        let y = [0.0, 0.0, 1.0, 1.0];
        let data = LogisticData { x: &x, columns: 2, y: &y, weights: None, clusters: None };
        assert!(matches!(fit_logistic(&data, &LogisticOptions::default()), Err(StatsError::PerfectSeparation(_))));
        // Quasi-separation: one cell all wins, the other mixed.
        let y = [0.0, 1.0, 1.0, 1.0];
        let data = LogisticData { x: &x, columns: 2, y: &y, weights: None, clusters: None };
        assert!(matches!(fit_logistic(&data, &LogisticOptions::default()), Err(StatsError::PerfectSeparation(_))));
        // Two equal columns.
        let x = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let y = [0.0, 1.0, 0.5];
        let data = LogisticData { x: &x, columns: 2, y: &y, weights: None, clusters: None };
        assert!(matches!(fit_logistic(&data, &LogisticOptions::default()), Err(StatsError::SingularDesign(_))));
        // Bad input.
        let data = LogisticData { x: &[1.0, 1.0], columns: 1, y: &[0.0, 1.5], weights: None, clusters: None };
        assert!(matches!(fit_logistic(&data, &LogisticOptions::default()), Err(StatsError::InvalidArgument { .. })));
        let data = LogisticData { x: &[1.0], columns: 1, y: &[0.0, 1.0], weights: None, clusters: None };
        assert!(fit_logistic(&data, &LogisticOptions::default()).is_err());
        let data = LogisticData { x: &[], columns: 1, y: &[], weights: None, clusters: None };
        assert!(matches!(fit_logistic(&data, &LogisticOptions::default()), Err(StatsError::NoData(_))));
        let data = LogisticData { x: &[1.0, f64::NAN], columns: 1, y: &[0.0, 1.0], weights: None, clusters: None };
        assert!(fit_logistic(&data, &LogisticOptions::default()).is_err());
        // The errors read as one line.
        let e = StatsError::PerfectSeparation("x".into()).to_string();
        assert!(!e.contains('\n'));
    }

    /// Clusters of perfectly correlated copies: the sandwich sees that `k` copies carry one observation's
    /// information, the model-based errors do not.
    #[test]
    fn cluster_robust_errors_count_correlated_copies_once() {
        let mut rng = Pcg64::seed_from_u64(9);
        let (x, y) = simulate(&mut rng, &TRUTH, 500, 0.2);
        let copies = 4;
        let (mut xx, mut yy, mut ids) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..y.len() {
            for _ in 0..copies {
                xx.extend_from_slice(&x[4 * i..4 * i + 4]);
                yy.push(y[i]);
                ids.push(i as u64);
            }
        }
        let opts = LogisticOptions::default();
        let single = fit_logistic(
            &LogisticData {
                x: &x,
                columns: 4,
                y: &y,
                weights: None,
                clusters: Some(&(0..y.len() as u64).collect::<Vec<_>>()),
            },
            &opts,
        )
        .unwrap();
        let naive =
            fit_logistic(&LogisticData { x: &xx, columns: 4, y: &yy, weights: None, clusters: None }, &opts).unwrap();
        let robust =
            fit_logistic(&LogisticData { x: &xx, columns: 4, y: &yy, weights: None, clusters: Some(&ids) }, &opts)
                .unwrap();
        assert_eq!(robust.variance, VarianceKind::ClusterRobust { clusters: y.len() });
        for k in 0..4 {
            assert!((robust.coefficients[k].value - single.coefficients[k].value).abs() < 1e-9);
            assert!((robust.coefficients[k].std_error - single.coefficients[k].std_error).abs() < 1e-9);
            let ratio = robust.coefficients[k].std_error / naive.coefficients[k].std_error;
            // sqrt(4) = 2 from the copies, times sqrt(φ) < 1 from the draws.
            assert!(ratio > 1.5 && ratio < 2.05, "term {k}: ratio {ratio}");
        }
    }
}
