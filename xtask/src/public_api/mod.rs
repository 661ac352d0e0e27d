//! `cargo xtask public-api [--bless]`: the public API of each library crate, one item per
//! line, compared with `docs/public-api/<crate>.txt` (or written there with `--bless`).
//!
//! The API comes from rustdoc's JSON output. That output is unstable, so it is asked of the
//! pinned stable toolchain with `RUSTC_BOOTSTRAP=1`: no nightly, no network, and the JSON
//! format cannot change under us until `rust-toolchain.toml` does (a toolchain bump may then
//! change how some lines are written; re-bless and read the diff). The listing is our own
//! rendering of that JSON: every public module, type, field, variant, function, method,
//! constant, static, trait and re-export with its signature, plus one `impl Trait for Type`
//! line per trait implemented by the crate (auto traits and blanket impls left out), sorted.
//!
//! The JSON is read into `rustdoc-types`, the format's own types (published from the rustdoc
//! sources, one release per format version), so a format change shows up as a compile error
//! or a clear version mismatch here rather than as a key that quietly reads as `null`. The
//! `public-api` crate was not used: each release follows the newest nightly's format (0.52
//! reads format 59, our pinned 1.95 writes 57), and its own rendering would rewrite every
//! committed listing. The walk over items is in `items`, the signatures in `types`.

mod items;
mod types;

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use rustdoc_types::{Crate, FORMAT_VERSION};
use serde::Deserialize;

use crate::{cargo, run_checked, workspace_root};

/// The library crates, in the order they are published (dependencies first). `skills-tool`
/// (the command, whose library is `run`) comes last; its API is checked too.
pub(crate) const LIBRARIES: &[&str] = &[
    "skills-core",
    "skills-frontmatter",
    "skills-url",
    "skills-export",
    "skills-package",
    "skills-audit",
    "skills-add",
    "skills-schema",
    "skills-lint",
    "skills-discovery",
    "skills-doctor",
    "skills-prompt",
    "skills-mcp-server",
    "skills-registry",
];

pub(crate) fn run(args: &[String]) -> Result<()> {
    let bless = match args {
        [] => false,
        [flag] if flag == "--bless" => true,
        [other, ..] => bail!("unknown argument `{other}` (expected --bless)"),
    };
    let dir = workspace_root().join("docs/public-api");
    let mut stale = Vec::new();
    let crates = crate::package_check::published();
    write_json()?;
    for krate in &crates {
        let listing = listing(krate)?;
        let file = dir.join(format!("{krate}.txt"));
        if bless {
            std::fs::create_dir_all(&dir)?;
            std::fs::write(&file, &listing)
                .with_context(|| format!("cannot write {}", file.display()))?;
            continue;
        }
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        if committed != listing {
            print_diff(krate, &committed, &listing);
            stale.push(*krate);
        }
    }
    if !stale.is_empty() {
        bail!(
            "the public API of {} changed; if that is intended, run `cargo xtask public-api \
             --bless` and commit docs/public-api/ (and mind semver)",
            stale.join(", ")
        );
    }
    eprintln!(
        "public API: {} crates {}",
        crates.len(),
        if bless { "written" } else { "unchanged" }
    );
    Ok(())
}

/// Lines only in one of the two listings, `-` committed, `+` current.
fn print_diff(krate: &str, committed: &str, current: &str) {
    let old: BTreeSet<&str> = committed.lines().collect();
    let new: BTreeSet<&str> = current.lines().collect();
    eprintln!("public API of {krate} differs from docs/public-api/{krate}.txt:");
    for line in old.difference(&new) {
        eprintln!("  - {line}");
    }
    for line in new.difference(&old) {
        eprintln!("  + {line}");
    }
}

/// The variable that makes `xtask` act as rustdoc (see [`rustdoc_shim`]); its value is the
/// real rustdoc.
pub(crate) const REAL_RUSTDOC: &str = "XTASK_REAL_RUSTDOC";

/// rustdoc's JSON of every library of the workspace, in one `cargo doc`: the crates are
/// documented in parallel, with the workspace's features unified once.
///
/// JSON output is unstable, so rustdoc runs with `RUSTC_BOOTSTRAP=1`. Only rustdoc: set for
/// the whole `cargo doc`, that variable enters cargo's fingerprints, and every dependency
/// would be checked again (in a target directory of its own, as this step once did, 3-4
/// minutes of a clean CI run). Cargo runs this binary as `RUSTDOC` instead, which runs the
/// real rustdoc with the variable set, and the dependencies checked by clippy are reused.
fn write_json() -> Result<()> {
    let me = std::env::current_exe().context("where is the xtask binary")?;
    let real = std::env::var_os("RUSTDOC").unwrap_or_else(|| "rustdoc".into());
    run_checked(
        // Every target, not only the libraries, with rustdoc's warnings denied: this is also
        // CI's docs check (a separate HTML `cargo doc` checked 82 dependencies again, since
        // clippy's `--all-targets` had unified dev-dependency features, and documented
        // everything a second time: about a minute).
        //
        // `--examples` (there are none) makes cargo resolve features with dev-dependencies,
        // as clippy's `--all-targets` did: without it, the dependencies whose features a
        // dev-dependency widens (rmcp, tokio, axum, jsonschema, ...) were checked again, 95
        // of this step's 160 unit-seconds in a clean CI run.
        cargo([
            "doc",
            "-q",
            "--workspace",
            "--no-deps",
            "--lib",
            "--bins",
            "--examples",
        ])
        .env("RUSTDOC", me)
        .env(REAL_RUSTDOC, real)
        .env(
            "RUSTDOCFLAGS",
            "-D warnings -Z unstable-options --output-format json",
        ),
    )
}

/// `xtask` run by cargo as rustdoc (from [`write_json`]): runs `real` with the same
/// arguments and `RUSTC_BOOTSTRAP=1`, and exits with its status.
pub(crate) fn rustdoc_shim(real: &std::ffi::OsStr) -> std::process::ExitCode {
    let status = std::process::Command::new(real)
        .args(std::env::args_os().skip(1))
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove(REAL_RUSTDOC)
        .status();
    match status {
        Ok(status) if status.success() => std::process::ExitCode::SUCCESS,
        Ok(status) => std::process::ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1),
        ),
        Err(e) => {
            eprintln!("error: cannot run {}: {e}", real.to_string_lossy());
            std::process::ExitCode::FAILURE
        }
    }
}

/// Reads `krate`'s JSON (written by [`write_json`]) and renders it.
fn listing(krate: &str) -> Result<String> {
    let file: PathBuf = crate::target_dir()?
        .join("doc")
        .join(format!("{}.json", krate.replace('-', "_")));
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let doc = parse(&text).context("rustdoc JSON")?;
    Ok(items::render(&doc, krate))
}

/// The document, once its format version is the one `rustdoc-types` reads.
fn parse(text: &str) -> Result<Crate> {
    // The version is read on its own first: a document of another version seldom fits the
    // types, and serde's "missing field `...`" would hide that the toolchain moved.
    #[derive(Deserialize)]
    struct Version {
        format_version: u32,
    }
    let Version { format_version } = serde_json::from_str(text)?;
    if format_version != FORMAT_VERSION {
        bail!(
            "rustdoc wrote format version {format_version}, xtask reads {FORMAT_VERSION}: \
             after a toolchain change in rust-toolchain.toml, set `rustdoc-types` in the root \
             Cargo.toml to \"0.{format_version}\" (its 0.N releases read format N)"
        );
    }
    Ok(serde_json::from_str(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_format_version_names_the_rustdoc_types_release_to_use() {
        let text = format!(r#"{{"format_version": {}, "root": 0}}"#, FORMAT_VERSION + 1);
        let err = format!("{:#}", parse(&text).unwrap_err());
        assert!(
            err.contains(&format!(
                "set `rustdoc-types` in the root Cargo.toml to \"0.{}\"",
                FORMAT_VERSION + 1
            )),
            "{err}"
        );
    }

    #[test]
    fn a_document_without_a_version_is_an_error_not_a_panic() {
        assert!(parse("{}").is_err());
        assert!(parse("not json").is_err());
    }
}
