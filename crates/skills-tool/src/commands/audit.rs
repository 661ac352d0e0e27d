//! `skills audit`.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use skills_audit::{AuditError, Auditor, Config, RuleId, Severity, SourceFile, Target};

use crate::args::{AuditArgs, FailOn, Format};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;
use crate::render::audit::Audited;

/// The largest archive read into memory (as `skills install` unpacks).
const ARCHIVE_LIMITS: skills_package::Limits = skills_package::Limits {
    max_bytes: 64 * 1024 * 1024,
    max_entries: 2_000,
};

fn severity(f: FailOn) -> Severity {
    match f {
        FailOn::Low => Severity::Low,
        FailOn::Medium => Severity::Medium,
        FailOn::High => Severity::High,
        FailOn::Critical => Severity::Critical,
    }
}

/// Audits `args.paths`; without any, the `--skills-dir` directories, else `.`.
pub(crate) fn run(
    args: &AuditArgs,
    skills_dirs: &[PathBuf],
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    if let Some(id) = &args.explain {
        return explain(id, printer);
    }
    if args.rules {
        let text = match args.format {
            Format::Human => render::audit::rules_table(printer.ui().width),
            Format::Json => render::audit::rules_json(),
            _ => {
                return Err(errors::plain(
                    "--rules prints a table or, with --format json, a JSON document",
                    "use --format human or --format json with --rules",
                )
                .into());
            }
        };
        printer.out(&text)?;
        return Ok(ExitStatus::Success);
    }
    let paths = match (args.paths.is_empty(), skills_dirs.is_empty()) {
        (false, _) => args.paths.clone(),
        (true, false) => skills_dirs.to_vec(),
        (true, true) => vec![PathBuf::from(".")],
    };
    let mut config = if args.no_config {
        Config::new()
    } else {
        config(&paths)?
    };
    config.exhaustive = args.exhaustive;
    let auditor = Auditor::new(config);
    // The outermost skills: each is listed once, and the skills nested in it come out of
    // that listing (`Auditor::audit_dir_nested`), not out of a walk below it.
    let mut targets = Vec::new();
    for path in &paths {
        let found = skills_audit::find_outer_targets(path).map_err(|e| audit_error(&e))?;
        targets.extend(found);
    }
    targets.dedup();
    let start = std::time::Instant::now();
    // One lister for the run: the skills' ancestors are resolved once, not once a skill.
    let lister = skills_core::files::Lister::new();
    let audited: Vec<Result<Vec<(PathBuf, Audited)>, Error>> = targets
        .par_iter()
        .map(|t| audit(&auditor, &lister, t))
        .collect();
    let mut all: Vec<(PathBuf, Audited)> = Vec::with_capacity(audited.len());
    for one in audited {
        all.extend(one?);
    }
    // A skill reached from two of the paths given is reported once.
    all.dedup_by(|a, b| a.0 == b.0);
    let audited: Vec<Audited> = all.into_iter().map(|(_, a)| a).collect();
    let fail_on = severity(args.fail_on);
    let summary = render::audit::summary(&audited, fail_on);
    let ui = printer.ui();
    let text = match args.format {
        Format::Human => render::audit::human(&audited, &summary, ui),
        Format::Concise => render::audit::concise(&audited, &summary, ui),
        Format::Json => render::audit::json(&audited, &summary),
        Format::Github => render::audit::github(&audited),
        Format::Sarif => render::audit::sarif(&audited),
    };
    match printer.out(&text) {
        Ok(()) => {}
        // A closed stdout ends the output, not the verdict.
        Err(e) => match Error::from(e) {
            Error::BrokenPipe => {}
            other => return Err(other),
        },
    }
    if ui.verbose() {
        printer.detail(&format!(
            "audited {} in {:.1} ms\n",
            render::human::plural(audited.len(), "skill"),
            start.elapsed().as_secs_f64() * 1000.0
        ));
    }
    Ok(if summary.failed() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// The audit of `target`: a skill and the skills nested in it (each with its directory), or
/// a file or an archive.
fn audit(
    auditor: &Auditor,
    lister: &skills_core::files::Lister,
    target: &Target,
) -> Result<Vec<(PathBuf, Audited)>, Error> {
    let path = target.path();
    let shown = render::path_str(path);
    let report = match target {
        Target::Skill(dir) => {
            let reports = auditor
                .audit_dir_nested(dir, lister)
                .map_err(|e| audit_error(&e))?;
            return Ok(reports
                .into_iter()
                .map(|(dir, report)| {
                    let path = render::path_str(&dir);
                    (dir, Audited { path, report })
                })
                .collect());
        }
        Target::File(file) => {
            let bytes =
                skills_core::read_bounded(file, skills_audit::MAX_TEXT_BYTES).map_err(|e| {
                    errors::plain(
                        format!("{}: {e}", render::display_path(file)),
                        "give a readable file of at most 1 MiB",
                    )
                })?;
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dir = file.parent().unwrap_or(Path::new("."));
            auditor.audit_files_at(&[SourceFile::new(&name, &bytes)], dir)
        }
        Target::Archive(archive) => {
            let reader = std::fs::File::open(archive).map_err(|e| {
                errors::plain(
                    format!("{}: {e}", render::display_path(archive)),
                    "give a readable .skill or .zip archive",
                )
            })?;
            let (_, files) = skills_package::read(reader, archive, &ARCHIVE_LIMITS)
                .map_err(|e| errors::package(&e))?;
            let sources: Vec<SourceFile<'_>> = files
                .iter()
                .map(|f| SourceFile::new(&f.path, &f.bytes).executable(f.executable))
                .collect();
            auditor.audit_files(&sources)
        }
        other => {
            return Err(errors::plain(
                format!("{} cannot be audited", render::display_path(other.path())),
                "give a skill directory, a SKILL.md, a Markdown file or a .skill archive",
            )
            .into());
        }
    };
    Ok(vec![(
        path.to_path_buf(),
        Audited {
            path: shown,
            report,
        },
    )])
}

/// `[audit]` of the nearest skills.toml in or above the first path.
fn config(paths: &[PathBuf]) -> Result<Config, Error> {
    let first = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
    let start = if first.is_file() {
        first.parent().map(PathBuf::from).unwrap_or_default()
    } else {
        first
    };
    let start = std::path::absolute(&start).unwrap_or(start);
    let Some(file) = start
        .ancestors()
        .map(|d| d.join(skills_lint::CONFIG_FILE))
        .find(|p| p.is_file())
    else {
        return Ok(Config::new());
    };
    let bytes = skills_core::read_bounded(&file, 4 * 1024 * 1024).map_err(|e| {
        errors::plain(
            format!("{}: {e}", file.display()),
            "make skills.toml a readable regular file",
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        errors::plain(
            format!("{}: not UTF-8 text", file.display()),
            "save skills.toml as UTF-8",
        )
    })?;
    Config::from_toml(&text, &file).map_err(|e| audit_error(&e).into())
}

fn audit_error(e: &AuditError) -> miette::Report {
    match e {
        AuditError::NotASkill { .. } => errors::plain(
            e.to_string(),
            "give a skill directory, a SKILL.md, a Markdown file, a .skill archive, or a directory with skills below it",
        ),
        AuditError::SkillMdNotAFile { .. } => errors::plain(
            e.to_string(),
            "make SKILL.md a regular file (`skills lint` reports it as file-unreadable too)",
        ),
        AuditError::Config { .. } => errors::plain(
            e.to_string(),
            "each [audit] allow entry is { rule = \"RULE\", path = \"PATH\", reason = \"why\" }; `skills audit --rules` lists the rules",
        ),
        _ => errors::plain(e.to_string(), "check that the path exists and can be read"),
    }
}

fn explain(id: &str, printer: &Printer) -> Result<ExitStatus, Error> {
    let rule: RuleId = id.parse().map_err(|e: skills_audit::UnknownRule| {
        let help = match e.suggestions.first() {
            Some(s) => format!("did you mean `{s}`? `skills audit --rules` lists every rule"),
            None => "`skills audit --rules` lists every rule".to_string(),
        };
        errors::plain(e.to_string(), help)
    })?;
    let r = rule.rule();
    let text = format!(
        "{id} ({severity} by default, {category})\n\n{summary}\n\nWhy: {why}\n\nFix: {fix}\n\nExamples: docs/audit.md#{id}\n",
        id = r.id,
        severity = r.severity,
        category = r.category.as_str(),
        summary = r.summary,
        why = r.rationale,
        fix = r.fix,
    );
    printer.out(&text)?;
    Ok(ExitStatus::Success)
}
