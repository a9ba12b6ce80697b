//! `junqi engine-check -- PROGRAM ARGS`: the conformance suite, run against
//! any engine (in the spirit of cutechess's and fastchess's engine checks).
//! It sends the exact lines our host sends, written by the same grammar
//! ([`crate::grammar`]) as [`crate::client`]: the handshake, a short game
//! of every mode the engine plays (a seed above 2^63, every rule option,
//! each kind of `go`, the engine's own deployment), a command it cannot
//! know, and `quit`. After every command that has no answer it sends
//! `isready`, so an `error` (or a crash) is pinned on the line that caused
//! it. The first failure ends the suite and is reported in one line.
//!
//! An engine that announces four-player play (`plays siguo …`) is also
//! run through the four-player suite of [`crate::siguo_check`], on the
//! same process after the two-player games; [`Suites`] picks one suite.

use crate::grammar::{Command, GameResult, Limits};
use crate::knowledge::{decode_deployment, encode_position_with};
use crate::plays::{self, Plays};
use junqi_core::{Colour, Deployment, Game, GameRng, Mode, MoveList, Position, Rules, Seat};
use rand::seq::IndexedRandom;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// The seed of every game: above 2^63, so an engine that reads seeds as
/// signed 64-bit numbers fails here rather than in a match.
pub const CHECK_SEED: u64 = 17_010_586_208_885_004_439;
/// The seed the check's games are dealt from. Never sent: the engine is
/// told nothing about the deal (docs/protocol.md), and an engine that dealt
/// `CHECK_SEED` itself would otherwise know every hidden kind.
pub(crate) const CHECK_DEAL_SEED: u64 = 0x9E37_79B9_7F4A_7C15;
/// The engine's moves in each game (then the game is cut short).
const PLIES: usize = 24;

/// Which suites to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suites {
    /// Every suite the engine's `plays` lines announce: the two-player one
    /// (unless it plays four-player rules only), and the four-player one
    /// when it has a `plays siguo` line.
    Announced,
    /// The two-player suite only.
    TwoPlayer,
    /// The four-player suite only (failing when the engine announces no
    /// four-player rules).
    FourPlayer,
}
/// The longest line read from the engine.
const MAX_LINE: usize = 64 * 1024;

/// One step of the suite and how it went.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: String,
    /// `None`: passed.
    pub failure: Option<String>,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.failure {
            None => write!(f, "ok    {}", self.name),
            Some(why) => write!(f, "FAIL  {}: {why}", self.name),
        }
    }
}

/// A running engine under test.
pub(crate) struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub(crate) timeout: Duration,
    /// The last line sent, named in failures.
    last: String,
}

impl Peer {
    fn start(program: &str, args: &[String], timeout: Duration) -> Result<Peer, String> {
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Shown: the author wants to see what the engine complains about.
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start `{program}`: {e}"))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                match (&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = String::from_utf8_lossy(&bytes).trim_end_matches(['\n', '\r']).to_string();
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Peer { child, stdin, lines, timeout, last: String::new() })
    }

    pub(crate) fn send(&mut self, command: &Command) -> Result<(), String> {
        self.send_line(&command.to_string())
    }

    /// Send one line as it is (the four-player lines are not the grammar's).
    pub(crate) fn send_line(&mut self, line: &str) -> Result<(), String> {
        self.last = shown(line);
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("`{}` could not be sent: the engine closed its input ({e})", self.last))
    }

    /// Lines up to the first whose first word is `keyword`; an `error` line,
    /// silence or the end of output fails, naming the line last sent.
    pub(crate) fn answer(&mut self, keyword: &str) -> Result<Vec<String>, String> {
        let mut lines = Vec::new();
        loop {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no `{keyword}` within {} ms after `{}`", self.timeout.as_millis(), self.last))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(Duration::from_millis(20));
                    let how = match self.child.try_wait() {
                        Ok(Some(status)) => format!("exited ({status})"),
                        _ => "closed its output".to_string(),
                    };
                    return Err(format!("the engine {how} after `{}`", self.last));
                }
            };
            let first = line.split_whitespace().next().unwrap_or("");
            if first == "error" {
                return Err(format!("`{}` was answered `{line}`", self.last));
            }
            let done = first == keyword;
            lines.push(line);
            if done {
                return Ok(lines);
            }
        }
    }

    /// Send `go` and read the `bestmove` answer: the line and its move,
    /// read as `what` (named when it is not one).
    pub(crate) fn go<M: std::str::FromStr>(&mut self, limits: Limits, what: &str) -> Result<(String, M), String> {
        self.send(&Command::Go(limits))?;
        let best = self.answer("bestmove")?.pop().expect("ends with its keyword");
        let text = best.split_whitespace().nth(1).ok_or_else(|| format!("`{best}` names no move"))?;
        let mv = text.parse().map_err(|_| format!("`{best}`: `{text}` is not {what}"))?;
        Ok((best, mv))
    }

    /// Send a command that has no answer, then `isready`: the next line must be `readyok`.
    pub(crate) fn silent(&mut self, command: &Command) -> Result<(), String> {
        self.silent_line(&command.to_string())
    }

    /// [`Peer::silent`] for a line as it is.
    pub(crate) fn silent_line(&mut self, line: &str) -> Result<(), String> {
        self.send_line(line)?;
        let sent = self.last.clone();
        self.send(&Command::IsReady)?;
        self.last = sent;
        match self.answer("readyok")?.as_slice() {
            [_] => Ok(()),
            more => Err(format!("`{}` was answered {:?}; it has no answer", self.last, &more[..more.len() - 1])),
        }
    }
}

/// Lines longer than this are named by their beginning and length.
const SHOWN: usize = 1000;

/// `line` as a failure names it: whole, or its first words and its length
/// (a four-player position line runs to kilobytes).
fn shown(line: &str) -> String {
    if line.len() <= SHOWN {
        return line.to_string();
    }
    let cut = (0..=SHOWN).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
    format!("{} … ({} bytes)", &line[..cut], line.len())
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the handshake told.
pub(crate) struct Hello {
    pub(crate) protocol: u32,
    /// Its two-player `plays` lines.
    plays: Vec<Plays>,
    /// Its `plays siguo …` lines, the words after `siguo`.
    pub(crate) siguo_plays: Vec<String>,
    /// It said `deploys siguo`: it deploys its army in four-player games.
    pub(crate) siguo_deploys: bool,
}

fn handshake(peer: &mut Peer) -> Result<Hello, String> {
    peer.send(&Command::Junqi)?;
    let hello = peer.answer("junqiok")?;
    if !hello.iter().any(|l| l.starts_with("id name ")) {
        return Err("the handshake has no `id name` line".into());
    }
    let protocol = match hello.iter().find_map(|l| l.strip_prefix("id protocol ")) {
        None => 1,
        Some(v) => v.trim().parse().map_err(|_| format!("`id protocol {v}` is not a number"))?,
    };
    // Read as the host reads them (client.rs): `plays siguo …` lines apart.
    let (siguo, two): (Vec<&str>, Vec<&str>) = hello
        .iter()
        .filter_map(|l| l.strip_prefix("plays "))
        .partition(|w| w.split_whitespace().next() == Some("siguo"));
    let plays = two.into_iter().map(Plays::parse).collect::<Result<_, _>>()?;
    let siguo_plays = siguo.iter().map(|w| w.trim()["siguo".len()..].trim().to_string()).collect();
    Ok(Hello { protocol, plays, siguo_plays, siguo_deploys: crate::siguo::says_deploys_siguo(&hello) })
}

/// The `go` limits of the engine's `n`-th move: bare, then each kind the host sends.
pub(crate) fn limits(n: usize, hello: &Hello, timeout: Duration) -> Limits {
    let mut limits = match n % 4 {
        0 => Limits::default(),
        1 => Limits { movetime: Some(50), ..Limits::default() },
        2 => Limits { sims: Some(10), ..Limits::default() },
        _ => Limits { clock: Some((10_000, 100)), ..Limits::default() },
    };
    if hello.protocol >= crate::TIMEOUT_VERSION {
        limits.timeout = Some(timeout.as_millis() as u64);
    }
    limits
}

/// The engine's deployment for `colour`, checked.
fn deployment(peer: &mut Peer, colour: Colour, hello: &Hello, timeout: Duration) -> Result<Deployment, String> {
    let said = (hello.protocol >= crate::TIMEOUT_VERSION).then_some(timeout.as_millis() as u64);
    peer.send(&Command::Deploy { timeout: said })?;
    let lines = peer.answer("deployment")?;
    let words: Vec<&str> = lines.last().expect("ends with its keyword").split_whitespace().skip(1).collect();
    let d = decode_deployment(&words, colour).map_err(|e| format!("bad deployment: {e}"))?;
    d.validate().map_err(|e| format!("illegal deployment: {e}"))?;
    Ok(d)
}

/// A short game of `rules`, the engine playing `seat` against random moves.
fn game(peer: &mut Peer, hello: &Hello, rules: Rules, seat: Seat, timeout: Duration) -> Result<(), String> {
    peer.silent(&Command::NewGame { rules, seat, seed: Some(CHECK_SEED) })?;
    let mut rng: GameRng = junqi_core::rng_from_seed(CHECK_SEED);
    let start = match rules.fixed_colour(seat) {
        None => Position::new_game(rules, CHECK_DEAL_SEED),
        Some(colour) => {
            let own = deployment(peer, colour, hello, timeout)?;
            let other = Deployment::random(colour.other(), &mut rng);
            let (red, black) = if colour == Colour::Red { (own, other) } else { (other, own) };
            Position::from_deployments(rules, &red, &black).map_err(|e| format!("deployment: {e}"))?
        }
    };
    let mut game = Game::new(start);
    let mut moved = 0;
    while game.outcome().is_none() && moved < PLIES {
        let mover = game.truth().turn();
        let info = game.infoset(mover);
        let mut legal = MoveList::new();
        info.legal_moves(&mut legal);
        let action = if mover == seat {
            peer.silent(&Command::Position(encode_position_with(info, hello.protocol >= crate::HISTORY_VERSION)))?;
            peer.silent(&Command::Legal(legal.iter().copied().collect()))?;
            let (best, action) = peer.go(limits(moved, hello, timeout), "a move")?;
            if !legal.contains(action) {
                return Err(format!("`{best}` is not legal at ply {}", game.truth().ply()));
            }
            moved += 1;
            action
        } else {
            let moves: Vec<_> = legal.iter().copied().collect();
            *moves.choose(&mut rng).expect("a game not over has a move")
        };
        game.play(action).map_err(|e| format!("the referee refused {action}: {e}"))?;
    }
    if hello.protocol >= crate::TIMEOUT_VERSION {
        // A game cut short is told as a draw; the termination word is ours.
        let (result, termination) = match game.outcome() {
            Some(o) if o.winner == Some(seat) => (GameResult::Win, o.termination.name()),
            Some(o) if o.winner.is_some() => (GameResult::Loss, o.termination.name()),
            Some(o) => (GameResult::Draw, o.termination.name()),
            None => (GameResult::Draw, "max_plies"),
        };
        peer.silent(&Command::Result { result, termination: termination.to_string() })?;
    }
    Ok(())
}

/// The rules each mode is played by: the preset, seat 1 in 翻棋 and 明棋,
/// seat 2 in 暗棋.
fn games() -> [(Rules, Seat); 3] {
    [
        (Rules::preset(Mode::Fanqi), Seat::First),
        (Rules::preset(Mode::Anqi), Seat::Second),
        (Rules::preset(Mode::Mingqi), Seat::First),
    ]
}

/// A short game of each mode the engine plays; whether every one passed.
fn two_player_games(report: &mut Report, peer: &mut Peer, hello: &Hello, timeout: Duration) -> bool {
    for (rules, seat) in games() {
        let name = format!("{} as seat {}", rules.mode.name(), seat.number());
        let plays = if hello.plays.is_empty() && !hello.siguo_plays.is_empty() {
            Err("it plays four-player (siguo) rules only".to_string())
        } else {
            plays::check(&hello.plays, &rules)
        };
        if let Err(why) = plays {
            report.step(&format!("{name}: skipped, {why}"), Ok(()));
        } else if !report.step(&name, game(peer, hello, rules, seat, timeout)) {
            return false;
        }
    }
    true
}

/// The steps so far.
#[derive(Default)]
pub(crate) struct Report {
    steps: Vec<Step>,
}

impl Report {
    /// Record a step; whether it passed.
    pub(crate) fn step(&mut self, name: &str, result: Result<(), String>) -> bool {
        let passed = result.is_ok();
        self.steps.push(Step { name: name.to_string(), failure: result.err() });
        passed
    }
}

/// `line` is answered with one `error …` line.
pub(crate) fn refused(peer: &mut Peer, line: &str) -> Result<(), String> {
    peer.send_line(line)?;
    match peer.lines.recv_timeout(peer.timeout) {
        Ok(answer) if answer.starts_with("error") => Ok(()),
        Ok(answer) => Err(format!("`{line}` was answered `{answer}`, not `error …`")),
        Err(_) => Err(format!("`{line}` was not answered with `error …`")),
    }
}

/// `quit` ends the engine within 2 s.
fn quit(peer: &mut Peer) -> Result<(), String> {
    peer.send(&Command::Quit)?;
    for _ in 0..100 {
        if let Ok(Some(_)) = peer.child.try_wait() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err("still running 2 s after `quit`".into())
}

/// Run the suite against `program args`, answers within `timeout` each;
/// every step in order, the last one the first failure if any.
pub fn check_engine(program: &str, args: &[String], timeout: Duration, suites: Suites) -> Vec<Step> {
    let mut report = Report::default();
    run(&mut report, program, args, timeout, suites);
    report.steps
}

fn run(report: &mut Report, program: &str, args: &[String], timeout: Duration, suites: Suites) {
    let mut peer = match Peer::start(program, args, timeout) {
        Ok(p) => p,
        Err(e) => {
            report.step("start", Err(e));
            return;
        }
    };
    let hello = match handshake(&mut peer) {
        Ok(h) => h,
        Err(e) => {
            report.step("handshake", Err(e));
            return;
        }
    };
    report.step(&format!("handshake (protocol {})", hello.protocol), Ok(()));
    let ready = peer.send(&Command::IsReady).and_then(|()| peer.answer("readyok").map(drop));
    if !report.step("isready", ready) {
        return;
    }
    if suites != Suites::FourPlayer && !two_player_games(report, &mut peer, &hello, timeout) {
        return;
    }
    if suites != Suites::TwoPlayer && !crate::siguo_check::run(report, &mut peer, &hello, suites) {
        return;
    }
    if report.step("an unknown command is answered with `error`", refused(&mut peer, "frobnicate 1")) {
        report.step("quit", quit(&mut peer));
    }
}
