//! Many tests at once: a study that asks "does this variant change the first
//! mover's advantage?" of 40 variants at the 5% level flags about two of them
//! by chance alone. Two standard corrections, both on the tests' p-values:
//!
//! * **Holm–Bonferroni** controls the family-wise error rate: the chance of
//!   even one false "yes" among all the tests is at most `alpha`.
//! * **Benjamini–Hochberg** controls the false discovery rate: of the "yes"
//!   verdicts, at most a fraction `alpha` are false on average (for
//!   independent or positively dependent tests). It finds more than Holm.
//!
//! And the paired difference of two measurements taken on the same seeds
//! (common random numbers), whose variance counts their covariance.

use crate::power::normal_cdf;
use crate::{Estimate, StatsError, Z95};

/// Two-sided p-value of a normal test statistic `z`.
pub fn two_sided_p(z: f64) -> f64 {
    if z.is_nan() {
        return 1.0;
    }
    (2.0 * normal_cdf(-z.abs())).min(1.0)
}

/// The two-sided p-value that `estimate`'s true value is `null`, its
/// interval being a symmetric normal 95% interval.
pub fn p_value(estimate: &Estimate, null: f64) -> f64 {
    let se = (estimate.high - estimate.low) / (2.0 * Z95);
    if se <= 0.0 || !se.is_finite() {
        return if estimate.value == null { 1.0 } else { 0.0 };
    }
    two_sided_p((estimate.value - null) / se)
}

fn check(p: &[f64], alpha: f64) -> Result<(), StatsError> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(StatsError::InvalidArgument { name: "alpha", value: alpha, reason: "must be in (0, 1)" });
    }
    if let Some(&x) = p.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        return Err(StatsError::InvalidArgument { name: "p-value", value: x, reason: "must be in [0, 1]" });
    }
    Ok(())
}

/// The p-values' indices, smallest p first (ties by index, so it is stable).
fn ascending(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    order
}

/// Holm–Bonferroni adjusted p-values: `max over j ≤ i of min(1, (m − j) p₍ⱼ₎)`
/// in ascending order. A test is rejected at family-wise level `alpha`
/// exactly when its adjusted p-value is at most `alpha`.
pub fn holm_adjusted(p: &[f64]) -> Result<Vec<f64>, StatsError> {
    check(p, 0.5)?;
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in ascending(p).iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    Ok(out)
}

/// Benjamini–Hochberg adjusted p-values (q-values): `min over j ≥ i of
/// min(1, m p₍ⱼ₎ / j)` in ascending order (ranks from 1). A test is rejected
/// at false discovery rate `alpha` exactly when its q-value is at most `alpha`.
pub fn benjamini_hochberg_adjusted(p: &[f64]) -> Result<Vec<f64>, StatsError> {
    check(p, 0.5)?;
    let m = p.len();
    let order = ascending(p);
    let mut out = vec![0.0; m];
    let mut running: f64 = 1.0;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min((m as f64 * p[i] / (rank + 1) as f64).min(1.0));
        out[i] = running;
    }
    Ok(out)
}

/// Which tests are rejected at level `alpha` by adjusted p-values.
pub fn rejected(adjusted: &[f64], alpha: f64) -> Result<Vec<bool>, StatsError> {
    check(adjusted, alpha)?;
    Ok(adjusted.iter().map(|&q| q <= alpha).collect())
}

/// The mean of `x − y` over paired observations (the same seeds measured
/// twice), with its 95% interval from the paired differences' variance: the
/// common random numbers' covariance is counted, so the interval is narrower
/// than two independent intervals would give when the two move together.
pub fn paired_difference(x: &[f64], y: &[f64]) -> Result<Estimate, StatsError> {
    if x.len() != y.len() {
        return Err(StatsError::InvalidArgument {
            name: "paired samples' lengths",
            value: x.len() as f64 - y.len() as f64,
            reason: "the two samples must have equal lengths (the difference is given)",
        });
    }
    let n = x.len();
    if n < 2 {
        return Err(StatsError::NoData("a paired difference needs at least 2 pairs"));
    }
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = Z95 * (var / n as f64).sqrt();
    Ok(Estimate { value: mean, low: mean - half, high: mean + half })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worked example (checked by hand, and against R's `p.adjust`):
    /// p = 0.01, 0.04, 0.03, 0.005 (m = 4).
    /// Holm: sorted 0.005, 0.01, 0.03, 0.04 → 4·0.005 = 0.02, 3·0.01 = 0.03,
    /// 2·0.03 = 0.06, 1·0.04 = 0.04 → running max 0.02, 0.03, 0.06, 0.06.
    /// BH: 4·0.005/1 = 0.02, 4·0.01/2 = 0.02, 4·0.03/3 = 0.04, 4·0.04/4 = 0.04
    /// → running min from the top: 0.02, 0.02, 0.04, 0.04.
    #[test]
    fn holm_and_bh_match_the_hand_computed_example() {
        let p = [0.01, 0.04, 0.03, 0.005];
        let holm = holm_adjusted(&p).unwrap();
        let bh = benjamini_hochberg_adjusted(&p).unwrap();
        for (got, want) in holm.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!((got - want).abs() < 1e-12, "holm {holm:?}");
        }
        for (got, want) in bh.iter().zip([0.02, 0.04, 0.04, 0.02]) {
            assert!((got - want).abs() < 1e-12, "bh {bh:?}");
        }
        // At 5%: raw rejects all four, Holm two (0.005, 0.01), BH all four.
        assert_eq!(rejected(&holm, 0.05).unwrap(), vec![true, false, false, true]);
        assert_eq!(rejected(&bh, 0.05).unwrap(), vec![true, true, true, true]);
    }

    #[test]
    fn corrections_never_reject_more_than_the_raw_test_and_holm_never_more_than_bh() {
        let p: Vec<f64> = (0..40).map(|i| ((i * 37 % 41) as f64 / 41.0).powi(3)).collect();
        let holm = rejected(&holm_adjusted(&p).unwrap(), 0.05).unwrap();
        let bh = rejected(&benjamini_hochberg_adjusted(&p).unwrap(), 0.05).unwrap();
        let raw: Vec<bool> = p.iter().map(|&x| x <= 0.05).collect();
        for i in 0..p.len() {
            assert!(!holm[i] || bh[i], "Holm rejects {i} but BH does not");
            assert!(!bh[i] || raw[i], "BH rejects {i} but the raw test does not");
        }
        assert!(holm.iter().filter(|&&r| r).count() < raw.iter().filter(|&&r| r).count());
    }

    #[test]
    fn p_values_follow_the_normal_distribution() {
        assert!((two_sided_p(1.959964) - 0.05).abs() < 1e-5);
        assert!((two_sided_p(0.0) - 1.0).abs() < 1e-12);
        let e = Estimate { value: 0.55, low: 0.55 - 0.05, high: 0.55 + 0.05 };
        assert!((p_value(&e, 0.5) - 0.05).abs() < 1e-4);
        assert!(holm_adjusted(&[1.5]).is_err());
        assert!(rejected(&[0.1], 0.0).is_err());
    }

    #[test]
    fn paired_differences_count_the_covariance() {
        // y moves with x: the paired interval is much narrower than each alone.
        let x: Vec<f64> = (0..200).map(|i| ((i * 7919) % 101) as f64 / 100.0).collect();
        let y: Vec<f64> = x.iter().enumerate().map(|(i, v)| v - 0.1 + if i % 2 == 0 { 0.01 } else { -0.01 }).collect();
        let d = paired_difference(&x, &y).unwrap();
        assert!((d.value - 0.1).abs() < 1e-9);
        assert!(d.high - d.low < 0.01, "{d:?}");
        assert!(paired_difference(&x, &y[1..]).is_err());
    }

    /// A simulated study with known first-mover effects: in each game the
    /// first mover wins when a uniform draw falls below its variant's win
    /// probability, and the variants share the draws of each seed (common
    /// random numbers). Over 2,000 repetitions the paired intervals of the
    /// difference from the reference cover the true difference about 95% of
    /// the time, and they are narrower than independent draws would allow.
    #[test]
    fn paired_difference_intervals_cover_the_truth_at_their_nominal_rate() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut uniform = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (p_ref, p_var, pairs, reps) = (0.55, 0.60, 400, 2000);
        let truth = p_var - p_ref;
        let (mut covered, mut width) = (0, 0.0);
        for _ in 0..reps {
            let (mut x, mut y) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
            for _ in 0..pairs {
                let (a, b) = (uniform(), uniform());
                let point = |p: f64| (f64::from(u8::from(a < p)) + f64::from(u8::from(b < p))) / 2.0;
                x.push(point(p_var));
                y.push(point(p_ref));
            }
            let d = paired_difference(&x, &y).unwrap();
            covered += usize::from(d.contains(truth));
            width += d.high - d.low;
        }
        let rate = covered as f64 / reps as f64;
        assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
        // Independent samples would give 2·1.96·sqrt((v₁ + v₂)/n) ≈ 0.097 wide.
        let independent = 2.0 * Z95 * ((p_var * (1.0 - p_var) + p_ref * (1.0 - p_ref)) / 2.0 / pairs as f64).sqrt();
        assert!(width / (reps as f64) < independent / 2.0, "paired {} vs {independent}", width / reps as f64);
    }
}
