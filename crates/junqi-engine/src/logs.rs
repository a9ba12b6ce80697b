//! Engine log files in the run directory (docs/protocol.md, "Logs"): each
//! engine process's stderr, and with `debug=true` every line sent to and
//! received from it with a timestamp, under `<run dir>/engines/`, each file
//! bounded in size. Without a run directory (`play`, `engine-check`) stderr
//! is discarded.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The most bytes kept of one engine's stderr.
pub const MAX_STDERR_LOG: u64 = 1024 * 1024;
/// The most bytes kept of one engine's traffic log.
pub const MAX_TRAFFIC_LOG: u64 = 8 * 1024 * 1024;

/// The run directory of this process's command, where engine logs go.
static RUN_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Keep engine logs under `dir/engines/` (called by the commands with a run
/// directory before they build any bot).
pub fn log_to(dir: &Path) {
    *RUN_DIR.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
}

/// `dir/engines`, created, when a run directory was set.
pub(crate) fn engines_dir() -> Result<Option<PathBuf>, String> {
    let Some(dir) = RUN_DIR.lock().unwrap_or_else(|e| e.into_inner()).clone() else { return Ok(None) };
    let dir = dir.join("engines");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(Some(dir))
}

/// A file that keeps at most `limit` bytes, then one line saying so.
struct Bounded {
    file: File,
    written: u64,
    limit: u64,
}

impl Bounded {
    fn create(path: &Path, limit: u64) -> Result<Bounded, String> {
        let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Bounded { file, written: 0, limit })
    }

    /// Write `bytes` while there is room; the first that does not fit ends the log.
    fn write(&mut self, bytes: &[u8]) {
        if self.written > self.limit {
            return;
        }
        let room = self.limit - self.written;
        let kept = &bytes[..bytes.len().min(room as usize)];
        let _ = self.file.write_all(kept);
        self.written += kept.len() as u64;
        if kept.len() < bytes.len() {
            let _ = writeln!(self.file, "\n[log full at {} bytes: the rest is discarded]", self.limit);
            self.written = self.limit + 1;
        }
    }
}

/// Copy an engine's stderr into `path`, keeping at most [`MAX_STDERR_LOG`]
/// bytes; the rest is read and dropped so the engine never blocks on it.
pub(crate) fn keep_stderr(mut stderr: impl Read + Send + 'static, path: &Path) -> Result<(), String> {
    let mut log = Bounded::create(path, MAX_STDERR_LOG)?;
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            log.write(&buf[..n]);
        }
    });
    Ok(())
}

/// The traffic log of one engine (`debug=true`): `<ms> > <line>` for a line
/// sent, `<ms> < <line>` for a line received, milliseconds since the start.
#[derive(Clone)]
pub(crate) struct Traffic {
    log: Arc<Mutex<Bounded>>,
    start: Instant,
}

impl Traffic {
    pub fn create(path: &Path) -> Result<Traffic, String> {
        Ok(Traffic { log: Arc::new(Mutex::new(Bounded::create(path, MAX_TRAFFIC_LOG)?)), start: Instant::now() })
    }

    pub fn record(&self, direction: char, line: &str) {
        let entry = format!("{:>9} {direction} {line}\n", self.start.elapsed().as_millis());
        self.log.lock().unwrap_or_else(|e| e.into_inner()).write(entry.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bounded_log_stops_at_its_limit_and_says_so() {
        let path = std::env::temp_dir().join(format!("junqi-engine-bounded-{}", std::process::id()));
        let mut log = Bounded::create(&path, 10).unwrap();
        log.write(b"12345678");
        log.write(b"abcdef");
        log.write(b"more");
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(text.starts_with("12345678ab\n[log full at 10 bytes"), "{text}");
        assert!(!text.contains("more"), "{text}");
    }
}
