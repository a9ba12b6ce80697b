//! Reading a file with a size limit. A device given by mistake
//! (`/dev/zero`, `/dev/urandom`, a pipe) or a huge file ends in an error
//! naming the limit, not in a read that never ends or exhausts memory.

use std::io::{self, Read};
use std::path::Path;

/// The most bytes this program reads from a text file: rules, configs, run
/// records (the largest it writes are a few hundred kilobytes).
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// The bytes of the regular file at `path`, if there are at most `max_bytes`.
pub fn read_bounded(path: impl AsRef<Path>, max_bytes: u64) -> io::Result<Vec<u8>> {
    let path = path.as_ref();
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {max_bytes} bytes, the most this program reads from such a file"),
        ));
    }
    Ok(bytes)
}

/// The text of the regular file at `path`: UTF-8, at most [`MAX_TEXT_BYTES`].
pub fn read_text(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read_bounded(path, MAX_TEXT_BYTES)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded_and_refuse_devices() {
        let dir = std::env::temp_dir().join(format!("junqi-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_bounded(&file, 10).unwrap().len(), 10);
        let err = read_bounded(&file, 9).unwrap_err().to_string();
        assert!(err.contains("larger than 9 bytes"), "{err}");
        assert_eq!(read_text(&file).unwrap(), "0123456789");
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert!(read_text(&file).unwrap_err().to_string().contains("not UTF-8"));
        // A directory, and on Unix endless devices, are refused at once.
        assert!(read_text(&dir).unwrap_err().to_string().contains("not a regular file"));
        if Path::new("/dev/zero").exists() {
            assert!(read_text("/dev/zero").unwrap_err().to_string().contains("not a regular file"));
            assert!(read_bounded("/dev/urandom", 1 << 40).unwrap_err().to_string().contains("not a regular file"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
