//! The one way a long run opens its output directory: self-play, arena,
//! SPRT, study and the loop all create it (or find it), hold its lock for
//! as long as they write there ([`RunLock`]), read back the run file that
//! says what work the directory holds, and write whole files only
//! ([`junqi_core::write_atomic`]). [`same_work`] is the one comparison of
//! a stored config with this command's (each command words its refusal);
//! [`differences`] lists how two JSON configs differ.

use crate::{describe_part, Part, RunLock, SelfplayError};
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

/// Why a directory's run file is not this command's work.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkMismatch {
    /// Another config: one line per difference ([`differences`]).
    Config(Vec<String>),
    /// The same config, another part of it (`--part`).
    Part { stored: Option<Part>, now: Option<Part> },
}

impl WorkMismatch {
    /// The refusal for a part mismatch, the same for every command.
    pub fn part_message(dir: &Path, stored: Option<Part>, now: Option<Part>) -> String {
        format!(
            "{} holds {}; this command plays {}: re-run it as it was, or choose another --out",
            dir.display(),
            describe_part(stored),
            describe_part(now)
        )
    }
}

/// Whether the run file's `stored` config (JSON) and `stored_part` are this
/// command's `config` and `part`. The stored config is read as a `C` and
/// written again first, so options added since (with serde defaults)
/// compare equal to their defaults; one that no longer reads is compared
/// as it is.
pub fn same_work<C>(
    stored: &serde_json::Value,
    stored_part: Option<Part>,
    config: &C,
    part: Option<Part>,
) -> Result<(), WorkMismatch>
where
    C: serde::Serialize + serde::de::DeserializeOwned,
{
    let normalised = serde_json::from_value::<C>(stored.clone())
        .ok()
        .and_then(|c| serde_json::to_value(c).ok())
        .unwrap_or_else(|| stored.clone());
    let diffs = differences(&normalised, &serde_json::to_value(config).expect("configs serialise"));
    if !diffs.is_empty() {
        return Err(WorkMismatch::Config(diffs));
    }
    if stored_part != part {
        return Err(WorkMismatch::Part { stored: stored_part, now: part });
    }
    Ok(())
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

    /// A config as a newer build reads it: `threads` was added since, with a default.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Work {
        games: u64,
        #[serde(default = "two")]
        threads: u64,
    }
    fn two() -> u64 {
        2
    }

    #[test]
    fn same_work_reads_old_configs_with_defaults_and_names_what_differs() {
        let part = |i| Some(Part::new(i, 4).unwrap());
        let old = json!({"games": 10});
        assert_eq!(same_work(&old, None, &Work { games: 10, threads: 2 }, None), Ok(()));
        assert_eq!(
            same_work(&old, None, &Work { games: 10, threads: 3 }, None),
            Err(WorkMismatch::Config(vec!["threads: 2 in the directory, 3 now".into()]))
        );
        // Config first: a part of another run is another config.
        assert_eq!(
            same_work(&old, part(0), &Work { games: 11, threads: 2 }, part(1)),
            Err(WorkMismatch::Config(vec!["games: 10 in the directory, 11 now".into()]))
        );
        assert_eq!(
            same_work(&old, part(0), &Work { games: 10, threads: 2 }, part(1)),
            Err(WorkMismatch::Part { stored: part(0), now: part(1) })
        );
        assert_eq!(same_work(&old, part(2), &Work { games: 10, threads: 2 }, part(2)), Ok(()));
        // A stored config that no longer reads is compared as it is.
        let odd = json!({"games": "ten"});
        assert!(matches!(same_work(&odd, None, &Work { games: 10, threads: 2 }, None), Err(WorkMismatch::Config(_))));
        let message = WorkMismatch::part_message(Path::new("runs/x"), None, part(3));
        assert!(message.contains("holds the whole run") && message.contains("re-run it as it was"), "{message}");
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
