//! Bots (skeleton).
