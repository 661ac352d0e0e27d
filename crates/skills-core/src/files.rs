//! The one answer to "which files belong to this skill": what `skills lint` checks, what
//! `skills package` and `skills install DIR` copy, what `skills show` lists and what the
//! MCP server serves.
//!
//! Before this module there were three answers, and a link to a `.skillignore`d file linted
//! clean while the package left it out. The policy, in order (the first that decides wins):
//!
//! 1. Names never part of a skill: [`EXCLUDED_NAMES`] and `*.pyc`.
//! 2. The skill's own ignore files, in each of its directories: `.gitignore`, `.ignore` and
//!    `.skillignore` (a later file beats an earlier one; a deeper directory beats a
//!    shallower one; `!pattern` re-includes).
//! 3. The enclosing repository's rules above the skill ([`RepoRules`]).
//! 4. Secret-looking names ([`is_secret`]) are left out, and reported, unless a rule above
//!    included them with `!`.
//!
//! Symlinks are followed when they stay inside the skill (to a file or a directory); one that
//! leaves the skill, loops, never resolves or is broken is a [`Problem`], never followed.
//! FIFOs, sockets and devices are left out and reported. A hard link is an ordinary file.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::policy::{self, Matchers};
use crate::{RepoRules, Verdict, describe_file_type, is_secret};

/// Names never part of a skill, wherever they appear: version control, caches, installed
/// dependencies, Finder metadata. (`*.pyc` too.)
pub const EXCLUDED_NAMES: [&str; 4] = [".git", "__pycache__", "node_modules", ".DS_Store"];

/// Whether a file or directory name is never part of a skill: one of [`EXCLUDED_NAMES`],
/// or `*.pyc`.
pub fn is_excluded(name: &str) -> bool {
    EXCLUDED_NAMES.contains(&name) || name.ends_with(".pyc")
}

/// The ignore files read in every directory of a skill, later ones beating earlier ones.
pub const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".skillignore"];

/// One file that belongs to a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillFile {
    /// The path relative to the skill directory, `/`-separated (`scripts/run.sh`); for a
    /// file reached through a symlink, the link's path.
    pub path: String,
    /// The file whose content this is (the target, for a symlink).
    pub real: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Whether any executable bit is set.
    pub executable: bool,
}

/// A file left out although no ignore rule names it: worth telling the user.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The path relative to the skill directory, `/`-separated.
    pub path: String,
    /// Why.
    pub reason: SkipReason,
}

/// Why a file is [`Skipped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Its name looks like a secret (`.env*`, `*.pem`, `id_*`): included only when an
    /// ignore file names it with `!`.
    Secret,
    /// Not a regular file: a FIFO, a socket or a device (the text says which).
    Special(&'static str),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Secret => f.write_str("its name looks like a secret (.env*, *.pem, id_*)"),
            Self::Special(what) => write!(f, "it is {what}, not a regular file"),
        }
    }
}

/// Something in the skill that keeps files out of the listing: what `package` refuses,
/// `lint` reports and `show`/MCP silently leave out.
#[derive(Debug)]
#[non_exhaustive]
pub enum Problem {
    /// A symlink that resolves outside the skill.
    SymlinkEscape {
        /// The link, relative to the skill directory.
        link: String,
        /// Where it points (resolved).
        target: PathBuf,
    },
    /// A symlink to a directory that contains it.
    SymlinkLoop {
        /// The link, relative to the skill directory.
        link: String,
    },
    /// Symlinks that lead to each other and never to a file or directory (ELOOP).
    SymlinkCycle {
        /// The link, relative to the skill directory.
        link: String,
    },
    /// A symlink whose target does not exist.
    BrokenSymlink {
        /// The link, relative to the skill directory.
        link: String,
    },
    /// A file name that is not UTF-8 (it cannot be stored or served portably).
    NonUtf8Name {
        /// The file.
        path: PathBuf,
    },
    /// An ignore file with an invalid pattern (its valid lines still apply, as in git).
    InvalidIgnoreFile {
        /// The ignore file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file or directory that cannot be read.
    Unreadable {
        /// The path, relative to the skill directory (`""` for the skill directory).
        path: String,
        /// Why.
        error: io::Error,
    },
}

/// The files of a skill under the one policy of this module.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Listing {
    /// The files that belong to the skill, sorted by path.
    pub files: Vec<SkillFile>,
    /// Files left out that the user should hear about, sorted by path.
    pub skipped: Vec<Skipped>,
    /// What kept files out of the listing, in the order met (paths sorted within a
    /// directory).
    pub problems: Vec<Problem>,
}

/// The files of the skill in `dir` (see the module documentation for the policy).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("SKILL.md"), "---\nname: x\n---\n")?;
/// std::fs::write(dir.path().join(".skillignore"), "draft.md\n")?;
/// std::fs::write(dir.path().join("draft.md"), "wip")?;
/// std::fs::write(dir.path().join(".env"), "TOKEN=1")?;
/// let listing = skills_core::files::list(dir.path())?;
/// let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
/// assert_eq!(paths, [".skillignore", "SKILL.md"]);
/// assert_eq!(listing.skipped[0].path, ".env");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// An I/O error when `dir` itself cannot be resolved or read; everything below it is
/// reported in [`Listing::problems`].
pub fn list(dir: &Path) -> io::Result<Listing> {
    Lister::new().list(dir)
}

/// Whether the skill directories `a` and `b` are one skill: the same directory (one reached
/// through a symbolic link, as `skills add` links agents' folders to `.agents/skills`), or
/// copies with the same files, byte for byte (`skills add --copy`). Lint, discovery and
/// everything built on them ask this one question before calling two skills of one name a
/// duplicate or one the shadow of the other.
///
/// Meant for the rare skills that share a name: it reads both skills' files when the
/// directories differ.
///
/// ```
/// let t = tempfile::tempdir()?;
/// let (a, b) = (t.path().join("a/pdf"), t.path().join("b/pdf"));
/// for dir in [&a, &b] {
///     std::fs::create_dir_all(dir)?;
///     std::fs::write(dir.join("SKILL.md"), "---\nname: pdf\n---\n")?;
/// }
/// assert!(skills_core::files::same_skill(&a, &b));
/// std::fs::write(b.join("notes.md"), "mine")?;
/// assert!(!skills_core::files::same_skill(&a, &b));
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use]
pub fn same_skill(a: &Path, b: &Path) -> bool {
    if let (Ok(ra), Ok(rb)) = (fs::canonicalize(a), fs::canonicalize(b))
        && ra == rb
    {
        return true;
    }
    let (Ok(la), Ok(lb)) = (list(a), list(b)) else {
        return false;
    };
    let total: u64 = la.files.iter().map(|f| f.size).sum();
    if la.files.len() != lb.files.len() || total > crate::layout::MAX_SKILL_BYTES {
        return false;
    }
    let shapes_match = la
        .files
        .iter()
        .zip(&lb.files)
        .all(|(x, y)| x.path == y.path && x.size == y.size);
    shapes_match
        && la.files.iter().zip(&lb.files).all(
            |(x, y)| matches!((fs::read(&x.real), fs::read(&y.real)), (Ok(p), Ok(q)) if p == q),
        )
}

/// Lists many skills in one run, sharing what skills side by side have in common: where
/// their parent directory really is, and the repository rules above it. `skills lint` lists
/// every skill of a tree with one `Lister`; without it each listing resolves its path
/// component by component and looks for `.git` in every directory above.
///
/// What it learns is kept for its lifetime: make one per run, not one per process (a
/// repository created or an ignore file edited meanwhile is seen by the next `Lister`).
///
/// ```
/// let root = tempfile::tempdir()?;
/// for name in ["a", "b"] {
///     std::fs::create_dir_all(root.path().join(name))?;
///     std::fs::write(root.path().join(name).join("SKILL.md"), "---\nname: x\n---\n")?;
/// }
/// let lister = skills_core::files::Lister::new();
/// for name in ["a", "b"] {
///     assert_eq!(lister.list(&root.path().join(name))?.files.len(), 1);
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Lister {
    /// Canonical paths of the skills' parent directories, by the path given.
    parents: Mutex<HashMap<PathBuf, PathBuf>>,
    /// The repository rule files for what lies inside each canonical directory seen (as a
    /// skill's parent or above one); `None` outside any repository.
    rules: Mutex<HashMap<PathBuf, Option<Matchers>>>,
}

impl Lister {
    /// A lister that knows nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The files of the skill in `dir`: the same answer as [`list`].
    ///
    /// # Errors
    ///
    /// As [`list`].
    pub fn list(&self, dir: &Path) -> io::Result<Listing> {
        self.list_resolved(dir, None)
    }

    /// As [`Lister::list`], for a directory a walk has just met as an entry of its parent
    /// and knows not to be a symbolic link itself (`is_link` false): it is not `lstat`ed
    /// again to find out. Were it replaced by a link meanwhile, the links inside it would be
    /// reported as leaving the skill, never followed out of it.
    ///
    /// # Errors
    ///
    /// As [`list`].
    pub fn list_entry(&self, dir: &Path, is_link: bool) -> io::Result<Listing> {
        self.list_resolved(dir, Some(is_link))
    }

    fn list_resolved(&self, dir: &Path, is_link: Option<bool>) -> io::Result<Listing> {
        let root = self.canonical(dir, is_link)?;
        let mut walker = Walker {
            lister: self,
            // Set once the root's entries say whether it is a repository itself.
            repo: RepoRules::with_matchers(root.clone(), Matchers::from([])),
            root: root.clone(),
            listing: Listing::default(),
            root_error: None,
        };
        walker.walk(&root, "", &mut Vec::new(), &mut vec![root.clone()]);
        // The skill directory itself must be readable: a listing of nothing would be a lie.
        if let Some(error) = walker.root_error {
            return Err(error);
        }
        let mut listing = walker.listing;
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        listing.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    /// `dir`, canonical. A directory that is not a link itself is its canonical parent
    /// joined with its name, and the parent is resolved once for all its skills: resolving
    /// every path in full costs a `readlink` per component.
    fn canonical(&self, dir: &Path, is_link: Option<bool>) -> io::Result<PathBuf> {
        // A leading `.` (`skills lint .` makes every path `./…`) names the same directory
        // as nothing: only `..` needs a full resolution.
        let plain = dir.components().all(|c| {
            matches!(
                c,
                Component::Normal(_) | Component::RootDir | Component::CurDir
            )
        });
        let (Some(parent), Some(name), true) = (dir.parent(), dir.file_name(), plain) else {
            return fs::canonicalize(dir);
        };
        let is_link = match is_link {
            Some(known) => known,
            None => fs::symlink_metadata(dir)?.file_type().is_symlink(),
        };
        if is_link {
            return fs::canonicalize(dir);
        }
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let known = self
            .parents
            .lock()
            .ok()
            .and_then(|p| p.get(parent).cloned());
        let real_parent = match known {
            Some(real) => real,
            None => {
                let real = fs::canonicalize(parent)?;
                if let Ok(mut parents) = self.parents.lock() {
                    parents.insert(parent.to_path_buf(), real.clone());
                }
                real
            }
        };
        Ok(real_parent.join(name))
    }

    /// The repository rules for the canonical skill directory `skill`, which holds `.git`
    /// when `is_repository`.
    fn rules(&self, skill: PathBuf, is_repository: bool) -> RepoRules {
        let parent = match skill.parent() {
            Some(parent) if !is_repository => parent,
            _ => {
                let matchers = policy::matchers_of_repository_skill(&skill);
                return RepoRules::with_matchers(skill, matchers);
            }
        };
        let matchers = self
            .rules_inside(parent)
            .unwrap_or_else(|| Matchers::from([]));
        RepoRules::with_matchers(skill, matchers)
    }

    /// [`policy::matchers_above`] for the canonical directory `dir`, built on what is known
    /// of its ancestors: each directory costs two `stat`s (`.git`, `.gitignore`) once per
    /// lister, where looking every ancestor up again for each parent cost ten a skill in a
    /// deep crawl (`repos/<owner>@<repo>/plugins/x/skills/<skill>`).
    fn rules_inside(&self, dir: &Path) -> Option<Matchers> {
        let known = |d: &Path| self.rules.lock().ok().and_then(|r| r.get(d).cloned());
        let remember = |d: &Path, m: &Option<Matchers>| {
            if let Ok(mut rules) = self.rules.lock() {
                rules.insert(d.to_path_buf(), m.clone());
            }
        };
        // Up to the nearest directory already known, or the repository root.
        let mut below = Vec::new();
        let mut current = None;
        for a in dir.ancestors() {
            if let Some(m) = known(a) {
                current = m;
                break;
            }
            if policy::is_repository(a) {
                let mut matchers = policy::repository_matchers(a);
                matchers.extend(policy::gitignore_of(a));
                current = Some(Matchers::from(matchers));
                remember(a, &current);
                break;
            }
            below.push(a);
        }
        // Then down again, each directory adding its own `.gitignore` inside a repository.
        for a in below.into_iter().rev() {
            current = current.map(|above| match policy::gitignore_of(a) {
                Some(own) => above.iter().cloned().chain([own]).collect(),
                None => above,
            });
            remember(a, &current);
        }
        current
    }
}

/// A directory entry as its directory's listing saw it.
enum Seen {
    Dir,
    /// Anything else, with its `lstat`.
    Other(io::Result<fs::Metadata>),
}

struct Walker<'a> {
    lister: &'a Lister,
    /// The skill directory, canonical: symlinks must resolve inside it.
    root: PathBuf,
    repo: RepoRules,
    listing: Listing,
    /// Why the skill directory itself could not be read (an error of [`list`], not a
    /// problem of the listing).
    root_error: Option<io::Error>,
}

impl Walker<'_> {
    /// Walks the directory whose real (canonical) path is `real` and whose path in the skill
    /// is `rel` (`""` for the root). `ignores` are the matchers of the directories above,
    /// `ancestors` the real paths of the directories being walked (to refuse loops).
    fn walk(
        &mut self,
        real: &Path,
        rel: &str,
        ignores: &mut Vec<Gitignore>,
        ancestors: &mut Vec<PathBuf>,
    ) {
        let entries = match fs::read_dir(real) {
            Ok(read) => {
                let mut entries: Vec<(OsString, Seen)> = read
                    .flatten()
                    .map(|e| {
                        // The type comes with the directory entry on most file systems: a
                        // directory needs no `lstat` of its own, and anything else is
                        // `lstat`ed relative to the open directory, not by its whole path.
                        let seen = match e.file_type() {
                            Ok(t) if t.is_dir() => Seen::Dir,
                            _ => Seen::Other(e.metadata()),
                        };
                        (e.file_name(), seen)
                    })
                    .collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                entries
            }
            Err(error) if rel.is_empty() => {
                self.root_error = Some(error);
                return;
            }
            Err(error) => {
                self.listing.problems.push(Problem::Unreadable {
                    path: rel.to_string(),
                    error,
                });
                return;
            }
        };
        if rel.is_empty() {
            // Git's own test: a `.git` entry of any kind makes a repository root.
            let is_repository = entries.iter().any(|(name, _)| name == ".git");
            self.repo = self.lister.rules(self.root.clone(), is_repository);
        }
        let pushed = match self.ignore_files(real, rel, &entries) {
            Some(m) => {
                ignores.push(m);
                true
            }
            None => false,
        };
        for (name, seen) in entries {
            let Some(name_str) = name.to_str() else {
                self.listing.problems.push(Problem::NonUtf8Name {
                    path: crate::fs::join(real, &name),
                });
                continue;
            };
            if is_excluded(name_str) {
                continue;
            }
            let child_real = crate::fs::join(real, &name);
            let child_rel = if rel.is_empty() {
                name_str.to_string()
            } else {
                let mut child = String::with_capacity(rel.len() + 1 + name_str.len());
                child.push_str(rel);
                child.push('/');
                child.push_str(name_str);
                child
            };
            self.entry(name_str, seen, child_real, child_rel, ignores, ancestors);
        }
        if pushed {
            ignores.pop();
        }
    }

    fn entry(
        &mut self,
        name: &str,
        seen: Seen,
        path: PathBuf,
        rel: String,
        ignores: &mut Vec<Gitignore>,
        ancestors: &mut Vec<PathBuf>,
    ) {
        let lmeta = match seen {
            Seen::Dir => {
                return self.entered(name, path, None, rel, ignores, ancestors);
            }
            Seen::Other(Ok(meta)) => meta,
            Seen::Other(Err(error)) => {
                self.listing
                    .problems
                    .push(Problem::Unreadable { path: rel, error });
                return;
            }
        };
        let (target, meta) = if lmeta.file_type().is_symlink() {
            let target = match fs::canonicalize(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return self.problem(Problem::BrokenSymlink { link: rel });
                }
                Err(e) if is_link_cycle(&e) => {
                    return self.problem(Problem::SymlinkCycle { link: rel });
                }
                Err(error) => return self.problem(Problem::Unreadable { path: rel, error }),
            };
            if !target.starts_with(&self.root) {
                return self.problem(Problem::SymlinkEscape { link: rel, target });
            }
            match fs::metadata(&target) {
                Ok(meta) => (target, meta),
                Err(error) => return self.problem(Problem::Unreadable { path: rel, error }),
            }
        } else {
            (path, lmeta)
        };
        self.entered(name, target, Some(meta), rel, ignores, ancestors);
    }

    /// The entry `rel`, resolved: `target` is its real path, `meta` its metadata (`None`
    /// for a directory known from its directory entry).
    fn entered(
        &mut self,
        name: &str,
        target: PathBuf,
        meta: Option<fs::Metadata>,
        rel: String,
        ignores: &mut Vec<Gitignore>,
        ancestors: &mut Vec<PathBuf>,
    ) {
        let is_dir = meta.as_ref().is_none_or(fs::Metadata::is_dir);
        let verdict = if ignores.is_empty() && self.repo.is_empty() {
            Verdict::None
        } else {
            let logical = self.logical(&rel);
            // This walk never enters an ignored directory: only the entry itself is asked.
            match verdict(ignores, &logical, is_dir) {
                Verdict::None => self.repo.verdict_at(&logical, is_dir),
                own => own,
            }
        };
        match verdict {
            Verdict::Ignore => return,
            Verdict::None if is_secret(name) => {
                self.listing.skipped.push(Skipped {
                    path: rel,
                    reason: SkipReason::Secret,
                });
                return;
            }
            Verdict::None | Verdict::Whitelist => {}
        }
        let Some(meta) = meta.filter(|_| !is_dir) else {
            if ancestors.contains(&target) {
                return self.problem(Problem::SymlinkLoop { link: rel });
            }
            // `ancestors` holds the skill directory too.
            if ancestors.len() > crate::layout::MAX_FILE_DEPTH {
                let error = io::Error::other(format!(
                    "nested more than {} directories deep in the skill; its files are not listed",
                    crate::layout::MAX_FILE_DEPTH
                ));
                return self.problem(Problem::Unreadable { path: rel, error });
            }
            ancestors.push(target.clone());
            self.walk(&target, &rel, ignores, ancestors);
            ancestors.pop();
            return;
        };
        if meta.is_file() {
            self.listing.files.push(SkillFile {
                path: rel,
                real: target,
                size: meta.len(),
                executable: is_executable(&meta),
            });
        } else {
            self.listing.skipped.push(Skipped {
                path: rel,
                reason: SkipReason::Special(describe_file_type(meta.file_type())),
            });
        }
    }

    fn problem(&mut self, problem: Problem) {
        self.listing.problems.push(problem);
    }

    /// The path a file has under the real root, following the names in the skill (not the
    /// symlink targets): what ignore patterns are matched against.
    fn logical(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.root.clone()
        } else {
            crate::fs::join(&self.root, rel)
        }
    }

    /// The matcher of this directory's ignore files, if it has any. An invalid pattern is
    /// reported and the file's other lines still apply, as in git.
    fn ignore_files(
        &mut self,
        real: &Path,
        rel: &str,
        entries: &[(OsString, Seen)],
    ) -> Option<Gitignore> {
        // Most directories have none: no builder, no path, for them.
        if !entries
            .iter()
            .any(|(n, _)| IGNORE_FILES.iter().any(|f| n == f))
        {
            return None;
        }
        let mut builder = GitignoreBuilder::new(self.logical(rel));
        let mut any = false;
        for name in IGNORE_FILES {
            if !entries.iter().any(|(n, _)| n == name) {
                continue;
            }
            let file = real.join(name);
            if !file.is_file() {
                continue;
            }
            any = true;
            if let Some(e) = builder.add(&file) {
                self.listing.problems.push(Problem::InvalidIgnoreFile {
                    path: file,
                    message: e.to_string(),
                });
            }
        }
        if !any {
            return None;
        }
        builder.build().ok().filter(|m| !m.is_empty())
    }
}

/// The deepest matcher with an opinion decides (a `!pattern` re-includes).
fn verdict(ignores: &[Gitignore], path: &Path, is_dir: bool) -> Verdict {
    for m in ignores.iter().rev() {
        match Verdict::of(m.matched(path, is_dir)) {
            Verdict::None => {}
            decided => return decided,
        }
    }
    Verdict::None
}

/// Whether resolving a link failed because links lead to each other (ELOOP), rather than
/// to one of their own ancestors (that resolves, and is caught by the walk).
fn is_link_cycle(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn paths(listing: &Listing) -> Vec<&str> {
        listing.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn every_ignore_file_counts_and_the_deepest_decides() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::create_dir_all(d.join("sub")).unwrap();
        fs::create_dir_all(d.join("__pycache__")).unwrap();
        for f in [
            "SKILL.md",
            "a.log",
            "b.tmp",
            "c.draft",
            "sub/keep.log",
            "x.pyc",
            "__pycache__/m.pyc",
        ] {
            fs::write(d.join(f), "x").unwrap();
        }
        fs::write(d.join(".gitignore"), "*.log\n").unwrap();
        fs::write(d.join(".ignore"), "*.tmp\n").unwrap();
        fs::write(d.join(".skillignore"), "*.draft\n").unwrap();
        fs::write(d.join("sub/.gitignore"), "!keep.log\n").unwrap();
        let listing = list(d).unwrap();
        assert_eq!(
            paths(&listing),
            [
                ".gitignore",
                ".ignore",
                ".skillignore",
                "SKILL.md",
                "sub/.gitignore",
                "sub/keep.log"
            ]
        );
        assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    }

    #[test]
    fn repository_rules_apply_at_every_depth_of_the_skill() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path();
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::write(repo.join(".gitignore"), "build/\n*.log\n!keep.log\n").unwrap();
        let d = repo.join("skills/pdf");
        for f in [
            "SKILL.md",
            "a.log",
            "keep.log",
            "build/out.txt",
            "docs/build/deep.txt",
            "docs/b.log",
            "docs/keep.log",
            "docs/ok.md",
        ] {
            fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            fs::write(d.join(f), "x").unwrap();
        }
        let lister = Lister::new();
        for _ in 0..2 {
            let listing = lister.list(&d).unwrap();
            assert_eq!(
                paths(&listing),
                ["SKILL.md", "docs/keep.log", "docs/ok.md", "keep.log"]
            );
        }
    }

    #[test]
    fn one_lister_gives_each_parent_the_rules_of_its_own_ancestors() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let repo = root.join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::write(repo.join(".gitignore"), "*.log\n").unwrap();
        fs::create_dir_all(repo.join("a")).unwrap();
        fs::write(repo.join("a/.gitignore"), "x.txt\n").unwrap();
        for skill in [
            "repo/a/skills/one",
            "repo/b/skills/two",
            "repo/skills/three",
            "plain/skills/four",
        ] {
            let d = root.join(skill);
            fs::create_dir_all(&d).unwrap();
            for f in ["SKILL.md", "x.txt", "y.log"] {
                fs::write(d.join(f), "x").unwrap();
            }
        }
        // The order matters: later parents find their ancestors already known.
        let lister = Lister::new();
        let listed = |skill: &str| {
            let listing = lister.list(&root.join(skill)).unwrap();
            paths(&listing)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(listed("repo/a/skills/one"), ["SKILL.md"]);
        assert_eq!(listed("repo/b/skills/two"), ["SKILL.md", "x.txt"]);
        assert_eq!(listed("repo/skills/three"), ["SKILL.md", "x.txt"]);
        assert_eq!(listed("plain/skills/four"), ["SKILL.md", "x.txt", "y.log"]);
        // And the same answers from a lister that starts elsewhere.
        let fresh = Lister::new();
        let listing = fresh.list(&root.join("repo/b/skills/two")).unwrap();
        assert_eq!(paths(&listing), ["SKILL.md", "x.txt"]);
    }
    #[cfg(unix)]
    #[test]
    fn a_skill_reached_through_a_link_is_listed_from_where_it_really_is() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("elsewhere/pdf");
        fs::create_dir_all(real.join("docs")).unwrap();
        fs::write(real.join("SKILL.md"), "x").unwrap();
        fs::write(real.join("docs/a.md"), "x").unwrap();
        symlink("docs/a.md", real.join("a-link.md")).unwrap();
        let skills = t.path().join("skills");
        fs::create_dir_all(skills.join("plain")).unwrap();
        fs::write(skills.join("plain/SKILL.md"), "x").unwrap();
        symlink("../elsewhere/pdf", skills.join("pdf")).unwrap();
        // One lister for both: the parent is resolved once, the link by itself.
        let lister = Lister::new();
        assert_eq!(
            paths(&lister.list(&skills.join("plain")).unwrap()),
            ["SKILL.md"]
        );
        let plain = lister.list_entry(&skills.join("plain"), false).unwrap();
        assert_eq!(paths(&plain), ["SKILL.md"]);
        // What a walk that saw the link as an entry asks for.
        let walked = lister.list_entry(&skills.join("pdf"), true).unwrap();
        assert!(walked.problems.is_empty(), "{:?}", walked.problems);
        let listing = lister.list(&skills.join("pdf")).unwrap();
        assert_eq!(paths(&listing), ["SKILL.md", "a-link.md", "docs/a.md"]);
        assert!(listing.problems.is_empty(), "{:?}", listing.problems);
        let real_root = fs::canonicalize(&real).unwrap();
        assert!(listing.files.iter().all(|f| f.real.starts_with(&real_root)));
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_are_followed_and_the_rest_are_problems() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("skill");
        fs::create_dir_all(d.join("docs")).unwrap();
        fs::write(d.join("SKILL.md"), "x").unwrap();
        fs::write(d.join("docs/a.md"), "x").unwrap();
        fs::write(t.path().join("outside.md"), "x").unwrap();
        symlink("docs", d.join("alias")).unwrap();
        symlink("docs/a.md", d.join("a-link.md")).unwrap();
        symlink("../outside.md", d.join("escape.md")).unwrap();
        symlink(".", d.join("docs/up")).unwrap();
        symlink("missing", d.join("broken")).unwrap();
        symlink("c2", d.join("c1")).unwrap();
        symlink("c1", d.join("c2")).unwrap();
        let listing = list(&d).unwrap();
        assert_eq!(
            paths(&listing),
            ["SKILL.md", "a-link.md", "alias/a.md", "docs/a.md"]
        );
        let kinds: Vec<String> = listing
            .problems
            .iter()
            .map(|p| {
                format!("{p:?}")
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "SymlinkLoop",
                "BrokenSymlink",
                "SymlinkCycle",
                "SymlinkCycle",
                "SymlinkLoop",
                "SymlinkEscape"
            ],
            "{:?}",
            listing.problems
        );
    }

    #[test]
    fn files_deeper_than_the_limit_are_a_problem_not_a_walk() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("skill");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), "x").unwrap();
        let limit = crate::layout::MAX_FILE_DEPTH;
        let at = |n: usize| "d/".repeat(n);
        // A file in the deepest directory listed, and one in the next, not listed.
        fs::create_dir_all(d.join(at(limit + 5))).unwrap();
        fs::write(d.join(format!("{}ok.md", at(limit))), "x").unwrap();
        fs::write(d.join(format!("{}deep.md", at(limit + 1))), "x").unwrap();
        let listing = list(&d).unwrap();
        assert_eq!(
            paths(&listing),
            ["SKILL.md".to_string(), format!("{}ok.md", at(limit))]
        );
        let [Problem::Unreadable { path, error }] = listing.problems.as_slice() else {
            panic!("{:?}", listing.problems);
        };
        assert_eq!(*path, at(limit + 1).trim_end_matches('/'));
        assert!(error.to_string().contains("directories deep"), "{error}");
    }
}
