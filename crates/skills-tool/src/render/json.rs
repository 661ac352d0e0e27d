//! `--format json`: one document, schema version 1 (documented in docs/lint.md).

use serde::Serialize;
use skills_lint::Report;

use super::path_str;

/// Bumped on any incompatible change to the shape below.
pub(crate) const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    summary: Summary,
    diagnostics: Vec<Item<'a>>,
}

#[derive(Serialize)]
struct Summary {
    skills: usize,
    errors: usize,
    warnings: usize,
}

#[derive(Serialize)]
struct Item<'a> {
    path: String,
    rule: skills_lint::RuleId,
    severity: &'a str,
    message: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    help: &'a str,
}

pub(crate) fn report(report: &Report) -> String {
    let doc = Document {
        version: SCHEMA_VERSION,
        summary: Summary {
            skills: report.skills.len(),
            errors: report.errors(),
            warnings: report.warnings(),
        },
        diagnostics: report
            .diagnostics()
            .map(|d| Item {
                path: path_str(&d.path),
                rule: d.rule,
                severity: d.severity.as_str(),
                message: &d.message,
                line: d.start.map(|p| p.line),
                column: d.start.map(|p| p.column),
                end_line: d.end.map(|p| p.line),
                end_column: d.end.map(|p| p.column),
                help: &d.help,
            })
            .collect(),
    };
    // Serializing plain structs of strings and numbers cannot fail.
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}"), |s| s + "\n")
}
