//! `skills lint`.

use std::path::PathBuf;

use skills_lint::{Config, ConfigError, Level, Linter};

use crate::args::{Format, LintArgs};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// The servers of the gateway file at `path` and their tools, listed as the gateway lists
/// them; a server that cannot be listed is a warning, and is then checked by name only.
fn downstreams(
    path: &std::path::Path,
    printer: &Printer,
) -> Result<skills_lint::Downstreams, Error> {
    use skills_mcp_server::gateway::{GatewayFile, list_tools};
    let file = GatewayFile::load(path).map_err(|e| errors::plain(e.to_string(), e.help))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| errors::plain(format!("cannot start the async runtime: {e}"), ""))?;
    let listed = runtime.block_on(list_tools(&file, std::time::Duration::from_secs(30)));
    let mut known = skills_lint::Downstreams::new();
    for (name, tools) in listed {
        let tools = match tools {
            Ok(tools) => Some(tools),
            Err(why) => {
                printer.warn(&render::terminal_safe(&format!(
                    "{}: cannot list the tools of `{name}` ({why}); references to it are checked by server name only",
                    render::relative(path)
                )));
                None
            }
        };
        known = known.server(name, tools);
    }
    Ok(known)
}

/// Lints `args.paths`; without any, the `--skills-dir` directories, else `.`.
pub(crate) fn run(
    args: &LintArgs,
    skills_dirs: &[PathBuf],
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    if let Some(id) = &args.explain {
        return explain(id, printer);
    }
    if args.rules {
        let text = match args.format {
            Format::Human => render::rules::table(printer.ui().width, printer.ui().quiet()),
            Format::Json => render::rules::json(),
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
    if args.statistics && matches!(args.format, Format::Github | Format::Sarif) {
        return Err(errors::plain(
            "--statistics prints a table or, with --format json, a JSON document",
            "use --format human or --format json with --statistics",
        )
        .into());
    }
    let paths = match (args.paths.is_empty(), skills_dirs.is_empty()) {
        (false, _) => args.paths.clone(),
        (true, false) => skills_dirs.to_vec(),
        (true, true) => vec![PathBuf::from(".")],
    };
    let config = config(args, &paths).map_err(errors::config)?;
    let strict = config.strict;
    let start = std::time::Instant::now();
    // Only the human format quotes the source; the others need positions alone.
    let quotes = args.format == Format::Human && !args.statistics;
    let mut linter = Linter::new(config).with_sources(quotes);
    // `skills --skills-dir DIR lint`: the roots discovery searches, whose `NAME.md` files
    // are flat skills as `skills list` shows them.
    if args.paths.is_empty() {
        linter = linter.with_skills_folders(skills_dirs.to_vec());
    }
    if let Some(file) = &args.gateway {
        linter = linter.with_downstreams(downstreams(file, printer)?);
    }
    let mut stream =
        render::stream::Stream::new(args.format, args.statistics, printer.ui(), strict);
    let mut output = Output::new(printer);
    let mut checked = 0;
    let other = linter
        .lint_paths_each(&paths, |batch| {
            checked += batch.len();
            if printer.ui().verbose() {
                printer.detail(&progress(&batch));
            }
            output.write(&stream.batch(&batch));
        })
        .map_err(|e| errors::lint(&e))?;
    output.write(&stream.finish(&other));
    if printer.ui().verbose() {
        printer.detail(&format!(
            "linted {} in {:.1} ms\n",
            render::human::plural(checked, "skill"),
            start.elapsed().as_secs_f64() * 1000.0
        ));
    }
    output.result?;
    Ok(if stream.failed() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// Standard output as the batches come: the first error other than a closed pipe is kept,
/// and nothing more is written after any.
struct Output<'a> {
    printer: &'a Printer,
    result: Result<(), Error>,
    closed: bool,
}

impl<'a> Output<'a> {
    fn new(printer: &'a Printer) -> Self {
        Self {
            printer,
            result: Ok(()),
            closed: false,
        }
    }

    fn write(&mut self, text: &str) {
        if self.closed || text.is_empty() {
            return;
        }
        match self.printer.out(text).map_err(Error::from) {
            Ok(()) => {}
            // A closed stdout (`skills lint | head`) ends the output, not the verdict: the
            // findings still decide the exit code.
            Err(Error::BrokenPipe) => self.closed = true,
            Err(e) => {
                self.closed = true;
                self.result = Err(e);
            }
        }
    }
}

/// `-v`: each skill of a batch checked, with its findings (on stderr, so every format's
/// stdout stays the same).
fn progress(batch: &[skills_lint::SkillReport]) -> String {
    use render::human::plural;
    let mut out = String::new();
    for skill in batch {
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

fn explain(id: &str, printer: &Printer) -> Result<ExitStatus, Error> {
    let Some(rule) = skills_lint::rule(id) else {
        return Err(errors::unknown_rule(id).into());
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
    printer.out(&text)?;
    Ok(ExitStatus::Success)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_string()
}
