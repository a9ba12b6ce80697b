//! The documentation's relative links lead somewhere: every `[text](target)`
//! in README.md, CONTRIBUTING.md, BENCHMARKS.md and docs/*.md names a file
//! that exists, and a `#anchor` into a markdown file names one of its
//! headings. The README sends each reader on to docs/, so a section moved or
//! renamed there must not leave a dead link behind.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text outside fenced code blocks, inline code spans emptied (their
/// brackets are code, not links; a link's backticked text stays a link).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let spans: Vec<&str> = line.split('`').collect();
            // Odd pieces are inside a code span; an unmatched last backtick opens none.
            for (i, piece) in spans.iter().enumerate() {
                if i % 2 == 0 || i == spans.len() - 1 {
                    out.push_str(piece);
                }
            }
            out.push('\n');
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a markdown text.
fn targets(text: &str) -> Vec<String> {
    prose(text)
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split([')', ' ']).next())
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
        .map(str::to_string)
        .collect()
}

/// The dead links of `file` (a path relative to the repository root).
fn dead_links(file: &str, text: &str) -> Vec<String> {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut dead = Vec::new();
    for target in targets(text) {
        let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let linked = if path.is_empty() { root().join(file) } else { root().join(dir).join(path) };
        if !linked.exists() {
            dead.push(format!("{file}: {target} (no such file)"));
            continue;
        }
        let is_markdown = linked.extension().is_some_and(|e| e == "md");
        if !anchor.is_empty() && is_markdown {
            let headings = anchors(&std::fs::read_to_string(&linked).unwrap_or_default());
            if !headings.iter().any(|h| h == anchor) {
                dead.push(format!("{file}: {target} (no such heading)"));
            }
        }
    }
    dead
}

fn documentation() -> Vec<String> {
    let mut files: Vec<String> = ["README.md", "CONTRIBUTING.md", "BENCHMARKS.md"].map(String::from).to_vec();
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    files
}

#[test]
fn every_relative_link_in_the_documentation_leads_somewhere() {
    let files = documentation();
    assert!(files.len() > 10, "{files:?}");
    let mut dead = Vec::new();
    let mut links = 0;
    for file in &files {
        let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        links += targets(&text).len();
        dead.extend(dead_links(file, &text));
    }
    assert!(links > 100, "only {links} links found: the link parser is broken");
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn a_dead_link_or_anchor_is_caught() {
    let text = "See [rules](rules.md#6-variant-options), [gone](nope.md), [bad](rules.md#no-such-part), \
                `[code](not-a-link.md)` and [web](https://example.com).\n```\n[fenced](also-not.md)\n```\n";
    let dead = dead_links("docs/x.md", text);
    assert_eq!(dead, ["docs/x.md: nope.md (no such file)", "docs/x.md: rules.md#no-such-part (no such heading)"]);
    assert_eq!(slug(" 5.4 What a seat remembers (all modes)"), "54-what-a-seat-remembers-all-modes");
    assert_eq!(slug(" In the browser: `junqi serve`"), "in-the-browser-junqi-serve");
}
