//! Datasets below the `--runs` roots: every directory with a `games/`
//! folder of shards (a self-play run, an arena matchup, a study variant, a
//! loop generation), two-player or four-player (四国: `selfplay --siguo`,
//! `arena --siguo`, an import of four-player records, whose shards have
//! the four-seat schema). A dataset is named `R/relative/path` (root number R);
//! a name that leaves its root is refused. A dataset's games (and the
//! samples shards asked for) are read once and read again when their
//! files change (a run going on).

use crate::ApiError;
use junqi_core::{Mode, Rules};
use junqi_selfplay::{
    read_games_file, read_samples_file, read_siguo_games_file, shard_files, SiguoGame, StoredGame, StoredSample,
    GAMES_DIR, RUN_FILE, SIGUO_GAMES_FORMAT, SIGUO_RUN_FORMAT,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// How deep below a root datasets are looked for.
const MAX_DEPTH: usize = 6;

/// One dataset, as listed.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct DatasetInfo {
    /// `R/relative/path`, the name the other requests take.
    pub id: String,
    /// Shard files in its `games/`.
    pub shards: usize,
    /// 2, or 4 for a four-player (四国) dataset.
    pub players: u8,
}

/// Every dataset below the roots, in path order.
pub fn discover(roots: &[PathBuf]) -> Vec<DatasetInfo> {
    let mut list = Vec::new();
    walk_roots(roots, MAX_DEPTH, &[GAMES_DIR, junqi_selfplay::SAMPLES_DIR], |dir, id| {
        let games = dir.join(GAMES_DIR);
        if real_dir(&games) {
            let shards = own_shards(&games).unwrap_or_default();
            list.push(DatasetInfo { id, shards: shards.len(), players: players_of(dir, &shards) });
        }
        true
    });
    list
}

/// The largest run file read to tell a dataset's players.
const MAX_RUN_FILE_BYTES: u64 = 1 << 20;

/// 4 when the dataset in `dir` is a four-player one: its run file says so
/// (the four-player run format, or an import's `games_format`), or, with
/// no run file to read, its first shard's footer does; 2 otherwise.
fn players_of(dir: &Path, shards: &[PathBuf]) -> u8 {
    let run_file = dir.join(RUN_FILE);
    let run: Option<serde_json::Value> = real_file(&run_file)
        .then(|| junqi_core::read_bounded(&run_file, MAX_RUN_FILE_BYTES).ok())
        .flatten()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let four = match run {
        Some(run) => run["format"] == SIGUO_RUN_FORMAT || run["games_format"] == SIGUO_GAMES_FORMAT,
        None => shards.first().is_some_and(|f| junqi_selfplay::siguo_jgn::is_siguo_games_file(f).unwrap_or(false)),
    };
    if four {
        4
    } else {
        2
    }
}

/// Visit every directory below the roots, at most `max_depth` levels down,
/// in name order, with its name (`R/relative/path`); hidden directories and
/// those named in `skip` are passed over, and `visit` returning `false`
/// keeps the walk out of a directory's children.
pub(crate) fn walk_roots(
    roots: &[PathBuf],
    max_depth: usize,
    skip: &[&str],
    mut visit: impl FnMut(&Path, String) -> bool,
) {
    fn walk(
        dir: &Path,
        id: String,
        depth: usize,
        max_depth: usize,
        skip: &[&str],
        visit: &mut dyn FnMut(&Path, String) -> bool,
    ) {
        if !visit(dir, id.clone()) || depth == max_depth {
            return;
        }
        for child in subdirs(dir) {
            let name = child.file_name().unwrap_or_default().to_string_lossy().to_string();
            if !skip.contains(&name.as_str()) {
                walk(&child, format!("{id}/{name}"), depth + 1, max_depth, skip, visit);
            }
        }
    }
    for (r, root) in roots.iter().enumerate() {
        walk(root, r.to_string(), 0, max_depth, skip, &mut visit);
    }
}

/// The directories in `dir` (not hidden ones, not followed through links), in
/// name order; none when it cannot be read.
pub(crate) fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// Whether `path` is a directory itself, not a symbolic link to one: links
/// below a root are not followed (one could lead anywhere).
pub(crate) fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Whether `path` is a plain file itself, not a symbolic link to one.
pub(crate) fn real_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The shard files of a `games/` or `samples/` directory, symbolic links left out.
fn own_shards(dir: &Path) -> Result<Vec<PathBuf>, junqi_selfplay::SelfplayError> {
    Ok(shard_files(dir)?.into_iter().filter(|f| real_file(f)).collect())
}

/// The directory a dataset or run name (`R/relative/path`) stands for:
/// below root R, with no `..`, and there.
pub fn resolve(roots: &[PathBuf], id: &str) -> Result<PathBuf, ApiError> {
    let (root, rel) = id.split_once('/').unwrap_or((id, ""));
    let index: usize = root.parse().map_err(|_| ApiError::bad_request(format!("`{id}` is not a run name (R/path)")))?;
    let base = roots.get(index).ok_or_else(|| ApiError::not_found(format!("no run root {index}")))?;
    let rel = Path::new(rel);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(ApiError::bad_request(format!("`{id}`: a run name is a plain path below its root")));
    }
    let dir = base.join(rel);
    if !dir.is_dir() {
        return Err(ApiError::not_found(format!("no run `{id}`")));
    }
    // Not out of the root through a symbolic link either.
    match (dir.canonicalize(), base.canonicalize()) {
        (Ok(d), Ok(b)) if d.starts_with(&b) => Ok(dir),
        _ => Err(ApiError::bad_request(format!("`{id}` leads out of its runs directory"))),
    }
}

/// What a dataset's games were read from: each shard's path, size and time.
type Stamp = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn stamp_of(files: &[PathBuf]) -> Stamp {
    files
        .iter()
        .map(|f| {
            let meta = std::fs::metadata(f).ok();
            (f.clone(), meta.as_ref().map_or(0, |m| m.len()), meta.and_then(|m| m.modified().ok()))
        })
        .collect()
}

/// One dataset's games, read.
pub struct Dataset {
    /// 2, or 4 for a four-player dataset.
    pub players: u8,
    /// A two-player dataset's games, by game id.
    pub games: Vec<StoredGame>,
    /// A four-player dataset's games, by game id.
    pub siguo: Vec<SiguoGame>,
    /// Each game's variant ([`variant`], [`siguo_variant`]), computed once.
    pub variants: Vec<String>,
    /// The games shard each game came from.
    shard_of: HashMap<u64, PathBuf>,
    stamp: Stamp,
}

impl Dataset {
    /// The games shard holding game `id`.
    pub fn shard_of(&self, id: u64) -> Option<&Path> {
        self.shard_of.get(&id).map(PathBuf::as_path)
    }
}

/// The games of one samples shard, by game id.
pub type ShardSamples = HashMap<u64, Vec<StoredSample>>;

/// How many samples shards are kept read (each holds all the positions of
/// its games: the largest part of a dataset).
const SAMPLE_SHARDS_KEPT: usize = 16;

/// The datasets and samples shards read so far; each is read again when
/// its files change.
#[derive(Default)]
pub struct Cache {
    datasets: Mutex<HashMap<PathBuf, Arc<Dataset>>>,
    samples: Mutex<HashMap<PathBuf, (Stamp, Arc<ShardSamples>)>>,
    /// Answers about one game (dataset, game id, view), each with the
    /// dataset it was made from: kept while that is the dataset's current read.
    answers: Mutex<HashMap<(PathBuf, u64, String), (Arc<Dataset>, Arc<String>)>>,
    /// Held while files are read, so many requests for one dataset or
    /// shard at once read it once (and the others then find it here).
    reading: Mutex<()>,
}

/// How many answers about single games are kept.
const ANSWERS_KEPT: usize = 512;

impl Cache {
    /// Every game of the dataset in `dir`.
    pub fn dataset(&self, dir: &Path) -> Result<Arc<Dataset>, ApiError> {
        let games = dir.join(GAMES_DIR);
        if !real_dir(&games) {
            return Err(ApiError::not_found(format!("no games in {} (no {GAMES_DIR}/ directory)", dir.display())));
        }
        let files =
            own_shards(&games).map_err(|e| ApiError::not_found(format!("no games in {}: {e}", dir.display())))?;
        let stamp = stamp_of(&files);
        let current = || self.datasets.lock().expect("cache lock").get(dir).filter(|d| d.stamp == stamp).cloned();
        if let Some(d) = current() {
            return Ok(d);
        }
        let _reading = self.reading.lock().expect("cache lock");
        if let Some(d) = current() {
            return Ok(d);
        }
        let players = players_of(dir, &files);
        let mut shard_of = HashMap::new();
        let (games, siguo) = if players == 4 {
            (Vec::new(), read_shards(&files, read_siguo_games_file, &mut shard_of)?)
        } else {
            (read_shards(&files, read_games_file, &mut shard_of)?, Vec::new())
        };
        let variants = match players {
            4 => siguo.iter().map(|g| siguo_variant(&g.rules)).collect(),
            _ => games.iter().map(|g| variant(&g.rules)).collect(),
        };
        let d = Arc::new(Dataset { players, games, siguo, variants, shard_of, stamp });
        self.datasets.lock().expect("cache lock").insert(dir.to_path_buf(), d.clone());
        Ok(d)
    }

    /// The answer `make` gives about game `id` of the dataset in `dir` seen
    /// by `view`, made once for each read of the dataset (many viewers of
    /// one game, or one viewer switching views, cost one replay).
    pub fn answer(
        &self,
        dir: &Path,
        id: u64,
        view: &str,
        make: impl FnOnce(&Arc<Dataset>) -> Result<String, ApiError>,
    ) -> Result<Arc<String>, ApiError> {
        let data = self.dataset(dir)?;
        let key = (dir.to_path_buf(), id, view.to_string());
        if let Some((made_from, text)) = self.answers.lock().expect("cache lock").get(&key) {
            if Arc::ptr_eq(made_from, &data) {
                return Ok(text.clone());
            }
        }
        let text = Arc::new(make(&data)?);
        let mut kept = self.answers.lock().expect("cache lock");
        if kept.len() >= ANSWERS_KEPT {
            if let Some(any) = kept.keys().next().cloned() {
                kept.remove(&any);
            }
        }
        kept.insert(key, (data, text.clone()));
        Ok(text)
    }

    /// The samples shard `path` (absent: `None`), by game id.
    pub fn samples(&self, path: &Path) -> Result<Option<Arc<ShardSamples>>, ApiError> {
        if !real_file(path) || !path.parent().is_some_and(real_dir) {
            return Ok(None);
        }
        let stamp = stamp_of(&[path.to_path_buf()]);
        let current =
            || self.samples.lock().expect("cache lock").get(path).filter(|(s, _)| *s == stamp).map(|(_, r)| r.clone());
        if let Some(rows) = current() {
            return Ok(Some(rows));
        }
        let _reading = self.reading.lock().expect("cache lock");
        if let Some(rows) = current() {
            return Ok(Some(rows));
        }
        let mut by_game: ShardSamples = HashMap::new();
        for row in read_samples_file(path).map_err(|e| ApiError::unreadable(e.to_string()))? {
            by_game.entry(row.game_id).or_default().push(row);
        }
        let rows = Arc::new(by_game);
        let mut kept = self.samples.lock().expect("cache lock");
        if kept.len() >= SAMPLE_SHARDS_KEPT {
            if let Some(any) = kept.keys().next().cloned() {
                kept.remove(&any);
            }
        }
        kept.insert(path.to_path_buf(), (stamp, rows.clone()));
        Ok(Some(rows))
    }
}

/// Every game of `files` read by `read`, by game id; `shard_of` learns
/// which file each came from.
fn read_shards<G: Listed>(
    files: &[PathBuf],
    read: impl Fn(&Path) -> Result<Vec<G>, junqi_selfplay::SelfplayError>,
    shard_of: &mut HashMap<u64, PathBuf>,
) -> Result<Vec<G>, ApiError> {
    let mut games = Vec::new();
    for f in files {
        let shard = read(f).map_err(|e| ApiError::unreadable(e.to_string()))?;
        shard_of.extend(shard.iter().map(|g| (g.id(), f.clone())));
        games.extend(shard);
    }
    games.sort_by_key(|g| g.id());
    Ok(games)
}

/// What the game list reads of a stored game, two- or four-player.
pub trait Listed {
    fn id(&self) -> u64;
    /// Each seat's bot, in seat order.
    fn bots(&self) -> &[String];
    fn result(&self) -> &str;
    fn termination(&self) -> &str;
    fn plies(&self) -> u32;
}

macro_rules! listed {
    ($game:ty) => {
        impl Listed for $game {
            fn id(&self) -> u64 {
                self.game_id
            }
            fn bots(&self) -> &[String] {
                &self.bots
            }
            fn result(&self) -> &str {
                &self.result
            }
            fn termination(&self) -> &str {
                &self.termination
            }
            fn plies(&self) -> u32 {
                self.plies
            }
        }
    };
}
listed!(StoredGame);
listed!(SiguoGame);

/// Which games to list (every field optional).
#[derive(Deserialize, Default, Debug)]
pub struct Filter {
    /// A substring of either bot's spec.
    pub bot: Option<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: Option<String>,
    /// A termination name (`flag_captured`, `quiet_plies`, …).
    pub termination: Option<String>,
    pub min_plies: Option<u32>,
    pub max_plies: Option<u32>,
    /// A substring of the game's variant (its mode and the options that
    /// differ from the mode's preset, e.g. `anqi` or `first_player=black`).
    pub variant: Option<String>,
    /// Skip this many matching games (paging).
    pub offset: Option<usize>,
    /// At most this many (default 200, at most 5000).
    pub limit: Option<usize>,
}

/// One game in a list.
#[derive(Serialize, Debug)]
pub struct GameSummary {
    pub id: u64,
    /// Each seat's bot: two, or four (armies 0–3) in a four-player game.
    pub bots: Vec<String>,
    pub result: String,
    pub termination: String,
    pub plies: u32,
    pub variant: String,
}

impl GameSummary {
    pub fn of(g: &impl Listed, variant: String) -> GameSummary {
        GameSummary {
            id: g.id(),
            bots: g.bots().to_vec(),
            result: g.result().to_string(),
            termination: g.termination().to_string(),
            plies: g.plies(),
            variant,
        }
    }
}

#[derive(Serialize, Debug)]
pub struct GameList {
    /// 2, or 4 for a four-player dataset (its games replay at `/api/siguo/game`).
    pub players: u8,
    /// Games in the dataset.
    pub total: usize,
    /// Games the filter keeps.
    pub matched: usize,
    pub games: Vec<GameSummary>,
}

/// A game's mode and the options that differ from its preset, e.g.
/// `anqi first_player=black`; the rules text when it cannot be read.
pub fn variant(rules_json: &str) -> String {
    let Ok(rules) = serde_json::from_str::<Rules>(rules_json) else { return rules_json.to_string() };
    let mode: Mode = rules.mode;
    let (Ok(serde_json::Value::Object(have)), Ok(serde_json::Value::Object(preset))) =
        (serde_json::to_value(rules), serde_json::to_value(Rules::preset(mode)))
    else {
        return mode.name().to_string();
    };
    let mut parts = vec![mode.name().to_string()];
    for (key, value) in &have {
        if preset.get(key) != Some(value) {
            let shown = match value {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            parts.push(format!("{key}={shown}"));
        }
    }
    parts.join(" ")
}

/// A four-player game's variant: `siguo`, its mode and the §10.11 options
/// that differ from the mode's preset, e.g. `siguo anqi turn_order=clockwise`;
/// the rules text when it cannot be read.
pub fn siguo_variant(rules_toml: &str) -> String {
    let Ok(rules) = junqi_siguo::Rules::from_toml_str(rules_toml) else { return rules_toml.to_string() };
    let preset = junqi_siguo::Rules::preset(rules.mode);
    let mut parts = vec!["siguo".to_string(), rules.mode.name().to_string()];
    parts.extend(junqi_siguo::OPTION_NAMES.iter().filter_map(|n| {
        let value = rules.value(n)?;
        (preset.value(n) != Some(value.clone())).then(|| format!("{n}={value}"))
    }));
    parts.join(" ")
}

/// The games of `data` that `filter` keeps.
pub fn list(data: &Dataset, filter: &Filter) -> Result<GameList, ApiError> {
    let limit = filter.limit.unwrap_or(200);
    if limit > 5000 {
        return Err(ApiError::bad_request(format!("limit {limit}: at most 5000 games a page")));
    }
    match data.players {
        4 => Ok(list_rows(&data.siguo, &data.variants, filter, limit, 4)),
        _ => Ok(list_rows(&data.games, &data.variants, filter, limit, 2)),
    }
}

fn list_rows<G: Listed>(games: &[G], variants: &[String], filter: &Filter, limit: usize, players: u8) -> GameList {
    let keep = |g: &G, variant: &str| {
        filter.bot.as_ref().is_none_or(|b| g.bots().iter().any(|x| x.contains(b.as_str())))
            && filter.result.as_ref().is_none_or(|r| g.result() == r)
            && filter.termination.as_ref().is_none_or(|t| g.termination() == t)
            && filter.min_plies.is_none_or(|m| g.plies() >= m)
            && filter.max_plies.is_none_or(|m| g.plies() <= m)
            && filter.variant.as_ref().is_none_or(|v| variant.contains(v.as_str()))
    };
    let mut matched = 0;
    let mut out = Vec::new();
    let offset = filter.offset.unwrap_or(0);
    for (g, v) in games.iter().zip(variants) {
        if !keep(g, v) {
            continue;
        }
        if matched >= offset && out.len() < limit {
            out.push(GameSummary::of(g, v.clone()));
        }
        matched += 1;
    }
    GameList { players, total: games.len(), matched, games: out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_stay_below_their_root() {
        let root = std::env::temp_dir().join(format!("junqi-serve-resolve-{}", std::process::id()));
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        let roots = vec![root.clone()];
        assert_eq!(resolve(&roots, "0/a/b").unwrap(), root.join("a/b"));
        assert_eq!(resolve(&roots, "0").unwrap(), root);
        std::os::unix::fs::symlink("/", root.join("a/out")).unwrap();
        for bad in ["0/../x", "0//etc", "1/a", "x/a", "0/a/../../..", "0/nope", "0/a/out", "0/a/out/tmp"] {
            assert!(resolve(&roots, bad).is_err(), "{bad}");
        }
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_variant_names_the_options_that_differ_from_the_preset() {
        let mut rules = Rules::preset(Mode::Anqi);
        assert_eq!(variant(&serde_json::to_string(&rules).unwrap()), "anqi");
        rules.apply_override("first_player=black").unwrap();
        assert_eq!(variant(&serde_json::to_string(&rules).unwrap()), "anqi first_player=black");
        assert_eq!(variant("not json"), "not json");
    }
}
