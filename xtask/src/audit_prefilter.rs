//! `cargo xtask audit-prefilter DIR…`: audits each tree with the `skills` binary twice, with
//! the prefilter that skips parsing code which can hold no finding and with `--exhaustive`,
//! and fails when the reports differ. The prefilter's conditions are written from the
//! scanners' tables (crates/skills-audit/src/scan/prefilter.rs); this is the check that
//! they did not drop a finding on real skills (`.ci/run` gives it `../shared/corpus` and
//! `../shared/corpus-large`).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::build_skills_dev;

const USAGE: &str = "usage: cargo xtask audit-prefilter DIR...";

/// Runs the task.
pub(crate) fn run(args: &[String]) -> Result<()> {
    if args.is_empty() {
        bail!("no directory given ({USAGE})");
    }
    if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
        bail!("unknown option `{flag}` ({USAGE})");
    }
    let exe = build_skills_dev()?;
    for dir in args {
        let dir = Path::new(dir);
        let fast = report(&exe, dir, false)?;
        let slow = report(&exe, dir, true)?;
        let count = |r: &Value| {
            r["skills"].as_array().map_or(0, |skills| {
                skills
                    .iter()
                    .map(|s| s["findings"].as_array().map_or(0, Vec::len))
                    .sum::<usize>()
            })
        };
        if fast != slow {
            bail!(
                "`skills audit {}` reports {} findings, and {} with --exhaustive: the prefilter \
                 dropped or changed a finding (compare the two --format json reports)",
                dir.display(),
                count(&fast),
                count(&slow)
            );
        }
        eprintln!(
            "audit prefilter: {} findings in {}, the same with --exhaustive",
            count(&slow),
            dir.display()
        );
    }
    Ok(())
}

/// The JSON report of `skills audit DIR`.
fn report(exe: &Path, dir: &Path, exhaustive: bool) -> Result<Value> {
    let mut cmd = Command::new(exe);
    cmd.args([
        "audit",
        "--format",
        "json",
        "--no-config",
        "--fail-on",
        "critical",
    ])
    .arg(dir);
    if exhaustive {
        cmd.arg("--exhaustive");
    }
    let out = cmd.output().context("cannot run skills")?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        bail!(
            "`skills audit {}` failed ({}):\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout).context("`skills audit --format json` output")
}
