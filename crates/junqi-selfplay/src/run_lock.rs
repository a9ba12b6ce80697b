//! One writer per run directory. Every command that writes a run directory
//! holds an exclusive lock on its `.lock` file while it runs; a second one
//! is refused with the first's pid and host instead of the two deleting each
//! other's temporary files. The lock is the operating system's (`flock`), so
//! a killed process leaves no stale lock behind: the file stays, the lock
//! goes with the process.

use crate::SelfplayError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The lock file in a run directory.
pub const LOCK_FILE: &str = ".lock";

/// An exclusive lock on a run directory, released when dropped (or when
/// the process ends, however it ends).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// The locks held through [`RunLock::hold`], by directory and thread.
type Held = Vec<(PathBuf, std::thread::ThreadId, Weak<RunLock>)>;
static HELD: Mutex<Held> = Mutex::new(Vec::new());

impl RunLock {
    /// The lock on `dir` (which must exist) for this command: the one this
    /// thread already holds through `hold` if any, else a new one. A
    /// command takes it first and keeps it to its end, so the library
    /// functions it calls on its thread (which hold it too) and the results
    /// it writes afterwards are all under one lock; another thread, like
    /// another process, is refused.
    pub fn hold(dir: &Path) -> Result<Arc<RunLock>, SelfplayError> {
        let key = dir.canonicalize().map_err(SelfplayError::io(dir))?;
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        held.retain(|(_, _, lock)| lock.strong_count() > 0);
        let thread = std::thread::current().id();
        let mine = held.iter().find(|(d, t, _)| *d == key && *t == thread);
        if let Some(lock) = mine.and_then(|(_, _, lock)| lock.upgrade()) {
            return Ok(lock);
        }
        let lock = Arc::new(RunLock::acquire(dir)?);
        held.push((key, thread, Arc::downgrade(&lock)));
        Ok(lock)
    }

    /// Lock `dir` (which must exist) for this process, or say who holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock, SelfplayError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(SelfplayError::io(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut owner = String::new();
                let _ = (&mut file).take(4096).read_to_string(&mut owner);
                let owner = owner.trim();
                return Err(SelfplayError::Locked {
                    dir: dir.to_path_buf(),
                    owner: if owner.is_empty() { "another process".into() } else { owner.to_string() },
                });
            }
            Err(TryLockError::Error(e)) => return Err(SelfplayError::io(&path)(e)),
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::env::var("HOSTNAME"))
            .unwrap_or_else(|_| "an unknown host".into());
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let owner = format!("junqi pid {} on {} since unix time {since}\n", std::process::id(), host.trim());
        // Who holds it, for the error a second writer gets (best effort).
        let _ = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| file.write_all(owner.as_bytes()));
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = std::env::temp_dir().join(format!("junqi-run-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = RunLock::acquire(&dir).unwrap();
        let err = RunLock::acquire(&dir).unwrap_err().to_string();
        assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
        assert!(err.contains("choose another --out"), "{err}");
        drop(first);
        let again = RunLock::acquire(&dir).unwrap();
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_command_holds_its_lock_once_for_all_its_parts() {
        let dir = std::env::temp_dir().join(format!("junqi-run-hold-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let command = RunLock::hold(&dir).unwrap();
        let part = RunLock::hold(&dir.join(".")).unwrap();
        assert!(Arc::ptr_eq(&command, &part));
        // Held: another writer (a plain `acquire`, another thread) is refused.
        assert!(RunLock::acquire(&dir).is_err());
        let other = std::thread::scope(|s| s.spawn(|| RunLock::hold(&dir).map(|_| ())).join().unwrap());
        assert!(other.is_err());
        drop((command, part));
        let next = RunLock::hold(&dir).unwrap();
        drop(next);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
