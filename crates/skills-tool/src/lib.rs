//! The `skills` command line: argument parsing and rendering over the `skills-*` library
//! crates, which do all the work.
//!
//! The binary is a one-line `main` around [`run`], so the whole command can also be driven
//! from Rust (tests, other tools) with explicit arguments:
//!
//! ```
//! use std::process::ExitCode;
//!
//! let dir = tempfile::tempdir()?;
//! let skill = dir.path().join("hello");
//! std::fs::create_dir(&skill)?;
//! std::fs::write(skill.join("SKILL.md"), "---\nname: hello\ndescription: Greets. Use when asked.\n---\nSay hello.\n")?;
//!
//! let code = skills_tool::run(["skills", "lint", "--format", "json", skill.to_str().unwrap()]);
//! assert_eq!(code, ExitCode::SUCCESS);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Exit codes are a contract: `0` success, `1` findings (lint errors, or warnings with
//! `--strict`), `2` the command itself failed. A closed stdout (`skills lint | head`) is not
//! an error.

use std::ffi::OsString;
use std::process::ExitCode;

mod args;
mod commands;
mod errors;
mod exit;
mod help;
mod panic;
mod printer;
mod registry_client;
mod render;
mod risk;
mod settings;
mod stage;

use args::{Cli, Command};
use printer::{Printer, Verbosity};

/// Replaces Rust's panic message (and its hint about backtraces) with a short "internal
/// error, please report" message, unless `RUST_BACKTRACE` is set. For the binary's `main`:
/// a library that calls [`run`] keeps its own hook. A panic still exits with code 101.
pub fn install_panic_hook() {
    panic::install();
}

/// `roots` with the repository's `.claude-ops/skills` first, when `--repo` names one: its
/// skills shadow the others of the same name for this run only.
fn with_repo(
    roots: skills_discovery::Roots,
    repo: Option<&std::path::Path>,
) -> Result<skills_discovery::Roots, exit::Error> {
    let Some(repo) = repo else {
        return Ok(roots);
    };
    if !repo.is_dir() {
        return Err(errors::plain(
            format!("--repo {}: not a directory", repo.display()),
            "pass the repository's root (the directory that holds .claude-ops/skills)",
        )
        .into());
    }
    let first = skills_discovery::Root {
        path: repo.join(".claude-ops/skills"),
        scope: skills_discovery::Scope::Project,
    };
    Ok(skills_discovery::Roots::new(
        std::iter::once(first).chain(roots.iter().cloned()),
    ))
}

/// Runs the `skills` command with these arguments (the first is the program name) and
/// returns its exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli: Cli = match parse(args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let verbosity = match (cli.quiet, cli.verbose) {
        (true, _) => Verbosity::Quiet,
        (false, true) => Verbosity::Verbose,
        (false, false) => Verbosity::Normal,
    };
    let printer = Printer::new(cli.color.forced(), verbosity);
    let p = &printer;
    let found_in = || skills_discovery::Roots::from_env(&cli.skills_dirs);
    let roots = || {
        let roots = found_in();
        warn_missing_roots(&roots, !cli.skills_dirs.is_empty(), p);
        roots
    };
    let result = match &cli.command {
        Command::Lint(args) => commands::lint::run(args, &cli.skills_dirs, p),
        Command::Audit(args) => commands::audit::run(args, &cli.skills_dirs, p),
        Command::List(args) => commands::list::run(args, &roots(), p),
        Command::Show(args) => with_repo(roots(), args.repo.as_deref())
            .and_then(|roots| commands::show::run(args, &roots, p)),
        Command::Doctor(args) => with_repo(roots(), args.repo.as_deref())
            .and_then(|roots| commands::doctor::run(args, &roots, p)),
        Command::Url(args) => commands::url::run(args, p),
        Command::Instructions(args) => commands::instructions::run(args, &roots(), p),
        // `new` creates the root it writes to: one missing is no reason to warn.
        Command::New(args) => commands::new::run(args, &found_in(), p),
        Command::Package(args) => commands::package::run(args, p),
        Command::Install(args) => commands::install::run(args, p),
        Command::Add(args) => commands::add::add(args, p),
        Command::Sync(args) => commands::add::sync(args, p),
        Command::Check(args) => commands::add::check(args, p),
        Command::Update(args) => commands::add::update(args, p),
        Command::Remove(args) => commands::add::remove(args, p),
        Command::Prompt(args) => commands::prompt::run(args, &roots(), p),
        Command::Search(args) => commands::client::search(args, p),
        Command::Publish(args) => commands::client::publish(args, p),
        Command::Rate(args) => commands::client::rate(args, p),
        Command::Yank(args) => commands::client::yank(args, p),
        Command::Unpublish(args) => commands::client::unpublish(args, p),
        Command::Mcp(args) => commands::mcp::run(args, &cli.skills_dirs, p),
        Command::Registry(args) => commands::registry::run(args, p),
        Command::Completions(args) => commands::generate::completions(args, p),
        Command::Man(args) => commands::generate::man(args, p),
    };
    exit::code(result, p)
}

/// A directory the user named with `--skills-dir` or `SKILLS_PATH` that does not exist is
/// a warning: a typo would otherwise read as "no skills" (the default roots that do not
/// exist are skipped silently: most projects have one or two of them).
fn warn_missing_roots(roots: &skills_discovery::Roots, flag: bool, printer: &Printer) {
    let named = if flag { "--skills-dir" } else { "SKILLS_PATH" };
    for root in roots
        .iter()
        .filter(|r| r.scope == skills_discovery::Scope::Custom)
    {
        if let Err(e) = std::fs::metadata(&root.path)
            && e.kind() == std::io::ErrorKind::NotFound
        {
            printer.warn(&render::terminal_safe(&format!(
                "{named} {}: no such directory; no skills are read from it",
                render::display_path(&root.path)
            )));
        }
    }
}

/// Parses the command line, or prints help, the version or the usage error and says how to
/// exit: --help and --version are not errors (0), bad arguments are (2).
fn parse<I, T>(args: I) -> Result<Cli, ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::FromArgMatches as _;
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let command = help::command(printer::width(), color_flag(&args));
    command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(|e| {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            ExitCode::from(code)
        })
}

/// What `--color` says, read before clap parses (help and usage errors are drawn while it
/// parses, `skills --help --color never` included): `Some` when it forces one way. The last
/// one wins, as clap takes it; nothing after `--` is a flag.
fn color_flag(args: &[OsString]) -> Option<bool> {
    let mut forced = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            Some("--") => break,
            Some("--color") => words.next().flatten(),
            Some(w) => w.strip_prefix("--color="),
            None => None,
        };
        forced = match value {
            Some("always") => Some(true),
            Some("never") => Some(false),
            Some("auto") => None,
            _ => forced,
        };
    }
    forced
}
