//! Forward passes a second of a four-player (四国) net on the CPU, on real
//! 四国暗棋 positions: one at a time (`SiguoCpuNet::evaluate`), and through
//! the batching inference service in batches of 1 and 64.
//!
//! `cargo run --release -p junqi-net --example siguo_forward_rate [-- FILE [SECONDS]]`;
//! without a file, a random-weight net of the default four-player shape.

use junqi_net::{ModelConfig, NetFile, NetGame, ServiceOptions, SiguoCpuNet, SiguoInput, SiguoNet};
use junqi_siguo::{Mode, MoveList, Position, Rules, SiguoInfoSet};
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The mover's information set after a few random plies of several deals.
fn positions(n: usize) -> Vec<SiguoInfoSet> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for deal in 0.. {
        let mut pos = Position::new_game(Rules::preset(Mode::Anqi), deal);
        for _ in 0..rng.random_range(0..60) {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves.iter().copied().nth(rng.random_range(0..moves.len())).expect("a move");
            pos.play_unchecked(mv);
        }
        pos.legal_moves(&mut moves);
        if !moves.is_empty() {
            out.push(SiguoInfoSet::new(&pos, pos.turn()));
        }
        if out.len() == n {
            return out;
        }
    }
    unreachable!()
}

/// Positions a second that `round` reaches (each call evaluates `per_round`).
fn rate(seconds: f64, per_round: usize, mut round: impl FnMut()) -> f64 {
    round();
    let start = Instant::now();
    let mut done = 0;
    while start.elapsed() < Duration::from_secs_f64(seconds) {
        round();
        done += per_round;
    }
    done as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let p = std::env::temp_dir().join(format!("siguo-forward-rate-{}.safetensors", std::process::id()));
            NetFile::random_for(&ModelConfig::siguo(), NetGame::Siguo, 1).write(&p).expect("write the net");
            p
        }
    };
    let seconds: f64 = args.next().map_or(3.0, |s| s.parse().expect("seconds"));
    let net = Arc::new(SiguoCpuNet::load(&path).expect("a four-player net"));
    let infos = positions(64);
    let mut scratch = net.scratch();
    let mut i = 0;
    let one = rate(seconds, 1, || {
        std::hint::black_box(net.evaluate(&infos[i % infos.len()], false, &mut scratch));
        i += 1;
    });
    println!("direct        {one:>9.1} positions/s ({})", junqi_net::CpuEngine::describe(&*net));
    // The model's FLOPs a position (its dense stem's included: the sparse
    // stem does less) against one thread's FP32 peak, measured now.
    let flops = net.model().forward_flops_for(NetGame::Siguo) as f64;
    let peak = junqi_net::cpu::kernels::peak_gflops(Duration::from_secs_f64(seconds.min(2.0)));
    println!(
        "direct        {:>9.1} model GFLOP/s ({:.1} MFLOP a position), {:.0}% of one thread's FP32 peak ({peak:.1} GFLOP/s)",
        one * flops / 1e9,
        flops / 1e6,
        100.0 * one * flops / 1e9 / peak
    );
    // The service (no cache: every position is a forward pass), one
    // thread's group of `batch` positions at a time.
    let inputs: Vec<SiguoInput> = infos.iter().map(|info| SiguoInput::of(info, false).0).collect();
    for (executors, batch) in [(1, 1), (1, 64), (0, 64)] {
        let options = ServiceOptions { executors, max_batch: batch, cache_entries: 0 };
        let served = SiguoNet::serving(net.clone(), &options).expect("a service");
        let mut k = 0;
        let r = rate(seconds, batch, || {
            let tickets: Vec<_> =
                (0..batch).map(|j| served.service().submit(inputs[(k + j) % inputs.len()].clone())).collect();
            k += batch;
            for t in tickets {
                std::hint::black_box(t.wait());
            }
        });
        println!("service batch {batch:>2}  {r:>9.1} positions/s ({})", served.service().describe());
    }
}
