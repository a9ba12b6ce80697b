//! The network bots: legal play and the spec errors; libtorch behind the
//! inference service gives the CPU engine's answers.

use crate::common::{small_config, temp_dir};
use junqi_bots::{from_spec, Player};
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules, Seat, Square};
use junqi_env::ObsCode;
use junqi_net::{register_net_bots, CpuNet, InferenceService, NetEvaluator, NetInput, NetPrecision, ServiceOptions};
use junqi_train::{torch_backend, DeviceChoice, Trainer};
use std::path::PathBuf;
use std::sync::OnceLock;

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

/// The inputs of a few positions of a random game.
fn positions(n: usize) -> Vec<NetInput> {
    let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 11));
    let mut rng = rng_from_seed(11);
    let mut random = from_spec("random").unwrap();
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    while out.len() < n && game.outcome().is_none() {
        let seat = game.truth().turn();
        let info = game.infoset(seat);
        info.legal_moves(&mut moves);
        out.push(NetInput::from_moves(ObsCode::from_infoset(info), moves.as_slice(), seat).0);
        let d = random.act(&game, &mut rng);
        game.play(d.action).unwrap();
    }
    out
}

/// libtorch behind the inference service (the GPU path, run here on the
/// CPU) answers as the CPU engine does, in batches of any size.
#[test]
fn the_libtorch_backend_answers_as_the_cpu_engine() {
    let _threads = crate::common::libtorch_threads();
    let positions = positions(64);
    let cpu = CpuNet::load(net_file()).unwrap();
    let torch = InferenceService::start(
        (torch_backend(DeviceChoice::Cpu))(net_file(), NetPrecision::Fp32).unwrap(),
        &ServiceOptions { executors: 2, max_batch: 16, cache_entries: 0 },
    )
    .unwrap();
    assert!(torch.describe().starts_with("libtorch"), "{}", torch.describe());
    std::thread::scope(|s| {
        for t in 0..4 {
            let (torch, positions, cpu) = (torch.clone(), &positions, &cpu);
            let mut scratch = cpu.scratch();
            s.spawn(move || {
                let tickets: Vec<_> =
                    (t..positions.len()).step_by(4).map(|i| (i, torch.submit(positions[i].clone()))).collect();
                for (i, ticket) in tickets {
                    let got = ticket.wait();
                    let want = cpu.evaluate(&positions[i].code, &positions[i].legal, &mut scratch);
                    for (a, b) in got.priors.iter().zip(&want.priors) {
                        assert!((a - b).abs() < 1e-4, "position {i}: libtorch {a} vs cpu {b}");
                    }
                    for (a, b) in got.wdl.iter().zip(&want.wdl) {
                        assert!((a - b).abs() < 1e-4);
                    }
                }
            });
        }
    });
    let s = torch.stats();
    assert_eq!(s.positions, 64);
    assert!(s.mean_batch() > 1.0, "mean batch {}", s.mean_batch());
}

/// A net with a belief head: its evaluator gives the 暗棋 search a belief
/// (a distribution over the kinds on every enemy square, none in 翻棋), and
/// the search that draws its worlds from it plays legal 暗棋 games. A net
/// without the head gives none.
#[test]
fn a_belief_net_guides_the_anqi_search() {
    let _threads = crate::common::libtorch_threads();
    use junqi_bots::LeafEvaluator;
    use std::task::Poll;
    let dir = temp_dir("belief-net");
    let path = dir.join("belief.safetensors");
    let mut config = small_config();
    config.model.belief = true;
    Trainer::new(&config).unwrap().export(&path).unwrap();
    register_net_bots();
    let ask = |path: &PathBuf, mode: Mode| {
        let service = InferenceService::cpu(CpuNet::load(path).unwrap(), &ServiceOptions::default()).unwrap();
        let mut eval = NetEvaluator::new(service);
        let game = Game::new(Position::new_game(Rules::preset(mode), 4));
        let info = game.infoset(Seat::First);
        loop {
            match eval.belief(info) {
                Poll::Ready(b) => return (b, game.truth().clone()),
                Poll::Pending => eval.wait(),
            }
        }
    };
    let (belief, truth) = ask(&path, Mode::Anqi);
    let belief = belief.expect("a belief from a net with the head");
    let enemy = truth.colour_of(Seat::Second).unwrap();
    let mut squares = 0;
    for sq in Square::all() {
        if truth.piece_at(sq).is_some_and(|p| p.colour == enemy) {
            let sum: f32 = belief.probs[sq.index()].iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "{sq}: {sum}");
            squares += 1;
        }
    }
    assert_eq!(squares, 25);
    assert!(ask(&path, Mode::Fanqi).0.is_none(), "a belief in 翻棋");
    // libtorch (the GPU backend) gives the CPU engine's belief, in a batch
    // where only some inputs ask for it.
    let torch = InferenceService::start(
        (torch_backend(DeviceChoice::Cpu))(&path, NetPrecision::Fp32).unwrap(),
        &ServiceOptions { executors: 1, max_batch: 8, cache_entries: 0 },
    )
    .unwrap();
    let cpu = InferenceService::cpu(CpuNet::load(&path).unwrap(), &ServiceOptions::default()).unwrap();
    let game = Game::new(Position::new_game(Rules::preset(Mode::Anqi), 9));
    let mut inputs: Vec<NetInput> = Vec::new();
    for seat in [Seat::First, Seat::Second] {
        let info = game.infoset(seat);
        let mut moves = MoveList::new();
        info.legal_moves(&mut moves);
        let (input, _) = NetInput::from_moves(ObsCode::from_infoset(info), moves.as_slice(), seat);
        inputs.push(NetInput { belief: true, ..input.clone() });
        inputs.push(input);
    }
    let tickets: Vec<_> = inputs.iter().map(|i| torch.submit(i.clone())).collect();
    for (input, ticket) in inputs.iter().zip(tickets) {
        let (got, want) = (ticket.wait(), cpu.evaluate(input.clone()));
        assert_eq!(got.belief.is_some(), input.belief);
        if let (Some(g), Some(w)) = (&got.belief, &want.belief) {
            assert!(g.iter().zip(w).all(|(a, b)| (a - b).abs() < 1e-4), "libtorch and CPU beliefs differ");
        }
        assert!(got.priors.iter().zip(&want.priors).all(|(a, b)| (a - b).abs() < 1e-4));
    }
    assert!(ask(net_file(), Mode::Anqi).0.is_none(), "a belief from a net without the head");

    let spec = format!("mcts:sims=8,eval=net:{}", path.display());
    let mut players = [from_spec(&spec).unwrap(), from_spec("random").unwrap()];
    let game = play_out(&mut players, Mode::Anqi, 6, 80);
    assert!(game.moves().len() > 10);
}
