//! `skills sync` in a project locked with the npm `skills` tool: its `skills-lock.json`
//! and no `skills.lock`. Each skill is fetched from its source (each source and ref once),
//! its files compared with the lock's `computedHash`, and installed as `skills add`
//! installs; `--write-lock` then writes `skills.lock` from what was installed, which is
//! read from then on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skills_add::{HashCheck, Lock, Locked, NpmLock, NpmLocked, NpmOrigin};

use super::source::{Fetched, Found, fetch, fetch_repository, find, source_hash};
use super::{Target, add_error, error_rules, errors_in, install, short};
use crate::args::{DownloadArgs, SyncArgs};
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// The project's `skills-lock.json`, when it has one (a `--global` run has none), and
/// whether `skills.lock` is there too.
pub(super) fn other_lock(target: &Target) -> Option<(PathBuf, bool)> {
    if target.scope != skills_add::Scope::Project {
        return None;
    }
    let npm = target.base.join(skills_add::NPM_LOCK_FILE);
    // Not `exists()`: a lock that is a dangling link is there, and reading it says so.
    std::fs::symlink_metadata(&npm).ok()?;
    Some((npm, std::fs::symlink_metadata(&target.lock).is_ok()))
}

/// The line said when both locks are there.
pub(super) fn ignored(npm: &Path, target: &Target) -> String {
    format!(
        "{} (npm `skills`' lock) is ignored: {} is read\n",
        render::relative(npm),
        render::relative(&target.lock)
    )
}

/// A group of locked skills fetched together: a local directory, or a repository and a ref.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Dir(PathBuf),
    Git(String, Option<String>),
}

pub(super) fn sync(
    args: &SyncArgs,
    target: &Target,
    npm_path: &Path,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let npm_name = render::relative(npm_path);
    if args.frozen {
        return Err(error(
            format!(
                "--frozen compares the skills with {}, and there is none; {npm_name} is npm `skills`' lock, which --frozen does not read",
                render::relative(&target.lock)
            ),
            "run `skills sync --write-lock` once: it installs what skills-lock.json locks and writes skills.lock, which --frozen then checks (commit it)",
        )
        .into());
    }
    let _held = target.hold()?;
    let npm = NpmLock::read(npm_path).map_err(|e| npm_error(&e))?;
    if npm.skills.is_empty() {
        printer.status(&format!("{npm_name}: no skills locked\n"));
        return Ok(ExitStatus::Success);
    }
    printer.status(&format!(
        "no {}: installing the {} skill(s) of {npm_name} (npm `skills`' lock)\n",
        render::relative(&target.lock),
        npm.skills.len()
    ));
    let agents = skills_add::agents::detected(target.scope, &target.base);
    let mut refused = 0usize;
    let mut groups: BTreeMap<Key, Vec<(&String, &NpmLocked)>> = BTreeMap::new();
    for (name, entry) in &npm.skills {
        let key = match &entry.origin {
            NpmOrigin::Git { url, reference } => Key::Git(url.clone(), reference.clone()),
            // Relative to the lock's directory, as npm `skills` reads it.
            NpmOrigin::Dir(path) => Key::Dir(target.base.join(path)),
            NpmOrigin::Unsupported(why) => {
                printer.err(&format!(
                    "error: {name} not installed: {why} (sourceType `{}`); install it with npm `skills`, or remove its entry\n",
                    entry.source_type
                ));
                refused += 1;
                continue;
            }
        };
        groups.entry(key).or_default().push((name, entry));
    }
    let mut lock = Lock::new();
    let auditor = target.auditor()?;
    for (key, entries) in &groups {
        let found = match fetch_group(key, entries, target, printer) {
            Ok(found) => found,
            Err(why) => {
                for (name, _) in entries {
                    printer.err(&format!("error: {name} not installed: {why}\n"));
                }
                refused += entries.len();
                continue;
            }
        };
        let (fetched, found) = found;
        for &(name, entry) in entries {
            let Some(skill) = pick(&found, name, entry) else {
                let at = entry.path.as_ref().map_or_else(
                    || format!("no skill named `{name}`"),
                    |p| format!("no skill at `{p}`"),
                );
                printer.err(&format!(
                    "error: {name} not installed: {at} in {}; the source moved or dropped it: `skills add` it from where it is now, or remove its entry\n",
                    render::terminal_safe(&entry.source)
                ));
                refused += 1;
                continue;
            };
            if !compare(name, entry, &skill, args.force, printer) {
                refused += 1;
                continue;
            }
            if errors_in(&skill.report) > 0 {
                printer.err(&format!(
                    "error: {name} not installed: lint errors: {} (npm `skills` installs skills that fail lint; `skills add {} --skill {name} --allow-lint-errors` installs it and locks that it has them)\n",
                    error_rules(&skill.report).join(", "),
                    render::terminal_safe(&entry.source)
                ));
                refused += 1;
                continue;
            }
            let would = source_hash(&skill)?;
            if !agents_free(name, &skill, &would, &agents, target, args.force, printer)? {
                refused += 1;
                continue;
            }
            target.contain(&target.canonical)?;
            let risk = crate::risk::Risk {
                auditor: &auditor,
                allow: &args.risk.allow_risk,
                locked: None,
            };
            let shown = |file: &str| {
                let path = entry.path.as_deref().map_or_else(
                    || file.to_string(),
                    |p| format!("{}/{file}", p.trim_end_matches('/')),
                );
                format!("{}:{path}", entry.source)
            };
            let Some(super::Installed {
                dir: installed,
                hash,
                risks,
            }) = install(
                &skill,
                target,
                args.force,
                Some(&would),
                &risk,
                &shown,
                printer,
            )?
            else {
                refused += 1;
                continue;
            };
            let linked = link(name, &installed, &agents, target, args.force)?;
            let mut locked = Locked::new(entry.source.clone(), skill.path.clone(), hash);
            locked.url.clone_from(&fetched.url);
            locked.reference.clone_from(&fetched.reference);
            locked.commit.clone_from(&fetched.commit);
            locked.agents = linked.iter().map(|a| (*a).to_string()).collect();
            locked.allow_risk = risks;
            lock.skills.insert(name.clone(), locked);
            printer.out(&format!(
                "installed {name}{} -> {}{}\n",
                fetched
                    .commit
                    .as_deref()
                    .map(|c| format!(" @ {}", short(c)))
                    .unwrap_or_default(),
                render::relative(&installed),
                if linked.is_empty() {
                    String::new()
                } else {
                    format!(" (linked into {})", linked.join(", "))
                }
            ))?;
        }
    }
    let installed = lock.skills.len();
    if refused > 0 {
        printer.status(&format!(
            "{refused} of {} skill(s) of {npm_name} not installed (the lines above say why)\n",
            npm.skills.len()
        ));
        if args.write_lock {
            printer.err(&format!(
                "error: {} not written: it would leave them out; fix or remove their entries in {npm_name} (or `skills add` them), then run `skills sync --write-lock` again\n",
                render::relative(&target.lock)
            ));
        }
        return Ok(ExitStatus::Failure);
    }
    if args.write_lock {
        target.write_lock(&lock)?;
        printer.status(&format!(
            "wrote {} ({installed} skill(s), with the digest of each, and the commit of those from a repository): skills reads it from now on, and ignores {npm_name}; commit it\n",
            render::relative(&target.lock)
        ));
    } else {
        printer.status(&format!(
            "{installed} skill(s) installed from {npm_name}; `skills sync --write-lock` writes {} from them, which skills then reads instead\n",
            render::relative(&target.lock)
        ));
    }
    Ok(ExitStatus::Success)
}

/// Fetches one source for `entries` and finds its skills; why not, for each entry's line.
fn fetch_group(
    key: &Key,
    entries: &[(&String, &NpmLocked)],
    target: &Target,
    printer: &Printer,
) -> Result<(Fetched, Vec<Found>), String> {
    let fetched = match key {
        Key::Dir(dir) => {
            // `fetch` would take a path that is not a directory for an archive.
            if !dir.is_dir() {
                return Err(format!("{} is not a directory", dir.display()));
            }
            // Its skills are searched for below it: a lock naming `/` (or a folder that
            // holds the project) walked the whole machine.
            if let (Ok(source), Ok(base)) =
                (std::fs::canonicalize(dir), std::fs::canonicalize(&target.base))
                && base.starts_with(&source)
            {
                return Err(format!(
                    "{} holds the project itself; a local source is the folder of its skills, not one above them",
                    dir.display()
                ));
            }
            fetch(
                &dir.display().to_string(),
                None,
                None,
                printer,
                &DownloadArgs::default(),
            )
        }
        Key::Git(url, reference) => {
            // One skill of a repository: its folder alone is checked out.
            let sparse = match entries {
                [(_, entry)] => entry.path.as_deref().filter(|p| !p.is_empty()),
                _ => None,
            };
            fetch_repository(url, reference.as_deref(), sparse, printer)
        }
    }
    .map_err(|e| e.to_string())?;
    let found = find(&fetched.root, &fetched.tree, &target.lint).map_err(|e| e.to_string())?;
    Ok((fetched, found))
}

/// The skill an entry names: at its `skillPath` when it has one (npm `skills` records it
/// for repositories), else by name; installed under the entry's name.
fn pick(found: &[Found], name: &str, entry: &NpmLocked) -> Option<Found> {
    let skill = match &entry.path {
        Some(path) => found.iter().find(|f| f.path == *path)?,
        None => found.iter().find(|f| f.name == name)?,
    };
    Some(Found {
        name: name.to_string(),
        dir: skill.dir.clone(),
        path: skill.path.clone(),
        description: skill.description.clone(),
        report: skill.report.clone(),
    })
}

/// Whether the source's files of `skill` may be installed for `entry`: they are the ones
/// its `computedHash` locked, or that digest cannot be reproduced (said), or `force`.
fn compare(name: &str, entry: &NpmLocked, skill: &Found, force: bool, printer: &Printer) -> bool {
    match entry.check_hash(&skill.dir) {
        Ok(HashCheck::Same) => true,
        Ok(HashCheck::Differs(_)) if force => {
            printer.warn(&format!(
                "{name}: the source's files are not those skills-lock.json locked (computedHash differs); installed as --force asks\n"
            ));
            true
        }
        Ok(HashCheck::Differs(_)) => {
            printer.err(&format!(
                "error: {name} not installed: its files in {} are not those skills-lock.json locked (computedHash differs): the source changed since, and npm `skills` locks no commit to go back to; --force installs what the source has now\n",
                render::terminal_safe(&entry.source)
            ));
            false
        }
        Ok(HashCheck::Unknown(why)) => {
            printer.note(&format!("{name}: computedHash not checked: {why}"));
            true
        }
        Err(e) => {
            printer.err(&format!(
                "error: {name} not installed: {}: {e}\n",
                skill.dir.display()
            ));
            false
        }
    }
}

/// Whether each agent's folder can take a link to `name`: nothing there, a link, or a copy
/// of the files `hash` (the digest of what would be installed). npm `skills` copies a
/// skill into an agent's folder when it installs for that agent alone: such a copy becomes
/// a link; one that differs is the user's, named and kept unless `force`. Asked before
/// anything is installed, so a refused skill leaves nothing behind.
fn agents_free(
    name: &str,
    skill: &Found,
    hash: &str,
    agents: &[&'static skills_add::Agent],
    target: &Target,
    force: bool,
    printer: &Printer,
) -> Result<bool, miette::Report> {
    let canonical = target.canonical.join(name);
    let mut free = true;
    for agent in agents {
        let dir = target.agent_dir(agent)?;
        let there = dir.join(name);
        if skills_add::state(&dir, name, &canonical) == skills_add::AgentState::Dir
            && !force
            && skills_add::tree_hash(&there).ok().as_deref() != Some(hash)
        {
            printer.err(&format!(
                "error: {name} not installed: {} holds other files ({}); pass --force to replace them\n",
                render::relative(&there),
                super::sync::changed_files(&there, &skill.dir)
            ));
            free = false;
        }
    }
    Ok(free)
}

/// Links `installed` into each agent's folder, over a copy [`agents_free`] let through;
/// the agents linked.
fn link(
    name: &str,
    installed: &Path,
    agents: &[&'static skills_add::Agent],
    target: &Target,
    force: bool,
) -> Result<Vec<&'static str>, miette::Report> {
    let mut linked = Vec::new();
    for agent in agents {
        let dir = target.agent_dir(agent)?;
        let copy = skills_add::state(&dir, name, installed) == skills_add::AgentState::Dir;
        skills_add::place(&dir, name, installed, false, force || copy)
            .map_err(|e| add_error(&e))?;
        linked.push(agent.id);
    }
    linked.sort_unstable();
    Ok(linked)
}

fn npm_error(e: &skills_add::AddError) -> miette::Report {
    match e {
        skills_add::AddError::NpmLock {
            entry: Some(entry), ..
        } => error(
            e.to_string(),
            format!(
                "nothing was installed; skills-lock.json comes with the repository: fix or remove the entry `{}`, or `skills add` that skill from its source",
                render::terminal_safe(entry)
            ),
        ),
        skills_add::AddError::NpmLock { .. } => error(
            e.to_string(),
            "nothing was installed; skills-lock.json is npm `skills`' lock as its version 1.7 writes it: fix it, or remove it and `skills add` the skills",
        ),
        other => add_error(other),
    }
}
