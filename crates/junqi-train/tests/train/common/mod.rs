//! Shared by the integration tests: a tiny self-play dataset and small configs.
#![allow(dead_code)]

use junqi_core::{Mode, Rules};
use junqi_selfplay::{prepare, Config, RunOptions};
use junqi_train::{DeviceChoice, LrSchedule, ModelConfig, TrainConfig};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Held by the tests that set libtorch's process-wide thread count (the
/// libtorch inference backend sets it to 1) or depend on it staying put
/// (bit-identical resumes): they share one test binary.
pub fn libtorch_threads() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-train-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `games` games of `mode`, greedy vs random, every ply sampled, 8 games a shard, in `temp_dir(name)`.
fn greedy_vs_random(name: &str, mode: Mode, games: u64, seed: u64) -> PathBuf {
    let dir = temp_dir(name);
    let config = Config::new(Rules::preset(mode), games, ["greedy", "random"], seed).unwrap().with_shard_games(8);
    prepare(config, Some(&dir)).unwrap().run(&RunOptions { threads: 2, ..Default::default() }).unwrap();
    dir
}

/// 20 翻棋 games, greedy vs random, every ply sampled, 3 shards; made once per test binary.
pub fn dataset() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| greedy_vs_random("dataset", Mode::Fanqi, 20, 1))
}

/// 24 暗棋 games, greedy vs random, every ply sampled (with the belief
/// head's targets), 3 shards; made once per test binary.
pub fn anqi_dataset() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| greedy_vs_random("anqi-dataset", Mode::Anqi, 24, 2))
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
