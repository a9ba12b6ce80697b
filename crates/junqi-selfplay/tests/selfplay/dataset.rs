//! The datasets on disk: shards read back with the `parquet` crate match what
//! the games were; a killed or interrupted run resumes to exactly the
//! requested games, each once; the thread count changes nothing; a directory
//! of another config is refused; replay finds a tampered record.

use crate::common::read_all;
use arrow_array::{ArrayRef, RecordBatch, StringArray};

use junqi_core::{Mode, Rules};
use junqi_selfplay::*;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-selfplay-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn config(mode: Mode, games: u64, shard: u64, samples: SamplesPerGame) -> Config {
    Config::new(Rules::preset(mode), games, ["random", "greedy"], 42)
        .unwrap()
        .with_samples(samples)
        .with_swap(true)
        .with_shard_games(shard)
}

fn run(config: &Config, dir: &Path, threads: usize) -> Summary {
    let plan = prepare(config.clone(), Some(dir)).unwrap();
    plan.run(&RunOptions { threads, ..Default::default() }).unwrap()
}

/// The game as the library plays it, compared field by field with what was read back.
fn check_against_replay_of_the_seed(config: &Config, g: &StoredGame, samples: &[Sample]) {
    let mut players = [junqi_bots::build(&config.bots[0]).unwrap(), junqi_bots::build(&config.bots[1]).unwrap()];
    let [p0, p1] = &mut players;
    let seats = if config.seat1_player(g.game_id) == 0 { [p0, p1] } else { [p1, p0] };
    let mut buf = GameBuffers::default();
    let seed = config.seed_of(g.game_id);
    let rec = play_game(&config.rules, seats, g.game_id, seed, config.samples_per_game, &mut buf).unwrap();
    assert_eq!(g.seed, seed);
    assert_eq!(g.start_jfen, rec.start_jfen);
    assert_eq!(g.moves, rec.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>());
    assert_eq!(g.result, rec.outcome.result_str());
    assert_eq!(g.termination, rec.outcome.termination.name());
    assert_eq!(g.plies as usize, rec.moves.len());
    assert_eq!(g.bots, rec.bots);
    assert_eq!(g.code_version, code_version());
    let rules: serde_json::Value = serde_json::from_str(&g.rules).unwrap();
    assert_eq!(rules["mode"], config.rules.mode.name());
    for option in junqi_core::rules::OPTION_NAMES {
        assert!(rules.get(option).is_some(), "rules JSON lacks {option}");
    }
    assert_eq!(samples, buf.samples(), "samples of game {}", g.game_id);
    assert_eq!(replay_game(g), Ok(()));
}

#[test]
fn shards_read_back_with_the_parquet_crate_match_the_games_played() {
    for (mode, samples) in [(Mode::Fanqi, SamplesPerGame::Count(3)), (Mode::Anqi, SamplesPerGame::All)] {
        let dir = temp_dir(&format!("readback-{}", mode.name()));
        let c = config(mode, 40, 16, samples);
        let summary = run(&c, &dir, 2);
        assert_eq!((summary.games_played, summary.games_complete, summary.shards_written), (40, 40, 3));
        assert!(!summary.interrupted);
        let (games, samples_by_game) = read_all(&dir);
        assert_eq!(games.keys().copied().collect::<Vec<_>>(), (0..40).collect::<Vec<_>>());
        let mut sample_count = 0;
        for g in games.values() {
            let s = samples_by_game.get(&g.game_id).cloned().unwrap_or_default();
            sample_count += s.len() as u64;
            check_against_replay_of_the_seed(&c, g, &s);
        }
        assert_eq!(sample_count, summary.samples);
        // Seats swap every other game.
        assert_eq!(games[&0].bots, ["random".to_string(), "greedy".to_string()]);
        assert_eq!(games[&1].bots, ["greedy".to_string(), "random".to_string()]);
        // Key-value metadata: config and seed.
        let file = std::fs::File::open(dir.join(GAMES_DIR).join(shard_name(1))).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        let kv = reader.metadata().file_metadata().key_value_metadata().unwrap().clone();
        let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone()).unwrap();
        assert_eq!(get("junqi.seed"), "42");
        assert_eq!(get("junqi.shard"), "1");
        assert_eq!(get("junqi.first_game"), "16");
        let stored: Config = serde_json::from_str(&get("junqi.config")).unwrap();
        assert_eq!(stored, c);
        let stats = dataset_stats(&dir).unwrap();
        assert_eq!((stats.shards, stats.games, stats.samples), (3, 40, sample_count));
        let run_json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(RUN_FILE)).unwrap()).unwrap();
        assert_eq!(run_json["seed"], 42);
        assert_eq!(run_json["code_version"], code_version());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let c = config(Mode::Fanqi, 30, 8, SamplesPerGame::Count(2));
    let (a, b) = (temp_dir("threads-1"), temp_dir("threads-2"));
    run(&c, &a, 1);
    run(&c, &b, 2);
    assert_eq!(read_all(&a), read_all(&b));
    for d in [a, b] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// Every shard file's rows, in file order.
fn read_rows(dir: &Path) -> Vec<(Vec<StoredGame>, Vec<StoredSample>)> {
    let games = shard_files(&dir.join(GAMES_DIR)).unwrap();
    let samples = shard_files(&dir.join(SAMPLES_DIR)).unwrap();
    assert_eq!(games.len(), samples.len());
    games.iter().zip(&samples).map(|(g, s)| (read_games_file(g).unwrap(), read_samples_file(s).unwrap())).collect()
}

/// Games in flight per worker change nothing: not the games, not the
/// samples, not the order of the rows in a shard (game order).
#[test]
fn results_do_not_depend_on_the_games_in_flight() {
    for (mode, samples) in [(Mode::Fanqi, SamplesPerGame::Count(3)), (Mode::Anqi, SamplesPerGame::All)] {
        let c = config(mode, 40, 16, samples);
        let mut runs = Vec::new();
        for (threads, in_flight) in [(1, 1), (1, 16), (2, 3), (2, 0)] {
            let dir = temp_dir(&format!("in-flight-{}-{threads}-{in_flight}", mode.name()));
            let plan = prepare(c.clone(), Some(&dir)).unwrap();
            let summary = plan.run(&RunOptions { threads, in_flight, ..Default::default() }).unwrap();
            assert_eq!((summary.games_played, summary.shards_written), (40, 3));
            let rows = read_rows(&dir);
            for (games, samples) in &rows {
                assert!(games.windows(2).all(|w| w[0].game_id + 1 == w[1].game_id), "games in game order");
                assert!(samples.windows(2).all(|w| (w[0].game_id, w[0].sample.ply) < (w[1].game_id, w[1].sample.ply)));
            }
            runs.push((summary.tally.games, summary.tally.wins, summary.tally.draws, summary.samples, rows));
            std::fs::remove_dir_all(&dir).unwrap();
        }
        for r in &runs[1..] {
            assert!(r == &runs[0], "{mode:?}: a run differs from the one with one game in flight");
        }
    }
}

#[test]
fn a_killed_run_resumes_to_exactly_the_requested_games() {
    let c = config(Mode::Fanqi, 50, 10, SamplesPerGame::Count(2));
    let (reference, dir) = (temp_dir("resume-ref"), temp_dir("resume"));
    run(&c, &reference, 2);
    run(&c, &dir, 2);
    // Simulate a kill at various moments: a shard never renamed (deleted, plus
    // its temporary file left behind), a games file cut short, a samples file lost.
    let games = dir.join(GAMES_DIR);
    std::fs::remove_file(games.join(shard_name(1))).unwrap();
    std::fs::write(games.join(format!(".{}.tmp", shard_name(1))), b"PAR1 half a file").unwrap();
    let truncated = games.join(shard_name(2));
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(dir.join(SAMPLES_DIR).join(shard_name(3))).unwrap();

    let plan = prepare(c.clone(), Some(&dir)).unwrap();
    assert_eq!(plan.pending, vec![1, 2, 3]);
    assert_eq!(plan.complete_games, 20);
    assert_eq!(plan.notes.len(), 2, "{:?}", plan.notes);
    assert!(plan.notes[0].starts_with("shard 2 damaged, re-playing games 20 to 29: "), "{:?}", plan.notes);
    assert!(plan.notes[0].contains("games/shard-000002.parquet: damaged: "), "{:?}", plan.notes);
    assert!(plan.notes[1].starts_with("shard 3 damaged, re-playing games 30 to 39: "), "{:?}", plan.notes);
    // The damaged shard went, with its records; the lost one's stale record stays until it is rewritten.
    assert!(!truncated.exists() && !checksum_path(&truncated).exists());
    assert!(checksum_path(&games.join(shard_name(1))).exists());
    let summary = plan.run(&RunOptions::default()).unwrap();
    assert_eq!((summary.games_played, summary.games_complete), (30, 50));
    assert!(!std::fs::read_dir(&games).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    let (g, s) = read_all(&dir);
    assert_eq!(g.keys().copied().collect::<Vec<_>>(), (0..50).collect::<Vec<_>>());
    assert_eq!((g, s), read_all(&reference));
    // Running it again finds nothing to do (once the first plan, and its
    // lock on the directory, is gone).
    drop(plan);
    let plan = prepare(c, Some(&dir)).unwrap();
    assert!(plan.pending.is_empty());
    for d in [reference, dir] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_stopped_run_leaves_only_complete_shards_and_resumes() {
    // Enough games that the stop (after 50) always comes long before the end.
    let c = config(Mode::Fanqi, 3000, 20, SamplesPerGame::Count(1));
    let dir = temp_dir("stop");
    let plan = prepare(c.clone(), Some(&dir)).unwrap();
    let options = RunOptions { threads: 2, ..Default::default() };
    let (stop, progress) = (options.stop.clone(), options.progress.clone());
    let watcher = std::thread::spawn(move || {
        while progress.games.load(Ordering::Relaxed) < 50 {
            std::thread::yield_now();
        }
        stop.store(true, Ordering::Relaxed);
    });
    let summary = plan.run(&options).unwrap();
    watcher.join().unwrap();
    assert!(summary.interrupted);
    assert!(summary.games_complete < 3000);
    assert_eq!(summary.games_complete % 20, 0);
    let stats = dataset_stats(&dir).unwrap();
    assert_eq!(stats.games, summary.games_complete);
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            // Each shard file and its checksum record (`.shard-000003.parquet.crc32c`).
            let shard = name.strip_prefix('.').and_then(|n| n.strip_suffix(".crc32c")).unwrap_or(&name);
            assert!(shard.starts_with("shard-") && shard.ends_with(".parquet"), "{name} left behind");
            assert!(dir.join(sub).join(shard).exists(), "{name} without its shard");
        }
    }
    drop(plan);
    let summary = run(&c, &dir, 2);
    assert_eq!(summary.games_complete, 3000);
    let (g, _) = read_all(&dir);
    assert_eq!(g.keys().copied().collect::<Vec<_>>(), (0..3000).collect::<Vec<_>>());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_directory_of_another_config_is_refused() {
    let dir = temp_dir("mismatch");
    let c = config(Mode::Fanqi, 10, 5, SamplesPerGame::Count(0));
    run(&c, &dir, 1);
    let mut other = c.clone();
    other.games = 12;
    other.rules.apply_override("mine_rule=trade").unwrap();
    let err = prepare(other, Some(&dir)).unwrap_err().to_string();
    assert!(err.contains("holds a run with a different config"), "{err}");
    assert!(err.contains("games: 10 in the directory, 12 now"), "{err}");
    assert!(err.contains("rules.mine_rule: \"spring\" in the directory, \"trade\" now"), "{err}");
    // Shards without a run.json are not ours to resume.
    std::fs::remove_file(dir.join(RUN_FILE)).unwrap();
    let err = prepare(c.clone(), Some(&dir)).unwrap_err().to_string();
    assert!(err.contains("no run.json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    // Only what a run would read counts as its shards: another Parquet file
    // (or a killed writer's temporary file) does not block a fresh run.
    std::fs::create_dir_all(dir.join(GAMES_DIR)).unwrap();
    std::fs::write(dir.join(GAMES_DIR).join("notes.parquet"), b"not ours").unwrap();
    std::fs::write(dir.join(GAMES_DIR).join(".shard-000000.parquet.tmp"), b"half").unwrap();
    prepare(c, Some(&dir)).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// Rewrite a games shard with one game's result changed.
fn tamper_result(path: &Path, game_id: u64, result: &str) {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let kv = builder.metadata().file_metadata().key_value_metadata().cloned();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    let schema = batches[0].schema();
    let props = parquet::file::properties::WriterProperties::builder().set_key_value_metadata(kv).build();
    let mut w = ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema.clone(), Some(props)).unwrap();
    for b in batches {
        let ids = b.column_by_name("game_id").unwrap().as_any().downcast_ref::<arrow_array::UInt64Array>().unwrap();
        let old = b.column_by_name("result").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        let new: StringArray =
            (0..b.num_rows()).map(|i| Some(if ids.value(i) == game_id { result } else { old.value(i) })).collect();
        let i = schema.index_of("result").unwrap();
        let mut cols: Vec<ArrayRef> = b.columns().to_vec();
        cols[i] = Arc::new(new);
        w.write(&RecordBatch::try_new(schema.clone(), cols).unwrap()).unwrap();
    }
    w.close().unwrap();
}

/// Make `dir` look like a run from before checksum records: its run.json
/// without `checksums` (so shards without a record are read unverified).
fn as_run_from_before_records(dir: &Path) {
    let path = dir.join(RUN_FILE);
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    run.as_object_mut().unwrap().remove("checksums");
    std::fs::write(&path, serde_json::to_string_pretty(&run).unwrap()).unwrap();
}

#[test]
fn replay_finds_a_tampered_result() {
    let dir = temp_dir("tamper");
    let c = config(Mode::Mingqi, 12, 6, SamplesPerGame::Count(0));
    run(&c, &dir, 2);
    let report = replay_dir(&dir, None).unwrap();
    assert_eq!((report.games, report.mismatches.len(), report.duplicates.len()), (12, 0, 0));
    let path = dir.join(GAMES_DIR).join(shard_name(1));
    let g7 = read_games_file(&path).unwrap().into_iter().find(|g| g.game_id == 7).unwrap();
    let fake = if g7.result == "1-0" { "0-1" } else { "1-0" };
    tamper_result(&path, 7, fake);
    // The rewritten file no longer matches its checksum record: refused.
    let err = replay_dir(&dir, None).unwrap_err().to_string();
    assert!(err.contains("shard-000001.parquet: damaged: "), "{err}");
    // Without the record (as a shard of an older run), replay finds the changed result.
    std::fs::remove_file(checksum_path(&path)).unwrap();
    as_run_from_before_records(&dir);
    let report = replay_dir(&dir.join(GAMES_DIR), None).unwrap();
    assert_eq!(report.games, 12);
    assert_eq!(report.mismatches.len(), 1);
    let (id, file, why) = &report.mismatches[0];
    assert_eq!((*id, file), (7, &path));
    assert!(why.contains(&format!("stored {fake}")), "{why}");
    assert_eq!(replay_dir(&dir, Some(7)).unwrap().mismatches.len(), 1);
    assert_eq!(replay_dir(&dir, Some(3)).unwrap().mismatches.len(), 0);
    assert!(replay_dir(&dir, Some(99)).unwrap_err().to_string().contains("game 99 is not in"));
    // Other tampering: a move removed, an illegal move, a wrong ply count.
    let mut g = g7.clone();
    g.result = g7.result.clone();
    g.moves.pop();
    assert!(replay_game(&g).unwrap_err().contains("not over"));
    let mut g = g7.clone();
    g.moves[0] = "a1a1".into();
    assert!(replay_game(&g).unwrap_err().contains("illegal"));
    let mut g = g7.clone();
    g.plies += 1;
    assert!(replay_game(&g).is_err());
    // A corrupt shard is an error that names the file.
    std::fs::write(&path, b"not parquet").unwrap();
    let err = replay_dir(&dir, None).unwrap_err().to_string();
    assert!(err.contains("shard-000001.parquet"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn playing_without_writing_touches_no_disk() {
    let c = config(Mode::Fanqi, 20, 5, SamplesPerGame::All);
    let plan = prepare(c, None).unwrap();
    let s = plan.run(&RunOptions::default()).unwrap();
    assert_eq!((s.games_played, s.shards_written, s.games_complete), (20, 4, 20));
    assert!(s.samples == s.plies && s.plies > 20 * 50);
}

#[test]
fn bots_resign_and_played_through_games_count_false_resignations() {
    // A threshold of 1 resigns at the first searched decision from ply 6 on.
    let resign = Resign { threshold: 1.0, consecutive: 1, min_ply: 6, playthrough: 0.0 };
    let c = Config::new(Rules::preset(Mode::Fanqi), 8, ["mcts:sims=8", "mcts:sims=8"], 5)
        .unwrap()
        .with_shard_games(4)
        .with_resign(Some(resign));
    let dir = temp_dir("resign");
    let s = run(&c, &dir, 2);
    assert_eq!(s.tally.resign, ResignTally { resigned: 8, signalled: 0, false_resignations: 0, ..Default::default() });
    let (games, samples) = read_all(&dir);
    for g in games.values() {
        assert_eq!(g.termination, "resignation");
        assert!(g.plies >= 6, "resigned at ply {} before min_ply", g.plies);
        // The loser is the side to move after the stored moves.
        let loser_is_seat_1 = g.plies % 2 == 0;
        assert_eq!(g.result, if loser_is_seat_1 { "0-1" } else { "1-0" });
        assert_eq!(replay_game(g), Ok(()));
        // Samples carry the resigned result: the loser's positions are losses.
        for smp in &samples[&g.game_id] {
            let lost = (smp.seat == 1) == loser_is_seat_1;
            assert_eq!(smp.outcome, if lost { -1 } else { 1 });
        }
        // A resignation stored where the other side was to move disagrees
        // with the engine.
        let mut wrong = g.clone();
        wrong.result = if loser_is_seat_1 { "1-0" } else { "0-1" }.into();
        assert!(replay_game(&wrong).unwrap_err().contains("resignation"));
    }
    std::fs::remove_dir_all(&dir).unwrap();

    // So does a resignation stored for a game the rules ended.
    let dir = temp_dir("resign-finished");
    run(&config(Mode::Fanqi, 2, 2, SamplesPerGame::Count(0)), &dir, 1);
    let (finished, _) = read_all(&dir);
    let mut relabelled = finished[&0].clone();
    assert_ne!(relabelled.termination, "resignation");
    relabelled.termination = "resignation".into();
    let why = replay_game(&relabelled).unwrap_err();
    assert!(why.contains("stored") && why.contains("resignation"), "{why}");
    std::fs::remove_dir_all(&dir).unwrap();

    // Every game played through: none ends by resignation, each counts its signal.
    let through = c.clone().with_resign(Some(Resign { playthrough: 1.0, ..resign }));
    let dir = temp_dir("resign-through");
    let s = run(&through, &dir, 2);
    let (games, _) = read_all(&dir);
    assert!(games.values().all(|g| g.termination != "resignation"));
    let r = s.tally.resign;
    assert_eq!((r.resigned, r.signalled), (0, 8));
    // With a threshold of 1 the first decision signals: seat 1 at ply 6, so a
    // false resignation is a game seat 1 did not lose.
    let not_lost = games.values().filter(|g| g.result != "0-1").count() as u64;
    assert_eq!(r.false_resignations, not_lost);
    std::fs::remove_dir_all(&dir).unwrap();

    // Bad settings are refused up front.
    let bad = c.with_resign(Some(Resign { playthrough: 2.0, ..resign }));
    assert!(prepare(bad, None).unwrap_err().to_string().contains("play-through"));
}

/// Damaged shards (zeroed blocks, flipped bits, truncation anywhere in the
/// file) are errors naming the shard when it has its checksum record; without
/// one (older runs) they read back as a value or an error, never a panic: the
/// Parquet and Arrow code's panics on malformed input are caught at the reader.
#[test]
fn damaged_shards_read_as_errors_never_panics() {
    let dir = temp_dir("damaged");
    // Large enough shards for multi-kilobyte pages: a zeroed block inside
    // one made the Parquet decoder panic before the readers caught it.
    run(&config(Mode::Fanqi, 240, 240, SamplesPerGame::Count(8)), &dir, 2);
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        let shard = dir.join(sub).join(shard_name(0));
        let pristine = std::fs::read(&shard).unwrap();
        let record = std::fs::read(checksum_path(&shard)).unwrap();
        let len = pristine.len();
        let run_file = std::fs::read(dir.join(RUN_FILE)).unwrap();
        let (mut errors, mut unchanged) = (0, 0);
        for k in 0..120 {
            // The first 60 with the shard's checksum record, the next 60
            // without (as in a run from before records).
            if k == 60 {
                std::fs::remove_file(checksum_path(&shard)).unwrap();
                as_run_from_before_records(&dir);
            }
            let mut bytes = pristine.clone();
            let at = (k % 60) * len / 60;
            match k % 3 {
                0 => bytes[at..(at + 4096).min(len)].fill(0),
                1 => bytes[at] ^= 1 << (k % 8),
                _ => bytes.truncate(at.max(1)),
            }
            if bytes == pristine {
                unchanged += 1; // zeros over zeros: not damage
                continue;
            }
            std::fs::write(&shard, &bytes).unwrap();
            let read = std::panic::catch_unwind(|| {
                if sub == GAMES_DIR {
                    read_games_file(&shard).map(|g| g.len())
                } else {
                    read_samples_file(&shard).map(|s| s.len())
                }
            });
            match read.unwrap_or_else(|_| panic!("{sub}: damage {k} at byte {at} panicked")) {
                Ok(_) if k < 60 => panic!("{sub}: damage {k} at byte {at} was read despite its checksum record"),
                Ok(_) => {}
                Err(e) => {
                    errors += 1;
                    assert!(e.to_string().contains(&shard_name(0)), "{e}");
                    assert!(k >= 60 || e.to_string().contains(": damaged: "), "{e}");
                }
            }
        }
        // Every damage with a record, and every truncation without, is an error.
        assert!(errors >= 80 - unchanged, "{sub}: only {errors} of {} damaged files were errors", 120 - unchanged);
        std::fs::write(&shard, &pristine).unwrap();
        std::fs::write(checksum_path(&shard), &record).unwrap();
        std::fs::write(dir.join(RUN_FILE), &run_file).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
