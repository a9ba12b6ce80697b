//! A panic inside a library (the Parquet decoder on a damaged file,
//! libtorch on an impossible allocation) caught at our boundary and turned
//! into an error, so the user sees one line and an exit code, not a
//! backtrace from someone else's code.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many [`catch_library_panic`] calls this thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

/// `f()`, or the message of the panic it raised. While `f` runs, a panic
/// on this thread is not printed (the caller reports it as an error);
/// panics elsewhere are printed as before.
pub fn catch_library_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) == 0 {
                previous(info)
            }
        }));
    });
    CATCHING.with(|c| c.set(c.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_values_pass_through() {
        assert_eq!(catch_library_panic(|| 7), Ok(7));
        assert_eq!(catch_library_panic(|| -> u32 { panic!("bad {}", 3) }), Err("bad 3".to_string()));
        assert_eq!(catch_library_panic(|| -> u32 { panic!("static") }), Err("static".to_string()));
        // Nested: the inner one is caught, the outer goes on.
        assert_eq!(
            catch_library_panic(|| catch_library_panic(|| -> u8 { panic!("inner") }).unwrap_err()),
            Ok("inner".into())
        );
    }
}
