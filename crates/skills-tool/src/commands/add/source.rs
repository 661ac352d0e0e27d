//! Fetching a source (a repository, a directory, an archive) and finding its skills.

use std::fs;
use std::path::{Path, PathBuf};

use skills_add::{AddError, Locked, Source};
use skills_lint::{Config, Linter};

use super::{Target, add_error, cache_dir, short};
use crate::args::DownloadArgs;
use crate::errors::plain as error;
use crate::printer::Printer;

/// A skill found in a source.
pub(super) struct Found {
    /// The name it installs as: the frontmatter `name`, else the directory's.
    pub(super) name: String,
    pub(super) dir: PathBuf,
    /// `/`-separated, relative to the source's root (empty for the root).
    pub(super) path: String,
    pub(super) description: String,
    pub(super) report: skills_lint::SkillReport,
}

/// Where a source's files are, and what the lock says of its origin.
pub(super) struct Fetched {
    /// Where skills are looked for (the source's path within the tree, when it names one).
    pub(super) root: PathBuf,
    /// The whole source tree: the checkout, the directory, the staged archive. Locked paths
    /// are relative to it.
    pub(super) tree: PathBuf,
    pub(super) url: Option<String>,
    pub(super) reference: Option<String>,
    pub(super) commit: Option<String>,
    /// The skill the source itself named (`owner/repo@skill`).
    pub(super) skill: Option<String>,
    /// Held while the files are read: the cache entry's lock, or a temporary directory.
    pub(super) _hold: Hold,
}

pub(super) enum Hold {
    None,
    Checkout(#[allow(dead_code)] skills_add::git::Checkout),
    Temp(#[allow(dead_code)] tempfile::TempDir),
}

/// Fetches `source` at `reference` (else its own, else the default branch); for a
/// repository, only the directory `sparse` (else the source's own path) is checked out.
pub(super) fn fetch(
    source: &str,
    reference: Option<&str>,
    sparse: Option<&str>,
    printer: &Printer,
    download: &DownloadArgs,
) -> Result<Fetched, miette::Report> {
    match skills_add::parse_source(source) {
        Source::Dir(dir) => Ok(Fetched {
            tree: dir.clone(),
            root: dir,
            url: None,
            reference: None,
            commit: None,
            skill: None,
            _hold: Hold::None,
        }),
        Source::Git(git) => {
            let wanted = reference.or(git.reference.as_deref());
            printer.status(&format!(
                "fetching {}{}\n",
                git.url,
                wanted.map(|r| format!(" at {r}")).unwrap_or_default()
            ));
            let sparse = sparse.or(git.path.as_deref());
            let checkout = skills_add::git::fetch(&cache_dir()?, &git.url, wanted, sparse)
                .map_err(|e| add_error(&e))?;
            let root = match &git.path {
                Some(path) => {
                    let sub = checkout.dir.join(path);
                    // The path comes from the user; it must stay in the checkout.
                    let inside = fs::canonicalize(&sub)
                        .ok()
                        .zip(fs::canonicalize(&checkout.dir).ok())
                        .is_some_and(|(s, c)| s.starts_with(c));
                    if !inside || !sub.is_dir() {
                        return Err(error(
                            format!(
                                "{}: no directory `{path}` at {}",
                                git.url,
                                short(&checkout.commit)
                            ),
                            "check the path in the source (owner/repo/PATH), and the ref",
                        ));
                    }
                    sub
                }
                None => checkout.dir.clone(),
            };
            Ok(Fetched {
                root,
                tree: checkout.dir.clone(),
                url: Some(git.url.clone()),
                reference: wanted.map(str::to_string),
                commit: Some(checkout.commit.clone()),
                skill: git.skill.clone(),
                _hold: Hold::Checkout(checkout),
            })
        }
        Source::Other(other) => {
            let temp = tempfile::tempdir().map_err(|e| {
                error(
                    format!("cannot create a temporary directory: {e}"),
                    "check TMPDIR",
                )
            })?;
            crate::stage::stage_source(&other, download, temp.path(), printer)?;
            Ok(Fetched {
                root: temp.path().to_path_buf(),
                tree: temp.path().to_path_buf(),
                url: None,
                reference: None,
                commit: None,
                skill: None,
                _hold: Hold::Temp(temp),
            })
        }
    }
}

/// The skills under `root`, linted, as `skills lint` walks, and those its
/// `.claude-plugin` manifests name; their paths relative to `tree`.
pub(super) fn find(root: &Path, tree: &Path) -> Result<Vec<Found>, miette::Report> {
    // Plugin manifests may name skills in hidden directories, which the walk skips.
    let mut paths = vec![root.to_path_buf()];
    paths.extend(skills_add::plugin_skill_dirs(root).map_err(|e| {
        error(
            e.to_string(),
            "fix the manifest's JSON (or point at a directory of the repository without it)",
        )
    })?);
    let report = Linter::new(Config::default())
        .lint_paths(&paths)
        .map_err(|e| error(e.to_string(), "the source could not be read"))?;
    let mut found: Vec<Found> = Vec::new();
    for skill in report.skills {
        if found.iter().any(|f| f.dir == skill.dir) {
            continue;
        }
        let dir_name = skill
            .dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let name = skill
            .name
            .clone()
            .filter(|n| skills_frontmatter::is_valid_name(n))
            .unwrap_or(dir_name);
        let path = skill
            .dir
            .strip_prefix(tree)
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default();
        let description = skills_core::fs::read_bounded_in(
            &skill.skill_md,
            &skill.dir,
            skills_frontmatter::MAX_FILE_BYTES,
        )
        .ok()
        .and_then(|bytes| {
            skills_frontmatter::SkillMd::parse(&bytes)
                .ok()
                .and_then(|md| md.description().map(str::to_string))
        })
        .unwrap_or_default();
        found.push(Found {
            name,
            dir: skill.dir.clone(),
            path,
            description,
            report: skill,
        });
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// The locked source of `entry` as given (a relative local path is relative to the lock's
/// directory), or its repository.
pub(super) fn locked_origin(entry: &Locked, target: &Target) -> String {
    if let Some(url) = &entry.url {
        return url.clone();
    }
    let path = Path::new(&entry.source);
    if path.is_relative() && target.base.join(path).exists() {
        return target.base.join(path).display().to_string();
    }
    entry.source.clone()
}

/// Fetches `entry`'s source at `reference` and finds the skill `name` at its locked path.
pub(super) fn locate(
    name: &str,
    entry: &Locked,
    target: &Target,
    reference: Option<&str>,
    printer: &Printer,
) -> Result<(Fetched, Found), miette::Report> {
    let source = locked_origin(entry, target);
    let sparse = Some(entry.path.as_str()).filter(|p| !p.is_empty());
    let fetched = fetch(
        &source,
        reference,
        sparse,
        printer,
        &DownloadArgs::default(),
    )?;
    let dir = if entry.path.is_empty() {
        fetched.tree.clone()
    } else {
        fetched.tree.join(&entry.path)
    };
    let gone = || {
        error(
            format!("{name}: no skill at `{}` in {source}", entry.path),
            "the source moved or dropped it; `skills add` it again from where it is now, or `skills remove` it",
        )
    };
    if !dir.is_dir() {
        return Err(gone());
    }
    let mut skill = find(&dir, &fetched.tree)?
        .into_iter()
        .find(|f| f.dir == dir)
        .ok_or_else(gone)?;
    // Installed under the locked name, whatever the source calls it now (lint says when
    // the two disagree).
    skill.name = name.to_string();
    Ok((fetched, skill))
}

/// The digest `skill` would have installed, computed from its files where they are (the
/// packaging file policy chooses them): `check` writes nothing.
pub(super) fn source_hash(skill: &Found) -> Result<String, miette::Report> {
    let collected =
        skills_package::collect_all(&skill.dir).map_err(|e| crate::errors::package(&e))?;
    skills_add::files_hash(
        collected
            .entries
            .iter()
            .map(|e| (e.path.as_str(), e.source.as_path())),
    )
    .map_err(|e| {
        add_error(&AddError::Io {
            path: skill.dir.clone(),
            source: e,
        })
    })
}
