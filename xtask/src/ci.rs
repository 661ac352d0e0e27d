//! `cargo xtask ci`: the checks CI runs, in order, stopping at the first failure.

use std::time::Instant;

use anyhow::Result;

use crate::{cargo, lint_docs, package_check, public_api, run_checked, tidy, workspace_root};

/// One step of the pipeline.
enum Step {
    /// A cargo command.
    Cargo(&'static [&'static str]),
    /// `cargo xtask lint-docs --check`, run in this process (it is the same code).
    LintDocsCheck,
    /// `cargo xtask public-api`: each library's API against `docs/public-api/`.
    PublicApi,
    /// `cargo doc` with rustdoc's warnings denied (broken intra-doc links, bad code blocks).
    Docs,
    /// `docs/ARCHITECTURE.md`'s code map names only files that exist.
    CodeMap,
    /// The file lists of the crates.io packages (no network, no build; the full
    /// `cargo xtask package-check` needs the registry index and is left to releases).
    PackageContents,
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
    Step::CodeMap,
    Step::Docs,
    Step::PackageContents,
    Step::PublicApi,
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
            Step::PublicApi => {
                eprintln!("==> cargo xtask public-api");
                public_api::run(&[])?;
            }
            Step::Docs => {
                eprintln!("==> RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps");
                let mut doc = cargo(["doc", "--workspace", "--no-deps"]);
                doc.env("RUSTDOCFLAGS", "-D warnings");
                run_checked(&mut doc)?;
            }
            Step::CodeMap => {
                eprintln!("==> the code map of docs/ARCHITECTURE.md");
                tidy::check(&workspace_root())?;
            }
            Step::PackageContents => {
                eprintln!("==> cargo package --list (each published crate)");
                package_check::contents()?;
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
