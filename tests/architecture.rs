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

/// A `Cargo.lock`'s packages: (name, version) → its dependencies (name, version).
type Lock = BTreeMap<(String, String), Vec<(String, String)>>;

fn read_lock(path: &Path) -> Lock {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lock: toml::Table = text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let packages = lock["package"].as_array().expect("[[package]] entries");
    let name_version = |p: &toml::Value| {
        let field = |key: &str| p[key].as_str().expect("name and version are strings").to_string();
        (field("name"), field("version"))
    };
    // A dependency is written "name" when one version is locked, else "name version".
    let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in packages {
        let (name, version) = name_version(p);
        versions.entry(name).or_default().push(version);
    }
    let resolve = |dep: &str| {
        let mut words = dep.split(' ');
        let name = words.next().expect("a name").to_string();
        let version = words.next().map(str::to_string).unwrap_or_else(|| versions[&name][0].clone());
        (name, version)
    };
    packages
        .iter()
        .map(|p| {
            let deps = p.get("dependencies").and_then(|d| d.as_array()).map(Vec::as_slice).unwrap_or(&[]);
            (name_version(p), deps.iter().map(|d| resolve(d.as_str().expect("a dependency string"))).collect())
        })
        .collect()
}

/// The Python package (python/, outside the workspace) has its own lock
/// file. Every package the junqi crates pull into the extension must be
/// locked there at a version the workspace uses too, or the extension's bots
/// could draw other random numbers (rand) or parse files differently than
/// the `junqi` binary does. (The extension's own dependencies, PyO3 and
/// NumPy's, may differ.)
#[test]
fn the_python_packages_lock_file_agrees_with_the_workspace() {
    let workspace = read_lock(&root().join("Cargo.lock"));
    let python = read_lock(&root().join("python/Cargo.lock"));
    // Everything reachable from the junqi crates in the extension's lock.
    let mut todo: Vec<(String, String)> =
        python.keys().filter(|(name, _)| name.starts_with("junqi-") && name != "junqi-python").cloned().collect();
    let mut reached = BTreeSet::new();
    while let Some(package) = todo.pop() {
        if reached.insert(package.clone()) {
            todo.extend(python[&package].iter().cloned());
        }
    }
    for package in &reached {
        assert!(
            workspace.contains_key(package),
            "python/Cargo.lock has {} {}, which the workspace's Cargo.lock does not: \
             run `cargo update -p {} --precise …` in python/",
            package.0,
            package.1,
            package.0
        );
    }
    // The rules crates and what they use at least (rand, toml, serde, …).
    assert!(reached.len() > 20, "only {} packages reached: is python/Cargo.lock the extension's?", reached.len());
}
