//! `junqi selfplay` and `junqi replay` end to end: the datasets and run.json
//! appear, a re-run resumes (and refuses another config), Ctrl-C stops
//! cleanly and the same command finishes the run, replay passes a clean
//! dataset and flags a tampered or corrupt one.

use crate::common::{assert_clean_error, stderr, stdout};
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("selfplay", name, false)
}
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    v.sort();
    v
}

#[test]
fn selfplay_writes_both_datasets_and_replay_agrees() {
    let dir = temp_dir("basic");
    let out = dir.to_str().unwrap();
    let args = [
        "selfplay",
        "--rules",
        "anqi",
        "--set",
        "mine_rule=trade",
        "--games",
        "30",
        "--bots",
        "greedy,random",
        "--swap",
        "--threads",
        "2",
        "--seed",
        "9",
        "--out",
        out,
        "--samples-per-game",
        "5",
        "--shard-games",
        "8",
    ];
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("played 30 games, "), "{text}");
    assert!(text.contains("30 of 30 games in 4 of 4 shards"), "{text}");
    // The two players' points add up to the games played.
    let results = text.lines().find(|l| l.starts_with("results: ")).expect("a results line");
    let points: Vec<f64> = results
        .split(|c: char| c == ',' || c == ';')
        .take(2)
        .map(|part| part.split_whitespace().rev().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(points.iter().sum::<f64>(), 30.0, "{results}");
    assert!(text.contains("samples/ 150 rows"), "{text}");
    assert_eq!(files(&dir), [".lock", "games", "run.json", "samples"]);
    let shards = ["shard-000000.parquet", "shard-000001.parquet", "shard-000002.parquet", "shard-000003.parquet"];
    for sub in ["games", "samples"] {
        let visible: Vec<String> = files(&dir.join(sub)).into_iter().filter(|f| !f.starts_with('.')).collect();
        assert_eq!(visible, shards);
        // Beside each shard file, its hidden checksum record.
        for s in shards {
            assert!(dir.join(sub).join(format!(".{s}.crc32c")).exists(), "{sub}/{s} has no checksum record");
        }
    }
    let run: String = std::fs::read_to_string(dir.join("run.json")).unwrap();
    assert!(run.contains("\"mine_rule\": \"trade\"") && run.contains("\"seed\": 9"), "{run}");

    // The same command again: nothing to do. Another config: refused.
    let o = junqi(&args);
    assert!(o.status.success());
    assert!(stdout(&o).contains("nothing to do: all 30 games are already in"), "{}", stdout(&o));
    let mut other = args.to_vec();
    other[6] = "31";
    assert_clean_error(&junqi(&other), "holds a run with a different config (games: 30 in the directory, 31 now)");

    let o = junqi(&["replay", "--games", out]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(stdout(&o), "replayed 30 game(s): all match\n");
    let o = junqi(&["replay", "--games", dir.join("games").to_str().unwrap(), "--game", "17"]);
    assert_eq!(stdout(&o), "replayed 1 game(s): all match\n");
    assert_clean_error(&junqi(&["replay", "--games", out, "--game", "30"]), "game 30 is not in");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Rewrite a games shard with one game's result changed.
fn tamper_result(path: &Path, game_id: u64) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap()).unwrap();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    let schema = batches[0].schema();
    let mut w = ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema.clone(), None).unwrap();
    for b in batches {
        let ids = b.column_by_name("game_id").unwrap().as_any().downcast_ref::<UInt64Array>().unwrap();
        let old = b.column_by_name("result").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        let flip = |r: &str| if r == "1-0" { "0-1".to_string() } else { "1-0".to_string() };
        let new: StringArray = (0..b.num_rows())
            .map(|i| Some(if ids.value(i) == game_id { flip(old.value(i)) } else { old.value(i).to_string() }))
            .collect();
        let mut cols: Vec<ArrayRef> = b.columns().to_vec();
        cols[schema.index_of("result").unwrap()] = Arc::new(new);
        w.write(&RecordBatch::try_new(schema.clone(), cols).unwrap()).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn replay_reports_a_tampered_result_and_a_corrupt_shard() {
    let dir = temp_dir("tamper");
    let out = dir.to_str().unwrap();
    let o = junqi(&["selfplay", "--games", "20", "--out", out, "--samples-per-game", "0", "--shard-games", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shard = dir.join("games").join("shard-000001.parquet");
    tamper_result(&shard, 13);
    // The rewritten file no longer matches its checksum record.
    assert_clean_error(&junqi(&["replay", "--games", out]), "shard-000001.parquet: damaged: ");
    // Without the record (a shard of a run from before records), replay finds the changed result.
    std::fs::remove_file(dir.join("games").join(".shard-000001.parquet.crc32c")).unwrap();
    let run_file = dir.join("run.json");
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run_file).unwrap()).unwrap();
    run.as_object_mut().unwrap().remove("checksums");
    std::fs::write(&run_file, run.to_string()).unwrap();
    let o = junqi(&["replay", "--games", out]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.starts_with("mismatch: game 13 (shard-000001.parquet): stored "), "{text}");
    assert!(text.ends_with("replayed 20 game(s): 1 mismatch(es), 0 duplicate(s)\n"), "{text}");
    std::fs::write(&shard, b"PAR1 this is not a parquet file").unwrap();
    assert_clean_error(&junqi(&["replay", "--games", out]), "shard-000001.parquet");
    assert_clean_error(&junqi(&["replay", "--games", dir.join("nowhere").to_str().unwrap()]), "nowhere");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ctrl_c_stops_cleanly_and_the_same_command_finishes_the_run() {
    let dir = temp_dir("ctrlc");
    let out = dir.to_str().unwrap().to_string();
    let args = ["selfplay", "--games", "20000", "--out", &out, "--samples-per-game", "0", "--shard-games", "500"];
    let child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first complete shard, then press Ctrl-C.
    let first = dir.join("games").join("shard-000000.parquet");
    let start = Instant::now();
    while !first.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(first.exists(), "no shard after 60 s");
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted: ") && err.contains("run the same command again to resume"), "{err}");
    for sub in ["games", "samples"] {
        for f in files(&dir.join(sub)) {
            // A shard file, or its checksum record `.shard-000003.parquet.crc32c`.
            let shard = f.strip_prefix('.').and_then(|f| f.strip_suffix(".crc32c")).unwrap_or(&f);
            assert!(shard.starts_with("shard-") && shard.ends_with(".parquet"), "{f} left behind");
        }
    }
    let done = files(&dir.join("games")).iter().filter(|f| !f.starts_with('.')).count();
    assert!(done < 40, "{done} shards: the run was not interrupted");

    // The same command with fewer games would be another config; the same one resumes.
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("resuming: {done} of 40 shards")), "{}", stderr(&o));
    assert!(stdout(&o).contains("20000 of 20000 games in 40 of 40 shards"), "{}", stdout(&o));
    let o = junqi(&["replay", "--games", &out]);
    assert_eq!(stdout(&o), "replayed 20000 game(s): all match\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn selfplay_rejects_bad_arguments_with_one_line() {
    assert_clean_error(&junqi(&["selfplay", "--games", "5", "--no-write", "--bots", "nope"]), "unknown bot `nope`");
    assert_clean_error(&junqi(&["selfplay", "--games", "5", "--no-write", "--bots", "a,b,c"]), "one or two bot specs");
    assert_clean_error(
        &junqi(&["selfplay", "--games", "0", "--no-write"]),
        "the number of games must be between 1 and",
    );
    assert_clean_error(&junqi(&["selfplay", "--games", "5", "--no-write", "--threads", "0"]), "--threads");
    assert_clean_error(
        &junqi(&["selfplay", "--games", "5", "--no-write", "--shard-games", "0"]),
        "games per shard must be between 1 and",
    );
    assert_clean_error(&junqi(&["selfplay", "--games", "5"]), "--out");
    assert_clean_error(&junqi(&["selfplay", "--games", "5", "--no-write", "--samples-per-game", "x"]), "`all`");
    assert_clean_error(&junqi(&["selfplay", "--games", "5", "--no-write", "--set", "mine_rul=x"]), "mine_rul");
    assert_clean_error(
        &junqi(&["selfplay", "--games", "5", "--no-write", "--bots", "greedy:epsilon=3"]),
        "expected a number from 0 to 1",
    );
    let o = junqi(&["selfplay", "--games", "5", "--no-write", "--bots", "greedy:epsilon=0.2,random", "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("nothing written (--no-write)\n"), "{}", stdout(&o));
    let resign = ["selfplay", "--games", "5", "--no-write", "--bots", "mcts:sims=8"];
    let with = |extra: &[&'static str]| [&resign[..], extra].concat();
    assert_clean_error(&junqi(&with(&["--resign-threshold", "-2"])), "not in (-1, 1]");
    assert_clean_error(&junqi(&with(&["--resign-threshold", "-0.5", "--resign-playthrough", "2"])), "play-through");
    assert_clean_error(&junqi(&with(&["--resign-min-ply", "10"])), "--resign-threshold");
}

#[test]
fn bots_resign_and_replay_accepts_the_resigned_games() {
    let dir = temp_dir("resign");
    let out = dir.to_str().unwrap();
    // Any searched value is below 1: every game resigns once ply 6 is reached.
    let o = junqi(&[
        "selfplay",
        "--games",
        "6",
        "--bots",
        "mcts:sims=8",
        "--threads",
        "2",
        "--out",
        out,
        "--resign-threshold",
        "1",
        "--resign-consecutive",
        "1",
        "--resign-min-ply",
        "6",
        "--resign-playthrough",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(
            "resigned: 6 games; played through: 0 would have resigned, 0 of them not lost (false resignations n/a)"
        ),
        "{text}"
    );
    let o = junqi(&["replay", "--games", out]);
    assert_eq!(stdout(&o), "replayed 6 game(s): all match\n", "{}", stderr(&o));
    let run: String = std::fs::read_to_string(dir.join("run.json")).unwrap();
    assert!(run.contains("\"resign\"") && run.contains("\"min_ply\": 6"), "{run}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--openings`: games start from the file's entries in turn (a position as
/// given, a seed's deal), keep their samples, replay clean, and a finished
/// or unreadable opening is a one-line error.
#[test]
fn selfplay_starts_games_from_openings() {
    use junqi_core::{Mode, MoveList, Position, Rules};
    let dir = temp_dir("openings");
    std::fs::create_dir_all(&dir).unwrap();
    let rules = Rules::preset(Mode::Fanqi);
    // A middle game: 40 plies of the first legal move from a deal.
    let mut pos = Position::new_game(rules, 5);
    let mut moves = MoveList::new();
    for _ in 0..40 {
        pos.legal_moves(&mut moves);
        pos.play(moves[moves.len() / 2]).unwrap();
    }
    let middle = pos.to_jfen();
    let file = dir.join("openings.txt");
    std::fs::write(&file, format!("# an ending and a deal\n{middle}\n77\n")).unwrap();
    let out = dir.join("run");
    let o = junqi(&[
        "selfplay",
        "--games",
        "4",
        "--bots",
        "greedy,random",
        "--seed",
        "3",
        "--openings",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut games: Vec<_> = std::fs::read_dir(out.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "parquet") && !p.file_name().unwrap().to_string_lossy().starts_with('.')
        })
        .flat_map(|p| junqi_selfplay::read_games_file(&p).unwrap())
        .collect();
    games.sort_by_key(|g| g.game_id);
    assert_eq!(games.len(), 4);
    let from_seed = Position::new_game(rules, 77).to_jfen();
    for g in &games {
        let expected = if g.game_id % 2 == 0 { &middle } else { &from_seed };
        assert_eq!(&g.start_jfen, expected, "game {}", g.game_id);
    }
    assert!(!files(&out.join("samples")).is_empty());
    let o = junqi(&["replay", "--games", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    std::fs::write(&file, "not a position\n").unwrap();
    let bad = dir.join("bad");
    let args = ["selfplay", "--games", "2", "--openings", file.to_str().unwrap(), "--out", bad.to_str().unwrap()];
    assert_clean_error(&junqi(&args), "--openings");
}
