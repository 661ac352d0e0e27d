//! Keeping the docs honest: every file the code map of `docs/ARCHITECTURE.md` names exists.
//!
//! The code map is what a newcomer reads first; a renamed or deleted file it still names sends
//! them looking for something that is gone. Each `### \`crates/NAME\`` (or `### \`xtask\``)
//! section names files in backticks (`walk.rs`, `render/snippet.rs`, `tests/it/fit.rs`);
//! each must resolve inside that crate: as written from the crate's directory or its `src/`,
//! or, for a bare file name, as a file of that name anywhere in the crate.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The file extensions a code-map token with a directory must have to be taken for a path.
const EXTENSIONS: [&str; 6] = [".rs", ".toml", ".md", ".yaml", ".yml", ".json"];

/// Checks the code map of `root/docs/ARCHITECTURE.md`.
pub(crate) fn check(root: &Path) -> Result<()> {
    let path = root.join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let missing = missing_paths(root, &text);
    if !missing.is_empty() {
        let list: Vec<String> = missing
            .iter()
            .map(|(section, token)| format!("  {section}: `{token}`"))
            .collect();
        bail!(
            "docs/ARCHITECTURE.md's code map names files that do not exist:\n{}\n\
             fix the names (or the map) in the same commit that moves the files",
            list.join("\n")
        );
    }
    Ok(())
}

/// `(section, token)` for every path named in a crate's section that does not resolve.
fn missing_paths(root: &Path, text: &str) -> Vec<(String, String)> {
    let mut missing = Vec::new();
    let mut section: Option<PathBuf> = None;
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(heading) = line.strip_prefix("### `") {
            section = heading
                .strip_suffix('`')
                .map(|dir| root.join(dir))
                .filter(|dir| dir.join("Cargo.toml").is_file());
            continue;
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            section = None;
            continue;
        }
        let Some(dir) = &section else { continue };
        for token in backticked(line).filter(|t| is_path(t)) {
            if !resolves(root, dir, token) {
                let name = dir.strip_prefix(root).unwrap_or(dir).display().to_string();
                missing.push((name, token.to_string()));
            }
        }
    }
    missing
}

/// The text between each pair of backticks on `line`.
fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// A source file (`walk.rs`), or a path with a directory (`tests/it/fit.rs`,
/// `docs/schemas/lint.schema.json`). A bare `SKILL.md` or `skills.toml` names a kind of
/// user file, not one of ours.
fn is_path(token: &str) -> bool {
    (token.ends_with(".rs")
        || (token.contains('/') && EXTENSIONS.iter().any(|e| token.ends_with(e))))
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !token.starts_with("../")
}

fn resolves(root: &Path, dir: &Path, token: &str) -> bool {
    if dir.join(token).exists() || dir.join("src").join(token).exists() {
        return true;
    }
    // The repository's own files (`Cargo.toml`, `pre-commit/main.rs`) are named from the root.
    if root.join(token).exists() {
        return true;
    }
    !token.contains('/') && contains_file(dir, token)
}

/// Whether a file named `name` is anywhere under `dir` (outside `target/`).
fn contains_file(dir: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if entry.file_name() == name {
            return true;
        }
        path.is_dir() && entry.file_name() != "target" && contains_file(&path, name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn the_code_map_names_only_files_that_exist() {
        let missing = missing_paths(
            &repo(),
            &std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap(),
        );
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn a_file_that_is_gone_is_found() {
        let map = "### `crates/skills-core`\n\n- `durable.rs` and `fs.rs`, `gone.rs`, `src/nope/x.rs`\n\n### `xtask`\n\n`tidy.rs`, `Cargo.toml`\n\n## Other\n\n`elsewhere.rs`\n";
        let missing = missing_paths(&repo(), map);
        assert_eq!(
            missing,
            [
                ("crates/skills-core".to_string(), "gone.rs".to_string()),
                (
                    "crates/skills-core".to_string(),
                    "src/nope/x.rs".to_string()
                ),
            ]
        );
    }
}
