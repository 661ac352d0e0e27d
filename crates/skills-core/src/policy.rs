//! Which files belong to a skill: the repository's ignore rules above it and well-known
//! secret names (see the crate documentation for the layers).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::Stamp;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The name patterns of [`is_secret`], for messages and docs.
pub const SECRET_PATTERNS: &[&str] = &[".env*", "*.pem", "id_*"];

/// Whether a file or directory name looks like a secret that must not leave the machine by
/// accident: `.env*` (dotenv files), `*.pem` (keys and certificates), `id_*` (SSH keys).
pub fn is_secret(name: &str) -> bool {
    name.starts_with(".env") || name.ends_with(".pem") || name.starts_with("id_")
}

/// The matcher of the ignore file `file` (patterns relative to `root`), or `None` when there
/// is no such file or it has no pattern.
///
/// Every skill of a tree shares its repository's rule files (the root `.gitignore`,
/// `.git/info/exclude`, the global excludes): parsed once per process and reused while the
/// file stats the same, instead of once per skill (16,770 parses of each for a large tree).
/// A long-running server still sees an edit: the stamp changes.
fn cached_matcher(root: &Path, file: &Path) -> Option<Arc<Gitignore>> {
    type Cache = Mutex<HashMap<(PathBuf, PathBuf), (Stamp, Option<Arc<Gitignore>>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    // A regular file only: a FIFO named `.gitignore` would block the parser forever.
    let meta = std::fs::metadata(file)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    let stamp = Stamp::of(&meta);
    let key = (root.to_path_buf(), file.to_path_buf());
    let cache = CACHE.get_or_init(Cache::default);
    if let Some((seen, matcher)) = cache.lock().ok()?.get(&key)
        && *seen == stamp
    {
        return matcher.clone();
    }
    let mut builder = GitignoreBuilder::new(root);
    // A partly invalid file still contributes its valid lines, as in git.
    let _partial = builder.add(file);
    let matcher = builder.build().ok().filter(|m| !m.is_empty()).map(Arc::new);
    if let Ok(mut cache) = cache.lock() {
        cache.insert(key, (stamp, matcher.clone()));
    }
    matcher
}

/// What ignore rules say about one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Left out.
    Ignore,
    /// Included explicitly (a `!pattern`): even a secret name is kept.
    Whitelist,
    /// No rule matches.
    None,
}

impl Verdict {
    /// The verdict of one `ignore` match.
    pub fn of<T>(found: ignore::Match<T>) -> Self {
        if found.is_ignore() {
            Self::Ignore
        } else if found.is_whitelist() {
            Self::Whitelist
        } else {
            Self::None
        }
    }
}

/// The rule files that apply in a repository, outermost first.
pub(crate) type Matchers = Arc<[Arc<Gitignore>]>;

/// The ignore rules of the git repository around a skill directory, for paths inside the
/// skill. Outside a repository there are none (git's rules apply only in one).
#[derive(Debug, Clone)]
pub struct RepoRules {
    /// The skill directory, canonical: what relative paths are joined onto.
    skill: PathBuf,
    /// Outermost first: global excludes, `.git/info/exclude`, then each `.gitignore` from
    /// the repository root down to the skill's parent.
    matchers: Matchers,
}

impl RepoRules {
    /// The rules for the skill in `dir`. Never fails: an unreadable or invalid ignore file
    /// contributes the patterns that could be read, as in git.
    pub fn for_skill(dir: &Path) -> Self {
        let skill = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let matchers = match skill.parent() {
            Some(parent) if !is_repository(&skill) => matchers_above(parent),
            _ => matchers_of_repository_skill(&skill),
        };
        Self { skill, matchers }
    }

    /// The rules for the canonical skill directory `skill` with the rule files already
    /// found: every skill of one parent directory shares them (see [`matchers_above`]).
    pub(crate) fn with_matchers(skill: PathBuf, matchers: Matchers) -> Self {
        Self { skill, matchers }
    }

    /// What the repository's rules say about `rel` (relative to the skill directory): the
    /// deepest rule file with an opinion decides. A path under an ignored directory of the
    /// skill is ignored too, as git cannot re-include it. Directories above the skill do not
    /// count: a skill kept in an ignored folder (a `.gitignore` with `.claude/`) is still
    /// the skill the user named, whole.
    pub fn matched(&self, rel: &Path, is_dir: bool) -> Verdict {
        if self.matchers.is_empty() {
            return Verdict::None;
        }
        let parts: Vec<_> = rel.components().collect();
        let mut path = self.skill.clone();
        for (i, part) in parts.iter().enumerate() {
            path.push(part);
            let last = i + 1 == parts.len();
            let verdict = self.verdict_at(&path, !last || is_dir);
            if last || verdict == Verdict::Ignore {
                return verdict;
            }
        }
        Verdict::None
    }

    /// The deepest rule file's opinion of `path` itself (absolute, under the skill), for a
    /// walker that never enters an ignored directory and so has asked about every
    /// directory above it already: one match instead of one per component.
    pub(crate) fn verdict_at(&self, path: &Path, is_dir: bool) -> Verdict {
        for m in self.matchers.iter().rev() {
            match Verdict::of(m.matched(path, is_dir)) {
                Verdict::None => {}
                decided => return decided,
            }
        }
        Verdict::None
    }

    /// Whether any rule applies at all (outside a repository, or with no rule files, none).
    pub fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }
}

/// Whether `dir` is the root of a git repository (`.git` is a directory, or a file in a
/// worktree).
pub(crate) fn is_repository(dir: &Path) -> bool {
    dir.join(".git").exists()
}

/// The rule files for a skill directly inside the canonical directory `parent` that is not
/// a repository root itself: those of the nearest repository around `parent`, with the
/// `.gitignore` of each directory from its root down to `parent`. The same for every skill
/// of `parent`, so a caller listing many skills looks them up once per parent.
pub(crate) fn matchers_above(parent: &Path) -> Matchers {
    let Some(repo) = parent.ancestors().find(|a| is_repository(a)) else {
        return Matchers::from([]);
    };
    let mut matchers = repository_matchers(repo);
    // The skill's own `.gitignore` is read by the walkers, with the rest of its files.
    let mut above: Vec<&Path> = parent
        .ancestors()
        .take_while(|a| a.starts_with(repo))
        .collect();
    above.reverse();
    for dir in above {
        matchers.extend(gitignore_of(dir));
    }
    matchers.into()
}

/// The rules of `dir`'s own `.gitignore`, when it has one with any.
pub(crate) fn gitignore_of(dir: &Path) -> Option<Arc<Gitignore>> {
    cached_matcher(dir, &dir.join(".gitignore"))
}

/// The rule files for a skill that is a repository root itself: no `.gitignore` above it
/// counts.
pub(crate) fn matchers_of_repository_skill(skill: &Path) -> Matchers {
    if !is_repository(skill) {
        return Matchers::from([]);
    }
    repository_matchers(skill).into()
}

/// The user's global excludes and the repository's `.git/info/exclude`.
pub(crate) fn repository_matchers(repo: &Path) -> Vec<Arc<Gitignore>> {
    let mut matchers = Vec::new();
    if let Some(global) = ignore::gitignore::gitconfig_excludes_path() {
        matchers.extend(cached_matcher(repo, &global));
    }
    matchers.extend(cached_matcher(repo, &repo.join(".git/info/exclude")));
    matchers
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn secrets_by_name() {
        for name in [
            ".env",
            ".env.local",
            ".envrc",
            "tls.pem",
            "id_rsa",
            "id_ed25519.pub",
        ] {
            assert!(is_secret(name), "{name}");
        }
        for name in ["SKILL.md", "env.md", "pem.txt", "my_id_rsa", "identity.md"] {
            assert!(!is_secret(name), "{name}");
        }
    }

    #[test]
    fn rules_from_above_the_skill_in_repository_order() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path();
        std::fs::create_dir_all(repo.join(".git/info")).unwrap();
        std::fs::create_dir_all(repo.join("skills/pdf/sub")).unwrap();
        std::fs::write(repo.join(".gitignore"), "*.secret\nbuild/\n").unwrap();
        std::fs::write(repo.join("skills/.gitignore"), "!keep.secret\n").unwrap();
        std::fs::write(repo.join(".git/info/exclude"), "*.local\n").unwrap();
        let rules = RepoRules::for_skill(&repo.join("skills/pdf"));
        let m = |p: &str| rules.matched(Path::new(p), false);
        assert_eq!(m("a.secret"), Verdict::Ignore);
        assert_eq!(m("sub/a.secret"), Verdict::Ignore);
        assert_eq!(
            m("keep.secret"),
            Verdict::Whitelist,
            "the deeper file decides"
        );
        assert_eq!(m("notes.local"), Verdict::Ignore);
        assert_eq!(
            m("build/out.txt"),
            Verdict::Ignore,
            "under an ignored directory"
        );
        assert_eq!(m("SKILL.md"), Verdict::None);
    }

    #[test]
    fn a_skill_in_an_ignored_folder_keeps_its_files() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join(".claude/skills/demo")).unwrap();
        std::fs::write(repo.join(".gitignore"), ".claude/\n*.log\n").unwrap();
        let rules = RepoRules::for_skill(&repo.join(".claude/skills/demo"));
        assert_eq!(rules.matched(Path::new("SKILL.md"), false), Verdict::None);
        assert_eq!(rules.matched(Path::new("refs/a.md"), false), Verdict::None);
        // Rules about the files themselves still apply.
        assert_eq!(rules.matched(Path::new("x.log"), false), Verdict::Ignore);
    }

    #[test]
    fn an_edited_ignore_file_is_read_again() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("skills/pdf")).unwrap();
        std::fs::write(repo.join(".gitignore"), "*.a\n").unwrap();
        let skill = repo.join("skills/pdf");
        let m = |p: &str| RepoRules::for_skill(&skill).matched(Path::new(p), false);
        assert_eq!((m("x.a"), m("x.bb")), (Verdict::Ignore, Verdict::None));
        // Cached by the file's stamp: a new content (and size) is parsed again.
        std::fs::write(repo.join(".gitignore"), "*.bb\n").unwrap();
        assert_eq!((m("x.a"), m("x.bb")), (Verdict::None, Verdict::Ignore));
    }

    #[test]
    fn no_repository_no_rules() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("skills/pdf")).unwrap();
        std::fs::write(t.path().join(".gitignore"), "*\n").unwrap();
        let rules = RepoRules::for_skill(&t.path().join("skills/pdf"));
        // Unless the temporary directory itself sits in a repository.
        if t.path().ancestors().all(|a| !a.join(".git").exists()) {
            assert!(rules.is_empty());
            assert_eq!(rules.matched(Path::new("x"), false), Verdict::None);
        }
    }
}
