//! `--format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, IDEs).
//!
//! Typed structs, each result serialized as its skill's batch is linted: building the
//! document as a `serde_json::Value` first held every result twice over (325 MB for 30,000
//! findings).

use serde::Serialize;
use skills_lint::{Diagnostic, RULES, RuleId, Severity};

use super::path_str;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

#[derive(Serialize)]
pub(crate) struct Document {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    column_kind: &'static str,
    results: [(); 0],
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: RuleId,
    short_description: Text<&'static str>,
    full_description: Text<&'static str>,
    help: Text<&'static str>,
    default_configuration: Level,
}

#[derive(Serialize)]
struct Text<T> {
    text: T,
}

#[derive(Serialize)]
struct Level {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SarifResult {
    rule_id: RuleId,
    rule_index: usize,
    level: &'static str,
    message: Text<String>,
    locations: [Location; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: Physical,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical {
    artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct Artifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

/// The document, `results` empty: the stream writes them one by one.
pub(crate) fn document() -> Document {
    let rules = RULES
        .iter()
        .map(|r| Rule {
            id: r.id,
            short_description: Text { text: r.summary },
            full_description: Text { text: r.rationale },
            help: Text { text: r.fix },
            default_configuration: Level {
                level: level(r.default),
            },
        })
        .collect();
    Document {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "skills",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results: [],
        }],
    }
}

/// One finding as a SARIF result.
pub(crate) fn result(d: &Diagnostic) -> SarifResult {
    SarifResult {
        rule_id: d.rule,
        // `RuleId`s are declared in the order of `RULES` (a test in skills-lint).
        rule_index: d.rule as usize,
        level: level(d.severity),
        message: Text {
            text: format!("{}\nhelp: {}", d.message, d.help),
        },
        locations: [Location {
            physical_location: Physical {
                artifact_location: Artifact {
                    uri: path_str(&d.path),
                },
                region: match (d.start, d.end) {
                    (Some(s), Some(e)) => Some(Region {
                        start_line: s.line,
                        start_column: s.column,
                        end_line: e.line,
                        end_column: e.column,
                    }),
                    _ => None,
                },
            },
        }],
    }
}
