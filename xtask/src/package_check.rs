//! `cargo xtask package-check [--offline]`: what `cargo publish` would upload, built.
//!
//! `cargo package` on every published crate at once: cargo packages them in dependency order
//! and verifies each one against a local registry holding its siblings' packages, so crates
//! that depend on unpublished siblings are verified too. It needs the crates.io index (for the
//! lock file of each package), which is why `cargo xtask ci` does not run it; `--offline`
//! works when the local cache already holds every dependency. `ci` runs only [`contents`],
//! which needs neither network nor a build.

use anyhow::{Result, bail};

use crate::public_api::LIBRARIES;
use crate::{cargo, run_checked, workspace_root};

/// Every crate published to crates.io: the libraries, then the command.
pub(crate) fn published() -> Vec<&'static str> {
    let mut all = LIBRARIES.to_vec();
    all.push("skills-tool");
    all
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let offline = match args {
        [] => false,
        [flag] if flag == "--offline" => true,
        [other, ..] => bail!("unknown argument `{other}` (expected --offline)"),
    };
    contents()?;
    forget_unpacked_siblings()?;
    // A target directory of its own, emptied first: cargo takes a registry crate of the same
    // version to be unchanged, so in a reused target directory the siblings' old builds would
    // be linked instead of the packages just made.
    let target = workspace_root().join("target/package-check");
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    let mut cmd = cargo(["package", "--target-dir"]);
    cmd.arg(&target);
    for krate in published() {
        cmd.args(["-p", krate]);
    }
    if offline {
        cmd.arg("--offline");
    }
    run_checked(&mut cmd)?;
    eprintln!(
        "package-check: {} crates packaged and verified",
        published().len()
    );
    Ok(())
}

/// Removes the copies of our own crates that an earlier `cargo package` unpacked from its
/// temporary registry (`target/package/tmp-registry`) into `$CARGO_HOME/registry/src/-HASH/`.
/// Cargo reuses such a copy when the version is the same, so without this a sibling changed
/// since the last run is verified against its old sources (seen with cargo 1.95: a crate
/// failed to build against a sibling's API from before a rebase). Only directories named
/// `<our crate>-<version>` under a registry whose directory starts with `-` (not crates.io's
/// `index.crates.io-...`) are removed.
fn forget_unpacked_siblings() -> Result<()> {
    let home = match std::env::var_os("CARGO_HOME") {
        Some(h) => std::path::PathBuf::from(h),
        None => match std::env::home_dir() {
            Some(h) => h.join(".cargo"),
            None => return Ok(()),
        },
    };
    let Ok(registries) = std::fs::read_dir(home.join("registry/src")) else {
        return Ok(());
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for unpacked in std::fs::read_dir(registry.path())?.flatten() {
            let name = unpacked.file_name().to_string_lossy().into_owned();
            if published().iter().any(|c| is_version_of(&name, c)) {
                std::fs::remove_dir_all(unpacked.path())?;
            }
        }
    }
    Ok(())
}

/// `skills-lint-0.1.0` is a version of `skills-lint`; `skills-lint-extra-0.1.0` is not.
fn is_version_of(dir: &str, krate: &str) -> bool {
    dir.strip_prefix(krate)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|v| v.chars().next())
        .is_some_and(|c| c.is_ascii_digit())
}

/// Checks the file list of each package (`cargo package --list`, offline, no build): the
/// README and both license texts are in, and nothing but sources, build script and the
/// crate's own tests (no `testdata/`, no snapshots).
pub(crate) fn contents() -> Result<()> {
    let mut problems = Vec::new();
    for krate in published() {
        let out = cargo([
            "package",
            "--list",
            "--offline",
            "--allow-dirty",
            "-p",
            krate,
        ])
        .output()?;
        if !out.status.success() {
            bail!(
                "cargo package --list -p {krate} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let list = String::from_utf8_lossy(&out.stdout);
        let files: Vec<&str> = list.lines().collect();
        for needed in ["README.md", "LICENSE-MIT", "LICENSE-APACHE", "src/lib.rs"] {
            if !files.contains(&needed) {
                problems.push(format!("{krate}: the package has no {needed}"));
            }
        }
        for f in &files {
            let allowed = f.starts_with("src/")
                || (f.starts_with("tests/") && !f.contains("snapshots"))
                // skills-registry's SQL, embedded at compile time by `sqlx::migrate!`.
                || (f.starts_with("migrations/") && f.ends_with(".sql"))
                // skills-tool's symbol ordering file for `skills-mcp` (its build.rs).
                || (f.starts_with("link/") && f.ends_with(".txt"))
                || matches!(
                    *f,
                    "Cargo.toml"
                        | "Cargo.toml.orig"
                        | "Cargo.lock"
                        | ".cargo_vcs_info.json"
                        | "README.md"
                        | "LICENSE-MIT"
                        | "LICENSE-APACHE"
                        | "build.rs"
                );
            if !allowed {
                problems.push(format!("{krate}: the package holds {f}"));
            }
        }
    }
    if !problems.is_empty() {
        bail!(
            "package contents (the `include` lists of crates/*/Cargo.toml):\n  {}",
            problems.join("\n  ")
        );
    }
    eprintln!("package contents: {} crates ok", published().len());
    Ok(())
}
