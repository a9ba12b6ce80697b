//! The rules a new game of the Play tab is played by: a mode's preset, or
//! one of the variant presets of `configs/variants/` that the newer rules
//! need (扛军旗, 混棋, 山界; compiled in, so the page offers them anywhere), with
//! `option=value` settings over it.

use crate::ApiError;
use junqi_core::{Mode, Rules};
use serde::Serialize;

/// The variant presets offered: name (the file's, without `.toml`) and text.
const PRESETS: [(&str, &str); 6] = [
    ("fanqi-flag_carry-true", include_str!("../../../configs/variants/fanqi-flag_carry-true.toml")),
    ("fanqi-hunqi-true", include_str!("../../../configs/variants/fanqi-hunqi-true.toml")),
    ("fanqi-mountains-open", include_str!("../../../configs/variants/fanqi-mountains-open.toml")),
    ("fanqi-mountains-engineer", include_str!("../../../configs/variants/fanqi-mountains-engineer.toml")),
    ("mingqi-mountains-open", include_str!("../../../configs/variants/mingqi-mountains-open.toml")),
    ("mingqi-mountains-engineer", include_str!("../../../configs/variants/mingqi-mountains-engineer.toml")),
];

/// One variant preset, as `GET /api/variants` lists it.
#[derive(Serialize, Debug)]
pub struct VariantInfo {
    pub name: &'static str,
    pub mode: &'static str,
    /// The options it sets over its mode's preset (`flag_carry=true`).
    pub options: String,
}

/// Every variant preset offered.
pub fn list() -> Vec<VariantInfo> {
    PRESETS
        .iter()
        .map(|&(name, text)| {
            let rules = Rules::from_toml_str(text).expect("the shipped variant presets are valid (tested)");
            let described = crate::datasets::variant(&serde_json::to_string(&rules).expect("rules serialise"));
            let options = described.split_once(' ').map_or("", |(_, rest)| rest).to_string();
            VariantInfo { name, mode: rules.mode.name(), options }
        })
        .collect()
}

/// The rules of a new game: `mode`'s preset, or the variant preset
/// `variant` (which must be of that mode), then `options` in order.
pub fn rules_for(mode: &str, variant: Option<&str>, options: &[String]) -> Result<Rules, ApiError> {
    let bad = |e: junqi_core::RulesError| ApiError::bad_request(e.to_string());
    let mode: Mode = mode.trim().parse().map_err(bad)?;
    let mut rules = match variant.filter(|v| !v.is_empty()) {
        None => Rules::preset(mode),
        Some(name) => {
            let (_, text) = PRESETS.iter().find(|(n, _)| *n == name).ok_or_else(|| {
                let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
                ApiError::bad_request(format!("no variant `{name}`: one of {}", names.join(", ")))
            })?;
            let rules = Rules::from_toml_str(text).map_err(bad)?;
            if rules.mode != mode {
                return Err(ApiError::bad_request(format!(
                    "variant `{name}` is a {} variant, not {}",
                    rules.mode.name(),
                    mode.name()
                )));
            }
            rules
        }
    };
    for option in options {
        rules.apply_override(option).map_err(bad)?;
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_reads_and_sets_the_newer_rules() {
        let listed = list();
        assert_eq!(listed.len(), PRESETS.len());
        let carry = rules_for("fanqi", Some("fanqi-flag_carry-true"), &[]).unwrap();
        assert!(carry.flag_carry);
        let both = rules_for("fanqi", Some("fanqi-flag_carry-true"), &["mountains=open".into()]).unwrap();
        assert!(both.flag_carry && both.mountains == junqi_core::rules::Mountains::Open);
        assert!(listed.iter().any(|v| v.name == "mingqi-mountains-open" && v.options == "mountains=open"));
        assert!(rules_for("fanqi", Some("fanqi-hunqi-true"), &[]).unwrap().hunqi);
        assert!(rules_for("fanqi", Some("fanqi-hunqi-true"), &["attack_hidden=true".into()]).is_err());
        let err = rules_for("anqi", Some("fanqi-flag_carry-true"), &[]).unwrap_err();
        assert!(err.message.contains("is a fanqi variant, not anqi"), "{}", err.message);
        assert!(rules_for("fanqi", Some("nope"), &[]).unwrap_err().message.contains("no variant `nope`"));
        assert!(rules_for("anqi", None, &["mountains=open".into()]).is_err(), "not a 暗棋 option");
        assert_eq!(rules_for("anqi", Some(""), &[]).unwrap(), Rules::preset(Mode::Anqi));
    }
}
