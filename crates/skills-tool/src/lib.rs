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

// This crate is the one place that writes to the terminal.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

mod cli;
mod generate;
mod install;
mod instructions;
mod lint;
mod list;
mod mcp;
mod new;
mod package;
mod panic;
mod prompt;
mod render;
mod show;
mod url;
mod util;

/// The outcome of a command, mapped to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and found problems.
    Failure,
    /// Exit 2: the command could not run.
    Error,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> Self {
        match s {
            Status::Success => ExitCode::SUCCESS,
            Status::Failure => ExitCode::from(1),
            Status::Error => ExitCode::from(2),
        }
    }
}

/// Output settings shared by every command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ui {
    /// Whether stdout gets colors.
    pub(crate) color: bool,
    /// Width to wrap diagnostics at.
    pub(crate) width: usize,
    /// `-q`, `-v` or neither.
    pub(crate) verbosity: Verbosity,
}

/// How much a command says besides its result (`-q`, `-v`). The same for every command:
/// quiet drops summary lines, notes and progress; verbose adds detail on stderr. Findings,
/// warnings, errors and the result itself are printed at every level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

impl Ui {
    /// `-q`: no summary lines, notes or progress.
    pub(crate) fn quiet(self) -> bool {
        self.verbosity == Verbosity::Quiet
    }

    /// `-v`: more detail on stderr.
    pub(crate) fn verbose(self) -> bool {
        self.verbosity == Verbosity::Verbose
    }

    fn new(choice: cli::ColorChoice, verbosity: Verbosity) -> Self {
        let tty = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match choice {
            cli::ColorChoice::Always => true,
            cli::ColorChoice::Never => false,
            cli::ColorChoice::Auto => tty && !no_color,
        };
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(100);
        Self {
            color,
            width,
            verbosity,
        }
    }
}

/// Replaces Rust's panic message (and its hint about backtraces) with a short "internal
/// error, please report" message, unless `RUST_BACKTRACE` is set. For the binary's `main`:
/// a library that calls [`run`] keeps its own hook. A panic still exits with code 101.
pub fn install_panic_hook() {
    panic::install();
}

/// Runs the `skills` command with these arguments (the first is the program name) and
/// returns its exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli: cli::Cli = match parse(args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let verbosity = match (cli.quiet, cli.verbose) {
        (true, _) => Verbosity::Quiet,
        (false, true) => Verbosity::Verbose,
        (false, false) => Verbosity::Normal,
    };
    let ui = Ui::new(cli.color, verbosity);
    let status = match cli.command {
        cli::Command::Lint(args) => lint::run(&args, ui),
        cli::Command::List(args) => list::run(&args, &roots(&cli.skills_dirs), ui),
        cli::Command::Show(args) => show::run(&args, &roots(&cli.skills_dirs), ui),
        cli::Command::Url(args) => url::run(&args, ui),
        cli::Command::Instructions(args) => instructions::run(&args, &roots(&cli.skills_dirs), ui),
        cli::Command::New(args) => new::run(&args, ui),
        cli::Command::Package(args) => package::run(&args, ui),
        cli::Command::Install(args) => install::run(&args, ui),
        cli::Command::Prompt(args) => prompt::run(&args, &roots(&cli.skills_dirs), ui),
        cli::Command::Mcp(args) => mcp::run(&args, &cli.skills_dirs, roots(&cli.skills_dirs), ui),
        cli::Command::Completions(args) => generate::completions(&args),
        cli::Command::Man(args) => generate::man(&args, ui),
    };
    status.into()
}

/// The `skills-mcp` binary: the MCP server alone, what `skills mcp` hands over to. Takes
/// `--skills-dir`, `--log-level`, `--tools` and `--resources` as `skills mcp` does.
///
/// Its command line is read with `lexopt`, not clap, and its errors are printed plainly:
/// then neither clap nor miette is linked into it, and the server's process keeps about
/// 0.45 MB less resident (docs/performance.md).
pub fn run_mcp<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    mcp::server_main(args.into_iter().map(Into::into))
}

/// Parses the command line, or prints help, the version or the usage error and says how to
/// exit: --help and --version are not errors (0), bad arguments are (2).
fn parse<P, I, T>(args: I) -> Result<P, ExitCode>
where
    P: Parser,
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    P::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() { 2 } else { 0 };
        let _ = e.print();
        ExitCode::from(code)
    })
}

/// The skills roots in force: `--skills-dir`, else `SKILLS_PATH`, else the defaults for the
/// current directory and the home directory.
pub(crate) fn roots(skills_dirs: &[std::path::PathBuf]) -> skills_discovery::Roots {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
    let skills_path = std::env::var_os("SKILLS_PATH");
    skills_discovery::Roots::resolve(&cwd, home.as_deref(), skills_dirs, skills_path.as_deref())
}

/// Terminal width for tables: `$COLUMNS`, else 100.
pub(crate) fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|w| *w >= 40)
        .unwrap_or(100)
}

/// Writes `text` to stdout. A closed pipe is not an error: the reader has what it wanted.
pub(crate) fn emit(text: &str) -> Result<(), Status> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Status::Success),
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            Err(Status::Error)
        }
    }
}

/// Prints an error of the command itself (not a finding) to stderr.
pub(crate) fn fail(ui: Ui, report: miette::Report) -> Status {
    eprintln!("{}", render::human::report_to_string(ui, report.as_ref()));
    Status::Error
}
