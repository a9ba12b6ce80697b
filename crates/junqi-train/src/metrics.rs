//! Where training scalars go. Our own small trait, so the TensorBoard writer
//! (`tensorboard-rs`, unmaintained) can be replaced without touching the trainer.

use crate::{Result, TrainError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A sink for scalar time series (`tag` like `loss/total`, at `step`).
pub trait Metrics {
    fn scalar(&mut self, tag: &str, step: u64, value: f64);
    /// Make what was written so far durable (best effort).
    fn flush(&mut self) {}
}

/// Discards everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMetrics;

impl Metrics for NoMetrics {
    fn scalar(&mut self, _: &str, _: u64, _: f64) {}
}

/// Keeps every scalar in memory: `series[tag]` = `[(step, value)]` (tests, summaries).
#[derive(Clone, Debug, Default)]
pub struct MemoryMetrics {
    pub series: BTreeMap<String, Vec<(u64, f64)>>,
}

impl MemoryMetrics {
    pub fn last(&self, tag: &str) -> Option<f64> {
        self.series.get(tag).and_then(|s| s.last()).map(|&(_, v)| v)
    }
}

impl Metrics for MemoryMetrics {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        self.series.entry(tag.to_string()).or_default().push((step, value));
    }
}

/// TensorBoard event files in one folder (`<run dir>/tb/`), via `tensorboard-rs`.
///
/// That crate panics on I/O errors, names files by second, host and pid
/// (two writers of one process in one folder within one second would share
/// a file), and
/// only guarantees data on disk when dropped. So: the folder is created and
/// checked here first, a second writer of this process in the same second
/// waits for the next one, and [`Metrics::flush`] is called at checkpoints and at the end.
pub struct TensorBoardMetrics {
    writer: tensorboard_rs::summary_writer::SummaryWriter,
    dir: PathBuf,
}

impl TensorBoardMetrics {
    pub fn new(dir: &Path) -> Result<TensorBoardMetrics> {
        std::fs::create_dir_all(dir).map_err(TrainError::io(dir))?;
        let probe = dir.join(".write-test");
        std::fs::write(&probe, b"").map_err(TrainError::io(&probe))?;
        let _ = std::fs::remove_file(&probe);
        // File names hold the second, host and pid: two writers of this
        // process must not start within the same second.
        static LAST_SECOND: std::sync::Mutex<u64> = std::sync::Mutex::new(0);
        let mut last = LAST_SECOND.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            if now.as_secs() > *last {
                *last = now.as_secs();
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1000 - now.subsec_millis() as u64 + 5));
        }
        Ok(TensorBoardMetrics {
            writer: tensorboard_rs::summary_writer::SummaryWriter::new(dir),
            dir: dir.to_path_buf(),
        })
    }

    /// Event files under `<run_dir>/tb/`.
    pub fn for_run(run_dir: &Path) -> Result<TensorBoardMetrics> {
        TensorBoardMetrics::new(&run_dir.join(crate::TB_DIR))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Metrics for TensorBoardMetrics {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        self.writer.add_scalar(tag, value as f32, step as usize);
    }
    fn flush(&mut self) {
        self.writer.flush();
    }
}
