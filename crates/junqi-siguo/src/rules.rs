//! The modes and variant options of docs/rules.md §10.10–§10.11, with
//! `option=value` overrides and rules files (`configs/rules/siguo/*.toml`:
//! `game = "siguo"`, a `mode`, and any options that differ from its preset).

use junqi_core::rules::MineRule;
use std::fmt;
use std::str::FromStr;

/// What each seat sees (§10.10). The rules of play are the same in all three.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// 四国暗棋: each seat knows only its own pieces; a referee settles attacks.
    Anqi,
    /// 双明: allies see each other's pieces.
    Shuangming,
    /// 全明: everything is open.
    Quanming,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Anqi, Mode::Shuangming, Mode::Quanming];
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Anqi => "anqi",
            Mode::Shuangming => "shuangming",
            Mode::Quanming => "quanming",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Mode, RulesError> {
        Mode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| RulesError::UnknownMode(s.to_string()))
    }
}

/// The order of turns (`turn_order`, §10.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TurnOrder {
    /// 逆时针: 0 → 1 → 2 → 3 (default).
    Counterclockwise,
    /// 顺时针: 0 → 3 → 2 → 1.
    Clockwise,
}

/// Who may change lines on the railway (`rail_turns`, §10.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RailTurns {
    /// Only engineers (and bombs under `bomb_flies`) turn; the rest run straight.
    Engineer,
    /// 任何子可以拐一个直角弯: every movable piece may make one right-angle turn.
    OneTurn,
}

/// A complete four-player rule set: the mode and every option of §10.11.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub mode: Mode,
    pub turn_order: TurnOrder,
    pub rail_turns: RailTurns,
    pub palace_arcs: bool,
    pub bomb_flies: bool,
    pub bomb_front_rank: bool,
    pub mine_rule: MineRule,
    pub commander_hits_mine: bool,
    pub hq_locked: bool,
    pub no_progress_plies: u32,
    pub max_plies: u32,
}

/// Every option name of §10.11, in table order.
pub const OPTION_NAMES: [&str; 10] = [
    "turn_order",
    "rail_turns",
    "palace_arcs",
    "bomb_flies",
    "bomb_front_rank",
    "mine_rule",
    "commander_hits_mine",
    "hq_locked",
    "no_progress_plies",
    "max_plies",
];

/// Errors in modes and overrides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown four-player mode `{0}`: expected anqi, shuangming or quanming")]
    UnknownMode(String),
    #[error("unknown four-player rule option `{name}`; options are: {}", OPTION_NAMES.join(", "))]
    UnknownOption { name: String },
    #[error("bad value `{value}` for rule option `{name}`: expected {expected}")]
    BadValue { name: String, value: String, expected: &'static str },
    #[error("override `{0}` is not of the form option=value")]
    BadOverride(String),
    #[error("rules file {path}: {message}")]
    File { path: String, message: String },
    #[error("invalid TOML: {0}")]
    Toml(String),
    #[error("not a four-player rules file: it needs `game = \"siguo\"` (two-player rules files are for commands without --siguo)")]
    NotFourPlayer,
    #[error("rules file has no `mode` (anqi, shuangming or quanming)")]
    MissingMode,
    #[error("rule option `{name}` needs a {expected} in a rules file, found {found}")]
    BadType { name: String, expected: &'static str, found: String },
}

impl Rules {
    /// The defaults of §10.11 for a mode.
    pub const fn preset(mode: Mode) -> Rules {
        Rules {
            mode,
            turn_order: TurnOrder::Counterclockwise,
            rail_turns: RailTurns::Engineer,
            palace_arcs: false,
            bomb_flies: false,
            bomb_front_rank: false,
            mine_rule: MineRule::Spring,
            commander_hits_mine: true,
            hq_locked: true,
            no_progress_plies: 70,
            max_plies: 4000,
        }
    }

    /// A mode's preset (`anqi`, `shuangming`, `quanming`), or the rules file
    /// at that path (a name ending in `.toml` or an existing file), with
    /// `option=value` overrides applied in order.
    pub fn preset_with<S: AsRef<str>>(mode: &str, overrides: impl IntoIterator<Item = S>) -> Result<Rules, RulesError> {
        let name = mode.trim();
        let mut rules = match name.parse::<Mode>() {
            Ok(mode) => Rules::preset(mode),
            Err(_) if name.ends_with(".toml") || std::path::Path::new(name).is_file() => Rules::load(name)?,
            Err(e) => return Err(e),
        };
        for o in overrides {
            rules.apply_override(o.as_ref())?;
        }
        Ok(rules)
    }

    /// Read a rules file (see [`Rules::from_toml_str`]).
    pub fn load(path: &str) -> Result<Rules, RulesError> {
        let text = junqi_core::read_text(path)
            .map_err(|e| RulesError::File { path: path.to_string(), message: e.to_string() })?;
        Rules::from_toml_str(&text).map_err(|e| RulesError::File { path: path.to_string(), message: e.to_string() })
    }

    /// Parse a four-player rules document: `game = "siguo"` and a `mode` are
    /// required; every other key is an option of §10.11 with a value of its
    /// type (`true`/`false`, an integer, or a string) and defaults to the
    /// mode's preset.
    pub fn from_toml_str(text: &str) -> Result<Rules, RulesError> {
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| RulesError::Toml(e.message().trim().to_string()))?;
        match table.get("game") {
            Some(toml::Value::String(s)) if s == "siguo" => {}
            _ => return Err(RulesError::NotFourPlayer),
        }
        let mut rules = match table.get("mode") {
            Some(toml::Value::String(s)) => Rules::preset(s.parse()?),
            Some(other) => return Err(RulesError::UnknownMode(other.to_string())),
            None => return Err(RulesError::MissingMode),
        };
        for (name, value) in &table {
            if name == "game" || name == "mode" {
                continue;
            }
            let current = rules.value(name).ok_or_else(|| RulesError::UnknownOption { name: name.clone() })?;
            let (expected, text) = match (value, current.as_str()) {
                (toml::Value::Boolean(b), "true" | "false") => ("boolean", b.to_string()),
                (_, "true" | "false") => ("boolean", String::new()),
                (toml::Value::Integer(n), c) if c.parse::<u32>().is_ok() => ("integer", n.to_string()),
                (_, c) if c.parse::<u32>().is_ok() => ("integer", String::new()),
                (toml::Value::String(s), _) => ("string", s.clone()),
                _ => ("string", String::new()),
            };
            if text.is_empty() {
                return Err(RulesError::BadType { name: name.clone(), expected, found: value.to_string() });
            }
            rules.set(name, &text)?;
        }
        Ok(rules)
    }

    /// The rules as a rules file that [`Rules::from_toml_str`] reads back:
    /// `game`, `mode` and every option.
    pub fn to_toml_string(&self) -> String {
        let mut out = format!("game = \"siguo\"\nmode = \"{}\"\n", self.mode);
        for name in OPTION_NAMES {
            let v = self.value(name).expect("a known option");
            let quoted = v != "true" && v != "false" && v.parse::<u32>().is_err();
            if quoted {
                out.push_str(&format!("{name} = \"{v}\"\n"));
            } else {
                out.push_str(&format!("{name} = {v}\n"));
            }
        }
        out
    }

    /// Apply one `option=value`, e.g. `turn_order=clockwise`.
    pub fn apply_override(&mut self, assignment: &str) -> Result<(), RulesError> {
        let (name, value) =
            assignment.split_once('=').ok_or_else(|| RulesError::BadOverride(assignment.to_string()))?;
        self.set(name.trim(), value.trim())
    }

    /// Set one option from its text value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), RulesError> {
        let bad = |expected| RulesError::BadValue { name: name.to_string(), value: value.to_string(), expected };
        let boolean = || match value {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad("true or false")),
        };
        let number = |min: u32, max: u32| match value.parse::<u32>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(bad(if min == 1 && max == 1_000_000 { "an integer from 1 to 1000000" } else { "an integer" })),
        };
        match name {
            "turn_order" => {
                self.turn_order = match value {
                    "counterclockwise" => TurnOrder::Counterclockwise,
                    "clockwise" => TurnOrder::Clockwise,
                    _ => return Err(bad("counterclockwise or clockwise")),
                }
            }
            "rail_turns" => {
                self.rail_turns = match value {
                    "engineer" => RailTurns::Engineer,
                    "one_turn" => RailTurns::OneTurn,
                    _ => return Err(bad("engineer or one_turn")),
                }
            }
            "palace_arcs" => self.palace_arcs = boolean()?,
            "bomb_flies" => self.bomb_flies = boolean()?,
            "bomb_front_rank" => self.bomb_front_rank = boolean()?,
            "mine_rule" => {
                self.mine_rule = match value {
                    "spring" => MineRule::Spring,
                    "trade" => MineRule::Trade,
                    _ => return Err(bad("spring or trade")),
                }
            }
            "commander_hits_mine" => self.commander_hits_mine = boolean()?,
            "hq_locked" => self.hq_locked = boolean()?,
            "no_progress_plies" => self.no_progress_plies = number(1, 1_000_000)?,
            "max_plies" => self.max_plies = number(1, 1_000_000)?,
            _ => return Err(RulesError::UnknownOption { name: name.to_string() }),
        }
        Ok(())
    }

    /// Every option as `name=value`, in §10.11 order.
    pub fn overrides(&self) -> Vec<String> {
        OPTION_NAMES.iter().map(|n| format!("{n}={}", self.value(n).expect("a known option"))).collect()
    }

    /// The text value of one option.
    pub fn value(&self, name: &str) -> Option<String> {
        Some(match name {
            "turn_order" => match self.turn_order {
                TurnOrder::Counterclockwise => "counterclockwise".into(),
                TurnOrder::Clockwise => "clockwise".into(),
            },
            "rail_turns" => match self.rail_turns {
                RailTurns::Engineer => "engineer".into(),
                RailTurns::OneTurn => "one_turn".into(),
            },
            "palace_arcs" => self.palace_arcs.to_string(),
            "bomb_flies" => self.bomb_flies.to_string(),
            "bomb_front_rank" => self.bomb_front_rank.to_string(),
            "mine_rule" => match self.mine_rule {
                MineRule::Spring => "spring".into(),
                MineRule::Trade => "trade".into(),
            },
            "commander_hits_mine" => self.commander_hits_mine.to_string(),
            "hq_locked" => self.hq_locked.to_string(),
            "no_progress_plies" => self.no_progress_plies.to_string(),
            "max_plies" => self.max_plies.to_string(),
            _ => return None,
        })
    }

    /// The two-player rule set whose §4 combat this game uses: the combat
    /// function is `junqi_core::position::combat`, one source for both games.
    pub(crate) fn combat_rules(&self) -> junqi_core::Rules {
        // The two-player preset is read from its TOML text: once.
        static MINGQI: std::sync::OnceLock<junqi_core::Rules> = std::sync::OnceLock::new();
        let mut core = *MINGQI.get_or_init(|| junqi_core::Rules::preset(junqi_core::Mode::Mingqi));
        core.mine_rule = self.mine_rule;
        core.bomb_captures_flag = true;
        core.flag_capturer = junqi_core::rules::FlagCapturer::Any;
        core
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::preset(Mode::Anqi)
    }
}
