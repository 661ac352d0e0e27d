//! Where skills are looked for, in priority order, and the fast lookup of one skill by id.

use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::ignore_files::{is_ignored, read_ignore_files};
use crate::meta::{Flat, flat_file, parse_meta, skill_id};
use crate::{Index, Skill};
use skills_core::Stamp;

/// The directories searched in each scope, highest priority first: the cross-agent
/// convention, the legacy singular name, and Claude's.
pub use skills_core::layout::SKILL_DIRS;

/// Where a root comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A project directory: the current directory or one of its ancestors up to the
    /// repository root.
    Project,
    /// The user's home directory.
    Global,
    /// Given explicitly (`--skills-dir`, `SKILLS_PATH`). Explicit roots replace the defaults,
    /// so this scope is never mixed with the others by [`Roots::resolve`]; its roots rank in
    /// the order given.
    Custom,
}

impl Scope {
    /// `project`, `global` or `custom`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Global => "global",
            Scope::Custom => "custom",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One directory that holds skills.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Root {
    /// The directory, as given (not canonicalized).
    pub path: PathBuf,
    /// Where it comes from.
    pub scope: Scope,
}

/// The roots to search, highest priority first. A skill in an earlier root shadows one with
/// the same id in a later root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roots {
    roots: Vec<Root>,
}

impl Roots {
    /// The given roots, in this order; a path listed twice keeps its first place.
    pub fn new(roots: impl IntoIterator<Item = Root>) -> Self {
        let mut out: Vec<Root> = Vec::new();
        for root in roots {
            if !root.path.as_os_str().is_empty() && !out.iter().any(|r| r.path == root.path) {
                out.push(root);
            }
        }
        Self { roots: out }
    }

    /// The default roots for a process whose current directory is `cwd` and whose home is
    /// `home` (both injected, so nothing here reads the environment).
    ///
    /// Project roots come first: for `cwd` and then each ancestor up to and including the
    /// repository root (the nearest ancestor holding a `.git` file or directory), the
    /// directories of [`SKILL_DIRS`]. Without a `.git` ancestor only `cwd` is a project
    /// directory. Then the global roots, `SKILL_DIRS` under `home`. A directory that is both
    /// (`cwd` is `home`) is searched once, as a project root.
    pub fn default_for(cwd: &Path, home: Option<&Path>) -> Self {
        let project: Vec<&Path> = match repository_root(cwd) {
            Some(top) => {
                let mut dirs: Vec<&Path> = Vec::new();
                for dir in cwd.ancestors() {
                    dirs.push(dir);
                    if dir == top {
                        break;
                    }
                }
                dirs
            }
            None => vec![cwd],
        };
        Self::new(
            project
                .into_iter()
                .flat_map(|dir| roots_in(dir, Scope::Project))
                .chain(home.into_iter().flat_map(|h| roots_in(h, Scope::Global)))
                .collect::<Vec<_>>(),
        )
    }

    /// Explicit roots ([`Scope::Custom`]), in the order given. Empty paths are dropped.
    pub fn custom<P: Into<PathBuf>>(paths: impl IntoIterator<Item = P>) -> Self {
        Self::new(paths.into_iter().map(|p| Root {
            path: p.into(),
            scope: Scope::Custom,
        }))
    }

    /// [`Roots::resolve`] for this process: the current directory, the home directory and
    /// `SKILLS_PATH` from the environment. What `skills` and the `skills-mcp` server use.
    pub fn from_env(skills_dirs: &[PathBuf]) -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
        let skills_path = std::env::var_os("SKILLS_PATH");
        Self::resolve(&cwd, home.as_deref(), skills_dirs, skills_path.as_deref())
    }

    /// The roots a command uses: the `--skills-dir` values if there are any, else the entries
    /// of `SKILLS_PATH` (split with [`std::env::split_paths`]) if it has any, else
    /// [`Roots::default_for`]. Explicit paths are taken relative to `cwd`, and a leading `~`
    /// stands for `home`.
    pub fn resolve(
        cwd: &Path,
        home: Option<&Path>,
        skills_dirs: &[PathBuf],
        skills_path: Option<&OsStr>,
    ) -> Self {
        let absolute = |p: &Path| {
            let mut components = p.components();
            match (components.next(), home) {
                (Some(Component::Normal(first)), Some(home)) if first == "~" => {
                    home.join(components.as_path())
                }
                // `.` and `./x` are joined without leaving a `.` component in the path.
                _ => cwd
                    .join(p)
                    .components()
                    .filter(|c| !matches!(c, Component::CurDir))
                    .collect(),
            }
        };
        let explicit: Vec<PathBuf> = if skills_dirs.is_empty() {
            skills_path
                .map(|v| std::env::split_paths(v).collect())
                .unwrap_or_default()
        } else {
            skills_dirs.to_vec()
        };
        let explicit: Vec<PathBuf> = explicit
            .iter()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| absolute(p))
            .collect();
        if explicit.is_empty() {
            Self::default_for(cwd, home)
        } else {
            Self::custom(explicit)
        }
    }

    /// The roots, highest priority first.
    pub fn as_slice(&self) -> &[Root] {
        &self.roots
    }

    /// The roots, highest priority first.
    pub fn iter(&self) -> std::slice::Iter<'_, Root> {
        self.roots.iter()
    }

    /// Finds one skill by id (case-insensitively) without scanning everything, for
    /// `skills show NAME` in a fresh process.
    ///
    /// For each root in order it checks `root/<id>/SKILL.md` (the exact spelling, then lower
    /// case, then, on a miss, other spellings from a listing of the root) and then
    /// `root/<id>.md` the same way; the first skill that parses wins (a malformed one is
    /// passed over, as a scan skips it). With the id spelt as on disk this costs a few
    /// `stat` calls per root and one read, whatever the number of skills installed. Only when
    /// no root has it directly does it fall back to a full [`Index::scan`], which also finds
    /// skills nested deeper than `root/<id>` and matches frontmatter names. A direct hit in
    /// a lower-priority root is checked against a scan of the roots before it only (a
    /// project's few skills), so a skill nested deeper in a higher-priority root still wins.
    ///
    /// An id that could name anything but a single entry of a root (empty, `.`, `..`, or
    /// containing `/`, `\` or NUL) is refused: the result is `None` and the file system is
    /// not touched.
    ///
    /// Caveat of the fast path, where it can differ from [`Index::get`] after a scan: when
    /// one root holds two spellings of an id (`Git/` and `git/`), `find` prefers the spelling
    /// asked for where the scan takes the first in byte order.
    pub fn find(&self, id: &str) -> Option<Skill> {
        if !is_valid_id(id) {
            return None;
        }
        let key = id.to_lowercase();
        let hit = self
            .roots
            .iter()
            .enumerate()
            .find_map(|(i, root)| probe(root, id, &key).map(|s| (i, s)));
        match hit {
            // A skill nested deeper in a higher-priority root wins over this direct hit, as
            // it does in a full scan: scan those roots (usually a project's few skills) only.
            Some((i, skill)) => {
                let higher = Roots::new(self.roots.iter().take(i).cloned());
                match Index::scan(&higher).get(id) {
                    Some(nested) if nested.id.eq_ignore_ascii_case(id) => Some(nested.clone()),
                    _ => Some(skill),
                }
            }
            None => Index::scan(self).get(id).cloned(),
        }
    }
}

impl<'a> IntoIterator for &'a Roots {
    type Item = &'a Root;
    type IntoIter = std::slice::Iter<'a, Root>;

    fn into_iter(self) -> Self::IntoIter {
        self.roots.iter()
    }
}

/// The [`SKILL_DIRS`] of one directory.
fn roots_in(dir: &Path, scope: Scope) -> impl Iterator<Item = Root> + '_ {
    SKILL_DIRS.into_iter().map(move |sub| Root {
        path: dir.join(sub),
        scope,
    })
}

/// The project `cwd` is in: the nearest ancestor (itself included) that holds `.git` (a
/// directory, or a worktree's file), else `cwd` itself. Where project skills, `skills.lock`
/// and project MCP configurations are looked for.
///
/// ```
/// let t = tempfile::tempdir()?;
/// std::fs::create_dir_all(t.path().join("repo/.git"))?;
/// std::fs::create_dir_all(t.path().join("repo/src/deep"))?;
/// let root = skills_discovery::project_root(&t.path().join("repo/src/deep"));
/// assert_eq!(root, t.path().join("repo"));
/// assert_eq!(skills_discovery::project_root(t.path()), t.path());
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use]
pub fn project_root(cwd: &Path) -> PathBuf {
    repository_root(cwd).unwrap_or(cwd).to_path_buf()
}

/// The nearest ancestor of `cwd` (itself included) that holds `.git`.
fn repository_root(cwd: &Path) -> Option<&Path> {
    cwd.ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| fs::symlink_metadata(d.join(".git")).is_ok())
}

/// Whether `id` can only name one entry directly inside a root.
pub(crate) fn is_valid_id(id: &str) -> bool {
    !(id.is_empty()
        || id == "."
        || id == ".."
        || id.contains(['/', '\\', '\0'])
        || (cfg!(windows) && id.contains(':')))
}

/// Checks one root for `id` directly inside it.
fn probe(root: &Root, id: &str, key: &str) -> Option<Skill> {
    let meta = fs::metadata(&root.path).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let ignores: Vec<_> = {
        let names: Vec<std::ffi::OsString> = [".gitignore", ".ignore"]
            .into_iter()
            .filter(|n| root.path.join(n).exists())
            .map(Into::into)
            .collect();
        read_ignore_files(&root.path, &names)
            .0
            .into_iter()
            .collect()
    };
    let skip_dir = |name: &str| skills_core::layout::is_skipped_dir(name.as_ref());
    // The exact spelling, then lower case (how ids are usually spelt), without a listing.
    let spellings: Vec<&str> = if id == key { vec![id] } else { vec![id, key] };
    if let Some(skill) = spellings
        .iter()
        .filter(|name| !skip_dir(name) && is_valid_id(name))
        .find_map(|name| probe_dir(root, &root.path.join(name), &ignores))
    {
        return Some(skill);
    }
    // Other spellings, from a listing of the root: directories first, as in a scan.
    let mut dirs = Vec::new();
    let mut flats = Vec::new();
    if let Ok(read) = fs::read_dir(&root.path) {
        for entry in read.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if same_id(name, key) {
                if !spellings.contains(&name) && !skip_dir(name) {
                    dirs.push(name.to_string());
                }
            } else if let Some(at) = name.len().checked_sub(3)
                && name
                    .get(at..)
                    .is_some_and(|ext| ext.eq_ignore_ascii_case(".md"))
                && let Some(stem) = name.get(..at).filter(|stem| same_id(stem, key))
                && !spellings.contains(&stem)
            {
                flats.push(name.to_string());
            }
        }
    }
    dirs.sort_unstable();
    flats.sort_unstable();
    if let Some(skill) = dirs
        .iter()
        .find_map(|name| probe_dir(root, &root.path.join(name), &ignores))
    {
        return Some(skill);
    }
    spellings
        .iter()
        .filter(|name| is_valid_id(name))
        .map(|name| format!("{name}.md"))
        .chain(flats)
        .find_map(|name| probe_flat(root, &root.path.join(name), &ignores))
}

/// Whether `name` is `key` (a lower-cased id) ignoring case, without allocating for ASCII
/// names, so a listing of thousands of entries stays cheap.
fn same_id(name: &str, key: &str) -> bool {
    if name.is_ascii() && key.is_ascii() {
        name.eq_ignore_ascii_case(key)
    } else {
        name.to_lowercase() == key
    }
}

fn probe_dir(
    root: &Root,
    dir: &Path,
    ignores: &[std::sync::Arc<ignore::gitignore::Gitignore>],
) -> Option<Skill> {
    if !fs::metadata(dir).is_ok_and(|m| m.is_dir()) || is_ignored(ignores, dir, true) {
        return None;
    }
    let exact = dir.join("SKILL.md");
    let skill_md = if fs::metadata(&exact).is_ok_and(|m| m.is_file()) {
        exact
    } else {
        let mut names: Vec<_> = fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| skills_core::layout::is_skill_md(n))
            .collect();
        names.sort_unstable();
        names
            .into_iter()
            .map(|n| dir.join(n))
            .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file()))?
    };
    probe_file(root, skill_md, dir, false)
}

fn probe_flat(
    root: &Root,
    file: &Path,
    ignores: &[std::sync::Arc<ignore::gitignore::Gitignore>],
) -> Option<Skill> {
    let name = file.file_name()?;
    if !matches!(flat_file(name), Flat::Skill) || is_ignored(ignores, file, false) {
        return None;
    }
    probe_file(root, file.to_path_buf(), &root.path, true)
}

fn probe_file(root: &Root, skill_md: PathBuf, dir: &Path, flat: bool) -> Option<Skill> {
    let stamp = Stamp::read(&skill_md)?;
    let id = skill_id(&skill_md, dir, flat);
    let meta = parse_meta(&skill_md, stamp.len(), flat, &id).ok()?;
    Some(Skill {
        id,
        name: meta.name,
        description: meta.description,
        dir: dir.to_path_buf(),
        skill_md,
        root: root.path.clone(),
        scope: root.scope,
        shadowed_by: None,
        flat,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use crate::test_support::{ids, skill, tmp, write};
    use crate::{Index, Roots, Scope};

    #[test]
    fn project_roots_walk_up_to_the_repository_root_and_stop() {
        let t = tmp();
        let outer = t.path().join("outer");
        let repo = outer.join("repo");
        let cwd = repo.join("sub/dir");
        fs::create_dir_all(&cwd).unwrap();
        // A worktree's `.git` is a file.
        write(&repo.join(".git"), "gitdir: /elsewhere\n");
        skill(&outer.join(".agents/skills/outside"));
        skill(&repo.join(".agents/skills/top"));
        write(
            &repo.join(".claude/skills/shared/SKILL.md"),
            "---\nname: shared\ndescription: The repository's. Use when sharing.\n---\nBody.\n",
        );
        skill(&cwd.join(".claude/skills/shared"));
        skill(&cwd.join(".claude/skills/deep"));
        let roots = Roots::default_for(&cwd, None);
        let dirs: Vec<&Path> = roots
            .iter()
            .map(|r| r.path.parent().unwrap().parent().unwrap())
            .collect();
        assert_eq!(dirs.len(), 9);
        assert_eq!(
            (dirs[0], dirs[3], dirs[6]),
            (cwd.as_path(), repo.join("sub").as_path(), repo.as_path())
        );
        let index = Index::scan(&roots);
        assert_eq!(ids(index.skills()), ["deep", "shared", "top"]);
        // The closest `shared` wins; the repository root's is shadowed.
        assert_eq!(
            index.get("shared").unwrap().dir,
            cwd.join(".claude/skills/shared")
        );
        assert_eq!(index.all().count(), 4);

        // Without a `.git` ancestor only the current directory is a project directory.
        let t = tmp();
        let cwd = t.path().join("x/y");
        fs::create_dir_all(&cwd).unwrap();
        skill(&t.path().join("x/.agents/skills/parent"));
        skill(&cwd.join(".agents/skills/here"));
        let roots = Roots::default_for(&cwd, None);
        assert_eq!(roots.as_slice().len(), 3);
        assert_eq!(ids(Index::scan(&roots).skills()), ["here"]);
    }

    #[test]
    fn find_agrees_with_the_scan_on_priority() {
        let t = tmp();
        let (proj, home) = (t.path().join("proj"), t.path().join("home"));
        skill(&proj.join(".claude/skills/git"));
        skill(&home.join(".agents/skills/git"));
        // A malformed direct hit is passed over, as the scan skips it.
        write(
            &proj.join(".agents/skills/pdf/SKILL.md"),
            "---\nname: pdf\n---\n",
        );
        skill(&home.join(".claude/skills/pdf"));
        // Nested below a root: only the full scan finds it.
        skill(&home.join(".agent/skills/group/nested"));
        // Nested in the project, direct in the home: the project's still wins.
        skill(&proj.join(".agents/skills/group/deploy"));
        skill(&home.join(".agents/skills/deploy"));
        let roots = Roots::default_for(&proj, Some(&home));
        let index = Index::scan(&roots);
        assert_eq!(roots.find("deploy").unwrap().scope, Scope::Project);
        for id in ["git", "pdf", "nested", "deploy"] {
            assert_eq!(roots.find(id).as_ref(), index.get(id), "{id}");
        }
        assert_eq!(roots.find("git").unwrap().scope, Scope::Project);
        assert_eq!(
            roots.find("pdf").unwrap().dir,
            home.join(".claude/skills/pdf")
        );
    }

    #[test]
    fn explicit_roots_replace_the_defaults() {
        let t = tmp();
        let (cwd, home) = (t.path().join("cwd"), t.path().join("home"));
        let dirs = [
            PathBuf::from("a"),
            PathBuf::from("/abs/b"),
            PathBuf::from("~/c"),
        ];
        let roots = Roots::resolve(&cwd, Some(&home), &dirs, Some("/env/x".as_ref()));
        let paths: Vec<&Path> = roots.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(
            paths,
            [cwd.join("a"), PathBuf::from("/abs/b"), home.join("c")]
        );
        assert!(roots.iter().all(|r| r.scope == Scope::Custom));

        let env = std::env::join_paths(["/env/x", "", "rel", "/env/x"]).unwrap();
        let roots = Roots::resolve(&cwd, Some(&home), &[], Some(&env));
        let paths: Vec<&Path> = roots.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(paths, [PathBuf::from("/env/x"), cwd.join("rel")]);

        let empty = Roots::resolve(&cwd, Some(&home), &[], Some("".as_ref()));
        assert_eq!(empty, Roots::default_for(&cwd, Some(&home)));
        assert_eq!(
            Roots::resolve(&cwd, None, &[], None),
            Roots::default_for(&cwd, None)
        );
    }
}
