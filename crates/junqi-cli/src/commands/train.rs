//! `junqi train`: train the policy/value net on a self-play dataset.

use crate::overrides;
use anyhow::{Context, Result};
use junqi_train::{TensorBoardMetrics, TrainConfig};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Training config (TOML, e.g. configs/train/small.toml); every key has a default.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A `junqi selfplay` output (its samples/ shards), or a `junqi
    /// reanalyse` output. Repeat it to train on several runs as one dataset:
    /// then every game of each is used (data.window_games applies only with a single --data).
    #[arg(long, value_name = "DIR", required = true)]
    data: Vec<PathBuf>,
    /// Run directory: config.toml, checkpoints/, tb/, net.safetensors. Running
    /// the same command again resumes from the newest checkpoint.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Total optimisation steps (optim.steps).
    #[arg(long)]
    steps: Option<u64>,
    /// Batch size (optim.batch_size).
    #[arg(long)]
    batch_size: Option<usize>,
    /// Learning rate (optim.lr).
    #[arg(long)]
    lr: Option<f64>,
    /// Newest games of the dataset to train on, 0 = all (data.window_games).
    #[arg(long)]
    window_games: Option<u64>,
    /// Seed of the initial weights and the data order.
    #[arg(long)]
    seed: Option<u64>,
    /// Also fit a learned deployment model to every game of --data (a
    /// `selfplay --siguo` run: each army's deployment and its team's result)
    /// and store it in net.safetensors, so its net bots deploy by it.
    /// Two-player nets learn theirs in `junqi loop`.
    #[arg(long)]
    fit_deployments: bool,
    /// Any config key, e.g. `--set optim.optimizer=sgd --set model.blocks=2`; repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

/// The config file, then the named flags, then `--set`.
fn config(args: &Args, device: Option<&str>) -> Result<TrainConfig> {
    let mut table = overrides::read_table(args.config.as_deref())?;
    let mut named: Vec<String> = Vec::new();
    let mut flag = |key: &str, v: Option<String>| {
        if let Some(v) = v {
            named.push(format!("{key}={v}"));
        }
    };
    flag("optim.steps", args.steps.map(|v| v.to_string()));
    flag("optim.batch_size", args.batch_size.map(|v| v.to_string()));
    flag("optim.lr", args.lr.map(|v| format!("{v:?}")));
    flag("data.window_games", args.window_games.map(|v| v.to_string()));
    flag("seed", args.seed.map(|v| v.to_string()));
    flag("device", device.map(|d| format!("\"{d}\"")));
    overrides::apply(&mut table, &named)?;
    overrides::apply(&mut table, &args.set)?;
    let text = toml::to_string(&table)?;
    Ok(TrainConfig::from_toml(&text)?)
}

/// The progress of `junqi train`: a bar on a terminal (step, loss,
/// samples/s), a line per validation, and without a terminal a line every
/// `every` steps.
struct Progress {
    bar: indicatif::ProgressBar,
    every: u64,
    /// Samples/s, smoothed.
    rate: f64,
    terminal: bool,
}

impl Progress {
    fn new(config: &TrainConfig) -> Progress {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let target =
            if terminal { indicatif::ProgressDrawTarget::stderr() } else { indicatif::ProgressDrawTarget::hidden() };
        let bar = indicatif::ProgressBar::with_draw_target(Some(config.optim.steps), target);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} step {pos}/{len}  {msg}  [{elapsed_precise} < {eta}]")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Progress { bar, every: config.log_every.saturating_mul(10).max(1), rate: 0.0, terminal }
    }

    fn say(&self, line: String) {
        if self.terminal {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }
}

impl junqi_train::TrainObserver for Progress {
    fn step(&mut self, step: u64, steps: u64, m: &junqi_train::StepMetrics) {
        self.rate = if self.rate == 0.0 { m.samples_per_s } else { 0.95 * self.rate + 0.05 * m.samples_per_s };
        let msg = format!(
            "loss {:.3} (policy {:.3}, value {:.3})  {:.0} samples/s",
            m.total_loss, m.policy_loss, m.value_loss, self.rate
        );
        self.bar.set_position(step);
        self.bar.set_message(msg.clone());
        if !self.terminal && (step % self.every == 0 || step == steps) {
            eprintln!("step {step}/{steps}: {msg}");
        }
    }
    fn warning(&mut self, message: &str) {
        self.say(format!("warning: {message}"));
    }

    fn validation(&mut self, step: u64, m: &junqi_train::StepMetrics, positions: usize) {
        self.say(format!(
            "step {step}: validation loss {:.3} (policy {:.3}, value {:.3}), policy accuracy {:.1}%, value accuracy {:.1}% on {positions} held-out positions",
            m.total_loss,
            m.policy_loss,
            m.value_loss,
            100.0 * m.policy_accuracy,
            100.0 * m.value_accuracy
        ));
    }
}

pub fn run(args: Args, device: Option<&str>) -> Result<()> {
    let config = config(&args, device)?;
    // Read before training, so data that is not four-player fails at once.
    let deployments = match args.fit_deployments {
        true => Some(junqi_train::siguo_deployments::siguo_deployment_games(&args.data).context(
            "--fit-deployments fits four-player nets from `selfplay --siguo` games (two-player nets learn theirs in `junqi loop`)",
        )?),
        false => None,
    };
    // A net trained on from another keeps that net's learned deployments
    // unless they are refitted: fine-tuning the moves should not lose how
    // the armies deploy. (A checkpoint as `init` holds none to keep.)
    let kept_deployments = match (&deployments, &config.init) {
        (None, Some(init)) => junqi_net::NetFile::read_either(init)
            .ok()
            .map(|file| file.deployment_model())
            .transpose()
            .with_context(|| format!("reading the deployment model of {}", init.display()))?
            .flatten(),
        _ => None,
    };
    let stop = crate::live::ctrl_c_flag()?;
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    let _run_dir = junqi_selfplay::RunDir::open(&args.out)?;
    let mut metrics = TensorBoardMetrics::for_run(&args.out)?;
    let mut progress = Progress::new(&config);
    let result = match args.data.as_slice() {
        [one] => junqi_train::train_until(&config, one, &args.out, &mut metrics, &mut progress, &stop),
        several => junqi_train::DataWindow::of_dirs(several).and_then(|window| {
            junqi_train::train_window(&config, window, 0, &args.out, &mut metrics, &mut progress, &stop)
        }),
    };
    progress.bar.finish_and_clear();
    let summary = result?;
    let net = args.out.join("net.safetensors");
    if let Some(ckpt) = &summary.checkpoint {
        junqi_train::export_checkpoint(ckpt, &net).with_context(|| format!("exporting {}", net.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if let Some(from) = &summary.resumed_from {
        writeln!(out, "resumed from {} (step {})", from.display(), summary.start_step)?;
    }
    writeln!(
        out,
        "trained steps {}..{} on games {}..={} of {} ({} samples in {:.1} s: {:.0} samples/s)",
        summary.start_step,
        summary.end_step,
        summary.window.first_game,
        summary.window.last_game,
        summary.window.dir.display(),
        summary.samples,
        summary.seconds,
        summary.samples_per_s
    )?;
    if let Some(m) = &summary.last {
        let line: Vec<String> = m.scalars(config.model.belief).iter().map(|(k, v)| format!("{k} {v:.4}")).collect();
        writeln!(out, "last step: {}", line.join(", "))?;
    }
    match &summary.validation {
        Some(v) => writeln!(
            out,
            "validation ({} positions of held-out games, never trained on): loss {:.4} (policy {:.4}, value {:.4}), policy accuracy {:.1}%, value accuracy {:.1}%",
            summary.validation_positions,
            v.total_loss,
            v.policy_loss,
            v.value_loss,
            100.0 * v.policy_accuracy,
            100.0 * v.value_accuracy
        )?,
        None if config.validate_every > 0 && config.data.validation_every > 1 => writeln!(
            out,
            "no validation: the window holds no held-out game (one in {} is held out)",
            config.data.validation_every
        )?,
        None => {}
    }
    if summary.checkpoint.is_some() {
        writeln!(out, "net: {} (TensorBoard: {})", net.display(), args.out.join(junqi_train::TB_DIR).display())?;
        if let Some(games) = &deployments {
            let loss = junqi_train::deployments::fit_into_net(&net, games)
                .with_context(|| format!("storing the deployment model in {}", net.display()))?;
            writeln!(
                out,
                "deployment model fitted to {} army deployments (loss {loss:.3}), stored in the net",
                games.len()
            )?;
        }
        if let (Some(model), Some(init)) = (&kept_deployments, &config.init) {
            junqi_train::deployments::store_in_net(&net, model)
                .with_context(|| format!("storing the deployment model in {}", net.display()))?;
            writeln!(out, "deployment model kept from {}", init.display())?;
        }
    }
    if summary.interrupted {
        return Err(crate::Interrupted(format!(
            "interrupted at step {}: checkpoint written; run the same command again to resume",
            summary.end_step
        ))
        .into());
    }
    Ok(())
}
