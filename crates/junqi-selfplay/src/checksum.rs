//! Content checksums of shard files: CRC-32C and length of every byte of a
//! shard, recorded beside it when it is written, verified on resume and by
//! the readers.
//!
//! The record of `DIR/games/shard-000003.parquet` is the hidden file
//! `DIR/games/.shard-000003.parquet.crc32c` (dataset readers skip names
//! starting with a dot), one line: the CRC-32C in 8 lowercase hex digits, a
//! space, the length in bytes. It is written atomically and synced, with its
//! directory, before the shard is renamed into place, so a shard that is
//! present always had its record written first; each shard has its own
//! record, so concurrent shard writers never share a file.

use crate::SelfplayError;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The extension of a record (the checksum's name).
pub const CHECKSUM_EXT: &str = "crc32c";

/// A shard's CRC-32C and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardChecksum {
    pub crc32c: u32,
    pub len: u64,
}

impl ShardChecksum {
    /// The record's text: `1a2b3c4d 123456\n`.
    pub fn to_line(self) -> String {
        format!("{:08x} {}\n", self.crc32c, self.len)
    }

    /// Parse a record's text; `None` when it is not one.
    pub fn parse(text: &str) -> Option<ShardChecksum> {
        let line = text.strip_suffix('\n')?;
        let (crc, len) = line.split_once(' ')?;
        if crc.len() != 8 || !crc.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return None;
        }
        if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(ShardChecksum { crc32c: u32::from_str_radix(crc, 16).ok()?, len: len.parse().ok()? })
    }

    /// The checksum of every byte of `path`, read once.
    pub fn of_file(path: &Path) -> Result<ShardChecksum, SelfplayError> {
        let mut file = std::fs::File::open(path).map_err(SelfplayError::io(path))?;
        let mut buf = vec![0u8; 1 << 20];
        let mut sum = ShardChecksum { crc32c: 0, len: 0 };
        loop {
            match file.read(&mut buf) {
                Ok(0) => return Ok(sum),
                Ok(n) => {
                    sum.crc32c = crc32c::crc32c_append(sum.crc32c, &buf[..n]);
                    sum.len += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(SelfplayError::Io { path: path.to_path_buf(), cause: e }),
            }
        }
    }
}

/// The record of the shard file `shard`: `.NAME.crc32c` beside it.
pub fn checksum_path(shard: &Path) -> PathBuf {
    let name = shard.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    shard.with_file_name(format!(".{name}.{CHECKSUM_EXT}"))
}

/// The record of `shard`: `None` when there is none, an error naming the
/// record when it cannot be read or is not a record.
pub fn read_checksum(shard: &Path) -> Result<Option<ShardChecksum>, SelfplayError> {
    let path = checksum_path(shard);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SelfplayError::Io { path, cause: e }),
    };
    match std::str::from_utf8(&bytes).ok().and_then(ShardChecksum::parse) {
        Some(sum) => Ok(Some(sum)),
        None => Err(SelfplayError::Corrupt {
            path: shard.to_path_buf(),
            message: format!(
                "its checksum record {} is damaged (not `<crc32c hex> <length>`)",
                path.file_name().unwrap_or_default().to_string_lossy()
            ),
        }),
    }
}

/// What [`verify_shard`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The file's checksum and length equal its record's.
    Matches,
    /// The shard has no record (written before records existed, or by
    /// another program): nothing to verify.
    NoRecord,
}

/// Check the shard file `shard` against its checksum record, when it has
/// one: an error naming the shard when its length or CRC-32C differs from
/// the record (the file is damaged: truncated, overwritten, bit-flipped),
/// or when the record itself is damaged.
///
/// A shard of a run whose `run.json` says every shard has a record
/// (`"checksums"`) and that has none is damaged too (its record was lost):
/// only shards of older runs, or loose files, pass unverified.
pub fn verify_shard(shard: &Path) -> Result<Verified, SelfplayError> {
    let Some(want) = read_checksum(shard)? else {
        if run_records_every_shard(shard) {
            return Err(SelfplayError::Corrupt {
                path: shard.to_path_buf(),
                message: format!(
                    "damaged: no checksum record ({} is missing, and its run.json says every shard has one)",
                    checksum_path(shard).file_name().unwrap_or_default().to_string_lossy()
                ),
            });
        }
        return Ok(Verified::NoRecord);
    };
    let got = ShardChecksum::of_file(shard)?;
    let damaged = |message: String| SelfplayError::Corrupt { path: shard.to_path_buf(), message };
    if got.len != want.len {
        return Err(damaged(format!(
            "damaged: {} bytes, its checksum record says {} (truncated or overwritten)",
            got.len, want.len
        )));
    }
    if got.crc32c != want.crc32c {
        return Err(damaged(format!(
            "damaged: checksum mismatch (CRC-32C {:08x}, its record says {:08x})",
            got.crc32c, want.crc32c
        )));
    }
    Ok(Verified::Matches)
}

/// Whether the run holding `shard` (`DIR/games/x.parquet` → `DIR/run.json`)
/// records a checksum for every shard.
fn run_records_every_shard(shard: &Path) -> bool {
    let Some(run) = shard.parent().and_then(Path::parent).map(|d| d.join(crate::RUN_FILE)) else {
        return false;
    };
    let Ok(text) = junqi_core::read_text(&run) else { return false };
    serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v.get("checksums").is_some_and(|c| !c.is_null()))
}

/// Write the record of `shard` durably: through a temporary file (removed
/// on resume like a shard's), synced, renamed, and the directory synced, so
/// the record is on disk before the caller renames the shard into place.
pub(crate) fn write_checksum(shard: &Path, sum: ShardChecksum) -> Result<(), SelfplayError> {
    let path = checksum_path(shard);
    junqi_core::write_atomic(&path, sum.to_line().as_bytes()).map_err(SelfplayError::io(&path))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Remove a shard file and its record (whichever exist).
pub(crate) fn remove_shard(shard: &Path) -> Result<(), SelfplayError> {
    for p in [shard.to_path_buf(), checksum_path(shard)] {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(SelfplayError::Io { path: p, cause: e }),
        }
    }
    Ok(())
}

/// Make the renames in `dir` durable.
fn sync_dir(dir: &Path) -> Result<(), SelfplayError> {
    #[cfg(unix)]
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(SelfplayError::io(dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// A writer that passes everything to `inner` and keeps the CRC-32C and
/// length of what it wrote.
pub(crate) struct Hashing<W> {
    inner: W,
    sum: ShardChecksum,
}

impl<W> Hashing<W> {
    pub(crate) fn new(inner: W) -> Self {
        Hashing { inner, sum: ShardChecksum { crc32c: 0, len: 0 } }
    }
    pub(crate) fn into_parts(self) -> (W, ShardChecksum) {
        (self.inner, self.sum)
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.crc32c = crc32c::crc32c_append(self.sum.crc32c, &buf[..n]);
        self.sum.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        let sum = ShardChecksum { crc32c: 0x0a1b_2c3d, len: 4096 };
        assert_eq!(sum.to_line(), "0a1b2c3d 4096\n");
        assert_eq!(ShardChecksum::parse(&sum.to_line()), Some(sum));
        for bad in
            ["", "0a1b2c3d 4096", "0a1b2c3 4096\n", "0A1B2C3D 4096\n", "0a1b2c3d\n", "0a1b2c3d -1\n", "0a1b2c3d 1 2\n"]
        {
            assert_eq!(ShardChecksum::parse(bad), None, "{bad:?}");
        }
        assert_eq!(
            checksum_path(Path::new("d/games/shard-000003.parquet")),
            Path::new("d/games/.shard-000003.parquet.crc32c")
        );
    }

    #[test]
    fn the_hashing_writer_agrees_with_the_file() {
        let dir = std::env::temp_dir().join(format!("junqi-checksum-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("shard-000000.parquet");
        let mut w = Hashing::new(std::fs::File::create(&path).unwrap());
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for chunk in data.chunks(65_537) {
            w.write_all(chunk).unwrap();
        }
        let (_, sum) = w.into_parts();
        assert_eq!(sum, ShardChecksum { crc32c: crc32c::crc32c(&data), len: data.len() as u64 });
        assert_eq!(ShardChecksum::of_file(&path).unwrap(), sum);
        assert_eq!(verify_shard(&path).unwrap(), Verified::NoRecord);
        write_checksum(&path, sum).unwrap();
        assert_eq!(verify_shard(&path).unwrap(), Verified::Matches);
        let mut bytes = data.clone();
        bytes[1_500_000] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let err = verify_shard(&path).unwrap_err().to_string();
        assert!(err.contains("shard-000000.parquet: damaged: checksum mismatch (CRC-32C "), "{err}");
        std::fs::write(&path, &data[..100]).unwrap();
        let err = verify_shard(&path).unwrap_err().to_string();
        assert!(err.contains("100 bytes, its checksum record says 3000000"), "{err}");
        std::fs::write(checksum_path(&path), "garbage").unwrap();
        let err = verify_shard(&path).unwrap_err().to_string();
        assert!(err.contains("checksum record .shard-000000.parquet.crc32c is damaged"), "{err}");
        remove_shard(&path).unwrap();
        assert!(!path.exists() && !checksum_path(&path).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
