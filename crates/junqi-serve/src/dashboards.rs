//! Runs to watch: every loop, arena, study, SPRT and self-play directory
//! below the roots, and the report files each writes at its top (Markdown,
//! CSV, JSON, SVG charts), read again on every request so a page that
//! polls sees a run going on.

use crate::datasets::{real_dir, real_file, subdirs, walk_roots, Cache};
use crate::ApiError;
use junqi_selfplay::GAMES_DIR;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The run file that tells each kind of run.
const KINDS: [(&str, &str); 6] = [
    ("state.json", "loop"),
    ("arena.json", "arena"),
    ("study.json", "study"),
    ("sprt.json", "sprt"),
    ("suite.json", "regress"),
    ("run.json", "selfplay"),
];
/// Report files larger than this are listed but not sent.
const MAX_REPORT_BYTES: u64 = 4 << 20;

#[derive(Serialize, Debug, PartialEq)]
pub struct RunInfo {
    /// `R/relative/path`.
    pub id: String,
    pub kind: String,
}

/// Every run below the roots (not those inside another run, such as an
/// arena's matchups), in path order.
pub fn discover(roots: &[PathBuf]) -> Vec<RunInfo> {
    let mut out = Vec::new();
    walk_roots(roots, 4, &[], |dir, id| match kind_of(dir) {
        Some(kind) => {
            out.push(RunInfo { id, kind: kind.into() });
            false
        }
        None => true,
    });
    out
}

/// The kind of run in `dir`, from its run file.
pub fn kind_of(dir: &Path) -> Option<&'static str> {
    KINDS.iter().find(|(f, _)| real_file(&dir.join(f))).map(|(_, k)| *k)
}

/// One report file of a run.
#[derive(Serialize, Debug)]
pub struct ReportFile {
    pub name: String,
    /// `markdown`, `csv`, `json` or `svg`.
    pub format: String,
    pub bytes: u64,
    /// The text (absent for a file over the size limit).
    pub text: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct RunReport {
    pub id: String,
    pub kind: String,
    pub files: Vec<ReportFile>,
    /// An arena's, study's or SPRT's games on disk so far, counted now: the
    /// report files of those runs are written at their end.
    pub live: Vec<LiveRow>,
    /// A loop's generations from its `state.json` (saved during each one).
    pub generations: Vec<LoopRow>,
}

/// One generation of a loop, as its `state.json` has it now.
#[derive(Serialize, Debug, PartialEq)]
pub struct LoopRow {
    pub generation: u64,
    pub minutes: f64,
    /// Whether the generation is finished (else it is the one running).
    pub done: bool,
    pub promoted: bool,
    pub selfplay_games: u64,
    pub train_step: u64,
    pub policy_loss: Option<f64>,
    pub value_loss: Option<f64>,
    pub belief_loss: Option<f64>,
    /// Elo against each anchor: value, low, high (95%).
    pub elo: Vec<(String, [f64; 3])>,
}

/// The generations of the loop in `dir`. The loop replaces its
/// `state.json` whole (renamed into place), so one that cannot be read or
/// has no generations list is damaged: an error that says so.
pub fn loop_rows(dir: &Path) -> Result<Vec<LoopRow>, ApiError> {
    let path = dir.join("state.json");
    let damaged = |why: String| ApiError::unreadable(format!("{}: not a loop's state ({why})", path.display()));
    let bytes = std::fs::read(&path).map_err(|e| damaged(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| damaged("not UTF-8 text".into()))?;
    let state = serde_json::from_str::<serde_json::Value>(&text).map_err(|e| damaged(format!("not JSON: {e}")))?;
    let gens = state["generations"].as_array().cloned().ok_or_else(|| damaged("no `generations` list".into()))?;
    // The first anchor's name is in the loop's config.
    let loop_toml = dir.join("loop.toml");
    let anchor = real_file(&loop_toml)
        .then(|| std::fs::read_to_string(&loop_toml).ok())
        .flatten()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| t.get("evaluate")?.get("anchor")?.as_str().map(str::to_string))
        .unwrap_or_else(|| "anchor".into());
    let elo = |v: &serde_json::Value| -> Option<[f64; 3]> {
        let a = v.as_array()?;
        Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?, a.get(2)?.as_f64()?])
    };
    Ok(gens
        .iter()
        .map(|g| {
            let mut rated: Vec<(String, [f64; 3])> =
                elo(&g["elo_vs_anchor"]).map(|e| (anchor.clone(), e)).into_iter().collect();
            for more in g["elo_vs_more"].as_array().into_iter().flatten() {
                if let (Some(name), Some(e)) = (more["anchor"].as_str(), elo(&more["elo"])) {
                    rated.push((name.to_string(), e));
                }
            }
            let done = g["done"].as_bool().unwrap_or(false);
            let loss = |key: &str| g[key].as_f64().filter(|_| g["train_step"].as_u64().unwrap_or(0) > 0);
            LoopRow {
                generation: g["index"].as_u64().unwrap_or(0),
                minutes: g["minutes"].as_f64().unwrap_or(0.0),
                done,
                promoted: g["promoted"].as_bool().unwrap_or(false),
                selfplay_games: g["selfplay_games"].as_u64().unwrap_or(0),
                train_step: g["train_step"].as_u64().unwrap_or(0),
                policy_loss: loss("policy_loss"),
                value_loss: loss("value_loss"),
                belief_loss: loss("belief_loss"),
                elo: rated,
            }
        })
        .collect())
}

/// One matchup, variant or test, tallied from its games on disk.
#[derive(Serialize, Debug, PartialEq)]
pub struct LiveRow {
    /// The matchup's or variant's directory (`00-random-vs-greedy`), or `all batches`.
    pub name: String,
    pub games: u64,
    /// Each bot's points (a draw is half a point each), in order of appearance.
    pub points: Vec<(String, f64)>,
    /// The first mover's share of the points.
    pub first_mover: f64,
}

/// Where each kind of run keeps its games: one row per directory below it
/// (`true`: all of them in one row).
fn live_layout(kind: &str) -> Option<(&'static str, bool)> {
    match kind {
        "arena" => Some(("matchups", false)),
        "study" => Some(("variants", false)),
        "sprt" => Some(("batches", true)),
        _ => None,
    }
}

/// The live rows of the run in `dir` (empty for kinds without any).
pub fn live(dir: &Path, kind: &str, cache: &Cache) -> Vec<LiveRow> {
    let Some((sub, one_row)) = live_layout(kind) else { return vec![] };
    let mut rows: Vec<LiveRow> = Vec::new();
    for d in subdirs(&dir.join(sub)) {
        // A study with a precision target keeps each round in `round-NNNNN/`.
        let mut runs = vec![d.clone()];
        runs.extend(subdirs(&d).into_iter().filter(|r| real_dir(&r.join(GAMES_DIR))));
        let name = if one_row {
            "all batches".to_string()
        } else {
            d.file_name().unwrap_or_default().to_string_lossy().into()
        };
        if rows.last().is_none_or(|r| r.name != name) {
            rows.push(LiveRow { name, games: 0, points: vec![], first_mover: 0.0 });
        }
        let row = rows.last_mut().expect("pushed");
        let mut first_points = row.first_mover * row.games as f64;
        for run in runs.iter().filter(|r| real_dir(&r.join(GAMES_DIR))) {
            // A shard that cannot be read is left out of the tally (the replay tab says why).
            let Ok(data) = cache.dataset(run) else { continue };
            for g in &data.games {
                let (a, b) = match g.result.as_str() {
                    "1-0" => (1.0, 0.0),
                    "0-1" => (0.0, 1.0),
                    _ => (0.5, 0.5),
                };
                for (bot, p) in g.bots.iter().zip([a, b]) {
                    match row.points.iter_mut().find(|(n, _)| n == bot) {
                        Some(entry) => entry.1 += p,
                        None => row.points.push((bot.clone(), p)),
                    }
                }
                first_points += a;
                row.games += 1;
            }
        }
        row.first_mover = if row.games == 0 { 0.0 } else { first_points / row.games as f64 };
    }
    rows
}

/// The report files at the top of the run `dir`, Markdown first.
pub fn report(id: &str, dir: &Path) -> Result<RunReport, ApiError> {
    let kind = kind_of(dir).ok_or_else(|| ApiError::not_found(format!("`{id}` is not a run (no run file)")))?;
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| ApiError::unreadable(format!("{}: {e}", dir.display())))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let format = match name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("md") => "markdown",
            Some("csv") => "csv",
            Some("json") => "json",
            Some("svg") => "svg",
            _ => continue,
        };
        // Not followed through a symbolic link (`e.metadata` would).
        let Ok(meta) = e.path().symlink_metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let text = if meta.len() <= MAX_REPORT_BYTES { std::fs::read_to_string(e.path()).ok() } else { None };
        files.push(ReportFile { name, format: format.into(), bytes: meta.len(), text });
    }
    let order =
        |f: &ReportFile| (["markdown", "svg", "csv", "json"].iter().position(|x| *x == f.format), f.name.clone());
    files.sort_by_key(order);
    let generations = if kind == "loop" { loop_rows(dir)? } else { vec![] };
    Ok(RunReport { id: id.into(), kind: kind.into(), files, live: vec![], generations })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_is_not_there_or_has_no_games_has_no_live_rows() {
        let dir = std::env::temp_dir().join(format!("junqi-serve-live-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("matchups/00-a-vs-b")).unwrap();
        let cache = Cache::default();
        assert!(live(&dir, "loop", &cache).is_empty());
        let rows = live(&dir, "arena", &cache);
        assert_eq!(rows, vec![LiveRow { name: "00-a-vs-b".into(), games: 0, points: vec![], first_mover: 0.0 }]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_loops_generations_come_from_its_state_file() {
        let dir = std::env::temp_dir().join(format!("junqi-serve-loop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(loop_rows(&dir).is_err());
        std::fs::write(dir.join("loop.toml"), "[evaluate]\nanchor = \"greedy\"\n").unwrap();
        let state = r#"{"generations": [
            {"index": 0, "minutes": 1.5, "done": true, "promoted": true, "selfplay_games": 8, "train_step": 4,
             "policy_loss": 2.5, "value_loss": 0.9, "elo_vs_anchor": [10.0, -5.0, 25.0],
             "elo_vs_more": [{"anchor": "random", "elo": [100.0, 80.0, 120.0]}]},
            {"index": 1, "minutes": 2.0, "done": false, "promoted": false, "selfplay_games": 3, "train_step": 0,
             "policy_loss": 0.0, "value_loss": 0.0, "elo_vs_more": []}
        ], "best": "gen-000/net.safetensors", "minutes": 2.0, "code_version": "x"}"#;
        std::fs::write(dir.join("state.json"), state).unwrap();
        let rows = loop_rows(&dir).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0].elo,
            vec![("greedy".to_string(), [10.0, -5.0, 25.0]), ("random".into(), [100.0, 80.0, 120.0])]
        );
        assert_eq!((rows[0].policy_loss, rows[0].belief_loss), (Some(2.5), None));
        assert!(!rows[1].done && rows[1].elo.is_empty() && rows[1].policy_loss.is_none());
        // A damaged state file is an error that says what is wrong, not a loop with no generations.
        for (bytes, why) in [
            (&state.as_bytes()[..40], "not JSON"),
            (&b"\x00\xff\xfe binary"[..], "not UTF-8"),
            (&b"{\"best\": null}"[..], "no `generations` list"),
            (&b""[..], "not JSON"),
        ] {
            std::fs::write(dir.join("state.json"), bytes).unwrap();
            let err = loop_rows(&dir).unwrap_err();
            assert_eq!(err.status.as_u16(), 422);
            assert!(err.message.contains(why) && err.message.contains("state.json"), "{}", err.message);
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn symbolic_links_below_a_root_are_not_followed() {
        let base = std::env::temp_dir().join(format!("junqi-serve-links-{}", std::process::id()));
        let (run, outside) = (base.join("root/run"), base.join("outside"));
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(outside.join("games")).unwrap();
        std::fs::write(outside.join("secret.md"), "secret").unwrap();
        std::fs::write(outside.join("run.json"), "{}").unwrap();
        std::os::unix::fs::symlink(outside.join("run.json"), run.join("run.json")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.md"), run.join("notes.md")).unwrap();
        assert_eq!(kind_of(&run), None, "a run file through a link is not a run file");
        std::fs::write(run.join("arena.json"), "{}").unwrap();
        let report = report("0/run", &run).unwrap();
        assert!(report.files.iter().all(|f| f.name != "notes.md"), "{report:?}");
        std::os::unix::fs::symlink(outside.join("games"), run.join("games")).unwrap();
        assert!(Cache::default().dataset(&run).is_err(), "games/ through a link");
        assert!(crate::datasets::discover(&[base.join("root")]).is_empty());
        let _ = std::fs::remove_dir_all(base);
    }
}
