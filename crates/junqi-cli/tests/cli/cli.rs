//! The `junqi` command line end to end: outputs, stdin modes, and that bad
//! input gives one clear `error:` line on stderr and exit code 2, never a panic.

use crate::common::{assert_clean_error, stderr, stdout};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const FANQI_START: &str =
    "~m~K~D~b~C/~f~c~G~M~c/~L1~e1~j/~o~l1~O~E/~k1~L1~J/~m~F~C~B~m/~l~D~o~g~M/~r1~d1~R/~b~c1~j~C/~l1~B1~M/~r~E~e~e~J/~R~L~O~E~d fanqi 1 - 0 0";
const ANQI: &str = "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0";

fn junqi(args: &[&str], stdin: Option<&str>) -> Output {
    crate::common::junqi_with_stdin(args, stdin.unwrap_or(""))
}

#[test]
fn moves_lists_every_legal_action_once() {
    let o = junqi(&["moves", "--position", FANQI_START], None);
    assert!(o.status.success());
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 50, "50 face-down pieces to flip");
    assert!(lines.iter().all(|m| m[..m.len() / 2] == m[m.len() / 2..]), "all flips");
    let o = junqi(&["moves", "--position", ANQI], None);
    let mut got: Vec<String> = stdout(&o).lines().map(String::from).collect();
    got.sort();
    // The 旅长 on c10: steps to b10 (camp), d10 (camp), c9 (camp), attack c11; the 司令 on e1: e2, d1 (HQ), …
    for m in ["c10c11", "c10b10", "c10d10", "c10c9", "e1e2"] {
        assert!(got.contains(&m.to_string()), "{m} missing from {got:?}");
    }
}

#[test]
fn moves_reads_stdin_and_keeps_lines_aligned() {
    let input = format!("{FANQI_START}\nnot a position\n{ANQI}\n");
    let o = junqi(&["moves"], Some(&input));
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0].split(' ').count(), 50);
    assert!(lines[1].starts_with("error: "), "{}", lines[1]);
    assert!(lines[2].contains("c10c11"));
    // A finished game has no legal moves: an empty line.
    let over = "5/5/5/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0";
    let o = junqi(&["moves"], Some(&format!("{over}\n")));
    assert!(o.status.code() == Some(2) || stdout(&o) == "\n", "{}", stdout(&o));
}

#[test]
fn stdin_lines_that_are_not_utf8_are_answered_in_place() {
    let mut input = format!("{ANQI}\n").into_bytes();
    input.extend_from_slice(b"\xff\xfe\n");
    input.extend_from_slice(format!("{ANQI}\n").as_bytes());
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .arg("moves")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[1], "error: input line is not valid UTF-8");
    assert_eq!(lines[0], lines[2]);
}

#[test]
fn apply_prints_position_and_result() {
    let o = junqi(&["apply", "--position", ANQI, "--moves", "c10c11 c11c12"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, vec!["1fd2/5/5/5/5/5/5/5/5/5/5/1F2K anqi 1 r 1 2", "result: ongoing"]);
    // Red's 司令 captures the flag: 1-0.
    let o = junqi(&["apply", "--position", "1f3/1K3/5/5/5/5/5/5/5/5/5/1F2k anqi 1 r 0 0", "--moves", "b11b12"], None);
    assert_eq!(stdout(&o).lines().nth(1), Some("result: 1-0"));
}

#[test]
fn apply_names_an_illegal_move_and_its_index() {
    let o = junqi(&["apply", "--position", ANQI, "--moves", "c10c11 a1a2"], None);
    assert_clean_error(&o, "move 2 of 2 (`a1a2`)");
    let o = junqi(&["apply", "--position", ANQI, "--moves", "c10c11 zz"], None);
    assert_clean_error(&o, "`zz`");
}

#[test]
fn apply_stdin_reports_errors_in_place() {
    let input = format!("{ANQI} | c10c11\n{ANQI} | c10c12\nbroken | a1a2\n{ANQI} |\n");
    let o = junqi(&["apply"], Some(&input));
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    assert_eq!(lines[1], "result: ongoing");
    assert!(lines[2].starts_with("error: ") && lines[2].contains("c10c12"), "{}", lines[2]);
    assert_eq!(lines[3], "result: error");
    assert!(lines[4].starts_with("error: "));
    assert_eq!(lines[5], "result: error");
    assert_eq!(lines[6], ANQI);
}

#[test]
fn bad_input_is_one_clear_error_line() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["moves", "--position", "abc"], "JFEN"),
        (vec!["moves", "--position", "5/5/5 anqi 1 r 0 0"], "12 ranks"),
        (vec!["moves", "--position", "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K chess 1 r 0 0"], "mode"),
        (vec!["moves", "--position", "1f3/2d2/2X2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0"], "piece letter"),
        (vec!["moves", "--position", "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 3 r 0 0"], "turn"),
        (vec!["moves", "--position", "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r -1 0"], "quiet"),
        (vec!["moves", "--position", "KKf2/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0"], "commander"),
        (vec!["moves", "--position", ANQI, "--set", "bogus=1"], "unknown rule option `bogus`"),
        (vec!["moves", "--position", ANQI, "--set", "mine_rule=soft"], "mine_rule"),
        (vec!["moves", "--position", ANQI, "--set", "attack_hidden=true"], "does not apply to anqi"),
        (vec!["moves", "--position", ANQI, "--set", "max_plies"], "option=value"),
        (vec!["moves", "--position", ANQI, "--rules", "fanqi"], "--rules gives fanqi rules"),
        (vec!["moves", "--position", ANQI, "--rules", "nosuch"], "unknown rules preset"),
        (vec!["moves", "--position", ANQI, "--rules", "/nonexistent/r.toml"], "cannot read rules file"),
        (vec!["moves", "--position", ANQI, "--set", "first_player=black"], "first_player"),
        (vec!["random-game", "--mode", "chess"], "chess"),
        (vec!["random-game", "--seed", "x"], "--seed"),
        (vec!["moves", "--bogus"], "--bogus"),
        (vec!["perft", "--position", ANQI], "--depth"),
        (vec!["frobnicate"], "frobnicate"),
        (vec!["moves", "--position", ANQI, "--set", "mine_rule=tr\nade"], "tr\\nade"),
        (vec!["apply", "--moves", "a1a2"], "--moves needs --position"),
        (vec!["bench", "--threads", "5000"], "--threads"),
        (vec!["perft", "--position", ANQI, "--depth", "99"], "too deep"),
        (vec!["show", "--position", "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0"], "6 fields"),
    ];
    for (args, mention) in cases {
        assert_clean_error(&junqi(&args, None), mention);
    }
}

#[test]
fn rules_files_and_overrides_change_the_game() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.toml");
    std::fs::write(&file, "mode = \"anqi\"\nhq_locked = false\n").unwrap();
    // Red's only movable piece is its 司令 locked in the d1 headquarters.
    let pos = "1f3/2d2/5/5/5/5/5/5/5/5/5/1F1K1 anqi 1 r 0 0";
    let locked = junqi(&["moves", "--position", pos], None);
    assert_eq!(stdout(&locked), "");
    let free = junqi(&["moves", "--position", pos, "--rules", file.to_str().unwrap()], None);
    assert!(stdout(&free).contains("d1d2"), "{}", stdout(&free));
    let free = junqi(&["moves", "--position", pos, "--set", "hq_locked=false"], None);
    assert!(stdout(&free).contains("d1d2"));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "mode = \"anqi\"\nhq_locked = 3\n").unwrap();
    assert_clean_error(&junqi(&["moves", "--position", pos, "--rules", bad.to_str().unwrap()], None), "hq_locked");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn random_games_are_reproducible_from_the_seed() {
    for mode in ["fanqi", "anqi", "mingqi"] {
        let a = junqi(&["random-game", "--mode", mode, "--seed", "42"], None);
        let b = junqi(&["random-game", "--mode", mode, "--seed", "42"], None);
        let c = junqi(&["random-game", "--mode", mode, "--seed", "43"], None);
        assert!(a.status.success());
        assert_eq!(stdout(&a), stdout(&b));
        assert_ne!(stdout(&a), stdout(&c));
        let out = stdout(&a);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("start: ") && lines[0].contains(mode));
        assert!(lines[3].starts_with("result: "));
        // Replaying the printed moves through `apply` reaches the printed result.
        let start = lines[0].trim_start_matches("start: ");
        let moves = lines[1].trim_start_matches("moves: ");
        let applied = junqi(&["apply", "--position", start, "--moves", moves], None);
        let result = lines[3].trim_start_matches("result: ").split(' ').next().unwrap();
        assert_eq!(stdout(&applied).lines().nth(1), Some(format!("result: {result}").as_str()));
    }
}

#[test]
fn perft_counts_flips_as_actions() {
    let depth = |d: &str| {
        let o = junqi(&["perft", "--position", FANQI_START, "--depth", d], None);
        stdout(&o).trim().parse::<u64>().unwrap()
    };
    assert_eq!(depth("1"), 50);
    // Seat 1's flip gives it that colour; seat 2 owns no face-up piece yet, so flips 49.
    assert_eq!(depth("2"), 50 * 49);
}

#[test]
fn show_draws_the_board_in_chinese() {
    let o = junqi(&["show", "--position", ANQI, "--color", "never"], None);
    let out = stdout(&o);
    assert!(out.contains("红旅长") && out.contains("黑师长") && out.contains("[黑军旗]"), "{out}");
    assert!(out.contains("(      )"), "empty camps are marked");
    assert!(out.contains("山界"));
    let o = junqi(&["show", "--position", FANQI_START, "--color", "always"], None);
    assert!(stdout(&o).contains("暗子") && stdout(&o).contains("\x1b["));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // `junqi … | head -1`: stdout closes early; no panic, no error line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(["perft", "--position", FANQI_START, "--depth", "2", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(o.status.success() || o.status.code().is_none(), "{:?}", o.status);
}

#[test]
fn bench_reports_every_mode() {
    let o = junqi(&["bench", "--seconds", "0.2", "--threads", "2"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for mode in ["fanqi", "anqi", "mingqi"] {
        assert_eq!(out.lines().filter(|l| l.starts_with(mode)).count(), 2, "{out}");
    }
}

/// What a new user reads first: `--version` is the code version every run
/// file records (with the commit), the help lists every kind of bot and no
/// flag that does not exist, and an unknown bot's error lists them all.
#[test]
fn version_help_and_bot_errors_name_what_exists() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-version-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = junqi(&["selfplay", "--games", "2", "--out", dir.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap();
    let recorded = run["code_version"].as_str().unwrap();
    let o = junqi(&["--version"], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim_end(), format!("junqi {recorded}"));
    let _ = std::fs::remove_dir_all(&dir);

    for command in ["arena", "selfplay", "play"] {
        let help = stdout(&junqi(&[command, "--help"], None));
        assert!(help.contains("net:NAME|FILE") && help.contains("engine:cmd=PROGRAM"), "{command} --help: {help}");
        assert!(!help.contains("--mode"), "{command} --help mentions a --mode flag it lacks: {help}");
    }
    let o = junqi(&["selfplay", "--games", "2", "--no-write", "--bots", "random,minimax"], None);
    assert_clean_error(&o, "unknown bot `minimax`");
    assert!(stderr(&o).contains("cheat-mcts, net:NAME|FILE, engine:cmd=PROGRAM"), "{}", stderr(&o));
}
