//! # junqi-stats
//!
//! The statistics behind the evaluation arena, with no game code: every function takes counts or game results
//! and returns numbers, or a [`StatsError`] for bad input (nothing here panics on data).
//!
//! * [`elo`]: logistic Elo. `elo(s) = -400·log10(1/s - 1)`, `s(elo) = 1 / (1 + 10^(-elo/400))`; 75% is
//!   +190.85 Elo.
//! * [`wilson`]: Wilson score interval for a proportion,
//!   `(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)` with `z = 1.959963984540054`; zero trials are an
//!   error.
//! * [`bradley_terry`]: maximum-likelihood logistic ratings from individual games with a first-mover term:
//!   the first mover `i` scores against `j` with `p = 1 / (1 + 10^(-(r_i - r_j + f)/400))`, a game adds
//!   `s·ln p + (1-s)·ln(1-p)` (a draw is `s = ½`), the anchor is fixed at 0. Newton's method with step halving;
//!   covariance = inverse observed information; 95% intervals `± 1.959964·stderr`. Separable data (infinite
//!   MLE) are refitted with a few virtual draws per met pair, and the fit says so.
//! * [`penta`] and [`sprt`]: pentanomial counts of game pairs and the normalized-Elo GSPRT, a faithful port of
//!   fishtest's `LLR_normalized` (`server/fishtest/stats/LLRcalc.py`, by Michel Van den Bergh; theory in his
//!   "Normalized Elo practical" note), including its regularization of empty cells by 0.001 pairs. Bounds
//!   `[ln(β/(1-α)), ln((1-β)/α)]`. The summary adds the logistic Elo of the mean score with the interval
//!   `mean ± z·sqrt(var/N)` mapped through `elo`, and normalized Elo `(μ - ½)/σ_game · 800/ln 10`.
//! * [`logistic`]: logistic regression by Newton/IRLS on `[0, 1]` outcomes (a draw is ½: quasi-binomial), with
//!   inverse-Fisher-information, Pearson-dispersion or cluster-robust standard errors, Wald 95% intervals and
//!   p-values; separation and singular designs are errors. The first-move study's factorial effects use it.
//! * [`power`]: games needed to detect an Elo drop, `n = ((z_{1-α} + z_{1-β})·σ/Δs)²` with
//!   `Δs = s - s(elo(s) - D)` at the observed score (summed over several opponents, doubled against a baseline of
//!   the same size), and the matching one-sided test of a bot's score change ([`drop_test`]).
//!
//! ```
//! use junqi_stats::{elo_from_score, fit_bradley_terry, wilson_interval, BtOptions, Game, Penta, Sprt};
//!
//! assert!((elo_from_score(0.75) - 190.848).abs() < 1e-3);
//!
//! let ci = wilson_interval(8.0, 10.0).unwrap();
//! assert!((ci.low - 0.4902).abs() < 1e-4 && (ci.high - 0.9433).abs() < 1e-4);
//!
//! // Player 1 scores 3 of 4 against the anchor (player 0) in each seat.
//! let mut games = Vec::new();
//! for score in [1.0, 1.0, 1.0, 0.0] {
//!     games.push(Game { first: 1, second: 0, score });
//!     games.push(Game { first: 0, second: 1, score: 1.0 - score });
//! }
//! let fit = fit_bradley_terry(2, &games, 0, &BtOptions::default()).unwrap();
//! assert!((fit.ratings[1].elo - 190.848).abs() < 1e-3 && !fit.prior_used());
//!
//! let sprt = Sprt::new(0.5, 2.5, 0.05, 0.05).unwrap();
//! let summary = sprt.evaluate(&Penta::new([39, 8843, 26675, 9240, 44])).unwrap();
//! assert!((summary.llr - 2.9416752).abs() < 1e-6); // fishtest's value
//! ```

pub mod bradley_terry;
pub mod elo;
pub mod error;
pub mod interval;
mod linalg;
pub mod logistic;
pub mod multiple;
pub mod penta;
pub mod power;
mod root;
pub mod sprt;
pub mod student_t;
pub mod wilson;

pub use bradley_terry::{fit_bradley_terry, BtFit, BtOptions, Game, Rating};
pub use elo::{elo_from_score, score_from_elo, show_elo, ELO_LIMIT, ELO_PER_NAT};
pub use error::StatsError;
pub use interval::{Estimate, Interval, Z95};
pub use logistic::{fit_logistic, Coefficient, Dispersion, LogisticData, LogisticFit, LogisticOptions, VarianceKind};
pub use multiple::{benjamini_hochberg_adjusted, holm_adjusted, p_value, paired_difference, rejected, two_sided_p};
pub use penta::Penta;
pub use power::{
    drop_test, games_for_shift, games_to_detect_drop, normal_cdf, normal_quantile, power_of, score_drop, DropTest,
    Samples, Yardstick,
};
pub use sprt::{
    decide, llr_normalized, pair_estimates, sprt_bounds, Decision, LlrBounds, PairEstimates, Sprt, SprtSummary,
    NELO_PER_T,
};
pub use student_t::{t_two_sided_p, t_two_sided_quantile};
pub use wilson::{wilson_interval, wilson_interval_z};
