//! Net files: the safetensors files `junqi-train` writes (exported nets and
//! training checkpoints), read and checked without libtorch.
//!
//! Metadata keys: `format` (`junqi-net/1` or `junqi-train-checkpoint/1`),
//! `architecture` (the [`ModelConfig`] as JSON), `step`, `code_version`,
//! `data_fnv1a64` (FNV-1a of the tensor data in name order, to detect
//! corruption); checkpoints add the training config and optimiser state.
//! Tensor names are the net's variable names (`stem.conv.weight`, …); a
//! checkpoint prefixes them with `net.`. See `docs/training.md`.

use crate::model::ModelConfig;
use crate::NetError;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const CHECKPOINT_FORMAT: &str = "junqi-train-checkpoint/1";
pub const NET_FORMAT: &str = "junqi-net/1";
/// A net file larger than this is refused before it is read (the shipped
/// net is 415 KB; a 20-block × 256-channel net is about 100 MB).
pub const MAX_NET_BYTES: u64 = 2 << 30;

/// FNV-1a, 64-bit, continued over `bytes`.
pub fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= b as u64;
        *hash = hash.wrapping_mul(0x100000001b3);
    }
}
/// FNV-1a's starting value.
pub const FNV_START: u64 = 0xcbf29ce484222325;

/// A net file, read and checked: its metadata and its weights.
#[derive(Clone, Debug)]
pub struct NetFile {
    pub path: PathBuf,
    pub format: String,
    pub model: ModelConfig,
    pub step: u64,
    pub metadata: HashMap<String, String>,
    /// The net's tensors by variable name (without a checkpoint's `net.`
    /// prefix), as shape and `f32` values.
    pub tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl NetFile {
    /// Read `path`: a safetensors file of format [`NET_FORMAT`] or
    /// [`CHECKPOINT_FORMAT`], every tensor `f32`, the checksum right.
    pub fn read(path: &Path) -> Result<NetFile, NetError> {
        let size = std::fs::metadata(path).map_err(NetError::io(path))?.len();
        if size > MAX_NET_BYTES {
            return Err(NetError::File {
                path: path.to_path_buf(),
                message: format!("{size} bytes: larger than any net this program writes"),
            });
        }
        // Bounded and regular: `net:/dev/zero` is an error, not an endless read.
        let bytes = junqi_core::read_bounded(path, MAX_NET_BYTES).map_err(NetError::io(path))?;
        NetFile::parse(path, &bytes)
    }

    /// [`NetFile::read`] on the file's bytes (`path` names it in errors).
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<NetFile, NetError> {
        let bad = |message: String| NetError::File { path: path.to_path_buf(), message };
        let st = SafeTensors::deserialize(bytes).map_err(|e| bad(format!("not a valid safetensors file ({e:?})")))?;
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("bad header ({e:?})")))?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let get = |k: &str| metadata.get(k).ok_or_else(|| bad(format!("no `{k}` in the metadata")));
        let format = get("format")?.clone();
        if format != CHECKPOINT_FORMAT && format != NET_FORMAT {
            return Err(bad(format!("format `{format}`, expected `{NET_FORMAT}` or `{CHECKPOINT_FORMAT}`")));
        }
        let mut views = st.tensors();
        views.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hash = FNV_START;
        for (_, v) in &views {
            if v.dtype() != Dtype::F32 {
                return Err(bad(format!("a tensor of type {:?}, expected F32", v.dtype())));
            }
            fnv1a(&mut hash, v.data());
        }
        if get("data_fnv1a64")? != &format!("{hash:016x}") {
            return Err(bad("the tensor data does not match its checksum (the file is corrupted)".into()));
        }
        let model: ModelConfig =
            serde_json::from_str(get("architecture")?).map_err(|e| bad(format!("metadata `architecture`: {e}")))?;
        model.check().map_err(|e| bad(format!("metadata `architecture`: {e}")))?;
        let step = match metadata.get("step") {
            None => 0,
            Some(v) => v.parse().map_err(|_| bad(format!("metadata `step` is `{v}`, not a number")))?,
        };
        let prefix = if format == CHECKPOINT_FORMAT { "net." } else { "" };
        let tensors = views
            .into_iter()
            .filter_map(|(name, v)| {
                let name = name.strip_prefix(prefix)?.to_string();
                let values = v.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
                Some((name, (v.shape().to_vec(), values.collect())))
            })
            .collect();
        Ok(NetFile { path: path.to_path_buf(), format, model, step, metadata, tensors })
    }

    /// A net of shape `model` with random weights (scaled like a fresh
    /// net's, batch-norm statistics away from the identity): for tests and
    /// for timing shapes nobody has trained yet. Not written anywhere.
    pub fn random(model: &ModelConfig, seed: u64) -> NetFile {
        let mut t = RandomTensors { state: seed ^ 0x9E37_79B9_7F4A_7C15, tensors: HashMap::new() };
        let (c, ci) = (model.channels, model.in_channels);
        t.weight("stem.conv.weight", vec![c, ci, 3, 3], ci * 9);
        t.batch_norm("stem.bn", c);
        for b in 0..model.blocks {
            for half in ["a", "b"] {
                t.weight(&format!("blocks.{b}.{half}.conv.weight"), vec![c, c, 3, 3], c * 9);
                t.batch_norm(&format!("blocks.{b}.{half}.bn"), c);
            }
        }
        match model.policy_head {
            crate::PolicyHead::Conv => {
                t.weight("policy.weight", vec![60, c, 1, 1], c);
                t.weight("policy.bias", vec![60], c);
            }
            crate::PolicyHead::Bilinear => {
                for name in ["policy", "policy_to"] {
                    t.weight(&format!("{name}.weight"), vec![c, c, 1, 1], c);
                    t.weight(&format!("{name}.bias"), vec![c], c);
                }
            }
        }
        if model.belief {
            t.weight("belief.weight", vec![crate::model::BELIEF_KINDS, c, 1, 1], c);
            t.weight("belief.bias", vec![crate::model::BELIEF_KINDS], c);
        }
        let (vp, vh) = (model.value_planes, model.value_hidden);
        t.weight("value.conv.weight", vec![vp, c, 1, 1], c);
        t.batch_norm("value.bn", vp);
        t.weight("value_fc.weight", vec![vh, vp * 60], vp * 60);
        t.weight("value_fc.bias", vec![vh], vp * 60);
        t.weight("value_out.weight", vec![3, vh], vh);
        t.weight("value_out.bias", vec![3], vh);
        NetFile {
            path: PathBuf::from(format!("random:{}x{}", model.blocks, model.channels)),
            format: NET_FORMAT.into(),
            model: model.clone(),
            step: 0,
            metadata: HashMap::new(),
            tensors: t.tensors,
        }
    }

    /// The tensor `name` with exactly `shape`.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<&[f32], NetError> {
        let bad = |message: String| NetError::File { path: self.path.clone(), message };
        let (s, v) = self.tensors.get(name).ok_or_else(|| bad(format!("no tensor `{name}`")))?;
        if s != shape {
            return Err(bad(format!("`{name}` has shape {s:?}, the architecture needs {shape:?}")));
        }
        Ok(v)
    }
}

/// The tensors of a learned deployment model in a net file (暗棋/明棋).
const DEPLOY_WEIGHT: &str = "deploy.weight";
const DEPLOY_BIAS: &str = "deploy.bias";
const DEPLOY_TEMPERATURE: &str = "deploy.temperature";

impl NetFile {
    /// The learned deployment model stored with the net, if any
    /// (`deploy.weight`, `deploy.bias`, `deploy.temperature`).
    pub fn deployment_model(&self) -> Result<Option<junqi_bots::DeploymentModel>, NetError> {
        if !self.tensors.contains_key(DEPLOY_WEIGHT) {
            return Ok(None);
        }
        let weights = self.tensor(DEPLOY_WEIGHT, &[junqi_bots::DEPLOY_FEATURES])?.to_vec();
        let bias = self.tensor(DEPLOY_BIAS, &[1])?[0];
        let temperature = self.tensor(DEPLOY_TEMPERATURE, &[1])?[0];
        junqi_bots::DeploymentModel::from_weights(weights, bias, temperature)
            .map(Some)
            .map_err(|message| NetError::File { path: self.path.clone(), message })
    }

    /// Store `model` with the net (replacing any before).
    pub fn set_deployment_model(&mut self, model: &junqi_bots::DeploymentModel) {
        self.tensors.insert(DEPLOY_WEIGHT.into(), (vec![model.weights.len()], model.weights.clone()));
        self.tensors.insert(DEPLOY_BIAS.into(), (vec![1], vec![model.bias]));
        self.tensors.insert(DEPLOY_TEMPERATURE.into(), (vec![1], vec![model.temperature]));
    }
}

/// Write `f32` tensors (name, shape, little-endian bytes) and `meta` as a
/// safetensors file, atomically: to a hidden temporary file in the same
/// folder, synced, then renamed over `path`. Adds the `data_fnv1a64`
/// checksum [`NetFile::read`] checks.
pub fn write_safetensors(
    path: &Path,
    mut tensors: Vec<(String, Vec<usize>, Vec<u8>)>,
    mut meta: HashMap<String, String>,
) -> Result<(), NetError> {
    // The checksum covers the data in the order safetensors stores it (all
    // f32, so by name), which is also the order of the header's offsets.
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hash = FNV_START;
    for (_, _, bytes) in &tensors {
        fnv1a(&mut hash, bytes);
    }
    meta.insert("data_fnv1a64".into(), format!("{hash:016x}"));
    let views = tensors
        .iter()
        .map(|(n, s, b)| {
            Ok((
                n.clone(),
                TensorView::new(Dtype::F32, s.clone(), b).map_err(|e| NetError::Config(format!("{n}: {e:?}")))?,
            ))
        })
        .collect::<Result<Vec<(String, TensorView)>, NetError>>()?;
    let bytes = safetensors::tensor::serialize(views, &Some(meta))
        .map_err(|e| NetError::Config(format!("cannot serialise {}: {e:?}", path.display())))?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(NetError::io(dir))?;
    let tmp = dir.join(format!(".{}.tmp", path.file_name().unwrap_or_default().to_string_lossy()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|cause| {
        let _ = std::fs::remove_file(&tmp);
        NetError::Io { path: path.to_path_buf(), cause }
    })
}

impl NetFile {
    /// Write the net as an exported net ([`NET_FORMAT`]) at `path`.
    pub fn write(&self, path: &Path) -> Result<(), NetError> {
        let tensors = self
            .tensors
            .iter()
            .map(|(name, (shape, v))| (name.clone(), shape.clone(), v.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect();
        let mut meta = self.metadata.clone();
        meta.insert("format".into(), NET_FORMAT.into());
        meta.insert("architecture".into(), serde_json::to_string(&self.model).expect("model serialises"));
        meta.insert("step".into(), self.step.to_string());
        write_safetensors(path, tensors, meta)
    }
}

/// Random tensors for [`NetFile::random`] (xorshift; uniform in ±√(3 / fan-in)).
struct RandomTensors {
    state: u64,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl RandomTensors {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    fn put(&mut self, name: &str, shape: Vec<usize>, f: impl Fn(f32) -> f32) {
        let v = (0..shape.iter().product()).map(|_| f(self.next())).collect();
        self.tensors.insert(name.to_string(), (shape, v));
    }

    fn weight(&mut self, name: &str, shape: Vec<usize>, fan_in: usize) {
        let scale = (3.0 / fan_in.max(1) as f32).sqrt();
        self.put(name, shape, |x| x * scale);
    }

    fn batch_norm(&mut self, prefix: &str, n: usize) {
        self.put(&format!("{prefix}.weight"), vec![n], |x| 1.0 + 0.2 * x);
        self.put(&format!("{prefix}.bias"), vec![n], |x| 0.1 * x);
        self.put(&format!("{prefix}.running_mean"), vec![n], |x| 0.1 * x);
        self.put(&format!("{prefix}.running_var"), vec![n], |x| 1.0 + 0.5 * x.abs());
    }
}
