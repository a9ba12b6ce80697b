//! 暗棋/明棋 deployment of the MCTS bots: the search plays from the
//! deployment, so they use the heuristic bot's formations (flag in a
//! headquarters guarded by mines, bombs on its approaches).

use junqi_core::{Colour, Deployment, GameRng, Rules};

/// The deployment `mcts` and `cheat-mcts` use for `colour`.
pub fn mcts_deployment(colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
    crate::heuristic_deployment(colour, rules, rng)
}
