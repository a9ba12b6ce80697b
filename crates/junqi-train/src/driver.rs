//! The training loop: resume, stream batches, log, checkpoint.

use crate::checkpoint::{checkpoint_name, checkpoints, latest_checkpoint};
use crate::config::TrainConfig;
use crate::data::{DataWindow, Loader};
use crate::metrics::Metrics;
use crate::trainer::{StepMetrics, Trainer};
use crate::{Result, TrainError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Checkpoints go to `<out>/checkpoints/ckpt-<step>.safetensors`.
pub const CHECKPOINT_DIR: &str = "checkpoints";
/// TensorBoard event files go to `<out>/tb/` (see [`crate::TensorBoardMetrics`]).
pub const TB_DIR: &str = "tb";

/// What [`train`] did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// The checkpoint resumed from, if any.
    pub resumed_from: Option<PathBuf>,
    pub start_step: u64,
    pub end_step: u64,
    /// Samples trained on by this call.
    pub samples: u64,
    pub seconds: f64,
    /// Overall throughput of this call (data loading, logging and checkpoints included).
    pub samples_per_s: f64,
    /// The last step's metrics (none when there was nothing left to do).
    pub last: Option<StepMetrics>,
    /// The last checkpoint written (or resumed from).
    pub checkpoint: Option<PathBuf>,
    pub window: DataWindow,
    /// Stopped by the stop flag before `optim.steps` (a checkpoint was written).
    pub interrupted: bool,
}

/// Train on the newest `config.data.window_games` games of `data_dir` (a
/// `junqi selfplay` output) up to `config.optim.steps`, writing the config to
/// `<out>/config.toml`, scalars to `metrics` every `log_every` steps, and
/// checkpoints to `<out>/checkpoints/` every `checkpoint_every` steps and at
/// the end. When `<out>/checkpoints/` has a checkpoint, training resumes
/// from the newest (same model required; e.g. a larger `steps` continues a
/// finished run).
pub fn train(config: &TrainConfig, data_dir: &Path, out_dir: &Path, metrics: &mut dyn Metrics) -> Result<TrainSummary> {
    train_until(config, data_dir, out_dir, metrics, &AtomicBool::new(false))
}

/// [`train`], stopping early (with a checkpoint) once `stop` is set (Ctrl-C).
pub fn train_until(
    config: &TrainConfig,
    data_dir: &Path,
    out_dir: &Path,
    metrics: &mut dyn Metrics,
    stop: &AtomicBool,
) -> Result<TrainSummary> {
    config.check()?;
    let window = DataWindow::open(data_dir, config.data.window_games)?;
    train_window(config, window, out_dir, metrics, stop)
}

/// [`train_until`] on a window already chosen (e.g. the training loop's
/// newest generations, [`DataWindow::of_runs`]).
pub fn train_window(
    config: &TrainConfig,
    window: DataWindow,
    out_dir: &Path,
    metrics: &mut dyn Metrics,
    stop: &AtomicBool,
) -> Result<TrainSummary> {
    config.check()?;
    std::fs::create_dir_all(out_dir).map_err(TrainError::io(out_dir))?;
    let config_path = out_dir.join("config.toml");
    std::fs::write(&config_path, config.to_toml()).map_err(TrainError::io(&config_path))?;
    let ckpt_dir = out_dir.join(CHECKPOINT_DIR);
    let resumed_from = latest_checkpoint(&ckpt_dir)?;
    let mut trainer = match &resumed_from {
        Some(path) => Trainer::resume(path, config)?.0,
        None => Trainer::new(config)?,
    };
    if window.channels != config.model.in_channels {
        return Err(TrainError::Config(format!(
            "the data has {} observation planes, the model takes {}",
            window.channels, config.model.in_channels
        )));
    }
    let start_step = trainer.step();
    // A resumed run draws a different order than the first pass did.
    let mut loader = Loader::new(
        window.clone(),
        config.data.shuffle_buffer,
        config.seed ^ start_step.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    )
    .with_policy_target_temp(config.data.policy_target_temp);
    let started = Instant::now();
    let mut last = None;
    let mut checkpoint = resumed_from.clone();
    let mut samples = 0u64;
    let save = |trainer: &Trainer, metrics: &mut dyn Metrics| -> Result<PathBuf> {
        let path = ckpt_dir.join(checkpoint_name(trainer.step()));
        trainer.save_checkpoint(&path, Some(&window))?;
        metrics.flush();
        if config.keep_checkpoints > 0 {
            let all = checkpoints(&ckpt_dir)?;
            for (_, old) in all.iter().take(all.len().saturating_sub(config.keep_checkpoints)) {
                let _ = std::fs::remove_file(old);
            }
        }
        Ok(path)
    };
    let mut interrupted = false;
    while trainer.step() < config.optim.steps {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let batch = loader.next_batch(config.optim.batch_size, trainer.device())?;
        let m = trainer.train_step(&batch)?;
        samples += batch.len as u64;
        let step = trainer.step();
        if config.log_every > 0 && (step % config.log_every == 0 || step == config.optim.steps) {
            m.log(metrics, step);
        }
        last = Some(m);
        if config.checkpoint_every > 0 && step % config.checkpoint_every == 0 && step < config.optim.steps {
            checkpoint = Some(save(&trainer, metrics)?);
        }
    }
    if trainer.step() > start_step {
        checkpoint = Some(save(&trainer, metrics)?);
    }
    metrics.flush();
    let seconds = started.elapsed().as_secs_f64();
    Ok(TrainSummary {
        resumed_from,
        start_step,
        end_step: trainer.step(),
        samples,
        seconds,
        samples_per_s: samples as f64 / seconds.max(1e-9),
        last,
        checkpoint,
        window,
        interrupted,
    })
}
