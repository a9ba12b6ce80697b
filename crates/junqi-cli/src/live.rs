//! A long run's live display and Ctrl-C handling, shared by the commands that
//! play many games (selfplay, arena, sprt, study, regress).

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use junqi_selfplay::RunOptions;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A progress bar over `total` games fed by [`RunOptions::progress`], and a
/// Ctrl-C handler that sets [`RunOptions::stop`] (a second Ctrl-C exits at once).
pub struct Live {
    pub options: RunOptions,
    ticker: Ticker,
    label: Arc<Mutex<String>>,
}

/// A progress bar on stderr (hidden when stderr is not a terminal) and the
/// thread that refreshes it five times a second until [`Ticker::finish`].
/// [`Live`] and `junqi loop`'s display are both built on it.
pub struct Ticker {
    pub bar: ProgressBar,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    /// A bar over `len` (a spinner when `None`) drawn in `style`, refreshed
    /// by `tick` on a thread of its own; with `only_visible`, no thread while
    /// the bar is hidden.
    pub fn start(
        len: Option<u64>,
        style: ProgressStyle,
        only_visible: bool,
        mut tick: impl FnMut(&ProgressBar) + Send + 'static,
    ) -> Ticker {
        let target =
            if std::io::stderr().is_terminal() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(len, target);
        bar.set_style(style);
        let done = Arc::new(AtomicBool::new(false));
        let thread = (!only_visible || !bar.is_hidden()).then(|| {
            let (bar, done) = (bar.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    tick(&bar);
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
        });
        Ticker { bar, done, thread }
    }

    /// Stop the thread and clear the bar.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Live {
    /// Start the display; `base` games are already complete.
    pub fn start(threads: usize, total: u64, base: u64) -> Result<Live> {
        let options = RunOptions { threads, stop: stop_flag(), ..Default::default() };
        let label = Arc::new(Mutex::new(String::new()));
        let (progress, stop, shown) = (options.progress.clone(), options.stop.clone(), label.clone());
        let start = Instant::now();
        let style = ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}")
            .expect("valid template")
            .progress_chars("=> ");
        let ticker = Ticker::start(Some(total), style, false, move |bar| {
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let games = progress.games.load(Ordering::Relaxed);
            let position = base + progress.resumed.load(Ordering::Relaxed) + games;
            // Plies played, games in flight included (steady while few games end).
            let plies = progress.moves.load(Ordering::Relaxed);
            let rate = games as f64 / secs;
            let left = total.saturating_sub(position) as f64;
            let eta = if rate > 0.0 { duration(left / rate) } else { "?".into() };
            let state = if stop.load(Ordering::Relaxed) { "  stopping…" } else { "" };
            let label = shown.lock().map(|l| l.clone()).unwrap_or_default();
            bar.set_position(position);
            bar.set_message(format!(
                "{} games/s  {} plies/s  ETA {eta}{state}{label}",
                si(rate),
                si(plies as f64 / secs)
            ));
        });
        Ok(Live { options, ticker, label })
    }

    /// Text shown after the rates (e.g. the matchup being played).
    pub fn set_label(&self, text: &str) {
        if let Ok(mut l) = self.label.lock() {
            *l = format!("  {text}");
        }
    }

    /// Print a line above the bar.
    pub fn println(&self, line: &str) {
        if self.ticker.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.ticker.bar.println(line);
        }
    }

    /// Stop the display.
    pub fn finish(self) {
        self.ticker.finish();
    }
}

/// The flag a Ctrl-C sets once [`catch_ctrl_c`] is in place.
fn stop_flag() -> Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(Arc::default).clone()
}

/// Catch Ctrl-C from the first moment of a long command (before its nets
/// load or its directory is prepared): the first press sets the stop flag
/// that [`Live`] and [`ctrl_c_flag`] give the run, which then stops at its
/// next check, keeps what is finished and says how to resume, even when
/// nothing had started yet; a second press exits at once.
pub fn catch_ctrl_c() -> Result<()> {
    let stop = stop_flag();
    ctrlc::set_handler(move || {
        if stop.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })?;
    Ok(())
}

/// The Ctrl-C flag, for long work that is not a run of games (training).
#[cfg(feature = "torch")]
pub fn ctrl_c_flag() -> Result<Arc<AtomicBool>> {
    Ok(stop_flag())
}

/// `12.3k`-style numbers for the progress line.
pub fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.1}k", x / 1e3),
        // Searches with a net play well under one game a second.
        x if x < 10.0 => format!("{x:.2}"),
        x => format!("{x:.0}"),
    }
}

/// `1h02m`, `3m05s`, `42s`.
pub fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s / 60 % 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}
