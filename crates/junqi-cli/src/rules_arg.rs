//! `--rules <preset|file.toml>` and repeatable `--set option=value`, shared by
//! every subcommand that plays.

use anyhow::{bail, Context, Result};
use junqi_core::{jfen, Mode, Position, Rules};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct RulesArgs {
    /// Rules already resolved, per mode (stdin modes read many positions).
    #[arg(skip)]
    resolved: std::cell::RefCell<Vec<Rules>>,
    /// Rules preset (anqi, mingqi, fanqi) or path to a rules TOML file.
    /// Default: the preset of the game's mode (the given position's, else fanqi).
    #[arg(long, value_name = "PRESET|FILE")]
    pub rules: Option<String>,
    /// Override one rule option, e.g. `--set mine_rule=trade`; repeatable.
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
}

impl RulesArgs {
    /// The rules for a game of `mode` (when known): the preset or file, then the overrides.
    pub fn resolve(&self, mode: Option<Mode>) -> Result<Rules> {
        let mut rules = match (&self.rules, mode) {
            (None, Some(mode)) => Rules::preset(mode),
            (None, None) => bail!("no mode given: pass --rules <preset|file>"),
            (Some(name), _) => load(name)?,
        };
        if let Some(mode) = mode {
            if rules.mode != mode {
                bail!("--rules gives {} rules but the game is {}", rules.mode, mode);
            }
        }
        for assignment in &self.set {
            rules.apply_override(assignment).with_context(|| format!("--set {assignment}"))?;
        }
        Ok(rules)
    }

    /// Parse a JFEN position under these rules (default: its mode's preset).
    pub fn position(&self, text: &str) -> Result<Position> {
        let mode = jfen::peek_mode(text)?;
        let known = self.resolved.borrow().iter().find(|r| r.mode == mode).copied();
        let rules = match known {
            Some(rules) => rules,
            None => {
                let rules = self.resolve(Some(mode))?;
                self.resolved.borrow_mut().push(rules);
                rules
            }
        };
        Ok(Position::from_jfen(text, rules)?)
    }
}

fn load(name: &str) -> Result<Rules> {
    if let Ok(rules) = Rules::preset_named(name) {
        return Ok(rules);
    }
    if !name.ends_with(".toml") && !std::path::Path::new(name).exists() {
        return Err(junqi_core::RulesError::UnknownPreset(name.to_string()).into());
    }
    let text = junqi_core::read_text(name).with_context(|| format!("cannot read rules file {name}"))?;
    Rules::from_toml_str(&text).with_context(|| format!("rules file {name}"))
}
