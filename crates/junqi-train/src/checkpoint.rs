//! Checkpoints and exported nets: safetensors files with metadata.
//!
//! Both are plain safetensors (readable by Python's `safetensors`, or by
//! hand: an 8-byte header length, a JSON header, the data). Metadata keys:
//!
//! | key | meaning |
//! |---|---|
//! | `format` | `junqi-train-checkpoint/1` or `junqi-net/1`; a four-player net's `junqi-siguo-train-checkpoint/1` or `junqi-siguo-net/1` |
//! | `architecture` | the [`ModelConfig`] as JSON |
//! | `input`, `actions`, `value` | `[C,12,5]` planes-v3 (planes-v2: C = 110, no rule-state planes; planes-v1: C = 100, no history planes either), `3600 from*60+to`, `win,draw,loss` |
//! | `step` | training steps done |
//! | `code_version` | the junqi version and git commit |
//! | `checksum_fnv1a64` | FNV-1a (64-bit, hex) over the other metadata entries and the tensors' names, shapes and data: a damaged or edited file is refused |
//! | `data_fnv1a64` | FNV-1a (64-bit, hex) of the tensor data in file order (what older versions check) |
//! | `config`, `optimizer_updates`, `data_window` | checkpoints only |
//!
//! Tensor names are the net's variable names (`stem.conv.weight`, …); a
//! checkpoint prefixes them with `net.` and adds the optimiser state as
//! `optim.m.<var>` / `optim.v.<var>` (AdamW) or `optim.momentum.<var>` (SGD).

use crate::config::{ModelConfig, TrainConfig};
use crate::data::DataWindow;
use crate::net::Net;
use crate::{Result, TrainError};
use safetensors::tensor::SafeTensors;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tch::{nn, Device, Kind, Tensor};

use junqi_net::{NetFile, NetGame};
pub use junqi_net::{CHECKPOINT_FORMAT, NET_FORMAT};
const CHECKPOINT_PREFIX: &str = "ckpt-";
const CHECKPOINT_SUFFIX: &str = ".safetensors";

/// What a checkpoint's (or exported net's) metadata says.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointInfo {
    pub format: String,
    pub model: ModelConfig,
    pub step: u64,
    /// Checkpoints only.
    pub config: Option<TrainConfig>,
    pub optimizer_updates: u64,
    pub data_window: Option<DataWindow>,
    pub metadata: HashMap<String, String>,
}

/// The file name of the checkpoint at `step`.
pub(crate) fn checkpoint_name(step: u64) -> String {
    format!("{CHECKPOINT_PREFIX}{step:09}{CHECKPOINT_SUFFIX}")
}

/// The step in a checkpoint's file name (`ckpt-<step>.safetensors`), if it
/// is one.
pub(crate) fn step_in_name(name: &str) -> Option<u64> {
    name.strip_prefix(CHECKPOINT_PREFIX)?.strip_suffix(CHECKPOINT_SUFFIX)?.parse().ok()
}

/// The checkpoint with the highest step in `dir` (temporary files, whose
/// names start with a dot, and checkpoints set aside as `.corrupt` are
/// ignored); `None` when there is none. Found by name, not read (the
/// training driver resumes from the newest that reads and checks).
pub fn latest_checkpoint(dir: &Path) -> Result<Option<PathBuf>> {
    Ok(checkpoints(dir)?.pop().map(|(_, p)| p))
}

/// The checkpoints in `dir` by step (from their names), oldest first.
pub(crate) fn checkpoints(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    if dir.is_dir() {
        for e in std::fs::read_dir(dir).map_err(TrainError::io(dir))?.flatten() {
            if let Some(step) = step_in_name(&e.file_name().to_string_lossy()) {
                out.push((step, e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// [`base_metadata`] of a net of `game` (a four-player net's
/// `input`, `actions` and `value` describe its planes and moves).
pub(crate) fn base_metadata_for(model: &ModelConfig, game: NetGame, format: &str) -> HashMap<String, String> {
    match game {
        NetGame::TwoPlayer => base_metadata(model, format),
        NetGame::Siguo => {
            let mut m = crate::siguo::metadata(model);
            m.insert("format".into(), format.into());
            m.insert("architecture".into(), serde_json::to_string(model).expect("model serialises"));
            m
        }
    }
}

pub(crate) fn base_metadata(model: &ModelConfig, format: &str) -> HashMap<String, String> {
    let mut m = HashMap::new();
    m.insert("format".into(), format.into());
    m.insert("architecture".into(), serde_json::to_string(model).expect("model serialises"));
    let planes = match model.in_channels {
        junqi_env::V1_CHANNELS => "planes-v1",
        junqi_env::V2_CHANNELS => "planes-v2",
        _ => "planes-v3",
    };
    m.insert("input".into(), format!("[{},12,5] {planes}", model.in_channels));
    m.insert("actions".into(), "3600 from*60+to (mover's frame)".into());
    m.insert("value".into(), "win,draw,loss".into());
    m.insert("code_version".into(), junqi_selfplay::code_version());
    m
}

fn f32_bytes(t: &Tensor) -> Result<(Vec<usize>, Vec<u8>)> {
    let shape: Vec<usize> = t.size().iter().map(|&d| d as usize).collect();
    let flat: Vec<f32> = Vec::try_from(&t.detach().to_device(Device::Cpu).to_kind(Kind::Float).reshape([-1]))?;
    Ok((shape, flat.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

/// Write tensors and metadata as safetensors, atomically (see
/// [`junqi_net::write_safetensors`]).
pub(crate) fn write(path: &Path, tensors: Vec<(String, Tensor)>, meta: HashMap<String, String>) -> Result<()> {
    let mut data = Vec::with_capacity(tensors.len());
    for (name, t) in tensors {
        let (shape, bytes) = f32_bytes(&t)?;
        data.push((name, shape, bytes));
    }
    junqi_net::write_safetensors(path, data, meta).map_err(|e| match e {
        junqi_net::NetError::Io { path, cause } => TrainError::Io { path, cause },
        other => TrainError::Net(other),
    })
}

/// The file's bytes, its metadata and the parsed info. Any defect (short,
/// bad header, missing keys, checksum mismatch, tensors that are not
/// exactly the architecture's) is a [`TrainError::Checkpoint`].
pub(crate) fn read(path: &Path) -> Result<(CheckpointInfo, Vec<u8>)> {
    read_game(path, NetGame::TwoPlayer)
}

/// The game a net file or checkpoint names in its `format`, read from the
/// header alone; `None` when that cannot be told (the full read says why).
fn file_game(bytes: &[u8]) -> Option<NetGame> {
    let (_, header) = SafeTensors::read_metadata(bytes).ok()?;
    let format = header.metadata().as_ref()?.get("format")?.clone();
    [NetGame::TwoPlayer, NetGame::Siguo].into_iter().find(|g| format == g.format() || format == g.checkpoint_format())
}

/// [`read`] for a net of `game`. A net or checkpoint of the other game is
/// a [`TrainError::Config`] naming both (not a damaged checkpoint).
pub(crate) fn read_game(path: &Path, game: NetGame) -> Result<(CheckpointInfo, Vec<u8>)> {
    let bytes = junqi_core::read_bounded(path, junqi_net::MAX_NET_BYTES).map_err(TrainError::io(path))?;
    let bad = |message: String| TrainError::Checkpoint { path: path.to_path_buf(), message };
    let other_game = file_game(&bytes).is_some_and(|g| g != game);
    let file = NetFile::parse_game(path, &bytes, game).map_err(|e| match e {
        junqi_net::NetError::File { message, .. } if other_game => {
            TrainError::Config(format!("{}: {message}", path.display()))
        }
        junqi_net::NetError::File { message, .. } => bad(message),
        other => bad(other.to_string()),
    })?;
    let meta = file.metadata;
    let json = |k: &str| -> Result<serde_json::Value> {
        let v = meta.get(k).ok_or_else(|| bad(format!("no `{k}` in the metadata")))?;
        serde_json::from_str(v).map_err(|e| bad(format!("metadata `{k}` is not JSON ({e})")))
    };
    let optimizer_updates = match meta.get("optimizer_updates") {
        None => 0,
        Some(v) => v.parse().map_err(|_| bad(format!("metadata `optimizer_updates` is `{v}`, not a number")))?,
    };
    let (config, data_window) = if file.format == game.checkpoint_format() {
        let c: TrainConfig =
            serde_json::from_value(json("config")?).map_err(|e| bad(format!("metadata `config`: {e}")))?;
        let w: Option<DataWindow> =
            serde_json::from_value(json("data_window")?).map_err(|e| bad(format!("metadata `data_window`: {e}")))?;
        (Some(c), w)
    } else {
        (None, None)
    };
    let info = CheckpointInfo {
        step: file.step,
        optimizer_updates,
        format: file.format,
        model: file.model,
        config,
        data_window,
        metadata: meta,
    };
    Ok((info, bytes))
}

/// The metadata of a checkpoint or exported net, checked.
pub fn read_metadata(path: &Path) -> Result<CheckpointInfo> {
    Ok(read(path)?.0)
}

/// Copy the tensors named `prefix + name` from the file into `vars`; every
/// variable must be there with its shape.
pub(crate) fn load_vars(path: &Path, bytes: &[u8], prefix: &str, vars: &HashMap<String, Tensor>) -> Result<()> {
    let bad = |message: String| TrainError::Checkpoint { path: path.to_path_buf(), message };
    let st = SafeTensors::deserialize(bytes).map_err(|e| bad(format!("{e:?}")))?;
    tch::no_grad(|| {
        for (name, var) in vars {
            let full = format!("{prefix}{name}");
            let view = st.tensor(&full).map_err(|_| bad(format!("no tensor `{full}`")))?;
            let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
            if shape != var.size() {
                return Err(bad(format!("`{full}` has shape {shape:?}, the net needs {:?}", var.size())));
            }
            let values: Vec<f32> =
                view.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
            let src = Tensor::from_slice(&values).reshape(&shape).to_device(var.device());
            var.shallow_clone().copy_(&src);
        }
        Ok(())
    })
}

/// Load a net for inference from an exported net or a checkpoint, on
/// `device`; the architecture comes from the file's metadata.
pub fn load_net(path: &Path, device: Device) -> Result<(nn::VarStore, Net, CheckpointInfo)> {
    let (info, bytes) = read(path)?;
    let vs = nn::VarStore::new(device);
    let net = Net::new(&vs.root(), &info.model);
    let prefix = if info.format == CHECKPOINT_FORMAT { "net." } else { "" };
    load_vars(path, &bytes, prefix, &vs.variables())?;
    Ok((vs, net, info))
}

/// Write the weights of a checkpoint (or of an exported net) as an exported
/// net at `out`: no optimiser state, format [`NET_FORMAT`] (a four-player
/// net's: `junqi-siguo-net/1`).
pub fn export_checkpoint(checkpoint: &Path, out: &Path) -> Result<()> {
    let bytes = junqi_core::read_bounded(checkpoint, junqi_net::MAX_NET_BYTES).map_err(TrainError::io(checkpoint))?;
    if file_game(&bytes) == Some(NetGame::Siguo) {
        let (info, bytes) = read_game(checkpoint, NetGame::Siguo)?;
        let vs = nn::VarStore::new(Device::Cpu);
        let _net = Net::for_game(&vs.root(), &info.model, NetGame::Siguo);
        let prefix = if info.format == NetGame::Siguo.checkpoint_format() { "net." } else { "" };
        load_vars(checkpoint, &bytes, prefix, &vs.variables())?;
        return crate::siguo::export_siguo_net(&vs, &info.model, info.step, out);
    }
    let (vs, _net, info) = load_net(checkpoint, Device::Cpu)?;
    let tensors: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
    let mut meta = base_metadata(&info.model, NET_FORMAT);
    meta.insert("step".into(), info.step.to_string());
    write(out, tensors, meta)
}
