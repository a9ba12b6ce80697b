//! `junqi selfplay --siguo` at the two-player run's level: four-player
//! samples, resuming when re-run, `--part I/N` and `junqi merge`, and
//! `junqi replay` on the result (docs/commands.md, docs/data.md).

use super::{assert_clean_error, junqi, stdout};
use junqi_selfplay::{read_siguo_games_file, read_siguo_samples_file, shard_files, shard_name, GAMES_DIR, SAMPLES_DIR};
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-selfplay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Every games and samples row of a run, in order, as comparable text.
fn rows(dir: &Path) -> (String, String) {
    let games: Vec<_> =
        shard_files(&dir.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    let samples: Vec<_> =
        shard_files(&dir.join(SAMPLES_DIR)).unwrap().iter().flat_map(|f| read_siguo_samples_file(f).unwrap()).collect();
    assert!(!games.is_empty() && !samples.is_empty());
    (format!("{games:?}"), format!("{samples:?}"))
}

const RUN: [&str; 10] = [
    "selfplay",
    "--siguo",
    "--bots",
    "heuristic,random",
    "--games",
    "6",
    "--shard-games",
    "2",
    "--samples-per-game",
    "3",
];

fn selfplay(dir: &Path, extra: &[&str]) -> std::process::Output {
    junqi(&[&RUN[..], &["--out", dir.to_str().unwrap()], extra].concat())
}

/// A run writes samples; re-run it is done; with a shard gone it plays that
/// shard again and ends equal to the uninterrupted run; another config is
/// refused; `junqi replay` re-plays the games and checks the samples.
#[test]
fn selfplay_siguo_writes_samples_and_resumes() {
    let (whole, cut) = (fresh_dir("whole"), fresh_dir("cut"));
    let text = stdout(&selfplay(&whole, &[]));
    assert!(text.contains("played 6 four-player games") && text.contains("18 samples"), "{text}");
    assert!(text.contains("6 of 6 games in 3 of 3 shards; samples/ 18 rows"), "{text}");
    stdout(&selfplay(&cut, &[]));
    let again = stdout(&selfplay(&cut, &[]));
    assert!(again.contains("nothing to do: all 6 games are already in"), "{again}");
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        std::fs::remove_file(cut.join(sub).join(shard_name(2))).unwrap();
    }
    let out = selfplay(&cut, &[]);
    let text = stdout(&out);
    assert!(text.contains("played 2 four-player games"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("resumed: 4 of 6 games were already complete"));
    assert_eq!(rows(&cut), rows(&whole));
    assert_clean_error(&selfplay(&cut, &["--seed", "9"]), "different config");
    let replay = stdout(&junqi(&["replay", "--games", cut.to_str().unwrap()]));
    assert!(replay.contains("replayed 6 game(s): all match"), "{replay}");
    let help = stdout(&junqi(&["selfplay", "--help"]));
    assert!(!help.contains("no resume") && help.contains("resumes when re-run"), "{help}");
    for d in [whole, cut] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Parts 0/2 and 1/2 merged are the whole run; a four-player part beside a
/// two-player part is refused by name.
#[test]
fn selfplay_siguo_parts_merge_into_the_whole_run() {
    let (whole, p0, p1, merged) = (fresh_dir("p-whole"), fresh_dir("p0"), fresh_dir("p1"), fresh_dir("p-merged"));
    stdout(&selfplay(&whole, &[]));
    let text = stdout(&selfplay(&p0, &["--part", "0/2"]));
    assert!(text.contains("4 of 4 games in 2 of 2 shards") && text.contains("part 0/2"), "{text}");
    stdout(&selfplay(&p1, &["--part", "1/2"]));
    let text =
        stdout(&junqi(&["merge", "--out", merged.to_str().unwrap(), p1.to_str().unwrap(), p0.to_str().unwrap()]));
    assert!(text.contains("merged 2 parts: 6 games in 3 shards"), "{text}");
    assert_eq!(rows(&merged), rows(&whole));
    let replay = stdout(&junqi(&["replay", "--games", merged.to_str().unwrap()]));
    assert!(replay.contains("replayed 6 game(s): all match"), "{replay}");
    let two = fresh_dir("p-two");
    stdout(&junqi(&[
        "selfplay",
        "--games",
        "4",
        "--shard-games",
        "2",
        "--part",
        "1/2",
        "--out",
        two.to_str().unwrap(),
    ]));
    let mixed = fresh_dir("p-mixed");
    let out = junqi(&["merge", "--out", mixed.to_str().unwrap(), p0.to_str().unwrap(), two.to_str().unwrap()]);
    assert_clean_error(&out, "four-player run (`junqi-siguo-selfplay/2`)");
    assert!(String::from_utf8_lossy(&out.stderr).contains("two-player run (`junqi-selfplay/1`)"));
    for d in [whole, p0, p1, merged, two, mixed] {
        let _ = std::fs::remove_dir_all(d);
    }
}
