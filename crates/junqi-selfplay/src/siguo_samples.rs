//! Four-player training samples (docs/data.md, "Four-player samples"): one
//! row per sampled ply, the mover's view of it as a compact code
//! ([`junqi_siguo::SiguoCode`], from which `observation::encode`'s planes
//! are rebuilt exactly), its legal actions, the policy target, the move
//! played, the result for the mover's team, and the belief head's targets
//! (the true kinds of the pieces the mover could not see, which the
//! referee knows).
//!
//! Every samples shard of this schema carries `junqi.format =
//! junqi-siguo-samples/2` in its footer: the two-player samples reader
//! refuses it by that name, and [`read_siguo_samples_file`] refuses
//! two-player samples. It also reads `junqi-siguo-samples/1` shards, the
//! same without `hidden_kinds` (their samples have no belief targets).

use crate::replay::{list_values, Columns};
use crate::siguo::{SiguoGame, FORMAT_KEY};
use crate::writer::{item_field, properties, sample_columns, write_shard_batches};
use crate::{game_seed, SamplesPerGame, SelfplayError};
use arrow_array::builder::{
    BinaryBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use junqi_core::piece::KINDS;
use junqi_core::rng_from_seed;
use junqi_siguo::observation::action_index;
use junqi_siguo::{hidden_kind_targets, Announcement, Army, Move, MoveList, Position, SiguoCode, SiguoInfoSet, NODES};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The four-player samples schema this build writes.
pub const SIGUO_SAMPLES_FORMAT: &str = "junqi-siguo-samples/2";
/// The first four-player samples schema (no `hidden_kinds`), still read.
pub const SIGUO_SAMPLES_FORMAT_V1: &str = "junqi-siguo-samples/1";

/// Schema of a four-player `samples/` shard: one row per sampled ply.
pub fn siguo_samples_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        let mut columns = sample_columns("code");
        columns.extend([
            Field::new("outcome", DataType::Int8, false),
            Field::new("termination", DataType::Utf8, false),
            Field::new("hidden_kinds", DataType::Binary, true),
        ]);
        Arc::new(Schema::new(columns))
    })
    .clone()
}

/// One row of a four-player `samples/` shard.
#[derive(Clone, Debug, PartialEq)]
pub struct SiguoSample {
    pub game_id: u64,
    /// Plies played before this position.
    pub ply: u32,
    /// The army to move (0–3), whose view this is.
    pub seat: u8,
    /// [`SiguoCode::to_bytes`] of the seat's information set.
    pub code: Vec<u8>,
    /// The seat's legal moves as seat-relative action indices
    /// (`junqi_siguo::observation::action_index`), ascending.
    pub legal_actions: Vec<u16>,
    /// The policy target over `legal_actions` (same order, sums to 1): the
    /// search's root visit shares for `mcts`, the net's policy for a plain
    /// net (`net:`), one-hot on the move played for the other bots.
    pub policy: Vec<f32>,
    /// The move played, as an action index.
    pub action: u16,
    /// The game's result for the seat's team: 1 won, 0 drawn, −1 lost.
    pub outcome: i8,
    /// How the game ended (`team_eliminated`, `quiet_plies`, …).
    pub termination: String,
    /// The belief head's targets ([`junqi_siguo::hidden_kind_targets`]):
    /// per seat-relative node, 1 + the true kind of a piece the seat could
    /// not see, else 0; empty when there is none (and in `/1` shards).
    pub hidden_kinds: Vec<u8>,
}

/// The plies of a game of `plies` moves that `samples` keeps: all, or up to
/// `k` chosen uniformly from a stream seeded by the run seed and the game.
pub fn sampled_plies(samples: SamplesPerGame, run_seed: u64, game_id: u64, plies: u32) -> Vec<u32> {
    match samples {
        SamplesPerGame::All => (0..plies).collect(),
        SamplesPerGame::Count(k) => {
            let mut rng = rng_from_seed(game_seed(run_seed ^ 0x5349_4755_4f53_414d, game_id));
            let mut chosen: Vec<u32> = rand::seq::index::sample(&mut rng, plies as usize, (k.min(plies)) as usize)
                .into_iter()
                .map(|i| i as u32)
                .collect();
            chosen.sort_unstable();
            chosen
        }
    }
}

/// The samples of game `game_id` at `plies` (ascending): the moves re-played
/// from `start` with every seat's information set kept from the referee's
/// announcements, the mover's set coded at each sampled ply. The policy of
/// ply `i` is `policies[i]` (a bot's `last_policy`) where there is one,
/// else one-hot on the move played. The reason when a move is illegal or
/// the game does not end after the last.
pub fn samples_at(
    game_id: u64,
    start: &Position,
    moves: &[Move],
    policies: &[Option<Vec<(Move, f32)>>],
    plies: &[u32],
) -> Result<Vec<SiguoSample>, String> {
    let mut out = Vec::with_capacity(plies.len());
    if plies.is_empty() {
        return Ok(out);
    }
    let mut pos = start.clone();
    let mut infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
    let mut wanted = plies.iter().copied().peekable();
    let mut list = MoveList::new();
    for (ply, &mv) in moves.iter().enumerate() {
        if wanted.peek() == Some(&(ply as u32)) {
            wanted.next();
            let seat = pos.turn();
            let info = &infos[seat.index()];
            info.legal_moves(&mut list);
            let mut legal_actions: Vec<u16> = list.iter().map(|&m| action_index(seat, m) as u16).collect();
            legal_actions.sort_unstable();
            let action = action_index(seat, mv) as u16;
            let mut policy: Vec<f32> = legal_actions.iter().map(|&a| if a == action { 1.0 } else { 0.0 }).collect();
            if let Some(Some(shares)) = policies.get(ply) {
                policy.fill(0.0);
                for &(m, share) in shares {
                    if let Ok(i) = legal_actions.binary_search(&(action_index(seat, m) as u16)) {
                        policy[i] += share;
                    }
                }
            }
            out.push(SiguoSample {
                game_id,
                ply: ply as u32,
                seat: seat.index() as u8,
                code: SiguoCode::of(info).to_bytes(),
                hidden_kinds: hidden_kind_targets(&pos, info),
                policy,
                legal_actions,
                action,
                outcome: 0,
                termination: String::new(),
            });
        }
        let before = pos.clone();
        let effect = pos.play(mv).map_err(|e| format!("move {} `{mv}`: {e}", ply + 1))?;
        let a = Announcement::new(&before, mv, &effect, &pos);
        for info in &mut infos {
            info.update(&a);
        }
        if wanted.peek().is_none() && pos.outcome().is_none() {
            // Nothing left to sample: the outcome is the rest of the game's.
            pos = play_out(pos, &moves[ply + 1..])?;
            break;
        }
    }
    if let Some(p) = wanted.next() {
        return Err(format!("ply {p} is past the game's {} moves", moves.len()));
    }
    let outcome = pos.outcome().ok_or("the game is not over after its moves")?;
    for s in &mut out {
        let team = Army::new(s.seat as usize).expect("a seat").team();
        s.outcome = match outcome.winner {
            None => 0,
            Some(w) if w == team => 1,
            Some(_) => -1,
        };
        s.termination = outcome.termination.name().to_string();
    }
    Ok(out)
}

/// `pos` after `moves`, each checked.
fn play_out(mut pos: Position, moves: &[Move]) -> Result<Position, String> {
    for &mv in moves {
        pos.play(mv).map_err(|e| format!("`{mv}`: {e}"))?;
    }
    Ok(pos)
}

/// A stored game's start position and moves, parsed (not played); the
/// reason when its rules, start or a move does not parse.
pub(crate) fn stored_start_and_moves(game: &SiguoGame) -> Result<(Position, Vec<Move>), String> {
    let rules = junqi_siguo::Rules::from_toml_str(&game.rules).map_err(|e| format!("rules are not valid: {e}"))?;
    let start = junqi_siguo::parse(&game.start, rules).map_err(|e| format!("start position: {e}"))?;
    let moves = game
        .moves
        .iter()
        .map(|m| m.parse::<Move>().map_err(|e| format!("move `{m}`: {e}")))
        .collect::<Result<_, _>>()?;
    Ok((start, moves))
}

/// Check a stored game's samples: each is what re-playing the game gives at
/// its ply (code, legal actions, action, outcome, termination, belief
/// targets (none in a `/1` shard), and the
/// one-hot policy; for a seat of the search, `mcts`, or of a plain net,
/// `net:`, a policy over the legal actions that sums to 1). The reason for the first difference otherwise.
/// `v1`: the samples come from a `junqi-siguo-samples/1` shard.
pub fn check_siguo_samples(game: &SiguoGame, samples: &[&SiguoSample], v1: bool) -> Result<(), String> {
    let (start, moves) = stored_start_and_moves(game)?;
    let plies: Vec<u32> = samples.iter().map(|s| s.ply).collect();
    if plies.windows(2).any(|w| w[0] >= w[1]) {
        return Err("samples out of ply order or repeated".into());
    }
    let want = samples_at(game.game_id, &start, &moves, &[], &plies)?;
    for (got, want) in samples.iter().zip(&want) {
        // The search and a plain net store their policy, every other bot the move.
        let weighs = game.bots.get(got.seat as usize).is_some_and(|b| b.starts_with("mcts") || b.starts_with("net:"));
        let distribution = got.policy.len() == want.policy.len()
            && got.policy.iter().all(|&p| (0.0..=1.0).contains(&p))
            && (got.policy.iter().sum::<f32>() - 1.0).abs() < 1e-3;
        let policy_ok = got.policy == want.policy || (weighs && distribution);
        let without_policy = |s: &SiguoSample| SiguoSample { policy: Vec::new(), ..s.clone() };
        let targets_ok = got.hidden_kinds == want.hidden_kinds || (v1 && got.hidden_kinds.is_empty());
        let want = SiguoSample { hidden_kinds: got.hidden_kinds.clone(), ..want.clone() };
        if without_policy(got) != without_policy(&want) || !policy_ok || !targets_ok {
            return Err(format!("the sample at ply {} is not the game's position there", got.ply));
        }
    }
    Ok(())
}

/// The `junqi-siguo-samples/1` schema: today's without `hidden_kinds`.
fn siguo_samples_schema_v1() -> SchemaRef {
    let all = siguo_samples_schema();
    Arc::new(Schema::new(all.fields()[..all.fields().len() - 1].to_vec()))
}

/// `samples` as a batch of `schema` (today's, or `/1`'s, which drops the last column).
fn batch(samples: &[SiguoSample], schema: SchemaRef) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let item = |name: &str| item_field(&schema, name);
    let (mut id, mut ply, mut seat) = (UInt64Builder::new(), UInt32Builder::new(), UInt8Builder::new());
    let mut code = BinaryBuilder::new();
    let mut legal = ListBuilder::new(UInt16Builder::new()).with_field(item("legal_actions"));
    let mut policy = ListBuilder::new(Float32Builder::new()).with_field(item("policy"));
    let (mut action, mut outcome, mut termination) = (UInt16Builder::new(), Int8Builder::new(), StringBuilder::new());
    let mut hidden = BinaryBuilder::new();
    for s in samples {
        id.append_value(s.game_id);
        ply.append_value(s.ply);
        seat.append_value(s.seat);
        code.append_value(&s.code);
        legal.values().append_slice(&s.legal_actions);
        legal.append(true);
        policy.values().append_slice(&s.policy);
        policy.append(true);
        action.append_value(s.action);
        outcome.append_value(s.outcome);
        termination.append_value(&s.termination);
        if s.hidden_kinds.is_empty() {
            hidden.append_null();
        } else {
            hidden.append_value(&s.hidden_kinds);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(ply.finish()),
        Arc::new(seat.finish()),
        Arc::new(code.finish()),
        Arc::new(legal.finish()),
        Arc::new(policy.finish()),
        Arc::new(action.finish()),
        Arc::new(outcome.finish()),
        Arc::new(termination.finish()),
        Arc::new(hidden.finish()),
    ];
    let n = schema.fields().len();
    RecordBatch::try_new(schema, columns[..n].to_vec())
}

/// Write `samples` as shard `shard` of the four-player `samples/` dataset in
/// `samples_dir`, as every shard is written; `metadata` joins
/// [`FORMAT_KEY`] and the code's name (`junqi.obs_encoding`) in the footer.
pub fn write_siguo_samples_shard(
    samples_dir: &Path,
    shard: u64,
    samples: &[SiguoSample],
    metadata: &[(String, String)],
) -> Result<PathBuf, SelfplayError> {
    let mut meta = vec![
        (FORMAT_KEY.to_string(), SIGUO_SAMPLES_FORMAT.to_string()),
        ("junqi.obs_encoding".to_string(), junqi_siguo::CODE_FORMAT.to_string()),
    ];
    meta.extend(metadata.iter().cloned());
    write_with_schema(samples_dir, shard, samples, &meta, siguo_samples_schema())
}

fn write_with_schema(
    dir: &Path,
    shard: u64,
    samples: &[SiguoSample],
    meta: &[(String, String)],
    schema: SchemaRef,
) -> Result<PathBuf, SelfplayError> {
    let props = properties(8192, &["code", "policy.list.item"], &["legal_actions.list.item"], meta);
    write_shard_batches(dir, shard, schema.clone(), props, samples.chunks(8192).map(|c| batch(c, schema.clone())))
}

/// Rewrite the four-player samples shard at `path` (and its checksum
/// record) as `junqi-siguo-samples/1` wrote it: no `hidden_kinds`, the
/// footer's format `/1`, its other keys kept. For tests of the datasets
/// written before the belief targets.
#[doc(hidden)]
pub fn rewrite_as_siguo_samples_v1(path: &Path) -> Result<(), SelfplayError> {
    let (samples, _) = read_siguo_samples_versioned(path)?;
    let (_, mut meta) = crate::replay::batches_and_metadata(path)?;
    let corrupt = |message: &str| SelfplayError::Corrupt { path: path.to_path_buf(), message: message.into() };
    let shard = meta.iter().find(|(k, _)| k == "junqi.shard").and_then(|(_, v)| v.parse().ok());
    let shard = shard.ok_or_else(|| corrupt("no `junqi.shard` in the footer"))?;
    meta.retain(|(k, _)| k != "ARROW:schema");
    meta.iter_mut().filter(|(k, _)| k == FORMAT_KEY).for_each(|(_, v)| *v = SIGUO_SAMPLES_FORMAT_V1.to_string());
    crate::checksum::remove_shard(path)?;
    let dir = path.parent().ok_or_else(|| corrupt("no folder"))?;
    write_with_schema(dir, shard, &samples, &meta, siguo_samples_schema_v1()).map(|_| ())
}

/// The four-player samples format a shard's footer names (`/2` or `/1`);
/// a shard of another format (two-player samples among them) is an error
/// naming it.
pub fn siguo_samples_format(metadata: &[(String, String)], path: &Path) -> Result<&'static str, SelfplayError> {
    let found = metadata.iter().find(|(k, _)| k == FORMAT_KEY).map(|(_, f)| f.as_str());
    match found {
        Some(SIGUO_SAMPLES_FORMAT) => Ok(SIGUO_SAMPLES_FORMAT),
        Some(SIGUO_SAMPLES_FORMAT_V1) => Ok(SIGUO_SAMPLES_FORMAT_V1),
        _ => {
            let what = found.map_or("a two-player shard".to_string(), |f| format!("a shard of format `{f}`"));
            let message = format!("{what}, not `{SIGUO_SAMPLES_FORMAT}` (or `{SIGUO_SAMPLES_FORMAT_V1}`)");
            Err(SelfplayError::Corrupt { path: path.to_path_buf(), message })
        }
    }
}

/// Read every sample of one four-player samples shard (`/2`, or `/1`
/// without belief targets) and the format it is of; a shard of another
/// format (two-player samples among them) is an error naming it.
pub fn read_siguo_samples_versioned(path: &Path) -> Result<(Vec<SiguoSample>, &'static str), SelfplayError> {
    let (batches, metadata) = crate::replay::batches_and_metadata(path)?;
    let format = siguo_samples_format(&metadata, path)?;
    let corrupt = |message: String| SelfplayError::Corrupt { path: path.to_path_buf(), message };
    let mut out = Vec::new();
    for batch in &batches {
        let c = Columns { batch, path };
        let game_id = c.get("game_id", |a| a.as_primitive_opt::<UInt64Type>())?;
        let ply = c.get("ply", |a| a.as_primitive_opt::<UInt32Type>())?;
        let seat = c.get("seat", |a| a.as_primitive_opt::<UInt8Type>())?;
        let code = c.get("code", |a| a.as_binary_opt::<i32>())?;
        let legal =
            list_values::<UInt16Type>(c.get("legal_actions", |a| a.as_list_opt::<i32>())?, "legal_actions", path)?;
        let policy = list_values::<Float32Type>(c.get("policy", |a| a.as_list_opt::<i32>())?, "policy", path)?;
        let action = c.get("action", |a| a.as_primitive_opt::<UInt16Type>())?;
        let outcome = c.get("outcome", |a| a.as_primitive_opt::<Int8Type>())?;
        let termination = c.get("termination", |a| a.as_string_opt::<i32>())?;
        let hidden = match format {
            SIGUO_SAMPLES_FORMAT_V1 => None,
            _ => Some(c.get("hidden_kinds", |a| a.as_binary_opt::<i32>())?),
        };
        for i in 0..batch.num_rows() {
            let at = || format!("game {} ply {}", game_id.value(i), ply.value(i));
            let bytes = code.value(i);
            SiguoCode::from_bytes(bytes).map_err(|e| corrupt(format!("{}: {e}", at())))?;
            let hidden_kinds = match hidden.filter(|h| h.is_valid(i)).map(|h| h.value(i)) {
                Some(b) if b.len() != NODES || b.iter().any(|&k| k as usize > KINDS) => {
                    return Err(corrupt(format!("{}: `hidden_kinds` is not {NODES} entries of 0 to {KINDS}", at())))
                }
                Some(b) => b.to_vec(),
                None => Vec::new(),
            };
            out.push(SiguoSample {
                game_id: game_id.value(i),
                ply: ply.value(i),
                seat: seat.value(i),
                code: bytes.to_vec(),
                legal_actions: legal(i).to_vec(),
                policy: policy(i).to_vec(),
                action: action.value(i),
                outcome: outcome.value(i),
                termination: termination.value(i).to_string(),
                hidden_kinds,
            });
        }
    }
    Ok((out, format))
}

/// [`read_siguo_samples_versioned`]'s samples.
pub fn read_siguo_samples_file(path: &Path) -> Result<Vec<SiguoSample>, SelfplayError> {
    read_siguo_samples_versioned(path).map(|(samples, _)| samples)
}

/// The `junqi.format` a samples shard's footer names (`None`: two-player
/// samples, which name none), read from the footer alone.
fn footer_format(path: &Path) -> Result<Option<String>, SelfplayError> {
    use parquet::file::reader::FileReader;
    let reader = crate::run::footer_reader(path)?;
    let meta = reader.metadata().file_metadata();
    let kv = meta.key_value_metadata().map(|v| v.as_slice()).unwrap_or(&[]);
    Ok(kv.iter().find(|k| k.key == FORMAT_KEY).and_then(|k| k.value.clone()))
}

/// An error naming both formats unless every samples shard of `shards`
/// (those that exist) is of one samples format: a merge must not join
/// `junqi-siguo-samples/1` parts with `/2` ones into one dataset.
pub(crate) fn one_samples_format(shards: &[PathBuf]) -> Result<(), SelfplayError> {
    let mut first: Option<(&PathBuf, Option<String>)> = None;
    for path in shards.iter().filter(|p| p.is_file()) {
        let format = footer_format(path)?;
        match &first {
            None => first = Some((path, format)),
            Some((p, f)) if *f != format => {
                let name = |f: &Option<String>| f.clone().unwrap_or_else(|| "two-player samples".into());
                return Err(SelfplayError::Merge(format!(
                    "{} holds `{}` and {} `{}`: samples of one schema only (re-play the older part with this build)",
                    p.display(),
                    name(f),
                    path.display(),
                    name(&format)
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}
