//! `--format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, IDEs).

use serde_json::{Value, json};
use skills_lint::{RULES, Report, Severity};

use super::path_str;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

pub(crate) fn report(report: &Report) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.rationale },
                "help": { "text": r.fix },
                "defaultConfiguration": { "level": level(r.default) },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .diagnostics()
        .map(|d| {
            let mut location = json!({
                "physicalLocation": {
                    "artifactLocation": { "uri": path_str(&d.path) },
                }
            });
            if let (Some(s), Some(e), Some(loc)) =
                (d.start, d.end, location.get_mut("physicalLocation"))
                && let Some(obj) = loc.as_object_mut()
            {
                obj.insert(
                    "region".to_string(),
                    json!({
                        "startLine": s.line,
                        "startColumn": s.column,
                        "endLine": e.line,
                        "endColumn": e.column,
                    }),
                );
            }
            json!({
                "ruleId": d.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == d.rule),
                "level": level(d.severity),
                "message": { "text": format!("{}\nhelp: {}", d.message, d.help) },
                "locations": [location],
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "skills",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}"), |s| s + "\n")
}
