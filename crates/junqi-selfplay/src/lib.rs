//! # junqi-selfplay
//!
//! Self-play between two [`junqi_bots::Agent`]s on [`junqi_core::Game`],
//! over rayon worker threads, writing two Parquet datasets (arrow-rs, zstd):
//! `games/` (one row per game) and `samples/` (one row per sampled
//! position: compact observation, legal actions, policy, action, value,
//! final outcome). See `docs/data.md` for the schema.
//!
//! * Every game's seed is derived from the run seed and the game's index
//!   ([`game_seed`]), so the games do not depend on thread scheduling.
//! * Each shard is played by one worker, which keeps up to
//!   [`RunOptions::in_flight`] of its games going at once ([`GameInFlight`],
//!   one ply of each in turn) and writes them in game order.
//! * Games are grouped in shards of fixed index ranges; each shard is one
//!   file per dataset, written under a hidden temporary name and renamed when
//!   complete. Re-running the same run resumes: finished shards are kept,
//!   the rest are played again, so a run always holds exactly the requested
//!   games, each once.
//! * Each shard file has a content checksum (CRC-32C and length) recorded
//!   beside it before it is renamed into place ([`checksum_path`]);
//!   resuming re-plays a shard whose bytes no longer match, and the readers
//!   ([`read_games_file`], [`read_samples_file`]) refuse one ([`verify_shard`]).
//! * Every row of `games/` can be written as a text record (JGN, PGN-like,
//!   `docs/records.md`) and read back exactly ([`write_record`],
//!   [`RecordReader`]); [`write_games_shard`] writes rows as a shard.
//! * `DIR/run.json` holds the run's config, seed and code version; a run
//!   refuses to resume into a directory whose config differs.
//!
//! ```no_run
//! use junqi_selfplay::{prepare, Config, RunOptions, SamplesPerGame};
//! let config = Config::new(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 1000, ["random", "greedy"], 7)?
//!     .with_samples(SamplesPerGame::Count(8));
//! let plan = prepare(config, Some(std::path::Path::new("out")))?;
//! let summary = plan.run(&RunOptions::default())?;
//! println!("{} games", summary.games_played);
//! # Ok::<(), junqi_selfplay::SelfplayError>(())
//! ```

mod checksum;
mod guard;
pub mod limits;
mod merge;
mod obs;
mod part;
mod play;
mod records;
mod replay;
mod resign;
mod run;
mod run_dir;
mod run_lock;
mod siguo;
pub mod siguo_jgn;
mod siguo_reanalyse;
mod siguo_samples;
mod stored_rules;
mod writer;

pub use checksum::{checksum_path, read_checksum, verify_shard, ShardChecksum, Verified, CHECKSUM_EXT};
pub use guard::catch_library_panic;
pub use merge::{check_parts, check_whole_run, copy_run, merge_parts, MergePlan, Merged};
pub use obs::{decode_planes, encode_planes, DecodeError, OBS_ENCODING};
pub use part::{Part, MAX_PARTS};
pub use play::{play_game, GameBuffers, GameInFlight, GameRecord, Sample, TimeoutRule};
pub use records::{
    parse_records, record_text, tag, write_record, Record, RecordError, RecordReader, MAX_LINE_BYTES, RESULTS,
    WRAP_COLUMNS,
};
pub use replay::{
    games_dir, read_forfeits, read_games_file, read_move_ms, read_samples_file, replay_dir, replay_game, shard_files,
    ReplayReport, StoredGame, StoredSample,
};
pub use resign::{Resign, ResignTally, LEVEL_BINS, LEVEL_TOP, LEVEL_WIDTH};
pub use run::{
    dataset_stats, describe_part, prepare, prepare_part, workers, DatasetStats, Layout, Plan, Progress, RunOptions,
    Summary, Tally, Thinking, BATCHED_IN_FLIGHT, DEFAULT_IN_FLIGHT, FORFEITS_KEY, MOVE_MS_KEY, RUN_FILE, THINKING_KEY,
};
pub use run_dir::{differences, same_work, RunDir, WorkMismatch};
pub use run_lock::{RunLock, LOCK_FILE};
pub use siguo::rules_text as siguo_rules_text;
pub use siguo::{
    play_siguo, play_siguo_game, read_siguo_games_file, replay_siguo_game, run_siguo, siguo_games_schema, team_members,
    write_siguo_games_shard, SiguoConfig, SiguoGame, SiguoSummary, FORMAT_KEY, SIGUO_GAMES_FORMAT, SIGUO_RUN_FORMAT,
};
pub use siguo_reanalyse::{
    reanalyse_siguo_game, run_reanalyse, ReanalyseConfig, ReanalyseSummary, Seats, REANALYSIS_FORMAT,
};
pub use siguo_samples::{
    check_siguo_samples, read_siguo_samples_file, read_siguo_samples_versioned, rewrite_as_siguo_samples_v1,
    sampled_plies, samples_at, siguo_samples_format, siguo_samples_schema, write_siguo_samples_shard, SiguoSample,
    SIGUO_SAMPLES_FORMAT, SIGUO_SAMPLES_FORMAT_V1,
};
pub use writer::{
    games_schema, samples_schema, shard_name, write_games_shard, GAMES_DIR, SAMPLES_DIR, SAMPLES_SCHEMA_VERSION,
};

use junqi_bots::{BotSpec, IntoBotSpec};
use junqi_core::Rules;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The code that wrote a dataset: the crate version, plus `+<git hash>` when
/// the build ran inside a git checkout.
pub fn code_version() -> String {
    let hash = env!("JUNQI_GIT_HASH");
    if hash.is_empty() {
        env!("CARGO_PKG_VERSION").to_string()
    } else {
        format!("{}+{}", env!("CARGO_PKG_VERSION"), hash)
    }
}

/// SplitMix64's output function: a bijection on `u64` that mixes well.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of game `index` of a run seeded `run_seed`. Distinct indices give
/// distinct seeds (a bijection of the index for a fixed run seed).
pub fn game_seed(run_seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(run_seed) ^ index)
}

/// How many positions of each game go to `samples/`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SamplesPerGame {
    /// Every ply.
    All,
    /// At most this many plies per game, chosen uniformly at random (from the
    /// game's seed) among its plies; `0` writes no samples.
    Count(u32),
}

impl std::str::FromStr for SamplesPerGame {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "all" => Ok(SamplesPerGame::All),
            t => t
                .parse::<u32>()
                .map(SamplesPerGame::Count)
                .map_err(|_| format!("`{s}` is not a number of samples per game or `all`")),
        }
    }
}

impl std::fmt::Display for SamplesPerGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SamplesPerGame::All => f.write_str("all"),
            SamplesPerGame::Count(k) => write!(f, "{k}"),
        }
    }
}

impl Serialize for SamplesPerGame {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplesPerGame::All => s.serialize_str("all"),
            SamplesPerGame::Count(k) => s.serialize_u32(*k),
        }
    }
}

impl<'de> Deserialize<'de> for SamplesPerGame {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Count(u32),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Count(k) => Ok(SamplesPerGame::Count(k)),
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// How the positions in `samples/` are stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservationFormat {
    /// [`junqi_env::CODE_FORMAT`] (schema version 2; version 1 stored
    /// [`OBS_ENCODING`] planes).
    pub encoding: String,
    /// Planes of the observation the positions rebuild ([`junqi_env::OBS_CHANNELS`]); each is 12 × 5.
    pub channels: usize,
}

impl Default for ObservationFormat {
    fn default() -> Self {
        ObservationFormat { encoding: junqi_env::CODE_FORMAT.to_string(), channels: junqi_env::OBS_CHANNELS }
    }
}

/// Everything that decides a run's output. Two runs with equal configs write
/// identical games (whatever the thread count); resuming requires it equal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The rules: the mode and every docs/rules.md §6 option by name.
    pub rules: Rules,
    /// Games in the run (indices `0..games`).
    pub games: u64,
    /// Bot specs of the two players, canonical ([`BotSpec::canonical`],
    /// stored as text). Player 0 takes seat 1 in even games; with `swap` the
    /// players change seats every other game.
    pub bots: [BotSpec; 2],
    pub swap: bool,
    /// Paired games: games `2k` and `2k + 1` share one seed (the same 翻棋
    /// deal, the same deployment draws) with the seats swapped. Implies `swap`.
    #[serde(default)]
    pub paired: bool,
    /// The run seed (see [`game_seed`]).
    pub seed: u64,
    pub samples_per_game: SamplesPerGame,
    /// Games per shard (shard `s` holds games `s * shard_games ..`).
    pub shard_games: u64,
    pub observation: ObservationFormat,
    /// Resignation (off when absent; older runs have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<Resign>,
    /// Fixed openings (absent: every game's start comes from its seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<Openings>,
    /// Sample only the positions where this player (0 or 1, as in `bots`)
    /// moves: a best response to a fixed bot trains on its own decisions,
    /// never on the bot's (absent: both players' positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_player: Option<u8>,
    /// A per-move time limit and the timeout that loses (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<TimeoutRule>,
}

/// A list of openings that games start from, in turn: game `index` (its pair,
/// when paired) takes entry `(offset + index) % len`. An entry is a start
/// position in JFEN (the game starts there; no deal, no deployments) or a
/// seed (the game is dealt or deployed from that seed instead of its own).
/// The bots' own choices still come from each game's seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Openings {
    pub lines: Vec<String>,
    #[serde(default)]
    pub offset: u64,
}

/// One entry of [`Openings`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opening {
    Seed(u64),
    Position(String),
}

impl Openings {
    /// Parse an openings file: one JFEN position or one seed per line;
    /// blank lines and lines starting with `#` are skipped. Every position is
    /// checked against `rules`.
    pub fn parse(text: &str, rules: &Rules) -> Result<Openings, SelfplayError> {
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let opening = Openings::entry(line);
            if let Opening::Position(jfen) = &opening {
                let pos = junqi_core::Position::from_jfen(jfen, *rules)
                    .map_err(|cause| SelfplayError::BadOpening { at: format!("openings line {}", n + 1), cause })?;
                let mut moves = junqi_core::MoveList::new();
                pos.legal_moves(&mut moves);
                if pos.outcome_given(moves.len()).is_some() {
                    return Err(SelfplayError::FinishedOpening { line: n + 1 });
                }
            }
            lines.push(line.to_string());
        }
        if lines.is_empty() {
            return Err(SelfplayError::NoOpenings);
        }
        Ok(Openings { lines, offset: 0 })
    }
    fn entry(line: &str) -> Opening {
        match line.parse::<u64>() {
            Ok(seed) => Opening::Seed(seed),
            Err(_) => Opening::Position(line.to_string()),
        }
    }
    /// The same list, starting `offset` entries further on.
    pub fn from_offset(&self, offset: u64) -> Openings {
        Openings { lines: self.lines.clone(), offset }
    }
    /// The opening of slot `slot` (a game, or a pair of games).
    pub fn get(&self, slot: u64) -> Opening {
        let n = self.lines.len() as u64;
        Openings::entry(&self.lines[((self.offset % n + slot % n) % n) as usize])
    }
}

impl Config {
    /// A run of `games` games between `bots` (specs, as text or parsed;
    /// checked and made canonical), every sample kept, default shard size.
    pub fn new(rules: Rules, games: u64, bots: [impl IntoBotSpec; 2], seed: u64) -> Result<Config, SelfplayError> {
        let [a, b] = bots;
        let bots = [a.into_bot_spec()?.canonical()?, b.into_bot_spec()?.canonical()?];
        Ok(Config {
            rules,
            games,
            bots,
            swap: false,
            paired: false,
            seed,
            samples_per_game: SamplesPerGame::All,
            shard_games: default_shard_games(games),
            observation: ObservationFormat::default(),
            resign: None,
            openings: None,
            sample_player: None,
            timeouts: None,
        })
    }
    /// Play under a per-move time limit (see [`TimeoutRule`]).
    pub fn with_timeouts(mut self, timeouts: Option<TimeoutRule>) -> Config {
        self.timeouts = timeouts;
        self
    }
    /// Sample only `player`'s positions (see [`Config::sample_player`]).
    pub fn with_sample_player(mut self, player: Option<u8>) -> Config {
        self.sample_player = player;
        self
    }
    /// The seat whose positions game `index` samples (None: both).
    pub fn sample_seat(&self, index: u64) -> Option<junqi_core::Seat> {
        let p = self.sample_player? as usize;
        Some(if self.seat1_player(index) == p { junqi_core::Seat::First } else { junqi_core::Seat::Second })
    }
    /// Start games from `openings` in turn (see [`Openings`]).
    pub fn with_openings(mut self, openings: Option<Openings>) -> Config {
        self.openings = openings;
        self
    }
    pub fn with_samples(mut self, samples: SamplesPerGame) -> Config {
        self.samples_per_game = samples;
        self
    }
    pub fn with_swap(mut self, swap: bool) -> Config {
        self.swap = swap;
        self
    }
    /// Play each seed twice with the seats swapped (see [`Config::paired`]).
    pub fn with_pairs(mut self, paired: bool) -> Config {
        self.paired = paired;
        self.swap |= paired;
        // A pair never straddles two shards.
        self.shard_games += self.shard_games % 2 * u64::from(paired);
        self
    }
    /// Let the bots resign (see [`Resign`]).
    pub fn with_resign(mut self, resign: Option<Resign>) -> Config {
        self.resign = resign;
        self
    }
    pub fn with_shard_games(mut self, shard_games: u64) -> Config {
        self.shard_games = shard_games;
        self
    }
    /// Number of shards.
    pub fn shards(&self) -> u64 {
        run::RunConfig::layout(self).shards()
    }
    /// The game indices of shard `s`.
    pub fn shard_range(&self, s: u64) -> std::ops::Range<u64> {
        run::RunConfig::layout(self).shard_range(s)
    }
    /// The seed game `index` is played from: [`game_seed`] of the index, or
    /// of the pair's index when games are paired.
    pub fn seed_of(&self, index: u64) -> u64 {
        game_seed(self.seed, self.slot(index))
    }
    /// A game's slot: its pair's index when paired, else its own.
    fn slot(&self, index: u64) -> u64 {
        if self.paired {
            index / 2
        } else {
            index
        }
    }
    /// Game `index`'s entry of the openings (`None` without openings: the
    /// game is dealt or deployed from [`Config::seed_of`]).
    pub fn opening_of(&self, index: u64) -> Option<Opening> {
        self.openings.as_ref().map(|o| o.get(self.slot(index)))
    }
    /// Which player (index into `bots`) sits in seat 1 in game `index`.
    pub fn seat1_player(&self, index: u64) -> usize {
        if self.swap && index % 2 == 1 {
            1
        } else {
            0
        }
    }
    /// Check every field (a `run.json` may have been edited), building each
    /// bot once; says whether a bot batches its evaluations across games.
    fn check(&self) -> Result<Checked, SelfplayError> {
        use limits::{in_range, MAX_GAMES, MAX_SHARDS};
        in_range("the number of games", self.games, 1, MAX_GAMES).map_err(SelfplayError::Config)?;
        in_range("games per shard", self.shard_games, 1, MAX_GAMES).map_err(SelfplayError::Config)?;
        if self.shards() > MAX_SHARDS {
            return Err(SelfplayError::Config(format!(
                "{} games in shards of {} make {} shard files, at most {MAX_SHARDS}: give more games per shard",
                self.games,
                self.shard_games,
                self.shards()
            )));
        }
        if self.paired && (self.games % 2 == 1 || self.shard_games % 2 == 1) {
            return Err(SelfplayError::Config(
                "paired games need an even number of games and of games per shard".into(),
            ));
        }
        if self.paired && !self.swap {
            return Err(SelfplayError::Config("paired games swap seats: `paired` needs `swap`".into()));
        }
        if let Some(r) = &self.resign {
            r.check().map_err(SelfplayError::Config)?;
        }
        if let Some(o) = &self.openings {
            // The same checks as when the file was read (a run.json may be edited).
            Openings::parse(&o.lines.join("\n"), &self.rules)?;
        }
        let mut batches = false;
        for b in &self.bots {
            let player = junqi_bots::build(b)?;
            // Refused here, before the first game: an engine that declared
            // it cannot play these rules would forfeit every game.
            let refused = |why| SelfplayError::Config(format!("bot `{b}` cannot play these rules: {why}"));
            player.can_play(&self.rules).map_err(refused)?;
            batches |= player.batches();
        }
        Ok(Checked { batches })
    }
}

/// What [`Config::check`] learnt from building the bots.
struct Checked {
    /// A bot batches its evaluations across games (a net bot).
    batches: bool,
}

/// The default games per shard: about 32 shards, at least 256 and at most
/// 10,000 games each. A function of the game count only, so it never
/// depends on the thread count.
pub fn default_shard_games(games: u64) -> u64 {
    games.div_ceil(32).clamp(256, 10_000)
}

/// What can go wrong in a self-play run or while reading a dataset.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// A config outside its limits (games, shards, pairing, resignation).
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Bot(#[from] junqi_bots::BotSpecError),
    /// An opening position (of an openings file or a run) that is not valid JFEN.
    #[error("{at}: {cause}")]
    BadOpening { at: String, cause: junqi_core::JfenError },
    /// An openings file line whose position is already decided.
    #[error("openings line {line}: the game is already over")]
    FinishedOpening { line: usize },
    #[error("the openings file has no opening (one JFEN or seed per line)")]
    NoOpenings,
    /// A run directory that holds another part of the run than the command plays.
    #[error("{}", run_dir::WorkMismatch::part_message(dir, *stored, *now))]
    PartMismatch { dir: PathBuf, stored: Option<Part>, now: Option<Part> },
    /// A directory this program cannot treat as a run (no run file, stray
    /// shards, another run's work, a part where a whole run is needed).
    #[error("{0}")]
    NotARun(String),
    /// Directories that do not make one finished run (`junqi merge`).
    #[error("{0}")]
    Merge(String),
    #[error("{} holds no games shards (shard-*.parquet)", dir.display())]
    NoGames { dir: PathBuf },
    #[error("game {id} is not in {}", dir.display())]
    NoSuchGame { id: u64, dir: PathBuf },
    #[error("cannot start {threads} threads: {cause}")]
    Threads { threads: usize, cause: rayon::ThreadPoolBuildError },
    // The cause is part of the message (not a `source`), so error chains print it once.
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("{}: {cause}", path.display())]
    Parquet { path: PathBuf, cause: parquet::errors::ParquetError },
    #[error("{}: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
    #[error("{}", mismatch_message(dir, diffs))]
    ConfigMismatch { dir: PathBuf, diffs: Vec<String> },
    #[error("{} is being written by {owner}; wait for it to finish, or choose another --out", dir.display())]
    Locked { dir: PathBuf, owner: String },
    #[error("bot `{bot}` chose an illegal action {action} in game {game_id} at ply {ply}")]
    IllegalAction { bot: String, action: String, game_id: u64, ply: u32 },
    #[error("bot `{bot}` gave an illegal deployment in game {game_id}: {message}")]
    BadDeployment { bot: String, game_id: u64, message: String },
    #[error("bot `{bot}` in game {game_id} at ply {ply}: {message}")]
    BadPolicy { bot: String, game_id: u64, ply: u32, message: String },
}

fn mismatch_message(dir: &std::path::Path, diffs: &[String]) -> String {
    format!(
        "{} holds a run with a different config ({}); re-run with the same options to resume it, or choose another --out",
        dir.display(),
        diffs.join("; ")
    )
}

impl SelfplayError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> SelfplayError {
        let path = path.into();
        move |cause| SelfplayError::Io { path, cause }
    }
    pub(crate) fn parquet(path: impl Into<PathBuf>) -> impl FnOnce(parquet::errors::ParquetError) -> SelfplayError {
        let path = path.into();
        move |cause| SelfplayError::Parquet { path, cause }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_parse_skip_comments_and_cycle_from_an_offset() {
        let rules = Rules::default();
        let start = junqi_core::Position::new_game(rules, 3).to_jfen();
        let o = Openings::parse(&format!("# comment\n\n 42 \n{start}\n"), &rules).unwrap();
        assert_eq!(o.lines.len(), 2);
        assert_eq!(o.get(0), Opening::Seed(42));
        assert_eq!(o.get(1), Opening::Position(start.clone()));
        assert_eq!(o.get(2), Opening::Seed(42));
        assert_eq!(o.from_offset(3).get(0), Opening::Position(start));
        assert_eq!(o.from_offset(u64::MAX).get(u64::MAX), o.get((u64::MAX % 2) * 2));
        for (text, mentions) in [("", "no opening"), ("# only\n", "no opening"), ("1\nnonsense\n", "line 2")] {
            let err = Openings::parse(text, &rules).unwrap_err().to_string();
            assert!(err.contains(mentions), "{text:?}: {err}");
        }
        let c = Config::new(rules, 4, ["random", "random"], 1).unwrap().with_pairs(true).with_openings(Some(o));
        assert_eq!(c.opening_of(0), c.opening_of(1));
        assert_ne!(c.opening_of(1), c.opening_of(2));
        assert!(Config::new(rules, 4, ["random", "random"], 1).unwrap().opening_of(0).is_none());
    }

    #[test]
    fn game_seeds_are_distinct_and_fixed() {
        let seeds: std::collections::HashSet<u64> = (0..100_000).map(|i| game_seed(7, i)).collect();
        assert_eq!(seeds.len(), 100_000);
        assert_eq!(game_seed(7, 3), game_seed(7, 3));
        assert_ne!(game_seed(7, 3), game_seed(8, 3));
    }

    #[test]
    fn samples_per_game_parses_and_serializes() {
        assert_eq!("all".parse::<SamplesPerGame>().unwrap(), SamplesPerGame::All);
        assert_eq!("8".parse::<SamplesPerGame>().unwrap(), SamplesPerGame::Count(8));
        assert!("-1".parse::<SamplesPerGame>().is_err());
        assert_eq!(serde_json::to_string(&SamplesPerGame::All).unwrap(), "\"all\"");
        assert_eq!(serde_json::to_string(&SamplesPerGame::Count(3)).unwrap(), "3");
        assert_eq!(serde_json::from_str::<SamplesPerGame>("3").unwrap(), SamplesPerGame::Count(3));
        assert_eq!(serde_json::from_str::<SamplesPerGame>("\"all\"").unwrap(), SamplesPerGame::All);
    }

    #[test]
    fn paired_games_share_a_seed_and_swap_seats() {
        let c = Config::new(Rules::default(), 10, ["random", "greedy"], 3).unwrap().with_pairs(true);
        for k in 0..5 {
            assert_eq!(c.seed_of(2 * k), c.seed_of(2 * k + 1));
            assert_ne!(c.seed_of(2 * k), c.seed_of(2 * k + 2));
            assert_eq!((c.seat1_player(2 * k), c.seat1_player(2 * k + 1)), (0, 1));
        }
        let unpaired = Config::new(Rules::default(), 10, ["random", "greedy"], 3).unwrap().with_swap(true);
        assert_ne!(unpaired.seed_of(0), unpaired.seed_of(1));
        assert!(c.clone().with_shard_games(3).check().is_err());
        let mut odd = c.clone();
        odd.games = 9;
        assert!(odd.check().is_err());
        assert!(c.check().is_ok());
    }

    #[test]
    fn shards_cover_the_games_once() {
        let c = Config::new(Rules::default(), 1001, ["random", "random"], 1).unwrap().with_shard_games(100);
        assert_eq!(c.shards(), 11);
        let covered: Vec<u64> = (0..c.shards()).flat_map(|s| c.shard_range(s)).collect();
        assert_eq!(covered, (0..1001).collect::<Vec<_>>());
        assert_eq!(default_shard_games(1_000_000), 10_000);
        assert_eq!(default_shard_games(1000), 256);
    }
}
