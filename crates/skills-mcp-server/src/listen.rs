//! Serving a router over TCP with bounds a client cannot lift: how long it may take to send
//! a request's headers (or keep an idle connection open) and its body, and how many
//! connections are served at once. Shared by `skills mcp --http` and `skills registry
//! serve`.
//!
//! `axum::serve` sets neither: without a timer hyper waits for headers forever, and each
//! accepted connection is a file descriptor, so a few hundred clients sending half a
//! request exhaust the open-file limit and every later request fails. Here hyper's HTTP/1
//! connection gets a header-read timeout, each request's body a deadline (a body sent a
//! byte at a time would hold the connection as long as half-sent headers did), and a
//! semaphore bounds the connections below the open-file limit: past it, new connections
//! wait in the kernel's listen backlog, which costs the process no descriptor.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tower::ServiceExt as _;

/// Descriptors kept for everything but client connections: the database pool, files
/// written and read, the log, the runtime's own.
const RESERVED_FILES: u64 = 128;

/// How long to wait after `accept` failed for another reason than the client (out of
/// descriptors or memory), before trying again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(200);

/// How a server built with [`serve_router`] bounds its clients.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionLimits {
    /// The longest a client may take to send a request's headers, counted from when the
    /// server is ready to read them: from the connection's start, or from the end of the
    /// previous response on a keep-alive connection. So it is the idle timeout of
    /// keep-alive connections too (hyper runs one timer for both). A connection past it is
    /// closed.
    pub header_timeout: Duration,
    /// The longest a request's body may take to arrive, counted from the end of its
    /// headers. Past it reading the body fails (`std::io::ErrorKind::TimedOut`), the
    /// answer is an error, and the connection is closed.
    pub body_timeout: Duration,
    /// The most connections served at once. It is lowered to the process's open-file
    /// limit less a reserve ([`ConnectionLimits::effective_max_connections`]); connections
    /// past it wait to be accepted.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
        }
    }
}

impl ConnectionLimits {
    /// The connections served at once: [`ConnectionLimits::max_connections`], lowered to
    /// the soft open-file limit less 128 descriptors (half the limit when it is lower than
    /// 256), and at least 1.
    #[must_use]
    pub fn effective_max_connections(&self) -> usize {
        let ceiling = open_file_limit().map_or(usize::MAX, |limit| {
            let usable = if limit >= 2 * RESERVED_FILES {
                limit - RESERVED_FILES
            } else {
                limit / 2
            };
            usize::try_from(usable).unwrap_or(usize::MAX)
        });
        self.max_connections.min(ceiling).max(1)
    }
}

/// The soft `RLIMIT_NOFILE`, when there is one.
#[cfg(unix)]
fn open_file_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<u64> {
    None
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves, then stops
/// accepting and waits for the connections in flight to finish. Each request carries the
/// client's address as axum's [`ConnectInfo<SocketAddr>`].
///
/// # Errors
///
/// None so far: a failed `accept` is logged and retried. The `Result` leaves room for
/// listener errors that cannot be retried.
pub async fn serve_router(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_router_boxed(listener, router, limits.clone(), Box::pin(shutdown)).await
}

// The body of `serve_router`, boxed where it is made: the body of an `async fn` is compiled
// in each crate that polls it, this one only here (docs/performance.md, "Building").
fn serve_router_boxed(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: crate::Boxed<'static, ()>,
) -> crate::Boxed<'static, std::io::Result<()>> {
    Box::pin(async move {
        let limits = &limits;
        let slots = Arc::new(tokio::sync::Semaphore::new(
            limits.effective_max_connections(),
        ));
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let graceful = GracefulShutdown::new();
        // Ends the `subscriptions/listen` streams when the server stops: they would hold
        // the graceful shutdown forever (`subscribe.rs`).
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            // The slot is taken before `accept`: past the limit a client waits in the backlog
            // and holds no descriptor of ours.
            let slot = tokio::select! {
                slot = Arc::clone(&slots).acquire_owned() => match slot {
                    Ok(slot) => slot,
                    // The semaphore is never closed.
                    Err(_) => break,
                },
                () = &mut shutdown => break,
            };
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        if !is_connection_error(&error) {
                            tracing::error!("accept failed: {error}");
                            tokio::time::sleep(ACCEPT_BACKOFF).await;
                        }
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let body_timeout = limits.body_timeout;
            let service = router.clone().map_request(
                move |request: hyper::Request<hyper::body::Incoming>| {
                    let (mut parts, body) = request.into_parts();
                    parts.extensions.insert(ConnectInfo(peer));
                    let body = Deadline {
                        inner: Box::pin(body),
                        deadline: Box::pin(tokio::time::sleep(body_timeout)),
                    };
                    axum::extract::Request::from_parts(parts, axum::body::Body::new(body))
                },
            );
            let connection =
                http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            let connection = graceful.watch(connection);
            let connection = crate::subscribe::STOPPING.scope(stopping.clone(), connection);
            tokio::spawn(async move {
                // A client that goes away or times out is not the server's error.
                if let Err(error) = connection.await {
                    tracing::debug!("connection from {peer}: {error}");
                }
                drop(slot);
            });
        }
        drop(listener);
        stop.send_replace(true);
        graceful.shutdown().await;
        Ok(())
    })
}

/// A request body that fails once its deadline has passed.
struct Deadline<B> {
    inner: Pin<Box<B>>,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl<B> http_body::Body for Deadline<B>
where
    B: http_body::Body<Data = axum::body::Bytes>,
    B::Error: Into<axum::BoxError>,
{
    type Data = axum::body::Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if let Poll::Ready(frame) = self.inner.as_mut().poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            let late = std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive in time",
            );
            return Poll::Ready(Some(Err(late.into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// An `accept` error about the one connection, not the listener (as hyper and axum sort
/// them).
fn is_connection_error(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// The address of the client a request came from, when the server recorded it.
pub(crate) fn peer(request: &axum::extract::Request) -> Option<SocketAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| *address)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_stay_below_the_open_file_limit() {
        let limits = ConnectionLimits {
            max_connections: usize::MAX,
            ..ConnectionLimits::default()
        };
        let effective = limits.effective_max_connections();
        if let Some(limit) = open_file_limit() {
            assert!((effective as u64) < limit, "{effective} of {limit}");
        }
        assert!(effective >= 1);
        let one = ConnectionLimits {
            max_connections: 0,
            ..ConnectionLimits::default()
        };
        assert_eq!(one.effective_max_connections(), 1);
    }
}
