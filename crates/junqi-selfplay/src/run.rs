//! A run: its directory and `run.json`, resuming, and the worker threads.

use crate::part::{owns, Part};
use crate::writer::ShardWriter;
use crate::{
    code_version, same_work, Config, GameBuffers, GameInFlight, GameRecord, RunDir, RunLock, SelfplayError,
    WorkMismatch, GAMES_DIR, SAMPLES_DIR,
};
use junqi_bots::Player;
use junqi_core::Seat;
use parquet::file::reader::{FileReader, SerializedFileReader};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

/// The run file's name inside the output directory.
pub const RUN_FILE: &str = "run.json";
const RUN_FORMAT: &str = "junqi-selfplay/1";

/// `DIR/run.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct RunFile {
    pub format: String,
    pub config: serde_json::Value,
    pub seed: u64,
    pub code_version: String,
    /// The checksum every shard file of the run has a record of
    /// ([`crate::CHECKSUM_EXT`]); absent in runs started before records
    /// existed, whose shards without one are checked by their footers only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksums: Option<String>,
    /// The part of the run this directory holds (absent: the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Part>,
}

/// The run file of `dir`, or `None` for a new run; one of another format is corrupt.
pub(crate) fn read_run_file(dir: &RunDir) -> Result<Option<RunFile>, SelfplayError> {
    dir.read(RUN_FILE)?.map(|text| parse_run_file(&text, &dir.path().join(RUN_FILE))).transpose()
}

/// A run file's text (`path` for the errors).
pub(crate) fn parse_run_file(text: &str, path: &Path) -> Result<RunFile, SelfplayError> {
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    let file: RunFile = serde_json::from_str(text).map_err(|e| corrupt(format!("not a run file: {e}")))?;
    if file.format != RUN_FORMAT && file.format != crate::SIGUO_RUN_FORMAT {
        return Err(corrupt(format!(
            "format `{}`, this program writes `{RUN_FORMAT}` (two players) and `{}` (four players)",
            file.format,
            crate::SIGUO_RUN_FORMAT
        )));
    }
    Ok(file)
}

/// "a two-player run" or "a four-player run", for a run file's format.
pub(crate) fn describe_format(format: &str) -> String {
    let players = if format == crate::SIGUO_RUN_FORMAT { "four" } else { "two" };
    format!("a {players}-player run (`{format}`)")
}

/// How a run's games fall into shards: shard `s` holds the games
/// `s * shard_games ..` (the last one may hold fewer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub games: u64,
    pub shard_games: u64,
}

impl Layout {
    /// Number of shards.
    pub fn shards(&self) -> u64 {
        self.games.div_ceil(self.shard_games)
    }
    /// The game indices of shard `s`.
    pub fn shard_range(&self, s: u64) -> std::ops::Range<u64> {
        let start = s * self.shard_games;
        start..(start + self.shard_games).min(self.games)
    }
    /// The shards of part `part` (absent: every shard).
    pub fn part_shards(&self, part: Option<Part>) -> impl Iterator<Item = u64> {
        (0..self.shards()).filter(move |&s| owns(part, s))
    }
    /// The games of part `part` (absent: every game).
    pub fn part_games(&self, part: Option<Part>) -> u64 {
        self.part_shards(part).map(|s| self.shard_range(s)).map(|r| r.end - r.start).sum()
    }
}

/// A run's config, of two or of four players: what `run.json` stores under
/// its format, and how the run's games fall into shards. Resuming, parts
/// and merging ([`open_run`], [`crate::merge_parts`]) are the same for both.
pub(crate) trait RunConfig: Serialize + serde::de::DeserializeOwned {
    /// The run file's format.
    const RUN_FORMAT: &'static str;
    fn layout(&self) -> Layout;
    /// The run seed (`run.json` records it beside the config).
    fn seed(&self) -> u64;
}

impl RunConfig for Config {
    const RUN_FORMAT: &'static str = RUN_FORMAT;
    fn layout(&self) -> Layout {
        Layout { games: self.games, shard_games: self.shard_games }
    }
    fn seed(&self) -> u64 {
        self.seed
    }
}

pub(crate) fn write_run_file(dir: &RunDir, file: &RunFile) -> Result<(), SelfplayError> {
    dir.write_json(RUN_FILE, file)
}

/// Live counters of a run, for a progress display (updated after every game).
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished, their plies and their samples.
    pub games: AtomicU64,
    pub plies: AtomicU64,
    pub samples: AtomicU64,
    /// Plies played so far, of finished games and of games in flight (a
    /// steady rate even while no game ends).
    pub moves: AtomicU64,
    /// Games found complete on disk by callers that run several plans (not played).
    pub resumed: AtomicU64,
}

/// How to run a plan. None of it changes the games or the files written.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads; 0 = one per core.
    pub threads: usize,
    /// Games each worker keeps going at once, stepped in turn; 0 (the
    /// default) = automatic: [`BATCHED_IN_FLIGHT`] when a bot batches its
    /// evaluations across games (the net bots), else 1.
    pub in_flight: usize,
    /// Set it (e.g. from a Ctrl-C handler) to stop: shards in flight are
    /// abandoned (their temporary files removed), finished shards stay.
    pub stop: Arc<AtomicBool>,
    pub progress: Arc<Progress>,
    /// For callers that run several plans (arena, study): the part of each
    /// to play ([`prepare_part`]). [`Plan::run`] plays its plan's pending
    /// shards, which its part already decided.
    pub part: Option<Part>,
}

/// [`RunOptions::in_flight`] by default: automatic.
///
/// With bots that do not batch, one game per worker: stepping several games
/// in turn costs cheap bots speed (random vs random, 2 threads: about 6%
/// fewer games/s with 4 in flight, 12% with 16; consecutive plies of one
/// game are kind to the caches and branch predictors).
pub const DEFAULT_IN_FLIGHT: usize = 0;

/// Games in flight per worker, automatically, when a bot batches its
/// evaluations (a net bot): each worker sends one leaf per game to the net
/// at a time, so this is about the batch one worker makes (BENCHMARKS.md).
pub const BATCHED_IN_FLIGHT: usize = 192;

/// Worker threads for a `threads` setting: 0 means one per core.
pub fn workers(threads: usize) -> usize {
    match threads {
        // One per core, within the limit on worker threads.
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(crate::limits::MAX_THREADS),
        n => n,
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 0,
            in_flight: DEFAULT_IN_FLIGHT,
            stop: Arc::default(),
            progress: Arc::default(),
            part: None,
        }
    }
}

/// What [`Plan::run`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Games, plies and samples played by this call.
    pub games_played: u64,
    pub plies: u64,
    pub samples: u64,
    /// Shards finished by this call, and complete shards in the run now.
    pub shards_written: u64,
    pub shards_complete: u64,
    pub shards_total: u64,
    /// Games in complete shards now (equals the config's games when the run is done).
    pub games_complete: u64,
    /// Stopped by [`RunOptions::stop`] before every shard was done.
    pub interrupted: bool,
    /// Games in flight per worker (the automatic choice resolved).
    pub in_flight: usize,
    pub elapsed: Duration,
    /// Results of the games in the shards this call finished.
    pub tally: Tally,
}

/// Results of a set of games between the config's two players.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub games: u64,
    /// Wins of player 0 and player 1 (the first and second `--bots` spec).
    pub wins: [u64; 2],
    pub draws: u64,
    /// Wins of whoever sat in seat 1 (moved first).
    pub seat1_wins: u64,
    /// Per player: decisions made, and seconds spent making them.
    pub decisions: [u64; 2],
    pub think_secs: [f64; 2],
    /// Resignations, and false ones in played-through games.
    pub resign: crate::ResignTally,
}

impl Tally {
    /// Count one game: `seat1_player` sat in seat 1; `winner` is the winning
    /// seat; `thinking` per seat: decisions and seconds (`GameBuffers::thinking`).
    pub fn add(&mut self, seat1_player: usize, winner: Option<Seat>, thinking: [(u64, f64); 2]) {
        self.games += 1;
        for (seat, (n, secs)) in thinking.into_iter().enumerate() {
            let player = if seat == 0 { seat1_player } else { 1 - seat1_player };
            self.decisions[player] += n;
            self.think_secs[player] += secs;
        }
        match winner {
            None => self.draws += 1,
            Some(w) => {
                let player = if w == Seat::First { seat1_player } else { 1 - seat1_player };
                self.wins[player] += 1;
                self.seat1_wins += u64::from(w == Seat::First);
            }
        }
    }
    /// Player `i`'s points (a draw is half a point).
    pub fn points(&self, i: usize) -> f64 {
        self.wins[i] as f64 + 0.5 * self.draws as f64
    }
    /// Player `i`'s decisions per second of thinking.
    pub fn moves_per_s(&self, i: usize) -> f64 {
        self.decisions[i] as f64 / self.think_secs[i].max(1e-12)
    }
    /// Seat 1's points.
    pub fn seat1_points(&self) -> f64 {
        self.seat1_wins as f64 + 0.5 * self.draws as f64
    }
    pub fn merge(&mut self, other: &Tally) {
        self.games += other.games;
        self.wins[0] += other.wins[0];
        self.wins[1] += other.wins[1];
        self.draws += other.draws;
        self.seat1_wins += other.seat1_wins;
        self.resign.merge(&other.resign);
        for i in 0..2 {
            self.decisions[i] += other.decisions[i];
            self.think_secs[i] += other.think_secs[i];
        }
    }
}

/// Per player (the first and second `--bots` spec): decisions made and
/// seconds spent making them, over some games. Each shard stores its own in
/// its games file's footer (`junqi.thinking`), so speeds cover every game on
/// disk, not only those of the last call of a resumed run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Thinking {
    pub decisions: [u64; 2],
    pub secs: [f64; 2],
}

/// The footer key of a games shard's [`Thinking`].
pub const THINKING_KEY: &str = "junqi.thinking";

/// The games-file footer key holding the forfeited games' reasons: a JSON
/// object from game id (as a string) to the reason (absent when none).
pub const FORFEITS_KEY: &str = "junqi.forfeits";

/// The games-file footer key holding each game's decision times: a JSON
/// object from game id (as a string) to its milliseconds per decision, in
/// move order ([`crate::GameRecord::move_ms`]).
pub const MOVE_MS_KEY: &str = "junqi.move_ms";

impl Thinking {
    pub fn of(tally: &Tally) -> Thinking {
        Thinking { decisions: tally.decisions, secs: tally.think_secs }
    }
    pub fn add(&mut self, other: &Thinking) {
        for i in 0..2 {
            self.decisions[i] = self.decisions[i].saturating_add(other.decisions[i]);
            self.secs[i] += other.secs[i];
        }
    }
    /// `decisions0 secs0 decisions1 secs1` (seconds to full precision).
    pub fn to_footer(&self) -> String {
        format!("{} {} {} {}", self.decisions[0], self.secs[0], self.decisions[1], self.secs[1])
    }
    pub fn from_footer(text: &str) -> Option<Thinking> {
        let parts: Vec<&str> = text.split(' ').collect();
        let [d0, s0, d1, s1] = parts.as_slice() else { return None };
        let secs = [s0.parse::<f64>().ok()?, s1.parse::<f64>().ok()?];
        secs.iter()
            .all(|s| s.is_finite() && *s >= 0.0)
            .then_some(Thinking { decisions: [d0.parse().ok()?, d1.parse().ok()?], secs })
    }
}

/// A run ready to go: which shards are done and which are still to play.
#[derive(Clone, Debug)]
pub struct Plan {
    pub config: Config,
    /// `None`: play without writing anything.
    pub out: Option<PathBuf>,
    /// Shards to play, in index order.
    pub pending: Vec<u64>,
    /// Games in shards already complete on disk.
    pub complete_games: u64,
    /// The thinking of those games, as their footers recorded it (shards
    /// written before footers held it add nothing).
    pub complete_thinking: Thinking,
    /// Things worth telling the user (unreadable shards to redo, another code version).
    pub notes: Vec<String>,
    /// The lock on `out`, held as long as the plan (or a clone) lives.
    pub lock: Option<Arc<RunLock>>,
    /// The part of the run this plan plays (absent: all of it).
    pub part: Option<Part>,
    /// A bot batches its evaluations across games (known from checking the
    /// config, so the bots are not built again to ask).
    pub batches: bool,
}

/// Check `config`, and with `out`: create the directory and its `run.json`,
/// or check that the one there has the same config, remove temporary files
/// of an interrupted run, and find the shards already complete. A shard is
/// played again (its files and their checksum records removed first, with a
/// note) when a file's bytes do not match its checksum record, a record is
/// missing (in runs whose `run.json` says every shard has one), or a file
/// cannot be read back or holds the wrong games.
pub fn prepare(config: Config, out: Option<&Path>) -> Result<Plan, SelfplayError> {
    prepare_part(config, out, None)
}

/// [`prepare`] for part `part` of the run (absent: the whole run): only the
/// part's shards are pending or checked, and `run.json` records the part, so
/// a directory never holds shards of two parts (or a part and a whole run).
pub fn prepare_part(config: Config, out: Option<&Path>, part: Option<Part>) -> Result<Plan, SelfplayError> {
    let batches = config.check()?.batches;
    let Some(dir) = out else {
        return Ok(Plan {
            pending: config.layout().part_shards(part).collect(),
            config,
            out: None,
            complete_games: 0,
            complete_thinking: Thinking::default(),
            notes: vec![],
            lock: None,
            part,
            batches,
        });
    };
    let opened = open_run(&config, dir, part)?;
    Ok(Plan {
        config,
        out: Some(dir.to_path_buf()),
        pending: opened.pending,
        complete_games: opened.complete_games,
        complete_thinking: opened.complete_thinking,
        notes: opened.notes,
        lock: Some(opened.lock),
        part,
        batches,
    })
}

/// A run directory opened for its run ([`open_run`]).
pub(crate) struct Opened {
    /// Shards of the part still to play, in index order.
    pub pending: Vec<u64>,
    pub complete_games: u64,
    pub complete_thinking: Thinking,
    pub notes: Vec<String>,
    pub lock: Arc<RunLock>,
}

/// Open `dir` for the run `config` (part `part`): create it and its
/// `run.json`, or check that the one there is the same work (format,
/// config, part); remove temporary files of an interrupted run, remove the
/// damaged shards of the part (with a note) and find the ones still to play.
pub(crate) fn open_run<C: RunConfig>(config: &C, dir: &Path, part: Option<Part>) -> Result<Opened, SelfplayError> {
    let layout = config.layout();
    let owned: Vec<u64> = layout.part_shards(part).collect();
    let mut notes = Vec::new();
    let run_dir = RunDir::open(dir)?;
    let run_path = dir.join(RUN_FILE);
    let config_json = serde_json::to_value(config).expect("configs serialize");
    let records_required;
    if let Some(stored) = read_run_file(&run_dir)? {
        if stored.format != C::RUN_FORMAT {
            return Err(SelfplayError::NotARun(format!(
                "{} holds {}; this command plays {}: choose another --out",
                dir.display(),
                describe_format(&stored.format),
                describe_format(C::RUN_FORMAT)
            )));
        }
        match same_work(&stored.config, stored.part, config, part) {
            Ok(()) => {}
            Err(WorkMismatch::Config(diffs)) => {
                return Err(SelfplayError::ConfigMismatch { dir: dir.to_path_buf(), diffs })
            }
            Err(WorkMismatch::Part { stored, now }) => {
                return Err(SelfplayError::PartMismatch { dir: dir.to_path_buf(), stored, now })
            }
        }
        records_required = checksum_records_required(&stored, &run_path)?;
        if stored.code_version != code_version() {
            notes.push(format!(
                "resuming a run started by code version {}; new games record {}",
                stored.code_version,
                code_version()
            ));
        }
    } else {
        for sub in [GAMES_DIR, SAMPLES_DIR] {
            let has_shards = std::fs::read_dir(dir.join(sub))
                .map(|entries| entries.flatten().any(|e| is_shard(&e.path())))
                .unwrap_or(false);
            if has_shards {
                return Err(SelfplayError::NotARun(format!(
                    "{} has shards but no {RUN_FILE}: not a run this program can resume; choose another --out",
                    dir.join(sub).display()
                )));
            }
        }
        let file = RunFile {
            format: C::RUN_FORMAT.into(),
            config: config_json.clone(),
            seed: config.seed(),
            code_version: code_version(),
            checksums: Some(crate::CHECKSUM_EXT.into()),
            part,
        };
        records_required = true;
        write_run_file(&run_dir, &file)?;
    }
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(SelfplayError::io(&d))?;
        // Temporary files of a run that was killed.
        for entry in std::fs::read_dir(&d).map_err(SelfplayError::io(&d))?.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with(".shard-") && name.ends_with(".tmp") {
                std::fs::remove_file(entry.path()).map_err(SelfplayError::io(entry.path()))?;
            }
        }
    }
    let check = check_shards(layout, &config_json, dir, &owned, records_required);
    let mut pending = check.missing;
    for (s, why) in check.damaged {
        let range = layout.shard_range(s);
        notes.push(format!("shard {s} damaged, re-playing games {} to {}: {why}", range.start, range.end - 1));
        // The games file first: without it the shard is pending even if this
        // is interrupted.
        for path in shard_paths(dir, s) {
            crate::checksum::remove_shard(&path)?;
        }
        pending.push(s);
    }
    pending.sort_unstable();
    let (complete_games, complete_thinking) = (check.complete_games, check.complete_thinking);
    if check.unrecorded > 0 {
        notes.push(format!(
            "this run was started before shards had checksum records: {} shard file(s) without one \
             were checked by their Parquet footers only (shards written from now on get records)",
            check.unrecorded
        ));
    }
    Ok(Opened { pending, complete_games, complete_thinking, notes, lock: run_dir.lock() })
}

/// Whether every shard of the run `stored` must have a checksum record
/// (runs from before the records had none); an error for records of a kind
/// this program cannot read.
pub(crate) fn checksum_records_required(stored: &RunFile, run_path: &Path) -> Result<bool, SelfplayError> {
    match stored.checksums.as_deref() {
        None => Ok(false),
        Some(crate::CHECKSUM_EXT) => Ok(true),
        Some(other) => Err(SelfplayError::Corrupt {
            path: run_path.to_path_buf(),
            message: format!("shard checksums `{other}`; this program reads `{}`", crate::CHECKSUM_EXT),
        }),
    }
}

/// Shard `s`'s games file and samples file in the run directory `dir`.
fn shard_paths(dir: &Path, s: u64) -> [PathBuf; 2] {
    [GAMES_DIR, SAMPLES_DIR].map(|sub| dir.join(sub).join(crate::shard_name(s)))
}

/// What [`check_shards`] found; it changes nothing on disk.
pub(crate) struct ShardCheck {
    /// Shards whose games file is not there (not played yet).
    pub missing: Vec<u64>,
    /// Shards that are there but unsound, with why.
    pub damaged: Vec<(u64, String)>,
    pub complete_games: u64,
    pub complete_thinking: Thinking,
    /// Sound shard files without a checksum record (older runs).
    pub unrecorded: u64,
}

/// Read each of the shards `owned` of the run in `dir` once, in parallel:
/// their checksum records, then their footers. Read-only: a resume removes
/// the damaged shards, a merge refuses them.
pub(crate) fn check_shards(
    layout: Layout,
    config_json: &serde_json::Value,
    dir: &Path,
    owned: &[u64],
    records_required: bool,
) -> ShardCheck {
    let checked: Vec<Option<Result<(u64, Thinking), SelfplayError>>> = owned
        .par_iter()
        .copied()
        .map(|s| {
            let [games, samples] = shard_paths(dir, s);
            // A shard counts as done once its games file exists (renamed last).
            games.exists().then(|| {
                let range = layout.shard_range(s);
                check_complete_shard(&games, &samples, s, config_json, range.end - range.start, records_required)
            })
        })
        .collect();
    let mut check = ShardCheck {
        missing: vec![],
        damaged: vec![],
        complete_games: 0,
        complete_thinking: Thinking::default(),
        unrecorded: 0,
    };
    for (&s, result) in owned.iter().zip(checked) {
        let range = layout.shard_range(s);
        match result {
            None => check.missing.push(s),
            Some(Ok((files_without_record, thinking))) => {
                check.complete_games += range.end - range.start;
                check.complete_thinking.add(&thinking);
                check.unrecorded += files_without_record;
            }
            Some(Err(e)) => check.damaged.push((s, relative_error(&e, dir))),
        }
    }
    check
}

/// "the whole run" or "part I/N of the run".
pub fn describe_part(part: Option<Part>) -> String {
    match part {
        None => "the whole run".into(),
        Some(p) => format!("part {p} of the run"),
    }
}

/// Check a complete shard's two files: their checksum records (a missing
/// one is an error when `records_required`), then their footers
/// ([`check_shard`]). `Ok`: how many of the two files have no record, and
/// the games' thinking from the games footer.
fn check_complete_shard(
    games: &Path,
    samples: &Path,
    s: u64,
    config: &serde_json::Value,
    games_rows: u64,
    records_required: bool,
) -> Result<(u64, Thinking), SelfplayError> {
    let mut unrecorded = 0;
    for path in [games, samples] {
        match crate::verify_shard(path)? {
            crate::Verified::Matches => {}
            crate::Verified::NoRecord if records_required => {
                return Err(SelfplayError::Corrupt {
                    path: path.to_path_buf(),
                    message: format!(
                        "no checksum record ({} is missing)",
                        crate::checksum_path(path).file_name().unwrap_or_default().to_string_lossy()
                    ),
                })
            }
            crate::Verified::NoRecord => unrecorded += 1,
        }
    }
    let thinking = check_shard(games, s, config, Some(games_rows))?;
    check_shard(samples, s, config, None)?;
    Ok((unrecorded, thinking))
}

/// An error with its file's path shown relative to the run directory.
fn relative_error(e: &SelfplayError, dir: &Path) -> String {
    let text = e.to_string();
    let prefix = format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR);
    text.strip_prefix(&prefix).map(str::to_string).unwrap_or(text)
}

/// A shard's reader with its footer read (rows not yet); a damaged footer
/// is an error naming the file.
pub(crate) fn footer_reader(path: &Path) -> Result<SerializedFileReader<File>, SelfplayError> {
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    let file = File::open(path).map_err(SelfplayError::io(path))?;
    crate::catch_library_panic(|| SerializedFileReader::new(file))
        .map_err(|m| corrupt(format!("damaged Parquet footer ({m})")))?
        .map_err(|e| corrupt(format!("unreadable Parquet file ({e})")))
}

/// Read a shard's footer: readable, shard `s` of a run of `config`, with
/// `rows` rows when given. Returns the thinking it records (none: zero).
fn check_shard(path: &Path, s: u64, config: &serde_json::Value, rows: Option<u64>) -> Result<Thinking, SelfplayError> {
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    let reader = footer_reader(path)?;
    let meta = reader.metadata().file_metadata();
    let get = |key: &str| {
        meta.key_value_metadata().and_then(|kv| kv.iter().find(|k| k.key == key)).and_then(|k| k.value.as_deref())
    };
    let shard = get("junqi.shard").and_then(|v| v.parse::<u64>().ok());
    let stored: Option<serde_json::Value> = get("junqi.config").and_then(|v| serde_json::from_str(v).ok());
    if shard != Some(s) || stored.as_ref() != Some(config) {
        return Err(corrupt(format!("not shard {s} of this run")));
    }
    // Four-player samples without belief targets (an older build): a resume
    // plays the shard again (same seed, same games) so one run never holds
    // two sample formats, which a merge would refuse.
    if get("junqi.format") == Some(crate::SIGUO_SAMPLES_FORMAT_V1) {
        return Err(corrupt(format!(
            "samples in `{}` (an older build, no belief targets); this build writes `{}`",
            crate::SIGUO_SAMPLES_FORMAT_V1,
            crate::SIGUO_SAMPLES_FORMAT
        )));
    }
    if let Some(rows) = rows {
        if meta.num_rows() as u64 != rows {
            return Err(corrupt(format!("{} rows, expected {rows}", meta.num_rows())));
        }
    }
    match get(THINKING_KEY) {
        None => Ok(Thinking::default()),
        Some(text) => Thinking::from_footer(text).ok_or_else(|| corrupt(format!("bad `{THINKING_KEY}`: {text}"))),
    }
}

enum ShardOutcome {
    /// Finished (and written, with an output directory): its number of games.
    Written(u64, Tally),
    Stopped,
}

impl Plan {
    /// Shards in the run (in its part, for a part).
    pub fn shards_total(&self) -> u64 {
        self.config.layout().part_shards(self.part).count() as u64
    }

    /// Games in the run (in its part, for a part).
    pub fn games_total(&self) -> u64 {
        self.config.layout().part_games(self.part)
    }

    /// Play the pending shards on `options.threads` rayon workers and write
    /// them. Each shard is played by one worker, which keeps up to
    /// `options.in_flight` of its games going at once ([`GameInFlight`]),
    /// one ply of each in turn, and writes them in game order.
    pub fn run(&self, options: &RunOptions) -> Result<Summary, SelfplayError> {
        let started = Instant::now();
        let threads = workers(options.threads);
        crate::limits::in_range("worker threads", threads, 1, crate::limits::MAX_THREADS)
            .and_then(|_| {
                crate::limits::in_range("games in flight", options.in_flight, 0, crate::limits::MAX_IN_FLIGHT)
            })
            .map_err(SelfplayError::Config)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("selfplay-{i}"))
            .build()
            .map_err(|cause| SelfplayError::Threads { threads, cause })?;
        let in_flight = match options.in_flight {
            0 if self.batches => BATCHED_IN_FLIGHT,
            0 => 1,
            n => n,
        };
        let abort = AtomicBool::new(false);
        let before = (
            options.progress.games.load(Ordering::Relaxed),
            options.progress.plies.load(Ordering::Relaxed),
            options.progress.samples.load(Ordering::Relaxed),
        );
        let results: Vec<Result<ShardOutcome, SelfplayError>> = pool.install(|| {
            self.pending
                .par_iter()
                .with_max_len(1)
                .map(|&s| {
                    let r = self.run_shard(s, options, in_flight, &abort);
                    if r.is_err() {
                        abort.store(true, Ordering::Relaxed);
                    }
                    r
                })
                .collect()
        });
        let (mut written, mut written_games, mut stopped, mut tally) = (0, 0, false, Tally::default());
        for r in results {
            match r? {
                ShardOutcome::Written(games, t) => {
                    written += 1;
                    written_games += games;
                    tally.merge(&t);
                }
                ShardOutcome::Stopped => stopped = true,
            }
        }
        let p = &options.progress;
        Ok(Summary {
            games_played: p.games.load(Ordering::Relaxed) - before.0,
            plies: p.plies.load(Ordering::Relaxed) - before.1,
            samples: p.samples.load(Ordering::Relaxed) - before.2,
            shards_written: written,
            shards_complete: self.shards_total() - self.pending.len() as u64 + written,
            shards_total: self.shards_total(),
            games_complete: self.complete_games + written_games,
            interrupted: stopped,
            in_flight,
            elapsed: started.elapsed(),
            tally,
        })
    }

    fn metadata(&self, shard: u64) -> Vec<(String, String)> {
        let range = self.config.shard_range(shard);
        vec![
            ("junqi.config".into(), serde_json::to_string(&self.config).expect("configs serialize")),
            ("junqi.seed".into(), self.config.seed.to_string()),
            ("junqi.code_version".into(), code_version()),
            ("junqi.shard".into(), shard.to_string()),
            ("junqi.first_game".into(), range.start.to_string()),
            ("junqi.games".into(), (range.end - range.start).to_string()),
            ("junqi.samples_schema".into(), crate::SAMPLES_SCHEMA_VERSION.to_string()),
            ("junqi.obs_encoding".into(), self.config.observation.encoding.clone()),
            ("junqi.obs_channels".into(), self.config.observation.channels.to_string()),
        ]
    }

    fn run_shard(
        &self,
        shard: u64,
        options: &RunOptions,
        in_flight: usize,
        abort: &AtomicBool,
    ) -> Result<ShardOutcome, SelfplayError> {
        let stop = || options.stop.load(Ordering::Relaxed) || abort.load(Ordering::Relaxed);
        if stop() {
            return Ok(ShardOutcome::Stopped);
        }
        let c = &self.config;
        let mut writer = match &self.out {
            Some(dir) => Some(ShardWriter::create(
                dir,
                shard,
                serde_json::to_string(&c.rules).expect("rules serialize"),
                code_version(),
                &self.metadata(shard),
            )?),
            None => None,
        };
        match self.play_shard(shard, options, in_flight, &stop, &mut writer) {
            Ok(Some(tally)) => {
                if let Some(w) = writer {
                    w.finish(&Thinking::of(&tally))?;
                }
                let range = c.shard_range(shard);
                Ok(ShardOutcome::Written(range.end - range.start, tally))
            }
            stopped_or_failed => {
                if let Some(w) = writer {
                    w.abandon();
                }
                stopped_or_failed.map(|_| ShardOutcome::Stopped)
            }
        }
    }

    /// Play shard `shard`'s games, up to `in_flight` at once, and
    /// push them to `writer` in game order. `None` when stopped.
    ///
    /// Games finish out of order; a finished game waits (with its samples)
    /// until the games before it are written. At most `in_flight` games are
    /// playing, and at most `2 * in_flight` are started and not yet written
    /// (a long game holds back the start of new ones), so memory stays
    /// bounded. The rows of a shard are in game order whatever `in_flight`.
    fn play_shard(
        &self,
        shard: u64,
        options: &RunOptions,
        in_flight: usize,
        stop: &dyn Fn() -> bool,
        writer: &mut Option<ShardWriter>,
    ) -> Result<Option<Tally>, SelfplayError> {
        /// A game being played, with its own fresh players in seat order.
        struct Playing {
            game: GameInFlight,
            seats: [Player; 2],
            /// Its mover waits for an answer.
            waiting: bool,
        }
        let c = &self.config;
        let in_flight = in_flight.max(1);
        let window = 2 * in_flight as u64;
        let range = c.shard_range(shard);
        let (mut next_start, mut next_write) = (range.start, range.start);
        let mut playing: Vec<Playing> = Vec::with_capacity(in_flight);
        let mut finished_games: BTreeMap<u64, (GameRecord, GameBuffers)> = BTreeMap::new();
        let mut spare: Vec<GameBuffers> = Vec::new();
        let mut tally = Tally::default();
        while next_write < range.end {
            if stop() {
                return Ok(None);
            }
            // Start games while there is room.
            while playing.len() < in_flight && next_start < range.end && next_start - next_write < window {
                let index = next_start;
                next_start += 1;
                // Fresh players every game: nothing a bot remembers carries over,
                // not even to the other game of a pair (same deal, seats swapped).
                let mut seats = [junqi_bots::build(&c.bots[0])?, junqi_bots::build(&c.bots[1])?];
                if c.seat1_player(index) == 1 {
                    seats.swap(0, 1);
                }
                let [s1, s2] = &mut seats;
                let buf = spare.pop().unwrap_or_default();
                let opening = c.opening_of(index);
                let game = GameInFlight::start_at(
                    &c.rules,
                    [s1, s2],
                    index,
                    c.seed_of(index),
                    opening.as_ref(),
                    c.samples_per_game,
                    buf,
                )?
                .with_resign(c.resign)
                .with_timeouts(c.timeouts)
                .with_sample_seat(c.sample_seat(index));
                if game.is_finished() {
                    finished_games.insert(index, game.finish());
                } else {
                    playing.push(Playing { game, seats, waiting: false });
                }
            }
            // Advance every game in flight: a game whose movers batch their
            // evaluations goes on until its mover waits for an answer (so
            // every game has a request in the next batch); any other game
            // plays one ply.
            let mut i = 0;
            while i < playing.len() {
                let p = &mut playing[i];
                p.waiting = false;
                let finished = loop {
                    let mover = p.game.turn().index();
                    match p.game.poll_step(&mut p.seats[mover]) {
                        Poll::Pending => {
                            p.waiting = true;
                            break false;
                        }
                        Poll::Ready(done) => {
                            let done = done?;
                            options.progress.moves.fetch_add(1, Ordering::Relaxed);
                            if done {
                                break true;
                            }
                            if !p.seats[p.game.turn().index()].batches() {
                                break false;
                            }
                        }
                    }
                };
                if finished {
                    let Playing { game: done, mut seats, .. } = playing.swap_remove(i);
                    done.tell_result(&mut seats);
                    finished_games.insert(done.game_id(), done.finish());
                } else {
                    i += 1;
                }
            }
            // Wait for the answers (the first wait sends this thread's requests
            // of all its games to the net together).
            for p in playing.iter_mut().filter(|p| p.waiting) {
                let waiting = Instant::now();
                p.seats[p.game.turn().index()].wait();
                p.game.add_thinking(waiting.elapsed());
            }
            // Write the finished games that are next in order.
            while let Some((record, buf)) = finished_games.remove(&next_write) {
                if let Some(w) = writer.as_mut() {
                    w.push(&record, buf.samples())?;
                }
                tally.add(c.seat1_player(next_write), record.outcome.winner, buf.thinking());
                tally.resign.add(&record.outcome, buf.resign_watch());
                let p = &options.progress;
                p.games.fetch_add(1, Ordering::Relaxed);
                p.plies.fetch_add(record.moves.len() as u64, Ordering::Relaxed);
                p.samples.fetch_add(buf.samples().len() as u64, Ordering::Relaxed);
                spare.push(buf);
                next_write += 1;
            }
        }
        Ok(Some(tally))
    }
}

/// Rows and bytes on disk of a run's two datasets (complete shards only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatasetStats {
    pub shards: u64,
    pub games: u64,
    pub samples: u64,
    pub games_bytes: u64,
    pub samples_bytes: u64,
}

/// Count the rows (from the Parquet footers) and bytes of `DIR/games` and `DIR/samples`.
pub fn dataset_stats(dir: &Path) -> Result<DatasetStats, SelfplayError> {
    let mut stats = DatasetStats::default();
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        let d = dir.join(sub);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .map_err(SelfplayError::io(&d))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_shard(p))
            .collect();
        files.sort();
        for path in files {
            let bytes = std::fs::metadata(&path).map_err(SelfplayError::io(&path))?.len();
            let file = File::open(&path).map_err(SelfplayError::io(&path))?;
            let reader = crate::catch_library_panic(|| SerializedFileReader::new(file))
                .map_err(|m| SelfplayError::Corrupt {
                    path: path.clone(),
                    message: format!("damaged Parquet footer ({m})"),
                })?
                .map_err(SelfplayError::parquet(&path))?;
            let rows = reader.metadata().file_metadata().num_rows() as u64;
            if sub == GAMES_DIR {
                stats.shards += 1;
                stats.games += rows;
                stats.games_bytes += bytes;
            } else {
                stats.samples += rows;
                stats.samples_bytes += bytes;
            }
        }
    }
    Ok(stats)
}

/// A complete shard file (not a hidden temporary one).
pub(crate) fn is_shard(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("shard-") && n.ends_with(".parquet"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Mode, Rules};

    /// A run written before an option existed resumes: the stored config is
    /// read with the option's default, not compared as raw JSON.
    #[test]
    fn a_run_from_before_the_paired_option_resumes() {
        let dir = std::env::temp_dir().join(format!("junqi-run-old-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = Config::new(Rules::preset(Mode::Fanqi), 4, ["random", "random"], 1).unwrap();
        prepare(config.clone(), Some(&dir)).unwrap();
        let path = dir.join(RUN_FILE);
        let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(run["config"].as_object_mut().unwrap().remove("paired").is_some());
        std::fs::write(&path, run.to_string()).unwrap();
        prepare(config.clone(), Some(&dir)).unwrap();
        let err = prepare(config.with_pairs(true), Some(&dir)).unwrap_err().to_string();
        assert!(err.contains("paired"), "{err}");
    }

    #[test]
    fn tally_credits_the_player_in_the_winning_seat() {
        let mut t = Tally::default();
        let thinking = [(3, 0.5), (2, 1.0)]; // seat 1, seat 2
        t.add(0, Some(Seat::First), thinking); // player 0 in seat 1 wins
        t.add(1, Some(Seat::First), thinking); // player 1 in seat 1 wins
        t.add(1, Some(Seat::Second), thinking); // player 0 in seat 2 wins
        t.add(0, None, thinking);
        assert_eq!((t.games, t.wins, t.draws, t.seat1_wins), (4, [2, 1], 1, 2));
        assert_eq!((t.decisions, t.think_secs), ([10, 10], [3.0, 3.0]));
        assert_eq!(t.moves_per_s(0), 10.0 / 3.0);
        assert_eq!((t.points(0), t.points(1), t.seat1_points()), (2.5, 1.5, 2.5));
    }
}
