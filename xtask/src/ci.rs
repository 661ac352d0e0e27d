//! `cargo xtask ci`: the checks CI runs, in order, stopping at the first failure.

use std::time::Instant;

use anyhow::Result;

use crate::{cargo, package_check, public_api, run_checked, tidy, workspace_root};

/// One step of the pipeline.
enum Step {
    /// A cargo command.
    Cargo(&'static [&'static str]),
    /// `cargo xtask public-api`: each library's API against `docs/public-api/`, from one
    /// `cargo doc` of the workspace with rustdoc's warnings denied (broken intra-doc links,
    /// bad code blocks, unclosed HTML tags: rustdoc reports them in JSON mode too).
    PublicApi,
    /// `docs/ARCHITECTURE.md`'s code map names only files that exist.
    CodeMap,
    /// The file lists of the crates.io packages (no network, no build; the full
    /// `cargo xtask package-check` needs the registry index and is left to releases).
    PackageContents,
    /// `cargo test --workspace`, with temporary files on a tmpfs when there is one.
    Tests,
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
    Step::CodeMap,
    Step::PackageContents,
    Step::PublicApi,
    Step::Tests,
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
            Step::PublicApi => {
                eprintln!("==> cargo xtask public-api");
                public_api::run(&[])?;
            }
            Step::CodeMap => {
                eprintln!(
                    "==> cargo xtask tidy (the code map, crate graph and tables of the docs; command imports)"
                );
                tidy::check(&workspace_root())?;
            }
            Step::PackageContents => {
                eprintln!("==> cargo package --list (each published crate)");
                package_check::contents()?;
            }
            Step::Tests => {
                let mut test = cargo(["test", "--workspace"]);
                let scratch = tmpfs_scratch();
                match &scratch {
                    Some(dir) => {
                        eprintln!("==> TMPDIR={} cargo test --workspace", dir.display());
                        test.env("TMPDIR", dir);
                    }
                    None => eprintln!("==> cargo test --workspace"),
                }
                let result = run_checked(&mut test);
                if let Some(dir) = scratch {
                    // Best effort: a failed test may have left a read-only tree behind.
                    let _ = std::fs::remove_dir_all(dir);
                }
                result?;
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

/// A fresh directory on `/dev/shm` for the tests' temporary files, unless `TMPDIR` is set or
/// there is no such tmpfs. The tests create and delete hundreds of thousands of files; on
/// ext4, creating files where many were just deleted is slow (the kernel searches for inodes
/// it may reuse), and one test that installs 1,500 files a few times took 36 s on disk and
/// 4.5 s on a tmpfs.
fn tmpfs_scratch() -> Option<std::path::PathBuf> {
    if std::env::var_os("TMPDIR").is_some() {
        return None;
    }
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        return None;
    }
    let dir = shm.join(format!("skills-ci-{}", std::process::id()));
    std::fs::create_dir(&dir).ok().map(|()| dir)
}
