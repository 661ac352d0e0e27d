//! `skills mcp`: the MCP server on stdin/stdout (all the work is in `skills-mcp-server`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use skills_mcp_server::{Config, LogLevel};
use skills_prompt::Globals;

use crate::args::{self, CLIENT_CONFIGS, McpArgs};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::{self, Printer, Ui};

/// `skills mcp`: hands over to the `skills-mcp` binary beside this one when there is one
/// (the server's process then maps only the server's code: a few megabytes less resident
/// memory, see docs/performance.md), else serves in this process.
pub(crate) fn run(
    args: &McpArgs,
    skills_dirs: &[std::path::PathBuf],
    roots: skills_discovery::Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let level = log_level(args, printer.ui());
    #[cfg(unix)]
    if let Some(server) = sibling() {
        use clap::ValueEnum as _;
        use std::os::unix::process::CommandExt as _;
        let mut command = std::process::Command::new(&server);
        for dir in skills_dirs {
            command.arg("--skills-dir").arg(dir);
        }
        if let Some(value) = level.to_possible_value() {
            command.args(["--log-level", value.get_name()]);
        }
        if let Some(tools) = &args.tools {
            command.arg("--tools").arg(tools);
        }
        if let Some(resources) = &args.resources {
            command.arg("--resources").arg(resources);
        }
        // Only returns on failure; then serve here instead.
        let error = command.exec();
        printer.note(&format!(
            "cannot run {}: {error}; serving from skills itself",
            server.display()
        ));
    }
    #[cfg(not(unix))]
    let _ = skills_dirs;
    // Bad global files are refused before the client connects, with the file and line.
    let globals = Globals::load(args.tools.as_deref(), args.resources.as_deref())
        .map_err(|e| errors::prompt(&e))?;
    serve(roots, server_level(level), globals).map_err(|e| errors::plain(e, ""))?;
    Ok(ExitStatus::Success)
}

/// `skills-mcp` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let server = exe.with_file_name(format!("skills-mcp{}", std::env::consts::EXE_SUFFIX));
    (server != exe && server.is_file()).then_some(server)
}

/// The log level: --log-level wins; otherwise -q and -v move the default (warn) one step.
fn log_level(args: &McpArgs, ui: Ui) -> args::LogLevel {
    args.log_level.unwrap_or(if ui.quiet() {
        args::LogLevel::Error
    } else if ui.verbose() {
        args::LogLevel::Info
    } else {
        args::LogLevel::Warn
    })
}

fn server_level(level: args::LogLevel) -> LogLevel {
    match level {
        args::LogLevel::Off => LogLevel::Off,
        args::LogLevel::Error => LogLevel::Error,
        args::LogLevel::Warn => LogLevel::Warn,
        args::LogLevel::Info => LogLevel::Info,
        args::LogLevel::Debug => LogLevel::Debug,
        args::LogLevel::Trace => LogLevel::Trace,
    }
}

/// Runs the server in this process until the client disconnects.
fn serve(roots: skills_discovery::Roots, level: LogLevel, globals: Globals) -> Result<(), String> {
    skills_mcp_server::serve_stdio(Config::new(roots).log_level(level).globals(globals))
        .map_err(|e| format!("skills mcp: {e}"))
}

/// `skills-mcp --help`. The options are `skills mcp`'s (a test holds them together).
const SERVER_HELP: &str = "\
The skills MCP server on stdin/stdout (what `skills mcp` runs)

Usage: skills-mcp [OPTIONS]

Options:
      --skills-dir <DIR>
          Serve the skills in DIR instead of the default roots (repeatable). Also SKILLS_PATH.
      --log-level <LOG_LEVEL>
          How much to log on stderr [default: warn]
          [possible values: off, error, warn, info, debug, trace]
      --tools <FILE>
          Universal tools after view_skill, for the skills-router prompt and view_skill: a
          JSON array of MCP tool definitions (read once, at start)
      --resources <FILE>
          Global resources for the skills-router prompt and view_skill: a JSON array of MCP
          resource definitions (read once, at start)
  -h, --help
          Print help
  -V, --version
          Print version
";

/// What the `skills-mcp` command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum ServerCommand {
    Serve {
        skills_dirs: Vec<PathBuf>,
        level: LogLevel,
        tools: Option<PathBuf>,
        resources: Option<PathBuf>,
    },
    Help,
    Version,
}

/// An error unless `slot` is still empty: these options are given at most once.
fn once<T>(slot: &Option<T>, flag: &str) -> Result<(), lexopt::Error> {
    match slot {
        Some(_) => Err(lexopt::Error::from(format!(
            "the argument '--{flag}' cannot be used multiple times"
        ))),
        None => Ok(()),
    }
}

/// The value of a path option; empty is refused, as `skills mcp` (clap) refuses it.
fn path_value(
    parser: &mut lexopt::Parser,
    flag: &str,
    name: &str,
) -> Result<PathBuf, lexopt::Error> {
    let value = parser.value()?;
    if value.is_empty() {
        return Err(lexopt::Error::from(format!(
            "a value is required for '--{flag} <{name}>' but none was supplied"
        )));
    }
    Ok(PathBuf::from(value))
}

/// Reads the `skills-mcp` command line (the first item is the program name).
fn parse_server_args(
    args: impl IntoIterator<Item = OsString>,
) -> Result<ServerCommand, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_iter(args);
    let (mut skills_dirs, mut level, mut tools, mut resources) = (Vec::new(), None, None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("skills-dir") => skills_dirs.push(path_value(&mut parser, "skills-dir", "DIR")?),
            Long("log-level") => {
                once(&level, "log-level")?;
                let value = parser.value()?;
                level = Some(match value.to_str() {
                    Some("off") => LogLevel::Off,
                    Some("error") => LogLevel::Error,
                    Some("warn") => LogLevel::Warn,
                    Some("info") => LogLevel::Info,
                    Some("debug") => LogLevel::Debug,
                    Some("trace") => LogLevel::Trace,
                    _ => {
                        return Err(lexopt::Error::from(format!(
                            "invalid value {value:?} for '--log-level': the possible values are off, error, warn, info, debug, trace"
                        )));
                    }
                });
            }
            Long("tools") => {
                once(&tools, "tools")?;
                tools = Some(path_value(&mut parser, "tools", "FILE")?);
            }
            Long("resources") => {
                once(&resources, "resources")?;
                resources = Some(path_value(&mut parser, "resources", "FILE")?);
            }
            Short('h') | Long("help") => return Ok(ServerCommand::Help),
            Short('V') | Long("version") => return Ok(ServerCommand::Version),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(ServerCommand::Serve {
        skills_dirs,
        level: level.unwrap_or(LogLevel::Warn),
        tools,
        resources,
    })
}

/// The `skills-mcp` binary (see [`crate::run_mcp`]): no clap and no miette on this path.
pub(crate) fn server_main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    match parse_server_args(args) {
        Ok(ServerCommand::Help) => {
            printer::plain_stdout(&format!("{SERVER_HELP}\n{CLIENT_CONFIGS}"));
            ExitCode::SUCCESS
        }
        Ok(ServerCommand::Version) => {
            printer::plain_stdout(&format!("skills-mcp {}", env!("SKILLS_VERSION")));
            ExitCode::SUCCESS
        }
        Err(e) => {
            printer::plain_stderr(&format!(
                "error: {e}\n\nUsage: skills-mcp [OPTIONS]\n\nFor more information, try '--help'."
            ));
            ExitCode::from(2)
        }
        Ok(ServerCommand::Serve {
            skills_dirs,
            level,
            tools,
            resources,
        }) => {
            // Bad global files are refused before the client connects, with the file and
            // line.
            let globals = match Globals::load(tools.as_deref(), resources.as_deref()) {
                Ok(globals) => globals,
                Err(e) => {
                    printer::plain_stderr(&format!(
                        "error: {e}\n  help: {}",
                        errors::prompt_help(&e)
                    ));
                    return ExitStatus::Error.into();
                }
            };
            match serve(crate::util::roots::resolve(&skills_dirs), level, globals) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    printer::plain_stderr(&format!("error: {e}"));
                    ExitStatus::Error.into()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ServerCommand, String> {
        let argv = std::iter::once("skills-mcp")
            .chain(args.iter().copied())
            .map(OsString::from);
        parse_server_args(argv).map_err(|e| e.to_string())
    }

    #[test]
    fn the_server_reads_what_skills_mcp_hands_over() {
        assert_eq!(
            parse(&[]),
            Ok(ServerCommand::Serve {
                skills_dirs: vec![],
                level: LogLevel::Warn,
                tools: None,
                resources: None,
            })
        );
        let all = [
            "--skills-dir",
            "a",
            "--skills-dir=b c",
            "--log-level",
            "trace",
            "--tools",
            "t.json",
            "--resources",
            "r.json",
        ];
        assert_eq!(
            parse(&all),
            Ok(ServerCommand::Serve {
                skills_dirs: vec!["a".into(), "b c".into()],
                level: LogLevel::Trace,
                tools: Some("t.json".into()),
                resources: Some("r.json".into()),
            })
        );
        assert_eq!(parse(&["--help"]), Ok(ServerCommand::Help));
        assert_eq!(parse(&["-V"]), Ok(ServerCommand::Version));
    }

    #[test]
    fn the_server_refuses_what_clap_would() {
        for (args, says) in [
            (&["--log-level", "loud"][..], "possible values"),
            (
                &["--log-level", "info", "--log-level", "warn"],
                "multiple times",
            ),
            (&["--tools", "a", "--tools", "b"], "multiple times"),
            (&["--skills-dir"], "missing argument"),
            (&["--skills-dir", ""], "a value is required"),
            (&["--tools="], "a value is required"),
            (&["serve"], "unexpected argument"),
            (&["--verbose"], "invalid option"),
        ] {
            let error = parse(args).expect_err(&format!("{args:?}"));
            assert!(error.contains(says), "{args:?}: {error}");
        }
    }

    /// `skills-mcp` takes every option `skills mcp` has (its own parser, so that the server's
    /// binary does not link clap), and its help says so.
    #[test]
    fn the_server_takes_every_option_of_skills_mcp() {
        use clap::CommandFactory as _;
        let cli = crate::args::Cli::command();
        let globals: Vec<&str> = cli
            .get_arguments()
            .filter(|a| a.get_id() != "skills_dirs")
            .filter_map(|a| a.get_long())
            .collect();
        let mcp = cli.find_subcommand("mcp").expect("skills mcp exists");
        let mut options: Vec<&str> = mcp
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|long| !globals.contains(long))
            .collect();
        options.push("skills-dir");
        assert!(options.len() >= 4, "{options:?}");
        for long in options {
            let flag = format!("--{long}");
            assert!(
                SERVER_HELP.contains(&flag),
                "skills-mcp --help lacks {flag}"
            );
            let value = if long == "log-level" { "info" } else { "x" };
            assert!(
                matches!(parse(&[&flag, value]), Ok(ServerCommand::Serve { .. })),
                "skills-mcp does not take {flag}"
            );
        }
    }
}
