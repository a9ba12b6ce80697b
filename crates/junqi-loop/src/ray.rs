//! A generation's self-play on a Ray cluster (`selfplay.backend = "ray"`):
//! the run's config goes to a file, the `junqi-ray` driver plays it in parts
//! on the cluster (`junqi selfplay --config FILE --part I/N`) and merges
//! them, and the merged run is copied into the generation's `selfplay/`
//! directory, where training finds it as if this machine had played it.

use crate::config::RayBackend;
use crate::{LoopError, Result};
use junqi_selfplay::{copy_run, read_games_file, shard_files, Config, GAMES_DIR};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// What the cluster played.
pub(crate) struct RayRun {
    pub games: u64,
    pub plies: u64,
    pub seconds: f64,
}

/// The driver's working directory inside a generation's directory.
pub(crate) const RAY_DIR: &str = "selfplay-ray";

/// Play `config` on the cluster and copy the merged run into `dir` (which
/// holds the run's `run.json` and nothing else yet). `work` is a directory
/// for the driver: its config file, its log, the parts and the merged run
/// (removed once copied).
pub(crate) fn selfplay_on_ray(ray: &RayBackend, config: &Config, dir: &Path, work: &Path) -> Result<RayRun> {
    std::fs::create_dir_all(work).map_err(LoopError::io(work))?;
    // Absolute paths: the workers do not run in this directory.
    let work = work.canonicalize().map_err(LoopError::io(work))?;
    let config_file = work.join("config.json");
    let text = serde_json::to_string_pretty(config).expect("configs serialise");
    junqi_core::write_atomic(&config_file, text.as_bytes()).map_err(LoopError::io(&config_file))?;
    let binary = match ray.binary.as_str() {
        "" => std::env::current_exe().map_err(LoopError::io("the running junqi binary"))?.display().to_string(),
        // A relative path names a file here; the workers do not run here.
        b if b.contains('/') && Path::new(b).is_relative() => {
            std::path::absolute(b).map_err(LoopError::io(b))?.display().to_string()
        }
        // A bare name is looked up on the workers' PATH.
        b => b.to_string(),
    };
    let out = work.join("out");
    let mut args: Vec<String> = ray.command[1..].to_vec();
    args.extend(["--address".into(), ray.address.clone()]);
    args.extend(["--cpus-per-part".into(), ray.cpus_per_part.to_string()]);
    if ray.parts > 0 {
        args.extend(["--parts".into(), ray.parts.to_string()]);
    }
    args.extend(["--binary".into(), binary, "--out".into(), out.display().to_string()]);
    args.extend(["selfplay".into(), "--".into(), "--config".into(), config_file.display().to_string()]);
    let log = work.join("driver.log");
    let log_file = std::fs::File::create(&log).map_err(LoopError::io(&log))?;
    let started = Instant::now();
    let status = Command::new(&ray.command[0])
        .args(&args)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().map_err(LoopError::io(&log))?)
        .stderr(log_file)
        .status()
        .map_err(|e| LoopError::Config(format!("selfplay.ray.command `{}` could not start: {e}", ray.command[0])))?;
    let seconds = started.elapsed().as_secs_f64();
    if !status.success() {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(LoopError::Config(format!(
            "the Ray self-play failed ({status}); its log is {}: {}",
            log.display(),
            tail.join(" / ")
        )));
    }
    let merged = copy_run(&out.join("merged"), dir)?;
    let mut plies = 0;
    for path in shard_files(&dir.join(GAMES_DIR))? {
        plies += read_games_file(&path)?.iter().map(|g| u64::from(g.plies)).sum::<u64>();
    }
    std::fs::remove_dir_all(&out).map_err(LoopError::io(&out))?;
    Ok(RayRun { games: merged.games, plies, seconds })
}
