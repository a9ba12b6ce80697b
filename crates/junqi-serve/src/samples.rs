//! The sample games compiled into the binary (`data/sample-games/`, made by
//! `scripts/make-sample-games.sh`): shown when no `--runs` directory has a
//! dataset, so a first `junqi serve` has games to replay. The dataset
//! reader reads files, so they are written to a fresh directory under the
//! system's temporary directory, removed when the server stops.

use std::path::{Path, PathBuf};

macro_rules! sample {
    ($path:literal) => {
        ($path, include_bytes!(concat!("../../../data/sample-games/", $path)) as &[u8])
    };
}

/// Every file of the samples, by its path below `data/sample-games/`.
const FILES: &[(&str, &[u8])] = &[
    sample!("fanqi/run.json"),
    sample!("fanqi/games/shard-000000.parquet"),
    sample!("fanqi/games/.shard-000000.parquet.crc32c"),
    sample!("fanqi/samples/shard-000000.parquet"),
    sample!("fanqi/samples/.shard-000000.parquet.crc32c"),
    sample!("anqi/run.json"),
    sample!("anqi/games/shard-000000.parquet"),
    sample!("anqi/games/.shard-000000.parquet.crc32c"),
    sample!("anqi/samples/shard-000000.parquet"),
    sample!("anqi/samples/.shard-000000.parquet.crc32c"),
    sample!("mingqi/run.json"),
    sample!("mingqi/games/shard-000000.parquet"),
    sample!("mingqi/games/.shard-000000.parquet.crc32c"),
    sample!("mingqi/samples/shard-000000.parquet"),
    sample!("mingqi/samples/.shard-000000.parquet.crc32c"),
];

/// The samples written out, removed when dropped.
pub struct Samples {
    dir: PathBuf,
}

impl Samples {
    /// Write the samples to a new directory below `parent`.
    pub fn write_below(parent: &Path) -> std::io::Result<Samples> {
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let dir = parent.join(format!("junqi-serve-samples-{}-{}", std::process::id(), stamp.as_nanos()));
        // create_dir (not _all): a directory already there is not ours to fill.
        std::fs::create_dir(&dir)?;
        let samples = Samples { dir };
        for (path, bytes) in FILES {
            let file = samples.dir.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(file, bytes)?;
        }
        Ok(samples)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Samples {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_are_three_datasets_whose_games_read_and_go_when_dropped() {
        let parent = std::env::temp_dir();
        let samples = Samples::write_below(&parent).unwrap();
        let dir = samples.dir().to_path_buf();
        let found = crate::datasets::discover(std::slice::from_ref(&dir));
        let ids: Vec<&str> = found.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["0/anqi", "0/fanqi", "0/mingqi"]);
        let cache = crate::datasets::Cache::default();
        for d in ["anqi", "fanqi", "mingqi"] {
            assert_eq!(cache.dataset(&dir.join(d)).unwrap().games.len(), 4, "{d}");
        }
        drop(samples);
        assert!(!dir.exists());
    }
}
