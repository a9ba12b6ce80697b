//! `junqi play`: a person against a bot in the terminal, in any mode.
//!
//! The person sees only their seat's information set (an enemy piece in 暗棋
//! is drawn `黑 ??`), types moves in docs/rules.md §7 notation and a few commands.
//! The loop reads any [`BufRead`] and writes any [`Write`], so it runs the
//! same on a terminal and under a scripted stdin.

use super::show::{render_board, use_color};
use crate::rules_arg::RulesArgs;
use anyhow::{bail, Context, Result};
use junqi_bots::Player;
use junqi_core::{
    rng_from_seed, Colour, CombatOutcome, Deployment, Game, GameRng, Mode, Move, MoveList, Observation, ObservedEvent,
    Outcome, Piece, Position, Rules, Seat, Square,
};
use std::io::{BufRead, IsTerminal, Write};

#[derive(clap::Args)]
pub struct Args {
    /// The bot to play against: a spec such as `greedy` or `greedy:epsilon=0.1`
    /// (default greedy). Bots: random, greedy, heuristic, mcts, cheat-mcts,
    /// net:NAME|FILE, engine:cmd=PROGRAM. With --siguo, the four-player bots
    /// of the three other seats (default heuristic): one spec for all three,
    /// or three separated by commas, those seats in seat order (random,
    /// greedy, heuristic, mcts:N).
    #[arg(long, value_name = "SPEC")]
    bot: Option<String>,
    /// Your seat: 1 (moves first) or 2 (default 1); with --siguo 0 to 3
    /// (default 0: army s, which moves first; your ally sits at seat + 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=3))]
    seat: Option<u8>,
    /// Seed for the deal or deployments and the bot's choices (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Start from this position (JFEN; with --siguo the four-player notation
    /// of docs/rules.md §10.4) instead of a new deal or deployment.
    #[arg(long, value_name = "JFEN")]
    position: Option<String>,
    /// Colour the pieces: auto (when stdout is a terminal), always or never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// The four-player game (四国军棋): you on one seat, bots on the other
    /// three (your ally's included); --rules names its mode (anqi, shuangming,
    /// quanming; default anqi) or a four-player rules file, --set its options.
    #[arg(long)]
    siguo: bool,
    /// A clock for the built-in search bots: BASE seconds for the game plus
    /// INC a move (`60+0.5`), as their spec key `tc` (each move spends 1/30
    /// of what is left plus ¾ of the increment). A spec that sets its own
    /// `movetime` or `tc` keeps it; bots without a time notion (random,
    /// greedy, heuristic, net, engine) are unaffected. With --siguo, the
    /// four-player `mcts` bots play each move by this clock's budget.
    #[arg(long, value_name = "BASE+INC")]
    tc: Option<String>,
    #[command(flatten)]
    rules: RulesArgs,
}

/// The prompt before each of the person's turns (tests wait for it).
pub const PROMPT: &str = "your move> ";

const HELP: &str = "\
type a move as <from><to> (a6a7) or two squares (a6 a7); a flip is written c6c6 (or just c6 in 翻棋)
commands: moves (your legal moves), board (draw the board again), undo (take back your last move and the bot's reply; what they revealed stays in your memory, so undo is for slips, not for peeking), resign, quit, help";

/// A game between the person and a bot.
pub struct Session {
    pub game: Game,
    /// The person's seat.
    pub human: Seat,
    pub bot: Player,
    pub rng: GameRng,
    /// Colour the board with ANSI codes.
    pub color: bool,
    /// Write each input line after the prompt (when stdin is not a
    /// terminal, so a scripted game reads as a transcript).
    pub echo: bool,
    /// Print how long each bot move took (`--tc`).
    pub timed: bool,
}

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The rules ended the game.
    Over(Outcome),
    /// The person resigned.
    Resigned,
    /// The person typed `quit`.
    Quit,
    /// The input ended.
    Eof,
}

/// Refuse a bot that declared it cannot play `rules` (an external engine's
/// `plays` lines) before the game starts.
fn plays(bot: &Player, rules: &Rules) -> Result<()> {
    bot.can_play(rules).map_err(|why| anyhow::anyhow!("--bot {}: cannot play these rules: {why}", bot.name()))
}

pub fn run(args: Args) -> Result<()> {
    if args.siguo {
        return super::siguo_play::run(super::siguo_play::Options {
            bot: args.bot.as_deref(),
            seat: args.seat,
            seed: args.seed,
            position: args.position.as_deref(),
            color: use_color(&args.color),
            rules: &args.rules,
            tc: args.tc.as_deref(),
        });
    }
    let mut spec: junqi_bots::BotSpec =
        args.bot.as_deref().unwrap_or("greedy").parse().map_err(|e| anyhow::anyhow!("--bot: {e}"))?;
    if let Some(tc) = &args.tc {
        spec = junqi_bots::mcts::clock::with_clock(&spec, tc).map_err(anyhow::Error::msg)?;
    }
    let mut bot = junqi_bots::build(&spec).context("--bot")?;
    let human = match args.seat.unwrap_or(1) {
        1 => Seat::First,
        2 => Seat::Second,
        n => bail!("--seat {n}: the two-player seats are 1 (moves first) and 2 (0 to 3 are for --siguo)"),
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut rng = rng_from_seed(seed);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let start = match &args.position {
        Some(text) => {
            let start = args.rules.position(text)?;
            plays(&bot, start.rules())?;
            start
        }
        None => {
            // The mode of --rules, else 翻棋.
            let mode = if args.rules.rules.is_some() { None } else { Some(Mode::Fanqi) };
            let rules = args.rules.resolve(mode)?;
            plays(&bot, &rules)?;
            new_start(&rules, human, &mut bot, &mut rng)?
        }
    };
    let mode = start.mode();
    writeln!(out, "junqi play: {} ({}) against bot `{}`, seed {seed}", mode, mode_chinese(mode), bot.name())?;
    if bot.cheats() {
        writeln!(out, "note: bot `{}` is a cheating reference bot: it reads the hidden pieces", bot.name())?;
    }
    let first = if start.turn() == human { "you move first" } else { "the bot moves first" };
    writeln!(out, "you are {human}; {first}")?;
    if args.position.is_none() && mode != Mode::Fanqi {
        writeln!(
            out,
            "your deployment is a random legal one (there is no deployment editor); the bot deployed its own"
        )?;
    }
    writeln!(out, "type `help` for the commands")?;
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let timed = args.tc.is_some();
    let mut session = Session { game: Game::new(start), human, bot, rng, color: use_color(&args.color), echo, timed };
    if let End::Over(outcome) = play_loop(&mut session, &mut stdin.lock(), &mut out)? {
        session.bot.game_over(human.other(), &outcome);
    }
    Ok(())
}

/// A seed from the clock, for a game nobody asked to reproduce.
pub(crate) fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    now.as_nanos() as u64 % 1_000_000_000
}

/// What the person typed at the prompt.
pub(crate) enum Typed<'a> {
    /// The input ended (a newline has been written after the prompt).
    Eof,
    /// A line that is not UTF-8 (the error has been written).
    NotUtf8,
    /// A line, trimmed (echoed when `echo`).
    Line(&'a str),
}

/// Write the prompt and read one line of `input` into `bytes`: the
/// two-player and the four-player play loops share it.
pub(crate) fn read_typed<'a>(
    input: &mut impl BufRead,
    out: &mut impl Write,
    bytes: &'a mut Vec<u8>,
    echo: bool,
) -> std::io::Result<Typed<'a>> {
    write!(out, "{PROMPT}")?;
    out.flush()?;
    bytes.clear();
    if input.read_until(b'\n', bytes)? == 0 {
        writeln!(out)?;
        return Ok(Typed::Eof);
    }
    let Ok(line) = std::str::from_utf8(bytes) else {
        if echo {
            writeln!(out)?;
        }
        writeln!(out, "error: the input line is not valid UTF-8")?;
        return Ok(Typed::NotUtf8);
    };
    let line = line.trim();
    if echo {
        writeln!(out, "{line}")?;
    }
    Ok(Typed::Line(line))
}

/// A new game: a 翻棋 deal, or the person's random legal deployment and the bot's own.
fn new_start(rules: &Rules, human: Seat, bot: &mut Player, rng: &mut GameRng) -> Result<Position> {
    if rules.mode == Mode::Fanqi {
        return Ok(Position::deal_fanqi(*rules, rng));
    }
    let seat1 = rules.fixed_colour(Seat::First).expect("anqi/mingqi colours are fixed");
    let mut red = None;
    let mut black = None;
    for seat in Seat::BOTH {
        let colour = if seat == Seat::First { seat1 } else { seat1.other() };
        let d = if seat == human {
            Deployment::random(colour, rng)
        } else {
            bot.deploy_checked(colour, rules, rng).map_err(|why| anyhow::anyhow!("bot `{}` {why}", bot.name()))?
        };
        match colour {
            Colour::Red => red = Some(d),
            Colour::Black => black = Some(d),
        }
    }
    let (red, black) = (red.expect("one seat is red"), black.expect("one seat is black"));
    Ok(Position::from_deployments(*rules, &red, &black)?)
}

fn mode_chinese(mode: Mode) -> &'static str {
    match mode {
        Mode::Anqi => "暗棋",
        Mode::Mingqi => "明棋",
        Mode::Fanqi => "翻棋",
    }
}

/// Play until the game ends, the person resigns or quits, or `input` ends;
/// then print the result and the moves.
pub fn play_loop(s: &mut Session, input: &mut impl BufRead, out: &mut impl Write) -> Result<End> {
    let mut list = MoveList::new();
    let mut show_board = true;
    let mut bytes = Vec::new();
    let end = loop {
        s.game.truth().legal_moves(&mut list);
        if let Some(o) = s.game.truth().outcome_given(list.len()) {
            break End::Over(o);
        }
        if s.game.truth().turn() != s.human {
            let started = std::time::Instant::now();
            let mv = s.bot.act(&s.game, &mut s.rng).action;
            let took = started.elapsed();
            if let Some(reason) = s.bot.take_forfeit() {
                writeln!(out, "the bot forfeits: {reason}")?;
                break End::Over(Outcome::forfeit(s.game.truth().turn()));
            }
            if !list.contains(mv) {
                bail!("bot `{}` chose the illegal action {mv} at ply {}", s.bot.name(), s.game.truth().ply());
            }
            let colour_before = s.game.infoset(s.human).colour();
            let (_, obs) = s.game.play_unchecked(mv);
            writeln!(out, "bot plays {mv}: {}", describe(s, &obs[s.human.index()], colour_before))?;
            if s.timed {
                writeln!(out, "bot's time: {} ms", took.as_millis())?;
            }
            show_board = true;
            continue;
        }
        if show_board {
            write!(out, "{}", render_board(s.game.infoset(s.human).view(), s.color))?;
            writeln!(out, "{}", status_line(s))?;
            show_board = false;
        }
        let line = match read_typed(input, out, &mut bytes, s.echo)? {
            Typed::Eof => break End::Eof,
            Typed::NotUtf8 => continue,
            Typed::Line(line) => line,
        };
        match line.to_ascii_lowercase().as_str() {
            "" => writeln!(out, "error: empty line: type a move such as a6a7, or `help`")?,
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
            text => match parse_action(text, s.game.infoset(s.human).view(), &list) {
                Ok(mv) => {
                    let colour_before = s.game.infoset(s.human).colour();
                    let (_, obs) = s.game.play_unchecked(mv);
                    writeln!(out, "you play {mv}: {}", describe(s, &obs[s.human.index()], colour_before))?;
                    show_board = true;
                }
                Err(why) => writeln!(out, "error: {}", crate::one_line(&why))?,
            },
        }
    };
    report_end(s, end, out)?;
    Ok(end)
}

/// The line under the board: mode, counters, whose turn, who is who.
fn status_line(s: &Session) -> String {
    let view = s.game.infoset(s.human).view();
    let colour = |seat: Seat| match view.colour_of(seat) {
        Some(c) => c.chinese(),
        None => "colour not yet assigned",
    };
    format!(
        "{}, ply {}, quiet {}/{}: you are {} ({}), bot `{}` is {} ({})",
        view.mode(),
        view.ply(),
        view.quiet(),
        view.rules().no_progress_plies,
        s.human,
        colour(s.human),
        s.bot.name(),
        s.human.other(),
        colour(s.human.other())
    )
}

/// Take back the person's last move and everything after it (the bot's
/// reply) by replaying the game from its start. Returns how many moves went,
/// or `None` when the person has not moved yet.
fn undo(s: &mut Session) -> Result<Option<usize>> {
    let start = s.game.start().clone();
    // Every action passes the turn, so the mover of move i is known.
    let moves = s.game.moves().to_vec();
    let movers: Vec<Seat> =
        std::iter::successors(Some(start.turn()), |seat| Some(seat.other())).take(moves.len()).collect();
    let Some(last) = movers.iter().rposition(|&seat| seat == s.human) else {
        return Ok(None);
    };
    let mut game = Game::new(start);
    for &mv in &moves[..last] {
        game.play(mv).with_context(|| format!("replaying {mv} after undo"))?;
    }
    s.game = game;
    Ok(Some(moves.len() - last))
}

/// The person's input as one of `legal`, or a one-line reason why not.
/// `view` is the person's view of the board.
fn parse_action(text: &str, view: &Position, legal: &MoveList) -> Result<Move, String> {
    let mv = if let Ok(sq) = text.parse::<Square>() {
        // One square: a flip.
        if view.mode() != Mode::Fanqi {
            return Err(format!(
                "`{text}` is one square, which would be a flip, and only 翻棋 has flips: type from and to, like c6c7"
            ));
        }
        if !view.is_face_down(sq) {
            return Err(format!("there is no face-down piece on {sq} to flip; to move, type from and to, like c6c7"));
        }
        Move::flip(sq)
    } else {
        text.parse::<Move>().map_err(|e| format!("{e} (or type `help`)"))?
    };
    if legal.contains(mv) {
        return Ok(mv);
    }
    Err(format!("illegal move {mv}: {}", why_illegal(mv, view, legal)))
}

/// Why `mv` is not among the person's legal actions.
fn why_illegal(mv: Move, view: &Position, legal: &MoveList) -> String {
    let (from, to) = (mv.from, mv.to);
    if mv.is_flip() {
        return if view.mode() != Mode::Fanqi {
            "a move with from = to is a flip, and only 翻棋 has flips".to_string()
        } else if view.is_face_down(from) {
            format!("{from} cannot be flipped now")
        } else {
            format!("there is no face-down piece on {from} to flip")
        };
    }
    let own = view.colour_of(view.turn());
    if view.mode() == Mode::Fanqi && own.is_none() {
        return "colours are not assigned yet: flip a piece (e.g. c6c6) first".to_string();
    }
    if !view.is_occupied(from) {
        return format!("there is no piece on {from}");
    }
    if view.is_face_down(from) {
        return format!("the piece on {from} is face-down: flip it with {from}{from} first");
    }
    let piece = match view.piece_at(from) {
        Some(p) if Some(p.colour) == own => p,
        _ => return format!("the piece on {from} is not yours"),
    };
    let name = piece_name(piece);
    if !piece.kind.is_movable() {
        return format!("your {name} on {from} never moves");
    }
    let targets: Vec<String> = legal.iter().filter(|m| m.from == from).map(|m| m.to.to_string()).collect();
    if targets.is_empty() {
        return format!("your {name} on {from} has no legal move now");
    }
    let onto = match view.piece_at(to) {
        Some(p) if Some(p.colour) == own => format!(" ({to} holds your own {})", piece_name(p)),
        _ => String::new(),
    };
    format!("your {name} on {from} cannot reach {to}{onto}; it can go to {}", targets.join(" "))
}

fn piece_name(p: Piece) -> String {
    format!("{}{}", p.colour.chinese(), p.kind.chinese())
}

/// What the person saw of an action, in words. `colour_before` is the
/// person's colour before it (to announce a 翻棋 colour assignment).
fn describe(s: &Session, obs: &Observation, colour_before: Option<Colour>) -> String {
    let info = s.game.infoset(s.human);
    let mover_colour = info.view().colour_of(obs.mover);
    let who = |p: Option<Piece>, colour: Option<Colour>| match (p, colour) {
        (Some(p), _) => piece_name(p),
        (None, Some(c)) => format!("an unknown {} piece", c.chinese()),
        (None, None) => "an unknown piece".to_string(),
    };
    let (from, to) = (obs.mv.from, obs.mv.to);
    let mut text = match obs.event {
        ObservedEvent::Flip { piece } => format!("flip on {from} turns up {}", piece_name(piece)),
        ObservedEvent::Move { piece } => format!("{} moves {from} to {to}", who(piece, mover_colour)),
        ObservedEvent::Attack { attacker, defender, outcome } => {
            let defender_colour = mover_colour.map(Colour::other);
            let result = match outcome {
                CombatOutcome::AttackerWon => "the attacker wins and moves in",
                CombatOutcome::DefenderWon => "the defender wins; the attacker is removed",
                CombatOutcome::BothRemoved => "both are removed",
                CombatOutcome::FlagCaptured => "the flag is captured",
                CombatOutcome::Scouted => "scouted: the engineer is removed and the defender shown",
                CombatOutcome::Bounced => "the face-down piece is turned up and stays; so does the attacker",
            };
            format!(
                "{} on {from} attacks {} on {to}: {result}",
                who(attacker, mover_colour),
                who(defender, defender_colour)
            )
        }
    };
    for (sq, piece) in obs.revealed.iter().flatten() {
        text.push_str(&format!("; now public: {} on {sq}", piece_name(*piece)));
    }
    if colour_before.is_none() {
        if let Some(c) = info.colour() {
            text.push_str(&format!("; colours are set: you play {}", c.chinese()));
        }
    }
    text
}

/// The final board, the result and the moves.
fn report_end(s: &Session, end: End, out: &mut impl Write) -> Result<()> {
    match end {
        End::Over(o) => {
            write!(out, "{}", render_board(s.game.infoset(s.human).view(), s.color))?;
            let verdict = match o.winner {
                Some(w) if w == s.human => "you win",
                Some(_) => "the bot wins",
                None => "a draw",
            };
            writeln!(out, "game over: {verdict}")?;
            writeln!(out, "result: {} ({})", o.result_str(), o.termination.name())?;
        }
        End::Resigned => {
            let result = if s.human == Seat::First { "0-1" } else { "1-0" };
            writeln!(out, "you resign: the bot wins")?;
            writeln!(out, "result: {result} (resignation)")?;
        }
        End::Quit => writeln!(out, "you quit: the game is left unfinished, no result")?,
        End::Eof => writeln!(out, "end of input: the game is left unfinished, no result")?,
    }
    let moves: Vec<String> = s.game.moves().iter().map(|m| m.to_string()).collect();
    writeln!(out, "moves: {}", moves.join(" "))?;
    writeln!(out, "plies: {}", moves.len())?;
    out.flush()?;
    Ok(())
}
