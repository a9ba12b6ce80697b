//! Faults at the engine protocol (issue 41): positions no game can reach or
//! that are over, an `engine:` bot whose program crashes, floods or leaves a
//! `setsid` child behind, and a 1 GB command line. Memory is measured: the
//! host's resident set (`VmRSS` in /proc) may grow at most [`MEMORY_BOUND`]
//! while a flood lasts, and the host is killed (the test fails) past it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");
/// Most the host's resident memory may grow while it is flooded.
const MEMORY_BOUND: u64 = 64 << 20;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-engine-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A shell script engine: the handshake, then `on_go` for `go` and
/// `on_deploy` for `deploy`, and whatever `start` does first.
fn script(dir: &Path, name: &str, start: &str, on_junqi: &str, on_go: &str, on_deploy: &str) -> String {
    let path = dir.join(name);
    let text = format!(
        "{start}\nwhile read -r line; do\n  case \"$line\" in\n    junqi) {on_junqi};;\n    isready) echo readyok;;\n    \
         go*) {on_go};;\n    deploy) {on_deploy};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, text).unwrap();
    format!("sh {}", path.display())
}

const HANDSHAKE: &str = "echo 'id name fault'; echo junqiok";

/// Resident memory of `pid` in bytes.
fn rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Samples the resident memory of a process every few milliseconds and
/// kills it when it grows past [`MEMORY_BOUND`] over `base`.
struct Watch {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    fn start(pid: u32) -> Watch {
        Watch::from(pid, rss(pid).expect("the host runs"), MEMORY_BOUND)
    }

    /// Growth over `base` bytes (the peak of a run without the flood), the
    /// process killed past `bound`.
    fn from(pid: u32, base: u64, bound: u64) -> Watch {
        let (peak, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let (p, s) = (peak.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let Some(now) = rss(pid) else { break };
                let grown = now.saturating_sub(base);
                p.fetch_max(grown, Ordering::Relaxed);
                if grown > bound {
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        Watch { peak, stop, thread: Some(thread) }
    }

    /// The most the memory grew.
    fn finish_unbounded(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.peak.load(Ordering::Relaxed)
    }

    /// The most the memory grew, checked against the bound.
    fn finish(self, what: &str) -> u64 {
        let grown = self.finish_unbounded();
        assert!(grown <= MEMORY_BOUND, "{what}: the host grew {} MB", grown >> 20);
        eprintln!("{what}: the host's resident memory grew {:.1} MB", grown as f64 / 1e6);
        grown
    }
}

/// `junqi engine --bot SPEC`, talking line by line.
struct Host {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Host {
    fn start(spec: &str) -> Host {
        let mut child = Command::new(JUNQI)
            .args(["engine", "--bot", spec])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = crate::common::lines_of(child.stdout.take().unwrap());
        Host { child, stdin, lines }
    }
    fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }
    /// Lines up to the first whose first word is one of `ends` (included).
    fn until(&mut self, ends: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}: {out:?}"));
            let done = ends.contains(&line.split_whitespace().next().unwrap_or(""));
            out.push(line);
            if done {
                return out;
            }
        }
    }
    fn quit(mut self) {
        let _ = writeln!(self.stdin, "quit");
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{status}");
    }
}

/// Issue 41, item 2: `go` in a finished game (Black has nothing left) and in
/// a 暗棋 position with 30 removed pieces is an `error`, not a panic, for a
/// search bot and a net bot; the engine goes on.
#[test]
fn finished_and_impossible_positions_are_errors_not_panics() {
    let fanqi_start = junqi_engine::encode_position(
        junqi_core::Game::new(junqi_core::Position::new_game(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 1))
            .infoset(junqi_core::Seat::First),
    );
    let anqi_start = junqi_engine::encode_position(
        junqi_core::Game::new(junqi_core::Position::new_game(junqi_core::Rules::preset(junqi_core::Mode::Anqi), 1))
            .infoset(junqi_core::Seat::First),
    );
    for spec in ["mcts:sims=64", "net:fanqi"] {
        let mut host = Host::start(spec);
        host.send("junqi\n");
        host.until(&["junqiok"]);
        let cases = [
            ("mingqi", "5/5/5/5/5/5/ELDKR/E1G1E/CL1LD/R1C1B/JMOOM/MFBJC mingqi 1 r 0 0".to_string(), "game is over"),
            ("anqi", format!("{anqi_start} removed {}", vec!["KGD"; 30].join(" ")), "an army has 25"),
        ];
        for (mode, position, expect) in cases {
            host.send(&format!("newgame {mode} seat 1\nposition {position}\ngo\nisready\n"));
            let answer = host.until(&["readyok"]).join("\n");
            assert!(answer.contains(expect) && !answer.contains("bestmove"), "{spec}: {answer}");
        }
        // Still answering.
        host.send(&format!("newgame fanqi seat 1\nposition {fanqi_start}\ngo\n"));
        let answer = host.until(&["bestmove", "error"]);
        assert!(answer.last().unwrap().starts_with("bestmove"), "{spec}: {answer:?}");
        host.quit();
    }
}

/// Issue 41, item 5: when the program behind an `engine:` bot crashes or
/// answers garbage, `junqi engine` says `error`, never a move (or a
/// deployment) nobody chose; the next game starts a fresh program.
#[test]
fn a_failing_inner_engine_is_an_error_not_an_invented_move() {
    let dir = scratch("inner");
    let cmd = script(&dir, "crash.sh", "", HANDSHAKE, "exit 3", "echo 'deployment a1Z'");
    let mut host = Host::start(&format!("engine:cmd={cmd}"));
    host.send("junqi\n");
    host.until(&["junqiok"]);
    let fanqi = junqi_engine::encode_position(
        junqi_core::Game::new(junqi_core::Position::new_game(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 2))
            .infoset(junqi_core::Seat::First),
    );
    host.send(&format!("newgame fanqi seat 1\nposition {fanqi}\ngo\n"));
    let answer = host.until(&["bestmove", "error"]);
    assert!(answer.last().unwrap().starts_with("error go: the bot failed: the engine exited"), "{answer:?}");
    host.send("newgame anqi seat 1\ndeploy\n");
    let answer = host.until(&["deployment", "error"]);
    assert!(answer.last().unwrap().starts_with("error deploy: the bot failed: bad deployment"), "{answer:?}");
    host.quit();
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 41, item 4a: an `engine:` bot's program that floods its output
/// (short lines, or one endless line) while the host waits for a move, or
/// during the handshake, fails that request within bounded memory.
#[test]
fn a_flooding_engine_costs_the_host_bounded_memory() {
    let dir = scratch("flood");
    let position = junqi_engine::encode_position(
        junqi_core::Game::new(junqi_core::Position::new_game(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 3))
            .infoset(junqi_core::Seat::First),
    );
    let floods = [
        ("lines", "exec yes 'info string flood flood flood flood flood'"),
        ("one endless line", "exec tr '\\0' x < /dev/zero"),
    ];
    for (what, flood) in floods {
        let cmd = script(&dir, "flood.sh", "", HANDSHAKE, flood, "true");
        let mut host = Host::start(&format!("engine:cmd={cmd}"));
        host.send("junqi\nisready\n");
        host.until(&["readyok"]);
        let watch = Watch::start(host.child.id());
        host.send(&format!("newgame fanqi seat 1\nposition {position}\ngo\n"));
        let answer = host.until(&["bestmove", "error"]);
        watch.finish(&format!("flood of {what} during a move"));
        let last = answer.last().unwrap();
        let bounded = last.contains("65536 bytes") || last.contains("1048576 bytes");
        assert!(last.starts_with("error go: the bot failed:") && bounded, "{what}: {answer:?}");
        host.quit();
    }
    // During the handshake: the spec is refused before any game. The base
    // is the peak of the same start-up with an engine that does not flood.
    let start = |on_junqi: &str| {
        let cmd = script(&dir, "flood.sh", "", on_junqi, "true", "true");
        Command::new(JUNQI)
            .args(["engine", "--bot", &format!("engine:cmd={cmd}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let quiet = start(HANDSHAKE);
    let watch = Watch::from(quiet.id(), 0, u64::MAX);
    assert!(quiet.wait_with_output().unwrap().status.success());
    let base = watch.finish_unbounded();
    let child = start("exec yes 'id name flood'");
    let watch = Watch::from(child.id(), base, MEMORY_BOUND);
    let out = child.wait_with_output().unwrap();
    watch.finish("flood during the handshake");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(2) && err.contains("1048576 bytes"), "{:?}: {err}", out.status);
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 41, item 4b: a 1 GB command line costs `junqi engine` no more than
/// a bounded amount of memory; it is refused and the engine goes on.
#[test]
fn a_gigabyte_command_line_is_refused_in_bounded_memory() {
    let mut host = Host::start("random");
    host.send("junqi\nisready\n");
    host.until(&["readyok"]);
    let watch = Watch::start(host.child.id());
    let chunk = vec![b'x'; 1 << 20];
    let started = Instant::now();
    host.send("position ");
    for _ in 0..1024 {
        host.stdin.write_all(&chunk).unwrap();
    }
    host.send("\nisready\n");
    let answer = host.until(&["readyok"]);
    watch.finish("a 1 GB command line");
    assert_eq!(answer, ["error command longer than 65536 bytes", "readyok"], "{:?}", started.elapsed());
    host.quit();
}

/// Issue 41, item 9: a program the engine started in a session of its own
/// (`setsid`), outside the engine's process group, is killed with the engine
/// when the engine forfeits (here: no answer within its timeout).
#[test]
fn an_engines_setsid_child_dies_with_it() {
    let dir = scratch("setsid");
    let pids = dir.join("pids");
    let start = format!("setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $! >> {}", pids.display());
    let cmd = script(&dir, "setsid.sh", &start, HANDSHAKE, "sleep 600", "true");
    let mut host = Host::start(&format!("engine:cmd={cmd},timeout=300"));
    host.send("junqi\n");
    host.until(&["junqiok"]);
    let fanqi = junqi_engine::encode_position(
        junqi_core::Game::new(junqi_core::Position::new_game(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 4))
            .infoset(junqi_core::Seat::First),
    );
    host.send(&format!("newgame fanqi seat 1\nposition {fanqi}\ngo\n"));
    let answer = host.until(&["bestmove", "error"]);
    assert!(answer.last().unwrap().contains("no `bestmove` within 300 ms"), "{answer:?}");
    let started: Vec<u32> =
        std::fs::read_to_string(&pids).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(started.len(), 1, "one engine process ran");
    let alive = |pid: u32| {
        // Gone, or a zombie waiting for init (which this container may not run).
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit(')').next().and_then(|r| r.split_whitespace().next()) != Some("Z"))
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(started[0]) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(started[0]), "the engine's setsid child {} outlived it", started[0]);
    host.quit();
    let _ = std::fs::remove_dir_all(dir);
}
