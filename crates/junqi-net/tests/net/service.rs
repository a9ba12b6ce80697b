//! The inference service and its cache: answers from any batch mix equal
//! the single-position forward pass bit for bit, duplicates are computed
//! once, and a cache whose hash is forced down to two bits (so nearly every
//! key collides) never answers with another position's result.

use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::ObsCode;
use junqi_net::{
    CpuNet, EvalCache, Evaluation, InferenceService, ModelConfig, NetFile, NetInput, PolicyHead, ServiceOptions,
};
use rand::seq::SliceRandom;
use rand::Rng;

fn net() -> CpuNet {
    let model = ModelConfig {
        blocks: 2,
        channels: 32,
        value_planes: 4,
        value_hidden: 32,
        policy_head: PolicyHead::Bilinear,
        ..Default::default()
    };
    CpuNet::from_file(&NetFile::random(&model, 3)).unwrap()
}

/// Distinct positions from random games of every mode.
fn inputs(n: usize) -> Vec<NetInput> {
    let mut rng = rng_from_seed(8);
    let mut out: Vec<NetInput> = Vec::new();
    let mut moves = MoveList::new();
    'games: for g in 0.. {
        let mode = Mode::ALL[g % 3];
        let mut game = Game::new(Position::new_game(Rules::preset(mode), g as u64));
        loop {
            game.truth().legal_moves(&mut moves);
            if game.truth().outcome_given(moves.len()).is_some() {
                break;
            }
            let seat = game.truth().turn();
            let (input, _) = NetInput::from_moves(ObsCode::from_infoset(game.infoset(seat)), moves.as_slice(), seat);
            if !out.contains(&input) {
                out.push(input);
                if out.len() == n {
                    break 'games;
                }
            }
            for _ in 0..rng.random_range(1..8) {
                game.truth().legal_moves(&mut moves);
                if game.truth().outcome_given(moves.len()).is_some() {
                    continue 'games;
                }
                game.play(moves[rng.random_range(0..moves.len())]).unwrap();
            }
        }
    }
    out
}

fn same(a: &Evaluation, b: &Evaluation) -> bool {
    a.wdl.map(f32::to_bits) == b.wdl.map(f32::to_bits)
        && a.priors.len() == b.priors.len()
        && a.priors.iter().zip(&b.priors).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn answers_from_any_batch_mix_equal_the_single_forward_pass() {
    let net = net();
    let inputs = inputs(150);
    let mut scratch = net.scratch();
    let alone: Vec<Evaluation> = inputs.iter().map(|i| net.evaluate(&i.code, &i.legal, &mut scratch)).collect();
    for (executors, max_batch, cache_entries) in [(1, 1, 0), (2, 7, 0), (3, 64, 1000)] {
        let options = ServiceOptions { executors, max_batch, cache_entries };
        let service = InferenceService::cpu(net.clone(), &options).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (service, inputs, alone) = (service.clone(), &inputs, &alone);
                s.spawn(move || {
                    let mut rng = rng_from_seed(t);
                    let mut order: Vec<usize> = (0..inputs.len()).collect();
                    order.shuffle(&mut rng);
                    // Groups of 1 to 40 positions: submit them all, then wait for each.
                    for chunk in order.chunks(rng.random_range(1..40)) {
                        let tickets: Vec<_> = chunk.iter().map(|&i| (i, service.submit(inputs[i].clone()))).collect();
                        for (i, ticket) in tickets {
                            let got = ticket.wait();
                            assert!(same(&got, &alone[i]), "position {i} ({executors}, {max_batch}, {cache_entries})");
                        }
                    }
                });
            }
        });
        let s = service.stats();
        assert_eq!(s.requests, 4 * inputs.len() as u64);
        assert_eq!(s.requests, s.positions + s.cache_hits + s.duplicates);
        assert!(s.batches > 0 && s.mean_batch() <= max_batch as f64);
        if cache_entries > 0 {
            assert!(s.cache_hits > 0, "{s:?}");
        } else {
            assert_eq!(s.cache_hits, 0);
        }
    }
}

#[test]
fn one_position_twice_in_a_group_is_computed_once() {
    let service =
        InferenceService::cpu(net(), &ServiceOptions { executors: 1, max_batch: 16, cache_entries: 0 }).unwrap();
    let input = inputs(1).remove(0);
    let (a, b) = (service.submit(input.clone()), service.submit(input));
    let (a, b) = (a.wait(), b.wait());
    assert!(same(&a, &b));
    let s = service.stats();
    assert_eq!((s.requests, s.duplicates, s.positions, s.batches), (2, 1, 1, 1));
}

#[test]
fn a_colliding_cache_never_answers_with_another_positions_result() {
    let net = net();
    let inputs = inputs(200);
    let mut scratch = net.scratch();
    let answers: Vec<Evaluation> = inputs.iter().map(|i| net.evaluate(&i.code, &i.legal, &mut scratch)).collect();
    // Two bits of hash: four slots for 200 positions.
    let cache = EvalCache::with_hash_mask(1_000, 0b11);
    let mut found = 0;
    for round in 0..3 {
        for (i, (input, answer)) in inputs.iter().zip(&answers).enumerate() {
            if (i + round) % 3 == 0 {
                cache.insert(input, answer);
            }
            for (j, other) in inputs.iter().enumerate() {
                if let Some(e) = cache.get(other) {
                    assert!(same(&e, &answers[j]), "position {j} got a cached answer that is not its own");
                    found += 1;
                }
            }
        }
    }
    assert!(found > 100, "the cache answered {found} times");
    assert!(cache.len() <= 8);
    // A full-width hash keeps them all (well within capacity).
    let roomy = EvalCache::new(10_000);
    for (input, answer) in inputs.iter().zip(&answers) {
        roomy.insert(input, answer);
    }
    assert!(inputs.iter().zip(&answers).all(|(i, a)| roomy.get(i).is_some_and(|e| same(&e, a))));
}

#[test]
fn a_small_cache_stays_bounded() {
    let net = net();
    let inputs = inputs(300);
    let mut scratch = net.scratch();
    let cache = EvalCache::new(64);
    for input in &inputs {
        cache.insert(input, &net.evaluate(&input.code, &input.legal, &mut scratch));
    }
    assert!(cache.len() <= 2 * 64 + 16 * 8, "{} entries", cache.len());
}
