//! `junqi.VecEnv`: N games stepped together, writing straight into NumPy arrays.

use crate::{game::Game, rules_from, value_error};
use junqi_core::{rng_from_seed, GameRng, Seat, Termination};
use junqi_env::{StepOut, VecEnv as CoreVecEnv, OBS_CHANNELS};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::Rng;

/// `n` games of one rule set. The arrays `obs` `[n, C, 12, 5]`, `mask`
/// `[n, 3600]`, `reward` `[n]`, `done` `[n]` and `seat` `[n]` are allocated
/// once and rewritten in place by `reset` and `step` (the Rust side writes
/// into their memory, with the GIL released): copy them if you keep them.
/// Python gets read-only views of them (no stray writes, no resizing), and
/// must not read them from another thread while a `step` runs.
/// Slot `i` of `reset(seed)` plays the game of seed `seed + i`; a finished
/// game is replaced at once by the slot's next episode.
#[pyclass(module = "junqi")]
pub struct VecEnv {
    env: CoreVecEnv,
    seed: u64,
    obs: Py<PyArray4<f32>>,
    mask: Py<PyArray2<u8>>,
    reward: Py<PyArray1<f32>>,
    done: Py<PyArray1<bool>>,
    seat_array: Py<PyArray1<i8>>,
    /// Read-only views of the five arrays, what Python sees: obs, mask, reward, done, seat.
    views: [Py<PyAny>; 5],
    termination: Vec<Option<Termination>>,
    seat: Vec<Seat>,
    legal_count: Vec<u32>,
    actions: Vec<usize>,
    ready: bool,
    /// For `sample_actions`.
    rng: GameRng,
}

impl VecEnv {
    /// Run `f` on the environment and the arrays' memory, without the GIL.
    fn write<F>(&mut self, py: Python<'_>, f: F) -> PyResult<()>
    where
        F: FnOnce(&mut CoreVecEnv, &[usize], &mut StepOut<'_>) -> Result<(), junqi_env::EnvError> + Send,
    {
        let (obs, mask, reward, done) =
            (self.obs.bind(py), self.mask.bind(py), self.reward.bind(py), self.done.bind(py));
        let (mut obs, mut mask, mut reward, mut done) =
            (obs.try_readwrite()?, mask.try_readwrite()?, reward.try_readwrite()?, done.try_readwrite()?);
        let mut out = StepOut {
            obs: obs.as_slice_mut().map_err(value_error)?,
            mask: mask.as_slice_mut().map_err(value_error)?,
            reward: reward.as_slice_mut().map_err(value_error)?,
            done: done.as_slice_mut().map_err(value_error)?,
            termination: &mut self.termination,
            seat: &mut self.seat,
            legal_count: &mut self.legal_count,
        };
        let (env, actions) = (&mut self.env, &self.actions);
        py.detach(|| f(env, actions, &mut out)).map_err(value_error)?;
        let seats = self.seat_array.bind(py);
        let mut seats = seats.try_readwrite()?;
        for (to, from) in seats.as_slice_mut().map_err(value_error)?.iter_mut().zip(&self.seat) {
            *to = from.index() as i8;
        }
        Ok(())
    }

    fn view(&self, py: Python<'_>, k: usize) -> Py<PyAny> {
        self.views[k].clone_ref(py)
    }
}

/// The most games one `VecEnv` holds: its arrays take about 16 kB a game
/// (a quarter of a GB at the cap); NumPy itself failed on absurd sizes
/// with a panic, not an error.
const MAX_GAMES: usize = 1 << 14;

#[pymethods]
impl VecEnv {
    /// The largest `n` (16384).
    #[classattr]
    const MAX_N: usize = MAX_GAMES;

    #[new]
    #[pyo3(signature = (n, mode = "fanqi", rules = None, seed = 0))]
    fn new(py: Python<'_>, n: usize, mode: &str, rules: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<VecEnv> {
        if n == 0 || n > MAX_GAMES {
            return Err(PyValueError::new_err(format!("n must be from 1 to {MAX_GAMES} (VecEnv.MAX_N), not {n}")));
        }
        let rules = rules_from(mode, rules)?;
        let obs = PyArray4::<f32>::zeros(py, [n, OBS_CHANNELS, 12, 5], false);
        let mask = PyArray2::<u8>::zeros(py, [n, junqi_core::ACTIONS], false);
        let reward = PyArray1::<f32>::zeros(py, n, false);
        let done = PyArray1::from_vec(py, vec![false; n]);
        let seat_array = PyArray1::<i8>::zeros(py, n, false);
        let views = [
            read_only_view(obs.as_any())?,
            read_only_view(mask.as_any())?,
            read_only_view(reward.as_any())?,
            read_only_view(done.as_any())?,
            read_only_view(seat_array.as_any())?,
        ];
        Ok(VecEnv {
            env: CoreVecEnv::new(n, rules),
            seed,
            obs: obs.unbind(),
            mask: mask.unbind(),
            reward: reward.unbind(),
            done: done.unbind(),
            seat_array: seat_array.unbind(),
            views,
            termination: vec![None; n],
            seat: vec![Seat::First; n],
            legal_count: vec![0; n],
            actions: vec![0; n],
            ready: false,
            rng: sampling_rng(seed),
        })
    }

    fn __len__(&self) -> usize {
        self.env.len()
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
        let seeds: Vec<u64> = (0..self.env.len() as u64).map(|i| self.seed.wrapping_add(i)).collect();
        self.write(py, move |env, _, out| env.reset_into(&seeds, out))?;
        self.ready = true;
        Ok((self.view(py, 0), self.view(py, 1)))
    }

    /// Play `actions[i]` (an action id in slot `i`'s mover's frame, legal
    /// per the last mask) in every slot. Returns `(obs, mask, reward, done)`:
    /// `reward[i]` is for the seat that just moved (+1 win, −1 loss, 0
    /// otherwise); `done[i]` says slot `i`'s game ended and a new one began.
    /// An illegal action raises `ValueError` and plays nothing.
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
        if actions.len() != self.env.len() {
            return Err(PyValueError::new_err(format!("expected {} actions, got {}", self.env.len(), actions.len())));
        }
        for (slot, &a) in self.actions.iter_mut().zip(actions.as_array().iter()) {
            *slot = usize::try_from(a).map_err(|_| PyValueError::new_err(format!("action id {a} is negative")))?;
        }
        self.write(py, |env, actions, out| env.step_into(actions, out))?;
        Ok((self.view(py, 0), self.view(py, 1), self.view(py, 2), self.view(py, 3)))
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
    #[getter]
    fn done(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 3)
    }
    /// The seat to move in each slot (0 or 1).
    #[getter]
    fn seat(&self, py: Python<'_>) -> Py<PyAny> {
        self.view(py, 4)
    }

    /// One uniformly random legal action per slot, read from the current
    /// masks (what a random policy plays; the benchmark's action choice).
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        if !self.ready {
            return Err(PyValueError::new_err("reset first"));
        }
        let mask = self.mask.bind(py).try_readonly()?;
        let mask = mask.as_slice().map_err(value_error)?;
        let mut actions = Vec::with_capacity(self.legal_count.len());
        for (i, (row, &count)) in mask.chunks_exact(junqi_core::ACTIONS).zip(&self.legal_count).enumerate() {
            let k = self.rng.random_range(0..count.max(1));
            // The arrays are the caller's too: one changed by hand may not hold `count` ones.
            let action = kth_legal(row, k)
                .ok_or_else(|| PyValueError::new_err(format!("slot {i}: the mask was changed since the last step")))?;
            actions.push(action as i64);
        }
        Ok(PyArray1::from_vec(py, actions))
    }

    /// Why each slot's game ended in the last step (`None` where it goes on).
    fn terminations(&self) -> Vec<Option<&'static str>> {
        self.termination.iter().map(|t| t.map(Termination::name)).collect()
    }

    /// A copy of the game now in slot `i`.
    fn game(&self, i: usize) -> PyResult<Game> {
        self.check_slot(i)?;
        Ok(Game { game: self.env.game(i).clone() })
    }

    /// A copy of the game slot `i` finished in the last step, if it did.
    fn finished_game(&self, i: usize) -> PyResult<Option<Game>> {
        self.check_slot(i)?;
        Ok(self.env.finished_game(i).map(|g| Game { game: g.clone() }))
    }
}

impl VecEnv {
    fn check_slot(&self, i: usize) -> PyResult<()> {
        if !self.ready {
            return Err(PyValueError::new_err("reset first"));
        }
        if i >= self.env.len() {
            return Err(PyValueError::new_err(format!("slot {i} out of range (0..{})", self.env.len())));
        }
        Ok(())
    }
}

/// `sample_actions`' random stream for an environment seeded `seed`.
fn sampling_rng(seed: u64) -> GameRng {
    rng_from_seed(seed ^ 0x5A4D_504C_4553)
}

/// A view of `array` that Python cannot write through or resize (its owner,
/// which Rust writes into, stays writable).
fn read_only_view(array: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let view = array.call_method0("view")?;
    view.getattr("flags")?.setattr("writeable", false)?;
    Ok(view.unbind())
}

/// The index of the `k`-th 1 in a 0/1 mask, counting 8 entries at a time.
/// `None` when the mask holds fewer ones (or other bytes than 0 and 1).
fn kth_legal(mask: &[u8], mut k: u32) -> Option<usize> {
    for (w, chunk) in mask.chunks_exact(8).enumerate() {
        let ones = u64::from_le_bytes(chunk.try_into().ok()?).count_ones();
        if k < ones {
            let offset = chunk.iter().enumerate().filter(|(_, &b)| b == 1).nth(k as usize)?.0;
            return Some(w * 8 + offset);
        }
        k -= ones;
    }
    None
}
