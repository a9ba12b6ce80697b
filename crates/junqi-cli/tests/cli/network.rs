//! `junqi train`, `junqi loop` and the network bots from the command line
//! (a build with the default `torch` feature).
#![cfg(feature = "torch")]

use crate::common::{assert_clean_error, stderr, stdout};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).output().unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("net", name, false)
}

const TINY_NET: [&str; 8] = [
    "--set",
    "model.blocks=1",
    "--set",
    "model.channels=8",
    "--set",
    "model.value_planes=1",
    "--set",
    "model.value_hidden=8",
];

#[test]
fn train_writes_a_net_that_the_bots_and_the_arena_use_and_resumes() {
    let dir = temp_dir("train");
    let data = dir.join("data");
    let o = junqi(&["selfplay", "--games", "6", "--bots", "greedy,random", "--out", data.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = dir.join("run");
    let mut args = vec!["train", "--config", "configs/train/small.toml", "--data", data.to_str().unwrap()];
    let run_s = run.to_str().unwrap().to_string();
    args.extend(["--out", &run_s, "--steps", "4", "--batch-size", "16", "--device", "cpu"]);
    args.extend(TINY_NET);
    // The test runs in crates/junqi-cli: the config path is from the repository root.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let o = Command::new(env!("CARGO_BIN_EXE_junqi")).args(&args).current_dir(root).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("trained steps 0..4"), "{}", stdout(&o));
    let net = run.join("net.safetensors");
    assert!(net.is_file() && run.join("tb").is_dir() && run.join("config.toml").is_file());
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(config.contains("channels = 8") && config.contains("batch_size = 16"), "{config}");

    // More steps resume from the checkpoint.
    let mut more = args.clone();
    let i = more.iter().position(|a| *a == "4").unwrap();
    more[i] = "6";
    let o = Command::new(env!("CARGO_BIN_EXE_junqi")).args(&more).current_dir(root).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("resumed from") && stdout(&o).contains("trained steps 4..6"), "{}", stdout(&o));

    // The net plays in the arena, alone and guiding the search.
    let n = net.to_str().unwrap();
    let bots = format!("random,net:{n},mcts:sims=4,eval=net:{n}");
    let arena = dir.join("arena");
    let o = junqi(&[
        "arena",
        "--bots",
        &bots,
        "--games-per-pair",
        "2",
        "--set",
        "max_plies=60",
        "--out",
        arena.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("net:{n}")), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_net_under_any_path_plays_when_quoted() {
    // Commas, `=` and quotes in the path: quoted in the spec, and the names
    // the arena records (and builds the bots from again) quote them too.
    let dir = temp_dir(r#"a,b=c "q""#);
    std::fs::create_dir_all(&dir).unwrap();
    let net = dir.join("net.safetensors");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/nets/fanqi.safetensors"), &net).unwrap();
    let path = net.to_str().unwrap();
    let plain = junqi_bots::BotSpec::new("net").with("path", path);
    let search = junqi_bots::BotSpec::new("mcts").with("sims", 4).with("eval", &plain);
    let arena = dir.join("arena");
    let o = junqi(&[
        "arena",
        "--bot",
        &plain.to_string(),
        "--bot",
        &search.to_string(),
        "--bot",
        "random",
        "--games-per-pair",
        "2",
        "--set",
        "max_plies=40",
        "--out",
        arena.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results = std::fs::read_to_string(arena.join("results.json")).unwrap();
    assert!(results.contains(&serde_json::to_string(&plain.to_string()).unwrap()), "{results}");
    // Unquoted, the comma splits the spec: a clear error, not another file.
    let o = junqi(&[
        "arena",
        "--bot",
        &format!("net:path={path}"),
        "--bot",
        "random",
        "--out",
        dir.join("arena2").to_str().unwrap(),
    ]);
    assert_clean_error(&o, "no parameter `b`");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_shipped_net_plays() {
    let o = junqi(&["selfplay", "--games", "2", "--bots", "net:default,random", "--no-write", "--set", "max_plies=40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("net:default"), "{}", stdout(&o));
}

#[test]
fn train_and_loop_reject_bad_input_with_one_line() {
    let dir = temp_dir("bad");
    let out = dir.join("o");
    let out = out.to_str().unwrap();
    assert_clean_error(&junqi(&["train", "--data", "/no/such/dir", "--out", out]), "/no/such/dir");
    assert_clean_error(&junqi(&["train", "--data", "/tmp", "--out", out, "--set", "optim.lr=-1"]), "optim.lr");
    assert_clean_error(&junqi(&["train", "--data", "/tmp", "--out", out, "--set", "nope=1"]), "nope");
    assert_clean_error(&junqi(&["loop", "--out", out, "--set", "mode=chess"]), "mode");
    assert_clean_error(&junqi(&["loop", "--out", out, "--config", "/no/such.toml"]), "/no/such.toml");
    assert_clean_error(
        &junqi(&["arena", "--bots", "random,net:/no/such.safetensors", "--out", out]),
        "/no/such.safetensors",
    );
    assert_clean_error(&junqi(&["selfplay", "--games", "2", "--no-write", "--device", "tpu"]), "unknown device `tpu`");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn loop_runs_prints_each_generation_and_resumes_after_ctrl_c() {
    let dir = temp_dir("loop");
    let out = dir.to_str().unwrap().to_string();
    let mut args: Vec<String> = ["loop", "--out", &out, "--generations", "3", "--threads", "4", "--device", "cpu"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for kv in [
        "rules_set=[\"max_plies=80\"]",
        "bootstrap.bot=greedy",
        "bootstrap.games=8",
        "selfplay.games=4",
        "selfplay.sims=2",
        "steps_per_generation=4",
        "evaluate.games=4",
        "evaluate.sims=2",
        "evaluate.anchor=random",
        "evaluate.anchor_games=4",
        "evaluate.more_anchors=[\"greedy\"]",
        "train.model.blocks=1",
        "train.model.channels=8",
        "train.optim.batch_size=16",
        "train.data.shuffle_buffer=500",
    ] {
        args.push("--set".into());
        args.push(kv.into());
    }
    // Ctrl-C once the first net exists, then the same command finishes the run.
    let child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = dir.join("nets/net-000.safetensors");
    let start = Instant::now();
    while !first.exists() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(first.exists(), "no net after 120 s");
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("note:"), "no `about`, no note");
    // The config's `about` is a note: a resume may change it, and it is
    // printed before and after the run.
    args.extend(["--set".into(), "about=only a demonstration".into()]);
    let o = Command::new(env!("CARGO_BIN_EXE_junqi")).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("note: only a demonstration").count(), 2, "{text}");
    assert!(text.trim_end().ends_with("note: only a demonstration"), "{text}");
    // Generation 0's games and training were kept, not played again.
    assert!(!text.contains("gen 0: self-play") && !text.contains("gen 0: trained"), "{text}");
    assert!(text.contains("generation  minutes"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("2 ")), "{text}");
    assert!(text.contains("Elo vs random") && text.contains("Elo vs greedy"), "{text}");
    // Every generation's row has a rating against both anchors.
    let rows: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    assert!(rows.len() >= 3 && rows.iter().all(|r| r.matches(" [").count() >= 2), "{text}");
    for f in ["elo.svg", "elo.csv", "summary.md", "nets/net-002.safetensors"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A file-size limit (`RLIMIT_FSIZE`, with `SIGXFSZ` ignored so writes fail
/// with `EFBIG` as on a full disk) that the TensorBoard event file outgrows
/// while checkpoints still fit: `train` ends with one error line naming the
/// event file, the newest checkpoint stays readable, and once the limit is
/// gone the same command resumes from it and finishes.
#[test]
fn train_on_a_full_disk_stops_with_an_error_and_keeps_its_checkpoint() {
    let dir = temp_dir("full");
    let data = dir.join("data");
    let o = junqi(&["selfplay", "--games", "4", "--bots", "greedy,random", "--out", data.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = dir.join("run");
    let train = |steps: &str, limit_kib: Option<u64>| {
        let mut args = vec!["train", "--data", data.to_str().unwrap(), "--out", run.to_str().unwrap()];
        args.extend(["--steps", steps, "--batch-size", "8", "--device", "cpu"]);
        args.extend(["--set", "log_every=1", "--set", "checkpoint_every=10", "--set", "keep_checkpoints=2"]);
        args.extend(TINY_NET);
        let mut command = match limit_kib {
            // The ignored signal stays ignored across `exec`.
            Some(kib) => {
                let mut c = Command::new("bash");
                c.arg("-c")
                    .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" \"$@\""))
                    .arg(env!("CARGO_BIN_EXE_junqi"));
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_junqi")),
        };
        command.args(&args).output().unwrap()
    };
    let o = train("10", None);
    assert!(o.status.success(), "{}", stderr(&o));
    let ckpt_dir = run.join("checkpoints");
    let newest = |d: &PathBuf| {
        let mut names: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()).collect();
        names.retain(|p| p.extension().is_some_and(|e| e == "safetensors"));
        names.sort();
        names.pop().unwrap()
    };
    let checkpoint_bytes = std::fs::metadata(newest(&ckpt_dir)).unwrap().len();
    // Room for a checkpoint, not for the events of thousands of steps (each
    // step logs a dozen scalars of about 40 bytes).
    let limit_kib = checkpoint_bytes / 1024 + 16;
    let o = train("3000", Some(limit_kib));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // (without a terminal, progress lines come first)
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: ") && last.contains("tfevents") && last.contains("too large"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("error")).count(), 1, "{err}");
    let kept = newest(&ckpt_dir);
    let step: u64 = kept.file_stem().unwrap().to_str().unwrap().trim_start_matches("ckpt-").parse().unwrap();
    assert!(step > 10 && step < 3000, "{}", kept.display());
    // The checkpoint is whole: a net bot reads it (checksum checked) and plays.
    let bots = format!("net:{},random", kept.display());
    let o = junqi(&["selfplay", "--games", "1", "--bots", &bots, "--no-write", "--set", "max_plies=20"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Space is back: the same command resumes from that checkpoint.
    let o = train(&(step + 20).to_string(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("resumed from") && out.contains(&format!("trained steps {step}..{}", step + 20)), "{out}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `scripts/h200.sh` (the prepared ten-minute GPU run) parses, and without
/// the CUDA binary it was written for it says where the binary goes and
/// exits 2 before writing anything. Its loop config is checked with the
/// other shipped configs (`junqi-loop`'s tests); running it takes a GPU.
#[test]
fn h200_script_parses_and_explains_a_missing_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("scripts/h200.sh");
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    let out = temp_dir("h200");
    let o = Command::new("bash").arg(&script).arg(&out).env("JUNQI_BIN", out.join("no-such-junqi")).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no junqi binary at"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing written without a binary");
}
