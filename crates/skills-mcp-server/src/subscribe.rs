//! `subscriptions/listen` (MCP 2026-07-28): the stateless revision's one way for a server
//! to tell a client that something changed. A client opens a listen request naming the
//! notification types it wants (`toolsListChanged`, `resourcesListChanged`, ...); rmcp
//! answers first with `notifications/subscriptions/acknowledged` (the accepted subset of
//! those types, what [`accepted`] offers and the server's capabilities advertise) and then
//! runs [`listen`], which looks for changes to the skills every [`TICK`] ([`SLOW_TICK`]
//! without kernel change notification) and sends
//! `notifications/tools/list_changed` and `notifications/resources/list_changed` through the
//! subscription's sink: each carries `_meta["io.modelcontextprotocol/subscriptionId"]` (the
//! listen request's id), and a type the client did not ask for is never sent.
//!
//! The look is the same refresh a 2025-11-25 session's requests make before they are
//! answered (`state.rs`): with kernel change notification it reads an empty queue, so an
//! idle stream costs next to nothing. A stream ends when the client closes it, or with the
//! final `SubscriptionsListenResult` when the server stops ([`Stopping`]): an open stream
//! must not hold a graceful shutdown forever.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::SubscriptionFilter;
use rmcp::service::SubscriptionContext;

use crate::Boxed;
use crate::state::Shared;

/// How often a listen stream looks for changes: a look reads the kernel's change queue.
pub(crate) const TICK: Duration = Duration::from_millis(250);

/// How often without kernel change notification (not Linux, or its limits reached), where a
/// look `stat`s every skill.
pub(crate) const SLOW_TICK: Duration = Duration::from_secs(1);

tokio::task_local! {
    /// Set around every connection [`crate::serve_router`] serves: turns `true` when the
    /// server stops. The servers made for a request read it (their factory runs on the
    /// connection's task) and end their listen streams with it.
    pub(crate) static STOPPING: tokio::sync::watch::Receiver<bool>;
}

/// Whether the server stops: what a listen stream ends with, besides its client.
pub(crate) type Stopping = Option<tokio::sync::watch::Receiver<bool>>;

/// The stop signal of the connection being served, when there is one.
pub(crate) fn stopping() -> Stopping {
    STOPPING.try_with(Clone::clone).ok()
}

/// Something to run before each look for changes: the registry brings a caller's view of
/// its database onto disk, where the server looks.
#[derive(Clone)]
pub struct BeforeLook(Arc<dyn Fn() -> Boxed<'static, ()> + Send + Sync>);

impl BeforeLook {
    /// Runs `look` before each look for changes of a `subscriptions/listen` stream.
    pub fn new(look: impl Fn() -> Boxed<'static, ()> + Send + Sync + 'static) -> Self {
        Self(Arc::new(look))
    }

    async fn run(&self) {
        (self.0)().await;
    }
}

impl std::fmt::Debug for BeforeLook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BeforeLook")
    }
}

/// The notification types a listen stream of these servers can carry.
pub(crate) fn accepted() -> SubscriptionFilter {
    SubscriptionFilter::builder()
        .tools_list_changed()
        .resources_list_changed()
        .build()
}

/// Other changes a stream follows beside the skills: the gateway's downstream servers'
/// lists, a count of changes each (tools, resources).
pub(crate) type Downstream = Option<tokio::sync::watch::Receiver<(u64, u64)>>;

/// The most `subscriptions/listen` streams open at once in a process. A stream holds its
/// connection for as long as the client likes and needs no session, so the per-client
/// session caps do not count it: 1,030 of them took every connection of `--http` (1,024)
/// and locked every other client out. A quarter of the connections at most.
pub(crate) const MAX_LISTENS: usize = 256;

static LISTENS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One open listen stream, counted against [`MAX_LISTENS`] until dropped.
struct ListenSlot;

impl ListenSlot {
    fn take() -> Option<Self> {
        use std::sync::atomic::Ordering;
        LISTENS
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_LISTENS).then_some(n + 1)
            })
            .ok()
            .map(|_| Self)
    }
}

impl Drop for ListenSlot {
    fn drop(&mut self) {
        LISTENS.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Runs one established subscription: looks at the skills every [`TICK`] (after `before`)
/// and sends what changed, until the client goes or the server stops. Past [`MAX_LISTENS`]
/// open streams, a new one is refused at once.
pub(crate) async fn listen(
    state: &Shared,
    context: SubscriptionContext,
    before: Option<&BeforeLook>,
    mut stopping: Stopping,
    mut downstream: Downstream,
) -> Result<(), ErrorData> {
    let Some(_slot) = ListenSlot::take() else {
        return Err(ErrorData::invalid_request(
            format!(
                "{MAX_LISTENS} subscriptions/listen streams are open on this server, the most it keeps; try again later"
            ),
            None,
        ));
    };
    let sink = context.sink();
    let tools = sink.accepted().tools_list_changed == Some(true);
    let resources = sink.accepted().resources_list_changed == Some(true);
    tracing::debug!(tools, resources, "subscriptions/listen stream opened");
    let stop = async move {
        match &mut stopping {
            Some(stopping) => {
                // A dropped sender stops as well.
                let _ = stopping.wait_for(|stop| *stop).await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::pin!(stop);
    let mut seen = downstream.as_mut().map(|d| *d.borrow_and_update());
    let tick = if state.lock().index.is_watching() {
        TICK
    } else {
        SLOW_TICK
    };
    loop {
        let downstream_changed = async {
            match &mut downstream {
                Some(d) => d.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        let woke = tokio::select! {
            () = context.cancelled() => return Ok(()),
            () = &mut stop => {
                tracing::debug!("the server stops: subscriptions/listen stream ended");
                return Ok(());
            }
            () = tokio::time::sleep(tick) => None,
            changed = downstream_changed => Some(changed),
        };
        let (mut tools_changed, mut resources_changed) = (false, false);
        match (woke, &mut downstream, &mut seen) {
            (None, _, _) => {}
            (Some(true), Some(d), Some(last)) => {
                let now = *d.borrow_and_update();
                tools_changed = now.0 != last.0;
                resources_changed = now.1 != last.1;
                *last = now;
            }
            // The downstream servers are gone; the skills are still followed.
            (Some(_), _, _) => downstream = None,
        }
        if let Some(before) = before {
            before.run().await;
        }
        if state.update() {
            tools_changed = true;
            resources_changed = true;
        }
        let mut sent = Ok(());
        if tools && tools_changed {
            sent = sent.and(sink.notify_tool_list_changed().await);
        }
        if resources && resources_changed {
            sent = sent.and(sink.notify_resource_list_changed().await);
        }
        if let Err(e) = sent {
            // The client went away: nothing more to tell it.
            tracing::debug!("subscriptions/listen stream ended: {e}");
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slots are counted while held and given back when dropped; past the cap none is
    /// given.
    #[test]
    fn listen_streams_are_capped() {
        let held: Vec<ListenSlot> = std::iter::from_fn(ListenSlot::take)
            .take(MAX_LISTENS + 10)
            .collect();
        assert!(held.len() <= MAX_LISTENS);
        assert!(ListenSlot::take().is_none());
        drop(held);
        assert!(ListenSlot::take().is_some());
    }
}
