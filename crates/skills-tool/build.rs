//! Sets `SKILLS_VERSION` for `skills --version`: `0.1.0 (f1f9941 2026-11-23)` when built from
//! a git checkout, plain `0.1.0` otherwise (a crates.io package, a tarball, no `git`).
//!
//! And links `skills-mcp` with `link/skills-mcp-hot.txt`, which puts the code a server runs
//! in a session at the start of its text (docs/performance.md, "MCP server"), and both
//! binaries with packed relative relocations where the C library that will load them reads
//! those, both where the linker is known to handle it.
//!
//! Nothing here may fail the build: every problem falls back to the plain version, and to
//! the linker's own layout.

// A build script talks to cargo on stdout.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env("CARGO_PKG_VERSION").unwrap_or_default();
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR").unwrap_or_default());
    let full = match commit(&manifest_dir) {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=SKILLS_VERSION={full}");
    let linker = rustc_lld_on_x86_64_linux_gnu();
    if linker {
        hot_text(&manifest_dir);
        packed_relocations();
    }
}

/// Whether the binaries are linked for x86_64 Linux with glibc by the linker rustc picks
/// there (LLD since Rust 1.90), not one the user chose (`linker`, `-fuse-ld=mold`, ...),
/// which may read neither symbol ordering files nor `-z pack-relative-relocs`.
fn rustc_lld_on_x86_64_linux_gnu() -> bool {
    let target = |name: &str| env(name).unwrap_or_default();
    let linux_gnu_x86_64 = target("CARGO_CFG_TARGET_OS") == "linux"
        && target("CARGO_CFG_TARGET_ENV") == "gnu"
        && target("CARGO_CFG_TARGET_ARCH") == "x86_64";
    // Cargo passes a configured `linker` as RUSTC_LINKER; rustflags arrive 0x1f-separated.
    let rustflags = target("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = env("RUSTC_LINKER").is_some()
        || ["linker", "fuse-ld", "link-self-contained"]
            .iter()
            .any(|flag| rustflags.contains(flag));
    linux_gnu_x86_64 && !own_linker
}

/// Links both binaries with `-z pack-relative-relocs` (RELR) when they are built for the
/// machine that builds them (`cargo install`) and its glibc is 2.36 or later, the first to
/// read them.
///
/// Nearly all of a position-independent binary's relocations say "add the load address to
/// this pointer": 24 bytes each in `.rela.dyn` (1.5 MB of `skills`, 0.4 MB of
/// `skills-mcp`), a few bytes a page of pointers as a RELR bitmap. The loader reads the
/// whole table at every start, so it was also 0.4 MB of `skills-mcp`'s resident memory.
/// LLD marks such a binary as needing `GLIBC_ABI_DT_RELR`: copied to an older glibc, it
/// does not start, with the loader naming that version, rather than misbehaving.
fn packed_relocations() {
    println!("cargo:rerun-if-env-changed=SKILLS_NO_RELR");
    let native = env("HOST").is_some() && env("HOST") == env("TARGET");
    if !native || env("SKILLS_NO_RELR").is_some() || !glibc_at_least(2, 36) {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}

/// Whether this machine's glibc is `major.minor` or later, as `getconf GNU_LIBC_VERSION`
/// says (`glibc 2.36`); `false` when it cannot tell.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(output) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|part| part.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(have_major), Some(have_minor)) => (have_major, have_minor) >= (major, minor),
        _ => false,
    }
}

/// Links `skills-mcp` with the hot-text order: the symbols `cargo xtask hot-text` saw run,
/// which the linker places first in the text (`--symbol-ordering-file`).
///
/// The server's resident memory is mostly its own code: the kernel maps the 64 KB around
/// each page a process touches, and the functions a session runs (about 1.7 MB) are spread
/// over all 7 MB of text, so about 4 MB of it ends up resident. Placed first, about 2 MB
/// is, and the peak of a session over 1,000 skills is 10.3 MB → 8.2 MB. A name the file
/// holds and the binary does not (another profile's, or one gone stale with a dependency
/// change) is passed over, so a stale file costs memory, never correctness.
///
/// An ordering file, not a linker script: LLD looks each section's symbol up in a table,
/// where a script's thousands of patterns were matched against every section, which took
/// 27 s of each `release` link of `skills-mcp`, the last step of every build, against 0.3 s.
fn hot_text(manifest_dir: &Path) {
    const ORDER: &str = "link/skills-mcp-hot.txt";
    println!("cargo:rerun-if-changed={ORDER}");
    println!("cargo:rerun-if-env-changed=SKILLS_NO_HOT_TEXT");
    let order = manifest_dir.join(ORDER);
    // `-Wl,` splits its argument at commas.
    let usable = order.is_file() && !order.to_string_lossy().contains(',');
    if !usable || env("SKILLS_NO_HOT_TEXT").is_some() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=skills-mcp=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    // The names of the other profile, and those a change made stale, are expected.
    println!("cargo:rustc-link-arg-bin=skills-mcp=-Wl,--no-warn-symbol-ordering");
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `<short hash> <commit date>` of HEAD, and the files to watch so a new commit rebuilds.
fn commit(dir: &Path) -> Option<String> {
    // `cargo package` writes this file: a packaged crate is not the checkout it came from,
    // even when it is unpacked inside some other git repository.
    if dir.join(".cargo_vcs_info.json").exists() {
        return None;
    }
    // HEAD, the branch it points to and packed-refs; `--git-path` resolves each to the
    // right directory in worktrees too. A path that does not exist is not watched (cargo
    // would rerun the script on every build).
    let mut watch = vec![git(dir, &["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.extend(git(dir, &["rev-parse", "--git-path", &branch]));
    }
    watch.extend(git(dir, &["rev-parse", "--git-path", "packed-refs"]));
    let line = git(dir, &["log", "-1", "--date=short", "--format=%h %cd"])?;
    for path in watch {
        // Relative paths from git are relative to `dir`.
        let path = dir.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    Some(line)
}

/// Runs `git -C dir ARGS`; its trimmed stdout, or `None` on any failure or empty output.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}
