//! `junqi.Game`: one game with its referee (both seats' information sets).

use crate::{bot::Bot, rules_from, seat_from, value_error};
use junqi_core::{Colour, Game as CoreGame, Move, MoveList, Position, Rules, Seat};
use junqi_env::{action_from_frame, action_to_frame, encode_mask, encode_observation, ObsCode, OBS_CHANNELS};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// One game of Junqi. The referee holds the whole truth; `view`,
/// `observation`, `action_mask` and `obs_code` give only what a seat may
/// know. Actions are ids in the mover's frame (or `a6a7` text).
#[pyclass(module = "junqi", skip_from_py_object)]
#[derive(Clone)]
pub struct Game {
    pub(crate) game: CoreGame,
}

/// The start position of `rules` with each seat's deployment by its bot,
/// each from its own stream of `seed`.
fn deployed_start(
    py: Python<'_>,
    rules: Rules,
    seed: u64,
    bots: (Bound<'_, Bot>, Bound<'_, Bot>),
) -> PyResult<Position> {
    let Some(first) = Position::empty(rules).colour_of(Seat::First) else {
        return Err(PyValueError::new_err("deploy: 翻棋 positions are dealt, not deployed"));
    };
    let mut deployments = Vec::with_capacity(2);
    for (seat, bot) in Seat::BOTH.into_iter().zip([bots.0, bots.1]) {
        let colour = if seat == Seat::First { first } else { first.other() };
        let stream = seed ^ 0x4445_504C_4F59_0000 ^ seat.index() as u64;
        let mut bot = bot.try_borrow_mut()?;
        deployments.push(bot.deploy(py, colour, &rules, stream)?);
    }
    let (red, black) =
        if first == Colour::Red { (&deployments[0], &deployments[1]) } else { (&deployments[1], &deployments[0]) };
    Position::from_deployments(rules, red, black).map_err(value_error)
}

impl Game {
    fn turn(&self) -> Seat {
        self.game.truth().turn()
    }

    /// The legal moves of the seat to move, sorted by action id (none once
    /// the game is over: `legal_moves` lists nothing then).
    fn legal(&self) -> Vec<(usize, Move)> {
        let mut list = MoveList::new();
        self.game.truth().legal_moves(&mut list);
        let seat = self.turn();
        let mut ids: Vec<(usize, Move)> = list.iter().map(|&m| (action_to_frame(m, seat), m)).collect();
        ids.sort_unstable_by_key(|&(id, _)| id);
        ids
    }

    /// The move an action (id in the mover's frame, or text) stands for.
    fn move_of(&self, action: &Bound<'_, PyAny>) -> PyResult<Move> {
        if let Ok(text) = action.cast::<PyString>() {
            let text = text.to_str()?;
            return text.parse::<Move>().map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")));
        }
        let id: i64 = action.extract().map_err(|_| {
            PyValueError::new_err(format!("an action is an int id or a move such as \"a6a7\", got {action}"))
        })?;
        usize::try_from(id)
            .ok()
            .and_then(|id| action_from_frame(id, self.turn()))
            .ok_or_else(|| PyValueError::new_err(format!("action id {id} is out of range (0..3600)")))
    }
}

#[pymethods]
impl Game {
    /// A new game: `mode`'s preset with `rules` overrides, dealt or deployed
    /// from `seed` (the same start as `junqi selfplay`'s game with that
    /// seed), or the position `jfen`.
    ///
    /// `deploy=(bot0, bot1)` (暗棋/明棋): each seat's deployment comes from
    /// that bot (`junqi.Bot`), as in `junqi selfplay` and `junqi arena`,
    /// drawn from `seed`; without it both are uniformly random.
    #[new]
    #[pyo3(signature = (mode = "fanqi", rules = None, seed = 0, jfen = None, deploy = None))]
    fn new(
        py: Python<'_>,
        mode: &str,
        rules: Option<&Bound<'_, PyDict>>,
        seed: u64,
        jfen: Option<&str>,
        deploy: Option<(Bound<'_, Bot>, Bound<'_, Bot>)>,
    ) -> PyResult<Game> {
        let rules = rules_from(mode, rules)?;
        let start = match (jfen, deploy) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give a position (jfen) or deployers (deploy), not both"))
            }
            (Some(text), None) => Position::from_jfen(text, rules).map_err(value_error)?,
            (None, Some(bots)) => deployed_start(py, rules, seed, bots)?,
            (None, None) => Position::new_game(rules, seed),
        };
        Ok(Game { game: CoreGame::new(start) })
    }

    /// The seat to move's legal action ids, ascending.
    fn legal_actions(&self) -> Vec<usize> {
        self.legal().into_iter().map(|(id, _)| id).collect()
    }

    /// The same actions as `legal_actions`, in the same order, as `a6a7` text.
    fn legal_moves(&self) -> Vec<String> {
        self.legal().into_iter().map(|(_, m)| m.to_string()).collect()
    }

    /// The move text of an action id of the seat to move.
    fn action_to_move(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.move_of(action)?.to_string())
    }

    /// The action id (mover's frame) of a move text.
    fn move_to_action(&self, text: &str) -> PyResult<usize> {
        let mv = text.parse::<Move>().map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))?;
        Ok(action_to_frame(mv, self.turn()))
    }

    /// Play an action (id or text) of the seat to move. `ValueError` when it
    /// is not legal or the game is over.
    fn apply(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(outcome) = self.game.outcome() {
            return Err(PyValueError::new_err(format!("the game is over ({})", outcome.termination.name())));
        }
        let mv = self.move_of(action)?;
        if !self.legal().iter().any(|&(_, m)| m == mv) {
            return Err(PyValueError::new_err(format!("{mv} is not legal for seat {}", self.turn().index())));
        }
        self.game.play(mv).map_err(value_error)?;
        Ok(())
    }

    fn is_terminal(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// Each seat's result: `[1, -1]`, `[-1, 1]`, `[0, 0]` for a draw or a game still going.
    fn returns(&self) -> [f64; 2] {
        match self.game.outcome().and_then(|o| o.winner) {
            Some(Seat::First) => [1.0, -1.0],
            Some(Seat::Second) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    /// The seat to move, 0 or 1.
    fn current_player(&self) -> usize {
        self.turn().index()
    }

    /// Why the game ended (`flag_captured`, `max_plies`, …), or `None`.
    #[getter]
    fn termination(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.termination.name())
    }

    /// The winning seat, or `None` (a draw, or the game goes on).
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.game.outcome().and_then(|o| o.winner).map(Seat::index)
    }

    /// Plies played.
    #[getter]
    fn ply(&self) -> u32 {
        self.game.truth().ply()
    }

    /// The moves played so far, as text.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.game.moves().iter().map(Move::to_string).collect()
    }

    #[getter]
    fn mode(&self) -> &'static str {
        self.game.truth().rules().mode.name()
    }

    /// The whole truth as JFEN (face-down pieces as `~X`).
    fn to_jfen(&self) -> String {
        self.game.truth().to_jfen()
    }

    /// What `seat` may know, as JFEN (pieces it cannot identify unknown).
    fn view(&self, seat: i64) -> PyResult<String> {
        Ok(self.game.infoset(seat_from(seat)?).view().to_jfen())
    }

    /// `seat`'s observation planes `[C, 12, 5]`, in its own frame.
    fn observation<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let info = self.game.infoset(seat_from(seat)?);
        let out = PyArray3::<f32>::zeros(py, [OBS_CHANNELS, 12, 5], false);
        encode_observation(info, out.readwrite().as_slice_mut().map_err(value_error)?);
        Ok(out)
    }

    /// `seat`'s legal-action mask (3600 entries, its frame): all zeros when
    /// it is not that seat's turn or the game is over.
    fn action_mask<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let seat = seat_from(seat)?;
        let out = PyArray1::<u8>::zeros(py, junqi_core::ACTIONS, false);
        if seat == self.turn() && self.game.outcome().is_none() {
            let mut scratch = MoveList::new();
            encode_mask(self.game.infoset(seat), &mut scratch, out.readwrite().as_slice_mut().map_err(value_error)?);
        }
        Ok(out)
    }

    /// `seat`'s information set as an `obs-code-v3` record (195 bytes, the
    /// samples' `position` column; `decode_codes` turns it into planes).
    fn obs_code<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyBytes>> {
        let code = ObsCode::from_infoset(self.game.infoset(seat_from(seat)?));
        Ok(PyBytes::new(py, code.as_bytes()))
    }

    fn clone(&self) -> Game {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Game {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        Clone::clone(self)
    }

    fn __repr__(&self) -> String {
        format!("junqi.Game({:?})", self.game.truth().to_jfen())
    }
}
