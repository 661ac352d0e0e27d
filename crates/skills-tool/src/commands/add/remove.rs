//! `skills remove`: a skill's links, copy and lock entry; or a skill `skills install` (or a
//! hand) put in the canonical folder without a lock entry.

use super::{Target, add_error};
use crate::args::RemoveArgs;
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

pub(crate) fn remove(args: &RemoveArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let target = Target::new(args.global)?;
    target.contain(&target.canonical)?;
    let _held = target.hold()?;
    let mut lock = target.read_lock()?;
    // Every name is found before anything is removed.
    let mut names = Vec::new();
    for given in &args.names {
        let name = given.to_ascii_lowercase();
        let installed = skills_frontmatter::is_valid_name(&name)
            && target.canonical.join(&name).join("SKILL.md").is_file();
        if !lock.skills.contains_key(&name) && !installed {
            let mut known: Vec<String> = lock.skills.keys().cloned().collect();
            if let Ok(entries) = std::fs::read_dir(&target.canonical) {
                known.extend(
                    entries
                        .filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .filter(|n| !n.starts_with('.')),
                );
            }
            let hint = skills_core::suggest::closest(given, known.iter().map(String::as_str))
                .first()
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            return Err(error(
                format!(
                    "no skill `{given}` in {} or {}",
                    render::relative(&target.lock),
                    render::relative(&target.canonical)
                ),
                format!("{hint}`skills list` shows the skills installed"),
            )
            .into());
        }
        // Edited since it was installed: the edits are the user's, kept unless --force.
        let here = target.canonical.join(&name);
        if !args.force
            && let Some(entry) = lock.skills.get(&name)
            && let Ok(hash) = skills_add::tree_hash(&here)
            && hash != entry.hash
        {
            return Err(error(
                format!(
                    "{name} was changed here since it was installed ({}: its files are not the locked ones); nothing was removed",
                    render::relative(&here)
                ),
                "keep what you changed elsewhere first, or pass --force to remove it with the changes",
            )
            .into());
        }
        names.push(name);
    }
    for name in names {
        let installed = target.canonical.join(&name);
        let mut from = Vec::new();
        let entry = lock.skills.get(&name).cloned();
        // A locked skill's agents are in its entry; one `skills install` put there may
        // still have been linked by hand: every agent's link to it goes with it.
        let agents: Vec<&skills_add::Agent> = match &entry {
            Some(entry) => entry
                .agents
                .iter()
                .filter_map(|id| skills_add::agents::by_id(id))
                .collect(),
            None => skills_add::AGENTS
                .iter()
                .filter(|a| a.dir(target.scope, &target.base).is_some())
                .collect(),
        };
        for agent in agents {
            let dir = target.agent_dir(agent)?;
            let ours = match skills_add::state(&dir, &name, &installed) {
                skills_add::AgentState::Linked => true,
                skills_add::AgentState::Dir => entry.as_ref().is_some_and(|entry| {
                    skills_add::tree_hash(&dir.join(&name)).ok().as_deref()
                        == Some(entry.hash.as_str())
                }),
                _ => false,
            };
            if ours {
                skills_add::unplace(&dir, &name).map_err(|e| add_error(&e))?;
                from.push(agent.id);
            } else if entry.is_some() && std::fs::symlink_metadata(dir.join(&name)).is_ok() {
                printer.warn(&format!(
                    "{} was changed since it was installed; left in place\n",
                    render::relative(&dir.join(&name))
                ));
            }
        }
        skills_add::unplace(&target.canonical, &name).map_err(|e| add_error(&e))?;
        if lock.skills.remove(&name).is_some() {
            target.write_lock(&lock)?;
        }
        let agents = if from.is_empty() {
            String::new()
        } else {
            format!(" and from {}", from.join(", "))
        };
        printer.out(&format!(
            "removed {name} from {}{agents}{}\n",
            render::relative(&target.canonical),
            if entry.is_none() {
                " (it was not in the lock)"
            } else {
                ""
            }
        ))?;
    }
    Ok(ExitStatus::Success)
}
