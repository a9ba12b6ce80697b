//! Game mode and every variant option of docs/rules.md §6, with the presets in
//! `configs/rules/*.toml` and `option=value` overrides.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The three ways to play (docs/rules.md §5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// 暗棋: hidden deployment with a referee.
    Anqi,
    /// 明棋: open deployment.
    Mingqi,
    /// 翻棋: all pieces face-down, flip or move.
    Fanqi,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Fanqi, Mode::Anqi, Mode::Mingqi];
    pub fn name(self) -> &'static str {
        match self {
            Mode::Anqi => "anqi",
            Mode::Mingqi => "mingqi",
            Mode::Fanqi => "fanqi",
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
        match s {
            "anqi" => Ok(Mode::Anqi),
            "mingqi" => Ok(Mode::Mingqi),
            "fanqi" => Ok(Mode::Fanqi),
            _ => Err(RulesError::UnknownMode(s.to_string())),
        }
    }
}

/// Who may turn corners on the railway (`rail_turns`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RailTurns {
    /// Only engineers fly (default).
    Engineer,
    /// Nobody turns: engineers run straight like everyone else.
    None,
    /// Every movable piece flies like an engineer.
    All,
}

/// What happens to a non-engineer that attacks a mine (`mine_rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MineRule {
    /// 弹簧雷: the attacker is removed, the mine stays.
    Spring,
    /// 炸弹雷: both are removed.
    Trade,
}

/// Which colour moves first in 暗棋/明棋 (`first_player`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FirstPlayer {
    Red,
    Black,
}

impl FirstPlayer {
    /// The colour that moves first (seat 1's colour).
    pub fn colour(self) -> crate::piece::Colour {
        match self {
            FirstPlayer::Red => crate::piece::Colour::Red,
            FirstPlayer::Black => crate::piece::Colour::Black,
        }
    }
}

/// How colours are assigned in 翻棋 (`color_rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorRule {
    /// The colour of the first piece flipped goes to whoever flipped it.
    FirstFlip,
    /// A player gets a colour the first time it flips the same colour as the previous flip.
    TwoInARow,
}

/// Which pieces may capture the flag (`flag_capturer`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlagCapturer {
    Any,
    /// 扛旗用最小的棋子: only a piece of the side's lowest rank still on the board.
    Lowest,
}

/// Who may enter the mountains (山界, `mountains`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mountains {
    /// Nobody: the mountains only block the frontier (default).
    Closed,
    /// Every movable piece.
    Open,
    /// Engineers only (也有规则是只允许工兵进入山界).
    Engineer,
}

impl Mountains {
    /// The option value's name.
    pub fn name(self) -> &'static str {
        match self {
            Mountains::Closed => "closed",
            Mountains::Open => "open",
            Mountains::Engineer => "engineer",
        }
    }
    /// May a piece of `kind` enter a mountain?
    #[inline]
    pub fn admits(self, kind: crate::piece::Kind) -> bool {
        match self {
            Mountains::Closed => false,
            Mountains::Open => kind.is_movable(),
            Mountains::Engineer => kind == crate::piece::Kind::Engineer,
        }
    }
}

fn default_mountains() -> Mountains {
    Mountains::Closed
}

/// A complete rule set: the mode plus every option of docs/rules.md §6.
///
/// Options that do not apply to the mode (the `—` cells of §6) keep their
/// defaults and setting them is an error, so a rule set never silently
/// carries a meaningless option.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub mode: Mode,
    pub rail_turns: RailTurns,
    pub bomb_flies: bool,
    pub mine_rule: MineRule,
    pub hq_locked: bool,
    #[serde(default = "default_first_player")]
    pub first_player: FirstPlayer,
    pub no_progress_plies: u32,
    pub max_plies: u32,
    #[serde(default = "default_true")]
    pub reveal_flag_on_commander_loss: bool,
    #[serde(default)]
    pub engineer_scout: bool,
    pub bomb_captures_flag: bool,
    #[serde(default = "default_color_rule")]
    pub color_rule: ColorRule,
    #[serde(default)]
    pub attack_hidden: bool,
    pub flag_capturer: FlagCapturer,
    /// 扛军旗 (翻棋): a flag is carried home instead of captured (docs/rules.md §5.3).
    #[serde(default)]
    pub flag_carry: bool,
    /// 山界: who may enter the mountains (docs/rules.md §3 Mountains).
    #[serde(default = "default_mountains")]
    pub mountains: Mountains,
    /// 混棋 (翻棋): attacks only on equal or lower ranks, and a side's flag
    /// moves once it has removed the enemy's mines (docs/rules.md §5.3 混棋).
    #[serde(default)]
    pub hunqi: bool,
}

fn default_first_player() -> FirstPlayer {
    FirstPlayer::Red
}
fn default_true() -> bool {
    true
}
fn default_color_rule() -> ColorRule {
    ColorRule::FirstFlip
}

/// One rule option of §6: its name (as in TOML files, `--set` and the
/// datasets' rules JSON) and the modes where it means something.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RuleOption {
    pub name: &'static str,
    pub modes: &'static [Mode],
}

const ALL_MODES: &[Mode] = &[Mode::Anqi, Mode::Mingqi, Mode::Fanqi];

/// Every option of §6 in table order: the one list that [`OPTION_NAMES`],
/// [`option_applies`] and the checks against `docs/rules.md`, the presets
/// and `scripts/check_parquet.py` (tests below) all come from.
pub const RULE_OPTIONS: [RuleOption; 16] = [
    RuleOption { name: "rail_turns", modes: ALL_MODES },
    RuleOption { name: "bomb_flies", modes: ALL_MODES },
    RuleOption { name: "mine_rule", modes: ALL_MODES },
    RuleOption { name: "hq_locked", modes: ALL_MODES },
    RuleOption { name: "first_player", modes: &[Mode::Anqi, Mode::Mingqi] },
    RuleOption { name: "no_progress_plies", modes: ALL_MODES },
    RuleOption { name: "max_plies", modes: ALL_MODES },
    RuleOption { name: "reveal_flag_on_commander_loss", modes: &[Mode::Anqi, Mode::Mingqi] },
    RuleOption { name: "engineer_scout", modes: &[Mode::Anqi] },
    RuleOption { name: "bomb_captures_flag", modes: ALL_MODES },
    RuleOption { name: "color_rule", modes: &[Mode::Fanqi] },
    RuleOption { name: "attack_hidden", modes: &[Mode::Fanqi] },
    RuleOption { name: "flag_capturer", modes: ALL_MODES },
    RuleOption { name: "flag_carry", modes: &[Mode::Fanqi] },
    RuleOption { name: "mountains", modes: &[Mode::Mingqi, Mode::Fanqi] },
    RuleOption { name: "hunqi", modes: &[Mode::Fanqi] },
];

/// Every option name of §6, in table order.
pub const OPTION_NAMES: [&str; RULE_OPTIONS.len()] = {
    let mut names = [""; RULE_OPTIONS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = RULE_OPTIONS[i].name;
        i += 1;
    }
    names
};

/// Does `option` mean anything in `mode` (the `—` cells of §6)?
pub fn option_applies(option: &str, mode: Mode) -> bool {
    RULE_OPTIONS.iter().any(|o| o.name == option && o.modes.contains(&mode))
}

const PRESET_ANQI: &str = include_str!("../../../configs/rules/anqi.toml");
const PRESET_MINGQI: &str = include_str!("../../../configs/rules/mingqi.toml");
const PRESET_FANQI: &str = include_str!("../../../configs/rules/fanqi.toml");

/// Errors in rule sets, presets and overrides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown mode `{0}`: expected anqi, mingqi or fanqi")]
    UnknownMode(String),
    #[error("unknown rules preset `{0}`: expected anqi, mingqi, fanqi or a path to a .toml file")]
    UnknownPreset(String),
    #[error("unknown rule option `{name}`; options are: {}", OPTION_NAMES.join(", "))]
    UnknownOption { name: String },
    #[error("rule option `{name}` does not apply to {mode}")]
    NotApplicable { name: String, mode: Mode },
    #[error("bad value for rule option `{name}`: {message}")]
    BadValue { name: String, message: String },
    #[error("override `{0}` is not of the form option=value")]
    BadOverride(String),
    #[error("the mode cannot be overridden with --set; choose it with --rules or the position")]
    ModeOverride,
    #[error("invalid TOML: {0}")]
    Toml(String),
    #[error("rules file has no `mode` (anqi, mingqi or fanqi)")]
    MissingMode,
    #[error("rule option `{name}`: {message}")]
    Conflict { name: String, message: String },
}

impl Rules {
    /// The colour `seat` plays from the start: fixed by `first_player` in
    /// 暗棋 and 明棋, `None` in 翻棋 (where the first flips decide it).
    pub fn fixed_colour(&self, seat: crate::Seat) -> Option<crate::Colour> {
        match self.mode {
            Mode::Fanqi => None,
            _ if seat == crate::Seat::First => Some(self.first_player.colour()),
            _ => Some(self.first_player.colour().other()),
        }
    }

    /// The shipped preset for a mode (`configs/rules/<mode>.toml`).
    pub fn preset(mode: Mode) -> Rules {
        let text = match mode {
            Mode::Anqi => PRESET_ANQI,
            Mode::Mingqi => PRESET_MINGQI,
            Mode::Fanqi => PRESET_FANQI,
        };
        toml::from_str(text).expect("shipped presets are valid (tested)")
    }

    /// A preset by name (`anqi`, `mingqi`, `fanqi`).
    pub fn preset_named(name: &str) -> Result<Rules, RulesError> {
        name.parse::<Mode>().map(Rules::preset).map_err(|_| RulesError::UnknownPreset(name.to_string()))
    }

    /// A mode's preset (`anqi`, `mingqi`, `fanqi`) with `option=value`
    /// overrides applied in order: the one way every front end (variant
    /// specs, suite files, loop configs, the engine protocol) builds rules
    /// from a mode name and a list of settings.
    pub fn preset_with<S: AsRef<str>>(mode: &str, overrides: impl IntoIterator<Item = S>) -> Result<Rules, RulesError> {
        let mut rules = Rules::preset(mode.trim().parse()?);
        for assignment in overrides {
            rules.apply_override(assignment.as_ref())?;
        }
        Ok(rules)
    }

    /// Parse a rules TOML document: `mode` is required; every other option
    /// defaults to that mode's preset.
    pub fn from_toml_str(text: &str) -> Result<Rules, RulesError> {
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| RulesError::Toml(e.message().to_string()))?;
        let mode = match table.get("mode") {
            Some(toml::Value::String(s)) => s.parse::<Mode>()?,
            Some(other) => return Err(RulesError::UnknownMode(other.to_string())),
            None => return Err(RulesError::MissingMode),
        };
        let mut rules = Rules::preset(mode);
        for (name, value) in &table {
            if name != "mode" {
                rules.set_value(name, value.clone())?;
            }
        }
        Ok(rules)
    }

    /// Apply one `option=value` override, e.g. `mine_rule=trade` or `max_plies=500`.
    pub fn apply_override(&mut self, assignment: &str) -> Result<(), RulesError> {
        let (name, value) =
            assignment.split_once('=').ok_or_else(|| RulesError::BadOverride(assignment.to_string()))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(RulesError::BadOverride(assignment.to_string()));
        }
        // Numbers and booleans parse as TOML values; anything else is a bare string.
        let parsed = format!("v = {value}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(value.to_string()));
        self.set_value(name, parsed)
    }

    /// Set one option from a TOML value, checking the name, the mode and the value.
    pub fn set_value(&mut self, name: &str, value: toml::Value) -> Result<(), RulesError> {
        if name == "mode" {
            return Err(RulesError::ModeOverride);
        }
        if !OPTION_NAMES.contains(&name) {
            return Err(RulesError::UnknownOption { name: name.to_string() });
        }
        let mut table = toml::Table::try_from(*self).expect("rules serialize");
        if !option_applies(name, self.mode) {
            // A file may spell out an inapplicable option at its default (as
            // `to_toml_string` does); any other value would be silently meaningless.
            if table.get(name) == Some(&value) {
                return Ok(());
            }
            return Err(RulesError::NotApplicable { name: name.to_string(), mode: self.mode });
        }
        table.insert(name.to_string(), value);
        let updated: Rules = table.try_into().map_err(|e: toml::de::Error| RulesError::BadValue {
            name: name.to_string(),
            message: e.message().to_string(),
        })?;
        updated.check_numbers().map_err(|message| RulesError::BadValue { name: name.to_string(), message })?;
        if let Some(message) = updated.hunqi_conflict() {
            return Err(RulesError::Conflict { name: name.to_string(), message });
        }
        *self = updated;
        Ok(())
    }

    /// 混棋 (`hunqi`) gives its own answers to what these options decide
    /// (docs/rules.md §5.3 混棋), so with it on they must keep the values
    /// that agree with it: which one does not, if any.
    fn hunqi_conflict(&self) -> Option<String> {
        if !self.hunqi {
            return None;
        }
        let clash = if self.attack_hidden {
            "attack_hidden=true (混棋 forbids attacks on face-down pieces)"
        } else if self.flag_carry {
            "flag_carry=true (混棋's flag is taken, not carried)"
        } else if self.hq_locked {
            "hq_locked=true (in 混棋 pieces move freely in and out of a headquarters)"
        } else if self.flag_capturer != FlagCapturer::Any {
            "flag_capturer=lowest (混棋 says which pieces take a flag)"
        } else if !self.bomb_captures_flag {
            "bomb_captures_flag=false (in 混棋 a bomb may always take a flag)"
        } else if self.mountains != Mountains::Closed {
            "mountains other than closed (no source plays 混棋 with the mountains open)"
        } else {
            return None;
        };
        Some(format!("hunqi=true cannot go with {clash}; set that option back before turning hunqi on"))
    }

    /// Check a rule set that did not come through [`Rules::set_value`]
    /// (rules read back as JSON from a dataset or a game record): its
    /// numbers, no option set away from the preset where §6 says it does
    /// not apply, and no option against `hunqi`.
    pub fn validate(&self) -> Result<(), RulesError> {
        let table = toml::Table::try_from(*self).expect("rules serialize");
        let preset = toml::Table::try_from(Rules::preset(self.mode)).expect("rules serialize");
        for name in OPTION_NAMES {
            if !option_applies(name, self.mode) && table.get(name) != preset.get(name) {
                return Err(RulesError::NotApplicable { name: name.to_string(), mode: self.mode });
            }
        }
        self.check_numbers().map_err(|message| RulesError::BadValue { name: "rules".into(), message })?;
        match self.hunqi_conflict() {
            Some(message) => Err(RulesError::Conflict { name: "hunqi".into(), message }),
            None => Ok(()),
        }
    }

    fn check_numbers(&self) -> Result<(), String> {
        if self.no_progress_plies == 0 {
            return Err("no_progress_plies must be at least 1".into());
        }
        if self.max_plies == 0 {
            return Err("max_plies must be at least 1".into());
        }
        if self.max_plies > 1_000_000 {
            return Err("max_plies must be at most 1000000".into());
        }
        Ok(())
    }

    /// The rules as a TOML document (every option under its own name).
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("rules serialize")
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::preset(Mode::Fanqi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_have_fixed_colours_except_in_fanqi() {
        use crate::{Colour, Seat};
        let mut anqi = Rules::preset(Mode::Anqi);
        assert_eq!(anqi.fixed_colour(Seat::First), Some(Colour::Red));
        assert_eq!(anqi.fixed_colour(Seat::Second), Some(Colour::Black));
        anqi.first_player = FirstPlayer::Black;
        assert_eq!(anqi.fixed_colour(Seat::First), Some(Colour::Black));
        assert_eq!(anqi.fixed_colour(Seat::Second), Some(Colour::Red));
        assert_eq!(Rules::preset(Mode::Mingqi).fixed_colour(Seat::Second), Some(Colour::Black));
        assert_eq!(Rules::preset(Mode::Fanqi).fixed_colour(Seat::First), None);
    }

    /// The §6 table of `docs/rules.md`: one row per option, the cells of
    /// the 暗棋, 明棋 and 翻棋 columns (the first word, without backticks).
    fn section_6_rows() -> Vec<(String, [String; 3])> {
        let doc = include_str!("../../../docs/rules.md");
        let section = doc.split("## 6.").nth(1).expect("docs/rules.md has §6");
        let section = section.split("\n## ").next().unwrap();
        section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|line| {
                let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
                let word = |cell: &str| cell.split_whitespace().next().unwrap_or("").trim_matches('`').to_string();
                let n = cells.len();
                (word(cells[0]), [word(cells[n - 3]), word(cells[n - 2]), word(cells[n - 1])])
            })
            .collect()
    }

    /// The table in the docs, the option list, the modes each option applies
    /// to and the shipped presets all say the same thing.
    #[test]
    fn presets_and_option_list_match_the_table_of_section_6() {
        let rows = section_6_rows();
        let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, OPTION_NAMES, "the §6 table's rows against OPTION_NAMES");
        for (column, mode) in [Mode::Anqi, Mode::Mingqi, Mode::Fanqi].into_iter().enumerate() {
            let preset = toml::Table::try_from(Rules::preset(mode)).unwrap();
            // (a TOML table's keys come sorted)
            let fields: Vec<&str> = preset.keys().map(String::as_str).filter(|k| *k != "mode").collect();
            let mut sorted = OPTION_NAMES;
            sorted.sort();
            assert_eq!(fields, sorted, "the Rules struct's fields against OPTION_NAMES");
            for (name, cells) in &rows {
                let cell = &cells[column];
                assert_eq!(option_applies(name, mode), cell != "—", "{name} in {mode}: the table says `{cell}`");
                if cell != "—" {
                    let value = match &preset[name.as_str()] {
                        toml::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    assert_eq!(&value, cell, "the {mode} preset's {name} against the §6 table");
                }
            }
        }
    }

    /// `scripts/check_parquet.py` checks the datasets' rules JSON against
    /// its own copy of the option list (Python cannot read this file).
    #[test]
    fn the_parquet_checker_lists_the_same_options() {
        let script = include_str!("../../../scripts/check_parquet.py");
        let list = script.split("OPTIONS = [").nth(1).and_then(|s| s.split(']').next()).expect("OPTIONS list");
        let names: Vec<&str> = list.split(',').map(|s| s.trim().trim_matches('"')).filter(|s| !s.is_empty()).collect();
        assert_eq!(names, OPTION_NAMES);
    }

    #[test]
    fn overrides_check_names_modes_and_values() {
        let mut r = Rules::preset(Mode::Fanqi);
        r.apply_override("mine_rule=trade").unwrap();
        assert_eq!(r.mine_rule, MineRule::Trade);
        r.apply_override("max_plies = 500").unwrap();
        assert_eq!(r.max_plies, 500);
        r.apply_override("attack_hidden=true").unwrap();
        assert!(r.attack_hidden);
        assert!(matches!(r.apply_override("mine_rul=trade"), Err(RulesError::UnknownOption { .. })));
        assert!(matches!(r.apply_override("mine_rule=soft"), Err(RulesError::BadValue { .. })));
        assert!(matches!(r.apply_override("max_plies=-3"), Err(RulesError::BadValue { .. })));
        assert!(matches!(r.apply_override("max_plies=0"), Err(RulesError::BadValue { .. })));
        assert!(matches!(r.apply_override("first_player=black"), Err(RulesError::NotApplicable { .. })));
        assert!(matches!(r.apply_override("engineer_scout=true"), Err(RulesError::NotApplicable { .. })));
        assert!(matches!(r.apply_override("mode=anqi"), Err(RulesError::ModeOverride)));
        assert!(matches!(r.apply_override("novalue"), Err(RulesError::BadOverride(_))));
        let mut a = Rules::preset(Mode::Anqi);
        assert!(matches!(a.apply_override("color_rule=two_in_a_row"), Err(RulesError::NotApplicable { .. })));
        a.apply_override("engineer_scout=true").unwrap();
        assert!(a.engineer_scout);
    }

    /// Rules read back as JSON (datasets, game records) bypass `set_value`:
    /// `validate` refuses what it would have refused.
    #[test]
    fn validate_refuses_what_set_value_would() {
        for mode in Mode::ALL {
            Rules::preset(mode).validate().unwrap();
        }
        // (serde straight into the struct, as the JSON readers do)
        let read = |text: String| toml::from_str::<Rules>(&text).unwrap();
        let json = |r: &Rules| r.to_toml_string();
        let mut anqi = Rules::preset(Mode::Anqi);
        anqi.hunqi = true;
        assert!(matches!(read(json(&anqi)).validate(), Err(RulesError::NotApplicable { .. })));
        let mut clash = Rules::preset_with("fanqi", ["hunqi=true"]).unwrap();
        clash.validate().unwrap();
        clash.attack_hidden = true;
        assert!(matches!(read(json(&clash)).validate(), Err(RulesError::Conflict { .. })));
        let mut zero = Rules::preset(Mode::Fanqi);
        zero.max_plies = 0;
        assert!(matches!(zero.validate(), Err(RulesError::BadValue { .. })));
    }

    #[test]
    fn preset_with_applies_overrides_in_order_and_checks_them() {
        let r = Rules::preset_with("anqi", ["mine_rule=trade", "max_plies=300", "max_plies=400"]).unwrap();
        assert_eq!((r.mode, r.mine_rule, r.max_plies), (Mode::Anqi, MineRule::Trade, 400));
        assert_eq!(Rules::preset_with(" fanqi ", Vec::<String>::new()).unwrap(), Rules::preset(Mode::Fanqi));
        assert!(matches!(Rules::preset_with("chess", ["max_plies=3"]), Err(RulesError::UnknownMode(_))));
        assert!(matches!(Rules::preset_with("fanqi", ["engineer_scout=true"]), Err(RulesError::NotApplicable { .. })));
    }

    #[test]
    fn toml_files_default_to_the_mode_preset() {
        let r = Rules::from_toml_str("mode = \"anqi\"\nmine_rule = \"trade\"\n").unwrap();
        assert_eq!(r.mine_rule, MineRule::Trade);
        assert!(r.hq_locked);
        assert!(Rules::from_toml_str("mine_rule = \"trade\"").is_err());
        assert!(Rules::from_toml_str("mode = \"anqi\"\nfoo = 1").is_err());
        assert!(Rules::from_toml_str("mode = 3").is_err());
        assert!(Rules::from_toml_str("mode = ").is_err());
        let round = Rules::from_toml_str(&r.to_toml_string()).unwrap();
        assert_eq!(round, r);
    }
}
