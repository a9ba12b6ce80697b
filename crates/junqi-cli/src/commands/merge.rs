//! `junqi merge`: join the parts of a `selfplay` (two- or four-player),
//! `arena`, `study first-move` or `sprt` run made with `--part I/N` (by N processes, on one
//! machine or many) into one directory, the same as a single run would have
//! written, then write the report a single run writes. Everything is
//! checked (reading only) before anything is written. The bot × variant
//! table of a study of several bots lists the bots in the order of their
//! directories (`bots/BOT/`), which may differ from the `--bot` order.

use anyhow::{bail, Context, Result};
use junqi_arena::arena::{run_arena, ArenaConfig, ARENA_FILE};
use junqi_arena::sprt::{run_sprt, SprtConfig, SPRT_FILE};
use junqi_arena::study::{run_study, StudyConfig, STUDY_FILE};
use junqi_selfplay::{check_parts, check_whole_run, merge_parts, Part, RunDir, RunOptions, RUN_FILE};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The merged run's directory: new, or a merge of the same parts that
    /// was interrupted (it is completed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The directories of all N parts (each the --out of a `--part I/N` run), in any order.
    #[arg(value_name = "PART_DIR", required = true)]
    parts: Vec<PathBuf>,
}

/// What the parts hold, from the run file at their top.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Selfplay,
    Arena,
    Study,
    /// A study of several bots: one study per `bots/*/`.
    Studies,
    Sprt,
}

fn kind_of(dir: &Path) -> Result<Kind> {
    let kinds =
        [(RUN_FILE, Kind::Selfplay), (ARENA_FILE, Kind::Arena), (STUDY_FILE, Kind::Study), (SPRT_FILE, Kind::Sprt)];
    if let Some((_, k)) = kinds.iter().find(|(f, _)| dir.join(f).is_file()) {
        return Ok(*k);
    }
    if dir.join("bots").is_dir() {
        return Ok(Kind::Studies);
    }
    if !dir.is_dir() {
        bail!("{}: no such directory", dir.display());
    }
    bail!("{}: not a part of a run (no {RUN_FILE}, {ARENA_FILE}, {STUDY_FILE} or {SPRT_FILE})", dir.display())
}

pub fn run(args: Args) -> Result<()> {
    let kind = kind_of(&args.parts[0])?;
    for p in &args.parts[1..] {
        let k = kind_of(p)?;
        if k != kind {
            bail!(
                "{} holds a {k:?} run and {} a {kind:?} run: parts of one run only",
                p.display(),
                args.parts[0].display()
            );
        }
    }
    for (i, p) in args.parts.iter().enumerate() {
        if args.parts[..i].iter().any(|q| same_dir(p, q)) {
            bail!("{} is given twice", p.display());
        }
        if same_dir(p, &args.out) {
            bail!("--out {} is one of the parts; merge into a new directory", args.out.display());
        }
        let (part, out) = (absolute(p), absolute(&args.out));
        if out.starts_with(&part) || part.starts_with(&out) {
            bail!(
                "--out {} and the part {} lie one inside the other; merge into a new directory",
                args.out.display(),
                p.display()
            );
        }
    }
    if kind == Kind::Selfplay {
        check_out(&args.out, kind, &[RUN_FILE.into()])?;
        let m = merge_parts(&args.parts, &args.out)?;
        println!("merged {} parts: {} games in {} shards in {}", m.parts, m.games, m.shards, args.out.display());
        return Ok(());
    }
    // Everything is checked, reading only, before anything is written.
    // The work's own run files (arena.json, study.json, sprt.json): the same in every part.
    let task_files: Vec<PathBuf> = match kind {
        Kind::Arena => vec![ARENA_FILE.into()],
        Kind::Study => vec![STUDY_FILE.into()],
        Kind::Sprt => vec![SPRT_FILE.into()],
        Kind::Studies => studies_of(&args.parts[0])?,
        Kind::Selfplay => unreachable!(),
    };
    check_out(&args.out, kind, &task_files)?;
    let mut tasks = Vec::new();
    for f in &task_files {
        tasks.push((f.clone(), check_task_file(&args.parts, f)?));
    }
    let count = args.parts.len();
    // The self-play runs the parts hold: exactly those the work plays.
    let leaves = leaves(&args.parts)?;
    let expected = expected_leaves(kind, &tasks)?;
    if let Some(missing) = expected.iter().find(|l| !leaves.contains_key(*l)) {
        bail!("no part holds {}: finish every part's run first", missing.display());
    }
    if let Some(extra) = leaves.keys().find(|l| !expected.contains(*l)) {
        bail!("{} is not a run of this work (its config plays no such games)", extra.display());
    }
    let mut plans = Vec::new();
    for (leaf, holders) in &leaves {
        let plan = if holders.len() == 1 && part_of(&holders[0].join(RUN_FILE))?.is_none() {
            // An SPRT batch: each part plays its batches whole.
            check_whole_run(&holders[0])
        } else {
            check_parts(holders)
        }
        .with_context(|| format!("merging {}", leaf.display()))?;
        plans.push((leaf, plan));
    }
    for (f, whole) in &tasks {
        check_target(&args.out, f, whole)?;
    }
    // Then written, under the lock of --out (released before the report,
    // which takes it again as a single run does).
    let games = {
        let _lock = RunDir::open(&args.out)?;
        for (f, whole) in &tasks {
            write_target(&args.out, f, whole)?;
        }
        let mut games = 0;
        for (leaf, plan) in &plans {
            games += plan.write(&args.out.join(leaf)).with_context(|| format!("merging {}", leaf.display()))?.games;
        }
        games
    };
    eprintln!("merged {count} parts: {games} games in {} self-play runs; writing the report", plans.len());
    report(kind, &args.out, &task_files)
}

/// The self-play runs (relative directories) that the work of `tasks` plays.
fn expected_leaves(kind: Kind, tasks: &[(PathBuf, Value)]) -> Result<BTreeSet<PathBuf>> {
    let mut leaves = BTreeSet::new();
    for (file, whole) in tasks {
        let dir = file.parent().unwrap_or(Path::new(""));
        let config = &whole["config"];
        match kind {
            Kind::Arena => {
                let c: ArenaConfig = config_value(config, file)?;
                leaves.extend((0..c.matchups().len()).map(|k| c.matchup_dir(dir, k)));
            }
            Kind::Study | Kind::Studies => {
                let c: StudyConfig = config_value(config, file)?;
                if c.precision.is_some() {
                    bail!(
                        "{}: parts of one round of a precision study; join them with `junqi study merge --out DIR PART...`",
                        file.display()
                    );
                }
                leaves.extend((0..c.variants.len()).map(|k| c.variant_dir(dir, k)));
            }
            Kind::Sprt => {
                let c: SprtConfig = config_value(config, file)?;
                leaves.extend((0..c.batches()).map(|b| c.batch_dir(dir, b)));
            }
            Kind::Selfplay => unreachable!(),
        }
    }
    Ok(leaves)
}

/// Write the report a single run of the merged work writes.
fn report(kind: Kind, out: &Path, task_files: &[PathBuf]) -> Result<()> {
    let options = RunOptions { threads: 1, ..RunOptions::default() };
    match kind {
        Kind::Arena => {
            let config: ArenaConfig = read_config(&out.join(ARENA_FILE))?;
            let report = run_arena(&config, out, &options, |_, _| {})?;
            crate::commands::arena::write_results(&report, out)
        }
        Kind::Sprt => {
            let config: SprtConfig = read_config(&out.join(SPRT_FILE))?;
            let outcome = run_sprt(&config, out, &options, |_, _| {})?;
            crate::commands::sprt::write_outcome(&config, &outcome, out)
        }
        Kind::Study | Kind::Studies => {
            let mut studies = Vec::new();
            for f in task_files {
                let dir = out.join(f.parent().unwrap_or(Path::new("")));
                let config: StudyConfig = read_config(&out.join(f))?;
                let result = run_study(&config, &dir, &options, |_| {})?;
                crate::commands::study::print_report(&config, &result, &dir)?;
                studies.push((config.bot.to_string(), result));
            }
            if kind == Kind::Studies {
                crate::commands::study::write_bots_table(&studies, out)?;
            }
            Ok(())
        }
        Kind::Selfplay => unreachable!(),
    }
}

/// `bots/*/study.json` of a study of several bots.
fn studies_of(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir.join("bots")).with_context(|| format!("{}", dir.join("bots").display()))? {
        let entry = entry?;
        let rel = Path::new("bots").join(entry.file_name()).join(STUDY_FILE);
        if dir.join(&rel).is_file() {
            files.push(rel);
        }
    }
    if files.is_empty() {
        bail!("{}: no bots/*/{STUDY_FILE}: not a part of a study", dir.display());
    }
    files.sort();
    Ok(files)
}

/// Check that `file` is the same work in every part and that the parts are
/// `0..N` each once. Returns the file without its part.
fn check_task_file(parts: &[PathBuf], file: &Path) -> Result<Value> {
    let mut first: Option<(Value, PathBuf)> = None;
    let mut seen: BTreeMap<u64, PathBuf> = BTreeMap::new();
    let mut count = None;
    for dir in parts {
        let path = dir.join(file);
        let mut value = read_json(&path)?;
        let part = take_part(&mut value, &path)?
            .with_context(|| format!("{}: a whole run, not a part (made without --part)", path.display()))?;
        if *count.get_or_insert(part.count) != part.count {
            bail!("{}: part {part}, but other parts are of {} parts", path.display(), count.unwrap_or(0));
        }
        if let Some(other) = seen.insert(part.index, dir.clone()) {
            bail!("{} and {} are both part {part}", other.display(), dir.display());
        }
        match &first {
            None => first = Some((value, path)),
            Some((v, p)) => {
                for key in ["format", "code_version"] {
                    if v[key] != value[key] {
                        bail!(
                            "{} has {key} {} and {} {}: parts of one run must come from one build and command",
                            p.display(),
                            v[key],
                            path.display(),
                            value[key]
                        );
                    }
                }
                let diffs = junqi_selfplay::differences(&v["config"], &value["config"]);
                if !diffs.is_empty() {
                    bail!("{} and {} are parts of different work ({})", p.display(), path.display(), diffs.join("; "));
                }
            }
        }
    }
    let count = count.unwrap_or(0);
    let missing: Vec<String> = (0..count).filter(|i| !seen.contains_key(i)).map(|i| format!("{i}/{count}")).collect();
    if !missing.is_empty() {
        bail!("part(s) {} missing: all {count} are needed", missing.join(", "));
    }
    let (whole, _) = first.expect("at least one part");
    Ok(whole)
}

/// The run files at the top of a run directory, and what each names.
const RUN_FILES: [(&str, &str); 6] = [
    (RUN_FILE, "a self-play run"),
    (ARENA_FILE, "an arena"),
    (STUDY_FILE, "a study"),
    (SPRT_FILE, "an SPRT test"),
    ("state.json", "a training loop"),
    ("suite.json", "a regression suite"),
];

/// Refuse an `out` that cannot take this merge before anything is read or
/// written: anything but a directory; a directory holding another kind of
/// run; one holding files but not the run file of this work (`own`, the
/// task files), unless only the lock of an interrupted merge. Whether a run
/// file of this kind holds the same work is checked later
/// ([`check_target`], and the self-play merge itself).
fn check_out(out: &Path, kind: Kind, own: &[PathBuf]) -> Result<()> {
    let refuse = |why: &str| anyhow::anyhow!("--out {}: {why}; merge into a new directory", out.display());
    let meta = match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refuse(&format!("cannot be read ({e})"))),
        Ok(m) => m,
    };
    if !out.is_dir() {
        let what = if meta.file_type().is_symlink() { "a symbolic link to no directory" } else { "not a directory" };
        return Err(refuse(what));
    }
    for (file, what) in RUN_FILES {
        if !own.iter().any(|f| f == Path::new(file)) && out.join(file).exists() {
            return Err(refuse(&format!("holds {what} ({file})")));
        }
    }
    let bots = out.join("bots");
    if kind == Kind::Studies {
        // A merge of a study of several bots: only these bots' studies.
        if bots.exists() {
            let entries = std::fs::read_dir(&bots).map_err(|e| refuse(&format!("bots/ cannot be read ({e})")))?;
            for entry in entries.flatten() {
                let rel = Path::new("bots").join(entry.file_name()).join(STUDY_FILE);
                if !own.contains(&rel) {
                    return Err(refuse(&format!("holds {}, a bot these parts do not study", rel.display())));
                }
            }
            return Ok(());
        }
    } else if bots.exists() {
        return Err(refuse("holds a study of several bots (bots/)"));
    }
    if own.iter().any(|f| out.join(f).exists()) {
        return Ok(());
    }
    let entries = std::fs::read_dir(out).map_err(|e| refuse(&format!("cannot be read ({e})")))?;
    let mut others = entries.flatten().map(|e| e.file_name()).filter(|n| n != junqi_selfplay::LOCK_FILE);
    match others.next() {
        Some(name) => Err(refuse(&format!(
            "not empty ({} is there) and holds no {}",
            name.to_string_lossy(),
            own.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
        ))),
        None => Ok(()),
    }
}

/// Refuse an `out` whose `file` holds other work than `whole`.
fn check_target(out: &Path, file: &Path, whole: &Value) -> Result<()> {
    let target = out.join(file);
    if target.exists() {
        let mut there = read_json(&target)?;
        if take_part(&mut there, &target)?.is_some() || there != *whole {
            bail!("{} already holds other work; merge into a new directory", out.display());
        }
    }
    Ok(())
}

/// Write `whole` as `out/file` (kept when it is there: [`check_target`]).
fn write_target(out: &Path, file: &Path, whole: &Value) -> Result<()> {
    let target = out.join(file);
    if !target.exists() {
        std::fs::create_dir_all(target.parent().unwrap_or(out)).with_context(|| format!("{}", out.display()))?;
        let text = serde_json::to_string_pretty(whole)? + "\n";
        junqi_core::write_atomic(&target, text.as_bytes()).with_context(|| format!("{}", target.display()))?;
    }
    Ok(())
}

/// The self-play runs (directories holding `run.json`) below the parts, by
/// path relative to the part, with the parts holding each.
fn leaves(parts: &[PathBuf]) -> Result<BTreeMap<PathBuf, Vec<PathBuf>>> {
    fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        let dir = root.join(rel);
        if !rel.as_os_str().is_empty() && dir.join(RUN_FILE).is_file() {
            out.push(rel.to_path_buf());
            return Ok(());
        }
        for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                walk(root, &rel.join(entry.file_name()), out)?;
            }
        }
        Ok(())
    }
    let mut leaves: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for dir in parts {
        let mut found = Vec::new();
        walk(dir, Path::new(""), &mut found)?;
        for rel in found {
            leaves.entry(rel).or_default().push(dir.clone());
        }
    }
    for (rel, holders) in &leaves {
        let whole = part_of(&holders[0].join(rel).join(RUN_FILE))?.is_none();
        if whole && holders.len() > 1 {
            bail!("{} is in {} parts: each part plays its own batches", rel.display(), holders.len());
        }
        if !whole && holders.len() != parts.len() {
            bail!(
                "{} is in {} of the {} parts; finish every part's run first",
                rel.display(),
                holders.len(),
                parts.len()
            );
        }
    }
    Ok(leaves.into_iter().map(|(rel, holders)| (rel.clone(), holders.iter().map(|h| h.join(&rel)).collect())).collect())
}

fn read_json(path: &Path) -> Result<Value> {
    let text = junqi_core::read_text(path).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a run file", path.display()))
}

fn read_config<C: serde::de::DeserializeOwned>(path: &Path) -> Result<C> {
    config_value(&read_json(path)?["config"], path)
}

fn config_value<C: serde::de::DeserializeOwned>(config: &Value, path: &Path) -> Result<C> {
    serde_json::from_value(config.clone())
        .with_context(|| format!("{}: a config this program cannot read", path.display()))
}

/// Remove and return the `part` of a run file's JSON.
fn take_part(value: &mut Value, path: &Path) -> Result<Option<Part>> {
    match value.as_object_mut().and_then(|o| o.remove("part")) {
        None | Some(Value::Null) => Ok(None),
        Some(p) => serde_json::from_value(p).map(Some).with_context(|| format!("{}: a bad `part`", path.display())),
    }
}

fn part_of(run_file: &Path) -> Result<Option<Part>> {
    take_part(&mut read_json(run_file)?, run_file)
}

/// `path` with links resolved as far as it exists (the rest appended), so
/// that two spellings of one place compare equal.
fn absolute(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
