//! The cross-crate tests as one test binary (one link instead of one per
//! file); each module is one test file of this directory.

// Clause-by-clause tests of docs/rules.md §1–§8 on hand-built positions.
mod rules_clauses;

// The fast generator against the slow reference one on random positions.
mod reference_movegen;

// JFEN round-trip, piece conservation, determinism from a seed.
mod properties;

// Information sets: nothing hidden leaks, beliefs stay consistent.
mod infoset;

// Determinization: sampled worlds are possible truths, near-uniform, seeded.
mod determinize;

// Fuzzing of JFEN and move text at scale: arbitrary and mutated input, a
// fixed seed and case count (JUNQI_FUZZ_CASES / JUNQI_FUZZ_SEED override them).
mod fuzz_jfen;

// docs/architecture.md against `cargo metadata` and the module files.
mod architecture;

// Every relative link of README.md and docs/*.md leads to a file and heading.
mod doc_links;
