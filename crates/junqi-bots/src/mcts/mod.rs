//! `mcts` and `cheat-mcts`: information-set Monte Carlo tree search.
//!
//! * `mcts` (an [`Agent`]): single-observer ISMCTS. Every simulation draws a
//!   world consistent with the seat's information set
//!   ([`junqi_core::InfoSet::sample_world`]) and searches the one tree of
//!   action sequences in it ([`Search`]).
//! * `cheat-mcts` (a [`CheatingAgent`]): the same search, every simulation in
//!   the true position: an upper reference, never a fair opponent.
//!
//! Leaves are valued by a [`LeafEvaluator`]; the default [`RolloutEvaluator`]
//! plays a short playout and scores material. Parameters (spec
//! `mcts:sims=400,c=1.4`, or `mcts:400` for the simulations alone): see
//! [`MctsConfig`].

mod config;
mod deploy;
mod eval;
mod search;
mod tree;

pub use config::MctsConfig;
pub use deploy::mcts_deployment;
pub use eval::{material_value, outcome_value, LeafEvaluator, RolloutEvaluator, RolloutPolicy};
pub use search::Search;

use crate::{Agent, CheatingAgent, Decision};
use junqi_core::{Colour, Deployment, GameRng, InfoSet, Position, Rules};

/// The fair MCTS bot: searches worlds drawn from its information set.
pub struct Mcts<E: LeafEvaluator = RolloutEvaluator> {
    config: MctsConfig,
    search: Search<E>,
}

impl Mcts {
    /// With the default rollout evaluator of `config`.
    pub fn new(config: MctsConfig) -> Mcts {
        Mcts::with_evaluator(config, config.evaluator())
    }
}

impl<E: LeafEvaluator> Mcts<E> {
    /// With another leaf evaluator (e.g. a network); `config.depth` and
    /// `config.rollout` then do not apply.
    pub fn with_evaluator(config: MctsConfig, evaluator: E) -> Mcts<E> {
        Mcts { config, search: Search::new(evaluator, config.c) }
    }
}

impl<E: LeafEvaluator> Agent for Mcts<E> {
    fn name(&self) -> String {
        self.config.spec("mcts")
    }
    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        self.search.run(self.config.sims, |rng| info.sample_world(rng), rng)
    }
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        mcts_deployment(colour, rules, rng)
    }
}

/// The cheating reference: the same search, every simulation in the truth.
pub struct CheatMcts<E: LeafEvaluator = RolloutEvaluator> {
    config: MctsConfig,
    search: Search<E>,
}

impl CheatMcts {
    pub fn new(config: MctsConfig) -> CheatMcts {
        CheatMcts { config, search: Search::new(config.evaluator(), config.c) }
    }
}

impl<E: LeafEvaluator> CheatingAgent for CheatMcts<E> {
    fn name(&self) -> String {
        self.config.spec("cheat-mcts")
    }
    fn act(&mut self, truth: &Position, rng: &mut GameRng) -> Decision {
        self.search.run(self.config.sims, |_| truth.clone(), rng)
    }
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        mcts_deployment(colour, rules, rng)
    }
}
