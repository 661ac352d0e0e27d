//! `cargo xtask ci`: the checks CI runs, in order, stopping at the first failure.

use std::time::Instant;

use anyhow::Result;

use crate::{cargo, lint_docs, run_checked};

/// One step of the pipeline.
enum Step {
    /// A cargo command.
    Cargo(&'static [&'static str]),
    /// `cargo xtask lint-docs --check`, run in this process (it is the same code).
    LintDocsCheck,
}

const STEPS: &[Step] = &[
    Step::Cargo(&["fmt", "--all", "--", "--check"]),
    Step::Cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]),
    Step::LintDocsCheck,
    Step::Cargo(&["test", "--workspace"]),
];

/// Runs every step; the error names the step that failed.
pub(crate) fn run() -> Result<()> {
    let start = Instant::now();
    for step in STEPS {
        let step_start = Instant::now();
        match step {
            Step::Cargo(args) => {
                eprintln!("==> cargo {}", args.join(" "));
                run_checked(&mut cargo(*args))?;
            }
            Step::LintDocsCheck => {
                eprintln!("==> cargo xtask lint-docs --check");
                lint_docs::check()?;
            }
        }
        eprintln!("    ok ({:.1}s)", step_start.elapsed().as_secs_f64());
    }
    eprintln!(
        "ci: all checks passed ({:.1}s)",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
