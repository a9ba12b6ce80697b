//! The one error type of the crate: every function checks its input and says what is wrong instead of panicking.

/// What went wrong in a statistics call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A number argument was NaN, infinite or outside its allowed range.
    #[error("invalid argument {name} = {value}: {reason}")]
    InvalidArgument { name: &'static str, value: f64, reason: &'static str },
    /// Pentanomial counts too many to count exactly: their sum, exact (a `u128` holds any five `u64`s).
    #[error("pentanomial counts sum to {sum} pairs: at most 2^50 = {max}", max = crate::penta::MAX_PAIRS)]
    TooManyPairs { sum: u128 },
    /// There is nothing to estimate from (zero trials, zero games).
    #[error("no data: {0}")]
    NoData(&'static str),
    /// A player index is not below the number of players.
    #[error("player {player} is out of range (there are {players} players)")]
    PlayerOutOfRange { player: usize, players: usize },
    /// A game lists the same player in both seats.
    #[error("game {game} has player {player} in both seats")]
    SelfGame { game: usize, player: usize },
    /// A game score is not in [0, 1].
    #[error("game {game} has score {score}, expected a value in [0, 1] (1 win, 0.5 draw, 0 loss)")]
    InvalidScore { game: usize, score: f64 },
    /// A player took part in no game, so its rating is undefined.
    #[error("player {player} played no games")]
    NoGames { player: usize },
    /// A player has games, but no chain of games links it to the anchor.
    #[error("player {player} is not connected to the anchor player {anchor} by any chain of games")]
    Disconnected { player: usize, anchor: usize },
    /// The seats are so unbalanced that the first-mover term and the ratings cannot be told apart.
    #[error(
        "the first-mover advantage cannot be separated from the ratings (seats are never balanced); fit without it"
    )]
    FirstMoveNotIdentifiable,
    /// Some rating is infinite (a player won or lost every game, or similar) and no prior was allowed.
    #[error("the maximum-likelihood ratings are infinite (a player won or lost every game); allow a prior")]
    Separated,
    /// A single game or pair score is not one of the allowed values.
    #[error("score {score} is not one of 0, 0.5, 1")]
    InvalidGameScore { score: f64 },
    /// A pair total is not one of 0, 0.5, 1, 1.5, 2.
    #[error("pair score {score} is not one of 0, 0.5, 1, 1.5, 2")]
    InvalidPairScore { score: f64 },
    /// A regression's design matrix has dependent columns (or too few rows), so some coefficient is undefined.
    #[error("the design is singular: {0}")]
    SingularDesign(String),
    /// A regression's outcomes are perfectly separated by the predictors: some coefficient's maximum-likelihood
    /// value is infinite (e.g. one cell's first mover won every game).
    #[error("perfect separation: {0}")]
    PerfectSeparation(String),
    /// A regression's Newton iterations did not converge.
    #[error("the fit did not converge in {iterations} iterations")]
    NotConverged { iterations: usize },
    /// An iterative method did not reach the accuracy it promises.
    #[error("numerical failure: {0}")]
    Numerical(&'static str),
}

/// Short name for results of this crate.
pub type Result<T> = std::result::Result<T, StatsError>;

/// Rejects NaN and infinities, naming the argument.
pub(crate) fn finite(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(StatsError::InvalidArgument { name, value, reason: "must be finite" })
    }
}
