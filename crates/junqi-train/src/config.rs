//! The training configuration: TOML, every key optional (defaults below).

use crate::{Result, TrainError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The largest training batch (positions per step).
pub const MAX_BATCH: usize = 65_536;
/// The most samples held in memory at once (shuffle buffer, validation set).
pub const MAX_BUFFERED_SAMPLES: usize = 10_000_000;

/// Where the net runs: `cpu`, `cuda` (the first GPU; an error when there is
/// none or the build lacks the `cuda` feature) or `auto` (CUDA when available).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    Cpu,
    Cuda,
    #[default]
    Auto,
}

impl DeviceChoice {
    pub fn resolve(self) -> Result<tch::Device> {
        match self {
            DeviceChoice::Cpu => Ok(tch::Device::Cpu),
            DeviceChoice::Cuda if tch::Cuda::is_available() => Ok(tch::Device::Cuda(0)),
            DeviceChoice::Cuda => Err(TrainError::Config(
                "device `cuda` requested but CUDA is not available (no GPU, or built without the `cuda` feature)"
                    .into(),
            )),
            DeviceChoice::Auto => Ok(tch::Device::cuda_if_available()),
        }
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" => Ok(DeviceChoice::Cuda),
            "auto" => Ok(DeviceChoice::Auto),
            _ => Err(format!("unknown device `{s}` (expected cpu, cuda or auto)")),
        }
    }
}

pub use junqi_net::{ModelConfig, PolicyHead};

/// The arithmetic of a training step's forward pass (`precision`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainPrecision {
    /// FP32 throughout.
    #[default]
    Fp32,
    /// libtorch's autocast in bf16 around the forward pass and the losses
    /// (its convolutions and matrix products in bf16, oneDNN's kernels on
    /// the CPU); the weights, their gradients and the optimiser stay FP32,
    /// and validation runs in FP32.
    Bf16,
}

impl TrainPrecision {
    fn is_fp32(&self) -> bool {
        *self == TrainPrecision::Fp32
    }
}

impl std::str::FromStr for TrainPrecision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fp32" => Ok(TrainPrecision::Fp32),
            "bf16" => Ok(TrainPrecision::Bf16),
            _ => Err(format!("unknown training precision `{s}` (expected fp32 or bf16)")),
        }
    }
}

impl std::fmt::Display for TrainPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TrainPrecision::Fp32 => "fp32",
            TrainPrecision::Bf16 => "bf16",
        })
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Adam with decoupled weight decay.
    #[default]
    Adamw,
    /// Stochastic gradient descent with (Nesterov-free) momentum and L2 weight decay.
    Sgd,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` at every step (after the warmup, if any).
    Constant,
    /// Linear warmup to `lr` over `warmup_steps`, then a cosine down to
    /// `lr * final_lr_ratio` at `steps`.
    #[default]
    Cosine,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimConfig {
    pub optimizer: OptimizerKind,
    pub lr: f64,
    pub schedule: LrSchedule,
    pub warmup_steps: u64,
    /// Cosine: the learning rate at the last step, as a fraction of `lr`.
    pub final_lr_ratio: f64,
    /// AdamW: decoupled decay; SGD: L2. Applied to weights of rank ≥ 2 only
    /// (not to biases or batch-norm parameters).
    pub weight_decay: f64,
    /// SGD momentum.
    pub momentum: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// Clip the global gradient norm to this; 0 = no clipping.
    pub grad_clip: f64,
    pub batch_size: usize,
    /// Total optimisation steps (the cosine schedule ends here).
    pub steps: u64,
    /// Weight of the value loss in `loss/total`.
    pub value_weight: f64,
    /// Weight of the belief head's loss in `loss/total` (nets with a belief head).
    pub belief_weight: f64,
}

impl Default for OptimConfig {
    fn default() -> Self {
        OptimConfig {
            optimizer: OptimizerKind::Adamw,
            lr: 1e-3,
            schedule: LrSchedule::Cosine,
            warmup_steps: 200,
            final_lr_ratio: 0.05,
            weight_decay: 1e-4,
            momentum: 0.9,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            grad_clip: 1.0,
            batch_size: 256,
            steps: 10_000,
            value_weight: 1.0,
            belief_weight: 0.5,
        }
    }
}

impl OptimConfig {
    /// The learning rate at `step` (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        if self.warmup_steps > 0 && step < self.warmup_steps {
            return self.lr * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Cosine => {
                let span = self.steps.saturating_sub(self.warmup_steps).max(1) as f64;
                let t = ((step - self.warmup_steps) as f64 / span).min(1.0);
                let low = self.lr * self.final_lr_ratio;
                low + (self.lr - low) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DataConfig {
    /// Train on the newest this many games of the dataset (0 = all).
    pub window_games: u64,
    /// Samples held in the shuffle buffer.
    pub shuffle_buffer: usize,
    /// Temperature of the policy target: the stored distribution π is
    /// trained on as ∝ π^(1/T). 1 = as stored; below 1 sharpens it towards
    /// the most probable stored action (a search with few simulations per
    /// legal action writes nearly uniform visit shares); 0 = the most
    /// probable actions alone (ties share).
    pub policy_target_temp: f64,
    /// Share of the search's own value in the value target: the net learns
    /// (1 − w) · the game's outcome + w · the root value the searching bot
    /// stored for the position (as win and loss probabilities (1 ± v) / 2;
    /// positions stored without one keep the outcome). 0 = the outcome
    /// alone. The outcome gives every position of a game the same label,
    /// which a net memorises from a few thousand games; the search's value
    /// differs from position to position. Validation always scores the
    /// outcome, so runs with different shares compare.
    pub value_target_search: f64,
    /// Progress in the value target: a share s in [0, 1] moves s · q of the
    /// target's win and loss probability to the draw, where q is how far
    /// the quiet-move counter had run towards its draw in the position
    /// (`min(quiet / no_progress_plies, 1)`). Applied after
    /// `value_target_search`. Without it a win after 60 quiet plies is
    /// labelled like a win after a capture, and nothing in the value tells
    /// a net that shuffling runs the game into a draw; with it, a capture
    /// or a flip (which resets the counter) is worth more to the side that
    /// is winning. 0 = off. Validation still scores the outcome.
    pub value_target_quiet: f64,
    /// Progress in the policy target: a factor b ≥ 0 multiplies the target
    /// share of every flip and every attack on a known enemy piece (four
    /// players: every attack on an enemy piece that cannot bounce off a
    /// mine) by 1 + b · q (q as for `value_target_quiet`), then renormalises. The
    /// search's own weights decide which of them are any good (a share of
    /// 0 stays 0); the boost only tips near-ties towards progress as the
    /// quiet-move counter runs, where an argmax policy otherwise prefers
    /// the safe shuffle and the game ends drawn. 0 = off.
    pub policy_target_progress: f64,
    /// Four players: boost progress (`policy_target_progress`) only where
    /// the seat's team has at least this many times the enemy team's
    /// pieces on the board (0 = everywhere, as before). An argmax policy
    /// whose every attack is tipped up as the counter runs throws its
    /// pieces at mines and stronger pieces even when behind, and loses
    /// games it would have drawn; the side ahead can afford the trades.
    /// Two-player samples refuse it (their codes count no team's pieces).
    pub policy_target_progress_lead: f64,
    /// Progress in the policy target, the other way: a share r in [0, 1]
    /// of the target on the move that undoes the seat's own last move (the
    /// same piece going straight back; the history planes show it) is
    /// taken away, then the target renormalised. A search spreads its
    /// visits over many equal quiet moves, and an argmax policy trained on
    /// that picks the same pair over and over, so a piece shuttles between
    /// two posts until the quiet-move draw; where the search wanted only
    /// the retreat it stays. 0 = off.
    pub policy_target_return: f64,
    /// Hold out one game in this many (game id ≡ −1 modulo it) for the
    /// validation loss: never trained on (0 = no validation).
    pub validation_every: u64,
    /// Positions of the held-out games in the validation set (at most).
    pub validation_samples: usize,
}

impl Default for DataConfig {
    fn default() -> Self {
        DataConfig {
            window_games: 100_000,
            shuffle_buffer: 200_000,
            policy_target_temp: 1.0,
            value_target_search: 0.0,
            value_target_quiet: 0.0,
            policy_target_progress: 0.0,
            policy_target_progress_lead: 0.0,
            policy_target_return: 0.0,
            validation_every: 50,
            validation_samples: 4096,
        }
    }
}

/// Everything [`crate::train`] needs besides the paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    pub device: DeviceChoice,
    /// The forward pass's arithmetic (default `fp32`). Written into a
    /// checkpoint's config only when not the default, so FP32 runs write
    /// what they wrote before the key existed.
    #[serde(skip_serializing_if = "TrainPrecision::is_fp32")]
    pub precision: TrainPrecision,
    /// Seeds the weight initialisation and the data shuffling.
    pub seed: u64,
    pub model: ModelConfig,
    pub optim: OptimConfig,
    pub data: DataConfig,
    /// Write scalars every this many steps.
    pub log_every: u64,
    /// Write a checkpoint every this many steps (and at the end).
    pub checkpoint_every: u64,
    /// Checkpoints kept (older ones are removed); 0 = keep all.
    pub keep_checkpoints: usize,
    /// Compute the validation loss every this many steps (and at the end; 0 = never).
    pub validate_every: u64,
    /// Start from this net's weights (an exported net or a checkpoint whose
    /// model is `model`) instead of a random initialisation; the optimiser
    /// starts afresh. A run that resumes from its own checkpoint ignores it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<std::path::PathBuf>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            device: DeviceChoice::Auto,
            precision: TrainPrecision::Fp32,
            seed: 0,
            model: ModelConfig::default(),
            optim: OptimConfig::default(),
            data: DataConfig::default(),
            log_every: 10,
            checkpoint_every: 1000,
            keep_checkpoints: 3,
            validate_every: 250,
            init: None,
        }
    }
}

impl TrainConfig {
    pub fn from_toml(text: &str) -> Result<TrainConfig> {
        let c: TrainConfig = toml::from_str(text)
            .map_err(|e| TrainError::Config(format!("bad config: {}", junqi_core::toml_error_line(text, &e, false))))?;
        c.check()?;
        Ok(c)
    }

    pub fn from_file(path: &Path) -> Result<TrainConfig> {
        let text = junqi_core::read_text(path).map_err(TrainError::io(path))?;
        TrainConfig::from_toml(&text).map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("the config serialises")
    }

    pub fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(TrainError::Config(m.to_string()));
        let (m, o) = (&self.model, &self.optim);
        m.check().map_err(|e| TrainError::Config(format!("model: {e}")))?;
        let in_range = junqi_selfplay::limits::in_range;
        in_range("optim.batch_size", o.batch_size, 1, MAX_BATCH).map_err(TrainError::Config)?;
        in_range("data.shuffle_buffer", self.data.shuffle_buffer, 1, MAX_BUFFERED_SAMPLES)
            .map_err(TrainError::Config)?;
        in_range("data.validation_samples", self.data.validation_samples, 0, MAX_BUFFERED_SAMPLES)
            .map_err(TrainError::Config)?;
        // Every count and interval, and every float: bounded and finite.
        use junqi_selfplay::limits::{finite_in_range, in_range as count_in_range, MAX_GAMES, MAX_STEPS};
        for (what, value) in [
            ("optim.steps", o.steps),
            ("optim.warmup_steps", o.warmup_steps),
            ("log_every", self.log_every),
            ("checkpoint_every", self.checkpoint_every),
            ("validate_every", self.validate_every),
        ] {
            count_in_range(what, value, 0, MAX_STEPS).map_err(TrainError::Config)?;
        }
        in_range("keep_checkpoints", self.keep_checkpoints, 0, 1_000_000).map_err(TrainError::Config)?;
        count_in_range("data.window_games", self.data.window_games, 0, MAX_GAMES).map_err(TrainError::Config)?;
        count_in_range("data.validation_every", self.data.validation_every, 0, MAX_GAMES)
            .map_err(TrainError::Config)?;
        for (what, value, high) in [
            ("optim.weight_decay", o.weight_decay, 1e6),
            ("optim.grad_clip", o.grad_clip, 1e12),
            ("optim.eps", o.eps, 1.0),
            ("optim.value_weight", o.value_weight, 1e6),
            ("optim.belief_weight", o.belief_weight, 1e6),
        ] {
            finite_in_range(what, value, 0.0, high).map_err(TrainError::Config)?;
        }
        if !(o.lr.is_finite() && o.lr > 0.0) {
            return bad("optim.lr must be positive");
        }
        if o.eps <= 0.0 {
            return bad("optim.eps must be positive");
        }
        if !(0.0..=1.0).contains(&o.final_lr_ratio) {
            return bad("optim.final_lr_ratio must be in [0, 1]");
        }
        if !(0.0..1.0).contains(&o.beta1) || !(0.0..1.0).contains(&o.beta2) || !(0.0..1.0).contains(&o.momentum) {
            return bad("optim: beta1, beta2 and momentum must be in [0, 1)");
        }
        if !(self.data.policy_target_temp.is_finite() && self.data.policy_target_temp >= 0.0) {
            return bad("data.policy_target_temp must be ≥ 0");
        }
        if !(0.0..=1.0).contains(&self.data.value_target_search) {
            return bad("data.value_target_search must be in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.data.value_target_quiet) {
            return bad("data.value_target_quiet must be in [0, 1]");
        }
        if !(self.data.policy_target_progress.is_finite() && self.data.policy_target_progress >= 0.0) {
            return bad("data.policy_target_progress must be a number ≥ 0");
        }
        if !(self.data.policy_target_progress_lead.is_finite() && self.data.policy_target_progress_lead >= 0.0) {
            return bad("data.policy_target_progress_lead must be a number ≥ 0");
        }
        if !(0.0..=1.0).contains(&self.data.policy_target_return) {
            return bad("data.policy_target_return must be a number in [0, 1]");
        }
        if self.data.validation_every == 1 {
            return bad("data.validation_every = 1 would hold out every game (0 turns validation off)");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_toml_is_the_default_and_keys_round_trip() {
        assert_eq!(TrainConfig::from_toml("").unwrap(), TrainConfig::default());
        let c = TrainConfig::from_toml(
            "device = \"cpu\"\n[model]\nblocks = 2\n[optim]\noptimizer = \"sgd\"\nschedule = \"constant\"\n",
        )
        .unwrap();
        assert_eq!(c.device, DeviceChoice::Cpu);
        assert_eq!(c.model.blocks, 2);
        assert_eq!(c.model.channels, ModelConfig::default().channels);
        assert_eq!(c.optim.optimizer, OptimizerKind::Sgd);
        assert_eq!(TrainConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = TrainConfig::from_toml("[model]\nblock = 2\n").unwrap_err().to_string();
        assert!(err.contains("block"), "{err}");
        // A type error: one line (the CLI's error line) naming the table and the key.
        let err = TrainConfig::from_toml("[model]\nblocks = \"two\"\n").unwrap_err().to_string();
        assert!(!err.contains('\n') && err.contains("in [model] at `blocks = \"two\"`: invalid type"), "{err}");
    }

    #[test]
    fn a_progress_lead_must_be_a_number_at_least_zero() {
        for bad in ["-1", "nan"] {
            let err = TrainConfig::from_toml(&format!("[data]\npolicy_target_progress_lead = {bad}\n")).unwrap_err();
            assert!(err.to_string().contains("data.policy_target_progress_lead must be a number ≥ 0"), "{err}");
        }
        let c = TrainConfig::from_toml("[data]\npolicy_target_progress_lead = 2\n").unwrap();
        assert_eq!(c.data.policy_target_progress_lead, 2.0);
    }

    #[test]
    fn the_shipped_example_config_parses_and_shows_every_key() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/train/small.toml");
        TrainConfig::from_file(&path).unwrap();
        // Every key of the config (`init` and `precision` too, which
        // serialise only when set), in its table, set or commented out (`# key =`).
        let text = std::fs::read_to_string(&path).unwrap();
        let with_init = TrainConfig { init: Some("x".into()), precision: TrainPrecision::Bf16, ..Default::default() };
        let toml::Value::Table(top) = toml::Value::try_from(&with_init).unwrap() else { panic!("a table") };
        let mut tables: Vec<(String, Vec<String>)> = vec![(String::new(), Vec::new())];
        for (key, value) in &top {
            match value {
                toml::Value::Table(t) => tables.push((key.clone(), t.keys().cloned().collect())),
                _ => tables[0].1.push(key.clone()),
            }
        }
        assert!(tables.len() >= 4 && tables.iter().map(|t| t.1.len()).sum::<usize>() > 30, "{tables:?}");
        for (table, keys) in tables {
            // The lines of `[table]` (the top level: before the first table).
            let section = match table.as_str() {
                "" => text.split("\n[").next().unwrap(),
                t => text
                    .split(&format!("[{t}]\n"))
                    .nth(1)
                    .unwrap_or_else(|| panic!("no [{t}]"))
                    .split("\n[")
                    .next()
                    .unwrap(),
            };
            for key in keys {
                let listed = section.lines().any(|l| {
                    let l = l.trim_start_matches(['#', ' ']);
                    l.strip_prefix(key.as_str()).is_some_and(|rest| rest.trim_start().starts_with('='))
                });
                assert!(listed, "configs/train/small.toml lacks `{key}` in [{table}]");
            }
        }
    }

    #[test]
    fn precision_parses_defaults_to_fp32_and_names_the_choices() {
        assert_eq!(TrainConfig::from_toml("").unwrap().precision, TrainPrecision::Fp32);
        let c = TrainConfig::from_toml("precision = \"bf16\"\n").unwrap();
        assert_eq!(c.precision, TrainPrecision::Bf16);
        // Round trips; FP32 (the default) is not written at all.
        assert_eq!(TrainConfig::from_toml(&c.to_toml()).unwrap(), c);
        assert!(!TrainConfig::default().to_toml().contains("precision"));
        let err = TrainConfig::from_toml("precision = \"fp16\"\n").unwrap_err().to_string();
        assert!(err.contains("fp16") && err.contains("precision"), "{err}");
        assert_eq!("bf16".parse::<TrainPrecision>(), Ok(TrainPrecision::Bf16));
        assert!("half".parse::<TrainPrecision>().unwrap_err().contains("fp32 or bf16"));
    }

    #[test]
    fn devices_parse_and_cuda_without_a_gpu_is_a_clear_error() {
        assert_eq!("cpu".parse::<DeviceChoice>(), Ok(DeviceChoice::Cpu));
        assert_eq!("auto".parse::<DeviceChoice>(), Ok(DeviceChoice::Auto));
        assert!("gpu".parse::<DeviceChoice>().unwrap_err().contains("cpu, cuda or auto"));
        assert_eq!(DeviceChoice::Cpu.resolve().unwrap(), tch::Device::Cpu);
        if !tch::Cuda::is_available() {
            assert_eq!(DeviceChoice::Auto.resolve().unwrap(), tch::Device::Cpu);
            let err = DeviceChoice::Cuda.resolve().unwrap_err().to_string();
            assert!(err.contains("CUDA is not available"), "{err}");
        }
    }

    #[test]
    fn lr_schedule_warms_up_then_decays() {
        let o = OptimConfig { lr: 1.0, warmup_steps: 10, steps: 110, final_lr_ratio: 0.1, ..Default::default() };
        assert!((o.lr_at(0) - 0.1).abs() < 1e-12);
        assert!((o.lr_at(9) - 1.0).abs() < 1e-12);
        assert!((o.lr_at(10) - 1.0).abs() < 1e-12);
        assert!((o.lr_at(60) - 0.55).abs() < 1e-9);
        assert!((o.lr_at(110) - 0.1).abs() < 1e-12);
        assert!((o.lr_at(1000) - 0.1).abs() < 1e-12);
        let c = OptimConfig { schedule: LrSchedule::Constant, ..o };
        assert_eq!(c.lr_at(500), 1.0);
    }
}
