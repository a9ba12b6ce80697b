//! `junqi.Net` and `junqi.SiguoNet`: the network's CPU engines (two- and
//! four-player), the reference for other implementations.

use crate::value_error;
use junqi_env::ObsCode;
use junqi_net::{resolve_net_path, CpuNet, SiguoCpuNet};
use junqi_siguo::observation::{ACTIONS as SIGUO_ACTIONS, OBS_LEN, PLANES};
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::Path;

/// A net file (`.safetensors`) loaded into the Rust CPU engine: exactly
/// what `net:` bots evaluate. `path` may be a shipped name (`default`,
/// `fanqi`, `anqi`).
#[pyclass(module = "junqi")]
pub struct Net {
    net: CpuNet,
    path: String,
}

#[pymethods]
impl Net {
    #[new]
    fn new(path: &str) -> PyResult<Net> {
        let resolved = resolve_net_path(path);
        let net = CpuNet::load(&resolved).map_err(value_error)?;
        Ok(Net { net, path: resolved.display().to_string() })
    }

    /// Evaluate one position: `code` is an `obs-code-v3` record (195 bytes,
    /// `Game.obs_code`, or a uint8 row), `legal` the mover's legal action ids. Returns
    /// `(priors, wdl, belief)`: the probabilities of `legal` in that order,
    /// win/draw/loss probabilities, and with a belief head the kind
    /// probabilities per node (`[60 * 12]`, else `None`).
    #[allow(clippy::type_complexity)]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        code: Vec<u8>,
        legal: Vec<i64>,
    ) -> PyResult<(Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>, Option<Bound<'py, PyArray1<f32>>>)> {
        let code = ObsCode::from_bytes(&code).map_err(value_error)?;
        if legal.is_empty() {
            return Err(PyValueError::new_err("legal: at least one action"));
        }
        let legal = legal
            .iter()
            .map(|&a| match u16::try_from(a) {
                Ok(id) if (id as usize) < junqi_core::ACTIONS => Ok(id),
                _ => Err(PyValueError::new_err(format!("legal: action id {a} is out of range (0..3600)"))),
            })
            .collect::<PyResult<Vec<u16>>>()?;
        let mut scratch = self.net.scratch();
        let eval = self.net.evaluate(&code, &legal, &mut scratch);
        let belief = self.net.belief_after_evaluate(&scratch).map(|b| PyArray1::from_vec(py, b));
        Ok((PyArray1::from_vec(py, eval.priors), PyArray1::from_vec(py, eval.wdl.to_vec()), belief))
    }

    /// The architecture (the file's `ModelConfig`) as a dict.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(self.net.model()).map_err(value_error)?;
        py.import("json")?.call_method1("loads", (text,))
    }

    #[getter]
    fn path(&self) -> &str {
        &self.path
    }
}

/// A four-player (四国) net file (`junqi-siguo-net/1`) loaded into the Rust
/// CPU engine (`junqi_net::SiguoCpuNet`): exactly what the four-player
/// `net:` bots evaluate. A two-player net is refused by name, as
/// `junqi.Net` refuses a four-player one.
#[pyclass(module = "junqi")]
pub struct SiguoNet {
    net: SiguoCpuNet,
    path: String,
}

#[pymethods]
impl SiguoNet {
    #[new]
    fn new(path: &str) -> PyResult<SiguoNet> {
        let net = SiguoCpuNet::load(Path::new(path)).map_err(value_error)?;
        Ok(SiguoNet { net, path: path.to_string() })
    }

    /// Evaluate one seat's position: `planes` its observation (`[74, 17,
    /// 17]` float32, `SiguoGame.observation(seat)`), `legal` its legal
    /// action ids (`from * 129 + to`, seat-relative nodes). Returns `(priors,
    /// wdl, belief)`: the probabilities of `legal` in that order, its team's
    /// win/draw/loss probabilities, and with `belief` and a belief head the
    /// kind probabilities per seat-relative node (`[129 * 12]`, else `None`).
    #[pyo3(signature = (planes, legal, belief = true))]
    #[allow(clippy::type_complexity)]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        planes: &Bound<'py, PyAny>,
        legal: Vec<i64>,
        belief: bool,
    ) -> PyResult<(Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>, Option<Bound<'py, PyArray1<f32>>>)> {
        let planes = py.import("numpy")?.call_method1("ascontiguousarray", (planes, "float32"))?;
        let planes = planes
            .cast::<PyArrayDyn<f32>>()
            .map_err(|_| PyValueError::new_err("planes: expected a float array [74, 17, 17]"))?
            .try_readonly()?;
        if planes.len() != OBS_LEN {
            return Err(PyValueError::new_err(format!(
                "planes: expected one observation [{PLANES}, 17, 17] ({OBS_LEN} floats), got shape {:?}",
                planes.shape()
            )));
        }
        if legal.is_empty() {
            return Err(PyValueError::new_err("legal: at least one action"));
        }
        let legal = legal
            .iter()
            .map(|&a| match u16::try_from(a) {
                Ok(id) if (id as usize) < SIGUO_ACTIONS => Ok(id),
                _ => Err(PyValueError::new_err(format!("legal: action id {a} is out of range (0..{SIGUO_ACTIONS})"))),
            })
            .collect::<PyResult<Vec<u16>>>()?;
        let mut scratch = self.net.scratch();
        let eval = self.net.evaluate_planes(planes.as_slice().map_err(value_error)?, &legal, belief, &mut scratch);
        let belief = eval.belief.map(|b| PyArray1::from_vec(py, b));
        Ok((PyArray1::from_vec(py, eval.priors), PyArray1::from_vec(py, eval.wdl.to_vec()), belief))
    }

    /// The architecture (the file's `ModelConfig`) as a dict.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(self.net.model()).map_err(value_error)?;
        py.import("json")?.call_method1("loads", (text,))
    }

    #[getter]
    fn path(&self) -> &str {
        &self.path
    }
}
