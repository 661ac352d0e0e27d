//! `--statistics`: how many findings each rule has, most first, instead of the findings
//! (what to fix first in a large tree).

use serde::Serialize;
use skills_lint::{Report, RuleId, Severity};

use crate::printer::Ui;

/// Bumped on any incompatible change to the JSON below (docs/schemas/lint-statistics.schema.json).
const SCHEMA_VERSION: u32 = 1;

/// One rule's count.
#[derive(Serialize)]
struct Count {
    rule: RuleId,
    severity: Severity,
    count: usize,
}

#[derive(Serialize)]
struct Document {
    version: u32,
    rules: Vec<Count>,
    errors: usize,
    warnings: usize,
    skills: usize,
}

/// The counts, most first, then by rule id.
fn counts(report: &Report) -> Vec<Count> {
    let mut counts: Vec<Count> = Vec::new();
    for d in report.diagnostics() {
        match counts.iter_mut().find(|c| c.rule == d.rule) {
            Some(c) => c.count += 1,
            None => counts.push(Count {
                rule: d.rule,
                severity: d.severity,
                count: 1,
            }),
        }
    }
    counts.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(&b.rule)));
    counts
}

/// A table: count, rule, severity; then the summary line.
pub(crate) fn human(ui: Ui, report: &Report, strict: bool) -> String {
    let counts = counts(report);
    let width = counts
        .iter()
        .map(|c| c.rule.as_str().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for c in &counts {
        out.push_str(&format!(
            "{:>7}  {:<width$}  {}\n",
            c.count,
            c.rule.as_str(),
            c.severity.as_str()
        ));
    }
    if !ui.quiet() {
        out.push_str(&super::human::summary(report, strict));
    }
    out
}

/// The counts as one JSON document.
pub(crate) fn json(report: &Report) -> String {
    let doc = Document {
        version: SCHEMA_VERSION,
        rules: counts(report),
        errors: report.errors(),
        warnings: report.warnings(),
        skills: report.skills.len(),
    };
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
}
