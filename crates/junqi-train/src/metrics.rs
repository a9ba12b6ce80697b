//! Where training scalars go: a small trait, so the trainer does not care
//! whether they end in TensorBoard files, in memory or nowhere.

use crate::tb_events::EventWriter;
use crate::{Result, TrainError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A sink for scalar time series (`tag` like `loss/total`, at `step`).
pub trait Metrics {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) -> Result<()>;
    /// Make what was written so far durable.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Discards everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMetrics;

impl Metrics for NoMetrics {
    fn scalar(&mut self, _: &str, _: u64, _: f64) -> Result<()> {
        Ok(())
    }
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
    fn scalar(&mut self, tag: &str, step: u64, value: f64) -> Result<()> {
        self.series.entry(tag.to_string()).or_default().push((step, value));
        Ok(())
    }
}

/// TensorBoard event files in one folder (`<run dir>/tb/`), one new file
/// per writer (see [`crate::tb_events`]). Every I/O error is returned: a full
/// disk ends the run with that error instead of aborting the process.
pub struct TensorBoardMetrics {
    writer: EventWriter,
    dir: PathBuf,
}

impl TensorBoardMetrics {
    pub fn new(dir: &Path) -> Result<TensorBoardMetrics> {
        std::fs::create_dir_all(dir).map_err(TrainError::io(dir))?;
        let writer = EventWriter::create(dir).map_err(TrainError::io(dir))?;
        Ok(TensorBoardMetrics { writer, dir: dir.to_path_buf() })
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
    fn scalar(&mut self, tag: &str, step: u64, value: f64) -> Result<()> {
        self.writer.scalar(tag, step, value as f32).map_err(TrainError::io(self.writer.path()))
    }
    fn flush(&mut self) -> Result<()> {
        self.writer.sync().map_err(TrainError::io(self.writer.path()))
    }
}
