//! `junqi serve` under hostile input (issue 41): malformed HTTP, bot specs
//! written to slip an engine past the guard, paths that try to leave the
//! runs directory (by `..`, encodings and symbolic links), damaged runs, and
//! a bounded concurrent load on 127.0.0.1. Every request gets an answer in
//! time (a JSON `{"error"}` for every error the server itself makes), no
//! answer holds a byte of the files outside the root, no engine starts, and
//! the server is still serving at the end. The server is started here and
//! killed when the test ends, whatever happens.
//!
//! The cases are fixed (seeded); `JUNQI_FUZZ_CASES=N` runs N of each kind
//! instead of the CI counts, `JUNQI_FUZZ_SEED=S` other ones.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Text planted in every file outside the root: no answer may hold it.
const SECRET: &str = "SECRET-OUTSIDE-THE-ROOT";
/// An answer slower than this is a hang.
const ANSWER_LIMIT: Duration = Duration::from_secs(20);
/// How long a client waits before it takes its request to be cut short.
const WAIT_FOR_MORE: Duration = Duration::from_millis(300);

/// Cases of one kind: `default`, or `JUNQI_FUZZ_CASES`.
fn cases(default: usize) -> usize {
    std::env::var("JUNQI_FUZZ_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

fn rng(salt: u64) -> StdRng {
    let seed = std::env::var("JUNQI_FUZZ_SEED").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0x5e7e);
    StdRng::seed_from_u64(seed ^ salt)
}

/// The server, killed when dropped.
struct Server {
    process: crate::common::ServeProcess,
    client: Client,
}

/// Requests to the server, with time limits.
#[derive(Clone)]
struct Client {
    addr: String,
}

impl std::ops::Deref for Server {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Server {
    fn start(runs: &Path) -> Server {
        let process = crate::common::ServeProcess::start(runs);
        let client = Client { addr: process.addr.clone() };
        Server { process, client }
    }

    fn alive(&mut self) -> bool {
        self.process.child.try_wait().ok().flatten().is_none()
    }
}

impl Client {
    /// Raw bytes in; the whole answer (the server may also just close). A
    /// request cut short may leave the server waiting for the rest: after
    /// [`WAIT_FOR_MORE`] the client closes its side, and then the server
    /// must answer or close within [`ANSWER_LIMIT`].
    fn raw(&self, bytes: &[u8]) -> Vec<u8> {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_write_timeout(Some(ANSWER_LIMIT)).unwrap();
        let _ = s.write_all(bytes);
        let mut answer = Vec::new();
        s.set_read_timeout(Some(WAIT_FOR_MORE)).unwrap();
        match s.read_to_end(&mut answer) {
            Ok(_) => return answer,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return answer,
            Err(e) => panic!("{e}"),
        }
        let started = Instant::now();
        let _ = s.shutdown(std::net::Shutdown::Write);
        s.set_read_timeout(Some(ANSWER_LIMIT)).unwrap();
        let r = s.read_to_end(&mut answer);
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).to_string();
        assert!(started.elapsed() < ANSWER_LIMIT, "no answer in {ANSWER_LIMIT:?} to {shown:?}");
        if let Err(e) = r {
            assert!(e.kind() == std::io::ErrorKind::ConnectionReset, "{e}: {shown:?}");
        }
        answer
    }

    /// One well-formed request: the status and the body.
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let text = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let answer = String::from_utf8_lossy(&self.raw(text.as_bytes())).to_string();
        let status =
            answer.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("{path}: {answer}"));
        let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        assert!(!answer.contains(SECRET), "{method} {path} read outside the root: {answer}");
        (status, body)
    }
}

/// An error answer is the page's JSON error, naming something.
fn assert_json_error(what: &str, status: u16, body: &str) {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {status} {e}: {body:?}"));
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{what}: {status} {body}");
}

fn junqi(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// A runs root with real runs, damaged runs and links out of it, and the
/// directory outside it that the links lead to.
fn build_root(base: &Path) -> (PathBuf, PathBuf) {
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(&root).unwrap();
    let sp = |dir: &Path| {
        let d = dir.to_str().unwrap();
        junqi(&[
            "selfplay",
            "--games",
            "2",
            "--bots",
            "random,random",
            "--seed",
            "3",
            "--shard-games",
            "1",
            "--out",
            d,
        ]);
    };
    sp(&root.join("good"));
    sp(&outside.join("run"));
    // Every file outside carries the secret, as far as it can: reports, a loop, a shard's neighbour.
    for name in ["secret.md", "secret.json", "secret.svg", "state.json", "loop.toml"] {
        std::fs::write(outside.join(name), format!("{{\"generations\": [], \"x\": \"{SECRET}\"}}")).unwrap();
    }
    std::fs::write(outside.join("run/notes.md"), SECRET).unwrap();
    let link = |to: &Path, at: &Path| std::os::unix::fs::symlink(to, at).unwrap();
    // A whole run through a link, a run's games/ through a link, one shard through a link.
    link(&outside.join("run"), &root.join("linked-run"));
    std::fs::create_dir_all(root.join("games-link")).unwrap();
    std::fs::copy(root.join("good/run.json"), root.join("games-link/run.json")).unwrap();
    link(&outside.join("run/games"), &root.join("games-link/games"));
    std::fs::create_dir_all(root.join("shard-link/games")).unwrap();
    std::fs::copy(root.join("good/run.json"), root.join("shard-link/run.json")).unwrap();
    let shard = std::fs::read_dir(outside.join("run/games")).unwrap().flatten().next().unwrap().path();
    link(&shard, &root.join("shard-link/games").join(shard.file_name().unwrap()));
    // Run files and report files through links.
    link(&outside.join("state.json"), &root.join("good/state.json"));
    link(&outside.join("secret.md"), &root.join("good/report.md"));
    link(&outside.join("secret.svg"), &root.join("good/chart.svg"));
    std::fs::create_dir_all(root.join("loop-linked")).unwrap();
    link(&outside.join("state.json"), &root.join("loop-linked/state.json"));
    // Damaged loops: a truncated, a binary, an empty state file; a loop.toml through a link.
    for (name, bytes) in [
        ("loop-truncated", &b"{\"generations\": [{\"index\": 0, \"minu"[..]),
        ("loop-binary", &b"\x00\x9f\xff\xfe\x01binary"[..]),
        ("loop-empty", &b""[..]),
        ("loop-not-a-list", &b"{\"generations\": 3}"[..]),
    ] {
        std::fs::create_dir_all(root.join(name)).unwrap();
        std::fs::write(root.join(name).join("state.json"), bytes).unwrap();
    }
    std::fs::create_dir_all(root.join("loop-ok")).unwrap();
    std::fs::write(root.join("loop-ok/state.json"), "{\"generations\": []}").unwrap();
    link(&outside.join("loop.toml"), &root.join("loop-ok/loop.toml"));
    // A damaged dataset: a shard that is not Parquet, one cut short.
    sp(&root.join("damaged"));
    for (k, f) in std::fs::read_dir(root.join("damaged/games")).unwrap().flatten().enumerate() {
        let bytes = std::fs::read(f.path()).unwrap();
        let cut = if k == 0 { b"not parquet".to_vec() } else { bytes[..bytes.len() / 2].to_vec() };
        std::fs::write(f.path(), cut).unwrap();
    }
    (root, outside)
}

/// Fixed checks: what is listed, what each damaged or linked run answers.
fn fixed_checks(server: &Server) {
    let (status, body) = server.request("GET", "/api/datasets", "");
    assert_eq!(status, 200, "{body}");
    let ids: Vec<String> = serde_json::from_str::<serde_json::Value>(&body)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{}:{}", d["id"].as_str().unwrap(), d["shards"]))
        .collect();
    assert_eq!(ids, ["0/damaged:2", "0/good:2", "0/shard-link:0"], "links are not followed");
    let (_, body) = server.request("GET", "/api/runs", "");
    let runs: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(runs.as_array().unwrap().iter().all(|r| r["id"] != "0/loop-linked" && r["id"] != "0/linked-run"), "{runs}");
    for (path, want) in [
        ("/api/games?d=0/linked-run", 400),
        ("/api/games?d=0/games-link", 404),
        ("/api/games?d=0/shard-link", 200),
        ("/api/game?d=0/shard-link&id=1", 404),
        ("/api/games?d=0/damaged", 422),
        ("/api/run?d=0/loop-truncated", 422),
        ("/api/run?d=0/loop-binary", 422),
        ("/api/run?d=0/loop-empty", 422),
        ("/api/run?d=0/loop-not-a-list", 422),
        ("/api/run?d=0/loop-linked", 404),
        ("/api/run?d=0/loop-ok", 200),
        ("/api/run?d=0/good", 200),
        ("/api/run/file?d=0/good&name=chart.svg", 404),
    ] {
        let (status, body) = server.request("GET", path, "");
        assert_eq!(status, want, "{path}: {body}");
        if status >= 400 {
            assert_json_error(path, status, &body);
        }
    }
    let (_, body) = server.request("GET", "/api/run?d=0/good", "");
    assert!(!body.contains("report.md"), "a report through a link is listed: {body}");
    let (_, body) = server.request("GET", "/api/run?d=0/loop-truncated", "");
    assert!(body.contains("not JSON") && body.contains("state.json"), "{body}");
    // Another method on a route that exists: 405, with the JSON error.
    for (method, path) in [("DELETE", "/api/datasets"), ("POST", "/api/board"), ("GET", "/api/play"), ("PUT", "/")] {
        let (status, body) = server.request(method, path, "");
        assert_eq!(status, 405, "{method} {path}: {body}");
        assert_json_error(path, status, &body);
    }
}

fn pick<'a>(rng: &mut StdRng, items: &[&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

/// Bytes of an HTTP request gone wrong.
fn malformed(rng: &mut StdRng) -> Vec<u8> {
    let good = "POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 48\r\n\r\n{\"mode\":\"fanqi\",\"seat\":1,\"bot\":\"random\",\"seed\":1}";
    let mut bytes = good.as_bytes().to_vec();
    match rng.random_range(0..8) {
        0 => bytes = (0..rng.random_range(0..600)).map(|_| rng.random()).collect(),
        1 => bytes.truncate(rng.random_range(0..bytes.len())),
        2 => {
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(0..bytes.len());
                bytes[at] = rng.random();
            }
        }
        3 => {
            let cl = pick(rng, &["0", "1", "99999999999", "-1", "x", "18446744073709551616"]);
            bytes = good.replace("Content-Length: 48", &format!("Content-Length: {cl}")).into_bytes();
        }
        4 => {
            let header = format!("X-Long: {}\r\n", "a".repeat(rng.random_range(1_000..200_000)));
            bytes = good.replacen("Host:", &format!("{header}Host:"), 1).into_bytes();
        }
        5 => {
            let method = pick(rng, &["GET", "BREW", "", "G\0T", "POST POST", "OPTIONS", "HEAD", "TRACE"]);
            let path =
                pick(rng, &["/", "*", "", "//", "/api/../../etc/passwd", "http://x/api/board", "/%zz", "/api/play/-1"]);
            bytes = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").into_bytes();
        }
        6 => {
            let body = pick(
                rng,
                &[
                    "",
                    "{",
                    "null",
                    "[]",
                    "{\"mode\":1}",
                    "{\"mode\":\"fanqi\",\"seat\":300,\"bot\":\"random\"}",
                    "\u{0}",
                ],
            );
            bytes = format!("POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).into_bytes();
        }
        _ => {
            let version = pick(rng, &["HTTP/0.9", "HTTP/2.0", "HTTP/1.1x", "HTTPS/1.1", ""]);
            bytes = format!("GET /api/board {version}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").into_bytes();
        }
    }
    bytes
}

/// A run name meant to leave the root, or to reach a linked or damaged run.
fn sneaky_path(rng: &mut StdRng) -> String {
    let name = pick(
        rng,
        &[
            "0/..",
            "0/../outside",
            "0/../../..",
            "0/%2e%2e/outside",
            "0/..%2foutside",
            "0//etc",
            "/etc",
            "0/linked-run",
            "0/linked-run/games",
            "0/games-link",
            "0/shard-link",
            "0/good/state.json",
            "0/good/..",
            "0/./good",
            "0/good%00",
            "0/good\\..\\..",
            "1/good",
            "-1/good",
            "18446744073709551616/good",
            "0/loop-binary",
            "0/loop-linked",
            "0/damaged",
            "0/good/games",
            "0/%ff%fe",
            "0/good/../../outside/run",
            "",
        ],
    );
    let endpoint = pick(
        rng,
        &[
            "/api/games?d=",
            "/api/game?id=1&d=",
            "/api/run?d=",
            "/api/run/file?name=secret.svg&d=",
            "/api/games?limit=1&offset=99999999999999999999&d=",
        ],
    );
    format!("{endpoint}{name}")
}

/// A bot spec that names an engine in some disguise (or a harmless bot).
fn sneaky_spec(rng: &mut StdRng, script: &str) -> String {
    let engine = pick(rng, &["engine", " engine", "engine ", "engine\t", "\u{a0}engine"]);
    let spec = match rng.random_range(0..6) {
        0 => format!("{engine}:cmd={script}"),
        1 => format!("{engine} :cmd={script},timeout=5"),
        2 => format!("mcts:sims=4,eval={engine}:cmd={script}"),
        3 => format!("mcts:sims=4,eval=\"{engine}:cmd={script},timeout=5\""),
        4 => format!("mcts:eval=\"mcts:eval=\\\"{engine}:cmd={script}\\\"\""),
        _ => pick(rng, &["random", "greedy", "mcts:sims=2", "heuristic", "", ":", "mcts:eval=", "net:engine"])
            .to_string(),
    };
    spec
}

#[test]
fn serve_survives_hostile_requests() {
    let base = crate::common::temp_dir("fuzz-serve", "root", true);
    let (root, outside) = build_root(&base);
    // The "engine": a script that leaves a mark if it ever runs.
    let mark = outside.join("an-engine-ran");
    let script = outside.join("engine.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", mark.display())).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut server = Server::start(&root);
    fixed_checks(&server);

    let mut r = rng(1);
    let (mut answered, mut closed) = (0, 0);
    for _ in 0..cases(150) {
        let bytes = malformed(&mut r);
        let answer = server.raw(&bytes);
        if answer.is_empty() {
            closed += 1;
        } else {
            answered += 1;
            let text = String::from_utf8_lossy(&answer);
            assert!(text.starts_with("HTTP/1."), "{text}");
            assert!(!text.contains(SECRET));
        }
        assert!(server.alive(), "the server died on {:?}", String::from_utf8_lossy(&bytes));
    }
    eprintln!("malformed requests: {answered} answered, {closed} closed");

    let mut r = rng(2);
    for _ in 0..cases(200) {
        let path = sneaky_path(&mut r);
        let (status, body) = server.request("GET", &path, "");
        assert!([200, 400, 404, 422].contains(&status), "{path}: {status} {body}");
        if status >= 400 {
            assert_json_error(&path, status, &body);
        }
    }

    let mut r = rng(3);
    let script = script.to_str().unwrap();
    for _ in 0..cases(100) {
        let spec = sneaky_spec(&mut r, script);
        let body = serde_json::json!({"mode": "fanqi", "seat": 1, "bot": spec, "seed": 1}).to_string();
        let (status, answer) = server.request("POST", "/api/play", &body);
        assert!([200, 400].contains(&status), "{spec:?}: {status} {answer}");
        if status == 400 {
            assert_json_error(&spec, status, &answer);
        }
        assert!(!mark.exists(), "an engine ran from the spec {spec:?} ({status} {answer})");
    }

    // A bounded load: threads at once, each a fixed number of mixed requests.
    let threads = 4;
    let per_thread = cases(40);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let client = server.client.clone();
            scope.spawn(move || {
                let mut r = rng(100 + t);
                for _ in 0..per_thread {
                    let (method, path, body) = match r.random_range(0..4) {
                        0 => ("GET", "/api/datasets".to_string(), String::new()),
                        1 => (
                            "GET",
                            format!(
                                "/api/game?d=0/good&id={}&view={}",
                                r.random_range(0..4),
                                pick(&mut r, &["all", "1", "2", "x"])
                            ),
                            String::new(),
                        ),
                        2 => {
                            ("POST", "/api/play".to_string(), r#"{"mode":"anqi","seat":2,"bot":"random"}"#.to_string())
                        }
                        _ => ("GET", sneaky_path(&mut r), String::new()),
                    };
                    let (status, answer) = client.request(method, &path, &body);
                    assert!(status < 500, "{method} {path}: {status} {answer}");
                }
            });
        }
    });
    eprintln!("load: {threads} threads × {per_thread} requests in {:.1} s", started.elapsed().as_secs_f64());
    assert!(server.alive());
    assert_eq!(server.request("GET", "/api/board", "").0, 200, "still serving");
    assert!(!mark.exists());
    drop(server);
    let _ = std::fs::remove_dir_all(base);
}
