//! `cargo xtask corpus DIR [--bless]`: lints each collection of a corpus of real-world skills
//! with the `skills` binary and compares the counts with
//! `testdata/corpus-expected.json`.
//!
//! The corpus itself is third-party text and stays outside the repository: only the counts
//! are committed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::{build_skills_dev, workspace_root};

/// The expectation file, relative to the workspace root.
const EXPECTED: &str = "testdata/corpus-expected.json";

const USAGE: &str = "usage: cargo xtask corpus DIR [--bless]";

/// What one collection produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Counts {
    skills: u64,
    errors: u64,
    warnings: u64,
    /// Findings per rule id.
    rules: BTreeMap<String, u64>,
}

/// Runs the task.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut dir = None;
    let mut bless = false;
    for arg in args {
        match arg.as_str() {
            "--bless" => bless = true,
            flag if flag.starts_with('-') => bail!("unknown option `{flag}` ({USAGE})"),
            path if dir.is_none() => dir = Some(PathBuf::from(path)),
            extra => bail!("unexpected argument `{extra}` ({USAGE})"),
        }
    }
    let Some(dir) = dir else {
        bail!("no corpus directory given ({USAGE})");
    };
    let given = dir.display().to_string();
    let dir = std::path::absolute(&dir).with_context(|| format!("cannot resolve {given}"))?;
    let collections = collections(&dir)?;
    if collections.is_empty() {
        bail!("{} holds no collection directories", dir.display());
    }

    let exe = build_skills_dev()?;
    let mut actual = BTreeMap::new();
    for (name, path) in &collections {
        let counts = lint_collection(&exe, path)
            .with_context(|| format!("collection `{name}` ({})", path.display()))?;
        actual.insert(name.clone(), counts);
    }
    print!("{}", table(&actual));

    let expected_path = workspace_root().join(EXPECTED);
    if bless {
        let text = to_json(&actual)?;
        std::fs::write(&expected_path, text)
            .with_context(|| format!("cannot write {}", expected_path.display()))?;
        eprintln!("wrote {EXPECTED}");
        return Ok(());
    }
    let text = std::fs::read_to_string(&expected_path).with_context(|| {
        format!("cannot read {EXPECTED}; run `cargo xtask corpus DIR --bless` to create it")
    })?;
    let expected = from_json(&text).with_context(|| format!("invalid {EXPECTED}"))?;
    let diffs = differences(&expected, &actual);
    if !diffs.is_empty() {
        eprintln!("the corpus counts differ from {EXPECTED} (expected -> actual):");
        for d in &diffs {
            eprintln!("  {d}");
        }
        bail!(
            "{} difference(s); if the change is intended, run `cargo xtask corpus {} --bless` and commit {EXPECTED}",
            diffs.len(),
            given
        );
    }
    eprintln!("corpus counts match {EXPECTED}");
    Ok(())
}

/// The immediate subdirectories of `dir` (not hidden), by name.
fn collections(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        out.push((name, entry.path()));
    }
    out.sort();
    Ok(out)
}

/// Runs `skills lint <path> --format json --no-config` and counts its findings. Fails when the process
/// crashed or failed (exit status other than 0 or 1), when the output is not the documented
/// JSON, or when the summary, the diagnostics and the exit status disagree.
fn lint_collection(exe: &Path, path: &Path) -> Result<Counts> {
    let mut cmd = Command::new(exe);
    // Default severities: no `skills.toml` of the surrounding tree applies.
    cmd.arg("lint")
        .arg(path)
        .args(["--format", "json", "--no-config"])
        .current_dir(path);
    let out = cmd.output().context("cannot run skills")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = match out.status.code() {
        Some(code @ (0 | 1)) => code,
        Some(code) => bail!("`skills lint` failed with exit status {code}:\n{stderr}"),
        None => bail!("`skills lint` was killed ({}):\n{stderr}", out.status),
    };
    let counts =
        parse_report(&out.stdout).context("unexpected `skills lint --format json` output")?;
    if (code == 1) != (counts.errors > 0) {
        bail!(
            "exit status {code} does not match the {} error(s) reported",
            counts.errors
        );
    }
    Ok(counts)
}

/// Counts the findings of a JSON report, checking it against its own summary.
fn parse_report(stdout: &[u8]) -> Result<Counts> {
    let report: Value = serde_json::from_slice(stdout).context("not JSON")?;
    let version = report.get("version").and_then(Value::as_u64);
    if version != Some(1) {
        bail!("expected \"version\": 1, got {version:?}");
    }
    let summary = report.get("summary").context("no \"summary\"")?;
    let number = |key: &str| {
        summary
            .get(key)
            .and_then(Value::as_u64)
            .with_context(|| format!("no number \"summary.{key}\""))
    };
    let mut counts = Counts {
        skills: number("skills")?,
        ..Counts::default()
    };
    let diagnostics = report
        .get("diagnostics")
        .and_then(Value::as_array)
        .context("no \"diagnostics\" array")?;
    for d in diagnostics {
        let rule = d
            .get("rule")
            .and_then(Value::as_str)
            .with_context(|| format!("diagnostic without \"rule\": {d}"))?;
        match d.get("severity").and_then(Value::as_str) {
            Some("error") => counts.errors += 1,
            Some("warning") => counts.warnings += 1,
            other => bail!("diagnostic with severity {other:?}: {d}"),
        }
        *counts.rules.entry(rule.to_string()).or_default() += 1;
    }
    let (errors, warnings) = (number("errors")?, number("warnings")?);
    if (errors, warnings) != (counts.errors, counts.warnings) {
        bail!(
            "the summary says {errors} error(s) and {warnings} warning(s), the diagnostics hold {} and {}",
            counts.errors,
            counts.warnings
        );
    }
    Ok(counts)
}

/// The counts as a Markdown table, with each collection's findings per rule.
fn table(all: &BTreeMap<String, Counts>) -> String {
    let mut out = String::new();
    out.push_str("| collection | skills | errors | warnings | findings by rule |\n");
    out.push_str("|---|---:|---:|---:|---|\n");
    for (name, c) in all {
        let rules = if c.rules.is_empty() {
            "-".to_string()
        } else {
            c.rules
                .iter()
                .map(|(rule, n)| format!("`{rule}` {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {rules} |",
            c.skills, c.errors, c.warnings
        );
    }
    out
}

fn to_json(all: &BTreeMap<String, Counts>) -> Result<String> {
    let collections: serde_json::Map<String, Value> = all
        .iter()
        .map(|(name, c)| {
            let value = json!({
                "skills": c.skills,
                "errors": c.errors,
                "warnings": c.warnings,
                "rules": c.rules,
            });
            (name.clone(), value)
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({ "collections": collections }))?;
    text.push('\n');
    Ok(text)
}

fn from_json(text: &str) -> Result<BTreeMap<String, Counts>> {
    let value: Value = serde_json::from_str(text)?;
    let collections = value
        .get("collections")
        .and_then(Value::as_object)
        .context("no \"collections\" object")?;
    let mut out = BTreeMap::new();
    for (name, c) in collections {
        let number = |key: &str| {
            c.get(key)
                .and_then(Value::as_u64)
                .with_context(|| format!("`{name}`: no number \"{key}\""))
        };
        let mut rules = BTreeMap::new();
        if let Some(map) = c.get("rules").and_then(Value::as_object) {
            for (rule, n) in map {
                let n = n
                    .as_u64()
                    .with_context(|| format!("`{name}`: rule `{rule}` count is not a number"))?;
                rules.insert(rule.clone(), n);
            }
        }
        let counts = Counts {
            skills: number("skills")?,
            errors: number("errors")?,
            warnings: number("warnings")?,
            rules,
        };
        out.insert(name.clone(), counts);
    }
    Ok(out)
}

/// Every difference, one line each: `collection.field: expected -> actual`.
fn differences(
    expected: &BTreeMap<String, Counts>,
    actual: &BTreeMap<String, Counts>,
) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = expected.keys().chain(actual.keys()).collect();
    for name in names {
        let (e, a) = match (expected.get(name), actual.get(name)) {
            (Some(e), Some(a)) => (e, a),
            (Some(_), None) => {
                out.push(format!("{name}: expected, but not in the corpus"));
                continue;
            }
            (None, Some(_)) => {
                out.push(format!("{name}: in the corpus, but not expected"));
                continue;
            }
            (None, None) => continue,
        };
        for (field, x, y) in [
            ("skills", e.skills, a.skills),
            ("errors", e.errors, a.errors),
            ("warnings", e.warnings, a.warnings),
        ] {
            if x != y {
                out.push(format!("{name}.{field}: {x} -> {y}"));
            }
        }
        let rules: BTreeSet<&String> = e.rules.keys().chain(a.rules.keys()).collect();
        for rule in rules {
            let x = e.rules.get(rule).copied().unwrap_or(0);
            let y = a.rules.get(rule).copied().unwrap_or(0);
            if x != y {
                out.push(format!("{name}.rules.{rule}: {x} -> {y}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"version":1,"summary":{"skills":2,"errors":1,"warnings":2},"diagnostics":[
        {"path":"a/SKILL.md","rule":"description-too-long","severity":"error","message":"m","line":3,"column":1,"end_line":3,"end_column":9,"help":"h"},
        {"path":"a/SKILL.md","rule":"body-too-long","severity":"warning","message":"m","line":null,"column":null,"end_line":null,"end_column":null,"help":"h"},
        {"path":"b/SKILL.md","rule":"body-too-long","severity":"warning","message":"m","line":9,"column":1,"end_line":9,"end_column":2,"help":"h"}]}"#;

    #[test]
    fn parses_and_counts_a_report() {
        let c = parse_report(REPORT.as_bytes()).unwrap();
        assert_eq!((c.skills, c.errors, c.warnings), (2, 1, 2));
        assert_eq!(c.rules.get("body-too-long"), Some(&2));
        assert_eq!(c.rules.get("description-too-long"), Some(&1));
    }

    #[test]
    fn rejects_an_inconsistent_summary() {
        let bad = REPORT.replace("\"errors\":1", "\"errors\":0");
        assert!(parse_report(bad.as_bytes()).is_err());
        assert!(parse_report(b"not json").is_err());
        assert!(parse_report(br#"{"version":2}"#).is_err());
    }

    #[test]
    fn json_round_trip_and_differences() {
        let mut all = BTreeMap::new();
        all.insert(
            "skills".to_string(),
            parse_report(REPORT.as_bytes()).unwrap(),
        );
        let text = to_json(&all).unwrap();
        assert!(text.starts_with("{\n  \"collections\": {\n    \"skills\": {\n"));
        let back = from_json(&text).unwrap();
        assert_eq!(back, all);
        assert!(differences(&back, &all).is_empty());

        let mut changed = all.clone();
        if let Some(c) = changed.get_mut("skills") {
            c.warnings = 3;
            c.rules.insert("link-missing".to_string(), 1);
        }
        changed.insert("more".to_string(), Counts::default());
        assert_eq!(
            differences(&all, &changed),
            [
                "more: in the corpus, but not expected",
                "skills.warnings: 2 -> 3",
                "skills.rules.link-missing: 0 -> 1",
            ]
        );
    }
}
