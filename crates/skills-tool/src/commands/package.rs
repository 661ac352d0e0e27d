//! `skills package`: lint, then write byte-reproducible `.skill` archives.

use std::path::{Path, PathBuf};

use skills_lint::{Config, Linter, Report};
use skills_package::{Format, Options};

use crate::args::{PackageArgs, PackageFormat};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// Whether `path` is a flat skill file (seed 004's `NAME.md`), packaged as `NAME/SKILL.md`.
fn is_flat(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .is_some_and(skills_core::layout::is_flat_skill_name)
}

pub(crate) fn run(args: &PackageArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    for path in &args.paths {
        if !path.join("SKILL.md").is_file() && !is_flat(path) {
            return Err(errors::plain(
                format!(
                    "{}: not a skill directory (no SKILL.md) or a flat skill file (NAME.md)",
                    path.display()
                ),
                "pass the directory that holds the skill's SKILL.md, or a flat NAME.md skill",
            )
            .into());
        }
    }
    if !args.no_lint {
        let report = lint(&args.paths)?;
        if report.errors() > 0 {
            printer.err(&render::human::report(printer.ui(), &report, false));
            printer.err(
                "error: not packaged: fix the lint errors above, or pass --no-lint to package anyway\n",
            );
            return Ok(ExitStatus::Failure);
        }
    }
    if args.list {
        return list(&args.paths, printer);
    }
    std::fs::create_dir_all(&args.output).map_err(|e| {
        errors::plain(
            format!(
                "{}: cannot create the output directory: {e}",
                args.output.display()
            ),
            "pass a writable directory with -o",
        )
    })?;
    let options = Options {
        format: match args.format {
            PackageFormat::Skill => Format::Skill,
            PackageFormat::Zip => Format::Zip,
        },
        mtime: skills_package::source_date_epoch(),
    };
    let mut out = String::new();
    for path in &args.paths {
        let packaged = if is_flat(path) {
            skills_package::package_flat(path, &args.output, &options)
        } else {
            skills_package::package(path, &args.output, &options)
        };
        match packaged {
            Ok(p) => {
                for warning in render::skills::skipped_files(&p.id, &p.skipped) {
                    printer.warn(&warning);
                }
                let bytes: u64 = p.entries.iter().map(|e| e.size).sum();
                out.push_str(&format!(
                    "packaged {} -> {} ({}, {bytes} bytes)\n",
                    p.id,
                    render::path_str(&p.archive),
                    files(p.entries.len()),
                ));
            }
            Err(e) => {
                // What was packaged before the failure is reported all the same.
                printer.out(&out)?;
                return Err(errors::package(&e).into());
            }
        }
    }
    printer.out(&out)?;
    Ok(ExitStatus::Success)
}

/// Lints the skills with the nearest skills.toml, as `skills lint` would.
fn lint(paths: &[PathBuf]) -> Result<Report, miette::Report> {
    let start = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let config = Config::discover(start).map_err(errors::config)?;
    Linter::new(config)
        .lint_paths(paths)
        .map_err(|e| errors::plain(e.to_string(), "check that the path is readable"))
}

fn list(paths: &[PathBuf], printer: &Printer) -> Result<ExitStatus, Error> {
    let mut out = String::new();
    let (mut count, mut total) = (0usize, 0u64);
    for path in paths {
        let collected = if is_flat(path) {
            skills_package::collect_flat(path)
        } else {
            skills_package::skill_id(path)
                .and_then(|id| skills_package::collect(path).map(|e| (id, e)))
        };
        let entries = match collected {
            Ok(found) => found,
            Err(e) => {
                printer.out(&out)?;
                return Err(errors::package(&e).into());
            }
        };
        let (id, entries) = entries;
        for e in &entries {
            out.push_str(&format!("{:>10}  {id}/{}\n", e.size, e.path));
            total += e.size;
        }
        count += entries.len();
    }
    out.push_str(&format!("{}, {total} bytes\n", files(count)));
    printer.out(&out)?;
    Ok(ExitStatus::Success)
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}
