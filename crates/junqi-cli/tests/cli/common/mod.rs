//! Helpers shared by the CLI test binaries.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Run `junqi ARGS` with `stdin` written to its standard input, then EOF.
pub fn junqi_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run junqi");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().unwrap();
    std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Exit code 2 and exactly one stderr line starting `error:`, no panic.
pub fn assert_clean_error(o: &Output, mentions: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(mentions), "expected `{mentions}` in: {err}");
}

/// A fresh directory path for one test: `junqi-cli-MODULE-PID-NAME` under
/// the system's temp dir, emptied first, and created when `create`.
pub fn temp_dir(module: &str, name: &str, create: bool) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-cli-{module}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    if create {
        std::fs::create_dir_all(&d).unwrap();
    }
    d
}
