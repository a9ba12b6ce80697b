//! Runs to watch: every loop, arena, study, SPRT and self-play directory
//! below the roots, and the report files each writes at its top (Markdown,
//! CSV, JSON, SVG charts), read again on every request so a page that
//! polls sees a run going on.

use crate::ApiError;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The run file that tells each kind of run.
const KINDS: [(&str, &str); 6] = [
    ("state.json", "loop"),
    ("arena.json", "arena"),
    ("study.json", "study"),
    ("sprt.json", "sprt"),
    ("suite.json", "regress"),
    ("run.json", "selfplay"),
];
/// Report files larger than this are listed but not sent.
const MAX_REPORT_BYTES: u64 = 4 << 20;

#[derive(Serialize, Debug, PartialEq)]
pub struct RunInfo {
    /// `R/relative/path`.
    pub id: String,
    pub kind: String,
}

/// Every run below the roots (not those inside another run, such as an
/// arena's matchups), in path order.
pub fn discover(roots: &[PathBuf]) -> Vec<RunInfo> {
    fn walk(dir: &Path, rel: &Path, depth: usize, root: usize, out: &mut Vec<RunInfo>) {
        if let Some(kind) = kind_of(dir) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            let id = if rel.is_empty() { root.to_string() } else { format!("{root}/{rel}") };
            out.push(RunInfo { id, kind: kind.into() });
            return;
        }
        if depth == 4 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut children: Vec<_> = entries.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).collect();
        children.sort_by_key(|e| e.file_name());
        for e in children {
            if !e.file_name().to_string_lossy().starts_with('.') {
                walk(&e.path(), &rel.join(e.file_name()), depth + 1, root, out);
            }
        }
    }
    let mut out = Vec::new();
    for (r, root) in roots.iter().enumerate() {
        walk(root, Path::new(""), 0, r, &mut out);
    }
    out
}

/// The kind of run in `dir`, from its run file.
pub fn kind_of(dir: &Path) -> Option<&'static str> {
    KINDS.iter().find(|(f, _)| dir.join(f).is_file()).map(|(_, k)| *k)
}

/// One report file of a run.
#[derive(Serialize, Debug)]
pub struct ReportFile {
    pub name: String,
    /// `markdown`, `csv`, `json` or `svg`.
    pub format: String,
    pub bytes: u64,
    /// The text (absent for a file over the size limit).
    pub text: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct RunReport {
    pub id: String,
    pub kind: String,
    pub files: Vec<ReportFile>,
}

/// The report files at the top of the run `dir`, Markdown first.
pub fn report(id: &str, dir: &Path) -> Result<RunReport, ApiError> {
    let kind = kind_of(dir).ok_or_else(|| ApiError::not_found(format!("`{id}` is not a run (no run file)")))?;
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| ApiError::unreadable(format!("{}: {e}", dir.display())))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let format = match name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("md") => "markdown",
            Some("csv") => "csv",
            Some("json") => "json",
            Some("svg") => "svg",
            _ => continue,
        };
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let text = if meta.len() <= MAX_REPORT_BYTES { std::fs::read_to_string(e.path()).ok() } else { None };
        files.push(ReportFile { name, format: format.into(), bytes: meta.len(), text });
    }
    let order =
        |f: &ReportFile| (["markdown", "svg", "csv", "json"].iter().position(|x| *x == f.format), f.name.clone());
    files.sort_by_key(order);
    Ok(RunReport { id: id.into(), kind: kind.into(), files })
}
