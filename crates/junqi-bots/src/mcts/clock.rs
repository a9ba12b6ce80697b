//! Time as a search budget: `movetime=MS` (each move) or `tc=BASE+INC` (a
//! clock per game, seconds, as the `engine:` bot's `tc`).
//!
//! The search stops at the deadline (it looks at the clock after every
//! simulation, a few tens of nanoseconds against microseconds of work) but
//! always after at least one simulation, so a move always comes back. With
//! `tc` the bot keeps its own clock through a game: each move spends
//! [`TimeControl::budget`] of what is left, the time the move really took
//! is taken off and the increment added; a new game (another seat, a ply
//! not after the last one, or [`crate::Agent::game_over`]) starts it again
//! from the base.

use junqi_core::Seat;
use std::time::{Duration, Instant};

/// How a search bot spends time (besides its `sims`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// The same budget for each move.
    MoveTime(Duration),
    /// A clock: `base` for the game, `inc` added after each move.
    Clock { base: Duration, inc: Duration },
}

/// The simulations cap of a bot that plays by time and was given no `sims`:
/// the spec's largest, so that time alone decides.
pub const TIMED_SIMS: u32 = 1_000_000;

/// The share of a clock's time left that one move may spend: 1/30.
const CLOCK_SHARE: u32 = 30;

/// `60+0.5`: a clock of 60 s plus 0.5 s a move (`60` alone: no increment);
/// the base above 0, both finite, below 10⁷ s. The `engine:` bot's `tc`.
pub fn parse_clock(text: &str) -> Option<(Duration, Duration)> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |t: &str| {
        t.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e7).map(Duration::from_secs_f64)
    };
    let base = seconds(base).filter(|b| !b.is_zero())?;
    Some((base, seconds(inc)?))
}

/// The built-in bots that take `movetime` and `tc` (the search, with or
/// without an outside evaluator, and its cheating reference).
pub const TIMED_BOTS: [&str; 2] = ["mcts", "cheat-mcts"];

/// `--tc BASE+INC` of `junqi play` and `junqi serve`: `spec` with
/// `tc=BASE+INC` added when it names a built-in search ([`TIMED_BOTS`]) that
/// sets neither `movetime` nor `tc`; any other spec (a bot without a time
/// notion, an `engine:` with its own keys, a search with its own time) as
/// it is. An error when `tc` is not a clock ([`parse_clock`]).
pub fn with_clock(spec: &crate::BotSpec, tc: &str) -> Result<crate::BotSpec, String> {
    let (base, inc) =
        parse_clock(tc).ok_or_else(|| format!("--tc `{tc}`: expected <seconds>+<increment seconds>, e.g. 60+0.5"))?;
    if !TIMED_BOTS.contains(&spec.name.as_str()) || spec.get("movetime").is_some() || spec.get("tc").is_some() {
        return Ok(spec.clone());
    }
    Ok(spec.clone().with("tc", format!("{}+{}", seconds_text(base), seconds_text(inc))))
}

/// Seconds as a spec writes them: `60`, `0.5`.
fn seconds_text(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

impl TimeControl {
    /// The spec's `key=value`: `movetime=100` or `tc=60+0.5`.
    pub fn spec(&self) -> String {
        match self {
            TimeControl::MoveTime(d) => format!("movetime={}", d.as_millis()),
            TimeControl::Clock { base, inc } => format!("tc={}+{}", seconds_text(*base), seconds_text(*inc)),
        }
    }

    /// The time the next move may take with `remaining` on the clock:
    /// the move time, or 1/30 of what is left plus ¾ of the increment, at
    /// most half of what is left (so a move never empties the clock).
    pub fn budget(&self, remaining: Duration) -> Duration {
        match *self {
            TimeControl::MoveTime(d) => d,
            TimeControl::Clock { inc, .. } => (remaining / CLOCK_SHARE + inc * 3 / 4).min(remaining / 2),
        }
    }
}

/// A bot's time through a game: the deadline of the move under way and,
/// with a clock, the time left.
#[derive(Clone, Debug)]
pub struct MoveClock {
    pub control: TimeControl,
    /// Time left on the clock (with [`TimeControl::Clock`]).
    remaining: Duration,
    /// The seat and ply of the last move searched, to tell a new game.
    last: Option<(Seat, u32)>,
    /// When the move under way started (its first poll).
    started: Option<Instant>,
}

impl MoveClock {
    pub fn new(control: TimeControl) -> MoveClock {
        let remaining = match control {
            TimeControl::Clock { base, .. } => base,
            TimeControl::MoveTime(_) => Duration::ZERO,
        };
        MoveClock { control, remaining, last: None, started: None }
    }

    /// Time left on the clock (zero for `movetime`).
    pub fn remaining(&self) -> Duration {
        self.remaining
    }

    /// The deadline of the move of `seat` at `ply`: on the move's first
    /// call it starts the move (and the clock again in a new game); later
    /// calls for the same move (a poll after `Pending`) return the same.
    pub fn start_move(&mut self, seat: Seat, ply: u32) -> Instant {
        let started = match self.started {
            Some(started) => started,
            None => {
                let continues = self.last.is_some_and(|(s, p)| s == seat && ply > p);
                if !continues {
                    self.new_game();
                }
                self.last = Some((seat, ply));
                *self.started.insert(Instant::now())
            }
        };
        started + self.control.budget(self.remaining)
    }

    /// The move under way has been decided: its time comes off the clock
    /// and the increment goes on. Returns the time it took.
    pub fn end_move(&mut self) -> Duration {
        let took = self.started.take().map_or(Duration::ZERO, |s| s.elapsed());
        if let TimeControl::Clock { inc, .. } = self.control {
            self.remaining = self.remaining.saturating_sub(took) + inc;
        }
        took
    }

    /// Start the next move's game afresh (the clock back to its base).
    pub fn new_game(&mut self) {
        if let TimeControl::Clock { base, .. } = self.control {
            self.remaining = base;
        }
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse_as_the_engine_bot_reads_them() {
        let s = Duration::from_secs_f64;
        assert_eq!(parse_clock("60+0.5"), Some((s(60.0), s(0.5))));
        assert_eq!(parse_clock("2"), Some((s(2.0), Duration::ZERO)));
        assert_eq!(parse_clock("0.25+0"), Some((s(0.25), Duration::ZERO)));
        for bad in ["abc", "0+1", "-1+0", "1+x", "inf", "1+-1", "", "+1", "1e8"] {
            assert_eq!(parse_clock(bad), None, "{bad}");
        }
        let tc = TimeControl::Clock { base: s(60.0), inc: s(0.5) };
        assert_eq!(tc.spec(), "tc=60+0.5");
        assert_eq!(TimeControl::MoveTime(Duration::from_millis(100)).spec(), "movetime=100");
    }

    #[test]
    fn with_clock_sets_tc_on_searches_without_their_own_time() {
        let clocked = |spec: &str| with_clock(&spec.parse().unwrap(), "1+0.1").unwrap().to_string();
        assert_eq!(clocked("mcts:sims=1000000"), "mcts:sims=1000000,tc=1+0.1");
        assert_eq!(clocked("mcts:800"), "mcts:800,tc=1+0.1");
        assert_eq!(clocked("cheat-mcts"), "cheat-mcts:tc=1+0.1");
        assert_eq!(clocked("mcts:movetime=50"), "mcts:movetime=50", "a spec's own time stays");
        assert_eq!(clocked("mcts:tc=5+0"), "mcts:tc=5+0");
        assert_eq!(clocked("greedy"), "greedy", "no time notion: unchanged");
        assert_eq!(clocked("heuristic:temp=0.5"), "heuristic:temp=0.5");
        let err = with_clock(&"mcts".parse().unwrap(), "0+1").unwrap_err();
        assert!(err.contains("--tc `0+1`") && !err.contains('\n'), "{err}");
        crate::build(&with_clock(&"mcts:100".parse().unwrap(), "60+0.5").unwrap()).expect("the clocked spec builds");
    }

    #[test]
    fn a_clock_budget_never_empties_the_clock_and_a_new_game_resets_it() {
        let tc = TimeControl::Clock { base: Duration::from_secs(3), inc: Duration::from_millis(100) };
        assert_eq!(tc.budget(Duration::from_secs(3)), Duration::from_millis(175));
        assert_eq!(tc.budget(Duration::from_millis(100)), Duration::from_millis(50), "at most half of what is left");
        let mut clock = MoveClock::new(tc);
        let deadline = clock.start_move(Seat::First, 0);
        assert_eq!(clock.start_move(Seat::First, 0), deadline, "a second poll of one move: the same deadline");
        std::thread::sleep(Duration::from_millis(20));
        let took = clock.end_move();
        assert!(took >= Duration::from_millis(20));
        assert_eq!(clock.remaining(), Duration::from_secs(3) - took + Duration::from_millis(100));
        clock.start_move(Seat::First, 2);
        clock.end_move();
        assert!(clock.remaining() > Duration::from_secs(3), "the increment outweighs a quick move");
        clock.start_move(Seat::First, 1);
        assert_eq!(clock.remaining(), Duration::from_secs(3), "a ply not after the last: a new game");
    }
}
