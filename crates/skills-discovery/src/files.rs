//! The files of one skill, for `skills show` and what the MCP server serves.

use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use skills_core::{RepoRules, Verdict};

use crate::walk::read_ignore_files;
use crate::{DiscoveryError, Skill};

/// How deep [`Skill::files`] lists below the skill directory.
const MAX_FILES_DEPTH: usize = 16;

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkillFile {
    /// The path relative to the skill directory (for a flat skill, its file name).
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

/// The directories the specification names for a skill's resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileGroup {
    /// Under `scripts/`.
    Scripts,
    /// Under `references/`.
    References,
    /// Under `assets/`.
    Assets,
    /// Anything else, `SKILL.md` included.
    Other,
}

impl SkillFile {
    /// Which resource directory the file is in.
    pub fn group(&self) -> FileGroup {
        match self.path.components().next() {
            Some(Component::Normal(first)) if self.path.components().count() > 1 => {
                match first.to_str() {
                    Some("scripts") => FileGroup::Scripts,
                    Some("references") => FileGroup::References,
                    Some("assets") => FileGroup::Assets,
                    _ => FileGroup::Other,
                }
            }
            _ => FileGroup::Other,
        }
    }
}

pub(crate) fn list(skill: &Skill) -> Result<Vec<SkillFile>, DiscoveryError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DiscoveryError::Io { path, source }
    };
    if skill.flat {
        let size = fs::metadata(&skill.skill_md)
            .map_err(io(&skill.skill_md))?
            .len();
        let path = skill
            .skill_md
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_default();
        return Ok(vec![SkillFile { path, size }]);
    }
    let base = fs::canonicalize(&skill.dir).map_err(io(&skill.dir))?;
    let mut lister = Lister {
        repo: RepoRules::for_skill(&base),
        base,
        files: Vec::new(),
        ignores: Vec::new(),
    };
    lister.dir(&skill.dir, Path::new(""), 0, true)?;
    let mut files = lister.files;
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

struct Lister {
    /// The skill directory, canonical: symlinks must resolve inside it.
    base: PathBuf,
    files: Vec<SkillFile>,
    ignores: Vec<Arc<Gitignore>>,
    /// The enclosing repository's rules, under the skill's own.
    repo: RepoRules,
}

impl Lister {
    /// Lists `dir` (`rel` below the skill directory). Only the skill directory itself failing
    /// to be read is an error; an unreadable subdirectory is left out.
    fn dir(
        &mut self,
        dir: &Path,
        rel: &Path,
        depth: usize,
        top: bool,
    ) -> Result<(), DiscoveryError> {
        let read = match fs::read_dir(dir) {
            Ok(read) => read,
            Err(source) if top => {
                return Err(DiscoveryError::Io {
                    path: dir.to_path_buf(),
                    source,
                });
            }
            Err(_) => return Ok(()),
        };
        let mut names: Vec<OsString> = read.flatten().map(|e| e.file_name()).collect();
        names.sort_unstable();
        let (ignore, _) = read_ignore_files(dir, &names);
        let pushed = ignore.map(|i| self.ignores.push(i)).is_some();
        // What `skills package` leaves out is not served either.
        let skillignore = names
            .iter()
            .any(|n| n == ".skillignore")
            .then(|| {
                let mut builder = GitignoreBuilder::new(dir);
                let _partial = builder.add(dir.join(".skillignore"));
                builder.build().ok().filter(|g| !g.is_empty())
            })
            .flatten()
            .map(|g| self.ignores.push(Arc::new(g)))
            .is_some();
        for name in names {
            if skills_core::layout::is_skipped_dir(name.as_ref()) {
                continue;
            }
            let path = dir.join(&name);
            let rel = rel.join(&name);
            let Ok(link) = fs::symlink_metadata(&path) else {
                continue;
            };
            if link.file_type().is_symlink() {
                // A link is listed when it is a file inside the skill; directories behind
                // links are not entered, so the listing cannot leave the skill or loop.
                let inside = fs::canonicalize(&path).is_ok_and(|t| t.starts_with(&self.base));
                if let Ok(target) = fs::metadata(&path)
                    && inside
                    && target.is_file()
                    && !self.excluded(&path, &rel, false)
                {
                    self.files.push(SkillFile {
                        path: rel,
                        size: target.len(),
                    });
                }
            } else if link.is_dir() {
                if depth < MAX_FILES_DEPTH && !self.excluded(&path, &rel, true) {
                    self.dir(&path, &rel, depth + 1, false)?;
                }
            } else if link.is_file() && !self.excluded(&path, &rel, false) {
                self.files.push(SkillFile {
                    path: rel,
                    size: link.len(),
                });
            }
        }
        if skillignore {
            self.ignores.pop();
        }
        if pushed {
            self.ignores.pop();
        }
        Ok(())
    }

    /// Whether `path` (`rel` in the skill) is left out: the skill's own ignore files decide
    /// first (deepest first), then the enclosing repository's, then a secret-looking name
    /// is left out unless some rule included it with `!` (the one file policy of
    /// `skills_core`, as `skills package` applies it).
    fn excluded(&self, path: &Path, rel: &Path, is_dir: bool) -> bool {
        let mut verdict = Verdict::None;
        for ignore in self.ignores.iter().rev() {
            verdict = Verdict::of(ignore.matched(path, is_dir));
            if verdict != Verdict::None {
                break;
            }
        }
        if verdict == Verdict::None {
            verdict = self.repo.matched(rel, is_dir);
        }
        match verdict {
            Verdict::Ignore => true,
            Verdict::Whitelist => false,
            Verdict::None => rel
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(skills_core::is_secret),
        }
    }
}
