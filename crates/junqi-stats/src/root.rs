//! Brent's root finder, step for step as scipy's `brentq` (C source `brentq.c`, defaults `xtol = 2e-12`,
//! `rtol = 4·ε`, 100 iterations), so the SPRT port lands on the same roots as fishtest.

const XTOL: f64 = 2e-12;
const RTOL: f64 = 4.0 * f64::EPSILON;
const MAX_ITER: usize = 100;

/// A root of `f` in `[xa, xb]`, or `None` when `f` has the same sign at both ends or the method does not
/// converge.
pub(crate) fn brentq(f: impl Fn(f64) -> f64, xa: f64, xb: f64) -> Option<f64> {
    let (mut xpre, mut xcur) = (xa, xb);
    let (mut xblk, mut fblk) = (0.0, 0.0);
    let (mut spre, mut scur) = (0.0, 0.0);
    let mut fpre = f(xpre);
    let mut fcur = f(xcur);
    if !fpre.is_finite() || !fcur.is_finite() {
        return None;
    }
    if fpre == 0.0 {
        return Some(xpre);
    }
    if fcur == 0.0 {
        return Some(xcur);
    }
    if fpre.is_sign_negative() == fcur.is_sign_negative() {
        return None;
    }
    for _ in 0..MAX_ITER {
        if fpre != 0.0 && fcur != 0.0 && fpre.is_sign_negative() != fcur.is_sign_negative() {
            xblk = xpre;
            fblk = fpre;
            spre = xcur - xpre;
            scur = spre;
        }
        if fblk.abs() < fcur.abs() {
            xpre = xcur;
            xcur = xblk;
            xblk = xpre;
            fpre = fcur;
            fcur = fblk;
            fblk = fpre;
        }
        let delta = (XTOL + RTOL * xcur.abs()) / 2.0;
        let sbis = (xblk - xcur) / 2.0;
        if fcur == 0.0 || sbis.abs() < delta {
            return Some(xcur);
        }
        if spre.abs() > delta && fcur.abs() < fpre.abs() {
            let stry = if xpre == xblk {
                // interpolate
                -fcur * (xcur - xpre) / (fcur - fpre)
            } else {
                // extrapolate
                let dpre = (fpre - fcur) / (xpre - xcur);
                let dblk = (fblk - fcur) / (xblk - xcur);
                -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            };
            if 2.0 * stry.abs() < spre.abs().min(3.0 * sbis.abs() - delta) {
                // good short step
                spre = scur;
                scur = stry;
            } else {
                spre = sbis;
                scur = sbis;
            }
        } else {
            spre = sbis;
            scur = sbis;
        }
        xpre = xcur;
        fpre = fcur;
        if scur.abs() > delta {
            xcur += scur;
        } else {
            xcur += if sbis > 0.0 { delta } else { -delta };
        }
        fcur = f(xcur);
        if !fcur.is_finite() {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_simple_roots() {
        let r = brentq(|x| x * x - 2.0, 0.0, 2.0).unwrap();
        assert!((r - std::f64::consts::SQRT_2).abs() < 1e-11);
        let r = brentq(|x| x.cos() - x, 0.0, 1.0).unwrap();
        assert!((r - 0.739_085_133_215_160_6).abs() < 1e-11);
        assert_eq!(brentq(|x| x - 1.0, 1.0, 3.0), Some(1.0));
    }

    #[test]
    fn no_sign_change_is_none() {
        assert!(brentq(|x| x * x + 1.0, -1.0, 1.0).is_none());
        assert!(brentq(|_| f64::NAN, -1.0, 1.0).is_none());
    }
}
