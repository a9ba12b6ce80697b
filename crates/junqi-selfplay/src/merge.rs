//! Joining the parts of a self-play run ([`crate::Part`]) into one run
//! directory that is the same as a single process would have written: the
//! same `run.json` (without a part), the same shards.

use crate::run::{describe_format, read_run_file, write_run_file, Layout, RunConfig, RunFile};
use crate::{Config, Part, RunDir, SelfplayError, SiguoConfig, GAMES_DIR, RUN_FILE, SAMPLES_DIR};
use std::path::{Path, PathBuf};

/// What [`merge_parts`] joined.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub parts: u64,
    pub shards: u64,
    pub games: u64,
}

/// Join the self-play runs `parts` (the directories of parts `0/N` …
/// `N-1/N` of one run, in any order) into `out`: [`check_parts`], then
/// [`MergePlan::write`].
pub fn merge_parts(parts: &[PathBuf], out: &Path) -> Result<Merged, SelfplayError> {
    check_parts(parts)?.write(out)
}

/// Copy the whole self-play run `from` (not a part: e.g. one SPRT batch,
/// which a part plays whole) into `to`: [`check_whole_run`], then
/// [`MergePlan::write`].
pub fn copy_run(from: &Path, to: &Path) -> Result<Merged, SelfplayError> {
    check_whole_run(from)?.write(to)
}

/// Checked sources of one self-play run, ready to be written into one
/// directory: every shard of the run is in exactly one of them and sound.
#[derive(Debug)]
pub struct MergePlan {
    /// The run's shards, and its config as this program writes it (the
    /// shards' footers hold it so).
    layout: Layout,
    config: serde_json::Value,
    /// The run file to write (without a part).
    file: RunFile,
    /// Each source directory and the shards it holds.
    sources: Vec<(PathBuf, Part)>,
}

/// Check, reading only, that `parts` are the parts `0..N` of one run, each
/// once, made with one config and one code version, each finished and every
/// shard sound (checksums and footers, as a resume checks them). Nothing is
/// written or removed: a damaged shard is reported, and re-running that
/// part's command mends it.
pub fn check_parts(parts: &[PathBuf]) -> Result<MergePlan, SelfplayError> {
    let ((layout, config), stored, sources) = identify_parts(parts)?;
    let file = RunFile { part: None, ..stored };
    check_sources_complete(layout, &config, &file, &sources)?;
    Ok(MergePlan { layout, config, file, sources })
}

/// [`check_parts`] for a whole run (made without a part), to be copied.
pub fn check_whole_run(from: &Path) -> Result<MergePlan, SelfplayError> {
    let file = read_run_file_at(from)?;
    if let Some(p) = file.part {
        return Err(SelfplayError::NotARun(format!("{} holds part {p} of a run, not a whole run", from.display())));
    }
    let (layout, config) = config_of(&file, from)?;
    let sources = vec![(from.to_path_buf(), Part::new(0, 1).expect("one part"))];
    check_sources_complete(layout, &config, &file, &sources)?;
    Ok(MergePlan { layout, config, file, sources })
}

impl MergePlan {
    /// Write the run into `out` (under its lock): its `run.json`, then every
    /// shard copied whole (each renamed into place, so the sources stay as
    /// they were), then read back as a resume would. `out` may be new, or a
    /// merge of the same run left unfinished, which is completed.
    pub fn write(&self, out: &Path) -> Result<Merged, SelfplayError> {
        let out_dir = RunDir::open(out)?;
        match read_run_file(&out_dir)? {
            Some(existing) => {
                if existing.part.is_some() || differences_of(&existing, &self.file).is_some() {
                    return Err(SelfplayError::NotARun(format!(
                        "{} already holds other work; merge into a new directory",
                        out.display()
                    )));
                }
            }
            None => {
                // A directory with shards but no run file is refused as a resume refuses it.
                for sub in [GAMES_DIR, SAMPLES_DIR] {
                    if crate::shard_files(&out.join(sub)).is_ok_and(|f| !f.is_empty()) {
                        return Err(SelfplayError::NotARun(format!(
                            "{} has shards but no {RUN_FILE}; merge into a new directory",
                            out.join(sub).display()
                        )));
                    }
                }
                write_run_file(&out_dir, &self.file)?;
            }
        }
        for (dir, part) in &self.sources {
            copy_shards(dir, out, self.layout, *part)?;
        }
        let whole = [(out.to_path_buf(), Part::new(0, 1).expect("one part"))];
        let games = check_sources_complete(self.layout, &self.config, &self.file, &whole).map_err(|e| {
            SelfplayError::Corrupt {
                path: out.to_path_buf(),
                message: format!("the merged run does not read back whole: {e}"),
            }
        })?;
        Ok(Merged { parts: self.sources.len() as u64, shards: self.layout.shards(), games })
    }
}

/// Whether two run files describe different work (config or code version).
fn differences_of(a: &RunFile, b: &RunFile) -> Option<String> {
    let mut diffs = crate::differences(&a.config, &b.config);
    if a.format != b.format {
        diffs.insert(0, format!("{} vs {}", describe_format(&a.format), describe_format(&b.format)));
    }
    if a.code_version != b.code_version {
        diffs.push(format!("code version {} vs {}", a.code_version, b.code_version));
    }
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

/// Read-only: every shard of each source's part is there and sound, the
/// samples shards all of one schema. Returns the games they hold.
fn check_sources_complete(
    layout: Layout,
    config_json: &serde_json::Value,
    file: &RunFile,
    sources: &[(PathBuf, Part)],
) -> Result<u64, SelfplayError> {
    let mut games = 0;
    for (dir, part) in sources {
        let required = crate::run::checksum_records_required(file, &dir.join(RUN_FILE))?;
        let owned: Vec<u64> = part.shards(layout.shards()).collect();
        let check = crate::run::check_shards(layout, config_json, dir, &owned, required);
        let mut problems: Vec<String> = Vec::new();
        if !check.missing.is_empty() {
            let shards: Vec<String> = check.missing.iter().map(u64::to_string).collect();
            problems.push(format!("shard(s) {} not played yet", shards.join(", ")));
        }
        problems.extend(check.damaged.iter().map(|(s, why)| format!("shard {s} damaged: {why}")));
        if !problems.is_empty() {
            let what = if part.count == 1 { String::new() } else { format!(" (part {part})") };
            return Err(SelfplayError::Merge(format!(
                "{}{what} is not finished: {}; run its command again to finish (or mend) it",
                dir.display(),
                problems.join("; ")
            )));
        }
        games += check.complete_games;
    }
    let samples: Vec<PathBuf> = sources
        .iter()
        .flat_map(|(dir, part)| part.shards(layout.shards()).map(|s| dir.join(SAMPLES_DIR).join(crate::shard_name(s))))
        .collect();
    crate::siguo_samples::one_samples_format(&samples)?;
    Ok(games)
}

/// Copy part `part`'s shards (both datasets, with their checksum records) from `from` to `to`.
fn copy_shards(from: &Path, to: &Path, layout: Layout, part: Part) -> Result<(), SelfplayError> {
    for s in part.shards(layout.shards()) {
        // Samples, then games: a shard counts as done once its games file is there.
        for sub in [SAMPLES_DIR, GAMES_DIR] {
            let (from, to) = (from.join(sub), to.join(sub));
            std::fs::create_dir_all(&to).map_err(SelfplayError::io(&to))?;
            let name = crate::shard_name(s);
            if !from.join(&name).exists() {
                continue; // checked by the caller's read-back
            }
            copy_whole(&crate::checksum_path(&from.join(&name)), &crate::checksum_path(&to.join(&name)))?;
            copy_whole(&from.join(&name), &to.join(&name))?;
        }
    }
    Ok(())
}

/// The parts' common config and run file, and each directory's part; an
/// error unless they are the parts `0..N` of one run, each once.
#[allow(clippy::type_complexity)]
fn identify_parts(
    parts: &[PathBuf],
) -> Result<((Layout, serde_json::Value), RunFile, Vec<(PathBuf, Part)>), SelfplayError> {
    let Some(first_dir) = parts.first() else {
        return Err(SelfplayError::Merge("no parts to merge".into()));
    };
    let mut found: Vec<(PathBuf, Part)> = Vec::new();
    let mut first: Option<RunFile> = None;
    for dir in parts {
        let file = read_run_file_at(dir)?;
        let Some(part) = file.part else {
            return Err(SelfplayError::NotARun(format!(
                "{} holds a whole run, not a part (made without --part)",
                dir.display()
            )));
        };
        if let Some(f) = first.as_ref().filter(|f| f.format != file.format) {
            return Err(SelfplayError::Merge(format!(
                "{} holds {} and {} {}: parts of one run only",
                first_dir.display(),
                describe_format(&f.format),
                dir.display(),
                describe_format(&file.format)
            )));
        }
        if let Some(f) = &first {
            let diffs = crate::differences(&f.config, &file.config);
            if !diffs.is_empty() {
                return Err(SelfplayError::Merge(format!(
                    "{} and {} are parts of different runs ({})",
                    first_dir.display(),
                    dir.display(),
                    diffs.join("; ")
                )));
            }
            if f.code_version != file.code_version {
                return Err(SelfplayError::Merge(format!(
                    "{} was made by code version {} and {} by {}: parts of one run must come from one build",
                    first_dir.display(),
                    f.code_version,
                    dir.display(),
                    file.code_version
                )));
            }
            if f.checksums != file.checksums {
                return Err(SelfplayError::Merge(format!(
                    "{} and {} record shard checksums differently",
                    first_dir.display(),
                    dir.display()
                )));
            }
        } else {
            first = Some(file.clone());
        }
        if let Some((other, p)) = found.iter().find(|(_, p)| p.count != part.count || p.index == part.index) {
            let why = if p.count != part.count { "different numbers of parts" } else { "the same part twice" };
            return Err(SelfplayError::Merge(format!(
                "{} (part {p}) and {} (part {part}): {why}",
                other.display(),
                dir.display()
            )));
        }
        found.push((dir.clone(), part));
    }
    let count = found[0].1.count;
    if found.len() as u64 != count {
        let missing: Vec<String> =
            (0..count).filter(|i| !found.iter().any(|(_, p)| p.index == *i)).map(|i| format!("{i}/{count}")).collect();
        return Err(SelfplayError::Merge(format!("part(s) {} missing: all {count} are needed", missing.join(", "))));
    }
    let file = first.expect("one part at least");
    let config = config_of(&file, first_dir)?;
    found.sort_by_key(|(_, p)| p.index);
    Ok((config, file, found))
}

/// The layout and config of a run file (two- or four-player, by its
/// format), the config as this program writes it.
fn config_of(file: &RunFile, dir: &Path) -> Result<(Layout, serde_json::Value), SelfplayError> {
    fn read<C: RunConfig>(file: &RunFile, dir: &Path) -> Result<(Layout, serde_json::Value), SelfplayError> {
        let config: C = serde_json::from_value(file.config.clone()).map_err(|e| SelfplayError::Corrupt {
            path: dir.join(RUN_FILE),
            message: format!("a config this program cannot read: {e}"),
        })?;
        Ok((config.layout(), serde_json::to_value(&config).expect("configs serialize")))
    }
    if file.format == SiguoConfig::RUN_FORMAT {
        read::<SiguoConfig>(file, dir)
    } else {
        read::<Config>(file, dir)
    }
}

/// `dir/run.json`, which must be there.
fn read_run_file_at(dir: &Path) -> Result<RunFile, SelfplayError> {
    if !dir.join(RUN_FILE).is_file() {
        return Err(SelfplayError::NotARun(format!("{}: no {RUN_FILE}, not a self-play run", dir.display())));
    }
    let text = junqi_core::read_text(&dir.join(RUN_FILE)).map_err(SelfplayError::io(dir.join(RUN_FILE)))?;
    crate::run::parse_run_file(&text, &dir.join(RUN_FILE))
}

/// Copy `from` to `to` whole (a temporary name, synced, then renamed).
fn copy_whole(from: &Path, to: &Path) -> Result<(), SelfplayError> {
    let mut source = std::fs::File::open(from).map_err(SelfplayError::io(from))?;
    junqi_core::write_atomic_with(to, |w| std::io::copy(&mut source, w).map(|_| ())).map_err(SelfplayError::io(to))
}
