//! Wilson score interval for a proportion: unlike `p ± z·sqrt(p(1-p)/n)` it stays inside [0, 1] and does not
//! collapse to a point when every trial succeeds or fails.

use crate::error::{finite, Result, StatsError};
use crate::interval::{Interval, Z95};

/// 95% Wilson interval for `successes` out of `trials` (see [`wilson_interval_z`]).
pub fn wilson_interval(successes: f64, trials: f64) -> Result<Interval> {
    wilson_interval_z(successes, trials, Z95)
}

/// Wilson interval with normal quantile `z`:
/// `(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)` with `p = successes / trials`.
///
/// `successes` may be fractional (a draw counts as half a success). Zero trials carry no information, so
/// `trials == 0` is an error ([`StatsError::NoData`]) rather than the vacuous interval [0, 1]. The ends are
/// clamped to [0, 1] only to remove round-off.
pub fn wilson_interval_z(successes: f64, trials: f64, z: f64) -> Result<Interval> {
    let trials = finite("trials", trials)?;
    let successes = finite("successes", successes)?;
    let z = finite("z", z)?;
    if trials < 0.0 {
        return Err(StatsError::InvalidArgument { name: "trials", value: trials, reason: "must not be negative" });
    }
    if trials == 0.0 {
        return Err(StatsError::NoData("a proportion needs at least one trial"));
    }
    if !(0.0..=trials).contains(&successes) {
        return Err(StatsError::InvalidArgument {
            name: "successes",
            value: successes,
            reason: "must lie between 0 and the number of trials",
        });
    }
    if z <= 0.0 {
        return Err(StatsError::InvalidArgument { name: "z", value: z, reason: "must be positive" });
    }
    let p = successes / trials;
    let z2 = z * z;
    let denom = 1.0 + z2 / trials;
    let centre = (p + z2 / (2.0 * trials)) / denom;
    let half = z * (p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)).sqrt() / denom;
    Ok(Interval { low: (centre - half).max(0.0), high: (centre + half).min(1.0) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Interval, low: f64, high: f64) {
        assert!((a.low - low).abs() < 1e-12 && (a.high - high).abs() < 1e-12, "{a:?} vs [{low}, {high}]");
    }

    #[test]
    fn eight_of_ten() {
        // z² = 3.841459, denom = 1 + 0.3841459 = 1.3841459, centre = (0.8 + 0.1920729) / denom = 0.7167401,
        // half = 1.959964 · sqrt(0.016 + 0.0096036) / denom = 0.2265777  ⇒  [0.4901625, 0.9433178].
        let i = wilson_interval(8.0, 10.0).unwrap();
        close(i, 0.490_162_471_536_641_83, 0.943_317_848_545_624_7);
        assert!((i.low - 0.4902).abs() < 5e-5 && (i.high - 0.9433).abs() < 5e-5);
    }

    #[test]
    fn none_and_half_of_ten() {
        // 0 of 10: centre = half = (z²/20) / denom = 0.1920729 / 1.3841459 = 0.1387664 ⇒ [0, 0.2775328].
        close(wilson_interval(0.0, 10.0).unwrap(), 0.0, 0.277_532_799_862_889_2);
        // 5 of 10: centre 0.5, half = 1.959964 · sqrt(0.025 + 0.0096036) / 1.3841459 = 0.2634069.
        close(wilson_interval(5.0, 10.0).unwrap(), 0.236_593_090_512_564, 0.763_406_909_487_436_1);
        // 60 of 100: denom = 1.0384146, centre = (0.6 + 0.0192073) / denom = 0.5963006,
        // half = 1.959964 · sqrt(0.0024 + 0.0000960) / denom = 0.0942981 ⇒ [0.5020026, 0.6905987].
        close(wilson_interval(60.0, 100.0).unwrap(), 0.502_002_586_791_061_8, 0.690_598_713_567_541_1);
    }

    #[test]
    fn symmetric_and_fractional() {
        let a = wilson_interval(10.0, 10.0).unwrap();
        let b = wilson_interval(0.0, 10.0).unwrap();
        assert!((a.low - (1.0 - b.high)).abs() < 1e-15 && (a.high - 1.0).abs() < 1e-15);
        close(wilson_interval(7.5, 10.0).unwrap(), 0.442_181_424_278_549_84, 0.919_052_175_790_005_6);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(wilson_interval(0.0, 0.0), Err(StatsError::NoData(_))));
        assert!(wilson_interval(11.0, 10.0).is_err());
        assert!(wilson_interval(-1.0, 10.0).is_err());
        assert!(wilson_interval(f64::NAN, 10.0).is_err());
        assert!(wilson_interval(1.0, f64::INFINITY).is_err());
        assert!(wilson_interval_z(1.0, 2.0, 0.0).is_err());
    }
}
