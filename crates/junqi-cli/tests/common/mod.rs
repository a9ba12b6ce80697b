//! Helpers shared by the CLI test binaries.
#![allow(dead_code)] // each test binary uses a different subset

use std::process::Output;

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
