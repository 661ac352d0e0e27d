//! `skills mcp`: the MCP server on stdin/stdout (all the work is in `skills-mcp-server`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use skills_mcp_server::{Config, LogLevel};
use skills_prompt::Globals;

use crate::cli::{self, McpArgs};
use crate::{Status, Ui};

/// Ready-to-paste client configurations, shown by `skills mcp --help`.
pub(crate) const CLIENT_CONFIGS: &str = "\
Client configuration (the client starts the server; add --skills-dir DIR to serve one folder,
--tools FILE and --resources FILE to give the skills-router prompt and view_skill global tools
and resources):

  Claude Code:
    claude mcp add skills -- skills mcp

  Claude Desktop (claude_desktop_config.json):
    {
      \"mcpServers\": {
        \"skills\": { \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

  Cursor (.cursor/mcp.json):
    {
      \"mcpServers\": {
        \"skills\": { \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

  VS Code (.vscode/mcp.json):
    {
      \"servers\": {
        \"skills\": { \"type\": \"stdio\", \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

Tools, prompt and methods, with examples: docs/mcp.md.";

/// `skills mcp`: hands over to the `skills-mcp` binary beside this one when there is one
/// (the server's process then maps only the server's code: a few megabytes less resident
/// memory, see docs/performance.md), else serves in this process.
pub(crate) fn run(
    args: &McpArgs,
    skills_dirs: &[std::path::PathBuf],
    roots: skills_discovery::Roots,
    ui: Ui,
) -> Status {
    let level = log_level(args, ui);
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
        if !ui.quiet() {
            eprintln!(
                "note: cannot run {}: {error}; serving from skills itself",
                server.display()
            );
        }
    }
    #[cfg(not(unix))]
    let _ = skills_dirs;
    serve(args, level, roots, ui)
}

/// `skills-mcp` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let server = exe.with_file_name(format!("skills-mcp{}", std::env::consts::EXE_SUFFIX));
    (server != exe && server.is_file()).then_some(server)
}

/// The log level: --log-level wins; otherwise -q and -v move the default (warn) one step.
fn log_level(args: &McpArgs, ui: Ui) -> cli::LogLevel {
    args.log_level.unwrap_or(if ui.quiet() {
        cli::LogLevel::Error
    } else if ui.verbose() {
        cli::LogLevel::Info
    } else {
        cli::LogLevel::Warn
    })
}

/// Runs the server in this process until the client disconnects.
pub(crate) fn serve(
    args: &McpArgs,
    chosen: cli::LogLevel,
    roots: skills_discovery::Roots,
    ui: Ui,
) -> Status {
    // Bad global files are refused before the client connects, with the file and line.
    let globals =
        match crate::prompt::load_globals(args.tools.as_deref(), args.resources.as_deref()) {
            Ok(globals) => globals,
            Err(e) => return crate::prompt::fail_prompt(ui, &e),
        };
    let level = match chosen {
        cli::LogLevel::Off => LogLevel::Off,
        cli::LogLevel::Error => LogLevel::Error,
        cli::LogLevel::Warn => LogLevel::Warn,
        cli::LogLevel::Info => LogLevel::Info,
        cli::LogLevel::Debug => LogLevel::Debug,
        cli::LogLevel::Trace => LogLevel::Trace,
    };
    serve_with(roots, level, globals)
}

fn serve_with(roots: skills_discovery::Roots, level: LogLevel, globals: Globals) -> Status {
    match skills_mcp_server::serve_stdio(Config::new(roots).log_level(level).globals(globals)) {
        Ok(()) => Status::Success,
        Err(e) => {
            eprintln!("error: skills mcp: {e}");
            Status::Error
        }
    }
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
            println!("{SERVER_HELP}\n{CLIENT_CONFIGS}");
            ExitCode::SUCCESS
        }
        Ok(ServerCommand::Version) => {
            println!("skills-mcp {}", env!("SKILLS_VERSION"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "error: {e}\n\nUsage: skills-mcp [OPTIONS]\n\nFor more information, try '--help'."
            );
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
            let globals = match crate::prompt::load_globals(tools.as_deref(), resources.as_deref())
            {
                Ok(globals) => globals,
                Err(e) => {
                    eprintln!("error: {e}\n  help: {}", crate::prompt::help(&e));
                    return Status::Error.into();
                }
            };
            serve_with(crate::roots(&skills_dirs), level, globals).into()
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
        let cli = crate::cli::Cli::command();
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
