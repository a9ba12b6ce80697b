//! `junqi engine --bot SPEC`: one of our bots behind the text protocol.
//!
//! Commands are read one line at a time, by the host's own grammar
//! ([`crate::grammar`], the documented word order only), and answered in
//! order; a `go` is answered (with `bestmove`) before the next line is
//! read, so `stop` has nothing to interrupt and is accepted silently. Every
//! malformed or out-of-place command gets one `error …` line and changes
//! nothing.

use crate::grammar::{Command, Limits};
use crate::knowledge::{decode_position, encode_deployment};
use crate::PROTOCOL_VERSION;
use junqi_bots::mcts::TimeControl;
use junqi_bots::{BotSpec, Player};
use junqi_core::{rng_from_seed, GameRng, InfoSet, MoveList, Rules, Seat};
use std::io::{BufRead, Read, Write};
use std::time::Duration;

/// The engine's state between commands.
struct Engine {
    /// The bot spec, with `setoption` and `go sims` applied.
    spec: BotSpec,
    /// The player built from `spec` (rebuilt when the spec changes).
    player: Option<Player>,
    game: Option<GameState>,
}

struct GameState {
    rules: Rules,
    seat: Seat,
    rng: GameRng,
    info: Option<InfoSet>,
}

/// Build the player for `spec`, refusing bots that read hidden information.
/// The built player is asked (a registered bot may cheat too; the spec
/// alone knows only the built-in ones).
fn build(spec: &BotSpec) -> Result<Player, String> {
    let player = junqi_bots::build(spec).map_err(|e| e.to_string())?;
    if player.cheats() {
        return Err(format!("bot `{spec}` reads hidden information, which an engine is never told; choose a fair bot"));
    }
    Ok(player)
}

impl Engine {
    fn player(&mut self) -> Result<&mut Player, String> {
        if self.player.is_none() {
            self.player = Some(build(&self.spec)?);
        }
        Ok(self.player.as_mut().expect("built above"))
    }

    /// Set one parameter of the bot spec, keeping the old spec if the bot
    /// rejects the new one.
    fn set_param(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut spec = self.spec.clone();
        match spec.params.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.to_string(),
            None => spec.params.push((key.to_string(), value.to_string())),
        }
        if spec != self.spec {
            let player = build(&spec)?;
            self.spec = spec;
            self.player = Some(player);
        }
        Ok(())
    }

    /// Answer one command line; `Ok(false)` after `quit`.
    fn handle(&mut self, line: &str, out: &mut impl Write) -> std::io::Result<bool> {
        let answer = match Command::parse(line) {
            Ok(None) => return Ok(true),
            Ok(Some(Command::Quit)) => return Ok(false),
            Ok(Some(command)) => self.answer(command),
            Err(message) => Err(message),
        };
        write_answer(out, answer)?;
        Ok(true)
    }

    fn answer(&mut self, command: Command) -> Result<Vec<String>, String> {
        let none = |r: Result<(), String>| r.map(|()| Vec::new());
        match command {
            Command::Junqi => Ok(self.handshake()),
            Command::IsReady => Ok(vec!["readyok".to_string()]),
            Command::SetOption { name, value } => none(self.setoption(&name, &value)),
            Command::NewGame { rules, seat, seed } => none(self.newgame(rules, seat, seed.unwrap_or(0))),
            Command::Position(text) => none(self.position(&text)),
            Command::Go(limits) => self.go(limits),
            Command::Deploy { .. } => self.deploy(),
            // The host may list the legal moves for engines without a move
            // generator; ours has one, so the list is only read for form;
            // the host's timeout is far above what a bot of a fixed budget takes,
            // and a result changes nothing (the next game starts afresh).
            Command::Legal(_) | Command::Result { .. } | Command::Stop | Command::Quit => Ok(Vec::new()),
        }
    }

    fn handshake(&mut self) -> Vec<String> {
        let mut lines = vec![
            // Every parameter by its key, as this line has always said (`mcts:800` → `mcts:sims=800`).
            format!(
                "id name junqi {}",
                self.spec.params.iter().fold(BotSpec::new(&self.spec.name), |s, (k, v)| s.with(k, v))
            ),
            "id author the junqi project".to_string(),
            format!("id protocol {PROTOCOL_VERSION}"),
            "option name spec type string".to_string(),
        ];
        for (k, v) in &self.spec.params {
            lines.push(format!("option name {k} type string default {v}"));
        }
        lines.push("junqiok".to_string());
        lines
    }

    /// `setoption name <key> value <value>`: `spec` replaces the whole bot
    /// spec, any other key sets that parameter of the bot.
    fn setoption(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key == "spec" {
            let spec = BotSpec::parse(value).map_err(|e| e.to_string())?;
            let player = build(&spec)?;
            self.spec = spec;
            self.player = Some(player);
            return Ok(());
        }
        self.set_param(key, value)
    }

    /// `newgame`: the rules, the seat and the seed of a new game.
    fn newgame(&mut self, rules: Rules, seat: Seat, seed: u64) -> Result<(), String> {
        // A fresh bot per game: nothing of the last game carries over.
        self.player = Some(build(&self.spec)?);
        self.game = Some(GameState { rules, seat, rng: rng_from_seed(seed), info: None });
        Ok(())
    }

    fn position(&mut self, args: &str) -> Result<(), String> {
        let game = self.game.as_mut().ok_or("position before newgame")?;
        // A rejected position leaves none: a `go` must not answer for the last one.
        game.info = None;
        game.info = Some(decode_position(args, game.rules, game.seat).map_err(|e| e.to_string())?);
        Ok(())
    }

    /// `go`: a move within the budget: `sims`/`nodes` set a search bot's
    /// simulation count; `movetime` or `time`/`inc` give a search bot this
    /// move's time ([`move_time`]; other bots note them and ignore them).
    fn go(&mut self, limits: Limits) -> Result<Vec<String>, String> {
        let mut notes = Vec::new();
        let mut sims = None;
        for (key, n) in [("sims", limits.sims), ("nodes", limits.nodes)] {
            let Some(n) = n else { continue };
            if self.spec.name != "mcts" {
                notes.push(format!("info string {key} ignored: bot `{}` has no simulation budget", self.spec.name));
            } else {
                sims = Some(n);
            }
        }
        let time = move_time(&limits);
        let game = self.game.as_ref().ok_or("go before newgame")?;
        let info = game.info.as_ref().ok_or("go before position")?;
        let mut legal = MoveList::new();
        info.legal_moves(&mut legal);
        if legal.is_empty() {
            return Err(format!("go: seat {} has no move in this position", game.seat));
        }
        if info.game_over() {
            return Err("go: the game is over in this position".into());
        }
        let info = info.clone();
        // Only a `go` that will be answered changes the budget.
        if let Some(n) = sims {
            self.set_param("sims", &n.to_string())?;
        }
        let mut rng = std::mem::replace(&mut self.game.as_mut().expect("checked").rng, rng_from_seed(0));
        let started = std::time::Instant::now();
        let name = self.spec.name.clone();
        let (decision, failed) = match self.player()? {
            Player::Fair(agent) => {
                // The host's time for this move replaces the bot's own budget (a
                // simulation count given with it still caps the search).
                if let Some(time) = time {
                    if !agent.time_next_move(time, sims.is_some()) {
                        notes.push(format!("info string time ignored: bot `{name}` has no time budget"));
                    }
                }
                (agent.act(&info, &mut rng), agent.take_forfeit())
            }
            Player::Cheating(_) => return Err("go: a cheating bot cannot play behind the protocol".into()),
        };
        self.game.as_mut().expect("checked").rng = rng;
        // A bot that could not choose (an `engine:` bot whose program failed)
        // says so: its stand-in move is nobody's choice.
        if let Some(reason) = failed {
            return Err(format!("go: the bot failed: {reason}"));
        }
        let mut line = format!("info time {}", started.elapsed().as_millis());
        if let Some(v) = decision.value {
            line.push_str(&format!(" value {v:.4}"));
        }
        line.push_str(&format!(" pv {}", decision.action));
        notes.push(line);
        notes.push(format!("bestmove {}", decision.action));
        Ok(notes)
    }

    /// `deploy`: the seat's 暗棋/明棋 deployment.
    fn deploy(&mut self) -> Result<Vec<String>, String> {
        let game = self.game.as_ref().ok_or("deploy before newgame")?;
        if game.rules.mode == junqi_core::Mode::Fanqi {
            return Err("deploy: fanqi positions are dealt, not deployed".into());
        }
        let colour = game.rules.fixed_colour(game.seat).expect("checked: not fanqi");
        let rules = game.rules;
        let mut rng = std::mem::replace(&mut self.game.as_mut().expect("checked").rng, rng_from_seed(0));
        let player = self.player()?;
        let d = player.deploy(colour, &rules, &mut rng);
        let failed = player.take_forfeit();
        self.game.as_mut().expect("checked").rng = rng;
        if let Some(reason) = failed {
            return Err(format!("deploy: the bot failed: {reason}"));
        }
        d.validate().map_err(|e| format!("deploy: the bot's deployment is illegal: {e}"))?;
        Ok(vec![format!("deployment {}", encode_deployment(&d))])
    }
}

/// The share of the host's `timeout` a move may spend: the rest is for the
/// pipes and the scheduler.
const TIMEOUT_SHARE: f64 = 0.9;

/// The time the move of a `go` may take: `movetime`, or from the clock
/// (`time`/`inc`) what a `tc` search bot spends ([`TimeControl::budget`]:
/// 1/30 of what is left plus ¾ of the increment, at most half of what is
/// left), the smaller when both come; at most 90 % of `timeout`. `None`
/// when the `go` gives no time (the bot's own budget).
pub fn move_time(limits: &Limits) -> Option<Duration> {
    let from_clock = limits.clock.map(|(time, inc)| {
        let control = TimeControl::Clock { base: Duration::from_millis(time), inc: Duration::from_millis(inc) };
        control.budget(Duration::from_millis(time))
    });
    let time = match (limits.movetime.map(Duration::from_millis), from_clock) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    let cap = limits.timeout.map(|t| Duration::from_millis(t).mul_f64(TIMEOUT_SHARE));
    Some(cap.map_or(time, |cap| time.min(cap)))
}

/// Serve the protocol for bot `spec` on `input`/`output` until `quit` or the
/// end of the input. Bad commands are answered with `error` lines; only an
/// I/O error on the streams ends the loop early.
pub fn serve(spec: &BotSpec, input: impl BufRead, output: impl Write) -> Result<(), String> {
    let player = build(spec)?;
    let mut engine = Engine { spec: spec.clone(), player: Some(player), game: None };
    serve_lines(MAX_LINE, input, output, |line, out| engine.handle(line, out))
}

/// Write a command's answer: its lines, or one `error …` line (on one
/// line, whatever the message holds); then flush.
pub(crate) fn write_answer(out: &mut impl Write, answer: Result<Vec<String>, String>) -> std::io::Result<()> {
    match answer {
        Ok(lines) => {
            for l in lines {
                writeln!(out, "{l}")?;
            }
        }
        Err(message) => writeln!(out, "error {}", message.replace('\n', " "))?,
    }
    out.flush()
}

/// The command loop both protocols share: read `input` a line at a time (at
/// most `max_len` bytes of a line are kept; a longer one, or one that is not
/// UTF-8, is answered with an `error` line) and hand each line, without its
/// line ending, to `handler` with `output`, until the end of the input or the
/// handler answers `false`. Only an I/O error on the streams ends it early.
pub(crate) fn serve_lines<W: Write>(
    max_len: usize,
    input: impl BufRead,
    mut output: W,
    mut handler: impl FnMut(&str, &mut W) -> std::io::Result<bool>,
) -> Result<(), String> {
    let mut input = input;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        // At most max_len bytes of a line are kept; a longer one is an error.
        let read = (&mut input).take(max_len as u64 + 1).read_until(b'\n', &mut bytes);
        if read.map_err(|e| format!("reading commands: {e}"))? == 0 {
            break;
        }
        let complete = bytes.ends_with(b"\n");
        let reply = if !complete && bytes.len() > max_len {
            skip_line(&mut input).map_err(|e| format!("reading commands: {e}"))?;
            Some(format!("error command longer than {max_len} bytes"))
        } else {
            match std::str::from_utf8(&bytes) {
                Ok(line) => {
                    let keep = handler(line.trim_end_matches(['\n', '\r']), &mut output);
                    if !keep.map_err(|e| format!("writing answers: {e}"))? {
                        break;
                    }
                    None
                }
                Err(_) => Some("error command is not valid UTF-8".to_string()),
            }
        };
        if let Some(reply) = reply {
            writeln!(output, "{reply}").and_then(|()| output.flush()).map_err(|e| format!("writing answers: {e}"))?;
        }
    }
    Ok(())
}

/// Read past the next newline (or to the end) without keeping what is read:
/// an overlong line costs no memory, however long it is.
pub(crate) fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// The longest command line read (a `position` line is a few hundred bytes).
const MAX_LINE: usize = 64 * 1024;
