//! The `skills-mcp` binary: the MCP server of `skills mcp` alone, so that the server's
//! process maps only the code it runs. `skills mcp` `exec`s it when it sits beside `skills`.
//!
//! Its command line is read here with `lexopt`, not clap, and its errors are printed
//! plainly: nothing in this file reaches clap or miette, so neither is linked into the
//! server's process (about 0.45 MB less resident, docs/performance.md). A test holds its
//! options to `skills mcp`'s (`tests/it/cli.rs`).

// The server's process has no `Printer` (that would link miette): help, version and usage
// errors are its only output besides the protocol.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use skills_discovery::Roots;
use skills_mcp_server::gateway::GatewayFile;
use skills_mcp_server::{CLIENT_CONFIGS, Config, HttpOptions, LogLevel};
use skills_prompt::Globals;

fn main() -> ExitCode {
    skills_tool::install_panic_hook();
    match parse_server_args(std::env::args_os()) {
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
            http,
            tier,
            gateway,
        }) => {
            // Bad global files are refused before the client connects, with the file and
            // line.
            let globals = match Globals::load(tools.as_deref(), resources.as_deref()) {
                Ok(globals) => globals,
                Err(e) => {
                    eprintln!("error: {e}\n  help: {}", e.help());
                    return ExitCode::from(2);
                }
            };
            let gateway = match gateway.as_deref().map(GatewayFile::load).transpose() {
                Ok(gateway) => gateway,
                Err(e) => {
                    eprintln!("error: {e}\n  help: {}", e.help);
                    return ExitCode::from(2);
                }
            };
            // A gateway logs one line per scope change and call: info, unless asked.
            let level = level.unwrap_or(if gateway.is_some() {
                LogLevel::Info
            } else {
                LogLevel::Warn
            });
            let config = Config::new(Roots::from_env(&skills_dirs))
                .log_level(level)
                .globals(globals)
                .max_tier(tier)
                .gateway(gateway);
            let served = match http {
                Some(http) => {
                    let mut options = HttpOptions::default();
                    options.allowed_hosts = http.hosts;
                    options.allowed_origins = http.origins;
                    skills_mcp_server::serve_http_until_signal(
                        config,
                        &http.address,
                        options,
                        |at| {
                            eprintln!("skills mcp: Streamable HTTP at http://{at}/mcp");
                        },
                    )
                }
                None => skills_mcp_server::serve_stdio(config),
            };
            match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: skills mcp: {e}");
                    ExitCode::from(2)
                }
            }
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
          How much to log on stderr [default: warn (info with --gateway)]
          [possible values: off, error, warn, info, debug, trace]
      --tools <FILE>
          Universal tools after view_skill, for the skills-router prompt and view_skill: a
          JSON array of MCP tool definitions (read once, at start)
      --resources <FILE>
          Global resources for the skills-router prompt and view_skill: a JSON array of MCP
          resource definitions (read once, at start)
      --http <ADDR>
          Serve over MCP's Streamable HTTP at http://ADDR/mcp instead of stdin/stdout
      --allow-host <HOST>
          With --http: also accept this Host header (loopback names always are; repeatable)
      --allow-origin <ORIGIN>
          With --http: also accept this browser Origin (loopback ones always are; repeatable)
      --tier <N>
          Serve only skills of tier N and below (a skill's metadata.min-tier); the tools refuse
          the others with an error that names the tier
      --gateway <FILE>
          Serve as a gateway in front of the MCP servers FILE lists (.mcp.json's format):
          view_skill, then only the active skill's tools (docs/gateway.md)
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
        level: Option<LogLevel>,
        tools: Option<PathBuf>,
        resources: Option<PathBuf>,
        http: Option<Http>,
        tier: Option<u32>,
        gateway: Option<PathBuf>,
    },
    Help,
    Version,
}

/// `--http ADDR` and what it allows.
#[derive(Debug, PartialEq, Eq)]
struct Http {
    address: String,
    hosts: Vec<String>,
    origins: Vec<String>,
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
    let (mut address, mut hosts, mut origins) = (None, Vec::new(), Vec::new());
    let (mut tier, mut gateway) = (None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("skills-dir") => skills_dirs.push(path_value(&mut parser, "skills-dir", "DIR")?),
            Long("log-level") => {
                once(&level, "log-level")?;
                let value = parser.value()?;
                level = Some(value.to_str().and_then(|v| v.parse().ok()).ok_or_else(|| {
                    let names: Vec<&str> = LogLevel::ALL.map(LogLevel::as_str).into();
                    lexopt::Error::from(format!(
                        "invalid value {value:?} for '--log-level': the possible values are {}",
                        names.join(", ")
                    ))
                })?);
            }
            Long("tools") => {
                once(&tools, "tools")?;
                tools = Some(path_value(&mut parser, "tools", "FILE")?);
            }
            Long("resources") => {
                once(&resources, "resources")?;
                resources = Some(path_value(&mut parser, "resources", "FILE")?);
            }
            Long("http") => {
                once(&address, "http")?;
                address = Some(text_value(&mut parser, "http", "ADDR")?);
            }
            Long("allow-host") => hosts.push(text_value(&mut parser, "allow-host", "HOST")?),
            Long("allow-origin") => {
                origins.push(text_value(&mut parser, "allow-origin", "ORIGIN")?);
            }
            Long("tier") => {
                once(&tier, "tier")?;
                let value = text_value(&mut parser, "tier", "N")?;
                tier = Some(value.parse::<u32>().map_err(|_| {
                    lexopt::Error::from(format!(
                        "invalid value {value:?} for '--tier <N>': a whole number (0, 1, 2, ...)"
                    ))
                })?);
            }
            Long("gateway") => {
                once(&gateway, "gateway")?;
                gateway = Some(path_value(&mut parser, "gateway", "FILE")?);
            }
            Short('h') | Long("help") => return Ok(ServerCommand::Help),
            Short('V') | Long("version") => return Ok(ServerCommand::Version),
            _ => return Err(arg.unexpected()),
        }
    }
    let http = address.map(|address| Http {
        address,
        hosts,
        origins,
    });
    Ok(ServerCommand::Serve {
        skills_dirs,
        level,
        tools,
        resources,
        http,
        tier,
        gateway,
    })
}

/// The value of a text option, as [`path_value`] for paths.
fn text_value(
    parser: &mut lexopt::Parser,
    flag: &str,
    name: &str,
) -> Result<String, lexopt::Error> {
    path_value(parser, flag, name)?
        .into_os_string()
        .into_string()
        .map_err(|v| lexopt::Error::from(format!("--{flag}: {v:?} is not UTF-8")))
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
                level: None,
                tools: None,
                resources: None,
                http: None,
                tier: None,
                gateway: None,
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
            "--http",
            "127.0.0.1:0",
            "--allow-origin",
            "https://app.example",
            "--tier",
            "1",
            "--gateway",
            "g.json",
        ];
        assert_eq!(
            parse(&all),
            Ok(ServerCommand::Serve {
                skills_dirs: vec!["a".into(), "b c".into()],
                level: Some(LogLevel::Trace),
                tools: Some("t.json".into()),
                resources: Some("r.json".into()),
                http: Some(Http {
                    address: "127.0.0.1:0".into(),
                    hosts: vec![],
                    origins: vec!["https://app.example".into()],
                }),
                tier: Some(1),
                gateway: Some("g.json".into()),
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
}
