//! Bots that deploy their own armies (docs/rules.md §10.5; a net's learned
//! deployments): `deploy_bots` puts every such army's deployment in the
//! deal, each one legal, and leaves the other armies, and a deal without
//! such bots, exactly as dealt.

use junqi_bots::DeploymentModel;
use junqi_core::piece::Kind;
use junqi_core::setup::Deployment;
use junqi_siguo::bots::RandomBot;
use junqi_siguo::setup::{army_deployment, validate};
use junqi_siguo::{deploy_bots, Army, Mode, Move, Position, Rules, SiguoBot, SiguoInfoSet};
use rand::RngCore;

/// A bot that deploys by a learned model (or returns `fixed`), and moves at random.
struct Deployer {
    model: DeploymentModel,
    fixed: Option<Deployment>,
}

impl SiguoBot for Deployer {
    fn name(&self) -> String {
        "deployer".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        RandomBot.choose(info, rng)
    }
    fn deploy(&mut self, _army: Army, _rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        Some(self.fixed.clone().unwrap_or_else(|| self.model.choose_red_half(rng)))
    }
}

/// A model with uneven weights, so the choice leans hard on some features.
fn skewed() -> DeploymentModel {
    let mut m = DeploymentModel::uniform();
    for (i, w) in m.weights.iter_mut().enumerate() {
        *w = ((i * 7919) % 13) as f32 - 6.0;
    }
    m
}

fn sorted(d: &Deployment) -> Vec<(junqi_core::Square, Kind)> {
    let mut p = d.pieces.clone();
    p.sort();
    p
}

#[test]
fn learned_deployments_are_legal_in_every_mode_and_only_the_deployers_armies_change() {
    for mode in [Mode::Anqi, Mode::Shuangming, Mode::Quanming] {
        let rules = Rules::preset(mode);
        let mut seen = std::collections::HashSet::new();
        for seed in 0..40u64 {
            let model = if seed % 2 == 0 { skewed() } else { DeploymentModel::uniform() };
            let deal = Position::new_game(rules, seed);
            // The deployer plays team A in even seeds, team B in odd ones.
            let mut bots: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|i| {
                if i % 2 == seed as usize % 2 {
                    Box::new(Deployer { model: model.clone(), fixed: None }) as Box<dyn SiguoBot>
                } else {
                    Box::new(RandomBot)
                }
            });
            let start = deploy_bots(&deal, seed, &mut bots).unwrap();
            assert_eq!((start.turn(), start.ply()), (deal.turn(), deal.ply()));
            for army in Army::ALL {
                let d = army_deployment(&start, army);
                assert_eq!(d.pieces.len(), 25, "{mode:?} seed {seed} {army}");
                validate(army, &d, &rules).unwrap_or_else(|e| panic!("{mode:?} seed {seed}: {e}"));
                let dealt = sorted(&army_deployment(&deal, army));
                if army.index() % 2 == seed as usize % 2 {
                    seen.insert(sorted(&d));
                } else {
                    assert_eq!(sorted(&d), dealt, "{mode:?} seed {seed}: {army} keeps the deal's");
                }
            }
        }
        // Two deploying armies a game, 40 games: the choice never collapses.
        assert!(seen.len() >= 75, "{mode:?}: {} different deployments of 80", seen.len());
    }
}

#[test]
fn without_a_deploying_bot_the_deal_is_untouched() {
    let deal = Position::new_game(Rules::preset(Mode::Anqi), 5);
    let mut bots: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|_| Box::new(RandomBot) as Box<dyn SiguoBot>);
    let start = deploy_bots(&deal, 5, &mut bots).unwrap();
    assert_eq!(start.to_string(), deal.to_string());
}

/// Each army draws from its own stream: an army's learned deployment is
/// the same whether or not the other armies' bots deploy, so the two games
/// of an arena pair (one deal, the teams' seats swapped) give a model the
/// same deployment in the same seat whatever sits beside it.
#[test]
fn an_armys_deployment_depends_on_its_own_seat_and_bot_only() {
    let rules = Rules::preset(Mode::Anqi);
    let model = DeploymentModel::uniform();
    let deployer = || Box::new(Deployer { model: model.clone(), fixed: None }) as Box<dyn SiguoBot>;
    let random = || Box::new(RandomBot) as Box<dyn SiguoBot>;
    for seed in 0..6u64 {
        let deal = Position::new_game(rules, seed);
        let mut all: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|_| deployer());
        let mut team_a: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|i| if i % 2 == 0 { deployer() } else { random() });
        let mut team_b: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|i| if i % 2 == 1 { deployer() } else { random() });
        let (all, a, b) = (
            deploy_bots(&deal, seed, &mut all).unwrap(),
            deploy_bots(&deal, seed, &mut team_a).unwrap(),
            deploy_bots(&deal, seed, &mut team_b).unwrap(),
        );
        for army in Army::ALL {
            let alone = if army.index() % 2 == 0 { &a } else { &b };
            assert_eq!(army_deployment(&all, army), army_deployment(alone, army), "seed {seed} {army}");
        }
        // Another deal seed draws another deployment (the streams are the deal's).
        let other = deploy_bots(&deal, seed + 100, &mut team_a).unwrap();
        assert_ne!(army_deployment(&other, Army::ALL[0]), army_deployment(&a, Army::ALL[0]), "seed {seed}");
    }
}

#[test]
fn an_illegal_deployment_is_an_error_naming_the_bot() {
    let rules = Rules::preset(Mode::Anqi);
    let deal = Position::new_game(rules, 3);
    let mut bad = army_deployment(&deal, Army::ALL[1]);
    // The flag swapped with a piece outside the headquarters breaks §5.1.
    let flag = bad.pieces.iter().position(|p| p.1 == Kind::Flag).unwrap();
    let other = bad.pieces.iter().position(|p| p.0.rank() >= 3 && p.1 != Kind::Flag).unwrap();
    let (a, b) = (bad.pieces[flag].1, bad.pieces[other].1);
    bad.pieces[flag].1 = b;
    bad.pieces[other].1 = a;
    let mut bots: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|i| {
        let fixed = (i == 1).then(|| bad.clone());
        Box::new(Deployer { model: DeploymentModel::uniform(), fixed }) as Box<dyn SiguoBot>
    });
    let err = deploy_bots(&deal, 3, &mut bots).unwrap_err();
    assert!(err.contains("bot deployer deployed illegally") && err.contains(&Army::ALL[1].to_string()), "{err}");
}

#[test]
fn a_deploying_bots_armies_stand_as_it_deployed_them() {
    let rules = Rules::preset(Mode::Anqi);
    let deal = Position::new_game(rules, 8);
    let mine = army_deployment(&Position::new_game(rules, 9), Army::ALL[0]);
    assert_ne!(sorted(&mine), sorted(&army_deployment(&deal, Army::ALL[3])));
    let mut bots: [Box<dyn SiguoBot>; 4] = std::array::from_fn(|i| {
        if i == 3 {
            Box::new(Deployer { model: DeploymentModel::uniform(), fixed: Some(mine.clone()) }) as Box<dyn SiguoBot>
        } else {
            Box::new(RandomBot)
        }
    });
    let start = deploy_bots(&deal, 8, &mut bots).unwrap();
    assert_eq!(sorted(&army_deployment(&start, Army::ALL[3])), sorted(&mine));
    assert_eq!(start.piece_count(), deal.piece_count());
}
