//! Learned four-player deployments: `siguo_deployment_games` reads every
//! army's deployment of a four-player games shard with its team's result,
//! and a model fitted to games where a bomb in front of the flag wins, stored in
//! a `junqi-siguo-net/1` file, makes the net's player deploy that way far
//! more often than an untrained model, always legally.

use crate::common::temp_dir;
use junqi_bots::DeploymentModel;
use junqi_core::{Deployment, Kind};
use junqi_net::{shared_siguo_net, ModelConfig, NetFile, NetGame};
use junqi_selfplay::{write_siguo_games_shard, SiguoGame, GAMES_DIR};
use junqi_siguo::setup::{army_deployment, validate};
use junqi_siguo::{Army, Mode, Position, Rules};
use junqi_train::deployments::fit_into_net;
use junqi_train::siguo_deployments::siguo_deployment_games;

/// A bomb right in front of the flag (Red's half, as every army is
/// written): rare enough among the candidates that a preference shows.
fn bomb_before_flag(d: &Deployment) -> bool {
    let flag = d.pieces.iter().find(|p| p.1 == Kind::Flag).unwrap().0;
    d.pieces.iter().any(|&(s, k)| k == Kind::Bomb && s.rank() == flag.rank() + 1 && s.file() == flag.file())
}

/// Deals where the team with more bombs before its flags wins (equal: a draw).
fn games(rules: Rules, n: u64) -> Vec<SiguoGame> {
    (0..n)
        .map(|seed| {
            let start = Position::new_game(rules, seed);
            let g = Army::ALL.map(|a| bomb_before_flag(&army_deployment(&start, a)) as u32);
            let result = match (g[0] + g[2]).cmp(&(g[1] + g[3])) {
                std::cmp::Ordering::Greater => "1-0",
                std::cmp::Ordering::Less => "0-1",
                std::cmp::Ordering::Equal => "1/2-1/2",
            };
            SiguoGame {
                game_id: seed,
                rules: rules.to_toml_string(),
                seed,
                start: start.to_string(),
                moves: vec![],
                result: result.into(),
                termination: "flags".into(),
                plies: 0,
                bots: std::array::from_fn(|_| "random".to_string()),
                code_version: "test".into(),
            }
        })
        .collect()
}

#[test]
fn a_fit_on_four_player_games_prefers_what_won_and_deploys_legally() {
    let dir = temp_dir("siguo-deployments");
    let rules = Rules::preset(Mode::Anqi);
    let run = dir.join("run");
    let written = games(rules, 300);
    std::fs::create_dir_all(run.join(GAMES_DIR)).unwrap();
    write_siguo_games_shard(&run.join(GAMES_DIR), 0, &written, &[]).unwrap();

    let data = siguo_deployment_games(std::slice::from_ref(&run)).unwrap();
    assert_eq!(data.len(), 4 * written.len());
    // The run's samples/ folder (as `junqi train --data` takes it) reads the same
    // games; a run with no games is an error, not a model fitted on nothing.
    std::fs::create_dir_all(run.join("samples")).unwrap();
    assert_eq!(siguo_deployment_games(&[run.join("samples")]).unwrap(), data);
    let empty = dir.join("empty");
    std::fs::create_dir_all(empty.join(GAMES_DIR)).unwrap();
    let err = siguo_deployment_games(&[empty]).unwrap_err().to_string();
    assert!(err.contains("no four-player games"), "{err}");
    for (game, armies) in written.iter().zip(data.chunks(4)) {
        let start = junqi_siguo::parse(&game.start, rules).unwrap();
        let team_a = match game.result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        for (army, (d, score)) in Army::ALL.into_iter().zip(armies) {
            assert_eq!(d, &army_deployment(&start, army));
            assert_eq!(*score, if army.index() % 2 == 0 { team_a } else { 1.0 - team_a });
        }
    }

    let net = dir.join("net.safetensors");
    let shape = ModelConfig { blocks: 1, channels: 8, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    NetFile::random_for(&shape, NetGame::Siguo, 9).write(&net).unwrap();
    let loss = fit_into_net(&net, &data).unwrap();
    let untrained = DeploymentModel::uniform();
    assert!(loss < untrained.loss(&data) * 0.95, "fitted loss {loss} vs {}", untrained.loss(&data));
    let fitted = NetFile::read_game(&net, NetGame::Siguo).unwrap().deployment_model().unwrap().expect("stored");
    assert_eq!(shared_siguo_net(&net).unwrap().deployer(), Some(&fitted));

    let mut rng = junqi_core::rng_from_seed(4);
    let mut rate = |m: &DeploymentModel| {
        (0..200)
            .filter(|_| {
                let d = m.choose_red_half(&mut rng);
                validate(Army::ALL[0], &d, &rules).unwrap();
                bomb_before_flag(&d)
            })
            .count()
    };
    let (before, after) = (rate(&untrained), rate(&fitted));
    assert!(after >= before + 40, "bombs before the flag: {before} untrained, {after} fitted, of 200");

    let _ = std::fs::remove_dir_all(&dir);
}

/// As a two-player net's: a four-player net exported by a trainer started
/// from an `init` with a deployment model keeps that model.
#[test]
fn a_four_player_net_trained_from_init_keeps_its_deployment_model() {
    let dir = temp_dir("siguo-keep-deploy");
    let mut config = crate::common::small_config();
    config.model = ModelConfig { blocks: 1, channels: 8, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    let init = dir.join("init.safetensors");
    junqi_train::init_siguo_net(&config.model, 1, &init).unwrap();
    let mut model = DeploymentModel::uniform();
    model.weights.iter_mut().enumerate().for_each(|(i, w)| *w = (i % 5) as f32 * 0.1 - 0.2);
    let mut file = NetFile::read_game(&init, NetGame::Siguo).unwrap();
    file.set_deployment_model(&model);
    file.write(&init).unwrap();
    config.init = Some(init);
    let out = dir.join("out.safetensors");
    junqi_train::Trainer::initial_for(&config, NetGame::Siguo).unwrap().export(&out).unwrap();
    let exported = NetFile::read_game(&out, NetGame::Siguo).unwrap();
    assert_eq!(exported.deployment_model().unwrap(), Some(model));
    let _ = std::fs::remove_dir_all(&dir);
}
