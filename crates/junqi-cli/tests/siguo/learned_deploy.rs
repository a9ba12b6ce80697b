//! Learned four-player deployments from the command line: `selfplay
//! --siguo` with a net carrying a deployment model deploys the net's armies
//! by it (legal, different in every game) while the other bot's armies keep
//! the deal's, and `play --siguo` deals so too; `junqi replay` re-plays those games; `junqi train
//! --fit-deployments` stores a model fitted to them in the trained net, and
//! a net trained on from it (`init`) without refitting keeps that model.

use super::{junqi, stdout};
use junqi_bots::DeploymentModel;
use junqi_net::{ModelConfig, NetFile, NetGame};
use junqi_selfplay::{read_siguo_games_file, shard_files, GAMES_DIR};
use junqi_siguo::setup::{army_deployment, validate};
use junqi_siguo::{Army, Position, Rules};

/// A fresh scratch directory named `name`.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tiny random four-player net with a deployment model, written in `dir`.
fn deploying_net(dir: &std::path::Path) -> std::path::PathBuf {
    let net_path = dir.join("siguo.safetensors");
    let model = ModelConfig { blocks: 1, channels: 8, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    let mut file = NetFile::random_for(&model, NetGame::Siguo, 5);
    let weights = (0..junqi_bots::DEPLOY_FEATURES).map(|i| ((i * 31) % 7) as f32 - 3.0).collect();
    file.set_deployment_model(&DeploymentModel::from_weights(weights, 0.0, 1.0).unwrap());
    file.write(&net_path).unwrap();
    net_path
}

/// One army's deployment in a stored game (sorted) and whether it is the deal's.
type ArmyDeployment = (Army, Vec<(junqi_core::Square, junqi_core::Kind)>, bool);

/// Every army's deployment in each stored game of a four-player run, and
/// whether it is the deal's; each is checked against §10.5.
fn deployments(run: &std::path::Path) -> Vec<(junqi_selfplay::SiguoGame, Vec<ArmyDeployment>)> {
    let mut games: Vec<_> =
        shard_files(&run.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    games.sort_by_key(|g| g.game_id);
    games
        .into_iter()
        .map(|game| {
            let rules = Rules::from_toml_str(&game.rules).unwrap();
            let start = junqi_siguo::parse(&game.start, rules).unwrap();
            let deal = Position::new_game(rules, game.seed);
            let armies = Army::ALL
                .iter()
                .map(|&army| {
                    let d = army_deployment(&start, army);
                    validate(army, &d, &rules).unwrap_or_else(|e| panic!("game {}: {e}", game.game_id));
                    let mut key = d.pieces.clone();
                    key.sort();
                    let mut dealt = army_deployment(&deal, army).pieces;
                    dealt.sort();
                    let is_dealt = key == dealt;
                    (army, key, is_dealt)
                })
                .collect();
            (game, armies)
        })
        .collect()
}

/// The run holds `games` games, none forfeited, in which every army of
/// `bot` deployed by itself (not the deal's) and every other army kept the
/// deal's; how many different deployments `bot`'s armies made.
fn own_deployments(run: &std::path::Path, bot: &str, games: usize) -> usize {
    let all = deployments(run);
    assert_eq!(all.len(), games);
    let mut own = std::collections::HashSet::new();
    for (game, armies) in all {
        assert_ne!(game.termination, "forfeit", "game {}", game.game_id);
        for (army, key, dealt) in armies {
            if game.bots[army.index()] == bot {
                assert!(!dealt, "game {}: {bot} deploys {army} itself", game.game_id);
                own.insert(key);
            } else {
                assert!(dealt, "game {}: {} keeps the deal's {army}", game.game_id, game.bots[army.index()]);
            }
        }
    }
    own.len()
}

#[test]
fn a_net_with_a_deployment_model_deploys_by_it_and_train_fits_one() {
    let dir = scratch("learned-deploy");
    let net_path = deploying_net(&dir);
    let net_bot = format!("net:{}", net_path.display());
    let run = dir.join("run");
    let bots = format!("{net_bot},random");
    let args = ["selfplay", "--siguo", "--bots", &bots, "--games", "6", "--samples-per-game", "4", "--threads", "2"];
    let text = stdout(&junqi(&[&args[..], &["--set", "max_plies=30", "--out", run.to_str().unwrap()]].concat()));
    assert!(text.contains("played 6 four-player games"), "{text}");

    assert_eq!(own_deployments(&run, &net_bot, 6), 12, "two net armies in each of 6 games, all different");
    let replayed = stdout(&junqi(&["replay", "--games", run.to_str().unwrap()]));
    assert!(replayed.contains("replayed 6 game(s): all match"), "{replayed}");

    // `play --siguo` deals the same way: its bots' armies deploy by the model
    // (全明 shows every kind), the person's army keeps the deal's.
    let board = |bot: &str| {
        let args = ["play", "--siguo", "--rules", "quanming", "--seat", "1", "--seed", "9", "--color", "never"];
        let o = super::junqi_with_stdin(&[&args[..], &["--bot", bot]].concat(), "quit\n");
        let text = stdout(&o);
        let at = text.find("type `help` for the commands").unwrap_or_else(|| panic!("{text}"));
        text[at..].to_string()
    };
    let (by_model, dealt) = (board(&net_bot), board("random"));
    assert_ne!(by_model, dealt, "the net's armies deploy by its model");
    assert_eq!(board(&net_bot), by_model, "the same seed, the same deployments");
    let train = dir.join("train");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/train/siguo-small.toml");
    let args = ["--device", "cpu", "train", "--config", config, "--data", run.to_str().unwrap()];
    let sets = ["model.blocks=1", "model.channels=8", "validate_every=0", "data.shuffle_buffer=64"];
    let mut all: Vec<&str> =
        [&args[..], &["--out", train.to_str().unwrap(), "--steps", "2", "--batch-size", "8"]].concat();
    for s in &sets {
        all.extend(["--set", s]);
    }
    all.push("--fit-deployments");
    let text = stdout(&junqi(&all));
    assert!(text.contains("deployment model fitted to 24 army deployments"), "{text}");
    let trained = NetFile::read_game(&train.join("net.safetensors"), NetGame::Siguo).unwrap();
    assert!(trained.deployment_model().unwrap().is_some(), "the trained net carries the model");

    // Trained on from that net without refitting, a net keeps its model.
    let tuned = dir.join("tuned");
    let init = format!("init={}", train.join("net.safetensors").display());
    let mut again: Vec<&str> =
        [&args[..], &["--out", tuned.to_str().unwrap(), "--steps", "2", "--batch-size", "8", "--set", &init]].concat();
    for s in &sets {
        again.extend(["--set", s]);
    }
    let text = stdout(&junqi(&again));
    assert!(text.contains("deployment model kept from"), "{text}");
    let tuned_net = NetFile::read_game(&tuned.join("net.safetensors"), NetGame::Siguo).unwrap();
    assert_eq!(tuned_net.deployment_model().unwrap(), trained.deployment_model().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same net behind the engine protocol: `junqi engine --siguo --bot
/// net:FILE` says `deploys siguo`, and in `arena --siguo` its armies deploy
/// by the model (legal, not the deal's, different from game to game) while
/// `random`'s keep the deal's; `engine-check` passes it, deployments and all.
#[test]
fn an_engine_deploys_by_its_net_behind_the_protocol() {
    let dir = scratch("engine-deploy");
    let net_path = deploying_net(&dir);
    let exe = env!("CARGO_BIN_EXE_junqi");
    let engine = format!("engine:cmd={exe} engine --siguo --bot net:{}", net_path.display());
    let run = dir.join("arena");
    let bots = format!("{engine},random");
    let args =
        ["arena", "--siguo", "--bots", &bots, "--games-per-pair", "4", "--set", "max_plies=24", "--threads", "1"];
    stdout(&junqi(&[&args[..], &["--out", run.to_str().unwrap()]].concat()));
    assert_eq!(own_deployments(&run, &engine, 4), 8, "two engine armies in each of 4 games, all different");
    let net_spec = format!("net:{}", net_path.display());
    let check = ["engine-check", "--", exe, "engine", "--siguo", "--bot", &net_spec];
    let out = std::process::Command::new(exe).args(check).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    assert!(report.contains("ok    siguo anqi as seat 3"), "{report}");
    assert!(
        report.contains("ok    siguo: `deploy` after a game's first position is answered with `error`"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
