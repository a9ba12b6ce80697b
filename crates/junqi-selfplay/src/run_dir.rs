//! The one way a long run opens its output directory: self-play, arena,
//! SPRT, study and the loop all create it (or find it), hold its lock for
//! as long as they write there ([`RunLock`]), read back the run file that
//! says what work the directory holds, and write whole files only
//! ([`junqi_core::write_atomic`]). What "the same work" means is the
//! caller's to decide; [`differences`] lists how two JSON configs differ.

use crate::{RunLock, SelfplayError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open run directory and its lock.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    lock: Arc<RunLock>,
}

impl RunDir {
    /// Create `path` (and its parents) if needed and take its lock: a second
    /// writer, in this process or another, is refused.
    pub fn open(path: &Path) -> Result<RunDir, SelfplayError> {
        std::fs::create_dir_all(path).map_err(SelfplayError::io(path))?;
        let lock = RunLock::hold(path)?;
        Ok(RunDir { path: path.to_path_buf(), lock })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock, for a caller that keeps it past this value's life.
    pub fn lock(&self) -> Arc<RunLock> {
        self.lock.clone()
    }

    /// The text of the run file `name`, or `None` when the directory has
    /// none yet (a new run).
    pub fn read(&self, name: &str) -> Result<Option<String>, SelfplayError> {
        let path = self.path.join(name);
        if !path.exists() {
            return Ok(None);
        }
        junqi_core::read_text(&path).map(Some).map_err(SelfplayError::io(path))
    }

    /// The run file `name` as JSON, or `None` when there is none; text that
    /// is not JSON of that shape is a corrupt run file.
    pub fn read_json<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Option<T>, SelfplayError> {
        let Some(text) = self.read(name)? else { return Ok(None) };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| SelfplayError::Corrupt { path: self.path.join(name), message: format!("not a run file: {e}") })
    }

    /// Write the file `name` whole, atomically.
    pub fn write(&self, name: &str, text: &str) -> Result<(), SelfplayError> {
        let path = self.path.join(name);
        junqi_core::write_atomic(&path, text.as_bytes()).map_err(SelfplayError::io(path))
    }

    /// Write `value` as pretty JSON (ending in a newline) to `name`, atomically.
    pub fn write_json<T: serde::Serialize>(&self, name: &str, value: &T) -> Result<(), SelfplayError> {
        self.write(name, &(serde_json::to_string_pretty(value).expect("run files serialise") + "\n"))
    }
}

/// How `stored` (the directory's) and `new` differ, one line per leaf:
/// `path.to.key: STORED in the directory, NEW now`.
pub fn differences(stored: &serde_json::Value, new: &serde_json::Value) -> Vec<String> {
    fn walk(prefix: &str, stored: &serde_json::Value, new: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match (stored, new) {
            (Value::Object(a), Value::Object(b)) => {
                let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&name, a.get(k).unwrap_or(&Value::Null), b.get(k).unwrap_or(&Value::Null), out);
                }
            }
            (a, b) if a == b => {}
            (a, b) => out.push(format!("{prefix}: {a} in the directory, {b} now")),
        }
    }
    let mut out = Vec::new();
    walk("", stored, new, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_run_dir_is_created_locked_read_back_and_written_whole() {
        let path = std::env::temp_dir().join(format!("junqi-run-dir-{}", std::process::id())).join("a/b");
        let _ = std::fs::remove_dir_all(&path);
        let dir = RunDir::open(&path).unwrap();
        assert_eq!(dir.read("run.json").unwrap(), None);
        dir.write_json("run.json", &json!({"format": "x/1", "config": {"games": 3}})).unwrap();
        let back: serde_json::Value = dir.read_json("run.json").unwrap().unwrap();
        assert_eq!(back["config"]["games"], 3);
        assert!(dir.read("run.json").unwrap().unwrap().ends_with("}\n"));
        dir.write("bad.json", "{ not json").unwrap();
        let bad = dir.read_json::<serde_json::Value>("bad.json").unwrap_err();
        assert!(matches!(bad, SelfplayError::Corrupt { .. }), "{bad}");
        // Another process would be refused; in this process, another thread is.
        let other = std::thread::spawn({
            let path = path.clone();
            move || RunDir::open(&path).map(|_| ())
        });
        assert!(matches!(other.join().unwrap(), Err(SelfplayError::Locked { .. })));
        drop(dir);
        let _ = std::fs::remove_dir_all(path.parent().unwrap().parent().unwrap());
    }

    #[test]
    fn differences_name_every_changed_leaf() {
        let a = json!({"games": 10, "rules": {"mode": "anqi", "max_plies": 100}, "gone": 1});
        let b = json!({"games": 12, "rules": {"mode": "anqi", "max_plies": 200}});
        assert_eq!(
            differences(&a, &b),
            [
                "games: 10 in the directory, 12 now",
                "gone: 1 in the directory, null now",
                "rules.max_plies: 100 in the directory, 200 now"
            ]
        );
        assert!(differences(&a, &a).is_empty());
    }
}
