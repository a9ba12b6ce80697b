//! The engine protocol (docs/protocol.md): one conformance suite run against
//! `junqi engine` and the Python reference engine (scripts/random_engine.py),
//! external engines in arena matches, what a 暗棋 engine is told (captured
//! and checked against the referee), and forfeits of engines that crash,
//! hang or play illegal moves.

use junqi_core::{Colour, Game, Mode, Move, MoveList, Position, Rules, Seat};
use junqi_engine::{decode_deployment, encode_position, encode_position_with, encode_rules};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn python_engine() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/random_engine.py").display().to_string()
}

/// The engines under test, as commands.
fn engines() -> Vec<(&'static str, Vec<String>)> {
    vec![
        ("junqi engine", vec![JUNQI.into(), "engine".into(), "--bot".into(), "greedy".into()]),
        ("python", vec!["python3".into(), python_engine()]),
    ]
}

/// A running engine and its output lines.
struct Dialogue {
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Dialogue {
    fn start(name: &'static str, command: &[String]) -> Dialogue {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let lines = crate::common::lines_of(child.stdout.take().unwrap());
        Dialogue { name, child, stdin, lines }
    }
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
    fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }
    fn line(&mut self) -> String {
        self.lines.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|e| panic!("{}: no answer ({e})", self.name))
    }
    /// Lines up to and including the first whose first word is `keyword`.
    fn until(&mut self, keyword: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self.line();
            let done = l.split_whitespace().next() == Some(keyword);
            assert!(!l.starts_with("error") || keyword == "error", "{}: unexpected `{l}`", self.name);
            out.push(l);
            if done {
                return out;
            }
        }
    }
    /// `line` is answered with exactly one `error …` line, and the engine
    /// still answers `isready`.
    fn expect_error(&mut self, line: &str) {
        self.send(line);
        let answer = self.line();
        assert!(answer.starts_with("error "), "{}: `{line}` answered `{answer}`", self.name);
        self.send("isready");
        assert_eq!(self.line(), "readyok", "{}: after `{line}`", self.name);
    }
    fn quit(mut self) {
        self.send("quit");
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{}: quit gave {status}", self.name);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!("{}: still running after quit", self.name);
    }
}

fn legal_line(info: &junqi_core::InfoSet) -> (String, Vec<Move>) {
    let mut list = MoveList::new();
    info.legal_moves(&mut list);
    let moves: Vec<Move> = list.iter().copied().collect();
    let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    (format!("legal {}", text.join(" ")), moves)
}

/// Every command and every error path, the same for each engine.
#[test]
fn both_engines_pass_the_conformance_suite() {
    for (name, command) in engines() {
        let mut e = Dialogue::start(name, &command);
        // Handshake.
        e.send("junqi");
        let hello = e.until("junqiok");
        assert!(hello.iter().any(|l| l.starts_with("id name ")), "{name}: {hello:?}");
        assert!(hello.iter().any(|l| l.starts_with("id protocol ")), "{name}: {hello:?}");
        e.send("isready");
        assert_eq!(e.line(), "readyok");
        // Out of place and malformed commands.
        for bad in [
            "bogus",
            "go",
            "deploy",
            "position 5/5/5/5/5/5/5/5/5/5/5/5 fanqi 1 - 0 0",
            "setoption",
            "setoption name",
            "newgame",
            "newgame chess seat 1",
            "newgame fanqi seat 3",
            "newgame fanqi",
        ] {
            e.expect_error(bad);
        }
        e.send_bytes(b"is\xffready\n");
        assert!(e.line().starts_with("error "), "{name}: invalid UTF-8");
        // Empty lines are ignored.
        e.send("");
        e.send("isready");
        assert_eq!(e.line(), "readyok");

        // A 翻棋 move.
        let fanqi = Rules::preset(Mode::Fanqi);
        let game = Game::new(Position::new_game(fanqi, 7));
        e.send(&format!("newgame {} seat 1 seed 7", encode_rules(&fanqi)));
        e.expect_error("go");
        e.expect_error("deploy");
        e.expect_error("position not a position");
        let info = game.infoset(Seat::First);
        e.send(&format!("position {}", encode_position(info)));
        let (legal, moves) = legal_line(info);
        e.send(&legal);
        e.expect_error("go sims many");
        e.expect_error("go tomorrow");
        e.send("go movetime 100");
        let answer = e.until("bestmove");
        let best: Move = answer.last().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(moves.contains(&best), "{name}: {best} is not legal");

        // A 暗棋 deployment and a move of seat 2.
        let anqi = Rules::preset(Mode::Anqi);
        e.send(&format!("newgame {} seat 2 seed 3", encode_rules(&anqi)));
        e.send("deploy");
        let answer = e.until("deployment");
        let tokens: Vec<&str> = answer.last().unwrap().split_whitespace().skip(1).collect();
        decode_deployment(&tokens, Colour::Black).unwrap_or_else(|err| panic!("{name}: {err}"));
        let mut game = Game::new(Position::new_game(anqi, 3));
        let first = {
            let mut list = MoveList::new();
            game.truth().legal_moves(&mut list);
            list.iter().next().copied().unwrap()
        };
        game.play(first).unwrap();
        let info = game.infoset(Seat::Second);
        e.send(&format!("position {}", encode_position(info)));
        let (legal, moves) = legal_line(info);
        e.send(&legal);
        e.send("go");
        let best: Move = e.until("bestmove").last().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(moves.contains(&best), "{name}: {best} is not legal");
        e.send("stop");
        e.send("isready");
        assert_eq!(e.line(), "readyok");
        e.quit();
    }
}

/// `junqi engine --bot mcts`: `go movetime` and `go time … inc …` drive the
/// search by time (not by its 400 simulations), and the move comes back
/// within the time plus a margin (debug build, shared machine: 100 ms).
#[test]
fn junqi_engine_searches_by_the_hosts_time() {
    let margin = Duration::from_millis(100);
    let command = [JUNQI.into(), "engine".into(), "--bot".into(), "mcts".into()];
    let mut e = Dialogue::start("junqi engine", &command);
    let fanqi = Rules::preset(Mode::Fanqi);
    let game = Game::new(Position::new_game(fanqi, 11));
    e.send(&format!("newgame {} seat 1 seed 11", encode_rules(&fanqi)));
    let info = game.infoset(Seat::First);
    e.send(&format!("position {}", encode_position(info)));
    let (_, moves) = legal_line(info);
    // The engine has started and read the position before the clock starts.
    e.send("isready");
    assert_eq!(e.line(), "readyok");
    // (go line, the time the move may take)
    for (go, ms) in [
        ("go movetime 50", 50),
        ("go movetime 50 timeout 1050", 50),
        ("go movetime 400", 400),
        ("go time 3000 inc 0", 100),
        ("go movetime 300 timeout 100", 90),
    ] {
        let started = std::time::Instant::now();
        e.send(go);
        let answer = e.until("bestmove");
        let took = started.elapsed();
        let best: Move = answer.last().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(moves.contains(&best), "{go}: {best} is not legal");
        assert!(!answer.iter().any(|l| l.contains("info string")), "{go}: {answer:?}");
        let reported: u64 = answer
            .iter()
            .find_map(|l| l.strip_prefix("info time "))
            .and_then(|t| t.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("{go}: no info time in {answer:?}"));
        assert!(took <= Duration::from_millis(ms) + margin, "{go}: answered after {took:?}");
        // Time, not the 400 simulations, ended the search.
        assert!(reported + 5 >= ms, "{go}: searched {reported} ms of {ms}");
    }
    // `sims` with the time: the simulations still cap the search.
    e.send("go sims 1 movetime 5000");
    let answer = e.until("bestmove");
    let reported: u64 =
        answer.iter().find_map(|l| l.strip_prefix("info time ")?.split_whitespace().next()?.parse().ok()).unwrap();
    assert!(reported < 1000, "sims 1 caps a 5 s move: {reported} ms");
    e.quit();
    // A bot without a time budget says it ignores the time.
    let command = [JUNQI.into(), "engine".into(), "--bot".into(), "greedy".into()];
    let mut e = Dialogue::start("junqi engine greedy", &command);
    e.send(&format!("newgame {} seat 1 seed 11", encode_rules(&fanqi)));
    e.send(&format!("position {}", encode_position(info)));
    e.send("go movetime 50");
    let answer = e.until("bestmove");
    assert!(answer.iter().any(|l| l == "info string time ignored: bot `greedy` has no time budget"), "{answer:?}");
    e.quit();
}

#[test]
fn junqi_engine_refuses_cheating_bots_and_bad_specs() {
    for spec in ["cheat-mcts:10", "nonsense", "mcts:sims=0", "mcts:movetime=0", "mcts:tc=abc"] {
        let out = Command::new(JUNQI).args(["engine", "--bot", spec]).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{spec}: {err}");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("engine", name, false)
}

fn arena(rules: &str, bots: &str, games: u32, out: &Path) -> Output {
    arena_on_threads(rules, bots, games, out, 2)
}

fn arena_on_threads(rules: &str, bots: &str, games: u32, out: &Path, threads: u32) -> Output {
    Command::new(JUNQI)
        .args(["arena", "--rules", rules, "--games-per-pair", &games.to_string(), "--seed", "5"])
        .args(["--threads", &threads.to_string()])
        .args(["--bots", bots, "--out"])
        .arg(out)
        .output()
        .unwrap()
}

fn stored_games(dir: &Path) -> Vec<junqi_selfplay::StoredGame> {
    let mut games = Vec::new();
    for matchup in std::fs::read_dir(dir.join("matchups")).unwrap() {
        let games_dir = matchup.unwrap().path().join("games");
        for shard in junqi_selfplay::shard_files(&games_dir).unwrap() {
            games.extend(junqi_selfplay::read_games_file(&shard).unwrap());
        }
    }
    games
}

/// `junqi replay` accepts every matchup's games.
fn replays(dir: &Path) {
    for matchup in std::fs::read_dir(dir.join("matchups")).unwrap() {
        let out = Command::new(JUNQI).arg("replay").arg("--games").arg(matchup.unwrap().path()).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "replay: {text}");
    }
}

#[test]
fn external_engines_play_arena_matches_in_every_mode() {
    let ours = format!("engine:cmd={JUNQI} engine --bot greedy,name=ours");
    let python = format!("engine:cmd=python3 {}", python_engine());
    for (rules, bots) in [
        ("fanqi", format!("{ours},random")),
        ("anqi", format!("{python},greedy")),
        ("mingqi", format!("{python},{ours}")),
    ] {
        let dir = temp_dir(&format!("match-{rules}"));
        let out = arena(rules, &bots, 4, &dir);
        assert!(out.status.success(), "{rules}: {}", String::from_utf8_lossy(&out.stderr));
        let games = stored_games(&dir);
        assert_eq!(games.len(), 4, "{rules}");
        assert!(games.iter().all(|g| g.termination != "forfeit"), "{rules}: a forfeit");
        assert!(games.iter().any(|g| g.bots[0].starts_with("engine:cmd=")));
        replays(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Every `position` line a 暗棋 engine received (its input, captured by the
/// engine itself) is the encoding of that seat's information set at some ply
/// of the stored games: never the truth, never more than the seat may know.
#[test]
fn an_anqi_engine_is_told_only_its_seats_information_set() {
    // An engine of protocol 1 is told no history; one of protocol 2 its seat's.
    for protocol in [1, 2] {
        told_only_its_information_set(protocol);
    }
}

fn told_only_its_information_set(protocol: u32) {
    let history = protocol >= 2;
    let dir = temp_dir(&format!("capture-{protocol}"));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("input.log");
    let spec = format!("engine:cmd=python3 {} --protocol {protocol},option.log={}", python_engine(), log.display());
    // One game at a time: engines of games played side by side would append
    // to the one log together and interleave their lines.
    let out = arena_on_threads("anqi", &format!("{spec},greedy"), 4, &dir.join("arena"), 1);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Per seat: every information set that seat had at some ply.
    let mut fair: [HashSet<String>; 2] = [HashSet::new(), HashSet::new()];
    for g in stored_games(&dir.join("arena")) {
        let rules: Rules = serde_json::from_str(&g.rules).unwrap();
        let mut game = Game::new(Position::from_jfen(&g.start_jfen, rules).unwrap());
        for mv in &g.moves {
            for seat in Seat::BOTH {
                fair[seat.index()].insert(encode_position_with(game.infoset(seat), history));
            }
            game.play(mv.parse().unwrap()).unwrap();
        }
    }
    let input = std::fs::read_to_string(&log).unwrap();
    // The seat of each position is the one of the `newgame` before it.
    let mut seat = None;
    let mut positions = 0;
    let mut with_history = 0;
    for line in input.lines() {
        if line.starts_with("newgame ") {
            seat = line.split_whitespace().skip_while(|&w| w != "seat").nth(1).map(|n| n.parse::<usize>().unwrap() - 1);
        }
        if let Some(p) = line.strip_prefix("position ") {
            let s = seat.expect("a newgame before every position");
            assert!(fair[s].contains(p), "seat {} was told `{p}`, not its own information set", s + 1);
            assert!(!fair[1 - s].contains(p), "seat {} was told the other seat's information set `{p}`", s + 1);
            assert!(p.contains('?'), "enemy kinds are unknown at every ply: `{p}`");
            assert!(history || !p.contains(" last "), "a version 1 engine was sent the history: `{p}`");
            with_history += p.contains(" last ") as usize;
            positions += 1;
        }
    }
    assert!(positions > 20, "{positions} positions");
    assert_eq!(with_history > 0, history, "{with_history} of {positions} lines had the history");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that crashes, hangs past its time, or answers with an illegal
/// or malformed move loses that game by forfeit; the match goes on with a
/// fresh process and finishes, and the records replay.
#[test]
fn failing_engines_forfeit_and_the_match_goes_on() {
    for (misbehave, reason) in [
        ("crash@3", "exited"),
        ("hang@2,timeout=400", "no `bestmove` within 400 ms"),
        ("illegal@2", "illegal move a1a12"),
        ("garbage@2", "not a move"),
        ("slow@1,tc=0.5+0.05", "lost on time"),
    ] {
        let dir = temp_dir(&format!("forfeit-{}", &misbehave[..4]));
        // A generous timeout except where the hang is the point: a loaded
        // machine must not turn a crash into a timeout.
        let spec = format!("engine:cmd=python3 {},option.misbehave={misbehave}", python_engine());
        let out = arena("fanqi", &format!("{spec},random"), 4, &dir);
        assert!(out.status.success(), "{misbehave}: {}", String::from_utf8_lossy(&out.stderr));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("forfeits the game") && stderr.contains(reason), "{misbehave}: {stderr}");
        let games = stored_games(&dir);
        assert_eq!(games.len(), 4);
        for g in &games {
            assert_eq!(g.termination, "forfeit", "{misbehave}: game {}", g.game_id);
            let engine_won = if g.bots[0].starts_with("engine:") { "1-0" } else { "0-1" };
            assert_ne!(g.result, engine_won, "{misbehave}: the engine won a forfeit");
            assert_ne!(g.result, "1/2-1/2");
        }
        // Each forfeit's reason is recorded in its games file's footer.
        let mut reasons = std::collections::BTreeMap::new();
        for matchup in std::fs::read_dir(dir.join("matchups")).unwrap() {
            for shard in junqi_selfplay::shard_files(&matchup.unwrap().path().join("games")).unwrap() {
                reasons.extend(junqi_selfplay::read_forfeits(&shard).unwrap());
            }
        }
        assert_eq!(reasons.len(), games.len(), "{misbehave}: {reasons:?}");
        assert!(reasons.values().all(|r| r.contains(reason)), "{misbehave}: {reasons:?}");
        replays(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn engine_specs_are_checked_before_any_game() {
    let dir = temp_dir("badspec");
    let bogus_option = format!("engine:cmd=python3 {},option.bogus=1,random", python_engine());
    for (bots, mentions) in [
        ("engine:cmd=/no/such/engine,random", "not a file"),
        ("engine:name=x,random", "cmd"),
        ("engine:cmd=python3,timeout=0,random", "timeout"),
        ("engine:cmd=python3,color=red,random", "color"),
        (bogus_option.as_str(), "does not start"),
        ("engine:cmd=true,random", "does not start"),
    ] {
        let out = arena("fanqi", bots, 2, &dir);
        assert_eq!(out.status.code(), Some(2), "{bots}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(mentions) && err.lines().count() == 1, "{bots}: {err}");
    }
}

/// `junqi play` against an external engine: it moves, and when it crashes
/// the person wins by forfeit.
#[test]
fn play_against_an_external_engine() {
    let run = |misbehave: &str| {
        let mut child = Command::new(JUNQI)
            .args(["play", "--seat", "2", "--seed", "3", "--color", "never", "--bot"])
            .arg(format!("engine:cmd=python3 {}{misbehave}", python_engine()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let normal = run("");
    assert!(normal.contains("bot plays "), "{normal}");
    let crashed = run(",option.misbehave=crash@1");
    assert!(crashed.contains("the bot forfeits") && crashed.contains("result: 0-1 (forfeit)"), "{crashed}");
}

/// `--openings FILE`: arena matchups and SPRT batches start their game pairs
/// from the file's positions and seeds in turn (batch after batch).
#[test]
fn arena_and_sprt_play_an_openings_file_in_turn() {
    let dir = temp_dir("openings");
    std::fs::create_dir_all(&dir).unwrap();
    let rules = Rules::preset(Mode::Fanqi);
    let mut played = Game::new(Position::new_game(rules, 11));
    let mut list = MoveList::new();
    for _ in 0..6 {
        played.truth().legal_moves(&mut list);
        let first = list.iter().next().copied().unwrap();
        played.play(first).unwrap();
    }
    let lines = [played.truth().to_jfen(), Position::new_game(rules, 12).to_jfen(), "987654321".to_string()];
    let file = dir.join("openings.txt");
    std::fs::write(&file, format!("# three openings\n{}\n\n{}\n{}\n", lines[0], lines[1], lines[2])).unwrap();
    let from_seed = Position::new_game(rules, 987654321).to_jfen();
    let expected = [lines[0].clone(), lines[1].clone(), from_seed];

    let out = Command::new(JUNQI)
        .args(["arena", "--bots", "greedy,random", "--games-per-pair", "6", "--out"])
        .arg(dir.join("arena"))
        .arg("--openings")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut games = stored_games(&dir.join("arena"));
    games.sort_by_key(|g| g.game_id);
    for g in &games {
        assert_eq!(g.start_jfen, expected[(g.game_id / 2) as usize], "game {}", g.game_id);
    }
    replays(&dir.join("arena"));

    let out = Command::new(JUNQI)
        .args([
            "sprt",
            "--candidate",
            "random",
            "--baseline",
            "greedy:epsilon=1",
            "--batch-games",
            "4",
            "--max-games",
            "8",
        ])
        .args(["--elo0", "0", "--elo1", "5", "--out"])
        .arg(dir.join("sprt"))
        .arg("--openings")
        .arg(&file)
        .output()
        .unwrap();
    // Two batches decide nothing: exit 3, the game limit reached.
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    for (batch, slots) in [(0, [0, 1]), (1, [2, 0])] {
        let games_dir = dir.join("sprt").join("batches").join(format!("{batch:05}")).join("games");
        let mut games: Vec<_> = junqi_selfplay::shard_files(&games_dir)
            .unwrap()
            .iter()
            .flat_map(|s| junqi_selfplay::read_games_file(s).unwrap())
            .collect();
        games.sort_by_key(|g| g.game_id);
        assert_eq!(games.len(), 4);
        for g in &games {
            assert_eq!(g.start_jfen, expected[slots[(g.game_id / 2) as usize]], "batch {batch} game {}", g.game_id);
        }
    }

    // A bad line is one error naming the line.
    std::fs::write(&file, "987\nnot a position\n").unwrap();
    let out = Command::new(JUNQI)
        .args(["arena", "--bots", "greedy,random", "--games-per-pair", "2", "--out"])
        .arg(dir.join("bad"))
        .arg("--openings")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("openings line 2") && err.lines().count() == 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scripts/regress-builds.sh` parses, and without arguments prints its usage
/// and exits 2 (building two revisions is too slow for the test suite; the
/// BENCHMARKS runs exercise it).
#[test]
fn regress_builds_script_parses_and_explains_itself() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/regress-builds.sh");
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    let usage = Command::new("bash").arg(&script).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let text = String::from_utf8_lossy(&usage.stderr);
    assert!(text.contains("BASE_REV") && text.contains("TEST_PATCH"), "{text}");
}
