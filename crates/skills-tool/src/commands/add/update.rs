//! `skills check` and `skills update`: each locked skill against its source.

use skills_add::Locked;

use super::source::{Sources, source_hash};
use super::{Target, add_error, errors_in, install, say_if_copied, selected, short};
use crate::args::{CheckArgs, UpdateArgs};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// How the installed copy of a locked skill compares with the lock.
pub(super) fn local_state(target: &Target, name: &str, entry: &Locked) -> Option<&'static str> {
    match skills_add::tree_hash(&target.canonical.join(name)) {
        Ok(hash) if hash == entry.hash => None,
        Ok(_) => Some("modified here"),
        Err(_) => Some("missing"),
    }
}

pub(crate) fn check(args: &CheckArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    // npm `skills`' lock is not compared: said, rather than "nothing differs".
    match super::npm::other_lock(&target) {
        Some((npm, false)) => {
            return Err(crate::errors::plain(
                format!(
                    "no {}; {} is npm `skills`' lock, which `check` does not read",
                    render::relative(&target.lock),
                    render::relative(&npm)
                ),
                "run `skills sync --write-lock` once: it installs what skills-lock.json locks and writes skills.lock, which `check` then reads",
            )
            .into());
        }
        Some((npm, true)) => printer.note(super::npm::ignored(&npm, &target).trim_end()),
        None => {}
    }
    let lock = target.read_lock()?;
    let mut differs = 0usize;
    let (chosen, mut sources) =
        Sources::order(selected(&lock, &args.names, &target)?, &target, |e| {
            e.reference.as_deref()
        });
    // Fetched source by source, reported in name order.
    let mut lines = std::collections::BTreeMap::new();
    for (name, entry) in chosen {
        let mut notes = Vec::new();
        if let Some(state) = local_state(&target, name, entry) {
            notes.push(state.to_string());
        }
        // Agents' copies are installed files too (links follow the canonical copy).
        for agent in entry
            .agents
            .iter()
            .filter_map(|id| skills_add::agents::by_id(id))
        {
            let Some(dir) = agent.dir(target.scope, &target.base) else {
                continue;
            };
            let installed = target.canonical.join(name);
            if skills_add::state(&dir, name, &installed) == skills_add::AgentState::Dir
                && skills_add::tree_hash(&dir.join(name)).ok().as_deref()
                    != Some(entry.hash.as_str())
            {
                notes.push(format!("modified in {}'s folder", agent.name));
            }
        }
        match sources.locate(name, entry, &target, entry.reference.as_deref(), printer) {
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
            Err(e) => {
                // The line starts with the name already; the error names it too.
                let why = e.to_string();
                let why = why.strip_prefix(&format!("{name}: ")).unwrap_or(&why);
                notes.push(format!("cannot check the source: {why}"));
            }
        }
        if notes.is_empty() {
            lines.insert(name, format!("{name}: up to date\n"));
        } else {
            differs += 1;
            lines.insert(name, format!("{name}: {}\n", notes.join("; ")));
        }
    }
    printer.out(&lines.into_values().collect::<String>())?;
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
    let (chosen, mut sources) = Sources::order(chosen.iter().map(|(n, e)| (n, e)), &target, |e| {
        e.reference.as_deref()
    });
    let auditor = target.auditor()?;
    let mut failed = false;
    for (name, entry) in chosen {
        let (name, entry) = (name.clone(), entry.clone());
        let (fetched, registry, version, skill) =
            match sources.locate(&name, &entry, &target, entry.reference.as_deref(), printer) {
                Ok((fetched, skill)) => (
                    fetched.commit.clone(),
                    fetched.registry.clone(),
                    fetched.version.clone(),
                    skill,
                ),
                Err(e) => {
                    crate::render::print_error(printer, e.as_ref());
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
        let lint_errors = errors_in(&skill.report);
        if lint_errors > 0 && entry.lint_errors == 0 {
            let mut one = skills_lint::Report::default();
            one.skills.push(skill.report.clone());
            printer.err(&render::human::report(printer.ui(), &one, false));
            printer.err(&format!(
                "error: {name} not updated: the new version has lint errors (the installed one stays)\n"
            ));
            failed = true;
            continue;
        }
        // Risks accepted for the installed version hold for the same files only: a changed
        // skill is audited and asked about again.
        // An agent's copy edited by hand, or a file or link of the user's in its place, is
        // theirs: the skill is not updated (checked before anything is replaced).
        if !args.force {
            let installed = target.canonical.join(&name);
            // The new version's files too: what a run killed before the lock left.
            let new = source_hash(&skill)?;
            let mut theirs = Vec::new();
            for agent in entry
                .agents
                .iter()
                .filter_map(|id| skills_add::agents::by_id(id))
            {
                let dir = target.agent_dir(agent)?;
                if let Some(why) = super::not_ours(&dir, &name, &installed, &[&entry.hash, &new]) {
                    theirs.push(format!(
                        "{} ({}): {why}",
                        agent.name,
                        render::relative(&dir.join(&name))
                    ));
                }
            }
            if !theirs.is_empty() {
                printer.err(&format!(
                    "error: {name} was changed in {}; not updated (pass --force to replace the changes)\n",
                    theirs.join("; ")
                ));
                failed = true;
                continue;
            }
        }
        let risk = crate::risk::Risk {
            auditor: &auditor,
            allow: &args.risk.allow_risk,
            locked: entry.allow_risk.as_ref(),
        };
        let shown = |file: &str| Target::in_source(&entry, file);
        let Some(super::Installed {
            dir: installed,
            hash,
            risks,
        }) = install(&skill, &target, true, None, &risk, &shown, printer)?
        else {
            printer.err(&format!(
                "error: {name} not updated: the installed version stays\n"
            ));
            failed = true;
            continue;
        };
        for id in &entry.agents {
            if let Some(agent) = skills_add::agents::by_id(id) {
                let dir = target.agent_dir(agent)?;
                let copy =
                    skills_add::state(&dir, &name, &installed) == skills_add::AgentState::Dir;
                let placed = skills_add::place(&dir, &name, &installed, copy, true)
                    .map_err(|e| add_error(&e))?;
                say_if_copied(printer, &name, agent, &dir, &placed);
            }
        }
        let changed = hash != entry.hash;
        let mut updated = entry.clone();
        updated.hash = hash;
        updated.allow_risk = risks;
        updated.commit.clone_from(&fetched);
        // An entry of a lock from before registries were recorded gets the one it came from.
        if registry.is_some() {
            updated.registry = registry;
        }
        updated.version.clone_from(&version);
        if entry.lint_errors > 0 {
            updated.lint_errors = u32::try_from(lint_errors).unwrap_or(u32::MAX);
        }
        lock.skills.insert(name.clone(), updated);
        target.write_lock(&lock)?;
        let line = match (changed, &entry.commit, &fetched) {
            (false, _, _) => format!("{name}: up to date\n"),
            (true, _, _) if entry.version.is_some() || version.is_some() => format!(
                "updated {name} {} -> {}\n",
                entry.version.as_deref().unwrap_or("-"),
                version.as_deref().unwrap_or("-")
            ),
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
