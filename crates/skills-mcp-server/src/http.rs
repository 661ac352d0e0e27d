//! The same server over MCP's Streamable HTTP transport (`skills mcp --http ADDR`), at
//! `/mcp`: rmcp's transport with the checks the transport specification asks of a local
//! server. The `Host` header must name a loopback host (or one allowed), so a DNS
//! rebinding page cannot reach it; a browser's `Origin` must be a loopback one (or one
//! allowed); a request body is bounded; a session idle for longer than
//! [`HttpOptions::session_idle`] ends, and sessions are capped per caller and in all
//! (`sessions.rs`); connections are served within [`ConnectionLimits`] (`listen.rs`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower::ServiceExt as _;

use crate::listen::ConnectionLimits;
use crate::sessions::{BoundedSessions, CALLER, SessionLimits};
use crate::{Config, ServeError, server};

/// The loopback origins a browser on this machine sends, any port.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How [`serve_http`] answers beside what [`Config`] says.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// `Host` values accepted beside `localhost`, `127.0.0.1` and `::1` (`HOST` or
    /// `HOST:PORT`): what a server bound to another address is reached as.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted beside loopback ones (`https://app.example.com:443`).
    pub allowed_origins: Vec<String>,
    /// A session without a request for this long ends.
    pub session_idle: Duration,
    /// The largest request body.
    pub max_body_bytes: usize,
    /// The most sessions one caller keeps: a new one past it ends their least recently
    /// used. A caller is the client's IP address for [`serve_http`], the registry's
    /// authenticated user for its `/mcp`.
    pub max_sessions_per_caller: usize,
    /// The most sessions in all: a new one past it ends the least recently used of anyone.
    pub max_sessions: usize,
    /// How connections are bounded by [`serve_http`].
    pub connections: ConnectionLimits,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            session_idle: Duration::from_secs(30 * 60),
            max_body_bytes: 1024 * 1024,
            max_sessions_per_caller: 100,
            max_sessions: 1000,
            connections: ConnectionLimits::default(),
        }
    }
}

/// The environment variables [`HttpOptions::with_env_limits`] reads.
const LIMIT_VARIABLES: [&str; 5] = [
    "SKILLS_MCP_MAX_SESSIONS",
    "SKILLS_MCP_MAX_SESSIONS_PER_CLIENT",
    "SKILLS_MCP_MAX_CONNECTIONS",
    "SKILLS_MCP_HEADER_TIMEOUT_SECS",
    "SKILLS_MCP_BODY_TIMEOUT_SECS",
];

impl HttpOptions {
    /// These options with the limits `lookup` (the environment, say) sets:
    /// `SKILLS_MCP_MAX_SESSIONS`, `SKILLS_MCP_MAX_SESSIONS_PER_CLIENT`,
    /// `SKILLS_MCP_MAX_CONNECTIONS`, `SKILLS_MCP_HEADER_TIMEOUT_SECS` and
    /// `SKILLS_MCP_BODY_TIMEOUT_SECS`, each a whole
    /// number (0 counts as 1); unset or empty keeps the value. What `skills mcp --http`
    /// reads, so an operator (or a test) can move a limit without a flag for each.
    ///
    /// # Errors
    ///
    /// [`ServeError::Io`] (`InvalidInput`) naming the variable whose value is not a whole
    /// number.
    pub fn with_env_limits(
        mut self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ServeError> {
        for name in LIMIT_VARIABLES {
            let Some(text) = lookup(name).filter(|v| !v.trim().is_empty()) else {
                continue;
            };
            let value: u64 = text.trim().parse().map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{name}={text:?} is not a whole number"),
                )
            })?;
            let count = usize::try_from(value).unwrap_or(usize::MAX).max(1);
            match name {
                "SKILLS_MCP_MAX_SESSIONS" => self.max_sessions = count,
                "SKILLS_MCP_MAX_SESSIONS_PER_CLIENT" => self.max_sessions_per_caller = count,
                "SKILLS_MCP_MAX_CONNECTIONS" => self.connections.max_connections = count,
                "SKILLS_MCP_HEADER_TIMEOUT_SECS" => {
                    self.connections.header_timeout = Duration::from_secs(value.max(1));
                }
                _ => self.connections.body_timeout = Duration::from_secs(value.max(1)),
            }
        }
        Ok(self)
    }
}

/// The MCP endpoint as an axum router that answers at any path (nest it where it should
/// be): what [`serve_http`] serves at `/mcp`, for a program that serves other routes
/// beside it, or picks a server per caller (the registry's `/mcp`). Each MCP session gets
/// a server of its own over `config`. Sessions are capped as `options` says, a caller
/// being the client's IP address (axum's `ConnectInfo<SocketAddr>`, which
/// [`serve_router`](crate::serve_router) sets), or one for all without it.
pub fn http_router(config: Config, options: HttpOptions) -> axum::Router {
    let limits = SessionLimits::new(options.max_sessions_per_caller, options.max_sessions);
    router_with(
        move || {
            Ok(crate::erased::Handler::new(server::SkillsServer::new(
                &config,
            )))
        },
        options,
        limits,
        None,
    )
}

/// As [`http_router`], for one endpoint of several (the registry's per-caller views): its
/// sessions count against `sessions`, shared with the other endpoints, whose caps apply
/// instead of those of `options`; each against `caller`, or the client's IP address when
/// `None`.
pub fn http_router_for(
    config: Config,
    options: HttpOptions,
    sessions: &SessionLimits,
    caller: Option<&str>,
) -> axum::Router {
    router_with(
        move || {
            Ok(crate::erased::Handler::new(server::SkillsServer::new(
                &config,
            )))
        },
        options,
        sessions.clone(),
        caller.map(Arc::from),
    )
}

/// The endpoint over servers made by `factory`, one per session.
fn router_with(
    factory: impl Fn() -> Result<crate::erased::Handler, std::io::Error> + Send + Sync + 'static,
    options: HttpOptions,
    limits: SessionLimits,
    caller: Option<Arc<str>>,
) -> axum::Router {
    let mut transport = StreamableHttpServerConfig::default().enforce_origin_validation();
    transport.allowed_hosts.extend(options.allowed_hosts);
    transport.allowed_origins = LOOPBACK_ORIGINS
        .iter()
        .map(|o| (*o).to_string())
        .chain(options.allowed_origins)
        .collect();
    transport.max_request_body_bytes = options.max_body_bytes;
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    let sessions = BoundedSessions::new(sessions, limits, caller);
    let service = StreamableHttpService::new(factory, sessions.into(), transport);
    axum::Router::new().fallback(move |request: axum::extract::Request| {
        let caller = crate::listen::peer(&request).map(|a| Arc::<str>::from(a.ip().to_string()));
        let call = service.clone().oneshot(request);
        async move {
            let response = match caller {
                Some(caller) => CALLER.scope(caller, call).await,
                None => call.await,
            };
            match response {
                Ok(response) => response.map(axum::body::Body::new),
                Err(never) => match never {},
            }
        }
    })
}

/// Serves `config` at `/mcp` on `listener` until `shutdown` resolves.
///
/// # Errors
///
/// [`ServeError::Io`] when the listener fails.
pub async fn serve_http(
    config: Config,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    serve_http_boxed(
        config,
        listener,
        options,
        Box::pin(shutdown),
        crate::EVERY.endpoint,
    )
    .await
}

/// Makes the `/mcp` endpoint of an HTTP launch (see [`crate::Makers`]).
pub(crate) type MakeEndpoint = fn(Config, HttpOptions) -> crate::Boxed<'static, axum::Router>;

/// The skills server's endpoint, or the gateway's when the configuration has one.
pub(crate) fn any_endpoint(
    config: Config,
    options: HttpOptions,
) -> crate::Boxed<'static, axum::Router> {
    Box::pin(async move {
        match &config.gateway {
            // The downstream servers are started once, and shared by the sessions.
            Some(file) => {
                let servers = crate::gateway::start(file).await;
                let limits =
                    SessionLimits::new(options.max_sessions_per_caller, options.max_sessions);
                router_with(
                    move || {
                        let gateway =
                            crate::gateway::GatewayServer::new(&config, servers.clone(), None);
                        Ok(crate::erased::Handler::new(gateway))
                    },
                    options,
                    limits,
                    None,
                )
            }
            None => http_router(config, options),
        }
    })
}

/// The skills server's endpoint.
pub(crate) fn skills_endpoint(
    config: Config,
    options: HttpOptions,
) -> crate::Boxed<'static, axum::Router> {
    Box::pin(async move { http_router(config, options) })
}

// The body of `serve_http`, boxed where it is made: the body of an `async fn` is compiled in
// each crate that polls it, this one only here (docs/performance.md, "Building").
fn serve_http_boxed(
    config: Config,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    shutdown: crate::Boxed<'static, ()>,
    endpoint: MakeEndpoint,
) -> crate::Boxed<'static, Result<(), ServeError>> {
    Box::pin(async move {
        let endpoint = endpoint(config, options.clone()).await;
        let app = axum::Router::new().nest_service("/mcp", endpoint);
        crate::listen::serve_router(listener, app, &options.connections, shutdown).await?;
        Ok(())
    })
}

/// Binds `address`, reports it to `listening`, and serves until Ctrl-C or SIGTERM: what
/// `skills mcp --http ADDR` runs. Logging is set up as for stdio, and the limits the
/// environment sets override `options` ([`HttpOptions::with_env_limits`]).
///
/// # Errors
///
/// [`ServeError::Io`] when a limit in the environment is not a number, the runtime cannot
/// start or `address` cannot be bound.
pub fn serve_http_until_signal(
    config: Config,
    address: &str,
    options: HttpOptions,
    listening: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    until_signal(
        config,
        address,
        options,
        Box::new(listening),
        crate::EVERY.endpoint,
    )
}

// Not generic, so the server and its runtime are compiled in this crate, once.
pub(crate) fn until_signal(
    config: Config,
    address: &str,
    options: HttpOptions,
    listening: Box<dyn FnOnce(std::net::SocketAddr) + '_>,
    endpoint: MakeEndpoint,
) -> Result<(), ServeError> {
    let _log = crate::init_logging(config.log_level);
    let options = options.with_env_limits(|name| std::env::var(name).ok())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(address).await?;
        let stop = stop_signal();
        listening(listener.local_addr()?);
        serve_http_boxed(config, listener, options, Box::pin(stop), endpoint).await
    })
}

/// Resolves on Ctrl-C, or SIGTERM on unix: the shutdown signal of a server that finishes
/// in-flight requests before it exits (`skills mcp --http`, `skills registry serve`).
///
/// The handlers are installed when this is called, not when the future is first polled:
/// call it before announcing the address, so that a signal sent as soon as the server is
/// known to listen stops it gracefully instead of killing it. Needs a tokio runtime with
/// signal handling (and I/O) enabled.
pub fn stop_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let terminate = signal(SignalKind::terminate()).ok();
        let interrupt = signal(SignalKind::interrupt()).ok();
        let wait = |signal: Option<Signal>| async move {
            match signal {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        async move {
            tokio::select! {
                () = wait(terminate) => {}
                () = wait(interrupt) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
