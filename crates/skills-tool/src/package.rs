//! `skills package`: lint, then write byte-reproducible `.skill` archives.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use skills_lint::{Config, Linter, Report};
use skills_package::{Format, Options, PackageError};

use crate::{Status, Ui, emit, fail, render};

/// `skills package PATH... [-o DIR] [--format skill|zip] [--no-lint] [--list]`.
#[derive(Debug, Args)]
pub(crate) struct PackageArgs {
    /// Skill directories (each holding a SKILL.md).
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Directory to write the archives to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
    pub(crate) output: PathBuf,

    /// Archive format: `skill` writes <id>.skill, `zip` writes <id>.zip (the same bytes).
    #[arg(long, value_enum, default_value_t = PackageFormat::Skill)]
    pub(crate) format: PackageFormat,

    /// Package even when the skill has lint errors.
    #[arg(long)]
    pub(crate) no_lint: bool,

    /// Print the files that would be packaged, with their sizes, and write nothing.
    #[arg(long)]
    pub(crate) list: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PackageFormat {
    /// <id>.skill, the extension Claude and Anthropic's packager use.
    Skill,
    /// <id>.zip.
    Zip,
}

pub(crate) fn run(args: &PackageArgs, ui: Ui) -> Status {
    for path in &args.paths {
        if !path.join("SKILL.md").is_file() {
            return fail(
                ui,
                error(
                    format!("{}: not a skill directory (no SKILL.md)", path.display()),
                    "pass the directory that holds the skill's SKILL.md",
                ),
            );
        }
    }
    if !args.no_lint {
        match lint(&args.paths) {
            Ok(report) if report.errors() > 0 => {
                eprint!("{}", render::human::report(ui, &report, false));
                eprintln!(
                    "error: not packaged: fix the lint errors above, or pass --no-lint to package anyway"
                );
                return Status::Failure;
            }
            Ok(_) => {}
            Err(report) => return fail(ui, report),
        }
    }
    if args.list {
        return list(&args.paths);
    }
    if let Err(e) = std::fs::create_dir_all(&args.output) {
        return fail(
            ui,
            error(
                format!(
                    "{}: cannot create the output directory: {e}",
                    args.output.display()
                ),
                "pass a writable directory with -o",
            ),
        );
    }
    let options = Options {
        format: match args.format {
            PackageFormat::Skill => Format::Skill,
            PackageFormat::Zip => Format::Zip,
        },
        mtime: skills_package::source_date_epoch(),
    };
    let mut out = String::new();
    for path in &args.paths {
        match skills_package::package(path, &args.output, &options) {
            Ok(p) => {
                warn_skipped(&p.id, &p.skipped);
                let bytes: u64 = p.entries.iter().map(|e| e.size).sum();
                out.push_str(&format!(
                    "packaged {} -> {} ({}, {bytes} bytes)\n",
                    p.id,
                    render::path_str(&p.archive),
                    files(p.entries.len()),
                ));
            }
            Err(e) => {
                let _ = emit(&out);
                return fail(ui, package_error(&e));
            }
        }
    }
    match emit(&out) {
        Ok(()) | Err(Status::Success) => Status::Success,
        Err(s) => s,
    }
}

/// Says on stderr which files of skill `id` were left out although no ignore file names
/// them: a file the user expected in the package must not vanish silently.
pub(crate) fn warn_skipped(id: &str, skipped: &[skills_package::Skipped]) {
    for s in skipped {
        let name = s.path.rsplit('/').next().unwrap_or(&s.path);
        let hint = match s.reason {
            skills_package::SkipReason::Secret => {
                format!("; to include it, add `!{name}` to the skill's .skillignore")
            }
            _ => String::new(),
        };
        eprintln!(
            "warning: {id}/{}: not included: {}{hint}",
            render::terminal_safe(&s.path),
            s.reason
        );
    }
}

/// Lints the skills with the nearest skills.toml, as `skills lint` would.
fn lint(paths: &[PathBuf]) -> Result<Report, miette::Report> {
    let start = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let config = Config::discover(start).map_err(render::config_error)?;
    Linter::new(config)
        .lint_paths(paths)
        .map_err(|e| error(e.to_string(), "check that the path is readable"))
}

fn list(paths: &[PathBuf]) -> Status {
    let mut out = String::new();
    let (mut count, mut total) = (0usize, 0u64);
    for path in paths {
        let entries = match skills_package::skill_id(path)
            .and_then(|id| skills_package::collect(path).map(|e| (id, e)))
        {
            Ok(found) => found,
            Err(e) => {
                let _ = emit(&out);
                eprintln!("error: {e}");
                return Status::Error;
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
    match emit(&out) {
        Ok(()) | Err(Status::Success) => Status::Success,
        Err(s) => s,
    }
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

fn error(message: String, help: &str) -> miette::Report {
    miette::Report::new(miette::MietteDiagnostic::new(message).with_help(help.to_string()))
}

/// The library's error, with its fix as help where the message does not already say it.
pub(crate) fn package_error(e: &PackageError) -> miette::Report {
    let help = match e {
        PackageError::SymlinkEscape { .. }
        | PackageError::SymlinkLoop { .. }
        | PackageError::SymlinkCycle { .. } => {
            "a skill must be self-contained: packages and installs never follow links out of it"
        }
        PackageError::Io { .. } | PackageError::Zip { .. } => {
            "check that the paths exist and are readable and writable"
        }
        _ => "see docs/package.md",
    };
    error(e.to_string(), help)
}
