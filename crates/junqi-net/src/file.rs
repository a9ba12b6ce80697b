//! Net files: the safetensors files `junqi-train` writes (exported nets and
//! training checkpoints), read and checked without libtorch.
//!
//! Metadata keys: `format` (`junqi-net/1` or `junqi-train-checkpoint/1`;
//! `junqi-siguo-net/1` for a four-player net, which also has `game =
//! siguo`, [`NetGame`]),
//! `architecture` (the [`ModelConfig`] as JSON), `step`, `code_version`,
//! `checksum_fnv1a64` (FNV-1a over every other metadata entry and every
//! tensor's name, shape and data, as `checksums` says) and `data_fnv1a64`
//! (FNV-1a of the tensor data alone, all older versions check);
//! checkpoints add the training config and optimiser state. Tensor names
//! are the net's variable names (`stem.conv.weight`, …), exactly those its
//! architecture has ([`NetFile::expected_tensors`]) plus optionally a
//! deployment model (`deploy.*`); a checkpoint prefixes them with `net.`
//! and adds `optim.<slot>.<name>`. See `docs/training.md`.

use crate::model::{ModelConfig, NetGame};
use crate::NetError;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const CHECKPOINT_FORMAT: &str = "junqi-train-checkpoint/1";
pub const NET_FORMAT: &str = "junqi-net/1";
/// The format of an exported four-player (四国) net ([`NetGame::Siguo`]).
pub const SIGUO_NET_FORMAT: &str = "junqi-siguo-net/1";
/// The format of a four-player net's training checkpoint (as
/// [`CHECKPOINT_FORMAT`]: `net.`-prefixed weights and the optimiser state).
pub const SIGUO_CHECKPOINT_FORMAT: &str = "junqi-siguo-train-checkpoint/1";
/// The metadata key naming a net's game ([`NetGame::key`]); a four-player
/// net has it, a two-player net may.
const GAME_KEY: &str = "game";
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

/// The metadata key of the checksum over metadata and tensors ([`checksums`]).
const CHECKSUM_KEY: &str = "checksum_fnv1a64";
/// The metadata key of the checksum over the tensor data alone (the only
/// one files written before `checksum_fnv1a64` have).
const DATA_CHECKSUM_KEY: &str = "data_fnv1a64";

/// The two checksums of a net file, as stored (16 hex digits): FNV-1a over
/// the data of `tensors` (name, shape, little-endian f32 bytes) in name
/// order (`data_fnv1a64`), and FNV-1a over everything (`checksum_fnv1a64`):
/// the number of metadata entries, then each entry but `checksum_fnv1a64`
/// in key order as key and value, then the number of tensors, then each
/// tensor in name order as name, rank, each dimension and data. Numbers
/// are u64 little-endian; a string or data is its length then its bytes.
fn checksums<'a>(
    meta: &BTreeMap<&str, &str>,
    tensors: impl ExactSizeIterator<Item = (&'a str, &'a [usize], &'a [u8])>,
) -> (String, String) {
    let (mut data, mut all) = (FNV_START, FNV_START);
    let n = |hash: &mut u64, n: usize| fnv1a(hash, &(n as u64).to_le_bytes());
    let bytes = |hash: &mut u64, b: &[u8]| {
        n(hash, b.len());
        fnv1a(hash, b);
    };
    n(&mut all, meta.len());
    for (k, v) in meta {
        bytes(&mut all, k.as_bytes());
        bytes(&mut all, v.as_bytes());
    }
    n(&mut all, tensors.len());
    for (name, shape, values) in tensors {
        bytes(&mut all, name.as_bytes());
        n(&mut all, shape.len());
        for &d in shape {
            n(&mut all, d);
        }
        bytes(&mut all, values);
        fnv1a(&mut data, values);
    }
    (format!("{data:016x}"), format!("{all:016x}"))
}

/// Paths already warned about as unsigned (the warning comes once per path).
static WARNED_UNSIGNED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// A net file, read and checked: its metadata and its weights.
#[derive(Clone, Debug)]
pub struct NetFile {
    pub path: PathBuf,
    pub format: String,
    /// The game it plays (from its format).
    pub game: NetGame,
    pub model: ModelConfig,
    pub step: u64,
    pub metadata: HashMap<String, String>,
    /// The net's tensors by variable name (without a checkpoint's `net.`
    /// prefix), as shape and `f32` values.
    pub tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl NetFile {
    /// Read `path`: a safetensors file of format [`NET_FORMAT`] or
    /// [`CHECKPOINT_FORMAT`], every tensor `f32`, the checksum right. A
    /// four-player net is refused by name.
    pub fn read(path: &Path) -> Result<NetFile, NetError> {
        NetFile::read_game(path, NetGame::TwoPlayer)
    }

    /// [`NetFile::read`] for a net of `game` (a net of the other game is
    /// refused by name).
    pub fn read_game(path: &Path, game: NetGame) -> Result<NetFile, NetError> {
        NetFile::read_wanting(path, Some(game))
    }

    /// [`NetFile::read`] for a net of either game (its `game` says which):
    /// what applies to both, such as storing a deployment model.
    pub fn read_either(path: &Path) -> Result<NetFile, NetError> {
        NetFile::read_wanting(path, None)
    }

    fn read_wanting(path: &Path, want: Option<NetGame>) -> Result<NetFile, NetError> {
        let size = std::fs::metadata(path).map_err(NetError::io(path))?.len();
        if size > MAX_NET_BYTES {
            return Err(NetError::File {
                path: path.to_path_buf(),
                message: format!("{size} bytes: larger than any net this program writes"),
            });
        }
        // Bounded and regular: `net:/dev/zero` is an error, not an endless read.
        let bytes = junqi_core::read_bounded(path, MAX_NET_BYTES).map_err(NetError::io(path))?;
        NetFile::parse_wanting(path, &bytes, want)
    }

    /// [`NetFile::read`] on the file's bytes (`path` names it in errors).
    /// A file from before `checksum_fnv1a64` (only `data_fnv1a64`) is read
    /// with a warning on stderr, once per path: its metadata is unchecked.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<NetFile, NetError> {
        NetFile::parse_game(path, bytes, NetGame::TwoPlayer)
    }

    /// [`NetFile::parse`] for a net of `game`.
    pub fn parse_game(path: &Path, bytes: &[u8], game: NetGame) -> Result<NetFile, NetError> {
        NetFile::parse_wanting(path, bytes, Some(game))
    }

    fn parse_wanting(path: &Path, bytes: &[u8], want: Option<NetGame>) -> Result<NetFile, NetError> {
        let (file, signed) = NetFile::parse_checked(path, bytes, want)?;
        if !signed {
            let mut warned = WARNED_UNSIGNED.lock().unwrap_or_else(|e| e.into_inner());
            if warned.get_or_insert_with(HashSet::new).insert(path.to_path_buf()) {
                eprintln!(
                    "warning: {}: written by an older version: only its tensor data is checksummed, its metadata \
                     (architecture, step, ...) is unchecked; re-sign it with `junqi sign-net {}`",
                    path.display(),
                    path.display()
                );
            }
        }
        Ok(file)
    }

    /// [`NetFile::parse`] without the warning, and whether the file has a
    /// `checksum_fnv1a64` (else only the tensor data was checked); a net of
    /// either game when `want` is `None`.
    fn parse_checked(path: &Path, bytes: &[u8], want: Option<NetGame>) -> Result<(NetFile, bool), NetError> {
        let bad = |message: String| NetError::File { path: path.to_path_buf(), message };
        let st = SafeTensors::deserialize(bytes).map_err(|e| bad(format!("not a valid safetensors file ({e:?})")))?;
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("bad header ({e:?})")))?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let get = |k: &str| metadata.get(k).ok_or_else(|| bad(format!("no `{k}` in the metadata")));
        let format = get("format")?.clone();
        let game = match format.as_str() {
            NET_FORMAT | CHECKPOINT_FORMAT => NetGame::TwoPlayer,
            SIGUO_NET_FORMAT | SIGUO_CHECKPOINT_FORMAT => NetGame::Siguo,
            _ => {
                return Err(bad(format!(
                    "format `{format}`, expected `{NET_FORMAT}`, `{CHECKPOINT_FORMAT}`, `{SIGUO_NET_FORMAT}` or \
                     `{SIGUO_CHECKPOINT_FORMAT}`"
                )))
            }
        };
        if let Some(named) = metadata.get(GAME_KEY).filter(|g| *g != game.key()) {
            return Err(bad(format!(
                "metadata `{GAME_KEY}` is `{named}`, but format `{format}` is a {} net",
                game.describe()
            )));
        }
        if let Some(want) = want.filter(|&w| w != game) {
            return Err(bad(wrong_game(game, &format, want)));
        }
        let mut views = st.tensors();
        views.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some((name, v)) = views.iter().find(|(_, v)| v.dtype() != Dtype::F32) {
            return Err(bad(format!("tensor `{name}` is of type {:?}, expected F32", v.dtype())));
        }
        let signed_meta = metadata.iter().filter(|(k, _)| *k != CHECKSUM_KEY).map(|(k, v)| (k.as_str(), v.as_str()));
        let (data_sum, sum) =
            checksums(&signed_meta.collect(), views.iter().map(|(n, v)| (n.as_str(), v.shape(), v.data())));
        let signed = match (metadata.get(CHECKSUM_KEY), metadata.get(DATA_CHECKSUM_KEY)) {
            (None, None) => return Err(bad(format!("no `{CHECKSUM_KEY}` in the metadata"))),
            (Some(stored), _) if *stored != sum => {
                return Err(bad(format!(
                    "the metadata or tensors do not match the checksum `{CHECKSUM_KEY}` (the file is corrupted or was edited)"
                )))
            }
            (_, Some(stored)) if *stored != data_sum => {
                return Err(bad("the tensor data does not match its checksum (the file is corrupted)".into()))
            }
            // Unsigned: only the keys older versions wrote, so a damaged
            // `checksum_fnv1a64` key name cannot pass as an older file.
            (None, _) if metadata.keys().any(|k| !UNSIGNED_KEYS.contains(&k.as_str())) => {
                let key = metadata.keys().find(|k| !UNSIGNED_KEYS.contains(&k.as_str())).expect("found");
                return Err(bad(format!(
                    "no `{CHECKSUM_KEY}`, and a metadata key `{key}` no version without it wrote (the file is corrupted)"
                )));
            }
            (signed, _) => signed.is_some(),
        };
        let model: ModelConfig =
            serde_json::from_str(get("architecture")?).map_err(|e| bad(format!("metadata `architecture`: {e}")))?;
        model.check_for(game).map_err(|e| bad(format!("metadata `architecture`: {e}")))?;
        let step = match metadata.get("step") {
            None => 0,
            Some(v) => v.parse().map_err(|_| bad(format!("metadata `step` is `{v}`, not a number")))?,
        };
        let checkpoint = format == CHECKPOINT_FORMAT || format == SIGUO_CHECKPOINT_FORMAT;
        let names = views.iter().map(|(n, v)| (n.as_str(), v.shape()));
        check_tensor_set(&model, game, checkpoint, names).map_err(bad)?;
        let prefix = if checkpoint { "net." } else { "" };
        let tensors = views
            .into_iter()
            .filter_map(|(name, v)| {
                let name = name.strip_prefix(prefix)?.to_string();
                let values = v.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
                Some((name, (v.shape().to_vec(), values.collect())))
            })
            .collect();
        Ok((NetFile { path: path.to_path_buf(), format, game, model, step, metadata, tensors }, signed))
    }

    /// The tensors a two-player net of shape `model` has, by name, with
    /// their shapes (`junqi-train`'s `Net` creates the same variables; a
    /// deployment model, `deploy.*`, may come on top).
    pub fn expected_tensors(model: &ModelConfig) -> BTreeMap<String, Vec<usize>> {
        NetFile::expected_tensors_for(model, NetGame::TwoPlayer)
    }

    /// [`NetFile::expected_tensors`] of a net of `game`.
    pub fn expected_tensors_for(model: &ModelConfig, game: NetGame) -> BTreeMap<String, Vec<usize>> {
        layout(model, game).into_iter().map(|(name, shape, _)| (name, shape)).collect()
    }

    /// Re-sign the net file (or checkpoint) at `path` written before
    /// `checksum_fnv1a64`: after the usual checks, write it again with the
    /// same tensors and metadata plus the checksum over both.
    /// Returns the file as it was read (without the warning that reading an
    /// unsigned file gives).
    pub fn resign(path: &Path) -> Result<NetFile, NetError> {
        let bytes = junqi_core::read_bounded(path, MAX_NET_BYTES).map_err(NetError::io(path))?;
        let file = NetFile::parse_checked(path, &bytes, None)?.0;
        let bad = |e| NetError::File { path: path.to_path_buf(), message: format!("{e:?}") };
        let st = SafeTensors::deserialize(&bytes).map_err(bad)?;
        let tensors = st.tensors().into_iter().map(|(n, v)| (n, v.shape().to_vec(), v.data().to_vec())).collect();
        write_safetensors(path, tensors, file.metadata.clone())?;
        Ok(file)
    }

    /// A net of shape `model` with random weights (scaled like a fresh
    /// net's, batch-norm statistics away from the identity): for tests and
    /// for timing shapes nobody has trained yet. Not written anywhere.
    pub fn random(model: &ModelConfig, seed: u64) -> NetFile {
        NetFile::random_for(model, NetGame::TwoPlayer, seed)
    }

    /// [`NetFile::random`] for a net of `game`.
    pub fn random_for(model: &ModelConfig, game: NetGame, seed: u64) -> NetFile {
        let mut t = RandomTensors { state: seed ^ 0x9E37_79B9_7F4A_7C15, tensors: HashMap::new() };
        for (name, shape, fill) in layout(model, game) {
            match fill {
                Fill::Weight(fan_in) => t.weight(&name, shape, fan_in),
                Fill::BnWeight => t.put(&name, shape, |x| 1.0 + 0.2 * x),
                Fill::BnBias | Fill::BnMean => t.put(&name, shape, |x| 0.1 * x),
                Fill::BnVar => t.put(&name, shape, |x| 1.0 + 0.5 * x.abs()),
            }
        }
        NetFile {
            path: PathBuf::from(format!("random:{}x{}", model.blocks, model.channels)),
            format: game.format().into(),
            game,
            model: model.clone(),
            step: 0,
            metadata: HashMap::new(),
            tensors: t.tensors,
        }
    }

    /// An error unless the net plays `game` (named in the error).
    pub fn expect_game(&self, game: NetGame) -> Result<(), NetError> {
        if self.game == game {
            return Ok(());
        }
        Err(NetError::File { path: self.path.clone(), message: wrong_game(self.game, &self.format, game) })
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

/// The message for a net of `found` (of format `format`) where one of
/// `want` is needed.
fn wrong_game(found: NetGame, format: &str, want: NetGame) -> String {
    format!(
        "a {} net (format `{format}`, game `{}`), where a {} net is needed",
        found.describe(),
        found.key(),
        want.describe()
    )
}

/// The metadata keys of files written before `checksum_fnv1a64`.
const UNSIGNED_KEYS: &[&str] = &[
    "format",
    "architecture",
    "step",
    "code_version",
    "data_fnv1a64",
    "value",
    "actions",
    "input",
    "config",
    "optimizer_updates",
    "data_window",
];

/// The tensors of a learned deployment model in a net file (暗棋/明棋, and
/// 四国: each army deploys on the two-player half, so the same model).
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

/// Check that `tensors` (name, shape) are exactly those of a net of shape
/// `model` ([`layout`]), with their shapes: with a checkpoint's `net.`
/// prefix when `checkpoint`, where optimiser state (`optim.<slot>.<name>`,
/// shaped like the net's `<name>`) may come too. A deployment model
/// (`deploy.*`, all three tensors) is allowed. The error names the first
/// tensor (by name) that is extra, misshapen or missing.
fn check_tensor_set<'a>(
    model: &ModelConfig,
    game: NetGame,
    checkpoint: bool,
    tensors: impl Iterator<Item = (&'a str, &'a [usize])>,
) -> Result<(), String> {
    let prefix = if checkpoint { "net." } else { "" };
    let mut expected = NetFile::expected_tensors_for(model, game);
    let tensors: Vec<(&str, &[usize])> = tensors.collect();
    if tensors.iter().any(|(n, _)| n.strip_prefix(prefix).is_some_and(|n| n.starts_with("deploy."))) {
        let deploy = [(DEPLOY_WEIGHT, junqi_bots::DEPLOY_FEATURES), (DEPLOY_BIAS, 1), (DEPLOY_TEMPERATURE, 1)];
        expected.extend(deploy.map(|(n, len)| (n.to_string(), vec![len])));
    }
    let architecture = || serde_json::to_string(model).expect("model serialises");
    let mut seen = HashSet::new();
    for &(name, shape) in &tensors {
        let net_name = match name.strip_prefix(prefix) {
            Some(n) => {
                seen.insert(n);
                Some(n)
            }
            None => name
                .strip_prefix("optim.")
                .and_then(|r| r.split_once('.'))
                .filter(|(slot, _)| ["m", "v", "momentum"].contains(slot))
                .map(|(_, n)| n),
        };
        let want = net_name
            .and_then(|n| expected.get(n))
            .ok_or_else(|| format!("tensor `{name}` is not part of a net of its architecture {}", architecture()))?;
        if shape != want.as_slice() {
            return Err(format!("tensor `{name}` has shape {shape:?}, its architecture needs {want:?}"));
        }
    }
    match expected.keys().find(|n| !seen.contains(n.as_str())) {
        Some(n) => Err(format!("no tensor `{prefix}{n}`, which a net of its architecture {} has", architecture())),
        None => Ok(()),
    }
}

/// Write `f32` tensors (name, shape, little-endian bytes) and `meta` as a
/// safetensors file, atomically: to a hidden temporary file in the same
/// folder, synced, then renamed over `path`. Adds the checksums
/// [`NetFile::read`] checks: `data_fnv1a64` and `checksum_fnv1a64` (which
/// covers the metadata too, `data_fnv1a64` included).
pub fn write_safetensors(
    path: &Path,
    mut tensors: Vec<(String, Vec<usize>, Vec<u8>)>,
    mut meta: HashMap<String, String>,
) -> Result<(), NetError> {
    // The checksums cover the tensors by name: the order safetensors stores
    // them in (all f32), which is also the order of the header's offsets.
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    meta.remove(CHECKSUM_KEY);
    let in_order = || tensors.iter().map(|(n, s, b)| (n.as_str(), s.as_slice(), b.as_slice()));
    let data_sum = checksums(&BTreeMap::new(), in_order()).0;
    meta.insert(DATA_CHECKSUM_KEY.into(), data_sum);
    let signed: BTreeMap<&str, &str> = meta.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let sum = checksums(&signed, in_order()).1;
    meta.insert(CHECKSUM_KEY.into(), sum);
    let views = tensors
        .iter()
        .map(|(n, s, b)| {
            Ok((
                n.clone(),
                TensorView::new(Dtype::F32, s.clone(), b).map_err(|e| NetError::Config(format!("{n}: {e:?}")))?,
            ))
        })
        .collect::<Result<Vec<(String, TensorView)>, NetError>>()?;
    let bytes = safetensors::tensor::serialize(views, &None)
        .map_err(|e| NetError::Config(format!("cannot serialise {}: {e:?}", path.display())))?;
    let bytes = with_sorted_metadata(&bytes, &meta.into_iter().collect())
        .ok_or_else(|| NetError::Config(format!("cannot serialise {}: a malformed header", path.display())))?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(NetError::io(dir))?;
    junqi_core::write_atomic(path, &bytes).map_err(NetError::io(path))
}

/// `file` (safetensors, written without metadata) with `meta` as its
/// `__metadata__`, keys in sorted order. safetensors writes the metadata from
/// a `HashMap`, whose order changes from one process to the next: two writes
/// of the same net would differ in their bytes. The tensors' part of the
/// header and the data stay as written.
fn with_sorted_metadata(file: &[u8], meta: &BTreeMap<String, String>) -> Option<Vec<u8>> {
    let len = usize::try_from(u64::from_le_bytes(file.get(..8)?.try_into().ok()?)).ok()?;
    let header = std::str::from_utf8(file.get(8..8usize.checked_add(len)?)?).ok()?.trim_end();
    let tensors = header.strip_prefix('{')?.strip_suffix('}')?;
    let meta = serde_json::to_string(meta).ok()?;
    let sep = if tensors.is_empty() { "" } else { "," };
    let mut text = format!("{{\"__metadata__\":{meta}{sep}{tensors}}}").into_bytes();
    // The data starts 8-aligned, as safetensors pads it.
    text.resize(text.len().next_multiple_of(8), b' ');
    let mut out = Vec::with_capacity(8 + text.len() + file.len() - 8 - len);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(&file[8 + len..]);
    Some(out)
}

impl NetFile {
    /// Write the net as an exported net of its game ([`NET_FORMAT`],
    /// [`SIGUO_NET_FORMAT`] with `game = siguo`) at `path`.
    pub fn write(&self, path: &Path) -> Result<(), NetError> {
        let tensors = self
            .tensors
            .iter()
            .map(|(name, (shape, v))| (name.clone(), shape.clone(), v.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect();
        let mut meta = self.metadata.clone();
        meta.insert("format".into(), self.game.format().into());
        if self.game == NetGame::Siguo {
            meta.insert(GAME_KEY.into(), self.game.key().into());
        }
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
}

/// How [`NetFile::random`] fills a tensor.
enum Fill {
    /// Uniform in ±√(3 / fan-in), the fan-in given.
    Weight(usize),
    BnWeight,
    BnBias,
    BnMean,
    BnVar,
}

/// Every tensor of a net of shape `model` for `game`, in the order
/// [`NetFile::random`] draws them: the one list of names and shapes
/// ([`NetFile::expected_tensors`]). The games' nets differ only in their
/// node count (the `conv` policy head's planes, the value head's input).
fn layout(model: &ModelConfig, game: NetGame) -> Vec<(String, Vec<usize>, Fill)> {
    type Layout = Vec<(String, Vec<usize>, Fill)>;
    /// A convolution without bias (`[out, in, k, k]`) and its batch norm.
    fn conv_bn(out: &mut Layout, prefix: &str, shape: Vec<usize>) {
        let (n, fan_in) = (shape[0], shape[1..].iter().product());
        out.push((format!("{prefix}.conv.weight"), shape, Fill::Weight(fan_in)));
        for (part, fill) in [
            ("weight", Fill::BnWeight),
            ("bias", Fill::BnBias),
            ("running_mean", Fill::BnMean),
            ("running_var", Fill::BnVar),
        ] {
            out.push((format!("{prefix}.bn.{part}"), vec![n], fill));
        }
    }
    /// A convolution or linear layer with bias (`[out, …]`).
    fn with_bias(out: &mut Layout, name: &str, shape: Vec<usize>) {
        let (n, fan_in) = (shape[0], shape[1..].iter().product());
        out.push((format!("{name}.weight"), shape, Fill::Weight(fan_in)));
        out.push((format!("{name}.bias"), vec![n], Fill::Weight(fan_in)));
    }
    let mut out = Vec::new();
    let (c, ci, nodes) = (model.channels, model.in_channels, game.nodes());
    conv_bn(&mut out, "stem", vec![c, ci, 3, 3]);
    for b in 0..model.blocks {
        for half in ["a", "b"] {
            conv_bn(&mut out, &format!("blocks.{b}.{half}"), vec![c, c, 3, 3]);
        }
    }
    match model.policy_head {
        crate::PolicyHead::Conv => with_bias(&mut out, "policy", vec![nodes, c, 1, 1]),
        crate::PolicyHead::Bilinear => {
            with_bias(&mut out, "policy", vec![c, c, 1, 1]);
            with_bias(&mut out, "policy_to", vec![c, c, 1, 1]);
        }
    }
    if model.belief {
        with_bias(&mut out, "belief", vec![crate::model::BELIEF_KINDS, c, 1, 1]);
    }
    let (vp, vh) = (model.value_planes, model.value_hidden);
    conv_bn(&mut out, "value", vec![vp, c, 1, 1]);
    with_bias(&mut out, "value_fc", vec![vh, vp * nodes]);
    with_bias(&mut out, "value_out", vec![3, vh]);
    out
}
