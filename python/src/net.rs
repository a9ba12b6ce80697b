//! `junqi.Net`: the network's CPU engine, the reference for other implementations.

use crate::value_error;
use junqi_env::ObsCode;
use junqi_net::{resolve_net_path, CpuNet};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

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

    /// Evaluate one position: `code` is an `obs-code-v2` record (189 bytes,
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
