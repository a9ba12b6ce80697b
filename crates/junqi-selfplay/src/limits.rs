//! Upper bounds on the counts a user gives (games, shards, threads, games
//! in flight). Past them a run could not finish, or would exhaust memory or
//! threads before its first game; they are refused, with the allowed range,
//! before anything is allocated or started.

use std::fmt::Display;

/// Games in one run: ten billion (eleven days at 10,000 games/s).
pub const MAX_GAMES: u64 = 10_000_000_000;
/// Shard files in one run's dataset (each one is a file per dataset).
pub const MAX_SHARDS: u64 = 1_000_000;
/// Worker threads of one run.
pub const MAX_THREADS: usize = 1024;
/// Games a worker keeps in flight.
pub const MAX_IN_FLIGHT: usize = 100_000;

/// Optimisation steps of one training run (and every step interval): a
/// trillion (three years at 10,000 steps/s).
pub const MAX_STEPS: u64 = 1_000_000_000_000;

/// `value` when it is finite and lies in `low..=high` (NaN and infinities
/// are refused too), else an error saying what is allowed.
pub fn finite_in_range(what: &str, value: f64, low: f64, high: f64) -> Result<f64, String> {
    if !(value.is_finite() && value >= low && value <= high) {
        return Err(format!("{what} must be a finite number between {low} and {high}, not {value}"));
    }
    Ok(value)
}

/// `value` when it lies in `low..=high`, else an error saying what is allowed.
pub fn in_range<T: PartialOrd + Display + Copy>(what: &str, value: T, low: T, high: T) -> Result<T, String> {
    if value < low || value > high {
        return Err(format!("{what} must be between {low} and {high}, not {value}"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_names_the_allowed_range() {
        assert_eq!(in_range("games", 5u64, 1, 10), Ok(5));
        assert_eq!(in_range("games", 1u64, 1, 10), Ok(1));
        assert_eq!(in_range("games", 10u64, 1, 10), Ok(10));
        assert_eq!(in_range("games", 0u64, 1, 10), Err("games must be between 1 and 10, not 0".into()));
        assert_eq!(in_range("threads", 11usize, 1, 10), Err("threads must be between 1 and 10, not 11".into()));
        assert_eq!(finite_in_range("lr", 0.5, 0.0, 1.0), Ok(0.5));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 2.0] {
            let e = finite_in_range("lr", bad, 0.0, 1.0).unwrap_err();
            assert!(e.starts_with("lr must be a finite number between 0 and 1, not"), "{e}");
        }
    }
}
