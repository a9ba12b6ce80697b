//! The crate's integration tests as one test binary (one link instead of
//! one per file); each module is one former test file.

mod bots;
mod clock;
mod common;
mod exploit;
mod heuristic;
mod mcts;
