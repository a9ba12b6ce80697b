//! `junqi loop`: the closed self-play → train → evaluate → promote loop.

use crate::live::{duration, si, Ticker};
use crate::overrides;
use anyhow::Result;
use indicatif::ProgressStyle;
use junqi_loop::{run_loop, LoopConfig, LoopError, LoopObserver, LoopState};
use junqi_selfplay::RunOptions;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Loop config (TOML, e.g. configs/loop/quickstart.toml); every key has a default.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run directory (see docs/training.md). Running the same command again resumes.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Stop after this many generations (`generations`; may change on a resume).
    #[arg(long)]
    generations: Option<u32>,
    /// Start no new generation after this many minutes (`minutes`; may change on a resume).
    #[arg(long)]
    minutes: Option<f64>,
    /// Self-play and evaluation workers, 0 = one per core (`threads`).
    #[arg(long)]
    threads: Option<usize>,
    /// Any config key, e.g. `--set selfplay.sims=64 --set train.model.blocks=2`; repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

fn config(args: &Args, device: Option<&str>) -> Result<LoopConfig> {
    let mut table = overrides::read_table(args.config.as_deref())?;
    let mut named = Vec::new();
    if let Some(g) = args.generations {
        named.push(format!("generations={g}"));
    }
    if let Some(m) = args.minutes {
        named.push(format!("minutes={m:?}"));
    }
    if let Some(t) = args.threads {
        named.push(format!("threads={t}"));
    }
    if let Some(d) = device {
        named.push(format!("train.device=\"{d}\""));
    }
    overrides::apply(&mut table, &named)?;
    overrides::apply(&mut table, &args.set)?;
    Ok(LoopConfig::from_toml(&toml::to_string(&table)?)?)
}

/// Log lines on stdout; the current stage and its progress on stderr (a
/// terminal only): a bar over a stage's games, a spinner while it trains,
/// fed from the run's progress counters by [`Ticker`]'s thread.
struct Console {
    ticker: Ticker,
    /// The current stage's games (0: training) and start.
    stage: Arc<Mutex<(u64, Instant)>>,
    started: Instant,
}

/// The bar of a stage of games, and the spinner of training.
const GAMES: &str = "{prefix}  {bar:30} {pos}/{len} games  {msg}";
const TRAINING: &str = "{prefix}  {spinner}  {msg}";

impl Console {
    fn start(options: &RunOptions) -> Console {
        let stage = Arc::new(Mutex::new((0, Instant::now())));
        let (current, progress) = (stage.clone(), options.progress.clone());
        let spinner = ProgressStyle::with_template(TRAINING).expect("valid template");
        let ticker = Ticker::start(None, spinner, true, move |bar| {
            if let Ok(s) = current.lock() {
                let games = progress.games.load(Ordering::Relaxed) + progress.resumed.load(Ordering::Relaxed);
                let secs = s.1.elapsed().as_secs_f64().max(1e-9);
                let rate = progress.plies.load(Ordering::Relaxed) as f64 / secs;
                if s.0 > 0 {
                    bar.set_position(games);
                    bar.set_message(format!("{} plies/s  {}", si(rate), duration(secs)));
                } else {
                    bar.set_message(duration(secs));
                    bar.tick();
                }
            }
        });
        Console { ticker, stage, started: Instant::now() }
    }

    fn finish(self) {
        self.ticker.finish();
    }
}

impl LoopObserver for Console {
    fn stage(&mut self, label: &str, total: u64) {
        if let Ok(mut s) = self.stage.lock() {
            *s = (total, Instant::now());
        }
        let template = if total > 0 { GAMES } else { TRAINING };
        let bar = &self.ticker.bar;
        bar.set_style(ProgressStyle::with_template(template).expect("valid template").progress_chars("=> "));
        bar.set_length(total);
        bar.set_position(0);
        bar.set_prefix(label.to_string());
        bar.set_message("");
    }
    fn line(&mut self, text: &str) {
        let line = format!("[{}] {text}", duration(self.started.elapsed().as_secs_f64()));
        self.ticker.bar.suspend(|| println!("{line}"));
    }
}

pub fn run(args: Args, device: Option<&str>) -> Result<()> {
    let config = config(&args, device)?;
    let state = drive(&config, &args.out)?;
    print_table(&config, &args.out, &state);
    Ok(())
}

/// Run (or resume) the loop of `config` in `out` with the console display:
/// the nets where the config says (`--device` sets `train.device`), Ctrl-C
/// a resumable stop. `junqi loop` and `junqi exploit` share it.
pub(crate) fn drive(config: &LoopConfig, out: &Path) -> Result<LoopState> {
    let mut settings = junqi_net::inference_settings();
    settings.backend = if config.train.device.resolve()?.is_cuda() {
        settings.options.executors = 1;
        Some(junqi_train::torch_backend(config.train.device))
    } else {
        None
    };
    junqi_net::set_inference_settings(settings);
    let stop = crate::live::ctrl_c_flag()?;
    let options = RunOptions { threads: config.threads, stop, ..Default::default() };
    if !config.about.is_empty() {
        println!("note: {}", config.about);
    }
    let mut console = Console::start(&options);
    let result = run_loop(config, out, &options, &mut console);
    console.finish();
    match result {
        Ok(state) => Ok(state),
        Err(LoopError::Interrupted(message)) => Err(crate::Interrupted(format!("interrupted: {message}")).into()),
        Err(e) => Err(e.into()),
    }
}

/// The generations' scores and Elo, and where the reports are.
fn print_table(config: &LoopConfig, out: &Path, state: &LoopState) {
    // One Elo column per anchor: the main one, then `more_anchors`.
    let anchors = config.evaluate.anchors();
    let header: String = anchors.iter().map(|a| format!("  {:<22}", format!("Elo vs {a}"))).collect();
    println!("generation  minutes  score vs best        promoted{}", header.trim_end());
    for g in state.generations.iter().filter(|g| g.done) {
        let score = match g.score_vs_best {
            Some(s) => format!("{:5.1}% [{:.1}, {:.1}]", 100.0 * s[0], 100.0 * s[1], 100.0 * s[2]),
            _ => "first net".to_string(),
        };
        let elos: String = anchors
            .iter()
            .map(|a| {
                let elo =
                    g.elo_against(config, &a.to_string()).map(|e| format!("{:+.0} [{:+.0}, {:+.0}]", e[0], e[1], e[2]));
                format!("  {:<22}", elo.unwrap_or_else(|| "–".into()))
            })
            .collect();
        println!(
            "{:>10}  {:>7.1}  {score:<20} {:<8}{}",
            g.index,
            g.minutes,
            if g.promoted { "yes" } else { "no" },
            elos.trim_end()
        );
    }
    if let Some(best) = &state.best {
        println!("best net: {}", out.join(best).display());
    }
    println!("chart: {}  table: {}", out.join("elo.svg").display(), out.join("summary.md").display());
    if !config.about.is_empty() {
        println!("note: {}", config.about);
    }
}
