//! `skills lint --rules`: every rule of the registry, as a table or one JSON document.

use serde::Serialize;
use skills_lint::{RULES, RuleId, Scope, Severity};

/// Bumped on any incompatible change to the JSON below (docs/schemas/lint-rules.schema.json).
const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Item {
    id: RuleId,
    default: Severity,
    scope: &'static str,
    summary: &'static str,
}

#[derive(Serialize)]
struct Document {
    version: u32,
    rules: Vec<Item>,
}

fn scope(scope: Scope) -> &'static str {
    match scope {
        Scope::File => "file",
        Scope::Directory => "directory",
        Scope::Run => "run",
    }
}

/// The rules in documentation order, as one JSON document.
pub(crate) fn json() -> String {
    let doc = Document {
        version: SCHEMA_VERSION,
        rules: RULES
            .iter()
            .map(|r| Item {
                id: r.id,
                default: r.default,
                scope: scope(r.scope),
                summary: r.summary,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
}

/// The rules in documentation order, one a line: id, default severity, summary (cut with
/// `…` to fit `width`), then (unless `quiet`) how many and where to read more.
pub(crate) fn table(width: usize, quiet: bool) -> String {
    let id_w = RULES.iter().map(|r| r.id.as_str().len()).max().unwrap_or(2);
    let sev_w = "DEFAULT".len();
    let summary_w = width.saturating_sub(id_w + 2 + sev_w + 2).max(20);
    let mut out = format!("{:id_w$}  {:sev_w$}  SUMMARY\n", "RULE", "DEFAULT");
    for r in RULES {
        let line = format!(
            "{:id_w$}  {:sev_w$}  {}",
            r.id.as_str(),
            r.default.as_str(),
            cut(r.summary, summary_w)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !quiet {
        out.push_str(&format!(
            "{} rules; why and how to fix one: skills lint --explain RULE\n",
            RULES.len()
        ));
    }
    out
}

/// `text` cut to `width` characters, ending with `…` when cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_a_row_that_fits() {
        for width in [40, 60, 100, 160] {
            let table = table(width, false);
            for r in RULES {
                assert!(
                    table.lines().any(|l| l.starts_with(&format!("{} ", r.id))),
                    "{} at {width}",
                    r.id
                );
            }
            if width >= 60 {
                for line in table.lines() {
                    assert!(line.chars().count() <= width, "{width}: {line:?}");
                }
            }
        }
    }
}
