//! Putting an installed skill where each agent reads it: a relative symbolic link to the
//! canonical copy, or a copy, each replacing what was there in one rename.

use std::path::{Component, Path, PathBuf};

use skills_core::durable::{self, INSTALL_PREFIX};

use crate::AddError;

/// How a skill reached an agent's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Placed {
    /// A relative symbolic link to the canonical copy.
    Link,
    /// A copy, as asked for.
    Copy,
    /// A copy, because the link could not be made here (Windows without the right to make
    /// links, a file system without them): why not, for the user to read.
    CopyInsteadOfLink {
        /// What the file system said when the link was tried.
        reason: String,
    },
    /// It was already there as wanted.
    Unchanged,
}

/// What is at an agent's path for a skill, as [`state`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentState {
    /// Nothing.
    Missing,
    /// A link to the canonical copy.
    Linked,
    /// A link somewhere else.
    LinkElsewhere(PathBuf),
    /// A directory (a copy, or the user's own skill).
    Dir,
    /// Something else (a file).
    Other,
}

/// What is at `agent_dir/name`, compared with the canonical copy `canonical`.
#[must_use]
pub fn state(agent_dir: &Path, name: &str, canonical: &Path) -> AgentState {
    let target = agent_dir.join(name);
    let Ok(meta) = std::fs::symlink_metadata(&target) else {
        return AgentState::Missing;
    };
    if meta.file_type().is_symlink() {
        let points = std::fs::read_link(&target).unwrap_or_default();
        return if points == relative(agent_dir, canonical) {
            AgentState::Linked
        } else {
            AgentState::LinkElsewhere(points)
        };
    }
    if meta.is_dir() {
        AgentState::Dir
    } else {
        AgentState::Other
    }
}

/// Makes `agent_dir/name` the skill at `canonical`: a relative link, or a copy when `copy`
/// or when the file system refuses the link ([`Placed::CopyInsteadOfLink`] says why). A link
/// there already pointing at `canonical` is left alone; anything else there is replaced only
/// when `replace`.
///
/// # Errors
///
/// [`AddError::Occupied`] when something else is there and not `replace`;
/// [`AddError::NotPlaced`] when neither a link nor a copy could be made; [`AddError::Io`].
pub fn place(
    agent_dir: &Path,
    name: &str,
    canonical: &Path,
    copy: bool,
    replace: bool,
) -> Result<Placed, AddError> {
    place_with(agent_dir, name, canonical, copy, replace, symlink)
}

/// [`place`] with the function that makes a link given: the tests make it fail, as a file
/// system without links does, to see the copy made instead.
fn place_with(
    agent_dir: &Path,
    name: &str,
    canonical: &Path,
    copy: bool,
    replace: bool,
    link: impl Fn(&Path, &Path) -> std::io::Result<()>,
) -> Result<Placed, AddError> {
    let target = agent_dir.join(name);
    let current = state(agent_dir, name, canonical);
    if current == AgentState::Linked && !copy {
        return Ok(Placed::Unchanged);
    }
    if current != AgentState::Missing && !replace {
        return Err(AddError::Occupied { path: target });
    }
    std::fs::create_dir_all(agent_dir).map_err(|e| AddError::io(agent_dir, e))?;
    let _ = durable::remove_stale(agent_dir, INSTALL_PREFIX);
    let staging = tempfile::Builder::new()
        .prefix(&durable::temp_prefix(INSTALL_PREFIX))
        .tempdir_in(agent_dir)
        .map_err(|e| AddError::io(agent_dir, e))?;
    let staged = staging.path().join(name);
    let placed = if copy {
        copy_tree(canonical, &staged)?;
        Placed::Copy
    } else {
        match link(&relative(agent_dir, canonical), &staged) {
            Ok(()) => Placed::Link,
            // The agent still gets the skill, as a copy; the caller says why it is one.
            Err(why) => match copy_tree(canonical, &staged) {
                Ok(()) => Placed::CopyInsteadOfLink {
                    reason: why.to_string(),
                },
                Err(e) => {
                    return Err(AddError::NotPlaced {
                        dir: agent_dir.to_path_buf(),
                        name: name.to_string(),
                        link: why,
                        copy: Box::new(e),
                    });
                }
            },
        }
    };
    replace_with(&staged, &target, staging.path())?;
    durable::sync_dir(agent_dir).map_err(|e| AddError::io(agent_dir, e))?;
    Ok(placed)
}

/// Removes `agent_dir/name` when it is a link to `canonical` or a directory (a copy).
///
/// # Errors
///
/// [`AddError::Io`].
pub fn unplace(agent_dir: &Path, name: &str) -> Result<bool, AddError> {
    let target = agent_dir.join(name);
    let Ok(meta) = std::fs::symlink_metadata(&target) else {
        return Ok(false);
    };
    let result = if meta.is_dir() {
        // Out of sight in one rename, then deleted.
        let aside = tempfile::Builder::new()
            .prefix(&durable::temp_prefix(INSTALL_PREFIX))
            .tempdir_in(agent_dir)
            .map_err(|e| AddError::io(agent_dir, e))?;
        std::fs::rename(&target, aside.path().join(name)).and_then(|()| aside.close())
    } else {
        std::fs::remove_file(&target)
    };
    result.map_err(|e| AddError::io(&target, e))?;
    Ok(true)
}

/// Moves `staged` to `target` in one rename; a directory at `target` is set aside in
/// `aside_dir` first (and put back if the move fails).
fn replace_with(staged: &Path, target: &Path, aside_dir: &Path) -> Result<(), AddError> {
    let is_dir = std::fs::symlink_metadata(target).is_ok_and(|m| m.is_dir());
    if !is_dir {
        // A link or file at `target` is replaced by the rename itself.
        return std::fs::rename(staged, target).map_err(|e| AddError::io(target, e));
    }
    let old = aside_dir.join(".old");
    std::fs::rename(target, &old).map_err(|e| AddError::io(target, e))?;
    if let Err(e) = std::fs::rename(staged, target) {
        let _ = std::fs::rename(&old, target);
        return Err(AddError::io(target, e));
    }
    Ok(())
}

/// The path from directory `from` to `to`, both absolute or both relative to one place:
/// `.claude/skills` to `.agents/skills/pdf` is `../../.agents/skills/pdf`.
#[must_use]
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in to.iter().skip(common) {
        out.push(part.as_os_str());
    }
    out
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

#[cfg(not(any(unix, windows)))]
fn symlink(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "symbolic links are not supported here",
    ))
}

/// Copies the regular files and directories of `from` to `to` (links inside an installed
/// skill are copied as links).
fn copy_tree(from: &Path, to: &Path) -> Result<(), AddError> {
    std::fs::create_dir_all(to).map_err(|e| AddError::io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| AddError::io(from, e))? {
        let entry = entry.map_err(|e| AddError::io(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| AddError::io(&src, e))?;
        if kind.is_symlink() {
            let points = std::fs::read_link(&src).map_err(|e| AddError::io(&src, e))?;
            symlink(&points, &dst).map_err(|e| AddError::io(&dst, e))?;
        } else if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| AddError::io(&dst, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(
                Path::new("/p/.claude/skills"),
                Path::new("/p/.agents/skills/pdf")
            ),
            Path::new("../../.agents/skills/pdf")
        );
        assert_eq!(
            relative(
                Path::new("/h/.codeium/windsurf/skills"),
                Path::new("/h/.agents/skills/x")
            ),
            Path::new("../../../.agents/skills/x")
        );
    }

    #[cfg(unix)]
    #[test]
    fn link_copy_and_refusal() {
        let t = tempfile::tempdir().unwrap();
        let canonical = t.path().join(".agents/skills/pdf");
        std::fs::create_dir_all(&canonical).unwrap();
        std::fs::write(canonical.join("SKILL.md"), "x").unwrap();
        let claude = t.path().join(".claude/skills");
        assert_eq!(
            place(&claude, "pdf", &canonical, false, false).unwrap(),
            Placed::Link
        );
        assert_eq!(
            std::fs::read_link(claude.join("pdf")).unwrap(),
            Path::new("../../.agents/skills/pdf")
        );
        assert_eq!(
            std::fs::read_to_string(claude.join("pdf/SKILL.md")).unwrap(),
            "x"
        );
        assert_eq!(
            place(&claude, "pdf", &canonical, false, false).unwrap(),
            Placed::Unchanged
        );
        // The user's own skill of that name is not replaced unless asked.
        let roo = t.path().join(".roo/skills");
        std::fs::create_dir_all(roo.join("pdf")).unwrap();
        std::fs::write(roo.join("pdf/SKILL.md"), "mine").unwrap();
        assert!(matches!(
            place(&roo, "pdf", &canonical, false, false),
            Err(AddError::Occupied { .. })
        ));
        assert_eq!(
            std::fs::read_to_string(roo.join("pdf/SKILL.md")).unwrap(),
            "mine"
        );
        assert_eq!(
            place(&roo, "pdf", &canonical, true, true).unwrap(),
            Placed::Copy
        );
        assert!(
            !std::fs::symlink_metadata(roo.join("pdf"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(roo.join("pdf/SKILL.md")).unwrap(),
            "x"
        );
        // Nothing left aside.
        let names: Vec<_> = std::fs::read_dir(&roo)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["pdf"]);
        assert!(unplace(&claude, "pdf").unwrap());
        assert!(
            canonical.join("SKILL.md").is_file(),
            "the canonical copy stays"
        );
        assert!(!unplace(&claude, "pdf").unwrap());
    }

    fn refused(_: &Path, _: &Path) -> std::io::Result<()> {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "links are not allowed here",
        ))
    }

    /// Where the file system will not make the link, the agent gets a copy and the reason;
    /// where the copy fails too, the error names the folder and both reasons, and nothing
    /// is left behind.
    #[test]
    fn a_refused_link_becomes_a_copy_then_a_clear_error() {
        let t = tempfile::tempdir().unwrap();
        let canonical = t.path().join(".agents/skills/pdf");
        std::fs::create_dir_all(canonical.join("scripts")).unwrap();
        std::fs::write(canonical.join("SKILL.md"), "x").unwrap();
        std::fs::write(canonical.join("scripts/run.py"), "y").unwrap();
        let claude = t.path().join(".claude/skills");
        let placed = place_with(&claude, "pdf", &canonical, false, false, refused).unwrap();
        assert_eq!(
            placed,
            Placed::CopyInsteadOfLink {
                reason: "links are not allowed here".into()
            }
        );
        let there = claude.join("pdf");
        assert!(!std::fs::symlink_metadata(&there).unwrap().is_symlink());
        assert_eq!(
            std::fs::read_to_string(there.join("SKILL.md")).unwrap(),
            "x"
        );
        assert_eq!(
            std::fs::read_to_string(there.join("scripts/run.py")).unwrap(),
            "y"
        );

        // Nothing to copy from: the copy fails as well.
        let roo = t.path().join(".roo/skills");
        let missing = t.path().join(".agents/skills/gone");
        let err = place_with(&roo, "gone", &missing, false, false, refused).unwrap_err();
        assert!(matches!(err, AddError::NotPlaced { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains(&roo.display().to_string())
                && text.contains("links are not allowed here")
                && text.contains(&missing.display().to_string()),
            "{text}"
        );
        let names: Vec<_> = std::fs::read_dir(&roo)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }
}
