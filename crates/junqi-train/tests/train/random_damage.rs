//! Fault injection over every kind of file the pipeline reads back: random
//! bit flips, truncations, zeroed blocks and inserted bytes (seeded) on
//! games and samples shards, exported nets and training checkpoints. Each
//! damaged file is refused with an error naming it; none is used, none
//! panics.

use crate::common::{dataset, small_config, temp_dir};
use junqi_net::NetFile;
use junqi_train::*;
use std::path::Path;

/// SplitMix64: a seeded stream of numbers for the damage.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `bytes` damaged one random way; never equal to `bytes`.
fn damaged(bytes: &[u8], rng: &mut Stream) -> (Vec<u8>, String) {
    loop {
        let mut out = bytes.to_vec();
        let at = rng.below(bytes.len());
        let how = match rng.below(4) {
            0 => {
                let bit = rng.below(8);
                out[at] ^= 1 << bit;
                format!("bit {bit} of byte {at} flipped")
            }
            1 => {
                out.truncate(at);
                format!("cut to {at} bytes")
            }
            2 => {
                let len = 1 + rng.below(4096);
                let end = (at + len).min(out.len());
                out[at..end].fill(0);
                format!("bytes {at}..{end} zeroed")
            }
            _ => {
                let b = rng.next() as u8;
                out.insert(at, b);
                format!("byte {b:#04x} inserted at {at}")
            }
        };
        if out != bytes {
            return (out, how);
        }
    }
}

/// Damage `original` `cases` ways, write each to `path`, and require
/// `read(path)` to be an error that names the file.
fn every_damage_is_refused<T>(original: &Path, cases: usize, seed: u64, read: impl Fn(&Path) -> Result<T, String>) {
    let bytes = std::fs::read(original).unwrap();
    let mut rng = Stream(seed);
    for case in 0..cases {
        let (bad, how) = damaged(&bytes, &mut rng);
        std::fs::write(original, &bad).unwrap();
        match read(original) {
            Ok(_) => panic!("{} with {how} (case {case}) was accepted", original.display()),
            Err(e) => {
                let name = original.file_name().unwrap().to_string_lossy();
                assert!(e.contains(name.as_ref()), "{how}: the error does not name the file: {e}");
            }
        }
    }
    std::fs::write(original, &bytes).unwrap();
    assert!(read(original).is_ok(), "the undamaged file reads");
}

#[test]
fn damaged_shards_are_refused() {
    let dir = temp_dir("damage-shards");
    for sub in [junqi_selfplay::GAMES_DIR, junqi_selfplay::SAMPLES_DIR] {
        let shard = dir.join(format!("{sub}.parquet"));
        std::fs::copy(dataset().join(sub).join("shard-000001.parquet"), &shard).unwrap();
        let record = junqi_selfplay::checksum_path(&dataset().join(sub).join("shard-000001.parquet"));
        std::fs::copy(record, junqi_selfplay::checksum_path(&shard)).unwrap();
        if sub == junqi_selfplay::GAMES_DIR {
            every_damage_is_refused(&shard, 150, 1, |p| junqi_selfplay::read_games_file(p).map_err(|e| e.to_string()));
        } else {
            every_damage_is_refused(&shard, 150, 2, |p| {
                junqi_selfplay::read_samples_file(p).map_err(|e| e.to_string())
            });
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn damaged_nets_and_checkpoints_are_refused() {
    let out = temp_dir("damage-nets");
    let mut config = small_config();
    config.optim.steps = 2;
    train(&config, dataset(), &out, &mut NoMetrics).unwrap();
    let checkpoint = out.join(CHECKPOINT_DIR).join("ckpt-000000002.safetensors");
    let net = out.join("net.safetensors");
    export_checkpoint(&checkpoint, &net).unwrap();
    every_damage_is_refused(&net, 300, 3, |p| NetFile::read(p).map_err(|e| e.to_string()));
    every_damage_is_refused(&net, 100, 4, |p| load_net(p, tch::Device::Cpu).map(|_| ()).map_err(|e| e.to_string()));
    every_damage_is_refused(&checkpoint, 300, 5, |p| read_metadata(p).map_err(|e| e.to_string()));
    every_damage_is_refused(&checkpoint, 100, 6, |p| {
        Trainer::resume(p, &config).map(|_| ()).map_err(|e| e.to_string())
    });
    let _ = std::fs::remove_dir_all(out);
}
