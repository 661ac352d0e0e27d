//! `skills lint`.

use std::path::PathBuf;

use skills_lint::{Config, ConfigError, Level, LintError, Linter};

use crate::cli::{Format, LintArgs};
use crate::{Status, Ui, emit, fail, render};

pub(crate) fn run(args: &LintArgs, ui: Ui) -> Status {
    if let Some(id) = &args.explain {
        return explain(id, ui);
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config = match config(args, &paths) {
        Ok(c) => c,
        Err(e) => return fail(ui, render::config_error(e)),
    };
    let strict = config.strict;
    let start = std::time::Instant::now();
    let report = match Linter::new(config).lint_paths(&paths) {
        Ok(r) => r,
        Err(e) => return fail(ui, lint_error(&e)),
    };
    if ui.verbose() {
        eprint!("{}", progress(&report, start.elapsed()));
    }
    let text = match args.format {
        Format::Human => render::human::report(ui, &report, strict),
        Format::Json => render::json::report(&report),
        Format::Github => render::github::report(&report),
        Format::Sarif => render::sarif::report(&report),
    };
    // A closed stdout (`skills lint | head`) ends the output, not the verdict: the findings
    // still decide the exit code.
    if let Err(Status::Error) = emit(&text) {
        return Status::Error;
    }
    if report.failed(strict) {
        Status::Failure
    } else {
        Status::Success
    }
}

/// `-v`: each skill checked, with its findings, and the time taken (on stderr, so every
/// format's stdout stays the same).
fn progress(report: &skills_lint::Report, took: std::time::Duration) -> String {
    use render::human::plural;
    let mut out = String::new();
    for skill in &report.skills {
        let errors = skill
            .diagnostics
            .iter()
            .filter(|d| d.severity == skills_lint::Severity::Error)
            .count();
        let warnings = skill.diagnostics.len() - errors;
        out.push_str(&format!(
            "checked {}: {}, {}\n",
            render::path_str(&skill.dir),
            plural(errors, "error"),
            plural(warnings, "warning"),
        ));
    }
    out.push_str(&format!(
        "linted {} in {:.1} ms\n",
        plural(report.skills.len(), "skill"),
        took.as_secs_f64() * 1000.0
    ));
    out
}

/// skills.toml (nearest to the first path) first, then the flags: `--allow`, `--warn`,
/// `--deny`, so the strictest flag wins when a rule is named twice.
fn config(args: &LintArgs, paths: &[PathBuf]) -> Result<Config, ConfigError> {
    let mut config = if args.no_config {
        Config::default()
    } else {
        let first = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
        let start = if first.is_file() {
            first.parent().map(PathBuf::from).unwrap_or_default()
        } else {
            first
        };
        Config::discover(&start)?
    };
    for (ids, level) in [
        (&args.allow, Level::Allow),
        (&args.warn, Level::Warn),
        (&args.deny, Level::Deny),
    ] {
        for id in ids {
            config.set(id, level)?;
        }
    }
    config.strict |= args.strict;
    Ok(config)
}

fn lint_error(e: &LintError) -> miette::Report {
    let help = match e {
        LintError::NotFound { .. } => {
            "check the path; `skills lint` with no path lints the current directory"
        }
        LintError::NotASkill { .. } => {
            "pass a skill directory, a SKILL.md file, or a directory that contains skills"
        }
        _ => "check that the path is readable",
    };
    miette::Report::new(miette::MietteDiagnostic::new(e.to_string()).with_help(help))
}

fn explain(id: &str, ui: Ui) -> Status {
    let Some(rule) = skills_lint::rule(id) else {
        let mut d = miette::MietteDiagnostic::new(format!("unknown rule `{id}`"));
        d = d.with_help(match skills_lint::suggest(id) {
            Some(s) => format!("did you mean `{s}`? `skills lint --explain` takes a rule id"),
            None => "the rules are listed in docs/lint-rules.md".to_string(),
        });
        return fail(ui, miette::Report::new(d));
    };
    let text = format!(
        "{id} ({severity} by default)\n\n{summary}\n\nWhy: {why}\n\nFix: {fix}\n\nBad:\n{bad}\n\nGood:\n{good}\n",
        id = rule.id,
        severity = rule.default.as_str(),
        summary = rule.summary,
        why = rule.rationale,
        fix = rule.fix,
        bad = indent(rule.bad),
        good = indent(rule.good),
    );
    match emit(&text) {
        Ok(()) | Err(Status::Success) => Status::Success,
        Err(s) => s,
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_string()
}
