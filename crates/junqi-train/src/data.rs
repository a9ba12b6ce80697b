//! Training data: the newest games of a `samples/` dataset (`docs/data.md`),
//! streamed through a shuffle buffer into batches of tensors. The same
//! window, shuffle and validation serve both kinds of samples: two-player
//! ones, and four-player ones (format `junqi-siguo-samples/2`, or `/1`
//! without belief targets; each position a `siguo-code/1` code rebuilt
//! into the 74 × 17 × 17 planes of `junqi_siguo::observation`), told apart
//! by the shards' footers.

use crate::net::ACTIONS;
use crate::{Result, TrainError};
use junqi_env::{ObsCode, CODE_FORMAT, OBS_CHANNELS, V1_CODE_FORMAT, V2_CODE_FORMAT};
use junqi_net::NetGame;
use junqi_selfplay::{
    read_samples_file, read_siguo_samples_file, shard_files, SiguoSample, StoredSample, FORMAT_KEY, OBS_ENCODING,
    SAMPLES_DIR, SIGUO_SAMPLES_FORMAT, SIGUO_SAMPLES_FORMAT_V1,
};
use junqi_siguo::SiguoCode;
use parquet::file::reader::{FileReader, SerializedFileReader};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// The kind of samples a dataset holds, from its shards' footers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SampleKind {
    /// Two-player samples (`docs/data.md`, "samples/").
    #[default]
    #[serde(rename = "two-player")]
    TwoPlayer,
    /// Four-player (四国) samples, format [`SIGUO_SAMPLES_FORMAT`].
    #[serde(rename = "siguo")]
    Siguo,
}

impl SampleKind {
    /// The game whose nets train on these samples.
    pub fn game(self) -> NetGame {
        match self {
            SampleKind::TwoPlayer => NetGame::TwoPlayer,
            SampleKind::Siguo => NetGame::Siguo,
        }
    }

    /// The samples' name in messages.
    pub fn describe(self) -> String {
        match self {
            SampleKind::TwoPlayer => "two-player samples".into(),
            SampleKind::Siguo => format!("four-player samples (`{SIGUO_SAMPLES_FORMAT}`)"),
        }
    }
}

/// The shards holding the newest `window_games` games of a dataset, found
/// from the shards' footers (`junqi.first_game`, `junqi.games`) without
/// reading their rows. Stored in checkpoints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataWindow {
    /// The `samples/` folder.
    pub dir: PathBuf,
    /// Games `first_game ..= last_game` (ids of the self-play run).
    pub first_game: u64,
    pub last_game: u64,
    /// The shard files (names in `dir`) that hold them.
    pub shards: Vec<String>,
    /// Rows in those shards (the oldest may hold some games before `first_game`).
    pub rows: u64,
    /// Observation planes (`junqi.obs_channels`; 74 for four-player samples).
    pub channels: usize,
    /// Two- or four-player samples (a window stored before four-player
    /// samples existed is two-player).
    #[serde(default)]
    pub kind: SampleKind,
}

/// What a samples shard's footer says.
struct Footer {
    first: u64,
    games: u64,
    channels: usize,
    rows: u64,
    kind: SampleKind,
}

/// An error unless a shard's `kind` and `channels` are the window's.
fn same_samples(path: &Path, kind: SampleKind, channels: usize, window: (SampleKind, usize)) -> Result<()> {
    let message = if kind != window.0 {
        format!("{}, other shards have {}: train on one game's samples", kind.describe(), window.0.describe())
    } else if channels != window.1 {
        format!("{channels} observation planes, other shards have {}", window.1)
    } else {
        return Ok(());
    };
    Err(TrainError::Corrupt { path: path.to_path_buf(), message })
}

fn footer(path: &Path) -> Result<Footer> {
    let corrupt = |message: String| TrainError::Corrupt { path: path.to_path_buf(), message };
    let file = std::fs::File::open(path).map_err(TrainError::io(path))?;
    let reader = SerializedFileReader::new(file).map_err(|e| corrupt(format!("unreadable Parquet footer ({e})")))?;
    let meta = reader.metadata().file_metadata();
    let kv = meta.key_value_metadata().map(|v| v.as_slice()).unwrap_or(&[]);
    let get = |key: &str| -> Result<String> {
        kv.iter()
            .find(|k| k.key == key)
            .and_then(|k| k.value.clone())
            .ok_or_else(|| corrupt(format!("no `{key}` metadata: not a junqi samples shard")))
    };
    let num = |key: &str| -> Result<u64> {
        let v = get(key)?;
        v.parse().map_err(|_| corrupt(format!("metadata `{key}` is `{v}`, not a number")))
    };
    let encoding = get("junqi.obs_encoding")?;
    let (first, games, rows) = (num("junqi.first_game")?, num("junqi.games")?, meta.num_rows() as u64);
    if let Some(format) = kv.iter().find(|k| k.key == FORMAT_KEY).and_then(|k| k.value.clone()) {
        if format != SIGUO_SAMPLES_FORMAT && format != SIGUO_SAMPLES_FORMAT_V1 {
            return Err(corrupt(format!(
                "format `{format}`: not a samples shard (two-player samples, or `{SIGUO_SAMPLES_FORMAT}` or `{SIGUO_SAMPLES_FORMAT_V1}`)"
            )));
        }
        if encoding != junqi_siguo::CODE_FORMAT {
            return Err(corrupt(format!("observation encoding `{encoding}`, expected `{}`", junqi_siguo::CODE_FORMAT)));
        }
        let channels = junqi_siguo::observation::PLANES;
        return Ok(Footer { first, games, channels, rows, kind: SampleKind::Siguo });
    }
    if ![OBS_ENCODING, CODE_FORMAT, V2_CODE_FORMAT, V1_CODE_FORMAT].contains(&encoding.as_str()) {
        return Err(corrupt(format!(
            "observation encoding `{encoding}`, expected `{CODE_FORMAT}` (or `{V2_CODE_FORMAT}`, `{V1_CODE_FORMAT}`, \
             or `{OBS_ENCODING}`, samples schema 1)"
        )));
    }
    if encoding == V2_CODE_FORMAT {
        let config = kv.iter().find(|k| k.key == "junqi.config").and_then(|k| k.value.as_deref());
        let rules = config.and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok()).map(|c| c["rules"].clone());
        if let Some(option) = rules.as_ref().and_then(option_without_v2_planes) {
            return Err(corrupt(format!(
                "written in {V2_CODE_FORMAT}, before the observation had planes for `{option}`, which its rules \
                 turn on: its positions lack what the net would read there; play these games again with this build"
            )));
        }
    }
    // An older code (and a schema-1 row of 100 planes) reads as today's
    // without what came later (ObsCode::from_bytes, the schema-1 reader).
    let channels = if encoding == CODE_FORMAT { num("junqi.obs_channels")? as usize } else { OBS_CHANNELS };
    Ok(Footer { first, games, channels, rows, kind: SampleKind::TwoPlayer })
}

/// The first option of stored `rules` (JSON) that `obs-code-v2` has no
/// planes for: its positions read with that option's planes off, which would
/// teach a net the wrong thing. Older rules without the key have it off.
fn option_without_v2_planes(rules: &serde_json::Value) -> Option<&'static str> {
    let on = |key: &str| rules[key].as_bool() == Some(true);
    let mountains = rules["mountains"].as_str().is_some_and(|m| m != "closed");
    [("flag_carry", on("flag_carry")), ("hunqi", on("hunqi")), ("mountains", mountains)]
        .into_iter()
        .find_map(|(name, set)| set.then_some(name))
}

impl DataWindow {
    /// The newest `window_games` games (0 = all) of the dataset in `data_dir`
    /// (a self-play output folder, or its `samples/` folder).
    pub fn open(data_dir: &Path, window_games: u64) -> Result<DataWindow> {
        let sub = data_dir.join(SAMPLES_DIR);
        let dir = if sub.is_dir() { sub } else { data_dir.to_path_buf() };
        let mut shards = Vec::new();
        for path in shard_files(&dir)? {
            let f = footer(&path)?;
            if f.games > 0 {
                shards.push((path, f.first, f.first + f.games - 1, (f.kind, f.channels), f.rows));
            }
        }
        let Some(last_game) = shards.iter().map(|s| s.2).max() else {
            return Err(TrainError::Config(format!(
                "{}: no samples shards (is it a `junqi selfplay` output?)",
                dir.display()
            )));
        };
        let first_game = if window_games == 0 { 0 } else { (last_game + 1).saturating_sub(window_games) };
        shards.retain(|s| s.2 >= first_game);
        let (kind, channels) = shards[0].3;
        for s in &shards {
            same_samples(&s.0, s.3 .0, s.3 .1, (kind, channels))?;
        }
        let first_game = first_game.max(shards.iter().map(|s| s.1).min().unwrap_or(0));
        Ok(DataWindow {
            first_game,
            last_game,
            rows: shards.iter().map(|s| s.4).sum(),
            shards: shards.iter().map(|s| s.0.file_name().unwrap().to_string_lossy().into_owned()).collect(),
            channels,
            kind,
            dir,
        })
    }

    /// Every game of several self-play runs (e.g. the training loop's newest
    /// generations) as one window: `root` is their common parent and each
    /// run a folder under it. Game ids repeat from run to run, so the id
    /// range covers them all.
    pub fn of_runs(root: &Path, runs: &[PathBuf]) -> Result<DataWindow> {
        let mut shards = Vec::new();
        let (mut last_game, mut rows, mut seen) = (0, 0, None);
        for run in runs {
            for path in shard_files(&run.join(SAMPLES_DIR))? {
                let f = footer(&path)?;
                if f.games == 0 {
                    continue;
                }
                same_samples(&path, f.kind, f.channels, *seen.get_or_insert((f.kind, f.channels)))?;
                last_game = last_game.max(f.first + f.games - 1);
                rows += f.rows;
                let rel = path
                    .strip_prefix(root)
                    .map_err(|_| TrainError::Config(format!("{} is not under {}", path.display(), root.display())))?;
                shards.push(rel.to_string_lossy().into_owned());
            }
        }
        let Some((kind, channels)) = seen else {
            return Err(TrainError::Config(format!("{}: no samples shards in the runs", root.display())));
        };
        Ok(DataWindow { dir: root.to_path_buf(), first_game: 0, last_game, shards, rows, channels, kind })
    }

    /// Every game of the self-play (or reanalysis) outputs `dirs`, each a
    /// run folder holding `samples/` or that `samples/` folder itself, as
    /// one window (`junqi train --data A --data B`): [`DataWindow::of_runs`]
    /// under the folders' deepest common parent. No game window applies.
    pub fn of_dirs(dirs: &[PathBuf]) -> Result<DataWindow> {
        let mut runs = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let full =
                std::fs::canonicalize(dir).map_err(|e| TrainError::Config(format!("--data {}: {e}", dir.display())))?;
            let run = match full.join(SAMPLES_DIR).is_dir() {
                true => full,
                false if full.ends_with(SAMPLES_DIR) => full.parent().expect("samples/ has a parent").to_path_buf(),
                false => {
                    return Err(TrainError::Config(format!(
                        "--data {}: no samples/ folder (is it a `junqi selfplay` output?)",
                        dir.display()
                    )))
                }
            };
            if shard_files(&run.join(SAMPLES_DIR))?.is_empty() {
                return Err(TrainError::Config(format!("--data {}: no samples shards", dir.display())));
            }
            // The same run named twice (`A` and `A/samples`) counts once.
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
        let mut root = runs.first().cloned().unwrap_or_default();
        while !runs.iter().all(|r| r.starts_with(&root)) {
            if !root.pop() {
                return Err(TrainError::Config("the --data folders share no common parent".into()));
            }
        }
        DataWindow::of_runs(&root, &runs)
    }

    pub fn games(&self) -> u64 {
        self.last_game + 1 - self.first_game
    }

    /// The examples of the shard at `path` (one of the window's) whose game
    /// `keep` accepts, each checked.
    fn shard_examples(&self, path: &Path, keep: impl Fn(u64) -> bool) -> Result<Vec<Example>> {
        let corrupt = |message: String| TrainError::Corrupt { path: path.to_path_buf(), message };
        match self.kind {
            SampleKind::TwoPlayer => read_samples_file(path)?
                .into_iter()
                .filter(|s| keep(s.game_id))
                .map(|s| Example::from_stored(s, self.channels).map_err(corrupt))
                .collect(),
            SampleKind::Siguo => read_siguo_samples_file(path)?
                .into_iter()
                .filter(|s| keep(s.game_id))
                .map(|s| Example::from_siguo(s).map_err(corrupt))
                .collect(),
        }
    }
}

/// A position as a sample stores it: a seat's observation, compact.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionCode {
    /// The two-player code (`obs-code-v3`).
    TwoPlayer(ObsCode),
    /// The four-player code (`siguo-code/1`).
    Siguo(Box<SiguoCode>),
}

impl PositionCode {
    /// The game the position is of.
    pub fn game(&self) -> NetGame {
        match self {
            PositionCode::TwoPlayer(_) => NetGame::TwoPlayer,
            PositionCode::Siguo(_) => NetGame::Siguo,
        }
    }

    /// The two-player code (the targets only two-player samples support use it).
    fn two_player(&self) -> Option<&ObsCode> {
        match self {
            PositionCode::TwoPlayer(code) => Some(code),
            PositionCode::Siguo(_) => None,
        }
    }

    /// How far the quiet-move counter has run towards its draw, in [0, 1].
    fn quiet_fraction(&self) -> f32 {
        match self {
            PositionCode::TwoPlayer(code) => code.quiet_fraction().clamp(0.0, 1.0),
            PositionCode::Siguo(code) => code.quiet_fraction(),
        }
    }

    /// Whether action `a` makes progress: it resets the quiet-move counter
    /// when played. Two players: a flip, or an attack on a known enemy
    /// piece. Four players: [`SiguoCode::is_progress`] (an attack on an
    /// enemy army's piece that cannot bounce).
    fn is_progress(&self, a: usize) -> bool {
        match self {
            PositionCode::TwoPlayer(code) => is_progress(code, a),
            PositionCode::Siguo(code) => code.is_progress(a),
        }
    }

    /// The pieces of the seat's team and of the enemy team (four players
    /// only; two-player codes give `None`).
    fn team_pieces(&self) -> Option<(u32, u32)> {
        match self {
            PositionCode::TwoPlayer(_) => None,
            PositionCode::Siguo(code) => Some(code.team_pieces()),
        }
    }

    /// Write the observation planes into `out` (the game's planes × cells).
    fn write_planes(&self, out: &mut [f32]) {
        match self {
            PositionCode::TwoPlayer(code) => code.write_planes(out),
            PositionCode::Siguo(code) => code.planes_into(out).expect("a four-player observation's length"),
        }
    }
}

/// Check a sample's targets (`at` names it): ascending legal action ids
/// below `actions`, the action played among them, a policy over them that
/// sums to 1, an outcome in -1..=1.
fn check_targets(
    at: &str,
    legal: &[u16],
    action: u16,
    policy: &[f32],
    outcome: i8,
    actions: usize,
) -> Result<(), String> {
    if legal.is_empty() || legal.windows(2).any(|w| w[0] >= w[1]) || legal[legal.len() - 1] as usize >= actions {
        return Err(format!("{at}: the legal actions are not ascending action ids"));
    }
    if legal.binary_search(&action).is_err() {
        return Err(format!("{at}: the played action {action} is not legal"));
    }
    if policy.len() != legal.len() {
        return Err(format!("{at}: {} policy values for {} legal actions", policy.len(), legal.len()));
    }
    if let Some(p) = policy.iter().find(|p| !(p.is_finite() && **p >= 0.0)) {
        return Err(format!("{at}: policy probability {p}"));
    }
    let sum: f32 = policy.iter().sum();
    if (sum - 1.0).abs() > 1e-3 {
        return Err(format!("{at}: policy probabilities sum to {sum}"));
    }
    if !(-1..=1).contains(&outcome) {
        return Err(format!("{at}: outcome {outcome}"));
    }
    Ok(())
}

/// One training position, kept compact (the observation as its code) until
/// it goes into a [`Batch`].
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub game_id: u64,
    pub ply: u32,
    /// The mover's observation, compact.
    pub position: PositionCode,
    /// The legal action ids, ascending.
    pub legal: Vec<u16>,
    /// The policy target, aligned with `legal`.
    pub policy: Vec<f32>,
    pub action: u16,
    /// +1 won, 0 draw, -1 lost (the mover's side).
    pub outcome: i8,
    /// The searching bot's value of the position in [-1, 1] (the mover's
    /// side), when it stored one.
    pub search_value: Option<f32>,
    /// The value target as win/draw/loss probabilities when it is not the
    /// outcome alone ([`Example::mix_search_value`]).
    pub value_target: Option<[f32; 3]>,
    /// The belief head's targets: per node, 1 + the kind of a hidden enemy
    /// piece, else 0; empty when there are none. Four-player samples: per
    /// seat-relative node, the pieces of the armies the seat does not see
    /// (none in `junqi-siguo-samples/1` shards: their belief head is not trained).
    pub hidden_kinds: Vec<u8>,
}

impl Example {
    /// Check a stored sample and make it an example; `Err` says what is wrong.
    pub fn from_stored(s: StoredSample, channels: usize) -> std::result::Result<Example, String> {
        let x = s.sample;
        let at = format!("game {} ply {}", s.game_id, x.ply);
        if channels != junqi_env::OBS_CHANNELS {
            return Err(format!(
                "{at}: positions rebuild {} planes, the data says {channels}",
                junqi_env::OBS_CHANNELS
            ));
        }
        check_targets(&at, &x.legal, x.action, &x.policy, x.outcome, ACTIONS as usize)?;
        if let Some(v) = x.value.filter(|v| !(v.is_finite() && (-1.0..=1.0).contains(v))) {
            return Err(format!("{at}: search value {v} is not in [-1, 1]"));
        }
        Ok(Example {
            game_id: s.game_id,
            ply: x.ply,
            position: PositionCode::TwoPlayer(x.position),
            legal: x.legal,
            policy: x.policy,
            action: x.action,
            outcome: x.outcome,
            search_value: x.value,
            value_target: None,
            hidden_kinds: x.hidden_kinds,
        })
    }

    /// Check a four-player sample and make it an example (no search
    /// value; its belief targets, if any); `Err` says what is wrong.
    pub fn from_siguo(s: SiguoSample) -> std::result::Result<Example, String> {
        let at = format!("game {} ply {}", s.game_id, s.ply);
        let code = SiguoCode::from_bytes(&s.code).map_err(|e| format!("{at}: {e}"))?;
        if code.seat.index() != s.seat as usize {
            return Err(format!("{at}: the code is seat {}'s, the sample says seat {}", code.seat.index(), s.seat));
        }
        check_targets(&at, &s.legal_actions, s.action, &s.policy, s.outcome, junqi_siguo::observation::ACTIONS)?;
        Ok(Example {
            game_id: s.game_id,
            ply: s.ply,
            position: PositionCode::Siguo(Box::new(code)),
            legal: s.legal_actions,
            policy: s.policy,
            action: s.action,
            outcome: s.outcome,
            search_value: None,
            value_target: None,
            hidden_kinds: s.hidden_kinds,
        })
    }

    /// The position's quiet-move counter as a fraction of its draw.
    fn quiet_fraction(&self) -> f32 {
        self.position.quiet_fraction()
    }

    /// Make the value target (1 − `share`) · the outcome + `share` · the
    /// search's value, the latter as win and loss probabilities (1 ± v) / 2
    /// (see [`crate::DataConfig::value_target_search`]); without a search
    /// value, or at share 0, the target stays the outcome.
    pub fn mix_search_value(&mut self, share: f64) {
        let Some(v) = self.search_value.filter(|_| share > 0.0) else {
            self.value_target = None;
            return;
        };
        let (w, v) = (share as f32, v.clamp(-1.0, 1.0));
        let mut target = self.outcome_probs().map(|p| (1.0 - w) * p);
        target[0] += w * (1.0 + v) / 2.0;
        target[2] += w * (1.0 - v) / 2.0;
        self.value_target = Some(target);
    }

    /// Move `share` · q of the value target's win and loss mass to the draw,
    /// q being how far the quiet-move counter has run towards its draw
    /// (plane `quiet_fraction`; see [`crate::DataConfig::value_target_quiet`]).
    /// A position the mover later won after many quiet plies is then worth
    /// less than the same position with a fresh counter, so a capture or a
    /// flip (which resets it) gains value: progress pays.
    pub fn discount_quiet(&mut self, share: f64) {
        let q = share as f32 * self.quiet_fraction();
        if q <= 0.0 {
            return;
        }
        let [win, draw, loss] = self.value_target.unwrap_or_else(|| self.outcome_probs());
        let moved = q * (win + loss);
        if moved == 0.0 {
            return; // a drawn game's target is the draw already
        }
        self.value_target = Some([(1.0 - q) * win, draw + moved, (1.0 - q) * loss]);
    }

    /// Multiply the policy target of every progress action (two players: a
    /// flip, or an attack on a known enemy piece; four players: an attack
    /// on an enemy piece; all reset the quiet-move counter when they
    /// happen) by 1 + `boost` · q, q being the position's
    /// `quiet_fraction`, and renormalise (see
    /// [`crate::DataConfig::policy_target_progress`]). Actions the search
    /// gave nothing keep nothing.
    /// With `lead` > 0, only where the seat's team has at least `lead`
    /// times the enemy team's pieces (four players;
    /// [`crate::DataConfig::policy_target_progress_lead`]).
    pub fn boost_progress(&mut self, boost: f64, lead: f64) {
        let factor = 1.0 + boost as f32 * self.quiet_fraction();
        if factor <= 1.0 {
            return;
        }
        if lead > 0.0 {
            match self.position.team_pieces() {
                Some((ours, theirs)) if ours as f64 >= lead * theirs as f64 => {}
                _ => return,
            }
        }
        let mut sum = 0.0f32;
        for (p, &a) in self.policy.iter_mut().zip(&self.legal) {
            if self.position.is_progress(a as usize) {
                *p *= factor;
            }
            sum += *p;
        }
        if sum > 0.0 {
            self.policy.iter_mut().for_each(|p| *p /= sum);
        }
    }

    /// Multiply the policy target of the move that undoes the seat's own
    /// last move (its piece going straight back) by 1 − `damp`, and
    /// renormalise (see [`crate::DataConfig::policy_target_return`]). Where
    /// the search gave nothing else any weight the target stays as it was:
    /// a forced retreat is still taught.
    pub fn damp_return(&mut self, damp: f64) {
        let last = self.position.two_player().and_then(|code| code.history(1));
        let Some((from, to)) = last.filter(|&(f, t)| damp > 0.0 && f != t) else {
            return;
        };
        let back = junqi_core::Square::new(to)
            .zip(junqi_core::Square::new(from))
            .map(|(to, from)| junqi_core::Move::new(to, from).action_id() as u16);
        let Some(i) = self.legal.iter().position(|&a| Some(a) == back) else {
            return;
        };
        let rest = 1.0 - self.policy[i];
        if rest <= 0.0 {
            return;
        }
        let kept = self.policy[i] * (1.0 - damp.min(1.0) as f32);
        let sum = rest + kept;
        self.policy[i] = kept;
        self.policy.iter_mut().for_each(|p| *p /= sum);
    }

    /// Re-weight the policy target to ∝ π^(1/temp), still summing to 1;
    /// `temp = 0` keeps the most probable actions only, sharing equally.
    pub fn sharpen_policy(&mut self, temp: f64) {
        if temp == 1.0 || self.policy.is_empty() {
            return;
        }
        let top = self.policy.iter().copied().fold(0.0f32, f32::max);
        for p in &mut self.policy {
            *p = if temp == 0.0 {
                (*p == top) as u8 as f32
            } else {
                // Relative to the top share, so small temperatures do not underflow to all zeros.
                ((*p / top) as f64).powf(1.0 / temp) as f32
            };
        }
        let sum: f32 = self.policy.iter().sum();
        for p in &mut self.policy {
            *p /= sum;
        }
    }

    /// The value class: 0 win, 1 draw, 2 loss.
    pub fn wdl(&self) -> i64 {
        1 - self.outcome as i64
    }

    /// The outcome as win/draw/loss probabilities (1 at [`Example::wdl`]).
    fn outcome_probs(&self) -> [f32; 3] {
        let mut probs = [0.0; 3];
        probs[self.wdl() as usize] = 1.0;
        probs
    }
}

/// A batch of examples as tensors on one device. The policy is kept at
/// the legal actions: row `i` lists its legal action ids in `legal_ids`,
/// padded to the batch's longest list (`legal_valid` says which entries are
/// real), and `policy` holds their target probabilities.
#[derive(Debug)]
pub struct Batch {
    /// The game of the positions.
    pub game: NetGame,
    /// `[B, C, 12, 5]` float (four-player: `[B, 74, 17, 17]`).
    pub obs: Tensor,
    /// `[B, L]` int64: legal action ids, padded with 0.
    pub legal_ids: Tensor,
    /// `[B, L]` bool: which entries of `legal_ids` are legal actions.
    pub legal_valid: Tensor,
    /// `[B, L]` float: the stored policy at `legal_ids` (sums to 1; 0 on padding).
    pub policy: Tensor,
    /// `[B]` int64: the place of the action played in its row of `legal_ids`.
    pub action: Tensor,
    /// `[B]` int64: 0 win, 1 draw, 2 loss.
    pub wdl: Tensor,
    /// `[B, 3]` float: the value target as win/draw/loss probabilities,
    /// when some example's is not its outcome alone (else `None`: `wdl`).
    pub value_target: Option<Tensor>,
    /// `[B, 60]` int64 (four-player: `[B, 129]`): the kind of the hidden
    /// enemy piece on each node (the belief head's target), -1 where there
    /// is none.
    pub hidden_kinds: Tensor,
    pub len: usize,
}

impl Batch {
    /// The examples' tensors: each position's planes rebuilt from its code
    /// ([`ObsCode::write_planes`], [`SiguoCode::planes_into`]), its legal
    /// actions and the policy on them. The examples are of one game.
    pub fn new(examples: &[Example], channels: usize, device: Device) -> Result<Batch> {
        let game = examples.first().map_or(NetGame::TwoPlayer, |e| e.position.game());
        if let Some(e) = examples.iter().find(|e| e.position.game() != game) {
            return Err(TrainError::Config(format!(
                "game {} ply {}: a {} position among {} ones",
                e.game_id,
                e.ply,
                e.position.game().describe(),
                game.describe()
            )));
        }
        if channels != game.planes() {
            return Err(TrainError::Config(format!(
                "the data has {channels} planes per position, this build rebuilds {} ({})",
                game.planes(),
                game.describe()
            )));
        }
        let (grid, nodes) = (game.grid(), game.nodes());
        let obs_size = channels * grid.cells();
        let b = examples.len();
        let width = examples.iter().map(|e| e.legal.len()).max().unwrap_or(0).max(1);
        let mut obs = vec![0f32; b * obs_size];
        let mut ids = vec![0i64; b * width];
        let mut valid = vec![0u8; b * width];
        let mut policy = vec![0f32; b * width];
        let mut action = Vec::with_capacity(b);
        let mut hidden = vec![-1i64; b * nodes];
        for (i, e) in examples.iter().enumerate() {
            for (n, &k) in e.hidden_kinds.iter().enumerate().take(nodes) {
                if k > 0 {
                    hidden[i * nodes + n] = k as i64 - 1;
                }
            }
            e.position.write_planes(&mut obs[i * obs_size..(i + 1) * obs_size]);
            for (j, (&a, &p)) in e.legal.iter().zip(&e.policy).enumerate() {
                ids[i * width + j] = a as i64;
                valid[i * width + j] = 1;
                policy[i * width + j] = p;
            }
            let played = e.legal.binary_search(&e.action).map_err(|_| {
                TrainError::Config(format!("game {} ply {}: the played action is not legal", e.game_id, e.ply))
            })?;
            action.push(played as i64);
        }
        let (bl, w) = (b as i64, width as i64);
        let wdl: Vec<i64> = examples.iter().map(Example::wdl).collect();
        let value_target = examples.iter().any(|e| e.value_target.is_some()).then(|| {
            let rows: Vec<f32> =
                examples.iter().flat_map(|e| e.value_target.unwrap_or_else(|| e.outcome_probs())).collect();
            Tensor::from_slice(&rows).reshape([bl, 3]).to_device(device)
        });
        let (rows, cols) = (grid.rows as i64, grid.cols as i64);
        Ok(Batch {
            game,
            obs: Tensor::from_slice(&obs).reshape([bl, channels as i64, rows, cols]).to_device(device),
            legal_ids: Tensor::from_slice(&ids).reshape([bl, w]).to_device(device),
            legal_valid: Tensor::from_slice(&valid).reshape([bl, w]).to_kind(Kind::Bool).to_device(device),
            policy: Tensor::from_slice(&policy).reshape([bl, w]).to_device(device),
            action: Tensor::from_slice(&action).to_device(device),
            wdl: Tensor::from_slice(&wdl).to_device(device),
            value_target,
            hidden_kinds: Tensor::from_slice(&hidden).reshape([bl, nodes as i64]).to_device(device),
            len: b,
        })
    }

    /// The legal actions as a `[B, 3600]` (four-player: `[B, 16641]`) bool
    /// mask (on the batch's device).
    pub fn legal_mask(&self) -> Tensor {
        let actions = (self.game.nodes() * self.game.nodes()) as i64;
        let ids: Vec<i64> = Vec::try_from(self.legal_ids.to_device(Device::Cpu).reshape([-1])).expect("int64 ids");
        let valid: Vec<bool> = Vec::try_from(self.legal_valid.to_device(Device::Cpu).reshape([-1])).expect("bools");
        let width = ids.len() / self.len.max(1);
        let mut mask = vec![0u8; self.len * actions as usize];
        for (k, (&a, &ok)) in ids.iter().zip(&valid).enumerate() {
            if ok {
                mask[k / width * actions as usize + a as usize] = 1;
            }
        }
        Tensor::from_slice(&mask)
            .reshape([self.len as i64, actions])
            .to_kind(Kind::Bool)
            .to_device(self.legal_ids.device())
    }
}

/// Whether action `a` (the seat's frame, `from · 60 + to`) flips a piece or
/// attacks a known enemy piece in the position coded as `code`.
fn is_progress(code: &ObsCode, a: usize) -> bool {
    junqi_core::Move::from_action_id(a)
        .is_some_and(|m| m.is_flip() || code.node(m.to.index()).0 == junqi_env::code::CLASS_ENEMY)
}

/// An endless stream of the window's examples: shards are read in a random
/// order (a new one each pass) into a shuffle buffer, and examples leave it
/// from random places. The buffer holds `min(shuffle_buffer, window rows)`
/// examples (one shard more while refilling), so memory does not grow with
/// the dataset.
pub struct Loader {
    window: DataWindow,
    capacity: usize,
    order: Vec<usize>,
    next: usize,
    buffer: Vec<Example>,
    rng: rand_pcg::Pcg64,
    /// Completed passes over the window's shards.
    pub passes: u64,
    /// Examples taken from the shards in the current pass.
    pass_examples: u64,
    /// See [`crate::DataConfig::policy_target_temp`].
    policy_target_temp: f64,
    /// See [`crate::DataConfig::value_target_search`].
    value_target_search: f64,
    /// See [`crate::DataConfig::value_target_quiet`].
    value_target_quiet: f64,
    /// See [`crate::DataConfig::policy_target_progress`].
    policy_target_progress: f64,
    /// See [`crate::DataConfig::policy_target_progress_lead`].
    policy_target_progress_lead: f64,
    /// See [`crate::DataConfig::policy_target_return`].
    policy_target_return: f64,
    /// See [`crate::DataConfig::validation_every`]: these games are skipped.
    held_out: u64,
}

/// Whether game `id` is held out for validation (one in `every`; 0 = none).
pub fn held_out(id: u64, every: u64) -> bool {
    every > 1 && id % every == every - 1
}

impl Loader {
    pub fn new(window: DataWindow, shuffle_buffer: usize, seed: u64) -> Loader {
        let capacity = shuffle_buffer.min(window.rows as usize).max(1);
        Loader {
            order: Vec::new(),
            next: 0,
            buffer: Vec::with_capacity(capacity),
            rng: rand_pcg::Pcg64::seed_from_u64(seed),
            passes: 0,
            pass_examples: 0,
            window,
            capacity,
            policy_target_temp: 1.0,
            value_target_search: 0.0,
            value_target_quiet: 0.0,
            policy_target_progress: 0.0,
            policy_target_progress_lead: 0.0,
            policy_target_return: 0.0,
            held_out: 0,
        }
    }

    /// Skip the games held out for validation (one in `every`, see [`held_out`]).
    pub fn holding_out(mut self, every: u64) -> Loader {
        self.held_out = every;
        self
    }

    /// Up to `max` positions of the window's held-out games (one in
    /// `every`), chosen uniformly with a seeded reservoir, in a fixed order:
    /// the validation set. Empty when the window has no such game.
    pub fn validation_set(window: &DataWindow, every: u64, max: usize, seed: u64) -> Result<Vec<Example>> {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let (mut kept, mut seen) = (Vec::new(), 0usize);
        for shard in &window.shards {
            let path = window.dir.join(shard);
            let keep = |id: u64| id >= window.first_game && id <= window.last_game && held_out(id, every);
            for e in window.shard_examples(&path, keep)? {
                seen += 1;
                if kept.len() < max {
                    kept.push(e);
                } else {
                    let j = rng.random_range(0..seen);
                    if j < max {
                        kept[j] = e;
                    }
                }
            }
        }
        Ok(kept)
    }

    /// Train the policy on the stored distribution sharpened to
    /// ∝ π^(1/temp) ([`Example::sharpen_policy`]).
    pub fn with_policy_target_temp(mut self, temp: f64) -> Loader {
        self.policy_target_temp = temp;
        self
    }

    /// Train the value on the outcome mixed with the search's value
    /// ([`Example::mix_search_value`]).
    pub fn with_value_target_search(mut self, share: f64) -> Loader {
        self.value_target_search = share;
        self
    }

    /// Discount the value target's wins and losses by the quiet-move
    /// counter ([`Example::discount_quiet`]).
    pub fn with_value_target_quiet(mut self, share: f64) -> Loader {
        self.value_target_quiet = share;
        self
    }

    /// Tip the policy target towards flips and attacks as the quiet-move
    /// counter runs ([`Example::boost_progress`]).
    pub fn with_policy_target_progress(mut self, boost: f64) -> Loader {
        self.policy_target_progress = boost;
        self
    }

    /// Tip only where the seat's team leads in pieces
    /// ([`crate::DataConfig::policy_target_progress_lead`]).
    pub fn with_policy_target_progress_lead(mut self, lead: f64) -> Loader {
        self.policy_target_progress_lead = lead;
        self
    }

    /// Damp the policy target of the move going straight back
    /// ([`Example::damp_return`]).
    pub fn with_policy_target_return(mut self, damp: f64) -> Loader {
        self.policy_target_return = damp;
        self
    }

    pub fn window(&self) -> &DataWindow {
        &self.window
    }

    fn load_next_shard(&mut self) -> Result<()> {
        if self.next >= self.order.len() {
            if !self.order.is_empty() {
                if self.pass_examples == 0 {
                    return Err(TrainError::Config(format!(
                        "{}: no samples for games {}..={} (were the games played with --samples-per-game 0?)",
                        self.window.dir.display(),
                        self.window.first_game,
                        self.window.last_game
                    )));
                }
                self.passes += 1;
            }
            self.order = (0..self.window.shards.len()).collect();
            for i in (1..self.order.len()).rev() {
                let j = self.rng.random_range(0..=i);
                self.order.swap(i, j);
            }
            self.next = 0;
            self.pass_examples = 0;
        }
        let path = self.window.dir.join(&self.window.shards[self.order[self.next]]);
        self.next += 1;
        let (window, every) = (&self.window, self.held_out);
        let keep = |id: u64| id >= window.first_game && id <= window.last_game && !held_out(id, every);
        for mut e in window.shard_examples(&path, keep)? {
            e.sharpen_policy(self.policy_target_temp);
            e.boost_progress(self.policy_target_progress, self.policy_target_progress_lead);
            e.damp_return(self.policy_target_return);
            e.mix_search_value(self.value_target_search);
            e.discount_quiet(self.value_target_quiet);
            self.buffer.push(e);
            self.pass_examples += 1;
        }
        Ok(())
    }

    pub fn next_example(&mut self) -> Result<Example> {
        while self.buffer.len() < self.capacity {
            self.load_next_shard()?;
        }
        let i = self.rng.random_range(0..self.buffer.len());
        Ok(self.buffer.swap_remove(i))
    }

    /// Draw and drop `n` examples: where a resumed run's data order
    /// continues (the same draws as the batches it skips, without building them).
    pub fn skip(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.next_example()?;
        }
        Ok(())
    }

    pub fn next_examples(&mut self, n: usize) -> Result<Vec<Example>> {
        (0..n).map(|_| self.next_example()).collect()
    }

    pub fn next_batch(&mut self, n: usize, device: Device) -> Result<Batch> {
        let examples = self.next_examples(n)?;
        Batch::new(&examples, self.window.channels, device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// obs-code-v2 shards are read unless their rules turn on an option
    /// whose state those codes lack; rules stored before an option existed have it off.
    #[test]
    fn v2_codes_are_refused_only_under_the_options_they_cannot_show() {
        let rules = |set: &[&str]| {
            let mut r = junqi_core::Rules::preset(junqi_core::Mode::Fanqi);
            set.iter().for_each(|o| r.apply_override(o).unwrap());
            serde_json::to_value(r).unwrap()
        };
        assert_eq!(option_without_v2_planes(&rules(&[])), None);
        assert_eq!(option_without_v2_planes(&rules(&["bomb_flies=true"])), None);
        assert_eq!(option_without_v2_planes(&rules(&["flag_carry=true"])), Some("flag_carry"));
        assert_eq!(option_without_v2_planes(&rules(&["hunqi=true"])), Some("hunqi"));
        assert_eq!(option_without_v2_planes(&rules(&["mountains=engineer"])), Some("mountains"));
        let mut old = rules(&[]);
        ["flag_carry", "hunqi", "mountains"].iter().for_each(|k| _ = old.as_object_mut().unwrap().remove(*k));
        assert_eq!(option_without_v2_planes(&old), None);
    }

    fn example(policy: &[(u16, f32)]) -> Example {
        Example {
            game_id: 0,
            ply: 0,
            position: PositionCode::TwoPlayer(ObsCode([0; junqi_env::CODE_BYTES])),
            legal: policy.iter().map(|&(a, _)| a).collect(),
            action: policy[0].0,
            policy: policy.iter().map(|&(_, p)| p).collect(),
            outcome: 0,
            search_value: None,
            value_target: None,
            hidden_kinds: Vec::new(),
        }
    }

    fn probs(e: &Example) -> Vec<f32> {
        e.policy.clone()
    }

    #[test]
    fn policy_targets_sharpen_by_temperature() {
        let stored = [(3, 0.5), (7, 0.25), (9, 0.25)];
        let mut same = example(&stored);
        same.sharpen_policy(1.0);
        assert_eq!(probs(&same), vec![0.5, 0.25, 0.25]);

        // T = 0.5 squares the shares: 0.25 : 0.0625 : 0.0625.
        let mut half = example(&stored);
        half.sharpen_policy(0.5);
        let p = probs(&half);
        assert!((p[0] - 2.0 / 3.0).abs() < 1e-6 && (p[1] - 1.0 / 6.0).abs() < 1e-6, "{p:?}");
        assert_eq!(half.legal, vec![3, 7, 9]);

        // T = 0: the most probable actions alone, ties sharing.
        let mut argmax = example(&stored);
        argmax.sharpen_policy(0.0);
        assert_eq!(probs(&argmax), vec![1.0, 0.0, 0.0]);
        let mut tie = example(&[(1, 0.4), (2, 0.4), (5, 0.2)]);
        tie.sharpen_policy(0.0);
        assert_eq!(probs(&tie), vec![0.5, 0.5, 0.0]);

        // A tiny temperature neither underflows nor produces NaN.
        let mut tiny = example(&[(1, 0.02), (2, 0.019), (5, 0.961)]);
        tiny.sharpen_policy(0.01);
        let p = probs(&tiny);
        assert!(p.iter().all(|x| x.is_finite()) && (p[2] - 1.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn value_targets_mix_the_outcome_with_the_search_value() {
        let won = |v: Option<f32>| Example { outcome: 1, search_value: v, ..example(&[(3, 1.0)]) };
        // A quarter of the search's value 0.6 (win 0.8, loss 0.2) with a won game.
        let mut mixed = won(Some(0.6));
        mixed.mix_search_value(0.25);
        let t = mixed.value_target.unwrap();
        assert!((t[0] - (0.75 + 0.25 * 0.8)).abs() < 1e-6 && t[1] == 0.0 && (t[2] - 0.25 * 0.2).abs() < 1e-6, "{t:?}");
        assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // A drawn game keeps its draw share; share 0 or no stored value keeps the outcome alone.
        let mut drawn = Example { outcome: 0, search_value: Some(-1.0), ..example(&[(3, 1.0)]) };
        drawn.mix_search_value(0.5);
        assert_eq!(drawn.value_target, Some([0.0, 0.5, 0.5]));
        for (mut e, share) in [(won(Some(0.6)), 0.0), (won(None), 0.5)] {
            e.mix_search_value(share);
            assert_eq!(e.value_target, None);
        }
        // A batch carries soft targets only when some example has one; the
        // others' rows are their outcome.
        let plain = Batch::new(&[won(None), won(None)], junqi_env::OBS_CHANNELS, Device::Cpu).unwrap();
        assert!(plain.value_target.is_none());
        let batch = Batch::new(&[mixed, won(None)], junqi_env::OBS_CHANNELS, Device::Cpu).unwrap();
        let rows = Vec::<f32>::try_from(batch.value_target.unwrap().flatten(0, -1)).unwrap();
        assert_eq!(rows[3..], [1.0, 0.0, 0.0]);
        assert!((rows[0] - 0.95).abs() < 1e-6, "{rows:?}");
    }

    /// The observation of a 明棋 position whose quiet-move counter stands at
    /// `quiet` of the preset's 70.
    fn position_with_quiet(quiet: u32) -> ObsCode {
        let rules = junqi_core::Rules::preset(junqi_core::Mode::Mingqi);
        let jfen = format!("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r {quiet} 100");
        let pos = junqi_core::Position::from_jfen(&jfen, rules).unwrap();
        ObsCode::from_infoset(&junqi_core::InfoSet::new(&pos, junqi_core::Seat::First))
    }

    #[test]
    fn value_targets_discount_wins_and_losses_by_the_quiet_counter() {
        let at = |quiet: u32, outcome: i8| Example {
            outcome,
            position: PositionCode::TwoPlayer(position_with_quiet(quiet)),
            ..example(&[(3, 1.0)])
        };
        // 35 of 70 quiet plies, share 1: half of the win moves to the draw.
        let mut won = at(35, 1);
        won.discount_quiet(1.0);
        assert_eq!(won.value_target, Some([0.5, 0.5, 0.0]));
        // Share 0.5 of the same: a quarter; a loss likewise; applied after the search's mix.
        let mut lost = at(35, -1);
        lost.discount_quiet(0.5);
        assert_eq!(lost.value_target, Some([0.0, 0.25, 0.75]));
        let mut mixed = Example { search_value: Some(0.6), ..at(35, 1) };
        mixed.mix_search_value(0.5);
        mixed.discount_quiet(1.0);
        let t = mixed.value_target.unwrap();
        assert!((t[0] - 0.45).abs() < 1e-6 && (t[1] - 0.5).abs() < 1e-6 && (t[2] - 0.05).abs() < 1e-6, "{t:?}");
        // A fresh counter, share 0 and a drawn game keep the target as it was.
        for (mut e, share) in [(at(0, 1), 1.0), (at(35, 1), 0.0), (at(60, 0), 1.0)] {
            e.discount_quiet(share);
            assert_eq!(e.value_target, None, "{share}");
        }
        // At the draw itself a won game's target is the draw.
        let mut last = at(70, 1);
        last.discount_quiet(1.0);
        assert_eq!(last.value_target, Some([0.0, 1.0, 0.0]));
    }

    #[test]
    fn policy_targets_tip_towards_flips_and_attacks_as_the_quiet_counter_runs() {
        let rules = junqi_core::Rules::preset(junqi_core::Mode::Mingqi);
        let pos = junqi_core::Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 35 100", rules).unwrap();
        let seat = pos.turn();
        let code = ObsCode::from_infoset(&junqi_core::InfoSet::new(&pos, seat));
        let mut moves = junqi_core::MoveList::new();
        pos.legal_moves(&mut moves);
        let mut legal: Vec<(u16, bool)> =
            moves.iter().map(|m| (junqi_env::action_to_frame(*m, seat) as u16, pos.piece_at(m.to).is_some())).collect();
        legal.sort();
        // What the code says is an attack is what the position says, move by move.
        for &(a, attack) in &legal {
            assert_eq!(is_progress(&code, a as usize), attack, "action {a}");
        }
        assert!(legal.iter().any(|l| l.1) && legal.iter().any(|l| !l.1), "{legal:?}");
        // Uniform target but one quiet move at 0; boost 2 at half the counter: attacks × 2.
        let n = legal.len() as f32;
        let mut e = Example {
            position: PositionCode::TwoPlayer(code),
            ..example(&legal.iter().map(|&(a, _)| (a, 1.0 / n)).collect::<Vec<_>>())
        };
        let zero = legal.iter().position(|l| !l.1).unwrap();
        e.policy[zero] = 0.0;
        let before = e.policy.clone();
        e.boost_progress(2.0, 0.0);
        assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(e.policy[zero], 0.0, "what the search gave nothing keeps nothing");
        for (i, &(_, attack)) in legal.iter().enumerate().filter(|&(i, _)| i != zero) {
            let ratio = e.policy[i] / before[i];
            let other = legal.iter().enumerate().find(|&(j, l)| j != zero && l.1 != attack).unwrap().0;
            let other_ratio = e.policy[other] / before[other];
            if attack {
                assert!((ratio / other_ratio - 2.0).abs() < 1e-4, "{ratio} {other_ratio}");
            }
        }
        // A flip (from == to) counts; boost 0 or a fresh counter changes nothing.
        assert!(is_progress(&code, 7 * junqi_core::board::NODES + 7));
        let mut off = Example {
            position: PositionCode::TwoPlayer(code),
            ..example(&legal.iter().map(|&(a, _)| (a, 1.0 / n)).collect::<Vec<_>>())
        };
        let kept = off.policy.clone();
        off.boost_progress(0.0, 0.0);
        assert_eq!(off.policy, kept);
        let mut fresh = Example { position: PositionCode::TwoPlayer(position_with_quiet(0)), ..off.clone() };
        fresh.boost_progress(2.0, 0.0);
        assert_eq!(fresh.policy, kept);
    }

    /// Four players: what the code calls progress is, move by move, an
    /// attack (every occupied node a legal move reaches holds an enemy
    /// piece), along random 四国暗棋 games; the quiet fraction is the
    /// position's counter over 70; the value and policy targets move with it.
    #[test]
    fn four_player_targets_read_the_four_player_counter() {
        use junqi_siguo::{observation::action_index, MoveList, Position, Rules, SiguoInfoSet};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let (mut attacks, mut quiet_moves, mut tried) = (0, 0, 0);
        let (mut led, mut not_led, mut level) = (0, 0, 0);
        let mut moves = MoveList::new();
        for deal in 0..3 {
            let mut pos = Position::new_game(Rules::preset(junqi_siguo::Mode::Anqi), deal);
            while pos.outcome().is_none() {
                let seat = pos.turn();
                let code = SiguoCode::of(&SiguoInfoSet::new(&pos, seat));
                let position = PositionCode::Siguo(Box::new(code));
                assert_eq!(position.quiet_fraction(), (pos.quiet() as f32 / 70.0).min(1.0));
                pos.legal_moves(&mut moves);
                let mut legal: Vec<(u16, bool)> =
                    moves.iter().map(|&m| (action_index(seat, m) as u16, pos.piece_at(m.to).is_some())).collect();
                legal.sort();
                for &(a, attack) in &legal {
                    assert_eq!(position.is_progress(a as usize), attack, "action {a} of {pos}");
                    (attacks, quiet_moves) = (attacks + attack as u32, quiet_moves + !attack as u32);
                }
                // Where both kinds stand and the counter has run: boost 1 at
                // q doubles the attacks' shares against the others'.
                let q = position.quiet_fraction();
                if q > 0.0 && legal.iter().any(|l| l.1) && legal.iter().any(|l| !l.1) {
                    let n = legal.len() as f32;
                    let mut e = Example {
                        position: position.clone(),
                        outcome: 1,
                        ..example(&legal.iter().map(|&(a, _)| (a, 1.0 / n)).collect::<Vec<_>>())
                    };
                    e.boost_progress(1.0, 0.0);
                    let attack = legal.iter().position(|l| l.1).unwrap();
                    let other = legal.iter().position(|l| !l.1).unwrap();
                    assert!((e.policy[attack] / e.policy[other] - (1.0 + q)).abs() < 1e-4, "{q}");
                    assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                    e.discount_quiet(1.0);
                    assert_eq!(e.value_target, Some([1.0 - q, q, 0.0]));
                    tried += 1;
                    // With a lead of 1.1 asked, only where the seat's team
                    // has 1.1 times the enemy's pieces (counted on the board).
                    let team = |a: junqi_siguo::Army| a.team() == seat.team();
                    let (ours, theirs) =
                        pos.pieces().fold((0, 0), |(o, t), (_, p)| if team(p.army) { (o + 1, t) } else { (o, t + 1) });
                    assert_eq!(position.team_pieces(), Some((ours, theirs)));
                    let uniform = example(&legal.iter().map(|&(a, _)| (a, 1.0 / n)).collect::<Vec<_>>());
                    let mut e = Example { position: position.clone(), ..uniform.clone() };
                    e.boost_progress(1.0, 1.1);
                    let ahead = ours as f64 >= 1.1 * theirs as f64;
                    assert_eq!(e.policy != uniform.policy, ahead, "{ours} against {theirs}");
                    (led, not_led) = (led + ahead as u32, not_led + !ahead as u32);
                    // At the boundary: a lead of 1 with equal teams boosts.
                    let mut even = Example { position: position.clone(), ..uniform.clone() };
                    even.boost_progress(1.0, 1.0);
                    assert_eq!(even.policy != uniform.policy, ours >= theirs, "{ours} against {theirs}");
                    level += (ours == theirs) as u32;
                }
                let mv = moves.iter().copied().nth(rng.random_range(0..moves.len())).unwrap();
                pos.play_unchecked(mv);
            }
        }
        assert!(attacks > 100 && quiet_moves > 1000 && tried > 50, "{attacks} {quiet_moves} {tried}");
        assert!(led > 0 && not_led > 0 && level > 0, "{led} {not_led} {level}");
    }

    /// The move back along the seat's own last move loses its share of the
    /// target; nothing else changes its ratios; a retreat the search wanted
    /// alone stays; damp 0 or no own last move changes nothing.
    #[test]
    fn policy_targets_damp_the_move_straight_back() {
        use junqi_core::{Game, MoveList, Seat};
        let rules = junqi_core::Rules::preset(junqi_core::Mode::Mingqi);
        let pos = junqi_core::Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 0 100", rules).unwrap();
        let me = pos.turn();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let quiet: Vec<_> = moves.iter().copied().filter(|m| pos.piece_at(m.to).is_none() && !m.is_flip()).collect();
        // A quiet move of mine, then a quiet one of the enemy's, after which my piece can go straight back.
        let (game, mine) = quiet
            .iter()
            .find_map(|&mine| {
                let mut game = Game::new(pos.clone());
                game.play(mine).unwrap();
                let mut replies = MoveList::new();
                game.truth().legal_moves(&mut replies);
                let theirs = *replies.iter().find(|m| game.truth().piece_at(m.to).is_none())?;
                game.play(theirs).unwrap();
                game.truth().legal_moves(&mut replies);
                replies.iter().any(|&m| m == junqi_core::Move::new(mine.to, mine.from)).then_some((game, mine))
            })
            .expect("some quiet move can be undone");
        assert_eq!(game.truth().turn(), me);
        let code = ObsCode::from_infoset(game.infoset(me));
        let frame = |m: junqi_core::Move| junqi_env::action_to_frame(m, me) as u16;
        game.truth().legal_moves(&mut moves);
        let mut legal: Vec<u16> = moves.iter().map(|&m| frame(m)).collect();
        legal.sort();
        let back = frame(junqi_core::Move::new(mine.to, mine.from));
        let at = legal.iter().position(|&a| a == back).expect("the way back is legal");
        let n = legal.len() as f32;
        let uniform = || Example {
            position: PositionCode::TwoPlayer(code),
            ..example(&legal.iter().map(|&a| (a, 1.0 / n)).collect::<Vec<_>>())
        };
        let mut e = uniform();
        e.damp_return(0.75);
        assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // The way back keeps a quarter of the others' share; the others stay equal.
        let other = e.policy[(at + 1) % legal.len()];
        assert!((e.policy[at] / other - 0.25).abs() < 1e-5, "{} {other}", e.policy[at]);
        assert!(e.policy.iter().enumerate().all(|(i, &p)| i == at || (p - other).abs() < 1e-6));
        // Only the way back wanted: kept. Damp 0: kept.
        let mut only = Example { position: PositionCode::TwoPlayer(code), ..example(&[(back, 1.0)]) };
        only.legal = legal.clone();
        only.policy = legal.iter().map(|&a| (a == back) as u8 as f32).collect();
        let kept = only.policy.clone();
        only.damp_return(1.0);
        assert_eq!(only.policy, kept);
        let mut off = uniform();
        off.damp_return(0.0);
        assert_eq!(off.policy, uniform().policy);
        // Before my first move there is no way back to damp.
        let start =
            junqi_core::Position::from_jfen("1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 0 100", rules).unwrap();
        let fresh = ObsCode::from_infoset(&junqi_core::InfoSet::new(&start, Seat::First));
        assert_eq!(fresh.history(1), None);
        let mut none = Example { position: PositionCode::TwoPlayer(fresh), ..uniform() };
        none.damp_return(1.0);
        assert_eq!(none.policy, uniform().policy);
    }
}
