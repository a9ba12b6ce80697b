//! `junqi.SiguoVecEnv`: N four-player games stepped together, writing straight
//! into NumPy arrays (the four-player `VecEnv`).

use crate::siguo::{siguo_rules_from, Referee, SiguoGame};
use crate::value_error;
use junqi_core::{rng_from_seed, GameRng};
use junqi_env::episode_seed;
use junqi_siguo::observation::{action_move, ACTIONS, OBS_LEN, PLANES};
use junqi_siguo::{MoveList, Position, Rules};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::Rng;

/// The most games one `SiguoVecEnv` holds: its arrays take about 100 kB a
/// game (obs 85 kB, mask 16 kB): 400 MB at the cap.
const MAX_GAMES: usize = 1 << 12;

/// One slot: its game, base seed and episode counter.
struct Slot {
    referee: Referee,
    seed: u64,
    episode: u64,
    finished: Option<Referee>,
    termination: Option<&'static str>,
    legal: usize,
}

/// `n` four-player games of one rule set. The arrays `obs` `[n, 74, 17, 17]`
/// (the army to move's observation), `mask` `[n, 16641]` (its legal
/// actions), `reward` `[n]`, `returns` `[n, 4]`, `done` `[n]` and `seat`
/// `[n]` are allocated once and rewritten in place by `reset` and `step`:
/// copy them if you keep them. Python gets read-only views of them.
/// Slot `i` of `reset(seed)` plays the game of seed `seed + i`; a finished
/// game is replaced at once by the slot's next episode (seed
/// `junqi_env::episode_seed(seed + i, episode)`, as in `VecEnv`).
#[pyclass(module = "junqi")]
pub struct SiguoVecEnv {
    rules: Rules,
    seed: u64,
    slots: Vec<Slot>,
    obs: Py<PyArray4<f32>>,
    mask: Py<PyArray2<u8>>,
    reward: Py<PyArray1<f32>>,
    returns: Py<PyArray2<f32>>,
    done: Py<PyArray1<bool>>,
    seat: Py<PyArray1<i8>>,
    /// Read-only views: obs, mask, reward, returns, done, seat.
    views: [Py<PyAny>; 6],
    ready: bool,
    rng: GameRng,
}

/// The mutable memory of the six arrays for one write.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [u8],
    reward: &'a mut [f32],
    returns: &'a mut [f32],
    done: &'a mut [bool],
    seat: &'a mut [i8],
}

impl Out<'_> {
    /// Slot `i`'s mover's observation and mask, and its seat.
    fn write_slot(&mut self, i: usize, slot: &mut Slot, list: &mut MoveList) {
        let r = &slot.referee;
        let mover = r.truth.turn();
        r.observe(mover, &mut self.obs[i * OBS_LEN..(i + 1) * OBS_LEN]);
        slot.legal = r.mask(mover, list, &mut self.mask[i * ACTIONS..(i + 1) * ACTIONS]);
        self.seat[i] = mover.index() as i8;
    }
}

fn new_referee(rules: Rules, seed: u64, episode: u64) -> Referee {
    Referee::new(Position::new_game(rules, episode_seed(seed, episode)))
}

impl SiguoVecEnv {
    fn write<F>(&mut self, py: Python<'_>, f: F) -> PyResult<()>
    where
        F: FnOnce(&mut Vec<Slot>, Rules, &mut Out<'_>) -> PyResult<()> + Send,
    {
        let (obs, mask, reward, returns, done, seat) = (
            self.obs.bind(py),
            self.mask.bind(py),
            self.reward.bind(py),
            self.returns.bind(py),
            self.done.bind(py),
            self.seat.bind(py),
        );
        let (mut obs, mut mask, mut reward, mut returns, mut done, mut seat) = (
            obs.try_readwrite()?,
            mask.try_readwrite()?,
            reward.try_readwrite()?,
            returns.try_readwrite()?,
            done.try_readwrite()?,
            seat.try_readwrite()?,
        );
        let mut out = Out {
            obs: obs.as_slice_mut().map_err(value_error)?,
            mask: mask.as_slice_mut().map_err(value_error)?,
            reward: reward.as_slice_mut().map_err(value_error)?,
            returns: returns.as_slice_mut().map_err(value_error)?,
            done: done.as_slice_mut().map_err(value_error)?,
            seat: seat.as_slice_mut().map_err(value_error)?,
        };
        let rules = self.rules;
        let slots = &mut self.slots;
        py.detach(|| f(slots, rules, &mut out))
    }

    fn view(&self, py: Python<'_>, k: usize) -> Py<PyAny> {
        self.views[k].clone_ref(py)
    }

    fn check_slot(&self, i: usize) -> PyResult<()> {
        if !self.ready {
            return Err(PyValueError::new_err("reset first"));
        }
        if i >= self.slots.len() {
            return Err(PyValueError::new_err(format!("slot {i} out of range (0..{})", self.slots.len())));
        }
        Ok(())
    }
}

#[pymethods]
impl SiguoVecEnv {
    /// The largest `n` (4096).
    #[classattr]
    const MAX_N: usize = MAX_GAMES;

    #[new]
    #[pyo3(signature = (n, mode = "anqi", rules = None, seed = 0))]
    fn new(py: Python<'_>, n: usize, mode: &str, rules: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<Self> {
        if n == 0 || n > MAX_GAMES {
            return Err(PyValueError::new_err(format!("n must be from 1 to {MAX_GAMES} (SiguoVecEnv.MAX_N), not {n}")));
        }
        let rules = siguo_rules_from(mode, rules)?;
        let obs = PyArray4::<f32>::zeros(py, [n, PLANES, 17, 17], false);
        let mask = PyArray2::<u8>::zeros(py, [n, ACTIONS], false);
        let reward = PyArray1::<f32>::zeros(py, n, false);
        let returns = PyArray2::<f32>::zeros(py, [n, 4], false);
        let done = PyArray1::from_vec(py, vec![false; n]);
        let seat = PyArray1::<i8>::zeros(py, n, false);
        let views = [
            read_only_view(obs.as_any())?,
            read_only_view(mask.as_any())?,
            read_only_view(reward.as_any())?,
            read_only_view(returns.as_any())?,
            read_only_view(done.as_any())?,
            read_only_view(seat.as_any())?,
        ];
        let slots = (0..n as u64)
            .map(|i| Slot {
                referee: new_referee(rules, seed.wrapping_add(i), 0),
                seed: seed.wrapping_add(i),
                episode: 0,
                finished: None,
                termination: None,
                legal: 0,
            })
            .collect();
        Ok(SiguoVecEnv {
            rules,
            seed,
            slots,
            obs: obs.unbind(),
            mask: mask.unbind(),
            reward: reward.unbind(),
            returns: returns.unbind(),
            done: done.unbind(),
            seat: seat.unbind(),
            views,
            ready: false,
            rng: sampling_rng(seed),
        })
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Start a new game in every slot (seeds `seed + i`; `None`: the
    /// constructor's seed). Returns `(obs, mask)`. A seed also restarts
    /// `sample_actions`' random stream.
    #[pyo3(signature = (seed = None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        if let Some(seed) = seed {
            self.seed = seed;
            self.rng = sampling_rng(seed);
        }
        let base = self.seed;
        self.write(py, move |slots, rules, out| {
            let mut list = MoveList::new();
            out.reward.fill(0.0);
            out.returns.fill(0.0);
            out.done.fill(false);
            for (i, slot) in slots.iter_mut().enumerate() {
                slot.seed = base.wrapping_add(i as u64);
                slot.episode = 0;
                slot.referee = new_referee(rules, slot.seed, 0);
                slot.finished = None;
                slot.termination = None;
                out.write_slot(i, slot, &mut list);
            }
            Ok(())
        })?;
        self.ready = true;
        Ok((self.view(py, 0), self.view(py, 1)))
    }

    /// Play `actions[i]` (an action id in slot `i`'s mover's frame, legal
    /// per the last mask) in every slot. Returns `(obs, mask, reward, done)`:
    /// `reward[i]` is for the army that just moved (+1 when its team won, −1
    /// when it lost, 0 otherwise); `returns[i]` holds all four armies'
    /// results of a game that just ended (zeros otherwise); `done[i]` says
    /// slot `i`'s game ended and a new one began. An illegal action raises
    /// `ValueError` and plays nothing in any slot.
    fn step(
        &mut self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
        if !self.ready {
            return Err(PyValueError::new_err("step before reset"));
        }
        let actions = py.import("numpy")?.call_method1("ascontiguousarray", (actions, "int64"))?;
        let actions = actions
            .cast::<PyArray1<i64>>()
            .map_err(|_| PyValueError::new_err("actions: expected a 1-d array of action ids"))?
            .try_readonly()?;
        if actions.len() != self.slots.len() {
            return Err(PyValueError::new_err(format!("expected {} actions, got {}", self.slots.len(), actions.len())));
        }
        // Check every action first, so an illegal one plays nothing.
        let mut moves = Vec::with_capacity(self.slots.len());
        let mut list = MoveList::new();
        for (i, (slot, &a)) in self.slots.iter().zip(actions.as_array().iter()).enumerate() {
            let truth = &slot.referee.truth;
            let mv = usize::try_from(a).ok().and_then(|a| action_move(truth.turn(), a));
            list.clear();
            truth.legal_moves(&mut list);
            match mv {
                Some(mv) if list.contains(mv) => moves.push(mv),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "slot {i}: action {a} is not legal for seat {}",
                        truth.turn().index()
                    )))
                }
            }
        }
        self.write(py, move |slots, rules, out| {
            let mut list = MoveList::new();
            for (i, (slot, mv)) in slots.iter_mut().zip(moves).enumerate() {
                let mover = slot.referee.truth.turn();
                slot.referee.play(mv).map_err(value_error)?;
                let ended = slot.referee.truth.outcome();
                let row = &mut out.returns[i * 4..(i + 1) * 4];
                if let Some(outcome) = ended {
                    let returns = slot.referee.returns();
                    for (to, r) in row.iter_mut().zip(returns) {
                        *to = r as f32;
                    }
                    out.reward[i] = returns[mover.index()] as f32;
                    out.done[i] = true;
                    slot.termination = Some(outcome.termination.name());
                    slot.episode += 1;
                    let next = new_referee(rules, slot.seed, slot.episode);
                    slot.finished = Some(std::mem::replace(&mut slot.referee, next));
                } else {
                    row.fill(0.0);
                    out.reward[i] = 0.0;
                    out.done[i] = false;
                    slot.termination = None;
                    slot.finished = None;
                }
                out.write_slot(i, slot, &mut list);
            }
            Ok(())
        })?;
        Ok((self.view(py, 0), self.view(py, 1), self.view(py, 2), self.view(py, 4)))
    }

    #[getter]
    fn obs(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 0)
    }
    #[getter]
    fn mask(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 1)
    }
    #[getter]
    fn reward(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 2)
    }
    /// `[n, 4]`: each army's result of a game that ended in the last step.
    #[getter]
    fn returns(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 3)
    }
    #[getter]
    fn done(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 4)
    }
    /// The army to move in each slot (0–3).
    #[getter]
    fn seat(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 5)
    }

    /// One uniformly random legal action per slot, read from the current masks.
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        if !self.ready {
            return Err(PyValueError::new_err("reset first"));
        }
        let mask = self.mask.bind(py).try_readonly()?;
        let mask = mask.as_slice().map_err(value_error)?;
        let mut actions = Vec::with_capacity(self.slots.len());
        for (i, (row, slot)) in mask.chunks_exact(ACTIONS).zip(&self.slots).enumerate() {
            let k = self.rng.random_range(0..slot.legal.max(1));
            let action = row
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == 1)
                .nth(k)
                .map(|(a, _)| a)
                .ok_or_else(|| PyValueError::new_err(format!("slot {i}: no legal action in the mask")))?;
            actions.push(action as i64);
        }
        Ok(PyArray1::from_vec(py, actions))
    }

    /// Why each slot's game ended in the last step (`None` where it goes on).
    fn terminations(&self) -> Vec<Option<&'static str>> {
        self.slots.iter().map(|s| s.termination).collect()
    }

    /// A copy of the game now in slot `i`.
    fn game(&self, i: usize) -> PyResult<SiguoGame> {
        self.check_slot(i)?;
        Ok(SiguoGame { referee: self.slots[i].referee.clone() })
    }

    /// A copy of the game slot `i` finished in the last step, if it did.
    fn finished_game(&self, i: usize) -> PyResult<Option<SiguoGame>> {
        self.check_slot(i)?;
        Ok(self.slots[i].finished.clone().map(|referee| SiguoGame { referee }))
    }
}

/// `sample_actions`' random stream for an environment seeded `seed`.
fn sampling_rng(seed: u64) -> GameRng {
    rng_from_seed(seed ^ 0x5347_5550_4C45)
}

/// A view of `array` that Python cannot write through or resize.
fn read_only_view(array: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let view = array.call_method0("view")?;
    view.getattr("flags")?.setattr("writeable", false)?;
    Ok(view.unbind())
}
