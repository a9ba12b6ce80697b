//! Four-player nets with a learned deployment model (`deploy.*` in a
//! `junqi-siguo-net/1` file): the model survives the file, and `net:FILE`
//! and `mcts:…,eval=net:FILE` deploy every army by it, legally in every
//! mode; a net file without one leaves the deal as it was.

use junqi_bots::DeploymentModel;
use junqi_net::{register_net_bots, shared_siguo_net, ModelConfig, NetFile, NetGame, SiguoCpuNet};
use junqi_siguo::setup::{army_deployment, validate};
use junqi_siguo::{bot_from_spec, deploy_bots, Army, Mode, Position, Rules, SiguoBot};
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-net-siguo-deploy-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A tiny random four-player net at `path`, with `model` when given.
fn write_net(path: &Path, model: Option<&DeploymentModel>) {
    let shape = ModelConfig { blocks: 1, channels: 8, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    let mut file = NetFile::random_for(&shape, NetGame::Siguo, 3);
    if let Some(m) = model {
        file.set_deployment_model(m);
    }
    file.write(path).unwrap();
}

/// Weights that favour some (node, kind) pairs strongly.
fn skewed() -> DeploymentModel {
    let weights = (0..junqi_bots::DEPLOY_FEATURES).map(|i| ((i * 31) % 7) as f32 - 3.0).collect();
    DeploymentModel::from_weights(weights, 0.25, 0.5).unwrap()
}

fn four(spec: &str) -> [Box<dyn SiguoBot>; 4] {
    std::array::from_fn(|_| bot_from_spec(spec).unwrap())
}

#[test]
fn a_four_player_net_file_keeps_its_deployment_model() {
    let dir = temp_dir("file");
    let path = dir.join("net.safetensors");
    write_net(&path, Some(&skewed()));
    let file = NetFile::read_game(&path, NetGame::Siguo).unwrap();
    assert_eq!(file.deployment_model().unwrap(), Some(skewed()));
    // The net itself still loads (the extra tensors are the deployment model's).
    SiguoCpuNet::load(&path).unwrap();
    assert_eq!(shared_siguo_net(&path).unwrap().deployer(), Some(&skewed()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn net_bots_deploy_by_the_model_legally_and_without_one_keep_the_deal() {
    register_net_bots();
    let dir = temp_dir("bots");
    let (with, without) = (dir.join("with.safetensors"), dir.join("without.safetensors"));
    write_net(&with, Some(&skewed()));
    write_net(&without, None);
    for mode in [Mode::Anqi, Mode::Shuangming, Mode::Quanming] {
        let rules = Rules::preset(mode);
        for spec in ["net:{}", "mcts:sims=4,eval=net:{}"] {
            let mut seen = std::collections::HashSet::new();
            for seed in 0..12u64 {
                let deal = Position::new_game(rules, seed);
                let mut bots = four(&spec.replace("{}", &with.display().to_string()));
                let start = deploy_bots(&deal, seed, &mut bots).unwrap();
                assert_ne!(start.to_string(), deal.to_string(), "{spec}: deployed by the model");
                for army in Army::ALL {
                    let d = army_deployment(&start, army);
                    validate(army, &d, &rules).unwrap_or_else(|e| panic!("{spec} {mode:?} seed {seed}: {e}"));
                    let mut key = d.pieces.clone();
                    key.sort();
                    seen.insert(key);
                }
                let mut plain = four(&spec.replace("{}", &without.display().to_string()));
                let kept = deploy_bots(&deal, seed, &mut plain).unwrap();
                assert_eq!(kept.to_string(), deal.to_string(), "{spec}: no model, the deal stands");
            }
            assert!(seen.len() >= 45, "{spec} {mode:?}: {} different deployments of 48", seen.len());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
