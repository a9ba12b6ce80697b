//! Shared by the integration tests.

use junqi_selfplay::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Every game and sample of a run on disk, by game id (each game once).
pub fn read_all(dir: &Path) -> (BTreeMap<u64, StoredGame>, BTreeMap<u64, Vec<Sample>>) {
    let mut games = BTreeMap::new();
    for f in shard_files(&dir.join(GAMES_DIR)).unwrap() {
        for g in read_games_file(&f).unwrap() {
            assert!(games.insert(g.game_id, g).is_none(), "a game is stored twice");
        }
    }
    let mut samples: BTreeMap<u64, Vec<Sample>> = BTreeMap::new();
    for f in shard_files(&dir.join(SAMPLES_DIR)).unwrap() {
        for s in read_samples_file(&f).unwrap() {
            samples.entry(s.game_id).or_default().push(s.sample);
        }
    }
    (games, samples)
}
