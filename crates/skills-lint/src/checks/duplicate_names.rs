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

/// What the run has reported so far: the first skill of each name, and the skills without
/// a name (whose `SKILL.md` has none, or does not parse) by the digest of their `SKILL.md`.
#[derive(Default)]
pub(crate) struct Seen {
    by_name: HashMap<String, First>,
    nameless: HashMap<[u8; 32], PathBuf>,
}

/// Whether `report`, a skill without a name, is one the run reported already: the same
/// directory through a link, or an identical copy (the same `SKILL.md`, then the same
/// files). Its `SKILL.md` is read again to compare: skills without a name are the rare
/// broken ones, and the run would otherwise report each of its findings twice.
fn seen_nameless(report: &SkillReport, nameless: &mut HashMap<[u8; 32], PathBuf>) -> bool {
    // Never through a link out of the skill (which lint reports and never reads).
    let Ok(bytes) = skills_core::fs::read_bounded_in(
        &report.skill_md,
        &report.dir,
        skills_frontmatter::MAX_FILE_BYTES,
    ) else {
        return false;
    };
    let digest = skills_core::digest::sha256_parts(&[&bytes]);
    match nameless.entry(digest) {
        Entry::Vacant(slot) => {
            slot.insert(report.dir.clone());
            false
        }
        Entry::Occupied(first) => skills_core::files::same_skill(first.get(), &report.dir),
    }
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
    seen: &mut Seen,
) -> bool {
    let Some(name) = &report.name else {
        // Without a name there is no duplicate to report, but the same skill reached twice
        // is still one skill.
        return !seen_nameless(report, &mut seen.nameless);
    };
    let identity = named.as_ref().map(|n| n.identity.clone());
    let first = match seen.by_name.entry(name.clone()) {
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
