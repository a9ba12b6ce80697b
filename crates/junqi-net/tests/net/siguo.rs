//! Four-player (四国) nets: each game's loaders refuse the other game's
//! net files by name; a random-weight four-player net plays whole 四国暗棋
//! games against `random` with legal moves only, registered as the agent
//! `net:FILE`; and it decides from its seat's information set alone, its
//! last policy the net's whole policy. The
//! search guided by the net (`mcts:sims=N,eval=net:FILE`) plays whole
//! games with legal moves only and decides from its seat's information set.

use junqi_net::{
    register_net_bots, shared_siguo_net, siguo_net_player, CpuNet, ModelConfig, NetFile, NetGame, PolicyHead,
    SiguoCpuNet, SiguoNetEvaluator, SiguoNetPlayer,
};
use junqi_siguo::bots::RandomBot;
use junqi_siguo::search::{SearchBot, SearchConfig};
use junqi_siguo::{play_bots, Army, Mode, Position, Rules, SiguoBot, SiguoInfoSet};
use rand::SeedableRng;
use std::path::PathBuf;
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-net-siguo-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn small_siguo() -> ModelConfig {
    ModelConfig { blocks: 1, channels: 8, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() }
}

/// A random-weight four-player net and a two-player one, written to `dir`.
fn both_nets(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let four = dir.join("siguo.safetensors");
    NetFile::random_for(&small_siguo(), NetGame::Siguo, 7).write(&four).unwrap();
    let two = dir.join("duel.safetensors");
    let duel = ModelConfig { blocks: 1, channels: 8, policy_head: PolicyHead::Bilinear, ..Default::default() };
    NetFile::random(&duel, 7).write(&two).unwrap();
    (four, two)
}

#[test]
fn each_games_loaders_refuse_the_other_games_nets_by_name() {
    let dir = temp_dir("refuse");
    let (four, two) = both_nets(&dir);
    let read = NetFile::read_game(&four, NetGame::Siguo).unwrap();
    assert_eq!((read.game, read.format.as_str()), (NetGame::Siguo, junqi_net::SIGUO_NET_FORMAT));
    assert_eq!(read.metadata.get("game").map(String::as_str), Some("siguo"));
    for err in [
        NetFile::read(&four).unwrap_err().to_string(),
        CpuNet::load(&four).unwrap_err().to_string(),
        CpuNet::from_file(&read).unwrap_err().to_string(),
    ] {
        assert!(err.contains("a four-player (四国) net (format `junqi-siguo-net/1`, game `siguo`)"), "{err}");
        assert!(err.contains("where a two-player net is needed"), "{err}");
    }
    let duel = NetFile::read(&two).unwrap();
    for err in [
        NetFile::read_game(&two, NetGame::Siguo).unwrap_err().to_string(),
        SiguoCpuNet::load(&two).unwrap_err().to_string(),
        SiguoCpuNet::from_file(&duel).unwrap_err().to_string(),
        siguo_net_player(&format!("net:{}", two.display())).unwrap().unwrap_err(),
    ] {
        assert!(err.contains("a two-player net (format `junqi-net/1`, game `junqi`)"), "{err}");
        assert!(err.contains("where a four-player (四国) net is needed"), "{err}");
    }
    // The two-player `net:` bot refuses the four-player file too.
    register_net_bots();
    let Err(err) = junqi_bots::from_spec(&format!("net:{}", four.display())) else { panic!("refused") };
    let err = err.to_string();
    assert!(err.contains("four-player (四国) net"), "{err}");
    // A `game` key that contradicts the format is refused.
    let err = {
        // A two-player net written with `game = siguo` (and signed so).
        let path = dir.join("lying.safetensors");
        let mut f = NetFile::random(&ModelConfig { blocks: 1, channels: 8, ..Default::default() }, 1);
        f.metadata.insert("game".into(), "siguo".into());
        f.write(&path).unwrap();
        NetFile::read(&path).unwrap_err().to_string()
    };
    assert!(err.contains("metadata `game` is `siguo`, but format `junqi-net/1` is a two-player net"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A seat's net player as a four-player bot of `play_bots` (which refuses
/// an illegal move).
#[test]
fn a_random_net_plays_whole_anqi_games_against_random_with_legal_moves() {
    let dir = temp_dir("games");
    let (four, _) = both_nets(&dir);
    let rules = Rules::preset(Mode::Anqi);
    register_net_bots();
    // Through the agent registry, as `arena --siguo --bots net:FILE,random` builds it.
    let spec = format!("net:{}", four.display());
    assert!(junqi_siguo::build_agent(&spec, &rules).expect("net: is registered").is_ok());
    assert!(junqi_siguo::build_agent("random", &rules).is_none());
    let net = shared_siguo_net(&four).unwrap();
    for seed in 0..2u64 {
        let mut bots: [Box<dyn SiguoBot>; 4] = [0, 1, 2, 3].map(|i| -> Box<dyn SiguoBot> {
            if (i + seed as usize) & 1 == 0 {
                Box::new(SiguoNetPlayer::new(net.clone(), "net"))
            } else {
                Box::new(RandomBot)
            }
        });
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let game = play_bots(Position::new_game(rules, 100 + seed), &mut bots, &mut rng).expect("legal moves only");
        assert!(!game.moves.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Seat 0's information set at the start of three 四国暗棋 deals, each with
/// the same set read from another deal (a world drawn from it with the
/// stream `seed`) that differs in the hidden armies only.
fn twins(seed: u64) -> Vec<(SiguoInfoSet, SiguoInfoSet)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..3)
        .map(|deal| {
            let truth = Position::new_game(Rules::preset(Mode::Anqi), deal);
            let info = SiguoInfoSet::new(&truth, Army::ALL[0]);
            let world = info.sample_world(&mut rng).unwrap();
            assert!(truth.pieces().zip(world.pieces()).any(|(a, b)| a != b), "the hidden armies differ");
            let other = SiguoInfoSet::new(&world, Army::ALL[0]);
            assert_eq!(info, other, "what seat 0 knows is the same");
            (info, other)
        })
        .collect()
}

/// The player is given its seat's information set and nothing else: two
/// deals that differ in the hidden armies but not in what seat 0 knows
/// give it the same observation, so the same answer.
#[test]
fn the_net_sees_only_its_seats_information_set() {
    let dir = temp_dir("hidden");
    let (four, _) = both_nets(&dir);
    let net = Arc::new(SiguoCpuNet::load(&four).unwrap());
    for (info, other) in twins(3) {
        let mut s = net.scratch();
        let (a, b) = (net.evaluate(&info, true, &mut s), net.evaluate(&other, true, &mut s));
        assert_eq!(a, b);
        let mut player = SiguoNetPlayer::new(shared_siguo_net(&four).unwrap(), "net");
        assert_eq!(player.best_move(&info), player.best_move(&other));
        assert!(a.evaluation.belief.as_ref().is_some_and(|b| b.len() == 129 * 12));
        // What it played by is its policy, whole (self-play samples keep it).
        let mut fresh = SiguoNetPlayer::new(shared_siguo_net(&four).unwrap(), "net");
        assert_eq!(fresh.last_policy(), None, "no move yet");
        let mv = fresh.choose(&info, &mut rand::rngs::StdRng::seed_from_u64(1)).unwrap();
        let policy = fresh.last_policy().expect("the net's policy");
        assert_eq!(policy.iter().map(|p| p.0).collect::<Vec<_>>(), a.moves);
        for (p, q) in policy.iter().zip(&a.evaluation.priors) {
            assert!((p.1 - q).abs() < 1e-5, "{p:?} against {q}");
        }
        assert!((policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-4);
        let top = policy.iter().fold(policy[0], |b, &p| if p.1 > b.1 { p } else { b });
        assert_eq!(top.0, mv, "at temperature 0 it plays the most probable move");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The net-guided search as `arena --siguo` builds its bots (from the spec,
/// once `register_net_bots` has run): `mcts:sims=32,eval=net:FILE` against
/// `random`, the deal played again with the teams' seats swapped and the
/// Gumbel root (`search=gumbel`), whole 四国暗棋 games with legal moves
/// only (`play_bots` refuses any other).
#[test]
fn the_net_guided_search_plays_whole_games_with_legal_moves() {
    let dir = temp_dir("search");
    let (four, two) = both_nets(&dir);
    register_net_bots();
    let spec = format!("mcts:sims=32,eval=net:{}", four.display());
    let gumbel = format!("mcts:sims=32,search=gumbel,eval=net:{}", four.display());
    for spec in [&spec, &gumbel] {
        let bot = junqi_siguo::bot_from_spec(spec).expect("eval=net: is registered");
        assert_eq!(&bot.name(), spec);
    }
    // A two-player net is refused by name, in one line.
    let err = junqi_siguo::bot_from_spec(&format!("mcts:sims=32,eval=net:{}", two.display())).err().unwrap();
    assert!(err.contains("a two-player net") && !err.contains('\n'), "{err}");
    let rules = Rules::preset(Mode::Anqi);
    let mut moves = 0;
    for seed in 0..1u64 {
        for swap in [false, true] {
            let mut bots: [Box<dyn SiguoBot>; 4] = [0, 1, 2, 3].map(|i| {
                let search = if swap { gumbel.as_str() } else { spec.as_str() };
                let spec = if (i % 2 == 0) != swap { search } else { "random" };
                junqi_siguo::bot_from_spec(spec).unwrap()
            });
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let game = play_bots(Position::new_game(rules, 300 + seed), &mut bots, &mut rng).expect("legal moves only");
            // Re-played through the referee: every move legal, to the same end.
            let mut pos = game.start.clone();
            for &mv in &game.moves {
                pos.play(mv).expect("a legal move");
            }
            assert_eq!(pos.outcome(), Some(game.outcome));
            moves += game.moves.len();
        }
    }
    assert!(moves > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The net-guided search decides from its seat's information set only: two
/// deals that differ in the hidden armies but not in what seat 0 knows give
/// the same root statistics and move from the same random stream.
#[test]
fn the_net_guided_search_sees_only_its_seats_information_set() {
    let dir = temp_dir("search-hidden");
    let (four, _) = both_nets(&dir);
    let net = shared_siguo_net(&four).unwrap();
    for (seed, (info, other)) in twins(5).into_iter().enumerate() {
        let seed = seed as u64;
        for gumbel in [None, Some(Default::default())] {
            let config = SearchConfig { simulations: 64, gumbel, ..SearchConfig::default() };
            let mut bot = SearchBot::with_evaluator(config, Box::new(SiguoNetEvaluator::new(net.clone(), "net")));
            let a = bot.search(&info, &mut rand::rngs::StdRng::seed_from_u64(seed)).unwrap();
            let b = bot.search(&other, &mut rand::rngs::StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.moves.iter().map(|m| m.1).sum::<u32>(), 64);
            assert_eq!(a.gumbel.is_some(), gumbel.is_some());
            let pick =
                |bot: &mut SearchBot, info: &SiguoInfoSet| bot.choose(info, &mut rand::rngs::StdRng::seed_from_u64(9));
            assert_eq!(pick(&mut bot, &info), pick(&mut bot, &other));
            assert_eq!(bot.last_policy(), {
                pick(&mut bot, &info);
                bot.last_policy()
            });
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
