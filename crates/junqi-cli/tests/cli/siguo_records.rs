//! Four-player text game records (JGN, docs/records.md "Four-player
//! records") end to end: `junqi export` writes a `junqi selfplay --siguo`
//! dataset as four-player records, `junqi import` reads them back to the
//! same four-seat rows (and exporting the import gives the same text, byte
//! for byte) that `junqi replay` re-plays; `junqi arena --siguo --pgnout`
//! writes them too; two- and four-player records in one file, and bad
//! records, are one error line naming the record.

use crate::common::{assert_clean_error, stderr, stdout};
use junqi_selfplay::siguo_jgn::parse_siguo_records;
use junqi_selfplay::SiguoGame;
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
    crate::common::temp_dir("siguo-records", name, true)
}
fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
/// Every four-player row of a dataset, shard by shard, in row order.
fn rows(dir: &Path) -> Vec<SiguoGame> {
    junqi_selfplay::shard_files(&dir.join("games"))
        .unwrap()
        .iter()
        .flat_map(|p| junqi_selfplay::read_siguo_games_file(p).unwrap())
        .collect()
}
/// A small four-player self-play run (random against greedy).
fn selfplay(out: &Path, mode: &str, games: &str) {
    let args = ["selfplay", "--siguo", "--rules", mode, "--bots", "random,greedy", "--games", games, "--seed", "7"];
    ok(&[&args[..], &["--threads", "2", "--shard-games", "2", "--out", s(out)]].concat());
}
fn export(dir: &Path, file: &Path) -> String {
    let o = ok(&["export", "--format", "jgn", "--games", s(dir), "--out", s(file)]);
    assert!(stderr(&o).contains("exported"), "{}", stderr(&o));
    std::fs::read_to_string(file).unwrap()
}

#[test]
fn four_player_export_then_import_gives_the_same_rows_and_text_in_every_mode() {
    let dir = temp_dir("round-trip");
    std::thread::scope(|scope| {
        for mode in ["anqi", "shuangming", "quanming"] {
            let dir = &dir;
            scope.spawn(move || round_trip(dir, mode));
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

fn round_trip(dir: &Path, mode: &str) {
    let run = dir.join(mode);
    selfplay(&run, mode, "4");
    let stored = rows(&run);
    assert_eq!(stored.len(), 4, "{mode}");
    let file = dir.join(format!("{mode}.jgn"));
    let text = export(&run, &file);
    // Standard output gets the same text.
    assert_eq!(stdout(&ok(&["export", "--games", s(&run.join("games"))])), text, "{mode}");
    assert_eq!(text.matches("[Game \"siguo\"]\n[GameId ").count(), 4, "{mode}: {text}");
    assert!(text.contains(&format!("[Mode \"{mode}\"]\n[Rules \"turn_order=")), "{mode}");
    assert!(text.contains("[Seat0 \"random\"]\n[Seat1 \"greedy\"]\n[Seat2 \"random\"]\n[Seat3 \"greedy\"]"), "{mode}");
    assert!(text.contains("\n\n1. ") && text.contains(" 2. "), "{mode}: a number every four plies");
    assert!(text.lines().all(|l| l.len() <= 80 || l.starts_with('[')), "{mode}");
    let records = parse_siguo_records(&text).unwrap();
    assert_eq!(records.iter().map(|r| r.game.clone()).collect::<Vec<_>>(), stored, "{mode}");

    let imported = dir.join(format!("{mode}-import"));
    let o = ok(&["import", s(&file), "--out", s(&imported), "--shard-games", "3"]);
    assert!(stdout(&o).contains("imported 4 game(s)"), "{}", stdout(&o));
    assert_eq!(rows(&imported), stored, "{mode}: the same rows, column for column");
    let run_json = std::fs::read_to_string(imported.join("run.json")).unwrap();
    assert!(run_json.contains("junqi-siguo-games/1"), "{run_json}");
    assert!(stdout(&ok(&["replay", "--games", s(&imported)])).contains("replayed 4 game(s): all match"), "{mode}");
    let again = export(&imported, &dir.join(format!("{mode}-again.jgn")));
    assert_eq!(again, text, "{mode}: exporting the import gives the same text");
}

#[test]
fn a_forfeit_tag_travels_through_the_shard_footer() {
    let dir = temp_dir("forfeit");
    let run = dir.join("run");
    selfplay(&run, "anqi", "2");
    let text = export(&run, &dir.join("a.jgn"));
    assert!(!text.contains("[Forfeit"), "{text}");
    let with = text.replacen("[Start ", "[Forfeit \"army 1: \\\"x\\\" timed out\"]\n[Start ", 1);
    let file = dir.join("f.jgn");
    std::fs::write(&file, &with).unwrap();
    let imported = dir.join("imported");
    ok(&["import", s(&file), "--out", s(&imported)]);
    assert_eq!(export(&imported, &dir.join("g.jgn")), with);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_siguo_pgnout_writes_four_player_records() {
    let dir = temp_dir("arena");
    let out = dir.join("arena");
    let pgn = dir.join("arena.jgn");
    let args = ["arena", "--siguo", "--rules", "shuangming", "--bots", "greedy,random", "--games-per-pair", "4"];
    ok(&[&args[..], &["--seed", "3", "--threads", "2", "--out", s(&out), "--pgnout", s(&pgn)]].concat());
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records = parse_siguo_records(&text).unwrap();
    assert_eq!(records.iter().map(|r| r.game.clone()).collect::<Vec<_>>(), rows(&out));
    assert!(records.iter().all(|r| r.event.as_deref() == Some("arena siguo")), "{text}");
    let imported = dir.join("imported");
    ok(&["import", s(&pgn), "--out", s(&imported)]);
    assert!(stdout(&ok(&["replay", "--games", s(&imported)])).contains("replayed 4 game(s): all match"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mixed_and_bad_four_player_records_are_one_error_line() {
    let dir = temp_dir("bad");
    let run = dir.join("run");
    selfplay(&run, "anqi", "2");
    let text = export(&run, &dir.join("good.jgn"));
    let two_run = dir.join("two");
    ok(&["selfplay", "--games", "1", "--bots", "random,random", "--rules", "mingqi", "--out", s(&two_run)]);
    let two = export(&two_run, &dir.join("two.jgn"));
    let import = |name: &str, body: &str| {
        let file = dir.join(format!("{name}.jgn"));
        std::fs::write(&file, body).unwrap();
        let out = dir.join(format!("{name}-out"));
        let o = junqi(&["import", s(&file), "--out", s(&out)]);
        // A failed import leaves no games behind.
        assert!(!out.join("games").exists(), "{name}");
        o
    };
    // Mixing the two games in one file, either way round.
    assert_clean_error(&import("four-then-two", &format!("{text}{two}")), "record 3: a two-player record");
    assert_clean_error(
        &import("two-then-four", &format!("{two}{text}")),
        "record 2: a four-player record ([Game \"siguo\"])",
    );

    // Each fault in the second record: its number in the one error line.
    let split = text.find("[Game \"siguo\"]\n[GameId \"1\"]").unwrap();
    let (first, second) = text.split_at(split);
    let moves = second.split("\n\n").nth(1).unwrap();
    let first_move = moves.split_whitespace().nth(1).unwrap();
    let (from, to) = first_move.split_once('-').unwrap();
    let start = second.lines().find(|l| l.starts_with("[Start ")).unwrap();
    let seed = second.lines().find(|l| l.starts_with("[Seed ")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("malformed-move", second.replacen(first_move, &format!("{from}{to}"), 1), "not a four-player move"),
        (
            "illegal-move",
            second.replacen(first_move, &format!("{to}-{from}"), 1),
            "is illegal under the four-player rules",
        ),
        ("bad-start", second.replace(start, "[Start \"9/9 anqi s - 0 0\"]"), "tag Start"),
        ("missing-tag", second.replace(&format!("{seed}\n"), ""), "no [Seed"),
        ("bad-rules", second.replace("turn_order=", "turn_orders="), "unknown four-player rule option"),
        ("bad-number", second.replacen(" 2. ", " 3. ", 1), "move number `3.`"),
        ("no-result", format!("{}\n", second.trim_end().rsplit_once(' ').unwrap().0), "no result token"),
    ];
    for (name, bad, message) in cases {
        assert_ne!(bad, second, "{name}: the case changes the record");
        let o = import(name, &format!("{first}{bad}"));
        assert_clean_error(&o, message);
        assert!(stderr(&o).contains("record 2: "), "{name}: {}", stderr(&o));
        if name == "illegal-move" {
            // The line of the move, not of the record's first tag.
            let moves_line = first.lines().count() + second.split("\n\n").next().unwrap().lines().count() + 2;
            assert!(stderr(&o).contains(&format!("line {moves_line}: ")), "{}", stderr(&o));
        }
    }
    // Export of a dataset that is not there is an error, not a panic.
    assert_clean_error(&junqi(&["export", "--games", s(&dir.join("nope"))]), "nope");
    std::fs::remove_dir_all(&dir).unwrap();
}
