//! `junqi sprt`'s exit code is its verdict (docs/regress.md): 0 when H1 is
//! accepted, 1 when H0 is, 3 without a decision; an A/A test needs
//! `--allow-same`.

use crate::common::{assert_clean_error, stderr, stdout, temp_dir};
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}

/// Play a test of `candidate` against `baseline` (fanqi, batches of 8 games,
/// at most `max_games`) into a fresh directory.
fn play(name: &str, candidate: &str, baseline: &str, bounds: [&str; 2], max_games: &str, more: &[&str]) -> Output {
    let dir = temp_dir("sprt-verdicts", name, false);
    let mut args = vec!["sprt", "--candidate", candidate, "--baseline", baseline, "--elo0", bounds[0]];
    args.extend(["--elo1", bounds[1], "--batch-games", "8", "--max-games", max_games, "--seed", "3", "--threads", "2"]);
    args.extend(["--out", dir.to_str().unwrap()]);
    args.extend(more);
    let o = junqi(&args);
    let _ = std::fs::remove_dir_all(dir);
    o
}

fn assert_verdict(o: &Output, code: i32, words: &str) {
    assert_eq!(o.status.code(), Some(code), "stdout: {}\nstderr: {}", stdout(o), stderr(o));
    assert!(stdout(o).contains(words), "expected `{words}` in: {}", stdout(o));
    assert!(!stderr(o).contains("error"), "{}", stderr(o));
}

#[test]
fn played_tests_exit_with_their_verdict() {
    // greedy beats random by hundreds of Elo: H1 (a gain of 200) within 80 games.
    assert_verdict(&play("h1", "greedy", "random", ["0", "200"], "80", &[]), 0, "H1 accepted");
    // The other way round the games favour H0 (no gain) just as fast.
    assert_verdict(&play("h0", "random", "greedy", ["0", "200"], "80", &[]), 1, "H0 accepted");
    // One batch of an A/A test decides nothing: exit 3 at the game limit.
    let same = play("undecided", "greedy", "greedy", ["-5", "0"], "8", &["--allow-same"]);
    assert_verdict(&same, 3, "inconclusive: the game limit was reached");
}

#[test]
fn given_counts_exit_with_their_verdict() {
    let help = stdout(&junqi(&["sprt", "--help"]));
    assert!(help.contains("Exit codes: 0 H1 accepted, 1 H0 accepted, 3 no decision"), "{help}");
    let penta = |counts: &str| junqi(&["sprt", "--penta", counts, "--elo0", "0", "--elo1", "5"]);
    assert_verdict(&penta("100,2000,6000,3000,200"), 0, "H1 accepted");
    assert_verdict(&penta("200,3000,6000,2000,100"), 1, "H0 accepted");
    assert_verdict(&penta("10,200,600,200,10"), 3, "no decision yet");
}

#[test]
fn the_same_bot_twice_needs_allow_same() {
    let dir = temp_dir("sprt-verdicts", "same", false);
    let out = dir.to_str().unwrap();
    // Refused before anything is written: a typo must not pass for an A/A test.
    assert_clean_error(
        &junqi(&["sprt", "--candidate", "mcts:sims=50", "--baseline", "mcts:50", "--out", out]),
        "for an A/A test add --allow-same",
    );
    assert!(!dir.exists());
    assert_clean_error(&junqi(&["sprt", "--penta", "1,2,3,4,5", "--allow-same"]), "--allow-same");
}

/// `scripts/regress-builds.sh --bins BASE TEST` on two existing "builds"
/// (no cargo): the SPRT's exit code is the script's. The weaker build is a
/// wrapper whose engine plays `random` whatever bot it is asked for.
#[test]
fn regress_builds_takes_two_binaries_and_exits_with_the_verdict() {
    let dir = temp_dir("sprt-verdicts", "builds", true);
    let junqi = env!("CARGO_BIN_EXE_junqi");
    let weak = dir.join("weak.sh");
    let wrapper = format!(
        "#!/bin/sh\nif [ \"$1\" = engine ]; then exec '{junqi}' engine --bot random; fi\nexec '{junqi}' \"$@\"\n"
    );
    std::fs::write(&weak, wrapper).unwrap();
    std::fs::set_permissions(&weak, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/regress-builds.sh");
    let run = |test: &std::path::Path, bot: &str, max_games: &str| {
        Command::new("bash")
            .args([script, "--bins", junqi, test.to_str().unwrap()])
            .envs([("BOT", bot), ("BATCH", "16"), ("MAX_GAMES", max_games), ("THREADS", "2")])
            .env("WORK", &dir)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // greedy's build against one that plays random: a regression, found within 160 games.
    assert_verdict(&run(&weak, "greedy", "160"), 1, "H0 accepted: a regression");
    // The same binary twice is an A/A test; one batch decides nothing.
    let same = run(std::path::Path::new(junqi), "random", "16");
    assert_verdict(&same, 3, "undecided at MAX_GAMES");
    assert!(stderr(&same).contains("an A/A test"), "{}", stderr(&same));
    let _ = std::fs::remove_dir_all(dir);
}
