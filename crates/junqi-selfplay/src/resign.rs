//! Resignation in self-play, as AlphaZero and KataGo do it: a side whose own
//! value estimate stays below a threshold gives the game up, which saves the
//! long, decided endings; a fraction of the games are played through anyway
//! so the run can measure how often a resignation would have been wrong.
//!
//! Not a board rule (docs/rules.md has none): the source rule texts only
//! forbid it early ("20 步之内不允许投降", no surrender in the first 20
//! moves), hence `min_ply`.

use junqi_core::{rng_from_seed, Outcome, Seat};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Resign levels are counted in bins of [`LEVEL_WIDTH`] from -1 up to
/// [`LEVEL_TOP`]: thresholds calibrate in that range.
pub const LEVEL_BINS: usize = 25;
pub const LEVEL_WIDTH: f64 = 0.02;
pub const LEVEL_TOP: f64 = -1.0 + LEVEL_BINS as f64 * LEVEL_WIDTH;

/// When the side to move resigns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Resign {
    /// Resign when the mover's value estimate ([`junqi_bots::Decision::value`],
    /// in [-1, 1]) is below this … (an `f64`, so run.json, which goes
    /// through `serde_json::Value`, writes it as typed)
    pub threshold: f64,
    /// … at this many of its decisions in a row (decisions without a value,
    /// e.g. forced moves, neither count nor break the streak) …
    pub consecutive: u32,
    /// … and the game has reached this ply.
    pub min_ply: u32,
    /// Fraction of games (chosen from each game's seed) played to the end
    /// even so, to count false resignations.
    pub playthrough: f64,
}

impl Default for Resign {
    fn default() -> Self {
        // 40 plies = the source rule texts' 20 moves of each side.
        Resign { threshold: -0.9, consecutive: 3, min_ply: 40, playthrough: 0.1 }
    }
}

impl Resign {
    pub fn check(&self) -> Result<(), String> {
        // Values are clamped to [-1, 1]: no value is below -1, so -1 would never resign.
        if !(self.threshold.is_finite() && self.threshold > -1.0 && self.threshold <= 1.0) {
            return Err(format!("resign threshold {} is not in (-1, 1]", self.threshold));
        }
        if self.consecutive == 0 {
            return Err("resign consecutive must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.playthrough) {
            return Err(format!("resign play-through fraction {} is not in [0, 1]", self.playthrough));
        }
        Ok(())
    }

    /// Whether the game seeded `seed` (id `game_id`) is played through.
    fn plays_through(&self, seed: u64, game_id: u64) -> bool {
        let mut rng = rng_from_seed(crate::game_seed(seed ^ 0x5245_5349_474E_2121, game_id));
        rng.random::<f64>() < self.playthrough
    }
}

/// One game's resignation state.
#[derive(Clone, Debug)]
pub(crate) struct ResignWatch {
    resign: Resign,
    playthrough: bool,
    /// Per seat: decisions in a row with a value below the threshold.
    streak: [u32; 2],
    /// In a play-through game: the first seat that would have resigned.
    pub signal: Option<Seat>,
    /// Per seat: its last `consecutive` counted values …
    recent: [VecDeque<f32>; 2],
    /// … and the lowest threshold at which it would have resigned so far:
    /// the least, over runs of `consecutive` counted decisions, of the run's
    /// highest value (+∞: none yet). It resigns at threshold `t` exactly
    /// when `t > level`.
    pub level: [f32; 2],
}

impl ResignWatch {
    pub fn new(resign: Resign, seed: u64, game_id: u64) -> ResignWatch {
        ResignWatch {
            playthrough: resign.plays_through(seed, game_id),
            resign,
            streak: [0; 2],
            signal: None,
            recent: Default::default(),
            level: [f32::INFINITY; 2],
        }
    }

    /// `seat` decided at `ply` with `value`: the game's outcome if it resigns.
    /// Only decisions from `min_ply` on count towards the streak.
    pub fn observe(&mut self, seat: Seat, ply: u32, value: Option<f32>) -> Option<Outcome> {
        let v = value?;
        if ply < self.resign.min_ply {
            return None;
        }
        let recent = &mut self.recent[seat.index()];
        // A NaN breaks a run as a value above every threshold does.
        recent.push_back(if v.is_nan() { f32::INFINITY } else { v });
        if recent.len() > self.resign.consecutive as usize {
            recent.pop_front();
        }
        if recent.len() == self.resign.consecutive as usize {
            let run_max = recent.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let level = &mut self.level[seat.index()];
            *level = level.min(run_max);
        }
        let streak = &mut self.streak[seat.index()];
        // A NaN value is not below the threshold: it breaks the streak.
        *streak = if (v as f64) < self.resign.threshold { *streak + 1 } else { 0 };
        if *streak < self.resign.consecutive {
            return None;
        }
        if self.playthrough {
            self.signal.get_or_insert(seat);
            return None;
        }
        Some(Outcome::resignation(seat))
    }
}

/// A run's resignation figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignTally {
    /// Games that ended by resignation.
    pub resigned: u64,
    /// Played-through games in which a side would have resigned …
    pub signalled: u64,
    /// … and of those, the games that side did not lose: false resignations.
    pub false_resignations: u64,
    /// Played-through games, per side whose resign level (the lowest
    /// threshold at which it would have resigned; see [`LEVEL_BINS`]) is
    /// below [`LEVEL_TOP`]: counts by level bin of the sides that lost …
    #[serde(default)]
    pub lost_at: [u64; LEVEL_BINS],
    /// … and of those that did not (would-be false resignations).
    #[serde(default)]
    pub not_lost_at: [u64; LEVEL_BINS],
}

impl ResignTally {
    /// One finished game; `watch` is its resignation state (None: resignation was off).
    pub(crate) fn add(&mut self, outcome: &Outcome, watch: Option<&ResignWatch>) {
        self.resigned += u64::from(outcome.termination == junqi_core::Termination::Resignation);
        let Some(watch) = watch.filter(|w| w.playthrough) else { return };
        if let Some(seat) = watch.signal {
            self.signalled += 1;
            self.false_resignations += u64::from(outcome.winner != Some(seat.other()));
        }
        for seat in [Seat::First, Seat::Second] {
            let level = watch.level[seat.index()] as f64;
            if level < LEVEL_TOP {
                let bin = (((level + 1.0) / LEVEL_WIDTH).floor().max(0.0) as usize).min(LEVEL_BINS - 1);
                let lost = outcome.winner == Some(seat.other());
                if lost {
                    self.lost_at[bin] += 1;
                } else {
                    self.not_lost_at[bin] += 1;
                }
            }
        }
    }
    pub fn merge(&mut self, other: &ResignTally) {
        self.resigned += other.resigned;
        self.signalled += other.signalled;
        self.false_resignations += other.false_resignations;
        for i in 0..LEVEL_BINS {
            self.lost_at[i] += other.lost_at[i];
            self.not_lost_at[i] += other.not_lost_at[i];
        }
    }
    /// At threshold `-1 + k · LEVEL_WIDTH` (k in 1..=LEVEL_BINS): how many
    /// played-through sides would have resigned, and how many of them did
    /// not lose. Each side counts on its own (the signal counts only the
    /// first side of a game), so a calibration sees every would-be resignation.
    pub fn would_resign_at(&self, k: usize) -> (u64, u64) {
        let k = k.min(LEVEL_BINS);
        let not_lost: u64 = self.not_lost_at[..k].iter().sum();
        (self.lost_at[..k].iter().sum::<u64>() + not_lost, not_lost)
    }
    /// The highest threshold on the bin grid at which at most `rate` of the
    /// would-be resignations are false, given at least `min_signals` of them
    /// there (None: not enough play-through data to say).
    pub fn calibrate(&self, rate: f64, min_signals: u64) -> Option<f64> {
        let mut best = None;
        for k in 1..=LEVEL_BINS {
            let (n, wrong) = self.would_resign_at(k);
            if n >= min_signals && wrong as f64 <= rate * n as f64 {
                best = Some(-1.0 + k as f64 * LEVEL_WIDTH);
            }
        }
        best
    }
    /// False resignations per played-through game that signalled one (None without any).
    pub fn false_rate(&self) -> Option<f64> {
        (self.signalled > 0).then(|| self.false_resignations as f64 / self.signalled as f64)
    }
}

/// The line `junqi selfplay` prints and `junqi loop` logs.
impl std::fmt::Display for ResignTally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = self.false_rate().map_or("n/a".to_string(), |r| format!("{:.1}%", 100.0 * r));
        write!(
            f,
            "resigned: {} games; played through: {} would have resigned, {} of them not lost (false resignations {rate})",
            self.resigned, self.signalled, self.false_resignations
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streak_below_the_threshold_resigns_after_min_ply() {
        let r = Resign { threshold: -0.5, consecutive: 2, min_ply: 10, playthrough: 0.0 };
        let mut w = ResignWatch::new(r, 1, 0);
        let s = Seat::Second;
        assert_eq!(w.observe(s, 6, Some(-0.9)), None); // too early, and not counted:
        assert_eq!(w.observe(s, 8, Some(-0.9)), None);
        assert_eq!(w.observe(s, 10, Some(-0.9)), None); // the first decision that counts
        assert_eq!(w.observe(s, 12, Some(f32::NAN)), None); // NaN breaks the streak
        assert_eq!(w.observe(s, 13, Some(-0.9)), None);
        assert_eq!(w.observe(s, 14, Some(-0.2)), None); // so does a value above the threshold
        assert_eq!(w.observe(s, 14, Some(-0.9)), None); // one of two
        assert_eq!(w.observe(Seat::First, 15, Some(0.9)), None); // the other seat's streak is its own
        assert_eq!(w.observe(s, 16, None), None); // no value: neither counts nor breaks
        let o = w.observe(s, 18, Some(-0.6)).expect("resigns");
        assert_eq!(o, Outcome::resignation(Seat::Second));
        assert_eq!(o.winner, Some(Seat::First));
        assert_eq!(o.termination.name(), "resignation");
    }

    #[test]
    fn play_through_games_record_the_signal_instead() {
        let r = Resign { threshold: 0.0, consecutive: 1, min_ply: 0, playthrough: 1.0 };
        let mut w = ResignWatch::new(r, 1, 0);
        assert_eq!(w.observe(Seat::First, 0, Some(-0.1)), None);
        assert_eq!(w.observe(Seat::Second, 1, Some(-0.1)), None);
        assert_eq!(w.signal, Some(Seat::First));
        let mut t = ResignTally::default();
        t.add(&Outcome { winner: Some(Seat::First), termination: junqi_core::Termination::FlagCaptured }, Some(&w));
        t.add(&Outcome { winner: Some(Seat::Second), termination: junqi_core::Termination::FlagCaptured }, Some(&w));
        t.add(&Outcome::resignation(Seat::First), None);
        // Levels of -0.1 are above the calibrated range: no bins.
        assert_eq!(t, ResignTally { resigned: 1, signalled: 2, false_resignations: 1, ..Default::default() });
        assert_eq!(t.false_rate(), Some(0.5));
    }

    #[test]
    fn the_level_is_the_lowest_threshold_that_would_resign() {
        let r = Resign { threshold: -0.99, consecutive: 2, min_ply: 4, playthrough: 1.0 };
        let mut w = ResignWatch::new(r, 1, 0);
        let s = Seat::First;
        for (ply, v) in [(0, -1.0), (2, -1.0), (4, -0.7), (6, -0.95), (8, f32::NAN), (10, -0.9), (12, -0.8)] {
            w.observe(s, ply, Some(v));
        }
        // Runs of two counted values: (-0.7, -0.95) max -0.7, (-0.95, NaN) never,
        // (NaN, -0.9) never, (-0.9, -0.8) max -0.8: the level is -0.8.
        assert_eq!(w.level, [-0.8, f32::INFINITY]);
        // So it resigns at any threshold above -0.8, and at none below.
        for (threshold, resigns) in [(-0.79, true), (-0.81, false), (-0.85, false)] {
            let mut again = ResignWatch::new(Resign { threshold, playthrough: 0.0, ..r }, 1, 0);
            let mut out = None;
            for (ply, v) in [(4, -0.7), (6, -0.95), (8, f32::NAN), (10, -0.9), (12, -0.8)] {
                out = out.or(again.observe(s, ply, Some(v)));
            }
            assert_eq!(out.is_some(), resigns, "threshold {threshold}");
        }
    }

    #[test]
    fn calibration_finds_the_highest_threshold_within_the_rate() {
        let mut t = ResignTally::default();
        // Levels near -1 always lose; from -0.9 on, one side in five survives.
        for i in 0..LEVEL_BINS {
            let level = -1.0 + (i as f64 + 0.5) * LEVEL_WIDTH;
            t.lost_at[i] = 40;
            t.not_lost_at[i] = if level < -0.9 { 0 } else { 10 };
        }
        // Up to -0.9 (5 bins): 200 signals, none false.
        assert_eq!(t.would_resign_at(5), (200, 0));
        let at = t.calibrate(0.05, 20).unwrap();
        // At -0.88: 290 signals, 10 false (3.4%); at -0.86: 340, 20 (5.9%).
        assert!((at - -0.88).abs() < 1e-9, "{at}");
        assert_eq!(t.calibrate(0.0, 20), Some(-0.9));
        assert_eq!(ResignTally::default().calibrate(0.05, 20), None, "no data, no threshold");
        assert_eq!(t.calibrate(0.05, 1_000_000), None, "too few signals");
    }

    #[test]
    fn the_play_through_fraction_is_kept_and_fixed_by_the_seed() {
        let r = Resign { playthrough: 0.25, ..Resign::default() };
        let chosen: Vec<bool> = (0..4000).map(|g| r.plays_through(9, g)).collect();
        let share = chosen.iter().filter(|&&c| c).count() as f64 / 4000.0;
        assert!((share - 0.25).abs() < 0.03, "{share}");
        // Another run seed chooses other games; a larger fraction keeps these.
        assert_ne!(chosen, (0..4000).map(|g| r.plays_through(10, g)).collect::<Vec<_>>());
        let more = Resign { playthrough: 0.5, ..r };
        assert!((0..4000).all(|g| !chosen[g as usize] || more.plays_through(9, g)));
        assert!(!Resign { playthrough: 0.0, ..r }.plays_through(9, 0));
        assert!(Resign { threshold: 1.5, ..r }.check().is_err());
        assert!(Resign { threshold: -1.0, ..r }.check().is_err());
        assert!(Resign { threshold: 1.0, ..r }.check().is_ok());
        assert!(Resign { consecutive: 0, ..r }.check().is_err());
        assert!(Resign { playthrough: 1.5, ..r }.check().is_err());
        assert!(r.check().is_ok());
    }
}
