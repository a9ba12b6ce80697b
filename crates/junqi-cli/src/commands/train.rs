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
    /// A `junqi selfplay` output (its samples/ shards).
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
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

pub fn run(args: Args, device: Option<&str>) -> Result<()> {
    let config = config(&args, device)?;
    let stop = crate::live::ctrl_c_flag()?;
    let mut metrics = TensorBoardMetrics::for_run(&args.out)?;
    let summary = junqi_train::train_until(&config, &args.data, &args.out, &mut metrics, &stop)?;
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
        let line: Vec<String> = m.scalars().iter().map(|(k, v)| format!("{k} {v:.4}")).collect();
        writeln!(out, "last step: {}", line.join(", "))?;
    }
    if summary.checkpoint.is_some() {
        writeln!(out, "net: {} (TensorBoard: {})", net.display(), args.out.join(junqi_train::TB_DIR).display())?;
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
