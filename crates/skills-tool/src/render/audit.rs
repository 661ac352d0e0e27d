//! `skills audit`'s reports in every format: human, concise, JSON (schema in
//! docs/schemas/audit.schema.json), GitHub annotations and SARIF; and its rule table.

use std::fmt::Write as _;

use owo_colors::OwoColorize as _;
use serde::Serialize;
use skills_audit::{Finding, RULES, Report, RuleId, Severity};

use super::terminal_safe;
use crate::printer::Ui;

/// Bumped on any incompatible change to the JSON document.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// One audited skill: where it is (as printed) and its report.
pub(crate) struct Audited {
    pub(crate) path: String,
    pub(crate) report: Report,
}

impl Audited {
    /// A finding's file as printed: the skill's path joined with the file's.
    fn file(&self, f: &Finding) -> String {
        if f.path.contains("skills.toml") && f.rule == RuleId::SuppressionWithoutReason {
            return f.path.clone();
        }
        if self.path.is_empty() || self.path == "." {
            f.path.clone()
        } else if self.path.ends_with(".md")
            && (f.path == "SKILL.md" || self.path.ends_with(&f.path))
        {
            // A single Markdown file given as the path.
            self.path.clone()
        } else {
            format!("{}/{}", self.path.trim_end_matches('/'), f.path)
        }
    }
}

/// The totals of a run.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Summary {
    skills: usize,
    files: usize,
    critical: usize,
    high: usize,
    medium: usize,
    low: usize,
    suppressed: usize,
    fail_on: Severity,
    failed: bool,
}

pub(crate) fn summary(audited: &[Audited], fail_on: Severity) -> Summary {
    let mut s = Summary {
        skills: 0,
        files: 0,
        critical: 0,
        high: 0,
        medium: 0,
        low: 0,
        suppressed: 0,
        fail_on,
        failed: false,
    };
    for a in audited {
        s.skills += 1;
        s.files += a.report.files;
        let c = a.report.counts();
        s.critical += c.critical;
        s.high += c.high;
        s.medium += c.medium;
        s.low += c.low;
        s.suppressed += a.report.suppressed.len();
        s.failed |= a.report.max_severity().is_some_and(|m| m >= fail_on);
    }
    s
}

impl Summary {
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }
}

fn colored(ui: Ui, s: Severity) -> String {
    let name = s.as_str();
    if !ui.color {
        return name.to_string();
    }
    match s {
        Severity::Critical => name.red().bold().to_string(),
        Severity::High => name.red().to_string(),
        Severity::Medium => name.yellow().to_string(),
        Severity::Low => name.cyan().to_string(),
    }
}

fn one_line(s: &str) -> String {
    terminal_safe(&s.replace(['\n', '\r'], " ")).into_owned()
}

fn wrap(text: &str, width: usize, indent: &str) -> String {
    let opts = textwrap::Options::new(width.saturating_sub(indent.len()).max(20));
    textwrap::wrap(text, opts)
        .iter()
        .map(|l| format!("{indent}{l}\n"))
        .collect()
}

/// Each finding with its evidence, why it matters and the fix; then the totals.
pub(crate) fn human(audited: &[Audited], summary: &Summary, ui: Ui) -> String {
    let mut out = String::new();
    for a in audited {
        for f in &a.report.findings {
            let rule = f.rule.rule();
            let place = if f.line > 0 {
                format!("{}:{}:{}", a.file(f), f.line, f.column)
            } else {
                a.file(f)
            };
            let _ = writeln!(
                out,
                "{}[{}] {}",
                colored(ui, f.severity),
                f.rule,
                one_line(&place)
            );
            out.push_str(&wrap(&one_line(&f.message), ui.width, "  "));
            if !f.evidence.is_empty() {
                let evidence = one_line(&f.evidence);
                // At a terminal (or with `$COLUMNS`) the quoted text (one line, at most 200
                // characters, tabs made spaces by the audit) is cut to fit beside its bar; a
                // pipe keeps it whole, for search.
                let evidence = if ui.width_stated {
                    super::cells::cut_end(&evidence, ui.width.saturating_sub(4)).into_owned()
                } else {
                    evidence
                };
                let _ = writeln!(out, "  │ {evidence}");
            }
            out.push_str(&wrap(&format!("why: {}", rule.rationale), ui.width, "  "));
            out.push_str(&wrap(&format!("fix: {}", rule.fix), ui.width, "  "));
            out.push('\n');
        }
    }
    if !ui.quiet() {
        out.push_str(&summary_line(summary));
    }
    out
}

fn summary_line(s: &Summary) -> String {
    let skills = if s.skills == 1 {
        "1 skill".to_string()
    } else {
        format!("{} skills", s.skills)
    };
    let files = if s.files == 1 {
        "1 file".to_string()
    } else {
        format!("{} files", s.files)
    };
    let mut line = format!(
        "Audited {skills} ({files}): {} critical, {} high, {} medium, {} low",
        s.critical, s.high, s.medium, s.low
    );
    if s.suppressed > 0 {
        let _ = write!(line, "; {} suppressed", s.suppressed);
    }
    let _ = writeln!(
        line,
        ". {}",
        if s.failed {
            format!("Failed: findings at or above {}.", s.fail_on)
        } else {
            format!("Nothing at or above {}.", s.fail_on)
        }
    );
    line
}

/// One line per finding: `path:line:col: severity rule message`.
pub(crate) fn concise(audited: &[Audited], summary: &Summary, ui: Ui) -> String {
    let mut out = String::new();
    for a in audited {
        for f in &a.report.findings {
            let _ = writeln!(
                out,
                "{}:{}:{}: {} {} {}",
                one_line(&a.file(f)),
                f.line,
                f.column,
                f.severity,
                f.rule,
                one_line(&f.message)
            );
        }
    }
    if !ui.quiet() {
        out.push_str(&summary_line(summary));
    }
    out
}

#[derive(Serialize)]
struct JsonDocument<'a> {
    version: u32,
    skills: Vec<JsonSkill<'a>>,
    summary: &'a Summary,
}

#[derive(Serialize)]
struct JsonSkill<'a> {
    path: &'a str,
    digest: &'a str,
    files: usize,
    max_severity: Option<Severity>,
    counts: skills_audit::Counts,
    findings: Vec<JsonFinding<'a>>,
    suppressed: Vec<JsonSuppressed<'a>>,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: RuleId,
    severity: Severity,
    category: skills_audit::Category,
    path: String,
    file: &'a str,
    line: u32,
    column: u32,
    evidence: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonSuppressed<'a> {
    rule: RuleId,
    severity: Severity,
    path: String,
    line: u32,
    column: u32,
    reason: &'a str,
    by: &'a str,
}

fn json_finding<'a>(a: &Audited, f: &'a Finding) -> JsonFinding<'a> {
    JsonFinding {
        rule: f.rule,
        severity: f.severity,
        category: f.rule.rule().category,
        path: a.file(f),
        file: &f.path,
        line: f.line,
        column: f.column,
        evidence: &f.evidence,
        message: &f.message,
    }
}

/// One JSON document.
pub(crate) fn json(audited: &[Audited], summary: &Summary) -> String {
    let doc = JsonDocument {
        version: SCHEMA_VERSION,
        skills: audited
            .iter()
            .map(|a| JsonSkill {
                path: &a.path,
                digest: &a.report.digest,
                files: a.report.files,
                max_severity: a.report.max_severity(),
                counts: a.report.counts(),
                findings: a
                    .report
                    .findings
                    .iter()
                    .map(|f| json_finding(a, f))
                    .collect(),
                suppressed: a
                    .report
                    .suppressed
                    .iter()
                    .map(|s| JsonSuppressed {
                        rule: s.finding.rule,
                        severity: s.finding.severity,
                        path: a.file(&s.finding),
                        line: s.finding.line,
                        column: s.finding.column,
                        reason: &s.reason,
                        by: &s.by,
                    })
                    .collect(),
            })
            .collect(),
        summary,
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

fn data(s: &str) -> String {
    // Escapes of the skill's text (ESC, BEL) are shown, not sent: the log may be read
    // at a terminal.
    let escaped = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::terminal_safe(&escaped).into_owned()
}

fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: high and critical as errors, the rest as warnings.
pub(crate) fn github(audited: &[Audited]) -> String {
    let mut out = String::new();
    for a in audited {
        for f in &a.report.findings {
            let kind = if f.severity >= Severity::High {
                "error"
            } else {
                "warning"
            };
            let mut props = vec![format!("file={}", property(&a.file(f)))];
            if f.line > 0 {
                props.push(format!("line={}", f.line));
                props.push(format!("col={}", f.column));
            }
            props.push(format!(
                "title={}",
                property(&format!("skills audit: {} ({})", f.rule, f.severity))
            ));
            let _ = writeln!(
                out,
                "::{kind} {}::{}",
                props.join(","),
                data(&format!("{}\nfix: {}", f.message, f.rule.rule().fix))
            );
        }
    }
    out
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

/// SARIF 2.1.0; `security-severity` carries the severity for GitHub code scanning.
pub(crate) fn sarif(audited: &[Audited]) -> String {
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.rationale },
                "help": { "text": r.fix },
                "defaultConfiguration": { "level": sarif_level(r.severity) },
                "properties": {
                    "tags": ["security", r.category.as_str()],
                    "security-severity": security_severity(r.severity),
                },
            })
        })
        .collect();
    let mut results = Vec::new();
    for a in audited {
        for f in &a.report.findings {
            let physical = if f.line > 0 {
                serde_json::json!({
                    "artifactLocation": { "uri": a.file(f) },
                    "region": { "startLine": f.line, "startColumn": f.column },
                })
            } else {
                serde_json::json!({ "artifactLocation": { "uri": a.file(f) } })
            };
            let location = serde_json::json!({ "physicalLocation": physical });
            results.push(serde_json::json!({
                "ruleId": f.rule,
                "ruleIndex": f.rule as usize,
                "level": sarif_level(f.severity),
                "message": { "text": format!("{}\nfix: {}", f.message, f.rule.rule().fix) },
                "locations": [location],
                "properties": { "security-severity": security_severity(f.severity) },
            }));
        }
    }
    let doc = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "skills audit",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

fn security_severity(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "2.0",
    }
}

/// `--rules`: a table (id, category, severity, summary).
pub(crate) fn rules_table(width: usize) -> String {
    let id_w = RULES.iter().map(|r| r.id.as_str().len()).max().unwrap_or(0);
    let cat_w = RULES
        .iter()
        .map(|r| r.category.as_str().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let lead = id_w + cat_w + 8 + 6;
    for r in RULES {
        let summary = textwrap::wrap(r.summary, width.saturating_sub(lead).max(30));
        for (i, line) in summary.iter().enumerate() {
            if i == 0 {
                let _ = writeln!(
                    out,
                    "{:id_w$}  {:cat_w$}  {:8}  {line}",
                    r.id.as_str(),
                    r.category.as_str(),
                    r.severity.as_str()
                );
            } else {
                let _ = writeln!(out, "{:lead$}{line}", "", lead = id_w + cat_w + 14);
            }
        }
    }
    out
}

#[derive(Serialize)]
struct JsonRule {
    id: RuleId,
    category: skills_audit::Category,
    severity: Severity,
    summary: &'static str,
    rationale: &'static str,
    fix: &'static str,
}

/// `--rules --format json`.
pub(crate) fn rules_json() -> String {
    let rules: Vec<JsonRule> = RULES
        .iter()
        .map(|r| JsonRule {
            id: r.id,
            category: r.category,
            severity: r.severity,
            summary: r.summary,
            rationale: r.rationale,
            fix: r.fix,
        })
        .collect();
    let mut text = serde_json::to_string_pretty(
        &serde_json::json!({ "version": SCHEMA_VERSION, "rules": rules }),
    )
    .unwrap_or_default();
    text.push('\n');
    text
}
