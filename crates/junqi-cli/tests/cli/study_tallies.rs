//! A precision study that outlives its machine: its rounds played as parts
//! on several machines and joined by `junqi study merge`, and continued from
//! its tallies alone (`--resume-from`), end with the tallies and the report
//! of one uninterrupted process; tallies of another study or build are
//! refused by name.

use crate::common::{assert_clean_error, json, junqi, ok, path_str as s, read, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("study-tallies", name, true)
}

/// `random` in three 暗棋 variants, rounds of 20 games until ±250 Elo or 80
/// games: some variants need more rounds than others.
const STUDY: [&str; 20] = [
    "study",
    "first-move",
    "--variant",
    "anqi:mine_rule=trade",
    "--variant",
    "anqi:max_plies=600",
    "--bot",
    "random",
    "--games",
    "20",
    "--seed",
    "3",
    "--precision",
    "250",
    "--max-games",
    "80",
    "--threads",
    "2",
    "--variant",
    "anqi",
];

fn study(extra: &[&str]) -> Output {
    junqi(&[&STUDY[..], extra].concat())
}

#[test]
fn precision_rounds_played_as_parts_or_resumed_from_tallies_report_as_one_process() {
    let root = temp_dir("rounds");
    let whole = root.join("whole");
    ok(study(&["--out", s(&whole)]));
    let whole_tallies = json(&whole.join("tallies.json"));
    let rounds = whole_tallies["rounds"].as_array().unwrap().len();
    assert!(rounds > 1, "the study needs more than one round");
    let report = read(&whole.join("first-move.md"));
    let mut from: Option<PathBuf> = None;
    for round in 0..rounds {
        let mut parts = Vec::new();
        for i in 0..3 {
            let dir = root.join(format!("round-{round}-part-{i}"));
            let mut args = vec!["--part".to_string(), format!("{i}/3"), "--out".into(), s(&dir).into()];
            if let Some(f) = &from {
                args.extend(["--resume-from".into(), s(f).into()]);
            }
            ok(study(&args.iter().map(String::as_str).collect::<Vec<_>>()));
            assert!(dir.join("tallies.json").is_file());
            assert!(!dir.join("first-move.md").exists(), "a part wrote a report");
            parts.push(dir);
        }
        parts.reverse();
        let merged = root.join(format!("merged-{round}"));
        let mut merge = vec!["study", "merge", "--out", s(&merged)];
        merge.extend(parts.iter().map(|p| s(p)));
        let o = ok(junqi(&merge));
        let tallies = json(&merged.join("tallies.json"));
        assert_eq!(tallies["rounds"].as_array().unwrap()[..], whole_tallies["rounds"].as_array().unwrap()[..round + 1]);
        if round + 1 < rounds {
            assert!(stdout(&o).contains("--resume-from"), "{}", stdout(&o));
            assert!(!merged.join("first-move.md").exists());
        } else {
            assert_eq!(tallies, whole_tallies);
            assert_eq!(read(&merged.join("first-move.md")), report);
        }
        if round == 0 {
            // The tallies alone, copied elsewhere, the games gone: the study
            // continues in one process to the same report.
            let committed = root.join("committed-tallies.json");
            std::fs::copy(merged.join("tallies.json"), &committed).unwrap();
            for p in &parts {
                std::fs::remove_dir_all(p.join("variants")).unwrap();
            }
            let resumed = root.join("resumed");
            ok(study(&["--resume-from", s(&committed), "--out", s(&resumed)]));
            assert_eq!(read(&resumed.join("first-move.md")), report);
            assert_eq!(json(&resumed.join("first-move.json")), json(&whole.join("first-move.json")));
            assert_eq!(json(&resumed.join("tallies.json")), whole_tallies);
        }
        from = Some(merged);
    }
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn tallies_of_another_study_or_build_and_bad_merges_are_refused_by_name() {
    let root = temp_dir("refused");
    let part0 = root.join("p0");
    ok(study(&["--part", "0/2", "--out", s(&part0)]));
    let part1 = root.join("p1");
    ok(study(&["--part", "1/2", "--out", s(&part1)]));
    let merged = root.join("m");
    ok(junqi(&["study", "merge", "--out", s(&merged), s(&part0), s(&part1)]));
    let tallies = merged.join("tallies.json");
    let x = root.join("x");
    // Another config: the field that differs is named.
    let mut other = STUDY.to_vec();
    other[11] = "4";
    other.extend(["--resume-from", s(&tallies), "--out", s(&x)]);
    assert_clean_error(&junqi(&other), "seed: 3 in the tallies, 4 now");
    let mut other = STUDY.to_vec();
    other[7] = "greedy";
    other.extend(["--resume-from", s(&tallies), "--out", s(&x)]);
    assert_clean_error(&junqi(&other), "bot");
    assert!(!x.exists(), "a refused study left a directory");
    // Another build: refused, unless asked for.
    let text = read(&tallies);
    let version = json(&tallies)["rounds"][0]["code_version"].as_str().unwrap().to_string();
    let old = root.join("old.json");
    std::fs::write(&old, text.replace(&format!("\"{version}\""), "\"0.0.1+0123456789ab\"")).unwrap();
    let out = root.join("y");
    assert_clean_error(&study(&["--resume-from", s(&old), "--out", s(&out)]), "code_version differs");
    let o = ok(study(&["--resume-from", s(&old), "--out", s(&out), "--allow-code-change"]));
    assert!(stdout(&o).contains("played by code version 0.0.1+0123456789ab"), "{}", stdout(&o));
    // A part's tallies are not a study's; parts of a round need `study merge`, all of them, once each.
    assert_clean_error(&study(&["--resume-from", s(&part0), "--out", s(&root.join("z"))]), "study merge");
    assert_clean_error(&junqi(&["merge", "--out", s(&root.join("m2")), s(&part0), s(&part1)]), "junqi study merge");
    assert_clean_error(&junqi(&["study", "merge", "--out", s(&root.join("m3")), s(&part0)]), "1/2 missing");
    assert_clean_error(&junqi(&["study", "merge", "--out", s(&root.join("m3")), s(&part0), s(&part0)]), "twice");
    assert_clean_error(&junqi(&["study", "merge", "--out", s(&root.join("m3")), s(&root.join("none"))]), "no such");
    // Tallies need a precision study.
    let o = junqi(&["study", "first-move", "--variant", "anqi", "--resume-from", s(&tallies), "--out", "never"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--precision"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(root);
}
