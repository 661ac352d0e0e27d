//! The server as a program starts it: its options, read from a command line or written back
//! to one, and the start-up that loads their files and serves. `skills mcp` and the
//! `skills-mcp` binary both start the server through [`Launch`], so an option exists once:
//! `skills mcp` hands a [`Launch`] over as arguments ([`Launch::to_args`]), `skills-mcp`
//! reads them back ([`Launch::parse`]), and either serves it ([`Launch::serve`]).
//!
//! ```
//! use skills_mcp_server::launch::{Launch, Parsed};
//!
//! let mut launch = Launch::default();
//! launch.skills_dirs.push("skills".into());
//! launch.tier = Some(1);
//! let args = launch.to_args();
//! let argv = std::iter::once("skills-mcp".into()).chain(args);
//! assert_eq!(Launch::parse(argv)?, Parsed::Serve(launch));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::OsString;
use std::path::PathBuf;

use crate::gateway::GatewayFile;
use crate::{Config, HttpOptions, LogLevel, ServeError};

/// Every option of the server's command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Launch {
    /// `--skills-dir DIR` (repeatable): serve these instead of the default roots.
    pub skills_dirs: Vec<PathBuf>,
    /// `--log-level`; `None` is warn, or info for a gateway (its log is one line per scope
    /// change and call).
    pub log_level: Option<LogLevel>,
    /// `--tools FILE`: universal tools for the router prompt and `view_skill`.
    pub tools: Option<PathBuf>,
    /// `--resources FILE`: global resources.
    pub resources: Option<PathBuf>,
    /// `--http ADDR`: Streamable HTTP instead of stdin/stdout.
    pub http: Option<String>,
    /// `--allow-host HOST` (repeatable, with `--http`).
    pub allow_hosts: Vec<String>,
    /// `--allow-origin ORIGIN` (repeatable, with `--http`).
    pub allow_origins: Vec<String>,
    /// `--tier N`.
    pub tier: Option<u32>,
    /// `--gateway FILE`.
    pub gateway: Option<PathBuf>,
    /// `--audit SEVERITY`: skills whose audit finds anything at or above it are not served.
    pub audit: Option<skills_audit::Severity>,
}

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Parsed {
    /// Serve with these options.
    Serve(Launch),
    /// `-h`, `--help`.
    Help,
    /// `-V`, `--version`.
    Version,
}

/// Why the server did not start, or stopped: the message and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct LaunchError {
    /// What went wrong, naming the file or address.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl Launch {
    /// The log level the server runs at.
    #[must_use]
    pub fn level(&self) -> LogLevel {
        self.log_level.unwrap_or(if self.gateway.is_some() {
            LogLevel::Info
        } else {
            LogLevel::Warn
        })
    }

    /// The options as command-line arguments (without the program name), in the form
    /// [`Launch::parse`] reads.
    #[must_use]
    pub fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = Vec::new();
        let mut pair = |flag: &str, value: OsString| {
            out.push(format!("--{flag}").into());
            out.push(value);
        };
        for dir in &self.skills_dirs {
            pair("skills-dir", dir.clone().into());
        }
        if let Some(level) = self.log_level {
            pair("log-level", level.as_str().into());
        }
        if let Some(tools) = &self.tools {
            pair("tools", tools.clone().into());
        }
        if let Some(resources) = &self.resources {
            pair("resources", resources.clone().into());
        }
        if let Some(http) = &self.http {
            pair("http", http.into());
        }
        for host in &self.allow_hosts {
            pair("allow-host", host.into());
        }
        for origin in &self.allow_origins {
            pair("allow-origin", origin.into());
        }
        if let Some(tier) = self.tier {
            pair("tier", tier.to_string().into());
        }
        if let Some(gateway) = &self.gateway {
            pair("gateway", gateway.clone().into());
        }
        if let Some(audit) = self.audit {
            pair("audit", audit.as_str().into());
        }
        out
    }

    /// Reads a command line (its first item is the program name), refusing what `skills
    /// mcp`'s own parser refuses, in its words.
    ///
    /// # Errors
    ///
    /// An unknown option, a missing, empty or invalid value, an option given twice.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, lexopt::Error> {
        use lexopt::prelude::*;
        let mut parser = lexopt::Parser::from_iter(args);
        let mut launch = Launch::default();
        while let Some(arg) = parser.next()? {
            match arg {
                Long("skills-dir") => {
                    launch
                        .skills_dirs
                        .push(path_value(&mut parser, "skills-dir", "DIR")?)
                }
                Long("log-level") => {
                    once(launch.log_level.as_ref(), "log-level")?;
                    let value = parser.value()?;
                    launch.log_level =
                        Some(value.to_str().and_then(|v| v.parse().ok()).ok_or_else(|| {
                            let names: Vec<&str> = LogLevel::ALL.map(LogLevel::as_str).into();
                            lexopt::Error::from(format!(
                                "invalid value {value:?} for '--log-level': the possible values are {}",
                                names.join(", ")
                            ))
                        })?);
                }
                Long("tools") => {
                    once(launch.tools.as_ref(), "tools")?;
                    launch.tools = Some(path_value(&mut parser, "tools", "FILE")?);
                }
                Long("resources") => {
                    once(launch.resources.as_ref(), "resources")?;
                    launch.resources = Some(path_value(&mut parser, "resources", "FILE")?);
                }
                Long("http") => {
                    once(launch.http.as_ref(), "http")?;
                    launch.http = Some(text_value(&mut parser, "http", "ADDR")?);
                }
                Long("allow-host") => {
                    launch
                        .allow_hosts
                        .push(text_value(&mut parser, "allow-host", "HOST")?)
                }
                Long("allow-origin") => {
                    launch
                        .allow_origins
                        .push(text_value(&mut parser, "allow-origin", "ORIGIN")?)
                }
                Long("tier") => {
                    once(launch.tier.as_ref(), "tier")?;
                    let value = text_value(&mut parser, "tier", "N")?;
                    launch.tier = Some(value.parse::<u32>().map_err(|_| {
                        lexopt::Error::from(format!(
                            "invalid value {value:?} for '--tier <N>': a whole number (0, 1, 2, ...)"
                        ))
                    })?);
                }
                Long("audit") => {
                    once(launch.audit.as_ref(), "audit")?;
                    let value = text_value(&mut parser, "audit", "SEVERITY")?;
                    launch.audit = Some(value.parse().map_err(|_| {
                        lexopt::Error::from(format!(
                            "invalid value {value:?} for '--audit <SEVERITY>': one of low, medium, high, critical"
                        ))
                    })?);
                }
                Long("gateway") => {
                    once(launch.gateway.as_ref(), "gateway")?;
                    launch.gateway = Some(path_value(&mut parser, "gateway", "FILE")?);
                }
                Short('h') | Long("help") => return Ok(Parsed::Help),
                Short('V') | Long("version") => return Ok(Parsed::Version),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(Parsed::Serve(launch))
    }

    /// Checks the files the options name (a bad one is refused before a client connects,
    /// with its file and line) and makes the server's configuration.
    ///
    /// # Errors
    ///
    /// [`LaunchError`] for a `--tools`, `--resources` or `--gateway` file that cannot be
    /// read or is not valid.
    pub fn config(&self) -> Result<Config, LaunchError> {
        Ok(self.config_unaudited()?.audit(self.audit))
    }

    /// [`Launch::config`] without `--audit`'s gate, which only [`Config::audit`] makes (see
    /// [`Launch::serve_skills`]).
    fn config_unaudited(&self) -> Result<Config, LaunchError> {
        let globals =
            skills_prompt::Globals::load(self.tools.as_deref(), self.resources.as_deref())
                .map_err(|e| LaunchError {
                    message: e.to_string(),
                    help: e.help().to_string(),
                })?;
        let gateway = self
            .gateway
            .as_deref()
            .map(GatewayFile::load)
            .transpose()
            .map_err(|e| LaunchError {
                message: e.to_string(),
                help: e.help.clone(),
            })?;
        Ok(
            Config::new(skills_discovery::Roots::from_env(&self.skills_dirs))
                .log_level(self.level())
                .globals(globals)
                .max_tier(self.tier)
                .gateway(gateway),
        )
    }

    /// Serves `config` (from [`Launch::config`]) on stdin/stdout, or over HTTP at `--http`
    /// until Ctrl-C or SIGTERM, calling `listening` with the bound address.
    ///
    /// # Errors
    ///
    /// [`LaunchError`] when the server cannot start or fails.
    pub fn serve(
        &self,
        config: Config,
        listening: impl FnOnce(std::net::SocketAddr),
    ) -> Result<(), LaunchError> {
        self.serve_dyn(config, Box::new(listening), crate::EVERY)
    }

    /// [`Launch::config`] then [`Launch::serve`], without the gateway or the audit: what
    /// the `skills-mcp` binary runs, which then links neither the MCP client the gateway
    /// needs nor the audit's parsers. A launch with `--gateway` or `--audit` is refused;
    /// `skills mcp` serves it.
    ///
    /// # Errors
    ///
    /// As [`Launch::config`] and [`Launch::serve`], and [`LaunchError`] for a launch with
    /// `--gateway` or `--audit`.
    pub fn serve_skills(
        &self,
        listening: impl FnOnce(std::net::SocketAddr),
    ) -> Result<(), LaunchError> {
        let refused = match (&self.gateway, self.audit) {
            (Some(_), _) => Some("--gateway FILE"),
            (None, Some(_)) => Some("--audit SEVERITY"),
            (None, None) => None,
        };
        if let Some(option) = refused {
            return Err(LaunchError {
                message: format!("this server runs the skills server only, without {option}"),
                help: format!("run `skills mcp {option}`"),
            });
        }
        let config = self.config_unaudited()?;
        self.serve_dyn(config, Box::new(listening), crate::SKILLS_ONLY)
    }

    // Not generic, so the whole server is compiled here once, not again in each binary
    // that starts it (docs/performance.md, "Building").
    fn serve_dyn(
        &self,
        config: Config,
        listening: Box<dyn FnOnce(std::net::SocketAddr) + '_>,
        makers: crate::Makers,
    ) -> Result<(), LaunchError> {
        match &self.http {
            Some(address) => {
                let mut options = HttpOptions::default();
                options.allowed_hosts.clone_from(&self.allow_hosts);
                options.allowed_origins.clone_from(&self.allow_origins);
                crate::http::until_signal(config, address, options, listening, makers.endpoint)
                    .map_err(|e: ServeError| LaunchError {
                        message: format!("skills mcp --http {address}: {e}"),
                        help: "pass another --http ADDR (host:port; port 0 picks a free one)"
                            .to_string(),
                    })
            }
            None => crate::serve_stdio_with(config, makers).map_err(|e| LaunchError {
                message: format!("skills mcp: {e}"),
                help: String::new(),
            }),
        }
    }
}

/// An error unless `slot` is still empty: these options are given at most once.
fn once<T>(slot: Option<&T>, flag: &str) -> Result<(), lexopt::Error> {
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

    fn parse(args: &[&str]) -> Result<Parsed, String> {
        let argv = std::iter::once("skills-mcp")
            .chain(args.iter().copied())
            .map(OsString::from);
        Launch::parse(argv).map_err(|e| e.to_string())
    }

    #[test]
    fn every_option_goes_over_and_back() {
        assert_eq!(parse(&[]), Ok(Parsed::Serve(Launch::default())));
        let launch = Launch {
            skills_dirs: vec!["a".into(), "b c".into()],
            log_level: Some(LogLevel::Trace),
            tools: Some("t.json".into()),
            resources: Some("r.json".into()),
            http: Some("127.0.0.1:0".into()),
            allow_hosts: vec!["example.test".into()],
            allow_origins: vec!["https://app.example".into()],
            tier: Some(1),
            gateway: Some("g.json".into()),
            audit: Some(skills_audit::Severity::High),
        };
        let argv = std::iter::once(OsString::from("skills-mcp")).chain(launch.to_args());
        assert_eq!(Launch::parse(argv).unwrap(), Parsed::Serve(launch));
        assert_eq!(parse(&["--skills-dir=b c"]), {
            let mut l = Launch::default();
            l.skills_dirs.push("b c".into());
            Ok(Parsed::Serve(l))
        });
        assert_eq!(parse(&["--help"]), Ok(Parsed::Help));
        assert_eq!(parse(&["-V"]), Ok(Parsed::Version));
    }

    #[test]
    fn what_clap_would_refuse_is_refused() {
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
            (&["--tier", "x"], "a whole number"),
            (&["--audit", "severe"], "one of low, medium, high, critical"),
            (&["--audit", "high", "--audit", "low"], "multiple times"),
            (&["serve"], "unexpected argument"),
            (&["--verbose"], "invalid option"),
        ] {
            let error = parse(args).expect_err(&format!("{args:?}"));
            assert!(error.contains(says), "{args:?}: {error}");
        }
    }

    #[test]
    fn the_level_defaults_to_warn_and_info_for_a_gateway() {
        let mut launch = Launch::default();
        assert_eq!(launch.level(), LogLevel::Warn);
        launch.gateway = Some("g.json".into());
        assert_eq!(launch.level(), LogLevel::Info);
        launch.log_level = Some(LogLevel::Off);
        assert_eq!(launch.level(), LogLevel::Off);
    }

    /// `skills-mcp` serves through `serve_skills`, which has neither the gateway nor the
    /// audit linked: it refuses them before serving anything, and says who serves them.
    #[test]
    fn the_skills_only_launch_refuses_a_gateway_or_an_audit_before_serving() {
        let mut launch = Launch {
            audit: Some(skills_audit::Severity::High),
            ..Launch::default()
        };
        let error = launch
            .serve_skills(|_| unreachable!("nothing is served"))
            .unwrap_err();
        assert_eq!(error.help, "run `skills mcp --audit SEVERITY`");
        launch.gateway = Some("g.json".into());
        let error = launch
            .serve_skills(|_| unreachable!("nothing is served"))
            .unwrap_err();
        assert_eq!(error.help, "run `skills mcp --gateway FILE`");
    }
}
