//! Same seeds, same games: `junqi selfplay` and `junqi arena` runs with
//! fixed seeds must produce exactly the datasets and results recorded in
//! `tests/golden/digests.txt`, which were made before the refactors of the
//! code's house-keeping (issue 14) and must survive them unchanged.
//!
//! A digest covers what a run decides: every game row (rules, seed, start
//! position, moves, result, termination, bots), every sample row
//! (observation, legal mask, targets), the shard layout, and the config in
//! `run.json`. It leaves out what may differ between two runs of the same
//! code or between builds: wall-clock timings (`moves_per_s`, the shards'
//! thinking-time metadata) and the code version stamped on each row.
//!
//! When a change is *meant* to alter games (a rules fix, a new bot
//! behaviour), regenerate with `JUNQI_BLESS=1 cargo test -p junqi --test cli
//! golden` and say why in the commit.

use junqi_selfplay::{read_games_file, read_samples_file, shard_files};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const DIGESTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/digests.txt");

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("golden", name, false)
}

fn junqi(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi");
    assert!(out.status.success(), "junqi {args:?} failed:\n{}", crate::common::stderr(&out));
}

/// The run's `run.json` config with the code version left out.
fn config_text(run: &Path) -> String {
    let text = std::fs::read_to_string(run.join("run.json")).expect("run.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("run.json is JSON");
    json["config"].to_string()
}

/// One self-play dataset (a `selfplay --out` directory or an arena matchup)
/// as canonical text: layout, config, game rows and sample rows.
fn dataset_text(run: &Path) -> String {
    let mut text = format!("config {}\n", config_text(run));
    for file in shard_files(&run.join("games")).expect("games shards") {
        let games = read_games_file(&file).expect("games shard");
        text += &format!("games {} rows {}\n", file.file_name().unwrap().to_string_lossy(), games.len());
        for mut g in games {
            g.code_version.clear();
            text += &format!("{g:?}\n");
        }
    }
    for file in shard_files(&run.join("samples")).expect("sample shards") {
        let samples = read_samples_file(&file).expect("samples shard");
        text += &format!("samples {} rows {}\n", file.file_name().unwrap().to_string_lossy(), samples.len());
        for s in samples {
            text += &format!("{s:?}\n");
        }
    }
    text
}

/// An arena directory: its results without the speed column and the code
/// version, then every matchup's dataset in name order.
fn arena_text(dir: &Path) -> String {
    let results = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    let mut json: serde_json::Value = serde_json::from_str(&results).expect("results.json is JSON");
    strip_key(&mut json, "moves_per_s");
    strip_key(&mut json, "code_version");
    // The endings count the games' `termination` column, which the datasets below hold.
    strip_key(&mut json, "endings");
    let mut text = format!("results {json}\n");
    let mut matchups: Vec<PathBuf> =
        std::fs::read_dir(dir.join("matchups")).expect("matchups").map(|e| e.unwrap().path()).collect();
    matchups.sort();
    for m in matchups {
        text += &format!("matchup {}\n", m.file_name().unwrap().to_string_lossy());
        text += &dataset_text(&m);
    }
    text
}

fn strip_key(value: &mut serde_json::Value, key: &str) {
    match value {
        serde_json::Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| strip_key(v, key));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| strip_key(v, key)),
        _ => {}
    }
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The fixed runs: each mode's self-play with samples (on two threads, so
/// the order of finished games cannot leak into the files) and an arena.
fn runs(dir: &Path) -> BTreeMap<&'static str, String> {
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let selfplay = |name: &'static str, args: &[&str]| {
        let out = path(name);
        let mut all = vec!["selfplay", "--out", out.as_str(), "--threads", "2", "--shard-games", "7"];
        all.extend_from_slice(args);
        junqi(&all);
        (name, sha256(&dataset_text(Path::new(&out))))
    };
    let mut digests = BTreeMap::from([
        selfplay(
            "selfplay-fanqi",
            &["--games", "20", "--bots", "random,greedy", "--seed", "11", "--samples-per-game", "4"],
        ),
        selfplay(
            "selfplay-anqi",
            &[
                "--rules",
                "anqi",
                "--games",
                "16",
                "--bots",
                "greedy,heuristic",
                "--swap",
                "--seed",
                "12",
                "--samples-per-game",
                "3",
            ],
        ),
        selfplay(
            "selfplay-mingqi",
            &[
                "--rules",
                "mingqi",
                "--games",
                "12",
                "--bots",
                "heuristic,random",
                "--seed",
                "13",
                "--samples-per-game",
                "2",
            ],
        ),
        selfplay(
            "selfplay-variant",
            &[
                "--set",
                "bomb_flies=true",
                "--set",
                "rail_turns=all",
                "--set",
                "max_plies=300",
                "--games",
                "12",
                "--bots",
                "heuristic,greedy",
                "--seed",
                "14",
                "--samples-per-game",
                "2",
            ],
        ),
    ]);
    let arena = path("arena");
    junqi(&["arena", "--bots", "random,greedy,heuristic", "--games-per-pair", "6", "--seed", "4", "--out", &arena]);
    digests.insert("arena-fanqi", sha256(&arena_text(Path::new(&arena))));
    digests
}

#[test]
fn fixed_seeds_give_the_recorded_datasets_and_results() {
    let dir = temp_dir("runs");
    let digests = runs(&dir);
    let text: String = digests.iter().map(|(name, d)| format!("{name} {d}\n")).collect();
    if std::env::var_os("JUNQI_BLESS").is_some() {
        std::fs::create_dir_all(Path::new(DIGESTS).parent().unwrap()).unwrap();
        std::fs::write(DIGESTS, &text).unwrap();
    }
    let recorded = std::fs::read_to_string(DIGESTS).expect("tests/golden/digests.txt");
    let recorded: BTreeMap<&str, &str> = recorded.lines().filter_map(|l| l.split_once(' ')).collect();
    for (name, digest) in &digests {
        assert_eq!(recorded.get(name), Some(&digest.as_str()), "{name}: the run's games differ from the recorded ones");
    }
    assert_eq!(recorded.len(), digests.len(), "tests/golden/digests.txt lists runs this test no longer makes");
    let _ = std::fs::remove_dir_all(&dir);
}
