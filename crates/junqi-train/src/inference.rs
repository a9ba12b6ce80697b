//! libtorch as a backend of `junqi-net`'s inference service: for nets on a
//! GPU (`--device cuda`), and as a second implementation the CPU engine is
//! tested against. On the CPU the service runs `junqi_net::CpuNet`, which
//! is faster for these small nets (BENCHMARKS.md).

use crate::checkpoint::load_net;
use crate::config::DeviceChoice;
use crate::Net;
use junqi_env::{OBS_CHANNELS, OBS_SIZE, V1_CHANNELS};
use junqi_net::{Backend, BackendFactory, BackendMaker, Evaluation, NetError, NetInput};
use std::path::Path;
use std::sync::Arc;
use tch::{nn, Device, Kind, Tensor};

/// A net loaded through libtorch, evaluating batches of [`NetInput`]s.
pub struct TorchBackend {
    _vs: nn::VarStore,
    net: Net,
    device: Device,
    obs: Vec<f32>,
    mask: Vec<u8>,
}

impl TorchBackend {
    /// Load the net at `path` on `device`.
    pub fn load(path: &Path, device: Device) -> Result<TorchBackend, NetError> {
        let bad = |message: String| NetError::File { path: path.to_path_buf(), message };
        let (vs, net, info) = load_net(path, device).map_err(|e| bad(e.to_string()))?;
        // A net made before the history planes reads the first 100 (Net::trunk).
        if info.model.in_channels != OBS_CHANNELS && info.model.in_channels != V1_CHANNELS {
            return Err(bad(format!(
                "the net takes {} observation planes, this build encodes {OBS_CHANNELS} ({V1_CHANNELS} for nets made before the history planes)",
                info.model.in_channels
            )));
        }
        if device == Device::Cpu {
            // Each executor is one thread; its forward passes use one core.
            tch::set_num_threads(1);
        }
        Ok(TorchBackend { _vs: vs, net, device, obs: Vec::new(), mask: Vec::new() })
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
        let (policy, wdl, belief) = self.net.predict_with_belief(&obs, &legal, inputs.iter().any(|i| i.belief));
        let belief: Option<Vec<f32>> =
            belief.map(|b| Vec::try_from(b.to_device(Device::Cpu).reshape([-1])).expect("a float tensor"));
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
        format!("libtorch ({:?})", self.device)
    }
}

/// A [`BackendMaker`] of libtorch backends on `device` (for
/// `junqi_net::InferenceSettings::backend`).
pub fn torch_backend(device: DeviceChoice) -> BackendMaker {
    Arc::new(move |path: &Path| -> Result<BackendFactory, NetError> {
        let device = device.resolve().map_err(|e| NetError::Config(e.to_string()))?;
        // Load once here, so a bad file is an error for the caller.
        TorchBackend::load(path, device)?;
        let path = path.to_path_buf();
        Ok(Arc::new(move || Ok(Box::new(TorchBackend::load(&path, device)?) as Box<dyn Backend>)))
    })
}
