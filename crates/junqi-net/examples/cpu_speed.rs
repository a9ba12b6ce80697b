//! Forward passes per second of the CPU engine on one thread, on positions
//! from random 翻棋 games:
//!
//! ```text
//! cargo run -p junqi-net --release --example cpu_speed -- [NET] [POSITIONS]
//! ```
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::{action_to_frame, ObsCode};
use junqi_net::CpuNet;
use rand::Rng;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map(String::as_str).unwrap_or("data/nets/fanqi-1h-bilinear.safetensors");
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(4000);
    println!(
        "peak: {:.1} GFLOP/s on one thread",
        junqi_net::cpu::kernels::peak_gflops(std::time::Duration::from_secs(1))
    );
    let net = CpuNet::load(path.as_ref())?;
    let mut rng = rng_from_seed(1);
    let mut inputs = Vec::new();
    let mut moves = MoveList::new();
    while inputs.len() < 512 {
        let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), rng.random()));
        for _ in 0..rng.random_range(0..200) {
            game.truth().legal_moves(&mut moves);
            if game.truth().outcome_given(moves.len()).is_some() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())])?;
        }
        game.truth().legal_moves(&mut moves);
        if moves.is_empty() {
            continue;
        }
        let seat = game.truth().turn();
        let info = game.infoset(seat);
        let legal: Vec<u16> = moves.iter().map(|&m| action_to_frame(m, seat) as u16).collect();
        inputs.push((ObsCode::from_infoset(info), legal));
    }
    let threads: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let t = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            let (net, inputs) = (&net, &inputs);
            sc.spawn(move || {
                let mut s = net.scratch();
                for i in 0..n {
                    let (c, l) = &inputs[i % inputs.len()];
                    std::hint::black_box(net.evaluate(c, l, &mut s));
                }
            });
        }
    });
    println!("{threads} threads: {:.0} positions/s", (threads * n) as f64 / t.elapsed().as_secs_f64());
    for simd in [true] {
        let net = if simd { net.clone() } else { net.clone().portable() };
        let mut s = net.scratch();
        let t = Instant::now();
        let mut sum = 0.0;
        for i in 0..n {
            let (c, l) = &inputs[i % inputs.len()];
            sum += net.evaluate(c, l, &mut s).wdl[0];
        }
        let secs = t.elapsed().as_secs_f64();
        let m = net.model();
        println!("simd {}: {:.0} positions/s, {:.1} µs each; model FLOPs {:.2} M → {:.1} GFLOP/s; trunk alone {:.1} GFLOP/s ({sum:.1})",
            net.uses_simd(), n as f64 / secs, secs / n as f64 * 1e6, m.forward_flops() as f64 / 1e6,
            m.forward_flops() as f64 * n as f64 / secs / 1e9, m.trunk_flops() as f64 * n as f64 / secs / 1e9);
        if !simd {
            break;
        }
    }
    Ok(())
}
