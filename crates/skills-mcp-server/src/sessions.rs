//! A bound on MCP sessions over HTTP. rmcp's [`LocalSessionManager`] keeps every session
//! an `initialize` creates until it has been idle for the session timeout (30 minutes), and
//! each holds a server of its own: one client sending `initialize` in a loop made 20,000
//! sessions and close to 2 GB in seconds. [`BoundedSessions`] wraps it: each session is
//! counted against its caller and against a total shared by every endpoint of one
//! [`SessionLimits`], and a new session past either cap ends the least recently used one
//! (of that caller, or of anyone), whose next request is answered `404` as the transport
//! specification says of an ended session, so its client starts a new one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

tokio::task_local! {
    /// Who sends the request being answered, for an endpoint that serves several callers
    /// (`skills mcp --http`: the client's IP address). The session manager is not given
    /// the request, so the router sets this around the call.
    pub(crate) static CALLER: Arc<str>;
}

/// The caller of a request when nothing tells callers apart.
const EVERYONE: &str = "";

/// Caps on MCP sessions, shared by every endpoint made with them: at most
/// `per_caller` sessions of one caller and `total` in all. Cloning shares the count.
#[derive(Debug, Clone)]
pub struct SessionLimits {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    per_caller: usize,
    total: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    sessions: HashMap<SessionId, Entry>,
    /// Counts uses: a session's `used` is the count at its last request.
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    caller: Arc<str>,
    used: u64,
    /// The manager that holds the session, to end it from another endpoint's request.
    owner: Weak<LocalSessionManager>,
}

impl SessionLimits {
    /// At most `per_caller` sessions of one caller and `total` in all (each at least 1).
    #[must_use]
    pub fn new(per_caller: usize, total: usize) -> Self {
        Self {
            shared: Arc::new(Shared {
                per_caller: per_caller.max(1),
                total: total.max(1),
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// The sessions open now.
    #[must_use]
    pub fn sessions(&self) -> usize {
        self.lock().sessions.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change under the lock leaves the map consistent.
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts the new session `id` of `caller`, and takes out of the count the sessions
    /// it pushes past a cap, least recently used first: the ones to end.
    fn admit(
        &self,
        id: &SessionId,
        caller: Arc<str>,
        owner: Weak<LocalSessionManager>,
    ) -> Vec<(SessionId, Weak<LocalSessionManager>)> {
        let mut state = self.lock();
        state.clock += 1;
        let used = state.clock;
        state.sessions.insert(
            id.clone(),
            Entry {
                caller: Arc::clone(&caller),
                used,
                owner,
            },
        );
        let mut ended = Vec::new();
        loop {
            let of_caller = state
                .sessions
                .values()
                .filter(|e| e.caller == caller)
                .count();
            let of_caller_over = of_caller > self.shared.per_caller;
            if !of_caller_over && state.sessions.len() <= self.shared.total {
                break;
            }
            let oldest = state
                .sessions
                .iter()
                .filter(|(other, e)| *other != id && (!of_caller_over || e.caller == caller))
                .min_by_key(|(_, e)| e.used)
                .map(|(other, _)| other.clone());
            let Some(oldest) = oldest else { break };
            if let Some(entry) = state.sessions.remove(&oldest) {
                ended.push((oldest, entry.owner));
            }
        }
        ended
    }

    /// Marks `id` used now.
    fn touch(&self, id: &SessionId) {
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        if let Some(entry) = state.sessions.get_mut(id) {
            entry.used = now;
        }
    }

    fn forget(&self, id: &SessionId) {
        self.lock().sessions.remove(id);
    }
}

/// rmcp's in-memory sessions, counted against [`SessionLimits`].
#[derive(Debug)]
pub(crate) struct BoundedSessions {
    inner: Arc<LocalSessionManager>,
    limits: SessionLimits,
    /// The caller of every session here, when the endpoint serves one; else [`CALLER`].
    caller: Option<Arc<str>>,
}

impl BoundedSessions {
    pub(crate) fn new(
        inner: LocalSessionManager,
        limits: SessionLimits,
        caller: Option<Arc<str>>,
    ) -> Self {
        Self {
            inner: Arc::new(inner),
            limits,
            caller,
        }
    }

    fn caller(&self) -> Arc<str> {
        self.caller.clone().unwrap_or_else(|| {
            CALLER
                .try_with(Arc::clone)
                .unwrap_or_else(|_| Arc::from(EVERYONE))
        })
    }
}

impl SessionManager for BoundedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        let ended = self
            .limits
            .admit(&id, self.caller(), Arc::downgrade(&self.inner));
        for (old, owner) in ended {
            if let Some(owner) = owner.upgrade() {
                tracing::info!("MCP session {old} ended: its caller, or the server, has too many");
                // Already ended is as good.
                let _ = owner.close_session(&old).await;
            }
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // Every request naming a session asks this first: the one place to count a use.
        self.limits.touch(id);
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.limits.forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        stream(&*self.inner, id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        standalone(&*self.inner, id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        resumed(&*self.inner, id, last_event_id).await
    }
}

// Through the trait, whose streams are `Sync` (the concrete manager's signatures do not say).
async fn stream<M: SessionManager>(
    manager: &M,
    id: &SessionId,
    message: ClientJsonRpcMessage,
) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
    manager.create_stream(id, message).await
}

async fn standalone<M: SessionManager>(
    manager: &M,
    id: &SessionId,
) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
    manager.create_standalone_stream(id).await
}

async fn resumed<M: SessionManager>(
    manager: &M,
    id: &SessionId,
    last_event_id: String,
) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
    manager.resume(id, last_event_id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> SessionId {
        Arc::from(n.to_string())
    }

    fn admit(limits: &SessionLimits, n: u32, caller: &str) -> Vec<String> {
        limits
            .admit(&id(n), Arc::from(caller), Weak::new())
            .into_iter()
            .map(|(old, _)| old.to_string())
            .collect::<Vec<_>>()
    }

    #[test]
    fn the_least_recently_used_session_makes_room() {
        let limits = SessionLimits::new(2, 3);
        assert!(admit(&limits, 1, "a").is_empty());
        assert!(admit(&limits, 2, "a").is_empty());
        limits.touch(&id(1));
        // a's third: a's least recently used goes, b's are not touched.
        assert_eq!(admit(&limits, 3, "a"), ["2"]);
        assert!(admit(&limits, 4, "b").is_empty());
        // Four in all: the oldest of anyone's goes.
        assert_eq!(admit(&limits, 5, "b"), ["1"]);
        assert_eq!(limits.sessions(), 3);
        limits.forget(&id(3));
        assert_eq!(limits.sessions(), 2);
    }
}
