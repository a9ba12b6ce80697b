//! Writing a small file atomically: a temporary name beside it, synced to
//! disk, then renamed over it, so a killed run never leaves half a file and
//! a full disk leaves no empty temporary one.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` through `tmp` (same directory): on any error the
/// temporary file is removed and `path` is left as it was.
pub fn write_atomic_via(tmp: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let written = std::fs::File::create(tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    let renamed = written.and_then(|_| std::fs::rename(tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    renamed
}
