//! TensorBoard event files, written by hand: TFRecord framing around
//! `tensorflow.Event` protobuf messages that hold one scalar each.
//!
//! Our own writer instead of `tensorboard-rs` because that crate writes on a
//! background thread that panics on an I/O error (a full disk aborted the
//! whole `train`), so no error could reach the caller. Here every write
//! returns its error. The format needs only three protobuf messages and
//! CRC-32C, which keeps it small:
//!
//! * record: `u64 length (LE)`, `u32 masked_crc32c(length bytes)`, `data`,
//!   `u32 masked_crc32c(data)`;
//! * `Event { double wall_time = 1; int64 step = 2; string file_version = 3;
//!   Summary summary = 5; }`, `Summary { repeated Value value = 1; }`,
//!   `Value { string tag = 1; float simple_value = 2; }`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An open event file.
pub struct EventWriter {
    file: BufWriter<File>,
    path: PathBuf,
}

impl EventWriter {
    /// A new file `events.out.tfevents.<seconds>.<host>.<pid>.<n>` in `dir`
    /// (TensorBoard reads every file with `tfevents` in its name, in name
    /// order; the per-process counter `n` keeps two writers apart), starting
    /// with the `file_version` record TensorBoard expects first.
    pub fn create(dir: &Path) -> std::io::Result<EventWriter> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let now = wall_time();
        // A name left by an earlier process with the same pid in the same
        // second (a restarted container) is skipped, never overwritten.
        let (file, path) = loop {
            let name = format!(
                "events.out.tfevents.{:010}.{}.{}.{}",
                now as u64,
                host_name(),
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            let path = dir.join(name);
            match File::options().write(true).create_new(true).open(&path) {
                Ok(file) => break (file, path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        let mut writer = EventWriter { file: BufWriter::new(file), path };
        let mut event = Vec::new();
        put_double(&mut event, 1, now);
        put_bytes(&mut event, 3, b"brain.Event:2");
        writer.record(&event)?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one scalar event.
    pub fn scalar(&mut self, tag: &str, step: u64, value: f32) -> std::io::Result<()> {
        let mut summary_value = Vec::with_capacity(tag.len() + 8);
        put_bytes(&mut summary_value, 1, tag.as_bytes());
        put_float(&mut summary_value, 2, value);
        let mut summary = Vec::with_capacity(summary_value.len() + 4);
        put_bytes(&mut summary, 1, &summary_value);
        let mut event = Vec::with_capacity(summary.len() + 24);
        put_double(&mut event, 1, wall_time());
        put_varint_field(&mut event, 2, step);
        put_bytes(&mut event, 5, &summary);
        self.record(&event)
    }

    /// Push buffered records to the file and the file to the disk.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.flush()?;
        self.file.get_ref().sync_data()
    }

    fn record(&mut self, data: &[u8]) -> std::io::Result<()> {
        let length = (data.len() as u64).to_le_bytes();
        self.file.write_all(&length)?;
        self.file.write_all(&masked_crc(&length).to_le_bytes())?;
        self.file.write_all(data)?;
        self.file.write_all(&masked_crc(data).to_le_bytes())
    }
}

/// One scalar read back from an event file.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarEvent {
    pub tag: String,
    pub step: u64,
    pub value: f32,
}

/// Every scalar of the event files in `dir`, in file-name order (what
/// TensorBoard reads, for checks and tools; CRCs are verified). Reads only
/// the fields [`EventWriter`] writes.
pub fn read_scalars(dir: &Path) -> std::io::Result<Vec<ScalarEvent>> {
    let bad = |what: &str, path: &Path| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {what}", path.display()))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()?
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains("tfevents")))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let bytes = std::fs::read(&path)?;
        let mut at = 0;
        while at < bytes.len() {
            let head = bytes.get(at..at + 12).ok_or_else(|| bad("truncated record", &path))?;
            let len = u64::from_le_bytes(head[..8].try_into().unwrap_or_default()) as usize;
            let end = at.checked_add(16).and_then(|x| x.checked_add(len)).filter(|&e| e <= bytes.len());
            let end = end.ok_or_else(|| bad("truncated record", &path))?;
            let data = &bytes[at + 12..end - 4];
            let crc = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or_default());
            if crc(&head[8..12]) != masked_crc(&head[..8]) || crc(&bytes[end - 4..end]) != masked_crc(data) {
                return Err(bad("bad CRC", &path));
            }
            out.extend(scalar_of(data).ok_or_else(|| bad("unreadable event", &path))?);
            at = end;
        }
    }
    Ok(out)
}

/// The scalar of one `Event` (None inside: an event without one, e.g. the
/// `file_version` record).
fn scalar_of(event: &[u8]) -> Option<Option<ScalarEvent>> {
    let (mut step, mut value) = (0, None);
    for (field, v) in fields(event)? {
        match (field, v) {
            (2, Field::Varint(s)) => step = s,
            (5, Field::Bytes(summary)) => {
                for (f, v) in fields(summary)? {
                    if let (1, Field::Bytes(val)) = (f, v) {
                        let (mut tag, mut x) = (None, None);
                        for (f, v) in fields(val)? {
                            match (f, v) {
                                (1, Field::Bytes(t)) => tag = Some(String::from_utf8_lossy(t).into_owned()),
                                (2, Field::Fixed32(b)) => x = Some(f32::from_le_bytes(b)),
                                _ => {}
                            }
                        }
                        value = Some((tag?, x?));
                    }
                }
            }
            _ => {}
        }
    }
    Some(value.map(|(tag, value)| ScalarEvent { tag, step, value }))
}

enum Field<'a> {
    Varint(u64),
    Fixed64,
    Fixed32([u8; 4]),
    Bytes(&'a [u8]),
}

/// A protobuf message's fields (None: malformed).
fn fields(mut b: &[u8]) -> Option<Vec<(u64, Field<'_>)>> {
    fn varint(b: &mut &[u8]) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = b.split_first()?;
            *b = rest;
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(v);
            }
        }
        None
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        let field = match key & 7 {
            0 => Field::Varint(varint(&mut b)?),
            1 => {
                b = b.get(8..)?;
                Field::Fixed64
            }
            5 => {
                let (x, rest) = b.split_at_checked(4)?;
                b = rest;
                Field::Fixed32(x.try_into().ok()?)
            }
            2 => {
                let len = usize::try_from(varint(&mut b)?).ok()?;
                let (x, rest) = b.split_at_checked(len)?;
                b = rest;
                Field::Bytes(x)
            }
            _ => return None,
        };
        out.push((key >> 3, field));
    }
    Some(out)
}

fn wall_time() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs_f64()
}

/// The machine's name as the kernel reports it, reduced to characters safe in
/// a file name ("localhost" when unknown).
fn host_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = raw.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

/// TFRecord's CRC mask (so a CRC over data that holds CRCs stays well mixed).
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_key(out: &mut Vec<u8>, field: u64, wire_type: u64) {
    put_varint(out, field << 3 | wire_type);
}

fn put_varint_field(out: &mut Vec<u8>, field: u64, v: u64) {
    put_key(out, field, 0);
    put_varint(out, v);
}

fn put_double(out: &mut Vec<u8>, field: u64, v: f64) {
    put_key(out, field, 1);
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_float(out: &mut Vec<u8>, field: u64, v: f32) {
    put_key(out, field, 5);
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    put_key(out, field, 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_crc_matches_tensorflow() {
        // CRC-32C of "123456789" is 0xe3069283 (the standard check value).
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
        let crc: u32 = 0xe306_9283;
        assert_eq!(masked_crc(b"123456789"), ((crc >> 15) | (crc << 17)).wrapping_add(0xa282_ead8));
    }

    #[test]
    fn varints_and_fields_encode_like_protobuf() {
        let mut v = Vec::new();
        put_varint(&mut v, 300);
        assert_eq!(v, [0xac, 0x02]);
        let mut f = Vec::new();
        put_bytes(&mut f, 1, b"ab");
        assert_eq!(f, [0x0a, 2, b'a', b'b']);
        let mut s = Vec::new();
        put_varint_field(&mut s, 2, 7);
        assert_eq!(s, [0x10, 7]);
    }

    #[test]
    fn records_frame_their_data() {
        let dir = std::env::temp_dir().join(format!("junqi-tb-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = EventWriter::create(&dir).unwrap();
        w.scalar("loss/total", 5, 0.25).unwrap();
        w.sync().unwrap();
        let bytes = std::fs::read(w.path()).unwrap();
        let mut at = 0;
        let mut records = 0;
        while at < bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            assert_eq!(u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()), masked_crc(&bytes[at..at + 8]));
            let data = &bytes[at + 12..at + 12 + len];
            assert_eq!(u32::from_le_bytes(bytes[at + 12 + len..at + 16 + len].try_into().unwrap()), masked_crc(data));
            at += 16 + len;
            records += 1;
        }
        assert_eq!(records, 2);
        assert_eq!(read_scalars(&dir).unwrap(), [ScalarEvent { tag: "loss/total".into(), step: 5, value: 0.25 }]);
        // A damaged byte is an error, not a wrong value.
        let mut damaged = bytes.clone();
        let last = damaged.len() - 6;
        damaged[last] ^= 1;
        std::fs::write(w.path(), damaged).unwrap();
        assert!(read_scalars(&dir).unwrap_err().to_string().contains("bad CRC"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
