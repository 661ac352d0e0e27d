//! Walking one root: which directories and files are skills, what each one says, and what the
//! walk saw, so that a later refresh can tell what changed with `stat` calls alone.
//!
//! A full scan and a refresh are the same walk. The refresh hands the previous walk's records
//! over; a directory whose stamp (and ignore files) did not change is not read again (its
//! recorded children are visited instead), and a skill file whose stamp did not change is not
//! read or parsed again.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::Gitignore;
use rayon::prelude::*;
use skills_core::durable::STAGING_PREFIXES;
use skills_core::layout::is_skill_md;
use skills_core::{Identity, Stamp};

use crate::ignore_files::{IgnoreFiles, is_ignored, read_ignore_files};
use crate::meta::{Flat, Meta, flat_file, parse_meta, skill_id};
use crate::watch::Target;
use crate::{SkipReason, Warning};

/// How deep below a root a skill directory may be: `root/a/SKILL.md` is at depth 1,
/// `root/1/2/3/4/5/6/SKILL.md` at depth 6 (found), one more level is not searched.
pub const MAX_DEPTH: usize = 6;

/// How many directories that are not skills one root's walk lists at most; past that the
/// walk stops and warns ([`Warning::TooManyDirs`]), so pointing at a huge tree stays cheap.
/// Skill directories do not count: 10,000 installed skills are fine.
pub const MAX_DIRS: usize = 10_000;

/// Fewer pending parses than this are done on the calling thread.
const PARALLEL_PARSES: usize = 64;

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
struct DirRecord {
    stamp: Stamp,
    depth: usize,
    kind: DirKind,
    /// Ignore files and warnings, for the few directories that have any.
    extra: Option<Box<DirExtra>>,
}

#[derive(Debug, Default)]
struct DirExtra {
    /// This directory's own `.gitignore` and `.ignore`, combined.
    ignore: Option<Arc<Gitignore>>,
    /// The ignore files read, with their stamps.
    ignore_files: IgnoreFiles,
    warnings: Vec<Warning>,
}

impl DirRecord {
    fn ignore(&self) -> Option<Arc<Gitignore>> {
        self.extra.as_ref().and_then(|e| e.ignore.clone())
    }

    fn ignore_files(&self) -> &[(PathBuf, Option<Stamp>)] {
        self.extra.as_ref().map_or(&[], |e| &e.ignore_files)
    }

    fn warnings(&self) -> &[Warning] {
        self.extra.as_ref().map_or(&[], |e| &e.warnings)
    }

    fn warn(&mut self, warning: Warning) {
        self.extra.get_or_insert_default().warnings.push(warning);
    }
}

#[derive(Debug)]
enum DirKind {
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
struct Children {
    dirs: Vec<OsString>,
    files: Vec<OsString>,
    dangling: Vec<OsString>,
}

/// Everything one walk of one root saw.
#[derive(Debug, Default)]
pub(crate) struct RootWalk {
    /// The root's stamp; `None` when it does not exist or cannot be stat'ed.
    root_stamp: Option<Stamp>,
    root_warning: Option<Warning>,
    /// The walk stopped at [`MAX_DIRS`].
    truncated: bool,
    /// Every directory walked, in the order visited. Vectors at rest (a refresh that walks
    /// again indexes them by path for the walk's duration): an index lives as long as its
    /// process, and hash tables of large records would hold twice the memory.
    dirs: Vec<(PathBuf, DirRecord)>,
    /// Skill files, with their paths.
    pub(crate) entries: Vec<(PathBuf, Entry)>,
}

/// Counters of the work walks did (directories listed, files parsed), for tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WalkStats {
    pub(crate) read_dirs: usize,
    pub(crate) parsed: usize,
}

impl RootWalk {
    /// Walks `root`, reusing what `previous` (an earlier walk of the same root) recorded for
    /// directories and files whose stamps did not change.
    /// `parallel`: whether many skill files are parsed on rayon's thread pool.
    pub(crate) fn walk(
        root: &Path,
        previous: Option<RootWalk>,
        stats: &mut WalkStats,
        parallel: bool,
    ) -> Self {
        let previous = previous.unwrap_or_default();
        let mut walker = Walker {
            old_dirs: previous.dirs.into_iter().collect(),
            old_entries: previous.entries.into_iter().collect(),
            dirs: Vec::new(),
            entries: Vec::new(),
            pending: Vec::new(),
            ignores: Vec::new(),
            ancestors: Vec::new(),
            plain_dirs: 0,
            truncated: false,
            stats,
            parallel,
        };
        let (root_stamp, root_warning) = match fs::metadata(root) {
            Ok(meta) if meta.is_dir() => {
                let stamp = Stamp::of(&meta);
                walker.visit(root, 0, stamp, false);
                (Some(stamp), None)
            }
            Ok(meta) => (
                Some(Stamp::of(&meta)),
                Some(Warning::UnreadableRoot {
                    root: root.to_path_buf(),
                    message: "not a directory".to_string(),
                }),
            ),
            Err(e) if is_missing(&e) => (None, None),
            Err(e) => (
                None,
                Some(Warning::UnreadableRoot {
                    root: root.to_path_buf(),
                    message: e.to_string(),
                }),
            ),
        };
        walker.parse_pending();
        let (mut dirs, mut entries) = (walker.dirs, walker.entries);
        dirs.shrink_to_fit();
        entries.shrink_to_fit();
        Self {
            root_stamp,
            root_warning,
            truncated: walker.truncated,
            dirs,
            entries,
        }
    }

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

fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

fn ignore_files_same(record: &DirRecord) -> bool {
    record
        .ignore_files()
        .iter()
        .all(|(path, stamp)| Stamp::read(path) == *stamp)
}

/// A skill file to read and parse once the walk is over.
struct Pending {
    path: PathBuf,
    entry: Entry,
}

struct Walker<'s> {
    old_dirs: HashMap<PathBuf, DirRecord>,
    old_entries: HashMap<PathBuf, Entry>,
    dirs: Vec<(PathBuf, DirRecord)>,
    entries: Vec<(PathBuf, Entry)>,
    pending: Vec<Pending>,
    /// The ignore matchers of the directories from the root to the current one.
    ignores: Vec<Arc<Gitignore>>,
    /// The identities of the directories from the root to the current one (symlink loops).
    ancestors: Vec<Identity>,
    /// Directories searched (not skills), against [`MAX_DIRS`].
    plain_dirs: usize,
    truncated: bool,
    stats: &'s mut WalkStats,
    parallel: bool,
}

impl Walker<'_> {
    /// Visits a directory, reusing its previous record when nothing about it changed.
    /// `force` says an ancestor's ignore rules changed, so recorded child lists are stale.
    fn visit(&mut self, dir: &Path, depth: usize, stamp: Stamp, force: bool) {
        let old = self.old_dirs.remove(dir);
        let record = match old {
            Some(old)
                if !force
                    && old.stamp == stamp
                    && old.depth == depth
                    && ignore_files_same(&old) =>
            {
                self.reuse(dir, old)
            }
            old => self.read(dir, depth, stamp, force, old.as_ref()),
        };
        self.dirs.push((dir.to_path_buf(), record));
    }

    /// A directory that did not change: its recorded children are visited again (they may
    /// have changed themselves) without reading the directory.
    fn reuse(&mut self, dir: &Path, old: DirRecord) -> DirRecord {
        match &old.kind {
            DirKind::Skill(name) => {
                let skill_md = dir.join(name);
                match fs::metadata(&skill_md) {
                    Ok(meta) if meta.is_file() => {
                        let identity = Identity::of(dir, &old.stamp);
                        let stamp = Stamp::of(&meta);
                        self.skill_file(&skill_md, old.depth, false, identity, stamp);
                        old
                    }
                    _ => self.read(dir, old.depth, old.stamp, true, Some(&old)),
                }
            }
            DirKind::Unreadable => old,
            DirKind::Plain(children) => {
                // Stat every child first: anything unexpected (a child gone or changed kind
                // behind a symlink, a dangling link that now resolves, a new loop) and the
                // directory is read again instead.
                let mut child_dirs = Vec::with_capacity(children.dirs.len());
                for name in &children.dirs {
                    let d = dir.join(name);
                    match fs::metadata(&d) {
                        Ok(meta) if meta.is_dir() => {
                            let stamp = Stamp::of(&meta);
                            if self.ancestors.contains(&Identity::of(&d, &stamp)) {
                                return self.read(dir, old.depth, old.stamp, true, Some(&old));
                            }
                            child_dirs.push((d, stamp));
                        }
                        _ => return self.read(dir, old.depth, old.stamp, true, Some(&old)),
                    }
                }
                let mut child_files = Vec::with_capacity(children.files.len());
                for name in &children.files {
                    let f = dir.join(name);
                    match fs::metadata(&f) {
                        Ok(meta) if meta.is_file() => child_files.push((f, Stamp::of(&meta))),
                        _ => return self.read(dir, old.depth, old.stamp, true, Some(&old)),
                    }
                }
                if children.dangling.iter().any(|d| dir.join(d).exists()) {
                    return self.read(dir, old.depth, old.stamp, true, Some(&old));
                }
                self.plain_dirs += 1;
                let pushed = self.enter(dir, &old.stamp, old.ignore());
                for (d, stamp) in child_dirs {
                    self.visit(&d, old.depth + 1, stamp, false);
                }
                for (f, stamp) in child_files {
                    let identity = Identity::of(&f, &stamp);
                    self.skill_file(&f, old.depth, true, identity, stamp);
                }
                self.leave(pushed);
                old
            }
        }
    }

    fn enter(&mut self, dir: &Path, stamp: &Stamp, ignore: Option<Arc<Gitignore>>) -> bool {
        self.ancestors.push(Identity::of(dir, stamp));
        match ignore {
            Some(ignore) => {
                self.ignores.push(ignore);
                true
            }
            None => false,
        }
    }

    fn leave(&mut self, pushed_ignore: bool) {
        self.ancestors.pop();
        if pushed_ignore {
            self.ignores.pop();
        }
    }

    /// Reads a directory: is it a skill? If not, which subdirectories and flat files does it
    /// hold? `old` is its previous record, whose ignore files tell whether the rules changed.
    fn read(
        &mut self,
        dir: &Path,
        depth: usize,
        stamp: Stamp,
        force: bool,
        old: Option<&DirRecord>,
    ) -> DirRecord {
        let mut record = DirRecord {
            stamp,
            depth,
            kind: DirKind::Unreadable,
            extra: None,
        };
        let identity = Identity::of(dir, &stamp);
        if depth >= 1 {
            let skill_md = dir.join("SKILL.md");
            if let Ok(meta) = fs::metadata(&skill_md) {
                if meta.is_file() {
                    self.skill_file(&skill_md, depth, false, identity, Stamp::of(&meta));
                    record.kind = DirKind::Skill(OsString::from("SKILL.md"));
                    return record;
                }
                // A directory or FIFO named SKILL.md: said, never opened.
                record.warn(Warning::SkillMdNotAFile { path: skill_md });
            }
        }
        if self.plain_dirs >= MAX_DIRS {
            self.truncated = true;
            record.kind = DirKind::Plain(Box::default());
            return record;
        }
        self.plain_dirs += 1;
        self.stats.read_dirs += 1;
        let mut names: Vec<OsString> = match fs::read_dir(dir) {
            Ok(read) => read.filter_map(|e| e.ok().map(|e| e.file_name())).collect(),
            Err(e) => {
                record.warn(if depth == 0 {
                    Warning::UnreadableRoot {
                        root: dir.to_path_buf(),
                        message: e.to_string(),
                    }
                } else {
                    Warning::UnreadableDir {
                        path: dir.to_path_buf(),
                        message: e.to_string(),
                    }
                });
                return record;
            }
        };
        names.sort_unstable();
        if depth >= 1 {
            // `SKILL.md` in another letter case (the exact name was tried above).
            for name in names.iter().filter(|n| is_skill_md(n)) {
                let skill_md = dir.join(name);
                if let Ok(meta) = fs::metadata(&skill_md)
                    && meta.is_file()
                {
                    self.skill_file(&skill_md, depth, false, identity, Stamp::of(&meta));
                    record.kind = DirKind::Skill(name.clone());
                    return record;
                }
            }
        }
        let (ignore, ignore_files) = read_ignore_files(dir, &names);
        let rules_changed = old.is_none_or(|o| o.ignore_files() != ignore_files.as_slice());
        if ignore.is_some() || !ignore_files.is_empty() {
            let extra = record.extra.get_or_insert_default();
            extra.ignore = ignore.clone();
            extra.ignore_files = ignore_files;
        }

        let mut children = Children::default();
        let pushed = self.enter(dir, &stamp, ignore);
        for name in &names {
            if skills_core::layout::is_skipped_dir(name)
                || STAGING_PREFIXES
                    .iter()
                    .any(|p| name.to_str().is_some_and(|n| n.starts_with(p)))
            {
                continue;
            }
            let path = dir.join(name);
            let meta = match fs::metadata(&path) {
                Ok(meta) => meta,
                Err(_) => {
                    if depth < MAX_DEPTH {
                        children.dangling.push(name.clone());
                    }
                    continue;
                }
            };
            if is_ignored(&self.ignores, &path, meta.is_dir()) {
                continue;
            }
            if meta.is_dir() {
                if depth >= MAX_DEPTH {
                    continue;
                }
                let child = Stamp::of(&meta);
                if self.ancestors.contains(&Identity::of(&path, &child)) {
                    record.warn(Warning::SymlinkLoop { path });
                    continue;
                }
                self.visit(&path, depth + 1, child, force || rules_changed);
                children.dirs.push(name.clone());
            } else if depth == 0 && meta.is_file() {
                match flat_file(name) {
                    Flat::Skill => {
                        let child = Stamp::of(&meta);
                        let identity = Identity::of(&path, &child);
                        self.skill_file(&path, 0, true, identity, child);
                        children.files.push(name.clone());
                    }
                    Flat::SkillMd => record.warn(Warning::SkillMdInRoot { path }),
                    Flat::Not => {}
                }
            }
        }
        self.leave(pushed);
        record.kind = DirKind::Plain(Box::new(children));
        record
    }

    /// Records a skill file (its directory is the path's parent), reusing its previous
    /// entry when its stamp did not change.
    fn skill_file(
        &mut self,
        path: &Path,
        depth: usize,
        flat: bool,
        identity: Identity,
        stamp: Stamp,
    ) {
        // The id follows from the path and `flat`, so an entry at the same path with the
        // same `flat` has the same id.
        if let Some(mut old) = self.old_entries.remove(path)
            && old.stamp == stamp
            && old.flat == flat
        {
            old.identity = identity;
            old.depth = depth;
            self.entries.push((path.to_path_buf(), old));
            return;
        }
        self.pending.push(Pending {
            path: path.to_path_buf(),
            entry: Entry {
                stamp,
                flat,
                depth,
                identity,
                outcome: Err(Box::new(SkipReason::MissingDescription)),
            },
        });
    }

    /// Reads and parses the new and changed skill files, in parallel when there are many.
    fn parse_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.stats.parsed += pending.len();
        let parse = |p: Pending| {
            let mut entry = p.entry;
            let id = skill_id(&p.path, Entry::dir(&p.path), entry.flat);
            entry.outcome =
                parse_meta(&p.path, entry.stamp.len(), entry.flat, &id).map_err(Box::new);
            (p.path, entry)
        };
        if !self.parallel || pending.len() < PARALLEL_PARSES {
            self.entries.extend(pending.into_iter().map(parse));
        } else {
            let parsed: Vec<(PathBuf, Entry)> = pending.into_par_iter().map(parse).collect();
            self.entries.extend(parsed);
        }
    }
}
