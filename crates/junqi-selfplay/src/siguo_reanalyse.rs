//! Reanalysis of stored four-player games (docs/data.md, "Reanalysis"):
//! their positions relabelled by another bot, as MuZero's Reanalyse
//! refreshes old targets with a stronger searcher. Each game is re-played
//! move by move with every seat's information set; at each chosen position
//! the bot decides from the mover's set alone, and its policy (the search's
//! root visit shares, a net's priors; one-hot on its choice for a bot
//! without one) becomes the sample's policy target. The code, the legal
//! actions, the move played and the outcome stay the stored game's, so the
//! samples train like any others: the positions are the stored players',
//! the targets the relabelling bot's (the DAgger way of teaching a policy
//! the moves of a stronger one where it goes itself).

use crate::siguo::{read_siguo_games_file, SiguoGame};
use crate::siguo_samples::{
    read_siguo_samples_file, samples_at, stored_start_and_moves, write_siguo_samples_shard, SiguoSample,
};
use crate::{game_seed, shard_files, RunDir, SelfplayError, GAMES_DIR, LOCK_FILE, SAMPLES_DIR};
use junqi_core::rng_from_seed;
use junqi_siguo::{bot_from_spec, Announcement, Army, SiguoCode, SiguoInfoSet};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// `run.json`'s format of a reanalysis output.
pub const REANALYSIS_FORMAT: &str = "junqi-siguo-reanalysis/1";

/// The termination of an arena game an agent forfeited (its moves stop
/// before the rules end the game).
const FORFEIT: &str = "forfeit";

/// Whose positions a reanalysis relabels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seats {
    /// Every seat's.
    All,
    /// Team A's: armies 0 and 2 in even games, 1 and 3 in odd ones (the
    /// first bot of `selfplay --siguo --bots`).
    A,
    /// Team B's: the other two.
    B,
}

impl Seats {
    /// Does `seat` of game `game_id` belong to these seats?
    pub fn holds(self, game_id: u64, seat: Army) -> bool {
        let team_a = seat.index() % 2 == (game_id % 2) as usize;
        match self {
            Seats::All => true,
            Seats::A => team_a,
            Seats::B => !team_a,
        }
    }
}

/// A reanalysis's settings (`run.json` stores them; resuming requires them equal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReanalyseConfig {
    /// The relabelling bot's spec (`mcts`, `mcts:sims=800`, `net:FILE`).
    pub bot: String,
    pub seats: Seats,
    /// Only positions whose quiet counter (plies since a piece was last
    /// lost, docs/rules.md §10.9) is at least this; 0 keeps every one.
    pub min_quiet: u32,
    /// The target is one-hot on the bot's choice, not its policy: for a
    /// search whose visit shares say little (the rollout search's 200
    /// simulations spread almost evenly over some 60 moves, its choice
    /// made among the most visited by their values).
    pub one_hot: bool,
    /// The chosen seats' positions below `min_quiet` keep the run's own
    /// samples (its `samples/` shard of the same number) beside the
    /// relabelled ones, so the output is the whole DAgger dataset of those
    /// seats: the players' targets where they do well, the bot's where the
    /// game stalls. Left out of `run.json` when off, so older runs resume.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_stored: bool,
    /// The bot's random stream of game `g` is seeded by `game_seed(seed, g)`.
    pub seed: u64,
}

impl ReanalyseConfig {
    /// The config, its bot checked.
    pub fn new(bot: &str, seats: Seats, min_quiet: u32, seed: u64) -> Result<ReanalyseConfig, SelfplayError> {
        bot_from_spec(bot).map_err(SelfplayError::Config)?;
        Ok(ReanalyseConfig { bot: bot.trim().to_string(), seats, min_quiet, one_hot: false, keep_stored: false, seed })
    }

    /// The same with one-hot targets on the bot's choice ([`ReanalyseConfig::one_hot`]).
    pub fn with_one_hot(mut self, one_hot: bool) -> ReanalyseConfig {
        self.one_hot = one_hot;
        self
    }

    /// The same keeping the run's own samples below `min_quiet` ([`ReanalyseConfig::keep_stored`]).
    pub fn with_keep_stored(mut self, keep_stored: bool) -> ReanalyseConfig {
        self.keep_stored = keep_stored;
        self
    }

    /// Is the stored `sample` one that [`ReanalyseConfig::keep_stored`] keeps?
    fn keeps(&self, sample: &SiguoSample) -> Result<bool, String> {
        let Some(seat) = Army::ALL.get(sample.seat as usize) else {
            return Err(format!("game {}: seat {} is not an army", sample.game_id, sample.seat));
        };
        if !self.seats.holds(sample.game_id, *seat) {
            return Ok(false);
        }
        let code = SiguoCode::from_bytes(&sample.code).map_err(|e| format!("game {}: {e}", sample.game_id))?;
        Ok(code.quiet < self.min_quiet)
    }
}

/// The samples of `game` at the positions `config` chooses, each with the
/// policy of `config.bot` deciding from the mover's information set (or
/// one-hot on its choice); the
/// reason when the stored game does not re-play. A forfeited game (an
/// arena's agent failed) gives none.
pub fn reanalyse_siguo_game(game: &SiguoGame, config: &ReanalyseConfig) -> Result<Vec<SiguoSample>, String> {
    let (start, moves) = stored_start_and_moves(game)?;
    if game.termination == FORFEIT {
        // A forfeit's moves stop before the rules end the game: nothing to relabel.
        return Ok(Vec::new());
    }
    let mut bot = bot_from_spec(&config.bot)?;
    let mut rng = rng_from_seed(game_seed(config.seed, game.game_id));
    let mut pos = start.clone();
    let mut infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
    let (mut plies, mut policies) = (Vec::new(), vec![None; moves.len()]);
    for (ply, &mv) in moves.iter().enumerate() {
        let seat = pos.turn();
        if pos.outcome().is_none() && config.seats.holds(game.game_id, seat) && pos.quiet() >= config.min_quiet {
            let chosen = bot
                .choose(&infos[seat.index()], &mut rng)
                .ok_or_else(|| format!("{} found no move at ply {ply}", config.bot))?;
            let policy = if config.one_hot { None } else { bot.last_policy() };
            policies[ply] = Some(policy.unwrap_or_else(|| vec![(chosen, 1.0)]));
            plies.push(ply as u32);
        }
        let before = pos.clone();
        let effect = pos.play(mv).map_err(|e| format!("move {} `{mv}`: {e}", ply + 1))?;
        let announced = Announcement::new(&before, mv, &effect, &pos);
        for info in &mut infos {
            info.update(&announced);
        }
    }
    samples_at(game.game_id, &start, &moves, &policies, &plies)
}

/// What a reanalysis did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReanalyseSummary {
    /// Shards relabelled now, and those an earlier call had finished.
    pub shards: u64,
    pub shards_resumed: u64,
    pub games: u64,
    pub samples: u64,
    /// Set when `stop` ended the call before every shard was done.
    pub interrupted: bool,
}

/// Relabel every game of the four-player run in `data` (a `selfplay
/// --siguo` output) by `config` on `threads` threads (0: one per core), and
/// write the samples under `out`: `run.json` and `samples/`, one shard per
/// games shard with the same number and game ids. Re-running it resumes
/// (finished shards are kept); an `out` holding another reanalysis is
/// refused. `done` counts the games relabelled; setting `stop` abandons
/// the shard in hand.
pub fn run_reanalyse(
    data: &Path,
    out: &Path,
    config: &ReanalyseConfig,
    threads: usize,
    done: &AtomicU64,
    stop: &AtomicBool,
) -> Result<ReanalyseSummary, SelfplayError> {
    let games_dir = if data.join(GAMES_DIR).is_dir() { data.join(GAMES_DIR) } else { data.to_path_buf() };
    let not_four_player = |why: String| {
        SelfplayError::Config(format!(
            "--data {}: {why}; give a `junqi selfplay --siguo` (or `arena --siguo`) output",
            data.display()
        ))
    };
    let shards = shard_files(&games_dir).map_err(|e| not_four_player(e.to_string()))?;
    // Every shard must be four-player games before `out` is claimed.
    for path in &shards {
        if !crate::siguo_jgn::is_siguo_games_file(path).map_err(|e| not_four_player(e.to_string()))? {
            return Err(not_four_player(format!("{} is not a four-player games shard", path.display())));
        }
    }
    if shards.is_empty() {
        return Err(not_four_player(format!("no games shards in {}", games_dir.display())));
    }
    // The run's own samples, one shard per games shard, also before `out` is claimed.
    let stored_dir = games_dir.parent().unwrap_or(Path::new(".")).join(SAMPLES_DIR);
    let stored_of = |path: &Path| stored_dir.join(path.file_name().expect("a shard file"));
    if config.keep_stored {
        if let Some(missing) = shards.iter().map(|p| stored_of(p)).find(|s| !s.is_file()) {
            return Err(SelfplayError::Config(format!(
                "--keep-stored: {} is missing; the run's own samples are kept from its samples/ folder",
                missing.display()
            )));
        }
    }
    let run = serde_json::json!({
        "format": REANALYSIS_FORMAT,
        "config": config,
        // Canonical, so resuming with another spelling of the same folder is the same run.
        "source": std::fs::canonicalize(&games_dir).unwrap_or(games_dir).display().to_string(),
        "seed": config.seed,
        "code_version": crate::code_version(),
        "checksums": "crc32c",
    });
    let _out_dir = open_out(out, &run)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|cause| SelfplayError::Threads { threads, cause })?;
    let config_json = serde_json::to_string(config).expect("configs serialize");
    let mut summary = ReanalyseSummary::default();
    for path in shards {
        let name = path.file_name().expect("a shard file").to_owned();
        let number = shard_number(&path)
            .ok_or_else(|| SelfplayError::Corrupt { path: path.clone(), message: "not a numbered shard".into() })?;
        let done_shard = out.join(SAMPLES_DIR).join(&name);
        // A finished shard is kept; a damaged one is relabelled again.
        if done_shard.is_file() && crate::verify_shard(&done_shard).is_ok() {
            summary.shards_resumed += 1;
            continue;
        }
        let games = read_siguo_games_file(&path)?;
        let relabelled: Vec<Option<Vec<SiguoSample>>> = pool.install(|| {
            games
                .par_iter()
                .map(|g| {
                    if stop.load(Ordering::Relaxed) {
                        return Ok(None);
                    }
                    let samples = reanalyse_siguo_game(g, config).map_err(|e| SelfplayError::Corrupt {
                        path: path.clone(),
                        message: format!("game {}: {e}", g.game_id),
                    })?;
                    done.fetch_add(1, Ordering::Relaxed);
                    Ok(Some(samples))
                })
                .collect::<Result<_, SelfplayError>>()
        })?;
        let Some(relabelled) = relabelled.into_iter().collect::<Option<Vec<_>>>() else {
            summary.interrupted = true;
            break;
        };
        let mut samples: Vec<SiguoSample> = relabelled.into_iter().flatten().collect();
        if config.keep_stored {
            let stored = stored_of(&path);
            let corrupt = |message: String| SelfplayError::Corrupt { path: stored.clone(), message };
            let ids: std::collections::HashSet<u64> = games.iter().map(|g| g.game_id).collect();
            for sample in read_siguo_samples_file(&stored)? {
                // Another run's samples/ beside these games would give rows of other games.
                if !ids.contains(&sample.game_id) {
                    let name = path.display();
                    return Err(corrupt(format!("holds game {}, which {name} does not", sample.game_id)));
                }
                if config.keeps(&sample).map_err(corrupt)? {
                    samples.push(sample);
                }
            }
            samples.sort_by_key(|s| (s.game_id, s.ply));
        }
        let first = games.iter().map(|g| g.game_id).min().unwrap_or(0);
        let count = games.iter().map(|g| g.game_id + 1).max().unwrap_or(first) - first;
        let metadata = vec![
            ("junqi.config".to_string(), config_json.clone()),
            ("junqi.seed".to_string(), config.seed.to_string()),
            ("junqi.code_version".to_string(), crate::code_version()),
            ("junqi.shard".to_string(), number.to_string()),
            ("junqi.first_game".to_string(), first.to_string()),
            ("junqi.games".to_string(), count.to_string()),
        ];
        write_siguo_samples_shard(&out.join(SAMPLES_DIR), number, &samples, &metadata)?;
        summary.shards += 1;
        summary.games += games.len() as u64;
        summary.samples += samples.len() as u64;
    }
    Ok(summary)
}

/// Make `out` hold the reanalysis `run` (its `run.json`), locked for this
/// process ([`RunDir`], as every run opens its folder): a new or empty
/// folder is set up, one holding the same run is resumed, any other is
/// refused.
fn open_out(out: &Path, run: &serde_json::Value) -> Result<RunDir, SelfplayError> {
    let dir = RunDir::open(out)?;
    match dir.read_json::<serde_json::Value>(crate::RUN_FILE)? {
        Some(stored) => {
            let same = |key: &str| stored.get(key) == run.get(key);
            if !(same("format") && same("config") && same("source")) {
                return Err(SelfplayError::Config(format!(
                    "{} holds another run ({}); choose another --out",
                    out.display(),
                    out.join(crate::RUN_FILE).display()
                )));
            }
        }
        None => {
            let entries = std::fs::read_dir(out).map_err(SelfplayError::io(out))?;
            if entries.flatten().any(|e| e.file_name() != LOCK_FILE) {
                return Err(SelfplayError::Config(format!(
                    "{} is not empty and holds no reanalysis; choose another --out",
                    out.display()
                )));
            }
            std::fs::create_dir_all(out.join(SAMPLES_DIR)).map_err(SelfplayError::io(out))?;
            dir.write_json(crate::RUN_FILE, run)?;
        }
    }
    Ok(dir)
}

/// The number of the shard file at `path` (`shard-000012.parquet`: 12).
fn shard_number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("shard-")?.strip_suffix(".parquet")?.parse().ok()
}
