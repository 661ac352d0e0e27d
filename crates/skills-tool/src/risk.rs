//! The audit of a staged skill before `install`, `add`, `sync` and `update` move it into
//! place (docs/audit.md, "Where it runs"): findings at or above [`REFUSE_AT`] refuse the
//! skill unless the user names each of their rules (`--allow-risk RULE`), or the lock
//! accepted them for these very files. Shared by commands, so it is not one.

use std::path::Path;

use skills_audit::{Auditor, Finding, RuleId, Severity};

use crate::errors::plain as error;
use crate::printer::Printer;
use crate::render;

/// The severity from which a finding refuses an install.
pub(crate) const REFUSE_AT: Severity = Severity::High;

/// The most findings of one rule named in a refusal; the rest are counted.
const SHOWN_PER_RULE: usize = 5;

/// The rules whose rationale a refusal of this run has printed: `add --all` over a
/// collection can refuse many skills for the same rule, and one explanation is enough.
static EXPLAINED: std::sync::Mutex<Vec<RuleId>> = std::sync::Mutex::new(Vec::new());

/// Whether `rule`'s rationale is still to be printed in this run (and marks it printed).
fn first_explanation(rule: RuleId) -> bool {
    let mut explained = EXPLAINED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if explained.contains(&rule) {
        return false;
    }
    explained.push(rule);
    true
}

/// What the user accepts for one install: the rules named with `--allow-risk`, and what the
/// lock accepted before (for the files of one digest).
pub(crate) struct Risk<'a> {
    pub(crate) auditor: &'a Auditor,
    pub(crate) allow: &'a [RuleId],
    pub(crate) locked: Option<&'a skills_add::AcceptedRisks>,
}

/// What the audit of a staged skill decided.
pub(crate) enum Verdict {
    /// Nothing at or above [`REFUSE_AT`] that is not accepted. The accepted risks (rules
    /// found at or above it, and the digest of the files), when there are any.
    Pass(Option<skills_add::AcceptedRisks>),
    /// Refused: the findings are printed.
    Refused,
}

/// The auditor for a run: the `[audit] allow` entries of the nearest `skills.toml` from
/// `base` (the project's; `None` for the user's skills, which no project configures). The
/// skill's own `skills-audit: allow` markers are not honoured here: its author wrote them,
/// and what an install refuses is for the user to accept, not the author.
pub(crate) fn auditor(base: Option<&Path>) -> Result<Auditor, miette::Report> {
    let mut config = config(base)?;
    config.inline = false;
    Ok(Auditor::new(config))
}

/// The `[audit]` configuration of the nearest `skills.toml` from `base`, the default
/// without one (or without a base).
pub(crate) fn config(base: Option<&Path>) -> Result<skills_audit::Config, miette::Report> {
    let mut config = skills_audit::Config::new();
    if let Some(base) = base {
        let start = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
        if let Some(file) = start
            .ancestors()
            .map(|d| d.join("skills.toml"))
            .find(|f| f.is_file())
        {
            let text = std::fs::read_to_string(&file).map_err(|e| {
                error(
                    format!("{}: {e}", render::relative(&file)),
                    "check that the file is readable",
                )
            })?;
            config = skills_audit::Config::from_toml(&text, &file).map_err(|e| {
                error(
                    e.to_string(),
                    "fix the [audit] section (docs/audit.md says how to suppress a finding)",
                )
            })?;
        }
    }
    Ok(config)
}

/// The `--allow-risk` value parser: an audit rule id, with "did you mean" for a near miss.
pub(crate) fn parse_rule(text: &str) -> Result<RuleId, String> {
    text.parse::<RuleId>()
        .map_err(|e| match e.suggestions.first() {
            Some(s) => format!("{e}; did you mean `{s}`?"),
            None => format!("{e}; `skills audit --rules` lists them"),
        })
}

/// Audits the skill staged at `staged` for `name`, before it is moved into place at `dest`
/// (whose path, from the project's root, `[audit] allow` entries name). Findings name their
/// files as `shown_as` makes them (where the skill comes from or goes). A refusal
/// is printed on stderr: each finding at or above [`REFUSE_AT`] (file, line, rule, what and
/// why) and the flags that would accept them; accepted ones are a warning.
pub(crate) fn check(
    name: &str,
    staged: &Path,
    dest: &Path,
    shown_as: &dyn Fn(&str) -> String,
    risk: &Risk<'_>,
    printer: &Printer,
) -> Result<Verdict, miette::Report> {
    let report = risk.auditor.audit_dir_at(staged, dest).map_err(|e| {
        error(
            format!("{name}: the staged skill could not be audited: {e}"),
            "check that the temporary directory is readable",
        )
    })?;
    let digest = format!("sha256:{}", report.digest);
    let locked: &[String] = risk.locked.map_or(&[], |l| l.for_digest(&digest));
    let risky: Vec<&Finding> = report.at_least(REFUSE_AT).collect();
    let mut found: Vec<RuleId> = risky.iter().map(|f| f.rule).collect();
    found.sort_unstable();
    found.dedup();
    let by_lock = |rule: RuleId| locked.iter().any(|r| r == rule.as_str());
    let refused: Vec<RuleId> = found
        .iter()
        .copied()
        .filter(|&r| !risk.allow.contains(&r) && !by_lock(r))
        .collect();
    if refused.is_empty() {
        let by_flag: Vec<&str> = found
            .iter()
            .filter(|&&r| !by_lock(r))
            .map(|r| r.as_str())
            .collect();
        if !by_flag.is_empty() {
            printer.warn(&format!(
                "{name}: the audit found {} ({} finding(s) at or above {REFUSE_AT}); accepted as --allow-risk asks",
                by_flag.join(", "),
                risky.len()
            ));
        }
        let accepted = (!found.is_empty()).then(|| {
            skills_add::AcceptedRisks::new(
                found.iter().map(|r| r.as_str().to_string()).collect(),
                digest,
            )
        });
        return Ok(Verdict::Pass(accepted));
    }
    printer.err(&refusal(name, &risky, &refused, &found, shown_as));
    Ok(Verdict::Refused)
}

/// The text of a refusal: the findings of the refused rules, grouped by rule (its severity,
/// id and, the first time in the run, why it matters), each with its file, line, column
/// and what was found; then the flags that accept every rule found.
fn refusal(
    name: &str,
    risky: &[&Finding],
    refused: &[RuleId],
    found: &[RuleId],
    shown_as: &dyn Fn(&str) -> String,
) -> String {
    let count = risky.iter().filter(|f| refused.contains(&f.rule)).count();
    let mut text = format!(
        "error: {name} not installed: the audit found {count} risk(s) at or above {REFUSE_AT}\n"
    );
    for &rule in refused {
        let of_rule: Vec<&&Finding> = risky.iter().filter(|f| f.rule == rule).collect();
        let severity = of_rule
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(REFUSE_AT);
        if first_explanation(rule) {
            text.push_str(&format!("  {severity} {rule}: {}\n", rule.rule().rationale));
        } else {
            text.push_str(&format!("  {severity} {rule} (why it matters: above)\n"));
        }
        for f in of_rule.iter().take(SHOWN_PER_RULE) {
            let at = if f.line > 0 {
                format!("{}:{}:{}", shown_as(&f.path), f.line, f.column)
            } else {
                shown_as(&f.path)
            };
            text.push_str(&format!(
                "    {}: {}\n",
                render::terminal_safe(&at),
                render::terminal_safe(&f.message)
            ));
        }
        if of_rule.len() > SHOWN_PER_RULE {
            text.push_str(&format!(
                "    and {} more (`skills audit` lists them all)\n",
                of_rule.len() - SHOWN_PER_RULE
            ));
        }
    }
    let flags: Vec<String> = found.iter().map(|r| format!("--allow-risk {r}")).collect();
    text.push_str(&format!(
        "help: read the files named above; to install {name} all the same, accept what the audit found: {}\n",
        flags.join(" ")
    ));
    text
}
