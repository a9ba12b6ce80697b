//! The four-player play API through HTTP: a 四国暗棋 game played by the
//! person's seat against three bots, the person's deployment edited first,
//! every response checked against the seat's information set rebuilt here
//! from the seed, the person's deployment and the public moves (no kind the
//! seat could not know), the record at the end read back, and bad requests
//! answered with 4xx.

mod common;

use common::raw_request;
use junqi_core::setup::Deployment;
use junqi_core::Kind;
use junqi_serve::siguo::seat_board;
use junqi_siguo::setup::random_deployment;
use junqi_siguo::{Army, Mode, Move, Node, Position, Rules, SiguoInfoSet};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;

fn start_server() -> SocketAddr {
    common::start_server(None)
}

fn start_server_on(runs: Vec<std::path::PathBuf>) -> SocketAddr {
    common::start_server_on(runs, None)
}

/// One request; the status and the body as JSON.
fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let (status, _, payload) = raw_request(addr, method, path, body.unwrap_or(""));
    (status, serde_json::from_str(&payload).unwrap_or(Value::String(payload)))
}

/// The 129 tokens of a state's board.
fn tokens(st: &Value) -> Vec<String> {
    st["board"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
}

/// The deployment a deploy-phase state shows, as the page sends it back.
fn placement_of(st: &Value) -> HashMap<String, String> {
    Node::all().zip(tokens(st)).filter(|(_, t)| t != ".").map(|(n, t)| (n.to_string(), t[1..].to_string())).collect()
}

/// The start of a game of `seed` whose army `seat` deployed `placement`:
/// the other armies' deployments drawn from the seed in army order, as
/// `Position::new_game` draws them (built here from the rules crates alone).
fn start_with(seed: u64, seat: Army, placement: &HashMap<String, String>) -> Position {
    let rules = Rules::preset(Mode::Anqi);
    let mut rng = junqi_core::rng_from_seed(seed);
    let mut d: Vec<Deployment> = (0..4).map(|_| random_deployment(&rules, &mut rng)).collect();
    let mut pieces: Vec<_> = placement
        .iter()
        .map(|(n, k)| {
            (n.parse::<Node>().unwrap().square().unwrap(), Kind::from_letter(k.chars().next().unwrap()).unwrap())
        })
        .collect();
    pieces.sort();
    d[seat.index()] = Deployment { colour: junqi_core::Colour::Red, pieces };
    Position::from_deployments(rules, [&d[0], &d[1], &d[2], &d[3]]).unwrap()
}

/// A deploy-phase state: the person's 25 pieces and nothing else.
fn check_deploy_view(st: &Value, seat: Army) {
    assert_eq!(st["phase"], "deploy", "{st}");
    let board = tokens(st);
    let own = format!("{}", seat.index());
    let shown: Vec<&String> = board.iter().filter(|t| *t != ".").collect();
    assert_eq!(shown.len(), 25, "{shown:?}");
    assert!(shown.iter().all(|t| t.starts_with(&own) && !t.ends_with('?')), "another army's piece: {shown:?}");
    assert!(st["reveal"].is_null() && st["legal"].as_array().unwrap().is_empty());
    assert_eq!(st["zone"].as_array().unwrap().len(), 25);
}

/// The seat's information set from the start and the public moves, built
/// here from the rules crate alone, against which the page's board is held.
fn expected_board(start: &Position, seat: Army, moves: &[Value]) -> Vec<String> {
    let mut pos = start.clone();
    let mut info = SiguoInfoSet::new(&pos, seat);
    for m in moves {
        let mv: Move = m.as_str().unwrap().parse().unwrap();
        let before = pos.clone();
        let effect = pos.play(mv).unwrap();
        info.witness(&before, mv, &effect, &pos);
    }
    seat_board(&info)
}

fn check_view(st: &Value, start: &Position, seed: u64, seat: Army) {
    let board = tokens(st);
    assert_eq!(board.len(), 129);
    let expected = expected_board(start, seat, st["moves"].as_array().unwrap());
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
        check_deploy_view(&st, army);
        let id = st["id"].as_u64().unwrap();
        // The deployment: shuffled on two seats, two back-row pieces swapped on every one.
        if seat % 2 == 1 {
            let before = placement_of(&st);
            (_, st) = request(addr, "POST", &format!("/api/play/siguo/{id}/shuffle"), None);
            check_deploy_view(&st, army);
            assert_ne!(placement_of(&st), before, "a shuffle draws another deployment");
        }
        let mut placement = placement_of(&st);
        let letter = army.letter();
        let (a, b) = (format!("{letter}a1"), format!("{letter}e1"));
        let (ka, kb) = (placement[&a].clone(), placement[&b].clone());
        placement.insert(a, kb);
        placement.insert(b, ka);
        let body = json!({"placement": placement, "bot_later": true}).to_string();
        let (code, next) = request(addr, "POST", &format!("/api/play/siguo/{id}/deploy"), Some(&body));
        assert_eq!(code, 200, "{next}");
        st = next;
        let start = start_with(seed, army, &placement);
        check_view(&st, &start, seed, army);
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
            check_view(&st, &start, seed, army);
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
        check_record(addr, id, &st, &start);
    }
}

/// The record of an ended game: a download, one four-player JGN record of
/// the game played (the start the person deployed, every move), whose moves
/// replayed from its start give the referee's board the page was shown.
fn check_record(addr: SocketAddr, id: u64, st: &Value, start: &Position) {
    let (code, head, text) = raw_request(addr, "GET", &format!("/api/play/siguo/{id}/record"), "");
    assert_eq!(code, 200, "{text}");
    assert!(head.contains(&format!("filename=\"junqi-siguo-game-{id}.jgn\"")), "{head}");
    let records = junqi_selfplay::siguo_jgn::parse_siguo_records(&text).unwrap();
    assert_eq!(records.len(), 1, "{text}");
    let g = &records[0].game;
    assert_eq!(g.start, start.to_string());
    assert_eq!(g.moves, st["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect::<Vec<_>>());
    assert_eq!(g.result, st["result"].as_str().unwrap());
    assert_eq!(g.bots[st["seat"].as_u64().unwrap() as usize], "person");
    let mut pos = junqi_siguo::parse(&g.start, Rules::from_toml_str(&g.rules).unwrap()).unwrap();
    for m in &g.moves {
        pos.play(m.parse().unwrap()).unwrap();
    }
    let board: Vec<String> = Node::all()
        .map(|n| pos.piece_at(n).map_or(".".to_string(), |p| format!("{}{}", p.army.index(), p.kind.letter())))
        .collect();
    assert_eq!(json!(board), st["reveal"], "the record's last position is not the referee's board");
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
    // A game: deployments refused, then bad move text, an illegal move, then over.
    let (_, st) = request(addr, "POST", "/api/play/siguo", Some(r#"{"seat": 0, "bot": "random", "seed": 5}"#));
    let id = st["id"].as_u64().unwrap();
    let mv =
        |m: &str| request(addr, "POST", &format!("/api/play/siguo/{id}/move"), Some(&json!({"move": m}).to_string()));
    let deploy = |body: &Value| request(addr, "POST", &format!("/api/play/siguo/{id}/deploy"), Some(&body.to_string()));
    let (code, v) = mv("sa1-sa2");
    assert_eq!(code, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("deploy your pieces first"), "{v}");
    for path in ["resign", "record"] {
        let method = if path == "record" { "GET" } else { "POST" };
        let (code, v) = request(addr, method, &format!("/api/play/siguo/{id}/{path}"), None);
        assert_eq!(code, 409, "{path}: {v}");
    }
    let proposal = placement_of(&st);
    let flag = proposal.iter().find(|(_, k)| *k == "F").unwrap().0.clone();
    let mut flag_out = proposal.clone();
    flag_out.insert(flag.clone(), proposal["sc3"].clone());
    flag_out.insert("sc3".into(), "F".into());
    let mut other_zone = proposal.clone();
    let k = other_zone.remove("sa1").unwrap();
    other_zone.insert("ea1".into(), k);
    let mut short = proposal.clone();
    short.remove("sa1");
    let mut bad_letter = proposal.clone();
    bad_letter.insert("sa1".into(), "Q".into());
    let refused: &[(Value, u16, &str)] = &[
        (json!({"placement": flag_out}), 400, "illegal deployment"),
        (json!({"placement": other_zone}), 400, "ea1 is not in your army's zone"),
        (json!({"placement": short}), 400, "illegal deployment"),
        (json!({"placement": bad_letter}), 400, "is not a kind letter"),
        (json!({"placement": {"sa1": "F", "zz": "G"}}), 400, "invalid node `zz`"),
        (json!({"placement": ["sa1"]}), 422, ""),
        (json!({"placements": {}}), 422, "placements"),
    ];
    for (body, want, says) in refused {
        let (code, v) = deploy(body);
        assert_eq!(code, *want, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{body}: {v}");
    }
    // Still deploying, the proposal untouched; no placement: the proposal.
    let (_, again) = request(addr, "GET", &format!("/api/play/siguo/{id}"), None);
    assert_eq!(placement_of(&again), proposal);
    let (code, v) = deploy(&json!({}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["phase"], "play");
    for path in ["deploy", "shuffle"] {
        let (code, v) = request(addr, "POST", &format!("/api/play/siguo/{id}/{path}"), Some("{}"));
        assert_eq!(code, 409, "{path}: {v}");
        assert!(v["error"].as_str().unwrap().contains("deployment is over"), "{v}");
    }
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
    let (code, v) = mv("sa1-sa2");
    assert_eq!(code, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("the game is over"), "{v}");
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
    // The same games as an import of records (the run file names the games'
    // format) and with no run file at all (the shard's footer tells).
    for (name, run_file) in
        [("imported", Some(r#"{"format": "junqi-import/1", "games_format": "junqi-siguo-games/1"}"#)), ("bare", None)]
    {
        let games = root.join(name).join("games");
        std::fs::create_dir_all(&games).unwrap();
        for e in std::fs::read_dir(root.join("sg/games")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), games.join(e.file_name())).unwrap();
        }
        if let Some(text) = run_file {
            std::fs::write(root.join(name).join("run.json"), text).unwrap();
        }
    }
    let two =
        junqi_selfplay::Config::new(junqi_core::Rules::preset(junqi_core::Mode::Anqi), 2, ["random", "random"], 1)
            .unwrap();
    junqi_selfplay::prepare(two, Some(&root.join("two"))).unwrap().run(&options).unwrap();
    let addr = start_server_on(vec![root.clone()]);
    let (_, list) = request(addr, "GET", "/api/datasets", None);
    let players: Vec<(String, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["id"].as_str().unwrap().to_string(), x["players"].as_u64().unwrap()))
        .collect();
    let want = ["0/bare", "0/imported", "0/sg", "0/two"].map(String::from);
    assert_eq!(players, want.iter().cloned().zip([4, 4, 4, 2]).collect::<Vec<_>>());
    let d = "0/sg".to_string();
    // The game list of a four-player dataset: four bots a game, its variant.
    for name in ["sg", "imported", "bare"] {
        let (code, games) = request(addr, "GET", &format!("/api/games?d=0/{name}"), None);
        assert_eq!(code, 200, "{games}");
        assert_eq!((games["players"].as_u64(), games["total"].as_u64()), (Some(4), Some(2)), "{games}");
        let g = &games["games"][0];
        assert_eq!(g["bots"], json!(["random", "greedy", "random", "greedy"]), "{g}");
        assert_eq!(g["variant"], "siguo anqi");
    }
    let (_, filtered) = request(addr, "GET", &format!("/api/games?d={d}&bot=greedy&variant=siguo"), None);
    assert_eq!(filtered["matched"], 2, "{filtered}");
    let (_, none) = request(addr, "GET", &format!("/api/games?d={d}&variant=fanqi"), None);
    assert_eq!(none["matched"], 0, "{none}");
    let (_, two_list) = request(addr, "GET", "/api/games?d=0/two", None);
    assert_eq!((two_list["players"].as_u64(), two_list["games"][0]["bots"].as_array().unwrap().len()), (Some(2), 2));
    // Each game goes to its own replay.
    let (code, v) = request(addr, "GET", &format!("/api/game?d={d}&id=0"), None);
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("/api/siguo/game"), "{v}");
    let (code, v) = request(addr, "GET", "/api/siguo/game?d=0/two&id=0", None);
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("two-player"), "{v}");
    let (code, v) = request(addr, "GET", "/api/siguo/game?d=0/bare&id=1&view=2", None);
    assert_eq!((code, &v["game"], &v["id"]), (200, &json!("siguo"), &json!(1)), "{v}");
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

/// A bot that deploys by itself, as a net with a learned deployment model
/// does: every army it plays stands as [`fixed_deployment`]; it moves as `random`.
struct FixedDeploy;

fn fixed_deployment(rules: &Rules) -> Deployment {
    random_deployment(rules, &mut junqi_core::rng_from_seed(77))
}

impl junqi_siguo::SiguoBot for FixedDeploy {
    fn name(&self) -> String {
        "fixed-deploy".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn rand::RngCore) -> Option<Move> {
        junqi_siguo::SiguoBot::choose(&mut junqi_siguo::bots::RandomBot, info, rng)
    }
    fn deploy(&mut self, _army: Army, rules: &Rules, _rng: &mut dyn rand::RngCore) -> Option<Deployment> {
        Some(fixed_deployment(rules))
    }
}

fn fixed_deploy_factory(spec: &str) -> Option<Result<Box<dyn junqi_siguo::SiguoBot>, String>> {
    (spec == "fixed-deploy").then(|| Ok(Box::new(FixedDeploy) as Box<dyn junqi_siguo::SiguoBot>))
}

/// The bots' armies deploy by the bots (a net's learned model), the
/// person's keeps the deal's: in 全明 the started game shows every kind.
#[test]
fn bots_that_deploy_by_themselves_do_so_in_a_served_game() {
    junqi_siguo::register_siguo_bot(fixed_deploy_factory);
    let addr = start_server();
    let seed = 31;
    let started = |bot: &str| {
        let body = json!({"seat": 0, "mode": "quanming", "bot": bot, "seed": seed, "bot_later": true}).to_string();
        let (status, st) = request(addr, "POST", "/api/play/siguo", Some(&body));
        assert_eq!(status, 200, "{st}");
        let id = st["id"].as_u64().unwrap();
        let body = json!({"placement": placement_of(&st), "bot_later": true}).to_string();
        let (status, st) = request(addr, "POST", &format!("/api/play/siguo/{id}/deploy"), Some(&body));
        assert_eq!(status, 200, "{st}");
        tokens(&st)
    };
    let rules = Rules::preset(Mode::Quanming);
    let mut rng = junqi_core::rng_from_seed(seed);
    let mut d: Vec<Deployment> = (0..4).map(|_| random_deployment(&rules, &mut rng)).collect();
    let dealt = Position::from_deployments(rules, [&d[0], &d[1], &d[2], &d[3]]).unwrap();
    for army in [1, 2, 3] {
        d[army] = fixed_deployment(&rules);
    }
    let deployed = Position::from_deployments(rules, [&d[0], &d[1], &d[2], &d[3]]).unwrap();
    assert_ne!(dealt, deployed);
    let seat = Army::new(0).unwrap();
    assert_eq!(started("random"), seat_board(&SiguoInfoSet::new(&dealt, seat)), "random keeps the deal's");
    assert_eq!(started("fixed-deploy"), seat_board(&SiguoInfoSet::new(&deployed, seat)), "the bots' own deployments");
}
