//! The rules of a stored game (its rules JSON), read and checked once per
//! distinct text: a dataset's games nearly all share one rule set, so
//! replaying or exporting a million of them should not parse and check the
//! same JSON a million times.

use junqi_core::Rules;
use std::cell::RefCell;

thread_local! {
    /// The last rules text this thread read, with its rules.
    static LAST: RefCell<Option<(String, Rules)>> = const { RefCell::new(None) };
}

/// The rules in `json`, checked as `--set` would check them
/// ([`Rules::validate`]); `Err` says why they are not valid.
pub(crate) fn stored_rules(json: &str) -> Result<Rules, String> {
    if let Some(rules) = LAST.with_borrow(|last| last.as_ref().filter(|(text, _)| text == json).map(|(_, r)| *r)) {
        return Ok(rules);
    }
    let rules: Rules = serde_json::from_str(json).map_err(|e| e.to_string())?;
    rules.validate().map_err(|e| e.to_string())?;
    LAST.with_borrow_mut(|last| *last = Some((json.to_string(), rules)));
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_checks_and_remembers_the_last_rules() {
        let preset = serde_json::to_string(&Rules::default()).unwrap();
        assert_eq!(stored_rules(&preset).unwrap(), Rules::default());
        assert_eq!(stored_rules(&preset).unwrap(), Rules::default(), "from the cache");
        let mut anqi = Rules::preset(junqi_core::Mode::Anqi);
        anqi.hunqi = true;
        let bad = serde_json::to_string(&anqi).unwrap();
        assert!(stored_rules(&bad).unwrap_err().contains("hunqi"));
        assert!(stored_rules("{").is_err());
        assert_eq!(stored_rules(&preset).unwrap(), Rules::default(), "a refused text is not remembered");
    }
}
