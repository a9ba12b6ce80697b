//! `junqi play` end to end, driven through stdin: a game played to a
//! resignation with legal bot replies, bad input explained in place, undo,
//! EOF, a bad `--bot`, and that a 暗棋 board never shows an enemy kind.

use crate::common::{assert_clean_error, stdout};
use junqi_core::{Colour, Mode, Move, Position, Rules, Square};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const PROMPT: &str = "your move> ";
const FILES: &str = "         a       b       c       d       e";
const FANQI_START: &str =
    "~m~K~D~b~C/~f~c~G~M~c/~L1~e1~j/~o~l1~O~E/~k1~L1~J/~m~F~C~B~m/~l~D~o~g~M/~r1~d1~R/~b~c1~j~C/~l1~B1~M/~r~E~e~e~J/~R~L~O~E~d fanqi 1 - 0 0";
const KIND_NAMES: [&str; 12] =
    ["司令", "军长", "师长", "旅长", "团长", "营长", "连长", "排长", "工兵", "炸弹", "地雷", "军旗"];

/// `junqi play ARGS` with the whole of `script` on stdin, then EOF.
fn play_script(args: &[&str], script: &str) -> Output {
    crate::common::junqi_with_stdin(&[&["play"], args].concat(), script)
}

/// A `junqi play` driven turn by turn: wait for the prompt, answer.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    /// Everything written so far.
    all: Vec<u8>,
    /// Where the last `until_prompt` stopped.
    seen: usize,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
            .arg("play")
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

    /// The output since the last call, up to and including the next prompt.
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

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The legal moves the `moves` command lists.
    fn legal_moves(&mut self) -> Vec<String> {
        self.send("moves");
        let text = self.until_prompt();
        let line = text.lines().find(|l| l.starts_with("legal moves")).unwrap_or_else(|| panic!("{text}"));
        line.split_once(": ").unwrap().1.split_whitespace().map(String::from).collect()
    }

    /// Close stdin, wait for the end; the exit code and the whole stdout.
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

/// Every board drawn in `text`, each from its top file line to its bottom one.
fn boards(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line == FILES => current = Some(vec![line]),
            None => {}
            Some(b) => {
                b.push(line);
                if line == FILES {
                    out.push(b.join("\n"));
                    current = None;
                }
            }
        }
    }
    out
}

/// The text of each node's 8-column cell in a drawn board (camps and
/// headquarters brackets included), by square.
fn cells(board: &str) -> Vec<(Square, String)> {
    let width = |c: char| if (c as u32) >= 0x2E80 { 2 } else { 1 };
    let mut out = Vec::new();
    for line in board.lines() {
        let Ok(rank) = line.get(..3).unwrap_or("").trim().parse::<usize>() else { continue };
        let mut chars = line[6..].chars();
        for file in 0..5 {
            let (mut cell, mut cols) = (String::new(), 0);
            while cols < 8 {
                let c = chars.next().unwrap_or_else(|| panic!("short rank line: {line}"));
                cols += width(c);
                cell.push(c);
            }
            out.push((Square::from_coords(file, rank).unwrap(), cell));
        }
    }
    assert_eq!(out.len(), 60, "{board}");
    out
}

/// The name a board cell shows: `红旅长`, `黑 ??`, `暗子` or "" (brackets and spaces trimmed).
fn shown(cell: &str) -> String {
    cell.trim_matches(|c: char| c == ' ' || "()[]".contains(c)).trim().to_string()
}

fn legal_in(pos: &Position, text: &str) -> bool {
    let mv: Move = text.parse().unwrap();
    let mut list = junqi_core::MoveList::new();
    pos.legal_moves(&mut list);
    list.contains(mv)
}

#[test]
fn a_mingqi_game_to_resignation_with_legal_bot_replies() {
    let start = Position::new_game(Rules::preset(Mode::Mingqi), 5);
    let jfen = start.to_jfen();
    let mut s = Session::start(&["--position", &jfen, "--seed", "3", "--color", "never"]);
    let intro = s.until_prompt();
    assert!(intro.contains("mingqi (明棋) against bot `greedy`"), "{intro}");
    assert_eq!(boards(&intro).len(), 1, "{intro}");
    let mut truth = start.clone();
    for turn in 0..3 {
        let legal = s.legal_moves();
        assert!(!legal.is_empty());
        let mine = legal[turn * 7 % legal.len()].clone();
        s.send(&mine);
        let reply = s.until_prompt();
        assert!(reply.contains(&format!("you play {mine}: ")), "{reply}");
        truth.play(mine.parse().unwrap()).unwrap();
        // The bot's reply is printed, legal, and followed by the board.
        let line = reply.lines().find(|l| l.starts_with("bot plays ")).unwrap_or_else(|| panic!("{reply}"));
        let bot_move = &line["bot plays ".len()..line.find(':').unwrap()];
        assert!(legal_in(&truth, bot_move), "bot move {bot_move} is illegal in {truth}");
        truth.play(bot_move.parse().unwrap()).unwrap();
        assert_eq!(boards(&reply).len(), 1, "{reply}");
    }
    s.send("resign");
    let (code, out, err) = s.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("result: 0-1 (resignation)"), "{out}");
    let moves = out.lines().find_map(|l| l.strip_prefix("moves: ")).unwrap();
    assert_eq!(moves.split_whitespace().count(), 6, "{moves}");
    // The listed moves are the game played: replaying them gives the same position.
    let mut replay = start;
    for m in moves.split_whitespace() {
        replay.play(m.parse().unwrap()).unwrap();
    }
    assert_eq!(replay, truth);
}

#[test]
fn bad_input_is_explained_on_one_line_and_the_game_goes_on() {
    // 翻棋, seat 1 to act, nothing flipped: only flips are legal; c4 is an empty camp.
    let script = "hello\na6z9\n\ne12a1\nc4c4\nc4\nc6\n";
    let o = play_script(&["--position", FANQI_START, "--seed", "1", "--color", "never"], script);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!crate::common::stderr(&o).contains("panicked"));
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 6, "{out}");
    assert!(errors[0].contains("invalid move `hello`"), "{}", errors[0]);
    assert!(errors[1].contains("invalid square `z9`"), "{}", errors[1]);
    assert!(errors[2].contains("empty line"), "{}", errors[2]);
    assert!(
        errors[3].contains("illegal move e12a1") && errors[3].contains("colours are not assigned"),
        "{}",
        errors[3]
    );
    assert!(errors[4].contains("illegal move c4c4") && errors[4].contains("no face-down piece on c4"), "{}", errors[4]);
    assert!(errors[5].contains("no face-down piece on c4"), "{}", errors[5]);
    // After each error the prompt repeats: 7 input lines, 8 prompts (the last meets EOF).
    assert_eq!(out.matches(PROMPT).count(), 8, "{out}");
    // `c6` is a flip; the bot answers; EOF then ends the game cleanly.
    assert!(out.contains("you play c6c6: flip on c6 turns up"), "{out}");
    assert!(out.contains("colours are set: you play"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("bot plays ")), "{out}");
    assert!(out.contains("end of input: the game is left unfinished"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("moves: c6c6 ")), "{out}");
}

#[test]
fn undo_restores_the_previous_board() {
    let jfen = Position::new_game(Rules::preset(Mode::Mingqi), 8).to_jfen();
    let mut s = Session::start(&["--position", &jfen, "--seed", "2", "--color", "never"]);
    let first = boards(&s.until_prompt()).pop().unwrap();
    s.send("undo");
    assert!(s.until_prompt().contains("error: nothing to undo"));
    let legal = s.legal_moves();
    s.send(&legal[legal.len() / 2]);
    let after = boards(&s.until_prompt()).pop().unwrap();
    assert_ne!(after, first, "the move and the reply changed the board");
    s.send("undo");
    let text = s.until_prompt();
    assert!(text.contains("took back 2 move(s)"), "{text}");
    let undone = boards(&text).pop().unwrap();
    assert_eq!(undone, first, "undo gives back the board before the move");
    assert!(undone.ends_with(FILES));
    let (code, out, _) = s.finish();
    assert_eq!(code, Some(0));
    assert!(out.contains("\nmoves: \n"), "no moves left after the undo: {out}");
}

#[test]
fn eof_ends_the_game_cleanly() {
    for seat in ["1", "2"] {
        let o = play_script(&["--rules", "fanqi", "--seed", "4", "--seat", seat, "--color", "never"], "");
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{}", crate::common::stderr(&o));
        assert!(out.contains("end of input: the game is left unfinished, no result"), "{out}");
        // Seat 2: the bot flipped first.
        let plies = if seat == "1" { "plies: 0" } else { "plies: 1" };
        assert!(out.contains(plies), "{out}");
    }
    // A new 暗棋 game says how the deployments were made.
    let o = play_script(&["--rules", "anqi", "--seed", "4", "--color", "never"], "quit\n");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("deployment is a random legal one"), "{}", stdout(&o));
    assert!(stdout(&o).contains("you quit"), "{}", stdout(&o));
}

/// In 暗棋 every board the person sees shows their own pieces by kind and
/// every enemy piece as `黑 ??` / `红 ??`, however the game went.
#[test]
fn anqi_boards_never_reveal_an_enemy_kind() {
    for (seat, own, enemy) in [("1", Colour::Red, Colour::Black), ("2", Colour::Black, Colour::Red)] {
        let mut truth = Position::new_game(Rules::preset(Mode::Anqi), 11);
        let jfen = truth.to_jfen();
        let mut s = Session::start(&["--position", &jfen, "--seat", seat, "--seed", "9", "--color", "never"]);
        let mut text = s.until_prompt();
        // In seat 2 the bot (red) moved first.
        if let Some(line) = text.lines().find(|l| l.starts_with("bot plays ")) {
            truth.play(line["bot plays ".len()..line.find(':').unwrap()].parse().unwrap()).unwrap();
        }
        // The first board against the truth: own kinds shown, enemy kinds not.
        let first = boards(&text).remove(0);
        let mut enemies = 0;
        for (sq, cell) in cells(&first) {
            let name = shown(&cell);
            match truth.piece_at(sq) {
                Some(p) if p.colour == own => {
                    assert_eq!(name, format!("{}{}", p.colour.chinese(), p.kind.chinese()), "{sq}")
                }
                Some(p) => {
                    enemies += 1;
                    assert_eq!(name, format!("{} ??", p.colour.chinese()), "{sq} shows the hidden {:?}", p.kind);
                }
                None => assert!(!name.chars().any(|c| (c as u32) >= 0x2E80), "{sq}: {cell}"),
            }
        }
        assert_eq!(enemies, 25);
        for turn in 0..5 {
            let legal = s.legal_moves();
            s.send(&legal[(turn * 5 + 3) % legal.len()]);
            text.push_str(&s.until_prompt());
        }
        s.send("resign");
        let (code, rest, _) = s.finish();
        assert_eq!(code, Some(0));
        text.push_str(&rest);
        assert!(boards(&text).len() >= 6, "{text}");
        for board in boards(&text) {
            for (sq, cell) in cells(&board) {
                let name = shown(&cell);
                if name.starts_with(enemy.chinese()) {
                    assert_eq!(name, format!("{} ??", enemy.chinese()), "{sq} in\n{board}");
                }
            }
        }
        // Nor does any other line name an enemy kind.
        for kind in KIND_NAMES {
            let leak = format!("{}{kind}", enemy.chinese());
            assert!(!text.contains(&leak), "`{leak}` printed:\n{text}");
        }
    }
}

#[test]
fn a_bad_bot_spec_is_one_error_line() {
    let o = play_script(&["--bot", "nonsense"], "");
    assert_clean_error(&o, "unknown bot `nonsense`");
    let o = play_script(&["--seat", "3"], "");
    assert_eq!(o.status.code(), Some(2));
    let o = play_script(&["--position", "not a jfen"], "");
    assert_clean_error(&o, "");
}

/// The milliseconds of every `bot's time: N ms` / `army's time: N ms, …` line.
fn bot_times(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.split_once("'s time: "))
        .map(|(_, rest)| rest.split(" ms").next().unwrap().parse().unwrap())
        .collect()
}

/// `--tc 1+0.1` puts a search bot with a million simulations (minutes a
/// move in a debug build) on the clock: its spec shows the clock, and each
/// of its moves comes back well inside a generous bound (it spends about
/// 1/30 of what is left plus ¾ of the increment, ~0.1 s); a spec with its
/// own time keeps it, a bot without a time notion is left as it is, and a
/// bad clock is one error line.
#[test]
fn tc_puts_the_built_in_search_on_a_clock() {
    let start = Position::new_game(Rules::preset(Mode::Mingqi), 5);
    let jfen = start.to_jfen();
    let began = std::time::Instant::now();
    let mut s = Session::start(&[
        "--position",
        &jfen,
        "--seed",
        "3",
        "--color",
        "never",
        "--tc",
        "1+0.1",
        "--bot",
        "mcts:sims=1000000",
    ]);
    let intro = s.until_prompt();
    assert!(intro.contains("against bot `mcts:tc=1+0.1`"), "{intro}");
    let mut times = Vec::new();
    for turn in 0..2 {
        let legal = s.legal_moves();
        s.send(&legal[turn * 5 % legal.len()]);
        let reply = s.until_prompt();
        assert!(reply.contains("bot plays "), "{reply}");
        times.extend(bot_times(&reply));
    }
    s.send("quit");
    let (code, _, err) = s.finish();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(times.len(), 2, "one time line per bot move: {times:?}");
    assert!(times.iter().all(|&ms| ms < 10_000), "{times:?}");
    assert!(began.elapsed() < Duration::from_secs(60), "{:?}", began.elapsed());

    let intro =
        |bot: &str| stdout(&play_script(&["--tc", "1+0.1", "--bot", bot, "--seat", "2", "--seed", "3"], "quit\n"));
    assert!(intro("mcts:movetime=20").contains("against bot `mcts:movetime=20`"), "its own time stays");
    assert!(intro("greedy").contains("against bot `greedy`"), "no time notion: unchanged");
    assert_clean_error(&play_script(&["--tc", "0+1", "--bot", "mcts"], ""), "--tc `0+1`");
}

/// `play --siguo --tc`: every `mcts` seat plays each move on its own clock
/// (a hundred million simulations would take hours), the header names the
/// clocked armies, and each of their moves prints its time.
#[test]
fn siguo_tc_puts_the_four_player_search_on_a_clock() {
    let o = play_script(
        &[
            "--siguo",
            "--seat",
            "3",
            "--seed",
            "4",
            "--color",
            "never",
            "--tc",
            "1+0.1",
            "--bot",
            "mcts:100000000,heuristic,mcts:sims=100,movetime=30",
        ],
        "quit\n",
    );
    let text = stdout(&o);
    assert!(text.contains("clock tc=1+0.1 for: "), "{text}");
    let clocked = text.lines().find_map(|l| l.strip_prefix("clock tc=1+0.1 for: ")).unwrap();
    assert!(!clocked.contains(','), "one army: the heuristic has no time, the other search its own: {clocked}");
    let times = bot_times(&text);
    assert_eq!(times.len(), 1, "{text}");
    assert!(times.iter().all(|&ms| ms < 10_000), "{times:?}");
    assert_clean_error(&play_script(&["--siguo", "--tc", "x", "--bot", "mcts"], ""), "--tc `x`");
}
