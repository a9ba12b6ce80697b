//! Logistic Elo: the score expectation `s = 1 / (1 + 10^(-elo/400))` and its inverse.

/// Elo points per natural unit of log-odds: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Logistic Elo difference that yields expected score `score`: `-400 * log10(1/s - 1)`.
///
/// Scores of exactly 0 and 1 give negative and positive infinity, a NaN gives NaN; callers that report the
/// value should clamp first (the SPRT summary does, as fishtest does).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return if score == 0.0 { f64::NEG_INFINITY } else { f64::NAN };
    }
    if score >= 1.0 {
        return if score == 1.0 { f64::INFINITY } else { f64::NAN };
    }
    // ln(s / (1 - s)) is the log-odds; written with ln_1p the round-off stays small near 0 and 1.
    ELO_PER_NAT * (score.ln() - (-score).ln_1p())
}

/// The largest Elo difference a report shows: a score of 0 or 1 (no game lost,
/// or none won) is an infinite Elo, and anything past ±1200 (a score beyond
/// 99.9%) tells nothing more. Values at the limit are printed as bounds by [`show_elo`].
pub const ELO_LIMIT: f64 = 1200.0;

/// An Elo value as reports print it, with `decimals` digits: `+123`, or at
/// or past [`ELO_LIMIT`] the bound it is, `>+1200` or `<-1200`.
pub fn show_elo(elo: f64, decimals: usize) -> String {
    if elo >= ELO_LIMIT {
        format!(">+{ELO_LIMIT:.0}")
    } else if elo <= -ELO_LIMIT {
        format!("<-{ELO_LIMIT:.0}")
    } else {
        format!("{elo:+.decimals$}")
    }
}

/// Expected score of a player `elo` points stronger: `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    logistic(elo / ELO_PER_NAT)
}

/// The logistic function `1 / (1 + e^-x)`, evaluated without overflow for large |x|.
pub(crate) fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_quarters_is_190_848() {
        // -400 * log10(1/0.75 - 1) = 400 * log10(3) = 190.848501...
        assert!((elo_from_score(0.75) - 190.848_501_887_864_98).abs() < 1e-9);
        assert!((elo_from_score(0.25) + 190.848_501_887_864_98).abs() < 1e-9);
    }

    #[test]
    fn even_score_is_zero_and_inverse_round_trips() {
        assert_eq!(elo_from_score(0.5), 0.0);
        for elo in [-800.0, -190.0, -1.0, 0.0, 0.5, 100.0, 400.0, 1500.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9, "{elo}");
        }
        // 400 Elo is odds of 10 to 1.
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-15);
    }

    #[test]
    fn edges_are_infinite_and_out_of_range_is_nan() {
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert!(elo_from_score(1.5).is_nan());
        assert!(elo_from_score(-0.1).is_nan());
        assert!(elo_from_score(f64::NAN).is_nan());
        assert_eq!(score_from_elo(1e6), 1.0);
        assert_eq!(score_from_elo(-1e6), 0.0);
    }
}
