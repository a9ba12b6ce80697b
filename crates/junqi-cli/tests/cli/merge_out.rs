//! `junqi merge --out DIR` refuses every output directory that cannot take
//! the merge (issue 41, item 6): a file, a link to nothing or to a file, a
//! directory holding another kind of run (a finished arena, a study, a loop,
//! a suite, an SPRT test, a study of several bots) or other files, one
//! inside a part or holding one, one under a file. Each is a one-line error
//! and the directory is left as it was. A new directory, one holding only
//! an interrupted merge's lock, and a finished merge of the same parts
//! (completed again) are taken.

use crate::common::{assert_clean_error, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().unwrap()
}

fn ok(args: &[&str]) {
    let o = junqi(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every path below `dir` with its bytes (a link as its target): what a
/// refused merge must not change. A run's `.lock` is left out: taking the
/// lock (as the self-play merge does before it reads the run file there)
/// writes the holder into it.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if dir.file_name().is_some_and(|n| n == ".lock") {
        return out;
    }
    let Ok(meta) = std::fs::symlink_metadata(dir) else { return out };
    if meta.file_type().is_symlink() {
        out.push((dir.to_path_buf(), std::fs::read_link(dir).unwrap().into_os_string().into_encoded_bytes()));
    } else if meta.is_file() {
        out.push((dir.to_path_buf(), std::fs::read(dir).unwrap()));
    } else {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        out.push((dir.to_path_buf(), Vec::new()));
        for e in entries {
            out.extend(snapshot(&e));
        }
    }
    out
}

#[test]
fn merge_refuses_every_wrong_output_directory() {
    let root = crate::common::temp_dir("merge-out", "all", true);
    let selfplay = ["selfplay", "--games", "4", "--bots", "random,random", "--shard-games", "1", "--seed", "2"];
    let arena = ["arena", "--bots", "random,greedy", "--games-per-pair", "2", "--seed", "3"];
    let (sp0, sp1, ar0, ar1) = (root.join("sp0"), root.join("sp1"), root.join("ar0"), root.join("ar1"));
    ok(&[&selfplay[..], &["--part", "0/2", "--out", s(&sp0)]].concat());
    ok(&[&selfplay[..], &["--part", "1/2", "--out", s(&sp1)]].concat());
    ok(&[&arena[..], &["--part", "0/2", "--out", s(&ar0)]].concat());
    ok(&[&arena[..], &["--part", "1/2", "--out", s(&ar1)]].concat());
    let finished_arena = root.join("arena-whole");
    ok(&[&arena[..], &["--out", s(&finished_arena)]].concat());
    let other_selfplay = root.join("other-selfplay");
    ok(&["selfplay", "--games", "2", "--bots", "greedy,random", "--seed", "9", "--out", s(&other_selfplay)]);

    let wrong = root.join("wrong");
    std::fs::create_dir_all(&wrong).unwrap();
    let file = wrong.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let dir_with = |name: &str, entries: &[&str]| {
        let d = wrong.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for e in entries {
            match e.strip_suffix('/') {
                Some(sub) => std::fs::create_dir_all(d.join(sub).join("x")).unwrap(),
                None => std::fs::write(d.join(e), "{}").unwrap(),
            }
        }
        d
    };
    let dangling = wrong.join("dangling");
    std::os::unix::fs::symlink(wrong.join("nothing-here"), &dangling).unwrap();
    let to_file = wrong.join("link-to-file");
    std::os::unix::fs::symlink(&file, &to_file).unwrap();
    let (sp, ar): ([&Path; 2], [&Path; 2]) = ([&sp0, &sp1], [&ar0, &ar1]);
    let cases: Vec<([&Path; 2], PathBuf, &str)> = vec![
        (sp, file.clone(), "not a directory"),
        (sp, dangling.clone(), "symbolic link to no directory"),
        (sp, to_file.clone(), "symbolic link to no directory"),
        (sp, file.join("under"), "a-file"),
        (sp, finished_arena.clone(), "holds an arena (arena.json)"),
        (sp, dir_with("study", &["study.json"]), "holds a study (study.json)"),
        (sp, dir_with("loop", &["state.json"]), "holds a training loop"),
        (sp, dir_with("suite", &["suite.json"]), "holds a regression suite"),
        (sp, dir_with("sprt", &["sprt.json"]), "holds an SPRT test"),
        (sp, dir_with("bots", &["bots/"]), "a study of several bots"),
        (sp, dir_with("stuff", &["notes.txt"]), "not empty (notes.txt is there)"),
        (sp, other_selfplay.clone(), "already holds other work"),
        (sp, sp0.join("merged"), "one inside the other"),
        (sp, root.clone(), "one inside the other"),
        (ar, other_selfplay.clone(), "holds a self-play run (run.json)"),
        (ar, dir_with("shards", &["games/"]), "not empty (games is there)"),
        (ar, dir_with("arena-bots", &["bots/"]), "a study of several bots"),
    ];
    for (parts, out, why) in &cases {
        let before = (snapshot(out), snapshot(&root.join("sp0")), snapshot(&root.join("ar0")));
        let mut args = vec!["merge", "--out", s(out)];
        args.extend(parts.iter().map(|p| s(p)));
        assert_clean_error(&junqi(&args), why);
        let after = (snapshot(out), snapshot(&root.join("sp0")), snapshot(&root.join("ar0")));
        assert!(before == after, "merge --out {} changed files", out.display());
    }
    // Taken: a new directory, a directory holding only an interrupted merge's lock, a finished merge again.
    for parts in [[&sp0, &sp1], [&ar0, &ar1]] {
        let fresh = root.join(format!("{}-fresh", parts[0].file_name().unwrap().to_string_lossy()));
        let locked = root.join(format!("{}-locked", parts[0].file_name().unwrap().to_string_lossy()));
        std::fs::create_dir_all(&locked).unwrap();
        std::fs::write(locked.join(".lock"), "").unwrap();
        for out in [&fresh, &locked, &fresh] {
            ok(&["merge", "--out", s(out), s(parts[0]), s(parts[1])]);
        }
    }
    let _ = std::fs::remove_dir_all(root);
}
