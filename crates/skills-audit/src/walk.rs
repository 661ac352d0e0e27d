//! What a path given to `skills audit` stands for: lint's path handling.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::AuditError;

/// One thing to audit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Target {
    /// A skill directory (it holds a `SKILL.md`).
    Skill(PathBuf),
    /// A single Markdown file that is not a skill's `SKILL.md` (a flat skill, `NAME.md`).
    File(PathBuf),
    /// A skill archive (`.skill` or `.zip`), to be read without extracting it.
    Archive(PathBuf),
}

impl Target {
    /// The path.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            Self::Skill(p) | Self::File(p) | Self::Archive(p) => p,
        }
    }
}

/// What `path` holds, as `skills lint` reads its paths: a skill directory, a `SKILL.md`
/// (its directory), a Markdown file (itself), an archive (`.skill`, `.zip`), or a tree,
/// walked for every directory with a `SKILL.md` (respecting `.gitignore`, skipping hidden
/// directories, `.git` and `node_modules`; a skill nested in another is a target of its
/// own, and [`crate::Auditor::audit_dir`] of the outer one leaves its files out). Sorted by path.
///
/// # Errors
///
/// [`AuditError::Io`] when `path` cannot be read, [`AuditError::NotASkill`] when a tree
/// holds no skill.
pub fn find_targets(path: &Path) -> Result<Vec<Target>, AuditError> {
    let meta = std::fs::metadata(path).map_err(|source| AuditError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_file() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if skills_core::layout::is_skill_md(path.file_name().unwrap_or_default()) {
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            return Ok(vec![Target::Skill(dir)]);
        }
        if name.ends_with(".skill") || name.ends_with(".zip") {
            return Ok(vec![Target::Archive(path.to_path_buf())]);
        }
        return Ok(vec![Target::File(path.to_path_buf())]);
    }
    // The walk stops at each skill, as lint's does: below one, only the skills nested in
    // it are looked for, by reading directories (no ignore files, no `stat` of each entry),
    // skills on all cores. On 559 skills this is a third of the system calls a walk of
    // every directory below them made.
    let skills: Vec<PathBuf> = if path.join(skills_core::layout::SKILL_MD).is_file() {
        vec![path.to_path_buf()]
    } else {
        skill_roots(path)
    };
    let mut found: Vec<Target> = skills
        .par_iter()
        .flat_map_iter(|dir| {
            let mut all = vec![Target::Skill(dir.clone())];
            nested(dir, 0, &mut all);
            all
        })
        .collect();
    if found.is_empty() {
        return Err(not_a_skill(path));
    }
    found.sort();
    Ok(found)
}

/// Why `path` holds no skill: its `SKILL.md` is not a file (said as what it is), or it has
/// none.
fn not_a_skill(path: &Path) -> AuditError {
    let md = path.join(skills_core::layout::SKILL_MD);
    match std::fs::metadata(&md) {
        Ok(meta) if !meta.is_file() => AuditError::SkillMdNotAFile {
            path: md,
            what: skills_core::describe_file_type(meta.file_type()),
        },
        _ => AuditError::NotASkill {
            path: path.to_path_buf(),
        },
    }
}

/// [`find_targets`] without the skills nested in the skills it finds: the outermost
/// skills of a tree, each to be audited with its nested skills by
/// [`crate::Auditor::audit_dir_nested`], which finds them in the skill's listing (the walk
/// does not read below a skill at all). Sorted by path.
///
/// # Errors
///
/// As [`find_targets`].
pub fn find_outer_targets(path: &Path) -> Result<Vec<Target>, AuditError> {
    let is_dir = std::fs::metadata(path)
        .map_err(|source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .is_dir();
    if !is_dir {
        // A file: as `find_targets` reads it (it is one target).
        return find_targets(path);
    }
    if path.join(skills_core::layout::SKILL_MD).is_file() {
        return Ok(vec![Target::Skill(path.to_path_buf())]);
    }
    let mut found: Vec<Target> = skill_roots(path).into_iter().map(Target::Skill).collect();
    if found.is_empty() {
        return Err(not_a_skill(path));
    }
    found.sort();
    Ok(found)
}

/// The outermost skills under `path`.
fn skill_roots(path: &Path) -> Vec<PathBuf> {
    let found: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let sink = Arc::clone(&found);
    let walker = ignore::WalkBuilder::new(path)
        .hidden(true)
        .git_global(false)
        .require_git(false)
        .filter_entry(move |entry| {
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                return false;
            }
            if entry.depth() == 0 {
                return true;
            }
            if skills_core::layout::is_skipped_dir(entry.file_name()) {
                return false;
            }
            if entry.path().join(skills_core::layout::SKILL_MD).is_file() {
                if let Ok(mut v) = sink.lock() {
                    v.push(entry.path().to_path_buf());
                }
                return false;
            }
            true
        })
        .build();
    for entry in walker {
        if let Err(e) = entry
            && e.io_error()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::PermissionDenied)
        {
            // An unreadable directory below the path is left out, as the walk goes on.
        }
    }
    found.lock().map(|v| v.clone()).unwrap_or_default()
}

/// How deep below a skill nested skills are looked for: deeper than any real layout, and a
/// bound on a tree made to be deep.
const MAX_NESTING: usize = 64;

/// The skills nested in the skill (or directory below one) `dir`: directories holding a
/// `SKILL.md`, hidden ones and `.git`/`node_modules` aside, symbolic links to directories not
/// followed (the listing reports those that leave the skill). `dir` itself is one when
/// `depth` is above 0.
fn nested(dir: &Path, depth: usize, out: &mut Vec<Target>) {
    if depth >= MAX_NESTING {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        if name == skills_core::layout::SKILL_MD {
            // Its type comes with the directory entry; only a link is followed to see.
            let file = kind.is_file() || (kind.is_symlink() && entry.path().is_file());
            if depth > 0 && file {
                out.push(Target::Skill(dir.to_path_buf()));
            }
            continue;
        }
        if kind.is_dir()
            && !name.as_encoded_bytes().starts_with(b".")
            && !skills_core::layout::is_skipped_dir(&name)
        {
            nested(&entry.path(), depth + 1, out);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn skill(root: &Path, dir: &str) {
        let d = root.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("SKILL.md"), "---\nname: x\ndescription: x\n---\n").unwrap();
    }

    #[test]
    fn skills_nested_at_any_depth_hidden_and_ignored_ones_aside() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        skill(root, "a");
        skill(root, "a/sub/deep");
        skill(root, "a/sub/deep/deeper");
        skill(root, "a/.hidden");
        skill(root, "a/node_modules/pkg");
        skill(root, "group/b");
        skill(root, "ignored/c");
        skill(root, ".dot/d");
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        // A directory named SKILL.md is not a skill's file.
        std::fs::create_dir_all(root.join("a/other/SKILL.md")).unwrap();
        let found: Vec<String> = find_targets(root)
            .unwrap()
            .iter()
            .map(|t| {
                t.path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(
            found,
            ["a", "a/sub/deep", "a/sub/deep/deeper", "group/b"],
            "{found:?}"
        );
        // A skill given itself: it and its nested skills.
        let inner = find_targets(&root.join("a/sub")).unwrap();
        assert_eq!(inner.len(), 2, "{inner:?}");
    }
}
