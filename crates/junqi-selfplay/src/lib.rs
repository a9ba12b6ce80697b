//! Self-play (skeleton).
