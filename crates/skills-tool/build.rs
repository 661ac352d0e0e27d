//! Sets `SKILLS_VERSION` for `skills --version`: `0.1.0 (f1f9941 2026-11-23)` when built from
//! a git checkout, plain `0.1.0` otherwise (a crates.io package, a tarball, no `git`).
//!
//! Nothing here may fail the build: every problem falls back to the plain version.

// A build script talks to cargo on stdout.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env("CARGO_PKG_VERSION").unwrap_or_default();
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR").unwrap_or_default());
    let full = match commit(&manifest_dir) {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=SKILLS_VERSION={full}");
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `<short hash> <commit date>` of HEAD, and the files to watch so a new commit rebuilds.
fn commit(dir: &Path) -> Option<String> {
    // `cargo package` writes this file: a packaged crate is not the checkout it came from,
    // even when it is unpacked inside some other git repository.
    if dir.join(".cargo_vcs_info.json").exists() {
        return None;
    }
    // HEAD, the branch it points to and packed-refs; `--git-path` resolves each to the
    // right directory in worktrees too. A path that does not exist is not watched (cargo
    // would rerun the script on every build).
    let mut watch = vec![git(dir, &["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.extend(git(dir, &["rev-parse", "--git-path", &branch]));
    }
    watch.extend(git(dir, &["rev-parse", "--git-path", "packed-refs"]));
    let line = git(dir, &["log", "-1", "--date=short", "--format=%h %cd"])?;
    for path in watch {
        // Relative paths from git are relative to `dir`.
        let path = dir.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    Some(line)
}

/// Runs `git -C dir ARGS`; its trimmed stdout, or `None` on any failure or empty output.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}
