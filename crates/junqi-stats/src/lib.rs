//! # junqi-stats
//!
//! Statistics for the evaluation arena: logistic Elo, Wilson intervals, pentanomial counts and fishtest's
//! normalized-Elo SPRT.

pub mod bradley_terry;
pub mod elo;
pub mod error;
pub mod interval;
mod linalg;
pub mod penta;
mod root;
pub mod sprt;
pub mod wilson;
