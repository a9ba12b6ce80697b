//! Pentanomial counts: game pairs (same opening, colours swapped) grouped by the candidate's total over the pair.
//! Counting pairs rather than games removes the opening's bias from the variance, which is why fishtest does it.

use serde::{Deserialize, Serialize};

use crate::error::{finite, Result, StatsError};

/// The most pairs a pentanomial count may hold (2^50; see [`Penta::checked_pairs`]).
pub const MAX_PAIRS: u64 = 1 << 50;

/// Numbers of game pairs in which the candidate scored 0, ½, 1, 1½ and 2 points (fishtest's
/// `LL, LD+DL, LW+DD+WL, DW+WD, WW`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penta {
    pub counts: [u64; 5],
}

impl Penta {
    /// Counts given directly as `[A, B, C, D, E]`.
    pub fn new(counts: [u64; 5]) -> Self {
        Penta { counts }
    }

    /// Number of game pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The number of pairs, if the counts are small enough for the
    /// statistics to be exact: their sum at most [`MAX_PAIRS`] (beyond it a
    /// sum could wrap, and `f64` stops counting every pair).
    pub fn checked_pairs(&self) -> Result<u64> {
        let sum: u128 = self.counts.iter().map(|&c| u128::from(c)).sum();
        u64::try_from(sum).ok().filter(|&n| n <= MAX_PAIRS).ok_or(StatsError::TooManyPairs { sum })
    }

    /// Adds one pair from the candidate's total over both games (0, 0.5, 1, 1.5 or 2).
    pub fn add_pair_score(&mut self, total: f64) -> Result<()> {
        let total = finite("pair score", total).map_err(|_| StatsError::InvalidPairScore { score: total })?;
        let halves = total * 2.0;
        if halves.fract() != 0.0 || !(0.0..=4.0).contains(&halves) {
            return Err(StatsError::InvalidPairScore { score: total });
        }
        self.counts[halves as usize] += 1;
        Ok(())
    }

    /// Adds one pair from the candidate's two game scores (each 0, 0.5 or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) -> Result<()> {
        for score in [first, second] {
            if score != 0.0 && score != 0.5 && score != 1.0 {
                return Err(StatsError::InvalidGameScore { score });
            }
        }
        self.add_pair_score(first + second)
    }

    /// Counts a list of pair totals (see [`Penta::add_pair_score`]).
    pub fn from_pair_scores(totals: impl IntoIterator<Item = f64>) -> Result<Self> {
        let mut penta = Penta::default();
        for total in totals {
            penta.add_pair_score(total)?;
        }
        Ok(penta)
    }

    /// Counts a list of pairs, each the candidate's two game scores (see [`Penta::add_pair`]).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (f64, f64)>) -> Result<Self> {
        let mut penta = Penta::default();
        for (first, second) in pairs {
            penta.add_pair(first, second)?;
        }
        Ok(penta)
    }

    /// The same results seen from the opponent's side (counts reversed).
    pub fn mirrored(&self) -> Self {
        let mut counts = self.counts;
        counts.reverse();
        Penta { counts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_that_would_wrap_are_refused() {
        assert_eq!(Penta::new([1, 2, 3, 4, 5]).checked_pairs().unwrap(), 15);
        assert_eq!(Penta::new([0, 0, 0, 0, MAX_PAIRS]).checked_pairs().unwrap(), MAX_PAIRS);
        assert!(Penta::new([0, 0, 0, 1, MAX_PAIRS]).checked_pairs().is_err());
        assert!(Penta::new([1, 0, 0, u64::MAX, u64::MAX]).checked_pairs().is_err());
        // The refusal gives the exact sum, not one rounded through an f64.
        let err = Penta::new([1, 0, 0, u64::MAX, u64::MAX]).checked_pairs().unwrap_err().to_string();
        assert!(err.contains("sum to 36893488147419103231 pairs"), "{err}");
        let err = Penta::new([0, 0, 0, 1, MAX_PAIRS]).checked_pairs().unwrap_err().to_string();
        assert!(err.contains("1125899906842625 pairs") && err.contains("1125899906842624"), "{err}");
    }

    #[test]
    fn pairs_land_in_the_right_cell() {
        let p = Penta::from_pairs([(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0)]).unwrap();
        assert_eq!(p.counts, [1, 2, 3, 0, 0]);
        let q = Penta::from_pairs([(1.0, 0.5), (0.5, 1.0), (1.0, 1.0)]).unwrap();
        assert_eq!(q.counts, [0, 0, 0, 2, 1]);
        assert_eq!(Penta::from_pair_scores([0.0, 0.5, 1.0, 1.5, 2.0, 2.0]).unwrap().counts, [1, 1, 1, 1, 2]);
        assert_eq!(q.pairs(), 3);
        assert_eq!(q.mirrored().counts, [1, 2, 0, 0, 0]);
    }

    #[test]
    fn bad_scores_are_rejected_and_leave_counts_alone() {
        let mut p = Penta::default();
        assert!(p.add_pair(0.25, 0.0).is_err());
        assert!(p.add_pair(1.0, 1.5).is_err());
        assert!(p.add_pair(f64::NAN, 0.0).is_err());
        assert!(p.add_pair_score(2.5).is_err());
        assert!(p.add_pair_score(-0.5).is_err());
        assert!(p.add_pair_score(0.75).is_err());
        assert!(p.add_pair_score(f64::INFINITY).is_err());
        assert_eq!(p.pairs(), 0);
        assert!(Penta::from_pairs([(1.0, 1.0), (2.0, 0.0)]).is_err());
    }
}
