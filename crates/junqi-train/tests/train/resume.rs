//! A training run stopped at a checkpoint and resumed ends with the same
//! weights, bit for bit, as one that ran straight through: the data order
//! continues where it stopped and libtorch's thread count is training's own.

use crate::common::{dataset, small_config, temp_dir};
use junqi_train::*;
use std::path::Path;

fn net_tensors(checkpoint: &Path) -> Vec<(String, Vec<f32>)> {
    let file = junqi_net::NetFile::read(checkpoint).unwrap();
    let mut tensors: Vec<(String, Vec<f32>)> = file.tensors.into_iter().map(|(n, (_, v))| (n, v)).collect();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    tensors
}

#[test]
fn a_stopped_and_resumed_run_ends_bit_identical() {
    let _threads = crate::common::libtorch_threads();
    let mut config = small_config();
    config.optim.steps = 8;
    config.log_every = 1;
    config.checkpoint_every = 100;
    let straight = temp_dir("resume-straight");
    let mut straight_metrics = MemoryMetrics::default();
    train(&config, dataset(), &straight, &mut straight_metrics).unwrap();

    let stopped = temp_dir("resume-stopped");
    let mut first_metrics = MemoryMetrics::default();
    config.optim.steps = 3;
    train(&config, dataset(), &stopped, &mut first_metrics).unwrap();
    // Something else in the process sets libtorch to one thread, as the net
    // bots do for inference (the loop's self-play before its training).
    tch::set_num_threads(1);
    config.optim.steps = 8;
    let mut resumed_metrics = MemoryMetrics::default();
    let s = train(&config, dataset(), &stopped, &mut resumed_metrics).unwrap();
    assert_eq!((s.start_step, s.end_step), (3, 8));

    let losses = |m: &MemoryMetrics| m.series["loss/total"].clone();
    let mut joined = losses(&first_metrics);
    joined.extend(losses(&resumed_metrics));
    assert_eq!(joined, losses(&straight_metrics));
    let name = "checkpoints/ckpt-000000008.safetensors";
    let (a, b) = (net_tensors(&straight.join(name)), net_tensors(&stopped.join(name)));
    assert_eq!(a.len(), b.len());
    for ((na, va), (nb, vb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        assert!(va.iter().zip(vb).all(|(x, y)| x.to_bits() == y.to_bits()), "{na} differs");
    }
    let _ = std::fs::remove_dir_all(straight);
    let _ = std::fs::remove_dir_all(stopped);
}
