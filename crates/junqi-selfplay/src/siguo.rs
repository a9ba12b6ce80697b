//! Four-player (四国军棋) self-play: two bots as two teams, every deal played
//! twice with the teams swapped, written as a `games/` dataset of the
//! four-seat schema (docs/data.md, "Four-player games") and a `samples/`
//! dataset of the four-player samples ([`crate::siguo_samples`]), and
//! re-played through the four-player rules. A run's directory, resuming,
//! its parts and their merge are the two-player run's ([`crate::run::open_run`],
//! [`crate::merge_parts`]).
//!
//! Every games shard of this schema carries `junqi.format =
//! junqi-siguo-games/1` in its footer and its run file the format
//! `junqi-siguo-selfplay/2`: the two-player readers refuse both by that name,
//! and two-player datasets (which have no such key) read as before.

use crate::run::{open_run, workers, Layout, RunConfig};
use crate::siguo_samples::{sampled_plies, samples_at, write_siguo_samples_shard, SiguoSample};
use crate::writer::{list_of, properties, write_shard_batches};
use crate::{RunOptions, SamplesPerGame, SelfplayError, GAMES_DIR, SAMPLES_DIR};
use arrow_array::builder::{ListBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use junqi_core::rng_from_seed;
use junqi_siguo::bots::{bot_from_spec, deploy_bots, play_bots, SiguoBot};
use junqi_siguo::{Move, MoveList, Position, Rules};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// The footer key naming a games shard's schema (absent in two-player shards).
pub const FORMAT_KEY: &str = "junqi.format";
/// The four-seat games schema.
pub const SIGUO_GAMES_FORMAT: &str = "junqi-siguo-games/1";
/// The run file's format of a four-player run (version 1, before samples
/// and resuming, stored another config).
pub const SIGUO_RUN_FORMAT: &str = "junqi-siguo-selfplay/2";
/// The most games one run may hold.
pub const MAX_SIGUO_GAMES: u64 = 10_000_000;

/// Schema of a four-player `games/` shard: one row per game.
pub fn siguo_games_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        Arc::new(Schema::new(vec![
            Field::new("game_id", DataType::UInt64, false),
            Field::new("rules", DataType::Utf8, false),
            Field::new("seed", DataType::UInt64, false),
            Field::new("start", DataType::Utf8, false),
            Field::new("moves", list_of(DataType::Utf8), false),
            Field::new("result", DataType::Utf8, false),
            Field::new("termination", DataType::Utf8, false),
            Field::new("plies", DataType::UInt32, false),
            Field::new("bot_seat0", DataType::Utf8, false),
            Field::new("bot_seat1", DataType::Utf8, false),
            Field::new("bot_seat2", DataType::Utf8, false),
            Field::new("bot_seat3", DataType::Utf8, false),
            Field::new("code_version", DataType::Utf8, false),
        ]))
    })
    .clone()
}

/// One row of a four-player `games/` shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiguoGame {
    pub game_id: u64,
    /// The rules as a four-player rules file (TOML text).
    pub rules: String,
    /// The deal's seed: `Position::new_game(rules, seed)` is the start,
    /// but for the armies of a bot that deploys its own (a net's learned
    /// deployments; `start` holds them).
    pub seed: u64,
    /// The start position in the four-seat notation (docs/rules.md §10.4).
    pub start: String,
    pub moves: Vec<String>,
    /// `1-0` (team A: armies 0 and 2), `0-1` or `1/2-1/2`.
    pub result: String,
    pub termination: String,
    pub plies: u32,
    /// The bot of each seat (army 0–3).
    pub bots: [String; 4],
    pub code_version: String,
}

/// A four-player self-play run's settings: everything that decides its
/// output (`run.json` stores it; resuming requires it equal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiguoConfig {
    /// The rules, stored as a four-player rules file (TOML text).
    #[serde(with = "rules_text")]
    pub rules: Rules,
    /// Games (an even number: deal `d` is games `2d` and `2d + 1`).
    pub games: u64,
    /// The two teams' bots, as the bots name themselves: `bots[0]` plays
    /// armies 0 and 2 in even games, armies 1 and 3 in odd games.
    pub bots: [String; 2],
    pub seed: u64,
    /// Games per shard (shard `s` holds games `s * shard_games ..`).
    pub shard_games: u64,
    /// Plies of each game written to `samples/`.
    pub samples_per_game: SamplesPerGame,
}

/// Four-player rules stored as their rules file (TOML text), so a config
/// names every option: `#[serde(with = "junqi_selfplay::siguo_rules_text")]`
/// (four-player self-play's, arena's and SPRT's configs).
pub mod rules_text {
    use junqi_siguo::Rules;
    pub fn serialize<S: serde::Serializer>(rules: &Rules, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&rules.to_toml_string())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Rules, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        Rules::from_toml_str(&text).map_err(serde::de::Error::custom)
    }
}

impl RunConfig for SiguoConfig {
    const RUN_FORMAT: &'static str = SIGUO_RUN_FORMAT;
    fn layout(&self) -> Layout {
        Layout { games: self.games, shard_games: self.shard_games }
    }
    fn seed(&self) -> u64 {
        self.seed
    }
}

impl SiguoConfig {
    /// Checked settings: known bots (named as they name themselves), an
    /// even number of games from 2 to [`MAX_SIGUO_GAMES`]; no samples
    /// ([`SiguoConfig::with_samples`] asks for them), the default shard size.
    pub fn new(rules: Rules, games: u64, bots: [String; 2], seed: u64) -> Result<SiguoConfig, SelfplayError> {
        let [a, b] = &bots;
        let config = SiguoConfig {
            rules,
            games,
            bots: [team_name(a)?, team_name(b)?],
            seed,
            shard_games: crate::default_shard_games(games),
            samples_per_game: SamplesPerGame::Count(0),
        };
        config.check()?;
        Ok(config)
    }

    /// Games per shard (at least 1).
    pub fn with_shard_games(mut self, n: u64) -> Result<SiguoConfig, SelfplayError> {
        self.shard_games = n;
        self.check()?;
        Ok(self)
    }

    /// Plies of each game written to `samples/`.
    pub fn with_samples(mut self, samples: SamplesPerGame) -> SiguoConfig {
        self.samples_per_game = samples;
        self
    }

    /// Check every field (a config may come from an edited file).
    fn check(&self) -> Result<(), SelfplayError> {
        for member in self.bots.iter().flat_map(|b| team_members(b)) {
            bot_from_spec(member).map_err(SelfplayError::Config)?;
        }
        let games = self.games;
        if games < 2 || !games.is_multiple_of(2) || games > MAX_SIGUO_GAMES {
            return Err(SelfplayError::Config(format!(
                "--games {games}: four-player self-play plays every deal twice (teams swapped), so --games must be even, from 2 to {MAX_SIGUO_GAMES}"
            )));
        }
        if self.shard_games == 0 {
            return Err(SelfplayError::Config("--shard-games must be at least 1".into()));
        }
        let shards = self.layout().shards();
        if shards > crate::limits::MAX_SHARDS {
            return Err(SelfplayError::Config(format!(
                "{games} games in shards of {} make {shards} shard files, at most {}: give more games per shard",
                self.shard_games,
                crate::limits::MAX_SHARDS
            )));
        }
        Ok(())
    }

    /// The deal seed of game `id`: games `2d` and `2d + 1` share deal `d`.
    pub fn deal_seed(&self, id: u64) -> u64 {
        self.seed.wrapping_add(id / 2)
    }

    /// The bot of each seat in game `id`: in even games `bots[0]` plays
    /// armies 0 and 2, in odd games armies 1 and 3.
    /// A team of two bots (`X|Y`, [`team_members`]) puts X on its lower
    /// army and Y on its higher one.
    pub fn seats(&self, id: u64) -> [String; 4] {
        let (a, b) = if id.is_multiple_of(2) { (0, 1) } else { (1, 0) };
        let (a, b) = (team_members(&self.bots[a]), team_members(&self.bots[b]));
        [a[0], b[0], a[1], b[1]].map(str::to_string)
    }
}

/// A team's bots as they name themselves (`X|Y` for a mixed team).
fn team_name(team: &str) -> Result<String, SelfplayError> {
    let name = |spec: &str| bot_from_spec(spec).map(|bot| bot.name()).map_err(SelfplayError::Config);
    match mixed_team(team) {
        Some([first, second]) => Ok(format!("{}|{}", name(first)?, name(second)?)),
        None => name(team),
    }
}

/// The bots of a team's two armies: `X|Y` is X on the team's lower army
/// (0 or 1; the first of the team to move in the default turn order) and
/// Y on its higher one (2 or 3): a mixed team, e.g. a net allied with
/// `heuristic`. Any other spec plays both armies; a `|` inside double
/// quotes (a quoted value) does not split.
pub fn team_members(team: &str) -> [&str; 2] {
    mixed_team(team).unwrap_or([team, team])
}

/// The two bots of a mixed team `X|Y`; `None` for one bot.
fn mixed_team(team: &str) -> Option<[&str; 2]> {
    let mut quoted = false;
    for (i, c) in team.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '|' if !quoted => return Some([team[..i].trim(), team[i + 1..].trim()]),
            _ => {}
        }
    }
    None
}

/// Play game `id` of `config`. The bots draw from a stream seeded by the
/// deal seed and the game's parity, so a game depends on nothing else.
pub fn play_siguo_game(config: &SiguoConfig, id: u64, code_version: &str) -> Result<SiguoGame, SelfplayError> {
    play_siguo(&config.clone().with_samples(SamplesPerGame::Count(0)), id, code_version).map(|(g, _)| g)
}

/// Play game `id` of `config` ([`play_siguo_game`]) and take its samples
/// ([`SiguoConfig::samples_per_game`]; which plies depends on the run seed
/// and the game only).
pub fn play_siguo(
    config: &SiguoConfig,
    id: u64,
    code_version: &str,
) -> Result<(SiguoGame, Vec<SiguoSample>), SelfplayError> {
    let seed = config.deal_seed(id);
    let specs = config.seats(id);
    let mut bots: [Box<dyn SiguoBot>; 4] = [0, 1, 2, 3].map(|i| bot_from_spec(&specs[i]).expect("checked specs"));
    let mut rng = rng_from_seed(seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(1 + id % 2)));
    // A bot that deploys (a net with a learned model) replaces its armies' part of the deal.
    let start = deploy_bots(&Position::new_game(config.rules, seed), seed, &mut bots)
        .map_err(|e| SelfplayError::Config(format!("four-player game {id}: {e}")))?;
    let game = play_bots(start, &mut bots, &mut rng)
        .map_err(|e| SelfplayError::Config(format!("four-player game {id}: {e}")))?;
    let plies = sampled_plies(config.samples_per_game, config.seed, id, game.moves.len() as u32);
    let samples = samples_at(id, &game.start, &game.moves, &game.policies, &plies)
        .map_err(|e| SelfplayError::Config(format!("four-player game {id}: {e}")))?;
    let record = SiguoGame {
        game_id: id,
        rules: config.rules.to_toml_string(),
        seed,
        start: game.start.to_string(),
        moves: game.moves.iter().map(Move::to_string).collect(),
        result: game.outcome.result_str().to_string(),
        termination: game.outcome.termination.name().to_string(),
        plies: game.moves.len() as u32,
        bots: specs,
        code_version: code_version.to_string(),
    };
    Ok((record, samples))
}

fn batch(games: &[SiguoGame]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut id = UInt64Builder::new();
    let mut rules = StringBuilder::new();
    let mut seed = UInt64Builder::new();
    let mut start = StringBuilder::new();
    let schema = siguo_games_schema();
    let item = crate::writer::item_field(&schema, "moves");
    let mut moves = ListBuilder::new(StringBuilder::new()).with_field(item);
    let mut result = StringBuilder::new();
    let mut termination = StringBuilder::new();
    let mut plies = UInt32Builder::new();
    let mut bots: [StringBuilder; 4] = Default::default();
    let mut code = StringBuilder::new();
    for g in games {
        id.append_value(g.game_id);
        rules.append_value(&g.rules);
        seed.append_value(g.seed);
        start.append_value(&g.start);
        for m in &g.moves {
            moves.values().append_value(m);
        }
        moves.append(true);
        result.append_value(&g.result);
        termination.append_value(&g.termination);
        plies.append_value(g.plies);
        for (b, s) in bots.iter_mut().zip(&g.bots) {
            b.append_value(s);
        }
        code.append_value(&g.code_version);
    }
    let [b0, b1, b2, b3] = bots.map(|mut b| Arc::new(b.finish()) as ArrayRef);
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(id.finish()),
            Arc::new(rules.finish()),
            Arc::new(seed.finish()),
            Arc::new(start.finish()),
            Arc::new(moves.finish()),
            Arc::new(result.finish()),
            Arc::new(termination.finish()),
            Arc::new(plies.finish()),
            b0,
            b1,
            b2,
            b3,
            Arc::new(code.finish()),
        ],
    )
}

/// Write `games` as shard `shard` of the four-player `games/` dataset in
/// `games_dir` (hidden temporary name, checksum record, rename, as every
/// shard); `metadata` joins [`FORMAT_KEY`] in the footer.
pub fn write_siguo_games_shard(
    games_dir: &Path,
    shard: u64,
    games: &[SiguoGame],
    metadata: &[(String, String)],
) -> Result<PathBuf, SelfplayError> {
    let mut meta = vec![(FORMAT_KEY.to_string(), SIGUO_GAMES_FORMAT.to_string())];
    meta.extend(metadata.iter().cloned());
    let props = properties(4096, &["start", "seed"], &["moves.list.item"], &meta);
    write_shard_batches(games_dir, shard, siguo_games_schema(), props, games.chunks(1024).map(batch))
}

/// Is the games shard at `path` (its footer already read) of the four-seat schema?
pub(crate) fn is_siguo_shard(metadata: &[(String, String)]) -> bool {
    metadata.iter().any(|(k, v)| k == FORMAT_KEY && v == SIGUO_GAMES_FORMAT)
}

/// The rows of the shard at `path`, whose footer must name the format
/// `want` (a shard without [`FORMAT_KEY`] is a two-player one): an error
/// naming the shard's format otherwise.
pub(crate) fn batches_of_format(path: &Path, want: &str) -> Result<Vec<RecordBatch>, SelfplayError> {
    let (batches, metadata) = crate::replay::batches_and_metadata(path)?;
    let found = metadata.iter().find(|(k, _)| k == FORMAT_KEY).map(|(_, f)| f.as_str());
    if found == Some(want) {
        return Ok(batches);
    }
    let what = found.map_or("a two-player shard".to_string(), |f| format!("a shard of format `{f}`"));
    Err(SelfplayError::Corrupt { path: path.to_path_buf(), message: format!("{what}, not `{want}`") })
}

/// Read every game of one four-player games shard; a shard of another
/// format is an error naming it.
pub fn read_siguo_games_file(path: &Path) -> Result<Vec<SiguoGame>, SelfplayError> {
    let batches = batches_of_format(path, SIGUO_GAMES_FORMAT)?;
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    let mut out = Vec::new();
    for b in &batches {
        let col = |name: &str| {
            b.column_by_name(name).ok_or_else(|| corrupt(format!("column `{name}` is missing or of the wrong type")))
        };
        let wrong = |name: &str| corrupt(format!("column `{name}` is missing or of the wrong type"));
        let string = |name: &'static str| col(name).and_then(|c| c.as_string_opt::<i32>().ok_or_else(|| wrong(name)));
        let u64s =
            |name: &'static str| col(name).and_then(|c| c.as_primitive_opt::<UInt64Type>().ok_or_else(|| wrong(name)));
        let (id, rules, seed, start) = (u64s("game_id")?, string("rules")?, u64s("seed")?, string("start")?);
        let moves = col("moves")?.as_list_opt::<i32>().ok_or_else(|| wrong("moves"))?;
        let (result, termination) = (string("result")?, string("termination")?);
        let plies = col("plies")?.as_primitive_opt::<UInt32Type>().ok_or_else(|| wrong("plies"))?;
        let bots = [string("bot_seat0")?, string("bot_seat1")?, string("bot_seat2")?, string("bot_seat3")?];
        let code = string("code_version")?;
        for r in 0..b.num_rows() {
            let list = moves.value(r);
            let list = list.as_string_opt::<i32>().ok_or_else(|| wrong("moves"))?;
            out.push(SiguoGame {
                game_id: id.value(r),
                rules: rules.value(r).to_string(),
                seed: seed.value(r),
                start: start.value(r).to_string(),
                moves: (0..list.len()).map(|i| list.value(i).to_string()).collect(),
                result: result.value(r).to_string(),
                termination: termination.value(r).to_string(),
                plies: plies.value(r),
                bots: bots.map(|c| c.value(r).to_string()),
                code_version: code.value(r).to_string(),
            });
        }
    }
    Ok(out)
}

/// Re-play one stored four-player game through the rules: every move legal,
/// the game ending exactly after the last, with the stored result,
/// termination and plies. The reason for the first disagreement otherwise.
pub fn replay_siguo_game(g: &SiguoGame) -> Result<(), String> {
    let rules = Rules::from_toml_str(&g.rules).map_err(|e| format!("rules are not valid: {e}"))?;
    let mut pos = junqi_siguo::parse(&g.start, rules).map_err(|e| format!("start position: {e}"))?;
    let mut list = MoveList::new();
    for (i, text) in g.moves.iter().enumerate() {
        let mv: Move = text.parse().map_err(|e| format!("move {}: {e}", i + 1))?;
        if let Some(o) = pos.outcome() {
            return Err(format!(
                "the game ends after {i} plies with {} ({}), but {} moves are stored",
                o.result_str(),
                o.termination.name(),
                g.moves.len()
            ));
        }
        pos.legal_moves(&mut list);
        if !list.contains(mv) {
            return Err(format!("move {} `{text}` is illegal in {pos}", i + 1));
        }
        pos.play_unchecked(mv);
    }
    let Some(o) = pos.outcome() else {
        return Err(format!("the game is not over after the {} stored moves", g.moves.len()));
    };
    if o.result_str() != g.result || o.termination.name() != g.termination {
        return Err(format!(
            "the rules give {} ({}), the record says {} ({})",
            o.result_str(),
            o.termination.name(),
            g.result,
            g.termination
        ));
    }
    if g.plies as usize != g.moves.len() {
        return Err(format!("plies {} but {} moves", g.plies, g.moves.len()));
    }
    Ok(())
}

/// What a four-player run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiguoSummary {
    /// Games, plies and samples played by this call.
    pub games: u64,
    pub plies: u64,
    pub samples: u64,
    /// Shards written by this call, complete shards of the run (its part)
    /// now, and all its shards.
    pub shards: u64,
    pub shards_complete: u64,
    pub shards_total: u64,
    /// Games in complete shards now.
    pub games_complete: u64,
    /// Games of the run (its part).
    pub games_total: u64,
    /// Points of `bots[0]`'s team and `bots[1]`'s, over the games played by this call.
    pub points: [f64; 2],
    pub decided: u64,
    /// Stopped by [`RunOptions::stop`] before every shard was done.
    pub interrupted: bool,
    /// Things worth telling the user (damaged shards re-played, another code version).
    pub notes: Vec<String>,
}

/// Play the games of `config` (of `options.part`, when given) on
/// `options.threads` threads and write them under `out`: `run.json`,
/// `games/` and `samples/`, a shard at a time. Re-running it resumes: the
/// complete shards are kept and the rest played; a directory holding
/// another run (another config, part or format) is refused. Setting
/// `options.stop` abandons the shard being played.
pub fn run_siguo(config: &SiguoConfig, out: &Path, options: &RunOptions) -> Result<SiguoSummary, SelfplayError> {
    config.check()?;
    let threads = workers(options.threads);
    let opened = open_run(config, out, options.part)?;
    let layout = config.layout();
    let shards_total = layout.part_shards(options.part).count() as u64;
    let mut summary = SiguoSummary {
        shards_total,
        shards_complete: shards_total - opened.pending.len() as u64,
        games_complete: opened.complete_games,
        games_total: layout.part_games(options.part),
        notes: opened.notes,
        ..SiguoSummary::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|cause| SelfplayError::Threads { threads, cause })?;
    let code_version = crate::code_version();
    let config_json = serde_json::to_string(config).expect("configs serialize");
    let progress = &options.progress;
    progress.resumed.fetch_add(opened.complete_games, Ordering::Relaxed);
    for s in opened.pending {
        let range = layout.shard_range(s);
        let played: Vec<Option<(SiguoGame, Vec<SiguoSample>)>> = pool.install(|| {
            range
                .clone()
                .into_par_iter()
                .map(|id| {
                    if options.stop.load(Ordering::Relaxed) {
                        return Ok(None);
                    }
                    let (game, samples) = play_siguo(config, id, &code_version)?;
                    progress.games.fetch_add(1, Ordering::Relaxed);
                    progress.plies.fetch_add(game.plies as u64, Ordering::Relaxed);
                    progress.moves.fetch_add(game.plies as u64, Ordering::Relaxed);
                    progress.samples.fetch_add(samples.len() as u64, Ordering::Relaxed);
                    Ok(Some((game, samples)))
                })
                .collect::<Result<Vec<_>, SelfplayError>>()
        })?;
        let Some(played) = played.into_iter().collect::<Option<Vec<_>>>() else {
            summary.interrupted = true;
            break;
        };
        let (games, samples): (Vec<SiguoGame>, Vec<Vec<SiguoSample>>) = played.into_iter().unzip();
        let samples: Vec<SiguoSample> = samples.into_iter().flatten().collect();
        let metadata = vec![
            ("junqi.config".to_string(), config_json.clone()),
            ("junqi.seed".to_string(), config.seed.to_string()),
            ("junqi.code_version".to_string(), code_version.clone()),
            ("junqi.shard".to_string(), s.to_string()),
            ("junqi.first_game".to_string(), range.start.to_string()),
            ("junqi.games".to_string(), (range.end - range.start).to_string()),
        ];
        // Samples first: a shard counts as done once its games file is there.
        write_siguo_samples_shard(&out.join(SAMPLES_DIR), s, &samples, &metadata)?;
        write_siguo_games_shard(&out.join(GAMES_DIR), s, &games, &metadata)?;
        for g in &games {
            summary.games += 1;
            summary.plies += g.plies as u64;
            let team_a = if g.game_id.is_multiple_of(2) { 0 } else { 1 };
            match g.result.as_str() {
                "1-0" => summary.points[team_a] += 1.0,
                "0-1" => summary.points[1 - team_a] += 1.0,
                _ => {
                    summary.points[0] += 0.5;
                    summary.points[1] += 0.5;
                }
            }
            summary.decided += (g.result != "1/2-1/2") as u64;
        }
        summary.samples += samples.len() as u64;
        summary.shards += 1;
        summary.shards_complete += 1;
        summary.games_complete += games.len() as u64;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_siguo::Mode;

    /// A mixed team splits at its first `|` outside double quotes; the
    /// seats put its first bot on the team's lower army.
    #[test]
    fn a_mixed_team_splits_at_its_first_bar_outside_quotes() {
        assert_eq!(team_members("heuristic"), ["heuristic", "heuristic"]);
        assert_eq!(team_members("mcts:sims=8 | greedy"), ["mcts:sims=8", "greedy"]);
        assert_eq!(team_members(r#"engine:cmd="a | b"|random"#), [r#"engine:cmd="a | b""#, "random"]);
        assert_eq!(team_members(r#"engine:cmd="a | b""#), [r#"engine:cmd="a | b""#; 2]);
        let config =
            SiguoConfig::new(Rules::preset(Mode::Anqi), 2, ["greedy|random".into(), "heuristic".into()], 1).unwrap();
        assert_eq!(config.seats(0), ["greedy", "heuristic", "random", "heuristic"]);
        assert_eq!(config.seats(1), ["heuristic", "greedy", "heuristic", "random"]);
        assert!(SiguoConfig::new(Rules::preset(Mode::Anqi), 2, ["greedy|nobot".into(), "random".into()], 1).is_err());
    }

    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("junqi-siguo-selfplay-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn threads(threads: usize) -> RunOptions {
        RunOptions { threads, ..RunOptions::default() }
    }

    fn config(games: u64, seed: u64) -> SiguoConfig {
        let bots = ["heuristic".to_string(), "greedy".to_string()];
        SiguoConfig::new(Rules::preset(Mode::Anqi), games, bots, seed)
            .unwrap()
            .with_shard_games(3)
            .unwrap()
            .with_samples(SamplesPerGame::Count(0))
    }

    fn stored(dir: &Path) -> Vec<SiguoGame> {
        let files = crate::shard_files(&dir.join(GAMES_DIR)).unwrap();
        files.iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect()
    }

    /// A run's rows read back as played; the teams sit in both seat pairs of
    /// every deal; `replay_dir` re-plays them all; the two-player reader
    /// refuses the shards by their format's name.
    #[test]
    fn four_player_games_round_trip_and_replay() {
        let dir = fresh_dir("round-trip");
        let c = config(6, 11);
        let summary = run_siguo(&c, &dir, &threads(2)).unwrap();
        assert_eq!((summary.games, summary.shards), (6, 2));
        let games = stored(&dir);
        assert_eq!(games.len(), 6);
        for (id, g) in games.iter().enumerate() {
            assert_eq!(*g, play_siguo_game(&c, id as u64, &crate::code_version()).unwrap());
            assert_eq!(g.plies as usize, g.moves.len());
        }
        for pair in games.chunks(2) {
            assert_eq!((pair[0].seed, &pair[0].start), (pair[1].seed, &pair[1].start), "one deal, played twice");
            assert_eq!(pair[0].bots, ["heuristic", "greedy", "heuristic", "greedy"]);
            assert_eq!(pair[1].bots, ["greedy", "heuristic", "greedy", "heuristic"]);
        }
        let report = crate::replay_dir(&dir, None).unwrap();
        assert_eq!((report.games, report.mismatches.len(), report.duplicates.len()), (6, 0, 0));
        let shard = dir.join(GAMES_DIR).join(crate::writer::shard_name(0));
        let err = crate::read_games_file(&shard).unwrap_err().to_string();
        assert!(err.contains(SIGUO_GAMES_FORMAT), "{err}");
        let again = run_siguo(&c, &dir, &threads(1)).unwrap();
        assert_eq!((again.games, again.games_complete), (0, 6), "a finished run has nothing left to play");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `replay_dir` names the game whose move, result or plies was changed.
    #[test]
    fn replay_catches_tampered_games() {
        let dir = fresh_dir("tamper-source");
        run_siguo(&config(4, 5), &dir, &threads(1)).unwrap();
        let games = stored(&dir);
        type Tamper = (&'static str, fn(&mut SiguoGame));
        let tampers: [Tamper; 4] = [
            ("a move", |g| {
                let i = g.moves.len() / 2;
                g.moves[i] = g.moves[i].split('-').rev().collect::<Vec<_>>().join("-");
            }),
            ("moves swapped", |g| g.moves.swap(0, 1)),
            ("the result", |g| g.result = if g.result == "1-0" { "0-1".into() } else { "1-0".into() }),
            ("a move dropped", |g| {
                g.moves.pop();
                g.plies -= 1;
            }),
        ];
        for (what, tamper) in tampers {
            let out = fresh_dir("tampered");
            std::fs::create_dir_all(out.join(GAMES_DIR)).unwrap();
            let mut rows = games.clone();
            tamper(&mut rows[2]);
            write_siguo_games_shard(&out.join(GAMES_DIR), 0, &rows, &[]).unwrap();
            let report = crate::replay_dir(&out, None).unwrap();
            let ids: Vec<u64> = report.mismatches.iter().map(|m| m.0).collect();
            assert_eq!(ids, vec![2], "{what}: {:?}", report.mismatches);
            let _ = std::fs::remove_dir_all(&out);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The same seed gives the same rows whatever the threads and shards;
    /// another seed other games.
    #[test]
    fn four_player_runs_are_determined_by_the_seed() {
        let (a, b, c) = (fresh_dir("seed-a"), fresh_dir("seed-b"), fresh_dir("seed-c"));
        run_siguo(&config(4, 9), &a, &threads(1)).unwrap();
        run_siguo(&config(4, 9).with_shard_games(4).unwrap(), &b, &threads(2)).unwrap();
        run_siguo(&config(4, 10), &c, &threads(2)).unwrap();
        assert_eq!(stored(&a), stored(&b));
        let (ga, gc) = (stored(&a), stored(&c));
        assert!(ga.iter().zip(&gc).all(|(x, y)| x.start != y.start && x.moves != y.moves));
        for d in [a, b, c] {
            let _ = std::fs::remove_dir_all(&d);
        }
    }
}
