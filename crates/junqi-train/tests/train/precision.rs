//! `precision = "bf16"`: training under libtorch's bf16 autocast fits a
//! fixed batch as FP32 does, from the same start, with different (bf16)
//! arithmetic; the weights and the optimiser stay FP32.

use crate::common::{dataset, small_config};
use junqi_train::*;
use tch::{Device, Kind};

/// Train a fresh net of `config` (in `precision`) 30 steps on one batch;
/// its FP32 evaluation before and after, and the trainer.
fn fit(config: &TrainConfig, precision: TrainPrecision, batch: &Batch) -> (StepMetrics, StepMetrics, Trainer) {
    let mut t = Trainer::new(&TrainConfig { precision, ..config.clone() }).unwrap();
    let before = t.evaluate(batch).unwrap();
    for _ in 0..30 {
        t.train_step(batch).unwrap();
    }
    let after = t.evaluate(batch).unwrap();
    (before, after, t)
}

#[test]
fn bf16_training_fits_a_batch_like_fp32_in_other_arithmetic() {
    let _threads = crate::common::libtorch_threads();
    let mut config = small_config();
    // The shipped nets' policy head: its q·k products are matrix products too.
    config.model.policy_head = PolicyHead::Bilinear;
    let window = DataWindow::open(dataset(), 0).unwrap();
    let batch = Loader::new(window, 2_000, 5).next_batch(64, Device::Cpu).unwrap();
    let (start32, end32, t32) = fit(&config, TrainPrecision::Fp32, &batch);
    let (start16, end16, t16) = fit(&config, TrainPrecision::Bf16, &batch);
    eprintln!("fp32 {} → {}, bf16 {} → {}", start32.total_loss, end32.total_loss, start16.total_loss, end16.total_loss);
    // The same seed: the same net before the first step.
    assert_eq!(start32.total_loss, start16.total_loss);
    // Both fit the batch, bf16 about as far as FP32.
    for end in [end32.total_loss, end16.total_loss] {
        assert!(end < 0.8 * start32.total_loss, "{} → {end}", start32.total_loss);
    }
    let (fit32, fit16) = (start32.total_loss - end32.total_loss, start16.total_loss - end16.total_loss);
    assert!((fit16 / fit32 - 1.0).abs() < 0.1, "loss fell by {fit32} in fp32, {fit16} in bf16");
    // The weights stay FP32, and differ: the steps did run in bf16.
    let mut differ = 0.0f64;
    for (name, w16) in t16.var_store().variables() {
        assert_eq!(w16.kind(), Kind::Float, "{name}");
        let w32 = &t32.var_store().variables()[&name];
        differ = differ.max((&w16 - w32).abs().max().double_value(&[]));
    }
    assert!(differ > 1e-4, "bf16 training left the weights as FP32's (largest difference {differ})");
    // The checkpoint's config keeps the precision; an FP32 one does not name it.
    assert!(t16.config().to_toml().contains("precision = \"bf16\""));
    assert!(!t32.config().to_toml().contains("precision"));
}
