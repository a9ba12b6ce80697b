//! `engine:cmd=PROGRAM ARGS,…`: any program speaking the protocol, as a bot.
//!
//! The bot starts its program on its first move (one process per game in
//! flight, so engines run on all cores; a finished game's process waits for
//! the next game of the same spec), hands it only its seat's information set
//! as a `position` line,
//! and waits for `bestmove` at most `timeout` milliseconds. A program that
//! crashes, hangs past the timeout, reports an `error`, or answers with a
//! malformed or illegal move forfeits the game (see
//! [`junqi_bots::Agent::take_forfeit`]): the runner records a loss with
//! termination `forfeit`, the reason goes to stderr, the process is killed,
//! and a fresh one is started for the next game.

use crate::grammar::{Command, GameResult, Limits};
use crate::knowledge::{decode_deployment, encode_position_with};
use crate::logs::Traffic;
use crate::plays::Plays;
use junqi_bots::{register_bot, Agent, BotSpec, BotSpecError, Decision, Player};
use junqi_core::{Colour, Deployment, GameRng, InfoSet, Move, MoveList, Outcome, Rules, Seat};
use rand::Rng;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The parameters of an `engine:` spec (besides `option.<name>`).
pub const ENGINE_KEYS: [&str; 7] = ["cmd", "name", "timeout", "movetime", "sims", "tc", "debug"];

/// Default time an engine gets for one answer (the handshake, a move, a deployment).
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// What a `movetime` move may overrun before it forfeits (pipes, start-up, scheduling).
pub(crate) const MOVETIME_GRACE: Duration = Duration::from_secs(1);
/// The longest `timeout`, `movetime` and `tc` (its start and its increment)
/// a spec may give: one day, so that no deadline (`Instant::now() + …`)
/// overflows.
pub(crate) const MAX_DURATION_MS: u64 = 86_400_000;

/// Make `engine:` specs buildable by [`junqi_bots::from_spec`], and four-player
/// bots of `arena --siguo` and `sprt --siguo` ([`crate::siguo_client`]).
pub fn register_engine_bot() {
    register_bot("engine", build_engine_bot);
    junqi_siguo::register_siguo_agent(crate::siguo_client::build_siguo_engine);
}

fn build_engine_bot(spec: &BotSpec) -> Result<Player, BotSpecError> {
    Ok(Player::Fair(Box::new(EngineBot::new(spec)?)))
}

/// How to run and drive one external engine.
#[derive(Clone, Debug)]
pub(crate) struct EngineConfig {
    /// The spec as given, recorded with games.
    pub(crate) spec: String,
    /// `name=`, or `engine`: the start of its log files' names.
    pub(crate) label: String,
    /// `debug=true`: log every line to and from the engine.
    pub(crate) debug: bool,
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
    pub(crate) timeout: Duration,
    /// `timeout` when the spec gave one (it then also caps `movetime` and `tc` moves).
    pub(crate) explicit_timeout: Option<Duration>,
    pub(crate) movetime: Option<u64>,
    pub(crate) sims: Option<u64>,
    /// A clock per game: the starting time and the increment per move.
    pub(crate) clock: Option<(Duration, Duration)>,
    pub(crate) options: Vec<(String, String)>,
}

impl EngineConfig {
    /// The limits to send with a move and how long its answer may take: the
    /// move's time plus a grace second with `movetime`, what is left on the
    /// clock (`remaining`) with `tc`, else `timeout` (which, when given, caps
    /// the other two as well). The limits' own `timeout` is left unset.
    pub(crate) fn move_limits(&self, remaining: Duration) -> (Limits, Duration) {
        let mut limits = Limits { sims: self.sims, movetime: self.movetime, ..Limits::default() };
        let mut timeout = self.timeout;
        if let Some(ms) = self.movetime {
            timeout = Duration::from_millis(ms) + MOVETIME_GRACE;
        }
        if let Some((_, inc)) = self.clock {
            limits.clock = Some((remaining.as_millis() as u64, inc.as_millis() as u64));
            timeout = if self.movetime.is_some() { timeout.min(remaining) } else { remaining };
        }
        if let Some(cap) = self.explicit_timeout {
            timeout = timeout.min(cap);
        }
        (limits, timeout)
    }
}

/// A running engine: its process, its stdin, and its stdout lines (read by a
/// thread, so that waiting for an answer can time out).
pub(crate) struct EngineProcess {
    pub(crate) child: Child,
    stdin: ChildStdin,
    /// Each line, or why one was refused (longer than [`MAX_LINE`]).
    lines: Receiver<Result<String, String>>,
    /// The protocol version the engine announced (`id protocol N`; 1 if it did not).
    pub(crate) protocol: u32,
    /// The rules it plays (its `plays` lines; none: every rule).
    plays: Vec<Plays>,
    /// Its `plays siguo …` lines, the words after `siguo` (four-player rules).
    pub(crate) siguo_plays: Vec<String>,
    /// Its handshake had `deploys siguo`: it deploys its own army in a
    /// four-player game (the host sends `deploy` after `newgame`).
    pub(crate) siguo_deploys: bool,
    traffic: Option<Traffic>,
}

/// The longest line read from an engine; a longer one is skipped unread
/// and fails the request (docs/protocol.md).
const MAX_LINE: usize = 64 * 1024;
/// Lines read ahead of the host (at most this many × [`MAX_LINE`] bytes).
const MAX_PENDING: usize = 64;
/// The most output an engine may print for one request (its `info` lines
/// and the answer), or between two requests: more is a flood, which fails
/// the request like a timeout, so a flooding engine costs bounded memory.
const MAX_ANSWER: usize = 1024 * 1024;

impl EngineProcess {
    pub(crate) fn start(config: &EngineConfig) -> Result<EngineProcess, String> {
        use std::os::unix::process::CommandExt;
        let logs = crate::logs::engines_dir()?;
        let mut child = std::process::Command::new(&config.program)
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Kept in the run directory when there is one (see `logs`).
            .stderr(if logs.is_some() { Stdio::piped() } else { Stdio::null() })
            // A group of its own (see the Cargo.toml note on libc).
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", config.program))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut traffic = None;
        if let Some(dir) = &logs {
            let stem = dir.join(format!("{}-{}", config.label, child.id()));
            crate::logs::keep_stderr(child.stderr.take().expect("piped stderr"), &stem.with_extension("stderr.log"))?;
            if config.debug {
                traffic = Some(Traffic::create(&stem.with_extension("debug.log"))?);
            }
        }
        let received = traffic.clone();
        // Bounded both ways: a line of at most MAX_LINE bytes (a longer one
        // is skipped, not kept), and at most MAX_PENDING lines waiting, so a
        // flooding engine cannot exhaust memory.
        let (tx, lines) = std::sync::mpsc::sync_channel(MAX_PENDING);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                match (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if bytes.len() > MAX_LINE && !bytes.ends_with(b"\n") {
                    // Said first: the rest of the line may never end.
                    if tx.send(Err(format!("a line longer than {MAX_LINE} bytes"))).is_err()
                        || crate::server::skip_line(&mut reader).is_err()
                    {
                        break;
                    }
                    continue;
                }
                let line = String::from_utf8_lossy(&bytes).trim_end_matches(['\n', '\r']).to_string();
                if let Some(t) = &received {
                    t.record('<', &line);
                }
                if tx.send(Ok(line)).is_err() {
                    break;
                }
            }
        });
        let mut process = EngineProcess {
            child,
            stdin,
            lines,
            protocol: 1,
            plays: Vec::new(),
            siguo_plays: Vec::new(),
            siguo_deploys: false,
            traffic,
        };
        process.send(&Command::Junqi)?;
        // Starting may take longer than a move (a `junqi` binary loads
        // libtorch, an engine its net): the handshake gets at least 30 s.
        let start_timeout = config.timeout.max(Duration::from_millis(DEFAULT_TIMEOUT_MS));
        let hello = process.answer("junqiok", start_timeout)?;
        process.protocol =
            hello.iter().find_map(|l| l.strip_prefix("id protocol ").and_then(|v| v.trim().parse().ok())).unwrap_or(1);
        let siguo = |w: &&str| w.split_whitespace().next() == Some("siguo");
        process.plays = hello
            .iter()
            .filter_map(|l| l.strip_prefix("plays "))
            .filter(|w| !siguo(w))
            .map(Plays::parse)
            .collect::<Result<_, _>>()?;
        process.siguo_plays = hello
            .iter()
            .filter_map(|l| l.strip_prefix("plays "))
            .filter(siguo)
            .map(|w| w.trim()["siguo".len()..].trim().to_string())
            .collect();
        process.siguo_deploys = crate::siguo::says_deploys_siguo(&hello);
        for (name, value) in &config.options {
            process.send(&Command::SetOption { name: name.clone(), value: value.clone() })?;
        }
        process.send(&Command::IsReady)?;
        process.answer("readyok", start_timeout)?;
        Ok(process)
    }

    /// `deploy` (its `timeout` told to a version 3 engine) and the
    /// `deployment` line it answers, within `timeout`.
    pub(crate) fn deploy(&mut self, timeout: Duration) -> Result<String, String> {
        self.drain()?;
        let said = (self.protocol >= crate::TIMEOUT_VERSION).then_some(timeout.as_millis() as u64);
        self.send(&Command::Deploy { timeout: said })?;
        let lines = self.answer("deployment", timeout)?;
        Ok(lines.last().expect("keyword line").clone())
    }

    /// Drop output nobody asked for (lines an engine printed after its last
    /// answer), so that it cannot pass for the answer to the next request;
    /// an engine that is still flooding fails.
    pub(crate) fn drain(&mut self) -> Result<(), String> {
        let mut bytes = 0;
        while let Ok(line) = self.lines.try_recv() {
            bytes += line?.len() + 1;
            if bytes > MAX_ANSWER {
                return Err(format!("more than {MAX_ANSWER} bytes of output nobody asked for"));
            }
        }
        Ok(())
    }

    fn send(&mut self, command: &Command) -> Result<(), String> {
        self.send_line(&command.to_string())
    }

    /// Send one line (the four-player lines are not [`Command`]s).
    pub(crate) fn send_line(&mut self, line: &str) -> Result<(), String> {
        if let Some(t) = &self.traffic {
            t.record('>', line);
        }
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(|e| self.died(&e.to_string()))
    }

    /// Why the engine stopped answering: its exit status when it has one.
    fn died(&mut self, what: &str) -> String {
        std::thread::sleep(Duration::from_millis(20));
        match self.child.try_wait() {
            Ok(Some(status)) => format!("the engine exited ({status})"),
            _ => format!("the engine stopped talking ({what})"),
        }
    }

    /// Send `go` and wait for `bestmove` within `timeout`, keeping the
    /// game's clock (`clock` = (base, increment), `remaining` what is left):
    /// no answer once the clock has run out loses on time at `ply`, and an
    /// answer adds the increment to what is left. Returns the lines up to
    /// `bestmove` and the move's text (two- and four-player hosts parse it).
    pub(crate) fn go(
        &mut self,
        limits: Limits,
        timeout: Duration,
        clock: Option<(Duration, Duration)>,
        remaining: &mut Duration,
        ply: impl std::fmt::Display,
    ) -> Result<(Vec<String>, String), String> {
        let started = Instant::now();
        self.send(&Command::Go(limits))?;
        let lines = match self.answer("bestmove", timeout) {
            Err(_) if clock.is_some() && started.elapsed() >= *remaining => {
                return Err(format!("lost on time at ply {ply}"));
            }
            other => other?,
        };
        if let Some((_, inc)) = clock {
            *remaining = remaining.saturating_sub(started.elapsed()) + inc;
        }
        let best = lines.last().expect("answer ends with its keyword");
        let text = best.split_whitespace().nth(1).ok_or_else(|| format!("`{best}` names no move"))?.to_string();
        Ok((lines, text))
    }

    /// Lines up to the first that starts with `keyword` (returned last),
    /// within `timeout`. An `error` line from the engine is a failure.
    pub(crate) fn answer(&mut self, keyword: &str, timeout: Duration) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        let mut bytes = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Err(why)) => return Err(format!("{why} before `{keyword}`")),
                Ok(Ok(line)) => {
                    bytes += line.len() + 1;
                    if bytes > MAX_ANSWER {
                        return Err(format!("more than {MAX_ANSWER} bytes of output without `{keyword}`"));
                    }
                    let first = line.split_whitespace().next().unwrap_or("");
                    if first == "error" {
                        return Err(format!("the engine answered `{line}`"));
                    }
                    let done = first == keyword;
                    lines.push(line);
                    if done {
                        return Ok(lines);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no `{keyword}` within {} ms", timeout.as_millis()))
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died("end of output")),
            }
        }
    }
}

impl Drop for EngineProcess {
    /// `quit`, then after 200 ms the engine, its group and its descendants
    /// are killed; descendants seen before `quit` are killed either way
    /// (see [`crate::reap`] for what cannot be reached).
    fn drop(&mut self) {
        let Ok(pid) = i32::try_from(self.child.id()) else { return };
        // Looked up while the engine lives: once it exits, its children are init's.
        let known = crate::reap::descendants(pid);
        if let Some(t) = &self.traffic {
            t.record('>', "quit");
        }
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                crate::reap::kill_known(&known);
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        crate::reap::kill_tree(pid, &known);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An external engine as a bot (see the module docs).
pub struct EngineBot {
    config: EngineConfig,
    process: Option<EngineProcess>,
    forfeit: Option<String>,
    /// The seat and ply of the last position sent, to tell a new game.
    last: Option<(Seat, u32)>,
    /// Set by a deployment: the next move of this seat is in the game just started.
    deployed: Option<Seat>,
    /// Time left on this game's clock (with `tc`).
    remaining: Duration,
    /// The rules the engine plays, from its handshake.
    plays: Vec<Plays>,
    /// Its four-player `plays siguo` lines: an engine with these and no
    /// two-player line plays no two-player rules.
    siguo_plays: Vec<String>,
}

/// `60+0.5`: a clock of 60 s plus 0.5 s a move.
fn parse_clock(text: &str) -> Option<(Duration, Duration)> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let most = (MAX_DURATION_MS / 1000) as f64;
    let seconds = |t: &str| {
        t.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0 && *s <= most).map(Duration::from_secs_f64)
    };
    let base = seconds(base).filter(|b| !b.is_zero())?;
    Some((base, seconds(inc)?))
}

/// Whether `program` can be started: a path that exists, or a name on `PATH`.
fn findable(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

impl EngineBot {
    /// Check an `engine:` spec; the program starts on the bot's first move.
    pub fn new(spec: &BotSpec) -> Result<EngineBot, BotSpecError> {
        let config = engine_config(spec)?;
        let (plays, siguo_plays, _) =
            probe(&config).map_err(|e| spec.bad("cmd", &format!("the engine does not start: {e}")))?;
        let remaining = config.clock.map_or(Duration::ZERO, |(base, _)| base);
        Ok(EngineBot {
            config,
            process: None,
            forfeit: None,
            last: None,
            deployed: None,
            remaining,
            plays,
            siguo_plays,
        })
    }
}

/// An `engine:` spec's settings, checked (the program is not started).
pub(crate) fn engine_config(spec: &BotSpec) -> Result<EngineConfig, BotSpecError> {
    let mut options = Vec::new();
    for (k, v) in &spec.params {
        if let Some(name) = k.strip_prefix("option.") {
            if name.is_empty() {
                return Err(spec.bad(k, "an option needs a name: option.<name>=<value>"));
            }
            options.push((name.to_string(), v.clone()));
        } else if !ENGINE_KEYS.contains(&k.as_str()) {
            return Err(BotSpecError::UnknownParam {
                bot: spec.name.clone(),
                key: k.clone(),
                known: format!("{}, option.<name>", ENGINE_KEYS.join(", ")),
            });
        }
    }
    let cmd = spec.get("cmd").ok_or_else(|| spec.bad("cmd", "an engine needs cmd=<program> [arguments]"))?;
    let mut words = cmd.split_whitespace().map(str::to_string);
    let program = words.next().ok_or_else(|| spec.bad("cmd", "empty command"))?;
    if !findable(&program) {
        return Err(spec.bad("cmd", &format!("`{program}` is not a file, nor a program on PATH")));
    }
    let millis = |key: &str| -> Result<Option<u64>, BotSpecError> {
        spec.get(key)
            .map(|v| {
                v.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| spec.bad(key, "must be a positive integer"))
            })
            .transpose()
    };
    let duration = |key: &str| -> Result<Option<u64>, BotSpecError> {
        match millis(key)? {
            Some(ms) if ms > MAX_DURATION_MS => {
                Err(spec.bad(key, &format!("must be at most {MAX_DURATION_MS} milliseconds (one day)")))
            }
            other => Ok(other),
        }
    };
    let explicit_timeout = duration("timeout")?.map(Duration::from_millis);
    let debug = match spec.get("debug") {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(spec.bad("debug", "must be true or false")),
    };
    if debug && crate::logs::engines_dir().map_err(|e| spec.bad("debug", &e))?.is_none() {
        return Err(
            spec.bad("debug", "the traffic log goes to a run directory: use it with arena, sprt or selfplay --out")
        );
    }
    let label: String = spec
        .get("name")
        .unwrap_or("engine")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let timeout = explicit_timeout.unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    let config = EngineConfig {
        spec: spec.to_string(),
        label,
        debug,
        program,
        args: words.collect(),
        timeout,
        explicit_timeout,
        movetime: duration("movetime")?,
        sims: millis("sims")?,
        clock: spec
            .get("tc")
            .map(|tc| {
                parse_clock(tc).ok_or_else(|| {
                    spec.bad("tc", "expected <seconds>+<increment seconds>, each at most 86400 (one day), e.g. 60+0.5")
                })
            })
            .transpose()?,
        options,
    };
    Ok(config)
}

impl EngineBot {
    fn process(&mut self) -> Result<&mut EngineProcess, String> {
        if self.process.is_none() {
            self.process = Some(match take_idle(&self.config.spec) {
                Some(process) => process,
                None => EngineProcess::start(&self.config)?,
            });
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    fn newgame(&mut self, rules: &Rules, seat: Seat, rng: &mut GameRng) -> Result<(), String> {
        let seed: u64 = rng.random();
        if let Some((base, _)) = self.config.clock {
            self.remaining = base;
        }
        self.process()?.send(&Command::NewGame { rules: *rules, seat, seed: Some(seed) })
    }

    fn try_act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Result<Decision, String> {
        let (seat, ply) = (info.seat(), info.view().ply());
        let continues = self.last.is_some_and(|(s, p)| s == seat && ply > p);
        let just_deployed = self.deployed.take() == Some(seat);
        if !continues && !just_deployed {
            self.newgame(info.view().rules(), seat, rng)?;
        }
        self.last = Some((seat, ply));
        let mut legal = MoveList::new();
        info.legal_moves(&mut legal);
        let (mut limits, timeout) = self.config.move_limits(self.remaining);
        let (clock, mut remaining) = (self.config.clock, self.remaining);
        let process = self.process()?;
        process.drain()?;
        let history = process.protocol >= crate::HISTORY_VERSION;
        if process.protocol >= crate::TIMEOUT_VERSION {
            limits.timeout = Some(timeout.as_millis() as u64);
        }
        process.send(&Command::Position(encode_position_with(info, history)))?;
        process.send(&Command::Legal(legal.iter().copied().collect()))?;
        let (lines, text) = process.go(limits, timeout, clock, &mut remaining, ply)?;
        self.remaining = remaining;
        let best = lines.last().expect("answer ends with its keyword");
        let action: Move = text.parse().map_err(|_| format!("`{best}`: `{text}` is not a move"))?;
        if !legal.contains(action) {
            return Err(format!("illegal move {action} at ply {ply}"));
        }
        // The last `info … value v` before the move, if any.
        let value = lines.iter().rev().find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("info"))
                .then(|| words.skip_while(|&w| w != "value").nth(1).and_then(|v| v.parse::<f32>().ok()))
                .flatten()
        });
        let value = value.filter(|v| v.is_finite()).map(|v| v.clamp(-1.0, 1.0));
        Ok(Decision { action, policy: vec![(action, 1.0)], value })
    }

    fn try_deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Result<Deployment, String> {
        let seat = if colour == rules.first_player.colour() { Seat::First } else { Seat::Second };
        self.newgame(rules, seat, rng)?;
        let timeout = self.config.timeout;
        let line = self.process()?.deploy(timeout)?;
        let tokens: Vec<&str> = line.split_whitespace().skip(1).collect();
        let d = decode_deployment(&tokens, colour).map_err(|e| format!("bad deployment: {e}"))?;
        self.deployed = Some(seat);
        self.last = None;
        Ok(d)
    }

    /// Record why this game is lost and drop the process (a fresh one starts
    /// for the next game).
    fn fail(&mut self, reason: String) {
        eprintln!("warning: {} forfeits the game: {reason}", self.config.spec);
        self.forfeit = Some(reason);
        self.process = None;
        self.last = None;
        self.deployed = None;
    }
}

/// Engines between games: the runners build fresh bots for every game, and
/// starting a process per game would cost more than the game (a `junqi`
/// binary loads libtorch). A bot hands its healthy process back here when it
/// is dropped, and the next bot of the same spec takes it; every game still
/// begins with `newgame`. Idle processes end when `junqi` exits (their input
/// closes).
static IDLE: std::sync::Mutex<Vec<(String, EngineProcess)>> = std::sync::Mutex::new(Vec::new());

/// At most this many idle engines are kept (more than any machine's cores).
const MAX_IDLE: usize = 256;

/// Specs whose engine has started (and answered the handshake) in this
/// process, with the rules each plays.
/// A started spec: its two-player `plays` lines, its four-player ones and
/// whether it deploys in four-player games.
type Started = (String, Vec<Plays>, Vec<String>, bool);
static STARTED: std::sync::Mutex<Vec<Started>> = std::sync::Mutex::new(Vec::new());

/// Start the engine of a spec once, so that a command that runs but is no
/// engine (or rejects an `option.`) is refused before any game instead of
/// forfeiting every one, and learn the rules it plays. The process then
/// waits in the pool for the first game.
/// Returns its two-player `plays` lines, its four-player ones and whether
/// it deploys in four-player games (`deploys siguo`).
pub(crate) fn probe(config: &EngineConfig) -> Result<(Vec<Plays>, Vec<String>, bool), String> {
    let started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, plays, siguo, deploys)) = started.iter().find(|(s, ..)| *s == config.spec) {
        return Ok((plays.clone(), siguo.clone(), *deploys));
    }
    drop(started);
    let process = EngineProcess::start(config)?;
    let (plays, siguo, deploys) = (process.plays.clone(), process.siguo_plays.clone(), process.siguo_deploys);
    IDLE.lock().unwrap_or_else(|e| e.into_inner()).push((config.spec.clone(), process));
    let entry = (config.spec.clone(), plays.clone(), siguo.clone(), deploys);
    STARTED.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
    Ok((plays, siguo, deploys))
}

/// Keep a healthy process of `spec` for the next game.
pub(crate) fn put_idle(spec: &str, process: EngineProcess) {
    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
    if idle.len() < MAX_IDLE {
        idle.push((spec.to_string(), process));
    }
}

pub(crate) fn take_idle(spec: &str) -> Option<EngineProcess> {
    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
    while let Some(i) = idle.iter().position(|(s, _)| s == spec) {
        let (_, mut process) = idle.swap_remove(i);
        if matches!(process.child.try_wait(), Ok(None)) {
            return Some(process);
        }
    }
    None
}

impl Drop for EngineBot {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
            if idle.len() < MAX_IDLE {
                idle.push((self.config.spec.clone(), process));
            }
        }
    }
}

impl Agent for EngineBot {
    fn name(&self) -> String {
        self.config.spec.clone()
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        self.forfeit = None;
        match self.try_act(info, rng) {
            Ok(d) => d,
            Err(reason) => {
                self.fail(reason);
                // Ignored by the runner, which ends the game on the forfeit.
                let mut legal = MoveList::new();
                info.legal_moves(&mut legal);
                let action = legal.iter().next().copied().unwrap_or_else(|| "a1a1".parse().expect("a flip"));
                Decision { action, policy: vec![(action, 1.0)], value: None }
            }
        }
    }

    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        self.forfeit = None;
        match self.try_deploy(colour, rules, rng) {
            Ok(d) => d,
            Err(reason) => {
                self.fail(reason);
                Deployment::random(colour, rng)
            }
        }
    }

    fn take_forfeit(&mut self) -> Option<String> {
        self.forfeit.take()
    }

    fn can_play(&self, rules: &Rules) -> Result<(), String> {
        if self.plays.is_empty() && !self.siguo_plays.is_empty() {
            return Err("it plays four-player (siguo) rules only".into());
        }
        crate::plays::check(&self.plays, rules)
    }

    /// Protocol 3: `result` for the game just played (nothing to answer;
    /// a failure here costs nothing, the game is over).
    fn game_over(&mut self, seat: Seat, outcome: &Outcome) {
        let Some(process) = self.process.as_mut().filter(|p| p.protocol >= crate::TIMEOUT_VERSION) else { return };
        let result = match outcome.winner {
            None => GameResult::Draw,
            Some(w) if w == seat => GameResult::Win,
            Some(_) => GameResult::Loss,
        };
        if process.send(&Command::Result { result, termination: outcome.termination.name().to_string() }).is_err() {
            self.process = None;
        }
        self.last = None;
        self.deployed = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `timeout`, `movetime` and `tc` over one day are a one-line error when
    /// the spec is read (a deadline that far could overflow `Instant`); a day
    /// itself is accepted.
    #[test]
    fn durations_over_a_day_are_refused_at_parsing() {
        let config = |extra: &str| engine_config(&BotSpec::parse(&format!("engine:cmd=sh,{extra}")).unwrap());
        for extra in ["timeout=86400000", "movetime=86400000", "tc=86400+86400", "tc=60+0.5"] {
            assert!(config(extra).is_ok(), "{extra}");
        }
        for extra in ["timeout=86400001", "movetime=18446744073709551615", "tc=86401+0", "tc=60+86400.5", "tc=1e300+0"]
        {
            let err = config(extra).unwrap_err().to_string();
            assert!(err.contains("one day") && !err.contains('\n'), "{extra}: {err}");
        }
        let huge = config("timeout=86400000,movetime=86400000,tc=86400+86400").unwrap();
        // The longest deadline a move can have is now + a day + the grace.
        let _ = Instant::now() + Duration::from_millis(huge.movetime.unwrap()) + MOVETIME_GRACE + huge.timeout;
    }
}
