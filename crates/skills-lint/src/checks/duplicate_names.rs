//! `duplicate-name`, the one rule that needs the whole run: two skills with the same `name`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::PathBuf;

use crate::diagnostic::{Named, SkillReport, sort_diagnostics};
use crate::linter::Linter;
use crate::rules::RuleId;

/// Reports `report` when an earlier skill of the run has its name, pointing at that skill;
/// otherwise remembers it as the first of its name. Reports come in the run's order (by
/// directory), so which skill counts as the first does not depend on thread timing, and
/// only the names seen so far are kept (with their directories), not the reports.
///
/// Returns whether the report stays in the run: not when the earlier skill of its name is
/// this one ([`skills_core::files::same_skill`]: the same directory through a link, as
/// `skills add` links agents' folders, or an identical copy), which is one skill, linted
/// once.
pub(crate) fn check(
    linter: &Linter,
    report: &mut SkillReport,
    named: Option<Named>,
    first_of_name: &mut HashMap<String, (PathBuf, PathBuf)>,
) -> bool {
    let Some(name) = &report.name else {
        return true;
    };
    let first = match first_of_name.entry(name.clone()) {
        Entry::Vacant(slot) => {
            slot.insert((report.skill_md.clone(), report.dir.clone()));
            return true;
        }
        Entry::Occupied(first) => first,
    };
    let (first, first_dir) = first.get();
    if skills_core::files::same_skill(first_dir, &report.dir) {
        return false;
    }
    // Named as the report's own paths are shown: `skills lint .` gives `./a/SKILL.md`, and
    // every renderer writes that path as `a/SKILL.md`.
    let message = format!(
        "another skill is also named `{name}`: {}",
        first.strip_prefix(".").unwrap_or(first).display()
    );
    let (site, source) = match named {
        Some(Named { site, source }) => (Some(site), source),
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
