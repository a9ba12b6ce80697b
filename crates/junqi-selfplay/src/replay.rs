//! Reading the datasets back, and re-playing stored games through the rules engine.

use crate::{Sample, SelfplayError, SAMPLES_SCHEMA_VERSION};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use junqi_core::{Move, MoveList, Outcome, Position, Seat, Termination};
use junqi_env::ObsCode;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::fs::File;
use std::path::Path;

/// One row of `games/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub game_id: u64,
    /// The rules as a JSON object.
    pub rules: String,
    pub seed: u64,
    pub start_jfen: String,
    pub moves: Vec<String>,
    pub result: String,
    pub termination: String,
    pub plies: u32,
    pub bots: [String; 2],
    pub code_version: String,
}

/// One row of `samples/`.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSample {
    pub game_id: u64,
    pub sample: Sample,
}

/// The file's rows, and its key-value metadata. A shard with a checksum
/// record is verified first ([`crate::verify_shard`]): a damaged one is an
/// error naming it, and its bytes never reach the decoder. A panic inside
/// the Parquet or Arrow code (damaged bytes can trigger one) is reported as
/// a corrupt file; panics in our own code below are not caught.
pub(crate) fn batches_and_metadata(path: &Path) -> Result<(Vec<RecordBatch>, Vec<(String, String)>), SelfplayError> {
    crate::verify_shard(path)?;
    crate::catch_library_panic(|| decode(path)).unwrap_or_else(|message| {
        Err(SelfplayError::Corrupt { path: path.to_path_buf(), message: format!("damaged Parquet data ({message})") })
    })
}

fn decode(path: &Path) -> Result<(Vec<RecordBatch>, Vec<(String, String)>), SelfplayError> {
    let file = File::open(path).map_err(SelfplayError::io(path))?;
    let corrupt = |e: parquet::errors::ParquetError| SelfplayError::Corrupt {
        path: path.to_path_buf(),
        message: format!("unreadable Parquet file ({e})"),
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(corrupt)?;
    let metadata = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| kv.iter().map(|k| (k.key.clone(), k.value.clone().unwrap_or_default())).collect())
        .unwrap_or_default();
    let reader = builder.with_batch_size(8192).build().map_err(corrupt)?;
    let rows = reader
        .map(|b| {
            b.map_err(|e| SelfplayError::Corrupt {
                path: path.to_path_buf(),
                message: format!("unreadable data ({e})"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rows, metadata))
}

/// Typed access to a batch's columns, with a clear error for a missing or mistyped one.
pub(crate) struct Columns<'a> {
    pub batch: &'a RecordBatch,
    pub path: &'a Path,
}

impl<'a> Columns<'a> {
    pub(crate) fn get<T: ?Sized>(
        &self,
        name: &str,
        cast: impl FnOnce(&'a dyn Array) -> Option<&'a T>,
    ) -> Result<&'a T, SelfplayError> {
        self.batch.column_by_name(name).and_then(|c| cast(c.as_ref())).ok_or_else(|| SelfplayError::Corrupt {
            path: self.path.to_path_buf(),
            message: format!("column `{name}` is missing or of the wrong type"),
        })
    }
}

/// Why each forfeited game of one `games/` shard was forfeited (its footer's
/// `junqi.forfeits`), by game id; empty when none was.
pub fn read_forfeits(path: &Path) -> Result<std::collections::BTreeMap<u64, String>, SelfplayError> {
    let (_, metadata) = batches_and_metadata(path)?;
    match metadata.iter().find(|(k, _)| k == crate::FORFEITS_KEY) {
        None => Ok(Default::default()),
        Some((_, json)) => serde_json::from_str(json).map_err(|e| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("bad `{}` footer ({e})", crate::FORFEITS_KEY),
        }),
    }
}

/// Each game's decision times in milliseconds, in move order, of one
/// `games/` shard (its footer's `junqi.move_ms`), by game id; empty for
/// shards written before the times were kept.
pub fn read_move_ms(path: &Path) -> Result<std::collections::BTreeMap<u64, Vec<u32>>, SelfplayError> {
    let (_, metadata) = batches_and_metadata(path)?;
    match metadata.iter().find(|(k, _)| k == crate::MOVE_MS_KEY) {
        None => Ok(Default::default()),
        Some((_, json)) => serde_json::from_str(json).map_err(|e| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("bad `{}` footer ({e})", crate::MOVE_MS_KEY),
        }),
    }
}

/// Read every game of one `games/` shard (verified against its checksum
/// record when it has one).
///
/// A shard of another schema (its footer names a `junqi.format`, as the
/// four-player games do) is refused by that name.
pub fn read_games_file(path: &Path) -> Result<Vec<StoredGame>, SelfplayError> {
    let (all, metadata) = batches_and_metadata(path)?;
    if let Some((_, format)) = metadata.iter().find(|(k, _)| k == crate::siguo::FORMAT_KEY) {
        return Err(SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("games of format `{format}`, not two-player games (this reader reads those only)"),
        });
    }
    let mut out = Vec::new();
    for batch in all {
        let c = Columns { batch: &batch, path };
        let game_id = c.get("game_id", |a| a.as_primitive_opt::<UInt64Type>())?;
        let rules = c.get("rules", |a| a.as_string_opt::<i32>())?;
        let seed = c.get("seed", |a| a.as_primitive_opt::<UInt64Type>())?;
        let start = c.get("start_jfen", |a| a.as_string_opt::<i32>())?;
        let moves = c.get("moves", |a| a.as_list_opt::<i32>())?;
        let result = c.get("result", |a| a.as_string_opt::<i32>())?;
        let termination = c.get("termination", |a| a.as_string_opt::<i32>())?;
        let plies = c.get("plies", |a| a.as_primitive_opt::<UInt32Type>())?;
        let bot1 = c.get("bot_seat1", |a| a.as_string_opt::<i32>())?;
        let bot2 = c.get("bot_seat2", |a| a.as_string_opt::<i32>())?;
        let version = c.get("code_version", |a| a.as_string_opt::<i32>())?;
        let move_text = moves.values().as_string_opt::<i32>().ok_or_else(|| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: "column `moves` is not a list of strings".into(),
        })?;
        let offsets = moves.value_offsets();
        for i in 0..batch.num_rows() {
            let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
            out.push(StoredGame {
                game_id: game_id.value(i),
                rules: rules.value(i).to_string(),
                seed: seed.value(i),
                start_jfen: start.value(i).to_string(),
                moves: (a..b).map(|j| move_text.value(j).to_string()).collect(),
                result: result.value(i).to_string(),
                termination: termination.value(i).to_string(),
                plies: plies.value(i),
                bots: [bot1.value(i).to_string(), bot2.value(i).to_string()],
                code_version: version.value(i).to_string(),
            });
        }
    }
    Ok(out)
}

/// The `samples/` schema version of a shard: its `junqi.samples_schema`
/// metadata, or 1 for shards written before the key existed.
fn schema_version(path: &Path, metadata: &[(String, String)]) -> Result<u32, SelfplayError> {
    match metadata.iter().find(|(k, _)| k == "junqi.samples_schema") {
        None => Ok(1),
        Some((_, v)) => v.parse().map_err(|_| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("metadata `junqi.samples_schema` is `{v}`, not a version number"),
        }),
    }
}

/// Read every sample of one two-player `samples/` shard, of schema version 3 (what
/// this build writes), 2 (the same without `hidden_kinds`) or 1 (converted: the `planes-v1` observation to its
/// compact code, the legal mask to ids, the sparse policy aligned with
/// them; no value). Any other version is refused, naming it. A shard with
/// a checksum record is verified against it first.
pub fn read_samples_file(path: &Path) -> Result<Vec<StoredSample>, SelfplayError> {
    let (batches, metadata) = batches_and_metadata(path)?;
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    if let Some((_, format)) = metadata.iter().find(|(k, _)| k == crate::siguo::FORMAT_KEY) {
        return Err(corrupt(format!(
            "samples of format `{format}`, not two-player samples (this reader reads those only)"
        )));
    }
    let mut out = Vec::new();
    match schema_version(path, &metadata)? {
        v @ (2 | 3) => {
            for batch in &batches {
                read_samples_v2(batch, path, v, &mut out)?;
            }
        }
        1 => {
            for batch in &batches {
                read_samples_v1(batch, path, &mut out)?;
            }
        }
        v => {
            return Err(corrupt(format!(
                "samples schema version {v}; this build reads versions 1 to {SAMPLES_SCHEMA_VERSION} (a newer junqi wrote it?)"
            )))
        }
    }
    Ok(out)
}

/// Rows `i` of a list column as a slice of its values.
pub(crate) fn list_values<'a, T: arrow_array::ArrowPrimitiveType>(
    list: &'a arrow_array::ListArray,
    name: &str,
    path: &Path,
) -> Result<impl Fn(usize) -> &'a [T::Native] + 'a, SelfplayError> {
    let values = list.values().as_primitive_opt::<T>().ok_or_else(|| SelfplayError::Corrupt {
        path: path.to_path_buf(),
        message: format!("column `{name}` has the wrong item type"),
    })?;
    let offsets = list.value_offsets();
    Ok(move |i: usize| &values.values()[offsets[i] as usize..offsets[i + 1] as usize])
}

/// Versions 2 and 3 (3 = 2 plus `hidden_kinds`).
fn read_samples_v2(
    batch: &RecordBatch,
    path: &Path,
    version: u32,
    out: &mut Vec<StoredSample>,
) -> Result<(), SelfplayError> {
    let want = crate::samples_schema();
    let fields = &want.fields()[..want.fields().len() - (version < 3) as usize];
    if batch.schema().fields()[..] != fields[..] {
        let names: Vec<&str> = batch.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        return Err(SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!(
                "not a samples shard of schema version {version}: its columns are {} (docs/data.md lists the schema)",
                names.join(", ")
            ),
        });
    }
    let c = Columns { batch, path };
    let game_id = c.get("game_id", |a| a.as_primitive_opt::<UInt64Type>())?;
    let ply = c.get("ply", |a| a.as_primitive_opt::<UInt32Type>())?;
    let seat = c.get("seat", |a| a.as_primitive_opt::<UInt8Type>())?;
    let position = c.get("position", |a| a.as_binary_opt::<i32>())?;
    let legal = list_values::<UInt16Type>(c.get("legal_actions", |a| a.as_list_opt::<i32>())?, "legal_actions", path)?;
    let policy = list_values::<Float32Type>(c.get("policy", |a| a.as_list_opt::<i32>())?, "policy", path)?;
    let action = c.get("action", |a| a.as_primitive_opt::<UInt16Type>())?;
    let value = c.get("value", |a| a.as_primitive_opt::<Float32Type>())?;
    let outcome = c.get("outcome", |a| a.as_primitive_opt::<Int8Type>())?;
    let hidden = if version >= 3 { Some(c.get("hidden_kinds", |a| a.as_binary_opt::<i32>())?) } else { None };
    for i in 0..batch.num_rows() {
        let at = || format!("game {} ply {}", game_id.value(i), ply.value(i));
        let code = ObsCode::from_bytes(position.value(i))
            .map_err(|e| SelfplayError::Corrupt { path: path.to_path_buf(), message: format!("{}: {e}", at()) })?;
        let hidden_kinds = match hidden {
            Some(h) if h.is_valid(i) => {
                let bytes = h.value(i);
                if bytes.len() != junqi_core::board::NODES
                    || bytes.iter().any(|&b| b as usize > junqi_core::piece::KINDS)
                {
                    return Err(SelfplayError::Corrupt {
                        path: path.to_path_buf(),
                        message: format!("{}: `hidden_kinds` is not 60 entries of 0 to 12", at()),
                    });
                }
                bytes.to_vec()
            }
            _ => Vec::new(),
        };
        out.push(StoredSample {
            game_id: game_id.value(i),
            sample: Sample {
                ply: ply.value(i),
                seat: seat.value(i),
                position: code,
                legal: legal(i).to_vec(),
                policy: policy(i).to_vec(),
                action: action.value(i),
                value: value.is_valid(i).then(|| value.value(i)),
                outcome: outcome.value(i),
                hidden_kinds,
            },
        });
    }
    Ok(())
}

fn read_samples_v1(batch: &RecordBatch, path: &Path, out: &mut Vec<StoredSample>) -> Result<(), SelfplayError> {
    let c = Columns { batch, path };
    let game_id = c.get("game_id", |a| a.as_primitive_opt::<UInt64Type>())?;
    let ply = c.get("ply", |a| a.as_primitive_opt::<UInt32Type>())?;
    let seat = c.get("seat", |a| a.as_primitive_opt::<UInt8Type>())?;
    let obs = c.get("observation", |a| a.as_binary_opt::<i32>())?;
    let mask = c.get("legal_mask", |a| a.as_binary_opt::<i32>())?;
    let action = c.get("action", |a| a.as_primitive_opt::<UInt16Type>())?;
    let pa = list_values::<UInt16Type>(c.get("policy_actions", |a| a.as_list_opt::<i32>())?, "policy_actions", path)?;
    let pp = list_values::<Float32Type>(c.get("policy_probs", |a| a.as_list_opt::<i32>())?, "policy_probs", path)?;
    let outcome = c.get("outcome", |a| a.as_primitive_opt::<Int8Type>())?;
    for i in 0..batch.num_rows() {
        let bad = |message: String| SelfplayError::Corrupt {
            path: path.to_path_buf(),
            message: format!("game {} ply {} (samples schema 1): {message}", game_id.value(i), ply.value(i)),
        };
        let mut planes = crate::decode_planes(obs.value(i)).map_err(|e| bad(e.to_string()))?;
        if planes.len() == junqi_env::V1_CHANNELS * junqi_env::observation::PLANE {
            // Written before the history planes: none of it, as a code without history.
            planes.resize(junqi_env::OBS_SIZE, 0.0);
        }
        let code = ObsCode::from_planes(&planes).map_err(|e| bad(e.to_string()))?;
        let bits = mask.value(i);
        if bits.len() != junqi_core::ACTIONS / 8 {
            return Err(bad(format!("a legal mask of {} bytes, not 450", bits.len())));
        }
        let legal: Vec<u16> =
            (0..junqi_core::ACTIONS as u16).filter(|&a| bits[a as usize / 8] >> (a % 8) & 1 == 1).collect();
        let (actions, probs) = (pa(i), pp(i));
        if actions.len() != probs.len() {
            return Err(bad("policy_actions and policy_probs differ in length".into()));
        }
        let mut policy = vec![0.0; legal.len()];
        for (&a, &p) in actions.iter().zip(probs) {
            let k = legal
                .binary_search(&a)
                .map_err(|_| bad(format!("the policy gives probability to illegal action {a}")))?;
            policy[k] += p;
        }
        out.push(StoredSample {
            game_id: game_id.value(i),
            sample: Sample {
                ply: ply.value(i),
                seat: seat.value(i),
                position: code,
                legal,
                policy,
                action: action.value(i),
                value: None,
                outcome: outcome.value(i),
                hidden_kinds: Vec::new(),
            },
        });
    }
    Ok(())
}

/// Re-play a stored game through the rules engine from its start position and
/// rules. `Err` says how the stored record disagrees with the engine (an
/// illegal move, moves after the end, a different result, termination or
/// number of plies).
pub fn replay_game(g: &StoredGame) -> Result<(), String> {
    let rules = crate::stored_rules::stored_rules(&g.rules).map_err(|e| format!("rules are not valid: {e}"))?;
    let mut pos = Position::from_jfen(&g.start_jfen, rules).map_err(|e| format!("start position: {e}"))?;
    let mut list = MoveList::new();
    for (i, text) in g.moves.iter().enumerate() {
        let mv: Move = text.parse().map_err(|e| format!("move {}: {e}", i + 1))?;
        pos.legal_moves(&mut list);
        if list.is_empty() {
            let o = pos.outcome().map(|o| format!("{} ({})", o.result_str(), o.termination.name()));
            return Err(format!(
                "the game ends after {i} plies with {}, but {} moves are stored",
                o.unwrap_or_default(),
                g.moves.len()
            ));
        }
        if !list.contains(mv) {
            return Err(format!("move {} `{text}` is illegal in {}", i + 1, pos));
        }
        pos.play_unchecked(mv);
    }
    pos.legal_moves(&mut list);
    let o = match pos.outcome_given(list.len()) {
        Some(o) => o,
        // A resignation ends a game the rules have not ended: the side to move gave up.
        None if g.termination == Termination::Resignation.name() => Outcome::resignation(pos.turn()),
        // So does a forfeit: the side to move's engine failed, or, before the
        // first move, either side's engine failed to deploy.
        None if g.termination == Termination::Forfeit.name() => match (g.moves.is_empty(), g.result.as_str()) {
            (true, "1-0") => Outcome::forfeit(Seat::Second),
            (true, "0-1") => Outcome::forfeit(Seat::First),
            _ => Outcome::forfeit(pos.turn()),
        },
        // And a move over the match's time limit once too often.
        None if g.termination == Termination::Timeouts.name() => Outcome::timeouts(pos.turn()),
        None => return Err(format!("the game is not over after the {} stored moves", g.moves.len())),
    };
    let (result, termination, plies) = (o.result_str(), o.termination.name(), g.moves.len() as u32);
    if (result, termination, plies) != (g.result.as_str(), g.termination.as_str(), g.plies) {
        return Err(format!(
            "stored {} ({}, {} plies), the rules give {result} ({termination}, {plies} plies)",
            g.result, g.termination, g.plies
        ));
    }
    Ok(())
}

/// What [`replay_dir`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Games re-played.
    pub games: u64,
    /// `(game id, shard file, what disagrees)`, in shard then row order.
    pub mismatches: Vec<(u64, std::path::PathBuf, String)>,
    /// Game ids stored more than once.
    pub duplicates: Vec<u64>,
}

/// The `games/` folder of `dir`: `dir/games` when there is one, else `dir` itself.
pub fn games_dir(dir: &Path) -> std::path::PathBuf {
    let sub = dir.join(crate::GAMES_DIR);
    if sub.is_dir() {
        sub
    } else {
        dir.to_path_buf()
    }
}

/// The complete shard files of a dataset folder, in order.
pub fn shard_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, SelfplayError> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(SelfplayError::io(dir))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| crate::run::is_shard(p))
        .collect();
    files.sort();
    Ok(files)
}

/// One shard's replay: games re-played, mismatches (id, file, why), ids seen.
type PerFile = (u64, Vec<(u64, std::path::PathBuf, String)>, Vec<u64>);

/// [`replay_dir`]'s work on one four-player games shard.
/// When the shard lies in a run's `games/`, the run's samples shard of the
/// same name is checked too: each sample is the game's position at its ply
/// ([`crate::check_siguo_samples`]).
fn replay_siguo_file(path: &Path, only: Option<u64>) -> Result<PerFile, SelfplayError> {
    let stored = crate::siguo::read_siguo_games_file(path)?;
    let samples_path = path
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == crate::GAMES_DIR))
        .and_then(|d| Some(d.parent()?.join(crate::SAMPLES_DIR).join(path.file_name()?)))
        .filter(|p| p.is_file());
    let (samples, format) = match &samples_path {
        Some(p) => crate::read_siguo_samples_versioned(p)?,
        None => (Vec::new(), crate::SIGUO_SAMPLES_FORMAT),
    };
    let mut by_game: std::collections::BTreeMap<u64, Vec<&crate::SiguoSample>> = Default::default();
    for s in &samples {
        by_game.entry(s.game_id).or_default().push(s);
    }
    let (mut n, mut bad, mut ids) = (0, Vec::new(), Vec::new());
    for g in stored.iter().filter(|g| only.is_none_or(|id| id == g.game_id)) {
        n += 1;
        ids.push(g.game_id);
        if let Err(why) = crate::siguo::replay_siguo_game(g) {
            bad.push((g.game_id, path.to_path_buf(), why));
            continue;
        }
        if let (Some(p), Some(own)) = (&samples_path, by_game.get(&g.game_id)) {
            if let Err(why) = crate::check_siguo_samples(g, own, format == crate::SIGUO_SAMPLES_FORMAT_V1) {
                bad.push((g.game_id, p.clone(), format!("samples: {why}")));
            }
        }
    }
    Ok((n, bad, ids))
}

/// Re-play every stored game of a `games/` dataset (or only game `only`)
/// through the rules engine, one shard per rayon task.
pub fn replay_dir(dir: &Path, only: Option<u64>) -> Result<ReplayReport, SelfplayError> {
    use rayon::prelude::*;
    let games = games_dir(dir);
    let files = shard_files(&games)?;
    if files.is_empty() {
        return Err(SelfplayError::NoGames { dir: games });
    }
    let per_file: Vec<Result<PerFile, SelfplayError>> = files
        .par_iter()
        .with_max_len(1)
        .map(|path| {
            if crate::siguo::is_siguo_shard(&batches_and_metadata(path)?.1) {
                return replay_siguo_file(path, only);
            }
            let stored = read_games_file(path)?;
            let mut bad = Vec::new();
            let mut ids = Vec::new();
            let mut n = 0;
            for g in stored.iter().filter(|g| only.is_none_or(|id| id == g.game_id)) {
                n += 1;
                ids.push(g.game_id);
                if let Err(why) = replay_game(g) {
                    bad.push((g.game_id, path.clone(), why));
                }
            }
            Ok((n, bad, ids))
        })
        .collect();
    let mut report = ReplayReport::default();
    let mut seen = std::collections::HashSet::new();
    for r in per_file {
        let (n, bad, ids) = r?;
        report.games += n;
        report.mismatches.extend(bad);
        for id in ids {
            if !seen.insert(id) {
                report.duplicates.push(id);
            }
        }
    }
    if let (Some(id), 0) = (only, report.games) {
        return Err(SelfplayError::NoSuchGame { id, dir: games });
    }
    Ok(report)
}
