//! A two-player game's clocks (`junqi serve --tc`, or a bot spec's own
//! `tc`): each side's time left, the side whose clock runs, and a side
//! whose time ran out. The bot's side mirrors what its search spends (its
//! clock runs while it thinks); the person's runs from the moment it is
//! their turn until their move reaches the server.

use junqi_core::Seat;
use serde::Serialize;
use std::time::{Duration, Instant};

/// Both sides' clocks of one game.
#[derive(Clone, Debug)]
pub struct GameClock {
    /// `BASE+INC` as given (`60+0.5`).
    tc: String,
    inc: Duration,
    /// Time left per seat, as of the last stop.
    left: [Duration; 2],
    /// The seat whose clock runs, and since when.
    running: Option<(Seat, Instant)>,
}

/// The clocks as the page is told them, as of the answer.
#[derive(Serialize, Debug, PartialEq)]
pub struct Clocks {
    /// The clock, `BASE+INC` in seconds.
    pub tc: String,
    /// The increment added after each move, in milliseconds.
    pub inc_ms: u64,
    /// The person's time left, in milliseconds (less what their move under way has spent).
    pub you_ms: u64,
    /// The bot's time left, in milliseconds.
    pub bot_ms: u64,
    /// Whose clock runs: `you`, `bot` (while it is to move) or `null` (deploying, over).
    pub running: Option<String>,
}

impl GameClock {
    /// `tc` is `BASE+INC` in seconds, already checked ([`junqi_bots::mcts::clock::parse_clock`]).
    pub fn new(tc: &str, base: Duration, inc: Duration) -> GameClock {
        GameClock { tc: tc.to_string(), inc, left: [base; 2], running: None }
    }

    /// `seat`'s clock starts, unless it already runs.
    pub fn start(&mut self, seat: Seat) {
        if self.running.is_none_or(|(s, _)| s != seat) {
            self.running = Some((seat, Instant::now()));
        }
    }

    /// The running clock stops (the move it timed was made): its time
    /// comes off and the increment goes on. Returns how long the move took
    /// and whether it was in time; a move out of time empties the clock
    /// and earns no increment.
    pub fn stop(&mut self) -> Option<(Duration, bool)> {
        let (seat, since) = self.running.take()?;
        let took = since.elapsed();
        let left = &mut self.left[seat.index()];
        let in_time = took <= *left;
        *left = if in_time { *left - took + self.inc } else { Duration::ZERO };
        Some((took, in_time))
    }

    /// The running clock stops without charging a move (the game ended).
    pub fn halt(&mut self) {
        if let Some((seat, since)) = self.running.take() {
            let left = &mut self.left[seat.index()];
            *left = left.saturating_sub(since.elapsed());
        }
    }

    /// `seat`'s time left now.
    pub fn left(&self, seat: Seat) -> Duration {
        let left = self.left[seat.index()];
        match self.running {
            Some((s, since)) if s == seat => left.saturating_sub(since.elapsed()),
            _ => left,
        }
    }

    /// The seat whose running clock shows no time left.
    pub fn flag_fallen(&self) -> Option<Seat> {
        self.running.map(|(s, _)| s).filter(|&s| self.left(s).is_zero())
    }

    /// The clocks from the person's side: `human` is the person's seat;
    /// `bot_to_move` says the bot's clock runs (it runs on the server only
    /// while the bot thinks, which a page waiting for its reply shows).
    pub fn report(&self, human: Seat, playing: bool, bot_to_move: bool) -> Clocks {
        let running = match self.running {
            Some((s, _)) if playing && s == human => Some("you"),
            _ if playing && bot_to_move => Some("bot"),
            _ => None,
        };
        Clocks {
            tc: self.tc.clone(),
            inc_ms: self.inc.as_millis() as u64,
            you_ms: self.left(human).as_millis() as u64,
            bot_ms: self.left(human.other()).as_millis() as u64,
            running: running.map(String::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_in_time_earns_the_increment_and_one_too_late_empties_the_clock() {
        let ms = Duration::from_millis;
        let mut c = GameClock::new("0.2+0.05", ms(200), ms(50));
        assert_eq!(c.stop(), None, "no clock runs yet");
        c.start(Seat::First);
        std::thread::sleep(ms(20));
        assert!(c.left(Seat::First) <= ms(180) && c.left(Seat::Second) == ms(200));
        let (took, in_time) = c.stop().unwrap();
        assert!(in_time && took >= ms(20));
        assert_eq!(c.left(Seat::First), ms(250) - took);
        assert_eq!(c.flag_fallen(), None);
        c.start(Seat::Second);
        std::thread::sleep(ms(220));
        assert_eq!(c.flag_fallen(), Some(Seat::Second));
        let report = c.report(Seat::First, true, true);
        assert_eq!((report.bot_ms, report.running.as_deref(), report.inc_ms), (0, Some("bot"), 50));
        assert_eq!(c.stop().map(|(_, in_time)| in_time), Some(false));
        assert_eq!(c.left(Seat::Second), Duration::ZERO);
        assert_eq!(c.report(Seat::First, false, false).running, None);
    }
}
