//! The fuzz suites' harness (included with `#[path]` by tests/fuzz_jfen.rs
//! and crates/junqi-cli/tests/fuzz.rs): a fixed seed and case count, a
//! watchdog that ends the process when a case hangs, and a global allocator
//! that fails a case asking for an absurd allocation. The including file
//! defines `CASE_LIMIT`, `MAX_SHRINK_ITERS` and `before_case()`.

use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, RngSeed, TestCaseError};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Cases of a property: `default`, or `JUNQI_FUZZ_CASES`; the seed is fixed
/// (`JUNQI_FUZZ_SEED` changes it). No failure files: a failure prints its
/// shrunk input, and the same seed finds it again.
pub fn fuzz_config(default_cases: u32) -> ProptestConfig {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let cases = env("JUNQI_FUZZ_CASES").map_or(default_cases, |v| {
        v.trim().parse().unwrap_or_else(|_| panic!("JUNQI_FUZZ_CASES must be a whole number, not `{v}`"))
    });
    let seed = env("JUNQI_FUZZ_SEED").map_or(0x004a_554e_5149_3135, |v| {
        v.trim().parse().unwrap_or_else(|_| panic!("JUNQI_FUZZ_SEED must be a whole number, not `{v}`"))
    });
    ProptestConfig {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: super::MAX_SHRINK_ITERS,
        ..ProptestConfig::default()
    }
}

/// The largest single allocation a case may ask for.
pub const MAX_CASE_ALLOCATION: usize = 64 << 20;

/// Counts the largest allocation request of each thread since its last
/// [`Case::start`], so a case that asks for absurd memory fails by name.
struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|c| {
        if size > c.get() {
            c.set(size);
        }
    });
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc`, passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: the caller's contract for `realloc`, passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Cases running now, by thread: when each started and what it is.
static RUNNING: Mutex<Option<HashMap<std::thread::ThreadId, (Instant, String)>>> = Mutex::new(None);

/// One fuzz case: watched for hangs and for its largest allocation.
pub struct Case;

impl Case {
    pub fn start(what: impl FnOnce() -> String) -> Case {
        static WATCHDOG: OnceLock<()> = OnceLock::new();
        WATCHDOG.get_or_init(|| {
            std::thread::spawn(|| loop {
                std::thread::sleep(Duration::from_millis(250));
                let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
                for (started, what) in running.iter().flat_map(|r| r.values()) {
                    if started.elapsed() > super::CASE_LIMIT {
                        eprintln!("fuzz case hung (over {:?}): {what}", super::CASE_LIMIT);
                        std::process::abort();
                    }
                }
            });
        });
        super::before_case();
        let what = what();
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .insert(std::thread::current().id(), (Instant::now(), what));
        LARGEST.with(|c| c.set(0));
        Case
    }

    /// Fail the case when it asked for an absurd allocation.
    pub fn finish(self) -> Result<(), TestCaseError> {
        let largest = LARGEST.with(|c| c.get());
        prop_assert!(largest <= MAX_CASE_ALLOCATION, "a single allocation of {} bytes", largest);
        Ok(())
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        if let Some(r) = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            r.remove(&std::thread::current().id());
        }
    }
}

/// An edit of text at the byte level (positions taken modulo the length).
#[derive(Clone, Debug)]
pub enum ByteEdit {
    /// Flip one bit of a byte.
    Flip(usize, u8),
    /// Overwrite, insert or delete one byte.
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    /// Delete or duplicate a run of bytes.
    DeleteRun(usize, usize),
    Duplicate(usize, usize),
    /// Cut the text short.
    Truncate(usize),
}

/// Byte edits with new bytes from `byte`, runs up to `max_run` long.
pub fn byte_edit(byte: impl Strategy<Value = u8> + Clone, max_run: usize) -> impl Strategy<Value = ByteEdit> {
    let at = any::<usize>();
    prop_oneof![
        (at, 0..8u8).prop_map(|(a, b)| ByteEdit::Flip(a, b)),
        (at, byte.clone()).prop_map(|(a, b)| ByteEdit::Set(a, b)),
        (at, byte).prop_map(|(a, b)| ByteEdit::Insert(a, b)),
        at.prop_map(ByteEdit::Delete),
        (at, 1..max_run / 2).prop_map(|(a, n)| ByteEdit::DeleteRun(a, n)),
        (at, 1..max_run).prop_map(|(a, n)| ByteEdit::Duplicate(a, n)),
        at.prop_map(ByteEdit::Truncate),
    ]
}

impl ByteEdit {
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        let at = |a: usize| a % (len + 1);
        match *self {
            ByteEdit::Flip(a, bit) if len > 0 => bytes[a % len] ^= 1 << bit,
            ByteEdit::Set(a, b) if len > 0 => bytes[a % len] = b,
            ByteEdit::Insert(a, b) => bytes.insert(at(a), b),
            ByteEdit::Delete(a) if len > 0 => {
                bytes.remove(a % len);
            }
            ByteEdit::DeleteRun(a, n) => {
                let from = at(a);
                bytes.drain(from..(from + n).min(len));
            }
            ByteEdit::Duplicate(a, n) => {
                let from = at(a);
                let run = bytes[from..(from + n).min(len)].to_vec();
                bytes.splice(from..from, run);
            }
            ByteEdit::Truncate(a) => bytes.truncate(at(a)),
            // Nothing to change in empty text.
            ByteEdit::Flip(..) | ByteEdit::Set(..) | ByteEdit::Delete(_) => {}
        }
    }
}
