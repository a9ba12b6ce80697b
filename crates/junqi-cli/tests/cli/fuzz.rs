//! Fuzzing of what a user types (issue 15): bot specs, `--set key=value`
//! on every kind of TOML config, the shipped TOML configs themselves
//! mutated, and JFEN and moves through the binary and through the bots.
//! Every input gives a value or a clean error: never a panic, a hang or an
//! absurd allocation; through the binary, exit code 0 or 2 and no
//! "panicked" on stderr.
//!
//! In-process properties call what the CLI calls: `overrides.rs` (compiled
//! in here from the binary's source: `junqi` has no library), the config
//! types' `from_toml` and checks, `RulesArgs::resolve` (also compiled in),
//! `Suite::from_file`, `junqi_bots::from_spec` with the net bots registered.
//! Binary properties run `junqi` on commands that stop right after the input
//! is checked (`train` on a missing dataset, `loop` into an out directory it
//! refuses, `arena` with zero games, `regress` into an unwritable directory,
//! `moves`/`apply` on stdin, `play` with the bot moving once), so no case
//! plays a long game.
//!
//! The cases are fixed: a fixed seed and a fixed number of cases per
//! property, so CI runs the same ones every time. `JUNQI_FUZZ_CASES=N` runs N
//! cases of every property instead, `JUNQI_FUZZ_SEED=S` other cases. The
//! JFEN and move parsers are fuzzed at scale in tests/fuzz_jfen.rs.

#[cfg(feature = "torch")]
#[allow(dead_code)]
#[path = "../../src/overrides.rs"]
mod overrides;
#[allow(dead_code)]
#[path = "../../src/rules_arg.rs"]
mod rules_arg;

use junqi_arena::regress::Suite;
use junqi_bots::{from_spec, split_bot_list, BotSpec};
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rand::Rng;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

#[path = "../../../../tests/fuzz_harness/mod.rs"]
mod fuzz_harness;
use fuzz_harness::{byte_edit, fuzz_config, ByteEdit, Case};

/// A case longer than this is a hang: the watchdog ends the process, naming it.
const CASE_LIMIT: Duration = Duration::from_secs(120);
/// Binary cases cost a process each: shrink, but not for ever.
const MAX_SHRINK_ITERS: u32 = 256;
/// A `junqi` run longer than this is a hang: killed, the case fails.
const RUN_LIMIT: Duration = Duration::from_secs(60);
/// Every case starts with what `junqi` sets up first.
fn before_case() {
    setup();
}

/// What `junqi` sets up before any command: the net bots are known.
fn setup() {
    static SETUP: OnceLock<()> = OnceLock::new();
    SETUP.get_or_init(junqi_net::register_net_bots);
}

fn fail(message: String) -> TestCaseError {
    TestCaseError::fail(message)
}

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A fresh directory for one case, removed when dropped.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(what: &str) -> Scratch {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "junqi-fuzz-{}-{what}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

// ---------------------------------------------------------------------------
// Running the binary.

/// `junqi ARGS` with `stdin` (then EOF), killed if it runs past [`RUN_LIMIT`].
/// (A NUL byte, which no argument can hold, is passed as a space.)
fn junqi(args: &[String], stdin: &str) -> Result<Output, TestCaseError> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args.iter().map(|a| a.replace('\0', " ")))
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run junqi: {e}")))?;
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_string();
    std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let (out, err) = (read(Box::new(out)), read(Box::new(err)));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(fail(format!("`junqi {}` still running after {RUN_LIMIT:?}", args.join(" "))));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() })
}

/// Exit 0, or 2 with one `error:` line on stderr (stdin modes: errors go to
/// stdout line by line); never a panic (101), an abort (134) or a signal.
fn assert_clean(out: &Output, args: &[String], stdin_mode: bool) -> Result<(), TestCaseError> {
    let err = String::from_utf8_lossy(&out.stderr);
    let what = || format!("`junqi {}`: exit {:?}, stderr:\n{err}", args.join(" "), out.status.code());
    prop_assert!(!err.contains("panicked"), "{}", what());
    prop_assert!(matches!(out.status.code(), Some(0 | 2)), "{}", what());
    if out.status.code() == Some(2) && !stdin_mode {
        prop_assert!(err.lines().count() == 1 && err.starts_with("error: "), "{}", what());
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Text edits, shared by every mutation property.

/// One edit of a text, at a position taken modulo its length.
#[derive(Clone, Debug)]
enum Edit {
    Bytes(ByteEdit),
    /// Insert a token (a value, a separator, a header).
    Token(usize, &'static str),
    /// Delete, duplicate (duplicated keys, headers) or swap lines.
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    /// Replace what follows the first `=` (or `:`) on a line with a token.
    Value(usize, &'static str),
}

fn edit(alphabet: &'static [u8], tokens: &'static [&'static str]) -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![3 => prop::sample::select(alphabet), 1 => any::<u8>()];
    let at = any::<usize>();
    let bytes = byte_edit(byte, 32).prop_map(Edit::Bytes);
    let lines = prop_oneof![
        2 => (at, prop::sample::select(tokens)).prop_map(|(a, t)| Edit::Token(a, t)),
        1 => at.prop_map(Edit::DeleteLine),
        1 => at.prop_map(Edit::DuplicateLine),
        1 => (at, at).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        3 => (at, prop::sample::select(tokens)).prop_map(|(a, t)| Edit::Value(a, t)),
    ];
    prop_oneof![7 => bytes, 8 => lines]
}

fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let at = |a: usize| a % (bytes.len() + 1);
        let lines = |bytes: &[u8]| -> Vec<Vec<u8>> { bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect() };
        match *e {
            Edit::Bytes(ref b) => b.apply(&mut bytes),
            Edit::Token(a, token) => {
                let from = at(a);
                bytes.splice(from..from, token.bytes());
            }
            Edit::DeleteLine(a) => {
                let mut l = lines(&bytes);
                l.remove(a % l.len());
                bytes = l.join(&b'\n');
            }
            Edit::DuplicateLine(a) => {
                let mut l = lines(&bytes);
                let i = a % l.len();
                l.insert(i, l[i].clone());
                bytes = l.join(&b'\n');
            }
            Edit::SwapLines(a, b) => {
                let mut l = lines(&bytes);
                let n = l.len();
                l.swap(a % n, b % n);
                bytes = l.join(&b'\n');
            }
            Edit::Value(a, token) => {
                let mut l = lines(&bytes);
                let with_value: Vec<usize> =
                    (0..l.len()).filter(|&i| l[i].iter().any(|&b| b == b'=' || b == b':')).collect();
                if !with_value.is_empty() {
                    let i = with_value[a % with_value.len()];
                    let cut = l[i].iter().position(|&b| b == b'=' || b == b':').unwrap() + 1;
                    l[i].truncate(cut);
                    l[i].extend_from_slice(token.as_bytes());
                }
                bytes = l.join(&b'\n');
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

// ---------------------------------------------------------------------------
// Values at the edges: huge, negative, fractional, non-finite, wrong types.

/// Values for `--set` and for TOML mutations (as TOML would read them).
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-0",
    "+1",
    "7",
    "64",
    "1000",
    "65536",
    "65537",
    "1000000",
    "1000001",
    "10000000",
    "10000001",
    "10000000000",
    "10000000001",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "0.0",
    "-0.0",
    "0.5",
    "1.0",
    "1.5",
    "-1.5",
    "1e-300",
    "5e-324",
    "1e38",
    "3.5e38",
    "1e308",
    "1e309",
    "-1e308",
    "inf",
    "-inf",
    "+inf",
    "nan",
    "-nan",
    "true",
    "false",
    "\"\"",
    "\"x\"",
    "\"fanqi\"",
    "\"anqi\"",
    "\"mingqi\"",
    "\"cpu\"",
    "\"cuda\"",
    "\"auto\"",
    "\"puct\"",
    "\"gumbel\"",
    "\"all\"",
    "\"learned\"",
    "\"heuristic\"",
    "\"sgd\"",
    "\"bilinear\"",
    "\"random\"",
    "\"net:fanqi\"",
    "\"net:default\"",
    "\"mcts:18446744073709551615\"",
    "\"mcts:sims=1000000,depth=1000,search=gumbel,k=1000\"",
    "\"net:/dev/zero\"",
    "\"/dev/zero\"",
    "\"/nonexistent/x\"",
    "\".\"",
    "[]",
    "[1, 2]",
    "[\"max_plies=0\"]",
    "[\"max_plies=1000001\"]",
    "[\"mode=anqi\"]",
    "[\"mine_rule=trade\", \"mine_rule=spring\"]",
    "[\"random\", \"mcts:0\"]",
    "{}",
    "{ a = 1 }",
    "1979-05-27",
    "1979-05-27T07:32:00Z",
    "",
    "x",
    "abc def",
    "'lit'",
    "\"\\u0000\"",
    "0x10",
    "0o7",
    "1_000",
    "=",
    "\"a\nb\"",
];

/// Tokens for TOML mutations: the values and the structure around them.
fn toml_tokens() -> &'static [&'static str] {
    static TOKENS: OnceLock<Vec<&'static str>> = OnceLock::new();
    TOKENS.get_or_init(|| {
        let mut t = VALUES.to_vec();
        t.extend([
            "[",
            "]",
            "[[arena]]",
            "[arena]",
            "[train]",
            "[train.optim]",
            "[selfplay]",
            "[selfplay.resign]",
            "[evaluate.sprt]",
            "[bootstrap]",
            "[model]",
            "[optim]",
            "[data]",
            "mode = \"anqi\"",
            "seed = 1",
            "x = 1",
            "\n",
            "\r\n",
            "=",
            "\"",
            "'''",
            "\"\"\"",
            "#",
            "{",
            "}",
            ",",
            ".",
            "\\",
            "\u{0}",
            "\u{feff}",
            "é",
        ]);
        t
    })
}

const TOML_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz_.=\"[]{},0123456789-+ \n#";

// ---------------------------------------------------------------------------
// The shipped configs and how the CLI loads each kind.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `junqi train --config` (configs/train, data/nets/*/train.toml).
    Train,
    /// `junqi loop --config` (configs/loop, data/nets/*/loop*.toml).
    Loop,
    /// `--rules FILE` of every command that plays (configs/rules, configs/variants).
    Rules,
    /// `--rules FILE` with `--siguo`: the four-player rules (configs/rules/siguo).
    SiguoRules,
    /// `junqi regress --suite` (configs/regress).
    Regress,
}

struct Shipped {
    /// Relative to the repository root.
    path: PathBuf,
    kind: Kind,
    text: String,
    /// Every key `--set` could name: the file's and the defaults' (dotted).
    keys: Vec<String>,
}

/// Which kind of config a TOML file under configs/ or data/ is; a new kind
/// fails the test until it is taught here.
fn kind_of(rel: &Path) -> Kind {
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let file = parts.last().unwrap().as_str();
    match (parts[0].as_str(), parts.get(1).map(String::as_str)) {
        ("configs", Some("train")) => Kind::Train,
        ("configs", Some("loop")) => Kind::Loop,
        ("configs", Some("rules")) if parts.get(2).is_some_and(|p| p == "siguo") => Kind::SiguoRules,
        ("configs", Some("rules" | "variants")) => Kind::Rules,
        ("configs", Some("regress")) => Kind::Regress,
        ("data", _) if file.starts_with("train") => Kind::Train,
        ("data", _) if file.starts_with("loop") => Kind::Loop,
        _ => {
            panic!("{}: a TOML config of no known kind: teach crates/junqi-cli/tests/fuzz.rs to load it", rel.display())
        }
    }
}

/// Dotted keys of a table, tables included (`train`, `train.optim`, `train.optim.lr`).
fn dotted_keys(table: &toml::Table, prefix: &str, out: &mut BTreeSet<String>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        if let toml::Value::Table(t) = v {
            dotted_keys(t, &key, out);
        }
        out.insert(key);
    }
}

/// Every key of a kind's default config, optional sections filled in.
fn default_keys(kind: Kind) -> BTreeSet<String> {
    let text = match kind {
        #[cfg(feature = "torch")]
        Kind::Train => {
            junqi_train::TrainConfig { init: Some("net.safetensors".into()), ..Default::default() }.to_toml()
        }
        #[cfg(feature = "torch")]
        Kind::Loop => {
            let mut c = junqi_loop::LoopConfig::default();
            c.selfplay.resign = Some(junqi_selfplay::Resign::default());
            c.evaluate.sprt = Some(junqi_loop::SprtGate::default());
            c.evaluate.more_anchors = vec![junqi_bots::BotSpec::new("random")];
            c.train.init = Some("net.safetensors".into());
            c.to_toml()
        }
        #[cfg(not(feature = "torch"))]
        Kind::Train | Kind::Loop => String::new(),
        Kind::Rules => Rules::preset(Mode::Fanqi).to_toml_string(),
        Kind::SiguoRules => junqi_siguo::Rules::preset(junqi_siguo::Mode::Anqi).to_toml_string(),
        Kind::Regress => String::new(),
    };
    let mut keys = BTreeSet::new();
    dotted_keys(&text.parse().unwrap(), "", &mut keys);
    keys
}

/// Every TOML file under configs/ and data/, with its kind and keys.
fn shipped() -> &'static [Shipped] {
    static SHIPPED: OnceLock<Vec<Shipped>> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        let root = root();
        let mut files = Vec::new();
        let mut dirs = vec![root.join("configs"), root.join("data")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "toml") {
                    files.push(path.strip_prefix(&root).unwrap().to_path_buf());
                }
            }
        }
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let kind = kind_of(&path);
                let text = std::fs::read_to_string(root.join(&path)).unwrap();
                let mut keys = default_keys(kind);
                dotted_keys(&text.parse().unwrap(), "", &mut keys);
                Shipped { path, kind, text, keys: keys.into_iter().collect() }
            })
            .collect()
    })
}

/// Whether this build loads `kind` (train and loop configs need the `torch` feature).
fn loads(kind: Kind) -> bool {
    cfg!(feature = "torch") || !matches!(kind, Kind::Train | Kind::Loop)
}

/// Load the config at `path` of `kind` with `--set` assignments as the CLI
/// does, check it, and check that what loads writes out as a config that
/// loads again to the same. Ok: the config as written out.
fn load(kind: Kind, path: &Path, sets: &[String]) -> Result<Result<String, String>, TestCaseError> {
    let text = |e: &dyn std::fmt::Display| format!("{e:#}");
    let result: Result<String, String> = match kind {
        #[cfg(feature = "torch")]
        Kind::Train => (|| -> anyhow::Result<String> {
            let mut table = overrides::read_table(Some(path))?;
            overrides::apply(&mut table, sets)?;
            let c = junqi_train::TrainConfig::from_toml(&toml::to_string(&table)?)?;
            let written = c.to_toml();
            let again = junqi_train::TrainConfig::from_toml(&written)
                .map_err(|e| anyhow::anyhow!("ROUND TRIP: {written:?} does not load: {e}"))?;
            anyhow::ensure!(again.to_toml() == written, "ROUND TRIP: {written:?} loads as {:?}", again.to_toml());
            Ok(written)
        })()
        .map_err(|e| format!("{e:#}")),
        #[cfg(feature = "torch")]
        Kind::Loop => (|| -> anyhow::Result<String> {
            let mut table = overrides::read_table(Some(path))?;
            overrides::apply(&mut table, sets)?;
            let c = junqi_loop::LoopConfig::from_toml(&toml::to_string(&table)?)?;
            let written = c.to_toml();
            let again = junqi_loop::LoopConfig::from_toml(&written)
                .map_err(|e| anyhow::anyhow!("ROUND TRIP: {written:?} does not load: {e}"))?;
            anyhow::ensure!(again.to_toml() == written, "ROUND TRIP: {written:?} loads as {:?}", again.to_toml());
            Ok(written)
        })()
        .map_err(|e| format!("{e:#}")),
        #[cfg(not(feature = "torch"))]
        Kind::Train | Kind::Loop => unreachable!("see `loads`"),
        Kind::Rules => {
            let mut args = rules_arg::RulesArgs::default();
            args.rules = Some(path.to_string_lossy().into_owned());
            args.set = sets.to_vec();
            match args.resolve(None) {
                Ok(rules) => {
                    let written = rules.to_toml_string();
                    match Rules::from_toml_str(&written) {
                        Ok(again) if again == rules => Ok(written),
                        again => Err(format!("ROUND TRIP: {written:?} loads as {again:?}")),
                    }
                }
                Err(e) => Err(text(&e)),
            }
        }
        Kind::SiguoRules => match junqi_siguo::Rules::preset_with(&path.to_string_lossy(), sets) {
            Ok(rules) => {
                let written = rules.to_toml_string();
                match junqi_siguo::Rules::from_toml_str(&written) {
                    Ok(again) if again == rules => Ok(written),
                    again => Err(format!("ROUND TRIP: {written:?} loads as {again:?}")),
                }
            }
            Err(e) => Err(text(&e)),
        },
        Kind::Regress => match edit_suite(path, sets, &scratch("suite"))? {
            Ok(path) => match Suite::from_file(&path) {
                // As `junqi regress` counts the games of its progress bar.
                Ok(suite) => match suite.arena_configs() {
                    Ok(arenas) => {
                        Ok(format!("{} games", arenas.iter().map(|c| c.total_games()).fold(0, u64::saturating_add)))
                    }
                    Err(e) => Err(text(&e)),
                },
                Err(e) => Err(text(&e)),
            },
            Err(e) => Err(e),
        },
    };
    if let Err(e) = &result {
        prop_assert!(!e.contains("ROUND TRIP"), "{}: {}", path.display(), e);
        prop_assert!(!e.trim().is_empty(), "{}: an empty error", path.display());
    }
    Ok(result)
}

/// `regress` takes no `--set`: the suite at `path` with the assignments
/// made in a copy in `dir` (`path` itself when there are none), or why one fails.
fn edit_suite(path: &Path, sets: &[String], dir: &Path) -> Result<Result<PathBuf, String>, TestCaseError> {
    if sets.is_empty() {
        return Ok(Ok(path.to_path_buf()));
    }
    let text = junqi_core::read_text(path).map_err(|e| fail(e.to_string()))?;
    let mut table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => return Ok(Err(format!("{e}"))),
    };
    for s in sets {
        let Some((k, v)) = s.split_once('=') else { return Ok(Err(format!("{s}: no `=`"))) };
        if let Err(e) = set_key(&mut table, k.trim(), v.trim()) {
            return Ok(Err(e));
        }
    }
    let edited = dir.join("suite.toml");
    std::fs::write(&edited, toml::to_string(&table).map_err(|e| fail(e.to_string()))?).unwrap();
    Ok(Ok(edited))
}

/// `overrides::set_key` where it is compiled in, else the same rule.
fn set_key(table: &mut toml::Table, key: &str, value: &str) -> Result<(), String> {
    #[cfg(feature = "torch")]
    {
        overrides::set_key(table, key, value).map_err(|e| format!("{e:#}"))
    }
    #[cfg(not(feature = "torch"))]
    {
        let parsed = format!("v = {value}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(value.to_string()));
        table.insert(key.to_string(), parsed);
        Ok(())
    }
}

/// A key to set: a real one (mostly), or a real one broken.
fn key_strategy(keys: Vec<String>) -> impl Strategy<Value = String> {
    let real = prop::sample::select(keys);
    prop_oneof![
        6 => real.clone(),
        1 => (real.clone(), prop::sample::select(vec![".x", ".", "..", "x", ".lr", ".0"])).prop_map(|(k, s)| k + s),
        1 => (real.clone(), 0..3usize).prop_map(|(k, n)| k.split('.').take(n.max(1)).collect::<Vec<_>>().join(".")),
        1 => real.prop_map(|k| format!(".{k}")),
        1 => prop::sample::select(vec!["", " ", "mode", "MODE", "a.b.c.d", "é", "seed.x", "train.optim.lr.y"])
            .prop_map(str::to_string),
    ]
}

/// A value to set: an edge value (mostly), any text, a random number.
fn value_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(VALUES).prop_map(str::to_string),
        1 => "[ -~]{0,12}",
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| format!("{v:?}")),
        1 => any::<u64>().prop_map(|v| v.to_string()),
    ]
}

/// A shipped config and 1–3 `--set` assignments of its keys.
fn config_and_sets() -> impl Strategy<Value = (usize, Vec<String>)> {
    let kinds: Vec<usize> = (0..shipped().len()).filter(|&i| loads(shipped()[i].kind)).collect();
    prop::sample::select(kinds).prop_flat_map(|i| {
        let assignment =
            (key_strategy(shipped()[i].keys.clone()), value_strategy(), 0..8u8).prop_map(|(k, v, s)| match s {
                0 => format!("{k} = {v}"),
                1 => format!("{k}{v}"),
                _ => format!("{k}={v}"),
            });
        (Just(i), prop::collection::vec(assignment, 1..4))
    })
}

/// A shipped config's text with 1–4 edits.
fn mutated_config() -> impl Strategy<Value = (usize, String)> {
    let kinds: Vec<usize> = (0..shipped().len()).filter(|&i| loads(shipped()[i].kind)).collect();
    (prop::sample::select(kinds), prop::collection::vec(edit(TOML_ALPHABET, toml_tokens()), 1..5))
        .prop_map(|(i, edits)| (i, apply_edits(&shipped()[i].text, &edits)))
}

/// The command that loads a config of `kind` at `path` with `sets` and
/// stops right after (see the module docs), its files in `dir`; for a rules
/// file, `moves` lists the moves of `jfen`.
/// An out directory that cannot be made: a regular file stands where its
/// parent should be, so a command fails there, after loading its config and
/// before it plays or writes anything.
fn out_under_a_file(dir: &Path) -> String {
    std::fs::write(dir.join("file"), "").unwrap();
    dir.join("file").join("out").to_string_lossy().into_owned()
}

fn config_command(kind: Kind, path: &Path, sets: &[String], jfen: &str, dir: &Path) -> Vec<String> {
    let p = path.to_string_lossy().into_owned();
    let mut args: Vec<String> = match kind {
        Kind::Train => {
            let out = dir.join("out").to_string_lossy().into_owned();
            let data = dir.join("no-data").to_string_lossy().into_owned();
            vec!["train".into(), "--config".into(), p, "--data".into(), data, "--out".into(), out]
        }
        Kind::Loop => {
            // run_loop checks the config, then fails to open the run directory
            // before it plays or writes anything.
            vec!["loop".into(), "--config".into(), p, "--out".into(), out_under_a_file(dir)]
        }
        Kind::Rules => vec!["moves".into(), "--rules".into(), p, "--position".into(), jfen.into()],
        Kind::SiguoRules => {
            // A random game, kept short by a last --set after the case's own.
            let mut args: Vec<String> = vec!["random-game".into(), "--siguo".into(), "--rules".into(), p];
            for s in sets {
                args.push("--set".into());
                args.push(s.clone());
            }
            args.extend(["--set".into(), "max_plies=200".into()]);
            return args;
        }
        Kind::Regress => {
            // The assignments made in the file (a bad one: the file as it is).
            let suite = match edit_suite(path, sets, dir) {
                Ok(Ok(edited)) => edited.to_string_lossy().into_owned(),
                _ => p,
            };
            return vec!["regress".into(), "--suite".into(), suite, "--out".into(), out_under_a_file(dir)];
        }
    };
    for s in sets {
        args.push("--set".into());
        args.push(s.clone());
    }
    args
}

/// A start position for the rules a rules config loads to (a preset's when it does not load).
fn start_jfen(loaded: &Result<String, String>, path: &Path) -> String {
    let rules = loaded
        .as_ref()
        .ok()
        .and_then(|t| Rules::from_toml_str(t).ok())
        .or_else(|| junqi_core::read_text(path).ok().and_then(|t| Rules::from_toml_str(&t).ok()))
        .unwrap_or_else(|| Rules::preset(Mode::Anqi));
    Position::new_game(rules, 7).to_jfen()
}

// ---------------------------------------------------------------------------
// Bot specs.

/// Valid specs of every bot, the net ones included.
const SPECS: &[&str] = &[
    "random",
    "greedy",
    "greedy:epsilon=0.1",
    "heuristic",
    "heuristic:temp=0.5",
    "mcts",
    "mcts:800",
    "mcts:sims=800,c=4,search=gumbel",
    "mcts:sims=16,search=gumbel,k=8,cvisit=25,cscale=1,gscale=0",
    "mcts:sims=8,noise=0.25,alpha=0.3,temp=1,temp_plies=20,qtemp=0.1,rollout=capture,depth=12,belief=0",
    "cheat-mcts:200",
    "cheat-mcts:sims=50,depth=12,noise=0.1",
    "net:fanqi",
    "net:anqi",
    "net:default",
    "net:path=fanqi,temp=0.5",
    "mcts:sims=8,eval=net:fanqi",
    "mcts:sims=8,mix=0.5,eval=net:anqi",
    "mcts:sims=8,search=gumbel,eval=net:default",
    "net:/dev/zero",
    "net:.",
    "net:Cargo.toml",
    "net:/nonexistent/net.safetensors",
    "random,greedy:epsilon=0.1",
];

/// Parameter names of every bot, for edits that add one: the search's keys
/// (the bots crate's own list), the other bots' and an empty one.
fn params() -> Vec<&'static str> {
    junqi_bots::MCTS_KEYS.iter().copied().chain(["epsilon", "path", ""]).collect()
}

/// Values at the edges of every parameter.
const SPEC_VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "-0",
    "1000",
    "1001",
    "100000",
    "1000000",
    "1000001",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "0.5",
    "1e38",
    "3.5e38",
    "1e39",
    "1e-45",
    "1e-46",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "0x10",
    "1_000",
    "+5",
    ".5",
    "5.",
    "1e",
    "",
    " ",
    "١",
    "１",
    "gumbel",
    "puct",
    "capture",
    "net:fanqi",
    "net:default",
    "net:",
    "net:path=fanqi",
    "mcts:8",
    "fanqi",
    "/dev/zero",
    "=",
    ",",
    ":",
];

/// A spec edit: a text edit, or a parameter given an edge value.
fn spec_strategy() -> impl Strategy<Value = String> {
    let text_edit = edit(b"abcdefghijklmnopqrstuvwxyz:=,.-0123456789 ", SPEC_VALUES);
    let param_edit = (any::<usize>(), prop::sample::select(params()), prop::sample::select(SPEC_VALUES), any::<bool>());
    (prop::sample::select(SPECS), prop::collection::vec(param_edit, 0..3), prop::collection::vec(text_edit, 0..3))
        .prop_map(|(spec, params, edits)| {
            let mut spec = spec.to_string();
            for (at, key, value, replace) in params {
                let eq: Vec<usize> = spec.match_indices('=').map(|(i, _)| i).collect();
                if replace && !eq.is_empty() {
                    // Replace an existing value (up to the next `,`).
                    let from = eq[at % eq.len()] + 1;
                    let to = spec[from..].find(',').map_or(spec.len(), |n| from + n);
                    spec.replace_range(from..to, value);
                } else {
                    let sep = if spec.contains(':') { ',' } else { ':' };
                    spec = format!("{spec}{sep}{key}={value}");
                }
            }
            apply_edits(&spec, &edits)
        })
}

/// Build a spec: parsed, built, and what builds names itself with a spec
/// that builds the same bot.
fn check_spec(spec: &str) -> Result<(), TestCaseError> {
    if let Ok(parsed) = BotSpec::parse(spec) {
        prop_assert!(!parsed.name.is_empty());
        for (i, (k, v)) in parsed.params.iter().enumerate() {
            prop_assert!(!k.is_empty() && !v.is_empty(), "`{}` parsed to {:?}", spec, parsed);
            prop_assert!(parsed.params[..i].iter().all(|(p, _)| p != k), "`{}`: {} twice", spec, k);
        }
    }
    match from_spec(spec) {
        Ok(bot) => {
            let name = bot.name();
            let again =
                from_spec(&name).map_err(|e| fail(format!("`{spec}` builds `{name}`, which is refused: {e}")))?;
            prop_assert_eq!(again.name(), name.clone(), "`{}` builds `{}`", spec, name);
        }
        Err(e) => prop_assert!(!e.to_string().trim().is_empty()),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Positions for the binary and the bots: seeded random games, edited.

/// Positions of seeded random games in every mode under a few rule sets
/// (every eleventh ply and the last), with their rules.
fn positions() -> &'static [(String, Rules)] {
    static POSITIONS: OnceLock<Vec<(String, Rules)>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let variants: [&[&str]; 3] =
            [&[], &["mine_rule=trade", "bomb_flies=true"], &["rail_turns=all", "max_plies=80"]];
        let mut out = Vec::new();
        let mut list = MoveList::new();
        for (m, mode) in Mode::ALL.into_iter().enumerate() {
            for (v, sets) in variants.iter().enumerate() {
                let mut rules = Rules::preset(mode);
                for s in *sets {
                    rules.apply_override(s).unwrap();
                }
                let mut rng = rng_from_seed((m * 10 + v) as u64);
                let mut pos = Position::new_game_with(rules, &mut rng);
                loop {
                    pos.legal_moves(&mut list);
                    if list.is_empty() || pos.ply().is_multiple_of(11) {
                        out.push((pos.to_jfen(), rules));
                    }
                    if list.is_empty() {
                        break;
                    }
                    pos.play_unchecked(list[rng.random_range(0..list.len())]);
                }
            }
        }
        out
    })
}

const JFEN_ALPHABET: &[u8] = b"~KGDROJCLEBMFkgdrojclebmf0123456789/ -rb";
const JFEN_TOKENS: &[&str] = &[
    " ",
    "/",
    "~",
    "0",
    "6",
    "55",
    "-",
    "-r",
    "r",
    "b",
    "anqi",
    "fanqi",
    "mingqi",
    "4294967295",
    "4294967296",
    "?",
    "司令",
    "|",
    "a6a7",
];

/// A position's JFEN with 0–3 edits (0: as played, so some lines parse),
/// and a move list: some of its legal moves, edited, or text.
fn jfen_line() -> impl Strategy<Value = (String, String)> {
    let moves = prop_oneof![
        2 => (any::<usize>(), 0..4usize).prop_map(|(a, n)| (a, n, None)),
        1 => "[a-f0-9 -]{0,12}".prop_map(|t| (0, 0, Some(t))),
    ];
    (0..positions().len(), prop::collection::vec(edit(JFEN_ALPHABET, JFEN_TOKENS), 0..4), moves).prop_map(
        |(i, edits, (at, n, text))| {
            let (jfen, rules) = &positions()[i];
            let moves = text.unwrap_or_else(|| {
                // Up to n legal moves in a row from the unedited position.
                let mut pos = Position::from_jfen(jfen, *rules).unwrap();
                let mut list = MoveList::new();
                let mut played = Vec::new();
                for k in 0..n {
                    pos.legal_moves(&mut list);
                    if list.is_empty() {
                        break;
                    }
                    let mv = list[(at + k) % list.len()];
                    pos.play_unchecked(mv);
                    played.push(mv.to_string());
                }
                played.join(" ")
            });
            // One line each, whatever the edits inserted.
            let line = apply_edits(jfen, &edits).replace(['\n', '\r'], " ");
            (line, moves)
        },
    )
}

/// The rules `junqi` plays a JFEN under: its mode's preset (no `--rules`).
fn preset_of(jfen: &str) -> Option<Rules> {
    junqi_core::jfen::peek_mode(jfen).ok().map(Rules::preset)
}

// ---------------------------------------------------------------------------
// In-process properties.

proptest! {
    #![proptest_config(fuzz_config(5000))]

    /// Arbitrary text as a bot spec and as a `--bots` list.
    #[test]
    fn arbitrary_bot_specs_build_or_are_refused(text in prop_oneof!["[a-z:=,.0-9-]{0,24}", any::<String>()]) {
        let case = Case::start(|| format!("bot spec {text:?}"));
        check_spec(&text)?;
        for part in split_bot_list(&text) {
            check_spec(&part)?;
        }
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(5000))]

    /// Valid specs of every bot, with parameters at the edges and text edits:
    /// built or refused at once (`sims=18446744073709551615` is refused with
    /// the allowed range, not a search that never ends).
    #[test]
    fn mutated_bot_specs_build_or_are_refused(spec in spec_strategy()) {
        let case = Case::start(|| format!("bot spec {spec:?}"));
        check_spec(&spec)?;
        for part in split_bot_list(&spec) {
            check_spec(&part)?;
        }
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(3000))]

    /// `--set key=value` on every shipped config, with its real keys (and
    /// broken ones) and edge values: the config loads and checks, or is
    /// refused with an error; what loads writes out and loads again the same.
    #[test]
    fn set_overrides_load_or_are_refused((i, sets) in config_and_sets()) {
        let s = &shipped()[i];
        let case = Case::start(|| format!("{} --set {sets:?}", s.path.display()));
        let _ = load(s.kind, &root().join(&s.path), &sets)?;
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(3000))]

    /// Every shipped config with bytes flipped, inserted or deleted, lines
    /// deleted, duplicated (duplicate keys and tables) or swapped, values
    /// replaced: loads and checks, or is refused with an error.
    #[test]
    fn mutated_configs_load_or_are_refused((i, text) in mutated_config()) {
        let s = &shipped()[i];
        let case = Case::start(|| format!("{} edited to {text:?}", s.path.display()));
        let dir = scratch("config");
        let path = dir.join(s.path.file_name().unwrap());
        std::fs::write(&path, &text).unwrap();
        let _ = load(s.kind, &path, &[])?;
        case.finish()?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(1000))]

    /// A bot asked to move in an edited position that `junqi play
    /// --position` accepts (every bot kind, nets included, a few simulations)
    /// answers with a legal action.
    #[test]
    fn bots_move_in_accepted_positions((jfen, _) in jfen_line(), bot in 0..8usize, seed in any::<u64>()) {
        let case = Case::start(|| format!("bot {bot} in {jfen:?}"));
        if let Some(pos) = preset_of(&jfen).and_then(|r| Position::from_jfen(&jfen, r).ok()) {
            let spec = [
                "random", "greedy:epsilon=0.2", "heuristic", "mcts:sims=4,depth=4", "cheat-mcts:sims=4,depth=4",
                "mcts:sims=4,search=gumbel,k=2", "net:default", "mcts:sims=4,eval=net:default",
            ][bot];
            let game = Game::new(pos.clone());
            if game.outcome().is_none() {
                let mut player = from_spec(spec).unwrap();
                let mut rng = rng_from_seed(seed);
                let action = player.act(&game, &mut rng).action;
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                prop_assert!(list.contains(action), "{} chose {} in {}", spec, action, jfen);
            }
        }
        case.finish()?;
    }
}

// ---------------------------------------------------------------------------
// Binary properties: fewer cases, each a `junqi` process.

proptest! {
    #![proptest_config(fuzz_config(3))]

    /// `junqi apply` and `junqi moves` on stdin, a batch of edited positions
    /// and move lists per case: an answer (or `error:`) line for each,
    /// exit 0 or 2.
    #[test]
    fn binary_reads_jfen_and_moves_on_stdin(lines in prop::collection::vec(jfen_line(), 1..64)) {
        let apply: String = lines.iter().map(|(j, m)| format!("{j} | {m}\n")).collect();
        let args = vec!["apply".to_string()];
        let out = junqi(&args, &apply)?;
        assert_clean(&out, &args, true)?;
        let answered = String::from_utf8_lossy(&out.stdout).lines().count();
        prop_assert_eq!(answered, 2 * lines.len(), "apply:\n{}", String::from_utf8_lossy(&out.stdout));
        let moves: String = lines.iter().map(|(j, _)| format!("{j}\n")).collect();
        let args = vec!["moves".to_string()];
        let out = junqi(&args, &moves)?;
        assert_clean(&out, &args, true)?;
        prop_assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), lines.len());
    }
}

proptest! {
    #![proptest_config(fuzz_config(6))]

    /// `junqi play --position` on an edited position, the bot to move first,
    /// stdin empty: the bot moves once (or the position is refused).
    #[test]
    fn binary_plays_from_edited_positions((jfen, _) in jfen_line(), bot in prop::sample::select(vec!["random", "greedy", "heuristic", "mcts:sims=8,depth=8"])) {
        // The person takes the seat not to move (seat 2 when the turn is unreadable).
        let seat = if jfen.split_whitespace().nth(2) == Some("2") { "1" } else { "2" };
        let args: Vec<String> =
            ["play", "--bot", bot, "--seat", seat, "--seed", "1", "--color", "never", "--position", &jfen]
                .map(String::from)
                .to_vec();
        assert_clean(&junqi(&args, "")?, &args, false)?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(8))]

    /// Edited bot specs through `junqi arena` (zero games: the bots are
    /// built, then the game count is refused).
    #[test]
    fn binary_builds_or_refuses_bot_specs(spec in spec_strategy()) {
        let dir = scratch("arena");
        let out = dir.join("out").to_string_lossy().into_owned();
        let bots = format!("{spec},random");
        let args: Vec<String> = ["arena", "--bots", &bots, "--games-per-pair", "0", "--out", &out].map(String::from).to_vec();
        assert_clean(&junqi(&args, "")?, &args, false)?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(10))]

    /// `--set` on every kind of config through the binary (train, loop,
    /// rules; regress, which has no `--set`, on the suite file edited so).
    #[test]
    fn binary_loads_or_refuses_set_overrides((i, sets) in config_and_sets()) {
        let s = &shipped()[i];
        let path = root().join(&s.path);
        let loaded = load(s.kind, &path, &sets)?;
        let dir = scratch("run");
        let args = config_command(s.kind, &path, &sets, &start_jfen(&loaded, &path), &dir);
        assert_clean(&junqi(&args, "")?, &args, false)?;
    }
}

proptest! {
    #![proptest_config(fuzz_config(10))]

    /// Edited configs of every kind through the binary.
    #[test]
    fn binary_loads_or_refuses_mutated_configs((i, text) in mutated_config()) {
        let s = &shipped()[i];
        let dir = scratch("config");
        let path = dir.join(s.path.file_name().unwrap());
        std::fs::write(&path, &text).unwrap();
        let loaded = load(s.kind, &path, &[])?;
        let run = scratch("run");
        let args = config_command(s.kind, &path, &[], &start_jfen(&loaded, &path), &run);
        assert_clean(&junqi(&args, "")?, &args, false)?;
    }
}

// ---------------------------------------------------------------------------
// Every count at its extremes.

/// Whole-number keys (dotted) of a TOML document.
fn whole_number_keys(text: &str) -> Vec<String> {
    fn walk(table: &toml::Table, prefix: &str, out: &mut Vec<String>) {
        for (k, v) in table {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v {
                toml::Value::Table(t) => walk(t, &key, out),
                toml::Value::Integer(_) => out.push(key),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&text.parse().unwrap(), "", &mut out);
    out
}

/// Every whole-number key of the train and loop configs (all of them, from
/// the defaults) and of the regress suite set to the largest (odd and
/// even) and smallest values TOML holds, and to 0: each is refused with an error, or accepted,
/// and then all the accepted ones together run through `junqi train` /
/// `loop` / `regress` to the point where the missing data (or the refused
/// out directory) stops them, without a panic. Only seeds may be accepted
/// at 2^63 − 1: every count has a cap of its own. Also the arena's
/// game count at its largest with three bots (three matchups' worth).
#[test]
fn every_count_at_its_extremes() {
    setup();
    let mut configs = vec![(Kind::Regress, "configs/regress/v1.toml")];
    if cfg!(feature = "torch") {
        configs.extend([(Kind::Train, "configs/train/small.toml"), (Kind::Loop, "configs/loop/quickstart.toml")]);
    }
    for (kind, file) in configs {
        let path = root().join(file);
        let whole = match kind {
            #[cfg(feature = "torch")]
            Kind::Train => whole_number_keys(&junqi_train::TrainConfig::default().to_toml()),
            #[cfg(feature = "torch")]
            Kind::Loop => whole_number_keys(&junqi_loop::LoopConfig::default().to_toml()),
            _ => whole_number_keys(&std::fs::read_to_string(&path).unwrap()),
        };
        assert!(!whole.is_empty(), "{file}");
        for value in [i64::MAX.to_string(), (i64::MAX - 1).to_string(), i64::MIN.to_string(), "0".to_string()] {
            let mut accepted = Vec::new();
            for key in &whole {
                let set = vec![format!("{key}={value}")];
                if load(kind, &path, &set).unwrap().is_ok() {
                    accepted.extend(set);
                }
            }
            if value == i64::MAX.to_string() {
                // Every count has a cap; only seeds take any value.
                let uncapped: Vec<&String> =
                    accepted.iter().filter(|s| !s.split('=').next().unwrap().ends_with("seed")).collect();
                assert!(uncapped.is_empty(), "{file}: counts accepted at {value}: {uncapped:?}");
            }
            // All together when they load together, else one at a time.
            let runs: Vec<Vec<String>> = if load(kind, &path, &accepted).unwrap().is_ok() {
                vec![accepted]
            } else {
                accepted.into_iter().map(|s| vec![s]).collect()
            };
            for sets in runs.into_iter().filter(|s| !s.is_empty()) {
                let dir = scratch("run");
                let args = config_command(kind, &path, &sets, "", &dir);
                assert_clean(&junqi(&args, "").unwrap(), &args, false).unwrap();
            }
        }
    }
    let dir = scratch("arena");
    let out = dir.join("out").to_string_lossy().into_owned();
    let max = (u64::MAX - 1).to_string();
    let args: Vec<String> =
        ["arena", "--bots", "random,greedy,heuristic", "--games-per-pair", &max, "--threads", "1", "--out", &out]
            .map(String::from)
            .to_vec();
    let run = junqi(&args, "").unwrap();
    assert_clean(&run, &args, false).unwrap();
    assert!(String::from_utf8_lossy(&run.stderr).contains("between 1 and 10000000000"), "{run:?}");
}

/// The harness itself: every shipped config is found with a kind, loads
/// unedited, and the cases are fixed (two runners draw the same).
#[test]
fn shipped_configs_load_and_cases_are_fixed() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    setup();
    assert!(shipped().len() >= 20, "found {} TOML configs", shipped().len());
    for kind in [Kind::Train, Kind::Loop, Kind::Rules, Kind::SiguoRules, Kind::Regress] {
        assert!(shipped().iter().any(|s| s.kind == kind), "no {kind:?} config");
    }
    for s in shipped().iter().filter(|s| loads(s.kind)) {
        let loaded = load(s.kind, &root().join(&s.path), &[]).unwrap();
        assert!(loaded.is_ok(), "{}: {loaded:?}", s.path.display());
    }
    let draw = || {
        let mut runner = TestRunner::new(fuzz_config(1));
        (config_and_sets(), spec_strategy(), jfen_line()).new_tree(&mut runner).unwrap().current()
    };
    assert_eq!(draw(), draw());
}
