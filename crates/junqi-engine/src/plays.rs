//! What rules an engine plays: the `plays` lines of its handshake
//! (docs/protocol.md), `plays <mode> [<option>=<value>[,<value>…] …]`, one
//! per mode it plays. An option a line lists takes only the values listed;
//! an option it leaves out takes any. An engine that sends no `plays` line
//! plays every rule, as before version 3. The host checks the rules of a
//! match against them before the first game.

use crate::knowledge::encode_rules;
use junqi_core::{Mode, Rules};

/// One `plays` line: a mode and the values some of its options are limited to.
#[derive(Clone, Debug, PartialEq)]
pub struct Plays {
    mode: Mode,
    options: Vec<(String, Vec<String>)>,
}

impl Plays {
    /// Read the words after `plays`.
    pub fn parse(words: &str) -> Result<Plays, String> {
        let mut words = words.split_whitespace();
        let mode_word = words.next().ok_or("`plays` names no mode")?;
        let mode = mode_word.parse().map_err(|_| format!("plays: `{mode_word}` is not fanqi, anqi or mingqi"))?;
        let mut options = Vec::new();
        for word in words {
            let (name, values) =
                word.split_once('=').ok_or_else(|| format!("plays: `{word}` is not <option>=<value>[,<value>...]"))?;
            if !junqi_core::rules::OPTION_NAMES.contains(&name) {
                return Err(format!("plays: `{name}` is not a rule option"));
            }
            options.push((name.to_string(), values.split(',').map(str::to_string).collect()));
        }
        Ok(Plays { mode, options })
    }
}

/// Whether an engine with these `plays` lines plays `rules`; the error says
/// what it cannot play.
pub fn check(plays: &[Plays], rules: &Rules) -> Result<(), String> {
    if plays.is_empty() {
        return Ok(());
    }
    let Some(line) = plays.iter().find(|p| p.mode == rules.mode) else {
        let modes: Vec<&str> = plays.iter().map(|p| p.mode.name()).collect();
        return Err(format!("it plays {} only, not {}", modes.join(" and "), rules.mode.name()));
    };
    let text = encode_rules(rules);
    for word in text.split_whitespace().skip(1) {
        let (name, value) = word.split_once('=').expect("encode_rules writes option=value");
        if let Some((_, allowed)) = line.options.iter().find(|(n, _)| n == name) {
            if !allowed.iter().any(|a| a == value) {
                return Err(format!("it plays {name}={} only, not {name}={value}", allowed.join(",")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_lines_limit_modes_and_option_values() {
        let fanqi = Rules::preset(Mode::Fanqi);
        let flying = Rules::preset_with("fanqi", ["bomb_flies=true"]).unwrap();
        let plays = [Plays::parse("fanqi bomb_flies=false").unwrap()];
        assert_eq!(check(&plays, &fanqi), Ok(()));
        let err = check(&plays, &flying).unwrap_err();
        assert!(err.contains("bomb_flies=true"), "{err}");
        let err = check(&plays, &Rules::preset(Mode::Anqi)).unwrap_err();
        assert!(err.contains("fanqi only, not anqi"), "{err}");
        assert_eq!(check(&[], &flying), Ok(()));
        assert!(Plays::parse("chess").is_err());
        assert!(Plays::parse("fanqi colour=red").is_err());
        assert!(Plays::parse("").is_err());
    }
}
