//! The four-player engine protocol (issue 43): `junqi engine --siguo`
//! behind `engine:cmd=…` in `arena --siguo` and `sprt --siguo`; engines that
//! crash, hang or answer an illegal move forfeit the game and the match
//! goes on; and everything an engine is sent in 四国暗棋 is checked against
//! the true position: it never holds a kind the engine's seat cannot know.

use crate::common::{json, junqi, ok, path_str, stderr};
use junqi_selfplay::{read_siguo_games_file, replay_siguo_game, shard_files, SiguoGame};
use junqi_siguo::{Announcement, Army, Mode, Rules, SiguoInfoSet};
use std::path::{Path, PathBuf};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-siguo-engine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A shell-script four-player engine: the handshake (it plays 四国暗棋),
/// then `on_go` for every `go`; each process appends every line it is sent
/// to `<name>.<pid>.in` in `dir`.
fn script(dir: &Path, name: &str, on_go: &str) -> String {
    script_with(dir, name, on_go, None)
}

/// [`script`], with `deploys siguo` in its handshake and `on_deploy` for
/// every `deploy` when `on_deploy` is given.
fn script_with(dir: &Path, name: &str, on_go: &str, on_deploy: Option<&str>) -> String {
    let path = dir.join(name);
    let log = dir.join(format!("{name}.$$.in"));
    let (deploys, deploy_case) = match on_deploy {
        Some(answer) => ("echo 'deploys siguo'; ", format!("deploy*) {answer};;\n    ")),
        None => ("", String::new()),
    };
    let text = format!(
        "while read -r line; do\n  echo \"$line\" >> {}\n  case \"$line\" in\n    \
         junqi) echo 'id name fault'; echo 'id protocol 3'; echo 'plays siguo anqi'; {deploys}echo junqiok;;\n    \
         isready) echo readyok;;\n    {deploy_case}go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n",
        log.display()
    );
    std::fs::write(&path, text).unwrap();
    format!("sh {}", path.display())
}

/// Every stored game of a four-player run directory, by id.
fn games(dir: &Path) -> Vec<SiguoGame> {
    let mut all: Vec<SiguoGame> =
        shard_files(&dir.join("games")).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    all.sort_by_key(|g| g.game_id);
    all
}

#[test]
fn a_siguo_engine_plays_an_arena_behind_the_protocol() {
    let dir = scratch("arena");
    let out = dir.join("run");
    let engine = format!("engine:cmd={JUNQI} engine --siguo --bot random");
    let bots = format!("{engine},greedy");
    let args = ["arena", "--siguo", "--bots", &bots, "--games-per-pair", "2", "--set", "max_plies=120"];
    ok(junqi(&[&args[..], &["--threads", "1", "--out", path_str(&out)]].concat()));
    let results = json(&out.join("results.json"));
    assert_eq!(results["tally"]["games"], 2, "{results}");
    let terminations = &results["tally"]["terminations"];
    assert!(terminations.get("forfeit").is_none(), "{terminations}");
    let games = games(&out);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].bots, [&engine, "greedy", &engine, "greedy"].map(str::to_string));
    assert_eq!(games[1].bots, ["greedy", &engine, "greedy", &engine].map(str::to_string));
    for g in &games {
        // The engine's moves were played: the games run past its first turns, and re-play.
        assert!(g.plies >= 8, "game {}: {} plies", g.game_id, g.plies);
        replay_siguo_game(g).unwrap_or_else(|e| panic!("game {}: {e}", g.game_id));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A crash and an illegal or malformed move each lose the game for the
/// engine's team, before the move it failed to make; both games of the
/// match are played and recorded.
#[test]
fn a_failing_siguo_engine_forfeits_and_the_match_goes_on() {
    let dir = scratch("faults");
    for (name, on_go) in
        [("crash", "exit 3"), ("illegal", "echo 'bestmove sa1-sa2'"), ("garbage", "echo 'bestmove a1a2'")]
    {
        let out = dir.join(name);
        let bots = format!("engine:cmd={},random", script(&dir, &format!("{name}.sh"), on_go));
        let o = ok(junqi(&["arena", "--siguo", "--bots", &bots, "--games-per-pair", "2", "--out", path_str(&out)]));
        let err = stderr(&o);
        assert!(err.contains("forfeits"), "{name}: {err}");
        let results = json(&out.join("results.json"));
        assert_eq!(results["tally"]["losses"], 2, "{name}: {results}");
        assert_eq!(results["tally"]["terminations"]["forfeit"], 2, "{name}: {results}");
        let games = games(&out);
        // Game 0: the engine's army 0 fails the first move; game 1: army 0
        // (random) moves, then the engine's army 1 fails.
        assert_eq!((games[0].result.as_str(), games[0].plies), ("0-1", 0), "{name}");
        assert_eq!((games[1].result.as_str(), games[1].plies), ("1-0", 1), "{name}");
        assert!(games.iter().all(|g| g.termination == "forfeit"), "{name}");
        // The forfeiting army's ally (army 2 in game 0, army 3 in game 1)
        // is told the game is over, from its team's side; the army that
        // forfeited is not.
        // The last game's ally idles when `junqi` exits: its shell may log
        // the line a moment later.
        let results = || {
            let mut results = Vec::new();
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let file = path.file_name().unwrap().to_str().unwrap().to_string();
                if !(file.starts_with(&format!("{name}.sh.")) && file.ends_with(".in")) {
                    continue;
                }
                let mut seat = None;
                for line in std::fs::read_to_string(&path).unwrap().lines() {
                    if line.starts_with("newgame") {
                        seat = line.split_whitespace().skip_while(|&w| w != "seat").nth(1).map(str::to_string);
                    } else if line.starts_with("result") {
                        results.push((seat.clone().expect("a result after newgame"), line.to_string()));
                    }
                }
            }
            results.sort();
            results
        };
        let mut told = results();
        for _ in 0..50 {
            if told.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            told = results();
        }
        let expected = [("2", "result loss forfeit"), ("3", "result loss forfeit")];
        assert_eq!(told, expected.map(|(s, l)| (s.to_string(), l.to_string())), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that said `deploys siguo` is sent `deploy` after `newgame`;
/// a deployment that breaks §10.5, one off its zone, or an `error` loses
/// the game before its first move, the engine's army keeping the deal's in
/// the record; an engine that does not say it is never sent `deploy`.
#[test]
fn a_siguo_engine_that_deploys_badly_forfeits_before_the_first_move() {
    let dir = scratch("deploy");
    let random_move = "echo 'bestmove x'";
    // Each fault is one for either seat of the engine (armies 0 and 2, then 1 and 3).
    for (name, on_deploy, why) in [
        ("empty", "echo 'deployment'", "bad deployment: army "),
        ("off-zone", "echo 'deployment mF'", "`mF` is not on army "),
        ("refuses", "echo 'error no deployment'", "error no deployment"),
    ] {
        let out = dir.join(name);
        let engine = script_with(&dir, &format!("{name}.sh"), random_move, Some(on_deploy));
        let bots = format!("engine:cmd={engine},random");
        let o = ok(junqi(&["arena", "--siguo", "--bots", &bots, "--games-per-pair", "2", "--out", path_str(&out)]));
        let warnings: Vec<String> = stderr(&o).lines().filter(|l| l.contains("forfeits")).map(str::to_string).collect();
        assert_eq!(warnings.len(), 2, "{name}: {warnings:?}");
        assert!(warnings.iter().all(|w| w.contains(why)), "{name}: {warnings:?}");
        let results = json(&out.join("results.json"));
        assert_eq!(results["tally"]["losses"], 2, "{name}: {results}");
        let games = games(&out);
        for g in &games {
            assert_eq!((g.plies, g.termination.as_str()), (0, "forfeit"), "{name}: game {}", g.game_id);
            let rules = Rules::from_toml_str(&g.rules).unwrap();
            assert_eq!(g.start, junqi_siguo::Position::new_game(rules, g.seed).to_string(), "{name}: the deal's");
        }
        let sent: String = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&format!("{name}.sh.")))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(sent.contains("\ndeploy timeout "), "{name}: {sent}");
    }
    // An engine without `deploys siguo` is never sent `deploy`.
    let out = dir.join("silent");
    let engine = script_with(&dir, "silent.sh", "exit 3", None);
    ok(junqi(&[
        "arena",
        "--siguo",
        "--bots",
        &format!("engine:cmd={engine},random"),
        "--games-per-pair",
        "2",
        "--out",
        path_str(&out),
    ]));
    let mut logs = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_str().unwrap().starts_with("silent.sh.") {
            let sent = std::fs::read_to_string(&path).unwrap();
            logs += sent.contains("newgame") as usize;
            assert!(!sent.contains("deploy"), "{sent}");
        }
    }
    assert!(logs >= 2, "the engine played both games: {logs} logs with a newgame");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that never answers loses each game on its `timeout` (a spec
/// key, so under `sprt --siguo`, whose bots are whole specs).
#[test]
fn a_hanging_siguo_engine_forfeits_under_sprt() {
    let dir = scratch("hang");
    let out = dir.join("sprt");
    let candidate = format!("engine:cmd={},timeout=300", script(&dir, "hang.sh", "sleep 30"));
    let started = std::time::Instant::now();
    let o = junqi(&[
        "sprt",
        "--siguo",
        "--candidate",
        &candidate,
        "--baseline",
        "random",
        "--batch-games",
        "2",
        "--max-games",
        "2",
        "--out",
        path_str(&out),
    ]);
    let err = stderr(&o);
    assert!(err.contains("no `bestmove` within 300 ms"), "{err}");
    assert!(started.elapsed().as_secs() < 20, "the hung engine was waited for");
    let games = games(&out.join("batches").join("00000"));
    assert_eq!(games.len(), 2, "{err}");
    assert!(games.iter().all(|g| g.termination == "forfeit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a view line says about each node: the army and the written kind.
fn read_view(board: &str) -> Vec<(usize, char, char)> {
    // (node index, kind letter or '?', army letter), in §10.4 order.
    let zone = |army: usize| -> Vec<usize> {
        (1..=6usize).rev().flat_map(|rank| (0..5).map(move |file| army * 30 + (rank - 1) * 5 + file)).collect()
    };
    let groups: Vec<&str> = board.split('/').collect();
    assert_eq!(groups.len(), 5, "{board}");
    let mut out = Vec::new();
    for (g, text) in groups.iter().enumerate() {
        let nodes: Vec<usize> = if g < 4 { zone(g) } else { (120..129).collect() };
        let mut i = 0;
        let mut chars = text.chars().filter(|&c| c != ',');
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                i += d as usize;
            } else {
                out.push((nodes[i], c, chars.next().unwrap()));
                i += 1;
            }
        }
        assert_eq!(i, nodes.len(), "{board}");
    }
    out
}

/// Check a view (the board field) sent to `seat` against the true position
/// and against the seat's information set, kept here from the referee's
/// announcements: every piece there, of the right army; a kind written only
/// when it is the true one and the seat knows it (its own army, a flag
/// made public, a kind the announcements leave alone possible), `?` for
/// every other.
fn check_view(board: &str, truth: &junqi_siguo::Position, info: &SiguoInfoSet, line: &str) -> (usize, usize) {
    let seat = info.seat();
    let pieces = read_view(board);
    assert_eq!(pieces.len(), truth.pieces().count(), "{line}");
    let (mut hidden, mut identified) = (0, 0);
    for (index, kind, army) in pieces {
        let node = junqi_siguo::Node::new(index).unwrap();
        let real = truth.piece_at(node).unwrap_or_else(|| panic!("no piece on {node}: {line}"));
        assert_eq!(real.army.letter(), army, "{node}: {line}");
        if kind == '?' {
            assert_ne!(real.army, seat, "the seat's own piece on {node} is hidden from it: {line}");
            assert_eq!(info.known_kind(node), None, "{node}: a kind the seat knows is not told: {line}");
            hidden += 1;
            continue;
        }
        assert_eq!(real.kind.letter(), kind, "{node} is written as another kind: {line}");
        assert_eq!(
            info.known_kind(node),
            Some(real.kind),
            "the {} of army {army} on {node} is told to seat {seat}, which cannot know it: {line}",
            real.kind.english()
        );
        identified += (real.army != seat) as usize;
    }
    (hidden, identified)
}

/// The true position and `seat`'s information set after the first `ply` moves of `g`.
fn after(g: &SiguoGame, rules: Rules, seat: Army, ply: usize) -> (junqi_siguo::Position, SiguoInfoSet) {
    let mut truth = junqi_siguo::parse(&g.start, rules).unwrap();
    let mut info = SiguoInfoSet::new(&truth, seat);
    for mv in &g.moves[..ply] {
        let mv: junqi_siguo::Move = mv.parse().unwrap();
        let before = truth.clone();
        let effect = truth.play(mv).unwrap();
        info.update(&Announcement::new(&before, mv, &effect, &truth));
    }
    (truth, info)
}

/// Everything `junqi engine --siguo` receives in a 四国暗棋 arena, captured
/// by a wrapper, is compared with the stored games: each position line's
/// views (now and at the start) against the true positions, its events
/// against the moves played (and they hold no kind letter), the legal
/// moves and the `newgame` line, whose seed must not give the deal away;
/// no other line may carry a position.
#[test]
fn a_siguo_engine_is_never_told_a_kind_its_seat_cannot_know() {
    let dir = scratch("fair");
    let out = dir.join("run");
    let wrapper = dir.join("wrap.sh");
    let log_stem = dir.join("in");
    std::fs::write(&wrapper, format!("tee -a {}-$$.log | {JUNQI} engine --siguo --bot greedy\n", log_stem.display()))
        .unwrap();
    let bots = format!("engine:cmd=sh {},random", wrapper.display());
    let args = ["arena", "--siguo", "--bots", &bots, "--games-per-pair", "2", "--set", "max_plies=160"];
    ok(junqi(&[&args[..], &["--threads", "1", "--out", path_str(&out)]].concat()));
    let games = games(&out);
    let mut rules = Rules::preset(Mode::Anqi);
    rules.apply_override("max_plies=160").unwrap();
    let (mut positions, mut hidden, mut identified, mut newgames) = (0, 0, 0, 0);
    let mut seeds = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "log") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut game: Option<(&SiguoGame, Army)> = None;
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first().copied() {
                Some("newgame") => {
                    assert_eq!(words[1..3], ["siguo", "anqi"], "{line}");
                    // The engine's seed tells nothing of the deal: it is no
                    // deal seed of the run, nor what the old host derived
                    // from one (`game_seed(deal ^ id.rotate_left(32), army)`,
                    // splitmix64, which an engine could invert to the deal).
                    assert_eq!(words[words.len() - 2], "seed", "{line}");
                    let told: u64 = words[words.len() - 1].parse().unwrap();
                    for (id, g) in games.iter().enumerate() {
                        assert_ne!(told, g.seed, "a deal seed: {line}");
                        for army in 0..4 {
                            let old = junqi_selfplay::game_seed(g.seed ^ (id as u64).rotate_left(32), army);
                            assert_ne!(told, old, "derived from game {id}'s deal: {line}");
                        }
                    }
                    seeds.push(told);
                    let at = words.iter().position(|&w| w == "seat").unwrap();
                    let seat = Army::new(words[at + 1].parse().unwrap()).unwrap();
                    // Team A (the engine) holds armies 0 and 2 in game 0, 1 and 3 in game 1.
                    game = Some((&games[seat.index() % 2], seat));
                    newgames += 1;
                }
                Some("position") => {
                    let (g, seat) = game.expect("a position after newgame");
                    assert_eq!(words[2], "anqi", "{line}");
                    let ply: usize = words[6].parse().unwrap();
                    let (truth, info) = after(g, rules, seat, ply);
                    assert_eq!(truth.turn(), seat, "{line}");
                    let (h, i) = check_view(words[1], &truth, &info, line);
                    hidden += h;
                    identified += i;
                    if ply > 0 {
                        assert_eq!(words[7], "start", "{line}");
                        assert_eq!(words[14], "moves", "{line}");
                        let (start, start_info) = after(g, rules, seat, 0);
                        check_view(words[8], &start, &start_info, line);
                        let events = &words[15..];
                        assert_eq!(events.len(), ply, "{line}");
                        for (event, mv) in events.iter().zip(&g.moves) {
                            assert!(event.starts_with(mv.as_str()), "{event} is not {mv}: {line}");
                            let rest = &event[mv.len()..];
                            assert!(!rest.chars().any(|c| c.is_ascii_uppercase() || c == '?'), "{event}: {line}");
                        }
                    } else {
                        assert_eq!(words.len(), 7, "{line}");
                    }
                    positions += 1;
                }
                Some("legal") => {
                    assert!(words[1..].iter().all(|m| m.parse::<junqi_siguo::Move>().is_ok()), "{line}");
                }
                Some("go" | "junqi" | "isready" | "result" | "quit") => {}
                other => panic!("an unexpected line `{line}` ({other:?})"),
            }
        }
    }
    assert_eq!(newgames, 4, "two armies in each of two games");
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 4, "each army its own seed");
    assert!(positions > 40, "{positions} positions");
    assert!(hidden > 40 * 20, "{hidden} hidden pieces");
    // Kinds the announcements gave away (a flier's move, a ruling) are told.
    assert!(identified > 0, "no enemy kind was ever identified");
    let _ = std::fs::remove_dir_all(&dir);
}
