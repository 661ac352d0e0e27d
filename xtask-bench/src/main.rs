//! The development tasks that link the library crates, run through `cargo xtask` (which
//! forwards `bench`, `fuzz-corpus` and `gateway-fixture` here):
//!
//! - `bench <name> [options]`: benchmarks of the release `skills` binary; `cargo xtask bench
//!   help` lists them.
//! - `fuzz-corpus [DIR]`: writes the seed corpora of the cargo-fuzz targets from `testdata/`.
//! - `hot-text [--skills N] [--corpus DIR]...`: writes the symbol ordering file that lays out
//!   `skills-mcp`'s hot code first (`hot_text.rs`).
//!
//! They live apart from `xtask` because they need skills-registry, skills-package and
//! skills-discovery (sqlx, axum, tokio, zip, …): `cargo xtask ci` on a clean clone builds
//! only `xtask`, whose dependencies are few.

// A CLI: printing to stdout and stderr is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod fuzz_corpus;
mod hot_text;

use std::process::ExitCode;

use anyhow::{Result, bail};
use xtask::{
    build_skills, build_skills_and_server, cargo, run_checked, target_dir, workspace_root,
};

fn main() -> ExitCode {
    xtask::main_of(run)
}

fn run(args: &[String]) -> Result<()> {
    let Some((task, rest)) = args.split_first() else {
        bail!("no task given (run it as `cargo xtask bench …` or `cargo xtask fuzz-corpus`)");
    };
    match task.as_str() {
        "bench" => bench::run(rest),
        "fuzz-corpus" => fuzz_corpus::run(rest),
        "hot-text" => hot_text::run(rest),
        // Not listed: the downstream server `bench gateway` starts.
        "gateway-fixture" => bench::gateway::fixture(rest),
        other => bail!("unknown task `{other}` (see `cargo xtask help`)"),
    }
}
