//! `junqi perft --siguo`, `junqi random-game --siguo` and `junqi bench --siguo`: the four-player
//! game (docs/rules.md §10) from the command line.

use std::process::{Command, Output};

// `junqi arena --siguo` and `junqi sprt --siguo`.
#[path = "siguo/arena.rs"]
mod arena;
// `junqi selfplay --siguo`: samples, resuming, parts and `junqi merge`.
#[path = "siguo/selfplay.rs"]
mod selfplay;
// `junqi selfplay --siguo` with four-player nets (`net:FILE`, `mcts:…,eval=net:FILE`).
#[path = "siguo/net_selfplay.rs"]
mod net_selfplay;
// `junqi reanalyse`: a run's positions relabelled by another bot.
#[path = "siguo/reanalyse.rs"]
mod reanalyse;
// Learned deployments: a net's model in `selfplay --siguo`, `play --siguo`, `train --fit-deployments`.
#[path = "siguo/learned_deploy.rs"]
mod learned_deploy;
// scripts/siguo-recipe.sh from nothing with tiny settings, then resumed.
#[path = "siguo/recipe.rs"]
mod recipe;

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).output().expect("run junqi")
}

/// `junqi ARGS` with `stdin` written to its standard input.
fn junqi_with_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run junqi");
    let (input, mut pipe) = (stdin.to_string(), child.stdin.take().expect("a pipe"));
    std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    child.wait_with_output().expect("junqi ends")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Exit code 2 and one `error: …` line.
fn assert_clean_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(err.starts_with("error:") && err.contains(needle), "stderr: {err}");
}

/// The start of seed 1, as §10.4 shows it.
fn start_of_seed_1() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md")).unwrap();
    let section = doc.split("### 10.4 ").nth(1).unwrap();
    section.split("```").nth(3).unwrap().trim().to_string()
}

#[test]
fn random_game_siguo_plays_a_four_player_game_from_a_seed() {
    let text = stdout(&junqi(&["random-game", "--siguo", "--seed", "1"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("start: {}", start_of_seed_1()));
    let moves: Vec<&str> = lines[1].strip_prefix("moves: ").unwrap().split_whitespace().collect();
    assert!(moves[0].starts_with('s') && moves[0].contains('-'), "army 0 moves first: {}", moves[0]);
    assert_eq!(lines[2], format!("plies: {}", moves.len()));
    assert!(
        ["result: 1-0 (", "result: 0-1 (", "result: 1/2-1/2 ("].iter().any(|p| lines[3].starts_with(p)),
        "{}",
        lines[3]
    );
    // The same seed gives the same game; options change it.
    assert_eq!(stdout(&junqi(&["random-game", "--siguo", "--seed", "1"])), text);
    let clockwise = stdout(&junqi(&["random-game", "--siguo", "--seed", "1", "--set", "turn_order=clockwise"]));
    assert_ne!(clockwise, text);
    assert_clean_error(&junqi(&["random-game", "--siguo", "--set", "nope=1"]), "nope");
    assert_clean_error(&junqi(&["random-game", "--siguo", "--rules", "fanqi"]), "fanqi");
}

#[test]
fn perft_siguo_counts_the_table_of_section_10_12() {
    let start = start_of_seed_1();
    assert_eq!(stdout(&junqi(&["perft", "--siguo", "--position", &start, "--depth", "2"])).trim(), "1714");
    let divided = stdout(&junqi(&["perft", "--siguo", "--position", &start, "--depth", "2", "--divide"]));
    let lines: Vec<&str> = divided.lines().collect();
    assert_eq!(lines.len(), 42, "41 moves and the total");
    let sum: u64 = lines[..41].iter().map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 1714);
    assert_eq!(lines[41], "1714");
    assert_clean_error(&junqi(&["perft", "--siguo", "--position", "x", "--depth", "1"]), "6 fields");
    assert_clean_error(
        &junqi(&["perft", "--siguo", "--position", &start, "--depth", "1", "--rules", "quanming"]),
        "quanming",
    );
    // --rules may be a file: its mode is what the position must match.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/rules/siguo/");
    let anqi_file = format!("{dir}anqi.toml");
    let args = ["perft", "--siguo", "--position", &start, "--depth", "2", "--rules", &anqi_file];
    assert_eq!(stdout(&junqi(&args)).trim(), "1714");
    let quanming_file = format!("{dir}quanming.toml");
    let args = ["perft", "--siguo", "--position", &start, "--depth", "1", "--rules", &quanming_file];
    assert_clean_error(&junqi(&args), "quanming");
}

/// §10.11: a four-player rules file with --siguo is its preset plus its
/// option, as `--set` gives it; a two-player file is refused in one line.
#[test]
fn random_game_siguo_reads_a_rules_file() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/rules/siguo/anqi-turn_order-clockwise.toml");
    let from_file = stdout(&junqi(&["random-game", "--siguo", "--seed", "3", "--rules", file]));
    let from_set = stdout(&junqi(&["random-game", "--siguo", "--seed", "3", "--set", "turn_order=clockwise"]));
    let plain = stdout(&junqi(&["random-game", "--siguo", "--seed", "3"]));
    assert_eq!(from_file, from_set);
    assert_ne!(from_file, plain);
    let two_player = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/rules/anqi.toml");
    assert_clean_error(&junqi(&["random-game", "--siguo", "--rules", two_player]), "game = \"siguo\"");
}

/// `junqi bench --siguo`: one row for one thread and one for all, with
/// plies counted (every random four-player game has plies); the mode comes
/// from --rules, and the two-player flags are refused.
#[test]
fn bench_siguo_measures_four_player_playouts() {
    let out = stdout(&junqi(&["bench", "--siguo", "--seconds", "0.2", "--threads", "2", "--rules", "shuangming"]));
    let rows: Vec<Vec<&str>> =
        out.lines().filter(|l| l.starts_with("siguo-")).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2, "{out}");
    for (row, threads) in rows.iter().zip(["1", "2"]) {
        assert_eq!(row[0], "siguo-shuangming", "{out}");
        assert_eq!(row[1], threads, "{out}");
        let plies_per_s: f64 = row[3].parse().unwrap();
        let plies_per_game: f64 = row[4].parse().unwrap();
        assert!(plies_per_s > 0.0 && plies_per_game >= 1.0, "{out}");
    }
    assert!(out.contains("plies/s"), "{out}");
    let err = junqi(&["bench", "--siguo", "--modes", "anqi"]);
    assert_eq!(err.status.code(), Some(2));
    assert_clean_error(&junqi(&["bench", "--siguo", "--seconds", "0.1", "--rules", "fanqi"]), "fanqi");
}

/// `junqi selfplay --siguo` writes a four-player run that `junqi replay`
/// re-plays (all match), that the two-player commands refuse by its
/// format's name, and refuses bad flags in one line.
#[test]
fn selfplay_siguo_writes_games_that_replay_checks() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-selfplay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let text = stdout(&junqi(&["selfplay", "--siguo", "--bots", "heuristic,random", "--games", "4", "--out", d]));
    assert!(text.contains("played 4 four-player games"), "{text}");
    assert!(text.contains("team heuristic"), "{text}");
    let replayed = stdout(&junqi(&["replay", "--games", d]));
    assert!(replayed.contains("replayed 4 game(s): all match"), "{replayed}");
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["format"], "junqi-siguo-selfplay/2");
    let records = stdout(&junqi(&["export", "--format", "jgn", "--games", d]));
    assert_eq!(records.matches("[Game \"siguo\"]").count(), 4, "{records}");
    assert_clean_error(&junqi(&["selfplay", "--games", "4", "--out", d]), "four-player run (`junqi-siguo-selfplay/2`)");
    assert_clean_error(&junqi(&["selfplay", "--siguo", "--games", "4", "--out", d]), "different config");
    let other = dir.join("other");
    let o = other.to_str().unwrap();
    assert_clean_error(&junqi(&["selfplay", "--siguo", "--games", "3", "--out", o]), "even");
    assert_clean_error(&junqi(&["selfplay", "--siguo", "--bots", "nope", "--games", "2", "--out", o]), "nope");
    assert_clean_error(&junqi(&["selfplay", "--siguo", "--bots", "mcts:0", "--games", "2", "--out", o]), "mcts");
    let _ = std::fs::remove_dir_all(&dir);
}
