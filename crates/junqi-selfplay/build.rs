//! Records the git commit of the build (if git and a repository are there)
//! for the `code_version` written with every game. Without git the version
//! is just the crate version.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    println!("cargo:rustc-env=JUNQI_GIT_HASH={hash}");
    // Rebuild when HEAD moves; only name files that exist (a missing one
    // would make cargo rerun this script on every build).
    let mut watched = false;
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "packed-refs", "refs/heads"] {
            let p = Path::new(&dir).join(f);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
                watched = true;
            }
        }
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let p = Path::new(&dir).join(head_ref);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    if !watched {
        println!("cargo:rerun-if-changed=build.rs");
    }
}
