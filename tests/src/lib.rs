//! Test support shared by the integration tests in this folder.

pub mod reference;
