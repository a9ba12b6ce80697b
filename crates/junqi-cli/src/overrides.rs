//! `--set key=value` on a TOML config: every key of `junqi train` and
//! `junqi loop` configs can be given on the command line.

use anyhow::{bail, Context, Result};

/// Set the dotted `key` (e.g. `optim.lr`) of `table` to `value`, read as a
/// TOML value (number, boolean, string, array), else taken as a string.
pub fn set_key(table: &mut toml::Table, key: &str, value: &str) -> Result<()> {
    let parsed: toml::Value = match format!("v = {value}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("just parsed"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("bad key `{key}`");
    }
    let mut at = table;
    for part in &parts[..parts.len() - 1] {
        let entry = at.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
        at = entry.as_table_mut().with_context(|| format!("`{part}` in `{key}` is not a table"))?;
    }
    at.insert(parts[parts.len() - 1].to_string(), parsed);
    Ok(())
}

/// Apply `key=value` assignments (from `--set`) to `table`.
pub fn apply(table: &mut toml::Table, assignments: &[String]) -> Result<()> {
    for a in assignments {
        let (k, v) = a.split_once('=').with_context(|| format!("--set {a}: expected key=value"))?;
        set_key(table, k.trim(), v.trim()).with_context(|| format!("--set {a}"))?;
    }
    Ok(())
}

/// Read a TOML file as a table (an empty one when `path` is `None`).
pub fn read_table(path: Option<&std::path::Path>) -> Result<toml::Table> {
    match path {
        None => Ok(toml::Table::new()),
        Some(p) => {
            let text = junqi_core::read_text(p).with_context(|| format!("{}", p.display()))?;
            text.parse::<toml::Table>().map_err(|e| {
                anyhow::anyhow!("{}: bad TOML: {}", p.display(), junqi_core::toml_error_line(&text, &e, true))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nest_and_values_keep_their_type() {
        let mut t = toml::Table::new();
        apply(&mut t, &["optim.lr=0.01".into(), "optim.optimizer=sgd".into(), "seed=3".into()]).unwrap();
        assert_eq!(t["optim"]["lr"].as_float(), Some(0.01));
        assert_eq!(t["optim"]["optimizer"].as_str(), Some("sgd"));
        assert_eq!(t["seed"].as_integer(), Some(3));
        assert!(apply(&mut t, &["seed".into()]).is_err());
        assert!(apply(&mut t, &["seed.x=1".into()]).is_err(), "seed is not a table");
    }
}
