//! Text game records (JGN, docs/records.md) end to end: `junqi export`
//! writes a games dataset as records and `junqi import` reads them back to
//! the same Parquet rows (and exporting the import gives the same text,
//! byte for byte); `junqi arena --pgnout` writes records that re-play
//! through the rules engine to the stored results; bad records are one
//! error line naming the line.

use crate::common::{assert_clean_error, junqi_with_stdin, stderr, stdout};
use junqi_selfplay::{parse_records, replay_game, StoredGame};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}
fn ok(args: &[&str]) -> Output {
    let o = junqi(args);
    assert!(o.status.success(), "junqi {args:?}: {}", stderr(&o));
    o
}
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("records", name, true)
}
fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
/// Every row of a dataset, shard by shard, in row order.
fn rows(dir: &Path) -> Vec<StoredGame> {
    let games = junqi_selfplay::games_dir(dir);
    junqi_selfplay::shard_files(&games)
        .unwrap()
        .iter()
        .flat_map(|p| junqi_selfplay::read_games_file(p).unwrap())
        .collect()
}
fn shards(dir: &Path) -> Vec<PathBuf> {
    junqi_selfplay::shard_files(&dir.join("games")).unwrap()
}
/// A small self-play run.
fn selfplay(out: &Path, rules: &[&str], games: &str, bots: &str, seed: &str) {
    let mut args = vec!["selfplay", "--games", games, "--bots", bots, "--swap", "--threads", "2", "--seed", seed];
    args.extend_from_slice(&["--samples-per-game", "1", "--shard-games", "4", "--out", s(out)]);
    args.extend_from_slice(rules);
    ok(&args);
}

#[test]
fn export_then_import_gives_the_same_rows_and_the_same_text_in_every_mode() {
    let dir = temp_dir("round-trip");
    let runs: [(&str, &[&str], &str); 3] = [
        ("fanqi", &["--rules", "fanqi", "--set", "color_rule=two_in_a_row"], "greedy,random"),
        ("anqi", &["--rules", "anqi", "--set", "mine_rule=trade"], "greedy:epsilon=0.2,random"),
        ("mingqi", &["--rules", "mingqi", "--set", "max_plies=60"], "random,greedy"),
    ];
    // Each mode on its own thread (much of the time is `junqi` starting up).
    std::thread::scope(|scope| {
        for (mode, rules, bots) in runs {
            let dir = &dir;
            scope.spawn(move || round_trip(dir, mode, rules, bots));
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

fn round_trip(dir: &Path, mode: &str, rules: &[&str], bots: &str) {
    let run = dir.join(mode);
    selfplay(&run, rules, "10", bots, "5");
    let stored = rows(&run);
    assert_eq!(stored.len(), 10, "{mode}");

    let file = dir.join(format!("{mode}.jgn"));
    let o = ok(&["export", "--format", "jgn", "--games", s(&run.join("games")), "--out", s(&file)]);
    assert!(stderr(&o).contains("exported 10 game(s)"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("[GameId ").count(), 10, "{mode}");
    assert!(text.contains(&format!("[Mode \"{mode}\"]")), "{mode}");
    // The start position is the whole truth: 暗棋 holds both deployments, 翻棋 the face-down pieces.
    let records = parse_records(&text).unwrap();
    assert_eq!(records.iter().map(|r| r.game.clone()).collect::<Vec<_>>(), stored, "{mode}");
    assert_eq!(records[0].game.start_jfen.contains('~'), mode == "fanqi", "{}", records[0].game.start_jfen);
    assert!(text.lines().all(|l| l.len() <= 80 || l.starts_with('[')), "{mode}: moves wrap at 80 columns");

    // Import, in shards of 3: the same rows, column for column, and the same schema.
    let imported = dir.join(format!("{mode}-imported"));
    let o = ok(&["import", s(&file), "--out", s(&imported), "--shard-games", "3"]);
    assert!(stdout(&o).starts_with("imported 10 game(s) from "), "{}", stdout(&o));
    assert_eq!(rows(&imported), stored, "{mode}");
    assert_eq!(shards(&imported).len(), 4, "{mode}");
    let schema = |p: &Path| {
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(p).unwrap()).unwrap().schema().fields().clone()
    };
    assert_eq!(schema(&shards(&imported)[0]), schema(&shards(&run)[0]), "{mode}");
    // Every shard has its checksum record, and run.json says so.
    for shard in shards(&imported) {
        assert_eq!(junqi_selfplay::verify_shard(&shard).unwrap(), junqi_selfplay::Verified::Matches);
    }
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(imported.join("run.json")).unwrap()).unwrap();
    assert_eq!((run_json["format"].as_str(), run_json["games"].as_u64()), (Some("junqi-import/1"), Some(10)));

    // Exported again (to stdout): the identical text. And the imported games re-play.
    let again = stdout(&ok(&["export", "--games", s(&imported)]));
    assert!(again == text, "{mode}: exporting the imported dataset changed the text");
    assert!(stdout(&ok(&["replay", "--games", s(&imported)])).contains("replayed 10 game(s): all match"));

    if mode == "anqi" {
        // One game; records from standard input.
        let one = stdout(&ok(&["export", "--games", s(&run), "--game", "3"]));
        assert_eq!(parse_records(&one).unwrap()[0].game, stored[3]);
        let from_stdin = dir.join(format!("{mode}-stdin"));
        let o = junqi_with_stdin(&["import", "-", "--out", s(&from_stdin)], &text);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(rows(&from_stdin), stored);
    }
}

#[test]
fn arena_pgnout_records_replay_to_the_stored_results() {
    let dir = temp_dir("arena");
    let arenas =
        [("fanqi", "random,greedy,greedy:epsilon=0.5"), ("anqi", "greedy,random"), ("mingqi", "random,greedy")];
    std::thread::scope(|scope| {
        for (mode, bots) in arenas {
            let dir = &dir;
            scope.spawn(move || arena_records(dir, mode, bots));
        }
    });
    // A --pgnout in a directory that does not exist is refused before any game.
    let missing = dir.join("nope").join("x.jgn");
    let o = junqi(&[
        "arena",
        "--bots",
        "random,greedy",
        "--games-per-pair",
        "2",
        "--out",
        s(&dir.join("a2")),
        "--pgnout",
        s(&missing),
    ]);
    assert_clean_error(&o, "--pgnout");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn arena_records(dir: &Path, mode: &str, bots: &str) {
    let out = dir.join(mode);
    let pgn = dir.join(format!("{mode}.jgn"));
    let args = ["arena", "--rules", mode, "--bots", bots, "--games-per-pair", "4", "--seed", "3", "--threads", "2"];
    let args = [&args[..], &["--out", s(&out), "--pgnout", s(&pgn)]].concat();
    ok(&args);
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records = parse_records(&text).unwrap();
    let mut matchups: Vec<PathBuf> =
        std::fs::read_dir(out.join("matchups")).unwrap().map(|e| e.unwrap().path()).collect();
    matchups.sort();
    assert_eq!(records.len(), matchups.len() * 4, "{mode}");
    // In matchup then game order, each record is its stored row, and its
    // moves, re-played from its start position through the rules engine,
    // give its recorded result, termination and plies.
    let stored: Vec<(String, StoredGame)> = matchups
        .iter()
        .flat_map(|m| {
            let event = format!("arena {}", m.file_name().unwrap().to_string_lossy());
            rows(m).into_iter().map(move |g| (event.clone(), g))
        })
        .collect();
    assert_eq!(stored.len(), records.len(), "{mode}");
    for (r, (event, g)) in records.iter().zip(&stored) {
        assert_eq!(&r.game, g, "{mode}");
        assert_eq!(r.event.as_deref(), Some(event.as_str()));
        replay_game(&r.game).unwrap_or_else(|why| panic!("{mode} game {}: {why}", r.game.game_id));
    }
    if matchups.len() == 1 {
        return;
    }

    // Run again (every game is on disk): the same file, byte for byte.
    std::fs::remove_file(&pgn).unwrap();
    ok(&args);
    assert!(std::fs::read_to_string(&pgn).unwrap() == text, "{mode}: a resumed arena wrote other records");

    // Ids repeat across matchups: import needs --renumber; then `junqi replay` agrees too.
    let imported = dir.join(format!("{mode}-imported"));
    assert_clean_error(&junqi(&["import", s(&pgn), "--out", s(&imported)]), "pass --renumber");
    assert!(!imported.join("games").exists(), "a refused import leaves nothing behind");
    ok(&["import", s(&pgn), "--out", s(&imported), "--renumber"]);
    let back = rows(&imported);
    assert_eq!(back.len(), records.len());
    assert!(back.iter().enumerate().all(|(i, g)| g.game_id == i as u64 && g.moves == records[i].game.moves));
    let o = ok(&["replay", "--games", s(&imported)]);
    assert!(stdout(&o).contains("all match"), "{}", stdout(&o));
}

#[test]
fn bad_records_and_bad_arguments_are_one_error_line() {
    let dir = temp_dir("errors");
    let run = dir.join("run");
    selfplay(&run, &["--rules", "anqi"], "3", "greedy,random", "1");
    let text = stdout(&ok(&["export", "--games", s(&run)]));
    let lines: Vec<&str> = text.lines().collect();
    let last_moves = lines.len() - 2; // the last game's last line of moves (0-based)
    let import_text = |name: &str, body: &str| {
        let file = dir.join(format!("{name}.jgn"));
        std::fs::write(&file, body).unwrap();
        let out = dir.join(format!("{name}-out"));
        let o = junqi(&["import", s(&file), "--out", s(&out)]);
        assert!(!out.join("games").exists(), "{name}: a failed import leaves nothing behind");
        o
    };
    // A file cut short inside the last game's moves.
    let cut: String = lines[..last_moves].iter().map(|l| format!("{l}\n")).collect();
    let o = import_text("truncated", &cut);
    assert_clean_error(&o, &format!("line {last_moves}: the file ends inside the moves of the game starting at line"));
    // A move that is not one, a tag without quotes, a missing tag.
    let o = import_text("bad-move", &text.replacen("1. ", "1. z9z9 ", 1));
    assert_clean_error(&o, "line 13: `z9z9` is not a move");
    let o = import_text("bad-tag", &text.replacen("[Seat1 \"greedy\"]", "[Seat1 greedy]", 1));
    assert_clean_error(&o, "line 4: the value of tag Seat1 must be in double quotes");
    let o = import_text("no-seed", &text.replacen("[Seed ", "[Sead ", 1));
    assert_clean_error(&o, "line 1: the game starting here has no [Seed");
    let o = import_text("empty", "\n\n");
    assert_clean_error(&o, "holds no game records");

    // A well-formed record of an illegal game imports; replay then finds it.
    let legal = parse_records(&text).unwrap();
    let first = &legal[0].game.moves;
    let swapped = text.replacen(&format!("1. {} {}", first[0], first[1]), &format!("1. {} {}", first[1], first[0]), 1);
    let bad = dir.join("illegal");
    let file = dir.join("illegal.jgn");
    std::fs::write(&file, swapped).unwrap();
    ok(&["import", s(&file), "--out", s(&bad)]);
    let o = junqi(&["replay", "--games", s(&bad)]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("mismatch: game 0"), "{}", stdout(&o));

    // Import only into a new directory, only from a regular file.
    assert_clean_error(&junqi(&["import", s(&file), "--out", s(&bad)]), "is not empty");
    assert_clean_error(&junqi(&["import", s(&dir), "--out", s(&dir.join("x"))]), "not a regular file");
    assert_clean_error(&junqi(&["import", s(&dir.join("none.jgn")), "--out", s(&dir.join("y"))]), "none.jgn");
    assert_clean_error(
        &junqi(&["import", s(&file), "--out", s(&dir.join("z")), "--shard-games", "0"]),
        "--shard-games",
    );
    // Export: no dataset, another format, a game not there.
    assert_clean_error(&junqi(&["export", "--games", s(&dir.join("none"))]), "none");
    assert_clean_error(&junqi(&["export", "--games", s(&dir)]), "holds no games shards");
    assert_clean_error(&junqi(&["export", "--format", "pgn", "--games", s(&run)]), "pgn");
    assert_clean_error(&junqi(&["export", "--games", s(&run), "--game", "99"]), "game 99 is not in");
    std::fs::remove_dir_all(&dir).unwrap();
}
