//! Helpers shared by the two task binaries: `xtask` (the checks CI runs, light to build)
//! and `xtask-bench` (benchmarks and fuzz seed corpora, which link the library crates and
//! their dependencies: sqlx, axum, tokio, …). `cargo xtask bench` forwards to the second, so
//! `cargo xtask ci` on a clean clone builds only what the checks need.

// Development tasks: telling the developer what is being built is their job.
#![allow(clippy::print_stderr)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The target directory, as cargo sees it (honouring `CARGO_TARGET_DIR` and
/// `build.target-dir`), from `cargo metadata`.
pub fn target_dir() -> Result<PathBuf> {
    let out = cargo(["metadata", "--format-version", "1", "--no-deps"])
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed ({})", out.status);
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("cannot parse cargo metadata output")?;
    meta.get("target_directory")
        .and_then(serde_json::Value::as_str)
        .map(PathBuf::from)
        .context("cargo metadata has no target_directory")
}

/// The variables cargo sets for the package it runs, besides `CARGO_PKG_*`.
const PACKAGE_VARS: [&str; 5] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
];

/// A `cargo` command (the one running us, from `CARGO`), run in the workspace root.
pub fn cargo<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(workspace_root());
    // `cargo run` gave this process the variables of xtask's own package. Some build scripts
    // watch one of them (ring reruns when `CARGO_MANIFEST_DIR` changes), so a cargo started
    // from here with them would rebuild ring and everything above it (rustls, reqwest, the
    // MCP and registry crates) after, or before, a cargo started from a shell.
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_") || PACKAGE_VARS.contains(&key) {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// Runs a command to completion, failing unless it exits with status 0.
pub fn run_checked(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", display(cmd)))?;
    if !status.success() {
        bail!("{} failed ({status})", display(cmd));
    }
    Ok(())
}

/// A command line for messages.
pub fn display(cmd: &Command) -> String {
    let program = Path::new(cmd.get_program())
        .file_stem()
        .unwrap_or_else(|| cmd.get_program())
        .to_string_lossy()
        .into_owned();
    std::iter::once(program)
        .chain(cmd.get_args().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The dev-profile `skills` binary, built the way `cargo test --workspace` builds it, and
/// its path. Checks that do not time anything use it. `cargo build -p skills-tool` would
/// resolve features for that one package, so after the tests (CI) it would rebuild
/// skills-tool and much of its tree; `cargo test --no-run` reuses what the tests built.
pub fn build_skills_dev() -> Result<PathBuf> {
    eprintln!("building the `skills` binary (as `cargo test --workspace` does)...");
    run_checked(&mut cargo(["test", "--workspace", "--no-run", "--quiet"]))?;
    built_skills("debug")
}

/// Builds the `skills` binary of the `dist` profile (what releases ship: whole-program
/// LTO) and returns its path (for benchmarks).
pub fn build_skills() -> Result<PathBuf> {
    eprintln!("building the `skills` binary of the dist profile...");
    // Only the binary the benchmarks run: `skills-mcp` is another whole-program LTO link,
    // as long again on a 2-core machine.
    run_checked(&mut cargo([
        "build",
        "--profile",
        "dist",
        "-p",
        "skills-tool",
        "--bin",
        "skills",
    ]))?;
    built_skills("dist")
}

/// [`build_skills`], and the `skills-mcp` binary beside it, which `skills mcp` hands over
/// to: the MCP benchmarks measure that process. Built with `skills` every time, so a stale
/// `skills-mcp` left by an earlier build is never what a benchmark measures (before
/// 2026-11-27 this built `skills` alone, and `skills mcp` ran whatever `skills-mcp` sat in
/// the target directory).
pub fn build_skills_and_server() -> Result<PathBuf> {
    eprintln!("building the `skills` and `skills-mcp` binaries of the dist profile...");
    run_checked(&mut cargo([
        "build",
        "--profile",
        "dist",
        "-p",
        "skills-tool",
        "--bins",
    ]))?;
    built_skills("dist")
}

/// The `skills` binary cargo just built into the target directory's `profile` folder.
fn built_skills(profile: &str) -> Result<PathBuf> {
    let exe = target_dir()?
        .join(profile)
        .join(format!("skills{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        bail!("built skills-tool but {} does not exist", exe.display());
    }
    Ok(exe)
}

/// The `main` of a task binary: runs `run` with the arguments, prints its error, and exits
/// with status 1 when it fails.
pub fn main_of(run: fn(&[String]) -> Result<()>) -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
