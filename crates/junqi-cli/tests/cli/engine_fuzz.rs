//! Fuzzing `junqi engine` (issue 41): command streams of real sessions
//! (positions of random games in every mode, finished games, contradictory
//! positions) mutated line by line and byte by byte, against a search bot
//! and a net bot. Each command is followed by `isready`, so every answer is
//! tied to its command, and checked against the library: a `position` is
//! accepted exactly when `decode_position` accepts it, a `bestmove` only
//! answers a consistent, unfinished position and is one of its legal moves,
//! every other answer is a known line, and the engine never panics or
//! hangs.
//!
//! Seeded and fixed: `JUNQI_FUZZ_CASES=N` runs N cases per bot instead of
//! the CI counts, `JUNQI_FUZZ_SEED=S` other cases.

use junqi_core::{rng_from_seed, Game, GameRng, InfoSet, Mode, MoveList, Position, Rules, Seat};
use junqi_engine::{decode_position, decode_rules, encode_position, encode_rules};
use rand::seq::IndexedRandom;
use rand::Rng;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

/// No answer within this long is a hang.
const ANSWER_LIMIT: Duration = Duration::from_secs(60);

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty()).map(|v| v.trim().parse().expect(name))
}

/// The positions a seat sees in one random game: some plies, and the last.
fn game_lines(mode: Mode, rng: &mut GameRng) -> (Rules, Seat, Vec<String>) {
    let rules = Rules::preset(mode);
    let mut game = Game::new(Position::new_game(rules, rng.random()));
    let seat = if rng.random() { Seat::First } else { Seat::Second };
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    let stop = rng.random_range(0..300);
    for ply in 0.. {
        game.truth().legal_moves(&mut moves);
        let over = game.truth().outcome_given(moves.len()).is_some();
        if over || ply == stop || (game.truth().turn() == seat && rng.random_range(0..40) == 0) {
            let info = game.infoset(seat);
            let mut legal = MoveList::new();
            info.legal_moves(&mut legal);
            out.push(format!("position {}", encode_position(info)));
            out.push(format!("legal {}", legal.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")));
            out.push(["go", "go sims 16", "go movetime 50", "go nodes 8"].choose(rng).unwrap().to_string());
        }
        if over || ply == stop {
            break;
        }
        game.play(*moves.as_slice().choose(rng).unwrap()).unwrap();
    }
    (rules, seat, out)
}

/// Positions no game reaches, or a finished one (the examples).
const CONTRADICTIONS: &[&str] = &[
    "position 5/5/5/5/5/5/ELDKR/E1G1E/CL1LD/R1C1B/JMOOM/MFBJC mingqi 1 r 0 0",
    "position 5/5/5/5/5/5/ELDKR/E1G1E/CL1LD/R1C1B/JMOOM/MFBJC mingqi 1 r 0 0 pool KG",
    "position ?????/?????/?1?1?/??1??/?1?1?/?????/JRDRK/L1C1E/BG1CL/B1D1O/OJMEM/MFELC anqi 1 r 0 0 kinds a11=F",
    "position ?????/?????/?1?1?/??1??/?1?1?/?????/JRDRK/L1C1E/BG1CL/B1D1O/OJMEM/MFELC anqi 1 r 0 0 removed K K",
    "position ?????/?????/?1?1?/??1??/?1?1?/?????/MRDRK/L1C1E/BG1CL/B1D1O/OJJEM/MFELC anqi 1 r 0 0",
];

/// Lines a mutation may insert.
const VOCABULARY: &[&str] = &[
    "go",
    "stop",
    "deploy",
    "position",
    "legal a1a1",
    "legal zz",
    "isready",
    "junqi",
    "newgame fanqi seat 3",
    "newgame anqi seat 2 seed x",
    "newgame mingqi seat 1 bomb_flies=maybe",
    "setoption name sims value 8",
    "setoption name spec value heuristic",
    "setoption name x",
    "go sims",
    "go sims 4 movetime",
    "go depth 3",
    "",
];

/// A session: the handshake, then a game or two, a contradiction now and then.
fn session(rng: &mut GameRng, modes: &[Mode]) -> Vec<Vec<u8>> {
    let mut lines = vec!["junqi".to_string()];
    for _ in 0..rng.random_range(1..3) {
        let mode = *modes.choose(rng).unwrap();
        let (rules, seat, positions) = game_lines(mode, rng);
        lines.push(format!("newgame {} seat {} seed {}", encode_rules(&rules), seat.number(), rng.random::<u32>()));
        if mode != Mode::Fanqi && rng.random() {
            lines.push("deploy".into());
        }
        lines.extend(positions);
        if rng.random_range(0..3) == 0 {
            lines.push(CONTRADICTIONS.choose(rng).unwrap().to_string());
            lines.push("go".into());
        }
    }
    let mut bytes: Vec<Vec<u8>> = lines.into_iter().map(String::into_bytes).collect();
    for _ in 0..rng.random_range(0..6) {
        let n = bytes.len();
        let i = rng.random_range(0..n);
        match rng.random_range(0..7) {
            0 => drop(bytes.remove(i)),
            1 => bytes.insert(i, bytes[i].clone()),
            2 => bytes.swap(i, rng.random_range(0..n)),
            3 => bytes.insert(i, VOCABULARY.choose(rng).unwrap().as_bytes().to_vec()),
            4 => bytes.insert(i, (0..rng.random_range(0..40)).map(|_| rng.random()).collect()),
            _ => {
                // A few byte edits inside one line.
                let line = &mut bytes[i];
                for _ in 0..rng.random_range(1..4) {
                    let at = rng.random_range(0..=line.len());
                    match rng.random_range(0..4) {
                        0 if at < line.len() => line[at] ^= 1 << rng.random_range(0..8),
                        1 if at < line.len() => drop(line.remove(at)),
                        2 => line.insert(at, *b"?~ =1aK/-0".choose(rng).unwrap()),
                        _ => line.truncate(at),
                    }
                }
            }
        }
        if bytes.is_empty() {
            bytes.push(b"junqi".to_vec());
        }
    }
    bytes
}

/// What a line says to the library, as the engine reads it.
struct Oracle {
    game: Option<(Rules, Seat)>,
    info: Option<InfoSet>,
}

impl Oracle {
    /// Check the engine's answer to one command against the library.
    fn check(&mut self, line: &str, answer: &[String]) -> Result<(), String> {
        let errors = answer.iter().filter(|l| l.starts_with("error")).count();
        for l in answer {
            let word = l.split_whitespace().next().unwrap_or("");
            if !["id", "option", "junqiok", "info", "bestmove", "deployment", "error"].contains(&word) {
                return Err(format!("unknown answer `{l}`"));
            }
        }
        if errors > 1
            || (errors == 1
                && answer.len() > 1
                && !answer[..answer.len() - 1].iter().all(|l| l.starts_with("info string")))
        {
            return Err(format!("more than one error, or an error beside an answer: {answer:?}"));
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let failed = errors == 1;
        match tokens.first().copied() {
            Some("newgame") if !failed => {
                let args = &tokens[1..];
                let seat = args.windows(2).find(|w| w[0] == "seat").map(|w| w[1]);
                let seat = match seat {
                    Some("1") => Seat::First,
                    Some("2") => Seat::Second,
                    _ => return Err("accepted a newgame without a seat".into()),
                };
                let mut rest = Vec::new();
                let mut i = 0;
                while i < args.len() {
                    if matches!(args[i], "seat" | "seed") {
                        i += 2;
                    } else {
                        rest.push(args[i]);
                        i += 1;
                    }
                }
                let rules = decode_rules(&rest).map_err(|e| format!("accepted rules the library refuses: {e}"))?;
                self.game = Some((rules, seat));
                self.info = None;
            }
            Some("position") => {
                let Some((rules, seat)) = self.game else {
                    return if failed { Ok(()) } else { Err("accepted a position before newgame".into()) };
                };
                let decoded = decode_position(line.trim_start()["position".len()..].trim(), rules, seat);
                if decoded.is_ok() == failed {
                    return Err(format!(
                        "the engine {} but the library says {decoded:?}",
                        if failed { "refused" } else { "accepted" }
                    ));
                }
                self.info = decoded.ok();
            }
            Some("go") => {
                if let Some(best) = answer.last().filter(|l| l.starts_with("bestmove")) {
                    let info = self.info.as_ref().ok_or("bestmove without a position")?;
                    let mut legal = MoveList::new();
                    info.legal_moves(&mut legal);
                    let mv = best.split_whitespace().nth(1).and_then(|m| m.parse().ok());
                    if !mv.is_some_and(|m| legal.contains(m)) {
                        return Err(format!("`{best}` is not legal"));
                    }
                    if info.game_over() || info.inconsistency().is_some() {
                        return Err(format!("`{best}` in a finished or impossible position"));
                    }
                } else if answer.last().is_none_or(|l| !l.starts_with("error")) {
                    return Err(format!("go answered {answer:?}"));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Whether the engine should not be sent `line` in a case: it would quit,
/// start a program, or search for long (a budget over 256).
fn skipped(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    let big = line.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() > 3 || d.parse::<u32>().is_ok_and(|n| n > 256));
    first == "quit" || line.contains("engine") || (matches!(first, "go" | "setoption") && big)
}

/// One case: `junqi engine --bot SPEC` on the session, checked line by line.
fn run_case(spec: &str, lines: &[Vec<u8>]) -> Result<(), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(["engine", "--bot", spec])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let answers = crate::common::lines_of(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut oracle = Oracle { game: None, info: None };
    let mut result = Ok(());
    // A byte edit may have put a newline inside a line: each part is a command.
    for command in lines.iter().flat_map(|l| l.split(|&b| b == b'\n')) {
        let text = String::from_utf8_lossy(command).into_owned();
        if skipped(&text) {
            continue;
        }
        if stdin.write_all(command).and_then(|()| stdin.write_all(b"\nisready\n")).is_err() {
            result = Err(format!("the engine stopped reading at `{text}`"));
            break;
        }
        let mut answer = Vec::new();
        // An `isready` of the session is answered before ours.
        let mut ready = if text.split_whitespace().next() == Some("isready") { 2 } else { 1 };
        loop {
            match answers.recv_timeout(ANSWER_LIMIT) {
                Ok(l) if l == "readyok" => {
                    ready -= 1;
                    if ready == 0 {
                        break;
                    }
                }
                Ok(l) => answer.push(l),
                Err(e) => {
                    result = Err(format!("no `readyok` after `{text}` ({e}): {answer:?}"));
                    break;
                }
            }
        }
        // Not UTF-8: the engine refuses the line, the library never sees it.
        let checked = if std::str::from_utf8(command).is_ok() { oracle.check(&text, &answer) } else { Ok(()) };
        if let Err(e) = result.as_ref().map_err(Clone::clone).and(checked) {
            result = Err(format!("after `{text}`: {e}"));
            break;
        }
    }
    let _ = stdin.write_all(b"quit\n");
    drop(stdin);
    if result.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    let err = err.join().unwrap();
    result?;
    if err.contains("panicked") || status.code() != Some(0) {
        return Err(format!("exit {status}: {err}"));
    }
    Ok(())
}

fn fuzz(spec: &str, modes: &[Mode], ci_cases: u64) {
    let cases = env_number("JUNQI_FUZZ_CASES").unwrap_or(ci_cases);
    let seed = env_number("JUNQI_FUZZ_SEED").unwrap_or(41);
    for case in 0..cases {
        let mut rng = rng_from_seed(seed.wrapping_mul(1_000_003).wrapping_add(case));
        let lines = session(&mut rng, modes);
        if let Err(e) = run_case(spec, &lines) {
            let text: Vec<String> = lines.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect();
            panic!("{spec}, case {case} of seed {seed}: {e}\nsession:\n{}", text.join("\n"));
        }
    }
    eprintln!("{spec}: {cases} sessions");
}

#[test]
fn mutated_sessions_against_a_search_bot() {
    fuzz("mcts:sims=16", &Mode::ALL, 12);
}

#[test]
fn mutated_sessions_against_a_net_bot() {
    fuzz("net:fanqi", &[Mode::Fanqi, Mode::Fanqi, Mode::Anqi, Mode::Mingqi], 6);
}
