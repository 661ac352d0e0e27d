//! Development tasks for the `skills` workspace, run as `cargo xtask <task>`:
//!
//! - `ci`: formatting, clippy, the code map, rustdoc warnings, the public API and the tests
//!   (which check the generated docs), stopping at the first failure.
//! - `lint-docs [--check]`: writes (or checks) `docs/lint-rules.md` from the rule registry.
//! - `audit-docs [--check]`: writes (or checks) the rules section of `docs/audit.md`.
//! - `corpus DIR [--bless]`: lints every collection under `DIR` with the `skills`
//!   binary and compares the counts with `testdata/corpus-expected.json`.
//! - `seed-templates DIR`: renders seed 000's templates through `skills prompt --template`.
//! - `public-api [--bless]`: each library crate's public API (rustdoc JSON) against
//!   `docs/public-api/<crate>.txt`.
//! - `package-check [--offline]`: `cargo package` of every published crate, built together.
//! - `bench <name> [options]`, `fuzz-corpus [DIR]` and `hot-text`: forwarded to the
//!   `xtask-bench` binary, which links the library crates (benchmarks, fuzz seed corpora,
//!   `skills-mcp`'s hot-text symbol order).

// xtask is a CLI: printing to stdout and stderr is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod audit_prefilter;
mod ci;
mod corpus;
mod lint_docs;
mod package_check;
mod public_api;
mod seed_templates;
mod tidy;

use std::process::ExitCode;

use anyhow::{Result, bail};
use xtask::{build_skills_dev, cargo, run_checked, target_dir, workspace_root};

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  ci                               fmt --check, clippy -D warnings, the code map,
                                   the public API (rustdoc, warnings denied), test (which
                                   checks docs/lint-rules.md too)
  lint-docs [--check]              generate docs/lint-rules.md (or fail if it is stale)
  audit-docs [--check]             generate docs/audit.md's rules (or fail if stale)
  corpus DIR [--bless]             lint each collection under DIR; compare with
                                   testdata/corpus-expected.json (or rewrite it)
  audit-prefilter DIR...           audit each DIR with and without --exhaustive; fail
                                   if the prefilter changed a finding
  bench <name> [options]           benchmarks; `cargo xtask bench help` lists them
  seed-templates DIR               render seed 000's Jinja templates with `skills prompt`
  fuzz-corpus [DIR]                seed corpora of the fuzz targets (default fuzz/corpus)
  hot-text [--skills N] [--corpus DIR]...
                                   write crates/skills-tool/link/skills-mcp-hot.txt from
                                   the functions a served session runs (needs valgrind)
  public-api [--bless]             compare each library's public API with docs/public-api/
                                   (or rewrite the listings)
  package-check [--offline]        `cargo package` every published crate, verified together
  tidy [--bless]                   the docs' code map, crate graph, crate and dependency
                                   tables, and command imports (or write the crate graph)
";

fn main() -> ExitCode {
    if let Some(real) = std::env::var_os(public_api::REAL_RUSTDOC) {
        return public_api::rustdoc_shim(&real);
    }
    xtask::main_of(run)
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
        "audit-docs" => lint_docs::run_audit(rest),
        "corpus" => corpus::run(rest),
        "audit-prefilter" => audit_prefilter::run(rest),
        // These link the library crates (sqlx, axum, tokio, …): their own binary, built only
        // when asked for, so that `cargo xtask ci` on a clean clone stays light.
        "bench" | "fuzz-corpus" | "hot-text" | "gateway-fixture" => run_checked(
            cargo(["run", "--quiet", "-p", "xtask-bench", "--"])
                .arg(task)
                .args(rest),
        ),
        "seed-templates" => seed_templates::run(rest),
        "public-api" => public_api::run(rest),
        "package-check" => package_check::run(rest),
        "tidy" => tidy::run(rest),
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
