//! `skills sync`: the folders made to match the lock.

use skills_add::Locked;

use super::source::Sources;
use super::{Target, add_error, errors_in, install, say_if_copied};
use crate::args::SyncArgs;
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

pub(crate) fn sync(args: &SyncArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    // A project locked with npm `skills` and not (yet) with skills: its lock is read.
    match super::npm::other_lock(&target) {
        Some((npm, false)) => return super::npm::sync(args, &target, &npm, printer),
        Some((npm, true)) => printer.note(super::npm::ignored(&npm, &target).trim_end()),
        None => {}
    }
    if args.write_lock && std::fs::symlink_metadata(&target.lock).is_ok() {
        printer.note(&format!(
            "--write-lock has nothing to do: {} is there (it writes one from npm `skills`' skills-lock.json when there is none)",
            render::relative(&target.lock)
        ));
    }
    let _held = if args.frozen {
        None
    } else {
        Some(target.hold()?)
    };
    let mut lock = target.read_lock()?;
    if lock.skills.is_empty() {
        printer.status(&format!(
            "{}: no skills locked\n",
            render::relative(&target.lock)
        ));
        return Ok(ExitStatus::Success);
    }
    let mut drift = Vec::new();
    let mut fixed = 0usize;
    let mut refused = 0usize;
    let auditor = target.auditor()?;
    // Risks accepted now (`--allow-risk`) for a locked skill that had none accepted for its
    // files: written to the lock after the restores.
    let mut accepted: Vec<(String, Option<skills_add::AcceptedRisks>)> = Vec::new();
    // The canonical copies first, source by source (each fetched once).
    let (ordered, mut sources) = Sources::order(&lock.skills, &target, |e| {
        e.commit.as_deref().or(e.version.as_deref())
    });
    for (name, entry) in ordered {
        let installed = target.canonical.join(name);
        let hash = skills_add::tree_hash(&installed).ok();
        if hash.as_deref() == Some(entry.hash.as_str()) {
            continue;
        }
        let modified = hash.is_some();
        if args.frozen {
            let why = if modified { "modified" } else { "missing" };
            drift.push(format!("{name}: {why} ({})", render::relative(&installed)));
            continue;
        }
        let (_, skill) = sources.locate(
            name,
            entry,
            &target,
            entry.commit.as_deref().or(entry.version.as_deref()),
            printer,
        )?;
        if modified && !args.force {
            // Hand edits are the user's: named and kept, as `update` keeps them.
            printer.err(&format!(
                "error: {name} was modified here ({}); not restored (pass --force to replace the changes)\n",
                changed_files(&installed, &skill.dir)
            ));
            refused += 1;
            continue;
        }
        let risk = crate::risk::Risk {
            auditor: &auditor,
            allow: &args.risk.allow_risk,
            locked: entry.allow_risk.as_ref(),
        };
        let Some(risks) = restore(name, entry, &skill, &target, &risk, printer)? else {
            refused += 1;
            continue;
        };
        if risks != entry.allow_risk {
            accepted.push((name.clone(), risks));
        }
        fixed += 1;
    }
    if !accepted.is_empty() {
        for (name, risks) in accepted {
            if let Some(entry) = lock.skills.get_mut(&name) {
                entry.allow_risk = risks;
            }
        }
        target.write_lock(&lock)?;
    }
    // Then each agent's link or copy.
    for (name, entry) in &lock.skills {
        let installed = target.canonical.join(name);
        for id in &entry.agents {
            let Some(agent) = skills_add::agents::by_id(id) else {
                drift.push(format!("{name}: unknown agent `{id}` in the lock"));
                continue;
            };
            let dir = target.agent_dir(agent)?;
            let there = dir.join(name);
            let state = skills_add::state(&dir, name, &installed);
            let copy = state == skills_add::AgentState::Dir;
            let fine = match state {
                skills_add::AgentState::Linked => true,
                skills_add::AgentState::Dir => {
                    skills_add::tree_hash(&there).ok().as_deref() == Some(entry.hash.as_str())
                }
                _ => false,
            };
            if fine {
                continue;
            }
            if args.frozen {
                let what = if copy {
                    format!("modified in {}'s folder", agent.name)
                } else {
                    format!("not in {}'s folder", agent.name)
                };
                drift.push(format!("{name}: {what} ({})", render::relative(&there)));
                continue;
            }
            if copy && !args.force {
                printer.err(&format!(
                    "error: {name} was modified in {}'s folder ({}; {}); not restored (pass --force to replace the changes)\n",
                    agent.name,
                    render::relative(&there),
                    changed_files(&there, &installed)
                ));
                refused += 1;
                continue;
            }
            // A file or a link of the user's where the lock wants the link: theirs too.
            if !copy
                && !args.force
                && let Some(why) = super::not_ours(&dir, name, &installed, &[&entry.hash])
            {
                printer.err(&format!(
                    "error: {name} in {}'s folder ({}) is not what `skills add` put there: {why}; not replaced (pass --force to replace it)\n",
                    agent.name,
                    render::relative(&there),
                ));
                refused += 1;
                continue;
            }
            let placed =
                skills_add::place(&dir, name, &installed, copy, true).map_err(|e| add_error(&e))?;
            say_if_copied(printer, name, agent, &dir, &placed);
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
    if refused > 0 {
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

/// Installs the locked version of `name` again (`skill`, found in its source at the locked
/// commit); its digest must be the lock's, and its audit pass (`risk`). `None` when the audit
/// refused it, else the risks accepted for it.
fn restore(
    name: &str,
    entry: &Locked,
    skill: &super::source::Found,
    target: &Target,
    risk: &crate::risk::Risk<'_>,
    printer: &Printer,
) -> Result<Option<Option<skills_add::AcceptedRisks>>, miette::Report> {
    // Errors the user accepted when it was added are the locked version's own.
    if errors_in(&skill.report) > 0 && entry.lint_errors == 0 {
        return Err(error(
            format!("{name}: the locked version has lint errors"),
            "`skills add` a fixed version (or add this one again with --allow-lint-errors)",
        ));
    }
    target.contain(&target.canonical)?;
    let shown = |file: &str| Target::in_source(entry, file);
    let Some(installed) = install(
        skill,
        target,
        true,
        Some(&entry.hash),
        risk,
        &shown,
        printer,
    )?
    else {
        return Ok(None);
    };
    printer.status(&format!("restored {name}\n"));
    Ok(Some(installed.risks))
}

/// The files of `here` that are not as in `reference` (changed, added or gone), for a
/// message: at most five named, then how many more.
pub(super) fn changed_files(here: &std::path::Path, reference: &std::path::Path) -> String {
    let listing = |dir: &std::path::Path| {
        skills_package::collect_all(dir)
            .map(|c| {
                c.entries
                    .into_iter()
                    .map(|e| (e.path, e.source))
                    .collect::<std::collections::BTreeMap<_, _>>()
            })
            .unwrap_or_default()
    };
    let (ours, theirs) = (listing(here), listing(reference));
    let mut changed: Vec<&str> = Vec::new();
    for (path, source) in &ours {
        let same = theirs
            .get(path)
            .is_some_and(|other| std::fs::read(source).ok() == std::fs::read(other).ok());
        if !same {
            changed.push(path);
        }
    }
    changed.extend(
        theirs
            .keys()
            .filter(|p| !ours.contains_key(*p))
            .map(String::as_str),
    );
    changed.sort_unstable();
    changed.dedup();
    if changed.is_empty() {
        return "its files".to_string();
    }
    render::first_few(&changed, 5)
}
