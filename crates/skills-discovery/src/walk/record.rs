//! What a walk of one root remembers: every directory it passed, with its stamp, its ignore
//! files and what it held, and every skill file with what parsing it gave. From that alone a
//! refresh tells, with `stat` calls, whether anything changed ([`RootWalk::unchanged`]), the
//! watch learns what to watch ([`RootWalk::watch_targets`]), and the next walk reuses what
//! did not change.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::Gitignore;
use rayon::prelude::*;
use skills_core::{Identity, Stamp};

use super::MAX_DIRS;
use crate::ignore_files::IgnoreFiles;
use crate::meta::Meta;
use crate::watch::Target;
use crate::{SkipReason, Warning};

/// A skill file found by the walk (a `SKILL.md` or a flat `NAME.md`) and what parsing it gave.
///
/// Kept for every skill for as long as the index lives, so it holds nothing that can be
/// derived from its path: the skill's directory is the path's parent (a flat skill's root)
/// and its id follows from the path ([`crate::meta::skill_id`]).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) stamp: Stamp,
    pub(crate) flat: bool,
    pub(crate) depth: usize,
    /// The skill directory's identity (for a flat skill, the file's).
    pub(crate) identity: Identity,
    /// Boxed: most skills parse, and the error is much larger than what they keep.
    pub(crate) outcome: Result<Meta, Box<SkipReason>>,
}

impl Entry {
    /// The skill's directory, from the file's `path`.
    pub(crate) fn dir(path: &Path) -> &Path {
        path.parent().unwrap_or(Path::new(""))
    }
}

/// A directory the walk went through. One is kept per skill directory for as long as the
/// index lives, so what most directories lack (ignore files, warnings) is boxed apart.
#[derive(Debug)]
pub(super) struct DirRecord {
    pub(super) stamp: Stamp,
    pub(super) depth: usize,
    pub(super) kind: DirKind,
    /// Ignore files and warnings, for the few directories that have any.
    pub(super) extra: Option<Box<DirExtra>>,
}

#[derive(Debug, Default)]
pub(super) struct DirExtra {
    /// This directory's own `.gitignore` and `.ignore`, combined.
    pub(super) ignore: Option<Arc<Gitignore>>,
    /// The ignore files read, with their stamps.
    pub(super) ignore_files: IgnoreFiles,
    warnings: Vec<Warning>,
}

impl DirRecord {
    pub(super) fn ignore(&self) -> Option<Arc<Gitignore>> {
        self.extra.as_ref().and_then(|e| e.ignore.clone())
    }

    pub(super) fn ignore_files(&self) -> &[(PathBuf, Option<Stamp>)] {
        self.extra.as_ref().map_or(&[], |e| &e.ignore_files)
    }

    fn warnings(&self) -> &[Warning] {
        self.extra.as_ref().map_or(&[], |e| &e.warnings)
    }

    pub(super) fn warn(&mut self, warning: Warning) {
        self.extra.get_or_insert_default().warnings.push(warning);
    }
}

#[derive(Debug)]
pub(super) enum DirKind {
    /// Holds a skill file (this name, some spelling of `SKILL.md`): a skill, not entered
    /// further.
    Skill(OsString),
    /// Searched (boxed: few directories are).
    Plain(Box<Children>),
    /// Could not be read (a warning says why).
    Unreadable,
}

/// What a searched directory held, by name: the subdirectories visited, the flat skill
/// files (in a root only), and the entries that could not be stat'ed (dangling symlinks),
/// which may start to resolve.
#[derive(Debug, Default)]
pub(super) struct Children {
    pub(super) dirs: Vec<OsString>,
    pub(super) files: Vec<OsString>,
    pub(super) dangling: Vec<OsString>,
}

/// Everything one walk of one root saw.
#[derive(Debug, Default)]
pub(crate) struct RootWalk {
    /// The root's stamp; `None` when it does not exist or cannot be stat'ed.
    pub(super) root_stamp: Option<Stamp>,
    pub(super) root_warning: Option<Warning>,
    /// The walk stopped at [`MAX_DIRS`].
    pub(super) truncated: bool,
    /// Every directory walked, in the order visited. Vectors at rest (a refresh that walks
    /// again indexes them by path for the walk's duration): an index lives as long as its
    /// process, and hash tables of large records would hold twice the memory.
    pub(super) dirs: Vec<(PathBuf, DirRecord)>,
    /// Skill files, with their paths.
    pub(crate) entries: Vec<(PathBuf, Entry)>,
}

impl RootWalk {
    /// Whether every directory, ignore file and skill file this walk saw is as it was, by
    /// `stat` alone (in parallel). A root that appeared or disappeared is a change.
    ///
    /// A skill directory is not stat'ed itself: what matters in it is its `SKILL.md`, which
    /// is (and whose disappearance is noticed that way).
    /// `parallel`: whether the `stat` calls are spread over rayon's thread pool.
    pub(crate) fn unchanged(&self, root: &Path, parallel: bool) -> bool {
        let now = fs::metadata(root).ok().map(|m| Stamp::of(&m));
        if now != self.root_stamp {
            return false;
        }
        let dir_same = |(path, record): &(PathBuf, DirRecord)| match &record.kind {
            DirKind::Skill(_) => true,
            DirKind::Unreadable => Stamp::read(path) == Some(record.stamp),
            DirKind::Plain(children) => {
                Stamp::read(path) == Some(record.stamp)
                    && ignore_files_same(record)
                    && children.dangling.iter().all(|d| !path.join(d).exists())
            }
        };
        let entry_same = |(path, entry): &(PathBuf, Entry)| Stamp::read(path) == Some(entry.stamp);
        if parallel {
            self.dirs.par_iter().all(dir_same) && self.entries.par_iter().all(entry_same)
        } else {
            self.dirs.iter().all(dir_same) && self.entries.iter().all(entry_same)
        }
    }

    /// What to watch so that every change [`RootWalk::unchanged`] would notice leaves a
    /// kernel event (see `watch.rs`); `None` when that cannot be promised (a dangling
    /// symlink may start to resolve through a change anywhere).
    pub(crate) fn watch_targets<'a>(&'a self, root: &'a Path) -> Option<Vec<Target<'a>>> {
        let mut targets = Vec::with_capacity(self.dirs.len() + self.entries.len() + 1);
        for (path, record) in &self.dirs {
            if let DirKind::Plain(children) = &record.kind
                && !children.dangling.is_empty()
            {
                return None;
            }
            targets.push(Target::all(path));
        }
        // A skill file's own changes are reported on its directory's watch, unless it is a
        // symlink (its target's directory is elsewhere) or has other hard links (a write
        // through another name is reported on that name's directory): watch those directly.
        targets.extend(
            self.entries
                .iter()
                .map(|(path, _)| path)
                .filter(|path| needs_own_watch(path))
                .map(|path| Target::all(path)),
        );
        targets.extend(crate::watch::ancestor_target(root));
        Some(targets)
    }

    /// The warnings about the root and its directories, in path order.
    pub(crate) fn warnings(&self, root: &Path) -> Vec<Warning> {
        let mut dirs: Vec<(&PathBuf, &DirRecord)> = self
            .dirs
            .iter()
            .filter(|(_, r)| !r.warnings().is_empty())
            .map(|(p, r)| (p, r))
            .collect();
        dirs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut warnings: Vec<Warning> = self
            .root_warning
            .iter()
            .chain(dirs.into_iter().flat_map(|(_, r)| r.warnings().iter()))
            .cloned()
            .collect();
        if self.truncated {
            warnings.push(Warning::TooManyDirs {
                root: root.to_path_buf(),
                limit: MAX_DIRS,
            });
        }
        warnings
    }
}

/// Whether a skill file must be watched itself, not only through its directory.
fn needs_own_watch(path: &Path) -> bool {
    match fs::symlink_metadata(path) {
        #[cfg(unix)]
        Ok(meta) => {
            use std::os::unix::fs::MetadataExt as _;
            meta.file_type().is_symlink() || meta.nlink() > 1
        }
        #[cfg(not(unix))]
        Ok(meta) => meta.file_type().is_symlink(),
        // Gone since the walk: its directory's watch reports that.
        Err(_) => false,
    }
}

/// Whether a directory's ignore files are as they were: editing one in place changes the
/// rules without touching the directory's own stamp.
pub(super) fn ignore_files_same(record: &DirRecord) -> bool {
    record
        .ignore_files()
        .iter()
        .all(|(path, stamp)| Stamp::read(path) == *stamp)
}
