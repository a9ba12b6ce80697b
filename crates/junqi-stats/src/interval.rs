//! Plain result types shared by the estimators: a two-sided interval and a point estimate with one.

use serde::{Deserialize, Serialize};

/// Two-sided 95% normal quantile, `Φ⁻¹(0.975)`.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A closed interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in the interval (ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// `high - low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

/// A point estimate with its 95% interval: the one value-with-interval type
/// of the workspace (ratings, first-move advantages, SPRT summaries, study
/// lines, factorial effects), written flat as `{value, low, high}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    pub fn new(value: f64, interval: Interval) -> Estimate {
        Estimate { value, low: interval.low, high: interval.high }
    }

    /// `value ± half`.
    pub fn symmetric(value: f64, half: f64) -> Estimate {
        Estimate { value, low: value - half, high: value + half }
    }

    pub fn interval(&self) -> Interval {
        Interval { low: self.low, high: self.high }
    }

    /// Whether `x` lies in the interval (ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.interval().contains(x)
    }

    /// The estimate (of Elo) as a report shows it: `+123 [+100, +146]`, an
    /// end at the Elo limit as the bound it is: `-636 [<-1200, -484]`.
    pub fn show(&self) -> String {
        self.show_with(0)
    }

    /// [`Estimate::show`] with `decimals` digits.
    pub fn show_with(&self, decimals: usize) -> String {
        let e = |x: f64| crate::elo::show_elo(x, decimals);
        format!("{} [{}, {}]", e(self.value), e(self.low), e(self.high))
    }
}
