//! Starting positions (docs/rules.md §10.5): each army's 25 pieces placed by
//! the two-player deployment rules of §5.1, checked and drawn by
//! `junqi_core::setup::Deployment` on Red's half, read in the army's zone.

use crate::board::{Army, Node};
use crate::position::{Piece, Position};
use crate::rules::Rules;
use junqi_core::piece::Colour;
use junqi_core::setup::{rng_from_seed, Deployment, DeploymentError};
use rand::Rng;

/// A deployment that broke a rule of §10.5.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("{army}: {source}")]
    Deployment { army: Army, source: DeploymentError },
    #[error("{army}: a four-player deployment is written on Red's half (squares a1-e6)")]
    NotRedHalf { army: Army },
}

/// Check one army's deployment (squares `a1` … `e6` of Red's half, read in
/// the army's zone) under `rules` (`bomb_front_rank`).
pub fn validate(army: Army, deployment: &Deployment, rules: &Rules) -> Result<(), SetupError> {
    if deployment.colour != Colour::Red {
        return Err(SetupError::NotRedHalf { army });
    }
    deployment.validate_allowing(rules.bomb_front_rank).map_err(|source| SetupError::Deployment { army, source })
}

/// A uniformly random legal deployment for one army.
pub fn random_deployment<R: Rng + ?Sized>(rules: &Rules, rng: &mut R) -> Deployment {
    Deployment::random_allowing(Colour::Red, rng, rules.bomb_front_rank)
}

/// The deployment of `army` in `pos` (a start position): its pieces in its
/// zone, written on Red's half as [`validate`] reads them.
pub fn army_deployment(pos: &Position, army: Army) -> Deployment {
    let pieces = pos
        .pieces()
        .filter(|(node, piece)| piece.army == army && node.zone() == Some(army))
        .filter_map(|(node, piece)| Some((node.square()?, piece.kind)))
        .collect();
    Deployment { colour: Colour::Red, pieces }
}

impl Position {
    /// A start position from four deployments (armies 0–3), each validated;
    /// army 0 moves first.
    pub fn from_deployments(rules: Rules, deployments: [&Deployment; 4]) -> Result<Position, SetupError> {
        let mut pos = Position::empty(rules);
        for (army, d) in Army::ALL.into_iter().zip(deployments) {
            validate(army, d, &rules)?;
            for &(sq, kind) in &d.pieces {
                pos.put(Node::in_zone(army, sq).expect("validated: Red's half"), Piece::new(army, kind));
            }
        }
        pos.settle();
        Ok(pos)
    }

    /// A new game from a seed: four uniformly random legal deployments, drawn
    /// in army order from `junqi_core::rng_from_seed(seed)`.
    pub fn new_game(rules: Rules, seed: u64) -> Position {
        let mut rng = rng_from_seed(seed);
        Position::new_game_with(rules, &mut rng)
    }

    /// As [`Position::new_game`], drawing from `rng`.
    pub fn new_game_with<R: Rng + ?Sized>(rules: Rules, rng: &mut R) -> Position {
        let d: Vec<Deployment> = (0..4).map(|_| random_deployment(&rules, rng)).collect();
        Position::from_deployments(rules, [&d[0], &d[1], &d[2], &d[3]]).expect("random deployments are legal")
    }
}
