//! Student's t distribution: two-sided p-values and quantiles. Cluster-robust
//! standard errors over few clusters carry about `G − 1` degrees of freedom,
//! so their intervals and tests use t(G − 1) instead of the normal (as Stata
//! does for clustered regressions).

use std::f64::consts::PI;

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, nine terms: about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[1..].iter().enumerate().fold(C[0], |acc, (i, c)| acc + c / (x + i as f64 + 1.0));
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let fix = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / fix(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=500 {
        let m = m as f64;
        let aa = m * (b - m) * x / ((qam + 2.0 * m) * (a + 2.0 * m));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + 2.0 * m) * (qap + 2.0 * m));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function `I_x(a, b)`.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// `P(|T| ≥ |t|)` for `T ~ t(df)`; NaN for a NaN `t` or a `df` below 1.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df < 1.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The `t ≥ 0` with `P(|T| ≥ t) = p` for `T ~ t(df)` (e.g. `p = 0.05` gives
/// the half-width multiplier of a 95% interval); NaN outside `0 < p < 1` or
/// for `df` below 1.
pub fn t_two_sided_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) || df.is_nan() || df < 1.0 {
        return f64::NAN;
    }
    // The p-value falls as t grows: bisect, after doubling an upper end.
    let (mut lo, mut hi) = (0.0, 2.0);
    while t_two_sided_p(hi, df) > p {
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_two_sided_p(mid, df) > p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table values (R's `qt(0.975, df)` and `2 * pt(-t, df)`).
    #[test]
    fn matches_the_tables() {
        for (df, q) in [(1.0, 12.706_204_736), (2.0, 4.302_652_730), (9.0, 2.262_157_163), (30.0, 2.042_272_456)] {
            let got = t_two_sided_quantile(0.05, df);
            assert!((got - q).abs() < 1e-6, "df {df}: {got} against {q}");
            assert!((t_two_sided_p(q, df) - 0.05).abs() < 1e-9);
        }
        // Closed form for 5 degrees of freedom (θ = atan(t/√5)).
        assert!((t_two_sided_p(2.0, 5.0) - 0.101_939_478_829_858).abs() < 1e-10);
        assert!((t_two_sided_p(1.0, 1.0) - 0.5).abs() < 1e-12, "Cauchy: P(|T| ≥ 1) = 1/2");
        // Many degrees of freedom: the normal's 1.96.
        assert!((t_two_sided_quantile(0.05, 1e6) - 1.959_963_985).abs() < 1e-5);
        assert_eq!(t_two_sided_p(0.0, 4.0), 1.0);
        assert!(t_two_sided_p(f64::NAN, 4.0).is_nan() && t_two_sided_quantile(0.05, 0.5).is_nan());
    }
}
