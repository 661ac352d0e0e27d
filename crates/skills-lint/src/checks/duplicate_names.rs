//! `duplicate-name`, the one rule that needs the whole run: two skills with the same `name`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::PathBuf;

use crate::diagnostic::{Identity, Named, SkillReport, sort_diagnostics};
use crate::linter::Linter;
use crate::rules::RuleId;

/// The first skill of a name in the run.
pub(crate) struct First {
    skill_md: PathBuf,
    dir: PathBuf,
    identity: Option<Identity>,
}

/// Reports `report` when an earlier skill of the run has its name, pointing at that skill;
/// otherwise remembers it as the first of its name. Reports come in the run's order (by
/// directory), so which skill counts as the first does not depend on thread timing, and
/// only the names seen so far are kept (with their directories), not the reports.
///
/// Returns whether the report stays in the run: not when the earlier skill of its name is
/// this one (the same directory through a link, as `skills add` links agents' folders, or
/// an identical copy), which is one skill, linted once. Their [`Identity`]s tell most
/// pairs apart; only identical skills with files besides `SKILL.md` are compared on disk
/// ([`skills_core::files::same_skill`]).
pub(crate) fn check(
    linter: &Linter,
    report: &mut SkillReport,
    named: Option<Named>,
    first_of_name: &mut HashMap<String, First>,
) -> bool {
    let Some(name) = &report.name else {
        return true;
    };
    let identity = named.as_ref().map(|n| n.identity.clone());
    let first = match first_of_name.entry(name.clone()) {
        Entry::Vacant(slot) => {
            slot.insert(First {
                skill_md: report.skill_md.clone(),
                dir: report.dir.clone(),
                identity,
            });
            return true;
        }
        Entry::Occupied(first) => first,
    };
    let First {
        skill_md: first,
        dir: first_dir,
        identity: first_identity,
    } = first.get();
    let same = match (&identity, first_identity) {
        (Some(this), Some(that)) if this == that => {
            this.skill_md_only || skills_core::files::same_skill(first_dir, &report.dir)
        }
        _ => false,
    };
    if same {
        return false;
    }
    // Named as the report's own paths are shown: `skills lint .` gives `./a/SKILL.md`, and
    // every renderer writes that path as `a/SKILL.md`.
    let message = format!(
        "another skill is also named `{name}`: {}",
        first.strip_prefix(".").unwrap_or(first).display()
    );
    let (site, source) = match named {
        Some(Named { site, source, .. }) => (Some(site), source),
        None => (None, None),
    };
    let path = report.skill_md.clone();
    if let Some(d) = linter.diagnostic_at(RuleId::DuplicateName, message, None, path, site, source)
    {
        report.diagnostics.push(d);
        sort_diagnostics(&mut report.diagnostics);
    }
    true
}
