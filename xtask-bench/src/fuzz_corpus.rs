//! `cargo xtask fuzz-corpus [DIR]`: writes the seed corpora of the cargo-fuzz targets in
//! `fuzz/` from `testdata/` (default `DIR`: `fuzz/corpus`), so no binary seeds are committed:
//!
//! - `frontmatter/`: every `SKILL.md` under `testdata/`;
//! - `url/`: every `http(s)` string literal of `crates/skills-url/src/tests.rs` and every
//!   backquoted URL of `docs/url.md`;
//! - `unpack/`: a ZIP of every skill under `testdata/examples` and `testdata/rules/*/good`,
//!   made by `skills_package::package` (what `skills package` writes), and a few hostile
//!   archives (zip-slip names, an absolute path, a symlink, a duplicate, a flat skill);
//! - `mcp/`, and all of the above: the hand-written seeds in `fuzz/seeds/<target>/`.
//!
//! Existing files in `DIR` are kept (libFuzzer adds what it finds there); seeds of the same
//! name are overwritten.

use std::fs;
use std::io::{Cursor, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

const TARGETS: [&str; 4] = ["frontmatter", "url", "unpack", "mcp"];

pub(crate) fn run(args: &[String]) -> Result<()> {
    let root = super::workspace_root();
    let out = match args {
        [] => root.join("fuzz").join("corpus"),
        [dir] => PathBuf::from(dir),
        _ => bail!("usage: cargo xtask fuzz-corpus [DIR]"),
    };
    let testdata = root.join("testdata");
    let mut counts = Vec::new();
    for target in TARGETS {
        let dir = out.join(target);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut seeds = hand_written(&root.join("fuzz").join("seeds").join(target))?;
        match target {
            "frontmatter" => seeds.extend(skill_mds(&testdata)?),
            "url" => seeds.extend(urls(&root)?),
            "unpack" => seeds.extend(archives(&testdata)?),
            _ => {}
        }
        for (name, bytes) in &seeds {
            let path = dir.join(name);
            fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
        }
        counts.push(format!("{target}: {}", seeds.len()));
    }
    eprintln!("seeds written to {}: {}", out.display(), counts.join(", "));
    Ok(())
}

type Seed = (String, Vec<u8>);

/// An archive entry for [`zip_of`]: its name and bytes.
type Entry<'a> = (&'a str, &'a [u8]);

/// Every file under `dir`, recursively, sorted; symlinks are not followed.
fn files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A file name for a seed taken from `path` (relative to `base`).
fn seed_name(prefix: &str, base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    let name: String = rel
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{prefix}{name}")
}

fn hand_written(dir: &Path) -> Result<Vec<Seed>> {
    files(dir)?
        .into_iter()
        .map(|path| {
            let bytes =
                fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            Ok((seed_name("seed-", dir, &path), bytes))
        })
        .collect()
}

fn skill_mds(testdata: &Path) -> Result<Vec<Seed>> {
    let mut out = Vec::new();
    for path in files(testdata)? {
        let is_skill_md = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"));
        if is_skill_md {
            let bytes =
                fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            out.push((seed_name("", testdata, &path), bytes));
        }
    }
    Ok(out)
}

fn urls(root: &Path) -> Result<Vec<Seed>> {
    let mut found = Vec::new();
    let tests = root.join("crates/skills-url/src/tests.rs");
    let text =
        fs::read_to_string(&tests).with_context(|| format!("cannot read {}", tests.display()))?;
    found.extend(quoted(&text, '"').filter(|s| s.trim_start().starts_with("http")));
    let doc = root.join("docs/url.md");
    let text =
        fs::read_to_string(&doc).with_context(|| format!("cannot read {}", doc.display()))?;
    found.extend(quoted(&text, '`').filter(|s| s.starts_with("http")));
    found.sort();
    found.dedup();
    Ok(found
        .into_iter()
        .enumerate()
        .map(|(i, url)| (format!("url-{i:03}"), url.as_bytes().to_vec()))
        .collect())
}

/// The text between pairs of `quote` characters, without escapes (good enough for the
/// URLs in our tests and docs, which contain none).
fn quoted(text: &str, quote: char) -> impl Iterator<Item = String> + '_ {
    text.lines().flat_map(move |line| {
        line.split(quote)
            .skip(1)
            .step_by(2)
            .map(|s| s.replace("\\n", "\n"))
            .collect::<Vec<_>>()
    })
}

fn archives(testdata: &Path) -> Result<Vec<Seed>> {
    let mut skills = vec![testdata.join("examples/pdf-processing")];
    for rule in fs::read_dir(testdata.join("rules"))? {
        let good = rule?.path().join("good");
        let Ok(dirs) = fs::read_dir(&good) else {
            continue;
        };
        for dir in dirs {
            let dir = dir?.path();
            if dir.join("SKILL.md").is_file() {
                skills.push(dir);
            }
        }
    }
    skills.sort();
    let tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
    let options = skills_package::Options::default();
    let mut out = Vec::new();
    for (i, skill) in skills.iter().enumerate() {
        let out_dir = tmp.path().join(i.to_string());
        fs::create_dir(&out_dir)?;
        // A fixture that cannot be packaged (on purpose) is no seed.
        let Ok(packaged) = skills_package::package(skill, &out_dir, &options) else {
            continue;
        };
        let bytes = fs::read(&packaged.archive)
            .with_context(|| format!("cannot read {}", packaged.archive.display()))?;
        out.push((seed_name("", testdata, skill) + ".zip", bytes));
    }
    let md: &[u8] = b"---\nname: s\ndescription: Use when testing.\n---\n# S\n";
    let hostile: [(&str, &[Entry<'_>]); 5] = [
        (
            "hostile-slip.zip",
            &[("s/SKILL.md", md), ("s/../../evil", b"x")],
        ),
        (
            "hostile-absolute.zip",
            &[("s/SKILL.md", md), ("/tmp/evil", b"x")],
        ),
        (
            "hostile-backslash.zip",
            &[("s/SKILL.md", md), ("s\\..\\evil", b"x")],
        ),
        (
            "flat.zip",
            &[("SKILL.md", md), ("scripts/run.sh", b"echo\n")],
        ),
        (
            "dirs.zip",
            &[("s/", b""), ("s/SKILL.md", md), ("s/assets/", b"")],
        ),
    ];
    for (name, entries) in hostile {
        out.push((name.to_string(), zip_of(entries, false)?));
    }
    out.push((
        "hostile-symlink.zip".to_string(),
        zip_of(&[("s/SKILL.md", md), ("s/link", b"../../etc/passwd")], true)?,
    ));
    // The writer refuses duplicate names: write another name of the same length, then
    // rename it in the local header and the central directory.
    let mut duplicate = zip_of(&[("s/SKILL.md", md), ("s/SKILL.mX", md)], false)?;
    for i in 0..duplicate.len() {
        if duplicate.get(i..i + 10) == Some(b"s/SKILL.mX") {
            duplicate.splice(i..i + 10, *b"s/SKILL.md");
        }
    }
    out.push(("hostile-duplicate.zip".to_string(), duplicate));
    Ok(out)
}

/// A ZIP of `entries` (names ending in `/` are directories); with `last_is_symlink`, the last
/// entry is a symlink to its contents. Raw names, so hostile ones survive.
fn zip_of(entries: &[Entry<'_>], last_is_symlink: bool) -> Result<Vec<u8>> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (i, (name, bytes)) in entries.iter().enumerate() {
        if last_is_symlink && i + 1 == entries.len() {
            w.add_symlink(*name, String::from_utf8_lossy(bytes), options)?;
        } else if let Some(dir) = name.strip_suffix('/') {
            w.add_directory(dir, options)?;
        } else {
            w.start_file(*name, options)?;
            w.write_all(bytes)?;
        }
    }
    Ok(w.finish()?.into_inner())
}
