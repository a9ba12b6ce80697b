//! The reduced-precision forward passes (bf16, int8) against FP32 on
//! thousands of real 翻棋 positions with the shipped net, and the feature
//! check that falls back to FP32.
//!
//! Tolerances, over the positions with at least two legal actions, for
//! both shipped 翻棋 nets:
//! * the most probable action (priors' argmax) is FP32's in ≥ 99% of them;
//! * the value (P(win) − P(loss)) differs from FP32's by ≤ 0.02 in every
//!   position, and by ≤ 0.005 on average.
//!
//! Measured (3,000 positions): `net:fanqi-policy` bf16 99.67% agreement,
//! value difference mean 0.0009, max 0.0044; int8 99.50%, 0.0021, 0.0119.
//! `net:fanqi` (with the history planes) bf16 99.67%, 0.0007, 0.0050; int8
//! 99.13%, 0.0025, 0.0188. With its first residual block in int8 too,
//! `net:fanqi` fell to 98.87% and 0.0250 (`net:fanqi-policy` 99.40%,
//! 0.0155): that block stays FP32 in int8.
//!
//! Where the CPU lacks AVX-512 BF16 or VNNI the comparison of that
//! precision is skipped, with a message.

use junqi_bots::from_spec;
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::ObsCode;
use junqi_net::cpu::precision::FEATURES_ENV;
use junqi_net::{resolve_net_path, CpuFeatures, CpuNet, NetInput, Precision};
use rand::Rng;

const POSITIONS: usize = 3000;
const ARGMAX_AGREEMENT: f64 = 0.99;
const MEAN_VALUE_DIFF: f64 = 0.005;
const MAX_VALUE_DIFF: f64 = 0.02;

/// Every third position of 翻棋 games, half between `heuristic` bots, half
/// random, until `n`.
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

fn argmax(p: &[f32]) -> usize {
    (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).expect("a legal action")
}

#[test]
fn reduced_precision_matches_fp32_on_real_positions() {
    let inputs = positions(POSITIONS);
    compare_precisions("fanqi-policy", &inputs);
    compare_precisions("fanqi", &inputs);
}

/// Every reduced precision of the shipped net `name` against its FP32 on `inputs`.
fn compare_precisions(name: &str, inputs: &[NetInput]) {
    let path = resolve_net_path(name);
    let fp32 = CpuNet::load(&path).unwrap();
    assert_eq!(fp32.precision(), Precision::Fp32);
    let mut s = fp32.scratch();
    let want: Vec<_> = inputs.iter().map(|i| fp32.evaluate(&i.code, &i.legal, &mut s)).collect();
    let features = CpuFeatures::detect();
    for p in [Precision::Bf16, Precision::Int8] {
        if !features.supports(p) {
            println!("skipped: this CPU (or {FEATURES_ENV}) has no {p} kernels ({features:?})");
            continue;
        }
        let net = CpuNet::load(&path).unwrap().with_precision(p);
        assert_eq!(net.precision(), p);
        let mut s = net.scratch();
        let (mut compared, mut agree, mut sum, mut top) = (0usize, 0usize, 0.0f64, 0.0f64);
        for (i, w) in inputs.iter().zip(&want) {
            let e = net.evaluate(&i.code, &i.legal, &mut s);
            let d = (e.value() - w.value()).abs() as f64;
            sum += d;
            top = top.max(d);
            if i.legal.len() >= 2 {
                compared += 1;
                agree += (argmax(&e.priors) == argmax(&w.priors)) as usize;
            }
        }
        let (agreement, mean) = (agree as f64 / compared as f64, sum / inputs.len() as f64);
        println!(
            "net:{name} {p}: {} positions, argmax agreement {:.2}% of {compared}, value difference mean {mean:.4}, max {top:.4}",
            inputs.len(),
            100.0 * agreement
        );
        assert!(agreement >= ARGMAX_AGREEMENT, "net:{name} {p}: argmax agreement {agreement}");
        assert!(mean <= MEAN_VALUE_DIFF, "net:{name} {p}: mean value difference {mean}");
        assert!(top <= MAX_VALUE_DIFF, "net:{name} {p}: largest value difference {top}");
    }
}

/// With `JUNQI_CPU_FEATURES=none` the FP32 path (portable) runs whatever
/// precision is asked for: the test runs itself in a child process with
/// the variable set.
#[test]
fn hidden_features_fall_back_to_fp32() {
    if std::env::var(FEATURES_ENV).as_deref() == Ok("none") {
        let net = CpuNet::load(&resolve_net_path("fanqi")).unwrap();
        assert!(!net.uses_simd());
        for p in Precision::ALL {
            let net = net.clone().with_precision(p);
            assert_eq!(net.precision(), Precision::Fp32, "{p}");
            assert_eq!(net.describe(), "portable");
        }
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "precision::hidden_features_fall_back_to_fp32", "--test-threads=1", "--nocapture"])
        .env(FEATURES_ENV, "none")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1 passed"), "the child ran the test: {text}");
}

/// `precision=` in the net bots' specs: named back, refused when unknown,
/// and played by the search (its own service, same answers as the net in
/// that precision).
/// int8 keeps the first block in FP32, so a net of one block would run no
/// int8 at all: it says FP32, and two blocks say int8 where the CPU has it.
#[test]
fn int8_needs_a_block_past_the_first() {
    use junqi_net::{ModelConfig, NetFile};
    for (blocks, want) in [(1, Precision::Fp32), (2, CpuFeatures::detect().resolve(Precision::Int8))] {
        let file = NetFile::random(&ModelConfig { blocks, channels: 32, ..Default::default() }, 1);
        let net = CpuNet::from_file(&file).unwrap().with_precision(Precision::Int8);
        assert_eq!(net.precision(), want, "{blocks} block(s)");
    }
}

#[test]
fn the_precision_key_of_the_net_bots() {
    let _services = crate::shared_services();
    junqi_net::register_net_bots();
    let name = |spec: &str| from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}")).name();
    assert_eq!(name("net:fanqi"), "net:fanqi");
    assert_eq!(name("net:fanqi,precision=fp32"), "net:fanqi");
    assert_eq!(name("net:fanqi,precision=int8"), "net:fanqi,precision=int8");
    assert_eq!(name("net:path=fanqi,temp=1,precision=bf16"), "net:path=fanqi,temp=1,precision=bf16");
    let search = name("mcts:sims=8,eval=\"net:fanqi,precision=bf16\"");
    assert!(search.ends_with("eval=\"net:fanqi,precision=bf16\""), "{search}");
    assert_eq!(name(&search), search, "the name reads back");
    let Err(err) = from_spec("net:fanqi,precision=fp16") else { panic!("fp16 is refused") };
    let err = err.to_string();
    assert!(err.contains("precision") && err.contains("bf16"), "{err}");
    assert!(from_spec("mcts:sims=8,eval=\"net:fanqi,precision=x\"").is_err());
    // The bot plays the net in the precision it names (or FP32 where the CPU cannot).
    let game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 3));
    for p in Precision::ALL {
        let d = from_spec(&format!("net:fanqi,precision={p}")).unwrap().act(&game, &mut rng_from_seed(1));
        let net = CpuNet::load(&resolve_net_path("fanqi")).unwrap().with_precision(p);
        let seat = game.truth().turn();
        let mut moves = MoveList::new();
        game.truth().legal_moves(&mut moves);
        let (input, place) = NetInput::from_moves(ObsCode::from_infoset(game.infoset(seat)), moves.as_slice(), seat);
        let e = net.evaluate(&input.code, &input.legal, &mut net.scratch());
        let want: Vec<f32> = place.iter().map(|&k| e.priors[k]).collect();
        let got: Vec<f32> = d.policy.iter().map(|(_, q)| *q).collect();
        assert_eq!(got, want, "{p}");
    }
}
