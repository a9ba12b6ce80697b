//! Pentanomial normalized-Elo GSPRT, ported line by line from fishtest's `server/fishtest/stats/LLRcalc.py`
//! (Michel Van den Bergh: `regularize`, `results_to_pdf`, `secular`, `MLE_t_value`, `LLR`, `LLR_normalized`),
//! so that a run here stops exactly where fishtest would.
//!
//! The test is on the normalized t-value `t = (μ - ½) / σ` of the per-pair average score: normalized Elo
//! `nElo = t_game · 800 / ln 10`, and for pairs `t_pair = √2 · t_game`. Under each hypothesis the pair-score
//! distribution is the maximum-likelihood one with that t-value (a fixed point of a secular equation); the LLR
//! is `N · Σ p̂ᵢ ln(p₁ᵢ / p₀ᵢ)`.

use serde::{Deserialize, Serialize};

use crate::elo::{elo_from_score, ELO_LIMIT};
use crate::error::{finite, Result, StatsError};
use crate::interval::{Estimate, Z95};
use crate::penta::Penta;
use crate::power::Yardstick;
use crate::root::brentq;

/// Normalized Elo per unit of per-game t-value: `800 / ln 10` (fishtest's `nelo_divided_by_nt`).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The weight fishtest gives an empty cell so that every log stays finite (`regularize`).
const EMPTY_CELL: f64 = 1e-3;

/// Generalized log-likelihood ratio of H1 `nElo = nelo1` against H0 `nElo = nelo0` for the pentanomial
/// counts, exactly as fishtest's `LLR_normalized(nelo0, nelo1, results)`.
///
/// Empty cells count as 0.001 pairs (fishtest's regularization), so all-zero counts give an LLR near 0
/// rather than an error.
pub fn llr_normalized(penta: &Penta, nelo0: f64, nelo1: f64) -> Result<f64> {
    let nelo0 = finite("nelo0", nelo0)?;
    let nelo1 = finite("nelo1", nelo1)?;
    let t0 = nelo0 / NELO_PER_T * std::f64::consts::SQRT_2;
    let t1 = nelo1 / NELO_PER_T * std::f64::consts::SQRT_2;
    let (n, values, probs) = results_to_pdf(&penta.counts);
    let pdf0 = mle_t_value(&values, &probs, 0.5, t0)?;
    let pdf1 = mle_t_value(&values, &probs, 0.5, t1)?;
    let jumps: Vec<f64> = pdf0.iter().zip(&pdf1).map(|(p0, p1)| p1.ln() - p0.ln()).collect();
    Ok(n * stats(&jumps, &probs).0)
}

/// `regularize` then `results_to_pdf`: total weight N, cell values `i / (len - 1)`, empirical probabilities.
fn results_to_pdf(counts: &[u64]) -> (f64, Vec<f64>, Vec<f64>) {
    let weights: Vec<f64> = counts.iter().map(|&c| if c == 0 { EMPTY_CELL } else { c as f64 }).collect();
    let n: f64 = weights.iter().sum();
    let last = (counts.len() - 1) as f64;
    let values = (0..counts.len()).map(|i| i as f64 / last).collect();
    let probs = weights.iter().map(|w| w / n).collect();
    (n, values, probs)
}

/// Mean and variance of a discrete distribution (fishtest's `stats`, without its asserts).
fn stats(values: &[f64], probs: &[f64]) -> (f64, f64) {
    let mean: f64 = values.iter().zip(probs).map(|(a, p)| p * a).sum();
    let var: f64 = values.iter().zip(probs).map(|(a, p)| p * (a - mean).powi(2)).sum();
    (mean, var)
}

/// Root of `Σ pᵢ aᵢ / (1 + x aᵢ) = 0` between the poles, found by Brent's method (fishtest's `secular`).
fn secular(values: &[f64], probs: &[f64]) -> Result<f64> {
    const EPSILON: f64 = 1e-9;
    let v = values.iter().copied().fold(f64::INFINITY, f64::min);
    let w = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let product = v * w;
    if product.is_nan() || product >= 0.0 {
        return Err(StatsError::Numerical("secular equation has no root: the bound lies outside the data's range"));
    }
    let (lower, upper) = (-1.0 / w, -1.0 / v);
    let f = |x: f64| values.iter().zip(probs).map(|(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    brentq(f, lower + EPSILON, upper - EPSILON).ok_or(StatsError::Numerical("Brent's method did not converge"))
}

/// Maximum-likelihood distribution on the observed cells whose t-value `(μ - ref) / σ` is `s`
/// (fishtest's `MLE_t_value`: at most 10 fixed-point rounds, stopping when no probability moves by 1e-9).
fn mle_t_value(values: &[f64], probs: &[f64], reference: f64, s: f64) -> Result<Vec<f64>> {
    let n = values.len();
    let mut pdf = vec![1.0 / n as f64; n];
    for _ in 0..10 {
        let (mu, var) = stats(values, &pdf);
        let sigma = var.sqrt();
        let shifted: Vec<f64> =
            values.iter().map(|a| a - reference - s * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0).collect();
        let x = secular(&shifted, probs)?;
        let next: Vec<f64> = probs.iter().zip(&shifted).map(|(p, a)| p / (1.0 + x * a)).collect();
        let moved = pdf.iter().zip(&next).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        pdf = next;
        if moved < 1e-9 {
            break;
        }
    }
    let (mu, var) = stats(values, &pdf);
    if (s - (mu - reference) / var.sqrt()).abs() < 1e-5 {
        Ok(pdf)
    } else {
        Err(StatsError::Numerical("the t-value fixed point did not converge"))
    }
}

/// Stopping thresholds for the LLR.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LlrBounds {
    /// `ln(β / (1 - α))`: below it H0 is accepted.
    pub lower: f64,
    /// `ln((1 - β) / α)`: above it H1 is accepted.
    pub upper: f64,
}

/// Wald's SPRT thresholds `[ln(β/(1-α)), ln((1-β)/α)]` for type I error `alpha` and type II error `beta`.
pub fn sprt_bounds(alpha: f64, beta: f64) -> Result<LlrBounds> {
    for (name, value) in [("alpha", alpha), ("beta", beta)] {
        if !(value > 0.0 && value < 1.0) {
            return Err(StatsError::InvalidArgument { name, value, reason: "must lie strictly between 0 and 1" });
        }
    }
    if alpha + beta >= 1.0 {
        return Err(StatsError::InvalidArgument {
            name: "alpha + beta",
            value: alpha + beta,
            reason: "must be below 1, or the test decides before any data",
        });
    }
    Ok(LlrBounds { lower: (beta / (1.0 - alpha)).ln(), upper: ((1.0 - beta) / alpha).ln() })
}

/// What the SPRT says after the data so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The LLR is within the bounds: play more pairs.
    Continue,
    /// The LLR fell below the lower bound: the candidate is not `nelo1` better (fishtest's "rejected").
    AcceptH0,
    /// The LLR rose above the upper bound: the candidate is at least `nelo1` better (fishtest's "accepted").
    AcceptH1,
}

/// Compares an LLR with the bounds, strictly as fishtest's `update_SPRT` does (without its overshoot
/// correction, which needs the history of the LLR).
pub fn decide(llr: f64, bounds: LlrBounds) -> Decision {
    if llr < bounds.lower {
        Decision::AcceptH0
    } else if llr > bounds.upper {
        Decision::AcceptH1
    } else {
        Decision::Continue
    }
}

/// A normalized-Elo SPRT: H0 `nElo = nelo0` against H1 `nElo = nelo1`, with error rates `alpha`, `beta`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub nelo0: f64,
    pub nelo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Everything an arena report needs about an SPRT after some pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    pub llr: f64,
    pub bounds: LlrBounds,
    pub penta: Penta,
    pub pairs: u64,
    /// Mean per-game score of the candidate with its 95% interval.
    pub score: Estimate,
    /// Logistic Elo of the mean score; the interval maps the score interval through the Elo curve.
    pub elo: Estimate,
    /// Normalized Elo `(μ - ½) / σ_game · 800 / ln 10` with `σ_game = √2 · σ_pair`; interval likewise.
    pub nelo: Estimate,
    pub decision: Decision,
}

impl Sprt {
    /// Checks the arguments: finite bounds with `nelo0 < nelo1`, valid error rates.
    pub fn new(nelo0: f64, nelo1: f64, alpha: f64, beta: f64) -> Result<Self> {
        finite("nelo0", nelo0)?;
        finite("nelo1", nelo1)?;
        if nelo0 >= nelo1 {
            return Err(StatsError::InvalidArgument { name: "nelo1", value: nelo1, reason: "must exceed nelo0" });
        }
        sprt_bounds(alpha, beta)?;
        Ok(Sprt { nelo0, nelo1, alpha, beta })
    }

    /// The LLR thresholds for this test's error rates.
    pub fn bounds(&self) -> Result<LlrBounds> {
        sprt_bounds(self.alpha, self.beta)
    }

    /// LLR, decision and Elo estimates for the counts so far.
    pub fn evaluate(&self, penta: &Penta) -> Result<SprtSummary> {
        penta.checked_pairs()?;
        let bounds = self.bounds()?;
        let llr = llr_normalized(penta, self.nelo0, self.nelo1)?;
        let PairEstimates { score, elo, nelo } = pair_estimates(penta);
        Ok(SprtSummary {
            llr,
            bounds,
            penta: *penta,
            pairs: penta.pairs(),
            score,
            elo,
            nelo,
            decision: decide(llr, bounds),
        })
    }
}

/// What paired games say about the strength difference, without a test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairEstimates {
    /// Mean per-game score with its 95% interval.
    pub score: Estimate,
    /// Logistic Elo of the mean score; the interval maps the score interval through the Elo curve.
    pub elo: Estimate,
    /// Normalized Elo `(μ - ½) / σ_game · 800 / ln 10` with `σ_game = √2 · σ_pair`; interval likewise.
    pub nelo: Estimate,
}

/// Score, Elo and normalized Elo with 95% intervals from pentanomial counts
/// (what [`Sprt::evaluate`] reports beside the LLR).
pub fn pair_estimates(penta: &Penta) -> PairEstimates {
    let (score, sigma_pair) = pair_score(penta);
    // A score of 0 or 1 is infinitely many Elo: shown as the limit, printed
    // as a bound (`>+1200`, `crate::show_elo`).
    let elo_of = |s: f64| elo_from_score(s).clamp(-ELO_LIMIT, ELO_LIMIT);
    let elo = Estimate { value: elo_of(score.value), low: elo_of(score.low), high: elo_of(score.high) };
    let nelo_of = |s: f64| (s - 0.5) / (std::f64::consts::SQRT_2 * sigma_pair) * NELO_PER_T;
    let nelo = Estimate { value: nelo_of(score.value), low: nelo_of(score.low), high: nelo_of(score.high) };
    PairEstimates { score, elo, nelo }
}

/// Mean per-game score with its 95% interval `μ ± z·sqrt(var/N)` over pairs (within [0, 1]), and the standard
/// deviation of the per-pair average score. Empty cells are regularized in the variance as in the LLR
/// (fishtest's `get_elo` does the same), so the interval stays finite with no pairs.
///
/// Counts that show no spread at all (every pair in one cell: all drawn, all split, all won) have a sample
/// variance of 0, and the regularized one is only the 0.001-pair weight of the empty cells: 20 drawn games
/// would read 50% [49.5, 50.5]. Their spread is then the power analysis's ([`Yardstick::from_penta`]): one
/// virtual split pair, and one each at ½ and 1½ when every pair scored 1, the smallest spread the counts cannot
/// rule out (20 drawn games: 50% [43.9, 56.1]; it shrinks as the pairs grow).
///
/// The point estimate is the plain mean of the counts (so it agrees to the digit
/// with the wins, draws and losses it came from); only the spread is regularized.
fn pair_score(penta: &Penta) -> (Estimate, f64) {
    let (n, values, probs) = results_to_pdf(&penta.counts);
    let (regularized_mu, var) = stats(&values, &probs);
    let pairs = penta.pairs();
    let mu = if pairs == 0 {
        regularized_mu
    } else {
        penta.counts.iter().enumerate().map(|(i, &c)| c as f64 * i as f64 / 4.0).sum::<f64>() / pairs as f64
    };
    let one_cell = pairs > 0 && penta.counts.iter().filter(|&&c| c > 0).count() == 1;
    let (n, var) = if one_cell { (pairs as f64, Yardstick::from_penta(penta).variance / 2.0) } else { (n, var) };
    let half = Z95 * (var / n).sqrt();
    (Estimate { value: mu, low: (mu - half).max(0.0), high: (mu + half).min(1.0) }, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference case: fishtest's `LLR_normalized(0.5, 2.5, [39, 8843, 26675, 9240, 44])` = 2.9416752.
    const CHECK: [u64; 5] = [39, 8843, 26675, 9240, 44];

    #[test]
    fn the_point_score_is_the_plain_mean_of_the_pairs() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let s = sprt.evaluate(&Penta::new([1, 2, 3, 0, 4])).unwrap();
        // (0·1 + ½·2 + 1·3 + 2·4) / (2 · 10 pairs)
        assert_eq!(s.score.value, 12.0 / 20.0);
        assert!(s.score.low < 0.6 && 0.6 < s.score.high);
        let perfect = sprt.evaluate(&Penta::new([0, 0, 0, 0, 5])).unwrap();
        assert_eq!(perfect.score.value, 1.0);
        assert!(perfect.elo.value.is_finite() && perfect.score.low < 1.0);
    }

    #[test]
    fn matches_fishtest_on_the_check_case() {
        let llr = llr_normalized(&Penta::new(CHECK), 0.5, 2.5).unwrap();
        assert!((llr - 2.941_675_2).abs() < 1e-6, "{llr}");
    }

    #[test]
    fn close_to_the_closed_form_approximation() {
        // fishtest's LLR_normalized_alt (normalized_elo_practical.pdf §4.2):
        // games/2 · ln((1 + (t - t0)²) / (1 + (t - t1)²)), t = (μ - ½) / σ_game, games = 2N.
        let counts = [120, 2300, 5100, 2500, 140];
        let (n, values, probs) = results_to_pdf(&counts);
        let (mu, var) = stats(&values, &probs);
        let t = (mu - 0.5) / (2.0 * var).sqrt();
        let (t0, t1) = (-1.0 / NELO_PER_T, 3.0 / NELO_PER_T);
        let alt = n * (((1.0 + (t - t0).powi(2)) / (1.0 + (t - t1).powi(2))).ln());
        let exact = llr_normalized(&Penta::new(counts), -1.0, 3.0).unwrap();
        assert!((exact - alt).abs() < 0.01 * alt.abs().max(1.0), "{exact} vs {alt}");
    }

    #[test]
    fn default_bounds_are_ln_19() {
        let b = sprt_bounds(0.05, 0.05).unwrap();
        assert!((b.upper - 2.944_439).abs() < 1e-6 && (b.lower + 2.944_439).abs() < 1e-6);
        assert!((b.upper - 19f64.ln()).abs() < 1e-15);
        let b = sprt_bounds(0.05, 0.1).unwrap();
        assert!((b.lower - (0.1f64 / 0.95).ln()).abs() < 1e-15 && (b.upper - 18f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn symmetric_data_with_mirrored_hypotheses_is_zero() {
        // Mean exactly ½: the H0 and H1 fits are mirror images with the same likelihood.
        for counts in [[10, 200, 500, 200, 10], [0, 30, 40, 30, 0], [5, 0, 0, 0, 5]] {
            let llr = llr_normalized(&Penta::new(counts), -2.0, 2.0).unwrap();
            assert!(llr.abs() < 1e-9, "{counts:?}: {llr}");
        }
    }

    #[test]
    fn swapping_hypotheses_or_sides_behaves() {
        let p = Penta::new(CHECK);
        let forward = llr_normalized(&p, 0.5, 2.5).unwrap();
        // Swapping H0 and H1 negates the ratio.
        assert!((llr_normalized(&p, 2.5, 0.5).unwrap() + forward).abs() < 1e-9);
        // Seen from the other side (scores 1 - x) every nElo changes sign: H0 -0.5 against H1 -2.5.
        assert!((llr_normalized(&p.mirrored(), -0.5, -2.5).unwrap() - forward).abs() < 1e-9);
        // Equal hypotheses carry no evidence.
        assert!(llr_normalized(&p, 1.0, 1.0).unwrap().abs() < 1e-12);
    }

    #[test]
    fn data_at_h0_never_favours_h1() {
        // All draws: the regularized mean is exactly ½, so the H0 (nElo 0) fit is the empirical distribution
        // itself and LLR = -N·KL(p̂ ‖ p₁) ≤ 0. Nearly zero variance makes it very negative, but finite.
        let llr = llr_normalized(&Penta::new([0, 0, 1000, 0, 0]), 0.0, 2.0).unwrap();
        assert!(llr.is_finite() && llr < 0.0, "{llr}");
        let llr = llr_normalized(&Penta::new([50, 300, 700, 300, 50]), 0.0, 5.0).unwrap();
        assert!(llr.is_finite() && llr < 0.0, "{llr}");
    }

    #[test]
    fn no_pairs_is_regularized_not_an_error() {
        let llr = llr_normalized(&Penta::default(), 0.0, 2.0).unwrap();
        assert!(llr.is_finite() && llr.abs() < 1e-3, "{llr}");
    }

    /// Counts with no spread get the power analysis's virtual pairs, not
    /// fishtest's 0.001-pair cells: 20 drawn games are not 50% ± 0.5.
    #[test]
    fn counts_in_one_cell_have_an_honest_interval() {
        let drawn = pair_estimates(&Penta::new([0, 0, 10, 0, 0]));
        // By hand: pairs 0, 1, 11, 1, 0 (one split, one ½, one 1½ added): var of the pair average
        // = 2 · (¼)² / 13, half-width = z · sqrt(var / 10 real pairs) = 0.0607759.
        let half = Z95 * (2.0 * 0.0625 / 13.0 / 10.0f64).sqrt();
        assert_eq!(drawn.score.value, 0.5);
        assert!((drawn.score.low - (0.5 - half)).abs() < 1e-12 && (half - 0.060_775_9).abs() < 1e-6);
        assert!((drawn.score.high - (0.5 + half)).abs() < 1e-12);
        // More drawn pairs, a narrower interval.
        let more = pair_estimates(&Penta::new([0, 0, 1000, 0, 0]));
        assert!(more.score.high - more.score.low < 0.2 * (drawn.score.high - drawn.score.low));
        let won = pair_estimates(&Penta::new([0, 0, 0, 0, 10]));
        assert_eq!((won.score.value, won.score.high), (1.0, 1.0));
        assert!(won.score.low < 0.95, "{:?}", won.score);
        // No game lost: the Elo is at the limit, shown as a bound.
        assert_eq!(won.elo.value, ELO_LIMIT);
        assert!(won.elo.show().starts_with(">+1200 ["), "{}", won.elo.show());
        let lost = pair_estimates(&Penta::new([10, 0, 0, 0, 0])).elo.show();
        assert!(lost.starts_with("<-1200 [<-1200, -") && !lost.ends_with("<-1200]"), "{lost}");
    }

    #[test]
    fn summary_of_the_check_case() {
        let sprt = Sprt::new(0.5, 2.5, 0.05, 0.05).unwrap();
        let s = sprt.evaluate(&Penta::new(CHECK)).unwrap();
        // 2.94168 is just short of ln 19 = 2.94444: keep playing.
        assert_eq!(s.decision, Decision::Continue);
        assert_eq!(s.pairs, 44_841);
        // By hand: μ = Σ cᵢ·i/4 / N = 0.50226913, var = 0.02566193 (per-pair average score),
        // stderr = sqrt(var / N) = 0.00075650, z·stderr = 0.00148271.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(s.score.value, 0.502_269_128_699_181_5));
        assert!(close(s.elo.value, 1.576_762_941_399_624_5));
        assert!(close(s.elo.low, 0.546_462_765_816_836) && close(s.elo.high, 2.607_090_849_246_835));
        // nElo = (μ - ½) / sqrt(2·var) · 800 / ln 10.
        assert!(close(s.nelo.value, 3.479_956_126_885_529));
        assert!(close(s.nelo.low, 1.206_064_581_765_854_8));
        assert!(close(s.nelo.high, 5.753_847_672_005_203));
    }

    #[test]
    fn decisions_at_both_ends() {
        let sprt = Sprt::new(0.5, 2.5, 0.05, 0.05).unwrap();
        let doubled = Penta::new(CHECK.map(|c| 2 * c));
        assert_eq!(sprt.evaluate(&doubled).unwrap().decision, Decision::AcceptH1);
        let worse = Penta::new([44, 9240, 26675, 8843, 39]);
        let s = sprt.evaluate(&worse).unwrap();
        assert_eq!(s.decision, Decision::AcceptH0);
        assert!(s.llr < s.bounds.lower && s.elo.value < 0.0 && s.nelo.value < 0.0);
        let empty = sprt.evaluate(&Penta::default()).unwrap();
        assert_eq!(empty.decision, Decision::Continue);
        assert!(empty.elo.value.abs() < 1e-9 && empty.elo.low.is_finite());
        let b = sprt.bounds().unwrap();
        assert_eq!(decide(b.upper, b), Decision::Continue);
        assert_eq!(decide(b.lower, b), Decision::Continue);
        assert_eq!(decide(b.upper + 1e-9, b), Decision::AcceptH1);
        assert_eq!(decide(b.lower - 1e-9, b), Decision::AcceptH0);
        assert_eq!(decide(0.0, b), Decision::Continue);
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(Sprt::new(2.0, 2.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, f64::NAN, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 2.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 2.0, 0.05, 1.0).is_err());
        assert!(sprt_bounds(0.6, 0.5).is_err());
        assert!(llr_normalized(&Penta::new(CHECK), f64::INFINITY, 2.0).is_err());
        // A bound far outside what any score distribution allows (|t| beyond the data) is reported, not panicked on.
        assert!(llr_normalized(&Penta::new(CHECK), 0.0, 1e6).is_err());
    }
}
