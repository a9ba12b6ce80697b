//! The protocol's conformance suite (`junqi engine-check`) against our
//! engines and a deliberately strict one (scripts/strict_engine.py, which
//! accepts only the grammar of docs/protocol.md), the host's own lines in
//! arena games against the strict engine of every version, the four-player
//! suite against four-player engines and broken ones, the capability
//! handshake refusing a match before its first game, and the engine logs
//! kept in the run directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts").join(name).display().to_string()
}

fn engine_check(engine: &[&str]) -> Output {
    Command::new(JUNQI).args(["engine-check", "--"]).args(engine).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn every_reference_engine_passes_the_conformance_suite() {
    let (random, strict) = (script("random_engine.py"), script("strict_engine.py"));
    let engines: [Vec<&str>; 6] = [
        vec![JUNQI, "engine", "--bot", "greedy"],
        vec!["python3", &random],
        vec!["python3", &random, "--protocol", "3"],
        vec!["python3", &strict, "--protocol", "1"],
        vec!["python3", &strict, "--protocol", "2"],
        vec!["python3", &strict],
    ];
    for engine in engines {
        let out = engine_check(&engine);
        let report = text(&out);
        assert!(out.status.success(), "{engine:?}: {report}");
        for step in ["fanqi as seat 1", "anqi as seat 2", "mingqi as seat 1", "quit"] {
            assert!(report.contains(&format!("ok    {step}\n")), "{engine:?}: {step} in {report}");
        }
        assert!(!report.contains("FAIL"), "{engine:?}: {report}");
    }
}

/// An engine that misreads the seed (signed 64-bit) or the word order of
/// `newgame` (the old doc's) is caught, in one line naming the line it misread.
#[test]
fn engine_check_reports_a_misread_seed_or_word_order_in_one_line() {
    let strict = script("strict_engine.py");
    for (misread, says) in [("seed", "seed out of range"), ("order", "not the documented newgame")] {
        let out = engine_check(&["python3", &strict, "--misread", misread]);
        let report = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(1), "{misread}: {report}");
        let failures: Vec<&str> = report.lines().filter(|l| l.starts_with("FAIL")).collect();
        assert_eq!(failures.len(), 1, "{misread}: {report}");
        let line = failures[0];
        assert!(line.contains("seat 1 seed 17010586208885004439`"), "{misread}: {line}");
        assert!(line.contains(says), "{misread}: {line}");
    }
    // A program that is no engine fails at the handshake, also in one line.
    let out = engine_check(&["python3", "-c", "print('hello')"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL  handshake: the engine"), "{}", text(&out));
}

/// The four-player suite runs on every engine that announces `plays siguo`:
/// `junqi engine --siguo` and the strict engine's four-player mode pass it
/// (every mode, every seat, the long position line, the lines to refuse),
/// their two-player games skipped; `--players 2` leaves it out, and
/// `--players 4` fails an engine that plays two players only.
#[test]
fn four_player_engines_pass_the_four_player_suite() {
    let strict = script("strict_engine.py");
    for engine in [vec![JUNQI, "engine", "--siguo", "--bot", "greedy"], vec!["python3", &strict, "--siguo"]] {
        let out = engine_check(&engine);
        let report = text(&out);
        assert!(out.status.success(), "{engine:?}: {report}");
        for mode in ["anqi", "shuangming", "quanming"] {
            for seat in 0..4 {
                assert!(report.contains(&format!("ok    siguo {mode} as seat {seat}\n")), "{engine:?}: {report}");
            }
        }
        for step in [
            "fanqi as seat 1: skipped, it plays four-player (siguo) rules only",
            "siguo anqi: a position late in a long game",
            "siguo: `deploy` is answered with `error` (no `deploys siguo` line)",
            "siguo: `newgame … seat 4` is answered with `error`",
            "quit",
        ] {
            assert!(report.contains(&format!("ok    {step}\n")), "{engine:?}: {step} in {report}");
        }
        assert!(!report.contains("FAIL"), "{engine:?}: {report}");
        let mut two = vec!["--players", "2", "--"];
        two.extend(&engine);
        let out = Command::new(JUNQI).arg("engine-check").args(&two).output().unwrap();
        assert!(out.status.success() && !text(&out).contains("ok    siguo"), "{}", text(&out));
    }
    let out = Command::new(JUNQI)
        .args(["engine-check", "--players", "4", "--", JUNQI, "engine", "--bot", "random"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(!report.contains("fanqi"), "{report}");
    assert!(report.contains("FAIL  siguo: the engine announces no `plays siguo <mode>` line"), "{report}");
}

/// A four-player engine that counts seats from 1, or keeps lines of 4 KiB
/// only, fails in one line naming the line it refused.
#[test]
fn engine_check_reports_a_broken_four_player_engine_in_one_line() {
    let strict = script("strict_engine.py");
    for (misread, step, says) in [
        (
            "seat",
            "siguo anqi as seat 0: `newgame siguo anqi ",
            "seat 0 seed 17010586208885004439` was answered `error seat out of range`",
        ),
        (
            "line",
            "siguo anqi: a position late in a long game: `position ",
            "bytes)` was answered `error line too long`",
        ),
    ] {
        let out = engine_check(&["python3", &strict, "--siguo", "--misread", misread]);
        let report = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(1), "{misread}: {report}");
        let failures: Vec<&str> = report.lines().filter(|l| l.starts_with("FAIL")).collect();
        assert_eq!(failures.len(), 1, "{misread}: {report}");
        assert!(failures[0].starts_with(&format!("FAIL  {step}")), "{misread}: {}", failures[0]);
        assert!(failures[0].contains(says), "{misread}: {}", failures[0]);
        assert!(failures[0].len() < 1200, "{misread}: a long line is cut: {}", failures[0].len());
    }
}

fn arena(rules: &[&str], bots: &str, out: &Path) -> Output {
    Command::new(JUNQI)
        .arg("arena")
        .args(rules)
        .args(["--games-per-pair", "2", "--seed", "3", "--threads", "1", "--bots", bots, "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// The log files of one kind (`stderr` or `debug`) in a run's `engines/`.
fn logs(dir: &Path, kind: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("engines")) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(&format!(".{kind}.log")))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// The host's real lines (not engine-check's) in arena games of every mode,
/// against the strict engine of each version: no forfeit means the strict
/// engine accepted every line. Its traffic log (`debug=true`) shows the
/// version-3 lines sent only to version 3, and its stderr is kept.
#[test]
fn the_host_speaks_the_documented_grammar_to_every_version() {
    let strict = script("strict_engine.py");
    // Each version once, and version 3 (whose lines differ most) in every mode.
    for (protocol, mode) in [(1, "anqi"), (2, "fanqi"), (3, "fanqi"), (3, "anqi"), (3, "mingqi")] {
        {
            let dir = crate::common::temp_dir("engine_check", &format!("host-{mode}-{protocol}"), false);
            let bots = format!("engine:cmd=python3 {strict} --protocol {protocol},name=strict,debug=true,random");
            let out = arena(&["--rules", mode], &bots, &dir);
            let report = text(&out);
            assert!(out.status.success(), "{mode} v{protocol}: {report}");
            assert!(!report.contains("forfeits"), "{mode} v{protocol}: {report}");
            let traffic = logs(&dir, "debug").join("");
            assert!(traffic.contains(" > newgame ") && traffic.contains(" < bestmove "), "{traffic}");
            let v3 = protocol >= 3;
            assert_eq!(traffic.contains(" > result "), v3, "{mode} v{protocol}: {traffic}");
            assert_eq!(traffic.contains(" timeout "), v3, "{mode} v{protocol}: {traffic}");
            assert_eq!(traffic.contains(" last "), protocol >= 2, "{mode} v{protocol}");
            let stderr = logs(&dir, "stderr");
            assert!(
                !stderr.is_empty() && stderr.iter().all(|l| l == &format!("strict_engine.py: protocol {protocol}\n"))
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// An engine that declares it plays bomb_flies=false only is refused by an
/// arena of bomb_flies=true before the first game, with the reason; and
/// one that plays 翻棋 only by an arena of 暗棋.
#[test]
fn an_engine_that_cannot_play_the_rules_is_refused_before_the_first_game() {
    let strict = script("strict_engine.py");
    let bots = format!("engine:cmd=python3 {strict} --plays fanqi/bomb_flies=false,debug=true,random");
    for (rules, reason) in [
        (vec!["--rules", "fanqi", "--set", "bomb_flies=true"], "it plays bomb_flies=false only, not bomb_flies=true"),
        (vec!["--rules", "anqi"], "it plays fanqi only, not anqi"),
    ] {
        let dir = crate::common::temp_dir("engine_check", &format!("refused-{}", rules[1]), false);
        let out = arena(&rules, &bots, &dir);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{rules:?}: {}", text(&out));
        assert!(err.contains("cannot play these rules") && err.contains(reason), "{rules:?}: {err}");
        let traffic = logs(&dir, "debug").join("");
        assert!(traffic.contains("< plays fanqi bomb_flies=false"), "{traffic}");
        assert!(!traffic.contains("newgame"), "{rules:?}: a game began: {traffic}");
        assert!(!dir.join("results.json").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The same engine plays the rules it declared.
    let dir = crate::common::temp_dir("engine_check", "refused-plays", false);
    let out = arena(&["--rules", "fanqi"], &bots, &dir);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
    // `junqi play` refuses it too, before dealing.
    let out = Command::new(JUNQI)
        .args(["play", "--rules", "anqi", "--bot", &format!("engine:cmd=python3 {strict} --plays fanqi")])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    crate::common::assert_clean_error(&out, "cannot play these rules: it plays fanqi only, not anqi");
}

/// `debug=true` needs a run directory; without one it is refused, clearly.
#[test]
fn a_traffic_log_without_a_run_directory_is_refused() {
    let strict = script("strict_engine.py");
    let out = Command::new(JUNQI)
        .args(["play", "--bot", &format!("engine:cmd=python3 {strict},debug=true")])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    crate::common::assert_clean_error(&out, "run directory");
}
