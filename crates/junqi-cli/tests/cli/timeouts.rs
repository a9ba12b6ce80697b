//! The match's time rule (`arena`/`sprt --move-limit MS --timeouts-lose N`):
//! a bot whose every move overruns the limit loses on its Nth timeout, the
//! games record the termination `timeouts` and replay as stored, the
//! report lists it, and every move's time is kept in the games' footer.

use crate::common::{assert_clean_error, stderr};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("timeouts", name, false)
}

#[test]
fn a_bot_over_the_move_limit_loses_on_its_nth_timeout() {
    let dir = temp_dir("arena");
    let out = dir.to_str().unwrap();
    // 300 ms a move against a 40 ms limit: every move of the search is a timeout.
    let args = ["arena", "--bots", "mcts:movetime=300,random", "--games-per-pair", "4", "--move-limit", "40"];
    let o = junqi(&[&args[..], &["--timeouts-lose", "2", "--threads", "2", "--out", out]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let mut games = Vec::new();
    let mut times = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir.join("matchups")).unwrap() {
        let matchup = entry.unwrap().path();
        for shard in junqi_selfplay::shard_files(&matchup.join("games")).unwrap() {
            games.extend(junqi_selfplay::read_games_file(&shard).unwrap());
            times.extend(junqi_selfplay::read_move_ms(&shard).unwrap());
        }
        let replay = Command::new(env!("CARGO_BIN_EXE_junqi")).arg("replay").arg("--games").arg(&matchup).output();
        let replay = replay.unwrap();
        assert!(replay.status.success(), "replay: {}", stderr(&replay));
    }
    assert_eq!(games.len(), 4);
    for g in &games {
        assert_eq!(g.termination, "timeouts", "game {}", g.game_id);
        let search_first = g.bots[0].starts_with("mcts");
        // The search's second move loses; the record ends before it.
        let (plies, result) = if search_first { (2, "0-1") } else { (3, "1-0") };
        assert_eq!((g.plies, g.result.as_str()), (plies, result), "game {}: {:?}", g.game_id, g.bots);
        // Every decision's time, the losing one included; the search's over the limit.
        let ms = &times[&g.game_id];
        assert_eq!(ms.len(), plies as usize + 1, "game {}: {ms:?}", g.game_id);
        let first = usize::from(!search_first);
        assert!(ms.iter().skip(first).step_by(2).all(|&t| t > 40), "game {}: {ms:?}", g.game_id);
    }
    let results = std::fs::read_to_string(dir.join("results.md")).unwrap();
    assert!(results.contains("mcts:movetime=300 vs random: timeouts 4"), "{results}");
    let json = std::fs::read_to_string(dir.join("results.json")).unwrap();
    assert!(json.contains("\"timeouts\": 4"), "{json}");
    let config = std::fs::read_to_string(dir.join("arena.json")).unwrap();
    assert!(config.contains("\"move_ms\": 40") && config.contains("\"lose_after\": 2"), "{config}");
}

#[test]
fn bad_time_rules_are_refused() {
    let dir = temp_dir("bad");
    let out = dir.to_str().unwrap();
    let arena = ["arena", "--bots", "random,greedy", "--games-per-pair", "2", "--out", out];
    assert_clean_error(&junqi(&[&arena[..], &["--move-limit", "0"]].concat()), "the move limit must be at least 1 ms");
    let zero = [&arena[..], &["--move-limit", "10", "--timeouts-lose", "0"]].concat();
    assert_clean_error(&junqi(&zero), "the timeouts that lose must be at least 1");
    let o = junqi(&[&arena[..], &["--timeouts-lose", "2"]].concat());
    assert_eq!(o.status.code(), Some(2), "--timeouts-lose needs --move-limit: {}", stderr(&o));
    let sprt = ["sprt", "--candidate", "random", "--baseline", "greedy", "--out", out, "--move-limit", "0"];
    assert_clean_error(&junqi(&sprt), "the move limit must be at least 1 ms");
    assert!(!dir.exists(), "nothing written");
}
