//! Moving an unpacked skill into a skills root.

use std::fs;
use std::path::{Path, PathBuf};

use skills_core::durable::{self, INSTALL_PREFIX};

use crate::PackageError;
use crate::swap;

/// Moves the skill directory `staged` to `root/<id>` and returns that path.
///
/// `staged` must be on the same file system as `root` (unpack it into a temporary directory
/// inside `root`), so the move is one `rename`: other processes see either no skill or the
/// whole new one. Its files are synced to disk first, and the root after the move. An
/// existing `root/<id>` is refused unless `force`; with `force` the two are swapped in one
/// atomic exchange where the system has it (Linux), and otherwise the old one is renamed
/// aside, the new one moved in (the old one is moved back if that fails), and only then is
/// the old one deleted.
///
/// # Errors
///
/// [`PackageError::AlreadyInstalled`] without `force`; [`PackageError::UnsafeEntry`] when
/// `id` is not a single path component; I/O errors naming the path.
pub fn install_dir(
    staged: &Path,
    root: &Path,
    id: &str,
    force: bool,
) -> Result<PathBuf, PackageError> {
    if id.is_empty() || id == "." || id == ".." || id.contains(['/', '\\', '\0', ':']) {
        return Err(PackageError::UnsafeEntry {
            name: id.to_string(),
            reason: "a skill id must be one path component",
        });
    }
    let target = root.join(id);
    // Contents on disk before the rename makes them visible.
    durable::sync_tree(staged).map_err(|e| PackageError::io(staged, e))?;
    if fs::symlink_metadata(&target).is_err() {
        fs::rename(staged, &target).map_err(|e| PackageError::io(&target, e))?;
        durable::sync_dir(root).map_err(|e| PackageError::io(root, e))?;
        return Ok(target);
    }
    if !force {
        return Err(PackageError::AlreadyInstalled { path: target });
    }
    // One atomic swap where the system has it: no moment without a skill at `target`.
    if swap::exchange(staged, &target).map_err(|e| PackageError::io(&target, e))? {
        durable::sync_dir(root).map_err(|e| PackageError::io(root, e))?;
        // `staged` now holds the old skill; if it cannot be removed here, the caller's
        // temporary directory (or the next run's clean-up) removes it.
        let _ = fs::remove_dir_all(staged);
        return Ok(target);
    }
    let aside = tempfile::Builder::new()
        .prefix(&durable::temp_prefix(INSTALL_PREFIX))
        .tempdir_in(root)
        .map_err(|e| PackageError::io(root, e))?;
    let old = aside.path().join(id);
    fs::rename(&target, &old).map_err(|e| PackageError::io(&target, e))?;
    if let Err(e) = fs::rename(staged, &target) {
        // Put the old skill back; report the first failure.
        let _ = fs::rename(&old, &target);
        return Err(PackageError::io(&target, e));
    }
    durable::sync_dir(root).map_err(|e| PackageError::io(root, e))?;
    aside.close().map_err(|e| PackageError::io(&old, e))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(dir: &Path, text: &str) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("SKILL.md"), text).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn force_replaces_without_leftovers_and_refuses_without() {
        let root = tempfile::tempdir().unwrap();
        skill(&root.path().join("pdf"), "old");
        let staging = tempfile::tempdir_in(root.path()).unwrap();
        skill(&staging.path().join("pdf"), "new");
        let staged = staging.path().join("pdf");
        let err = install_dir(&staged, root.path(), "pdf", false).unwrap_err();
        assert!(matches!(err, PackageError::AlreadyInstalled { .. }));
        assert_eq!(
            fs::read_to_string(root.path().join("pdf/SKILL.md")).unwrap(),
            "old"
        );
        let target = install_dir(&staged, root.path(), "pdf", true).unwrap();
        assert_eq!(fs::read_to_string(target.join("SKILL.md")).unwrap(), "new");
        assert!(!staged.exists());
        drop(staging);
        assert_eq!(names(root.path()), ["pdf"]);
    }

    #[test]
    fn a_failed_install_keeps_the_old_skill() {
        let root = tempfile::tempdir().unwrap();
        skill(&root.path().join("pdf"), "old");
        // Nothing staged: the move fails, the old skill stays where it was.
        let missing = root.path().join("nothing-here/pdf");
        assert!(install_dir(&missing, root.path(), "pdf", true).is_err());
        assert_eq!(
            fs::read_to_string(root.path().join("pdf/SKILL.md")).unwrap(),
            "old"
        );
        assert_eq!(names(root.path()), ["pdf"]);
    }
}
