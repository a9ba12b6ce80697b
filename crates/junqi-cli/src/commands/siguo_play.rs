//! `junqi play --siguo`: a person on one seat of 四国军棋 (docs/rules.md §10)
//! and bots on the other three, the ally's included, in the terminal.
//!
//! The referee's position stays here; the person is shown only their seat's
//! [`SiguoInfoSet`] (in 四国暗棋 every other army's piece is `??` until its
//! kind is public, in 双明 the ally's kinds too, in 全明 every kind), and the
//! moves of the others as the referee announces them. Each bot decides from
//! its own seat's information set. Like the two-player `play`, the loop
//! reads any [`BufRead`] and writes any [`Write`], so a scripted stdin plays
//! the same game.

use super::play::{clock_seed, read_typed, Typed};
use super::siguo_board::{mode_chinese, render_view, view_status_line};
use anyhow::{anyhow, bail, Context, Result};
use junqi_core::{rng_from_seed, GameRng};
use junqi_siguo::{
    bot_from_spec, Announcement, Army, Move, MoveList, Node, Outcome, Position, Ruling, SiguoBot, SiguoInfoSet,
};
use std::io::{BufRead, IsTerminal, Write};

const HELP: &str = "\
type a move as <from>-<to> (sc6-sc5, sd2-ms) or two nodes (sc6 sc5); a node is an army letter (s, e, n, w), \
a file a-e and a rank 1-6 (the board's margins name them), or a centre node m, ms, me, mn, mw, mse, men, mnw, mws
commands: moves (your legal moves), board (draw the board again), undo (take back your last move and the bots' \
replies; what they revealed stays in your memory, so undo is for slips, not for peeking), resign (your team loses), \
quit, help";

/// What `run` needs from `junqi play`'s flags.
pub struct Options<'a> {
    /// One bot spec for the three other seats, or three (comma-separated,
    /// those seats in seat order).
    pub bot: Option<&'a str>,
    pub seat: Option<u8>,
    pub seed: Option<u64>,
    pub position: Option<&'a str>,
    pub color: bool,
    pub rules: &'a crate::rules_arg::RulesArgs,
    /// `--tc BASE+INC`: a clock for each bot seat whose bot searches
    /// (`mcts` without its own `movetime`); each move gets the budget a
    /// two-player `tc` search spends.
    pub tc: Option<&'a str>,
}

/// The referee's game and every seat's information set.
pub struct Game {
    pub start: Position,
    pub truth: Position,
    pub infos: [SiguoInfoSet; 4],
    pub moves: Vec<Move>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let infos = Army::ALL.map(|a| SiguoInfoSet::new(&start, a));
        Game { truth: start.clone(), start, infos, moves: Vec::new() }
    }

    /// Play `mv` on the referee's board and announce it to every seat.
    pub fn play(&mut self, mv: Move) -> Result<Announcement> {
        let before = self.truth.clone();
        let effect = self.truth.play(mv)?;
        let mut last = None;
        for info in &mut self.infos {
            last = Some(info.witness(&before, mv, &effect, &self.truth));
        }
        self.moves.push(mv);
        Ok(last.expect("four seats"))
    }
}

/// A game between the person and three bots.
pub struct Session {
    pub game: Game,
    pub human: Army,
    /// The bot of each seat (`None` for the person's).
    pub bots: [Option<Box<dyn SiguoBot>>; 4],
    pub rng: GameRng,
    pub color: bool,
    /// Write each input line after the prompt (a scripted game reads as a transcript).
    pub echo: bool,
    /// Each bot seat's clock (`--tc`), kept as the two-player search keeps
    /// its own (junqi-bots' `MoveClock`); `None` for a bot without one.
    pub clocks: [Option<junqi_bots::mcts::MoveClock>; 4],
}

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Over(Outcome),
    Resigned,
    Quit,
    Eof,
}

/// The bots of the three seats other than `human`.
fn build_bots(spec: &str, human: Army) -> Result<[Option<Box<dyn SiguoBot>>; 4]> {
    // A part `key=value` continues the spec before it (`mcts:100,movetime=50,heuristic`: two specs).
    let specs: Vec<String> = junqi_bots::split_bot_list(spec);
    if specs.len() != 1 && specs.len() != 3 {
        bail!(
            "--bot: one four-player bot spec for the three other seats, or three separated by commas, found {}",
            specs.len()
        );
    }
    let mut bots: [Option<Box<dyn SiguoBot>>; 4] = Default::default();
    let others = Army::ALL.into_iter().filter(|&a| a != human);
    for (i, army) in others.enumerate() {
        let spec = specs[if specs.len() == 1 { 0 } else { i }].trim();
        bots[army.index()] = Some(bot_from_spec(spec).map_err(|e| anyhow!("--bot: {e}"))?);
    }
    Ok(bots)
}

pub fn run(opts: Options) -> Result<()> {
    let seat = opts.seat.unwrap_or(0);
    let human = Army::new(seat as usize).ok_or_else(|| anyhow!("--seat {seat}: the four-player seats are 0 to 3"))?;
    let mut bots = build_bots(opts.bot.unwrap_or("heuristic"), human)?;
    let mut clocks: [Option<junqi_bots::mcts::MoveClock>; 4] = Default::default();
    if let Some(tc) = opts.tc {
        let (base, inc) = junqi_bots::mcts::clock::parse_clock(tc)
            .ok_or_else(|| anyhow!("--tc `{tc}`: expected <seconds>+<increment seconds>, e.g. 60+0.5"))?;
        for (clock, bot) in clocks.iter_mut().zip(&bots) {
            if bot.as_ref().is_some_and(|b| b.name().starts_with("mcts") && !b.plays_by_time()) {
                *clock = Some(junqi_bots::mcts::MoveClock::new(junqi_bots::mcts::TimeControl::Clock { base, inc }));
            }
        }
    }
    let seed = opts.seed.unwrap_or_else(clock_seed);
    let start = match opts.position {
        Some(text) => super::siguo_board::position(opts.rules, text)?,
        None => {
            let dealt = Position::new_game(super::perft::siguo_rules(opts.rules, None)?, seed);
            // A bot that deploys (a net with a learned model) replaces its army's part of the deal.
            junqi_siguo::deploy_armies(&dealt, seed, |army, rules, rng| {
                bots[army.index()].as_mut()?.deploy(army, rules, rng)
            })
            .map_err(|e| anyhow!("a bot deployed illegally: {e}"))?
        }
    };
    if start.ended(human).is_some() {
        bail!("--seat {seat}: {human} has already ended in this position");
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mode = start.rules().mode;
    writeln!(out, "junqi play --siguo: 四国军棋 {mode} ({}), seed {seed}", mode_chinese(mode))?;
    let names: Vec<String> =
        Army::ALL.iter().filter_map(|&a| bots[a.index()].as_ref().map(|b| format!("{a} `{}`", b.name()))).collect();
    writeln!(
        out,
        "you are {human}, with your ally {} (team {:?}); bots: {}",
        human.ally(),
        human.team(),
        names.join(", ")
    )?;
    if let Some(tc) = opts.tc {
        let timed: Vec<String> =
            Army::ALL.iter().filter(|a| clocks[a.index()].is_some()).map(|a| a.to_string()).collect();
        let timed =
            if timed.is_empty() { "none of the bots searches without its own time".into() } else { timed.join(", ") };
        writeln!(out, "clock tc={tc} for: {timed}")?;
    }
    let sees = match mode {
        junqi_siguo::Mode::Anqi => {
            "you see the kinds of your own pieces only; every other piece is `??` until its kind is public"
        }
        junqi_siguo::Mode::Shuangming => "you see the kinds of your own and your ally's pieces; the enemies' are `??`",
        junqi_siguo::Mode::Quanming => "every kind is public",
    };
    writeln!(out, "{sees}")?;
    if opts.position.is_none() {
        writeln!(
            out,
            "every army's deployment is a random legal one from the seed, but a bot's that deploys by a learned model \
             (there is no deployment editor)"
        )?;
    }
    writeln!(out, "type `help` for the commands")?;
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let mut session = Session {
        game: Game::new(start),
        human,
        bots,
        // The bots draw from their own stream, not the deployments'.
        rng: rng_from_seed(seed ^ 0x5167_756f_626f_7473),
        color: opts.color,
        echo,
        clocks,
    };
    play_loop(&mut session, &mut stdin.lock(), &mut out)?;
    Ok(())
}

/// Play until the game ends, the person resigns or quits, or `input` ends;
/// then print the result and the moves.
pub fn play_loop(s: &mut Session, input: &mut impl BufRead, out: &mut impl Write) -> Result<End> {
    let mut list = MoveList::new();
    let mut show_board = true;
    let mut told_ended = false;
    let mut bytes = Vec::new();
    let end = loop {
        if let Some(o) = s.game.truth.outcome() {
            break End::Over(o);
        }
        let turn = s.game.truth.turn();
        if turn != s.human {
            if s.game.truth.ended(s.human).is_some() && !told_ended {
                writeln!(out, "your army has ended: the bots play on to the end")?;
                told_ended = true;
            }
            let bot = s.bots[turn.index()].as_mut().context("a bot on every other seat")?;
            let info = &s.game.infos[turn.index()];
            let chosen = match s.clocks[turn.index()].as_mut() {
                Some(clock) => {
                    // One clock per army (its seat always First): a ply not after the last starts it again.
                    bot.time_next_move(clock.start_move(junqi_core::Seat::First, s.game.truth.ply()), false);
                    let chosen = bot.choose(info, &mut s.rng);
                    let took = clock.end_move();
                    let left = clock.remaining().as_secs_f64();
                    writeln!(out, "{turn}'s time: {} ms, {left:.1} s left", took.as_millis())?;
                    chosen
                }
                None => bot.choose(info, &mut s.rng),
            };
            s.game.truth.legal_moves(&mut list);
            let mv = match chosen {
                Some(mv) if list.contains(mv) => mv,
                other => bail!(
                    "bot `{}` of {turn} chose {} at ply {}",
                    bot.name(),
                    other.map_or("no move".to_string(), |m| format!("the illegal move {m}")),
                    s.game.truth.ply()
                ),
            };
            let name = bot.name();
            let before = s.game.infos[s.human.index()].clone();
            let a = s.game.play(mv)?;
            writeln!(out, "{turn} `{name}` plays {mv}: {}", describe(&before, &a, s.human))?;
            show_board = true;
            continue;
        }
        let info = &s.game.infos[s.human.index()];
        info.legal_moves(&mut list);
        if show_board {
            write!(out, "{}", render_view(info, s.color))?;
            writeln!(out, "{}; you are {}", view_status_line(info), s.human)?;
            show_board = false;
        }
        let line = match read_typed(input, out, &mut bytes, s.echo)? {
            Typed::Eof => break End::Eof,
            Typed::NotUtf8 => continue,
            Typed::Line(line) => line,
        };
        match line.to_ascii_lowercase().as_str() {
            "" => writeln!(out, "error: empty line: type a move such as sc6-sc5, or `help`")?,
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" => show_board = true,
            "moves" => {
                let moves: Vec<String> = list.iter().map(|m| m.to_string()).collect();
                writeln!(out, "legal moves ({}): {}", moves.len(), moves.join(" "))?;
            }
            "resign" => break End::Resigned,
            "quit" | "exit" => break End::Quit,
            "undo" => match undo(s)? {
                Some(n) => {
                    writeln!(out, "took back {n} move(s)")?;
                    show_board = true;
                }
                None => writeln!(out, "error: nothing to undo: you have not moved yet")?,
            },
            text => match parse_move(text, info, &list) {
                Ok(mv) => {
                    let before = info.clone();
                    let a = s.game.play(mv)?;
                    writeln!(out, "you play {mv}: {}", describe(&before, &a, s.human))?;
                    show_board = true;
                }
                Err(why) => writeln!(out, "error: {}", crate::one_line(&why))?,
            },
        }
    };
    report_end(s, end, out)?;
    Ok(end)
}

/// Take back the person's last move and everything after it, by replaying
/// the game from its start. Returns how many moves went, or `None` when the
/// person has not moved yet.
fn undo(s: &mut Session) -> Result<Option<usize>> {
    let mut replay = Game::new(s.game.start.clone());
    let mut last = None;
    for (i, &mv) in s.game.moves.iter().enumerate() {
        if replay.truth.turn() == s.human {
            last = Some(i);
        }
        replay.play(mv).with_context(|| format!("replaying {mv} for undo"))?;
    }
    let Some(last) = last else { return Ok(None) };
    let gone = s.game.moves.len() - last;
    let mut game = Game::new(s.game.start.clone());
    for &mv in &s.game.moves[..last] {
        game.play(mv)?;
    }
    s.game = game;
    Ok(Some(gone))
}

/// The person's input as one of `legal`, or a one-line reason why not.
fn parse_move(text: &str, info: &SiguoInfoSet, legal: &MoveList) -> Result<Move, String> {
    let mv = match text.split_once(char::is_whitespace) {
        Some((from, to)) => {
            let node = |t: &str| t.trim().parse::<Node>().map_err(|e| format!("{e} (or type `help`)"));
            Move::new(node(from)?, node(to)?)
        }
        None => text.parse::<Move>().map_err(|e| format!("{e} (or type `help`)"))?,
    };
    if legal.contains(mv) {
        return Ok(mv);
    }
    Err(format!("illegal move {mv}: {}", why_illegal(mv, info, legal)))
}

/// Why `mv` is not among the person's legal moves.
fn why_illegal(mv: Move, info: &SiguoInfoSet, legal: &MoveList) -> String {
    let (from, to) = (mv.from, mv.to);
    let seat = info.seat();
    let Some(owner) = info.army_at(from) else { return format!("there is no piece on {from}") };
    if owner != seat {
        return format!("the piece on {from} is {owner}'s, not yours ({seat})");
    }
    let name = info.known_kind(from).map_or("piece", |k| k.chinese());
    if info.known_kind(from).is_some_and(|k| !k.is_movable()) {
        return format!("your {name} on {from} never moves");
    }
    let targets: Vec<String> = legal.iter().filter(|m| m.from == from).map(|m| m.to.to_string()).collect();
    if targets.is_empty() {
        return format!("your {name} on {from} has no legal move now");
    }
    let onto = match (info.army_at(to), info.known_kind(to)) {
        (Some(a), Some(k)) if a == seat => format!(" ({to} holds your own {})", k.chinese()),
        (Some(a), _) if a == seat.ally() => format!(" ({to} holds your ally's piece)"),
        _ => String::new(),
    };
    format!("your {name} on {from} cannot reach {to}{onto}; it can go to {}", targets.join(" "))
}

/// A piece as the seat may name it: its army letter and kind when the seat
/// sees that army's kinds (§10.10), else the letter and `??`.
fn piece(info: &SiguoInfoSet, node: Node) -> String {
    match info.army_at(node) {
        Some(a) => match info.known_kind(node).filter(|_| info.sees(a)) {
            Some(k) => format!("{}{}", a.letter(), k.chinese()),
            None => format!("{}??", a.letter()),
        },
        None => "nothing".to_string(),
    }
}

/// What the person's seat was told of a move, in words; `before` is the
/// seat's information set before it.
fn describe(before: &SiguoInfoSet, a: &Announcement, human: Army) -> String {
    let (from, to) = (a.mv.from, a.mv.to);
    let mover = piece(before, from);
    let mut text = match a.ruling {
        Ruling::Move => format!("{mover} moves {from} to {to}"),
        ruling => {
            let result = match ruling {
                Ruling::AttackerWon => "the attacker wins and moves in".to_string(),
                Ruling::DefenderWon => "the defender wins; the attacker is removed".to_string(),
                Ruling::BothRemoved => "both are removed".to_string(),
                Ruling::FlagCaptured { capturer_removed } => {
                    let gone = if capturer_removed { "; the capturer is removed with it" } else { "" };
                    format!("the flag is captured{gone}")
                }
                Ruling::Stopped => "the 司令 is stopped at the mine; both stay".to_string(),
                Ruling::Move => unreachable!(),
            };
            format!("{mover} on {from} attacks {} on {to}: {result}", piece(before, to))
        }
    };
    for army in Army::ALL {
        if let Some(flag) = a.flag_shown[army.index()] {
            if before.ended(army).is_none() && a.ended[army.index()].is_none() {
                text.push_str(&format!("; the 司令 of {army} fell, so its flag is shown on {flag}"));
            }
        }
        if let (Some(cause), None) = (a.ended[army.index()], before.ended(army)) {
            let why = match cause {
                junqi_siguo::EndCause::FlagCaptured => "its flag is captured",
                junqi_siguo::EndCause::NoLegalMove => "it has no legal move",
            };
            let whose = if army == human { " (your army)" } else { "" };
            text.push_str(&format!("; {army}{whose} ends: {why}, its pieces leave the board"));
        }
    }
    text
}

/// The final board, the result and the moves.
fn report_end(s: &Session, end: End, out: &mut impl Write) -> Result<()> {
    let team = s.human.team();
    match end {
        End::Over(o) => {
            write!(out, "{}", render_view(&s.game.infos[s.human.index()], s.color))?;
            let verdict = match o.winner {
                Some(w) if w == team => "your team wins",
                Some(_) => "your team loses",
                None => "a draw",
            };
            writeln!(out, "game over: {verdict}")?;
            writeln!(out, "result: {} ({})", o.result_str(), o.termination.name())?;
        }
        End::Resigned => {
            let result = if team == junqi_siguo::Team::A { "0-1" } else { "1-0" };
            writeln!(out, "you resign: your team loses")?;
            writeln!(out, "result: {result} (resignation)")?;
        }
        End::Quit => writeln!(out, "you quit: the game is left unfinished, no result")?,
        End::Eof => writeln!(out, "end of input: the game is left unfinished, no result")?,
    }
    let moves: Vec<String> = s.game.moves.iter().map(|m| m.to_string()).collect();
    writeln!(out, "moves: {}", moves.join(" "))?;
    writeln!(out, "plies: {}", moves.len())?;
    out.flush()?;
    Ok(())
}
