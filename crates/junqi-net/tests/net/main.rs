//! The crate's integration tests as one test binary (one link instead of
//! one per file); each module is one former test file.

mod determinism;
mod net_file;
mod precision;
mod service;
mod shipped;
mod siguo;
mod siguo_deploy;
mod siguo_service;

/// Held by the tests that change the process-wide inference settings or
/// count the shared services' batches (determinism, shipped): they share
/// this test binary and must not run beside each other.
pub fn shared_services() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
