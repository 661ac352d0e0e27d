//! What an MCP client's failure says to a person: rmcp's errors name its own types
//! (`Transport [rmcp::transport::worker::WorkerTransport<StreamableHttpClientWorker<
//! reqwest::Client>>] error: Client error: …`) and print messages with `{:?}`; these say what
//! happened and why, in the words of the cause (`error sending request for url
//! (http://127.0.0.1:9/mcp): Connection refused (os error 111)`). For `skills doctor
//! --probe`, `skills lint --gateway` and the gateway's log and tool errors.

use std::error::Error;

use rmcp::service::ClientInitializeError;
use rmcp::transport::DynamicTransportError;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use rmcp::{ErrorData, ServiceError};

/// Why a session with a server could not be set up.
pub(crate) fn init(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => transport(error),
        ClientInitializeError::ConnectionClosed(_) => {
            "the server closed the connection before it answered `initialize`".to_string()
        }
        ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::ExpectedInitResult(_)
        | ClientInitializeError::ConflictInitResponseId(..)
        | ClientInitializeError::UncorrelatedErrorResponse { .. } => {
            "the server did not answer `initialize` as an MCP server does".to_string()
        }
        ClientInitializeError::JsonRpcError(error) => {
            format!("the server refused `initialize`: {}", json_rpc(error))
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => format!(
            "the server speaks none of the protocol versions this client does (it offers {})",
            server_supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => causes(other),
    }
}

/// Why a request on an established session failed.
pub(crate) fn service(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(error) => format!("the server answered {}", json_rpc(error)),
        ServiceError::TransportSend(error) => transport(error),
        ServiceError::TransportClosed => "the connection to the server closed".to_string(),
        ServiceError::UnexpectedResponse => {
            "the server answered with something else than the request's result".to_string()
        }
        ServiceError::Timeout { timeout } => {
            format!("no answer within {} s", timeout.as_secs_f64())
        }
        other => causes(other),
    }
}

/// A JSON-RPC error as `error -32601 (Method not found)`.
pub(crate) fn json_rpc(error: &ErrorData) -> String {
    format!("error {} ({})", error.code.0, error.message)
}

/// A transport's failure, without the transport's type name: for Streamable HTTP, what
/// the HTTP client says and its cause.
fn transport(error: &DynamicTransportError) -> String {
    let mut inner: &(dyn Error + 'static) = error.error.as_ref();
    // Behind `erased::Erased`, a transport's own error is wrapped in an `io::Error`.
    if let Some(wrapped) = inner
        .downcast_ref::<std::io::Error>()
        .and_then(std::io::Error::get_ref)
    {
        inner = wrapped;
    }
    if let Some(http) = inner.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        return match http {
            StreamableHttpError::Client(client) => causes(client),
            StreamableHttpError::UnexpectedContentType(Some(kind)) => {
                format!("the server answered with `{kind}`, not JSON or an event stream")
            }
            StreamableHttpError::UnexpectedContentType(None) => {
                "the server answered without a content type".to_string()
            }
            StreamableHttpError::HttpStatus(status) => {
                format!("the server answered HTTP {}", status.status)
            }
            other => causes(other),
        };
    }
    if inner
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    {
        return "the server stopped reading its input (did it exit?)".to_string();
    }
    causes(inner)
}

/// `error`'s text, and its deepest cause's when that says more: `error sending request for
/// url (…): Connection refused (os error 111)` (the layers between, `client error
/// (Connect)`, `tcp connect error`, say less than the two).
fn causes(error: &(dyn Error + 'static)) -> String {
    let first = error.to_string();
    let mut last = None;
    let mut cause = error.source();
    while let Some(e) = cause {
        last = Some(e.to_string());
        cause = e.source();
    }
    match last {
        Some(root) if !first.contains(&root) => format!("{first}: {root}"),
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("error sending request for url (http://127.0.0.1:9/mcp)")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("client error (Connect)")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn the_outer_text_and_the_root_cause() {
        let error = Outer(Middle(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        assert_eq!(
            causes(&error),
            "error sending request for url (http://127.0.0.1:9/mcp): connection refused"
        );
        let plain = std::io::Error::other("broken pipe");
        assert_eq!(causes(&plain), "broken pipe");
    }

    #[test]
    fn no_rust_type_or_debug_text() {
        let transport = DynamicTransportError::from_parts(
            "rmcp::transport::worker::WorkerTransport<X>",
            std::any::TypeId::of::<()>(),
            Box::new(std::io::Error::other("the pipe closed")),
        );
        let error = ClientInitializeError::TransportError {
            error: transport,
            context: "send initialize request".into(),
        };
        assert_eq!(init(&error), "the pipe closed");
        let refused = ServiceError::McpError(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "tools/list",
            None,
        ));
        assert_eq!(
            service(&refused),
            "the server answered error -32601 (tools/list)"
        );
    }
}
