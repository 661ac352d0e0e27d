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
    /// The registry the skill was looked up in, for a registry skill's name.
    pub(super) registry: Option<String>,
    /// The registry version installed, for a skill hosted there.
    pub(super) version: Option<String>,
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
    // `./repo@skill` names one skill of a local directory, as `owner/repo@skill` does of a
    // GitHub repository (the whole string is tried as a path first).
    if let Some((dir, skill)) = local_with_skill(source) {
        return Ok(Fetched {
            tree: dir.clone(),
            root: dir,
            url: None,
            reference: None,
            commit: None,
            registry: None,
            version: None,
            skill: Some(skill.to_string()),
            _hold: Hold::None,
        });
    }
    match skills_add::parse_source(source) {
        Source::Dir(dir) => Ok(Fetched {
            tree: dir.clone(),
            root: dir,
            url: None,
            reference: None,
            commit: None,
            registry: None,
            version: None,
            skill: None,
            _hold: Hold::None,
        }),
        Source::Git(git) => {
            let wanted = reference.or(git.reference.as_deref());
            let mut fetched =
                fetch_repository(&git.url, wanted, sparse.or(git.path.as_deref()), printer)?;
            if let Some(path) = &git.path {
                let sub = fetched.tree.join(path);
                // The path comes from the user; it must stay in the checkout.
                let inside = fs::canonicalize(&sub)
                    .ok()
                    .zip(fs::canonicalize(&fetched.tree).ok())
                    .is_some_and(|(s, c)| s.starts_with(c));
                if !inside || !sub.is_dir() {
                    return Err(error(
                        format!(
                            "{}: no directory `{path}` at {}",
                            git.url,
                            short(fetched.commit.as_deref().unwrap_or_default())
                        ),
                        "check the path in the source (owner/repo/PATH), and the ref",
                    ));
                }
                fetched.root = sub;
            }
            fetched.skill.clone_from(&git.skill);
            Ok(fetched)
        }
        Source::Other(other) => {
            let temp = tempfile::tempdir().map_err(|e| {
                error(
                    format!("cannot create a temporary directory: {e}"),
                    "check TMPDIR",
                )
            })?;
            let staged = crate::stage::stage_source(&other, download, temp.path(), printer)?;
            Ok(Fetched {
                root: temp.path().to_path_buf(),
                tree: temp.path().to_path_buf(),
                url: None,
                reference: None,
                commit: None,
                registry: staged.registry,
                version: staged.version,
                skill: None,
                _hold: Hold::Temp(temp),
            })
        }
    }
}

/// Fetches the repository `url` at `reference` (else its default branch), only the
/// directory `sparse` checked out when given: for a URL known to be a repository, which
/// [`fetch`] would read as a page or a download when it does not end in `.git`.
pub(super) fn fetch_repository(
    url: &str,
    reference: Option<&str>,
    sparse: Option<&str>,
    printer: &Printer,
) -> Result<Fetched, miette::Report> {
    printer.status(&format!(
        "fetching {url}{}\n",
        reference.map(|r| format!(" at {r}")).unwrap_or_default()
    ));
    let checkout =
        skills_add::git::fetch(&cache_dir()?, url, reference, sparse).map_err(|e| add_error(&e))?;
    Ok(Fetched {
        root: checkout.dir.clone(),
        tree: checkout.dir.clone(),
        url: Some(url.to_string()),
        reference: reference.map(str::to_string),
        commit: Some(checkout.commit.clone()),
        registry: None,
        version: None,
        skill: None,
        _hold: Hold::Checkout(checkout),
    })
}

/// The skills under `root`, linted, as `skills lint` walks, and those its
/// `.claude-plugin` manifests name; their paths relative to `tree`.
pub(super) fn find(
    root: &Path,
    tree: &Path,
    config: &Config,
) -> Result<Vec<Found>, miette::Report> {
    // Plugin manifests may name skills in hidden directories, which the walk skips.
    let mut paths = vec![root.to_path_buf()];
    paths.extend(skills_add::plugin_skill_dirs(root).map_err(|e| {
        error(
            e.to_string(),
            "fix the manifest's JSON (or point at a directory of the repository without it)",
        )
    })?);
    // A link in the source that leads out of it (`skills/more -> ../../../.claude/skills`)
    // would bring the machine's own files in, locked as the source's: not followed.
    let linter = Linter::new(config.clone())
        .with_links_within(tree)
        .map_err(|e| {
            error(
                format!("{}: {e}", tree.display()),
                "the source could not be read",
            )
        })?;
    let report = linter
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
/// directory: joined to it, without the `.` of `./vendor`, which messages would show), or
/// its repository.
pub(super) fn locked_origin(entry: &Locked, target: &Target) -> String {
    if let Some(url) = &entry.url {
        return url.clone();
    }
    let path = Path::new(&entry.source);
    let joined: PathBuf = target.base.join(path).components().collect();
    if path.is_relative() && joined.exists() {
        return joined.display().to_string();
    }
    entry.source.clone()
}

/// The skill `name` at `entry`'s locked path in a fetched source.
fn find_locked(
    fetched: &Fetched,
    name: &str,
    entry: &Locked,
    source: &str,
    config: &Config,
) -> Result<Found, miette::Report> {
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
    // The locked skill is the directory itself: without a SKILL.md there is nothing to
    // look for below it (a lock naming `/` as its source walked the whole machine).
    if !dir.is_dir() || !skills_core::fs::join(&dir, skills_core::layout::SKILL_MD).is_file() {
        return Err(gone());
    }
    let mut skill = find(&dir, &fetched.tree, config)?
        .into_iter()
        .find(|f| f.dir == dir)
        .ok_or_else(gone)?;
    // Installed under the locked name, whatever the source calls it now (lint says when
    // the two disagree).
    skill.name = name.to_string();
    Ok(skill)
}

/// Where a locked skill is fetched from: its source, its registry (for a registry skill)
/// and the ref asked for.
type SourceKey = (String, Option<String>, Option<String>);

/// Why a source could not be fetched: the error's message and its help.
type Unfetched = (String, Option<String>);

/// Locked skills fetched source by source: each source (and ref) once per run, however many
/// skills come from it (`check` of 511 skills from one repository fetched it 511 times).
/// One checkout is held at a time (a second fetch of the same repository would wait on the
/// first's cache lock), so [`Sources::order`] puts the skills of one source together.
pub(super) struct Sources {
    /// How many skills of the run each source has: one is fetched sparsely (its directory
    /// alone), more as a whole tree.
    counts: std::collections::HashMap<SourceKey, usize>,
    /// The source fetched last, or why it could not be: the message and its help (the
    /// failure is told for each of its skills).
    current: Option<(SourceKey, Result<Fetched, Unfetched>)>,
}

impl Sources {
    /// `entries` in fetching order (by source and ref, then by name), and the cache to fetch
    /// them through. `reference` is the ref each is fetched at (`check` and `update` ask for
    /// the locked ref, `sync` for the locked commit).
    pub(super) fn order<'a>(
        entries: impl IntoIterator<Item = (&'a String, &'a Locked)>,
        target: &Target,
        reference: fn(&Locked) -> Option<&str>,
    ) -> (Vec<(&'a String, &'a Locked)>, Self) {
        let key = |entry: &Locked| -> SourceKey {
            (
                locked_origin(entry, target),
                entry.registry.clone(),
                reference(entry).map(str::to_string),
            )
        };
        let mut keyed: Vec<(SourceKey, (&String, &Locked))> =
            entries.into_iter().map(|e| (key(e.1), e)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.0.cmp(b.1.0)));
        let mut counts = std::collections::HashMap::new();
        for (k, _) in &keyed {
            *counts.entry(k.clone()).or_insert(0) += 1;
        }
        let ordered = keyed.into_iter().map(|(_, e)| e).collect();
        (
            ordered,
            Self {
                counts,
                current: None,
            },
        )
    }

    /// The skill `name` of `entry`, from its source fetched at `reference` (once for all the
    /// skills of that source in a row).
    pub(super) fn locate(
        &mut self,
        name: &str,
        entry: &Locked,
        target: &Target,
        reference: Option<&str>,
        printer: &Printer,
    ) -> Result<(&Fetched, Found), miette::Report> {
        let source = locked_origin(entry, target);
        let key: SourceKey = (
            source.clone(),
            entry.registry.clone(),
            reference.map(str::to_string),
        );
        if self.current.as_ref().is_none_or(|(k, _)| *k != key) {
            // The previous checkout is released before the next fetch.
            self.current = None;
            let many = self.counts.get(&key).copied().unwrap_or(1) > 1;
            let sparse = Some(entry.path.as_str()).filter(|p| !p.is_empty() && !many);
            // `sync` asks for the locked version (its reference); `check` and `update` for
            // the latest.
            let locked_version = reference
                .filter(|r| entry.version.as_deref() == Some(*r))
                .map(str::to_string);
            let download = DownloadArgs {
                locked_registry: entry.registry.clone(),
                locked_version,
                ..DownloadArgs::default()
            };
            let fetched = match unlocked_registry(name, entry, &source) {
                Some(missing) => Err((missing, None)),
                None => fetch(&source, reference, sparse, printer, &download)
                    .map_err(|e| (e.to_string(), e.help().map(|h| h.to_string()))),
            };
            self.current = Some((key, fetched));
        }
        match self.current.as_ref().map(|(_, f)| f) {
            Some(Ok(fetched)) => {
                let skill = find_locked(fetched, name, entry, &source, &target.lint)?;
                Ok((fetched, skill))
            }
            Some(Err((message, help))) => Err(error(
                message.clone(),
                help.clone().unwrap_or_else(|| {
                    "check the source in the lock, and that you can reach it".to_string()
                }),
            )),
            None => Err(error("the source was not fetched", "report this bug")),
        }
    }
}

/// Why a locked registry skill cannot be fetched, when it cannot: `source` is a name (no
/// path of that name is here), its entry has no registry (a lock written before entries
/// recorded one), and none is configured. `None` when it can be tried.
fn unlocked_registry(name: &str, entry: &Locked, source: &str) -> Option<String> {
    if entry.registry.is_some()
        || entry.url.is_some()
        || !crate::registry_client::is_skill_name(source)
    {
        return None;
    }
    match crate::registry_client::Client::configured(None) {
        // A skills.toml that cannot be read is said by the fetch, which reads it again.
        Ok(Some(_)) | Err(_) => None,
        Ok(None) => Some(format!(
            "{name}: `{source}` names no path here, its lock entry names no registry (a lock written before entries recorded theirs), and no registry is configured: set {} to the registry's URL (or `url` under [registry] in skills.toml); `skills update {name}` then records it in the lock",
            crate::registry_client::REGISTRY_ENV
        )),
    }
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

/// `DIR@skill` for a local directory: the directory and the skill's name, when `source` is
/// not itself a path that exists, `DIR` is a directory and `skill` a skill name.
fn local_with_skill(source: &str) -> Option<(PathBuf, &str)> {
    let (dir, skill) = source.rsplit_once('@')?;
    if Path::new(source).exists() || !skills_frontmatter::is_valid_name(skill) {
        return None;
    }
    let Source::Dir(dir) = skills_add::parse_source(dir) else {
        return None;
    };
    Some((dir, skill))
}
