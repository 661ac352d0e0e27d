//! Asking a configured MCP server which tools it has, as a client: `skills doctor --probe`.
//! A stdio server is started and killed when done; an HTTP one is connected to. Each gets
//! a deadline, so a server that hangs is reported, never waited on.

use std::time::Duration;

use rmcp::ServiceExt as _;

use crate::erased::Erased;

/// A server to ask.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum ProbeTarget<'a> {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: &'a str,
        /// Its arguments.
        args: &'a [String],
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// Its URL.
        url: &'a str,
    },
}

/// Why a probe found no tools.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The program could not be started.
    #[error("cannot start `{command}`: {source}")]
    Start {
        /// The program.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// No complete answer before the deadline.
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The server answered, but not as an MCP server does.
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// The names of the tools `target` lists (`tools/list`, every page), within `timeout` from
/// start to end. Needs a tokio runtime with timers and I/O.
///
/// # Errors
///
/// [`ProbeError`] when it cannot be started, fails the session, or misses the deadline.
pub async fn probe_tools(
    target: ProbeTarget<'_>,
    timeout: Duration,
) -> Result<Vec<String>, ProbeError> {
    probe_boxed(target, timeout).await
}

// The body of `probe_tools`, boxed where it is made, so the MCP client is compiled here and
// not again in each crate that probes (docs/performance.md, "Building").
fn probe_boxed(
    target: ProbeTarget<'_>,
    timeout: Duration,
) -> crate::Boxed<'_, Result<Vec<String>, ProbeError>> {
    Box::pin(async move {
        match target {
            ProbeTarget::Stdio { command, args } => {
                let mut child = tokio::process::Command::new(command)
                    .args(args)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    // Killed when this function returns, whatever happened.
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|source| ProbeError::Start {
                        command: command.to_string(),
                        source,
                    })?;
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err(ProbeError::Session("no pipes to the server".to_string()));
                };
                let transport = crate::gateway::wire::ChildLines::new(command, stdout, stdin);
                let listed = tokio::time::timeout(timeout, list(Erased::new(transport))).await;
                let _ = child.start_kill();
                listed.map_err(|_| ProbeError::Timeout(timeout))?
            }
            ProbeTarget::Http { url } => {
                crate::tls::ensure_provider();
                let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
                tokio::time::timeout(timeout, list(Erased::new(transport)))
                    .await
                    .map_err(|_| ProbeError::Timeout(timeout))?
            }
        }
    })
}

async fn list(transport: Erased<rmcp::RoleClient>) -> Result<Vec<String>, ProbeError> {
    let session = ()
        .into_dyn()
        .serve(transport)
        .await
        .map_err(|e| ProbeError::Session(crate::client_error::init(&e)))?;
    let tools = session.list_all_tools().await.map_err(|e| {
        ProbeError::Session(format!(
            "tools/list failed: {}",
            crate::client_error::service(&e)
        ))
    });
    let _ = session.cancel().await;
    Ok(tools?.into_iter().map(|t| t.name.to_string()).collect())
}
