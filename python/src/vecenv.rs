//! `junqi.VecEnv`: N games stepped together, writing straight into NumPy arrays.

use crate::{game::Game, rules_from, value_error};
use junqi_core::{rng_from_seed, GameRng, Seat, Termination};
use junqi_env::{StepOut, VecEnv as CoreVecEnv, OBS_CHANNELS};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::Rng;

/// `n` games of one rule set. The arrays `obs` `[n, C, 12, 5]`, `mask`
/// `[n, 3600]`, `reward` `[n]`, `done` `[n]` and `seat` `[n]` are allocated
/// once and rewritten in place by `reset` and `step` (the Rust side writes
/// into their memory, with the GIL released): copy them if you keep them.
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

    fn arrays(&self, py: Python<'_>) -> (Py<PyArray4<f32>>, Py<PyArray2<u8>>) {
        (self.obs.clone_ref(py), self.mask.clone_ref(py))
    }
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (n, mode = "fanqi", rules = None, seed = 0))]
    fn new(py: Python<'_>, n: usize, mode: &str, rules: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<VecEnv> {
        if n == 0 {
            return Err(PyValueError::new_err("n must be at least 1"));
        }
        let rules = rules_from(mode, rules)?;
        Ok(VecEnv {
            env: CoreVecEnv::new(n, rules),
            seed,
            obs: PyArray4::zeros(py, [n, OBS_CHANNELS, 12, 5], false).unbind(),
            mask: PyArray2::zeros(py, [n, junqi_core::ACTIONS], false).unbind(),
            reward: PyArray1::zeros(py, n, false).unbind(),
            done: PyArray1::from_vec(py, vec![false; n]).unbind(),
            seat_array: PyArray1::zeros(py, n, false).unbind(),
            termination: vec![None; n],
            seat: vec![Seat::First; n],
            legal_count: vec![0; n],
            actions: vec![0; n],
            ready: false,
            rng: rng_from_seed(seed ^ 0x5A4D_504C_4553),
        })
    }

    fn __len__(&self) -> usize {
        self.env.len()
    }

    /// Start a new game in every slot (seeds `seed + i`; `None`: the
    /// constructor's seed). Returns `(obs, mask)`.
    #[pyo3(signature = (seed = None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<(Py<PyArray4<f32>>, Py<PyArray2<u8>>)> {
        if let Some(seed) = seed {
            self.seed = seed;
        }
        let seeds: Vec<u64> = (0..self.env.len() as u64).map(|i| self.seed.wrapping_add(i)).collect();
        self.write(py, move |env, _, out| env.reset_into(&seeds, out))?;
        self.ready = true;
        Ok(self.arrays(py))
    }

    /// Play `actions[i]` (an action id in slot `i`'s mover's frame, legal
    /// per the last mask) in every slot. Returns `(obs, mask, reward, done)`:
    /// `reward[i]` is for the seat that just moved (+1 win, −1 loss, 0
    /// otherwise); `done[i]` says slot `i`'s game ended and a new one began.
    /// An illegal action raises `ValueError` and plays nothing.
    #[allow(clippy::type_complexity)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<(Py<PyArray4<f32>>, Py<PyArray2<u8>>, Py<PyArray1<f32>>, Py<PyArray1<bool>>)> {
        if !self.ready {
            return Err(PyValueError::new_err("step before reset"));
        }
        if actions.len() != self.env.len() {
            return Err(PyValueError::new_err(format!("expected {} actions, got {}", self.env.len(), actions.len())));
        }
        for (slot, &a) in self.actions.iter_mut().zip(actions.as_array().iter()) {
            *slot = usize::try_from(a).map_err(|_| PyValueError::new_err(format!("action id {a} is negative")))?;
        }
        self.write(py, |env, actions, out| env.step_into(actions, out))?;
        let (obs, mask) = self.arrays(py);
        Ok((obs, mask, self.reward.clone_ref(py), self.done.clone_ref(py)))
    }

    #[getter]
    fn obs(&self, py: Python<'_>) -> Py<PyArray4<f32>> {
        self.obs.clone_ref(py)
    }
    #[getter]
    fn mask(&self, py: Python<'_>) -> Py<PyArray2<u8>> {
        self.mask.clone_ref(py)
    }
    #[getter]
    fn reward(&self, py: Python<'_>) -> Py<PyArray1<f32>> {
        self.reward.clone_ref(py)
    }
    #[getter]
    fn done(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.done.clone_ref(py)
    }
    /// The seat to move in each slot (0 or 1).
    #[getter]
    fn seat(&self, py: Python<'_>) -> Py<PyArray1<i8>> {
        self.seat_array.clone_ref(py)
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
