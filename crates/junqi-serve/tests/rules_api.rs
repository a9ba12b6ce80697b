//! The newer two-player rules and the clocks in the play API: a carried
//! flag (扛军旗) and the mountains' pieces (山界) in a state's JSON, the
//! words of the moves that use them, both sides' clocks and a loss on
//! time; and, over random games, that what is sent of them never names a
//! piece the person had not seen face up.

mod common;

use common::{request, start_server};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

/// Red's 工兵 on b3 beside Black's flag on b2 (no black mine left), Red's
/// headquarters b1 one step from it; a black 排长 far away.
const CARRY: &str = "4l/5/5/5/5/5/5/5/5/1E3/1f3/3F1 fanqi 1 r 0 0";
/// Red's 旅长 on b6, beside the left mountain.
const MOUNTAIN: &str = "1f2l/5/5/5/5/5/1R3/5/5/5/5/1F3 mingqi 1 r 0 0";

fn new_game(addr: SocketAddr, body: Value) -> Value {
    let (status, st) = request(addr, "POST", "/api/play", &body);
    assert_eq!(status, 200, "{st}");
    st
}

fn play(addr: SocketAddr, st: &Value, mv: &str) -> Value {
    let (status, st) = request(addr, "POST", &format!("/api/play/{}/move", st["id"]), &json!({"move": mv}));
    assert_eq!(status, 200, "{mv}: {st}");
    st
}

fn board(st: &Value) -> Vec<String> {
    st["board"].as_str().unwrap().split(' ').map(String::from).collect()
}

/// The token on `square` (`b2`: file b, rank 2; squares in order a1, b1, …, e12).
fn at(st: &Value, square: &str) -> String {
    let file = (square.as_bytes()[0] - b'a') as usize;
    let rank: usize = square[1..].parse().unwrap();
    board(st)[(rank - 1) * 5 + file].clone()
}

fn last_log(st: &Value) -> String {
    st["log"].as_array().unwrap().iter().rev().find(|l| l.as_str().unwrap().starts_with("you")).unwrap().to_string()
}

/// 混棋: Red's flag on c6 moves (no black mine left); a red 营长 on a6
/// faces a black 师长 on a7 and a red 工兵 on e6 a black 排长 on e7;
/// Black's flag stands on b12 behind Red's mine on a1.
const HUNQI: &str = "1f3/5/5/5/5/d3l/J1F1E/5/5/5/5/M4 fanqi 1 r 0 0";

#[test]
fn hunqi_offers_the_flag_that_moves_and_never_an_upward_attack() {
    let addr = start_server(None);
    let body = json!({"mode": "fanqi", "variant": "fanqi-hunqi-true", "seat": 1, "bot": "random",
        "seed": 1, "position": HUNQI});
    let st = new_game(addr, body);
    assert_eq!(st["variant"], "fanqi hunqi=true", "{st}");
    let legal: Vec<&str> = st["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert!(legal.contains(&"c6c5") && legal.contains(&"c6c7"), "the flag moves: {legal:?}");
    assert!(!legal.contains(&"a6a7") && !legal.contains(&"e6e7"), "no attack on a higher rank: {legal:?}");
    let st = play(addr, &st, "c6c5");
    assert_eq!(at(&st, "c5"), "rF", "{st}");
}

#[test]
fn a_flag_is_picked_up_put_down_and_carried_home() {
    let addr = start_server(None);
    let carry = json!({"mode": "fanqi", "variant": "fanqi-flag_carry-true", "seat": 1, "bot": "random",
        "seed": 1, "position": CARRY});
    let st = new_game(addr, carry.clone());
    assert_eq!(st["variant"], "fanqi flag_carry=true", "{st}");
    assert!(st.get("loose_flags").is_none() && st.get("mountains").is_none(), "nothing to tell yet: {st}");
    assert_eq!(at(&st, "b2"), "bF");
    // The pick-up: the flag leaves its node and rides on the 工兵.
    let st = play(addr, &st, "b3b2");
    assert_eq!(st["loose_flags"], json!([{"colour": "black", "at": "b2", "carried": true, "from": "b2"}]), "{st}");
    assert_eq!(at(&st, "b2"), "rE");
    assert!(last_log(&st).contains("picks the flag up"), "{st}");
    assert_eq!(st["captured"]["black"].get("F"), None, "a carried flag is not lost: {st}");
    assert!(st["legal"].as_array().unwrap().contains(&json!("b2b2")), "putting it down is an action: {st}");
    // Put down: it lies under the piece, which walks off without it.
    let st = play(addr, &st, "b2b2");
    assert_eq!(st["loose_flags"], json!([{"colour": "black", "at": "b2", "carried": false, "from": null}]), "{st}");
    assert!(last_log(&st).contains("puts the flag down"), "{st}");
    let st = play(addr, &st, "b2b1");
    assert_eq!(at(&st, "b2"), "bF", "the flag stays, alone: {st}");
    assert!(st.get("loose_flags").is_none(), "{st}");
    assert_eq!(st["phase"], "play", "a flag left behind wins nothing");
    // Another game: picked up and carried into b1, the game is won.
    let st = new_game(addr, carry);
    let st = play(addr, &play(addr, &st, "b3b2"), "b2b1");
    assert_eq!(
        (&st["phase"], &st["result"], &st["termination"]),
        (&json!("over"), &json!("1-0"), &json!("flag_captured"))
    );
    assert!(last_log(&st).contains("brings the flag home and wins"), "{st}");
    assert_eq!(st["loose_flags"][0]["at"], "b1", "{st}");
    let (status, record) = request(addr, "GET", &format!("/api/play/{}/record", st["id"]), &json!(null));
    assert_eq!(status, 200);
    assert!(record.as_str().unwrap().contains("b2b1: 红 工兵 — brings the flag home and wins"), "{record}");
}

#[test]
fn a_piece_goes_into_a_mountain_and_comes_out() {
    let addr = start_server(None);
    let st = new_game(
        addr,
        json!({"mode": "mingqi", "variant": "mingqi-mountains-open", "seat": 1,
        "bot": "random", "seed": 2, "position": MOUNTAIN}),
    );
    assert_eq!(st["mountains"], json!([null, null]), "open mountains are sent, empty: {st}");
    let st = play(addr, &st, "b6b6");
    assert_eq!(st["mountains"], json!(["rR", null]), "{st}");
    assert_eq!(at(&st, "b6"), ".");
    assert!(last_log(&st).contains("goes into the mountain"), "{st}");
    // The position lacks one of the two 旅长: the one in the mountain is not lost.
    assert_eq!(st["captured"]["red"]["R"], 1, "{st}");
    let legal: Vec<&str> = st["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    for side in ["a6a6", "b6b6", "a7a7", "b7b7"] {
        assert_eq!(legal.contains(&side), at(&st, &side[..2]) == ".", "{side}: {st}");
    }
    let st = play(addr, &st, "a7a7");
    assert_eq!(st["mountains"], json!([null, null]), "{st}");
    assert_eq!(at(&st, "a7"), "rR");
    assert!(last_log(&st).contains("comes out of the mountain"), "{st}");
    // Closed mountains (the preset) are not sent at all.
    let st = new_game(addr, json!({"mode": "mingqi", "seat": 1, "bot": "random", "seed": 2, "position": MOUNTAIN}));
    assert!(st.get("mountains").is_none() && !st["legal"].as_array().unwrap().contains(&json!("b6b6")), "{st}");
}

#[test]
fn bad_variants_and_positions_are_refused() {
    let addr = start_server(None);
    for (body, why) in [
        (json!({"mode": "anqi", "variant": "fanqi-flag_carry-true", "seat": 1, "bot": "random"}), "not anqi"),
        (json!({"mode": "fanqi", "variant": "fanqi-nothing", "seat": 1, "bot": "random"}), "no variant"),
        (json!({"mode": "anqi", "seat": 1, "bot": "random", "position": MOUNTAIN}), "the position is mingqi"),
        (json!({"mode": "fanqi", "seat": 1, "bot": "random", "position": "5/5 fanqi"}), "position:"),
        (
            json!({"mode": "mingqi", "seat": 1, "bot": "random", "position": "5/5/5/5/5/5/5/5/5/5/5/1F3 mingqi 1 r 0 0"}),
            "already over",
        ),
    ] {
        let (status, answer) = request(addr, "POST", "/api/play", &body);
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains(why), "{body}: {answer}");
    }
    let (status, list) = request(addr, "GET", "/api/variants", &json!(null));
    assert_eq!(status, 200);
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == "fanqi-flag_carry-true" && v["mode"] == "fanqi" && v["options"] == "flag_carry=true"),
        "{list}"
    );
    let (_, geometry) = request(addr, "GET", "/api/board", &json!(null));
    assert_eq!(geometry["mountains"], json!([["a6", "b6", "a7", "b7"], ["d6", "e6", "d7", "e7"]]));
}

/// Random 翻棋 games with the flag carried and the mountains open, one ply
/// a request: a piece in a mountain was face up on one of its sides the ply
/// before (or already there), and a flag on a piece is one the board had
/// shown face up.
#[test]
fn the_new_fields_never_name_a_piece_the_person_had_not_seen() {
    let addr = start_server(None);
    let sides = [["a6", "b6", "a7", "b7"], ["d6", "e6", "d7", "e7"]];
    let mut entered = 0;
    for seed in 0..12u64 {
        let mut st = new_game(
            addr,
            json!({"mode": "fanqi", "variant": "fanqi-mountains-open",
            "options": ["flag_carry=true"], "seat": 1 + seed % 2, "bot": "random", "seed": seed, "bot_later": true}),
        );
        let mut flags_seen = std::collections::HashSet::new();
        for ply in 0..400 {
            if st["phase"] != "play" {
                break;
            }
            for t in board(&st) {
                if t.ends_with('F') && !t.starts_with('#') {
                    flags_seen.insert(t[..1].to_string());
                }
            }
            let next = if st["bot_to_move"] == true {
                request(addr, "POST", &format!("/api/play/{}/bot", st["id"]), &json!(null)).1
            } else {
                let legal = st["legal"].as_array().unwrap();
                // Prefer the new actions, so that they happen often.
                let pick = legal
                    .iter()
                    .map(|m| m.as_str().unwrap())
                    .find(|m| m[..2] == m[2..] && at(&st, &m[..2]) != "#")
                    .unwrap_or_else(|| legal[(ply * 7 + seed as usize) % legal.len()].as_str().unwrap());
                let body = json!({"move": pick, "bot_later": true});
                request(addr, "POST", &format!("/api/play/{}/move", st["id"]), &body).1
            };
            for (m, side) in sides.iter().enumerate() {
                let Some(token) = next["mountains"][m].as_str() else { continue };
                let was = st["mountains"][m].as_str() == Some(token);
                let came = side.iter().any(|sq| at(&st, sq) == token);
                assert!(was || came, "mountain {m} holds {token} from nowhere: {st}\n{next}");
                entered += 1;
            }
            for f in next["loose_flags"].as_array().into_iter().flatten() {
                let letter = &f["colour"].as_str().unwrap()[..1];
                assert!(flags_seen.contains(letter), "a flag never shown face up: {next}");
            }
            st = next;
        }
    }
    assert!(entered > 0, "no piece went into a mountain in 12 games");
}

#[test]
fn both_sides_play_on_the_clock_and_the_person_can_lose_on_time() {
    let addr = start_server(Some("30+1"));
    let body = |seed: u64| json!({"mode": "fanqi", "seat": 1, "bot": "mcts:sims=20", "seed": seed, "bot_later": true});
    let st = new_game(addr, body(1));
    let clocks = &st["clocks"];
    assert_eq!((&clocks["tc"], &clocks["inc_ms"], &clocks["bot_ms"]), (&json!("30+1"), &json!(1000), &json!(30000)));
    assert_eq!(clocks["running"], "you", "{st}");
    assert!(clocks["you_ms"].as_u64().unwrap() <= 30000);
    // A quick move earns the increment; the bot's clock now runs (the page
    // shows it thinking) and its reply is charged to it.
    let mv = st["legal"][0].as_str().unwrap().to_string();
    let (_, st) =
        request(addr, "POST", &format!("/api/play/{}/move", st["id"]), &json!({"move": mv, "bot_later": true}));
    let you = st["clocks"]["you_ms"].as_u64().unwrap();
    assert!(you > 30000 && you <= 31000, "{st}");
    assert_eq!(st["clocks"]["running"], "bot", "{st}");
    let (_, st) = request(addr, "POST", &format!("/api/play/{}/bot", st["id"]), &json!(null));
    let bot = st["clocks"]["bot_ms"].as_u64().unwrap();
    assert!(bot > 30000 && bot <= 31000, "the bot's reply and its increment: {st}");
    assert_eq!(st["bot_clock"]["left_ms"], bot, "{st}");
    assert_eq!(st["clocks"]["running"], "you");

    // On a clock of half a second: the person who does not move loses on time.
    let addr = start_server(Some("0.5+0"));
    let st = new_game(addr, body(2));
    std::thread::sleep(Duration::from_millis(700));
    let (_, over) = request(addr, "GET", &format!("/api/play/{}", st["id"]), &json!(null));
    assert_eq!(
        (&over["phase"], &over["result"], &over["termination"]),
        (&json!("over"), &json!("0-1"), &json!("timeouts"))
    );
    assert_eq!(over["clocks"]["you_ms"], 0, "{over}");
    assert!(over["clocks"]["running"].is_null(), "{over}");
    assert!(over["log"].as_array().unwrap().contains(&json!("you ran out of time")), "{over}");
    let (status, _) = request(addr, "POST", &format!("/api/play/{}/move", st["id"]), &json!({"move": st["legal"][0]}));
    assert_eq!(status, 409, "no move after the end");
    // A move sent after the time ran out is not played: the game is lost on time.
    let st = new_game(addr, body(3));
    std::thread::sleep(Duration::from_millis(700));
    let (status, over) =
        request(addr, "POST", &format!("/api/play/{}/move", st["id"]), &json!({"move": st["legal"][0]}));
    assert_eq!((status, &over["termination"], &over["ply"]), (200, &json!("timeouts"), &json!(0)), "{over}");
    // Without a clock (a bot without a time notion) nothing is sent.
    let st = new_game(addr, json!({"mode": "fanqi", "seat": 1, "bot": "greedy", "seed": 4}));
    assert!(st.get("clocks").is_none(), "{st}");
}
