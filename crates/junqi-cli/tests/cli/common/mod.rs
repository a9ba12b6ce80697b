//! Helpers shared by the CLI test binaries.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Run `junqi ARGS` with `stdin` written to its standard input, then EOF.
pub fn junqi_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run junqi");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().unwrap();
    std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    child.wait_with_output().unwrap()
}

/// Run `junqi ARGS` with no standard input.
pub fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().unwrap()
}

/// `o` itself when the command succeeded; else fail with its output.
pub fn ok(o: Output) -> Output {
    assert!(o.status.success(), "stdout: {}\nstderr: {}", stdout(&o), stderr(&o));
    o
}

/// A test path as a command-line argument.
pub fn path_str(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// A file's text; fail naming the file when it cannot be read.
pub fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON file, parsed.
pub fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&read(path)).unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Exit code 2 and exactly one stderr line starting `error:`, no panic.
pub fn assert_clean_error(o: &Output, mentions: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(mentions), "expected `{mentions}` in: {err}");
}

/// A fresh directory path for one test: `junqi-cli-MODULE-PID-NAME` under
/// the system's temp dir, emptied first, and created when `create`.
pub fn temp_dir(module: &str, name: &str, create: bool) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-cli-{module}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    if create {
        std::fs::create_dir_all(&d).unwrap();
    }
    d
}

/// A `junqi serve --runs RUNS` on 127.0.0.1 (a free port), killed when
/// dropped, whatever the test does.
pub struct ServeProcess {
    pub child: std::process::Child,
    /// `127.0.0.1:PORT`, as the server announced it.
    pub addr: String,
    /// Its stdout, kept open; `next_line` reads on.
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl ServeProcess {
    pub fn start(runs: &std::path::Path) -> ServeProcess {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
            .args(["serve", "--addr", "127.0.0.1:0", "--runs"])
            .arg(runs)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("{line}")).to_string();
        ServeProcess { child, addr, out }
    }

    /// The next line it prints after the first.
    pub fn next_line(&mut self) -> String {
        use std::io::BufRead;
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        line
    }
}

impl Drop for ServeProcess {
    /// SIGTERM first, so the server cleans up (the sample games' temporary
    /// directory); killed if it has not stopped within two seconds.
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        for _ in 0..40 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines a child prints on `stdout`, read on a thread of their own
/// (so a test can wait for one with a time limit).
pub fn lines_of(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    lines
}
