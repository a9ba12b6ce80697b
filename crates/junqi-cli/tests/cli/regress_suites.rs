//! `junqi regress` suites with `net:` bots and an openings book
//! (docs/regress.md): the result records each net's file, a baseline of
//! other net files or without that record is refused before any game.

use crate::common::{assert_clean_error, stderr, temp_dir};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .expect("run junqi")
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_suite_plays_nets_from_the_openings_book_and_pins_the_net_files() {
    let dir = temp_dir("regress-suites", "nets", true);
    // A copy of the shipped net under a path of its own, to change later.
    let net = dir.join("net.safetensors");
    std::fs::copy(Path::new(ROOT).join("data/nets/fanqi.safetensors"), &net).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "version = 1\ngames_per_pair = 2\nseed = 5\n\n[[arena]]\nrules = \"fanqi\"\nset = [\"max_plies=40\"]\n\
             openings = \"data/openings/fanqi.txt\"\nbots = [\"greedy\", \"net:fanqi\", 'mcts:sims=4,eval=\"net:{}\"']\n",
            net.display()
        ),
    )
    .unwrap();
    let run = |name: &str, baseline: Option<&Path>| {
        let out = dir.join(name);
        let mut args =
            vec!["regress", "--suite", suite.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()];
        if let Some(b) = baseline {
            args.extend(["--baseline", b.to_str().unwrap()]);
        }
        (junqi(&args), out.join("regress.json"))
    };
    let (o, first) = run("first", None);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = json(&first);
    let nets = result["nets"].as_object().unwrap();
    assert_eq!(nets.len(), 2, "{nets:?}");
    assert!(nets["net:fanqi"].as_str().unwrap().starts_with("crc32c "), "{nets:?}");
    // Every matchup started from the book's first line.
    let book = std::fs::read_to_string(Path::new(ROOT).join("data/openings/fanqi.txt")).unwrap();
    let first_line = book.lines().find(|l| !l.starts_with('#')).unwrap();
    assert_eq!(result["arenas"][0]["config"]["openings"]["lines"][0], first_line);

    // The same files: compared, and unchanged bots replay their games exactly.
    let (o, again) = run("again", Some(&first));
    assert!(o.status.success(), "{}", stderr(&o));
    let pentas = |r: &serde_json::Value| {
        r["arenas"][0]["matchups"].as_array().unwrap().iter().map(|m| m["penta"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(pentas(&json(&again)), pentas(&result));
    // Another file under the same spec: refused before a game is played.
    std::fs::copy(Path::new(ROOT).join("data/nets/fanqi-gumbel/net-005.safetensors"), &net).unwrap();
    let (o, _) = run("changed", Some(&first));
    assert_clean_error(&o, "is another file");
    assert!(!dir.join("changed").join("arena-0").exists());
    // A baseline that does not say which files its nets were: refused too.
    let mut old = result.clone();
    old.as_object_mut().unwrap().remove("nets");
    let old_file = dir.join("old.json");
    std::fs::write(&old_file, old.to_string()).unwrap();
    assert_clean_error(&run("old", Some(&old_file)).0, "does not say which file");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_bad_openings_file_in_a_suite_is_one_line() {
    let dir = temp_dir("regress-suites", "bad-openings", true);
    let suite = dir.join("suite.toml");
    // 暗棋 deployments are no 翻棋 openings.
    let text = "version = 1\ngames_per_pair = 2\nseed = 1\n[[arena]]\nrules = \"fanqi\"\n\
                openings = \"data/openings/anqi.txt\"\nbots = [\"random\", \"greedy\"]\n";
    std::fs::write(&suite, text).unwrap();
    let out = dir.join("out");
    assert_clean_error(
        &junqi(&["regress", "--suite", suite.to_str().unwrap(), "--out", out.to_str().unwrap()]),
        "openings data/openings/anqi.txt",
    );
    std::fs::write(&suite, text.replace("anqi.txt", "none.txt")).unwrap();
    assert_clean_error(&junqi(&["regress", "--suite", suite.to_str().unwrap(), "--power", "50"]), "none.txt");
    let _ = std::fs::remove_dir_all(dir);
}

/// The shipped books are what scripts/make-openings.sh makes (about 4 s):
/// a change to the bots or the rules that moves them shows here.
#[test]
fn the_openings_books_are_what_their_script_makes() {
    let dir = temp_dir("regress-suites", "books", true);
    let o = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/make-openings.sh"))
        .arg(&dir)
        .env("JUNQI", env!("CARGO_BIN_EXE_junqi"))
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    for book in ["fanqi.txt", "anqi.txt"] {
        let made = std::fs::read_to_string(dir.join(book)).unwrap();
        let shipped = std::fs::read_to_string(Path::new(ROOT).join("data/openings").join(book)).unwrap();
        assert_eq!(made.lines().filter(|l| !l.starts_with('#')).count(), 256, "{book}");
        assert!(made == shipped, "data/openings/{book} is not what scripts/make-openings.sh makes now");
    }
    let _ = std::fs::remove_dir_all(dir);
}
