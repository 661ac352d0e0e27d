//! `skills add`, `sync`, `check`, `update` and `remove`: skills from git repositories,
//! directories and archives
//! into the canonical `.agents/skills` and every agent's folder, recorded in `skills.lock`
//! (`skills-add` does the parts; this module puts them together and reports).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use skills_add::{AddError, Lock, Locked, Scope, Source};
use skills_lint::{Config, Linter};

use crate::args::{AddArgs, CheckArgs, DownloadArgs, RemoveArgs, SyncArgs, UpdateArgs};
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// Where a run installs: the scope, its base (project root or home), the canonical root
/// and the lock file.
struct Target {
    scope: Scope,
    base: PathBuf,
    canonical: PathBuf,
    lock: PathBuf,
}

impl Target {
    fn new(global: bool) -> Result<Self, miette::Report> {
        let (scope, base) = if global {
            (Scope::Global, home()?)
        } else {
            (Scope::Project, super::install::project_root()?)
        };
        let lock = match scope {
            Scope::Project => base.join(skills_add::LOCK_FILE),
            Scope::Global => skills_add::global_lock_path(&base),
        };
        Ok(Self {
            scope,
            canonical: base.join(skills_add::UNIVERSAL_DIR),
            base,
            lock,
        })
    }

    fn read_lock(&self) -> Result<Lock, miette::Report> {
        Lock::read(&self.lock).map_err(|e| add_error(&e))
    }

    /// Holds the lock file against other `skills` processes until dropped: taken before the
    /// lock is read by a command that writes it.
    fn hold(&self) -> Result<skills_add::LockGuard, miette::Report> {
        skills_add::hold(&cache_dir()?, &self.lock).map_err(|e| add_error(&e))
    }

    /// The folder `agent` reads skills from, after checking that it stays in the project.
    fn agent_dir(&self, agent: &skills_add::Agent) -> Result<PathBuf, miette::Report> {
        let dir = agent.dir(self.scope, &self.base);
        self.contain(&dir)?;
        Ok(dir)
    }

    /// In a project, every folder written to must be inside it: a repository can commit
    /// `.agents` or `.claude/skills` as a symbolic link to any folder of the user's, and
    /// skills would then be written there.
    fn contain(&self, dir: &Path) -> Result<(), miette::Report> {
        if self.scope != Scope::Project {
            return Ok(());
        }
        let Some(real) = dir.ancestors().find_map(|a| fs::canonicalize(a).ok()) else {
            return Ok(());
        };
        let base = fs::canonicalize(&self.base).unwrap_or_else(|_| self.base.clone());
        if real.starts_with(&base) {
            return Ok(());
        }
        Err(error(
            format!(
                "{} leads outside the project, to {}: nothing was written",
                render::relative(dir),
                real.display()
            ),
            "a folder of the project is a symbolic link out of it (a repository can commit one); remove the link, or install for yourself with --global",
        ))
    }

    fn write_lock(&self, lock: &Lock) -> Result<(), miette::Report> {
        if let Some(parent) = self.lock.parent() {
            fs::create_dir_all(parent).map_err(|e| {
                add_error(&AddError::Io {
                    path: parent.to_path_buf(),
                    source: e,
                })
            })?;
        }
        lock.write(&self.lock).map_err(|e| add_error(&e))
    }
}

fn home() -> Result<PathBuf, miette::Report> {
    std::env::home_dir()
        .filter(|h| !h.as_os_str().is_empty())
        .ok_or_else(|| error("no home directory", "set HOME"))
}

/// The cache of fetched repositories: `SKILLS_CACHE_DIR`, else `$XDG_CACHE_HOME/skills`,
/// else `~/.cache/skills`.
fn cache_dir() -> Result<PathBuf, miette::Report> {
    if let Some(dir) = std::env::var_os("SKILLS_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
    {
        return Ok(dir.join("skills"));
    }
    Ok(home()?.join(".cache/skills"))
}

pub(crate) fn add_error(e: &AddError) -> miette::Report {
    let help = match e {
        AddError::GitMissing => "install git (https://git-scm.com), then run this again".to_string(),
        AddError::Git { .. } => "check the repository URL and the ref, and that you can `git clone` it (private repositories use your git credentials)".to_string(),
        AddError::Lock { .. } => "fix the lock file by hand, or delete it and add the skills again".to_string(),
        AddError::Occupied { .. } => "it is not a skill `skills add` put there: move it away, or pass --force to replace it".to_string(),
        _ => "check the path and its permissions".to_string(),
    };
    error(e.to_string(), help)
}

/// A skill found in a source.
struct Found {
    /// The name it installs as: the frontmatter `name`, else the directory's.
    name: String,
    dir: PathBuf,
    /// `/`-separated, relative to the source's root (empty for the root).
    path: String,
    description: String,
    report: skills_lint::SkillReport,
}

/// Where a source's files are, and what the lock says of its origin.
struct Fetched {
    /// Where skills are looked for (the source's path within the tree, when it names one).
    root: PathBuf,
    /// The whole source tree: the checkout, the directory, the staged archive. Locked paths
    /// are relative to it.
    tree: PathBuf,
    url: Option<String>,
    reference: Option<String>,
    commit: Option<String>,
    /// The skill the source itself named (`owner/repo@skill`).
    skill: Option<String>,
    /// Held while the files are read: the cache entry's lock, or a temporary directory.
    _hold: Hold,
}

enum Hold {
    None,
    Checkout(#[allow(dead_code)] skills_add::git::Checkout),
    Temp(#[allow(dead_code)] tempfile::TempDir),
}

/// Fetches `source` at `reference` (else its own, else the default branch); for a
/// repository, only the directory `sparse` (else the source's own path) is checked out.
fn fetch(
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
            super::install::stage_source(&other, download, temp.path(), printer)?;
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

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The skills under `root`, linted, as `skills lint` walks, and those its
/// `.claude-plugin` manifests name; their paths relative to `tree`.
fn find(root: &Path, tree: &Path) -> Result<Vec<Found>, miette::Report> {
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

fn errors_in(report: &skills_lint::SkillReport) -> usize {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == skills_lint::Severity::Error)
        .count()
}

pub(crate) fn add(args: &AddArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    let fetched = fetch(&args.source, None, None, printer, &args.download)?;
    let found = find(&fetched.root, &fetched.tree)?;
    if found.is_empty() {
        return Err(error(
            format!("no skills in {}", args.source),
            "a skill is a directory with a SKILL.md; point at the repository or directory that holds them",
        )
        .into());
    }
    if args.list {
        for skill in &found {
            let state = if errors_in(&skill.report) > 0 {
                "  (lint errors)"
            } else {
                ""
            };
            let path = if skill.path.is_empty() {
                "."
            } else {
                &skill.path
            };
            printer.out(&format!(
                "{}  {path}{state}\n    {}\n",
                skill.name,
                render::terminal_safe(skill.description.lines().next().unwrap_or_default())
            ))?;
        }
        return Ok(ExitStatus::Success);
    }
    let mut wanted: BTreeSet<String> = args.skills.iter().map(|s| s.to_ascii_lowercase()).collect();
    if let Some(skill) = &fetched.skill {
        wanted.insert(skill.to_ascii_lowercase());
    }
    let selected: Vec<&Found> = if args.all || wanted.iter().any(|w| w == "*") {
        found.iter().collect()
    } else if wanted.is_empty() {
        if found.len() > 1 {
            let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
            return Err(error(
                format!("{} has {} skills: {}", args.source, found.len(), names.join(", ")),
                "pick with --skill NAME (repeatable) or take them all with --all; --list shows them",
            )
            .into());
        }
        found.iter().collect()
    } else {
        for w in &wanted {
            if !found.iter().any(|f| f.name == *w) {
                let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
                let hint = skills_core::suggest::closest(w, names.iter().copied())
                    .first()
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                return Err(error(
                    format!("no skill `{w}` in {}", args.source),
                    format!("{hint}the skills there: {}", names.join(", ")),
                )
                .into());
            }
        }
        found.iter().filter(|f| wanted.contains(&f.name)).collect()
    };
    let agents = agents(args, &target)?;
    target.contain(&target.canonical)?;
    let _held = target.hold()?;
    let mut lock = target.read_lock()?;
    let mut failed = false;
    for skill in selected {
        if errors_in(&skill.report) > 0 {
            let mut one = skills_lint::Report::default();
            one.skills.push(skill.report.clone());
            printer.err(&render::human::report(printer.ui(), &one, false));
            printer.err(&format!(
                "error: {} not added: the skill has lint errors\n",
                skill.name
            ));
            failed = true;
            continue;
        }
        let replace = args.force || lock.skills.contains_key(&skill.name);
        let (installed, hash) = install(skill, &target, replace, None, printer)?;
        let previous = lock.skills.get(&skill.name);
        let mut linked = Vec::new();
        for agent in &agents {
            let dir = target.agent_dir(agent)?;
            // A copy identical to what was installed is ours too: a run killed before it
            // wrote the lock left it, and this run finishes the job.
            let ours = previous.is_some_and(|p| p.agents.iter().any(|a| a == agent.id))
                || (skills_add::state(&dir, &skill.name, &installed)
                    == skills_add::AgentState::Dir
                    && skills_add::tree_hash(&dir.join(&skill.name))
                        .ok()
                        .as_deref()
                        == Some(hash.as_str()));
            skills_add::place(&dir, &skill.name, &installed, args.copy, args.force || ours)
                .map_err(|e| add_error(&e))?;
            linked.push(agent.id.to_string());
        }
        let mut entry = Locked::new(
            locked_source(&args.source, &target),
            skill.path.clone(),
            hash,
        );
        entry.url.clone_from(&fetched.url);
        entry.reference.clone_from(&fetched.reference);
        entry.commit.clone_from(&fetched.commit);
        linked.sort();
        entry.agents = linked;
        let agents_text = if entry.agents.is_empty() {
            String::new()
        } else {
            format!(" (linked into {})", entry.agents.join(", "))
        };
        lock.skills.insert(skill.name.clone(), entry);
        // After each skill: a run stopped half-way leaves a lock of what is there.
        target.write_lock(&lock)?;
        printer.out(&format!(
            "added {}{} -> {}{agents_text}\n",
            skill.name,
            fetched
                .commit
                .as_deref()
                .map(|c| format!(" @ {}", short(c)))
                .unwrap_or_default(),
            render::relative(&installed)
        ))?;
    }
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// A local source as the lock keeps it: relative to the lock's directory when it is under
/// it (a lock that moves with its repository still works), else as given.
fn locked_source(source: &str, target: &Target) -> String {
    let path = Path::new(source);
    if path.is_absolute()
        && let Ok(rel) = path.strip_prefix(&target.base)
    {
        return format!("./{}", rel.display());
    }
    source.to_string()
}

/// `--agent` (validated), else the agents detected under the target's base.
fn agents(
    args: &AddArgs,
    target: &Target,
) -> Result<Vec<&'static skills_add::Agent>, miette::Report> {
    if args.agents.iter().any(|a| a == "*" || a == "all") {
        return Ok(skills_add::AGENTS
            .iter()
            .filter(|a| !a.reads_universal(target.scope))
            .collect());
    }
    if args.agents.is_empty() {
        return Ok(skills_add::agents::detected(target.scope, &target.base));
    }
    let mut out = Vec::new();
    for id in &args.agents {
        let Some(agent) = skills_add::agents::by_id(id) else {
            let ids: Vec<&str> = skills_add::AGENTS.iter().map(|a| a.id).collect();
            return Err(error(
                format!("unknown agent `{id}`"),
                format!(
                    "the agents: {} (docs/add.md lists their folders)",
                    ids.join(", ")
                ),
            ));
        };
        if !agent.reads_universal(target.scope) && !out.contains(&agent) {
            out.push(agent);
        }
    }
    Ok(out)
}

/// Copies the skill into a staging directory in the canonical root, checks its digest
/// there (against `expect`, the lock's, when given), then renames it into place, replacing
/// what is there only when `replace` or when it is the same files (what a run killed before
/// it wrote the lock left). Returns where it went and its digest.
fn install(
    skill: &Found,
    target: &Target,
    replace: bool,
    expect: Option<&str>,
    printer: &Printer,
) -> Result<(PathBuf, String), miette::Report> {
    // The name becomes a folder: one that is not a skill name (`..`, `a/b`, an absolute
    // path) could name any folder. Lock names are checked when the lock is read; this holds
    // for every other way a name arrives.
    if !skills_frontmatter::is_valid_name(&skill.name) {
        return Err(error(
            format!(
                "`{}` is not a skill name; nothing was installed",
                render::terminal_safe(&skill.name)
            ),
            "a skill's name is lowercase letters, digits and single hyphens (at most 64 characters): fix the `name` in its SKILL.md",
        ));
    }
    let root = &target.canonical;
    fs::create_dir_all(root).map_err(|e| {
        error(
            format!(
                "{}: cannot create the skills directory: {e}",
                root.display()
            ),
            "check that the directory is writable",
        )
    })?;
    let staging = super::install::staging_in(root)?;
    super::install::stage_dir_as(&skill.dir, &skill.name, staging.path(), printer)?;
    let staged = staging.path().join(&skill.name);
    let hash = skills_add::tree_hash(&staged).map_err(|e| {
        add_error(&AddError::Io {
            path: staged.clone(),
            source: e,
        })
    })?;
    if let Some(expect) = expect
        && hash != expect
    {
        return Err(error(
            format!(
                "{}: the source's files differ from the lock ({hash}, locked {expect}); nothing was installed",
                skill.name
            ),
            "the source changed under the same commit or path; check it, then `skills add` it again to lock what it has now",
        ));
    }
    let same = || {
        skills_add::tree_hash(&root.join(&skill.name))
            .ok()
            .is_some_and(|there| there == hash)
    };
    let replace = replace || same();
    let installed =
        skills_package::install_dir(&staged, root, &skill.name, replace).map_err(|e| match e {
            skills_package::PackageError::AlreadyInstalled { path } => error(
                format!(
                    "{}: a skill named {} is already installed, not by `skills add`",
                    path.display(),
                    skill.name
                ),
                "pass --force to replace it",
            ),
            other => crate::errors::package(&other),
        })?;
    Ok((installed, hash))
}

pub(crate) fn sync(args: &SyncArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    let _held = if args.frozen {
        None
    } else {
        Some(target.hold()?)
    };
    let lock = target.read_lock()?;
    if lock.skills.is_empty() {
        printer.status(&format!(
            "{}: no skills locked\n",
            render::relative(&target.lock)
        ));
        return Ok(ExitStatus::Success);
    }
    let mut drift = Vec::new();
    let mut fixed = 0usize;
    for (name, entry) in &lock.skills {
        let installed = target.canonical.join(name);
        let hash = skills_add::tree_hash(&installed).ok();
        if hash.as_deref() != Some(entry.hash.as_str()) {
            let why = if hash.is_none() {
                "missing"
            } else {
                "modified"
            };
            if args.frozen {
                drift.push(format!("{name}: {why} ({})", render::relative(&installed)));
            } else {
                restore(name, entry, &target, printer)?;
                fixed += 1;
            }
        }
        for id in &entry.agents {
            let Some(agent) = skills_add::agents::by_id(id) else {
                drift.push(format!("{name}: unknown agent `{id}` in the lock"));
                continue;
            };
            let dir = target.agent_dir(agent)?;
            let state = skills_add::state(&dir, name, &installed);
            let fine = match state {
                skills_add::AgentState::Linked => true,
                skills_add::AgentState::Dir => {
                    skills_add::tree_hash(&dir.join(name)).ok().as_deref()
                        == Some(entry.hash.as_str())
                }
                _ => false,
            };
            if fine {
                continue;
            }
            if args.frozen {
                drift.push(format!(
                    "{name}: not in {}'s folder ({})",
                    agent.name,
                    render::relative(&dir.join(name))
                ));
                continue;
            }
            skills_add::place(&dir, name, &installed, false, true).map_err(|e| add_error(&e))?;
            fixed += 1;
        }
    }
    if !drift.is_empty() {
        for line in &drift {
            printer.err(&format!("drift: {line}\n"));
        }
        printer.err(&format!(
            "error: the skills differ from {} in {} place(s); run `skills sync` to make them match\n",
            render::relative(&target.lock),
            drift.len()
        ));
        return Ok(ExitStatus::Failure);
    }
    printer.out(&format!(
        "{} skill(s) match {}{}\n",
        lock.skills.len(),
        render::relative(&target.lock),
        if fixed > 0 {
            format!(" ({fixed} fixed)")
        } else {
            String::new()
        }
    ))?;
    Ok(ExitStatus::Success)
}

/// Installs `name` again from its locked source and commit; its digest must be the lock's.
fn restore(
    name: &str,
    entry: &Locked,
    target: &Target,
    printer: &Printer,
) -> Result<(), miette::Report> {
    let (_fetched, skill) = locate(name, entry, target, entry.commit.as_deref(), printer)?;
    if errors_in(&skill.report) > 0 {
        return Err(error(
            format!("{name}: the locked version has lint errors"),
            "`skills add` a fixed version",
        ));
    }
    target.contain(&target.canonical)?;
    install(&skill, target, true, Some(&entry.hash), printer)?;
    printer.status(&format!("restored {name}\n"));
    Ok(())
}

/// The locked source of `entry` as given (a relative local path is relative to the lock's
/// directory), or its repository.
fn locked_origin(entry: &Locked, target: &Target) -> String {
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
fn locate(
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

/// The locked skills `names` names (all of them when empty), or an error naming the first
/// that is not locked.
fn selected<'a>(
    lock: &'a Lock,
    names: &[String],
    target: &Target,
) -> Result<Vec<(&'a String, &'a Locked)>, miette::Report> {
    if names.is_empty() {
        return Ok(lock.skills.iter().collect());
    }
    let mut out = Vec::new();
    for name in names {
        let Some((key, entry)) = lock.skills.get_key_value(&name.to_ascii_lowercase()) else {
            let locked: Vec<&str> = lock.skills.keys().map(String::as_str).collect();
            let hint = skills_core::suggest::closest(name, locked.iter().copied())
                .first()
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            return Err(error(
                format!("`{name}` is not in {}", render::relative(&target.lock)),
                format!("{hint}`skills sync` lists what is locked; `skills add` installs"),
            ));
        };
        out.push((key, entry));
    }
    Ok(out)
}

/// The digest `skill` would have installed, computed from its files where they are (the
/// packaging file policy chooses them): `check` writes nothing.
fn source_hash(skill: &Found) -> Result<String, miette::Report> {
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

/// How the installed copy of a locked skill compares with the lock.
fn local_state(target: &Target, name: &str, entry: &Locked) -> Option<&'static str> {
    match skills_add::tree_hash(&target.canonical.join(name)) {
        Ok(hash) if hash == entry.hash => None,
        Ok(_) => Some("modified here"),
        Err(_) => Some("missing"),
    }
}

pub(crate) fn check(args: &CheckArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    let lock = target.read_lock()?;
    let mut differs = 0usize;
    for (name, entry) in selected(&lock, &args.names, &target)? {
        let mut notes = Vec::new();
        if let Some(state) = local_state(&target, name, entry) {
            notes.push(state.to_string());
        }
        match locate(name, entry, &target, entry.reference.as_deref(), printer) {
            Ok((fetched, skill)) => {
                if source_hash(&skill)? != entry.hash {
                    let commits = match (&entry.commit, &fetched.commit) {
                        (Some(old), Some(new)) if old != new => {
                            format!(" ({} -> {})", short(old), short(new))
                        }
                        _ => String::new(),
                    };
                    notes.push(format!("changed at the source{commits}"));
                }
            }
            Err(e) => notes.push(format!("cannot check the source: {e}")),
        }
        if notes.is_empty() {
            printer.out(&format!("{name}: up to date\n"))?;
        } else {
            differs += 1;
            printer.out(&format!("{name}: {}\n", notes.join("; ")))?;
        }
    }
    if differs > 0 {
        printer.status(&format!(
            "{differs} skill(s) differ: `skills update` installs the source's version, `skills sync` the locked one\n"
        ));
        return Ok(ExitStatus::Failure);
    }
    Ok(ExitStatus::Success)
}

pub(crate) fn update(args: &UpdateArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    target.contain(&target.canonical)?;
    let _held = target.hold()?;
    let mut lock = target.read_lock()?;
    let chosen: Vec<(String, Locked)> = selected(&lock, &args.names, &target)?
        .into_iter()
        .map(|(n, e)| (n.clone(), e.clone()))
        .collect();
    let mut failed = false;
    for (name, entry) in chosen {
        let (fetched, skill) =
            match locate(&name, &entry, &target, entry.reference.as_deref(), printer) {
                Ok(found) => found,
                Err(e) => {
                    printer.error(e.as_ref());
                    failed = true;
                    continue;
                }
            };
        if local_state(&target, &name, &entry) == Some("modified here") && !args.force {
            // What a run killed between the install and the lock left is the new version,
            // not a change of the user's.
            let installed = skills_add::tree_hash(&target.canonical.join(&name)).ok();
            if installed != Some(source_hash(&skill)?) {
                printer.err(&format!(
                    "error: {name} was modified here since it was installed; not updated (pass --force to replace the changes)\n"
                ));
                failed = true;
                continue;
            }
        }
        if errors_in(&skill.report) > 0 {
            let mut one = skills_lint::Report::default();
            one.skills.push(skill.report.clone());
            printer.err(&render::human::report(printer.ui(), &one, false));
            printer.err(&format!(
                "error: {name} not updated: the new version has lint errors (the installed one stays)\n"
            ));
            failed = true;
            continue;
        }
        let (installed, hash) = install(&skill, &target, true, None, printer)?;
        for id in &entry.agents {
            if let Some(agent) = skills_add::agents::by_id(id) {
                let dir = target.agent_dir(agent)?;
                let copy =
                    skills_add::state(&dir, &name, &installed) == skills_add::AgentState::Dir;
                skills_add::place(&dir, &name, &installed, copy, true)
                    .map_err(|e| add_error(&e))?;
            }
        }
        let changed = hash != entry.hash;
        let mut updated = entry.clone();
        updated.hash = hash;
        updated.commit.clone_from(&fetched.commit);
        lock.skills.insert(name.clone(), updated);
        target.write_lock(&lock)?;
        let line = match (changed, &entry.commit, &fetched.commit) {
            (false, _, _) => format!("{name}: up to date\n"),
            (true, Some(old), Some(new)) => {
                format!("updated {name} {} -> {}\n", short(old), short(new))
            }
            (true, _, _) => format!("updated {name}\n"),
        };
        printer.out(&line)?;
    }
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

pub(crate) fn remove(args: &RemoveArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    target.contain(&target.canonical)?;
    let _held = target.hold()?;
    let mut lock = target.read_lock()?;
    let names: Vec<String> = selected(&lock, &args.names, &target)?
        .into_iter()
        .map(|(n, _)| n.clone())
        .collect();
    for name in names {
        let Some(entry) = lock.skills.get(&name).cloned() else {
            continue;
        };
        let installed = target.canonical.join(&name);
        let mut from = Vec::new();
        for id in &entry.agents {
            let Some(agent) = skills_add::agents::by_id(id) else {
                continue;
            };
            let dir = target.agent_dir(agent)?;
            let ours = match skills_add::state(&dir, &name, &installed) {
                skills_add::AgentState::Linked => true,
                skills_add::AgentState::Dir => {
                    skills_add::tree_hash(&dir.join(&name)).ok().as_deref()
                        == Some(entry.hash.as_str())
                }
                _ => false,
            };
            if ours {
                skills_add::unplace(&dir, &name).map_err(|e| add_error(&e))?;
                from.push(agent.id);
            } else if std::fs::symlink_metadata(dir.join(&name)).is_ok() {
                printer.warn(&format!(
                    "{} was changed since it was installed; left in place\n",
                    render::relative(&dir.join(&name))
                ));
            }
        }
        skills_add::unplace(&target.canonical, &name).map_err(|e| add_error(&e))?;
        lock.skills.remove(&name);
        target.write_lock(&lock)?;
        let agents = if from.is_empty() {
            String::new()
        } else {
            format!(" and from {}", from.join(", "))
        };
        printer.out(&format!(
            "removed {name} from {}{agents}\n",
            render::relative(&target.canonical)
        ))?;
    }
    Ok(ExitStatus::Success)
}
