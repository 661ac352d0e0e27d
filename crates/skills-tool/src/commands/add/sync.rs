//! `skills sync`: the folders made to match the lock.

use skills_add::Locked;

use super::source::locate;
use super::{Target, add_error, errors_in, install};
use crate::args::SyncArgs;
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

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
pub(super) fn restore(
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
