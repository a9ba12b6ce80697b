//! The network bots and batched inference: legal play, batching across
//! threads, the same answers batched or alone, and the spec errors.

mod common;

use common::{small_config, temp_dir};
use junqi_bots::{from_spec, Player};
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::{action_to_frame, encode_observation, OBS_SIZE};
use junqi_train::inference::{BatchOptions, NetClient};
use junqi_train::{register_net_bots, DeviceChoice, Trainer};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// An untrained small net, exported once per test binary.
fn net_file() -> &'static PathBuf {
    static NET: OnceLock<PathBuf> = OnceLock::new();
    NET.get_or_init(|| {
        let dir = temp_dir("netbots");
        let path = dir.join("net.safetensors");
        Trainer::new(&small_config()).unwrap().export(&path).unwrap();
        register_net_bots();
        path
    })
}

/// Play `game` to the end (or `max` plies) with `players`, checking every move is legal.
fn play_out(players: &mut [Player; 2], mode: Mode, seed: u64, max: usize) -> Game {
    let mut rules = Rules::preset(mode);
    rules.max_plies = max as u32;
    let mut rng = rng_from_seed(seed);
    let mut game = Game::new(Position::new_game(rules, seed));
    let mut legal = MoveList::new();
    while game.outcome().is_none() {
        let seat = game.truth().turn().index();
        let d = players[seat].act(&game, &mut rng);
        game.truth().legal_moves(&mut legal);
        assert!(legal.contains(d.action), "{} played an illegal move {}", players[seat].name(), d.action);
        let sum: f32 = d.policy.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-3, "policy sums to {sum}");
        assert!(d.policy.iter().all(|(m, _)| legal.contains(*m)), "the policy names an illegal move");
        game.play(d.action).unwrap();
    }
    game
}

#[test]
fn net_and_net_guided_search_play_legal_moves() {
    let net = net_file().display().to_string();
    for (spec, name) in [
        (format!("net:{net}"), format!("net:{net}")),
        (format!("net:path={net},temp=1"), format!("net:path={net},temp=1")),
        (format!("mcts:sims=8,eval=net:{net}"), format!("mcts:sims=8,eval=net:{net}")),
        (format!("mcts:sims=8,mix=0.5,eval=net:{net}"), format!("mcts:sims=8,mix=0.5,eval=net:{net}")),
        (
            format!("mcts:sims=4,noise=0.25,temp=1,temp_plies=10,eval=net:path={net}"),
            format!("mcts:sims=4,noise=0.25,temp=1,temp_plies=10,eval=net:{net}"),
        ),
    ] {
        let bot = from_spec(&spec).unwrap();
        assert_eq!(bot.name(), name);
        assert!(!bot.cheats());
        let mut players = [from_spec(&spec).unwrap(), from_spec("random").unwrap()];
        let game = play_out(&mut players, Mode::Fanqi, 3, 60);
        assert!(game.moves().len() > 10, "{spec}");
    }
    // 暗棋: the net bots deploy (as the heuristic bot does) and play.
    let mut players = [from_spec(&format!("mcts:sims=4,eval=net:{net}")).unwrap(), from_spec("random").unwrap()];
    let rules = Rules::preset(Mode::Anqi);
    let mut rng = rng_from_seed(5);
    let deployments = [
        players[0].deploy(junqi_core::Colour::Red, &rules, &mut rng),
        players[1].deploy(junqi_core::Colour::Black, &rules, &mut rng),
    ];
    assert!(deployments.iter().all(|d| d.validate().is_ok()));
}

#[test]
fn bad_net_specs_say_why() {
    let net = net_file().display().to_string();
    let err = |s: &str| from_spec(s).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err("net:/no/such/file.safetensors").contains("/no/such/file.safetensors"),
        "{}",
        err("net:/no/such/file.safetensors")
    );
    assert!(err(&format!("net:path={net},temp=-1")).contains("finite number >= 0"));
    assert!(err(&format!("net:path={net},sims=3")).contains("parameters are: path, temp"));
    assert!(
        err("mcts:eval=greedy").contains("expected a leaf evaluator such as net:FILE"),
        "{}",
        err("mcts:eval=greedy")
    );
    // A file that is not a net.
    let junk = temp_dir("junk-net").join("junk.safetensors");
    std::fs::write(&junk, b"not a net").unwrap();
    assert!(err(&format!("net:{}", junk.display())).contains("junk.safetensors"));
}

/// The mover's observation and legal ids of a few positions of a random game.
fn positions(n: usize) -> Vec<(Vec<f32>, Vec<u16>)> {
    let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 11));
    let mut rng = rng_from_seed(11);
    let mut random = from_spec("random").unwrap();
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    while out.len() < n && game.outcome().is_none() {
        let seat = game.truth().turn();
        let info = game.infoset(seat);
        let mut obs = vec![0.0; OBS_SIZE];
        encode_observation(info, &mut obs);
        info.legal_moves(&mut moves);
        out.push((obs, moves.iter().map(|&m| action_to_frame(m, seat) as u16).collect()));
        let d = random.act(&game, &mut rng);
        game.play(d.action).unwrap();
    }
    out
}

#[test]
fn requests_from_many_threads_share_batches_and_get_their_own_answers() {
    let positions = positions(64);
    // Alone: one request at a time.
    let alone = NetClient::start(net_file(), DeviceChoice::Cpu, BatchOptions::default()).unwrap();
    let expected: Vec<_> = positions.iter().map(|(o, l)| alone.evaluate(o.clone(), l.clone())).collect();
    assert_eq!(alone.stats().mean_batch(), 1.0);
    for (e, (_, legal)) in expected.iter().zip(&positions) {
        assert_eq!(e.priors.len(), legal.len());
        assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    // Sixteen threads at once, the server waiting a little for company.
    let shared = NetClient::start(
        net_file(),
        DeviceChoice::Cpu,
        BatchOptions { max_batch: 64, max_wait: Duration::from_millis(20) },
    )
    .unwrap();
    std::thread::scope(|s| {
        for t in 0..16 {
            let (client, positions, expected) = (shared.clone(), &positions, &expected);
            s.spawn(move || {
                for i in (t..positions.len()).step_by(16) {
                    let got = client.evaluate(positions[i].0.clone(), positions[i].1.clone());
                    for (a, b) in got.priors.iter().zip(&expected[i].priors) {
                        assert!((a - b).abs() < 1e-4, "position {i}: batched {a} vs alone {b}");
                    }
                    for (a, b) in got.wdl.iter().zip(&expected[i].wdl) {
                        assert!((a - b).abs() < 1e-4);
                    }
                }
            });
        }
    });
    assert!(shared.stats().mean_batch() > 1.5, "mean batch {}", shared.stats().mean_batch());
}
