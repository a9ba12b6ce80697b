//! The first-move study along a strength ladder (`study first-move
//! --ladder`): each rung drawn at its arena Elo, a ladder killed and resumed
//! reports as one uninterrupted run (finished rungs not played again), the
//! `--hours` plan kept for the resume, bad ladders refused by name.

use crate::common::{assert_clean_error, json, junqi, ok, path_str as s, read, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("study-ladder", name, false)
}

/// `random` and `greedy` on 翻棋 and 暗棋: tiny arenas and rungs.
const LADDER: [&str; 16] = [
    "study",
    "first-move",
    "--ladder",
    "random,greedy",
    "--variant",
    "fanqi",
    "--variant",
    "anqi",
    "--games",
    "40",
    "--arena-games",
    "20",
    "--seed",
    "5",
    "--threads",
    "2",
];

fn ladder(out: &Path) -> Output {
    junqi(&[&LADDER[..], &["--out", s(out)]].concat())
}

/// The x value of each circle of the chart with `data-series="series"`, read
/// back from its pixel position through the x axis' tick labels.
fn chart_x(svg: &str, series: &str) -> Vec<(String, f64)> {
    let attr = |text: &str, name: &str| -> String {
        text.split(&format!("{name}=\"")).nth(1).unwrap().split('"').next().unwrap().to_string()
    };
    let ticks: Vec<(f64, f64)> = svg
        .split("<text class=\"x-tick\"")
        .skip(1)
        .map(|t| (attr(t, "data-value").parse().unwrap(), attr(t, "x").parse().unwrap()))
        .collect();
    assert!(ticks.len() >= 2, "{svg}");
    let ((v0, p0), (v1, p1)) = (ticks[0], ticks[ticks.len() - 1]);
    svg.split("<circle ")
        .filter(|c| c.contains(&format!("data-series=\"{series}\"")))
        .map(|c| {
            let px: f64 = attr(c, "cx").parse().unwrap();
            (attr(c, "data-label"), v0 + (px - p0) / (p1 - p0) * (v1 - v0))
        })
        .collect()
}

#[test]
fn the_chart_and_the_report_place_each_rung_at_its_arena_elo() {
    let out = temp_dir("chart");
    let o = ok(ladder(&out));
    assert!(stdout(&o).contains("| rung | Elo [95% CI]"), "{}", stdout(&o));
    let svg = read(&out.join("ladder.svg"));
    let results = json(&out.join("ladder-results.json"));
    let csv = read(&out.join("ladder.csv"));
    for (p, preset) in ["fanqi", "anqi"].iter().enumerate() {
        // The arena's own report, as the study wrote it.
        let arena = json(&out.join(format!("presets/{p:02}-{preset}/arena/results.json")));
        assert_eq!(arena["anchor"], "random");
        let on_chart = chart_x(&svg, preset);
        assert_eq!(on_chart.len(), 2, "{svg}");
        for bot in arena["bots"].as_array().unwrap() {
            let name = bot["bot"].as_str().unwrap();
            let elo = bot["elo"]["value"].as_f64().unwrap();
            // The chart: the pixel, through the axis, within a tenth of an Elo.
            let x = on_chart.iter().find(|(l, _)| l == name).unwrap().1;
            assert!((x - elo).abs() < 0.1, "{preset} {name}: chart {x}, arena {elo}");
            // The report's JSON and CSV.
            let rung = results["presets"][p]["rungs"].as_array().unwrap().iter().find(|r| r["bot"] == name).unwrap();
            assert_eq!(rung["elo"]["value"].as_f64().unwrap(), elo);
            let row = csv.lines().find(|l| l.starts_with(&format!("\"{preset}\",\"{name}\","))).unwrap();
            let csv_elo: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
            assert!((csv_elo - elo).abs() < 0.006, "{row}");
            assert_eq!(rung["study"]["games"], 40);
        }
    }
}

#[test]
fn a_ladder_killed_and_resumed_reports_as_one_uninterrupted_run() {
    let (straight, killed) = (temp_dir("straight"), temp_dir("killed"));
    let started = Instant::now();
    ok(ladder(&straight));
    let took = started.elapsed();
    // SIGKILL at a few moments of the run, then let it finish.
    for share in [0.15, 0.4, 0.7] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
            .args([&LADDER[..], &["--out", s(&killed)]].concat())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(took.mul_f64(share).max(Duration::from_millis(20)));
        let _ = child.kill();
        child.wait().unwrap();
    }
    ok(ladder(&killed));
    let files = ["ladder.md", "ladder.csv", "ladder.svg", "ladder-results.json"];
    for f in files {
        assert_eq!(read(&straight.join(f)), read(&killed.join(f)), "{f}");
    }
    // A finished rung is its tallies: without its games, it is not played again.
    let rung = killed.join("presets/01-anqi/rungs/greedy");
    assert!(rung.join("tallies.json").is_file());
    std::fs::remove_dir_all(rung.join("variants")).unwrap();
    for f in files {
        std::fs::remove_file(killed.join(f)).unwrap();
    }
    ok(ladder(&killed));
    assert!(!rung.join("variants").exists(), "the finished rung was played again");
    for f in files {
        assert_eq!(read(&straight.join(f)), read(&killed.join(f)), "{f}");
    }
}

#[test]
fn an_hours_plan_is_printed_before_play_and_kept_for_the_resume() {
    let out = temp_dir("hours");
    let args = [
        "study",
        "first-move",
        "--ladder",
        "random,greedy",
        "--variant",
        "fanqi",
        "--hours",
        "0.002",
        "--arena-games",
        "10",
        "--timing-games",
        "8",
        "--threads",
        "2",
        "--out",
        s(&out),
    ];
    let planned = stdout(&ok(junqi(&[&args[..], &["--plan"]].concat())));
    assert!(planned.contains("Budget 0.002 h") && planned.contains("Estimated time of the whole study"), "{planned}");
    assert!(!out.join("ladder.md").exists(), "--plan plays nothing");
    let config = json(&out.join("ladder.json"))["config"].clone();
    let planned_games = config["rungs"][0][1]["precision"]["max_games"].as_u64().unwrap();
    assert!(config["estimated_secs"].as_f64().unwrap() <= 0.002 * 3600.0 * 1.01);
    let played = ok(junqi(&args));
    // The stored plan, not a new timing, and the plan printed before the report.
    assert!(stderr(&played).contains("with its plan"), "{}", stderr(&played));
    let text = stdout(&played);
    assert!(text.find("Ladder plan").unwrap() < text.find("| rung |").unwrap());
    let results = json(&out.join("ladder-results.json"));
    assert_eq!(results["presets"][0]["rungs"][1]["study"]["games"].as_u64().unwrap(), planned_games);
    // Another budget in the same directory is other work.
    let mut other = args.to_vec();
    other[7] = "0.003";
    assert_clean_error(&junqi(&other), "--hours 0.002");
}

#[test]
fn bad_ladders_are_refused_by_name() {
    let out = temp_dir("bad");
    let run = |ladder: &str| junqi(&["study", "first-move", "--ladder", ladder, "--games", "4", "--out", s(&out)]);
    assert_clean_error(&run("random,nope"), "rung `nope`");
    assert_clean_error(&run("greedy"), "at least two rungs");
    assert_clean_error(&run("random,greedy,random"), "given twice");
    assert_clean_error(&run("random,mcts:0"), "rung `mcts:0`");
    assert!(!out.exists(), "a refused ladder left a directory");
    // A ladder with --bot or --factor is refused by clap.
    let o = junqi(&["study", "first-move", "--ladder", "random,greedy", "--bot", "random", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--bot"), "{}", stderr(&o));
    // --hours sizes the rungs itself: --games beside it is refused.
    let o =
        junqi(&["study", "first-move", "--ladder", "random,greedy", "--hours", "1", "--games", "10", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--games"), "{}", stderr(&o));
    assert!(!out.exists(), "a refused ladder left a directory");
    // A directory holding another ladder.
    ok(junqi(&[
        "study",
        "first-move",
        "--ladder",
        "random,greedy",
        "--variant",
        "fanqi",
        "--games",
        "4",
        "--arena-games",
        "4",
        "--out",
        s(&out),
    ]));
    let o = junqi(&[
        "study",
        "first-move",
        "--ladder",
        "greedy,random",
        "--variant",
        "fanqi",
        "--games",
        "4",
        "--arena-games",
        "4",
        "--out",
        s(&out),
    ]);
    assert_clean_error(&o, "holds another ladder study (ladder random,greedy there)");
}
