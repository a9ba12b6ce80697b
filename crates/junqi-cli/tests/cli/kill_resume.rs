//! Fault injection: each long command, killed with SIGKILL at random moments
//! (seeded) and then run again to the end, leaves the same output as one
//! uninterrupted run: the same games, move for move, and the same tables.

use crate::common::stderr;
use junqi_selfplay::{read_games_file, StoredGame};
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("kill", name, false)
}

fn junqi(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().unwrap()
}

/// `args` with `--out dir`.
fn with_out(args: &[&str], dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    v.extend(["--out".to_string(), dir.to_str().unwrap().to_string()]);
    v
}

/// Run `args` to the end once; then, in `killed`, start it `kills` times and
/// SIGKILL each after a random share of the uninterrupted run's time, then
/// let the last one finish. Returns the two final outputs.
fn straight_and_killed(args: &[&str], straight: &Path, killed: &Path, kills: usize, seed: u64) -> (Output, Output) {
    let started = Instant::now();
    // Finished: exit 0, or an SPRT's verdict (1: H0, 3: undecided).
    let done = |o: &Output| o.status.success() || (args[0] == "sprt" && matches!(o.status.code(), Some(1 | 3)));
    let first = junqi(&with_out(args, straight));
    assert!(done(&first), "{}", stderr(&first));
    let took = started.elapsed();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for _ in 0..kills {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
            .args(with_out(args, killed))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let share: f64 = rng.random_range(0.1..0.7);
        std::thread::sleep(took.mul_f64(share).max(Duration::from_millis(30)));
        let _ = child.kill(); // SIGKILL: no handler runs
        child.wait().unwrap();
    }
    let last = junqi(&with_out(args, killed));
    assert!(done(&last), "{}", stderr(&last));
    assert_eq!(first.status.code(), last.status.code());
    (first, last)
}

/// Every stored game under `dir` (any `games/` folder at any depth), keyed
/// by the folder (relative to `dir`) and game id.
pub(crate) fn games(dir: &Path) -> BTreeMap<(String, u64), StoredGame> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "parquet") && d.ends_with("games") {
                let folder = d.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                for mut g in read_games_file(&path).unwrap() {
                    // Net bots name their file, which lies in the run directory.
                    let root = dir.to_str().unwrap();
                    g.bots = g.bots.map(|b| b.replace(root, "<run>"));
                    let key = (folder.clone(), g.game_id);
                    assert!(all.insert(key, g).is_none(), "game stored twice in {folder}");
                }
            }
        }
    }
    all
}

fn assert_same_games(straight: &Path, killed: &Path) -> usize {
    let (a, b) = (games(straight), games(killed));
    assert!(!a.is_empty());
    assert_eq!(a.len(), b.len(), "game counts differ");
    for ((key, ga), gb) in a.iter().zip(b.values()) {
        assert_eq!(ga, gb, "game {key:?} differs after the kills");
    }
    a.len()
}

/// The samples of two self-play runs, shard by shard (same names, same rows).
pub(crate) fn assert_same_samples(a: &Path, b: &Path) {
    for shard in std::fs::read_dir(a.join("samples")).unwrap() {
        let path = shard.unwrap().path();
        if path.extension().is_some_and(|e| e == "parquet") {
            let other = b.join("samples").join(path.file_name().unwrap());
            let rows = junqi_selfplay::read_samples_file(&path).unwrap();
            assert_eq!(rows, junqi_selfplay::read_samples_file(&other).unwrap(), "{}", path.display());
        }
    }
}

/// The lines of a report that do not measure time or speed.
pub(crate) fn timeless(text: &str) -> Vec<String> {
    let timed = ["/s", " s)", "seconds", "moves_per_s", "elapsed", "took", " in "];
    text.lines().filter(|l| !timed.iter().any(|t| l.contains(t))).map(str::to_string).collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn selfplay_killed_and_resumed_writes_the_same_games() {
    let (a, b) = (temp_dir("selfplay-a"), temp_dir("selfplay-b"));
    let args = ["selfplay", "--games", "240", "--bots", "greedy,random", "--shard-games", "8", "--seed", "5"];
    straight_and_killed(&args, &a, &b, 3, 1);
    let n = assert_same_games(&a, &b);
    assert_eq!(n, 240);
    assert_same_samples(&a, &b);
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

#[test]
fn arena_killed_and_resumed_gives_the_same_games_and_ratings() {
    let (a, b) = (temp_dir("arena-a"), temp_dir("arena-b"));
    let args = ["arena", "--bots", "random,greedy:epsilon=0.5,greedy", "--games-per-pair", "40", "--seed", "6"];
    straight_and_killed(&args, &a, &b, 3, 2);
    assert_same_games(&a, &b);
    // Everything but the rating table's last column, the measured moves/s.
    let ratings = |path: &Path| -> Vec<String> {
        let text = read(path);
        text.lines()
            .map(|l| match l.matches('|').count() {
                7 => l.split('|').take(6).collect::<Vec<_>>().join("|"),
                _ => l.to_string(),
            })
            .collect()
    };
    assert_eq!(ratings(&a.join("results.md")), ratings(&b.join("results.md")));
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

#[test]
fn sprt_killed_and_resumed_reaches_the_same_verdict() {
    let (a, b) = (temp_dir("sprt-a"), temp_dir("sprt-b"));
    let args = [
        "sprt",
        "--candidate",
        "greedy",
        "--baseline",
        "greedy:epsilon=0.3",
        "--elo1",
        "20",
        "--batch-games",
        "16",
        "--max-games",
        "160",
        "--seed",
        "7",
    ];
    let (first, last) = straight_and_killed(&args, &a, &b, 3, 3);
    assert_same_games(&a, &b);
    assert_eq!(timeless(&crate::common::stdout(&first)), timeless(&crate::common::stdout(&last)));
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

#[test]
fn study_killed_and_resumed_gives_the_same_table() {
    let (a, b) = (temp_dir("study-a"), temp_dir("study-b"));
    let args = [
        "study",
        "first-move",
        "--variant",
        "mingqi",
        "--variant",
        "mingqi:first_player=black",
        "--variant",
        "fanqi",
        "--games",
        "60",
        "--seed",
        "8",
    ];
    straight_and_killed(&args, &a, &b, 3, 4);
    assert_same_games(&a, &b);
    assert_eq!(read(&a.join("first-move.csv")), read(&b.join("first-move.csv")));
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

/// The closed loop (self-play, training, evaluation), killed in any stage
/// and resumed: the same games and the same nets, bit for bit.
#[cfg(feature = "torch")]
#[test]
fn loop_killed_and_resumed_trains_the_same_nets() {
    let (a, b) = (temp_dir("loop-a"), temp_dir("loop-b"));
    let mut args = vec!["loop", "--generations", "2", "--threads", "2", "--device", "cpu"];
    for kv in [
        "rules_set=[\"max_plies=80\"]",
        "bootstrap.bot=greedy",
        "bootstrap.games=8",
        "selfplay.games=8",
        "selfplay.sims=2",
        "steps_per_generation=12",
        "train.checkpoint_every=3",
        "evaluate.games=4",
        "evaluate.sims=2",
        "evaluate.anchor=random",
        "evaluate.anchor_games=4",
        "train.model.blocks=1",
        "train.model.channels=8",
        "train.optim.batch_size=16",
        "train.data.shuffle_buffer=500",
    ] {
        args.extend(["--set", kv]);
    }
    straight_and_killed(&args, &a, &b, 4, 9);
    // And once for certain in the middle of generation 1's training, right
    // after its first checkpoint (step 15 of 12..24): the resume continues
    // that generation's data order from there.
    let c = temp_dir("loop-c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(with_out(&args, &c))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mid = c.join("train/checkpoints/ckpt-000000015.safetensors");
    let started = Instant::now();
    while !mid.exists() && child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().unwrap();
    assert!(mid.exists(), "no checkpoint at step 15");
    assert!(!c.join("nets/net-001.safetensors").exists(), "killed too late: generation 1 was already exported");
    let last = junqi(&with_out(&args, &c));
    assert!(last.status.success(), "{}", stderr(&last));
    for killed in [&b, &c] {
        assert_same_games(&a, killed);
        for g in 0..2 {
            let name = format!("nets/net-{g:03}.safetensors");
            let x = junqi_net::NetFile::read(&a.join(&name)).unwrap();
            let y = junqi_net::NetFile::read(&killed.join(&name)).unwrap();
            assert_eq!(x.tensors.len(), y.tensors.len());
            for (tensor, (_, values)) in &x.tensors {
                let other = &y.tensors[tensor].1;
                assert!(values.iter().zip(other).all(|(p, q)| p.to_bits() == q.to_bits()), "{name}: {tensor} differs");
            }
        }
    }
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A file-size limit (`RLIMIT_FSIZE` with `SIGXFSZ` ignored: writes fail with
/// `EFBIG`, as on a full disk) that the samples shards outgrow: `selfplay`
/// stops with one error line, and once the limit is gone the same command
/// finishes with the games of an uninterrupted run.
#[test]
fn selfplay_on_a_full_disk_stops_with_an_error_and_resumes_identically() {
    let (a, b) = (temp_dir("full-a"), temp_dir("full-b"));
    let args = [
        "selfplay",
        "--games",
        "48",
        "--bots",
        "greedy,random",
        "--shard-games",
        "8",
        "--samples-per-game",
        "all",
        "--seed",
        "10",
    ];
    let straight = junqi(&with_out(&args, &a));
    assert!(straight.status.success(), "{}", stderr(&straight));
    let biggest =
        std::fs::read_dir(a.join("samples")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).max().unwrap();
    let limit_kib = (biggest / 1024 / 2).max(4);
    let limited = Command::new("bash")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {limit_kib}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_junqi"))
        .args(with_out(&args, &b))
        .output()
        .unwrap();
    let err = stderr(&limited);
    assert_eq!(limited.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked") && err.starts_with("error: "), "{err}");
    assert!(err.contains("File too large") || err.contains("too large"), "{err}");
    let resumed = junqi(&with_out(&args, &b));
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(assert_same_games(&a, &b), 48);
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}
