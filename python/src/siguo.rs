//! `junqi.SiguoGame` and `junqi.SiguoBot`: one four-player game (四国军棋, docs/rules.md §10) with
//! its referee: the whole truth and every seat's information set, kept from
//! the referee's announcements (`junqi_siguo::SiguoInfoSet`).
//!
//! Conventions, those of `junqi_siguo`: seats are armies 0–3 (0 moves
//! first; counterclockwise 0 → 1 → 2 → 3 by default); armies 0 and 2 are
//! team 0 (A), 1 and 3 team 1 (B). An action id is `from * 129 + to` in
//! seat-relative nodes (`junqi_siguo::observation::action_index`: the board
//! turned so that the acting seat sits at army 0's place); observations are
//! `[74, 17, 17]` float32 planes of that seat's information set
//! (docs/observation.md, "The four-player board").

use crate::value_error;
use junqi_siguo::observation::{self, action_index, action_move, ACTIONS, OBS_LEN, PLANES};
use junqi_siguo::{notation, Announcement, Army, EndCause, Move, MoveList, Position, Rules, SiguoInfoSet, Team};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

/// Army 0–3 from Python.
pub(crate) fn army_from(index: i64) -> PyResult<Army> {
    usize::try_from(index)
        .ok()
        .and_then(Army::new)
        .ok_or_else(|| PyValueError::new_err(format!("seat must be 0, 1, 2 or 3, got {index}")))
}

/// The four-player preset `mode` (`anqi`, `shuangming`, `quanming`, or a
/// `configs/rules/siguo/*.toml` file) with `overrides` (a dict of §10.11
/// option name to bool, int or str) set on top.
pub(crate) fn siguo_rules_from(mode: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let mut list = Vec::new();
    if let Some(overrides) = overrides {
        for (key, value) in overrides.iter() {
            let name: String = key
                .extract()
                .map_err(|_| PyValueError::new_err(format!("rules: option names are strings, got {key}")))?;
            // bool before int: Python's True is an int too.
            let text = if value.is_instance_of::<PyBool>() {
                value.extract::<bool>()?.to_string()
            } else if value.is_instance_of::<PyInt>() {
                value.extract::<i64>()?.to_string()
            } else if value.is_instance_of::<PyFloat>() {
                value.extract::<f64>()?.to_string()
            } else if value.is_instance_of::<PyString>() {
                value.extract::<String>()?
            } else {
                return Err(PyValueError::new_err(format!(
                    "rules: option {name}: expected a bool, int or str, got {value}"
                )));
            };
            list.push(format!("{name}={text}"));
        }
    }
    Rules::preset_with(mode, list).map_err(value_error)
}

pub(crate) fn end_cause_name(cause: EndCause) -> &'static str {
    match cause {
        EndCause::FlagCaptured => "flag_captured",
        EndCause::NoLegalMove => "no_legal_move",
    }
}

/// The referee: the truth and the four seats' information sets.
#[derive(Clone)]
pub(crate) struct Referee {
    pub(crate) truth: Position,
    pub(crate) infos: [SiguoInfoSet; 4],
    pub(crate) moves: Vec<Move>,
}

impl Referee {
    pub(crate) fn new(start: Position) -> Referee {
        let infos = Army::ALL.map(|a| SiguoInfoSet::new(&start, a));
        Referee { truth: start, infos, moves: Vec::new() }
    }

    /// Play a move the caller checked is legal; every seat hears the announcement.
    pub(crate) fn play(&mut self, mv: Move) -> Result<(), junqi_siguo::PlayError> {
        let before = self.truth.clone();
        let effect = self.truth.play(mv)?;
        let a = Announcement::new(&before, mv, &effect, &self.truth);
        for info in &mut self.infos {
            info.update(&a);
        }
        self.moves.push(mv);
        Ok(())
    }

    /// The mover's legal moves with their action ids, sorted by id.
    pub(crate) fn legal(&self, list: &mut MoveList) -> Vec<(usize, Move)> {
        list.clear();
        self.truth.legal_moves(list);
        let seat = self.truth.turn();
        let mut ids: Vec<(usize, Move)> = list.iter().map(|&m| (action_index(seat, m), m)).collect();
        ids.sort_unstable_by_key(|&(id, _)| id);
        ids
    }

    /// Each seat's result: its team's +1 / −1, 0 for a draw or a game going on.
    pub(crate) fn returns(&self) -> [f64; 4] {
        match self.truth.outcome().and_then(|o| o.winner) {
            Some(team) => Army::ALL.map(|a| if a.team() == team { 1.0 } else { -1.0 }),
            None => [0.0; 4],
        }
    }

    /// `seat`'s observation into `out` (`OBS_LEN` floats).
    pub(crate) fn observe(&self, seat: Army, out: &mut [f32]) {
        observation::encode_into(&self.infos[seat.index()], out).expect("OBS_LEN floats");
    }

    /// `seat`'s legal-action mask into `out` (`ACTIONS` bytes, zeroed first):
    /// all zeros when it is not that seat's turn or the game is over. Returns
    /// the number of legal actions.
    pub(crate) fn mask(&self, seat: Army, list: &mut MoveList, out: &mut [u8]) -> usize {
        out.fill(0);
        if seat != self.truth.turn() || self.truth.is_game_over() {
            return 0;
        }
        list.clear();
        self.infos[seat.index()].legal_moves(list);
        for &mv in list.iter() {
            out[action_index(seat, mv)] = 1;
        }
        list.len()
    }
}

/// One game of 四国军棋. The referee holds the whole truth; `view`,
/// `observation` and `action_mask` give only what a seat may know. Actions
/// are ids in the mover's frame (`from * 129 + to` of seat-relative nodes)
/// or move text such as `"sa4-sa5"` (absolute node names, §10.4).
#[pyclass(module = "junqi", skip_from_py_object)]
#[derive(Clone)]
pub struct SiguoGame {
    pub(crate) referee: Referee,
}

impl SiguoGame {
    fn turn(&self) -> Army {
        self.referee.truth.turn()
    }

    fn legal(&self) -> Vec<(usize, Move)> {
        if self.referee.truth.is_game_over() {
            return Vec::new();
        }
        self.referee.legal(&mut MoveList::new())
    }

    fn move_of(&self, action: &Bound<'_, PyAny>) -> PyResult<Move> {
        if let Ok(text) = action.cast::<PyString>() {
            let text = text.to_str()?;
            return text.parse::<Move>().map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")));
        }
        let id: i64 = action.extract().map_err(|_| {
            PyValueError::new_err(format!("an action is an int id or a move such as \"sa4-sa5\", got {action}"))
        })?;
        usize::try_from(id)
            .ok()
            .and_then(|id| action_move(self.turn(), id))
            .ok_or_else(|| PyValueError::new_err(format!("action id {id} is out of range (0..{ACTIONS})")))
    }
}

#[pymethods]
impl SiguoGame {
    /// A new four-player game: `mode`'s preset (`anqi` 四国暗棋, the default;
    /// `shuangming` 双明; `quanming` 全明; or a rules file) with `rules`
    /// overrides (§10.11 options), each army deployed at random from `seed`
    /// (the same start as `junqi random-game --siguo` with that seed), or the
    /// position `position` (§10.4 notation).
    ///
    /// `deploy`: one `SiguoBot` (or `None`) per army, four in all. A bot
    /// that deploys by itself (a net with a learned deployment model)
    /// replaces its army's part of the deal, drawn from that army's own
    /// stream of `seed`, exactly as `arena --siguo` and self-play deploy it;
    /// the others keep the deal's. Not with `position`.
    #[new]
    #[pyo3(signature = (mode = "anqi", rules = None, seed = 0, position = None, deploy = None))]
    fn new(
        mode: &str,
        rules: Option<&Bound<'_, PyDict>>,
        seed: u64,
        position: Option<&str>,
        deploy: Option<Vec<Option<Bound<'_, SiguoBot>>>>,
    ) -> PyResult<SiguoGame> {
        let rules = siguo_rules_from(mode, rules)?;
        let start = match (position, deploy) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give a position or deploying bots (`deploy`), not both"));
            }
            (Some(text), None) => notation::parse(text, rules).map_err(value_error)?,
            (None, None) => Position::new_game(rules, seed),
            (None, Some(bots)) => {
                if bots.len() != 4 {
                    return Err(PyValueError::new_err(format!(
                        "deploy: one bot (or None) per army, four in all, not {}",
                        bots.len()
                    )));
                }
                let dealt = Position::new_game(rules, seed);
                junqi_siguo::deploy_armies(&dealt, seed, |army, rules, rng| {
                    let mut bot = bots[army.index()].as_ref()?.borrow_mut();
                    bot.bot.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()).deploy(army, rules, rng)
                })
                .map_err(value_error)?
            }
        };
        Ok(SiguoGame { referee: Referee::new(start) })
    }

    /// The seat to move's legal action ids, ascending (none once the game is over).
    fn legal_actions(&self) -> Vec<usize> {
        self.legal().into_iter().map(|(id, _)| id).collect()
    }

    /// The same actions as `legal_actions`, in the same order, as move text (`sa4-sa5`).
    fn legal_moves(&self) -> Vec<String> {
        self.legal().into_iter().map(|(_, m)| m.to_string()).collect()
    }

    /// The move text of an action id of the seat to move.
    fn action_to_move(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.move_of(action)?.to_string())
    }

    /// The action id (the mover's frame) of a move text.
    fn move_to_action(&self, text: &str) -> PyResult<usize> {
        let mv = text.parse::<Move>().map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))?;
        Ok(action_index(self.turn(), mv))
    }

    /// Play an action (id or text) of the seat to move. `ValueError` when it
    /// is not legal or the game is over. Ended armies' turns are skipped by
    /// the rules: afterwards `current_player()` is the next live army.
    fn apply(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(outcome) = self.referee.truth.outcome() {
            return Err(PyValueError::new_err(format!("the game is over ({})", outcome.termination.name())));
        }
        let mv = self.move_of(action)?;
        if !self.legal().iter().any(|&(_, m)| m == mv) {
            return Err(PyValueError::new_err(format!("{mv} is not legal for seat {}", self.turn().index())));
        }
        self.referee.play(mv).map_err(value_error)
    }

    fn is_terminal(&self) -> bool {
        self.referee.truth.is_game_over()
    }

    /// Each seat's result, its team's: `[1, -1, 1, -1]` when team 0 (armies
    /// 0 and 2) won, `[-1, 1, -1, 1]` when team 1 won, zeros for a draw or a
    /// game still going.
    fn returns(&self) -> [f64; 4] {
        self.referee.returns()
    }

    /// Each team's result `[team 0, team 1]`: `[1, -1]`, `[-1, 1]` or `[0, 0]`.
    fn team_returns(&self) -> [f64; 2] {
        let r = self.referee.returns();
        [r[0], r[1]]
    }

    /// The seat (army 0–3) to move.
    fn current_player(&self) -> usize {
        self.turn().index()
    }

    /// Why the game ended (`team_eliminated`, `quiet_plies`, `max_plies`,
    /// `no_legal_move_anywhere`), or `None`.
    #[getter]
    fn termination(&self) -> Option<&'static str> {
        self.referee.truth.outcome().map(|o| o.termination.name())
    }

    /// The winning team (0: armies 0 and 2; 1: armies 1 and 3), or `None`.
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.referee.truth.outcome().and_then(|o| o.winner).map(Team::index)
    }

    /// `1-0` (team 0 won), `0-1`, `1/2-1/2`, or `*` while the game goes on.
    #[getter]
    fn result(&self) -> &'static str {
        self.referee.truth.outcome().map_or("*", |o| o.result_str())
    }

    /// Why `seat`'s army ended (`flag_captured`, `no_legal_move`), or `None` while it plays.
    fn ended(&self, seat: i64) -> PyResult<Option<&'static str>> {
        Ok(self.referee.truth.ended(army_from(seat)?).map(end_cause_name))
    }

    /// The seats (armies) whose army has not ended.
    fn live_seats(&self) -> Vec<usize> {
        Army::ALL.into_iter().filter(|&a| self.referee.truth.ended(a).is_none()).map(Army::index).collect()
    }

    /// The team (0 or 1) of a seat.
    #[staticmethod]
    fn team_of(seat: i64) -> PyResult<usize> {
        Ok(army_from(seat)?.team().index())
    }

    /// Plies played (a skipped, ended army's turn is no ply).
    #[getter]
    fn ply(&self) -> u32 {
        self.referee.truth.ply()
    }

    /// Plies since a piece last left the board (the draw counter, §10.9).
    #[getter]
    fn quiet(&self) -> u32 {
        self.referee.truth.quiet()
    }

    /// The moves played so far, as text.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.referee.moves.iter().map(Move::to_string).collect()
    }

    #[getter]
    fn mode(&self) -> &'static str {
        self.referee.truth.rules().mode.name()
    }

    /// The rules as `name=value` strings (§10.11 order).
    fn rules(&self) -> Vec<String> {
        self.referee.truth.rules().overrides()
    }

    /// The whole truth in §10.4 notation.
    fn to_notation(&self) -> String {
        notation::to_notation(&self.referee.truth)
    }

    /// What `seat` may know of the board: `(node, army, kinds)` per piece,
    /// `kinds` the letters (§2, `notation`'s) of the kinds the piece may
    /// still be (one letter for a piece the seat sees), in node order. Never
    /// more than its information set.
    fn view(&self, seat: i64) -> PyResult<Vec<(String, usize, String)>> {
        let info = &self.referee.infos[army_from(seat)?.index()];
        Ok(info
            .pieces()
            .map(|(node, army, kinds)| {
                let names = junqi_core::piece::Kind::in_set(kinds).map(|k| k.letter()).collect();
                (node.to_string(), army.index(), names)
            })
            .collect())
    }

    /// `seat`'s observation planes `[74, 17, 17]`, the board turned so that
    /// the seat sits at the bottom (docs/observation.md, four-player board).
    fn observation<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, numpy::PyArray3<f32>>> {
        use numpy::PyArrayMethods;
        let seat = army_from(seat)?;
        let out = numpy::PyArray3::<f32>::zeros(py, [PLANES, 17, 17], false);
        {
            let mut w = out.readwrite();
            let slice = w.as_slice_mut().map_err(value_error)?;
            debug_assert_eq!(slice.len(), OBS_LEN);
            self.referee.observe(seat, slice);
        }
        Ok(out)
    }

    /// `seat`'s legal-action mask (16641 entries, its frame): all zeros when
    /// it is not that seat's turn or the game is over.
    fn action_mask<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, numpy::PyArray1<u8>>> {
        use numpy::PyArrayMethods;
        let seat = army_from(seat)?;
        let out = numpy::PyArray1::<u8>::zeros(py, ACTIONS, false);
        {
            let mut w = out.readwrite();
            self.referee.mask(seat, &mut MoveList::new(), w.as_slice_mut().map_err(value_error)?);
        }
        Ok(out)
    }

    fn clone(&self) -> SiguoGame {
        Clone::clone(self)
    }

    fn __copy__(&self) -> SiguoGame {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> SiguoGame {
        Clone::clone(self)
    }

    fn __repr__(&self) -> String {
        format!("junqi.SiguoGame({:?})", notation::to_notation(&self.referee.truth))
    }
}

/// A four-player bot from a spec, as `junqi arena --siguo` takes them:
/// `random`, `greedy`, `heuristic` or the search `mcts:N`
/// (`junqi_siguo::bot_from_spec`). It decides from the information set of
/// the seat to move only (never the truth). Its random choices come from `seed`.
#[pyclass(module = "junqi")]
pub struct SiguoBot {
    // A Mutex only so the class is Sync, as pyo3 requires; `&mut self` methods reach it with `get_mut`.
    bot: std::sync::Mutex<Box<dyn junqi_siguo::SiguoBot>>,
    rng: junqi_core::GameRng,
    spec: String,
}

#[pymethods]
impl SiguoBot {
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<SiguoBot> {
        let bot = junqi_siguo::bot_from_spec(spec).map_err(PyValueError::new_err)?;
        Ok(SiguoBot {
            bot: std::sync::Mutex::new(bot),
            rng: junqi_core::rng_from_seed(seed),
            spec: spec.trim().to_string(),
        })
    }

    /// The action id (the mover's frame) this bot plays for the seat to move
    /// of `game`, chosen without the GIL from that seat's information set.
    fn act(&mut self, py: Python<'_>, game: PyRef<'_, SiguoGame>) -> PyResult<usize> {
        if let Some(outcome) = game.referee.truth.outcome() {
            return Err(PyValueError::new_err(format!("the game is over ({})", outcome.termination.name())));
        }
        let seat = game.referee.truth.turn();
        let info = game.referee.infos[seat.index()].clone();
        drop(game);
        let bot = self.bot.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        let rng = &mut self.rng;
        let mv = py.detach(|| bot.choose(&info, rng));
        let mv =
            mv.ok_or_else(|| PyValueError::new_err(format!("{}: no move for seat {}", self.spec, seat.index())))?;
        Ok(action_index(seat, mv))
    }

    /// Restart the bot's random choices from `seed` (as if built with it).
    fn seed(&mut self, seed: u64) {
        self.rng = junqi_core::rng_from_seed(seed);
    }

    #[getter]
    fn name(&self) -> String {
        self.bot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).name()
    }

    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    fn __repr__(&self) -> String {
        format!("junqi.SiguoBot({:?})", self.spec)
    }
}
