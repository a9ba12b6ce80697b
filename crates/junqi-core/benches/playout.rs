//! Criterion benchmarks of the random-playout workload: generate every legal
//! action each ply, pick one uniformly, play it; a finished game is replaced
//! by a fresh deal. Throughput is reported in plies.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use junqi_core::{rng_from_seed, Mode, MoveList, Position, Rules};
use rand::Rng;
use std::hint::black_box;

const PLIES: u64 = 10_000;

fn random_plies(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_plies");
    group.throughput(Throughput::Elements(PLIES));
    for mode in Mode::ALL {
        let rules = Rules::preset(mode);
        group.bench_with_input(BenchmarkId::from_parameter(mode.name()), &rules, |b, &rules| {
            let mut rng = rng_from_seed(1);
            let mut list = MoveList::new();
            let mut pos = Position::new_game_with(rules, &mut rng);
            b.iter(|| {
                for _ in 0..PLIES {
                    pos.legal_moves(&mut list);
                    if pos.outcome_given(list.len()).is_some() {
                        pos = Position::new_game_with(rules, &mut rng);
                        pos.legal_moves(&mut list);
                    }
                    let m = list[rng.random_range(0..list.len())];
                    black_box(pos.play_unchecked(m));
                }
            });
        });
    }
    group.finish();
}

fn movegen(c: &mut Criterion) {
    // A fixed sample of mid-game positions per mode.
    let mut group = c.benchmark_group("legal_moves");
    for mode in Mode::ALL {
        let rules = Rules::preset(mode);
        let mut rng = rng_from_seed(2);
        let mut list = MoveList::new();
        let mut sample = Vec::new();
        while sample.len() < 1000 {
            let mut pos = Position::new_game_with(rules, &mut rng);
            for ply in 0.. {
                pos.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                if ply % 25 == 10 {
                    sample.push(pos.clone());
                }
                pos.play_unchecked(list[rng.random_range(0..list.len())]);
            }
        }
        group.throughput(Throughput::Elements(sample.len() as u64));
        group.bench_function(mode.name(), |b| {
            b.iter(|| {
                let mut n = 0;
                for p in &sample {
                    p.legal_moves(&mut list);
                    n += list.len();
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, random_plies, movegen);
criterion_main!(benches);
