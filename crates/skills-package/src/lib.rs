//! Package Agent Skills into archives, and unpack and install them safely.
//!
//! - [`collect`] lists the files of a skill directory as they would be packaged: sorted,
//!   the one file policy of [`skills_core::files`] (without `.git`, `__pycache__`,
//!   `node_modules`, `.DS_Store`, `*.pyc`, what the skill's `.gitignore`, `.ignore` or
//!   `.skillignore` files exclude, what the enclosing git repository ignores inside the skill,
//!   and secret-looking names unless included with `!`); symlinks that leave the skill or
//!   loop are refused. [`collect_all`] also says which files it skipped and why.
//! - [`package`] writes `<id>.skill` (or `<id>.zip`): a deflate ZIP whose entries are
//!   `<id>/<relative path>`, the layout of Anthropic's packager. Archives are byte-reproducible
//!   (sorted entries, a fixed timestamp, normalised permissions, no directory entries) and
//!   written atomically.
//! - [`unpack`] is the reverse for untrusted archives: it refuses zip-slip names, symlink
//!   entries and zip bombs (bounded entry count and size, counted while extracting).
//! - [`install_dir`] moves an unpacked skill into a skills root, atomically, never replacing
//!   an existing skill unless asked.
//!
//! The crate never prints and never lints: the `skills` command lints before packaging and
//! before installing.
//!
//! ```
//! use skills_package::{Format, Limits, Options, package, unpack};
//!
//! let dir = tempfile::tempdir()?;
//! let skill = dir.path().join("hello");
//! std::fs::create_dir(&skill)?;
//! std::fs::write(skill.join("SKILL.md"), "---\nname: hello\ndescription: Greets.\n---\nHi.\n")?;
//!
//! let out = tempfile::tempdir()?;
//! let packaged = package(&skill, out.path(), &Options::default())?;
//! assert_eq!(packaged.archive, out.path().join("hello.skill"));
//! assert_eq!(packaged.entries[0].path, "SKILL.md");
//!
//! // Packaging again gives the same bytes.
//! let first = std::fs::read(&packaged.archive)?;
//! package(&skill, out.path(), &Options::default())?;
//! assert_eq!(first, std::fs::read(&packaged.archive)?);
//!
//! // And it unpacks to the same tree.
//! let dest = tempfile::tempdir()?;
//! let file = std::fs::File::open(&packaged.archive)?;
//! let id = unpack(file, &packaged.archive, dest.path(), &Limits::default())?;
//! assert_eq!(id, "hello");
//! assert!(dest.path().join("hello/SKILL.md").is_file());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::PathBuf;

mod install;
mod pack;
mod swap;
mod unpack;

pub use install::install_dir;
pub use pack::{
    Collected, Entry, Format, Options, Packaged, SkipReason, Skipped, collect, collect_all,
    collect_flat, package, package_flat, skill_id, source_date_epoch,
};
pub use unpack::{ArchiveFile, Limits, read, unpack};

/// Why packaging, unpacking or installing failed. Each variant names the path or entry and
/// says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackageError {
    /// The skill directory does not exist or is not a directory.
    #[error("{}: not a skill directory (pass the directory that holds SKILL.md)", path.display())]
    NotADirectory {
        /// The path as given.
        path: PathBuf,
    },
    /// A symlink in the skill points outside it.
    #[error(
        "{}: symlink points outside the skill, to {}; copy the file into the skill or remove the link",
        link.display(), target.display()
    )]
    SymlinkEscape {
        /// The link.
        link: PathBuf,
        /// Where it points (resolved).
        target: PathBuf,
    },
    /// A symlink in the skill points to one of its own ancestors.
    #[error("{}: symlink loop (points to a directory that contains it); remove the link", link.display())]
    SymlinkLoop {
        /// The link.
        link: PathBuf,
    },
    /// Symlinks that lead to each other and never to a file or directory (`a -> b -> a`).
    #[error("{}: a cycle of symlinks that never reaches a file or directory; remove one of the links", link.display())]
    SymlinkCycle {
        /// The link.
        link: PathBuf,
    },
    /// A symlink whose target does not exist.
    #[error("{}: broken symlink; fix or remove it", link.display())]
    BrokenSymlink {
        /// The link.
        link: PathBuf,
    },
    /// A file name that is not valid UTF-8 cannot be stored portably.
    #[error("{}: file name is not valid UTF-8; rename it", path.display())]
    NonUtf8Name {
        /// The file.
        path: PathBuf,
    },
    /// An ignore file that cannot be parsed.
    #[error("{}: invalid ignore file: {message}", path.display())]
    Ignore {
        /// The `.gitignore` or `.skillignore`.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The archive could not be written or read as a ZIP file.
    #[error("{}: {source}", path.display())]
    Zip {
        /// The archive.
        path: PathBuf,
        /// The ZIP error.
        source: zip::result::ZipError,
    },
    /// An archive entry whose name could escape the destination or is not portable.
    #[error(
        "archive entry `{name}` is refused: {reason} (the archive may be malicious; do not install it)"
    )]
    UnsafeEntry {
        /// The entry name, lossily decoded.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The archive holds more entries than allowed.
    #[error("archive has {count} entries; at most {limit} are allowed (is it a skill?)")]
    TooManyEntries {
        /// Entries in the archive.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The archive expands to more bytes than allowed (a zip bomb, or not a skill).
    #[error("archive expands to more than {limit} bytes; refused (zip bomb or not a skill)")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The archive's entries are not all under one top-level directory.
    #[error(
        "archive layout not recognised: {reason}; a skill archive holds `<id>/SKILL.md` and its files under one top-level directory"
    )]
    Layout {
        /// What is wrong.
        reason: String,
    },
    /// The skill is already installed and replacing it was not asked for.
    #[error("{}: a skill with this id is already installed; pass --force to replace it", path.display())]
    AlreadyInstalled {
        /// The installed skill's directory.
        path: PathBuf,
    },
}

impl PackageError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
