//! libtorch as a backend of `junqi-net`'s inference service: for nets on a
//! GPU (`--device cuda`), and as a second implementation the CPU engine is
//! tested against. On the CPU the service runs `junqi_net::CpuNet`, which
//! is faster for these small nets (BENCHMARKS.md).
//!
//! Precision (the net spec's `precision` key, [`NetPrecision`]): `fp32`, or
//! `bf16`/`fp16`: the trunk under libtorch's autocast (its convolutions in
//! the reduced precision, the weights FP32) and the heads in FP32, so the
//! answers stay FP32. fp16 needs CUDA and libtorch here has no
//! int8: those run FP32, as the CPU engine runs FP32 where the CPU lacks a
//! precision's instructions; `describe` names what runs.

use crate::autocast::Autocast;
use crate::checkpoint::load_net;
use crate::config::DeviceChoice;
use crate::Net;
use junqi_env::{NET_WIDTHS, OBS_SIZE};
use junqi_net::{Backend, BackendFactory, BackendMaker, Evaluation, NetError, NetInput, NetPrecision};
use std::path::Path;
use std::sync::Arc;
use tch::{nn, Device, Kind, Tensor};

/// A net loaded through libtorch, evaluating batches of [`NetInput`]s.
pub struct TorchBackend {
    _vs: nn::VarStore,
    net: Net,
    device: Device,
    /// What runs: FP32, bf16 or fp16 (never int8).
    precision: NetPrecision,
    obs: Vec<f32>,
    mask: Vec<u8>,
}

impl TorchBackend {
    /// Load the net at `path` on `device`, in FP32.
    pub fn load(path: &Path, device: Device) -> Result<TorchBackend, NetError> {
        TorchBackend::load_in(path, device, NetPrecision::Fp32)
    }

    /// Load the net at `path` on `device`, to run in `precision` where
    /// libtorch can (see the module's doc).
    pub fn load_in(path: &Path, device: Device, precision: NetPrecision) -> Result<TorchBackend, NetError> {
        let bad = |message: String| NetError::File { path: path.to_path_buf(), message };
        let (vs, net, info) = load_net(path, device).map_err(|e| bad(e.to_string()))?;
        // An older net reads the first 100 or 110 planes (Net::trunk).
        if !NET_WIDTHS.contains(&info.model.in_channels) {
            return Err(bad(junqi_net::width_refusal(info.model.in_channels)));
        }
        if device == Device::Cpu {
            // Each executor is one thread; its forward passes use one core.
            tch::set_num_threads(1);
        }
        let precision = match precision {
            NetPrecision::Fp16 if device.is_cuda() => NetPrecision::Fp16,
            NetPrecision::Bf16 => NetPrecision::Bf16,
            _ => NetPrecision::Fp32,
        };
        Ok(TorchBackend { _vs: vs, net, device, precision, obs: Vec::new(), mask: Vec::new() })
    }

    /// The precision it runs in.
    pub fn precision(&self) -> NetPrecision {
        self.precision
    }

    /// `Net::predict_with_belief` with the trunk under autocast and the
    /// heads in FP32, as the CPU engine keeps them (and the policy's mask
    /// logit, -1e9, does not fit in fp16).
    fn predict_reduced(&self, obs: &Tensor, legal: &Tensor, belief: bool) -> (Tensor, Tensor, Option<Tensor>) {
        tch::no_grad(|| {
            let xs = {
                let _autocast = match self.precision {
                    NetPrecision::Fp16 => Autocast::fp16(self.device),
                    _ => Autocast::bf16(self.device),
                };
                self.net.trunk(obs, false)
            }
            .to_kind(Kind::Float);
            let policy = Net::masked_logits(&self.net.policy_logits(&xs), legal).softmax(-1, Kind::Float);
            let wdl = self.net.value_logits(&xs, false).softmax(-1, Kind::Float);
            let kinds = if belief { self.net.belief_logits(&xs).map(|l| l.softmax(-1, Kind::Float)) } else { None };
            (policy, wdl, kinds)
        })
    }
}

impl Backend for TorchBackend {
    fn evaluate(&mut self, inputs: &[&NetInput], out: &mut Vec<Evaluation>) {
        let b = inputs.len();
        let actions = crate::ACTIONS as usize;
        self.obs.resize(b * OBS_SIZE, 0.0);
        self.mask.clear();
        self.mask.resize(b * actions, 0);
        let width = inputs.iter().map(|i| i.legal.len()).max().unwrap_or(0).max(1);
        // Gather the legal actions' probabilities on the device: indices
        // padded with action 0 (read, then ignored).
        let mut index = vec![0i64; b * width];
        for (k, input) in inputs.iter().enumerate() {
            input.code.write_planes(&mut self.obs[k * OBS_SIZE..(k + 1) * OBS_SIZE]);
            for (j, &a) in input.legal.iter().enumerate() {
                self.mask[k * actions + a as usize] = 1;
                index[k * width + j] = a as i64;
            }
        }
        let bi = b as i64;
        let obs = Tensor::from_slice(&self.obs).reshape([bi, -1]).to_device(self.device);
        let legal = Tensor::from_slice(&self.mask).reshape([bi, crate::ACTIONS]).to_device(self.device);
        let index = Tensor::from_slice(&index).reshape([bi, width as i64]).to_device(self.device);
        // The belief head only when some input asks for it (a 暗棋 search, once per move).
        let (policy, wdl, belief) = match self.precision {
            NetPrecision::Bf16 | NetPrecision::Fp16 => {
                self.predict_reduced(&obs, &legal, inputs.iter().any(|i| i.belief))
            }
            _ => self.net.predict_with_belief(&obs, &legal, inputs.iter().any(|i| i.belief)),
        };
        let belief: Option<Vec<f32>> = belief.map(|b| {
            Vec::try_from(b.to_kind(Kind::Float).to_device(Device::Cpu).reshape([-1])).expect("a float tensor")
        });
        let cells = 60 * junqi_net::BELIEF_KINDS;
        let gathered = policy.gather(1, &index, false).to_kind(Kind::Float).to_device(Device::Cpu).reshape([-1]);
        let priors: Vec<f32> = Vec::try_from(gathered).expect("a float tensor");
        let wdl: Vec<f32> =
            Vec::try_from(wdl.to_kind(Kind::Float).to_device(Device::Cpu).reshape([-1])).expect("a float tensor");
        for (k, input) in inputs.iter().enumerate() {
            out.push(Evaluation {
                priors: priors[k * width..k * width + input.legal.len()].to_vec(),
                wdl: [wdl[3 * k], wdl[3 * k + 1], wdl[3 * k + 2]],
                belief: belief.as_ref().filter(|_| input.belief).map(|b| b[k * cells..(k + 1) * cells].to_vec()),
            });
        }
    }

    fn describe(&self) -> String {
        match self.precision {
            NetPrecision::Fp32 => format!("libtorch ({:?})", self.device),
            p => format!("libtorch ({:?}, {p})", self.device),
        }
    }
}

/// A [`BackendMaker`] of libtorch backends on `device`, each in its net
/// spec's precision (for `junqi_net::InferenceSettings::backend`).
pub fn torch_backend(device: DeviceChoice) -> BackendMaker {
    Arc::new(move |path: &Path, precision: NetPrecision| -> Result<BackendFactory, NetError> {
        let device = device.resolve().map_err(|e| NetError::Config(e.to_string()))?;
        // Load once here, so a bad file is an error for the caller.
        TorchBackend::load_in(path, device, precision)?;
        let path = path.to_path_buf();
        Ok(Arc::new(move || Ok(Box::new(TorchBackend::load_in(&path, device, precision)?) as Box<dyn Backend>)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Game, Mode, MoveList, Position, Rules};
    use junqi_env::ObsCode;

    /// fp16 runs only on CUDA, but its arithmetic is libtorch's on any
    /// device: forced here on the CPU, it answers near FP32 and not as it.
    #[test]
    fn the_fp16_path_runs_and_changes_the_arithmetic() {
        let path = junqi_net::resolve_net_path("fanqi");
        let mut inputs = Vec::new();
        let mut moves = MoveList::new();
        let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 5));
        for _ in 0..40 {
            game.truth().legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let seat = game.truth().turn();
            inputs.push(NetInput::from_moves(ObsCode::from_infoset(game.infoset(seat)), moves.as_slice(), seat).0);
            game.play_unchecked(moves[moves.len() / 2]);
        }
        let run = |backend: &mut TorchBackend| {
            let mut out = Vec::new();
            backend.evaluate(&inputs.iter().collect::<Vec<_>>(), &mut out);
            out
        };
        let want = run(&mut TorchBackend::load(&path, Device::Cpu).unwrap());
        let mut fp16 = TorchBackend::load_in(&path, Device::Cpu, NetPrecision::Fp16).unwrap();
        assert_eq!(fp16.precision(), NetPrecision::Fp32, "fp16 on a CPU device runs FP32");
        fp16.precision = NetPrecision::Fp16;
        assert_eq!(fp16.describe(), "libtorch (Cpu, fp16)");
        let got = run(&mut fp16);
        let (mut largest, mut sum) = (0f32, 0f32);
        for (w, g) in want.iter().zip(&got) {
            for (a, b) in w.priors.iter().zip(&g.priors).chain(w.wdl.iter().zip(&g.wdl)) {
                largest = largest.max((a - b).abs());
                sum += (a - b).abs();
            }
        }
        assert!(sum > 0.0 && largest < 0.05, "fp16 against FP32: largest difference {largest}, total {sum}");
    }
}
