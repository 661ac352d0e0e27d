//! Replacing a user's file safely: only a regular file (or a link to one) that the user
//! could edit in place, written to a temporary file beside it and renamed over it.

use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Why a file will not be replaced. Nothing has been written when this is returned.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TargetError {
    /// A device, FIFO, socket or directory: renaming over it would replace the node (a
    /// device becomes a text file), and reading a FIFO blocks.
    #[error("{} is {what}, not a regular file", .path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    /// Mode without any write bit: the user marked it as not to be changed.
    #[error("{} is read-only (mode {mode:04o})", .path.display())]
    ReadOnly { path: PathBuf, mode: u32 },
    /// More than one name: the rename would leave the other names with the old text.
    #[error("{} has {links} hard links", .path.display())]
    HardLinked { path: PathBuf, links: u64 },
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl TargetError {
    /// How to go on, for a help line.
    pub(crate) fn help(&self) -> String {
        match self {
            Self::NotRegular { .. } => {
                "--write only updates regular files; print to stdout instead and redirect it".into()
            }
            Self::ReadOnly { path, .. } => format!(
                "it was left unchanged; make it writable first (chmod u+w {}) if it should be updated",
                path.display()
            ),
            Self::HardLinked { .. } => "it was left unchanged: writing a new file would split the names \
                 (the others would keep the old text); update a copy and move it over, or remove the other links"
                .into(),
            Self::Io { .. } => "check that the path is readable; nothing was written".into(),
        }
    }
}

/// Checks that `file` may be replaced: absent (it will be created), or a regular file, or a
/// symlink to one (or a dangling one, whose target will be created), writable by mode, with
/// one name. Follows links, so `/proc/self/fd/0` is judged by what it points at.
pub(crate) fn check_target(file: &Path) -> Result<(), TargetError> {
    let meta = match std::fs::metadata(file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(TargetError::Io {
                path: file.to_path_buf(),
                source,
            });
        }
    };
    check_metadata(file, &meta)
}

fn check_metadata(file: &Path, meta: &Metadata) -> Result<(), TargetError> {
    if !meta.file_type().is_file() {
        return Err(TargetError::NotRegular {
            path: file.to_path_buf(),
            what: skills_core::describe_file_type(meta.file_type()),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o222 == 0 {
            return Err(TargetError::ReadOnly {
                path: file.to_path_buf(),
                mode,
            });
        }
        if meta.nlink() > 1 {
            return Err(TargetError::HardLinked {
                path: file.to_path_buf(),
                links: meta.nlink(),
            });
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err(TargetError::ReadOnly {
            path: file.to_path_buf(),
            mode: 0o444,
        });
    }
    Ok(())
}

/// Writes to a temporary file beside `file`, then renames it over `file`: a reader (or a
/// crash, a kill, a full disk) sees the old content or the new, never half of it. The old
/// file's permissions are kept; a symlink is written through (its target is replaced, the
/// link stays); the directory is synced after the rename. A temporary file left by a killed
/// run is removed first. The target is checked with [`check_target`] first and again just
/// before the rename, so a device or FIFO put in its place meanwhile is not replaced.
pub(crate) fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let refuse = |e: TargetError| std::io::Error::other(e.to_string());
    check_target(file).map_err(refuse)?;
    // `AGENTS.md -> CLAUDE.md`: update CLAUDE.md, keep the link.
    let resolved = match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(file).or_else(|_| {
            // A dangling link: create the file it names.
            std::fs::read_link(file).map(|to| match file.parent() {
                Some(parent) => parent.join(to),
                None => to,
            })
        })?,
        _ => file.to_path_buf(),
    };
    let file = resolved.as_path();
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let base = format!(".{name}.skills-tmp-");
    let _ = skills_package::durable::remove_stale(dir, &base);
    let mut tmp = tempfile::Builder::new()
        .prefix(&skills_package::durable::temp_prefix(&base))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(file) {
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    check_target(file).map_err(refuse)?;
    tmp.persist(file).map_err(|e| e.error)?;
    skills_package::durable::sync_dir(dir)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_plain_writable_files_with_one_name_are_targets() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let plain = t.path().join("AGENTS.md");
        std::fs::write(&plain, "x").unwrap();
        assert!(check_target(&plain).is_ok());
        assert!(check_target(&t.path().join("new.md")).is_ok());

        let dev = check_target(Path::new("/dev/null")).unwrap_err();
        assert_eq!(
            dev.to_string(),
            "/dev/null is a character device, not a regular file"
        );
        assert!(matches!(
            check_target(t.path()),
            Err(TargetError::NotRegular {
                what: "a directory",
                ..
            })
        ));

        let link = t.path().join("other-name.md");
        std::fs::hard_link(&plain, &link).unwrap();
        assert!(matches!(
            check_target(&plain),
            Err(TargetError::HardLinked { links: 2, .. })
        ));
        std::fs::remove_file(&link).unwrap();

        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o444)).unwrap();
        let ro = check_target(&plain).unwrap_err();
        assert!(ro.to_string().ends_with("is read-only (mode 0444)"), "{ro}");
        // The last line of defence refuses too, and writes nothing.
        assert!(write_atomically(&plain, b"new").is_err());
        assert_eq!(std::fs::read(&plain).unwrap(), b"x");
    }
}
