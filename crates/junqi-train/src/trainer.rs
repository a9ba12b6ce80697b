//! One optimisation step, checkpoints and export.

use crate::autocast::Autocast;
use crate::checkpoint::{self, CheckpointInfo};
use crate::config::{TrainConfig, TrainPrecision};
use crate::data::{Batch, DataWindow};
use crate::metrics::Metrics;
use crate::net::{reads_planes, Net};
use crate::optim::Optimizer;
use crate::ModelConfig;
use crate::{Result, TrainError};
use junqi_net::NetGame;
use std::path::Path;
use std::time::Instant;
use tch::{nn, Device, Kind, Tensor};

/// What one training step measured (means over the batch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMetrics {
    /// Cross-entropy of the net's policy to the stored distribution.
    pub policy_loss: f64,
    /// Cross-entropy of the win/draw/loss head to the outcome.
    pub value_loss: f64,
    /// Cross-entropy of the belief head to the hidden enemy pieces' true
    /// kinds, per such piece (0 without a belief head or such pieces).
    pub belief_loss: f64,
    /// `policy_loss + value_weight * value_loss + belief_weight *
    /// belief_loss`: what was minimised.
    pub total_loss: f64,
    /// Entropy of the net's (masked) policy.
    pub policy_entropy: f64,
    /// How often the net's most likely action is the action played.
    pub policy_accuracy: f64,
    /// How often the most likely value class is the outcome.
    pub value_accuracy: f64,
    pub lr: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    pub samples_per_s: f64,
}

impl StepMetrics {
    /// The TensorBoard tags and values; `loss/belief` only for a net with
    /// a belief head (`belief`), whose loss is 0 otherwise.
    pub fn scalars(&self, belief: bool) -> Vec<(&'static str, f64)> {
        let mut all = vec![
            ("loss/policy", self.policy_loss),
            ("loss/value", self.value_loss),
            ("loss/belief", self.belief_loss),
            ("loss/total", self.total_loss),
            ("policy/entropy", self.policy_entropy),
            ("policy/accuracy", self.policy_accuracy),
            ("value/accuracy", self.value_accuracy),
            ("train/lr", self.lr),
            ("train/grad_norm", self.grad_norm),
            ("train/samples_per_s", self.samples_per_s),
        ];
        all.retain(|(tag, _)| belief || *tag != "loss/belief");
        all
    }

    pub fn log(&self, metrics: &mut dyn Metrics, step: u64, belief: bool) -> crate::Result<()> {
        for (tag, value) in self.scalars(belief) {
            metrics.scalar(tag, step, value)?;
        }
        Ok(())
    }
}

/// The net, its optimiser state and the step count.
pub struct Trainer {
    config: TrainConfig,
    /// The game the net plays (its board, its file formats).
    game: NetGame,
    device: Device,
    vs: nn::VarStore,
    net: Net,
    opt: Optimizer,
    step: u64,
}

struct Losses {
    policy: Tensor,
    value: Tensor,
    belief: Tensor,
    total: Tensor,
    entropy: Tensor,
    policy_accuracy: Tensor,
    value_accuracy: Tensor,
}

/// An error unless `found` (described by `what`) is `config`'s model.
/// The stem's convolution, the one variable whose shape the input planes decide.
const STEM_WEIGHT: &str = "stem.conv.weight";

fn same_model(what: &str, found: &ModelConfig, config: &TrainConfig) -> Result<()> {
    if found == &config.model {
        return Ok(());
    }
    Err(TrainError::Config(format!("{what} model {found:?} differs from the config's {:?}", config.model)))
}

impl Trainer {
    /// A fresh two-player net initialised from `config.seed`, on `config.device`.
    pub fn new(config: &TrainConfig) -> Result<Trainer> {
        Trainer::for_game(config, NetGame::TwoPlayer)
    }

    /// [`Trainer::new`] for a net of `game` (a four-player net's model must
    /// take the observation's 74 planes).
    pub fn for_game(config: &TrainConfig, game: NetGame) -> Result<Trainer> {
        config.check()?;
        config.model.check_planes(game).map_err(|e| TrainError::Config(format!("[model]: {e}")))?;
        let device = config.device.resolve()?;
        tch::manual_seed(config.seed as i64);
        let vs = nn::VarStore::new(device);
        let net = Net::for_game(&vs.root(), &config.model, game);
        let opt = Optimizer::new(&vs, &config.optim);
        Ok(Trainer { config: config.clone(), game, device, vs, net, opt, step: 0 })
    }

    /// A fresh trainer whose net starts from `config.init`'s weights when
    /// given (its model must be the config's), else from `config.seed`.
    ///
    /// A net made before the history or the rule-state planes (100 or 110
    /// input planes) initialises the same model reading more of them (110 or
    /// 132): its weights, and zero weights from the new planes, so the net
    /// starts out answering exactly as it did and learns from there what the
    /// new planes are worth.
    pub fn initial(config: &TrainConfig) -> Result<Trainer> {
        Trainer::initial_for(config, NetGame::TwoPlayer)
    }

    /// [`Trainer::initial`] for a net of `game`; a `config.init` of the
    /// other game is refused by name.
    pub fn initial_for(config: &TrainConfig, game: NetGame) -> Result<Trainer> {
        let t = Trainer::for_game(config, game)?;
        let Some(path) = &config.init else { return Ok(t) };
        let (info, bytes) = checkpoint::read_game(path, game)?;
        let (from, to) = (info.model.in_channels, config.model.in_channels);
        let widen = game == NetGame::TwoPlayer
            && from < to
            && junqi_env::NET_WIDTHS.contains(&from)
            && junqi_env::NET_WIDTHS.contains(&to)
            && ModelConfig { in_channels: to, ..info.model.clone() } == config.model;
        if !widen {
            same_model(&format!("train.init {}: its", path.display()), &info.model, config)?;
        }
        let prefix = if info.format == game.checkpoint_format() { "net." } else { "" };
        let mut vars = t.vs.variables();
        if widen {
            let stem = vars.remove(STEM_WEIGHT).expect("every net has a stem");
            let old = Tensor::zeros([config.model.channels as i64, from as i64, 3, 3], (tch::Kind::Float, t.device));
            let one = std::collections::HashMap::from([(STEM_WEIGHT.to_string(), old.shallow_clone())]);
            checkpoint::load_vars(path, &bytes, prefix, &one)?;
            tch::no_grad(|| {
                let _ = stem.shallow_clone().zero_();
                stem.narrow(1, 0, from as i64).copy_(&old);
            });
        }
        checkpoint::load_vars(path, &bytes, prefix, &vars)?;
        Ok(t)
    }

    /// Continue from a checkpoint written by [`Trainer::save_checkpoint`]
    /// under `config` (whose model must be the checkpoint's; the other
    /// settings, e.g. more `steps`, may differ). Weights, optimiser state
    /// and step count are restored.
    pub fn resume(path: &Path, config: &TrainConfig) -> Result<(Trainer, CheckpointInfo)> {
        Trainer::resume_for(path, config, NetGame::TwoPlayer)
    }

    /// [`Trainer::resume`] for a net of `game`; a checkpoint of the other
    /// game is refused by name.
    pub fn resume_for(path: &Path, config: &TrainConfig, game: NetGame) -> Result<(Trainer, CheckpointInfo)> {
        let (info, tensors) = checkpoint::read_game(path, game)?;
        let Some(ckpt_config) = &info.config else {
            return Err(TrainError::Checkpoint {
                path: path.to_path_buf(),
                message: "an exported net, not a training checkpoint (no optimiser state)".into(),
            });
        };
        same_model(&format!("{}: the checkpoint's", path.display()), &ckpt_config.model, config)?;
        let mut t = Trainer::for_game(config, game)?;
        checkpoint::load_vars(path, &tensors, "net.", &t.vs.variables())?;
        if ckpt_config.optim.optimizer == config.optim.optimizer {
            let state: std::collections::HashMap<String, Tensor> =
                t.opt.state().iter().map(|(k, v)| (k.clone(), v.shallow_clone())).collect();
            checkpoint::load_vars(path, &tensors, "optim.", &state)?;
            t.opt.t = info.optimizer_updates;
        }
        t.step = info.step;
        Ok((t, info))
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }
    /// The game the net plays.
    pub fn game(&self) -> NetGame {
        self.game
    }
    pub fn device(&self) -> Device {
        self.device
    }
    pub fn net(&self) -> &Net {
        &self.net
    }
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }
    /// Steps done so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The losses on `batch`, with the policy's softmax over each
    /// position's legal actions only (the same as over all 3,600 with the
    /// illegal ones masked, without computing their logits).
    fn losses(&self, batch: &Batch, train: bool) -> Losses {
        let xs = self.net.trunk(&batch.obs, train);
        let value_logits = self.net.value_logits(&xs, train);
        let logits = self.net.policy_logits_at(&xs, &batch.legal_ids);
        let masked = logits.masked_fill(&batch.legal_valid.logical_not(), crate::MASK_LOGIT);
        let logp = masked.log_softmax(-1, Kind::Float);
        let policy = -(&batch.policy * &logp).sum_dim_intlist(-1, false, Kind::Float).mean(Kind::Float);
        let value = match &batch.value_target {
            None => value_logits.cross_entropy_for_logits(&batch.wdl),
            Some(target) => -(target * value_logits.log_softmax(-1, Kind::Float))
                .sum_dim_intlist(-1, false, Kind::Float)
                .mean(Kind::Float),
        };
        let belief = match self.net.belief_logits(&xs) {
            None => Tensor::zeros([], (Kind::Float, self.device)),
            Some(logits) => {
                // Mean cross-entropy over the nodes that have a target (none: 0).
                let target = &batch.hidden_kinds;
                let has = target.ge(0).to_kind(Kind::Float);
                let logp = logits.log_softmax(-1, Kind::Float).gather(2, &target.clamp_min(0).unsqueeze(-1), false);
                -(logp.squeeze_dim(-1) * &has).sum(Kind::Float) / has.sum(Kind::Float).clamp_min(1.0)
            }
        };
        let total = &policy + &value * self.config.optim.value_weight + &belief * self.config.optim.belief_weight;
        let (entropy, policy_accuracy, value_accuracy) = tch::no_grad(|| {
            let entropy = -(logp.exp() * &logp).sum_dim_intlist(-1, false, Kind::Float).mean(Kind::Float);
            let pacc = masked.argmax(-1, false).eq_tensor(&batch.action).to_kind(Kind::Float).mean(Kind::Float);
            let vacc = value_logits.argmax(-1, false).eq_tensor(&batch.wdl).to_kind(Kind::Float).mean(Kind::Float);
            (entropy, pacc, vacc)
        });
        Losses { policy, value, belief, total, entropy, policy_accuracy, value_accuracy }
    }

    fn check_batch(&self, batch: &Batch) -> Result<()> {
        let c = self.config.model.in_channels;
        let size = batch.obs.size();
        let grid = self.game.grid();
        let (rows, cols) = (grid.rows as i64, grid.cols as i64);
        let planes_read = |planes: i64| match self.game {
            NetGame::TwoPlayer => reads_planes(c, planes as usize),
            NetGame::Siguo => planes as usize == c,
        };
        let shaped = matches!(size.as_slice(),
            &[b, planes, r, k] if b == batch.len as i64 && r == rows && k == cols && planes_read(planes));
        if batch.len == 0 || batch.game != self.game || !shaped {
            return Err(TrainError::Config(format!(
                "batch observations ({}) have shape {:?}, the {} net expects [B, {c}, {rows}, {cols}]",
                batch.game.describe(),
                batch.obs.size(),
                self.game.describe()
            )));
        }
        Ok(())
    }

    /// One step on `batch`: forward, loss, backward, gradient clipping
    /// (`optim.grad_clip`), update at the scheduled learning rate.
    pub fn train_step(&mut self, batch: &Batch) -> Result<StepMetrics> {
        self.check_batch(batch)?;
        let started = Instant::now();
        let lr = self.config.optim.lr_at(self.step);
        self.opt.zero_grad();
        let l = {
            // Autocast around the forward pass and the losses only; the
            // backward pass follows the casts it recorded.
            let _bf16 = (self.config.precision == TrainPrecision::Bf16).then(|| Autocast::bf16(self.device));
            self.losses(batch, true)
        };
        l.total.backward();
        let grad_norm = self.opt.clip_grad_norm(self.config.optim.grad_clip);
        self.opt.step(lr);
        let total_loss = l.total.double_value(&[]);
        if !total_loss.is_finite() {
            return Err(TrainError::Diverged { loss: total_loss, step: self.step });
        }
        self.step += 1;
        let m = StepMetrics {
            policy_loss: l.policy.double_value(&[]),
            value_loss: l.value.double_value(&[]),
            belief_loss: l.belief.double_value(&[]),
            total_loss,
            policy_entropy: l.entropy.double_value(&[]),
            policy_accuracy: l.policy_accuracy.double_value(&[]),
            value_accuracy: l.value_accuracy.double_value(&[]),
            lr,
            grad_norm,
            samples_per_s: batch.len as f64 / started.elapsed().as_secs_f64().max(1e-9),
        };
        Ok(m)
    }

    /// The losses and accuracies on `batch` in evaluation mode, no update
    /// (`lr`, `grad_norm` and `samples_per_s` are 0). Always in FP32,
    /// whatever `precision` trains in, so validation losses compare.
    pub fn evaluate(&self, batch: &Batch) -> Result<StepMetrics> {
        self.check_batch(batch)?;
        let l = tch::no_grad(|| self.losses(batch, false));
        Ok(StepMetrics {
            policy_loss: l.policy.double_value(&[]),
            value_loss: l.value.double_value(&[]),
            belief_loss: l.belief.double_value(&[]),
            total_loss: l.total.double_value(&[]),
            policy_entropy: l.entropy.double_value(&[]),
            policy_accuracy: l.policy_accuracy.double_value(&[]),
            value_accuracy: l.value_accuracy.double_value(&[]),
            lr: 0.0,
            grad_norm: 0.0,
            samples_per_s: 0.0,
        })
    }

    /// Write a checkpoint to `path` atomically (a temporary name in the
    /// same folder, synced, then renamed): weights, optimiser state, config,
    /// step and the data window trained on.
    pub fn save_checkpoint(&self, path: &Path, window: Option<&DataWindow>) -> Result<()> {
        let mut tensors: Vec<(String, Tensor)> =
            self.vs.variables().into_iter().map(|(k, v)| (format!("net.{k}"), v)).collect();
        tensors.extend(self.opt.state().iter().map(|(k, v)| (format!("optim.{k}"), v.shallow_clone())));
        let format = self.game.checkpoint_format();
        let mut meta = checkpoint::base_metadata_for(&self.config.model, self.game, format);
        meta.insert("config".into(), serde_json::to_string(&self.config).expect("config serialises"));
        meta.insert("step".into(), self.step.to_string());
        meta.insert("optimizer_updates".into(), self.opt.t.to_string());
        meta.insert("data_window".into(), serde_json::to_string(&window).expect("window serialises"));
        checkpoint::write(path, tensors, meta)
    }

    /// Export the weights (no optimiser state) as safetensors, with the
    /// architecture in the metadata; see `docs/training.md` for loading it
    /// from Python, and [`crate::load_net`] from Rust.
    ///
    /// A learned deployment model in `config.init`'s file (暗棋/明棋) comes
    /// with it unchanged: training does not fit one (the loop refits it
    /// after each generation), and without it the new net would deploy as
    /// `heuristic` where its init deployed by what it had learned.
    ///
    /// A four-player net is written as format `junqi-siguo-net/1`
    /// ([`crate::export_siguo_net`]), its init's deployment model kept the same way.
    pub fn export(&self, path: &Path) -> Result<()> {
        if self.game == NetGame::Siguo {
            crate::siguo::export_siguo_net(&self.vs, &self.config.model, self.step, path)?;
        } else {
            let tensors: Vec<(String, Tensor)> = self.vs.variables().into_iter().collect();
            let mut meta = checkpoint::base_metadata(&self.config.model, checkpoint::NET_FORMAT);
            meta.insert("step".into(), self.step.to_string());
            checkpoint::write(path, tensors, meta)?;
        }
        let Some(init) = &self.config.init else { return Ok(()) };
        let Some(model) = junqi_net::NetFile::read_either(init)?.deployment_model()? else { return Ok(()) };
        crate::deployments::store_in_net(path, &model)
    }
}
