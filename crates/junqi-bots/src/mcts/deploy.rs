//! 暗棋/明棋 deployment of the MCTS bots: the one place to swap in a better
//! (heuristic) deployment later.

use junqi_core::{Colour, Deployment, GameRng, Rules};

/// The deployment `mcts` and `cheat-mcts` use for `colour`: uniformly random
/// among the legal ones for now.
pub fn mcts_deployment(colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
    let _ = rules;
    Deployment::random(colour, rng)
}
