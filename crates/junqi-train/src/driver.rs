//! The training loop: resume, stream batches, log, checkpoint.

use crate::checkpoint::{checkpoint_name, checkpoints};
use crate::config::TrainConfig;
use crate::data::{Batch, DataWindow, Example, Loader, SampleKind};
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

/// Watches a training run as it goes (the CLI's progress display).
pub trait TrainObserver {
    /// After each step (`step` of `steps`).
    fn step(&mut self, step: u64, steps: u64, metrics: &StepMetrics) {
        let _ = (step, steps, metrics);
    }
    /// After each validation: the metrics on the held-out positions.
    fn validation(&mut self, step: u64, metrics: &StepMetrics, positions: usize) {
        let _ = (step, metrics, positions);
    }
    /// Something the user should know that does not stop training (e.g. a
    /// damaged checkpoint skipped on resume): one line, printed to stderr
    /// unless overridden.
    fn warning(&mut self, message: &str) {
        eprintln!("warning: {message}");
    }
}

/// Watches nothing.
impl TrainObserver for () {}

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
    /// The last validation (metrics on the held-out positions), if any ran.
    pub validation: Option<StepMetrics>,
    /// Positions in the validation set.
    pub validation_positions: usize,
}

/// Train on the newest `config.data.window_games` games of `data_dir` (a
/// `junqi selfplay` output) up to `config.optim.steps`, writing the config to
/// `<out>/config.toml`, scalars to `metrics` every `log_every` steps, and
/// checkpoints to `<out>/checkpoints/` every `checkpoint_every` steps and at
/// the end. When `<out>/checkpoints/` has a checkpoint, training resumes
/// from the newest intact one (same model required; e.g. a larger `steps`
/// continues a finished run); a newer checkpoint that is damaged is
/// renamed aside to `<name>.corrupt`, with a warning to the observer.
pub fn train(config: &TrainConfig, data_dir: &Path, out_dir: &Path, metrics: &mut dyn Metrics) -> Result<TrainSummary> {
    train_until(config, data_dir, out_dir, metrics, &mut (), &AtomicBool::new(false))
}

/// [`train`], reporting to `observer`, stopping early (with a checkpoint)
/// once `stop` is set (Ctrl-C).
pub fn train_until(
    config: &TrainConfig,
    data_dir: &Path,
    out_dir: &Path,
    metrics: &mut dyn Metrics,
    observer: &mut dyn TrainObserver,
    stop: &AtomicBool,
) -> Result<TrainSummary> {
    config.check()?;
    let window = DataWindow::open(data_dir, config.data.window_games)?;
    train_window(config, window, 0, out_dir, metrics, observer, stop)
}

/// Keep freed memory in the process (glibc): a training step allocates and
/// frees the same large tensors every time, and glibc by default returns
/// blocks above 128 KiB to the kernel at once, so every step faulted fresh
/// pages in again (about 7% of the time, 15–20% fewer samples/s measured on
/// the 2-core machine). Raising the mmap and trim thresholds to 1 GiB keeps
/// them; the process's peak memory is unchanged.
pub(crate) fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: std::os::raw::c_int, value: std::os::raw::c_int) -> std::os::raw::c_int;
        }
        const M_TRIM_THRESHOLD: std::os::raw::c_int = -1;
        const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
        // SAFETY: mallopt only changes glibc's allocation thresholds.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 30);
            mallopt(M_TRIM_THRESHOLD, 1 << 30);
        }
    }
}

/// [`train_until`] on a window already chosen (e.g. the training loop's
/// newest generations, [`DataWindow::of_runs`]). `data_start_step` is the
/// step at which training on this window began (0 for `train`; the
/// generation's first step in the loop): the data order is drawn from the
/// seed and that step, and a resume at a later step skips the examples the
/// steps before it used, so a run stopped and resumed sees the same batches
/// as one that was not.
pub fn train_window(
    config: &TrainConfig,
    window: DataWindow,
    data_start_step: u64,
    out_dir: &Path,
    metrics: &mut dyn Metrics,
    observer: &mut dyn TrainObserver,
    stop: &AtomicBool,
) -> Result<TrainSummary> {
    config.check()?;
    keep_freed_memory();
    let run_dir = junqi_selfplay::RunDir::open(out_dir)?;
    run_dir.write("config.toml", &config.to_toml())?;
    let ckpt_dir = out_dir.join(CHECKPOINT_DIR);
    check_for_samples(config, window.kind)?;
    let (mut trainer, resumed_from) = resume_point(config, window.kind, &ckpt_dir, observer)?;
    // A model made before the history (100) or the rule-state planes (110)
    // reads a prefix of today's data, so the configs of earlier nets still make them.
    if !crate::net::reads_planes(config.model.in_channels, window.channels) {
        return Err(TrainError::Config(format!(
            "the data has {} observation planes, the model takes {} ({} or {} for a net without the \
             rule-state or history planes)",
            window.channels,
            config.model.in_channels,
            junqi_env::V2_CHANNELS,
            junqi_env::V1_CHANNELS
        )));
    }
    let start_step = trainer.step();
    // Libtorch's thread count is process-wide and the net bots set it to 1
    // for inference; results depend on it, so training always sets its own.
    tch::set_num_threads(training_threads());
    let mut loader = Loader::new(
        window.clone(),
        config.data.shuffle_buffer,
        config.seed ^ data_start_step.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    )
    .with_policy_target_temp(config.data.policy_target_temp)
    .with_value_target_search(config.data.value_target_search)
    .with_value_target_quiet(config.data.value_target_quiet)
    .with_policy_target_progress(config.data.policy_target_progress)
    .with_policy_target_progress_lead(config.data.policy_target_progress_lead)
    .with_policy_target_return(config.data.policy_target_return)
    .holding_out(config.data.validation_every);
    if start_step < config.optim.steps {
        let used = start_step.saturating_sub(data_start_step).saturating_mul(config.optim.batch_size as u64);
        loader.skip(used)?;
    }
    // The held-out positions, fixed for the whole run (the same seed every time).
    let validation_set = if config.validate_every > 0 && config.data.validation_every > 1 {
        let mut set =
            Loader::validation_set(&window, config.data.validation_every, config.data.validation_samples, config.seed)?;
        for e in &mut set {
            e.sharpen_policy(config.data.policy_target_temp);
        }
        set
    } else {
        Vec::new()
    };
    let mut validation = None;
    let run_validation = |trainer: &Trainer,
                          metrics: &mut dyn Metrics,
                          observer: &mut dyn TrainObserver|
     -> Result<Option<StepMetrics>> {
        if validation_set.is_empty() {
            return Ok(None);
        }
        let m = validate(trainer, &validation_set, config.optim.batch_size, window.channels)?;
        let step = trainer.step();
        // The losses and accuracies; the optimiser's scalars mean nothing here.
        for (tag, value) in m.scalars(config.model.belief).iter().filter(|(tag, _)| !tag.starts_with("train/")) {
            metrics.scalar(&format!("val/{}", tag.replace('/', "_")), step, *value)?;
        }
        observer.validation(step, &m, validation_set.len());
        Ok(Some(m))
    };
    let started = Instant::now();
    let mut last = None;
    let mut checkpoint = resumed_from.clone();
    let mut samples = 0u64;
    let save = |trainer: &Trainer, metrics: &mut dyn Metrics| -> Result<PathBuf> {
        let path = ckpt_dir.join(checkpoint_name(trainer.step()));
        trainer.save_checkpoint(&path, Some(&window))?;
        metrics.flush()?;
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
            m.log(metrics, step, config.model.belief)?;
        }
        observer.step(step, config.optim.steps, &m);
        if config.validate_every > 0 && step % config.validate_every == 0 && step < config.optim.steps {
            validation = run_validation(&trainer, metrics, observer)?;
        }
        last = Some(m);
        if config.checkpoint_every > 0 && step % config.checkpoint_every == 0 && step < config.optim.steps {
            checkpoint = Some(save(&trainer, metrics)?);
        }
    }
    if trainer.step() > start_step {
        validation = run_validation(&trainer, metrics, observer)?.or(validation);
        checkpoint = Some(save(&trainer, metrics)?);
    }
    metrics.flush()?;
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
        validation,
        validation_positions: validation_set.len(),
    })
}

/// An error naming the setting unless `config` can train on samples of
/// `kind`. Four-player samples need a `[model]` of the four-player
/// observation's 74 planes, and store neither a search value nor the
/// seat's move history, so `value_target_search` and
/// `policy_target_return` must stay 0 (the quiet-move targets,
/// `value_target_quiet` and `policy_target_progress`, read the four-player
/// code's own counter). Their belief head
/// trains on the true kinds `junqi-siguo-samples/2` stores (`/1` shards
/// hold none: the belief loss is 0 on them).
pub fn check_for_samples(config: &TrainConfig, kind: SampleKind) -> Result<()> {
    let what = kind.describe();
    if kind != SampleKind::Siguo {
        let lead = config.data.policy_target_progress_lead;
        if lead != 0.0 {
            return Err(TrainError::Config(format!(
                "data.policy_target_progress_lead = {lead}: only four-player codes count the teams' pieces, not {what}; set it to 0"
            )));
        }
        return Ok(());
    }
    config.model.check_planes(kind.game()).map_err(|e| TrainError::Config(format!("{what}: [model]: {e}")))?;
    let d = &config.data;
    let two_player_only = [
        ("value_target_search", d.value_target_search, "store no search value"),
        ("policy_target_return", d.policy_target_return, "store no move history"),
    ];
    if let Some((key, value, why)) = two_player_only.iter().find(|t| t.1 != 0.0) {
        return Err(TrainError::Config(format!("data.{key} = {value}: {what} {why}; set it to 0")));
    }
    Ok(())
}

/// Libtorch threads for training: every core (the same count on every run
/// of one machine, which bit-identical resumes need).
pub fn training_threads() -> i32 {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(i32::MAX as usize) as i32
}

/// The trainer to continue with: resumed from the newest checkpoint in
/// `dir` that reads and checks (checksums, tensors, the step in its name
/// equal to the step in its metadata), else fresh ([`Trainer::initial`])
/// when `dir` has none. Newer damaged checkpoints are renamed aside to
/// `<name>.corrupt`, each with a warning to `observer`. When there are
/// checkpoints but none is intact, an error (nothing renamed). Other
/// errors (another model, an unreadable file) stop the resume as they are.
fn resume_point(
    config: &TrainConfig,
    kind: SampleKind,
    dir: &Path,
    observer: &mut dyn TrainObserver,
) -> Result<(Trainer, Option<PathBuf>)> {
    let mut damaged: Vec<(PathBuf, String)> = Vec::new();
    for (step, path) in checkpoints(dir)?.into_iter().rev() {
        let reason = match Trainer::resume_for(&path, config, kind.game()) {
            Ok((trainer, _)) if trainer.step() == step => {
                for (bad, reason) in damaged {
                    let aside = PathBuf::from(format!("{}.corrupt", bad.display()));
                    let done = match std::fs::rename(&bad, &aside) {
                        Ok(()) => format!("renamed to {}", aside.display()),
                        Err(e) => format!("could not rename it to {} ({e})", aside.display()),
                    };
                    observer.warning(&format!(
                        "{}: not a usable checkpoint: {reason}; {done}; resuming from {} instead",
                        bad.display(),
                        path.display()
                    ));
                }
                return Ok((trainer, Some(path)));
            }
            Ok((trainer, _)) => format!("its metadata says step {}, its name step {step}", trainer.step()),
            Err(TrainError::Checkpoint { message, .. }) => message,
            Err(other) => return Err(other),
        };
        damaged.push((path, reason));
    }
    if damaged.is_empty() {
        return Ok((Trainer::initial_for(config, kind.game())?, None));
    }
    let list: Vec<String> = damaged.iter().map(|(p, reason)| format!("{}: {reason}", p.display())).collect();
    Err(TrainError::Config(format!(
        "{}: no intact checkpoint to resume from ({}); move the checkpoints away to start afresh",
        dir.display(),
        list.join("; ")
    )))
}

/// The mean metrics of `trainer`'s net on `set` (evaluation mode), in
/// batches of `batch`, weighted by batch size.
fn validate(trainer: &Trainer, set: &[Example], batch: usize, channels: usize) -> Result<StepMetrics> {
    let mut sum = [0.0f64; 6];
    let mut belief_targets = 0.0;
    for chunk in set.chunks(batch.max(1)) {
        let m = trainer.evaluate(&Batch::new(chunk, channels, trainer.device())?)?;
        let w = chunk.len() as f64;
        // The belief loss is a mean over the batch's targets: weigh it by them.
        let targets = chunk.iter().map(|e| e.hidden_kinds.iter().filter(|&&k| k > 0).count()).sum::<usize>() as f64;
        belief_targets += targets;
        sum[5] += m.belief_loss * targets;
        for (s, v) in
            sum.iter_mut().zip([m.policy_loss, m.value_loss, m.policy_entropy, m.policy_accuracy, m.value_accuracy])
        {
            *s += v * w;
        }
    }
    let n = set.len().max(1) as f64;
    let policy_loss = sum[0] / n;
    let value_loss = sum[1] / n;
    let belief_loss = sum[5] / belief_targets.max(1.0);
    let optim = &trainer.config().optim;
    Ok(StepMetrics {
        policy_loss,
        value_loss,
        belief_loss,
        total_loss: policy_loss + value_loss * optim.value_weight + belief_loss * optim.belief_weight,
        policy_entropy: sum[2] / n,
        policy_accuracy: sum[3] / n,
        value_accuracy: sum[4] / n,
        lr: 0.0,
        grad_norm: 0.0,
        samples_per_s: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A progress lead counts the teams' pieces: four-player samples take
    /// it, two-player ones refuse it by name.
    #[test]
    fn a_progress_lead_is_for_four_player_samples_only() {
        let mut config = TrainConfig::default();
        config.data.policy_target_progress_lead = 2.0;
        let err = check_for_samples(&config, SampleKind::TwoPlayer).unwrap_err().to_string();
        assert!(err.contains("data.policy_target_progress_lead = 2") && err.contains("set it to 0"), "{err}");
        config.model = junqi_net::ModelConfig::siguo();
        check_for_samples(&config, SampleKind::Siguo).unwrap();
        config.data.policy_target_progress_lead = 0.0;
        check_for_samples(&config, SampleKind::TwoPlayer).unwrap();
    }
}
