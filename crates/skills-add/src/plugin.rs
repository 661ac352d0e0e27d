//! Skills a repository declares in Claude Code plugin manifests
//! (`.claude-plugin/marketplace.json`, `.claude-plugin/plugin.json`): found beside the ones
//! a walk finds, including those in hidden directories a walk skips.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::AddError;

/// The directories the manifests under `root` name as skills or as folders of skills:
///
/// - `marketplace.json`: for each of `plugins`, its `skills` (paths relative to the plugin's
///   `source`), else the plugin's `skills/` folder; a `source` that is not a local path (a
///   repository of its own) is left out.
/// - `plugin.json`: its `skills` (a path or a list), else `skills/`.
///
/// Only paths written `./…` that stay inside `root` count, as Claude Code reads them; ones
/// that do not exist are left out. Sorted, without duplicates.
///
/// # Errors
///
/// [`AddError::Manifest`] for a manifest that is not JSON.
pub fn plugin_skill_dirs(root: &Path) -> Result<Vec<PathBuf>, AddError> {
    let mut out = Vec::new();
    let dir = root.join(".claude-plugin");
    if let Some(market) = read(&dir.join("marketplace.json"))? {
        for plugin in market
            .get("plugins")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let source = match plugin.get("source") {
                None => Some(root.to_path_buf()),
                Some(Value::String(s)) => inside(root, root, s),
                Some(_) => None,
            };
            let Some(source) = source else { continue };
            push_skills(root, &source, plugin.get("skills"), &mut out);
        }
    }
    if let Some(plugin) = read(&dir.join("plugin.json"))? {
        push_skills(root, root, plugin.get("skills"), &mut out);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The `skills` value of a plugin at `base`: a path, a list of paths, or (absent) `skills/`.
fn push_skills(root: &Path, base: &Path, skills: Option<&Value>, out: &mut Vec<PathBuf>) {
    let paths: Vec<&str> = match skills {
        None => {
            let default = base.join("skills");
            if default.is_dir() {
                out.push(default);
            }
            return;
        }
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        Some(_) => Vec::new(),
    };
    out.extend(paths.into_iter().filter_map(|p| inside(root, base, p)));
}

/// `base/path` when `path` is written `./…` and the result is a directory inside `root`.
fn inside(root: &Path, base: &Path, path: &str) -> Option<PathBuf> {
    let rest = path.strip_prefix("./")?;
    let joined = base.join(rest);
    let real = std::fs::canonicalize(&joined).ok()?;
    let root = std::fs::canonicalize(root).ok()?;
    (real.starts_with(&root) && real.is_dir()).then_some(joined)
}

/// The JSON of `path`; `None` when there is no such file.
fn read(path: &Path) -> Result<Option<Value>, AddError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(AddError::io(path, e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| AddError::Manifest {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: {
                // serde_json's text ends with the position, which the error shows already.
                let text = e.to_string();
                text.rsplit_once(" at line ")
                    .map_or(text.clone(), |(m, _)| m.to_string())
            },
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(root: &Path, rel: &str) {
        std::fs::create_dir_all(root.join(rel)).unwrap();
    }

    #[test]
    fn manifests_name_skills_and_folders_inside_the_repository() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        for d in [
            ".hidden/pdf",
            "plugins/docs/skills/x",
            "skills/own",
            "outside-of-list",
        ] {
            dir(root, d);
        }
        dir(root, ".claude-plugin");
        std::fs::write(
            root.join(".claude-plugin/marketplace.json"),
            r#"{"plugins": [
                {"name": "a", "source": "./", "skills": ["./.hidden/pdf", "../escape", "/etc", "./missing"]},
                {"name": "b", "source": "./plugins/docs"},
                {"name": "c", "source": {"source": "github", "repo": "o/r"}}
            ]}"#,
        )
        .unwrap();
        std::fs::write(root.join(".claude-plugin/plugin.json"), r#"{"name": "p"}"#).unwrap();
        let found = plugin_skill_dirs(root).unwrap();
        let rel: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(rel, [".hidden/pdf", "plugins/docs/skills", "skills"]);

        std::fs::write(root.join(".claude-plugin/plugin.json"), "{ nope").unwrap();
        let e = plugin_skill_dirs(root).unwrap_err();
        assert!(e.to_string().contains("plugin.json:1:3"), "{e}");
        assert!(plugin_skill_dirs(&root.join("skills")).unwrap().is_empty());
    }
}
