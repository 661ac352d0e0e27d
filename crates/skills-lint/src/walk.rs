//! Finding skills under the paths given to lint, with one parallel walk per path.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

/// A regular file seen by the walk.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    pub(crate) path: PathBuf,
    pub(crate) size: u64,
}

/// A skill directory and every file under it, sorted by path.
#[derive(Debug)]
pub(crate) struct SkillDir {
    pub(crate) dir: PathBuf,
    /// The file whose name is `SKILL.md` in any letter case (`SKILL.md` preferred).
    pub(crate) skill_md: PathBuf,
    pub(crate) files: Vec<FileEntry>,
}

/// Whether a file name is some spelling of `SKILL.md`.
pub(crate) fn is_skill_md(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.eq_ignore_ascii_case("skill.md"))
}

/// Walks `root` (honouring `.gitignore` and `.ignore`, entering hidden directories, skipping
/// `.git` and `node_modules`, following symlinks; a symlink loop is reported by `ignore` and
/// skipped) and returns every regular file, sorted.
pub(crate) fn files_under(root: &Path, threads: usize) -> Vec<FileEntry> {
    let found = Mutex::new(Vec::new());
    WalkBuilder::new(root)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        .git_global(false)
        .threads(threads)
        .filter_entry(|e| {
            let name = e.file_name();
            !(e.depth() > 0 && (name == ".git" || name == "node_modules"))
        })
        .build_parallel()
        .run(|| {
            let mut local = Batch {
                files: Vec::new(),
                sink: &found,
            };
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    let size = entry.metadata().map_or(0, |m| m.len());
                    local.push(FileEntry {
                        path: entry.into_path(),
                        size,
                    });
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    files
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

/// Groups sorted files into skills: every directory that holds a `SKILL.md` (any case) is a
/// skill, and owns every file below it, including those of skills nested inside it.
pub(crate) fn skills_in(files: &[FileEntry]) -> Vec<SkillDir> {
    let mut skills: Vec<SkillDir> = Vec::new();
    for f in files {
        let (Some(name), Some(dir)) = (f.path.file_name(), f.path.parent()) else {
            continue;
        };
        if !is_skill_md(name) {
            continue;
        }
        if let Some(existing) = skills.iter_mut().rev().find(|s| s.dir == dir) {
            // Both `SKILL.md` and another spelling: the exact name wins.
            if name == "SKILL.md" {
                existing.skill_md = f.path.clone();
            }
            continue;
        }
        let start = files.partition_point(|e| e.path.as_path() < dir);
        let end = start
            + files
                .get(start..)
                .map_or(0, |rest| rest.partition_point(|e| e.path.starts_with(dir)));
        skills.push(SkillDir {
            dir: dir.to_path_buf(),
            skill_md: f.path.clone(),
            files: files
                .get(start..end)
                .map(<[FileEntry]>::to_vec)
                .unwrap_or_default(),
        });
    }
    skills
}
