//! `docs/architecture.md` against the code: every arrow of its crate graph
//! is a dependency in the manifests (as `cargo metadata` reports them) and
//! every workspace dependency is an arrow; every module file of every crate
//! is listed under its crate, and every listed module exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

/// The document's crate graph: crate → the crates it depends on.
fn documented_graph(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = doc.split("## The crate graph").nth(1).expect("a crate graph section");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|l| l.strip_prefix("* `"))
        .filter_map(|l| l.split_once("` → "))
        .map(|(krate, deps)| {
            let deps = if deps.trim() == "nothing" { BTreeSet::new() } else { backticked(deps) };
            (krate.to_string(), deps)
        })
        .collect()
}

fn backticked(text: &str) -> BTreeSet<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The document's module lists: crate → modules (`folder/name`).
fn documented_modules(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = doc.split("## Modules").nth(1).expect("a modules section");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut krate = String::new();
    let mut item = String::new();
    let mut flush = |krate: &str, item: &mut String| {
        if !item.is_empty() {
            let names = item.split(" — ").next().unwrap_or("");
            out.entry(krate.to_string()).or_default().extend(backticked(names));
            item.clear();
        }
    };
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            flush(&krate, &mut item);
            krate = heading.split_whitespace().next().unwrap_or("").to_string();
        } else if let Some(bullet) = line.strip_prefix("* ") {
            flush(&krate, &mut item);
            item = bullet.to_string();
        } else if line.starts_with("  ") && !item.is_empty() {
            item.push(' ');
            item.push_str(line.trim());
        } else {
            flush(&krate, &mut item);
        }
    }
    flush(&krate, &mut item);
    out
}

/// The module files under `src` (`x.rs` → `x`, `x/y.rs` → `x/y`, `x/mod.rs` → `x/mod`).
fn module_files(src: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let name = rel.to_string_lossy().replace('\\', "/");
                if name != "lib" && name != "main" {
                    out.insert(name);
                }
            }
        }
    }
    out
}

#[test]
fn the_architecture_document_matches_the_workspace() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<String> = packages.iter().map(|p| p["name"].as_str().unwrap().to_string()).collect();

    let mut graph = BTreeMap::new();
    let mut modules = BTreeMap::new();
    for p in packages {
        let name = p["name"].as_str().unwrap().to_string();
        let deps: BTreeSet<String> = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .filter(|d| names.contains(d))
            .collect();
        graph.insert(name.clone(), deps);
        let src = p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "lib" || k == "bin"))
            .map(|t| PathBuf::from(t["src_path"].as_str().unwrap()))
            .expect("a lib or bin target");
        modules.insert(name, module_files(src.parent().unwrap()));
    }

    let documented = documented_graph(&doc);
    for (krate, deps) in &graph {
        let listed = documented.get(krate).unwrap_or_else(|| panic!("docs/architecture.md: no graph line for {krate}"));
        for d in deps.difference(listed) {
            panic!("docs/architecture.md: {krate} depends on {d}, but the graph has no such arrow");
        }
        for d in listed.difference(deps) {
            panic!("docs/architecture.md: the arrow {krate} → {d} is not a dependency in the manifests");
        }
    }
    for krate in documented.keys() {
        assert!(graph.contains_key(krate), "docs/architecture.md: {krate} is not a workspace crate");
    }

    let listed = documented_modules(&doc);
    for (krate, files) in &modules {
        let doc_modules = listed.get(krate).cloned().unwrap_or_default();
        for m in files.difference(&doc_modules) {
            panic!("docs/architecture.md: module {m} of {krate} is not listed");
        }
        for m in doc_modules.difference(files) {
            panic!("docs/architecture.md: {krate} has no module {m}");
        }
    }
}
