//! Shared by the integration tests: a tiny self-play dataset and small configs.
#![allow(dead_code)]

use junqi_core::{Mode, Rules};
use junqi_selfplay::{prepare, Config, RunOptions};
use junqi_train::{DeviceChoice, LrSchedule, ModelConfig, TrainConfig};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-train-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 20 翻棋 games, greedy vs random, every ply sampled, 3 shards; made once per test binary.
pub fn dataset() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir("dataset");
        let config = Config::new(Rules::preset(Mode::Fanqi), 20, ["greedy", "random"], 1).unwrap().with_shard_games(8);
        prepare(config, Some(&dir)).unwrap().run(&RunOptions { threads: 2, ..Default::default() }).unwrap();
        dir
    })
}

/// A small net and settings that run in seconds on a CPU.
pub fn small_config() -> TrainConfig {
    let mut c = TrainConfig { device: DeviceChoice::Cpu, seed: 7, ..Default::default() };
    c.model = ModelConfig { blocks: 1, channels: 16, value_planes: 2, value_hidden: 16, ..Default::default() };
    c.optim.batch_size = 32;
    c.optim.lr = 3e-3;
    c.optim.warmup_steps = 0;
    c.optim.schedule = LrSchedule::Constant;
    c.optim.steps = 40;
    c.data.shuffle_buffer = 2_000;
    c.data.window_games = 0;
    c
}
