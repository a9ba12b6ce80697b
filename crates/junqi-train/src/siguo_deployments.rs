//! The training data of learned four-player (四国) deployments: each army's
//! deployment from a finished game's start position, with its team's
//! result. An army's zone is the two-player half (docs/rules.md §10.5) and
//! is stored as Red's half, so the two-player `DeploymentModel` fits it
//! unchanged ([`crate::deployments::fit_into_net`] stores it in a
//! `junqi-siguo-net/1` file as in a two-player one).

use crate::deployments::first_score;
use crate::{Result, TrainError};
use junqi_core::Deployment;
use junqi_selfplay::{read_siguo_games_file, shard_files, GAMES_DIR};
use junqi_siguo::setup::army_deployment;
use junqi_siguo::{Army, Rules, Team};
use std::path::PathBuf;

/// Every game of the four-player self-play runs `runs` (folders with a
/// `games/` of the four-seat schema): all four armies' deployments (Red's
/// half, as `junqi_siguo::setup::validate` reads them), each with its
/// team's result (1 won, 0.5 drawn, 0 lost). A two-player run is an error
/// naming its shard.
pub fn siguo_deployment_games(runs: &[PathBuf]) -> Result<Vec<(Deployment, f32)>> {
    let mut out = Vec::new();
    for run in runs {
        // The run folder, or its `samples/` folder as `junqi train --data` takes it.
        let root = match run.file_name() {
            Some(name) if name == junqi_selfplay::SAMPLES_DIR && !run.join(GAMES_DIR).is_dir() => {
                run.parent().unwrap_or(run)
            }
            _ => run.as_path(),
        };
        for shard in shard_files(&root.join(GAMES_DIR))? {
            for game in read_siguo_games_file(&shard)? {
                let corrupt = |message: String| TrainError::Corrupt { path: shard.clone(), message };
                let id = game.game_id;
                let rules = Rules::from_toml_str(&game.rules).map_err(|e| corrupt(format!("game {id}: rules: {e}")))?;
                let start = junqi_siguo::parse(&game.start, rules)
                    .map_err(|e| corrupt(format!("game {id}: start position: {e}")))?;
                let team_a =
                    first_score(&game.result).ok_or_else(|| corrupt(format!("game {id}: result {:?}", game.result)))?;
                for army in Army::ALL {
                    let score = if army.team() == Team::A { team_a } else { 1.0 - team_a };
                    out.push((army_deployment(&start, army), score));
                }
            }
        }
    }
    if out.is_empty() {
        // A model fitted on nothing would still replace the deal's deployments.
        return Err(TrainError::Config(format!(
            "no four-player games in {} to fit deployments on",
            runs.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(out)
}
