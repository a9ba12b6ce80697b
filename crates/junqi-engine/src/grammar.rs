//! The one grammar of the lines a host sends an engine (docs/protocol.md,
//! "Commands from the host"): written by the host ([`crate::client`],
//! `junqi engine-check`) through [`Command`]'s `Display`, and read back by
//! `junqi engine` ([`crate::server`]) through [`Command::parse`], which
//! accepts the documented word order only. A line the host sends that its
//! own engine refuses fails the tests, so the doc, the sender and the
//! parser cannot drift apart.

use crate::knowledge::{decode_rules, encode_rules};
use junqi_core::{Move, Rules, Seat};
use std::fmt;

/// The limits of a `go`, in the order they are written:
/// `go [sims <n>] [nodes <n>] [movetime <ms>] [time <ms> inc <ms>] [timeout <ms>]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub sims: Option<u64>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    /// The seat's clock and increment (`time` and `inc` come together).
    pub clock: Option<(u64, u64)>,
    /// Milliseconds after which the host forfeits the engine (protocol 3).
    pub timeout: Option<u64>,
}

/// A game's end as the engine's seat sees it (`result`, protocol 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Loss,
    Draw,
}

/// One line from the host.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Junqi,
    IsReady,
    SetOption {
        name: String,
        value: String,
    },
    /// `newgame <mode> [<option>=<value> …] seat <1|2> [seed <n>]` (the
    /// host sends every option of the mode, and always a seed).
    NewGame {
        rules: Rules,
        seat: Seat,
        seed: Option<u64>,
    },
    /// The text after `position` (read with [`crate::decode_position`],
    /// which needs the game's rules and seat).
    Position(String),
    Legal(Vec<Move>),
    Go(Limits),
    /// `deploy [timeout <ms>]`.
    Deploy {
        timeout: Option<u64>,
    },
    /// `result <win|loss|draw> <termination>`, after the game's last move.
    Result {
        result: GameResult,
        termination: String,
    },
    Stop,
    Quit,
}

/// The commands, as the errors list them.
pub const COMMANDS: &str = "junqi, isready, setoption, newgame, position, legal, go, deploy, result, stop, quit";

pub const NEWGAME_USAGE: &str = "usage: newgame <mode> [<option>=<value> ...] seat <1|2> [seed <n>]";
pub const GO_USAGE: &str =
    "usage: go [sims <n>] [nodes <n>] [movetime <ms>] [time <ms> inc <ms>] [timeout <ms>], in this order";

impl GameResult {
    fn word(self) -> &'static str {
        match self {
            GameResult::Win => "win",
            GameResult::Loss => "loss",
            GameResult::Draw => "draw",
        }
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs = [("sims", self.sims), ("nodes", self.nodes), ("movetime", self.movetime)];
        for (key, value) in pairs {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some((time, inc)) = self.clock {
            write!(f, " time {time} inc {inc}")?;
        }
        if let Some(t) = self.timeout {
            write!(f, " timeout {t}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Junqi => write!(f, "junqi"),
            Command::IsReady => write!(f, "isready"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::NewGame { rules, seat, seed } => {
                write!(f, "newgame {} seat {}", encode_rules(rules), seat.number())?;
                seed.map_or(Ok(()), |s| write!(f, " seed {s}"))
            }
            Command::Position(text) => write!(f, "position {text}"),
            Command::Legal(moves) => {
                write!(f, "legal")?;
                moves.iter().try_for_each(|m| write!(f, " {m}"))
            }
            Command::Go(limits) => write!(f, "go{limits}"),
            Command::Deploy { timeout } => {
                write!(f, "deploy")?;
                timeout.map_or(Ok(()), |t| write!(f, " timeout {t}"))
            }
            Command::Result { result, termination } => write!(f, "result {} {termination}", result.word()),
            Command::Stop => write!(f, "stop"),
            Command::Quit => write!(f, "quit"),
        }
    }
}

/// `n` as an unsigned 64-bit number (seeds use the whole range).
fn number(key: &str, text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("{key} `{text}` is not a number from 0 to {}", u64::MAX))
}

/// Read `go`'s limits: each at most once, in the documented order.
fn parse_limits(args: &[&str]) -> Result<Limits, String> {
    const ORDER: [&str; 6] = ["sims", "nodes", "movetime", "time", "inc", "timeout"];
    let mut limits = Limits::default();
    let mut next = 0;
    let (mut time, mut inc) = (None, None);
    for pair in args.chunks(2) {
        let [key, value] = pair else { return Err(format!("go: `{}` needs a value; {GO_USAGE}", pair[0])) };
        let Some(at) = ORDER.iter().position(|k| k == key) else {
            return Err(format!("go: unknown limit `{key}`; {GO_USAGE}"));
        };
        if at < next {
            return Err(format!("go: `{key}` out of order or repeated; {GO_USAGE}"));
        }
        next = at + 1;
        let n = Some(number(&format!("go: {key}"), value)?);
        match *key {
            "sims" => limits.sims = n,
            "nodes" => limits.nodes = n,
            "movetime" => limits.movetime = n,
            "time" => time = n,
            "inc" => inc = n,
            _ => limits.timeout = n,
        }
    }
    limits.clock = match (time, inc) {
        (Some(t), Some(i)) => Some((t, i)),
        (None, None) => None,
        _ => return Err(format!("go: `time` and `inc` come together; {GO_USAGE}")),
    };
    Ok(limits)
}

/// `newgame <mode> [<option>=<value> …] seat <1|2> [seed <n>]`, strictly.
fn parse_newgame(args: &[&str]) -> Result<Command, String> {
    let Some(at) = args.iter().position(|&w| w == "seat") else { return Err(NEWGAME_USAGE.into()) };
    let (rules_words, tail) = args.split_at(at);
    let seat = match tail.get(1) {
        Some(&"1") => Seat::First,
        Some(&"2") => Seat::Second,
        _ => return Err(format!("seat must be 1 or 2; {NEWGAME_USAGE}")),
    };
    let seed = match &tail[2..] {
        [] => None,
        ["seed", n] => Some(number("seed", n).map_err(|e| format!("{e}; {NEWGAME_USAGE}"))?),
        _ => return Err(format!("after the seat only `seed <n>` may come; {NEWGAME_USAGE}")),
    };
    let rules = decode_rules(rules_words).map_err(|e| format!("{e}; {NEWGAME_USAGE}"))?;
    Ok(Command::NewGame { rules, seat, seed })
}

fn parse_timeout(command: &str, args: &[&str]) -> Result<Option<u64>, String> {
    match args {
        [] => Ok(None),
        ["timeout", n] => number("timeout", n).map(Some),
        _ => Err(format!("usage: {command} [timeout <ms>]")),
    }
}

impl Command {
    /// Read one line from the host (without its newline); `Ok(None)` for an
    /// empty line. The error says what is wrong, for an `error` answer.
    pub fn parse(line: &str) -> Result<Option<Command>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else { return Ok(None) };
        let no_args = |c: Command| if args.is_empty() { Ok(c) } else { Err(format!("`{command}` takes no arguments")) };
        let parsed = match command {
            "junqi" => no_args(Command::Junqi),
            "isready" => no_args(Command::IsReady),
            "stop" => no_args(Command::Stop),
            "quit" => Ok(Command::Quit),
            "setoption" => match args {
                ["name", name, "value", value @ ..] if !value.is_empty() => {
                    Ok(Command::SetOption { name: name.to_string(), value: value.join(" ") })
                }
                _ => Err("usage: setoption name <key> value <value>".into()),
            },
            "newgame" => parse_newgame(args),
            "position" => Ok(Command::Position(line.trim_start()["position".len()..].trim().to_string())),
            "legal" => args
                .iter()
                .map(|m| m.parse::<Move>().map_err(|_| format!("legal: `{m}` is not a move")))
                .collect::<Result<_, _>>()
                .map(Command::Legal),
            "go" => parse_limits(args).map(Command::Go),
            "deploy" => parse_timeout("deploy", args).map(|timeout| Command::Deploy { timeout }),
            "result" => match args {
                [word, termination] => {
                    let result = match *word {
                        "win" => GameResult::Win,
                        "loss" => GameResult::Loss,
                        "draw" => GameResult::Draw,
                        _ => return Err(format!("result: `{word}` is not win, loss or draw")),
                    };
                    Ok(Command::Result { result, termination: termination.to_string() })
                }
                _ => Err("usage: result <win|loss|draw> <termination>".into()),
            },
            other => Err(format!("unknown command `{other}`; commands are {COMMANDS}")),
        };
        parsed.map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::Mode;

    /// Every command the host writes reads back as itself.
    #[test]
    fn what_the_host_writes_reads_back() {
        let rules = Rules::preset_with("anqi", ["bomb_flies=true"]).unwrap();
        let commands = [
            Command::Junqi,
            Command::NewGame { rules, seat: Seat::Second, seed: Some(u64::MAX) },
            Command::NewGame { rules: Rules::preset(Mode::Fanqi), seat: Seat::First, seed: None },
            Command::Legal(vec!["a1a1".parse().unwrap(), "a6a7".parse().unwrap()]),
            Command::Go(Limits::default()),
            Command::Go(Limits {
                sims: Some(5),
                nodes: None,
                movetime: Some(100),
                clock: Some((60_000, 500)),
                timeout: Some(1_100),
            }),
            Command::Deploy { timeout: Some(30_000) },
            Command::Result { result: GameResult::Draw, termination: "quiet_moves".into() },
            Command::SetOption { name: "sims".into(), value: "a b".into() },
        ];
        for c in commands {
            let line = c.to_string();
            assert_eq!(Command::parse(&line).unwrap(), Some(c), "{line}");
        }
    }

    /// The old doc's word order, signed seeds and out-of-order limits are refused.
    #[test]
    fn only_the_documented_order_is_read() {
        for bad in [
            "newgame fanqi seat 1 seed 17 rail_turns=engineer",
            "newgame fanqi seat 1 seed -1",
            "newgame fanqi seat 1 seed 18446744073709551616",
            "newgame seat 1 fanqi",
            "go movetime 5 sims 3",
            "go time 5",
            "go sims 3 sims 3",
            "deploy now",
            "result won flag_captured",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad}");
        }
        assert!(Command::parse("newgame fanqi rail_turns=all seat 2 seed 18446744073709551615").is_ok());
        assert_eq!(Command::parse("  ").unwrap(), None);
    }
}
