//! `duplicate-name`, the one rule that needs the whole run: two skills with the same `name`.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Named, SkillReport, sort_diagnostics};
use crate::linter::Linter;
use crate::rules::RuleId;

/// Reports every skill but the first of each name, pointing at the first. `reports` is sorted
/// by directory, so which skill counts as the first does not depend on thread timing;
/// `names` holds where each report's `name` value is.
pub(crate) fn check_duplicate_names(
    linter: &Linter,
    reports: &mut [SkillReport],
    names: &[Option<Named>],
) {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in reports.iter().enumerate() {
        if let Some(name) = &r.name {
            by_name.entry(name).or_default().push(i);
        }
    }
    // (the duplicate, the first skill of its name)
    let mut duplicates: Vec<(usize, usize)> = by_name
        .values()
        .filter_map(|idx| idx.split_first())
        .flat_map(|(&first, rest)| rest.iter().map(move |&i| (i, first)))
        .collect();
    duplicates.sort_unstable();
    // Copies of one collection make every skill but the first copy's a duplicate.
    let found: Vec<(usize, Option<Diagnostic>)> = duplicates
        .par_iter()
        .map(|&(i, first)| {
            let (Some(report), Some(first)) = (reports.get(i), reports.get(first)) else {
                return (i, None);
            };
            let name = report.name.as_deref().unwrap_or_default();
            let message = format!(
                "another skill is also named `{name}`: {}",
                first.skill_md.display()
            );
            let named = names.get(i).and_then(Option::as_ref);
            let site = named.map(|n| n.site.clone());
            let source = named.and_then(|n| n.source.clone());
            let path = report.skill_md.clone();
            let d = linter.diagnostic_at(RuleId::DuplicateName, message, None, path, site, source);
            (i, d)
        })
        .collect();
    for (i, d) in found {
        if let (Some(report), Some(d)) = (reports.get_mut(i), d) {
            report.diagnostics.push(d);
            sort_diagnostics(&mut report.diagnostics);
        }
    }
}
