//! Writing so that a crash, a kill or a full disk never loses the previous state: temporary
//! names that say which process made them (so a later run can clear what a killed one left),
//! `fsync` before a rename, and the directory synced after it; and replacing a user's file
//! only when it is a regular file the user could edit in place.

use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// The prefix of `skills install`'s staging directories and set-aside copies in a skills
/// root: `.skills-install-<pid>-*`.
pub const INSTALL_PREFIX: &str = ".skills-install-";

/// The prefix of `skills new`'s staging directories: `.skills-new-<pid>-*`.
pub const NEW_PREFIX: &str = ".skills-new-";

/// Every staging prefix: discovery never enters a directory named with one, so a run killed
/// mid-way never shows up as a skill (or as a shadowed copy of one).
pub const STAGING_PREFIXES: [&str; 2] = [INSTALL_PREFIX, NEW_PREFIX];

/// The prefix of a temporary name for `base` made by this process: `{base}{pid}-`. A run
/// killed with `SIGKILL` cannot remove its temporary files; [`remove_stale`] recognises them
/// by this prefix and the dead process id.
pub fn temp_prefix(base: &str) -> String {
    format!("{base}{}-", std::process::id())
}

/// Removes the entries of `dir` named `{base}{pid}-...` whose process no longer runs (left by
/// a run that was killed), and returns how many it removed. Entries of live processes (a
/// concurrent run) are kept. Only Linux can tell (through `/proc`); elsewhere nothing is
/// removed.
///
/// # Errors
///
/// An I/O error when `dir` cannot be listed; entries that cannot be removed are left alone.
pub fn remove_stale(dir: &Path, base: &str) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(base))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || !process_is_gone(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(e) => Err(e),
        };
        if gone.is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(target_os = "linux")]
fn process_is_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn process_is_gone(_pid: u32) -> bool {
    false
}

/// Flushes the data and metadata of every file and directory under `root` (and `root`) to
/// disk, so a rename that publishes the tree cannot be seen before its contents after a
/// power loss.
///
/// # Errors
///
/// The first I/O error.
pub fn sync_tree(root: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(root)?;
    if meta.is_dir() {
        for entry in fs::read_dir(root)? {
            sync_tree(&entry?.path())?;
        }
        sync_dir(root)
    } else if meta.is_file() {
        fs::File::open(root)?.sync_all()
    } else {
        Ok(())
    }
}

/// Flushes a directory's entries (a rename into it) to disk. A no-op where directories
/// cannot be opened (Windows).
///
/// # Errors
///
/// The I/O error of `fsync`.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Why a file will not be replaced. Nothing has been written when this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// A device, FIFO, socket or directory: renaming over it would replace the node (a
    /// device becomes a text file), and reading a FIFO blocks.
    #[error("{} is {what}, not a regular file", .path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is instead ([`describe_file_type`](crate::describe_file_type)).
        what: &'static str,
    },
    /// Mode without any write bit: the user marked it as not to be changed.
    #[error("{} is read-only (mode {mode:04o})", .path.display())]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// More than one name: the rename would leave the other names with the old text.
    #[error("{} has {links} hard links", .path.display())]
    HardLinked {
        /// The file.
        path: PathBuf,
        /// How many names it has.
        links: u64,
    },
    /// It cannot be examined.
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Checks that `file` may be replaced: absent (it will be created), or a regular file, or a
/// symlink to one (or a dangling one, whose target will be created), writable by mode, with
/// one name. Follows links, so `/proc/self/fd/0` is judged by what it points at.
///
/// # Errors
///
/// [`TargetError`] saying why not.
pub fn check_target(file: &Path) -> Result<(), TargetError> {
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
            what: crate::describe_file_type(meta.file_type()),
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
/// file's permissions are kept, and a new file gets the mode `touch` would give it (0666
/// less the umask: 0644 under the usual 022); a symlink is written through (its target is replaced, the
/// link stays); the directory is synced after the rename. A temporary file left by a killed
/// run is removed first. The target is checked with [`check_target`] first and again just
/// before the rename, so a device or FIFO put in its place meanwhile is not replaced.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let file = dir.path().join("AGENTS.md");
/// skills_core::durable::write_atomically(&file, b"# Agents\n")?;
/// assert_eq!(std::fs::read(&file)?, b"# Agents\n");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// A [`TargetError`] (as an I/O error of kind `Other`) or the I/O error of the write;
/// the file is unchanged either way.
pub fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
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
    let _ = remove_stale(dir, &base);
    let old = std::fs::metadata(file).ok().map(|meta| meta.permissions());
    let prefix = temp_prefix(&base);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    // tempfile's own default is 0600, for secrets; this is the user's file. The mode is
    // given at creation, so the kernel applies the umask (as `touch` or an editor would):
    // a new file is 0666 & !umask, and a replacement is never, even for a moment, more
    // open than the file it replaces.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = old.as_ref().map_or(0o666, |p| p.mode() & 0o777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // The umask may have taken bits the old file had (and creation drops setuid and the
    // like): its exact mode is put back.
    if let Some(old) = old {
        std::fs::set_permissions(tmp.path(), old)?;
    }
    check_target(file).map_err(refuse)?;
    tmp.persist(file).map_err(|e| e.error)?;
    sync_dir(dir)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn stale_entries_of_dead_processes_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let dead = t.path().join(".skills-install-999999999-abc");
        fs::create_dir_all(dead.join("x")).unwrap();
        fs::write(dead.join("x/SKILL.md"), "old").unwrap();
        fs::write(t.path().join(".skills-install-999999998-f.tmp"), "x").unwrap();
        let mine = t.path().join(temp_prefix(".skills-install-") + "live");
        fs::create_dir(&mine).unwrap();
        let other = t.path().join(".skills-install-notapid-x");
        fs::create_dir(&other).unwrap();
        let removed = remove_stale(t.path(), ".skills-install-").unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(removed, 2);
            assert!(!dead.exists());
        } else {
            assert_eq!(removed, 0);
        }
        assert!(mine.exists() && other.exists());
    }

    /// A new file gets the mode a plain `File::create` gets under this process's umask
    /// (not tempfile's 0600); an existing file keeps its exact mode.
    #[cfg(unix)]
    #[test]
    fn new_files_follow_the_umask_and_old_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| {
            format!(
                "{:04o}",
                fs::metadata(p).unwrap().permissions().mode() & 0o7777
            )
        };
        let t = tempfile::tempdir().unwrap();
        let reference = t.path().join("touched");
        fs::File::create(&reference).unwrap();
        let new = t.path().join("AGENTS.md");
        write_atomically(&new, b"x").unwrap();
        assert_eq!(mode(&new), mode(&reference));
        for kept in [0o600, 0o664, 0o755] {
            fs::set_permissions(&new, fs::Permissions::from_mode(kept)).unwrap();
            write_atomically(&new, b"y").unwrap();
            assert_eq!(mode(&new), format!("{kept:04o}"));
        }
    }

    #[cfg(unix)]
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
