//! Training throughput of a config on this machine:
//!
//! ```text
//! cargo run -p junqi-train --release --example throughput -- [CONFIG.toml] [STEPS] [DATA_DIR]
//! ```
//! Without DATA_DIR it first plays 40 翻棋 games (greedy vs random, every ply
//! sampled) into a temporary folder. Prints samples/s of the training steps
//! alone and of the whole loop (data loading included).

use junqi_core::{Mode, Rules};
use junqi_selfplay::{prepare, Config, RunOptions};
use junqi_train::{train, DataWindow, Loader, NoMetrics, TrainConfig, Trainer};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut config = match args.first() {
        Some(p) => TrainConfig::from_file(p.as_ref())?,
        None => TrainConfig::from_file("configs/train/small.toml".as_ref())?,
    };
    let steps: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(30);
    let tmp = std::env::temp_dir().join(format!("junqi-train-throughput-{}", std::process::id()));
    let data = match args.get(2) {
        Some(d) => PathBuf::from(d),
        None => {
            let dir = tmp.join("data");
            let c = Config::new(Rules::preset(Mode::Fanqi), 40, ["greedy", "random"], 1)?;
            let t = Instant::now();
            prepare(c, Some(&dir))?.run(&RunOptions::default())?;
            eprintln!("played 40 games in {:.1} s", t.elapsed().as_secs_f64());
            dir
        }
    };
    config.data.window_games = 0;
    let device = config.device.resolve()?;
    eprintln!("device {device:?}, threads {}, model {:?}", tch::get_num_threads(), config.model);
    let window = DataWindow::open(&data, 0)?;
    eprintln!("{} samples in {} shards", window.rows, window.shards.len());
    let mut loader = Loader::new(window, config.data.shuffle_buffer, 0);
    let mut t = Trainer::new(&config)?;
    let b = config.optim.batch_size;
    let batches: Vec<_> = (0..4).map(|_| loader.next_batch(b, device)).collect::<Result<_, _>>()?;
    for batch in &batches[..2] {
        t.train_step(batch)?; // warm-up
    }
    let start = Instant::now();
    for i in 0..steps {
        t.train_step(&batches[i as usize % batches.len()])?;
    }
    let s = start.elapsed().as_secs_f64();
    println!("train_step: {steps} steps of {b} in {s:.2} s = {:.0} samples/s", (steps as usize * b) as f64 / s);
    config.optim.steps = steps;
    config.checkpoint_every = 0;
    let summary = train(&config, &data, &tmp.join("run"), &mut NoMetrics)?;
    println!("train loop (data loading included): {:.0} samples/s", summary.samples_per_s);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}
