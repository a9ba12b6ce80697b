//! The four-player belief head (issue 44): trained on the true kinds that
//! `junqi-siguo-samples/2` stores, a tiny net beats the uniform guess over
//! each army's remaining kinds on held-out samples, and the search guided
//! by it draws its worlds through the head, from the information set alone;
//! a `junqi-siguo-samples/1` dataset still trains, without a belief loss.

use crate::common::{small_config, temp_dir};
use junqi_core::piece::{Kind, KINDS};
use junqi_selfplay::{run_siguo, RunOptions, SamplesPerGame, SiguoConfig};
use junqi_siguo::{Army, Mode, Position, Rules, SiguoEvaluator, SiguoInfoSet};
use junqi_train::{train, DataWindow, Example, Loader, ModelConfig, NoMetrics, PositionCode};
use std::path::Path;

/// `games` 四国暗棋 games of `greedy` against `random`, `per_game` plies of each sampled.
fn selfplay(dir: &Path, games: u64, per_game: u32) {
    let config = SiguoConfig::new(Rules::preset(Mode::Anqi), games, ["greedy".into(), "random".into()], 44)
        .unwrap()
        .with_samples(SamplesPerGame::Count(per_game));
    run_siguo(&config, dir, &RunOptions { threads: 2, ..Default::default() }).unwrap();
}

/// The baseline's mean cross-entropy over the belief targets of `set`:
/// each hidden piece uniform over its army's remaining kinds (§2's counts
/// less the pieces of that army on the board whose kind the seat knows),
/// restricted to the kinds its set allows. Also the number of targets.
fn uniform_over_remaining(set: &[Example]) -> (f64, usize) {
    let (mut sum, mut n) = (0.0, 0);
    for e in set {
        let PositionCode::Siguo(code) = &e.position else { panic!("a four-player example") };
        let mut remaining = [Kind::ALL.map(|k| k.count() as f64); 4];
        for (_, r, kinds) in code.pieces() {
            if kinds.count_ones() == 1 {
                remaining[r][kinds.trailing_zeros() as usize] -= 1.0;
            }
        }
        for (node, r, kinds) in code.pieces() {
            let Some(&t) = e.hidden_kinds.get(node.index()).filter(|&&t| t > 0) else { continue };
            let weight = |k: usize| if kinds & (1 << k) != 0 { remaining[r][k].max(0.0) } else { 0.0 };
            let total: f64 = (0..KINDS).map(weight).sum();
            sum -= (weight(t as usize - 1) / total).ln();
            n += 1;
        }
    }
    (sum / n as f64, n)
}

#[test]
fn a_trained_belief_head_beats_the_uniform_guess_and_guides_the_search() {
    let dir = temp_dir("siguo-belief");
    let data = dir.join("data");
    selfplay(&data, 300, 12);
    let mut config = small_config();
    config.model = ModelConfig {
        blocks: 1,
        channels: 16,
        value_planes: 2,
        value_hidden: 16,
        belief: true,
        ..ModelConfig::siguo()
    };
    (config.optim.steps, config.optim.lr) = (150, 1e-2);
    config.optim.belief_weight = 1.0;
    (config.data.shuffle_buffer, config.data.validation_every, config.data.validation_samples) = (4000, 10, 400);
    (config.validate_every, config.checkpoint_every) = (1000, 0);
    let summary = {
        let _threads = crate::common::libtorch_threads();
        train(&config, &data, &dir.join("run"), &mut NoMetrics).unwrap()
    };
    let window = DataWindow::open(&data, 0).unwrap();
    let held_out = Loader::validation_set(&window, 10, 400, config.seed).unwrap();
    assert_eq!(held_out.len(), summary.validation_positions);
    let (baseline, targets) = uniform_over_remaining(&held_out);
    let net = summary.validation.unwrap().belief_loss;
    eprintln!(
        "held-out belief cross-entropy: net {net:.3}, uniform over remaining kinds {baseline:.3} ({targets} pieces)"
    );
    assert!(targets > 5_000, "{targets} targets held out");
    assert!(net < baseline - 0.05, "the net's belief ({net:.3}) is no better than uniform ({baseline:.3})");

    // The search guided by the net draws its worlds through the head: the
    // belief sums to 1 on every hidden piece, and swapping two hidden kinds
    // of an enemy army in the truth changes neither the belief nor the move.
    let file = dir.join("net.safetensors");
    junqi_train::export_checkpoint(summary.checkpoint.as_ref().unwrap(), &file).unwrap();
    junqi_net::register_net_bots();
    let truth = Position::new_game(Rules::preset(Mode::Anqi), 4);
    let seat = truth.turn();
    let enemy = Army::ALL[(seat.index() + 1) % 4];
    let ix = SiguoInfoSet::new(&truth, seat);
    // Two of the enemy's officers of different ranks on nodes of one set.
    let officers: Vec<_> =
        truth.pieces().filter(|(_, p)| p.army == enemy && p.kind.index() <= Kind::Platoon.index()).collect();
    let (a, b) = officers
        .iter()
        .flat_map(|a| officers.iter().map(move |b| (*a, *b)))
        .find(|(a, b)| a.1.kind != b.1.kind && ix.possible_kinds(a.0) == ix.possible_kinds(b.0))
        .expect("two officers of an army on nodes of one set");
    let mut swapped = truth.clone();
    swapped.put(a.0, b.1);
    swapped.put(b.0, a.1);
    let iy = SiguoInfoSet::new(&swapped, seat);
    assert_eq!(ix, iy, "the seat cannot tell the two truths apart");
    let mut evaluator = junqi_net::SiguoNetEvaluator::new(junqi_net::shared_siguo_net(&file).unwrap(), "net");
    let belief = evaluator.belief(&ix).expect("a net with a belief head believes");
    for (node, piece) in truth.pieces().filter(|(_, p)| !ix.sees(p.army)) {
        let sum: f32 = belief.probs[node.index()].iter().sum();
        assert!((sum - 1.0).abs() < 1e-3, "{node} ({:?}): {sum}", piece.kind);
    }
    assert_eq!(Some(belief), evaluator.belief(&iy));
    let spec = format!("mcts:sims=64,eval=net:{}", file.display());
    let choose = |info: &SiguoInfoSet, spec: &str| {
        let mut bot = junqi_siguo::bot_from_spec(spec).unwrap();
        let mv = bot.choose(info, &mut junqi_core::rng_from_seed(5)).unwrap();
        (mv, bot.last_policy())
    };
    assert_eq!(choose(&ix, &spec), choose(&iy, &spec));

    // A `junqi-siguo-samples/1` dataset (no targets) trains, its belief loss 0.
    let old = dir.join("old");
    selfplay(&old, 4, 12);
    for shard in junqi_selfplay::shard_files(&old.join(junqi_selfplay::SAMPLES_DIR)).unwrap() {
        junqi_selfplay::rewrite_as_siguo_samples_v1(&shard).unwrap();
    }
    config.optim.steps = 3;
    config.validate_every = 0;
    let summary = {
        let _threads = crate::common::libtorch_threads();
        train(&config, &old, &dir.join("old-run"), &mut NoMetrics).unwrap()
    };
    let last = summary.last.unwrap();
    assert!(last.belief_loss == 0.0 && last.policy_loss > 0.0, "{last:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
