//! `duplicate-name`, the one rule that needs the whole run: two skills with the same `name`.

use std::collections::BTreeMap;
use std::ops::Range;

use skills_frontmatter::{MAX_FILE_BYTES, SkillMd};

use crate::diagnostic::{SkillReport, Text};
use crate::linter::Linter;
use crate::rules::RuleId;

/// Reports every skill but the first of each name, pointing at the first. `reports` is sorted
/// by directory, so which skill counts as the first does not depend on thread timing.
pub(crate) fn check_duplicate_names(linter: &Linter, reports: &mut [SkillReport]) {
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        if let Some(name) = &r.name {
            by_name.entry(name.clone()).or_default().push(i);
        }
    }
    for (name, idx) in by_name {
        let Some((&first, rest)) = idx.split_first() else {
            continue;
        };
        let Some(first_md) = reports.get(first).map(|r| r.skill_md.clone()) else {
            continue;
        };
        for &i in rest {
            let Some(report) = reports.get_mut(i) else {
                continue;
            };
            // Point at the `name` value; duplicates are rare, so reading the file again
            // costs less than keeping every source in memory.
            let (span, source) = name_span(report);
            let source = source.as_deref().map(Text::new);
            let d = linter.diagnostic(
                RuleId::DuplicateName,
                format!(
                    "another skill is also named `{name}`: {}",
                    first_md.display()
                ),
                None,
                report.skill_md.clone(),
                span,
                source.as_ref(),
            );
            report.diagnostics.extend(d);
        }
    }
}

/// The span of the `name` value in a report's SKILL.md, and the text it is in, by reading and
/// parsing the file again.
fn name_span(report: &SkillReport) -> (Option<Range<usize>>, Option<String>) {
    let Ok(bytes) = skills_core::read_listed(&report.skill_md, MAX_FILE_BYTES, MAX_FILE_BYTES)
    else {
        return (None, None);
    };
    match SkillMd::parse(&bytes) {
        Ok(s) => (
            s.field("name").map(|e| e.value_span.clone()),
            Some(s.source().to_string()),
        ),
        Err(_) => (None, None),
    }
}
