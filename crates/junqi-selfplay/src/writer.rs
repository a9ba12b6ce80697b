//! Arrow schemas of the two datasets and the per-shard Parquet writer.

use crate::checksum::Hashing;
use crate::{GameRecord, Sample, SelfplayError, StoredGame};
use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The dataset folders inside a run's directory.
pub const GAMES_DIR: &str = "games";
pub const SAMPLES_DIR: &str = "samples";

/// Rows per Arrow batch handed to the Parquet writer.
const GAMES_BATCH: usize = 1024;
const SAMPLES_BATCH: usize = 4096;
/// Rows per Parquet row group.
const GAMES_ROW_GROUP: usize = 4096;
const SAMPLES_ROW_GROUP: usize = 32768;
/// zstd level 1: level 3 saves about 5% of the samples' bytes and costs about
/// 8% of a samples-heavy run's time; the games' size does not change.
const ZSTD_LEVEL: i32 = 1;

/// The file name of shard `s` (the same in both datasets).
pub fn shard_name(s: u64) -> String {
    format!("shard-{s:06}.parquet")
}
/// The temporary name a shard is written under: hidden (a leading dot), so
/// Parquet dataset readers skip it.
pub(crate) fn tmp_name(s: u64) -> String {
    format!(".{}.tmp", shard_name(s))
}

/// The notation of every action id (`a6a7`, `c6c6`), so writing a move is a lookup.
fn move_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..junqi_core::ACTIONS)
            .map(|id| junqi_core::Move::from_action_id(id).expect("id < 3600").to_string())
            .collect()
    })
}

pub(crate) fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("item", item, false)))
}

/// Schema of `games/`: one row per game.
pub fn games_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        Arc::new(Schema::new(vec![
            Field::new("game_id", DataType::UInt64, false),
            Field::new("rules", DataType::Utf8, false),
            Field::new("seed", DataType::UInt64, false),
            Field::new("start_jfen", DataType::Utf8, false),
            Field::new("moves", list_of(DataType::Utf8), false),
            Field::new("result", DataType::Utf8, false),
            Field::new("termination", DataType::Utf8, false),
            Field::new("plies", DataType::UInt32, false),
            Field::new("bot_seat1", DataType::Utf8, false),
            Field::new("bot_seat2", DataType::Utf8, false),
            Field::new("code_version", DataType::Utf8, false),
        ]))
    })
    .clone()
}

/// The version of the `samples/` schema this build writes (the shards'
/// `junqi.samples_schema` metadata; see `docs/data.md`). Version 1 (no such
/// key) stored `planes-v1` observations, a 450-byte legal mask and a
/// sparse policy; version 2 stores the compact position, the legal action
/// ids and the policy aligned with them, and the bot's value; version 3
/// adds `hidden_kinds`, the true kinds of the enemy pieces the mover could
/// not see (the belief head's targets).
pub const SAMPLES_SCHEMA_VERSION: u32 = 3;

/// The columns a sample of either game starts with: where it is, whose view
/// (`seat`), the view's code (named `code_column`), the legal actions, the
/// policy target over them and the action played.
pub(crate) fn sample_columns(code_column: &str) -> Vec<Field> {
    vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("seat", DataType::UInt8, false),
        Field::new(code_column, DataType::Binary, false),
        Field::new("legal_actions", list_of(DataType::UInt16), false),
        Field::new("policy", list_of(DataType::Float32), false),
        Field::new("action", DataType::UInt16, false),
    ]
}

/// Schema of `samples/`: one row per sampled position.
pub fn samples_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        let mut columns = sample_columns("position");
        columns.extend([
            Field::new("value", DataType::Float32, true),
            Field::new("outcome", DataType::Int8, false),
            Field::new("hidden_kinds", DataType::Binary, true),
        ]);
        Arc::new(Schema::new(columns))
    })
    .clone()
}

pub(crate) fn item_field(schema: &Schema, name: &str) -> Arc<Field> {
    match schema.field_with_name(name).expect("schema field").data_type() {
        DataType::List(f) => f.clone(),
        _ => unreachable!("{name} is a list"),
    }
}

struct GamesBuilder {
    game_id: UInt64Builder,
    rules: StringBuilder,
    seed: UInt64Builder,
    start_jfen: StringBuilder,
    moves: ListBuilder<StringBuilder>,
    result: StringBuilder,
    termination: StringBuilder,
    plies: UInt32Builder,
    bot1: StringBuilder,
    bot2: StringBuilder,
    code_version: StringBuilder,
    rows: usize,
}

impl GamesBuilder {
    fn new() -> Self {
        GamesBuilder {
            game_id: UInt64Builder::new(),
            rules: StringBuilder::new(),
            seed: UInt64Builder::new(),
            start_jfen: StringBuilder::new(),
            moves: ListBuilder::new(StringBuilder::new()).with_field(item_field(&games_schema(), "moves")),
            result: StringBuilder::new(),
            termination: StringBuilder::new(),
            plies: UInt32Builder::new(),
            bot1: StringBuilder::new(),
            bot2: StringBuilder::new(),
            code_version: StringBuilder::new(),
            rows: 0,
        }
    }

    fn push(&mut self, g: &GameRecord, rules_json: &str, code_version: &str) {
        self.game_id.append_value(g.game_id);
        self.rules.append_value(rules_json);
        self.seed.append_value(g.seed);
        self.start_jfen.append_value(&g.start_jfen);
        let names = move_names();
        for m in &g.moves {
            self.moves.values().append_value(&names[m.action_id()]);
        }
        self.moves.append(true);
        self.result.append_value(g.outcome.result_str());
        self.termination.append_value(g.outcome.termination.name());
        self.plies.append_value(g.moves.len() as u32);
        self.bot1.append_value(&g.bots[0]);
        self.bot2.append_value(&g.bots[1]);
        self.code_version.append_value(code_version);
        self.rows += 1;
    }

    /// Add a row read back from a dataset (or a text record), every column as it is.
    fn push_stored(&mut self, g: &StoredGame) {
        self.game_id.append_value(g.game_id);
        self.rules.append_value(&g.rules);
        self.seed.append_value(g.seed);
        self.start_jfen.append_value(&g.start_jfen);
        for m in &g.moves {
            self.moves.values().append_value(m);
        }
        self.moves.append(true);
        self.result.append_value(&g.result);
        self.termination.append_value(&g.termination);
        self.plies.append_value(g.plies);
        self.bot1.append_value(&g.bots[0]);
        self.bot2.append_value(&g.bots[1]);
        self.code_version.append_value(&g.code_version);
        self.rows += 1;
    }

    fn finish(&mut self) -> RecordBatch {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.game_id.finish()),
            Arc::new(self.rules.finish()),
            Arc::new(self.seed.finish()),
            Arc::new(self.start_jfen.finish()),
            Arc::new(self.moves.finish()),
            Arc::new(self.result.finish()),
            Arc::new(self.termination.finish()),
            Arc::new(self.plies.finish()),
            Arc::new(self.bot1.finish()),
            Arc::new(self.bot2.finish()),
            Arc::new(self.code_version.finish()),
        ];
        RecordBatch::try_new(games_schema(), columns).expect("columns match the games schema")
    }
}

struct SamplesBuilder {
    game_id: UInt64Builder,
    ply: UInt32Builder,
    seat: UInt8Builder,
    position: BinaryBuilder,
    legal: ListBuilder<UInt16Builder>,
    policy: ListBuilder<Float32Builder>,
    action: UInt16Builder,
    value: Float32Builder,
    outcome: Int8Builder,
    hidden_kinds: BinaryBuilder,
    rows: usize,
}

impl SamplesBuilder {
    /// Builders with room for a batch of rows with `items` legal actions
    /// in all, so the buffers do not grow (and copy) while a batch fills.
    fn new() -> Self {
        SamplesBuilder::with_capacity(0)
    }

    fn with_capacity(items: usize) -> Self {
        let schema = samples_schema();
        let rows = SAMPLES_BATCH + 1;
        SamplesBuilder {
            game_id: UInt64Builder::with_capacity(rows),
            ply: UInt32Builder::with_capacity(rows),
            seat: UInt8Builder::with_capacity(rows),
            position: BinaryBuilder::with_capacity(rows, rows * junqi_env::CODE_BYTES),
            legal: ListBuilder::with_capacity(UInt16Builder::with_capacity(items), rows)
                .with_field(item_field(&schema, "legal_actions")),
            policy: ListBuilder::with_capacity(Float32Builder::with_capacity(items), rows)
                .with_field(item_field(&schema, "policy")),
            action: UInt16Builder::with_capacity(rows),
            value: Float32Builder::with_capacity(rows),
            outcome: Int8Builder::with_capacity(rows),
            hidden_kinds: BinaryBuilder::new(),
            rows: 0,
        }
    }

    fn push(&mut self, game_id: u64, s: &Sample) {
        self.game_id.append_value(game_id);
        self.ply.append_value(s.ply);
        self.seat.append_value(s.seat);
        self.position.append_value(s.position.as_bytes());
        self.legal.values().append_slice(&s.legal);
        self.legal.append(true);
        self.policy.values().append_slice(&s.policy);
        self.policy.append(true);
        self.action.append_value(s.action);
        self.value.append_option(s.value);
        self.outcome.append_value(s.outcome);
        if s.hidden_kinds.is_empty() {
            self.hidden_kinds.append_null();
        } else {
            self.hidden_kinds.append_value(&s.hidden_kinds);
        }
        self.rows += 1;
    }

    fn finish(&mut self) -> RecordBatch {
        // The next batch gets buffers sized like this one, plus some room.
        let items = self.legal.values_ref().len();
        let next = SamplesBuilder::with_capacity(items + items / 4);
        let mut full = std::mem::replace(self, next);
        full.batch()
    }

    fn batch(&mut self) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.game_id.finish()),
            Arc::new(self.ply.finish()),
            Arc::new(self.seat.finish()),
            Arc::new(self.position.finish()),
            Arc::new(self.legal.finish()),
            Arc::new(self.policy.finish()),
            Arc::new(self.action.finish()),
            Arc::new(self.value.finish()),
            Arc::new(self.outcome.finish()),
            Arc::new(self.hidden_kinds.finish()),
        ];
        RecordBatch::try_new(samples_schema(), columns).expect("columns match the samples schema")
    }
}

/// Writer properties: zstd, row-group size, key-value metadata; no dictionary
/// and no statistics on `plain` columns (unique per row, or where a
/// dictionary costs more time and bytes than it saves: the policy lists),
/// no statistics where min/max say nothing useful (`no_stats`).
pub(crate) fn properties(
    row_group: usize,
    plain: &[&str],
    no_stats: &[&str],
    metadata: &[(String, String)],
) -> WriterProperties {
    let mut b = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL).expect("valid zstd level")))
        .set_max_row_group_row_count(Some(row_group))
        .set_key_value_metadata(Some(metadata.iter().map(|(k, v)| KeyValue::new(k.clone(), v.clone())).collect()));
    for col in plain {
        let path = || ColumnPath::new(col.split('.').map(String::from).collect());
        b = b
            .set_column_dictionary_enabled(path(), false)
            .set_column_statistics_enabled(path(), EnabledStatistics::None);
    }
    for col in no_stats {
        b = b.set_column_statistics_enabled(
            ColumnPath::new(col.split('.').map(String::from).collect()),
            EnabledStatistics::None,
        );
    }
    b.build()
}

/// The games file's writer properties (one place, so every games shard is written alike).
fn games_properties(metadata: &[(String, String)]) -> WriterProperties {
    properties(GAMES_ROW_GROUP, &["start_jfen", "seed"], &["moves.list.item"], metadata)
}

/// Finish a shard file written under `tmp`: its footer, a sync, its
/// checksum record (durably, see [`crate::checksum`]), then the rename to `done`.
pub(crate) fn seal(writer: ArrowWriter<Hashing<File>>, tmp: &Path, done: &Path) -> Result<(), SelfplayError> {
    let (file, sum) = writer.into_inner().map_err(SelfplayError::parquet(tmp))?.into_parts();
    file.sync_all().map_err(SelfplayError::io(tmp))?;
    debug_assert_eq!(file.metadata().map(|m| m.len()).ok(), Some(sum.len), "every byte was hashed");
    drop(file);
    crate::checksum::write_checksum(done, sum)?;
    std::fs::rename(tmp, done).map_err(SelfplayError::io(done))
}

/// Write `games` (rows as read back, or as imported from text records:
/// every column kept as it is, in this order) as the complete shard
/// `shard` of the `games/` dataset in the folder `games_dir`, exactly as a
/// self-play shard is written: under its hidden temporary name, then its
/// checksum record, then the rename. `metadata` goes to the footer. On an
/// error the temporary file is removed. Returns the shard's path.
pub fn write_games_shard(
    games_dir: &Path,
    shard: u64,
    games: &[StoredGame],
    metadata: &[(String, String)],
) -> Result<PathBuf, SelfplayError> {
    let batches = games.chunks(GAMES_BATCH).map(|chunk| {
        let mut b = GamesBuilder::new();
        for g in chunk {
            b.push_stored(g);
        }
        Ok(b.finish())
    });
    write_shard_batches(games_dir, shard, games_schema(), games_properties(metadata), batches)
}

/// Write shard `shard` of `dir` from `batches`, one at a time as they are
/// made: under a temporary name, sealed with its checksum record and
/// renamed when complete, removed on any failure (a batch that could not be
/// built included). Both games shard writers go through here.
pub(crate) fn write_shard_batches(
    dir: &Path,
    shard: u64,
    schema: SchemaRef,
    props: WriterProperties,
    batches: impl IntoIterator<Item = Result<RecordBatch, arrow_schema::ArrowError>>,
) -> Result<PathBuf, SelfplayError> {
    let tmp = dir.join(tmp_name(shard));
    let done = dir.join(shard_name(shard));
    let written = (|| {
        let file = File::create(&tmp).map_err(SelfplayError::io(&tmp))?;
        let mut writer =
            ArrowWriter::try_new(Hashing::new(file), schema, Some(props)).map_err(SelfplayError::parquet(&tmp))?;
        for b in batches {
            let b = b.map_err(|e| SelfplayError::Corrupt { path: tmp.clone(), message: e.to_string() })?;
            writer.write(&b).map_err(SelfplayError::parquet(&tmp))?;
        }
        seal(writer, &tmp, &done)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map(|()| done)
}

/// The two files of one shard being written under temporary names.
pub(crate) struct ShardWriter {
    dir: PathBuf,
    shard: u64,
    games: ArrowWriter<Hashing<File>>,
    samples: ArrowWriter<Hashing<File>>,
    gb: GamesBuilder,
    sb: SamplesBuilder,
    rules_json: String,
    code_version: String,
    /// Forfeited games' reasons, for the footer (`junqi.forfeits`).
    forfeits: std::collections::BTreeMap<u64, String>,
    /// Each game's decision times, for the footer (`junqi.move_ms`).
    move_ms: std::collections::BTreeMap<u64, Vec<u32>>,
}

impl ShardWriter {
    /// Open `DIR/{games,samples}/.shard-NNNNNN.parquet.tmp`.
    pub(crate) fn create(
        dir: &Path,
        shard: u64,
        rules_json: String,
        code_version: String,
        metadata: &[(String, String)],
    ) -> Result<ShardWriter, SelfplayError> {
        let open = |sub: &str, schema: SchemaRef, props: WriterProperties| {
            let path = dir.join(sub).join(tmp_name(shard));
            let file = File::create(&path).map_err(SelfplayError::io(&path))?;
            ArrowWriter::try_new(Hashing::new(file), schema, Some(props)).map_err(SelfplayError::parquet(&path))
        };
        let games = open(GAMES_DIR, games_schema(), games_properties(metadata))?;
        let samples = open(
            SAMPLES_DIR,
            samples_schema(),
            properties(SAMPLES_ROW_GROUP, &["position", "legal_actions.list.item", "policy.list.item"], &[], metadata),
        )?;
        Ok(ShardWriter {
            dir: dir.to_path_buf(),
            shard,
            games,
            samples,
            gb: GamesBuilder::new(),
            forfeits: Default::default(),
            move_ms: Default::default(),
            sb: SamplesBuilder::new(),
            rules_json,
            code_version,
        })
    }

    fn tmp(&self, sub: &str) -> PathBuf {
        self.dir.join(sub).join(tmp_name(self.shard))
    }

    /// Add one game and its samples.
    pub(crate) fn push(&mut self, game: &GameRecord, samples: &[Sample]) -> Result<(), SelfplayError> {
        self.gb.push(game, &self.rules_json, &self.code_version);
        if let Some(reason) = &game.forfeit {
            self.forfeits.insert(game.game_id, reason.clone());
        }
        self.move_ms.insert(game.game_id, game.move_ms.clone());
        for s in samples {
            self.sb.push(game.game_id, s);
        }
        if self.gb.rows >= GAMES_BATCH {
            self.flush_games()?;
        }
        if self.sb.rows >= SAMPLES_BATCH {
            self.flush_samples()?;
        }
        Ok(())
    }

    fn flush_games(&mut self) -> Result<(), SelfplayError> {
        let batch = self.gb.finish();
        self.games.write(&batch).map_err(SelfplayError::parquet(self.tmp(GAMES_DIR)))
    }
    fn flush_samples(&mut self) -> Result<(), SelfplayError> {
        let batch = self.sb.finish();
        self.samples.write(&batch).map_err(SelfplayError::parquet(self.tmp(SAMPLES_DIR)))
    }

    /// Write the footers, sync, record each file's checksum (durably, see
    /// [`crate::checksum`]) and then rename it to its final name: samples
    /// first, then games (a shard counts as done once its games file exists).
    /// The games footer also records the shard's `thinking`.
    pub(crate) fn finish(mut self, thinking: &crate::Thinking) -> Result<(), SelfplayError> {
        if self.gb.rows > 0 {
            self.flush_games()?;
        }
        if self.sb.rows > 0 {
            self.flush_samples()?;
        }
        self.games.append_key_value_metadata(KeyValue::new(crate::THINKING_KEY.to_string(), thinking.to_footer()));
        if !self.forfeits.is_empty() {
            let json = serde_json::to_string(&self.forfeits).expect("a map of strings serializes");
            self.games.append_key_value_metadata(KeyValue::new(crate::FORFEITS_KEY.to_string(), json));
        }
        let json = serde_json::to_string(&self.move_ms).expect("a map of numbers serializes");
        self.games.append_key_value_metadata(KeyValue::new(crate::MOVE_MS_KEY.to_string(), json));
        let ShardWriter { dir, shard, games, samples, .. } = self;
        for (sub, writer) in [(SAMPLES_DIR, samples), (GAMES_DIR, games)] {
            let tmp = dir.join(sub).join(tmp_name(shard));
            seal(writer, &tmp, &dir.join(sub).join(shard_name(shard)))?;
        }
        Ok(())
    }

    /// Give up on the shard: remove its temporary files.
    pub(crate) fn abandon(self) {
        let paths = [self.tmp(GAMES_DIR), self.tmp(SAMPLES_DIR)];
        drop(self);
        for p in paths {
            let _ = std::fs::remove_file(p);
        }
    }
}
