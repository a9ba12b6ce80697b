//! The crate's integration tests as one test binary (one link instead of
//! one per file); each module is one former test file.

mod checksums;
mod common;
mod custom_bot;
mod dataset;
mod schema;
mod siguo;
