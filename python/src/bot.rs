//! `junqi.Bot`: any bot spec, acting on the seat to move's information set.

use crate::{game::Game, value_error};
use junqi_bots::{from_spec, Player};
use junqi_core::{rng_from_seed, Colour, Deployment, GameRng, Rules};
use junqi_env::action_to_frame;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Mutex;

/// A bot built from a spec, as on the command line: `random`, `greedy`,
/// `heuristic`, `mcts:800`, `net:default`, `net:path=FILE,…`,
/// `engine:cmd=…` (see `junqi arena --help`). A fair bot sees only the mover's information set;
/// `cheat-mcts` (which reads the whole truth) is refused unless
/// `allow_cheating=True`. Its random choices come from `seed`.
#[pyclass(module = "junqi")]
pub struct Bot {
    // A Mutex only so the class is Sync, as pyo3 requires; `&mut self` methods reach it with `get_mut`.
    player: Mutex<Player>,
    rng: GameRng,
    spec: String,
}

impl Bot {
    fn player(&self) -> std::sync::MutexGuard<'_, Player> {
        self.player.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Decide for the seat to move of `game`, without the GIL.
    fn decide(&mut self, py: Python<'_>, game: &Game) -> PyResult<junqi_bots::Decision> {
        if let Some(outcome) = game.game.outcome() {
            return Err(PyValueError::new_err(format!("the game is over ({})", outcome.termination.name())));
        }
        let player = self.player.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (rng, game) = (&mut self.rng, &game.game);
        let (decision, forfeit) = py.detach(|| {
            let decision = player.act(game, rng);
            player.wait();
            (decision, player.take_forfeit())
        });
        // An external engine that crashed, hung or answered nonsense.
        match forfeit {
            Some(reason) => Err(PyRuntimeError::new_err(format!("{}: forfeits: {reason}", self.spec))),
            None => Ok(decision),
        }
    }

    /// This bot's deployment of `colour` (暗棋/明棋), drawn from `seed`, checked.
    pub(crate) fn deploy(&mut self, py: Python<'_>, colour: Colour, rules: &Rules, seed: u64) -> PyResult<Deployment> {
        let player = self.player.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (deployment, forfeit) = py.detach(|| {
            let mut rng = rng_from_seed(seed);
            let deployment = player.deploy(colour, rules, &mut rng);
            (deployment, player.take_forfeit())
        });
        if let Some(reason) = forfeit {
            return Err(PyRuntimeError::new_err(format!("{}: forfeits its deployment: {reason}", self.spec)));
        }
        if deployment.colour != colour {
            return Err(PyValueError::new_err(format!(
                "{}: asked for {colour:?}, deployed {:?}",
                self.spec, deployment.colour
            )));
        }
        deployment.validate().map_err(|e| PyValueError::new_err(format!("{}: bad deployment: {e}", self.spec)))?;
        Ok(deployment)
    }
}

#[pymethods]
impl Bot {
    #[new]
    #[pyo3(signature = (spec, seed = 0, allow_cheating = false))]
    fn new(spec: &str, seed: u64, allow_cheating: bool) -> PyResult<Bot> {
        let player = from_spec(spec).map_err(value_error)?;
        if player.cheats() && !allow_cheating {
            return Err(PyValueError::new_err(format!(
                "{spec}: this bot reads the hidden truth; pass allow_cheating=True to use it anyway"
            )));
        }
        Ok(Bot { player: Mutex::new(player), rng: rng_from_seed(seed), spec: spec.to_string() })
    }

    /// The action id (mover's frame) this bot plays in `game`.
    fn act(&mut self, py: Python<'_>, game: PyRef<'_, Game>) -> PyResult<usize> {
        let seat = game.game.truth().turn();
        let decision = self.decide(py, &game)?;
        Ok(action_to_frame(decision.action, seat))
    }

    /// The whole decision: `{"action": id, "move": "a6a7", "policy": {id: p},
    /// "value": v or None}` (the distribution it chose from and its own
    /// estimate of its result in [-1, 1]).
    fn decide_full<'py>(&mut self, py: Python<'py>, game: PyRef<'_, Game>) -> PyResult<Bound<'py, PyDict>> {
        let seat = game.game.truth().turn();
        let decision = self.decide(py, &game)?;
        let out = PyDict::new(py);
        out.set_item("action", action_to_frame(decision.action, seat))?;
        out.set_item("move", decision.action.to_string())?;
        let policy = PyDict::new(py);
        for (mv, p) in &decision.policy {
            policy.set_item(action_to_frame(*mv, seat), *p)?;
        }
        out.set_item("policy", policy)?;
        out.set_item("value", decision.value)?;
        Ok(out)
    }

    /// Restart the bot's random choices from `seed` (as if built with it).
    fn seed(&mut self, seed: u64) {
        self.rng = rng_from_seed(seed);
    }

    #[getter]
    fn name(&self) -> String {
        self.player().name()
    }

    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    #[getter]
    fn cheats(&self) -> bool {
        self.player().cheats()
    }

    fn __repr__(&self) -> String {
        format!("junqi.Bot({:?})", self.spec)
    }
}
