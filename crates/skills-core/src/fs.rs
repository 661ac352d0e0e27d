//! Reading and watching files without trusting them: bounded reads that never block on a
//! FIFO, and stamps that notice a change.

use std::fs::{self, Metadata};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What a file type is, for a message: "a named pipe (FIFO)", "a socket", "a character
/// device", "a block device", "a directory", else "not a regular file".
pub fn describe_file_type(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// `base.join(name)` in one allocation: [`Path::join`] copies `base` into a buffer of its
/// own length and then grows it for `name`, a second allocation and copy that a walk pays
/// for every file it meets.
///
/// ```
/// use std::path::Path;
///
/// let p = skills_core::fs::join(Path::new("skills/pdf"), "SKILL.md");
/// assert_eq!(p, Path::new("skills/pdf").join("SKILL.md"));
/// ```
pub fn join(base: &Path, name: impl AsRef<Path>) -> PathBuf {
    let name = name.as_ref();
    let mut path = PathBuf::with_capacity(base.as_os_str().len() + 1 + name.as_os_str().len());
    path.push(base);
    path.push(name);
    path
}

/// The user's state directory for `skills`: `$XDG_STATE_HOME/skills` (when absolute), else
/// `~/.local/state/skills`. What the user's own lock and trust decisions live in: state, not
/// configuration, and never the project's.
///
/// ```
/// # if std::env::var_os("XDG_STATE_HOME").is_none() {
/// let dir = skills_core::fs::state_dir(std::path::Path::new("/home/u"));
/// assert_eq!(dir, std::path::Path::new("/home/u/.local/state/skills"));
/// # }
/// ```
#[must_use]
pub fn state_dir(home: &Path) -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.join(".local/state"))
        .join("skills")
}

/// Why [`read_bounded`] read nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file is larger than the limit; it was not read.
    #[error("{size} bytes, over the limit of {limit}")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not a regular file (a FIFO would block the reader forever; a device never ends).
    #[error("{0}, not a regular file")]
    NotAFile(&'static str),
    /// A symbolic link to a file outside the directory it was read in; not followed.
    #[error("a symlink to {}, outside the skill; it is not read", target.display())]
    Outside {
        /// Where the link leads.
        target: PathBuf,
    },
    /// The file cannot be opened or read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Reads the regular file at `path` (symlinks followed) if it holds at most `limit` bytes.
///
/// The size is checked before reading, and the read stops one byte past the limit, so a
/// file that grows while it is read cannot make it allocate more. FIFOs, sockets and
/// devices are refused before they are opened (opening a FIFO blocks until a writer
/// comes).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("SKILL.md");
/// std::fs::write(&path, "---\nname: x\n---\n")?;
/// assert_eq!(skills_core::read_bounded(&path, 1024)?.len(), 16);
/// assert!(matches!(
///     skills_core::read_bounded(&path, 8),
///     Err(skills_core::ReadError::TooLarge { size: 16, limit: 8 })
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`ReadError`]: too large, not a regular file, or an I/O error.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = fs::metadata(path)?;
    read_checked(path, &meta, limit, fs::OpenOptions::new().read(true))
}

/// Reads `path`, whose metadata is `meta`, if it is a regular file of at most `limit` bytes,
/// opening it with `options`; the read stops one byte past the limit.
fn read_checked(
    path: &Path,
    meta: &Metadata,
    limit: u64,
    options: &fs::OpenOptions,
) -> Result<Vec<u8>, ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotAFile(describe_file_type(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let file = options.open(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let read = bytes.len() as u64;
    if read > limit {
        return Err(ReadError::TooLarge { size: read, limit });
    }
    Ok(bytes)
}

/// [`read_bounded`] for a file of the directory `root` (a skill): a symbolic link is read
/// only when it resolves inside `root` (both canonical), so a `SKILL.md` that links to
/// `/proc/self/environ` or a secret elsewhere is never read, and never quoted back.
///
/// It costs what [`read_bounded`] does when the file is not a link: an `lstat` in place of
/// its `stat`, and the open refuses a link put there since (`O_NOFOLLOW`).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let skill = dir.path().join("pdf");
/// std::fs::create_dir(&skill)?;
/// std::fs::write(dir.path().join("secret"), "TOKEN=1")?;
/// # #[cfg(unix)] {
/// std::os::unix::fs::symlink(dir.path().join("secret"), skill.join("SKILL.md"))?;
/// assert!(matches!(
///     skills_core::fs::read_bounded_in(&skill.join("SKILL.md"), &skill, 1024),
///     Err(skills_core::ReadError::Outside { .. })
/// ));
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`ReadError::Outside`] for a link out of `root`, else as [`read_bounded`].
pub fn read_bounded_in(path: &Path, root: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        let target = fs::canonicalize(path)?;
        let inside = fs::canonicalize(root).is_ok_and(|root| target.starts_with(root));
        if !inside {
            return Err(ReadError::Outside { target });
        }
        return read_bounded(path, limit);
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed());
    }
    read_checked(path, &meta, limit, &options)
}

/// Reads a regular file the caller has just listed with its size (a walk, a listing), as
/// listed: never more than `size` bytes, nor more than `limit + 1` (for the caller's parser
/// to refuse by its length). Unlike [`read_bounded`] it asks the file system nothing
/// before opening the file (no second `stat` per file, a measurable share of a lint run
/// over a large tree), so it must not be given a path that could be a FIFO.
///
/// Stopping at the listed size also spares the `read` that would only find the end of the
/// file: one system call per file instead of two. A file that grew since it was listed is
/// read at the length the listing gave it; one that shrank ends early. A caller that does
/// not know the size passes `u64::MAX`: the file is then read up to the limit.
///
/// # Errors
///
/// The I/O error of opening or reading.
pub fn read_listed(path: &Path, size: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = fs::File::open(path)?;
    let cap = size.min(limit.saturating_add(1));
    // A size not known is not reserved up front: the buffer grows with what is there.
    let reserve = if size == u64::MAX { 0 } else { cap };
    let mut bytes = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0));
    // `Take` answers the end itself once `cap` bytes are in: no system call for it.
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The parts of a file's metadata that change when the file (or, for a directory, the list
/// of its entries) changes. On Unix the inode and the change time are included too, so a
/// file replaced by another one, or a `chmod`, is noticed even within one mtime tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
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
    /// The stamp of `meta`.
    pub fn of(meta: &Metadata) -> Self {
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
    pub fn read(path: &Path) -> Option<Self> {
        fs::metadata(path).ok().map(|m| Self::of(&m))
    }

    /// The size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the size is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What a path resolves to, so two paths reaching one directory or file through symlinks
/// are known to be the same. On Unix it is the device and inode (directories cannot be
/// hard linked, so for a directory this is exactly "the same canonical path"); elsewhere it
/// is the canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity(
    #[cfg(unix)] (u64, u64),
    #[cfg(not(unix))] std::path::PathBuf,
);

impl Identity {
    /// The identity of `path`, whose stamp is `stamp`.
    #[cfg(unix)]
    pub fn of(_path: &Path, stamp: &Stamp) -> Self {
        Self((stamp.dev, stamp.ino))
    }

    /// The identity of `path`, whose stamp is `stamp`.
    #[cfg(not(unix))]
    pub fn of(path: &Path, _stamp: &Stamp) -> Self {
        Self(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

impl Identity {
    /// The identities of the directories above `dir` once its symlinks are resolved, from
    /// its parent up to `/`. A symlink below `dir` to one of them leads back over `dir`: a
    /// walk that knows only the directories it entered would walk all of that directory
    /// (all of `/`, for a link to `/`) before it met `dir` again and saw the loop.
    pub fn of_dirs_above(dir: &Path) -> Vec<Self> {
        let Ok(real) = fs::canonicalize(dir) else {
            return Vec::new();
        };
        real.ancestors()
            .skip(1)
            .filter_map(|d| Stamp::read(d).map(|stamp| Self::of(d, &stamp)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn bounded_reads_refuse_what_is_too_large_or_not_a_file() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("f");
        fs::write(&file, "12345").unwrap();
        assert_eq!(read_bounded(&file, 5).unwrap(), b"12345");
        assert!(matches!(
            read_bounded(&file, 4),
            Err(ReadError::TooLarge { size: 5, limit: 4 })
        ));
        assert!(matches!(
            read_bounded(t.path(), 4),
            Err(ReadError::NotAFile("a directory"))
        ));
        assert!(matches!(
            read_bounded(&t.path().join("missing"), 4),
            Err(ReadError::Io(_))
        ));
    }

    #[test]
    fn a_listed_file_is_read_as_listed_and_never_past_the_limit() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("f");
        fs::write(&file, "1234567890").unwrap();
        // As listed; grown since (listed at 4); shrunk since (listed at 20).
        assert_eq!(read_listed(&file, 10, 100).unwrap(), b"1234567890");
        assert_eq!(read_listed(&file, 4, 100).unwrap(), b"1234");
        assert_eq!(read_listed(&file, 20, 100).unwrap(), b"1234567890");
        // Over the limit, or of a size not known: one byte past the limit, for the caller
        // to refuse by its length.
        assert_eq!(read_listed(&file, 10, 5).unwrap(), b"123456");
        assert_eq!(read_listed(&file, u64::MAX, 5).unwrap(), b"123456");
        assert_eq!(read_listed(&file, u64::MAX, 100).unwrap(), b"1234567890");
        assert!(read_listed(&t.path().join("missing"), 1, 5).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        assert!(matches!(
            read_bounded(&fifo, 4),
            Err(ReadError::NotAFile("a named pipe (FIFO)"))
        ));
    }

    #[test]
    fn a_stamp_changes_with_the_file() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("f");
        fs::write(&file, "a").unwrap();
        let before = Stamp::read(&file).unwrap();
        fs::write(&file, "ab").unwrap();
        let after = Stamp::read(&file).unwrap();
        assert_ne!(before, after);
        assert_eq!(after.len(), 2);
        assert_eq!(Identity::of(&file, &before), Identity::of(&file, &after));
    }

    #[test]
    fn the_dirs_above_a_dir_are_its_resolved_ancestors() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("a/b");
        fs::create_dir_all(&real).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, t.path().join("link")).unwrap();
        #[cfg(unix)]
        let dir = t.path().join("link");
        #[cfg(not(unix))]
        let dir = real.clone();
        let above = Identity::of_dirs_above(&dir);
        let id = |p: &Path| Identity::of(p, &Stamp::read(p).unwrap());
        // Through the link: `a`, the temporary directory and `/`, never the directory itself.
        assert!(above.contains(&id(&t.path().join("a"))));
        assert!(above.contains(&id(t.path())));
        assert!(above.contains(&id(Path::new("/"))));
        assert!(!above.contains(&id(&real)));
        assert!(Identity::of_dirs_above(&t.path().join("missing")).is_empty());
    }
}
