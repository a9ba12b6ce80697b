//! The four-player (四国) net: libtorch's forward pass of a random-weight
//! `Net::for_game(…, NetGame::Siguo)` (batch-norm statistics away from the
//! identity), written as a net file, is what the plain-Rust
//! `junqi_net::SiguoCpuNet` computes from the same file, on real 四国暗棋
//! observations of every seat (policy at the legal moves, the team's
//! win/draw/loss, the belief head); the file reads back into libtorch; and
//! each game's libtorch loader refuses the other game's nets by name.

use crate::common::temp_dir;
use junqi_net::{NetGame, SiguoCpuNet};
use junqi_siguo::observation::{action_index, encode, ACTIONS, OBS_LEN};
use junqi_siguo::{Announcement, Army, Mode, MoveList, Position, Rules, SiguoInfoSet};
use junqi_train::{export_siguo_net, init_siguo_net, load_net, load_siguo_net, ModelConfig, Net, PolicyHead};
use rand::{Rng, SeedableRng};
use tch::{nn, Device, Kind, Tensor};

/// Observations of the seat to move and its legal action ids, every few
/// plies of random 四国暗棋 games.
fn positions() -> Vec<(Vec<f32>, Vec<u16>)> {
    let rules = Rules::preset(Mode::Anqi);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for game in 0..3u64 {
        let mut pos = Position::new_game(rules, 500 + game);
        let mut infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
        for ply in 0..400 {
            if pos.outcome().is_some() {
                break;
            }
            let info = &infos[pos.turn().index()];
            info.legal_moves(&mut moves);
            if ply % 37 == 0 {
                let legal = moves.iter().map(|&m| action_index(info.seat(), m) as u16).collect();
                out.push((encode(info), legal));
            }
            let mv = moves[rng.random_range(0..moves.len())];
            let before = pos.clone();
            let effect = pos.play(mv).unwrap();
            let a = Announcement::new(&before, mv, &effect, &pos);
            infos.iter_mut().for_each(|i| i.update(&a));
        }
    }
    out
}

/// Every batch-norm statistic and affine parameter of `vs` drawn away from
/// the identity, so folding them into the CPU net's weights is tested.
fn perturb_batch_norms(vs: &nn::VarStore) {
    tch::no_grad(|| {
        for (name, var) in vs.variables() {
            let noise = Tensor::rand(var.size(), (Kind::Float, Device::Cpu));
            let value = if name.ends_with("running_var") {
                noise * 0.8 + 0.6
            } else if name.contains(".bn.") {
                (noise - 0.5) * 0.6 + if name.ends_with("bn.weight") { 1.0 } else { 0.0 }
            } else {
                continue;
            };
            var.shallow_clone().copy_(&value);
        }
    });
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn the_cpu_forward_pass_gives_the_libtorch_four_player_nets_answers() {
    let positions = positions();
    assert!(positions.len() >= 12, "{}", positions.len());
    let dir = temp_dir("siguo-net");
    for (i, (blocks, channels, policy_head)) in
        [(2, 16, PolicyHead::Bilinear), (1, 8, PolicyHead::Conv), (1, 24, PolicyHead::Bilinear)].into_iter().enumerate()
    {
        let model =
            ModelConfig { blocks, channels, value_planes: 3, value_hidden: 20, policy_head, ..ModelConfig::siguo() };
        tch::manual_seed(20 + i as i64);
        let vs = nn::VarStore::new(Device::Cpu);
        let net = Net::for_game(&vs.root(), &model, NetGame::Siguo);
        perturb_batch_norms(&vs);
        let path = dir.join(format!("net-{i}.safetensors"));
        export_siguo_net(&vs, &model, 3, &path).unwrap();

        let b = positions.len() as i64;
        let obs: Vec<f32> = positions.iter().flat_map(|p| p.0.iter().copied()).collect();
        let mut mask = vec![0u8; positions.len() * ACTIONS];
        for (k, p) in positions.iter().enumerate() {
            for &a in &p.1 {
                mask[k * ACTIONS + a as usize] = 1;
            }
        }
        let obs = Tensor::from_slice(&obs).reshape([b, OBS_LEN as i64]);
        let mask = Tensor::from_slice(&mask).reshape([b, ACTIONS as i64]).to_kind(Kind::Bool);
        assert_eq!(net.actions(), ACTIONS as i64);
        let (policy, wdl, belief) = net.predict_with_belief(&obs, &mask, true);
        let policy: Vec<f32> = Vec::try_from(policy.reshape([-1])).unwrap();
        let wdl: Vec<f32> = Vec::try_from(wdl.reshape([-1])).unwrap();
        let belief: Vec<f32> = Vec::try_from(belief.unwrap().reshape([-1])).unwrap();

        let cpu = SiguoCpuNet::load(&path).unwrap();
        let mut s = cpu.scratch();
        let per = 129 * 12;
        for (k, (planes, legal)) in positions.iter().enumerate() {
            let e = cpu.evaluate_planes(planes, legal, true, &mut s);
            let want: Vec<f32> = legal.iter().map(|&a| policy[k * ACTIONS + a as usize]).collect();
            assert!(max_diff(&e.priors, &want) < 2e-4, "net {i}, position {k}: {:?} vs {want:?}", e.priors);
            assert!(max_diff(&e.wdl, &wdl[k * 3..k * 3 + 3]) < 2e-4, "net {i}, position {k}: {:?}", e.wdl);
            let got = e.belief.expect("a belief head");
            assert!(max_diff(&got, &belief[k * per..(k + 1) * per]) < 2e-4, "net {i}, position {k}: belief");
        }

        // The file reads back into libtorch with the same answers.
        let (_vs2, again, file) = load_siguo_net(&path, Device::Cpu).unwrap();
        assert_eq!((file.game, file.step, &file.model), (NetGame::Siguo, 3, &model));
        let (policy2, wdl2, _) = again.predict_with_belief(&obs, &mask, false);
        let policy2: Vec<f32> = Vec::try_from(policy2.reshape([-1])).unwrap();
        let wdl2: Vec<f32> = Vec::try_from(wdl2.reshape([-1])).unwrap();
        assert!(max_diff(&policy, &policy2) < 1e-6 && max_diff(&wdl, &wdl2) < 1e-6, "net {i} read back");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_libtorch_loaders_refuse_the_other_games_nets_by_name() {
    let dir = temp_dir("siguo-refuse");
    let four = dir.join("siguo.safetensors");
    let model = ModelConfig { blocks: 1, channels: 8, ..ModelConfig::siguo() };
    init_siguo_net(&model, 5, &four).unwrap();
    let err = load_net(&four, Device::Cpu).unwrap_err().to_string();
    assert!(err.contains("a four-player (四国) net (format `junqi-siguo-net/1`, game `siguo`)"), "{err}");
    assert!(err.contains("where a two-player net is needed"), "{err}");
    let two = dir.join("duel.safetensors");
    junqi_net::NetFile::random(&ModelConfig { blocks: 1, channels: 8, ..Default::default() }, 5).write(&two).unwrap();
    let err = load_siguo_net(&two, Device::Cpu).unwrap_err().to_string();
    assert!(err.contains("a two-player net (format `junqi-net/1`, game `junqi`)"), "{err}");
    assert!(err.contains("where a four-player (四国) net is needed"), "{err}");
    // A fresh net's shape must be a four-player one that fits the limits.
    let err =
        init_siguo_net(&ModelConfig { channels: 0, ..model.clone() }, 5, &dir.join("bad.safetensors")).unwrap_err();
    assert!(err.to_string().contains("must be positive"), "{err}");
    // ... and takes the observation's 74 planes: more or fewer are refused
    // naming the planes, whether made here or read from a file.
    for in_channels in [110, 70] {
        let shape = ModelConfig { in_channels, ..model.clone() };
        let path = dir.join(format!("planes-{in_channels}.safetensors"));
        let err = init_siguo_net(&shape, 5, &path).unwrap_err().to_string();
        assert!(err.contains(&format!("takes {in_channels} observation planes")) && err.contains("74"), "{err}");
        assert!(!path.exists());
        junqi_net::NetFile::random_for(&shape, NetGame::Siguo, 5).write(&path).unwrap();
        let err = load_siguo_net(&path, Device::Cpu).unwrap_err().to_string();
        assert!(err.contains(&format!("takes {in_channels} observation planes")) && err.contains("74"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
