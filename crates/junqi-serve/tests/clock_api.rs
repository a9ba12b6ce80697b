//! `junqi serve --tc`: the built-in search bots of every game play on the
//! server's clock, kept per game and reported in the play API's state.
//! Bots given a million (two-player) or a hundred million (four-player)
//! simulations, which would take minutes or hours a move, answer within a
//! generous bound.

mod common;

use common::request;
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

fn start_server(tc: &str) -> SocketAddr {
    common::start_server(Some(tc))
}

#[test]
fn a_search_with_a_million_simulations_answers_on_the_servers_clock() {
    let addr = start_server("1+0.1");
    let began = Instant::now();
    let new = json!({"mode": "fanqi", "seat": 2, "bot": "mcts:sims=1000000", "seed": 3});
    let (status, st) = request(addr, "POST", "/api/play", &new);
    assert_eq!(status, 200, "{st}");
    assert_eq!(st["bot"], "mcts:tc=1+0.1", "{st}");
    let clock = &st["bot_clock"];
    assert_eq!(clock["tc"], "1+0.1", "{st}");
    let first = clock["last_ms"].as_u64().expect("the bot moved first");
    assert!(first < 10_000, "{st}");
    assert!(clock["left_ms"].as_u64().unwrap() <= 1100, "{st}");
    // The person's move and the bot's reply, on the same clock.
    let id = st["id"].as_u64().unwrap();
    let mv = st["legal"][0].as_str().unwrap().to_string();
    let (status, st) = request(addr, "POST", &format!("/api/play/{id}/move"), &json!({"move": mv}));
    assert_eq!(status, 200, "{st}");
    let reply = st["bot_clock"]["last_ms"].as_u64().unwrap();
    assert!(reply < 10_000, "{st}");
    assert!(began.elapsed() < Duration::from_secs(60), "{:?}", began.elapsed());
    // Another game has its own clock: full, no move yet.
    let later = json!({"mode": "fanqi", "seat": 2, "bot": "mcts", "seed": 4, "bot_later": true});
    let (_, other) = request(addr, "POST", "/api/play", &later);
    assert_eq!(other["bot_clock"], json!({"tc": "1+0.1", "left_ms": 1000, "last_ms": null}), "{other}");
    // A bot with its own time keeps it; one without a time notion has no clock.
    let own = json!({"mode": "fanqi", "seat": 2, "bot": "mcts:movetime=20", "seed": 5, "bot_later": true});
    let (_, st) = request(addr, "POST", "/api/play", &own);
    assert_eq!(st["bot"], "mcts:movetime=20", "{st}");
    assert!(st.get("bot_clock").is_none(), "{st}");
    let greedy = json!({"mode": "fanqi", "seat": 2, "bot": "greedy", "seed": 5, "bot_later": true});
    let (_, st) = request(addr, "POST", "/api/play", &greedy);
    assert!(st.get("bot_clock").is_none() && st["bot"] == "greedy", "{st}");
}

#[test]
fn the_four_player_search_answers_on_the_servers_clock() {
    let addr = start_server("1+0.1");
    let began = Instant::now();
    let new = json!({"seat": 3, "bot": "mcts:100000000", "seed": 4});
    let (status, st) = request(addr, "POST", "/api/play/siguo", &new);
    assert_eq!(status, 200, "{st}");
    assert_eq!(st["phase"], "deploy", "{st}");
    // The deployment proposed: the game starts and the three bots move.
    let (status, st) = request(addr, "POST", &format!("/api/play/siguo/{}/deploy", st["id"]), &json!({}));
    assert_eq!(status, 200, "{st}");
    assert!(st["moves"].as_array().unwrap().len() >= 3, "the three bots moved: {st}");
    let left = st["clocks_left_ms"].as_array().expect("the clocks are reported");
    assert_eq!(left.len(), 4, "{st}");
    assert!(left[3].is_null(), "the person has no clock: {st}");
    assert!(left[..3].iter().all(|l| l.as_u64().is_some_and(|ms| ms <= 1100)), "{st}");
    assert!(began.elapsed() < Duration::from_secs(60), "{:?}", began.elapsed());
}
