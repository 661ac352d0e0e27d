//! What a `stat` tells about a file or directory, to notice that it changed.

use std::fs::Metadata;
use std::path::Path;
use std::time::SystemTime;

/// The parts of a file's metadata that change when the file (or, for a directory, the list of
/// its entries) changes. On Unix the inode and the change time are included too, so a file
/// replaced by another one, or a `chmod`, is noticed even within one mtime tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    is_dir: bool,
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
    #[cfg(unix)]
    ctime: (i64, i64),
}

impl Stamp {
    pub(crate) fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Self {
            modified: meta.modified().ok(),
            len: meta.len(),
            is_dir: meta.is_dir(),
            #[cfg(unix)]
            dev: meta.dev(),
            #[cfg(unix)]
            ino: meta.ino(),
            #[cfg(unix)]
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// `stat` (following symlinks), or `None` when the path cannot be stat'ed.
    pub(crate) fn read(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().map(|m| Self::of(&m))
    }

    /// The size in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// What a path resolves to, so two paths reaching one directory or file through symlinks are
/// known to be the same. On Unix it is the device and inode (directories cannot be hard
/// linked, so for a directory this is exactly "the same canonical path"); elsewhere it is the
/// canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Identity(
    #[cfg(unix)] (u64, u64),
    #[cfg(not(unix))] std::path::PathBuf,
);

impl Identity {
    #[cfg(unix)]
    pub(crate) fn of(_path: &Path, stamp: &Stamp) -> Self {
        Self((stamp.dev, stamp.ino))
    }

    #[cfg(not(unix))]
    pub(crate) fn of(path: &Path, _stamp: &Stamp) -> Self {
        Self(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}
