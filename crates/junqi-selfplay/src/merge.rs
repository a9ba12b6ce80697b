//! Joining the parts of a self-play run ([`crate::Part`]) into one run
//! directory that is the same as a single process would have written: the
//! same `run.json` (without a part), the same shards.

use crate::run::{read_run_file, write_run_file, RunFile};
use crate::{prepare, prepare_part, Config, Part, RunDir, SelfplayError, GAMES_DIR, RUN_FILE, SAMPLES_DIR};
use std::path::{Path, PathBuf};

/// What [`merge_parts`] joined.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub parts: u64,
    pub shards: u64,
    pub games: u64,
}

/// Join the self-play runs `parts` (the directories of parts `0/N` …
/// `N-1/N` of one run, in any order) into `out`. Refused, with nothing
/// written, unless every part was made with the same config and code
/// version, each part appears exactly once and each is complete (its shards
/// checked as a resume checks them). `out` may be new, or a merge of the same
/// run left unfinished, which is completed. Shards are copied (whole files,
/// each renamed into place), so the parts stay as they were.
pub fn merge_parts(parts: &[PathBuf], out: &Path) -> Result<Merged, SelfplayError> {
    let (config, stored, n) = check_parts(parts)?;
    // Every part complete, its shards checked (checksums and footers).
    for (dir, part) in &n {
        let plan = prepare_part(config.clone(), Some(dir), Some(*part))?;
        if !plan.pending.is_empty() {
            let shards: Vec<String> = plan.pending.iter().map(u64::to_string).collect();
            return Err(SelfplayError::Config(format!(
                "{} (part {part}) is not finished: shard(s) {} are missing; run its command again to finish it",
                dir.display(),
                shards.join(", ")
            )));
        }
    }
    {
        let out_dir = RunDir::open(out)?;
        match read_run_file(&out_dir)? {
            Some(existing) => {
                if existing.part.is_some() || existing.config != stored.config {
                    return Err(SelfplayError::Config(format!(
                        "{} already holds other work; merge into a new directory",
                        out.display()
                    )));
                }
            }
            None => {
                let whole = RunFile { part: None, ..stored.clone() };
                // A directory with shards but no run file is refused as a resume refuses it.
                for sub in [GAMES_DIR, SAMPLES_DIR] {
                    if crate::shard_files(&out.join(sub)).is_ok_and(|f| !f.is_empty()) {
                        return Err(SelfplayError::Config(format!(
                            "{} has shards but no {RUN_FILE}; merge into a new directory",
                            out.join(sub).display()
                        )));
                    }
                }
                write_run_file(&out_dir, &whole)?;
            }
        }
        for (dir, part) in &n {
            copy_shards(dir, out, &config, *part)?;
        }
    }
    // Read back as a resume would: every shard there and sound.
    let plan = prepare(config.clone(), Some(out))?;
    if !plan.pending.is_empty() || !plan.notes.is_empty() {
        return Err(SelfplayError::Corrupt {
            path: out.to_path_buf(),
            message: format!(
                "the merged run is not complete ({} shard(s) missing{})",
                plan.pending.len(),
                plan.notes.iter().map(|n| format!("; {n}")).collect::<String>()
            ),
        });
    }
    Ok(Merged { parts: n.len() as u64, shards: config.shards(), games: plan.complete_games })
}

/// Copy the whole self-play run `from` (not a part: e.g. one SPRT batch,
/// which a part plays whole) into `to`, then check it as a resume would.
pub fn copy_run(from: &Path, to: &Path) -> Result<Merged, SelfplayError> {
    let file = read_run_file_at(from)?;
    if let Some(p) = file.part {
        return Err(SelfplayError::Config(format!("{} holds part {p} of a run, not a whole run", from.display())));
    }
    let config: Config = serde_json::from_value(file.config.clone()).map_err(|e| SelfplayError::Corrupt {
        path: from.join(RUN_FILE),
        message: format!("a config this program cannot read: {e}"),
    })?;
    let part = Part::new(0, 1).expect("one part");
    {
        let to_dir = RunDir::open(to)?;
        if let Some(existing) = read_run_file(&to_dir)? {
            if existing.config != file.config || existing.part.is_some() {
                return Err(SelfplayError::Config(format!("{} already holds other work", to.display())));
            }
        } else {
            write_run_file(&to_dir, &file)?;
        }
        copy_shards(from, to, &config, part)?;
    }
    let plan = prepare(config.clone(), Some(to))?;
    if !plan.pending.is_empty() || !plan.notes.is_empty() {
        return Err(SelfplayError::Config(format!(
            "{} is not finished ({} of {} shards missing or damaged); run its command again to finish it",
            from.display(),
            plan.pending.len(),
            config.shards()
        )));
    }
    Ok(Merged { parts: 1, shards: config.shards(), games: plan.complete_games })
}

/// Copy part `part`'s shards (both datasets, with their checksum records) from `from` to `to`.
fn copy_shards(from: &Path, to: &Path, config: &Config, part: Part) -> Result<(), SelfplayError> {
    for s in part.shards(config.shards()) {
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
fn check_parts(parts: &[PathBuf]) -> Result<(Config, RunFile, Vec<(PathBuf, Part)>), SelfplayError> {
    let Some(first_dir) = parts.first() else {
        return Err(SelfplayError::Config("no parts to merge".into()));
    };
    let mut found: Vec<(PathBuf, Part)> = Vec::new();
    let mut first: Option<RunFile> = None;
    for dir in parts {
        let file = read_run_file_at(dir)?;
        let Some(part) = file.part else {
            return Err(SelfplayError::Config(format!(
                "{} holds a whole run, not a part (made without --part)",
                dir.display()
            )));
        };
        if let Some(f) = &first {
            let diffs = crate::differences(&f.config, &file.config);
            if !diffs.is_empty() {
                return Err(SelfplayError::Config(format!(
                    "{} and {} are parts of different runs ({})",
                    first_dir.display(),
                    dir.display(),
                    diffs.join("; ")
                )));
            }
            if f.code_version != file.code_version {
                return Err(SelfplayError::Config(format!(
                    "{} was made by code version {} and {} by {}: parts of one run must come from one build",
                    first_dir.display(),
                    f.code_version,
                    dir.display(),
                    file.code_version
                )));
            }
            if f.checksums != file.checksums {
                return Err(SelfplayError::Config(format!(
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
            return Err(SelfplayError::Config(format!(
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
        return Err(SelfplayError::Config(format!("part(s) {} missing: all {count} are needed", missing.join(", "))));
    }
    let file = first.expect("one part at least");
    let config: Config = serde_json::from_value(file.config.clone()).map_err(|e| SelfplayError::Corrupt {
        path: first_dir.join(RUN_FILE),
        message: format!("a config this program cannot read: {e}"),
    })?;
    found.sort_by_key(|(_, p)| p.index);
    Ok((config, file, found))
}

/// `dir/run.json`, which must be there.
fn read_run_file_at(dir: &Path) -> Result<RunFile, SelfplayError> {
    if !dir.join(RUN_FILE).is_file() {
        return Err(SelfplayError::Config(format!("{}: no {RUN_FILE}, not a self-play run", dir.display())));
    }
    let text = junqi_core::read_text(&dir.join(RUN_FILE)).map_err(SelfplayError::io(dir.join(RUN_FILE)))?;
    crate::run::parse_run_file(&text, &dir.join(RUN_FILE))
}

/// Copy `from` to `to` whole (a temporary name, synced, then renamed).
fn copy_whole(from: &Path, to: &Path) -> Result<(), SelfplayError> {
    let mut source = std::fs::File::open(from).map_err(SelfplayError::io(from))?;
    junqi_core::write_atomic_with(to, |w| std::io::copy(&mut source, w).map(|_| ())).map_err(SelfplayError::io(to))
}
