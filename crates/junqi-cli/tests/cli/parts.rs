//! Runs split into parts (`--part I/N`) and joined by `junqi merge` hold the
//! same games, and give the same reports, as one run; parts that do not make
//! up one run are refused with a clear error.

use crate::common::{assert_clean_error, stderr, stdout};
use crate::kill_resume::{assert_same_samples, games, timeless};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("parts", name, true)
}

fn junqi(args: &[&str], extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).args(extra).stdin(Stdio::null()).output().unwrap()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "stdout: {}\nstderr: {}", stdout(&o), stderr(&o));
    o
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run `args` whole into `root/whole` and as `n` parts into `root/part-I`,
/// then merge the parts (in reverse order) into `root/merged`. Returns the
/// whole run's and the merge's outputs.
fn whole_and_merged(args: &[&str], root: &Path, n: u64) -> (Output, Output) {
    let whole = ok(junqi(args, &["--out", s(&root.join("whole"))]));
    let mut parts = Vec::new();
    for i in 0..n {
        let dir = root.join(format!("part-{i}"));
        let o = ok(junqi(args, &["--part", &format!("{i}/{n}"), "--out", s(&dir)]));
        assert!(stdout(&o).contains(&format!("part {i}/{n}")), "{}", stdout(&o));
        parts.push(dir.to_str().unwrap().to_string());
    }
    parts.reverse();
    let merged = root.join("merged");
    let mut merge = vec!["merge", "--out", s(&merged)];
    merge.extend(parts.iter().map(String::as_str));
    (whole, ok(junqi(&merge, &[])))
}

fn assert_same_games(a: &Path, b: &Path, expected: usize) {
    let (ga, gb) = (games(a), games(b));
    assert_eq!(ga.len(), expected);
    assert_eq!(ga, gb);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn selfplay_parts_merge_into_the_run_one_process_writes() {
    let root = temp_dir("selfplay");
    let args = ["selfplay", "--games", "300", "--bots", "greedy,random", "--shard-games", "20", "--seed", "8"];
    whole_and_merged(&args, &root, 4);
    let (whole, merged) = (root.join("whole"), root.join("merged"));
    assert_same_games(&whole, &merged, 300);
    assert_same_samples(&whole, &merged);
    // The merged run is a whole run: resuming it plays nothing.
    let run: serde_json::Value = serde_json::from_str(&read(&merged.join("run.json"))).unwrap();
    assert!(run.get("part").is_none(), "{run}");
    let again = ok(junqi(&args, &["--out", s(&merged)]));
    assert!(stdout(&again).contains("nothing to do: all 300 games"), "{}", stdout(&again));
    // The same run from its config file (as a driver runs a loop's self-play).
    let config = root.join("config.json");
    std::fs::write(&config, run["config"].to_string()).unwrap();
    for i in 0..2 {
        let dir = root.join(format!("by-config-{i}"));
        ok(junqi(&["selfplay", "--config", s(&config), "--part", &format!("{i}/2"), "--out", s(&dir)], &[]));
    }
    let (b0, b1, bm) = (root.join("by-config-0"), root.join("by-config-1"), root.join("by-config"));
    ok(junqi(&["merge", "--out", s(&bm), s(&b0), s(&b1)], &[]));
    assert_same_games(&whole, &bm, 300);
    assert_clean_error(&junqi(&["selfplay", "--config", s(&config), "--games", "3"], &[]), "--games");
    std::fs::write(&config, "{\"games\": 3}").unwrap();
    assert_clean_error(
        &junqi(&["selfplay", "--config", s(&config), "--out", s(&root.join("y"))], &[]),
        "not a self-play config",
    );
    // A part remembers its part: another part into it is refused.
    let o = junqi(&args, &["--part", "1/4", "--out", s(&root.join("part-0"))]);
    assert_clean_error(&o, "holds part 0/4 of the run");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn arena_study_and_sprt_parts_merge_into_the_same_games_and_reports() {
    let root = temp_dir("arena");
    let args = ["arena", "--bots", "random,greedy:epsilon=0.5,greedy", "--games-per-pair", "24", "--seed", "6"];
    whole_and_merged(&args, &root, 3);
    assert_same_games(&root.join("whole"), &root.join("merged"), 72);
    // The ratings table but its last column, the measured moves/s.
    let ratings = |path: &Path| -> Vec<String> {
        read(path)
            .lines()
            .map(|l| match l.matches('|').count() {
                7 => l.split('|').take(6).collect::<Vec<_>>().join("|"),
                _ => l.to_string(),
            })
            .collect()
    };
    assert_eq!(ratings(&root.join("whole/results.md")), ratings(&root.join("merged/results.md")));

    let root = temp_dir("study");
    let args = [
        "study",
        "first-move",
        "--variant",
        "anqi",
        "--variant",
        "mingqi:first_player=black",
        "--bot",
        "random",
        "--games",
        "20",
        "--seed",
        "2",
    ];
    whole_and_merged(&args, &root, 2);
    // Three variants: mingqi's preset is added as the reference.
    assert_same_games(&root.join("whole"), &root.join("merged"), 60);
    for file in ["first-move.md", "first-move.csv", "first-move.svg"] {
        assert_eq!(timeless(&read(&root.join("whole").join(file))), timeless(&read(&root.join("merged").join(file))));
    }

    let root = temp_dir("sprt");
    let args = [
        "sprt",
        "--candidate",
        "greedy",
        "--baseline",
        "random",
        "--elo0",
        "0",
        "--elo1",
        "200",
        "--batch-games",
        "8",
        "--max-games",
        "80",
        "--seed",
        "3",
    ];
    let (whole, merged) = whole_and_merged(&args, &root, 3);
    // The decision of a single run, from the same batches; parts play on to
    // the limit, the merge reads only as far as the decision.
    assert_eq!(timeless(&stdout(&whole)), timeless(&stdout(&merged)), "{}", stdout(&merged));
    assert!(stdout(&merged).contains("H1 accepted"), "{}", stdout(&merged));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn parts_that_are_not_one_run_are_refused() {
    let root = temp_dir("refused");
    let args = ["selfplay", "--games", "60", "--bots", "random", "--shard-games", "10", "--seed", "4"];
    let part = |i: u64, n: u64, seed: &str, name: &str| {
        let dir = root.join(name);
        let mut a = args.to_vec();
        let last = a.len() - 1;
        a[last] = seed;
        ok(junqi(&a, &["--part", &format!("{i}/{n}"), "--out", s(&dir)]));
        dir
    };
    let (p0, p1, p2) = (part(0, 3, "4", "p0"), part(1, 3, "4", "p1"), part(2, 3, "4", "p2"));
    let other_seed = part(2, 3, "5", "other-seed");
    let of_two = part(1, 2, "4", "of-two");
    let merge = |parts: &[&Path], out: &str| {
        let mut a = vec!["merge".to_string(), "--out".into(), root.join(out).to_str().unwrap().into()];
        a.extend(parts.iter().map(|p| p.to_str().unwrap().to_string()));
        Command::new(env!("CARGO_BIN_EXE_junqi")).args(&a).output().unwrap()
    };
    assert_clean_error(&merge(&[&p0, &p1], "m"), "part(s) 2/3 missing");
    assert_clean_error(&merge(&[&p0, &p1, &p1], "m"), "given twice");
    assert_clean_error(&merge(&[&p0, &p1, &other_seed], "m"), "different runs");
    assert_clean_error(&merge(&[&p0, &p1, &of_two], "m"), "different numbers of parts");
    assert_clean_error(&merge(&[&p0, &p1, &p2], "p0"), "is one of the parts");
    assert!(!root.join("m").join("games").exists(), "a refused merge wrote shards");
    // Another build's part.
    let run = p2.join("run.json");
    let text = read(&run);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    std::fs::write(&run, text.replace(v["code_version"].as_str().unwrap(), "0.0.1+other")).unwrap();
    assert_clean_error(&merge(&[&p0, &p1, &p2], "m"), "code version");
    std::fs::write(&run, &text).unwrap();
    // An unfinished part: a shard gone.
    std::fs::remove_file(p1.join("games/shard-000004.parquet")).unwrap();
    assert_clean_error(&merge(&[&p0, &p1, &p2], "m"), "is not finished");
    // A damaged shard is reported, and left for the part's own resume to mend.
    let damaged = p0.join("samples/shard-000003.parquet");
    let good = std::fs::read(&damaged).unwrap();
    let mut bad = good.clone();
    bad[good.len() / 2] ^= 0xff;
    std::fs::write(&damaged, &bad).unwrap();
    assert_clean_error(&merge(&[&p0, &p1, &p2], "m"), "shard 3 damaged");
    assert_eq!(std::fs::read(&damaged).unwrap(), bad, "a merge changed a part");
    std::fs::write(&damaged, &good).unwrap();
    // Finished again, the merge goes through; a whole run is not a part.
    ok(junqi(&args, &["--part", "1/3", "--out", s(&p1)]));
    // Parts made by another build than the one merging them (all alike) merge.
    let texts: Vec<String> = [&p0, &p1, &p2].iter().map(|p| read(&p.join("run.json"))).collect();
    for (p, t) in [&p0, &p1, &p2].iter().zip(&texts) {
        std::fs::write(p.join("run.json"), t.replace(v["code_version"].as_str().unwrap(), "0.0.1+other")).unwrap();
    }
    ok(merge(&[&p2, &p0, &p1], "m"));
    assert_eq!(games(&root.join("m")).len(), 60);
    assert!(read(&root.join("m/run.json")).contains("0.0.1+other"));
    for (p, t) in [&p0, &p1, &p2].iter().zip(&texts) {
        std::fs::write(p.join("run.json"), t).unwrap();
    }
    // Without --out, a part that owns no shard has nothing to do.
    let o = ok(junqi(&args, &["--part", "7/8", "--no-write"]));
    assert!(stdout(&o).contains("part 7/8 of the run holds no games"), "{}", stdout(&o));
    // An arena whose parts lack a matchup is refused before anything is written.
    let arena = ["arena", "--bots", "random,greedy,greedy:epsilon=0.5", "--games-per-pair", "4", "--seed", "1"];
    let (a0, a1) = (root.join("a0"), root.join("a1"));
    ok(junqi(&arena, &["--part", "0/2", "--out", s(&a0)]));
    ok(junqi(&arena, &["--part", "1/2", "--out", s(&a1)]));
    let matchup = std::fs::read_dir(a0.join("matchups")).unwrap().next().unwrap().unwrap().file_name();
    for p in [&a0, &a1] {
        std::fs::remove_dir_all(p.join("matchups").join(&matchup)).unwrap();
    }
    assert_clean_error(&merge(&[&a0, &a1], "am"), "finish every part's run first");
    assert!(!root.join("am").join("arena.json").exists(), "a refused merge wrote its run file");
    assert_clean_error(&merge(&[&root.join("m")], "m2"), "not a part");
    assert_clean_error(&merge(&[&root.join("nowhere")], "m3"), "no such directory");
    let bad = junqi(&args, &["--part", "3/3", "--out", s(&root.join("x"))]);
    assert_clean_error(&bad, "3/3");
    // A precision study's parts are those of one round: `junqi study merge` joins them (study_tallies.rs).
    let _ = std::fs::remove_dir_all(root);
}
