//! Walking one root: which directories and files are skills, and what each one says.
//!
//! Its own walk rather than `ignore::WalkBuilder`, because it must stop at a skill directory,
//! stack each directory's ignore matchers itself, and record every directory it passed
//! ([`record`]) so that a refresh can walk again without listing what did not change.
//!
//! A full scan and a refresh are the same walk. The refresh hands the previous walk's records
//! over; a directory whose stamp (and ignore files) did not change is not read again (its
//! recorded children are visited instead), and a skill file whose stamp did not change is not
//! read or parsed again.

mod record;

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

use crate::ignore_files::{is_ignored, read_ignore_files};
use crate::meta::{Flat, flat_file, parse_meta, skill_id};
use crate::{SkipReason, Warning};
use record::{Children, DirKind, DirRecord, ignore_files_same};

pub(crate) use record::{Entry, RootWalk};

/// How deep below a root a skill directory may be: `root/a/SKILL.md` is at depth 1,
/// `root/1/2/3/4/5/6/SKILL.md` at depth 6 (found), one more level is not searched.
pub const MAX_DEPTH: usize = 6;

/// How many directories that are not skills one root's walk lists at most; past that the
/// walk stops and warns ([`Warning::TooManyDirs`]), so pointing at a huge tree stays cheap.
/// Skill directories do not count: 10,000 installed skills are fine.
pub const MAX_DIRS: usize = 10_000;

/// Fewer pending parses than this are done on the calling thread.
const PARALLEL_PARSES: usize = 64;

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
            // A link to a directory above the root leads back over it: a loop too.
            ancestors: Identity::of_dirs_above(root),
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
}

fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
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

#[cfg(test)]
mod tests {
    use std::fs;

    use super::MAX_DIRS;
    use crate::test_support::{custom, ids, md, skill, tmp, write};
    use crate::{Index, Warning};

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_reported_not_followed() {
        use std::os::unix::fs::symlink;
        let t = tmp();
        let root = t.path().join("skills");
        fs::create_dir_all(root.join("group")).unwrap();
        symlink("..", root.join("group/up")).unwrap();
        skill(&root.join("group/real"));
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.skills()), ["real"]);
        assert!(
            index
                .warnings()
                .iter()
                .any(|w| matches!(w, Warning::SymlinkLoop { path } if path.ends_with("group/up")))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_directory_above_the_root_is_a_loop() {
        use std::os::unix::fs::symlink;
        let t = tmp();
        let root = t.path().join("skills");
        fs::create_dir_all(&root).unwrap();
        skill(&root.join("real"));
        // Beside the root: reached only through the link, which leads over the root too
        // (a link to `/` walked all of `/` before).
        skill(&t.path().join("elsewhere/other"));
        symlink(t.path(), root.join("up")).unwrap();
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.skills()), ["real"]);
        assert!(
            index
                .warnings()
                .iter()
                .any(|w| matches!(w, Warning::SymlinkLoop { path } if path.ends_with("skills/up")))
        );
    }

    #[cfg(unix)]
    #[test]
    fn skill_md_that_is_not_a_file_is_a_warning_and_never_opened() {
        use std::path::PathBuf;
        let t = tmp();
        let root = t.path().join("skills");
        fs::create_dir_all(root.join("dir/SKILL.md")).unwrap();
        fs::create_dir_all(root.join("pipe")).unwrap();
        let fifo = root.join("pipe/SKILL.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        let index = Index::scan(&custom(&[&root]));
        assert!(index.skills().is_empty());
        let mut expected = vec![root.join("dir/SKILL.md")];
        if made {
            expected.push(fifo);
        }
        let mut warned: Vec<PathBuf> = index
            .warnings()
            .iter()
            .filter(|w| matches!(w, Warning::SkillMdNotAFile { .. }))
            .map(|w| w.path().to_path_buf())
            .collect();
        warned.sort();
        assert_eq!(warned, expected);
        assert!(
            Warning::SkillMdNotAFile {
                path: root.join("dir/SKILL.md")
            }
            .to_string()
            .ends_with("dir/SKILL.md: not a regular file, so its directory is not a skill; make SKILL.md a file")
        );
    }

    #[test]
    fn depth_is_bounded_and_nested_skills_belong_to_their_parent() {
        let t = tmp();
        let root = t.path().join("skills");
        skill(&root.join("1/2/3/4/5/six"));
        skill(&root.join("a/b/c/d/e/f/seven"));
        skill(&root.join("outer"));
        skill(&root.join("outer/inner"));
        skill(&root.join("outer/scripts/x/inner2"));
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.skills()), ["outer", "six"]);
        assert_eq!(index.get("six").unwrap().dir, root.join("1/2/3/4/5/six"));
    }

    #[test]
    fn huge_trees_without_skills_are_cut_short() {
        let t = tmp();
        let root = t.path().join("skills");
        skill(&root.join("a-skill"));
        for i in 0..=MAX_DIRS {
            fs::create_dir_all(root.join(format!("d{i:05}"))).unwrap();
        }
        skill(&root.join("zz/late"));
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.skills()), ["a-skill"]);
        assert_eq!(
            index.warnings(),
            [Warning::TooManyDirs {
                root: root.clone(),
                limit: MAX_DIRS
            }]
        );
    }

    #[test]
    fn staging_directories_of_killed_runs_are_not_skills() {
        let t = tmp();
        let root = t.path().join("skills");
        skill(&root.join("real"));
        // What a killed `skills install` or `skills new` leaves behind until its next run.
        write(
            &root.join(".skills-install-4242-abc/real/SKILL.md"),
            &md("real", "Half-installed copy."),
        );
        write(
            &root.join(".skills-new-4242-xyz/SKILL.md"),
            &md("draft", "Half-made skill."),
        );
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.all()), ["real"]);
        assert!(index.warnings().is_empty(), "{:?}", index.warnings());
    }
}
