//! The libtorch backend (the GPU path, run here on the CPU) in bf16 against
//! its own FP32 on real 翻棋 positions with the shipped `net:fanqi`, with
//! the CPU engine's bars (`junqi-net`'s `tests/net/precision.rs`), over the
//! positions with at least two legal actions:
//! * the most probable action is FP32's in ≥ 99% of them;
//! * the value (P(win) − P(loss)) differs by ≤ 0.02 in every one and by
//!   ≤ 0.005 on average;
//!
//! and bf16 must change the arithmetic (a setting silently ignored fails).
//! fp16 (CUDA only) and int8 (no libtorch path) run FP32 on the CPU.
//!
//! Measured (3,000 positions, 2,999 with two or more actions): bf16 99.57%
//! argmax agreement, value difference mean 0.0019, max 0.0144; largest
//! prior difference 0.0214 (autocast runs the stem in bf16 too; the CPU
//! engine's bf16, residual blocks only: 99.67%, 0.0007, 0.0050). With the
//! heads under autocast as well: 99.33%, 0.0021, 0.0140.

use junqi_bots::from_spec;
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::ObsCode;
use junqi_net::{resolve_net_path, Evaluation, NetInput, NetPrecision};
use junqi_train::{torch_backend, DeviceChoice};
use rand::Rng;

const POSITIONS: usize = 3000;

/// Every third position of 翻棋 games, half between `heuristic` bots, half
/// random, until `n` (as the CPU engine's precision test makes them).
fn positions(n: usize) -> Vec<NetInput> {
    let mut out = Vec::with_capacity(n);
    let mut moves = MoveList::new();
    let mut rng = rng_from_seed(17);
    let mut g = 0u64;
    while out.len() < n {
        g += 1;
        let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), g));
        let mut bots = (g & 1 == 0).then(|| [from_spec("heuristic").unwrap(), from_spec("heuristic").unwrap()]);
        for ply in 0..400 {
            game.truth().legal_moves(&mut moves);
            if game.truth().outcome_given(moves.len()).is_some() || out.len() == n {
                break;
            }
            let seat = game.truth().turn();
            if ply % 3 == 0 {
                out.push(NetInput::from_moves(ObsCode::from_infoset(game.infoset(seat)), moves.as_slice(), seat).0);
            }
            let mv = match &mut bots {
                Some(b) => b[seat.index()].act(&game, &mut rng).action,
                None => moves[rng.random_range(0..moves.len())],
            };
            game.play_unchecked(mv);
        }
    }
    out
}

/// `net:fanqi` through the libtorch backend maker (as `--device` installs
/// it) in `precision`: what it says it runs, and its answers in batches of 64.
fn evaluate(precision: NetPrecision, inputs: &[NetInput]) -> (String, Vec<Evaluation>) {
    let factory = (torch_backend(DeviceChoice::Cpu))(&resolve_net_path("fanqi"), precision).unwrap();
    let mut backend = factory().unwrap();
    let mut out = Vec::new();
    for chunk in inputs.chunks(64) {
        backend.evaluate(&chunk.iter().collect::<Vec<_>>(), &mut out);
    }
    assert_eq!(out.len(), inputs.len());
    (backend.describe(), out)
}

fn argmax(p: &[f32]) -> usize {
    (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).expect("a legal action")
}

fn value(e: &Evaluation) -> f32 {
    e.wdl[0] - e.wdl[2]
}

#[test]
fn libtorch_bf16_matches_its_fp32_on_real_positions_with_different_arithmetic() {
    let _threads = crate::common::libtorch_threads();
    let inputs = positions(POSITIONS);
    let (name, fp32) = evaluate(NetPrecision::Fp32, &inputs);
    assert_eq!(name, "libtorch (Cpu)");
    let (name, bf16) = evaluate(NetPrecision::Bf16, &inputs);
    assert_eq!(name, "libtorch (Cpu, bf16)");

    let (mut counted, mut agree) = (0usize, 0usize);
    let (mut value_sum, mut value_max, mut prior_max) = (0f64, 0f32, 0f32);
    for ((input, want), got) in inputs.iter().zip(&fp32).zip(&bf16) {
        let sum: f32 = got.priors.iter().sum();
        assert!((sum - 1.0).abs() < 1e-3, "bf16 priors sum to {sum}");
        let d = (value(want) - value(got)).abs();
        value_max = value_max.max(d);
        value_sum += d as f64;
        prior_max = want.priors.iter().zip(&got.priors).map(|(a, b)| (a - b).abs()).fold(prior_max, f32::max);
        if input.legal.len() >= 2 {
            counted += 1;
            agree += usize::from(argmax(&want.priors) == argmax(&got.priors));
        }
    }
    let agreement = agree as f64 / counted as f64;
    let value_mean = value_sum / inputs.len() as f64;
    eprintln!(
        "libtorch bf16 vs fp32, net:fanqi, {} positions ({counted} with ≥ 2 actions): argmax agreement {:.2}%, \
         value difference mean {value_mean:.4} max {value_max:.4}, largest prior difference {prior_max:.4}",
        inputs.len(),
        100.0 * agreement
    );
    assert!(counted >= 1000, "only {counted} positions with two or more actions");
    assert!(agreement >= 0.99, "argmax agreement {agreement:.4}");
    assert!(value_max <= 0.02, "largest value difference {value_max}");
    assert!(value_mean <= 0.005, "mean value difference {value_mean}");
    // bf16 keeps 8 bits of mantissa: answers equal to FP32's to 1e-4 mean it did not run.
    assert!(prior_max > 1e-4 && value_max > 1e-4, "bf16 answers as FP32: {prior_max}, {value_max}");

    // fp16 needs CUDA and libtorch has no int8 here: both run FP32, and say so.
    for precision in [NetPrecision::Fp16, NetPrecision::Int8] {
        let (name, got) = evaluate(precision, &inputs[..128]);
        assert_eq!(name, "libtorch (Cpu)", "{precision}");
        for (want, got) in fp32.iter().zip(&got) {
            assert_eq!((&want.priors, want.wdl), (&got.priors, got.wdl), "{precision}");
        }
    }
}
