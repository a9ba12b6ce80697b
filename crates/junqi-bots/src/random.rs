//! `random`: uniformly among the legal actions.

use crate::{uniform, Agent, Decision};
use junqi_core::{GameRng, InfoSet, MoveList};
use rand::Rng;

/// Plays a uniformly random legal action.
#[derive(Clone, Debug, Default)]
pub struct RandomBot {
    moves: MoveList,
}

impl RandomBot {
    pub fn new() -> RandomBot {
        RandomBot::default()
    }
}

impl Agent for RandomBot {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        info.legal_moves(&mut self.moves);
        assert!(!self.moves.is_empty(), "act called on a finished game");
        let action = self.moves[rng.random_range(0..self.moves.len())];
        Decision { action, policy: uniform(self.moves.as_slice()), value: None }
    }
}
