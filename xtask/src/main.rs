//! Development tasks for the `skills` workspace, run as `cargo xtask <task>`:
//!
//! - `ci`: formatting, clippy, the generated docs, rustdoc warnings, the code map, and the
//!   tests, stopping at the first failure.
//! - `lint-docs [--check]`: writes (or checks) `docs/lint-rules.md` from the rule registry.
//! - `corpus DIR [--bless]`: lints every collection under `DIR` with the `skills`
//!   binary and compares the counts with `testdata/corpus-expected.json`.
//! - `seed-templates DIR`: renders seed 000's templates through `skills prompt --template`.
//! - `public-api [--bless]`: each library crate's public API (rustdoc JSON) against
//!   `docs/public-api/<crate>.txt`.
//! - `package-check [--offline]`: `cargo package` of every published crate, built together.
//! - `bench lint [--sizes 1000,10000] [--runs N]`: times `skills lint` on synthetic trees.
//! - `fuzz-corpus [DIR]`: writes the seed corpora of the cargo-fuzz targets from `testdata/`.

// xtask is a CLI: printing to stdout and stderr is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod ci;
mod corpus;
mod fuzz_corpus;
mod lint_docs;
mod package_check;
mod public_api;
mod seed_templates;
mod tidy;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  ci                               fmt --check, clippy -D warnings, lint-docs --check,
                                   doc -D warnings, the code map, test
  lint-docs [--check]              generate docs/lint-rules.md (or fail if it is stale)
  corpus DIR [--bless]             lint each collection under DIR; compare with
                                   testdata/corpus-expected.json (or rewrite it)
  bench <name> [options]           benchmarks; `cargo xtask bench help` lists them
  seed-templates DIR               render seed 000's Jinja templates with `skills prompt`
  fuzz-corpus [DIR]                seed corpora of the fuzz targets (default fuzz/corpus)
  public-api [--bless]             compare each library's public API with docs/public-api/
                                   (or rewrite the listings)
  package-check [--offline]        `cargo package` every published crate, verified together
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    let Some((task, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        bail!("no task given");
    };
    match task.as_str() {
        "ci" => {
            no_args(task, rest)?;
            ci::run()
        }
        "lint-docs" => lint_docs::run(rest),
        "corpus" => corpus::run(rest),
        "bench" => bench::run(rest),
        "seed-templates" => seed_templates::run(rest),
        "fuzz-corpus" => fuzz_corpus::run(rest),
        "public-api" => public_api::run(rest),
        "package-check" => package_check::run(rest),
        // Not listed: the downstream server `bench gateway` starts.
        "gateway-fixture" => bench::gateway::fixture(rest),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            eprint!("{USAGE}");
            bail!("unknown task `{other}`")
        }
    }
}

/// Fails if a task that takes no arguments was given some.
fn no_args(task: &str, rest: &[String]) -> Result<()> {
    match rest.first() {
        Some(arg) => bail!("`{task}` takes no arguments (got `{arg}`)"),
        None => Ok(()),
    }
}

/// The workspace root (the parent of this crate's directory).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The target directory, as cargo sees it (honouring `CARGO_TARGET_DIR` and
/// `build.target-dir`), from `cargo metadata`.
fn target_dir() -> Result<PathBuf> {
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

/// A `cargo` command (the one running us, from `CARGO`), run in the workspace root.
fn cargo<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(workspace_root());
    cmd
}

/// Runs a command to completion, failing unless it exits with status 0.
fn run_checked(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", display(cmd)))?;
    if !status.success() {
        bail!("{} failed ({status})", display(cmd));
    }
    Ok(())
}

/// A command line for messages.
fn display(cmd: &Command) -> String {
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

/// Builds the dev-profile `skills` binary (what `cargo test` already built, so in CI this
/// costs nothing) and returns its path. Checks that do not time anything use it.
fn build_skills_dev() -> Result<PathBuf> {
    eprintln!("building the `skills` binary...");
    run_checked(&mut cargo(["build", "-p", "skills-tool"]))?;
    let exe = target_dir()?
        .join("debug")
        .join(format!("skills{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        bail!("built skills-tool but {} does not exist", exe.display());
    }
    Ok(exe)
}

/// Builds the release `skills` binary and returns its path (for benchmarks).
fn build_skills() -> Result<PathBuf> {
    eprintln!("building the release `skills` binary...");
    run_checked(&mut cargo(["build", "--release", "-p", "skills-tool"]))?;
    let exe = target_dir()?
        .join("release")
        .join(format!("skills{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        bail!("built skills-tool but {} does not exist", exe.display());
    }
    Ok(exe)
}
