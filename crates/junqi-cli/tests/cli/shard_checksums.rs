//! Shard checksums end to end: a `junqi selfplay` shard damaged after it was
//! written (cut short, a flipped byte, a zeroed 4 KiB block) makes `junqi
//! replay` fail with one line naming it, and the same `selfplay` command
//! re-plays that shard's games, ending with the dataset of an undamaged run.

use crate::common::{assert_clean_error, stderr, stdout};
use junqi_selfplay::{read_games_file, read_samples_file, shard_files, StoredGame, StoredSample};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("checksums", name, false)
}

/// 24 暗棋 games in 4 shards of 6, 3 samples per game, on 2 threads.
fn selfplay(out: &Path) -> Output {
    junqi(&[
        "selfplay",
        "--rules",
        "anqi",
        "--games",
        "24",
        "--bots",
        "random,greedy",
        "--swap",
        "--threads",
        "2",
        "--seed",
        "5",
        "--samples-per-game",
        "3",
        "--shard-games",
        "6",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// Every row of both datasets, in shard order.
fn rows(dir: &Path) -> (Vec<StoredGame>, Vec<StoredSample>) {
    let games = shard_files(&dir.join("games")).unwrap().iter().flat_map(|f| read_games_file(f).unwrap()).collect();
    let samples =
        shard_files(&dir.join("samples")).unwrap().iter().flat_map(|f| read_samples_file(f).unwrap()).collect();
    (games, samples)
}

#[test]
fn a_damaged_shard_fails_replay_and_the_same_command_replays_its_games() {
    let reference = temp_dir("reference");
    let o = selfplay(&reference);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = rows(&reference);
    assert_eq!((want.0.len(), want.1.len()), (24, 72));

    type Damage = fn(&mut Vec<u8>);
    let cases: [(&str, &str, u64, Damage); 4] = [
        ("truncated", "games", 1, |b| b.truncate(b.len() / 2)),
        ("flipped", "games", 2, |b| {
            let mid = b.len() / 2;
            b[mid] ^= 0x01;
        }),
        ("zeroed", "games", 3, |b| {
            let at = b.len() / 4;
            let end = (at + 4096).min(b.len());
            b[at..end].fill(0);
        }),
        ("zeroed-samples", "samples", 0, |b| {
            let at = b.len() / 4;
            let end = (at + 4096).min(b.len());
            b[at..end].fill(0);
        }),
    ];
    for (name, sub, shard, damage) in cases {
        let dir = temp_dir(name);
        let out = dir.to_str().unwrap();
        assert!(selfplay(&dir).status.success(), "{name}");
        let file = format!("shard-{shard:06}.parquet");
        let path = dir.join(sub).join(&file);
        let mut bytes = std::fs::read(&path).unwrap();
        let before = bytes.clone();
        damage(&mut bytes);
        assert_ne!(bytes, before, "{name}: nothing damaged");
        std::fs::write(&path, bytes).unwrap();

        // `replay` reads the games: a damaged games shard is a clean one-line error naming it.
        let o = junqi(&["replay", "--games", out]);
        if sub == "games" {
            assert_clean_error(&o, &format!("{file}: damaged: "));
        } else {
            assert_eq!(stdout(&o), "replayed 24 game(s): all match\n", "{name}: {}", stderr(&o));
        }

        // The same command repairs the run: one note, the shard's 6 games played again.
        let o = selfplay(&dir);
        let (text, err) = (stdout(&o), stderr(&o));
        assert!(o.status.success(), "{name}: {err}");
        let (a, b) = (shard * 6, shard * 6 + 5);
        let note = format!("note: shard {shard} damaged, re-playing games {a} to {b}: {sub}/{file}: damaged: ");
        assert!(err.contains(&note), "{name}: {err}");
        assert_eq!(err.matches("damaged").count(), 2, "{name}: one note only: {err}");
        assert!(text.starts_with("played 6 games, "), "{name}: {text}");
        assert!(text.contains("24 of 24 games in 4 of 4 shards"), "{name}: {text}");
        assert!(rows(&dir) == want, "{name}: the repaired run differs from an undamaged one");
        let o = junqi(&["replay", "--games", out]);
        assert_eq!(stdout(&o), "replayed 24 game(s): all match\n", "{name}: {}", stderr(&o));
        let o = selfplay(&dir);
        assert!(stdout(&o).contains("nothing to do: all 24 games are already in"), "{name}: {}", stdout(&o));
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&reference).unwrap();
}
