//! The crate's integration tests as one test binary (one link instead of
//! one per file); each module is one former test file.

mod checkpoints;
mod common;
mod cpu_forward;
mod loader;
mod netbots;
mod precision;
mod random_damage;
mod resume;
mod siguo_belief;
mod siguo_deployments;
mod siguo_net;
mod siguo_train;
mod torch_precision;
mod train;
