//! AdamW and SGD written over tch tensors, so that their state (moments,
//! momentum buffers) has names and goes into checkpoints: a resumed run
//! continues exactly where it stopped. (tch's built-in optimisers keep their
//! state inside libtorch, out of reach of a checkpoint.)

use crate::config::{OptimConfig, OptimizerKind};
use std::collections::BTreeMap;
use tch::{Kind, Tensor};

pub(crate) struct Optimizer {
    config: OptimConfig,
    /// Trainable variables by name (shallow clones sharing the VarStore's storage).
    params: BTreeMap<String, Tensor>,
    /// State tensors by name: `m.<var>`, `v.<var>` (AdamW) or `momentum.<var>` (SGD).
    state: BTreeMap<String, Tensor>,
    /// Updates done (AdamW's bias correction).
    pub(crate) t: u64,
}

impl Optimizer {
    pub(crate) fn new(vs: &tch::nn::VarStore, config: &OptimConfig) -> Optimizer {
        let params: BTreeMap<String, Tensor> = vs.variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        let mut state = BTreeMap::new();
        for (name, p) in &params {
            let slots: &[&str] = match config.optimizer {
                OptimizerKind::Adamw => &["m", "v"],
                OptimizerKind::Sgd => &["momentum"],
            };
            for slot in slots {
                state.insert(format!("{slot}.{name}"), p.zeros_like().detach());
            }
        }
        Optimizer { config: config.clone(), params, state, t: 0 }
    }

    pub(crate) fn state(&self) -> &BTreeMap<String, Tensor> {
        &self.state
    }

    pub(crate) fn zero_grad(&mut self) {
        for p in self.params.values_mut() {
            p.zero_grad();
        }
    }

    /// The global L2 norm of the gradients; when above `max` (> 0), scale
    /// them down to `max`. Returns the norm before clipping.
    pub(crate) fn clip_grad_norm(&mut self, max: f64) -> f64 {
        tch::no_grad(|| {
            let mut sq: Option<Tensor> = None;
            for p in self.params.values() {
                let g = p.grad();
                if g.defined() {
                    let s = g.square().sum(Kind::Float);
                    sq = Some(match sq {
                        Some(acc) => acc + s,
                        None => s,
                    });
                }
            }
            let norm = sq.map_or(0.0, |s| s.sqrt().double_value(&[]));
            if max > 0.0 && norm > max {
                let scale = max / (norm + 1e-6);
                for p in self.params.values() {
                    let mut g = p.grad();
                    if g.defined() {
                        let _ = g.g_mul_scalar_(scale);
                    }
                }
            }
            norm
        })
    }

    /// One update with learning rate `lr`. Weight decay applies to
    /// variables of rank ≥ 2 (convolution and linear weights).
    pub(crate) fn step(&mut self, lr: f64) {
        let c = &self.config;
        self.t += 1;
        tch::no_grad(|| {
            for (name, p) in self.params.iter_mut() {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let decay = if p.dim() >= 2 { c.weight_decay } else { 0.0 };
                match c.optimizer {
                    OptimizerKind::Adamw => {
                        let m = self.state.get_mut(&format!("m.{name}")).expect("state");
                        let new_m = &*m * c.beta1 + &g * (1.0 - c.beta1);
                        m.copy_(&new_m);
                        let v = self.state.get_mut(&format!("v.{name}")).expect("state");
                        let new_v = &*v * c.beta2 + g.square() * (1.0 - c.beta2);
                        v.copy_(&new_v);
                        let bc1 = 1.0 - c.beta1.powf(self.t as f64);
                        let bc2 = 1.0 - c.beta2.powf(self.t as f64);
                        let update = (new_m / bc1) / ((new_v / bc2).sqrt() + c.eps);
                        let new_p = &*p * (1.0 - lr * decay) - update * lr;
                        p.copy_(&new_p);
                    }
                    OptimizerKind::Sgd => {
                        let g = if decay > 0.0 { &g + &*p * decay } else { g };
                        let buf = self.state.get_mut(&format!("momentum.{name}")).expect("state");
                        let new_buf = &*buf * c.momentum + &g;
                        buf.copy_(&new_buf);
                        let new_p = &*p - new_buf * lr;
                        p.copy_(&new_p);
                    }
                }
            }
        });
    }
}
