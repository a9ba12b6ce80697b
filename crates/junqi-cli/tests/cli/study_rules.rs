//! `junqi study first-move` as a rule-maker meets it: the preset added as the
//! reference, the plan before playing, the report rewritten without games.

use crate::common::{assert_clean_error, stderr, stdout};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("study-rules", name, false)
}

/// The rows of the Markdown table whose first cell is `name`.
fn rows<'a>(markdown: &'a str, name: &str) -> Vec<&'a str> {
    markdown.lines().filter(|l| l.starts_with(&format!("| {name} |"))).collect()
}

/// A variant given without its mode's preset: the preset is added (and
/// said so), so the "minus the preset" column has a number; then the report
/// is rewritten from its JSON alone, the games deleted, to the same tables.
#[test]
fn a_variant_alone_is_compared_with_its_added_preset_and_the_report_rewrites() {
    let dir = temp_dir("added");
    let out = dir.to_str().unwrap();
    let o = junqi(&["study", "first-move", "--variant", "anqi:rail_turns=all", "--games", "10", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("added the preset `anqi`"), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.join("first-move.md")).unwrap();
    assert_eq!(stdout(&o).lines().next(), md.lines().next());
    let preset = rows(&md, "anqi");
    assert!(preset[0].contains("| (reference) | — |"), "{md}");
    assert!(preset[1].contains("| (preset) |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("first-move.json")).unwrap()).unwrap();
    let d = &json["lines"][1]["vs_preset"];
    assert_eq!((d["reference"].as_str(), d["compared_games"].as_u64()), (Some("anqi"), Some(10)), "{json}");
    let shown = format!("{:+.0} [{:+.0}, ", d["elo"]["value"].as_f64().unwrap(), d["elo"]["low"].as_f64().unwrap());
    assert!(rows(&md, "anqi:rail_turns=all")[0].contains(&shown), "{shown} in {md}");

    // The games gone, the report comes back from study.json and first-move.json.
    std::fs::remove_dir_all(dir.join("variants")).unwrap();
    std::fs::remove_file(dir.join("first-move.md")).unwrap();
    let again = junqi(&["study", "report", out]);
    assert!(again.status.success(), "{}", stderr(&again));
    let rewritten = std::fs::read_to_string(dir.join("first-move.md")).unwrap();
    let body = |t: &str| t.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(body(&rewritten), body(&md));
    assert!(rewritten.lines().next().unwrap().contains("report rewritten by"), "{rewritten}");
    assert_clean_error(&junqi(&["study", "report", dir.join("variants").to_str().unwrap()]), "study.json");
}

/// `--plan` says how many games a precision needs before anything is played:
/// a quarter of the games for twice the interval, fewer with draws.
#[test]
fn the_plan_prints_games_needed_and_plays_nothing() {
    let plan = |extra: &[&str]| -> u64 {
        let mut args = vec!["study", "first-move", "--variant", "fanqi:attack_hidden=true", "--plan"];
        args.extend_from_slice(extra);
        let o = junqi(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        assert!(text.contains("Plan: 2 variants, 1 bot"), "the added preset counts: {text}");
        let line = text.lines().find(|l| l.contains("first-mover Elo to ±")).unwrap();
        line.split("about ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
    };
    let five = plan(&["--precision", "5"]);
    let ten = plan(&["--precision", "10"]);
    assert!(ten * 4 >= five - 4 && ten * 4 <= five + 8, "{five} vs {ten}");
    assert!(plan(&["--precision", "5", "--draw-rate", "0.5"]) < five);
    assert_clean_error(
        &junqi(&["study", "first-move", "--variant", "fanqi", "--plan", "--draw-rate", "1"]),
        "draw_rate",
    );
    assert_clean_error(&junqi(&["study", "first-move", "--variant", "fanqi"]), "--out");
}

/// A study started before presets were added (its study.json lists only the
/// variants given) resumes as it was instead of being refused as other work.
#[test]
fn a_study_started_without_its_preset_resumes_as_it_was() {
    let dir = temp_dir("old");
    let out = dir.to_str().unwrap();
    let args = ["study", "first-move", "--variant", "fanqi:attack_hidden=true", "--games", "4", "--out", out];
    assert!(junqi(&args).status.success());
    // Rewrite its study.json as an older junqi wrote it: the preset not there.
    let path = dir.join("study.json");
    let mut run_file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let variants = run_file["config"]["variants"].as_array_mut().unwrap();
    assert_eq!(variants.remove(0)["name"], "fanqi");
    std::fs::write(&path, run_file.to_string()).unwrap();
    std::fs::remove_dir_all(dir.join("variants")).unwrap();
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("started without its modes' presets"), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.join("first-move.md")).unwrap();
    assert!(rows(&md, "fanqi").is_empty(), "{md}");
    assert!(rows(&md, "fanqi:attack_hidden=true")[0].ends_with("| — | — |"), "{md}");
}
