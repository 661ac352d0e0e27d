//! Find the Agent Skills installed for a project and a user: which skills exist, which one
//! wins when two share a name, and what was skipped and why.
//!
//! A skill is a directory holding a `SKILL.md` anywhere up to [`MAX_DEPTH`] levels below a
//! root, or a flat `NAME.md` file directly in a root. The [`Roots`] are searched in priority
//! order: by default the project's `.agents/skills`, `.agent/skills` and `.claude/skills`
//! from the current directory up to the repository root, then the same three under the home
//! directory ([`Roots::default_for`]); or explicit directories ([`Roots::resolve`]).
//!
//! [`Index::scan`] builds an in-memory index of every skill's metadata (in parallel; on the
//! calling thread with [`Index::scan_with`] and [`ScanOptions::parallel`]);
//! [`Index::refresh`] keeps it fresh with `stat` calls, re-reading only what changed;
//! [`Roots::find`] resolves one id without a full scan. Nothing here prints or fails as a whole: unreadable roots,
//! malformed skills and shadowed skills become [`Warning`]s.
//!
//! The rules, in short:
//!
//! - **Walk.** Below each root, directories are entered up to [`MAX_DEPTH`] levels, hidden ones
//!   included; `.git` and `node_modules` are skipped, `.gitignore` and `.ignore` files inside
//!   the root are honoured, symlinks are followed (a loop is reported, not followed), and a
//!   root with more than [`MAX_DIRS`] directories that are not skills is cut short. A
//!   directory holding `SKILL.md` (any letter case, the exact name preferred) is a skill and
//!   is not searched further: skills nested in it are its files.
//! - **Flat skills.** A `NAME.md` directly in a root is a skill with the id `NAME`, unless it
//!   is one of [`NOT_FLAT_SKILLS`]. It needs frontmatter with a `description`; `name` defaults
//!   to the id. Without frontmatter it is skipped with a warning.
//! - **Identity.** The id is the directory name (a flat file's stem), compared ignoring case.
//!   Two paths that reach the same directory through symlinks (npm `skills` links
//!   `.claude/skills/x` to `.agents/skills/x`) are one skill, listed where first found.
//!   A different skill with the same id later in priority order is *shadowed*: kept in
//!   [`Index::all`] with [`Skill::shadowed_by`] set, and reported. Within one root a directory
//!   beats a flat file, then the shallower, then the first in byte order.
//! - **Tolerance.** A skill whose file cannot be read or parsed, or lacks a `name` or
//!   `description`, is skipped ([`Index::skipped`]) with the reason, and does not shadow
//!   anything.
//! - **Untrusted names.** Names given by users or models are looked up in the index
//!   ([`Index::get`]) or validated as one path component ([`Roots::find`]); they are never
//!   joined onto a root unchecked.
//!
//! ```
//! use skills_discovery::{Index, Roots, Scope};
//!
//! let home = tempfile::tempdir()?;
//! let project = tempfile::tempdir()?;
//! let write = |dir: &std::path::Path, text: &str| -> std::io::Result<()> {
//!     std::fs::create_dir_all(dir)?;
//!     std::fs::write(dir.join("SKILL.md"), text)
//! };
//! // A global skill, overridden by the project's, and a global skill of its own.
//! let pdf = "---\nname: pdf\ndescription: Fill PDF forms. Use when the user sends a PDF.\n---\n# PDF\n";
//! write(&home.path().join(".claude/skills/pdf"), pdf)?;
//! write(&project.path().join(".agents/skills/pdf"), pdf)?;
//! write(
//!     &home.path().join(".agents/skills/git"),
//!     "---\nname: git\ndescription: Commit and push. Use when asked to commit.\n---\n# Git\n",
//! )?;
//!
//! let roots = Roots::default_for(project.path(), Some(home.path()));
//! let index = Index::scan(&roots);
//! let ids: Vec<&str> = index.skills().iter().map(|s| s.id.as_str()).collect();
//! assert_eq!(ids, ["pdf", "git"]); // the project's first
//! assert_eq!(index.get("PDF").map(|s| s.scope), Some(Scope::Project));
//! assert_eq!(index.all().count(), 3); // the global `pdf` is kept, marked shadowed
//! // (an identical copy in the same scope, as `skills add --copy` makes, would be the one
//! // skill, listed once)
//! assert_eq!(index.suggest("gti"), ["git"]);
//!
//! // The body is read on demand.
//! assert_eq!(index.get("git").unwrap().body()?, "# Git\n");
//!
//! // One skill, without scanning everything.
//! assert_eq!(roots.find("Git").map(|s| s.name), Some("git".to_string()));
//! assert!(roots.find("../git").is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use skills_frontmatter::{ParseError, SkillMd};

use skills_core::ReadError;

mod files;
mod ignore_files;
mod index;
mod meta;
mod roots;
mod walk;
mod watch;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

pub use files::{FileGroup, SkillFile};
pub use index::{Changed, Index, ScanOptions};
pub use meta::NOT_FLAT_SKILLS;
pub use roots::{Root, Roots, SKILL_DIRS, Scope, project_root};
pub use walk::{MAX_DEPTH, MAX_DIRS};
pub use watch::{Changes, DirWatch};

/// One skill: what the index keeps about it. The body is read on demand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Skill {
    /// The directory's name (a flat skill's file stem): what lookups match, ignoring case.
    pub id: String,
    /// The frontmatter `name` (a flat skill without one: its id).
    pub name: String,
    /// The frontmatter `description`.
    pub description: String,
    /// The `SKILL.md` (or flat `NAME.md`), as found under its root (not canonicalized).
    pub skill_md: PathBuf,
    /// The base directory: the `SKILL.md`'s directory (a flat skill's root).
    pub dir: PathBuf,
    /// The root it was found in.
    pub root: PathBuf,
    /// The root's scope.
    pub scope: Scope,
    /// For a skill shadowed by one with the same id in a higher-priority root (or earlier in
    /// the same root), that skill's `SKILL.md`.
    pub shadowed_by: Option<PathBuf>,
    /// Whether this is a flat `NAME.md` file rather than a directory.
    pub flat: bool,
}

impl Skill {
    /// The whole file, as text.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError::Io`] when it cannot be read, [`DiscoveryError::Parse`] when it is
    /// over [`skills_frontmatter::MAX_FILE_BYTES`] or not UTF-8.
    pub fn read(&self) -> Result<String, DiscoveryError> {
        let bytes = self.read_bytes()?;
        String::from_utf8(bytes).map_err(|e| DiscoveryError::Parse {
            path: self.skill_md.clone(),
            source: ParseError::InvalidUtf8 {
                offset: e.utf8_error().valid_up_to(),
            },
        })
    }

    /// The file, read and parsed now (it may have changed since the scan).
    ///
    /// # Errors
    ///
    /// As [`Skill::read`], and [`DiscoveryError::Parse`] when the frontmatter does not parse.
    pub fn parse(&self) -> Result<SkillMd, DiscoveryError> {
        SkillMd::parse_vec(self.read_bytes()?).map_err(|source| DiscoveryError::Parse {
            path: self.skill_md.clone(),
            source,
        })
    }

    /// The Markdown after the frontmatter, read and parsed now.
    ///
    /// # Errors
    ///
    /// As [`Skill::parse`].
    pub fn body(&self) -> Result<String, DiscoveryError> {
        Ok(self.parse()?.body().to_string())
    }

    /// Every file of the skill, relative to its directory and sorted, under the one file
    /// policy of [`skills_core::files`] (what `skills package` holds and `skills lint`
    /// checks): `.git`, `node_modules`, `__pycache__`, `.DS_Store` and `*.pyc` are left
    /// out, so are files its `.gitignore`, `.ignore` or `.skillignore` files exclude, files
    /// the enclosing git repository ignores, and secret-looking names (`.env*`, `*.pem`,
    /// `id_*`) unless an ignore file includes them with `!`. Symlinks are followed while
    /// they stay inside the skill; one that leaves it or loops is not listed. A flat
    /// skill's only file is itself.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError::Io`] when the skill directory cannot be read.
    pub fn files(&self) -> Result<Vec<SkillFile>, DiscoveryError> {
        files::list(self)
    }

    fn read_bytes(&self) -> Result<Vec<u8>, DiscoveryError> {
        let path = || self.skill_md.clone();
        let root = self.skill_md.parent().unwrap_or(&self.skill_md);
        skills_core::fs::read_bounded_in(&self.skill_md, root, skills_frontmatter::MAX_FILE_BYTES)
            .map_err(|e| match e {
                ReadError::TooLarge { size, limit } => DiscoveryError::Parse {
                    path: path(),
                    source: ParseError::TooLarge { size, limit },
                },
                ReadError::Io(source) => DiscoveryError::Io {
                    path: path(),
                    source,
                },
                other => DiscoveryError::Io {
                    path: path(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        other.to_string(),
                    ),
                },
            })
    }
}

/// Why reading a skill's files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is too large, not UTF-8, or its frontmatter does not parse.
    #[error("{}: {source}", path.display())]
    Parse {
        /// The skill file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: ParseError,
    },
}

/// A skill left out of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// Its id (directory name or file stem).
    pub id: String,
    /// Its `SKILL.md` or flat file.
    pub path: PathBuf,
    /// The root it is in.
    pub root: PathBuf,
    /// The root's scope.
    pub scope: Scope,
    /// Whether it is a flat `NAME.md` file.
    pub flat: bool,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Why a skill was left out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Unreadable(String),
    /// The file is too large or not UTF-8, or its frontmatter does not parse.
    #[error(transparent)]
    Parse(ParseError),
    /// A flat `NAME.md` without frontmatter: a plain document, not a skill.
    #[error("no frontmatter, so not a skill (a flat skill file starts with `---`)")]
    NoFrontmatter,
    /// A skill directory's `SKILL.md` has no `name`.
    #[error("missing name")]
    MissingName,
    /// No `description`.
    #[error("missing description")]
    MissingDescription,
    /// `name` or `description` is not a string.
    #[error("`{0}` is not a string")]
    NotString(&'static str),
    /// `name` or `description` is empty.
    #[error("`{0}` is empty")]
    Empty(&'static str),
}

/// Something the user should hear about; never a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A root exists but cannot be read (or is not a directory).
    UnreadableRoot {
        /// The root.
        root: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A directory below a root cannot be read; its skills are missing.
    UnreadableDir {
        /// The directory.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A symlink leads back to a directory that contains it; it is not followed.
    SymlinkLoop {
        /// The symlink.
        path: PathBuf,
    },
    /// A root holds more than [`MAX_DIRS`] directories that are not skills; the rest of it was
    /// not searched.
    TooManyDirs {
        /// The root.
        root: PathBuf,
        /// [`MAX_DIRS`].
        limit: usize,
    },
    /// A `SKILL.md` directly in a root: roots hold skill directories, so it is ignored.
    SkillMdInRoot {
        /// The file.
        path: PathBuf,
    },
    /// A `SKILL.md` that is not a regular file (a directory, a FIFO): never opened, and its
    /// directory is not a skill.
    SkillMdNotAFile {
        /// The `SKILL.md`.
        path: PathBuf,
    },
    /// A skill was left out (also in [`Index::skipped`]).
    Skipped(Skipped),
    /// A skill is hidden by one with the same id that has priority.
    Shadowed {
        /// The id.
        id: String,
        /// The hidden skill's file.
        path: PathBuf,
        /// The winning skill's file.
        by: PathBuf,
    },
}

impl Warning {
    /// The file or directory the warning is about.
    pub fn path(&self) -> &Path {
        match self {
            Warning::UnreadableRoot { root: path, .. }
            | Warning::TooManyDirs { root: path, .. }
            | Warning::UnreadableDir { path, .. }
            | Warning::SymlinkLoop { path }
            | Warning::SkillMdInRoot { path }
            | Warning::SkillMdNotAFile { path }
            | Warning::Shadowed { path, .. } => path,
            Warning::Skipped(s) => &s.path,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::UnreadableRoot { root, message } => {
                write!(f, "cannot read skills root {}: {message}", root.display())
            }
            Warning::UnreadableDir { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            Warning::TooManyDirs { root, limit } => write!(
                f,
                "{}: more than {limit} directories without skills; the rest was not searched",
                root.display()
            ),
            Warning::SymlinkLoop { path } => {
                write!(f, "{}: symlink loop, not followed", path.display())
            }
            Warning::SkillMdInRoot { path } => write!(
                f,
                "{}: a SKILL.md directly in a skills root is ignored; put it in a directory named after the skill",
                path.display()
            ),
            Warning::SkillMdNotAFile { path } => write!(
                f,
                "{}: not a regular file, so its directory is not a skill; make SKILL.md a file",
                path.display()
            ),
            Warning::Skipped(s) => {
                write!(
                    f,
                    "skipped skill `{}` ({}): {}",
                    s.id,
                    s.path.display(),
                    s.reason
                )
            }
            Warning::Shadowed { id, path, by } => write!(
                f,
                "skill `{id}` at {} is shadowed by {}",
                path.display(),
                by.display()
            ),
        }
    }
}
