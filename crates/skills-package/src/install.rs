//! Moving an unpacked skill into a skills root.

use std::fs;
use std::path::{Path, PathBuf};

use crate::PackageError;

/// Moves the skill directory `staged` to `root/<id>` and returns that path.
///
/// `staged` must be on the same file system as `root` (unpack it into a temporary directory
/// inside `root`), so the move is one `rename`: other processes see either no skill or the
/// whole new one. An existing `root/<id>` is refused unless `force`; with `force` it is
/// renamed aside, the new skill is moved in (the old one is moved back if that fails), and
/// only then is the old one deleted.
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
    if fs::symlink_metadata(&target).is_err() {
        fs::rename(staged, &target).map_err(|e| PackageError::io(&target, e))?;
        return Ok(target);
    }
    if !force {
        return Err(PackageError::AlreadyInstalled { path: target });
    }
    let aside = tempfile::Builder::new()
        .prefix(&format!(".{id}.old-"))
        .tempdir_in(root)
        .map_err(|e| PackageError::io(root, e))?;
    let old = aside.path().join(id);
    fs::rename(&target, &old).map_err(|e| PackageError::io(&target, e))?;
    if let Err(e) = fs::rename(staged, &target) {
        // Put the old skill back; report the first failure.
        let _ = fs::rename(&old, &target);
        return Err(PackageError::io(&target, e));
    }
    aside.close().map_err(|e| PackageError::io(&old, e))?;
    Ok(target)
}
