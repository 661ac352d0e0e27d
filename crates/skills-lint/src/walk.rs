//! Finding skills under the paths given to lint, with one parallel walk per path.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{WalkBuilder, WalkState};

/// A regular file seen by the walk.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    pub(crate) path: PathBuf,
    pub(crate) size: u64,
}

/// An entry of the walk that is not a regular file but matters to lint.
#[derive(Debug, Clone)]
pub(crate) struct Odd {
    pub(crate) path: PathBuf,
    pub(crate) kind: OddKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OddKind {
    /// A `SKILL.md` (any case) that is not a regular file: what it is instead.
    NotAFile(&'static str),
    /// A symlink inside a skill whose target (canonical) lies outside the skill; not followed.
    LinkOut(PathBuf),
}

/// What one walk found: regular files and odd entries, each sorted by path bytes.
#[derive(Debug)]
pub(crate) struct Walked {
    pub(crate) files: Arc<[FileEntry]>,
    pub(crate) odd: Vec<Odd>,
}

/// A skill directory and every file under it, sorted by path.
#[derive(Debug)]
pub(crate) struct SkillDir {
    pub(crate) dir: PathBuf,
    /// The file whose name is `SKILL.md` in any letter case (`SKILL.md` preferred).
    pub(crate) skill_md: PathBuf,
    /// Set when `skill_md` is not a regular file (a directory, a FIFO...): what it is.
    pub(crate) not_a_file: Option<&'static str>,
    /// Symlinks in the skill that point outside it (not followed), with their targets.
    pub(crate) links_out: Vec<(PathBuf, PathBuf)>,
    /// The whole walk, shared by every skill found in it.
    all: Arc<[FileEntry]>,
    /// This skill's files as the walk saw them: one contiguous run of the sorted walk.
    range: Range<usize>,
    /// This skill's files under the one file policy ([`SkillDir::with_policy`]).
    listed: Option<Vec<FileEntry>>,
}

impl SkillDir {
    /// Every file of the skill, sorted by path bytes: the policy's listing once
    /// [`SkillDir::with_policy`] made it, else every file the walk saw under the directory.
    pub(crate) fn files(&self) -> &[FileEntry] {
        match &self.listed {
            Some(files) => files,
            None => self.all.get(self.range.clone()).unwrap_or(&[]),
        }
    }

    /// The skill with its files listed by `skills_core::files`, the listing `skills package`
    /// holds and `skills show` and the MCP server serve: a file a `.skillignore` leaves out
    /// is not there for a link to point at. The walk still found the skill; when the
    /// directory cannot be listed, its files stay the walk's.
    pub(crate) fn with_policy(&self) -> SkillDir {
        let mut listed = None;
        let mut links_out = self.links_out.clone();
        if let Ok(listing) = skills_core::files::list(&self.dir) {
            listed = Some(
                listing
                    .files
                    .into_iter()
                    .map(|f| FileEntry {
                        path: self.dir.join(&f.path),
                        size: f.size,
                    })
                    .collect(),
            );
            links_out = listing
                .problems
                .into_iter()
                .filter_map(|p| match p {
                    skills_core::files::Problem::SymlinkEscape { link, target } => {
                        Some((self.dir.join(link), target))
                    }
                    _ => None,
                })
                .collect();
            links_out.sort_unstable_by(|a: &(PathBuf, PathBuf), b| key(&a.0).cmp(key(&b.0)));
        }
        SkillDir {
            dir: self.dir.clone(),
            skill_md: self.skill_md.clone(),
            not_a_file: self.not_a_file,
            links_out,
            all: Arc::clone(&self.all),
            range: self.range.clone(),
            listed,
        }
    }
}

/// The bytes paths are sorted and compared by.
pub(crate) fn key(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// `dir` with a trailing separator: every path under `dir`, and nothing else, starts with it.
pub(crate) fn prefix(dir: &Path) -> Vec<u8> {
    let mut p = key(dir).to_vec();
    if !p.ends_with(std::path::MAIN_SEPARATOR_STR.as_bytes()) {
        p.extend_from_slice(std::path::MAIN_SEPARATOR_STR.as_bytes());
    }
    p
}

pub(crate) use skills_core::layout::is_skill_md;

/// Walks `root` (honouring `.gitignore` and `.ignore`, entering hidden directories, skipping
/// `.git` and `node_modules`, following symlinks; a symlink loop is reported by `ignore` and
/// skipped) and returns every regular file, sorted.
///
/// Two kinds of entry are set aside instead: a `SKILL.md` that is not a regular file (a
/// directory, a FIFO: never opened, so a FIFO cannot block the walk), and a symlink inside a
/// skill whose target lies outside that skill (not followed, so a link to `/usr` does not
/// walk `/usr`; `skills package` refuses such links too).
pub(crate) fn files_under(root: &Path, threads: usize) -> Walked {
    let found = Mutex::new(Vec::new());
    let odd = Arc::new(Mutex::new(Vec::new()));
    let (links, owned_root) = (Arc::clone(&odd), root.to_path_buf());
    WalkBuilder::new(root)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        .git_global(false)
        .threads(threads)
        .filter_entry(move |e| {
            let name = e.file_name();
            if e.depth() > 0 && skills_core::layout::is_skipped_dir(name) {
                return false;
            }
            if e.depth() > 0
                && e.path_is_symlink()
                && !is_skill_md(name)
                && let Some(target) = link_out_of_skill(&owned_root, e.path())
            {
                if let Ok(mut odd) = links.lock() {
                    odd.push(Odd {
                        path: e.path().to_path_buf(),
                        kind: OddKind::LinkOut(target),
                    });
                }
                return false;
            }
            true
        })
        .build_parallel()
        .run(|| {
            let mut local = Batch {
                files: Vec::new(),
                sink: &found,
            };
            let odd = Arc::clone(&odd);
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                let Some(file_type) = entry.file_type() else {
                    return WalkState::Continue;
                };
                if file_type.is_file() {
                    let size = entry.metadata().map_or(0, |m| m.len());
                    local.push(FileEntry {
                        path: entry.into_path(),
                        size,
                    });
                } else if entry.depth() > 0
                    && is_skill_md(entry.file_name())
                    && let Ok(mut odd) = odd.lock()
                {
                    odd.push(Odd {
                        path: entry.into_path(),
                        kind: OddKind::NotAFile(skills_core::describe_file_type(file_type)),
                    });
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_default();
    // Byte order, not `Path`'s component order: it is much cheaper, and the files under any
    // directory still form one contiguous run (they share the prefix `dir/`).
    files.sort_unstable_by(|a, b| key(&a.path).cmp(key(&b.path)));
    let mut odd = odd
        .lock()
        .map(|mut o| std::mem::take(&mut *o))
        .unwrap_or_default();
    odd.sort_unstable_by(|a, b| key(&a.path).cmp(key(&b.path)));
    Walked {
        files: files.into(),
        odd,
    }
}

/// For a symlink at `link` (under `root`) inside a skill directory: its canonical target when
/// that lies outside the skill. `None` when the link is not inside a skill, stays inside it,
/// or does not resolve (the walker reports broken links itself).
fn link_out_of_skill(root: &Path, link: &Path) -> Option<PathBuf> {
    let skill = link
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join("SKILL.md").is_file() || d.join("skill.md").is_file())?;
    let skill = std::fs::canonicalize(skill).ok()?;
    let target = std::fs::canonicalize(link).ok()?;
    (!target.starts_with(&skill)).then_some(target)
}

/// A walker thread's files, handed to the shared list in batches (so the lock is rare) and
/// when the thread's visitor is dropped.
struct Batch<'a> {
    files: Vec<FileEntry>,
    sink: &'a Mutex<Vec<FileEntry>>,
}

impl Batch<'_> {
    fn push(&mut self, file: FileEntry) {
        self.files.push(file);
        if self.files.len() >= 256 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Ok(mut all) = self.sink.lock() {
            all.append(&mut self.files);
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Groups sorted files into skills: every directory that holds a `SKILL.md` (any case, a
/// regular file preferred, then the exact name) is a skill, and owns every file below it,
/// including those of skills nested inside it.
pub(crate) fn skills_in(walked: &Walked) -> Vec<SkillDir> {
    let files = &walked.files;
    // (dir, SKILL.md, what it is when not a regular file)
    let mut markers: Vec<(&Path, &Path, Option<&'static str>)> = Vec::new();
    for f in files.iter() {
        if let (Some(name), Some(dir)) = (f.path.file_name(), f.path.parent())
            && is_skill_md(name)
        {
            markers.push((dir, &f.path, None));
        }
    }
    for o in &walked.odd {
        if let (OddKind::NotAFile(what), Some(dir)) = (&o.kind, o.path.parent()) {
            markers.push((dir, &o.path, Some(*what)));
        }
    }
    let mut skills: Vec<SkillDir> = Vec::new();
    let mut index: HashMap<&Path, usize> = HashMap::new();
    for (dir, md, not_a_file) in markers {
        if let Some(existing) = index.get(dir).and_then(|&i| skills.get_mut(i)) {
            let better = match (existing.not_a_file, not_a_file) {
                (Some(_), None) => true,
                (None, Some(_)) => false,
                _ => md.file_name().is_some_and(|n| n == "SKILL.md"),
            };
            if better {
                existing.skill_md = md.to_path_buf();
                existing.not_a_file = not_a_file;
            }
            continue;
        }
        let prefix = prefix(dir);
        let start = files.partition_point(|e| key(&e.path) < prefix.as_slice());
        let end = start
            + files.get(start..).map_or(0, |rest| {
                rest.partition_point(|e| key(&e.path).starts_with(&prefix))
            });
        let links_out = walked
            .odd
            .iter()
            .filter(|o| key(&o.path).starts_with(&prefix))
            .filter_map(|o| match &o.kind {
                OddKind::LinkOut(target) => Some((o.path.clone(), target.clone())),
                OddKind::NotAFile(_) => None,
            })
            .collect();
        index.insert(dir, skills.len());
        skills.push(SkillDir {
            dir: dir.to_path_buf(),
            skill_md: md.to_path_buf(),
            not_a_file,
            links_out,
            all: Arc::clone(files),
            range: start..end,
            listed: None,
        });
    }
    skills
}
