//! Backpressure for pipelined clients: at most [`MAX_IN_FLIGHT`] requests are read ahead
//! of their answers.
//!
//! rmcp reads every message as soon as it arrives and starts a task for each request, so a
//! client that writes requests faster than it reads answers (or never reads them) makes the
//! server hold every request and every finished answer at once: 10,000 pipelined
//! `get_skill` calls peaked at about 250 MB. This wrapper stops reading while too many
//! requests wait for their answers; the kernel's pipe buffer then pushes back on the client.
//! Memory is bounded by the limit, not by the client.
//!
//! A request that waits on something else than this server (the gateway's call of a
//! downstream tool, which may never answer) is *parked* ([`ReadAhead::park`]) and stops
//! counting until its answer is ready: otherwise 64 such calls would stop the reading of
//! everything else, `ping` and `notifications/cancelled` included. What bounds the parked
//! requests is the gateway's own cap on calls in flight.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, ErrorData, JsonRpcError, JsonRpcMessage, JsonRpcVersion2_0, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::Notify;

/// How many requests may be read ahead of their answers. Enough to keep a current-thread
/// server busy; small enough that their answers stay a few megabytes at most.
pub(crate) const MAX_IN_FLIGHT: usize = 64;

/// The requests read and not yet answered.
#[derive(Debug, Default)]
struct Ids {
    /// Those that count against the limit.
    counted: HashSet<RequestId>,
    /// Those waiting on something else than this server (see [`ReadAhead::park`]).
    parked: HashSet<RequestId>,
}

#[derive(Debug, Default)]
struct Pending {
    ids: Mutex<Ids>,
    answered: Notify,
    /// Set once the client's stream has ended.
    closed: std::sync::atomic::AtomicBool,
    closing: Notify,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Ids> {
        self.ids.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets `id`: answered, or cancelled (a cancelled request may never be answered).
    fn release(&self, id: &RequestId) {
        let mut ids = self.lock();
        let counted = ids.counted.remove(id);
        ids.parked.remove(id);
        drop(ids);
        if counted {
            self.answered.notify_one();
        }
    }
}

/// The handler's side of a [`Bounded`] transport.
#[derive(Debug, Clone)]
pub(crate) struct ReadAhead(Arc<Pending>);

impl ReadAhead {
    /// Stops counting request `id` against the read-ahead while it waits on something that
    /// may take long (a downstream server), so that its wait does not stop the reading.
    pub(crate) fn park(&self, id: &RequestId) {
        let mut ids = self.0.lock();
        if ids.counted.remove(id) {
            ids.parked.insert(id.clone());
            drop(ids);
            self.0.answered.notify_one();
        }
    }

    /// Counts request `id` again, once its answer is ready: an answer the client does not
    /// read takes memory here, and that is what the read-ahead bounds. Nothing when the
    /// request was cancelled (or answered) meanwhile, so nothing is counted forever.
    pub(crate) fn unpark(&self, id: &RequestId) {
        let mut ids = self.0.lock();
        if ids.parked.remove(id) {
            ids.counted.insert(id.clone());
        }
    }

    /// Resolves once the client's stream has ended (at once when it has).
    pub(crate) async fn closed(&self) {
        use std::sync::atomic::Ordering;
        loop {
            let closing = self.0.closing.notified();
            if self.0.closed.load(Ordering::SeqCst) {
                return;
            }
            closing.await;
        }
    }
}

/// A transport that reads no further while [`MAX_IN_FLIGHT`] requests are unanswered.
pub(crate) struct Bounded<T> {
    inner: T,
    pending: Arc<Pending>,
    limit: usize,
}

impl<T> Bounded<T> {
    pub(crate) fn new(inner: T) -> Self {
        Self::with_limit(inner, MAX_IN_FLIGHT)
    }

    pub(crate) fn with_limit(inner: T, limit: usize) -> Self {
        Self {
            inner,
            pending: Arc::default(),
            limit: limit.max(1),
        }
    }

    /// A handle for the server's handler: parking, and the end of the client's stream.
    pub(crate) fn read_ahead(&self) -> ReadAhead {
        ReadAhead(Arc::clone(&self.pending))
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Bounded<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let send = self.inner.send(item);
        let pending = Arc::clone(&self.pending);
        async move {
            let result = send.await;
            // Released once written (or failed): the answer no longer takes memory here.
            if let Some(id) = answered {
                pending.release(&id);
            }
            result
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Registered before the check, so an answer sent in between still wakes us.
            let answered = self.pending.answered.notified();
            if self.pending.lock().counted.len() < self.limit {
                break;
            }
            answered.await;
        }
        let message = loop {
            let Some(message) = self.inner.receive().await else {
                self.pending
                    .closed
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                self.pending.closing.notify_waiters();
                return None;
            };
            // A request whose id is still in flight is refused here: counted once, its
            // copies escaped the limit (300,000 pings of one id held 1.7 GB, and went
            // unanswered).
            if let JsonRpcMessage::Request(request) = &message {
                let in_flight = {
                    let mut ids = self.pending.lock();
                    let in_flight =
                        ids.counted.contains(&request.id) || ids.parked.contains(&request.id);
                    if !in_flight {
                        ids.counted.insert(request.id.clone());
                    }
                    in_flight
                };
                if in_flight {
                    let refusal = JsonRpcMessage::Error(JsonRpcError {
                        jsonrpc: JsonRpcVersion2_0,
                        id: Some(request.id.clone()),
                        error: ErrorData::invalid_request(
                            "a request with this id is still in flight: give each request an id of its own",
                            None,
                        ),
                    });
                    // Written before the next read, as any answer: a client that does not
                    // read its answers stops being read.
                    if self.inner.send(refusal).await.is_err() {
                        return None;
                    }
                    continue;
                }
            }
            break message;
        };
        match &message {
            JsonRpcMessage::Request(_) => {}
            // A cancelled request may never be answered: stop waiting for it.
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.pending.release(id);
                }
            }
            _ => {}
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, ServerResult};

    /// A transport that hands out `n` requests and records what is sent.
    struct Script {
        next: i64,
        n: i64,
    }

    impl Transport<RoleServer> for Script {
        type Error = std::io::Error;

        // The trait wants a 'static future; an `async fn` would borrow `self`.
        #[allow(clippy::manual_async_fn)]
        fn send(
            &mut self,
            _item: TxJsonRpcMessage<RoleServer>,
        ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
            async { Ok(()) }
        }

        async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
            if self.next >= self.n {
                return None;
            }
            self.next += 1;
            let text = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, self.next);
            Some(serde_json::from_str(&text).unwrap())
        }

        async fn close(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    fn answer(id: i64) -> TxJsonRpcMessage<RoleServer> {
        JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: RequestId::Number(id),
            result: ServerResult::empty(()),
        })
    }

    /// Whether `receive` would return now (polled once, not waited for).
    async fn ready<T: Transport<RoleServer>>(t: &mut Bounded<T>) -> bool {
        tokio::select! {
            biased;
            message = t.receive() => message.is_some(),
            () = std::future::ready(()) => false,
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn reads_no_further_than_the_limit_until_answers_go_out() {
        let mut t = Bounded::with_limit(Script { next: 0, n: 10 }, 3);
        for _ in 0..3 {
            assert!(ready(&mut t).await);
        }
        // The fourth read waits: nothing was answered.
        assert!(!ready(&mut t).await, "read past the limit");
        // An answer to an unknown id frees nothing; one to a pending id frees one slot.
        t.send(answer(99)).await.unwrap();
        assert!(!ready(&mut t).await);
        t.send(answer(2)).await.unwrap();
        assert!(ready(&mut t).await);
        assert!(!ready(&mut t).await);
    }

    /// A transport that hands out `n` requests of one id and counts what is sent.
    struct Same {
        left: usize,
        refused: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Transport<RoleServer> for Same {
        type Error = std::io::Error;

        #[allow(clippy::manual_async_fn)]
        fn send(
            &mut self,
            item: TxJsonRpcMessage<RoleServer>,
        ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
            if matches!(item, JsonRpcMessage::Error(_)) {
                self.refused
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            async { Ok(()) }
        }

        async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
            self.left = self.left.checked_sub(1)?;
            Some(serde_json::from_str(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap())
        }

        async fn close(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    /// Copies of a request whose id is in flight are refused as they are read, never
    /// handed on: each would escape the limit.
    #[tokio::test(flavor = "current_thread")]
    async fn a_request_whose_id_is_in_flight_is_refused() {
        let refused = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let same = Same {
            left: 1_000,
            refused: Arc::clone(&refused),
        };
        let mut t = Bounded::with_limit(same, 3);
        assert!(ready(&mut t).await);
        // The other 999 are refused, and the stream ends.
        assert!(t.receive().await.is_none());
        assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 999);
        // Answered, the id may be used again.
        t.send(answer(7)).await.unwrap();
        assert!(t.pending.lock().counted.is_empty());
    }

    /// A parked request frees its slot until it is unparked; one cancelled while parked
    /// is never counted again.
    #[tokio::test(flavor = "current_thread")]
    async fn parked_requests_do_not_stop_the_reading() {
        let mut t = Bounded::with_limit(Script { next: 0, n: 10 }, 2);
        let handle = t.read_ahead();
        assert!(ready(&mut t).await);
        assert!(ready(&mut t).await);
        assert!(!ready(&mut t).await);
        handle.park(&RequestId::Number(1));
        handle.park(&RequestId::Number(2));
        assert!(ready(&mut t).await);
        assert!(ready(&mut t).await);
        assert!(!ready(&mut t).await, "read past the limit");
        // Answered (released) while parked: unparking it counts nothing.
        t.send(answer(1)).await.unwrap();
        handle.unpark(&RequestId::Number(1));
        assert!(!ready(&mut t).await);
        // Unparked: it counts again until its answer is written.
        handle.unpark(&RequestId::Number(2));
        t.send(answer(3)).await.unwrap();
        assert!(!ready(&mut t).await);
        t.send(answer(2)).await.unwrap();
        assert!(ready(&mut t).await);
    }
}
