//! Writing a file atomically: the bytes go to a hidden temporary file beside
//! it, which is synced to disk and then renamed over the target, and the
//! directory is synced after the rename. A reader only ever finds the old
//! file or the whole new one; a run killed at any point, or a full disk,
//! leaves no half-written file (the temporary one is removed on an error;
//! one left by a killed process is overwritten by the next write, and the
//! self-play resume removes its shards' ones).
//!
//! Every file the harness writes whole (run files, reports, nets, state,
//! checksum records, exported records) goes through [`write_atomic_with`].

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary name `path` is written under: `.NAME.tmp` in the same
/// directory (`NAME.tmp` when the name is already hidden).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let hidden = if name.starts_with('.') { format!("{name}.tmp") } else { format!(".{name}.tmp") };
    path.with_file_name(hidden)
}

/// Write `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Write `path` atomically from what `write` puts into a buffered writer:
/// on any error (the closure's or the file system's) the temporary file is
/// removed and `path` is left as it was.
pub fn write_atomic_with<T, E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> Result<T, E> {
    if path.file_name().is_none() {
        let message = format!("{}: not a file name", path.display());
        return Err(io::Error::new(io::ErrorKind::InvalidInput, message).into());
    }
    let tmp = temp_path(path);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&tmp)?);
        let value = write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        sync_dir(path);
        Ok(value)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Sync the directory holding `path`, so the rename itself is durable
/// (best effort: not every file system can open a directory).
fn sync_dir(path: &Path) {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_the_old_one_on_error() {
        let dir = std::env::temp_dir().join(format!("junqi-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.json");
        write_atomic(&path, b"first").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        let failed: Result<(), io::Error> = write_atomic_with(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("the writer failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"first", "the old file stays");
        assert!(!temp_path(&path).exists(), "no temporary file is left");
        assert_eq!(temp_path(&path), dir.join(".a.json.tmp"));
        assert_eq!(temp_path(&dir.join(".x.crc32c")), dir.join(".x.crc32c.tmp"));
        assert!(write_atomic(&dir.join("missing").join("b"), b"x").is_err(), "a missing directory is an error");
        // A path without a file name is refused before anything is written
        // (no `.tmp` is created beside it).
        std::fs::write(dir.join(".tmp"), b"keep").unwrap();
        assert!(write_atomic(&dir.join("sub").join(".."), b"x").is_err());
        assert_eq!(std::fs::read(dir.join(".tmp")).unwrap(), b"keep");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
