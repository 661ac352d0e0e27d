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

/// A skill directory and every file under it, sorted by path.
#[derive(Debug)]
pub(crate) struct SkillDir {
    pub(crate) dir: PathBuf,
    /// The file whose name is `SKILL.md` in any letter case (`SKILL.md` preferred).
    pub(crate) skill_md: PathBuf,
    /// The whole walk, shared by every skill found in it.
    all: Arc<[FileEntry]>,
    /// This skill's files: one contiguous run of the sorted walk.
    range: Range<usize>,
}

impl SkillDir {
    /// Every file under the skill directory, sorted by path bytes.
    pub(crate) fn files(&self) -> &[FileEntry] {
        self.all.get(self.range.clone()).unwrap_or(&[])
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

/// Whether a file name is some spelling of `SKILL.md`.
pub(crate) fn is_skill_md(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.eq_ignore_ascii_case("skill.md"))
}

/// Walks `root` (honouring `.gitignore` and `.ignore`, entering hidden directories, skipping
/// `.git` and `node_modules`, following symlinks; a symlink loop is reported by `ignore` and
/// skipped) and returns every regular file, sorted.
pub(crate) fn files_under(root: &Path, threads: usize) -> Arc<[FileEntry]> {
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
    // Byte order, not `Path`'s component order: it is much cheaper, and the files under any
    // directory still form one contiguous run (they share the prefix `dir/`).
    files.sort_unstable_by(|a, b| key(&a.path).cmp(key(&b.path)));
    files.into()
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
pub(crate) fn skills_in(files: &Arc<[FileEntry]>) -> Vec<SkillDir> {
    let mut skills: Vec<SkillDir> = Vec::new();
    let mut index: HashMap<&Path, usize> = HashMap::new();
    for f in files.iter() {
        let (Some(name), Some(dir)) = (f.path.file_name(), f.path.parent()) else {
            continue;
        };
        if !is_skill_md(name) {
            continue;
        }
        if let Some(existing) = index.get(dir).and_then(|&i| skills.get_mut(i)) {
            // Both `SKILL.md` and another spelling: the exact name wins.
            if name == "SKILL.md" {
                existing.skill_md = f.path.clone();
            }
            continue;
        }
        let prefix = prefix(dir);
        let start = files.partition_point(|e| key(&e.path) < prefix.as_slice());
        let end = start
            + files.get(start..).map_or(0, |rest| {
                rest.partition_point(|e| key(&e.path).starts_with(&prefix))
            });
        index.insert(dir, skills.len());
        skills.push(SkillDir {
            dir: dir.to_path_buf(),
            skill_md: f.path.clone(),
            all: Arc::clone(files),
            range: start..end,
        });
    }
    skills
}
