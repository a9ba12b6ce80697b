//! `junqi._core`: the rules engine, the vectorised environment, the bots and
//! the network's CPU engine, for Python (PyO3). The pure-Python package
//! `junqi` (python/junqi/) re-exports these and adds the dataset readers,
//! the PettingZoo and Gymnasium environments and the PyTorch net.
//!
//! Conventions, the same as the Rust crates': seats are 0 and 1 (seat 0
//! moves first); action ids are `from * 60 + to` in the frame of the seat
//! they belong to (`junqi_env::frame`), a flip on the diagonal; observations
//! are `[C, 12, 5]` float32 planes of that seat's information set.

mod bot;
mod game;
mod net;
mod siguo;
mod siguo_vecenv;
mod vecenv;

use junqi_core::rules::OPTION_NAMES;
use junqi_core::{Mode, Rules, Seat};
use junqi_env::{ObsCode, CODE_BYTES, OBS_CHANNELS, OBS_SIZE, V1_CODE_BYTES, V2_CODE_BYTES};
use numpy::{PyArray2, PyArray4, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};

/// Any error of the Rust side as a Python `ValueError` with its message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Seat 0 or 1 from Python.
pub(crate) fn seat_from(index: i64) -> PyResult<Seat> {
    match index {
        0 => Ok(Seat::First),
        1 => Ok(Seat::Second),
        _ => Err(PyValueError::new_err(format!("seat must be 0 or 1, got {index}"))),
    }
}

/// The preset of `mode` with the options of `overrides` (a dict of option
/// name to bool, int or str, as in a rules TOML file) set on top.
pub(crate) fn rules_from(mode: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let mut rules = Rules::preset_named(mode).map_err(value_error)?;
    let Some(overrides) = overrides else { return Ok(rules) };
    for (key, value) in overrides.iter() {
        let name: String =
            key.extract().map_err(|_| PyValueError::new_err(format!("rules: option names are strings, got {key}")))?;
        // bool before int: Python's True is an int too.
        let value = if value.is_instance_of::<PyBool>() {
            toml::Value::Boolean(value.extract()?)
        } else if value.is_instance_of::<PyInt>() {
            toml::Value::Integer(value.extract()?)
        } else if value.is_instance_of::<PyFloat>() {
            toml::Value::Float(value.extract()?)
        } else if value.is_instance_of::<PyString>() {
            toml::Value::String(value.extract()?)
        } else {
            return Err(PyValueError::new_err(format!(
                "rules: option {name}: expected a bool, int or str, got {value}"
            )));
        };
        rules.set_value(&name, value).map_err(value_error)?;
    }
    Ok(rules)
}

/// The rules options' names (`docs/rules.md` §6), in the table's order.
#[pyfunction]
fn rule_options() -> Vec<&'static str> {
    OPTION_NAMES.to_vec()
}

/// The four-player rules options' names (`docs/rules.md` §10.11), in the table's order.
#[pyfunction]
fn siguo_rule_options() -> Vec<&'static str> {
    junqi_siguo::OPTION_NAMES.to_vec()
}

/// The full rules of `mode` with `rules` overrides, as a dict (TOML values).
#[pyfunction]
#[pyo3(signature = (mode = "fanqi", rules = None))]
fn rules_dict<'py>(py: Python<'py>, mode: &str, rules: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
    let rules = rules_from(mode, rules)?;
    let table: toml::Table = rules.to_toml_string().parse().map_err(value_error)?;
    let out = PyDict::new(py);
    for (name, value) in table {
        match value {
            toml::Value::Boolean(b) => out.set_item(name, b)?,
            toml::Value::Integer(i) => out.set_item(name, i)?,
            toml::Value::Float(f) => out.set_item(name, f)?,
            other => out.set_item(name, other.as_str().map(str::to_string).unwrap_or_else(|| other.to_string()))?,
        }
    }
    Ok(out)
}

/// Observation planes `[B, 132, 12, 5]` from `obs-code-v3` records `[B, 195]`
/// (the samples' `position` column; older ones, `obs-code-v2` `[B, 189]` and
/// `obs-code-v1` `[B, 180]`, read without what came later), exactly as the
/// encoders write them.
#[pyfunction]
fn decode_codes<'py>(py: Python<'py>, codes: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray4<f32>>> {
    let codes = py.import("numpy")?.call_method1("ascontiguousarray", (codes, "uint8"))?;
    let codes =
        codes.cast::<PyArray2<u8>>().map_err(|_| PyValueError::new_err("codes: expected a 2-d array [B, 195]"))?;
    let codes = codes.try_readonly()?;
    let shape = codes.shape();
    let width = shape[1];
    if ![CODE_BYTES, V2_CODE_BYTES, V1_CODE_BYTES].contains(&width) {
        return Err(PyValueError::new_err(format!(
            "codes: expected {CODE_BYTES} bytes per row ({V2_CODE_BYTES} or {V1_CODE_BYTES} for older records), got {width}"
        )));
    }
    let rows = shape[0];
    let bytes = codes.as_slice().map_err(value_error)?;
    let out = PyArray4::<f32>::zeros(py, [rows, OBS_CHANNELS, 12, 5], false);
    {
        let mut planes = out.readwrite();
        let planes = planes.as_slice_mut().map_err(value_error)?;
        for (r, record) in bytes.chunks_exact(width).enumerate() {
            let code = ObsCode::from_bytes(record).map_err(|e| value_error(format!("row {r}: {e}")))?;
            code.write_planes(&mut planes[r * OBS_SIZE..(r + 1) * OBS_SIZE]);
        }
    }
    Ok(out)
}

// `gil_used`: VecEnv hands NumPy memory to Rust with the GIL released;
// without the GIL (free-threaded Python) another thread could resize those
// arrays meanwhile, so the module asks free-threaded builds to keep the GIL.
#[pymodule(gil_used = true)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // `net:` and `engine:` bot specs, as in the `junqi` binary.
    junqi_net::register_net_bots();
    junqi_engine::register_engine_bot();
    m.add("ACTIONS", junqi_core::ACTIONS)?;
    m.add("OBS_SHAPE", (OBS_CHANNELS, 12usize, 5usize))?;
    m.add("CODE_BYTES", CODE_BYTES)?;
    m.add("MODES", PyTuple::new(m.py(), Mode::ALL.map(Mode::name))?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(rule_options, m)?)?;
    m.add_function(wrap_pyfunction!(rules_dict, m)?)?;
    m.add_function(wrap_pyfunction!(decode_codes, m)?)?;
    m.add_class::<game::Game>()?;
    m.add_class::<vecenv::VecEnv>()?;
    m.add_class::<bot::Bot>()?;
    m.add_class::<net::Net>()?;
    // The four-player game (四国军棋): its own classes, action space and shapes.
    m.add("SIGUO_ACTIONS", junqi_siguo::observation::ACTIONS)?;
    m.add("SIGUO_OBS_SHAPE", (junqi_siguo::observation::PLANES, 17usize, 17usize))?;
    m.add("SIGUO_MODES", PyTuple::new(m.py(), junqi_siguo::Mode::ALL.map(junqi_siguo::Mode::name))?)?;
    m.add_function(wrap_pyfunction!(siguo_rule_options, m)?)?;
    m.add_class::<siguo::SiguoGame>()?;
    m.add_class::<siguo::SiguoBot>()?;
    m.add_class::<siguo_vecenv::SiguoVecEnv>()?;
    m.add_class::<net::SiguoNet>()?;
    // Where a four-player net's heads read the trunk: each seat-relative
    // node's cell (`y * 17 + x`) in node order (`junqi.torch.SiguoNet`).
    m.add("SIGUO_NODE_CELLS", PyTuple::new(m.py(), junqi_net::NetGame::Siguo.node_cells())?)?;
    Ok(())
}
