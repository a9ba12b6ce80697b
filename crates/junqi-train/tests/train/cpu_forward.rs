//! The plain-Rust CPU forward pass (`junqi_net::CpuNet`) gives the libtorch
//! net's answers: nets of both policy heads and several widths, trained a
//! few steps (so batch norm has real statistics), on positions of every
//! mode and both seats; with the AVX2 kernels and the portable ones.

use crate::common::{anqi_dataset, dataset, small_config, temp_dir};
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::{action_to_frame, encode_observation, ObsCode, OBS_SIZE};
use junqi_net::CpuNet;
use junqi_train::{load_net, train, ModelConfig, NoMetrics, PolicyHead, ACTIONS};
use rand::Rng;
use tch::{Device, Kind, Tensor};

/// Positions of random games in every mode: (planes, code, legal ids).
fn positions() -> Vec<(Vec<f32>, ObsCode, Vec<u16>)> {
    let mut rng = rng_from_seed(4);
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for mode in Mode::ALL {
        for g in 0..4u64 {
            let mut game = Game::new(Position::new_game(Rules::preset(mode), 40 + g));
            let stop = rng.random_range(0..300);
            for ply in 0.. {
                game.truth().legal_moves(&mut moves);
                if game.truth().outcome_given(moves.len()).is_some() || ply > stop {
                    break;
                }
                if ply % 25 == 0 {
                    let seat = game.truth().turn();
                    let info = game.infoset(seat);
                    let mut planes = vec![0.0; OBS_SIZE];
                    encode_observation(info, &mut planes);
                    let legal = moves.iter().map(|&m| action_to_frame(m, seat) as u16).collect();
                    out.push((planes, ObsCode::from_infoset(info), legal));
                }
                game.play(moves[rng.random_range(0..moves.len())]).unwrap();
            }
        }
    }
    out
}

#[test]
fn the_cpu_forward_pass_gives_the_libtorch_nets_answers() {
    let positions = positions();
    assert!(positions.len() > 40);
    for (i, (blocks, channels, head)) in
        [(2, 16, PolicyHead::Bilinear), (1, 16, PolicyHead::Conv), (1, 24, PolicyHead::Bilinear)]
            .into_iter()
            .enumerate()
    {
        let mut config = small_config();
        config.model = ModelConfig {
            blocks,
            channels,
            value_planes: 3,
            value_hidden: 20,
            policy_head: head,
            ..Default::default()
        };
        config.optim.steps = 6;
        config.checkpoint_every = 0;
        let dir = temp_dir(&format!("cpu-forward-{i}"));
        let summary = train(&config, dataset(), &dir, &mut NoMetrics).unwrap();
        let ckpt = summary.checkpoint.unwrap();

        let (_vs, net, _) = load_net(&ckpt, Device::Cpu).unwrap();
        let b = positions.len() as i64;
        let obs: Vec<f32> = positions.iter().flat_map(|p| p.0.iter().copied()).collect();
        let mut mask = vec![0u8; positions.len() * ACTIONS as usize];
        for (k, p) in positions.iter().enumerate() {
            for &a in &p.2 {
                mask[k * ACTIONS as usize + a as usize] = 1;
            }
        }
        let (policy, wdl) = net.predict(
            &Tensor::from_slice(&obs).reshape([b, -1]),
            &Tensor::from_slice(&mask).reshape([b, ACTIONS]).to_kind(Kind::Bool),
        );
        let policy: Vec<f32> = Vec::try_from(policy.reshape([-1])).unwrap();
        let wdl: Vec<f32> = Vec::try_from(wdl.reshape([-1])).unwrap();

        let cpu = CpuNet::load(&ckpt).unwrap();
        for cpu in [cpu.clone(), cpu.portable()] {
            let mut scratch = cpu.scratch();
            for (k, (_, code, legal)) in positions.iter().enumerate() {
                let e = cpu.evaluate(code, legal, &mut scratch);
                for (j, &a) in legal.iter().enumerate() {
                    let want = policy[k * ACTIONS as usize + a as usize];
                    assert!(
                        (e.priors[j] - want).abs() < 1e-4 + 1e-3 * want,
                        "net {i} simd {} position {k} action {a}: {} vs libtorch {want}",
                        cpu.uses_simd(),
                        e.priors[j]
                    );
                }
                for c in 0..3 {
                    assert!((e.wdl[c] - wdl[k * 3 + c]).abs() < 1e-4, "net {i} position {k}: {:?}", e.wdl);
                }
            }
        }
    }
}

/// A net with a belief head, trained on 暗棋 samples: the training lowers
/// the belief loss from about ln 12 (uniform), and the CPU engine's belief
/// (asked with `NetInput::belief`) equals libtorch's.
#[test]
fn the_belief_head_learns_and_the_cpu_engine_gives_libtorchs_belief() {
    let mut config = small_config();
    config.model.belief = true;
    config.model.policy_head = PolicyHead::Bilinear;
    config.optim.steps = 240;
    config.checkpoint_every = 0;
    let dir = temp_dir("belief");
    let summary = train(&config, anqi_dataset(), &dir, &mut NoMetrics).unwrap();
    let last = summary.last.unwrap();
    // Uniform over 12 kinds is ln 12 = 2.48; the army's make-up alone is worth
    // about 0.2 of that, where the pieces stand (flags and mines at the back) more.
    assert!(last.belief_loss > 0.0 && last.belief_loss < 2.2, "belief loss {}", last.belief_loss);
    let ckpt = summary.checkpoint.unwrap();

    let anqi = positions(); // every mode: the head answers for any position
    let (_vs, net, _) = load_net(&ckpt, Device::Cpu).unwrap();
    let b = anqi.len() as i64;
    let obs: Vec<f32> = anqi.iter().flat_map(|p| p.0.iter().copied()).collect();
    let obs = Tensor::from_slice(&obs).reshape([b, -1]);
    let xs = tch::no_grad(|| net.trunk(&obs, false));
    let want: Vec<f32> = Vec::try_from(net.belief_logits(&xs).unwrap().softmax(-1, Kind::Float).reshape([-1])).unwrap();
    let cpu = CpuNet::load(&ckpt).unwrap();
    let mut scratch = cpu.scratch();
    for (k, (_, code, legal)) in anqi.iter().enumerate() {
        cpu.evaluate(code, legal, &mut scratch);
        let got = cpu.belief_after_evaluate(&scratch).unwrap();
        assert_eq!(got.len(), 720);
        for (j, (g, w)) in got.iter().zip(&want[k * 720..(k + 1) * 720]).enumerate() {
            assert!((g - w).abs() < 1e-4, "position {k} node {} kind {}: {g} vs libtorch {w}", j / 12, j % 12);
        }
    }
}
