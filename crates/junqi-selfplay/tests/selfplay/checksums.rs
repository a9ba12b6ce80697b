//! Shard checksum records: a shard damaged after it was written (cut short,
//! a flipped bit, a zeroed block) is refused by the readers, and resuming
//! the run re-plays exactly its games, so the run ends equal to one never
//! damaged; runs from before the records resume by their footers.

use crate::common::read_all;
use junqi_core::{Mode, Rules};
use junqi_selfplay::*;
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-selfplay-checksums-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// 4 shards of 8 games, 4 samples per game.
fn config() -> Config {
    Config::new(Rules::preset(Mode::Fanqi), 32, ["random", "greedy"], 11)
        .unwrap()
        .with_samples(SamplesPerGame::Count(4))
        .with_swap(true)
        .with_shard_games(8)
}

fn run(dir: &Path) -> Summary {
    let plan = prepare(config(), Some(dir)).unwrap();
    plan.run(&RunOptions { threads: 2, ..Default::default() }).unwrap()
}

/// A copy of a run directory (its hidden record files included, its lock not).
fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join(RUN_FILE), to.join(RUN_FILE)).unwrap();
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for e in std::fs::read_dir(from.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(sub).join(e.file_name())).unwrap();
        }
    }
}

/// Every shard file of the run has its record, and matches it.
fn assert_all_verified(dir: &Path) {
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        let files = shard_files(&dir.join(sub)).unwrap();
        assert_eq!(files.len(), 4);
        for f in files {
            assert_eq!(verify_shard(&f).unwrap(), Verified::Matches, "{}", f.display());
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    Truncate,
    FlipMiddleByte,
    ZeroBlock,
}

fn damage(path: &Path, how: Damage) {
    let mut bytes = std::fs::read(path).unwrap();
    let len = bytes.len();
    match how {
        Damage::Truncate => bytes.truncate(len * 2 / 3),
        Damage::FlipMiddleByte => bytes[len / 2] ^= 0x40,
        Damage::ZeroBlock => {
            let at = len / 3;
            bytes[at..(at + 4096).min(len)].fill(0)
        }
    }
    assert_ne!(bytes, std::fs::read(path).unwrap(), "{how:?} changed nothing");
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_shard_is_refused_by_the_readers_and_replayed_on_resume() {
    let reference = temp_dir("reference");
    let s = run(&reference);
    assert_eq!((s.games_played, s.shards_written), (32, 4));
    assert_all_verified(&reference);
    let want = read_all(&reference);
    assert_eq!(want.0.len(), 32);
    let cases = [
        (Damage::Truncate, GAMES_DIR, 1),
        (Damage::FlipMiddleByte, GAMES_DIR, 2),
        (Damage::ZeroBlock, GAMES_DIR, 3),
        (Damage::Truncate, SAMPLES_DIR, 0),
        (Damage::FlipMiddleByte, SAMPLES_DIR, 3),
        (Damage::ZeroBlock, SAMPLES_DIR, 1),
    ];
    for (how, sub, shard) in cases {
        let what = format!("{how:?} {sub} {shard}");
        let dir = temp_dir(&format!("{how:?}-{sub}-{shard}"));
        copy_run(&reference, &dir);
        let path = dir.join(sub).join(shard_name(shard));
        damage(&path, how);
        let why = match how {
            Damage::Truncate => "bytes, its checksum record says",
            _ => "checksum mismatch (CRC-32C ",
        };

        // The readers refuse it with one line naming the shard, never a panic.
        let err =
            if sub == GAMES_DIR { replay_dir(&dir, None).unwrap_err() } else { read_samples_file(&path).unwrap_err() };
        let err = err.to_string();
        assert!(err.contains(&format!("{sub}/{}: damaged: ", shard_name(shard))), "{what}: {err}");
        assert!(err.contains(why) && !err.contains('\n'), "{what}: {err}");

        // Resuming removes it (both datasets, with their records) and plays its games again.
        let plan = prepare(config(), Some(&dir)).unwrap();
        assert_eq!(plan.pending, vec![shard], "{what}");
        assert_eq!(plan.notes.len(), 1, "{what}: {:?}", plan.notes);
        let (a, b) = (shard * 8, shard * 8 + 7);
        let note = &plan.notes[0];
        assert!(note.starts_with(&format!("shard {shard} damaged, re-playing games {a} to {b}: ")), "{what}: {note}");
        assert!(note.contains(&format!("{sub}/{}: damaged: ", shard_name(shard))) && note.contains(why), "{note}");
        for d in [GAMES_DIR, SAMPLES_DIR] {
            let p = dir.join(d).join(shard_name(shard));
            assert!(!p.exists() && !checksum_path(&p).exists(), "{what}: {} kept", p.display());
        }
        let s = plan.run(&RunOptions { threads: 2, ..Default::default() }).unwrap();
        assert_eq!((s.games_played, s.games_complete), (8, 32), "{what}");
        drop(plan);
        assert_all_verified(&dir);
        assert!(read_all(&dir) == want, "{what}: the repaired run differs from the undamaged one");
        assert_eq!(replay_dir(&dir, None).unwrap().games, 32);
        let plan = prepare(config(), Some(&dir)).unwrap();
        assert!(plan.pending.is_empty() && plan.notes.is_empty(), "{what}: {:?}", plan.notes);
        drop(plan);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&reference).unwrap();
}

#[test]
fn a_missing_or_damaged_record_counts_as_a_damaged_shard() {
    let dir = temp_dir("records");
    run(&dir);
    let want = read_all(&dir);
    let games = |s| dir.join(GAMES_DIR).join(shard_name(s));
    let samples = |s| dir.join(SAMPLES_DIR).join(shard_name(s));
    // Shard 0: its games record lost. Shard 1: its samples record garbled.
    std::fs::remove_file(checksum_path(&games(0))).unwrap();
    std::fs::write(checksum_path(&samples(1)), "not a record\n").unwrap();
    // Shard 3: killed after its records were written, before its games file
    // was renamed (the samples file, renamed first, is there).
    std::fs::remove_file(games(3)).unwrap();
    std::fs::write(dir.join(GAMES_DIR).join(format!(".{}.tmp", shard_name(3))), b"PAR1 half").unwrap();
    std::fs::write(dir.join(GAMES_DIR).join(format!(".{}.crc32c.tmp", shard_name(3))), b"0000").unwrap();

    // The readers refuse both: this run's run.json says every shard has a record.
    let err = read_games_file(&games(0)).unwrap_err().to_string();
    assert!(err.contains("no checksum record") && err.contains("run.json says every shard has one"), "{err}");
    let err = read_samples_file(&samples(1)).unwrap_err().to_string();
    assert!(err.contains("checksum record .shard-000001.parquet.crc32c is damaged"), "{err}");

    let plan = prepare(config(), Some(&dir)).unwrap();
    assert_eq!(plan.pending, vec![0, 1, 3]);
    assert_eq!(plan.notes.len(), 2, "{:?}", plan.notes);
    assert!(plan.notes[0].starts_with("shard 0 damaged, re-playing games 0 to 7: "), "{:?}", plan.notes);
    assert!(plan.notes[0].contains("no checksum record (.shard-000000.parquet.crc32c is missing"), "{:?}", plan.notes);
    assert!(plan.notes[1].starts_with("shard 1 damaged, re-playing games 8 to 15: "), "{:?}", plan.notes);
    let tmp: Vec<_> = std::fs::read_dir(dir.join(GAMES_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(tmp.is_empty(), "{tmp:?}");
    let s = plan.run(&RunOptions { threads: 2, ..Default::default() }).unwrap();
    assert_eq!(s.games_played, 24);
    drop(plan);
    assert_all_verified(&dir);
    assert!(read_all(&dir) == want);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_from_before_checksum_records_resumes_by_its_footers() {
    let dir = temp_dir("legacy");
    run(&dir);
    let want = read_all(&dir);
    // What an older build left: no records, no `checksums` in run.json.
    let run_json = dir.join(RUN_FILE);
    let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run_json).unwrap()).unwrap();
    assert_eq!(file["checksums"], "crc32c");
    file.as_object_mut().unwrap().remove("checksums");
    let legacy = serde_json::to_string_pretty(&file).unwrap();
    std::fs::write(&run_json, &legacy).unwrap();
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        for f in shard_files(&dir.join(sub)).unwrap() {
            std::fs::remove_file(checksum_path(&f)).unwrap();
        }
    }
    let plan = prepare(config(), Some(&dir)).unwrap();
    assert!(plan.pending.is_empty());
    assert_eq!(plan.notes.len(), 1, "{:?}", plan.notes);
    assert!(plan.notes[0].contains("started before shards had checksum records: 8 shard file(s)"), "{:?}", plan.notes);
    drop(plan);

    // A shard cut short loses its footer: found, re-played, and written with records.
    let cut = dir.join(GAMES_DIR).join(shard_name(2));
    damage(&cut, Damage::Truncate);
    let plan = prepare(config(), Some(&dir)).unwrap();
    assert_eq!(plan.pending, vec![2]);
    assert!(plan.notes[0].starts_with("shard 2 damaged, re-playing games 16 to 23: "), "{:?}", plan.notes);
    assert!(plan.notes[1].contains(": 6 shard file(s)"), "{:?}", plan.notes);
    plan.run(&RunOptions::default()).unwrap();
    drop(plan);
    assert_eq!(verify_shard(&cut).unwrap(), Verified::Matches);
    assert_eq!(verify_shard(&dir.join(SAMPLES_DIR).join(shard_name(2))).unwrap(), Verified::Matches);
    assert!(read_all(&dir) == want);
    // run.json is left as the older build wrote it: records stay optional.
    assert_eq!(std::fs::read_to_string(&run_json).unwrap(), legacy);
    std::fs::remove_dir_all(&dir).unwrap();
}
