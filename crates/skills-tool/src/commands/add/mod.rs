//! `skills add`, `sync`, `check`, `update` and `remove`: skills from git repositories,
//! directories and archives into the canonical `.agents/skills` and every agent's folder,
//! recorded in `skills.lock` (`skills-add` does the parts; these modules put them together
//! and report). This file is `add` and what the five share (where a run installs, the
//! one-step install); `source` fetches and finds skills; `sync`, `update` (with `check`)
//! and `remove` are the others.

mod npm;
mod remove;
mod source;
mod sync;
mod update;

pub(crate) use remove::remove;
pub(crate) use sync::sync;
pub(crate) use update::{check, update};

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use skills_add::{AddError, Lock, Locked, Scope};

use crate::args::AddArgs;
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;
use crate::settings::cache_dir;
use source::{Found, fetch, find};

/// Where a run installs: the scope, its base (project root or home), the canonical root
/// and the lock file.
struct Target {
    scope: Scope,
    base: PathBuf,
    canonical: PathBuf,
    lock: PathBuf,
    /// The project's `[lint]` settings (its nearest skills.toml), which decide what a lint
    /// error is for what is installed there; the defaults for `--global`.
    lint: skills_lint::Config,
}

impl Target {
    fn new(global: bool) -> Result<Self, miette::Report> {
        let (scope, base) = if global {
            (Scope::Global, home()?)
        } else {
            (Scope::Project, crate::settings::project_root()?)
        };
        let lock = match scope {
            Scope::Project => base.join(skills_add::LOCK_FILE),
            Scope::Global => skills_add::global_lock_path(&base),
        };
        let lint = match scope {
            Scope::Project => {
                skills_lint::Config::discover(&base).map_err(crate::errors::config)?
            }
            Scope::Global => skills_lint::Config::default(),
        };
        Ok(Self {
            scope,
            canonical: base.join(skills_add::UNIVERSAL_DIR),
            base,
            lock,
            lint,
        })
    }

    /// The auditor of what is installed here: the project's `[audit] allow` entries (its
    /// nearest skills.toml), none for `--global`.
    fn auditor(&self) -> Result<skills_audit::Auditor, miette::Report> {
        crate::risk::auditor(match self.scope {
            Scope::Project => Some(&self.base),
            Scope::Global => None,
        })
    }

    /// `SOURCE:PATH/FILE`: a file of a locked skill, named in its source, for findings.
    fn in_source(entry: &Locked, file: &str) -> String {
        let path = if entry.path.is_empty() {
            file.to_string()
        } else {
            format!("{}/{file}", entry.path)
        };
        format!("{}:{path}", entry.source)
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
        let Some(dir) = agent.dir(self.scope, &self.base) else {
            return Err(project_only(agent));
        };
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

pub(crate) fn add_error(e: &AddError) -> miette::Report {
    let help = match e {
        AddError::GitMissing => "install git (https://git-scm.com), then run this again".to_string(),
        AddError::Git { .. } => "check the repository URL and the ref, and that you can `git clone` it (private repositories use your git credentials)".to_string(),
        AddError::Lock { .. } => "fix the lock file by hand, or delete it and add the skills again".to_string(),
        AddError::Occupied { .. } => "it is not a skill `skills add` put there: move it away, or pass --force to replace it".to_string(),
        AddError::NotPlaced { .. } => "check that folder's permissions and free space; nothing of this skill was left there".to_string(),
        _ => "check the path and its permissions".to_string(),
    };
    error(e.to_string(), help)
}

/// Why what is at `dir/name` is not ours to replace for a locked skill: a copy whose files
/// are none of `hashes` (edited by hand), a file, a link somewhere else. `None` when it is:
/// nothing there, a link to the canonical copy `canonical`, or a copy of `hashes`' files.
/// A lock arrives with a clone, so being locked does not make a user's folder ours.
pub(super) fn not_ours(
    dir: &Path,
    name: &str,
    canonical: &Path,
    hashes: &[&str],
) -> Option<String> {
    let there = dir.join(name);
    match skills_add::state(dir, name, canonical) {
        skills_add::AgentState::Missing | skills_add::AgentState::Linked => None,
        skills_add::AgentState::Dir => match skills_add::tree_hash(&there) {
            Ok(hash) if hashes.contains(&hash.as_str()) => None,
            _ => Some(format!(
                "it was modified ({})",
                sync::changed_files(&there, canonical)
            )),
        },
        // Written otherwise (an absolute link, as other installers make) but leading to
        // the installed copy: ours all the same.
        skills_add::AgentState::LinkElsewhere(_)
            if fs::canonicalize(&there)
                .ok()
                .zip(fs::canonicalize(canonical).ok())
                .is_some_and(|(a, b)| a == b) =>
        {
            None
        }
        skills_add::AgentState::LinkElsewhere(to) => Some(format!(
            "it is a link to {}, not to the installed copy",
            render::terminal_safe(&to.display().to_string())
        )),
        _ => Some("it is a file, not the skill".to_string()),
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The rules of a report's errors, once each, for a line that says why a skill is refused.
fn error_rules(report: &skills_lint::SkillReport) -> Vec<&'static str> {
    let mut rules: Vec<&'static str> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == skills_lint::Severity::Error)
        .map(|d| d.rule.as_str())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    rules
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
    // A misspelt --agent is refused before anything is fetched.
    let agents = agents(args, &target)?;
    let fetched = fetch(&args.source, None, None, printer, &args.download)?;
    let found = find(&fetched.root, &fetched.tree, &target.lint)?;
    if found.is_empty() {
        return Err(error(
            format!("no skills in {}", args.source),
            "a skill is a directory with a SKILL.md; point at the repository or directory that holds them",
        )
        .into());
    }
    if args.list {
        for skill in &found {
            let state = match error_rules(&skill.report) {
                rules if rules.is_empty() => String::new(),
                rules => format!("  (refused: lint errors: {})", rules.join(", ")),
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
    target.contain(&target.canonical)?;
    let _held = target.hold()?;
    let mut lock = target.read_lock()?;
    let auditor = target.auditor()?;
    let mut failed = false;
    // One skill gets its findings drawn in full; many (`--all` over a collection) get one
    // line each and a total, not a report per refused skill.
    let many = selected.len() > 1;
    let (mut added, mut refused) = (0usize, 0usize);
    // Two skills of a source that install under one name would overwrite each other in
    // one run (a collection held two `internal-comms`): the first in path order is added,
    // the other refused, naming both.
    let mut taken: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for skill in selected {
        if let Some(first) = taken.insert(&skill.name, &skill.path)
            && first != skill.path
        {
            taken.insert(&skill.name, first);
            printer.err(&format!(
                "error: {} not added from {}: {first} in the source has that name too, and was added\n",
                skill.name, skill.path
            ));
            refused += 1;
            failed = true;
            continue;
        }
        let lint_errors = errors_in(&skill.report);
        if lint_errors > 0 {
            let mut one = skills_lint::Report::default();
            one.skills.push(skill.report.clone());
            // Named in the source (`owner/repo:skills/x/SKILL.md`), not in the repository
            // cache or a temporary directory; a local directory is named as given.
            if !matches!(fetched._hold, source::Hold::None) {
                crate::stage::rebase_report(&mut one, &fetched.tree, &|rest| {
                    crate::stage::labelled(&args.source, rest)
                });
            }
            if many {
                let at = one
                    .skills
                    .first()
                    .map(|r| render::relative(&r.skill_md))
                    .unwrap_or_default();
                let rules = error_rules(&skill.report).join(", ");
                if args.allow_lint_errors {
                    printer.warn(&format!(
                        "{} has lint errors: {rules} ({at}); added as --allow-lint-errors asks, and locked with them\n",
                        skill.name
                    ));
                } else {
                    printer.err(&format!(
                        "error: {} not added: lint errors: {rules} ({at})\n",
                        skill.name
                    ));
                }
            } else {
                printer.err(&render::human::report(printer.ui(), &one, false));
                if args.allow_lint_errors {
                    printer.warn(&format!(
                        "{} has {lint_errors} lint error(s); added as --allow-lint-errors asks, and locked with them\n",
                        skill.name
                    ));
                } else {
                    printer.err(&format!(
                        "error: {} not added: the skill has lint errors (--allow-lint-errors installs it all the same)\n",
                        skill.name
                    ));
                }
            }
            if !args.allow_lint_errors {
                refused += 1;
                failed = true;
                continue;
            }
        }
        // Locked: ours to replace while its files are still the locked ones (a lock comes
        // with a clone; the folder may hold the user's edits).
        let here = target.canonical.join(&skill.name);
        let edited = lock.skills.get(&skill.name).and_then(|p| {
            skills_add::tree_hash(&here)
                .ok()
                .filter(|hash| *hash != p.hash)
        });
        if edited.is_some() && !args.force {
            printer.err(&format!(
                "error: {} was modified here since it was installed ({}); not replaced (pass --force to replace the changes)\n",
                skill.name,
                render::relative(&here)
            ));
            refused += 1;
            failed = true;
            continue;
        }
        let replace = args.force || lock.skills.contains_key(&skill.name);
        let remote = !matches!(fetched._hold, source::Hold::None);
        let shown = |path: &str| {
            let file = Path::new(&skill.path).join(path);
            if remote {
                render::path_str(&crate::stage::labelled(&args.source, &file))
            } else {
                render::relative(&skill.dir.join(path))
            }
        };
        // Adding a locked skill again: what the lock accepted holds for the same files.
        let locked_risks = lock
            .skills
            .get(&skill.name)
            .and_then(|e| e.allow_risk.clone());
        let risk = crate::risk::Risk {
            auditor: &auditor,
            allow: &args.risk.allow_risk,
            locked: locked_risks.as_ref(),
        };
        let installed = match install(skill, &target, replace, None, &risk, &shown, printer) {
            Ok(installed) => installed,
            // One skill that cannot be installed (a file it cannot copy) is that skill's
            // failure: the others of a collection are still added.
            Err(e) if many => {
                crate::render::print_error(printer, e.as_ref());
                None
            }
            Err(e) => return Err(e.into()),
        };
        let Some(Installed {
            dir: installed,
            hash,
            risks,
        }) = installed
        else {
            refused += 1;
            failed = true;
            continue;
        };
        let previous = lock.skills.get(&skill.name);
        let mut linked = Vec::new();
        let mut placed_in: Vec<(PathBuf, skills_add::Placed)> = Vec::new();
        let mut report = Placements::default();
        for agent in &agents {
            let dir = target.agent_dir(agent)?;
            // Agents that share a folder (`trae` and `trae-cn` in a project) share what was
            // put there: it is made once.
            if let Some((_, placed)) = placed_in.iter().find(|(d, _)| *d == dir) {
                report.note(agent.id, placed);
                linked.push(agent.id.to_string());
                continue;
            }
            // A copy identical to what was installed is ours too: a run killed before it
            // wrote the lock left it, and this run finishes the job. One the lock gave this
            // agent is ours while it holds the locked files: never the user's edits.
            let mut hashes = vec![hash.as_str()];
            if let Some(p) = previous.filter(|p| p.agents.iter().any(|a| a == agent.id)) {
                hashes.push(p.hash.as_str());
            }
            let ours = not_ours(&dir, &skill.name, &installed, &hashes).is_none();
            let placed =
                skills_add::place(&dir, &skill.name, &installed, args.copy, args.force || ours)
                    .map_err(|e| add_error(&e))?;
            // A link the file system refused became a copy: say what was made, and why.
            report.note(agent.id, &placed);
            placed_in.push((dir, placed));
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
        entry.registry.clone_from(&fetched.registry);
        entry.version.clone_from(&fetched.version);
        linked.sort();
        entry.agents = linked;
        entry.lint_errors = u32::try_from(lint_errors).unwrap_or(u32::MAX);
        entry.allow_risk = risks;
        let agents_text = report.text();
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
                .or_else(|| fetched.version.as_deref().map(|v| format!("@{v}")))
                .unwrap_or_default(),
            render::relative(&installed)
        ))?;
        added += 1;
    }
    if many {
        let refused_text = if refused > 0 {
            format!(", {refused} refused (the lines above say why)")
        } else {
            String::new()
        };
        printer.status(&format!("added {added} skill(s){refused_text}\n"));
    }
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// What each agent of one skill got, for the `added` line.
#[derive(Default)]
struct Placements {
    links: Vec<&'static str>,
    /// Copies, by why they are copies: `None` for those `--copy` asked for, else what the
    /// file system said when the link was tried.
    copies: std::collections::BTreeMap<Option<String>, Vec<&'static str>>,
}

impl Placements {
    fn note(&mut self, id: &'static str, placed: &skills_add::Placed) {
        match placed {
            skills_add::Placed::Copy => self.copies.entry(None).or_default().push(id),
            skills_add::Placed::CopyInsteadOfLink { reason } => self
                .copies
                .entry(Some(reason.clone()))
                .or_default()
                .push(id),
            _ => self.links.push(id),
        }
    }

    /// ` (linked into a, b; copied into c; copied into d: cannot link: why)`, or nothing.
    fn text(mut self) -> String {
        let mut parts = Vec::new();
        if !self.links.is_empty() {
            self.links.sort_unstable();
            parts.push(format!("linked into {}", self.links.join(", ")));
        }
        for (why, mut ids) in self.copies {
            ids.sort_unstable();
            parts.push(match why {
                None => format!("copied into {}", ids.join(", ")),
                Some(why) => format!("copied into {}: cannot link: {why}", ids.join(", ")),
            });
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join("; "))
        }
    }
}

/// A warning when a link the file system refused became a copy (`sync` and `update`, which
/// have no line per agent to say it in).
fn say_if_copied(
    printer: &Printer,
    name: &str,
    agent: &skills_add::Agent,
    dir: &Path,
    placed: &skills_add::Placed,
) {
    if let skills_add::Placed::CopyInsteadOfLink { reason } = placed {
        printer.warn(&format!(
            "copied {name} into {}'s folder ({}): cannot link: {reason}",
            agent.name,
            render::relative(&dir.join(name))
        ));
    }
}

/// The error for the global folder of an agent that reads skills in a project only.
fn project_only(agent: &skills_add::Agent) -> miette::Report {
    error(
        format!(
            "{} (`{}`) reads skills in a project only: it has no global folder",
            agent.name, agent.id
        ),
        "install it into a project (without --global)",
    )
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
        // Every agent with a folder of its own in this scope (project-only agents have none
        // under the home directory).
        return Ok(skills_add::AGENTS
            .iter()
            .filter(|a| {
                !a.reads_universal(target.scope) && a.dir(target.scope, &target.base).is_some()
            })
            .collect());
    }
    if args.agents.is_empty() {
        return Ok(skills_add::agents::detected(target.scope, &target.base));
    }
    let mut out = Vec::new();
    for id in &args.agents {
        let Some(agent) = skills_add::agents::by_id(id) else {
            let ids: Vec<&str> = skills_add::AGENTS.iter().map(|a| a.id).collect();
            // With a likely match, that alone: the whole list is long.
            let hint = match skills_core::suggest::closest(id, ids.iter().copied()).first() {
                Some(c) => format!(
                    "did you mean `{c}`? (docs/add.md lists the {} agents and their folders)",
                    ids.len()
                ),
                None => format!(
                    "the agents: {} (docs/add.md lists their folders)",
                    ids.join(", ")
                ),
            };
            return Err(error(format!("unknown agent `{id}`"), hint));
        };
        if agent.dir(target.scope, &target.base).is_none() {
            return Err(project_only(agent));
        }
        if !agent.reads_universal(target.scope) && !out.contains(&agent) {
            out.push(agent);
        }
    }
    Ok(out)
}

/// A skill [`install`] moved into place: where it went, its digest, and the audit risks the
/// user accepted for it (to lock).
struct Installed {
    dir: PathBuf,
    hash: String,
    risks: Option<skills_add::AcceptedRisks>,
}

/// Copies the skill into a staging directory in the canonical root, checks its digest
/// there (against `expect`, the lock's, when given), audits it there (`risk`: what refuses
/// it, and what the user accepts; findings named as `shown_as` says), then renames it into
/// place, replacing what is there only when `replace` or when it is the same files (what a
/// run killed before it wrote the lock left). `None` when the audit refused it (the refusal
/// is printed; nothing was written).
fn install(
    skill: &Found,
    target: &Target,
    replace: bool,
    expect: Option<&str>,
    risk: &crate::risk::Risk<'_>,
    shown_as: &dyn Fn(&str) -> String,
    printer: &Printer,
) -> Result<Option<Installed>, miette::Report> {
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
    let staging = crate::stage::staging_in(root)?;
    crate::stage::stage_dir_as(&skill.dir, &skill.name, staging.path(), printer)?;
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
    let dest = root.join(&skill.name);
    let risks = match crate::risk::check(&skill.name, &staged, &dest, shown_as, risk, printer)? {
        crate::risk::Verdict::Pass(risks) => risks,
        crate::risk::Verdict::Refused => return Ok(None),
    };
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
    Ok(Some(Installed {
        dir: installed,
        hash,
        risks,
    }))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The `added` line says which agents got copies, and for a link the file system
    /// refused, why.
    #[test]
    fn placements_say_what_each_agent_got() {
        assert_eq!(Placements::default().text(), "");
        let mut p = Placements::default();
        p.note("windsurf", &skills_add::Placed::Link);
        p.note("claude-code", &skills_add::Placed::Unchanged);
        assert_eq!(p.text(), " (linked into claude-code, windsurf)");
        let refused = skills_add::Placed::CopyInsteadOfLink {
            reason: "Operation not permitted (os error 1)".into(),
        };
        let mut p = Placements::default();
        p.note("roo", &refused);
        p.note("claude-code", &skills_add::Placed::Link);
        p.note("goose", &refused);
        p.note("kiro-cli", &skills_add::Placed::Copy);
        assert_eq!(
            p.text(),
            " (linked into claude-code; copied into kiro-cli; copied into goose, roo: cannot \
             link: Operation not permitted (os error 1))"
        );
    }
}
