//! `junqi selfplay --siguo` with four-player nets: a tiny random-weight
//! net as `net:FILE` against its own search `mcts:sims=N,eval=net:FILE`,
//! two games on two threads writing samples, read back and checked: every
//! sample of the net's team plays the net's most probable move and keeps
//! the net's policy, every sample of the search's team its visit shares; `junqi replay` re-plays the games.
//! The same two bots play `arena --siguo`.

use super::{junqi, stdout};
use junqi_net::{ModelConfig, NetFile, NetGame, SiguoCpuNet, SiguoInput};
use junqi_selfplay::{read_siguo_games_file, read_siguo_samples_file, shard_files, GAMES_DIR, SAMPLES_DIR};
use junqi_siguo::SiguoCode;

#[test]
fn selfplay_siguo_plays_a_net_against_its_search_and_writes_samples() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-net-selfplay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let net_path = dir.join("siguo.safetensors");
    let model = ModelConfig { blocks: 1, channels: 16, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    NetFile::random_for(&model, NetGame::Siguo, 5).write(&net_path).unwrap();
    let (net_bot, search_bot) =
        (format!("net:{}", net_path.display()), format!("mcts:sims=8,eval=net:{}", net_path.display()));
    let out = dir.join("run");
    let bots = format!("{net_bot},{search_bot}");
    let args = ["selfplay", "--siguo", "--bots", &bots, "--games", "2", "--samples-per-game", "8", "--threads", "2"];
    let args = [&args[..], &["--set", "max_plies=60", "--out", out.to_str().unwrap()]].concat();
    let text = stdout(&junqi(&args));
    assert!(text.contains("played 2 four-player games") && text.contains("16 samples"), "{text}");

    let games: Vec<_> =
        shard_files(&out.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    assert_eq!(games.len(), 2);
    let samples: Vec<_> =
        shard_files(&out.join(SAMPLES_DIR)).unwrap().iter().flat_map(|f| read_siguo_samples_file(f).unwrap()).collect();
    assert_eq!(samples.len(), 16);
    let net = SiguoCpuNet::load(&net_path).unwrap();
    let mut scratch = net.scratch();
    let (mut by_net, mut by_search) = (0, 0);
    for s in &samples {
        let game = games.iter().find(|g| g.game_id == s.game_id).expect("the sample's game");
        let code = SiguoCode::from_bytes(&s.code).expect("a four-player observation code");
        assert_eq!(code.seat.index(), s.seat as usize);
        assert!(s.legal_actions.contains(&s.action));
        assert_eq!(s.policy.len(), s.legal_actions.len());
        assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        let played = s.legal_actions.iter().position(|&a| a == s.action).unwrap();
        if game.bots[s.seat as usize] == net_bot {
            // The net's most probable legal move, as the net computes it from the stored code.
            let input = SiguoInput { code, legal: s.legal_actions.clone(), belief: false };
            let priors = net.evaluate_input(&input, &mut scratch).priors;
            let best = priors.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
            assert_eq!(s.legal_actions[best], s.action, "game {} ply {}", s.game_id, s.ply);
            // Its sample keeps the net's whole policy, not only the move played.
            for (stored, prior) in s.policy.iter().zip(&priors) {
                assert!((stored - prior).abs() < 1e-5, "game {} ply {}: {stored} against {prior}", s.game_id, s.ply);
            }
            assert!(s.policy[played] < 1.0, "a random net's policy is spread, not one-hot");
            by_net += 1;
        } else {
            assert_eq!(game.bots[s.seat as usize], search_bot);
            // Visit shares of eight simulations.
            assert!(s.policy.iter().all(|p| (p * 8.0 - (p * 8.0).round()).abs() < 1e-4), "{:?}", s.policy);
            by_search += 1;
        }
    }
    assert!(by_net > 0 && by_search > 0, "{by_net} samples of the net, {by_search} of the search");
    let replayed = stdout(&junqi(&["replay", "--games", out.to_str().unwrap()]));
    assert!(replayed.contains("replayed 2 game(s): all match"), "{replayed}");

    // The same two in `arena --siguo`, on two threads.
    let arena = dir.join("arena");
    let args = ["arena", "--siguo", "--bots", &bots, "--games-per-pair", "2", "--threads", "2"];
    let text = stdout(&junqi(&[&args[..], &["--set", "max_plies=40", "--out", arena.to_str().unwrap()]].concat()));
    assert!(text.contains("Four-player arena (四国)") && text.contains(&net_bot), "{text}");
    let replayed = stdout(&junqi(&["replay", "--games", arena.to_str().unwrap()]));
    assert!(replayed.contains("replayed 2 game(s): all match"), "{replayed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped four-player net by name: `net:siguo` plays `arena --siguo`
/// (its plain policy, and as the search's evaluator) from any directory,
/// and the two-player commands refuse it by name.
#[test]
fn the_shipped_siguo_net_plays_by_name() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-shipped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("arena");
    let args = ["arena", "--siguo", "--bots", "net:siguo,mcts:sims=4,eval=net:siguo", "--games-per-pair", "2"];
    let text = stdout(&junqi(&[&args[..], &["--set", "max_plies=40", "--out", out.to_str().unwrap()]].concat()));
    assert!(text.contains("net:siguo"), "{text}");
    let file = junqi_net::resolve_net_path("siguo");
    assert!(NetFile::read_game(&file, NetGame::Siguo).unwrap().deployment_model().unwrap().is_some());
    let two = junqi(&[
        "arena",
        "--bots",
        "net:siguo,random",
        "--games-per-pair",
        "2",
        "--out",
        dir.join("two").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&two.stderr);
    assert!(!two.status.success() && err.contains("four-player"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
