//! `junqi serve` over plain HTTP on 127.0.0.1: the API answers, and bad
//! input (a damaged dataset, a game id that is not there, an illegal move
//! posted by hand, a path out of the runs directory) gets a clear JSON
//! error while the server goes on serving. The page itself is tested in a
//! real browser (scripts/browser).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The server, killed when dropped (whatever the test does).
type Server = crate::common::ServeProcess;

fn start(runs: &Path) -> Server {
    Server::start(runs)
}

/// One request; the status and the body.
fn request(server: &Server, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    request_to(server, &server.addr, method, path, body)
}

/// One request naming `host` in its `Host` header.
fn request_to(server: &Server, host: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("{text}"));
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("serve", name, true)
}

fn selfplay(out: &Path, rules: &str) {
    let o = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(["selfplay", "--rules", rules, "--games", "6", "--bots", "greedy,random", "--samples-per-game", "all"])
        .args(["--shard-games", "3", "--seed", "2", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_api_replays_games_and_bad_input_gets_a_clear_error() {
    let root = temp_dir("api");
    selfplay(&root.join("fanqi"), "fanqi");
    selfplay(&root.join("broken"), "fanqi");
    let arena = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(["arena", "--bots", "random,greedy", "--games-per-pair", "6", "--seed", "4", "--out"])
        .arg(root.join("arena"))
        .output()
        .unwrap();
    assert!(arena.status.success(), "{}", String::from_utf8_lossy(&arena.stderr));
    let server = start(&root);

    let (status, body) = request(&server, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(body.contains("<script src=\"/app.js\">"), "{body}");
    let datasets = json(&request(&server, "GET", "/api/datasets", None).1);
    let ids: Vec<&str> = datasets.as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["0/arena/matchups/00-random-vs-greedy", "0/broken", "0/fanqi"]);
    // An arena's games on disk, tallied: every game once, every point given.
    let run = json(&request(&server, "GET", "/api/run?d=0/arena", None).1);
    assert_eq!(run["kind"], "arena");
    let live = &run["live"][0];
    assert_eq!(live["games"].as_u64(), Some(6), "{run}");
    let points: f64 = live["points"].as_array().unwrap().iter().map(|p| p[1].as_f64().unwrap()).sum();
    assert_eq!(points, 6.0);
    assert!(run["files"].as_array().unwrap().iter().any(|f| f["name"] == "results.md"));

    // A game list, a filter, one game seen by the referee and by seat 1.
    let list = json(&request(&server, "GET", "/api/games?d=0/fanqi&bot=greedy&limit=4", None).1);
    assert_eq!((list["total"].as_u64(), list["matched"].as_u64()), (Some(6), Some(6)));
    assert_eq!(list["games"].as_array().unwrap().len(), 4);
    let game = json(&request(&server, "GET", "/api/game?d=0/fanqi&id=1", None).1);
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(game["frames"].as_array().unwrap().len(), moves.len() + 1);
    assert!(game["error"].is_null());
    assert!(!game["samples"].as_array().unwrap().is_empty(), "the samples' policy and value are shown");
    // The last frame is the position `junqi apply` gives.
    let start = game["jfen"][0].as_str().unwrap();
    let text: Vec<&str> = moves.iter().map(|m| m.as_str().unwrap()).collect();
    let applied = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(["apply", "--position", start, "--moves", &text.join(" ")])
        .output()
        .unwrap();
    let applied = String::from_utf8_lossy(&applied.stdout).lines().next().unwrap().to_string();
    assert_eq!(game["jfen"].as_array().unwrap().last().unwrap().as_str().unwrap(), applied);
    let seat = json(&request(&server, "GET", "/api/game?d=0/fanqi&id=1&view=2", None).1);
    assert!(seat["jfen"].as_array().unwrap().is_empty(), "a seat's view carries no JFEN");

    // Bad input: each a clear error, and the server goes on.
    let shard = std::fs::read_dir(root.join("broken/games"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".parquet"));
    std::fs::write(shard.unwrap().path(), b"not parquet at all").unwrap();
    for (path, want) in [
        ("/api/games?d=0/broken", 422),
        ("/api/game?d=0/fanqi&id=999", 404),
        ("/api/game?d=0/fanqi&id=1&view=3", 400),
        ("/api/games?d=0/../..", 400),
        ("/api/games?d=7/x", 404),
        ("/api/play/12345", 404),
        ("/api/play/x", 400),
        ("/api/game?d=0/fanqi&id=abc", 400),
        ("/api/nothing", 404),
    ] {
        let (status, body) = request(&server, "GET", path, None);
        assert_eq!(status, want, "{path}: {body}");
        assert!(json(&body)["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {body}");
    }
    // A game against a bot, and an illegal move posted by hand.
    let (status, body) =
        request(&server, "POST", "/api/play", Some(r#"{"mode":"fanqi","seat":1,"bot":"random","seed":3}"#));
    assert_eq!(status, 200, "{body}");
    let st = json(&body);
    let id = st["id"].as_u64().unwrap();
    assert!(st["your_turn"].as_bool().unwrap());
    for (bad, want) in [(r#"{"move":"a1a12"}"#, 400), (r#"{"move":"zz"}"#, 400), (r#"{}"#, 422), ("not json", 400)] {
        let (status, body) = request(&server, "POST", &format!("/api/play/{id}/move"), Some(bad));
        assert_eq!(status, want, "{bad}: {body}");
        assert!(json(&body)["error"].as_str().is_some_and(|e| !e.is_empty()), "{bad}: {body}");
    }
    // A seed the person chose is theirs; one the server drew is told at the end only.
    assert_eq!(st["seed"].as_u64(), Some(3));
    let (_, body) = request(&server, "POST", "/api/play", Some(r#"{"mode":"anqi","seat":2,"bot":"random"}"#));
    assert!(json(&body)["seed"].is_null(), "{body}");
    // Engines start programs: only when the server was started to offer them.
    let (status, body) =
        request(&server, "POST", "/api/play", Some(r#"{"mode":"fanqi","seat":1,"bot":"engine:cmd=true"}"#));
    assert_eq!(status, 400);
    assert!(body.contains("--allow-engines"), "{body}");
    // A page elsewhere, reaching 127.0.0.1 through a name of its own, is refused.
    let (status, body) = request_to(&server, "evil.example:8080", "GET", "/api/datasets", None);
    assert_eq!(status, 403, "{body}");
    assert_eq!(request_to(&server, "localhost", "GET", "/", None).0, 200);
    let (status, _) = request(&server, "GET", &format!("/api/play/{id}/record"), None);
    assert_eq!(status, 409, "no record before the end");
    let legal = st["legal"][0].as_str().unwrap().to_string();
    let (status, body) =
        request(&server, "POST", &format!("/api/play/{id}/move"), Some(&format!(r#"{{"move":"{legal}"}}"#)));
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["ply"].as_u64(), Some(2), "the bot replied");
    let (status, body) = request(&server, "POST", "/api/play", Some(r#"{"mode":"anqi","seat":1,"bot":"no-such-bot"}"#));
    assert_eq!(status, 400, "{body}");
    let (status, _) = request(&server, "GET", "/api/datasets", None);
    assert_eq!(status, 200, "still serving");
    drop(server);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn with_no_games_below_the_runs_the_sample_games_are_shown_and_removed_at_the_end() {
    let empty = temp_dir("no-games");
    let mut server = start(&empty);
    // After `runs from …`: the note naming the samples' directory.
    let note = (0..2).map(|_| server.next_line()).find(|l| l.contains("sample games")).unwrap_or_default();
    let dir = PathBuf::from(note.split_once('(').and_then(|(_, d)| d.split_once(')')).map(|(d, _)| d).unwrap());
    assert!(note.contains("sample games") && dir.is_dir(), "{note}");
    let list = json(&request(&server, "GET", "/api/datasets", None).1);
    let ids: Vec<&str> = list.as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["1/anqi", "1/fanqi", "1/mingqi"]);
    for mode in ["anqi", "fanqi", "mingqi"] {
        let games = json(&request(&server, "GET", &format!("/api/games?d=1/{mode}"), None).1);
        assert_eq!(games["total"], 4, "{mode}: {games}");
        let game = json(&request(&server, "GET", &format!("/api/game?d=1/{mode}&id=0"), None).1);
        assert!(game["error"].is_null() && !game["samples"].as_array().unwrap().is_empty(), "{mode}");
    }
    // SIGTERM ends it cleanly: the samples' directory goes with it.
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let _ = server.child.wait();
    assert!(!dir.exists(), "{}", dir.display());
}

#[test]
fn the_bot_may_reply_in_a_request_of_its_own_and_the_end_reveals_every_piece() {
    let empty = temp_dir("bot-later");
    let server = start(&empty);
    let post = |path: &str, body: &str| {
        let (status, text) = request(&server, "POST", path, Some(body));
        assert_eq!(status, 200, "{path}: {text}");
        json(&text)
    };
    // The bot moves first, but only when asked.
    let st = post("/api/play", r#"{"mode":"fanqi","seat":2,"bot":"random","seed":5,"bot_later":true}"#);
    let id = st["id"].as_u64().unwrap();
    assert_eq!(
        (st["ply"].as_u64(), st["bot_to_move"].as_bool(), st["your_turn"].as_bool()),
        (Some(0), Some(true), Some(false))
    );
    // The face-down pool is the whole deal; nothing is lost yet.
    let pool: u64 = ["red", "black"]
        .iter()
        .flat_map(|c| st["pool"][c].as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(pool, 50, "{}", st["pool"]);
    let st = post(&format!("/api/play/{id}/bot"), "");
    assert_eq!(
        (st["ply"].as_u64(), st["bot_to_move"].as_bool(), st["your_turn"].as_bool()),
        (Some(1), Some(false), Some(true))
    );
    // Asked again when it is not its turn: nothing happens.
    assert_eq!(post(&format!("/api/play/{id}/bot"), "")["ply"].as_u64(), Some(1));
    let mv = st["legal"][0].as_str().unwrap().to_string();
    let st = post(&format!("/api/play/{id}/move"), &format!(r#"{{"move":"{mv}","bot_later":true}}"#));
    assert_eq!((st["ply"].as_u64(), st["bot_to_move"].as_bool()), (Some(2), Some(true)));
    assert!(st["reveal"].is_null(), "nothing revealed while the game goes on");
    // At the end the referee's board: every face-down piece with its kind.
    let st = post(&format!("/api/play/{id}/resign"), "");
    let reveal = st["reveal"].as_str().unwrap();
    assert!(reveal.split(' ').all(|t| t != "#" && !t.contains('?')), "{reveal}");
    // Two flips so far (the person has no face-up piece to attack with): all 50 pieces.
    assert_eq!(reveal.split(' ').filter(|t| *t != ".").count(), 50, "{reveal}");
}
