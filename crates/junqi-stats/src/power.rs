//! Power analysis for a fixed-sample test of an Elo drop, and the test itself.
//!
//! The question: one bot plays a fixed set of opponents (its *yardsticks*), `n` games against each, once for
//! a stored baseline and once now. How large must `n` be so that a one-sided test at level `α` notices when the
//! bot got `D` Elo weaker, with probability (power) `1 − β`?
//!
//! **Formula.** Against one opponent where the bot scores `s` per game (per-game variance `σ²`), a drop of `D`
//! Elo lowers the expected score by
//!
//! ```text
//! Δs = s − S(E(s) − D),   E(s) = −400·log10(1/s − 1),   S(e) = 1 / (1 + 10^(−e/400))
//! ```
//!
//! (exact on the logistic curve, not the slope: at `s = ½`, `D = 50` gives `Δs = 0.07146`). The mean score of
//! `n` games is close to normal with variance `σ²/n` (central limit theorem: even 100 games make it so), so the
//! one-sided z-test that rejects "no drop" when the score fell by more than `z_{1−α}·σ/√n` catches a true drop
//! with probability `Φ(Δs·√n/σ − z_{1−α})`. Setting that to `1 − β` gives the standard normal-approximation
//! sample size
//!
//! ```text
//! n = ((z_{1−α} + z_{1−β}) · σ / Δs)²
//! ```
//!
//! We use this (rather than an exact binomial or a sequential test) because the suite plays a fixed number
//! of games, its scores have three outcomes (draws) or five per pair (pentanomial), for which there is no
//! exact small-sample test to invert, and at the hundreds of games a 50-Elo drop needs the normal
//! approximation is accurate to a few games.
//!
//! Three refinements, all in [`games_to_detect_drop`]:
//!
//! * **Two samples.** The suite compares a new run with a stored baseline of the same size, and both are
//!   noisy (a changed bot plays new games, and the baseline's games were one draw of chance too), so the
//!   score difference has variance `2σ²/n`: `n` doubles ([`Samples::Two`]). Against a known, exact
//!   reference score it would be [`Samples::One`].
//! * **Several opponents.** With `n` games against each of `m` opponents the evidence adds up: the best
//!   linear test weights opponent `j` by `Δs_j/σ_j²`, its squared signal-to-noise is `n · Σ_j Δs_j²/σ_j²`,
//!   so `n = k · (z_{1−α} + z_{1−β})² / Σ_j (Δs_j²/σ_j²)` (`k` = 1 or 2 samples), i.e.
//!   `1/n = Σ_j 1/n_j` where `n_j` is what opponent `j` alone would need. An opponent far stronger or weaker
//!   (score near 0 or 1) adds almost nothing: its `Δs` shrinks like `s(1 − s)`, its `σ` only like
//!   `√(s(1 − s))`.
//! * **Paired games.** Games come in pairs (one deal, seats swapped), so `σ²` is the pentanomial one:
//!   twice the variance of the per-pair average score, which is smaller than the per-game (trinomial)
//!   variance when the deal's luck cancels within a pair. From counts it is estimated with one virtual
//!   pair scoring 1 of 2 (a win and a loss: Laplace's rule) added ([`Yardstick::from_penta`]), so a
//!   perfect score still has a finite `E(s)` and a non-zero variance (and when every pair scored 1, one
//!   more virtual pair on each side, ½ and 1½, so a bot that scores the same in every pair still has
//!   a spread to test against). With no counts at all the
//!   conservative default is `σ² = 0.25` (the largest a game score can have) at `s = ½`
//!   ([`Yardstick::UNKNOWN`]).
//!
//! [`drop_test`] is the matching test on the data: the weighted score change, in Elo, with its standard
//! error, so a suite sized by [`games_to_detect_drop`] has the promised power under that test.

use serde::{Deserialize, Serialize};

use crate::elo::{elo_from_score, score_from_elo};
use crate::error::{finite, Result, StatsError};
use crate::penta::Penta;

/// The standard normal quantile `Φ⁻¹(p)` for `0 < p < 1` (Wichura's algorithm AS 241, `PPND16`: about 16
/// correct digits).
pub fn normal_quantile(p: f64) -> Result<f64> {
    let p = finite("probability", p)?;
    if !(p > 0.0 && p < 1.0) {
        return Err(StatsError::InvalidArgument { name: "probability", value: p, reason: "must be in (0, 1)" });
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return Ok(q * horner(&CENTRAL_NUM, r) / horner(&CENTRAL_DEN, r));
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let value = if r <= 5.0 {
        horner(&NEAR_NUM, r - 1.6) / horner(&NEAR_DEN, r - 1.6)
    } else {
        horner(&FAR_NUM, r - 5.0) / horner(&FAR_DEN, r - 5.0)
    };
    Ok(if q < 0.0 { -value } else { value })
}

/// `Σ c_i x^i`, coefficients from the constant term up.
fn horner(coefficients: &[f64], x: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, c| acc * x + c)
}

// AS 241's coefficients as published (more digits than an f64 holds), constant term first.
#[allow(clippy::excessive_precision)]
const CENTRAL_NUM: [f64; 8] = [
    3.387_132_872_796_366_6,
    133.141_667_891_784_38,
    1_971.590_950_306_551_4,
    13_731.693_765_509_461,
    45_921.953_931_549_871,
    67_265.770_927_008_7,
    33_430.575_583_588_128,
    2_509.080_928_730_122_7,
];
#[allow(clippy::excessive_precision)]
const CENTRAL_DEN: [f64; 8] = [
    1.0,
    42.313_330_701_600_911,
    687.187_007_492_057_91,
    5_394.196_021_424_751_1,
    21_213.794_301_586_596,
    39_307.895_800_092_71,
    28_729.085_735_721_943,
    5_226.495_278_852_545_9,
];
#[allow(clippy::excessive_precision)]
const NEAR_NUM: [f64; 8] = [
    1.423_437_110_749_683_6,
    4.630_337_846_156_545_3,
    5.769_497_221_460_691_4,
    3.647_848_324_763_204_6,
    1.270_458_252_452_368_4,
    0.241_780_725_177_450_6,
    0.022_723_844_989_269_185,
    7.745_450_142_783_414e-4,
];
#[allow(clippy::excessive_precision)]
const NEAR_DEN: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_8,
    1.676_384_830_183_803_8,
    0.689_767_334_985_100_0,
    0.148_103_976_427_480_07,
    0.015_198_666_563_616_457,
    5.475_938_084_995_345e-4,
    1.050_750_071_644_416_8e-9,
];
#[allow(clippy::excessive_precision)]
const FAR_NUM: [f64; 8] = [
    6.657_904_643_501_103_8,
    5.463_784_911_164_114_4,
    1.784_826_539_917_291_3,
    0.296_560_571_828_504_9,
    0.026_532_189_526_576_123,
    0.001_242_660_947_388_078_4,
    2.711_555_568_743_487_6e-5,
    2.010_334_399_292_288_1e-7,
];
#[allow(clippy::excessive_precision)]
const FAR_DEN: [f64; 8] = [
    1.0,
    0.599_832_206_555_887_9,
    0.136_929_880_922_735_8,
    0.014_875_361_290_850_615,
    7.868_691_311_456_132_6e-4,
    1.846_318_317_510_054_7e-5,
    1.421_511_758_316_445_9e-7,
    2.044_263_103_389_939_8e-15,
];

/// The standard normal distribution function `Φ(x)`, from the complementary error function (a Chebyshev
/// fit, relative error below 1.2·10⁻⁷: plenty for a power in percent).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// `erfc(x)` (Numerical Recipes' `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ans = t * poly.exp();
    if x >= 0.0 {
        ans
    } else {
        2.0 - ans
    }
}

/// How far the expected score falls when a player scoring `score` gets `drop_elo` Elo weaker:
/// `s − S(E(s) − D)` on the logistic curve. Positive for a drop; 0 at scores of exactly 0 or 1.
pub fn score_drop(score: f64, drop_elo: f64) -> Result<f64> {
    let s = finite("score", score)?;
    let d = finite("drop_elo", drop_elo)?;
    if !(0.0..=1.0).contains(&s) {
        return Err(StatsError::InvalidArgument { name: "score", value: s, reason: "must be in [0, 1]" });
    }
    if s == 0.0 || s == 1.0 {
        return Ok(0.0);
    }
    Ok(s - score_from_elo(elo_from_score(s) - d))
}

/// One opponent as the analysis sees it: the bot's expected score per game against it and the per-game
/// variance of that score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Yardstick {
    pub score: f64,
    pub variance: f64,
}

impl Yardstick {
    /// Nothing observed: an even opponent and the largest per-game variance, ¼ (no draws).
    pub const UNKNOWN: Yardstick = Yardstick { score: 0.5, variance: 0.25 };

    /// From pentanomial counts (the bot's pairs scoring 0, ½, 1, 1½, 2) with one virtual pair scoring 1
    /// (a win and a loss) added: the mean per-game score and twice the variance of the per-pair average
    /// (the per-game variance that paired games have). Never 0 or 1, never a zero variance.
    ///
    /// When every pair scored 1 (all split, or all drawn: a bot that scores the
    /// same in every pair), the counts show no spread, but a zero variance
    /// would claim a drop of any size shows in one pair. Then one more
    /// virtual pair on each side (½ and 1½) is added: the smallest spread
    /// the counts cannot rule out, shrinking as pairs accumulate. No counts
    /// at all: [`Yardstick::UNKNOWN`].
    pub fn from_penta(penta: &Penta) -> Yardstick {
        if penta.counts.iter().all(|&c| c == 0) {
            return Yardstick::UNKNOWN;
        }
        let mut counts = penta.counts.map(|c| c as f64);
        counts[2] += 1.0;
        if counts.iter().enumerate().all(|(i, &c)| i == 2 || c == 0.0) {
            counts[1] += 1.0;
            counts[3] += 1.0;
        }
        let n: f64 = counts.iter().sum();
        let mean = counts.iter().enumerate().map(|(i, c)| c * i as f64 / 4.0).sum::<f64>() / n;
        let var = counts.iter().enumerate().map(|(i, c)| c * (i as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
        Yardstick { score: mean, variance: 2.0 * var }
    }

    /// The same opponent seen by the other bot.
    pub fn mirrored(&self) -> Yardstick {
        Yardstick { score: 1.0 - self.score, variance: self.variance }
    }

    fn check(&self) -> Result<()> {
        let s = finite("score", self.score)?;
        let v = finite("variance", self.variance)?;
        if !(s > 0.0 && s < 1.0) {
            return Err(StatsError::InvalidArgument { name: "score", value: s, reason: "must be in (0, 1)" });
        }
        if !(v > 0.0 && v <= 0.25) {
            return Err(StatsError::InvalidArgument { name: "variance", value: v, reason: "must be in (0, 0.25]" });
        }
        Ok(())
    }

    /// `Δs²/σ²` for a drop of `drop_elo`: what one game against this opponent tells about the drop.
    fn information(&self, drop_elo: f64) -> Result<f64> {
        self.check()?;
        Ok(score_drop(self.score, drop_elo)?.powi(2) / self.variance)
    }
}

/// Whether the test compares with an exact reference (one noisy sample) or with a stored baseline of the
/// same size (two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Samples {
    One,
    Two,
}

impl Samples {
    fn factor(self) -> f64 {
        match self {
            Samples::One => 1.0,
            Samples::Two => 2.0,
        }
    }
}

fn check_level(name: &'static str, p: f64) -> Result<f64> {
    let p = finite(name, p)?;
    if !(p > 0.0 && p < 1.0) {
        return Err(StatsError::InvalidArgument { name, value: p, reason: "must be in (0, 1)" });
    }
    Ok(p)
}

fn check_drop(drop_elo: f64) -> Result<f64> {
    let d = finite("drop_elo", drop_elo)?;
    if d <= 0.0 {
        return Err(StatsError::InvalidArgument { name: "drop_elo", value: d, reason: "must be positive" });
    }
    Ok(d)
}

/// The plain formula: games for a one-sided z-test at level `alpha` to detect a mean shift `delta_s` of a
/// per-game quantity with standard deviation `sigma`, with probability `power`:
/// `((z_{1−α} + z_{power}) · σ / Δs)²` (not rounded).
pub fn games_for_shift(sigma: f64, delta_s: f64, alpha: f64, power: f64) -> Result<f64> {
    let sigma = finite("sigma", sigma)?;
    let delta_s = finite("delta_s", delta_s)?;
    if sigma < 0.0 {
        return Err(StatsError::InvalidArgument { name: "sigma", value: sigma, reason: "must be >= 0" });
    }
    if delta_s <= 0.0 {
        return Err(StatsError::InvalidArgument { name: "delta_s", value: delta_s, reason: "must be positive" });
    }
    let z = normal_quantile(1.0 - check_level("alpha", alpha)?)? + normal_quantile(check_level("power", power)?)?;
    Ok((z * sigma / delta_s).powi(2))
}

/// Games against *each* of `opponents` (not rounded) that a one-sided test at level `alpha` needs to catch
/// a drop of `drop_elo` Elo with probability `power` (see the module docs for the formula and why).
/// Infinite when no opponent tells anything.
pub fn games_to_detect_drop(
    opponents: &[Yardstick],
    drop_elo: f64,
    alpha: f64,
    power: f64,
    samples: Samples,
) -> Result<f64> {
    let d = check_drop(drop_elo)?;
    let z = normal_quantile(1.0 - check_level("alpha", alpha)?)? + normal_quantile(check_level("power", power)?)?;
    if opponents.is_empty() {
        return Err(StatsError::NoData("no opponents"));
    }
    let info = opponents.iter().map(|o| o.information(d)).sum::<Result<f64>>()?;
    Ok(samples.factor() * z * z / info)
}

/// The probability that the one-sided test at level `alpha` catches a drop of `drop_elo` with `games`
/// against each of `opponents`: `Φ(√(games · Σ Δs²/σ² / k) − z_{1−α})`.
pub fn power_of(opponents: &[Yardstick], drop_elo: f64, alpha: f64, games: f64, samples: Samples) -> Result<f64> {
    let d = check_drop(drop_elo)?;
    let z = normal_quantile(1.0 - check_level("alpha", alpha)?)?;
    let games = finite("games", games)?.max(0.0);
    let info = opponents.iter().map(|o| o.information(d)).sum::<Result<f64>>()?;
    Ok(normal_cdf((games * info / samples.factor()).sqrt() - z))
}

/// One bot's change against its opponents between a baseline and now ([`drop_test`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DropTest {
    /// The Elo change (negative: weaker) that the score changes say, each opponent weighted by what it tells.
    pub elo_change: f64,
    /// Its standard error.
    pub stderr: f64,
    /// `elo_change / stderr`: below `−z_{1−α}` is a significant drop at level `α`.
    pub z: f64,
}

impl DropTest {
    /// Whether the one-sided test at level `alpha` finds a drop.
    pub fn dropped(&self, alpha: f64) -> Result<bool> {
        Ok(self.z < -normal_quantile(1.0 - check_level("alpha", alpha)?)?)
    }
}

/// The test whose power [`games_to_detect_drop`] gives: per opponent `j`, the score change
/// `d_j = s_now − s_base` (plain means of the pairs), its variance `V_j = σ_base²/n_base + σ_now²/n_now`
/// (each from [`Yardstick::from_penta`]) and the shift `Δs_j` that a drop of `weight_elo` would cause at the
/// baseline score; the weighted change `Σ w_j d_j` with `w_j = Δs_j/V_j` in Elo is
/// `D · Σ w_j d_j / Σ w_j Δs_j` with standard error `D / √(Σ Δs_j²/V_j)`. The pairs are
/// `(baseline, now)`, both from the bot's side.
pub fn drop_test(pairs: &[(Penta, Penta)], weight_elo: f64) -> Result<DropTest> {
    let d = check_drop(weight_elo)?;
    let (mut signal, mut info) = (0.0, 0.0);
    for (base, now) in pairs {
        let (b, n) = (base.checked_pairs()?, now.checked_pairs()?);
        if b == 0 || n == 0 {
            return Err(StatsError::NoData("a matchup without games"));
        }
        let mean = |p: &Penta, pairs: u64| {
            p.counts.iter().enumerate().map(|(i, &c)| c as f64 * i as f64 / 4.0).sum::<f64>() / pairs as f64
        };
        let (yb, yn) = (Yardstick::from_penta(base), Yardstick::from_penta(now));
        let v = yb.variance / (2 * b) as f64 + yn.variance / (2 * n) as f64;
        let shift = score_drop(yb.score, d)?;
        signal += shift * (mean(now, n) - mean(base, b)) / v;
        info += shift * shift / v;
    }
    if info.is_nan() || info <= 0.0 {
        return Err(StatsError::NoData("no opponents"));
    }
    let stderr = d / info.sqrt();
    let elo_change = d * signal / info;
    Ok(DropTest { elo_change, stderr, z: elo_change / stderr })
}

/// The Elo per unit of score at an even score: the logistic curve's slope there is `ELO_PER_NAT / (½·½)`.
const ELO_PER_SCORE_AT_HALF: f64 = crate::elo::ELO_PER_NAT * 4.0;

fn check_draw_rate(draw_rate: f64) -> Result<f64> {
    let d = finite("draw_rate", draw_rate)?;
    if !(0.0..1.0).contains(&d) {
        return Err(StatsError::InvalidArgument { name: "draw_rate", value: d, reason: "must be in [0, 1)" });
    }
    Ok(d)
}

/// The half-width, in Elo, of the 95% interval of a score near ½ measured from `games` independent games
/// with draw rate `draw_rate`: a game's score then has variance `(1 − d)/4` (wins and losses equally
/// likely), so the half-width is `z₀.₉₇₅ · ELO_PER_SCORE · √((1 − d)/(4n))`. Paired games (one deal, seats
/// swapped) can differ either way: for the first mover's score a deal that favours one seat gives both games
/// the same result, which widens the interval (by up to 16% in the shipped ±5 Elo study).
pub fn elo_half_width(games: u64, draw_rate: f64) -> Result<f64> {
    let d = check_draw_rate(draw_rate)?;
    if games == 0 {
        return Err(StatsError::NoData("a half-width needs at least one game"));
    }
    Ok(crate::Z95 * ELO_PER_SCORE_AT_HALF * ((1.0 - d) / (4.0 * games as f64)).sqrt())
}

/// The games [`elo_half_width`] needs to be at most `half_width_elo` (rounded up to an even count: the
/// games come in pairs).
pub fn games_for_elo_half_width(half_width_elo: f64, draw_rate: f64) -> Result<u64> {
    let h = finite("half_width_elo", half_width_elo)?;
    if h <= 0.0 {
        return Err(StatsError::InvalidArgument { name: "half_width_elo", value: h, reason: "must be positive" });
    }
    let d = check_draw_rate(draw_rate)?;
    let n = (crate::Z95 * ELO_PER_SCORE_AT_HALF / h).powi(2) * (1.0 - d) / 4.0;
    Ok((n.ceil() as u64).max(2).next_multiple_of(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_known_values() {
        // Python's statistics.NormalDist().inv_cdf (also AS 241).
        for (p, z) in [
            (0.975, 1.959_963_984_540_053_6),
            (0.95, 1.644_853_626_951_471_5),
            (0.99, 2.326_347_874_040_840_8),
            (0.993_75, 2.497_705_474_412_373_7),
            (0.999, 3.090_232_306_167_813),
            (1e-10, -6.361_340_902_404_056),
            (0.3, -0.524_400_512_708_040_7),
        ] {
            assert!((normal_quantile(p).unwrap() - z).abs() < 1e-12, "{p}");
        }
        assert_eq!(normal_quantile(0.5).unwrap(), 0.0);
        assert!((normal_quantile(0.975).unwrap() - crate::Z95).abs() < 1e-12);
        for bad in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(normal_quantile(bad).is_err());
        }
        for p in [1e-6, 0.01, 0.2, 0.5, 0.8, 0.95, 0.999_999] {
            assert!((normal_cdf(normal_quantile(p).unwrap()) - p).abs() < 1e-7 * p.max(1e-3), "{p}");
        }
        assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-7);
    }

    /// By hand: at an even score with σ² = ¼, D = 50 moves the score by
    /// ½ − 1/(1 + 10^(50/400)) = 0.0714631; z_0.95 = 1.6448536, so
    /// n = (2 · 1.6448536 · 0.5 / 0.0714631)² = 529.77 games (one sample), twice that against a baseline.
    #[test]
    fn a_hand_computed_case() {
        let ds = score_drop(0.5, 50.0).unwrap();
        assert!((ds - 0.071_463_117_408_381_4).abs() < 1e-12);
        let n = games_for_shift(0.5, ds, 0.05, 0.95).unwrap();
        assert!((n - 529.773_949_398_142_9).abs() < 1e-6, "{n}");
        let one = games_to_detect_drop(&[Yardstick::UNKNOWN], 50.0, 0.05, 0.95, Samples::One).unwrap();
        assert!((one - n).abs() < 1e-9);
        let two = games_to_detect_drop(&[Yardstick::UNKNOWN], 50.0, 0.05, 0.95, Samples::Two).unwrap();
        assert!((two - 2.0 * n).abs() < 1e-9);
        // Two equal opponents halve it; at that many games the power is what was asked for.
        let both = games_to_detect_drop(&[Yardstick::UNKNOWN; 2], 50.0, 0.05, 0.95, Samples::Two).unwrap();
        assert!((both - n).abs() < 1e-9);
        let p = power_of(&[Yardstick::UNKNOWN; 2], 50.0, 0.05, both, Samples::Two).unwrap();
        assert!((p - 0.95).abs() < 1e-6, "{p}");
        // At 80% (E = 240.82), no draws: Δs = 0.0500265, σ² = 0.16, 90% power:
        // ((1.6448536 + 1.2815516) · 0.4 / 0.0500265)² = 547.51.
        let y = Yardstick { score: 0.8, variance: 0.16 };
        let n = games_to_detect_drop(&[y], 50.0, 0.05, 0.9, Samples::One).unwrap();
        assert!((n - 547.506_804_837_209_8).abs() < 1e-6, "{n}");
    }

    #[test]
    fn more_drop_fewer_games_more_power_more_games() {
        let o = [Yardstick { score: 0.3, variance: 0.15 }, Yardstick { score: 0.6, variance: 0.2 }];
        let games = |d: f64, power: f64| games_to_detect_drop(&o, d, 0.05, power, Samples::Two).unwrap();
        let mut last = f64::INFINITY;
        for d in [5.0, 10.0, 25.0, 50.0, 100.0, 200.0, 400.0] {
            let n = games(d, 0.95);
            assert!(n < last, "{d}: {n} !< {last}");
            last = n;
        }
        let mut last = 0.0;
        for power in [0.5, 0.8, 0.9, 0.95, 0.99, 0.999] {
            let n = games(50.0, power);
            assert!(n > last, "{power}: {n} !> {last}");
            last = n;
        }
        // A stricter level also costs games; more games buy power.
        assert!(games_to_detect_drop(&o, 50.0, 0.01, 0.95, Samples::Two).unwrap() > games(50.0, 0.95));
        let p = |n: f64| power_of(&o, 50.0, 0.05, n, Samples::Two).unwrap();
        assert!(p(100.0) < p(400.0) && p(400.0) < p(1_600.0));
        // A lopsided opponent tells almost nothing.
        let lopsided = Yardstick { score: 0.99, variance: 0.0099 };
        assert!(
            games_to_detect_drop(&[lopsided], 50.0, 0.05, 0.95, Samples::One).unwrap()
                > 10.0 * games_to_detect_drop(&[Yardstick::UNKNOWN], 50.0, 0.05, 0.95, Samples::One).unwrap()
        );
    }

    #[test]
    fn yardsticks_from_counts_are_smoothed() {
        // 20 pairs, all lost: one virtual split pair (worth ½ a game) → score 0.5/21, variance 2 · ¼ · (1/21)(20/21).
        let y = Yardstick::from_penta(&Penta::new([20, 0, 0, 0, 0]));
        assert!((y.score - 0.5 / 21.0).abs() < 1e-12);
        assert!((y.variance - 2.0 * 0.25 * (1.0 / 21.0) * (20.0 / 21.0)).abs() < 1e-12);
        assert!(y.information(50.0).unwrap() > 0.0);
        // Only WW and LL pairs: nothing cancels within a pair, so the per-game variance is twice the pairs'.
        let y = Yardstick::from_penta(&Penta::new([10, 0, 0, 0, 10]));
        assert!((y.score - 0.5).abs() < 1e-12);
        assert!((y.variance - 2.0 * 20.0 / 21.0 * 0.25).abs() < 1e-12);
        // No counts: nothing known. Every pair scoring 1 (no spread seen): one
        // virtual pair more on each side, so 20 pairs → 23, variance 2 · 2 · (1/4)² / 23.
        assert_eq!(Yardstick::from_penta(&Penta::default()), Yardstick::UNKNOWN);
        let even = Yardstick::from_penta(&Penta::new([0, 0, 20, 0, 0]));
        assert_eq!(even.score, 0.5);
        assert!((even.variance - 2.0 * 2.0 / 16.0 / 23.0).abs() < 1e-12, "{even:?}");
        assert!(even.information(50.0).unwrap() > 0.0);
        let same = [(Penta::new([0, 0, 20, 0, 0]), Penta::new([0, 0, 20, 0, 0]))];
        let test = drop_test(&same, 50.0).unwrap();
        assert!(test.elo_change == 0.0 && test.stderr.is_finite() && test.stderr > 0.0, "{test:?}");
        let fell = drop_test(&[(Penta::new([0, 0, 20, 0, 0]), Penta::new([0, 10, 10, 0, 0]))], 50.0).unwrap();
        assert!(fell.dropped(0.05).unwrap(), "{fell:?}");
        games_to_detect_drop(&[even], 50.0, 0.05, 0.95, Samples::Two).unwrap();
        assert!((y.mirrored().score - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_test_reads_a_drop_and_none() {
        let base = [(Penta::new([10, 20, 40, 20, 10]), Penta::new([10, 20, 40, 20, 10]))];
        let same = drop_test(&base, 50.0).unwrap();
        assert_eq!(same.elo_change, 0.0);
        assert!(!same.dropped(0.05).unwrap());
        // The score fell from 50% to 43%: about −49 Elo.
        let worse = drop_test(&[(Penta::new([10, 20, 40, 20, 10]), Penta::new([17, 22, 40, 14, 7]))], 50.0).unwrap();
        assert!(worse.elo_change < -40.0 && worse.elo_change > -60.0, "{worse:?}");
        assert!((worse.z - worse.elo_change / worse.stderr).abs() < 1e-12);
        assert!(drop_test(&[(Penta::default(), Penta::new([1, 0, 0, 0, 0]))], 50.0).is_err());
        assert!(drop_test(&[], 50.0).is_err());
        assert!(drop_test(&base, 0.0).is_err());
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(games_for_shift(0.5, 0.0, 0.05, 0.95).is_err());
        assert!(games_for_shift(0.5, 0.1, 0.0, 0.95).is_err());
        assert!(games_for_shift(0.5, 0.1, 0.05, 1.0).is_err());
        assert!(games_to_detect_drop(&[Yardstick::UNKNOWN], -5.0, 0.05, 0.95, Samples::Two).is_err());
        assert!(games_to_detect_drop(&[], 50.0, 0.05, 0.95, Samples::Two).is_err());
        assert!(
            games_to_detect_drop(&[Yardstick { score: 1.0, variance: 0.1 }], 50.0, 0.05, 0.95, Samples::Two).is_err()
        );
        assert_eq!(score_drop(1.0, 50.0).unwrap(), 0.0);
        assert!(score_drop(1.5, 50.0).is_err());
    }

    #[test]
    fn games_for_a_precision_invert_the_half_width() {
        // ±5 Elo without draws: (1.96 · 694.9 / 5)² / 4 ≈ 18,550 games.
        let n = games_for_elo_half_width(5.0, 0.0).unwrap();
        assert!((18_500..18_600).contains(&n), "{n}");
        assert!(elo_half_width(n, 0.0).unwrap() <= 5.0 && elo_half_width(n - 2, 0.0).unwrap() > 5.0);
        // A draw at an even score deviates nothing: half the decisive games, half the games.
        let half = games_for_elo_half_width(5.0, 0.5).unwrap();
        assert!(half.abs_diff(n / 2) <= 2, "{half} vs {n}");
        assert!(games_for_elo_half_width(0.0, 0.1).is_err() && games_for_elo_half_width(5.0, 1.0).is_err());
        assert!(elo_half_width(0, 0.1).is_err());
    }
}
