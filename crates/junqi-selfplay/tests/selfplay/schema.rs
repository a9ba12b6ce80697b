//! The `samples/` schema versions: what this build writes (version 3, with
//! `junqi.samples_schema` in the metadata), a version-2 shard (no
//! `hidden_kinds`) and a version-1 shard (planes-v1 observations, legal
//! masks, sparse policies) read and converted to the same samples, and clear errors for an unknown version, a shard of another
//! schema and a truncated shard.

use arrow_array::builder::{
    BinaryBuilder, Float32Builder, Int8Builder, ListBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use junqi_core::{Mode, Rules};
use junqi_selfplay::*;
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-schema-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small run of every mode's samples (mcts gives values), read back.
fn samples_of_a_run(mode: Mode, dir: &Path) -> (PathBuf, Vec<StoredSample>) {
    let config = Config::new(Rules::preset(mode), 4, ["mcts:sims=20", "greedy"], 5)
        .unwrap()
        .with_samples(SamplesPerGame::Count(12))
        .with_shard_games(4);
    prepare(config, Some(dir)).unwrap().run(&RunOptions { threads: 1, ..Default::default() }).unwrap();
    let shard = dir.join(SAMPLES_DIR).join(shard_name(0));
    let samples = read_samples_file(&shard).unwrap();
    (shard, samples)
}

fn list_field(name: &str, item: DataType) -> Field {
    Field::new(name, DataType::List(Arc::new(Field::new("item", item, false))), false)
}

/// Write `samples` as a version-1 shard (the schema junqi wrote before version 2).
fn write_v1(path: &Path, samples: &[StoredSample]) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("seat", DataType::UInt8, false),
        Field::new("observation", DataType::Binary, false),
        Field::new("legal_mask", DataType::Binary, false),
        Field::new("action", DataType::UInt16, false),
        list_field("policy_actions", DataType::UInt16),
        list_field("policy_probs", DataType::Float32),
        Field::new("outcome", DataType::Int8, false),
    ]));
    let item = |name: &str| match schema.field_with_name(name).unwrap().data_type() {
        DataType::List(f) => f.clone(),
        _ => unreachable!(),
    };
    let (mut id, mut ply, mut seat) = (UInt64Builder::new(), UInt32Builder::new(), UInt8Builder::new());
    let (mut obs, mut mask, mut action, mut outcome) =
        (BinaryBuilder::new(), BinaryBuilder::new(), UInt16Builder::new(), Int8Builder::new());
    let mut pa = ListBuilder::new(UInt16Builder::new()).with_field(item("policy_actions"));
    let mut pp = ListBuilder::new(Float32Builder::new()).with_field(item("policy_probs"));
    for s in samples {
        let x = &s.sample;
        id.append_value(s.game_id);
        ply.append_value(x.ply);
        seat.append_value(x.seat);
        let mut bytes = Vec::new();
        // Schema 1 was written before the history planes: the first 100.
        encode_planes(&x.position.planes()[..junqi_env::V1_CHANNELS * 60], &mut bytes);
        obs.append_value(&bytes);
        let mut bits = vec![0u8; 450];
        for &a in &x.legal {
            bits[a as usize / 8] |= 1 << (a % 8);
        }
        mask.append_value(&bits);
        action.append_value(x.action);
        for (&a, &p) in x.legal.iter().zip(&x.policy) {
            if p > 0.0 {
                pa.values().append_value(a);
                pp.values().append_value(p);
            }
        }
        pa.append(true);
        pp.append(true);
        outcome.append_value(x.outcome);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(ply.finish()),
        Arc::new(seat.finish()),
        Arc::new(obs.finish()),
        Arc::new(mask.finish()),
        Arc::new(action.finish()),
        Arc::new(pa.finish()),
        Arc::new(pp.finish()),
        Arc::new(outcome.finish()),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![KeyValue::new("junqi.obs_encoding".into(), "planes-v1".to_string())]))
        .build();
    let mut w = ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// The first record batch of a Parquet file.
fn first_batch(path: &Path) -> RecordBatch {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    reader.map(|b| b.unwrap()).next().unwrap()
}

/// Write `batch` to `path` with `junqi.samples_schema` = `version`.
fn write_with_version(path: &Path, batch: &RecordBatch, version: &str) {
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![KeyValue::new("junqi.samples_schema".into(), version.to_string())]))
        .build();
    let mut w = ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

#[test]
fn this_build_writes_version_3_and_reads_versions_1_and_2_as_the_same_samples() {
    for mode in Mode::ALL {
        let dir = temp_dir(&format!("v1-{}", mode.name()));
        let (shard, samples) = samples_of_a_run(mode, &dir);
        assert!(samples.len() > 20);
        assert!(samples.iter().any(|s| s.sample.value.is_some()), "mcts records its value");
        assert_eq!(samples.iter().any(|s| !s.sample.hidden_kinds.is_empty()), mode == Mode::Anqi, "{mode:?}");
        let meta = parquet::file::reader::SerializedFileReader::new(std::fs::File::open(&shard).unwrap()).unwrap();
        use parquet::file::reader::FileReader;
        let kv = meta.metadata().file_metadata().key_value_metadata().unwrap().clone();
        assert!(kv.iter().any(|k| k.key == "junqi.samples_schema" && k.value.as_deref() == Some("3")));
        let without_hidden = |s: &StoredSample| {
            let mut s = s.clone();
            s.sample.hidden_kinds.clear();
            s
        };

        // Version 2: the same columns but the last (`hidden_kinds`).
        let v3 = first_batch(&shard);
        assert_eq!(v3.num_rows(), samples.len());
        let v2 = v3.project(&(0..v3.num_columns() - 1).collect::<Vec<_>>()).unwrap();
        let two = dir.join("v2.parquet");
        write_with_version(&two, &v2, "2");
        let back = read_samples_file(&two).unwrap();
        assert_eq!(back, samples.iter().map(without_hidden).collect::<Vec<_>>());

        let old = dir.join("v1.parquet");
        write_v1(&old, &samples);
        let back = read_samples_file(&old).unwrap();
        assert_eq!(back.len(), samples.len());
        for (a, b) in back.iter().zip(&samples) {
            let mut want = without_hidden(b);
            want.sample.value = None; // version 1 had no value column
            want.sample.position = want.sample.position.without_history();
            assert_eq!(a, &want);
        }
    }
}

#[test]
fn unknown_versions_foreign_schemas_and_truncated_shards_are_refused_clearly() {
    let dir = temp_dir("refused");
    let (shard, samples) = samples_of_a_run(Mode::Fanqi, &dir);

    // A version this build does not know.
    let future = dir.join("future.parquet");
    write_with_version(&future, &first_batch(&shard), "4");
    let err = read_samples_file(&future).unwrap_err().to_string();
    assert!(err.contains("samples schema version 4") && err.contains("future.parquet"), "{err}");

    // A games shard is not a samples shard.
    let games = dir.join(GAMES_DIR).join(shard_name(0));
    let err = read_samples_file(&games).unwrap_err().to_string();
    assert!(err.contains("not a samples shard of schema version 3: its columns are game_id, rules"), "{err}");

    // A shard cut short.
    let bytes = std::fs::read(&shard).unwrap();
    for keep in [bytes.len() / 2, bytes.len() - 3] {
        let cut = dir.join(format!("cut-{keep}.parquet"));
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let err = read_samples_file(&cut).unwrap_err().to_string();
        assert!(err.contains("cut-") && err.contains("unreadable"), "{err}");
    }
    assert!(!samples.is_empty());
}
