//! An MCP server for Agent Skills, over stdio ([`serve_stdio`]), any byte stream
//! ([`serve`]) or Streamable HTTP ([`serve_http`], [`http_router`]): the skills of a
//! discovery index served to agents that speak the Model Context Protocol. [`probe_tools`]
//! is the other side: a client that asks a configured server for its tools.
//!
//! Two generations of clients are served at once:
//!
//! - **Tools**, for today's clients: `list_skills` (every skill's id, name and description),
//!   `get_skill` (`{id}` → the `SKILL.md` path, name, description and body) and `skill`
//!   (`{name}` → `Loading: <id>`, the base directory and the whole `SKILL.md`; its description
//!   lists the available skills). The `init-skills` prompt returns the usage guide
//!   ([`skills_export::instructions`]).
//! - **Seed 004's tool inventory**: `tool_inventory` (`{skill_name?, refresh?}`) → the MCP
//!   servers the agents are configured with and the CLIs on `PATH` and, for a skill, which
//!   tool each domain it needs will use here ([`skills_doctor`]); built once per session.
//! - **Progressive disclosure** (seed 000's context packages): the `skills-router` prompt is
//!   the Level-1 router (every skill, the universal tools, the global resources of
//!   [`Config::globals`]) and the `view_skill` tool (`{skill_name}`) returns a skill's
//!   Level-2 prompt, with its `tools.json` and `resources.json` as structured content
//!   ([`skills_prompt`] renders both).
//! - **The MCP Skills extension** (SEP-2640, `io.modelcontextprotocol/skills`, with
//!   `directoryRead`): `skills/list`, `skills/get`, `resources/list`, `resources/read` and
//!   `resources/directory/read`, every file at `skill://<id>/<path>` with its sha256 digest.
//!   Skills whose directory name is not a valid skill name, whose frontmatter `name` differs
//!   from it, or that exceed 512 files or 16 MiB are not served this way (the log says why);
//!   the tools still offer them.
//!
//! The index is refreshed (a cheap `stat` pass) before every request, and the client gets
//! `notifications/tools/list_changed` and `notifications/resources/list_changed` when the
//! set of skills changes. Names and URIs are looked up in the index and the skill's file
//! list, never joined onto paths. Logs go to stderr; stdout carries only the protocol.
//!
//! The Streamable HTTP client ([`probe_tools`], the gateway's upstream servers) uses rustls
//! with the process's default crypto provider. When the program has installed none, ring is
//! installed as the default the first time a client is made; a program that wants another
//! provider installs it before calling into this crate.
//!
//! ```no_run
//! use skills_discovery::Roots;
//! use skills_mcp_server::{Config, LogLevel};
//!
//! // Serve the skills in ./skills on stdin/stdout until the client disconnects.
//! let config = Config::new(Roots::custom(["skills"])).log_level(LogLevel::Warn);
//! skills_mcp_server::serve_stdio(config)?;
//! # Ok::<(), skills_mcp_server::ServeError>(())
//! ```

mod bounded;

/// A future boxed where it is made. The body of an `async fn` is compiled in every crate
/// that polls it; an API that returns (or awaits) one of these has its body compiled once,
/// in this crate, however many binaries drive it (docs/performance.md, "Building").
pub(crate) type Boxed<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

mod audit;
mod catalog;
mod client_error;
mod erased;
mod extension;
mod framing;
pub mod gateway;
mod http;
mod inventory;
pub mod launch;
mod listen;
mod log;
mod probe;
mod prompts;
mod server;
mod sessions;
mod state;
mod subscribe;
mod text;
mod tier;
mod tls;
mod tools;

use rmcp::ServiceExt as _;
use skills_discovery::Roots;

/// How much the server logs on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogLevel {
    /// Nothing.
    Off,
    /// Failures only.
    Error,
    /// Also skills that cannot be served or read (the default).
    #[default]
    Warn,
    /// Also startup and changes to the set of skills.
    Info,
    /// Also protocol details.
    Debug,
    /// Everything.
    Trace,
}

impl LogLevel {
    /// Every level, quietest first, as `--log-level` lists them.
    pub const ALL: [Self; 6] = [
        Self::Off,
        Self::Error,
        Self::Warn,
        Self::Info,
        Self::Debug,
        Self::Trace,
    ];

    /// The name `--log-level` takes, as [`FromStr`](std::str::FromStr) reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Error => "error",
            Self::Warn => "warn",
            Self::Info => "info",
            Self::Debug => "debug",
            Self::Trace => "trace",
        }
    }
}

/// The name [`FromStr`](std::str::FromStr) reads back: `off`, `error`, `warn`, `info`, `debug`
/// or `trace`.
impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Reads the spellings of `skills mcp --log-level`: `off`, `error`, `warn`, `info`, `debug`
/// and `trace`, in lowercase only, as the command line takes them.
///
/// ```
/// use skills_mcp_server::LogLevel;
///
/// assert_eq!("debug".parse(), Ok(LogLevel::Debug));
/// assert!("DEBUG".parse::<LogLevel>().is_err());
/// ```
impl std::str::FromStr for LogLevel {
    type Err = ParseLogLevelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or_else(|| ParseLogLevelError {
                value: s.to_string(),
            })
    }
}

/// A [`LogLevel`] name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid log level {value:?}: the possible values are off, error, warn, info, debug, trace"
)]
pub struct ParseLogLevelError {
    value: String,
}

/// What to serve and how.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the skills are.
    pub roots: Roots,
    /// How much to log on stderr.
    pub log_level: LogLevel,
    /// How many skills one page of `skills/list` and `resources/list` covers.
    pub page_size: usize,
    /// Universal tools and global resources of the progressive-disclosure prompts
    /// (`skills-router` and `view_skill`), after the built-in `view_skill`.
    pub globals: skills_prompt::Globals,
    /// How `get_skill` and `skill` tell the client where a skill's files are.
    pub locations: Locations,
    /// Whether the `tool_inventory` tool is offered: it tells the client about this
    /// machine (its agents' MCP servers, its CLIs), which a server for remote clients
    /// must not.
    pub tool_inventory: bool,
    /// The highest tier served (`skills mcp --tier N`): a skill whose `metadata.min-tier`
    /// is above it is refused by the tools and not served over the extension. `None`
    /// serves every skill.
    pub max_tier: Option<u32>,
    /// The audit gate ([`Config::audit`]); `None` serves every skill. Made only there, so a
    /// binary that never calls it links no audit ([`audit`]).
    gate: Option<std::sync::Arc<dyn audit::Refusals>>,
    /// The gateway file of `skills mcp --gateway`: serve as a gateway in front of its
    /// servers (see [`gateway`]) instead of the skills tools.
    pub gateway: Option<gateway::GatewayFile>,
    /// Run before each look for changes of a `subscriptions/listen` stream (MCP
    /// 2026-07-28), for skills that reach the disk only when asked for (the registry's
    /// views of its database). `None` looks at the disk alone.
    pub before_look: Option<BeforeLook>,
}

/// How the `get_skill` and `skill` tools tell the client where a skill's files are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Locations {
    /// Absolute paths on this machine (the default): right for a client on the same
    /// machine, which reads `references/` and `scripts/` with its own file tools.
    #[default]
    Paths,
    /// `skill://<id>/SKILL.md` and `skill://<id>/`, which the client reads with
    /// `resources/read`: right for a remote server, whose paths mean nothing to the client
    /// and are not the client's business (the registry's `/mcp`).
    Uris,
}

impl Config {
    /// Serves the skills under `roots`, logging warnings, 50 skills a page, no global tools
    /// or resources.
    pub fn new(roots: Roots) -> Self {
        Self {
            roots,
            log_level: LogLevel::Warn,
            page_size: 50,
            globals: skills_prompt::Globals::default(),
            locations: Locations::Paths,
            tool_inventory: true,
            max_tier: None,
            gate: None,
            gateway: None,
            before_look: None,
        }
    }

    /// Runs `look` before each look for changes of a `subscriptions/listen` stream.
    #[must_use]
    pub fn before_look(mut self, look: Option<BeforeLook>) -> Self {
        self.before_look = look;
        self
    }

    /// Serves only skills of tier `max` and below (seed 004's tier gate).
    #[must_use]
    pub fn max_tier(mut self, max: Option<u32>) -> Self {
        self.max_tier = max;
        self
    }

    /// Serves only skills whose audit finds nothing at or above `at` (`skills mcp --audit`):
    /// the others are not listed and not served, and a warning on stderr names each and
    /// why. `None` serves every skill.
    #[must_use]
    pub fn audit(mut self, at: Option<skills_audit::Severity>) -> Self {
        self.gate = at.map(audit::gate);
        self
    }

    /// Serves as a gateway in front of the servers of `file` (`skills mcp --gateway`).
    #[must_use]
    pub fn gateway(mut self, file: Option<gateway::GatewayFile>) -> Self {
        self.gateway = file;
        self
    }

    /// Offers the `tool_inventory` tool or not (it is, by default).
    #[must_use]
    pub fn tool_inventory(mut self, offered: bool) -> Self {
        self.tool_inventory = offered;
        self
    }

    /// Sets how the tools tell the client where a skill's files are.
    #[must_use]
    pub fn locations(mut self, locations: Locations) -> Self {
        self.locations = locations;
        self
    }

    /// Sets the universal tools and global resources the `skills-router` prompt and the
    /// `view_skill` tool list (seed 000's context packages).
    #[must_use]
    pub fn globals(mut self, globals: skills_prompt::Globals) -> Self {
        self.globals = globals;
        self
    }

    /// Sets the log level.
    #[must_use]
    pub fn log_level(mut self, level: LogLevel) -> Self {
        self.log_level = level;
        self
    }

    /// Sets how many skills one page covers (at least 1).
    #[must_use]
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The async runtime could not start, or stdin/stdout failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The MCP session could not be set up (for example, no valid `initialize`).
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// Ready-to-paste client configurations for this server, shown by `skills mcp --help` and
/// `skills-mcp --help`.
pub const CLIENT_CONFIGS: &str = "\
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

  A client that connects to a URL (Streamable HTTP) instead:
    skills mcp --http 127.0.0.1:8471        then http://127.0.0.1:8471/mcp

Tools, prompts and methods, with examples: docs/mcp.md.";

pub use http::{
    HttpOptions, http_router, http_router_for, serve_http, serve_http_until_signal, stop_signal,
};
pub use listen::{ConnectionLimits, serve_router};
pub use probe::{ProbeError, ProbeTarget, probe_tools};
pub use sessions::SessionLimits;
pub use subscribe::BeforeLook;

/// Serves `config` over stdin and stdout until the client closes the connection.
///
/// Logging to stderr is set up here (unless a `tracing` subscriber is already installed).
///
/// # Errors
///
/// [`ServeError`] when the runtime cannot start or the session cannot be established;
/// problems with skills or single requests never end the server.
pub fn serve_stdio(config: Config) -> Result<(), ServeError> {
    serve_stdio_with(config, EVERY)
}

/// [`serve_stdio`], with the servers of `makers`.
pub(crate) fn serve_stdio_with(config: Config, makers: Makers) -> Result<(), ServeError> {
    // Held until the server ends: dropping it flushes the queued log lines.
    let _log = init_logging(config.log_level);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        // Non-blocking pipes when the client starts us with pipes (the usual case): no
        // hand-off to tokio's blocking pool per message. Falls back to `stdio()` otherwise.
        let (reader, writer) = rmcp::transport::stdio_pipes();
        serve_with(config, reader, writer, makers.server).await
    })
}

/// Serves `config` over any byte stream: newline-delimited JSON-RPC read from `reader`,
/// responses and notifications written to `writer`, until `reader` reaches its end.
///
/// The same server as [`serve_stdio`] (which calls this), with the same bounded read-ahead.
/// The first message must be `initialize`. Unlike [`serve_stdio`], this installs no logging
/// (it logs through whatever `tracing` subscriber the caller has, so
/// [`Config::log_level`] does not apply) and needs a running tokio runtime; a
/// current-thread one is enough. Tests and the fuzz target drive the server with it through
/// `tokio::io::duplex`.
///
/// ```no_run
/// use skills_discovery::Roots;
/// use skills_mcp_server::Config;
///
/// # async fn demo() -> Result<(), skills_mcp_server::ServeError> {
/// let (client, server) = tokio::io::duplex(64 * 1024);
/// let (reader, writer) = tokio::io::split(server);
/// // ... hand `client` to an MCP client ...
/// # drop(client);
/// skills_mcp_server::serve(Config::new(Roots::custom(["skills"])), reader, writer).await
/// # }
/// ```
///
/// # Errors
///
/// [`ServeError::Session`] when the session cannot be established (no valid `initialize`)
/// or ends abnormally; problems with skills or single requests never end the server.
pub async fn serve<R, W>(config: Config, reader: R, writer: W) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    serve_with(config, reader, writer, EVERY.server).await
}

/// [`serve`], with the servers `make` makes.
async fn serve_with<R, W>(
    config: Config,
    reader: R,
    writer: W,
    make: MakeServer,
) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let transport = bounded::Bounded::new(framing::Lines::new(reader, writer));
    let read_ahead = transport.read_ahead();
    let server = make(&config, read_ahead).await;
    let ended = server
        .serve(erased::Erased::new(transport))
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?
        .waiting()
        .await;
    ended.map_err(|e| ServeError::Session(e.to_string()))?;
    Ok(())
}

/// Makes the server of a stdio session (the skills server, or the gateway), behind one
/// type so that rmcp's service loop is compiled once ([`erased`]).
pub(crate) type MakeServer =
    for<'a> fn(&'a Config, bounded::ReadAhead) -> Boxed<'a, erased::Handler>;

/// What a launch can serve, as the functions that make it: [`EVERY`] server, or
/// [`SKILLS_ONLY`], which the `skills-mcp` binary runs. A binary that names only the latter
/// links neither the gateway nor the MCP client it needs (reqwest, rustls): 5 MB less
/// binary, and less of it resident (docs/performance.md).
#[derive(Clone, Copy)]
pub(crate) struct Makers {
    pub(crate) server: MakeServer,
    pub(crate) endpoint: http::MakeEndpoint,
}

/// The skills server, or the gateway when the configuration has one.
pub(crate) const EVERY: Makers = Makers {
    server: any_server,
    endpoint: http::any_endpoint,
};

/// The skills server alone: a configuration's gateway is ignored.
pub(crate) const SKILLS_ONLY: Makers = Makers {
    server: skills_server,
    endpoint: http::skills_endpoint,
};

fn any_server(config: &Config, read_ahead: bounded::ReadAhead) -> Boxed<'_, erased::Handler> {
    Box::pin(async move {
        match &config.gateway {
            Some(file) => {
                let servers = gateway::start(file).await;
                let gateway = gateway::GatewayServer::new(config, servers, Some(read_ahead));
                erased::Handler::new(gateway)
            }
            None => erased::Handler::new(server::SkillsServer::new(config)),
        }
    })
}

fn skills_server(config: &Config, _read_ahead: bounded::ReadAhead) -> Boxed<'_, erased::Handler> {
    Box::pin(async move { erased::Handler::new(server::SkillsServer::new(config)) })
}

/// Logs to stderr through [`log::stderr`]; `None` when the caller already installed a
/// subscriber (theirs is kept).
fn init_logging(level: LogLevel) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use tracing::level_filters::LevelFilter;
    let filter = match level {
        LogLevel::Off => LevelFilter::OFF,
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
    };
    if filter == LevelFilter::OFF {
        return None;
    }
    let (writer, guard) = log::stderr();
    // rmcp's own events are not the server's log: they show from debug. Its warnings print
    // its types with `{:?}` (`response error … ErrorData { code: ErrorCode(-32602), … }`
    // for every error answer); what they report, the server logs in its own words (the
    // gateway's refusals and failures). Its errors still show.
    let rmcp = if filter >= LevelFilter::DEBUG {
        filter
    } else {
        filter.min(LevelFilter::ERROR)
    };
    let targets = tracing_subscriber::filter::Targets::new()
        .with_default(filter)
        .with_target("rmcp", rmcp);
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(filter)
        .with_ansi(false)
        .with_target(false)
        .finish();
    use tracing_subscriber::layer::SubscriberExt as _;
    tracing::subscriber::set_global_default(subscriber.with(targets))
        .ok()
        .map(|()| guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_levels_read_back_what_they_display() {
        let names: Vec<String> = LogLevel::ALL.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["off", "error", "warn", "info", "debug", "trace"]);
        for level in LogLevel::ALL {
            assert_eq!(level.to_string().parse(), Ok(level));
        }
        assert_eq!(
            format!("{:>5}|{:<5}|", LogLevel::Warn, LogLevel::Off),
            " warn|off  |"
        );
    }

    /// The command line takes lowercase names only; anything else is refused with the list.
    #[test]
    fn other_log_level_spellings_are_refused() {
        for bad in ["", "WARN", "Warn", " warn", "warn ", "warning", "loud", "0"] {
            let err = bad.parse::<LogLevel>().unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "invalid log level {bad:?}: the possible values are off, error, warn, info, debug, trace"
                )
            );
        }
    }
}
