//! VecEnv throughput with observation and mask encoding: N games per thread
//! stepped with uniformly random legal actions read from the mask.
//!
//! ```text
//! cargo run --release -p junqi-env --example vecenv_speed -- [mode] [n] [seconds] [threads]
//! ```
//! `mode` is fanqi, anqi or mingqi (default fanqi), `n` the number of games
//! per environment (default 256), `seconds` how long to run (default 5),
//! `threads` how many independent environments run in parallel, one per
//! thread (default 1). Prints game-steps/s over all threads: the whole loop
//! (action choice included) and the time inside `VecEnv::step` alone.

use junqi_core::{rng_from_seed, Mode, Rules, ACTIONS};
use junqi_env::{StepBuffers, VecEnv};
use rand::Rng;
use std::time::{Duration, Instant};

/// The index of the `k`-th 1 in a 0/1 mask, counting 8 entries at a time.
fn kth_legal(mask: &[u8], mut k: u32) -> usize {
    for (w, chunk) in mask.chunks_exact(8).enumerate() {
        let ones = u64::from_le_bytes(chunk.try_into().unwrap()).count_ones();
        if k < ones {
            return w * 8 + chunk.iter().enumerate().filter(|(_, &b)| b == 1).nth(k as usize).unwrap().0;
        }
        k -= ones;
    }
    unreachable!("k is below the number of legal actions")
}

/// One environment stepped for `seconds`: (steps, games, time inside step).
fn run(mode: Mode, n: usize, seconds: f64, thread: u64) -> (u64, u64, Duration) {
    let mut env = VecEnv::new(n, Rules::preset(mode));
    let mut buf = StepBuffers::new(n);
    let seeds: Vec<u64> = (0..n as u64).map(|i| thread << 32 | i).collect();
    env.reset(&seeds, &mut buf).unwrap();
    let mut rng = rng_from_seed(thread);
    let mut actions = vec![0usize; n];
    let (mut steps, mut games, mut in_env) = (0u64, 0u64, Duration::ZERO);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        for (i, a) in actions.iter_mut().enumerate() {
            let k = rng.random_range(0..buf.legal_count[i]);
            *a = kth_legal(&buf.mask[i * ACTIONS..(i + 1) * ACTIONS], k);
        }
        let t = Instant::now();
        env.step(&actions, &mut buf).unwrap();
        in_env += t.elapsed();
        steps += n as u64;
        games += buf.done.iter().filter(|&&d| d).count() as u64;
    }
    (steps, games, in_env)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode: Mode = args.get(1).map_or(Mode::Fanqi, |m| m.parse().expect("mode: fanqi, anqi or mingqi"));
    let n: usize = args.get(2).map_or(256, |s| s.parse().expect("n"));
    let seconds: f64 = args.get(3).map_or(5.0, |s| s.parse().expect("seconds"));
    let threads: u64 = args.get(4).map_or(1, |s| s.parse().expect("threads"));

    let start = Instant::now();
    let results: Vec<(u64, u64, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || run(mode, n, seconds, t))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total = start.elapsed().as_secs_f64();
    let steps: u64 = results.iter().map(|r| r.0).sum();
    let games: u64 = results.iter().map(|r| r.1).sum();
    // Inside-step rate: each thread's steps over its own time in `step`, summed.
    let in_env: f64 = results.iter().map(|r| r.0 as f64 / r.2.as_secs_f64()).sum();
    println!(
        "{mode} n={n} threads={threads}: {:.0} game-steps/s ({in_env:.0} inside VecEnv::step), {:.0} games/s, \
         {steps} steps, {games} games in {total:.1} s",
        steps as f64 / total,
        games as f64 / total,
    );
}
