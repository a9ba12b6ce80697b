//! Four-player nets behind the batching inference service: answers from
//! any batch equal the forward pass of one position (real 四国暗棋
//! positions, belief included), the AVX2 trunk on the 17 × 17 grid equals
//! the portable one, many threads at once each get their own position's
//! answer, the cache is keyed by the whole four-player query, and players
//! of one file share the registry's one service.

use junqi_net::{
    shared_siguo_net, siguo_net_player, Evaluation, InferenceService, ModelConfig, NetFile, NetGame, Query,
    ServiceOptions, SiguoCpuNet, SiguoInput, SiguoNet,
};
use junqi_siguo::{Mode, MoveList, Position, Rules, SiguoInfoSet};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;

/// A random-weight four-player net with a belief head, 32 channels (two
/// groups of the 16-channel kernel), written under the temporary directory.
fn net_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-net-siguo-service-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = ModelConfig { blocks: 2, channels: 32, value_planes: 2, value_hidden: 16, ..ModelConfig::siguo() };
    let path = dir.join("siguo.safetensors");
    NetFile::random_for(&model, NetGame::Siguo, 11).write(&path).unwrap();
    path
}

/// The mover's information set after 0 to 80 random plies of `n` deals.
fn positions(n: usize, seed: u64) -> Vec<SiguoInfoSet> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut moves = MoveList::new();
    let mut out = Vec::new();
    let mut deal = seed * 1000;
    while out.len() < n {
        deal += 1;
        let mut pos = Position::new_game(Rules::preset(Mode::Anqi), deal);
        for _ in 0..rng.random_range(0..80) {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves.iter().copied().nth(rng.random_range(0..moves.len())).unwrap();
            pos.play_unchecked(mv);
        }
        pos.legal_moves(&mut moves);
        if !moves.is_empty() {
            out.push(SiguoInfoSet::new(&pos, pos.turn()));
        }
    }
    out
}

fn close(a: &Evaluation, b: &Evaluation, tol: f32) -> bool {
    let near = |x: &[f32], y: &[f32]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tol);
    near(&a.priors, &b.priors)
        && near(&a.wdl, &b.wdl)
        && match (&a.belief, &b.belief) {
            (Some(x), Some(y)) => near(x, y),
            (None, None) => true,
            _ => false,
        }
}

/// Every position alone through the forward pass, and all of them in one
/// thread's group through services of several batch sizes and executor
/// counts: the same answers (within 1e-5), priors over the same legal
/// moves; the batches as big as asked for.
#[test]
fn batched_answers_equal_the_forward_pass_of_one_position() {
    let net = Arc::new(SiguoCpuNet::load(&net_file("batched")).unwrap());
    let infos = positions(40, 1);
    let mut scratch = net.scratch();
    let alone: Vec<_> = infos.iter().map(|info| net.evaluate(info, true, &mut scratch)).collect();
    assert!(alone.iter().all(|a| a.moves.len() == a.evaluation.priors.len() && !a.moves.is_empty()));
    for (executors, max_batch) in [(1, 16), (2, 64), (1, 1)] {
        let served =
            SiguoNet::serving(net.clone(), &ServiceOptions { executors, max_batch, cache_entries: 0 }).unwrap();
        let tickets: Vec<_> = infos.iter().map(|info| served.service().submit(SiguoInput::of(info, true).0)).collect();
        for (ticket, want) in tickets.into_iter().zip(&alone) {
            let got = ticket.wait();
            assert!(close(&got, &want.evaluation, 1e-5), "{executors} executor(s), batches of {max_batch}");
        }
        let stats = served.stats();
        assert_eq!((stats.requests, stats.positions), (40, 40));
        if executors == 1 {
            assert_eq!(stats.batches, 40u64.div_ceil(max_batch as u64), "batches of {max_batch}");
        }
        // The player's way in: moves and priors in the same order.
        for (info, want) in infos.iter().zip(&alone).take(5) {
            let got = served.evaluate(info, false);
            assert_eq!(got.moves, want.moves);
            assert!(close(&got.evaluation, &Evaluation { belief: None, ..want.evaluation.clone() }, 1e-5));
        }
    }
}

/// The trunk's AVX2 kernels on the four-player grid give the portable
/// kernels' answers (a machine without AVX2 compares portable with itself).
#[test]
fn the_simd_trunk_equals_the_portable_one_on_the_four_player_grid() {
    let path = net_file("simd");
    let (simd, portable) = (SiguoCpuNet::load(&path).unwrap(), SiguoCpuNet::load(&path).unwrap().portable());
    let (mut a, mut b) = (simd.scratch(), portable.scratch());
    for info in positions(12, 2) {
        let (x, y) = (simd.evaluate(&info, true, &mut a), portable.evaluate(&info, true, &mut b));
        assert_eq!(x.moves, y.moves);
        assert!(close(&x.evaluation, &y.evaluation, 1e-4), "{:?} vs {:?}", x.evaluation.wdl, y.evaluation.wdl);
    }
}

/// Eight threads ask one service about their own positions at once, over
/// and over (groups of one and of several, batches mixing threads): each
/// gets its own position's answer, with and without the cache.
#[test]
fn many_threads_at_once_each_get_their_own_answer() {
    let net = Arc::new(SiguoCpuNet::load(&net_file("threads")).unwrap());
    let infos = positions(16, 3);
    let mut scratch = net.scratch();
    let want: Vec<Evaluation> = infos.iter().map(|i| net.evaluate(i, false, &mut scratch).evaluation).collect();
    for cache_entries in [0, 1000] {
        let options = ServiceOptions { executors: 2, max_batch: 8, cache_entries };
        let served = SiguoNet::serving(net.clone(), &options).unwrap();
        std::thread::scope(|s| {
            for t in 0..8 {
                let (served, infos, want) = (&served, &infos, &want);
                s.spawn(move || {
                    for round in 0..6 {
                        // Two positions of this thread's own, in one group or one at a time.
                        let mine = [t, t + 8];
                        if round % 2 == 0 {
                            let tickets: Vec<_> = mine
                                .iter()
                                .map(|&i| served.service().submit(SiguoInput::of(&infos[i], false).0))
                                .collect();
                            for (ticket, &i) in tickets.into_iter().zip(&mine) {
                                assert!(close(&ticket.wait(), &want[i], 1e-5), "thread {t} position {i}");
                            }
                        } else {
                            for &i in &mine {
                                let got = served.evaluate(&infos[i], false).evaluation;
                                assert!(close(&got, &want[i], 1e-5), "thread {t} position {i}");
                            }
                        }
                    }
                });
            }
        });
        let stats = served.stats();
        assert_eq!(stats.requests, 8 * 6 * 2);
        if cache_entries > 0 {
            assert!(stats.cache_hits > 0, "{stats:?}");
        }
    }
}

/// The cache's key is the whole query: the same question is a hit, the
/// belief asked or not, another seat's code, or other legal actions are
/// not; and a hit is the answer the net gives.
#[test]
fn the_cache_is_keyed_by_the_whole_four_player_query() {
    let net = Arc::new(SiguoCpuNet::load(&net_file("cache")).unwrap());
    let served = SiguoNet::serving(net, &ServiceOptions { executors: 1, max_batch: 4, cache_entries: 100 }).unwrap();
    let info = &positions(1, 4)[0];
    let (plain, _) = SiguoInput::of(info, false);
    let with_belief = SiguoInput { belief: true, ..plain.clone() };
    let fewer = SiguoInput { legal: plain.legal[1..].to_vec(), ..plain.clone() };
    let mut other_seat = plain.clone();
    other_seat.code.seat = junqi_siguo::Army::ALL[(plain.code.seat.index() + 1) % 4];
    let variants = [&with_belief, &fewer, &other_seat];
    assert!(variants.iter().all(|v| v.hash64() != plain.hash64() && **v != plain));
    let first = served.service().evaluate(plain.clone());
    assert_eq!(served.stats().cache_hits, 0);
    assert_eq!(served.service().evaluate(plain.clone()), first);
    assert_eq!(served.stats().cache_hits, 1);
    for v in variants {
        let answer = served.service().evaluate(v.clone());
        assert_eq!(answer.priors.len(), v.legal.len());
        assert_eq!(answer.belief.is_some(), v.belief);
    }
    assert_eq!(served.stats().cache_hits, 1, "no variant is answered from the plain query's entry");
}

/// `net:FILE` players of one file, built from their spec (as an agent, and
/// as a four-player bot once registered), share the registry's one service
/// (what one asks shows in the other's counters), and ask it rather than a
/// net of their own.
#[test]
fn players_of_one_file_share_one_service() {
    let _lock = crate::shared_services();
    let path = net_file("shared");
    let spec = format!("net:{}", path.display());
    let (a, b) = (shared_siguo_net(&path).unwrap(), shared_siguo_net(&path).unwrap());
    let before = a.stats().requests;
    let mut player = siguo_net_player(&spec).unwrap().unwrap();
    let info = &positions(1, 5)[0];
    assert!(player.best_move(info).is_some());
    assert_eq!(b.stats().requests, before + 1);
    assert_eq!(a.stats(), b.stats());
    let _: &InferenceService<SiguoInput> = a.service();
    // As a four-player bot (selfplay --siguo) once registered, on the same service.
    junqi_net::register_net_bots();
    let mut bot = junqi_siguo::bot_from_spec(&spec).unwrap();
    assert!(bot.choose(info, &mut rand::rngs::StdRng::seed_from_u64(1)).is_some());
    assert_eq!(a.stats().requests, before + 2);
}

/// `temp=T`: at 0 the most probable move, drawing nothing from the stream;
/// above it, moves drawn from the bot's stream (the same for the same
/// stream, not always the most probable one). A bad temperature is refused.
#[test]
fn the_players_temperature_samples_from_the_stream() {
    let _lock = crate::shared_services();
    let path = net_file("temp");
    junqi_net::register_net_bots();
    let infos = positions(8, 9);
    let mut argmax = siguo_net_player(&format!("net:{}", path.display())).unwrap().unwrap();
    let cold = format!("net:path={},temp=0", path.display());
    let hot = format!("net:path={},temp=2", path.display());
    let choose = |spec: &str, seed: u64| -> Vec<_> {
        let mut bot = junqi_siguo::bot_from_spec(spec).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        infos.iter().map(|info| bot.choose(info, &mut rng).unwrap()).collect()
    };
    let best: Vec<_> = infos.iter().map(|info| argmax.best_move(info).unwrap()).collect();
    assert_eq!(choose(&cold, 1), best);
    assert_eq!(choose(&cold, 2), best, "temp=0 draws nothing");
    assert_eq!(choose(&hot, 3), choose(&hot, 3));
    let drawn: Vec<Vec<_>> = (0..6).map(|seed| choose(&hot, seed)).collect();
    assert!(drawn.iter().any(|moves| moves != &best), "temp=2 never left the most probable moves");
    for bad in ["temp=-1", "temp=x", "temp=inf"] {
        let err = siguo_net_player(&format!("net:path={},{bad}", path.display())).unwrap().unwrap_err();
        assert!(err.contains("temp"), "{bad}: {err}");
    }
    let err = siguo_net_player(&format!("net:path={},sims=3", path.display())).unwrap().unwrap_err();
    assert!(err.contains("sims"), "{err}");
}

/// The search asks the net's belief at the root, then the root's evaluation:
/// one forward pass answers both, and the evaluation is the one a fresh
/// question gives; any other position is asked of the net as before.
#[test]
fn the_roots_belief_and_evaluation_take_one_request() {
    use junqi_siguo::SiguoEvaluator;
    let _lock = crate::shared_services();
    let net = shared_siguo_net(&net_file("root")).unwrap();
    let mut evaluator = junqi_net::SiguoNetEvaluator::new(net.clone(), "net");
    let infos = positions(2, 9);
    let before = net.stats().requests;
    assert!(evaluator.belief(&infos[0]).is_some());
    let root = evaluator.evaluate(&infos[0]);
    assert_eq!(net.stats().requests, before + 1, "the root's evaluation came from the belief's pass");
    let fresh = evaluator.evaluate(&infos[0]);
    assert_eq!(net.stats().requests, before + 2);
    assert_eq!(root.priors.len(), fresh.priors.len());
    for (a, b) in root.priors.iter().zip(&fresh.priors) {
        assert_eq!(a.0, b.0);
        assert!((a.1 - b.1).abs() < 1e-5, "{a:?} {b:?}");
    }
    assert!((root.value - fresh.value).abs() < 1e-5);
    // After a belief, another position is evaluated by the net.
    evaluator.belief(&infos[0]);
    evaluator.evaluate(&infos[1]);
    assert_eq!(net.stats().requests, before + 4);
}
