//! `VecEnv`: N games stepped together (skeleton; being written).
