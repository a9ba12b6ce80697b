//! scripts/siguo-recipe.sh end to end with the tiny settings its header
//! gives for a smoke test: the loop, the DAgger round (the loop's net
//! against `random` and `heuristic`, `reanalyse --keep-stored` on its team,
//! `train` on both runs from the loop's net) and the six arenas of the
//! round's net. Run again, every step finds its work done.

use junqi_net::{NetFile, NetGame};
use junqi_selfplay::{read_siguo_samples_file, shard_files, SiguoSample, SAMPLES_DIR};
use std::path::Path;
use std::process::Command;

const LOOP_ARGS: [&str; 22] = [
    "--generations",
    "2",
    "--set",
    "bootstrap.games=20",
    "--set",
    "bootstrap.steps=20",
    "--set",
    "selfplay.games=4",
    "--set",
    "selfplay.sims=4",
    "--set",
    "steps_per_generation=20",
    "--set",
    "evaluate.games=4",
    "--set",
    "evaluate.sims=4",
    "--set",
    "evaluate.anchor_games=4",
    "--set",
    "evaluate.more_anchors=[]",
    "--set",
    "evaluate.sprt.max_games=8",
];

fn rows(run: &Path) -> Vec<SiguoSample> {
    let files = shard_files(&run.join(SAMPLES_DIR)).unwrap();
    files.iter().flat_map(|f| read_siguo_samples_file(f).unwrap()).collect()
}

fn key(s: &SiguoSample) -> (u64, u32) {
    (s.game_id, s.ply)
}

#[test]
fn the_siguo_recipe_runs_from_nothing_and_resumes() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-recipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/siguo-recipe.sh");
    let recipe = || {
        let out = Command::new("bash")
            .arg(script)
            .arg(&dir)
            .args(LOOP_ARGS)
            .env("JUNQI_BIN", env!("CARGO_BIN_EXE_junqi"))
            .envs([("ARENA_GAMES", "4"), ("SEARCH_SIMS", "4"), ("DAGGER_GAMES", "4")])
            .envs([("DAGGER_BOT", "greedy"), ("DAGGER_STEPS", "4")])
            .output()
            .expect("run bash");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{text}");
        text
    };
    let text = recipe();
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("loop/state.json")).unwrap()).unwrap();
    let best = dir.join("loop").join(state["best"].as_str().unwrap());
    let tag = best.file_stem().unwrap().to_string_lossy().to_string();
    let dagger = dir.join(format!("dagger-{tag}"));
    assert!(text.contains(&format!("3/3 the arenas of {}", dagger.join("train/net.safetensors").display())), "{text}");

    // The round: the relabelled runs hold the net's team's positions, every
    // one (relabelled or kept), and the trained net moved from the loop's.
    for opponent in ["random", "heuristic"] {
        let played = rows(&dagger.join(opponent));
        let team_a: Vec<(u64, u32)> = played.iter().filter(|s| s.seat as u64 % 2 == s.game_id % 2).map(key).collect();
        let relabelled: Vec<(u64, u32)> =
            rows(&dagger.join(format!("{opponent}-relabelled"))).iter().map(key).collect();
        assert!(!team_a.is_empty() && team_a.len() < played.len());
        assert_eq!(relabelled, team_a, "{opponent}");
    }
    let trained_path = dagger.join("train/net.safetensors");
    assert_ne!(std::fs::read(&trained_path).unwrap(), std::fs::read(&best).unwrap(), "4 steps change the weights");
    let trained = NetFile::read_game(&trained_path, NetGame::Siguo).unwrap();
    let loop_net = NetFile::read_game(&best, NetGame::Siguo).unwrap();
    assert_eq!(trained.deployment_model().unwrap(), loop_net.deployment_model().unwrap(), "deploys as the loop's net");
    // The arenas' folders name the trained net by its bytes.
    let hash = Command::new("sha256sum").arg(&trained_path).output().expect("run sha256sum");
    let hash = String::from_utf8_lossy(&hash.stdout)[..8].to_string();
    let arenas = ["policy-vs-random", "policy-vs-greedy", "search-vs-heuristic", "search-vs-mcts"];
    for arena in arenas.iter().chain(&["search-allied-with-heuristic", "heuristic-allied-with-search"]) {
        let report = dir.join(format!("arena-{tag}-dagger-{hash}-{arena}/results.md"));
        let report = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{}: {e}", report.display()));
        assert!(report.contains("dagger-") && report.contains("| 4 |"), "{report}");
    }

    // Again: nothing is played, relabelled or trained a second time.
    let again = recipe();
    assert_eq!(again.matches("nothing to do: all 4 games are already in").count(), 2, "{again}");
    assert_eq!(again.matches("reanalysed 0 games").count(), 2, "{again}");
    assert!(again.contains("trained steps 4..4"), "{again}");
    let _ = std::fs::remove_dir_all(&dir);
}
