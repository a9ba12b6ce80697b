//! The crate's integration tests as one test binary (one link instead of
//! one per file); each module is one former test file.

mod cli;
mod common;
mod contributing;
mod engine;
mod engine_check;
mod engine_faults;
mod engine_fuzz;
mod evaluation;
mod exploit;
mod fuzz;
mod fuzz_serve;
mod golden;
mod kill_resume;
mod limits;
mod merge_out;
mod network;
mod parts;
mod play;
mod records;
mod regress_suites;
mod selfplay;
mod serve;
mod shard_checksums;
mod siguo_engine;
mod siguo_records;
mod siguo_tools;
mod sprt_verdicts;
mod study_ladder;
mod study_rules;
mod study_tallies;
mod timeouts;
