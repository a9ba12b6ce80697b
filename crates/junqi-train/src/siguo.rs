//! Four-player (四国) nets in libtorch: [`Net::for_game`] with
//! [`NetGame::Siguo`] (the module docs of `net` give its shape), written as
//! a net file of format `junqi-siguo-net/1` (metadata `game = siguo`) that
//! `junqi_net::SiguoCpuNet` and the four-player `net:FILE` player read, and
//! read back. [`crate::train`] trains one on four-player samples.

use crate::config::ModelConfig;
use crate::net::Net;
use crate::{Result, TrainError};
use junqi_net::{NetFile, NetGame};
use std::collections::HashMap;
use std::path::Path;
use tch::{nn, Device, Kind, Tensor};

/// The metadata of a four-player net of shape `model` (besides what
/// [`NetFile::write`] adds: `format`, `game`, `architecture`, `step`).
pub(crate) fn metadata(model: &ModelConfig) -> HashMap<String, String> {
    let (grid, nodes) = (NetGame::Siguo.grid(), NetGame::Siguo.nodes());
    HashMap::from([
        (
            "input".to_string(),
            format!("[{},{},{}] siguo planes (seat-relative)", model.in_channels, grid.rows, grid.cols),
        ),
        ("actions".to_string(), format!("{} from*{nodes}+to (seat-relative nodes)", nodes * nodes)),
        ("value".to_string(), "win,draw,loss (the seat's team)".to_string()),
        ("code_version".to_string(), junqi_selfplay::code_version()),
    ])
}

/// Write the weights in `vs` of a four-player net of shape `model` after
/// `step` training steps as a net file at `path` (atomically).
pub fn export_siguo_net(vs: &nn::VarStore, model: &ModelConfig, step: u64, path: &Path) -> Result<()> {
    let mut tensors = HashMap::new();
    for (name, t) in vs.variables() {
        let flat = t.detach().to_device(Device::Cpu).to_kind(Kind::Float).reshape([-1]);
        let shape = t.size().iter().map(|&d| d as usize).collect();
        tensors.insert(name, (shape, Vec::<f32>::try_from(&flat)?));
    }
    let file = NetFile {
        path: path.to_path_buf(),
        format: NetGame::Siguo.format().into(),
        game: NetGame::Siguo,
        model: model.clone(),
        step,
        metadata: metadata(model),
        tensors,
    };
    file.write(path)?;
    Ok(())
}

/// A fresh four-player net of shape `model`, its weights drawn from `seed`
/// (libtorch's initialisation), written to `path`: the start of a
/// four-player training run, or a net for tests. A shape that does not take
/// the observation's 74 planes is refused.
pub fn init_siguo_net(model: &ModelConfig, seed: u64, path: &Path) -> Result<()> {
    model.check_for(NetGame::Siguo).map_err(TrainError::Config)?;
    model.check_planes(NetGame::Siguo).map_err(TrainError::Config)?;
    tch::manual_seed(seed as i64);
    let vs = nn::VarStore::new(Device::Cpu);
    let _net = Net::for_game(&vs.root(), model, NetGame::Siguo);
    export_siguo_net(&vs, model, 0, path)
}

/// The four-player net at `path` on `device`, with its file (a two-player
/// net is refused by name, and so is a net that does not take the
/// observation's 74 planes).
pub fn load_siguo_net(path: &Path, device: Device) -> Result<(nn::VarStore, Net, NetFile)> {
    let file = NetFile::read_game(path, NetGame::Siguo)?;
    file.model
        .check_planes(NetGame::Siguo)
        .map_err(|message| junqi_net::NetError::File { path: path.to_path_buf(), message })?;
    let vs = nn::VarStore::new(device);
    let net = Net::for_game(&vs.root(), &file.model, NetGame::Siguo);
    tch::no_grad(|| {
        for (name, var) in vs.variables() {
            // The file's tensors are exactly the net's variables (checked when it was read).
            let (shape, values) = &file.tensors[&name];
            let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            var.shallow_clone().copy_(&Tensor::from_slice(values).reshape(&shape).to_device(device));
        }
    });
    Ok((vs, net, file))
}
