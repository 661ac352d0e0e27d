//! What a path given to `skills audit` stands for: lint's path handling.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    let found: Arc<Mutex<Vec<Target>>> = Arc::default();
    if path.join(skills_core::layout::SKILL_MD).is_file()
        && let Ok(mut v) = found.lock()
    {
        v.push(Target::Skill(path.to_path_buf()));
    }
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
            if entry.depth() > 0 && skills_core::layout::is_skipped_dir(entry.file_name()) {
                return false;
            }
            if entry.path().join(skills_core::layout::SKILL_MD).is_file()
                && let Ok(mut v) = sink.lock()
            {
                v.push(Target::Skill(entry.path().to_path_buf()));
            }
            // Skills nested in a skill are skills too (as lint finds them); the outer
            // skill's audit leaves their files to them.
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
    let mut found = found.lock().map(|v| v.clone()).unwrap_or_default();
    if found.is_empty() {
        return Err(AuditError::NotASkill {
            path: path.to_path_buf(),
        });
    }
    found.sort();
    Ok(found)
}
