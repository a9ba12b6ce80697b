//! FP32 against bf16 autocast (`precision = "bf16"`): the training step's
//! samples/s on the shipped 翻棋 net's shape (110 planes, 4 × 64, bilinear
//! policy), the two in turn over the same batches, so a busy machine slows
//! both alike:
//!
//! ```text
//! cargo run -p junqi-train --release --example precision_rates -- [ROUNDS] [THREADS] [DATA_DIR]
//! ```
//! Without DATA_DIR it first plays 40 翻棋 games (greedy vs random, every
//! ply sampled) into a temporary folder.

use junqi_core::{Mode, Rules};
use junqi_selfplay::{prepare, Config, RunOptions, SamplesPerGame};
use junqi_train::bench::step_rates;
use junqi_train::{DeviceChoice, ModelConfig, PolicyHead, TrainPrecision};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(5);
    let threads: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(2);
    let data = match args.get(2) {
        Some(d) => PathBuf::from(d),
        None => {
            let dir = std::env::temp_dir().join(format!("junqi-precision-rates-{}", std::process::id()));
            let c =
                Config::new(Rules::preset(Mode::Fanqi), 40, ["greedy", "random"], 1)?.with_samples(SamplesPerGame::All);
            prepare(c, Some(&dir))?.run(&RunOptions::default())?;
            dir
        }
    };
    let model = ModelConfig {
        in_channels: 110,
        blocks: 4,
        channels: 64,
        value_planes: 4,
        value_hidden: 64,
        policy_head: PolicyHead::Bilinear,
        belief: false,
    };
    let rates =
        step_rates(&model, DeviceChoice::Cpu, threads, &data, &[TrainPrecision::Fp32, TrainPrecision::Bf16], rounds)?;
    let (fp32, bf16) = (&rates[0].1, &rates[1].1);
    println!("round  fp32 samples/s  bf16 samples/s  ratio");
    for (i, (f, b)) in fp32.iter().zip(bf16).enumerate() {
        println!("{:>5} {f:>15.0} {b:>15.0} {:>6.2}", i + 1, b / f);
    }
    let mut ratios: Vec<f64> = fp32.iter().zip(bf16).map(|(f, b)| b / f).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "median ratio {:.2} (min {:.2}, max {:.2})",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
    Ok(())
}
