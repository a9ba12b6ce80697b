//! The training data of learned 暗棋/明棋 deployments: each finished game's
//! two deployments (from its start position) with their results, and the
//! fit stored in a net file (`junqi_bots::DeploymentModel`).

use crate::{Result, TrainError};
use junqi_bots::{DeploymentModel, FitOptions};
use junqi_core::{Deployment, Position, Rules, Seat};
use junqi_net::NetFile;
use junqi_selfplay::{read_games_file, shard_files, GAMES_DIR};
use std::path::{Path, PathBuf};

/// Every game of the self-play runs `runs` (folders with a `games/`): both
/// sides' deployments, each with its result for that side (1 won, 0.5
/// drawn, 0 lost).
pub fn deployment_games(runs: &[PathBuf], rules: &Rules) -> Result<Vec<(Deployment, f32)>> {
    let mut out = Vec::new();
    for run in runs {
        for shard in shard_files(&run.join(GAMES_DIR))? {
            for game in read_games_file(&shard)? {
                let corrupt = |message: String| TrainError::Corrupt { path: shard.clone(), message };
                let start = Position::from_jfen(&game.start_jfen, *rules)
                    .map_err(|e| corrupt(format!("game {}: start position: {e}", game.game_id)))?;
                let seat1 = first_score(&game.result)
                    .ok_or_else(|| corrupt(format!("game {}: result {:?}", game.game_id, game.result)))?;
                for (seat, result) in [(Seat::First, seat1), (Seat::Second, 1.0 - seat1)] {
                    let Some(colour) = start.colour_of(seat) else { continue };
                    out.push((Deployment::from_position(&start, colour), result));
                }
            }
        }
    }
    Ok(out)
}

/// The first side's score in a result (`1-0`, `0-1`, `1/2-1/2`: the first
/// seat, or in the four-player game team A); `None` for anything else.
pub(crate) fn first_score(result: &str) -> Option<f32> {
    match result {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

/// Fit a deployment model to `games` (from no prior) and store it in the
/// net file at `net` (either game's: the four-player games come from
/// [`crate::siguo_deployments::siguo_deployment_games`]); the model's mean
/// loss on the games is returned.
pub fn fit_into_net(net: &Path, games: &[(Deployment, f32)]) -> Result<f32> {
    let model = DeploymentModel::uniform().fit(games, &FitOptions::default());
    store_in_net(net, &model)?;
    Ok(model.loss(games))
}

/// Store `model` in the net file at `net` (replacing any it had), a
/// two-player or a four-player net (`junqi-siguo-net/1`): the same
/// `deploy.*` tensors, read back by `NetFile::deployment_model`.
pub fn store_in_net(net: &Path, model: &DeploymentModel) -> Result<()> {
    let mut file = NetFile::read_either(net)?;
    file.set_deployment_model(model);
    Ok(file.write(net)?)
}
