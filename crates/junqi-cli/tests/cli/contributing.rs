//! CONTRIBUTING.md's recipes stay true: every file it names exists, and
//! every subcommand has what its "A subcommand" recipe asks for (a module,
//! a test here that runs it, a README example, a one-line error on bad
//! input). The bot recipe is done for real in
//! `crates/junqi-selfplay/tests/selfplay/custom_bot.rs`; the rules option's
//! steps 1–4 are cross-checked by the tests in `junqi-core`'s `rules.rs`.

use crate::common::assert_clean_error;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The backticked paths of a text that name files or folders of the
/// repository (`crates/…`, `configs/…`, …), `{a,b}` alternatives expanded;
/// placeholders (`<name>`) and globs are skipped.
fn named_paths(text: &str) -> Vec<String> {
    const TOP: [&str; 8] = ["crates/", "configs/", "docs/", "scripts/", "tests/", "python/", "data/", ".ci/"];
    let mut out = Vec::new();
    for (i, quoted) in text.split('`').enumerate() {
        if i % 2 == 0 || !TOP.iter().any(|t| quoted.starts_with(t)) || quoted.contains(['<', '*', ' ']) {
            continue;
        }
        match (quoted.find('{'), quoted.find('}')) {
            (Some(a), Some(b)) if a < b => {
                for alt in quoted[a + 1..b].split(',') {
                    out.push(format!("{}{alt}{}", &quoted[..a], &quoted[b + 1..]));
                }
            }
            _ => out.push(quoted.to_string()),
        }
    }
    out
}

#[test]
fn every_file_contributing_names_exists() {
    let paths = named_paths(&read("CONTRIBUTING.md"));
    assert!(paths.len() > 20, "{paths:?}");
    let missing: Vec<&String> = paths.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(missing.is_empty(), "CONTRIBUTING.md names files that do not exist: {missing:?}");
}

/// The subcommands `junqi --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_junqi")).arg("--help").output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    let list = help.split("Commands:").nth(1).expect("a Commands section").split("\n\n").next().unwrap();
    list.lines().filter_map(|l| l.split_whitespace().next()).filter(|c| *c != "help").map(str::to_string).collect()
}

#[test]
fn every_subcommand_has_what_the_recipe_asks_for() {
    let commands = subcommands();
    assert!(commands.len() >= 19, "{commands:?}");
    let modules = read("crates/junqi-cli/src/commands/mod.rs");
    let readme = read("README.md");
    let tests: String = std::fs::read_dir(root().join("crates/junqi-cli/tests/cli"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
        .collect();
    for command in &commands {
        // Its module: `random-game` is commands/random_game.rs; `loop`, a keyword, training_loop.rs.
        let module = if command == "loop" { "training_loop".to_string() } else { command.replace('-', "_") };
        assert!(root().join(format!("crates/junqi-cli/src/commands/{module}.rs")).is_file(), "{command}: no module");
        assert!(modules.contains(&format!("pub mod {module};")), "{command}: not in commands/mod.rs");
        // A README example: `junqi <command>` or `$J <command>`.
        let example = ["junqi", "$J"].iter().any(|j| {
            readme
                .match_indices(&format!("{j} {command}"))
                .any(|(i, m)| readme[i + m.len()..].starts_with([' ', '\n', '`']))
        });
        assert!(example, "{command}: no example in README.md");
        // A test here that runs it.
        assert!(tests.contains(&format!("\"{command}\"")), "{command}: no test in tests/cli runs it");
        // A bad flag: one line, exit 2.
        let o = Command::new(env!("CARGO_BIN_EXE_junqi")).args([command.as_str(), "--no-such-flag"]).output().unwrap();
        assert_clean_error(&o, "--no-such-flag");
    }
}
