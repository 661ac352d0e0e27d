//! `skills remove`: a locked skill's links, copy and lock entry.

use super::{Target, add_error, selected};
use crate::args::RemoveArgs;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

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
