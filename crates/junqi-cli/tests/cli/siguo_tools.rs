//! The terminal tools on the four-player game (`--siguo`): `moves` against
//! `perft` and the rules core, `apply` of a legal sequence and its errors,
//! `show` drawing the referee's board, and `play --siguo` driven through a
//! pipe: legal bot replies, bad moves refused with a reprompt, and no hidden
//! kind of another army on any board or line in 四国暗棋.

use crate::common::{assert_clean_error, junqi, junqi_with_stdin, ok, stdout};
use junqi_core::piece::Kind;
use junqi_siguo::{to_notation, Army, Mode, Move, MoveList, Node, Position, Rules, SiguoInfoSet};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const PROMPT: &str = "your move> ";

fn start(mode: Mode, seed: u64) -> Position {
    Position::new_game(Rules::preset(mode), seed)
}

fn legal(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().copied().collect()
}

fn names(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn moves_at_the_start_match_perft_depth_one() {
    for (mode, rules) in [(Mode::Anqi, None), (Mode::Shuangming, Some("shuangming")), (Mode::Quanming, None)] {
        let pos = start(mode, 21);
        let text = to_notation(&pos);
        let mut args = vec!["moves", "--siguo", "--position", &text];
        if let Some(r) = rules {
            args.extend(["--rules", r]);
        }
        let listed: Vec<String> = stdout(&ok(junqi(&args))).lines().map(str::to_string).collect();
        let perft = stdout(&ok(junqi(&["perft", "--siguo", "--position", &text, "--depth", "1"])));
        assert!(!listed.is_empty());
        assert_eq!(listed.len().to_string(), perft.trim(), "{mode}");
        assert_eq!(listed, names(&legal(&pos)), "{mode}: the rules core's moves, in its order");
        args.push("--count");
        assert_eq!(stdout(&ok(junqi(&args))).trim(), perft.trim());
    }
    // A variant option changes the list as it changes perft.
    let text = to_notation(&start(Mode::Anqi, 4));
    let set = ["--set", "rail_turns=one_turn"];
    let count = stdout(&ok(junqi(&[&["moves", "--siguo", "--count", "--position", &text][..], &set].concat())));
    let perft = stdout(&ok(junqi(&[&["perft", "--siguo", "--depth", "1", "--position", &text][..], &set].concat())));
    assert_eq!(count, perft);
    let plain = stdout(&ok(junqi(&["moves", "--siguo", "--count", "--position", &text])));
    assert_ne!(count, plain, "rail_turns=one_turn lets more pieces turn on the railway");
}

#[test]
fn apply_of_a_legal_sequence_gives_the_position_whose_moves_match() {
    let mut pos = start(Mode::Anqi, 9);
    let text = to_notation(&pos);
    let mut played = Vec::new();
    for i in 0..10 {
        let list = legal(&pos);
        let mv = list[(i * 7) % list.len()];
        pos.play(mv).unwrap();
        played.push(mv.to_string());
    }
    let moves = played.join(" ");
    let out = stdout(&ok(junqi(&["apply", "--siguo", "--position", &text, "--moves", &moves])));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, [to_notation(&pos).as_str(), "result: ongoing"], "{out}");
    // The printed position reads back, and its legal moves are the core's.
    let listed = stdout(&ok(junqi(&["moves", "--siguo", "--position", lines[0]])));
    assert_eq!(listed.lines().collect::<Vec<_>>(), names(&legal(&pos)));
    assert_eq!(pos.turn(), Army::new(10 % 4).unwrap());
    // The stdin form: `<position> | <moves>` per line, answered alike.
    let piped = junqi_with_stdin(&["apply", "--siguo"], &format!("{text} | {moves}\n{text} |\n"));
    assert_eq!(stdout(&ok(piped)), format!("{out}{text}\nresult: ongoing\n"));
}

#[test]
fn a_finished_game_prints_its_result() {
    // Moves picked by a fixed rule until the game ends; apply replays them.
    let pos = start(Mode::Quanming, 3);
    let mut p = pos.clone();
    let mut played = Vec::new();
    let mut i = 0usize;
    while p.outcome().is_none() && played.len() < 3000 {
        let list = legal(&p);
        let mv = list[(i * 31 + 7) % list.len()];
        p.play(mv).unwrap();
        played.push(mv.to_string());
        i += 1;
    }
    let o = p.outcome().expect("the game ends in 3000 plies");
    let out = stdout(&ok(junqi(&["apply", "--siguo", "--position", &to_notation(&pos), "--moves", &played.join(" ")])));
    assert!(out.ends_with(&format!("result: {} ({})\n", o.result_str(), o.termination.name())), "{out}");
    // No legal move after the end.
    let after = out.lines().next().unwrap();
    assert_eq!(stdout(&ok(junqi(&["moves", "--siguo", "--count", "--position", after]))).trim(), "0");
}

#[test]
fn illegal_moves_and_malformed_positions_are_one_error_line() {
    let pos = start(Mode::Anqi, 2);
    let text = to_notation(&pos);
    // A move of an army not to move, a malformed move, a move after a legal one.
    let enemy = legal(&pos.played(legal(&pos)[0]))[0].to_string();
    assert_clean_error(&junqi(&["apply", "--siguo", "--position", &text, "--moves", &enemy]), "illegal move");
    let first = legal(&pos)[0].to_string();
    let two = format!("{first} {first}");
    assert_clean_error(&junqi(&["apply", "--siguo", "--position", &text, "--moves", &two]), "move 2 of 2");
    assert_clean_error(&junqi(&["apply", "--siguo", "--position", &text, "--moves", "sc6sc5"]), "invalid move");
    assert_clean_error(&junqi(&["apply", "--siguo", "--position", &text, "--moves", "sz9-ms"]), "invalid node");
    // Malformed positions, for each tool.
    let short = text.replacen('/', "", 1);
    for tool in ["moves", "apply", "show"] {
        assert_clean_error(&junqi(&[tool, "--siguo", "--position", &short]), "board");
        assert_clean_error(&junqi(&[tool, "--siguo", "--position", "nonsense"]), "expected 6 fields");
    }
    let bad_turn = text.replace(" anqi s ", " anqi x ");
    assert_clean_error(&junqi(&["moves", "--siguo", "--position", &bad_turn]), "turn");
    // A two-player JFEN is not a four-player position, and --rules must agree.
    let jfen = "1f3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K anqi 1 r 0 0";
    assert_clean_error(&junqi(&["moves", "--siguo", "--position", jfen]), "four-player position");
    assert_clean_error(&junqi(&["moves", "--siguo", "--position", &text, "--rules", "quanming"]), "quanming");
    // On stdin a bad line is answered in place and the command fails.
    let o = junqi_with_stdin(&["apply", "--siguo"], &format!("{text} | {enemy}\n{text} |\n"));
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.starts_with("error: ") && out.contains("illegal move"), "{out}");
    assert!(out.ends_with(&format!("result: error\n{text}\nresult: ongoing\n")), "{out}");
}

/// Display width of a character in the terminal.
fn width(c: char) -> usize {
    if (c as u32) >= 0x2E80 {
        2
    } else {
        1
    }
}

/// Every four-player board drawn in `text`: per board, each node's cell
/// text (its 5 columns, brackets and spaces trimmed), by node index.
fn boards(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rows: Option<Vec<&str>> = None;
    for line in text.lines() {
        let header = line.trim_start().starts_with("w1 ");
        match rows.as_mut() {
            None if header && line.contains(" ne ") => rows = Some(Vec::new()),
            None => {}
            Some(r) if header => {
                assert!(line.contains(" sa "), "{line}");
                assert_eq!(r.len(), 17, "{text}");
                out.push(cells(r));
                rows = None;
            }
            Some(r) => r.push(line),
        }
    }
    out
}

fn cells(rows: &[&str]) -> Vec<String> {
    let mut grid = vec![vec![String::new(); 17]; 17];
    for (y, line) in rows.iter().enumerate() {
        let mut chars = line.chars().skip(4);
        for cell in grid[y].iter_mut() {
            let mut cols = 0;
            while cols < 5 {
                let c = chars.next().unwrap_or_else(|| panic!("short line: {line}"));
                cols += width(c);
                cell.push(c);
            }
        }
    }
    Node::all()
        .map(|n| {
            let (x, y) = n.coords();
            grid[y as usize][x as usize].trim_matches(|c: char| c == ' ' || "()[]".contains(c)).to_string()
        })
        .collect()
}

fn glyph(kind: Kind) -> &'static str {
    ["司", "军", "师", "旅", "团", "营", "连", "排", "工", "炸", "雷", "旗"][kind as usize]
}

#[test]
fn show_draws_the_referees_board() {
    let mut pos = start(Mode::Anqi, 6);
    for i in 0..12 {
        let list = legal(&pos);
        pos.play(list[(i * 5) % list.len()]).unwrap();
    }
    let text = to_notation(&pos);
    let out = stdout(&ok(junqi(&["show", "--siguo", "--position", &text, "--color", "never"])));
    let drawn = boards(&out);
    assert_eq!(drawn.len(), 1, "{out}");
    for n in Node::all() {
        let cell = &drawn[0][n.index()];
        match pos.piece_at(n) {
            Some(p) => assert_eq!(cell, &format!("{}{}", p.army.letter(), glyph(p.kind)), "{n}"),
            None => assert!(cell.is_empty() || cell == "+" || cell == ".", "{n}: `{cell}`"),
        }
    }
    let status = format!("anqi (四国暗棋), {} to move, ended: none, quiet {}, ply 12\n", pos.turn(), pos.quiet());
    assert!(out.ends_with(&status), "{out}");
}

/// A `junqi play --siguo` driven turn by turn through pipes.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    all: Vec<u8>,
    seen: usize,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
            .args(["play", "--siguo", "--color", "never"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run junqi");
        let stdin = child.stdin.take();
        let mut out = child.stdout.take().unwrap();
        let (tx, chunks) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, chunks, all: Vec::new(), seen: 0 }
    }

    fn until_prompt(&mut self) -> String {
        while !self.all[self.seen..].ends_with(PROMPT.as_bytes()) {
            match self.chunks.recv_timeout(Duration::from_secs(60)) {
                Ok(chunk) => self.all.extend(chunk),
                Err(_) => panic!("no prompt; output so far:\n{}", String::from_utf8_lossy(&self.all)),
            }
        }
        let text = String::from_utf8(self.all[self.seen..].to_vec()).unwrap();
        self.seen = self.all.len();
        text
    }

    fn send(&mut self, line: &str) -> String {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        self.until_prompt()
    }

    fn finish(mut self) -> (Option<i32>, String, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        while let Ok(chunk) = self.chunks.recv_timeout(Duration::from_secs(10)) {
            self.all.extend(chunk);
        }
        let mut err = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (status.code(), String::from_utf8(self.all).unwrap(), err)
    }
}

/// Check every board in `text` against the truth and the seat's information
/// set: the seat's own pieces by kind, every other piece `??` unless the
/// seat's information set knows its kind (then that kind, which is the
/// truth); and no line outside a board names a kind of an army the seat
/// does not see. Returns how many pieces were drawn `??` on the last board.
fn check_view(text: &str, truth: &Position, info: &SiguoInfoSet) -> usize {
    let drawn = boards(text);
    let last = drawn.last().unwrap_or_else(|| panic!("no board in:\n{text}"));
    let mut hidden = 0;
    for n in Node::all() {
        let cell = &last[n.index()];
        match truth.piece_at(n) {
            Some(p) if info.sees(p.army) => assert_eq!(cell, &format!("{}{}", p.army.letter(), glyph(p.kind)), "{n}"),
            Some(p) => match info.known_kind(n) {
                Some(k) => {
                    assert_eq!(k, p.kind);
                    assert_eq!(cell, &format!("{}{}", p.army.letter(), glyph(k)), "{n}");
                }
                None => {
                    hidden += 1;
                    assert_eq!(cell, &format!("{}??", p.army.letter()), "{n} shows the hidden {:?}", p.kind)
                }
            },
            None => assert!(cell.is_empty() || cell == "+" || cell == ".", "{n}: `{cell}`"),
        }
    }
    // A board line: a header (5 spaces, then labels) or a row (a 2-letter label in 4 columns).
    let board_line = |l: &str| {
        l.starts_with("     ")
            || l.get(..4).is_some_and(|p| p.starts_with(' ') && p.ends_with(' ') && p.trim().len() == 2)
    };
    for line in text.lines().filter(|l| !board_line(l)) {
        for army in Army::ALL.into_iter().filter(|&a| !info.sees(a)) {
            for kind in Kind::ALL {
                for name in [kind.chinese(), glyph(kind)] {
                    let leak = format!("{}{name}", army.letter());
                    assert!(!line.contains(&leak), "`{leak}` printed: {line}");
                }
            }
        }
    }
    hidden
}

/// Play the move `mv` (as the binary printed it) on the truth and tell the seat.
fn witness(truth: &mut Position, info: &mut SiguoInfoSet, mv: &str) {
    let mv: Move = mv.parse().unwrap();
    let mut list = MoveList::new();
    truth.legal_moves(&mut list);
    assert!(list.contains(mv), "{mv} is illegal in {truth}");
    let before = truth.clone();
    let effect = truth.play(mv).unwrap();
    info.witness(&before, mv, &effect, truth);
}

#[test]
fn play_siguo_through_a_pipe_hides_other_kinds_and_refuses_bad_moves() {
    for (mode, seat, seed) in [(Mode::Anqi, 0usize, 13u64), (Mode::Shuangming, 1, 17)] {
        let mut truth = start(mode, seed);
        let human = Army::new(seat).unwrap();
        let mut info = SiguoInfoSet::new(&truth, human);
        let text = to_notation(&truth);
        let seat_arg = seat.to_string();
        let mut s = Session::start(&["--position", &text, "--seat", &seat_arg, "--seed", "5"]);
        let mut all = s.until_prompt();
        // Seat 1: army 0 (a bot) moved first.
        for line in all.lines().filter(|l| l.contains("` plays ")) {
            witness(&mut truth, &mut info, line.split("` plays ").nth(1).unwrap().split(':').next().unwrap());
        }
        let hidden = check_view(&all, &truth, &info);
        let unseen = Army::ALL.iter().filter(|&&a| !info.sees(a)).count();
        assert_eq!(hidden, 25 * unseen, "every piece of an unseen army is ??");
        // Bad input: each refused on one line, then the prompt again.
        for (bad, why) in [("hello", "invalid move `hello`"), ("sz9-ms", "invalid node `sz9`"), ("", "empty line")] {
            let reply = s.send(bad);
            assert!(reply.lines().any(|l| l.starts_with("error: ") && l.contains(why)), "{bad}: {reply}");
            assert!(reply.ends_with(PROMPT) && !reply.contains("you play"), "{reply}");
        }
        let other = truth.pieces().find(|(_, p)| p.army != human).unwrap().0;
        let reply = s.send(&format!("{other}-m"));
        assert!(reply.contains(&format!("error: illegal move {other}-m: the piece on {other} is ")), "{reply}");
        for turn in 0..3 {
            let reply = s.send("moves");
            let listed = reply.lines().find_map(|l| l.split_once("): ")).map(|(_, m)| m.to_string()).unwrap();
            let listed: Vec<&str> = listed.split(' ').collect();
            let mut mine = MoveList::new();
            truth.legal_moves(&mut mine);
            assert_eq!(listed, names(mine.as_slice()), "the listed moves are the referee's");
            let mv = listed[(turn * 11) % listed.len()].to_string();
            let reply = s.send(&mv);
            assert!(reply.contains(&format!("you play {mv}: ")), "{reply}");
            witness(&mut truth, &mut info, &mv);
            // The three bots answer with legal moves, then the board is drawn.
            let bots: Vec<&str> = reply.lines().filter(|l| l.contains("` plays ")).collect();
            assert_eq!(bots.len(), 3, "{reply}");
            for line in bots {
                witness(&mut truth, &mut info, line.split("` plays ").nth(1).unwrap().split(':').next().unwrap());
            }
            assert_eq!(truth.turn(), human);
            check_view(&reply, &truth, &info);
            all.push_str(&reply);
        }
        let played: Vec<String> = {
            s.stdin.as_mut().unwrap().write_all(b"resign\n").unwrap();
            let (code, out, err) = s.finish();
            assert_eq!(code, Some(0), "{err}");
            let result = if human.team() == junqi_siguo::Team::A { "0-1" } else { "1-0" };
            assert!(out.contains(&format!("result: {result} (resignation)")), "{out}");
            check_view(&all, &truth, &info);
            out.lines().find_map(|l| l.strip_prefix("moves: ")).unwrap().split(' ').map(str::to_string).collect()
        };
        // The moves line replays to the truth the test kept.
        let mut replay = start(mode, seed);
        for m in &played {
            replay.play(m.parse().unwrap()).unwrap();
        }
        assert_eq!(replay, truth);
    }
}

#[test]
fn play_siguo_reads_a_whole_script_from_a_pipe() {
    // Army n's piece is not the person's, `sc6sc5` is malformed: both refused,
    // the prompt repeated; `resign` ends the game; bad flags are one line.
    let o =
        junqi_with_stdin(&["play", "--siguo", "--seed", "8", "--color", "never"], "na6-na5\nsc6sc5\nhelp\nresign\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    assert!(errors[0].contains("illegal move na6-na5: the piece on na6 is army 2 (n)'s, not yours"), "{}", errors[0]);
    assert!(errors[1].contains("invalid move `sc6sc5`"), "{}", errors[1]);
    assert_eq!(out.matches(PROMPT).count(), 4, "{out}");
    assert!(out.contains("result: 0-1 (resignation)"), "{out}");
    assert!(out.contains("\nplies: 0\n"), "{out}");
    assert_clean_error(&junqi(&["play", "--siguo", "--bot", "nonsense"]), "unknown four-player bot `nonsense`");
    assert_clean_error(&junqi(&["play", "--siguo", "--bot", "random,greedy"]), "three separated by commas");
    assert_clean_error(&junqi(&["play", "--seat", "0"]), "two-player seats are 1");
}

/// `reanalyse` from the terminal: a small four-player run relabelled on one
/// team's positions (as many samples as that team has), and bad input as
/// one line each (the full checks are in tests/siguo/reanalyse.rs).
#[test]
fn reanalyse_relabels_one_teams_positions_and_refuses_bad_input() {
    let dir = crate::common::temp_dir("siguo-tools", "reanalyse", true);
    let (run, out) = (dir.join("run"), dir.join("out"));
    let (run_s, out_s) = (run.to_str().unwrap(), out.to_str().unwrap());
    let args = ["selfplay", "--siguo", "--bots", "heuristic,random", "--games", "2", "--set", "max_plies=40"];
    ok(junqi(&[&args[..], &["--out", run_s]].concat()));
    let text = stdout(&ok(junqi(&["reanalyse", "--data", run_s, "--bot", "greedy", "--seats", "b", "--out", out_s])));
    // Team B is random's: armies 1 and 3 in game 0, 0 and 2 in game 1; 40 plies, 20 each.
    assert!(text.contains("reanalysed 2 games (1 shards) with greedy: 40 samples"), "{text}");
    let missing = dir.join("missing");
    let bad: [&[&str]; 3] = [
        &["reanalyse", "--data", missing.to_str().unwrap(), "--bot", "greedy", "--out", out_s],
        &["reanalyse", "--data", run_s, "--bot", "greedy", "--seats", "c", "--out", out_s],
        &["reanalyse", "--data", run_s, "--bot", "greedy", "--min-quiet=lots", "--out", out_s],
    ];
    for (args, mention) in bad.iter().zip(["selfplay --siguo", "--seats", "--min-quiet"]) {
        assert_clean_error(&junqi(args), mention);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
