//! Measurements for `junqi bench --net`: libtorch's matrix-product rate,
//! its forward pass by batch size, and training throughput (the step, the
//! loader, both).

use crate::{
    DataWindow, DeviceChoice, Loader, ModelConfig, Result, TorchBackend, TrainConfig, TrainPrecision, Trainer,
};
use junqi_net::{Backend, NetInput};
use std::path::Path;
use std::time::Instant;

/// GFLOP/s of an `n × n` float matrix product on the CPU with `threads` intra-op threads.
pub fn sgemm_gflops(threads: usize, n: i64) -> f64 {
    tch::set_num_threads(threads as i32);
    let a = tch::Tensor::rand([n, n], (tch::Kind::Float, tch::Device::Cpu));
    let _ = a.matmul(&a);
    let reps = 6;
    let t = Instant::now();
    for _ in 0..reps {
        let _ = a.matmul(&a);
    }
    2.0 * (n * n * n) as f64 * reps as f64 / t.elapsed().as_secs_f64() / 1e9
}

/// Positions/s of libtorch's forward pass of the net at `path` on `device`
/// (on the CPU with `threads` intra-op threads) for each batch size, the planes built from
/// `pool`'s codes as the GPU backend does.
pub fn forward_rates(
    path: &Path,
    device: DeviceChoice,
    threads: usize,
    pool: &[NetInput],
    batches: &[usize],
) -> Result<Vec<(usize, f64)>> {
    let mut backend = TorchBackend::load(path, device.resolve()?)?;
    tch::set_num_threads(threads as i32);
    let mut out = Vec::new();
    let mut rates = Vec::new();
    for &batch in batches {
        let inputs: Vec<&NetInput> = pool.iter().cycle().take(batch).collect();
        backend.evaluate(&inputs, &mut out);
        let reps = (4096 / batch).clamp(3, 400);
        let t = Instant::now();
        for _ in 0..reps {
            out.clear();
            backend.evaluate(&inputs, &mut out);
        }
        rates.push((batch, (batch * reps) as f64 / t.elapsed().as_secs_f64()));
    }
    Ok(rates)
}

/// Training throughput in samples/s.
#[derive(Clone, Copy, Debug)]
pub struct TrainingRates {
    pub batch: usize,
    /// `Trainer::train_step` on batches already made (forward + backward + update).
    pub step: f64,
    /// `Loader::next_batch` alone (Parquet → positions → planes, masks, targets).
    pub loader: f64,
    /// Both, one after the other, as `junqi train` runs them.
    pub both: f64,
}

/// Train a fresh net of shape `model` on `device` (on the CPU with
/// `threads` threads; the default batch) on the samples in `data` for a
/// dozen steps each way.
pub fn training_rates(model: &ModelConfig, device: DeviceChoice, threads: usize, data: &Path) -> Result<TrainingRates> {
    tch::set_num_threads(threads as i32);
    crate::driver::keep_freed_memory();
    let mut config = TrainConfig { device, ..Default::default() };
    config.model = model.clone();
    let batch = config.optim.batch_size;
    let mut loader = Loader::new(DataWindow::open(data, 0)?, 50_000, 1);
    let device = device.resolve()?;
    let n = 12;
    // The first batches fill the shuffle buffer: made before the clock starts.
    let mut batches = vec![loader.next_batch(batch, device)?];
    let t = Instant::now();
    for _ in 1..n {
        batches.push(loader.next_batch(batch, device)?);
    }
    let load = ((n - 1) * batch) as f64 / t.elapsed().as_secs_f64();
    let mut trainer = Trainer::new(&config)?;
    trainer.train_step(&batches[0])?;
    let t = Instant::now();
    for b in &batches[1..] {
        trainer.train_step(b)?;
    }
    let step = ((n - 1) * batch) as f64 / t.elapsed().as_secs_f64();
    let t = Instant::now();
    for _ in 0..n {
        let b = loader.next_batch(batch, device)?;
        trainer.train_step(&b)?;
    }
    let both = (n * batch) as f64 / t.elapsed().as_secs_f64();
    Ok(TrainingRates { batch, step, loader: load, both })
}

/// The training step's rate (samples/s, forward + backward + update on
/// batches already made) in each of `precisions`, measured in turn
/// `rounds` times over the same batches of `data` (one fresh net of shape
/// `model` per precision, from the same seed), a step of each in turn, so
/// a busy machine slows every precision alike: `rounds` rates (8 batches
/// each) per precision, in the order given.
pub fn step_rates(
    model: &ModelConfig,
    device: DeviceChoice,
    threads: usize,
    data: &Path,
    precisions: &[TrainPrecision],
    rounds: usize,
) -> Result<Vec<(TrainPrecision, Vec<f64>)>> {
    tch::set_num_threads(threads as i32);
    crate::driver::keep_freed_memory();
    let config = TrainConfig { device, model: model.clone(), ..Default::default() };
    let batch = config.optim.batch_size;
    let mut loader = Loader::new(DataWindow::open(data, 0)?, 50_000, 1);
    let dev = device.resolve()?;
    let batches: Vec<_> = (0..8).map(|_| loader.next_batch(batch, dev)).collect::<Result<_>>()?;
    let mut trainers = Vec::new();
    for &precision in precisions {
        let mut t = Trainer::new(&TrainConfig { precision, ..config.clone() })?;
        t.train_step(&batches[0])?; // warm-up: allocations, oneDNN's kernels chosen
        trainers.push((precision, t, Vec::new()));
    }
    // Step by step in turn: each batch through every precision's net
    // before the next, so a burst of load lands on all of them.
    for _ in 0..rounds {
        let mut seconds = vec![0.0; trainers.len()];
        for b in &batches {
            for ((_, trainer, _), s) in trainers.iter_mut().zip(&mut seconds) {
                let t = Instant::now();
                trainer.train_step(b)?;
                *s += t.elapsed().as_secs_f64();
            }
        }
        for ((_, _, rates), s) in trainers.iter_mut().zip(seconds) {
            rates.push((batches.len() * batch) as f64 / s);
        }
    }
    Ok(trainers.into_iter().map(|(p, _, r)| (p, r)).collect())
}
