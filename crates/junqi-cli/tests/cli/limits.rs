//! Never a panic, never a hang: absurd counts are refused with the allowed
//! range, endless inputs (devices) are refused, and a damaged dataset is an
//! error, each within seconds and in one `error:` line.

use crate::common::{assert_clean_error, stderr};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `junqi ARGS` started, its output piped.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run junqi")
}

/// `junqi ARGS`, killed (and the test failed) if it runs past `secs`.
fn junqi_within(secs: u64, args: &[&str]) -> Output {
    let mut child = spawn(args);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            panic!("`junqi {}` still running after {secs} s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("limits", name, false)
}

#[test]
fn absurd_counts_are_refused_with_the_allowed_range() {
    let max = u64::MAX.to_string();
    let out = temp_dir("counts");
    let out = out.to_str().unwrap();
    for (args, mentions) in [
        (vec!["selfplay", "--games", &max, "--no-write", "--threads", "1"], "between 1 and 10000000000"),
        (vec!["selfplay", "--games", &max, "--no-write", "--shard-games", "1"], "between 1 and 10000000000"),
        (vec!["selfplay", "--games", "10000000000", "--no-write", "--shard-games", "1"], "at most 1000000"),
        (vec!["selfplay", "--games", "1000000000000", "--out", out], "between 1 and 10000000000"),
        (
            vec!["selfplay", "--games", "4", "--no-write", "--in-flight", &max],
            "--in-flight must be between 0 and 100000",
        ),
        (vec!["selfplay", "--games", "4", "--no-write", "--threads", "100000"], "--threads must be between 1 and 1024"),
        (vec!["arena", "--bots", "random,greedy", "--threads", "5000", "--out", out], "between 1 and 1024"),
        (
            vec!["arena", "--bots", "random,greedy", "--games-per-pair", "18446744073709551614", "--out", out],
            "between 1 and",
        ),
    ] {
        assert_clean_error(&junqi_within(20, &args), mentions);
    }
    // Nets too big to allocate, and batches too big to train, are refused
    // before any data is read or any tensor made.
    for (sets, mentions) in [
        (vec!["model.channels=100000"], "implausible model size"),
        (vec!["model.blocks=100000"], "implausible model size"),
        (vec!["model.blocks=200", "model.channels=512"], "weights, at most 150000000"),
        (vec!["optim.batch_size=100000000"], "optim.batch_size must be between 1 and 65536"),
        (vec!["data.shuffle_buffer=100000000000"], "data.shuffle_buffer must be between 1 and 10000000"),
        (vec!["optim.steps=9223372036854775807"], "optim.steps must be between 0 and 1000000000000"),
        (vec!["log_every=9223372036854775807"], "log_every must be between 0 and 1000000000000"),
        (vec!["keep_checkpoints=9223372036854775807"], "keep_checkpoints must be between 0 and 1000000"),
        (vec!["data.window_games=9223372036854775807"], "data.window_games must be between 0 and 10000000000"),
        (vec!["optim.grad_clip=inf"], "optim.grad_clip must be a finite number"),
        (vec!["optim.value_weight=nan"], "optim.value_weight must be a finite number"),
        (vec!["optim.eps=-1"], "optim.eps must be a finite number between 0 and 1, not -1"),
    ] {
        let mut args = vec!["train", "--data", out, "--out", out];
        for set in sets {
            args.extend(["--set", set]);
        }
        assert_clean_error(&junqi_within(20, &args), mentions);
    }
    // The loop's own counts and its time budget.
    for (set, mentions) in [
        ("selfplay.games=9223372036854775807", "selfplay.games must be between 1 and 10000000000"),
        ("bootstrap.steps=9223372036854775807", "bootstrap.steps must be between 0 and 1000000000000"),
        ("steps_per_generation=9223372036854775807", "steps_per_generation must be between 1 and 1000000"),
        ("minutes=nan", "minutes must be a finite number"),
        ("minutes=-5", "minutes must be a finite number between 0 and"),
    ] {
        assert_clean_error(&junqi_within(20, &["loop", "--out", out, "--set", set]), mentions);
    }
}

#[test]
fn endless_inputs_are_refused_not_read_forever() {
    let out = temp_dir("devices");
    let out = out.to_str().unwrap();
    for args in [
        vec!["selfplay", "--games", "2", "--no-write", "--rules", "/dev/urandom"],
        vec!["selfplay", "--games", "2", "--no-write", "--bots", "net:/dev/zero,random"],
        vec!["arena", "--bots", "random,mcts:sims=4,eval=net:/dev/zero", "--out", out],
        vec!["train", "--config", "/dev/zero", "--data", out, "--out", out],
        vec!["loop", "--config", "/dev/urandom", "--out", out],
    ] {
        assert_clean_error(&junqi_within(20, &args), "not a regular file");
    }
}

#[test]
fn damaged_shards_are_errors_never_panics() {
    let dir = temp_dir("damage");
    let out = dir.to_str().unwrap();
    // 300 games in one shard: pages of many kilobytes, where a zeroed block
    // used to make the Parquet decoder panic (at about a fifth of the file).
    let o = junqi_within(
        120,
        &["selfplay", "--games", "300", "--out", out, "--samples-per-game", "0", "--shard-games", "300"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let shard = dir.join("games").join("shard-000000.parquet");
    let pristine = std::fs::read(&shard).unwrap();
    // Zeroed 4 KiB blocks all over the file, and a few flipped bits.
    let len = pristine.len();
    let mut noticed = 0;
    for k in 0..24 {
        let mut bytes = pristine.clone();
        let at = k * len / 24;
        if k % 6 != 5 {
            bytes[at..(at + 4096).min(len)].fill(0);
        } else {
            bytes[at] ^= 0x5a;
            bytes[(at + 7).min(len - 1)] ^= 0x81;
        }
        std::fs::write(&shard, &bytes).unwrap();
        let o = junqi_within(60, &["replay", "--games", out]);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "damage {k} at byte {at}: {err}");
        match o.status.code() {
            Some(0) => {}
            Some(1) => noticed += 1,
            Some(2) => {
                assert_eq!(err.lines().count(), 1, "{err}");
                noticed += 1;
            }
            other => panic!("damage {k}: exit {other:?}: {err}"),
        }
    }
    assert!(noticed >= 12, "most damage must be noticed: {noticed} of 24");
    std::fs::write(&shard, &pristine).unwrap();
    assert!(junqi_within(60, &["replay", "--games", out]).status.success());
    std::fs::remove_dir_all(dir).unwrap();
}

/// Two writers on one directory (`selfplay`, `arena`, `sprt`, `study`): the
/// second is refused at once, naming the first; once the first is gone, the
/// same command resumes.
#[test]
fn a_second_writer_on_a_run_directory_is_refused() {
    let dir = temp_dir("lock");
    let out = dir.to_str().unwrap().to_string();
    for args in [
        vec![
            "selfplay",
            "--games",
            "4000",
            "--bots",
            "mcts:200",
            "--samples-per-game",
            "0",
            "--shard-games",
            "4000",
            "--out",
            &out,
        ],
        vec!["arena", "--bots", "mcts:200,mcts:300", "--games-per-pair", "2000", "--out", &out],
        vec!["sprt", "--candidate", "mcts:200", "--baseline", "mcts:300", "--max-games", "2000", "--out", &out],
        vec!["study", "first-move", "--variant", "fanqi", "--bot", "mcts:200", "--games", "2000", "--out", &out],
    ] {
        let _ = std::fs::remove_dir_all(&dir);
        let mut first = spawn(&args);
        let lock = dir.join(".lock");
        let start = Instant::now();
        while std::fs::read_to_string(&lock).map_or(true, |t| !t.contains("pid")) {
            assert!(start.elapsed() < Duration::from_secs(30), "{}: no lock after 30 s", args[0]);
            std::thread::sleep(Duration::from_millis(20));
        }
        let second = junqi_within(30, &args);
        assert_clean_error(&second, &format!("is being written by junqi pid {}", first.id()));
        first.kill().unwrap();
        first.wait().unwrap();
        // Killed, the first leaves no stale lock: the directory is free again.
        let mut again = spawn(&args);
        std::thread::sleep(Duration::from_millis(1500));
        assert!(again.try_wait().unwrap().is_none(), "{}: the resume did not start", args[0]);
        again.kill().unwrap();
        again.wait().unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The net file at `from` without `checksum_fnv1a64` in its header, as
/// older versions wrote it, at `to`.
fn write_unsigned(from: &std::path::Path, to: &std::path::Path) {
    let bytes = std::fs::read(from).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    assert!(header["__metadata__"].as_object_mut().unwrap().remove("checksum_fnv1a64").is_some());
    let mut text = serde_json::to_vec(&header).unwrap();
    while text.len() % 8 != 0 {
        text.push(b' ');
    }
    let mut file = (text.len() as u64).to_le_bytes().to_vec();
    file.extend(&text);
    file.extend(&bytes[8 + n..]);
    std::fs::write(to, &file).unwrap();
}

/// `junqi sign-net` takes a four-player net as well (every four-player net
/// was written signed, so this re-signs one): it reads back as the same
/// four-player net, tensors bit for bit.
#[test]
fn sign_net_signs_a_four_player_net() {
    use junqi_net::{ModelConfig, NetFile, NetGame};
    let dir = temp_dir("sign-net-siguo");
    std::fs::create_dir_all(&dir).unwrap();
    let model = ModelConfig { blocks: 1, channels: 8, ..ModelConfig::siguo() };
    let path = dir.join("siguo.safetensors");
    NetFile::random_for(&model, NetGame::Siguo, 3).write(&path).unwrap();
    let before = NetFile::read_game(&path, NetGame::Siguo).unwrap();
    let o = junqi_within(60, &["sign-net", path.to_str().unwrap()]);
    assert!(o.status.success() && crate::common::stdout(&o).contains("signed"), "{}", stderr(&o));
    let after = NetFile::read_game(&path, NetGame::Siguo).unwrap();
    assert_eq!((after.game, &after.model, after.step), (NetGame::Siguo, &model, before.step));
    let bits = |f: &NetFile| {
        let mut t: Vec<_> = f
            .tensors
            .iter()
            .map(|(n, (s, v))| (n.clone(), s.clone(), v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()))
            .collect();
        t.sort();
        t
    };
    assert_eq!(bits(&after), bits(&before));
    let _ = std::fs::remove_dir_all(dir);
}

/// A net file from before the metadata checksum: used with a warning that
/// says how to re-sign it; `junqi sign-net` re-signs it (tensors unchanged)
/// and the warning is gone; a damaged file is refused, not signed.
#[test]
fn sign_net_re_signs_an_older_net() {
    let dir = temp_dir("sign-net");
    std::fs::create_dir_all(&dir).unwrap();
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/nets/fanqi-1h-bilinear.safetensors");
    let old = dir.join("old.safetensors");
    write_unsigned(std::path::Path::new(shipped), &old);
    let bots = format!("net:{},random", old.display());
    let play = ["selfplay", "--games", "1", "--bots", &bots, "--no-write", "--set", "max_plies=10"];
    let o = junqi_within(60, &play);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("re-sign it with `junqi sign-net {}`", old.display())), "{}", stderr(&o));
    let o = junqi_within(60, &["sign-net", old.to_str().unwrap()]);
    assert!(o.status.success() && crate::common::stdout(&o).contains("signed"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "signing warns about what it signs: {}", stderr(&o));
    let o = junqi_within(60, &play);
    assert!(o.status.success() && !stderr(&o).contains("warning"), "{}", stderr(&o));
    // A damaged file is an error, and is left as it was.
    let mut damaged = std::fs::read(&old).unwrap();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    std::fs::write(&old, &damaged).unwrap();
    assert_clean_error(&junqi_within(60, &["sign-net", old.to_str().unwrap()]), "checksum");
    assert_eq!(std::fs::read(&old).unwrap(), damaged);
    let _ = std::fs::remove_dir_all(dir);
}
