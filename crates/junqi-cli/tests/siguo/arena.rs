//! `junqi arena --siguo` and `junqi sprt --siguo`: two bots as two teams of
//! the four-player game (docs/rules.md §10, docs/evaluation.md), every deal
//! played with the teams' seats swapped.

use super::{assert_clean_error, junqi, stdout};
use std::path::PathBuf;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-arena-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn json(path: PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// A strong team against random scores well above half; the report holds
/// W-D-L, the pair statistics and the endings; the games are a four-player
/// run that `junqi replay` re-plays; the same seed gives the same results.
#[test]
fn arena_siguo_scores_two_teams_from_paired_deals() {
    let (dir, again) = (fresh_dir("strong"), fresh_dir("strong-again"));
    let d = dir.to_str().unwrap();
    let args = ["arena", "--siguo", "--bots", "heuristic,random", "--games-per-pair", "8", "--seed", "5"];
    let text = stdout(&junqi(&[&args[..], &["--out", d]].concat()));
    assert!(text.contains("Four-player arena (四国): anqi (preset rules)"), "{text}");
    assert!(text.contains("| heuristic | random | 8 |"), "{text}");
    let results = json(dir.join("results.json"));
    let t = &results["tally"];
    assert_eq!(t["games"], 8);
    let (w, d_, l) = (t["wins"].as_u64().unwrap(), t["draws"].as_u64().unwrap(), t["losses"].as_u64().unwrap());
    assert_eq!(w + d_ + l, 8);
    let score = results["score"]["value"].as_f64().unwrap();
    assert!(score > 0.75, "heuristic against random: {score}");
    assert!(results["elo"]["low"].as_f64().unwrap() > 0.0, "{results}");
    assert_eq!(results["penta"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum::<u64>(), 4);
    let arena = json(dir.join("arena.json"));
    assert_eq!(arena["format"], "junqi-siguo-arena/1");
    assert_eq!(arena["config"]["bots"], serde_json::json!(["heuristic", "random"]));
    assert_eq!(arena["config"]["seed"], 5);
    assert!(arena["code_version"].is_string());
    assert!(dir.join("results.md").is_file());
    let replayed = stdout(&junqi(&["replay", "--games", d]));
    assert!(replayed.contains("replayed 8 game(s): all match"), "{replayed}");
    // Same seed, same results (and the finished run is read back, not refused).
    let a = again.to_str().unwrap();
    stdout(&junqi(&[&args[..], &["--out", a, "--threads", "1"]].concat()));
    assert_eq!(json(again.join("results.json"))["tally"], results["tally"]);
    assert_eq!(json(again.join("results.json"))["penta"], results["penta"]);
    let rerun = stdout(&junqi(&[&args[..], &["--out", d]].concat()));
    assert_eq!(rerun, text);
    // Another seed in the same directory is other work.
    let other = [&args[..6], &["--seed", "6", "--out", d]].concat();
    assert_clean_error(&junqi(&other), "other work");
    for dir in [dir, again] {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Bad input is one error line, never a panic.
#[test]
fn arena_and_sprt_siguo_refuse_bad_input() {
    let dir = fresh_dir("bad");
    let d = dir.to_str().unwrap();
    let arena =
        |bots: &str, games: &str| junqi(&["arena", "--siguo", "--bots", bots, "--games-per-pair", games, "--out", d]);
    assert_clean_error(&arena("nope,random", "2"), "unknown four-player bot `nope`");
    assert_clean_error(&arena("mcts:sims=100,c=4,random", "2"), "unknown key `c`");
    assert_clean_error(&arena("net:fanqi,random", "2"), "net:fanqi");
    assert_clean_error(&arena("cheat-mcts,random", "2"), "cheat-mcts");
    assert_clean_error(&arena("mcts:0,random", "2"), "mcts:0");
    assert_clean_error(&arena("heuristic", "2"), "two bots");
    assert_clean_error(&arena("heuristic,greedy,random", "2"), "two bots");
    assert_clean_error(&arena("random,random", "2"), "both teams");
    assert_clean_error(&arena("heuristic,random", "3"), "even");
    let rules = junqi(&["arena", "--siguo", "--bots", "greedy,random", "--rules", "fanqi", "--out", d]);
    assert_clean_error(&rules, "fanqi");
    let set = junqi(&["arena", "--siguo", "--bots", "greedy,random", "--set", "nope=1", "--out", d]);
    assert_clean_error(&set, "nope");
    // Two-player-only flags are refused by the parser.
    let gauntlet = junqi(&["arena", "--siguo", "--bots", "greedy,random", "--schedule", "gauntlet", "--out", d]);
    assert_eq!(gauntlet.status.code(), Some(2));
    let sprt = |c: &str, b: &str, extra: &[&str]| {
        junqi(&[&["sprt", "--siguo", "--candidate", c, "--baseline", b, "--out", d][..], extra].concat())
    };
    assert_clean_error(&sprt("net:fanqi", "random", &[]), "net:fanqi");
    assert_clean_error(&sprt("heuristic", "nope", &[]), "nope");
    assert_clean_error(&sprt("heuristic", "heuristic", &[]), "--allow-same");
    assert_clean_error(&sprt("heuristic", "random", &["--batch-games", "3"]), "even");
    assert_clean_error(&sprt("heuristic", "random", &["--elo0", "5", "--elo1", "0"]), "nelo1");
    assert_clean_error(&sprt("heuristic", "random", &["--max-games", "2"]), "--max-games");
    assert!(!dir.join("batches").exists(), "nothing played");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `junqi sprt --siguo` stops with H1 (exit 0) on an obvious difference,
/// writes its config and result, and gives the same verdict from the same
/// seed; the baseline against the candidate accepts H0 (exit 1).
#[test]
fn sprt_siguo_stops_on_an_obvious_difference() {
    let (dir, flipped) = (fresh_dir("sprt"), fresh_dir("sprt-flipped"));
    let d = dir.to_str().unwrap();
    let bounds = ["--elo0", "0", "--elo1", "200", "--alpha", "0.1", "--beta", "0.1", "--batch-games", "4"];
    let args = |c: &'static str, b: &'static str, out: &str| {
        let mut v = vec!["sprt", "--siguo", "--candidate", c, "--baseline", b, "--max-games", "40", "--seed", "2"];
        v.extend_from_slice(&bounds);
        v.extend_from_slice(&["--out", out]);
        v.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |v: &[String]| junqi(&v.iter().map(String::as_str).collect::<Vec<_>>());
    let out = run(&args("heuristic", "random", d));
    let text = stdout(&out);
    assert!(text.contains("H1 accepted"), "{text}");
    assert!(text.contains("team heuristic vs team random"), "{text}");
    let result = json(dir.join("result.json"));
    assert_eq!(result["summary"]["decision"], "AcceptH1", "{result}");
    let games = result["games"].as_u64().unwrap();
    assert!(games < 40 && games.is_multiple_of(4), "{games}");
    assert_eq!(json(dir.join("sprt.json"))["format"], "junqi-siguo-sprt/1");
    let replayed = stdout(&junqi(&["replay", "--games", dir.join("batches/00000").to_str().unwrap()]));
    assert!(replayed.contains("replayed 4 game(s): all match"), "{replayed}");
    // The same command reads the batches back: the same verdict.
    assert_eq!(stdout(&run(&args("heuristic", "random", d))), text);
    let f = run(&args("random", "heuristic", flipped.to_str().unwrap()));
    assert_eq!(f.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&f.stderr));
    assert!(String::from_utf8_lossy(&f.stdout).contains("H0 accepted"));
    for dir in [dir, flipped] {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A team spec with its own parameters after a comma
/// (`mcts:sims=4,movetime=50`) stays one spec in `arena --siguo` and
/// `selfplay --siguo`, as it does for two players.
#[test]
fn siguo_team_specs_keep_their_own_parameters() {
    let dir = fresh_dir("keys");
    let d = dir.to_str().unwrap();
    let text = stdout(&junqi(&[
        "arena",
        "--siguo",
        "--bots",
        "mcts:sims=4,movetime=50,random",
        "--games-per-pair",
        "2",
        "--out",
        d,
    ]));
    assert!(text.contains("| mcts:sims=4,movetime=50 | random | 2 |"), "{text}");
    let arena = json(dir.join("arena.json"));
    assert_eq!(arena["config"]["bots"], serde_json::json!(["mcts:sims=4,movetime=50", "random"]));
    let played = dir.join("selfplay");
    let p = played.to_str().unwrap();
    let text = stdout(&junqi(&[
        "selfplay",
        "--siguo",
        "--bots",
        "mcts:sims=4,movetime=50,random",
        "--games",
        "2",
        "--out",
        p,
    ]));
    assert!(text.contains("team mcts:sims=4,movetime=50"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
