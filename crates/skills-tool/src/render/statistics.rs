//! `--statistics`: how many findings each rule has, most first, instead of the findings
//! (what to fix first in a large tree).

use serde::Serialize;
use skills_lint::{Diagnostic, RuleId, Severity};

use super::stream::Totals;
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
struct Document<'a> {
    version: u32,
    rules: &'a [Count],
    errors: usize,
    warnings: usize,
    skills: usize,
}

/// Counts findings per rule as batches come.
#[derive(Default)]
pub(crate) struct Counter {
    counts: Vec<Count>,
}

impl Counter {
    pub(crate) fn add<'a>(&mut self, diagnostics: impl Iterator<Item = &'a Diagnostic>) {
        for d in diagnostics {
            match self.counts.iter_mut().find(|c| c.rule == d.rule) {
                Some(c) => c.count += 1,
                None => self.counts.push(Count {
                    rule: d.rule,
                    severity: d.severity,
                    count: 1,
                }),
            }
        }
    }

    /// The counts, most first, then by rule id.
    fn sorted(&mut self) -> &[Count] {
        self.counts
            .sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(&b.rule)));
        &self.counts
    }

    /// A table: count, rule, severity; then the summary line.
    pub(crate) fn human(&mut self, ui: Ui, totals: &Totals, strict: bool) -> String {
        let counts = self.sorted();
        let width = counts
            .iter()
            .map(|c| c.rule.as_str().len())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for c in counts {
            out.push_str(&format!(
                "{:>7}  {:<width$}  {}\n",
                c.count,
                c.rule.as_str(),
                c.severity.as_str()
            ));
        }
        if !ui.quiet() {
            out.push_str(&super::human::summary(totals, strict));
        }
        out
    }

    /// The counts as one JSON document.
    pub(crate) fn json(&mut self, totals: &Totals) -> String {
        let doc = Document {
            version: SCHEMA_VERSION,
            rules: self.sorted(),
            errors: totals.errors,
            warnings: totals.warnings,
            skills: totals.skills,
        };
        serde_json::to_string_pretty(&doc)
            .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
    }
}
