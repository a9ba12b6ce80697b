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
//!
//! ## Defaults and measurements
//!
//! Release build, one core of a shared 2-core machine (so on the slow side):
//!
//! | | 翻棋 | 暗棋 |
//! |---|---|---|
//! | `mcts:200` moves/s (sims/s) | ≈2 300–2 900 (≈0.5 M) | ≈770–1 300 (≈0.2 M) |
//! | `mcts:800` ms/move | ≈1.4–2 | ≈3.8–5 |
//! | `mcts:200` vs `greedy`, 100 games, seats swapped | 96.0 % | 93.5 % |
//! | `mcts:200` vs `heuristic`, 100 games | 27.5 % | 32.5 % |
//! | `mcts:3200` vs `heuristic`, 40 games (≈6 / 15 ms/move) | 67.5 % | 72.5 % |
//!
//! A simulation costs a few µs (暗棋 more: drawing the kind assignment), so
//! a 50 ms budget buys ≈10 000 simulations; more simulations beat heavier
//! leaves. Head to head at 200 simulations (40 games each, against the
//! defaults): playout depth 0 scored 12.5 % (翻棋) / 32.5 % (暗棋), depth 2
//! 47.5 / 42.5, depth 6 52.5 / 42.5, depth 12 37.5 / 52.5 (and slower),
//! depth 30 27.5 / 42.5, uniformly random playouts 20.0 / 42.5, `c=0.35`
//! 53.8 / 62.5, `c=1.4` 56.2 / 50.0 (the `c` results are within noise).
//! Material scale ([`RolloutEvaluator::scale`]), `mcts:800` against
//! `heuristic`, 100 games each: 8 scored 29.5 % / 40.0 %, 20 scored
//! 42.0 % / 40.0 %, 50 scored 37.0 % / 43.0 %. Hence the defaults: 4 plies of
//! capture-first playout, then material at scale 20, `c=0.7`.

pub mod clock;
mod config;
mod deploy;
mod eval;
mod gumbel;
mod search;
mod tree;

pub use clock::{MoveClock, TimeControl};
pub use config::{MctsConfig, MCTS_KEYS};
pub use deploy::mcts_deployment;
pub use eval::{material_value, outcome_value, LeafEvaluator, LeafValue, RolloutEvaluator, RolloutPolicy};
pub use gumbel::{considered_visits, GumbelOptions, GumbelRoot};
pub use search::{sample_at_temperature, DrawScore, RootOptions, Search};

use crate::{deploy_with, Agent, CheatingAgent, Decision, DeploymentModel};
use junqi_core::{Colour, Deployment, GameRng, InfoSet, KindBelief, Mode, Position, Rules};
use std::sync::Arc;
use std::task::Poll;

/// The fair MCTS bot: searches worlds drawn from its information set.
pub struct Mcts<E: LeafEvaluator = RolloutEvaluator> {
    config: MctsConfig,
    search: Search<E>,
    /// Appended to the spec in [`Agent::name`], e.g. `,eval=net:default`.
    name_suffix: String,
    /// The evaluator's belief for the search under way: `None` until asked
    /// ([`LeafEvaluator::belief`]), then its answer until the search ends.
    belief: Option<Option<KindBelief>>,
    /// A learned deployment model (a net's), else the heuristic formations.
    deployer: Option<Arc<DeploymentModel>>,
    /// `,opponent=SPEC` when the search models the other seat by a bot.
    opponent_suffix: String,
    /// 暗棋 with an opponent model: where the model deploys each kind (see
    /// [`deployment_belief`]), the worlds' weights for the enemy's pieces;
    /// made at the first move, for the enemy's colour.
    model_belief: Option<(Colour, KindBelief)>,
    /// With `movetime` or `tc`: the move's deadline and the game's clock.
    clock: Option<MoveClock>,
    /// [`Agent::time_next_move`]: the next move's time, whether `sims`
    /// still caps it, and (once the move started) when it started.
    next_move: Option<(std::time::Duration, bool, Option<std::time::Instant>)>,
}

/// Deployments the model's belief is made of.
pub const MODEL_DEPLOYMENTS: u64 = 400;

/// How often `model` deploys each kind on each square, over
/// [`MODEL_DEPLOYMENTS`] deployments of `colour` (seeds 0, 1, …): a 暗棋
/// search that models its opponent draws the enemy's kinds from it, so a
/// bot that deploys in formations is searched in worlds it would deploy.
/// Exact for the pieces still on the square they were deployed to; a piece
/// that moved is weighted as if it had started where it stands.
pub fn deployment_belief(model: &mut dyn Agent, colour: Colour, rules: &Rules) -> KindBelief {
    let mut belief = KindBelief::empty();
    let w = 1.0 / MODEL_DEPLOYMENTS as f32;
    for seed in 0..MODEL_DEPLOYMENTS {
        let d = model.deploy(colour, rules, &mut junqi_core::rng_from_seed(seed));
        for (sq, kind) in d.pieces {
            belief.probs[sq.index()][kind.index()] += w;
        }
    }
    belief
}

impl Mcts {
    /// With the default rollout evaluator of `config`.
    pub fn new(config: MctsConfig) -> Mcts {
        Mcts::with_evaluator(config, config.evaluator())
    }
}

impl<E: LeafEvaluator> Mcts<E> {
    /// With another leaf evaluator (e.g. a network); `config.depth` and
    /// `config.rollout` then apply only to what that evaluator does with them
    /// (the net evaluator's `mix` playout).
    pub fn with_evaluator(config: MctsConfig, evaluator: E) -> Mcts<E> {
        Mcts {
            config,
            search: config.search(evaluator),
            name_suffix: String::new(),
            belief: None,
            deployer: None,
            opponent_suffix: String::new(),
            model_belief: None,
            clock: config.time.map(MoveClock::new),
            next_move: None,
        }
    }

    /// Deploy with `deployer` (e.g. the net's learned model) when given.
    pub fn with_deployer(mut self, deployer: Option<Arc<DeploymentModel>>) -> Mcts<E> {
        self.deployer = deployer;
        self
    }

    /// The bot's clock, when it plays by time (`movetime` or `tc`).
    pub fn clock(&self) -> Option<&MoveClock> {
        self.clock.as_ref()
    }

    /// Add `suffix` to the bot's name (its spec), e.g. `,eval=net:default`.
    pub fn with_name_suffix(mut self, suffix: impl Into<String>) -> Mcts<E> {
        self.name_suffix = suffix.into();
        self
    }
}

impl<E: LeafEvaluator> Agent for Mcts<E> {
    fn name(&self) -> String {
        self.config.spec("mcts") + &self.name_suffix + &self.opponent_suffix
    }
    fn model_opponent(&mut self, target: Box<dyn Agent>) -> Result<(), String> {
        self.opponent_suffix = format!(",opponent={}", crate::spec_value(&target.name()));
        self.search.opponent = Some(target);
        Ok(())
    }
    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        loop {
            match self.poll_act(info, rng) {
                Poll::Ready(d) => return d,
                Poll::Pending => self.wait(),
            }
        }
    }
    fn poll_act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Poll<Decision> {
        let mut sims = self.config.sims;
        if let Some((time, keep_sims, started)) = self.next_move.as_mut() {
            self.search.deadline = Some(*started.get_or_insert_with(std::time::Instant::now) + *time);
            if !*keep_sims {
                sims = clock::TIMED_SIMS;
            }
        } else if let Some(clock) = self.clock.as_mut() {
            // The first poll of a move starts its time; later polls keep it.
            self.search.deadline = Some(clock.start_move(info.seat(), info.view().ply()));
        }
        if self.belief.is_none() {
            if !self.config.belief {
                self.belief = Some(None);
            } else {
                let Poll::Ready(belief) = self.search.evaluator.belief(info) else { return Poll::Pending };
                self.belief = Some(belief);
            }
        }
        // 暗棋 with an opponent model and no belief of the evaluator's: the model's deployments.
        let enemy = info.view().colour_of(info.seat().other());
        let modelled = info.mode() == Mode::Anqi && self.belief.as_ref().is_some_and(Option::is_none);
        if let (true, Some(enemy), Some(model)) = (modelled, enemy, self.search.opponent.as_mut()) {
            if self.model_belief.as_ref().is_none_or(|(c, _)| *c != enemy) {
                self.model_belief = Some((enemy, deployment_belief(model.as_mut(), enemy, info.view().rules())));
            }
        }
        let model_belief = self.model_belief.as_ref().filter(|_| modelled).map(|(_, b)| b);
        let belief = self.belief.as_ref().and_then(Option::as_ref).or(model_belief);
        let decision = self.search.poll_informed(sims, Some(info), |rng| info.sample_world_believing(rng, belief), rng);
        if decision.is_ready() {
            self.belief = None;
            if self.next_move.take().is_some() {
                self.search.deadline = None;
            } else if let Some(clock) = self.clock.as_mut() {
                clock.end_move();
            }
        }
        decision
    }
    fn time_next_move(&mut self, time: std::time::Duration, keep_sims: bool) -> bool {
        self.next_move = Some((time, keep_sims, None));
        true
    }
    fn game_over(&mut self, _seat: junqi_core::Seat, _outcome: &junqi_core::Outcome) {
        if let Some(clock) = self.clock.as_mut() {
            clock.new_game();
        }
    }
    fn wait(&mut self) {
        self.search.evaluator.wait()
    }
    fn batches(&self) -> bool {
        self.search.evaluator.batches()
    }
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        // Without a learned model: the heuristic formations, as mcts_deployment.
        deploy_with(self.deployer.as_deref(), colour, rules, rng)
    }
}

/// The cheating reference: the same search, every simulation in the truth.
pub struct CheatMcts<E: LeafEvaluator = RolloutEvaluator> {
    config: MctsConfig,
    search: Search<E>,
    clock: Option<MoveClock>,
}

impl CheatMcts {
    pub fn new(config: MctsConfig) -> CheatMcts {
        CheatMcts { config, search: config.search(config.evaluator()), clock: config.time.map(MoveClock::new) }
    }
}

impl<E: LeafEvaluator> CheatingAgent for CheatMcts<E> {
    fn name(&self) -> String {
        self.config.spec("cheat-mcts")
    }
    fn act(&mut self, truth: &Position, rng: &mut GameRng) -> Decision {
        if let Some(clock) = self.clock.as_mut() {
            self.search.deadline = Some(clock.start_move(truth.turn(), truth.ply()));
        }
        let decision = self.search.run(self.config.sims, |_| truth.clone(), rng);
        if let Some(clock) = self.clock.as_mut() {
            clock.end_move();
        }
        decision
    }
    fn deploy(&mut self, colour: Colour, rules: &Rules, rng: &mut GameRng) -> Deployment {
        mcts_deployment(colour, rules, rng)
    }
}
