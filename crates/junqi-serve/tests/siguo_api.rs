//! The four-player play API through HTTP: a 四国暗棋 game played by the
//! person's seat against three bots, every response checked against the
//! seat's information set rebuilt here from the seed and the public moves
//! (no kind the seat could not know), and bad requests answered with 4xx.

use junqi_serve::siguo::seat_board;
use junqi_serve::{serve, ServeOptions};
use junqi_siguo::{Army, Mode, Move, Position, Rules, SiguoInfoSet};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

fn start_server() -> SocketAddr {
    start_server_on(vec![])
}

fn start_server_on(runs: Vec<std::path::PathBuf>) -> SocketAddr {
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    std::thread::spawn(move || serve(ServeOptions { addr, runs, allow_engines: false, tc: None }));
    let t = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(t.elapsed() < Duration::from_secs(30), "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    addr
}

/// One request; the status and the body as JSON.
fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
    let (_, payload) = text.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(payload).unwrap_or(Value::String(payload.to_string())))
}

/// The seat's information set from the seed and the public moves, built
/// here from the rules crate alone, against which the page's board is held.
fn expected_board(seed: u64, seat: Army, moves: &[Value]) -> Vec<String> {
    let mut pos = Position::new_game(Rules::preset(Mode::Anqi), seed);
    let mut info = SiguoInfoSet::new(&pos, seat);
    for m in moves {
        let mv: Move = m.as_str().unwrap().parse().unwrap();
        let before = pos.clone();
        let effect = pos.play(mv).unwrap();
        info.witness(&before, mv, &effect, &pos);
    }
    seat_board(&info)
}

fn check_view(st: &Value, seed: u64, seat: Army) {
    let board: Vec<String> = st["board"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    assert_eq!(board.len(), 129);
    let expected = expected_board(seed, seat, st["moves"].as_array().unwrap());
    assert_eq!(board, expected, "the page's board is not the seat's information set");
    if st["phase"] == "play" {
        assert!(st["reveal"].is_null(), "the referee's board before the end");
        assert!(st["seed"].is_null() || st["seed"] == seed);
    }
    // Nothing else in the response names a piece kind of another army.
    let text = st.to_string();
    assert!(!text.contains("\"truth\""), "{text}");
}

#[test]
fn a_siguo_anqi_game_through_the_api_never_shows_a_hidden_kind() {
    let addr = start_server();
    for seat in [0u8, 1, 2, 3] {
        let seed = 100 + seat as u64;
        let army = Army::new(seat as usize).unwrap();
        let body =
            json!({"seat": seat, "bots": ["heuristic", "random", "greedy", "random"], "seed": seed, "bot_later": true})
                .to_string();
        let (status, mut st) = request(addr, "POST", "/api/play/siguo", Some(&body));
        assert_eq!(status, 200, "{st}");
        assert_eq!(st["mode"], "anqi");
        check_view(&st, seed, army);
        let id = st["id"].as_u64().unwrap();
        let mut turns = 0;
        while st["phase"] == "play" && turns < 60 {
            if st["bot_to_move"] == true {
                // A move out of turn is refused.
                let (code, e) =
                    request(addr, "POST", &format!("/api/play/siguo/{id}/move"), Some(r#"{"move":"sa1-sa2"}"#));
                assert_eq!(code, 409, "{e}");
                (_, st) = request(addr, "POST", &format!("/api/play/siguo/{id}/bot"), None);
            } else {
                let legal = st["legal"].as_array().unwrap();
                let mv = legal[turns % legal.len()].as_str().unwrap().to_string();
                let later = turns % 2 == 0;
                let body = json!({"move": mv, "bot_later": later}).to_string();
                let (code, next) = request(addr, "POST", &format!("/api/play/siguo/{id}/move"), Some(&body));
                assert_eq!(code, 200, "{next}");
                st = next;
                turns += 1;
            }
            check_view(&st, seed, army);
        }
        if st["phase"] == "play" {
            let (code, next) = request(addr, "POST", &format!("/api/play/siguo/{id}/resign"), None);
            assert_eq!(code, 200);
            st = next;
            assert_eq!(st["your_result"], "loss");
        }
        assert_eq!(st["phase"], "over");
        assert_eq!(st["reveal"].as_array().unwrap().len(), 129);
        assert!(st["result"].is_string());
    }
}

#[test]
fn bad_siguo_requests_get_clear_4xx_errors() {
    let addr = start_server();
    let cases: &[(&str, &str, Option<&str>, u16, &str)] = &[
        ("POST", "/api/play/siguo", Some("{"), 400, ""),
        ("POST", "/api/play/siguo", Some(r#"{"seat": 9}"#), 400, "seat 9"),
        ("POST", "/api/play/siguo", Some(r#"{"seat": "x"}"#), 422, ""),
        ("POST", "/api/play/siguo", Some(r#"{"bot": "nope"}"#), 400, "unknown four-player bot"),
        ("POST", "/api/play/siguo", Some(r#"{"bots": ["random"]}"#), 400, "four"),
        ("POST", "/api/play/siguo", Some(r#"{"mode": "fanqi"}"#), 400, ""),
        ("POST", "/api/play/siguo", Some(r#"{"options": ["nonsense=1"]}"#), 400, ""),
        ("POST", "/api/play/siguo", Some(r#"{"colour": "red"}"#), 422, "colour"),
        ("GET", "/api/play/siguo/999", None, 404, "no four-player game 999"),
        ("GET", "/api/play/siguo/abc", None, 400, ""),
        ("POST", "/api/play/siguo/999/move", Some(r#"{"move":"sa1-sa2"}"#), 404, ""),
    ];
    for &(method, path, body, want, says) in cases {
        let (code, v) = request(addr, method, path, body);
        assert_eq!(code, want, "{method} {path} {body:?}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{method} {path}: {v}");
    }
    // A game: bad move text, an illegal move, then over.
    let (_, st) = request(addr, "POST", "/api/play/siguo", Some(r#"{"seat": 0, "bot": "random", "seed": 5}"#));
    let id = st["id"].as_u64().unwrap();
    let mv =
        |m: &str| request(addr, "POST", &format!("/api/play/siguo/{id}/move"), Some(&json!({"move": m}).to_string()));
    let (code, v) = mv("zz");
    assert_eq!(code, 400, "{v}");
    let (code, v) = mv("sa1-m");
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("not a legal move"), "{v}");
    let (code, _) = request(addr, "POST", &format!("/api/play/siguo/{id}/move"), Some(r#"{"mv": 1}"#));
    assert_eq!(code, 422);
    assert_eq!(request(addr, "POST", &format!("/api/play/siguo/{id}/resign"), None).0, 200);
    let (code, v) = request(addr, "POST", &format!("/api/play/siguo/{id}/resign"), None);
    assert_eq!(code, 409, "{v}");
    let (code, v) = mv(st["legal"][0].as_str().unwrap());
    assert_eq!(code, 409, "{v}");
    // The board geometry.
    let (code, g) = request(addr, "GET", "/api/siguo/board", None);
    assert_eq!(code, 200);
    assert_eq!(g["nodes"].as_array().unwrap().len(), 129);
}

#[test]
fn a_stored_siguo_game_replays_as_the_referee_and_as_each_seat() {
    let root = std::env::temp_dir().join(format!("junqi-serve-siguo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let config =
        junqi_selfplay::SiguoConfig::new(Rules::preset(Mode::Anqi), 2, ["random".to_string(), "greedy".to_string()], 3)
            .unwrap();
    let options = junqi_selfplay::RunOptions { threads: 1, ..Default::default() };
    junqi_selfplay::run_siguo(&config, &root.join("sg"), &options).unwrap();
    let addr = start_server_on(vec![root.clone()]);
    let (_, list) = request(addr, "GET", "/api/datasets", None);
    let d = list.as_array().unwrap().iter().find(|x| x["id"].as_str().unwrap().ends_with("sg")).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, all) = request(addr, "GET", &format!("/api/siguo/game?d={d}&id=0&view=all"), None);
    assert_eq!(code, 200, "{all}");
    let moves = all["moves"].as_array().unwrap().clone();
    let frames = all["frames"].as_array().unwrap();
    assert_eq!(frames.len(), moves.len() + 1);
    assert!(frames[0].as_array().unwrap().iter().all(|t| t == "." || !t.as_str().unwrap().ends_with('?')));
    for seat in 0..4usize {
        let (code, r) = request(addr, "GET", &format!("/api/siguo/game?d={d}&id=0&view={seat}"), None);
        assert_eq!(code, 200, "{r}");
        let frames = r["frames"].as_array().unwrap();
        for (k, f) in frames.iter().enumerate().step_by(7) {
            let tokens: Vec<String> = f.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
            // The seat's board after k moves, rebuilt here from the stored start.
            let start = junqi_selfplay::read_siguo_games_file(
                &std::fs::read_dir(root.join("sg/games"))
                    .unwrap()
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .find(|p| p.extension().is_some_and(|x| x == "parquet"))
                    .unwrap(),
            )
            .unwrap()
            .into_iter()
            .find(|g| g.game_id == 0)
            .unwrap();
            let mut pos = junqi_siguo::parse(&start.start, Rules::from_toml_str(&start.rules).unwrap()).unwrap();
            let mut info = SiguoInfoSet::new(&pos, Army::new(seat).unwrap());
            for m in &moves[..k] {
                let mv: Move = m.as_str().unwrap().parse().unwrap();
                let before = pos.clone();
                let effect = pos.play(mv).unwrap();
                info.witness(&before, mv, &effect, &pos);
            }
            assert_eq!(tokens, seat_board(&info), "seat {seat} after {k} moves");
        }
    }
    let (code, _) = request(addr, "GET", &format!("/api/siguo/game?d={d}&id=0&view=7"), None);
    assert_eq!(code, 400);
    let (code, _) = request(addr, "GET", &format!("/api/siguo/game?d={d}&id=99"), None);
    assert_eq!(code, 404);
    let _ = std::fs::remove_dir_all(&root);
}
