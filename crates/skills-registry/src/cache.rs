//! Serialized answers to reads (`GET /api/skills`, `GET /api/skills/{name}`), kept until
//! the registry changes anything or for the configured TTL
//! ([`RegistryConfig::response_ttl`](crate::RegistryConfig)), whichever comes first.
//!
//! Reads outnumber writes by far, and an answer costs a query and a serialization per
//! card; a cached one costs a hash lookup. Entries are per caller (what one sees, another
//! may not) and per request target. A change made through this registry invalidates every
//! entry at once (the generation moves on); the TTL bounds how long a change made
//! elsewhere (another server on the same PostgreSQL) goes unseen.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;

use crate::store::Caller;

/// The TTL when several servers may share the database (PostgreSQL): how long a change
/// made by another server goes unseen at most.
pub const SHARED_RESPONSE_TTL: Duration = Duration::from_secs(1);

/// The TTL when this server is the database's only writer (SQLite): a safety net only,
/// since every change goes through it.
pub const LOCAL_RESPONSE_TTL: Duration = Duration::from_secs(60);

/// Entries kept at most; the cache is cleared whole when full.
const MAX_ENTRIES: usize = 16_384;
/// Bytes kept at most, counting the bodies.
const MAX_BYTES: usize = 12 * 1024 * 1024;

/// What an answer is cached under: who asked, and the request target (path and query).
type Key = (Caller, String);

#[derive(Debug, Default)]
pub(crate) struct ResponseCache {
    inner: Mutex<Inner>,
    /// One lock per key being computed: the clients that miss together wait for the first
    /// one's answer instead of each asking the database (a page expiring under 64 clients
    /// was 64 identical queries).
    flights: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    generation: u64,
    stored: Instant,
    body: Bytes,
}

impl ResponseCache {
    /// The body cached for `caller` and `target` at `generation`, if younger than `ttl`.
    pub(crate) fn get(
        &self,
        caller: &Caller,
        target: &str,
        generation: u64,
        ttl: Duration,
    ) -> Option<Bytes> {
        let inner = self.inner.lock().ok()?;
        // A lookup by borrowed parts would need a custom key type; the clone is cheap
        // beside the query it saves.
        let entry = inner.entries.get(&(caller.clone(), target.to_string()))?;
        (entry.generation == generation && entry.stored.elapsed() < ttl).then(|| entry.body.clone())
    }

    /// Waits for any computation of `caller`'s `target` in flight, then holds the key until
    /// the returned guard is dropped: look in the cache again, then compute and `put`.
    pub(crate) async fn flight(
        &self,
        caller: &Caller,
        target: &str,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let lock = {
            let mut flights = self.flights.lock().ok()?;
            if flights.len() >= MAX_ENTRIES {
                flights.clear();
            }
            Arc::clone(
                flights
                    .entry((caller.clone(), target.to_string()))
                    .or_default(),
            )
        };
        Some(lock.lock_owned().await)
    }

    /// Keeps `body` for `caller` and `target`, computed at `generation`.
    pub(crate) fn put(&self, caller: &Caller, target: &str, generation: u64, body: Bytes) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.entries.len() >= MAX_ENTRIES || inner.bytes + body.len() > MAX_BYTES {
            inner.entries.clear();
            inner.bytes = 0;
        }
        inner.bytes += body.len();
        let old = inner.entries.insert(
            (caller.clone(), target.to_string()),
            Entry {
                generation,
                stored: Instant::now(),
                body,
            },
        );
        if let Some(old) = old {
            inner.bytes = inner.bytes.saturating_sub(old.body.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_that_miss_together_compute_once() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let cache = Arc::new(ResponseCache::default());
        let computed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ttl = Duration::from_secs(60);
        runtime.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for _ in 0..32 {
                let (cache, computed) = (Arc::clone(&cache), Arc::clone(&computed));
                tasks.spawn(async move {
                    let caller = Caller::default();
                    if cache.get(&caller, "/p", 1, ttl).is_some() {
                        return;
                    }
                    let _flight = cache.flight(&caller, "/p").await;
                    if cache.get(&caller, "/p", 1, ttl).is_some() {
                        return;
                    }
                    computed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    cache.put(&caller, "/p", 1, Bytes::from_static(b"x"));
                });
            }
            while tasks.join_next().await.is_some() {}
        });
        assert_eq!(computed.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn entries_are_per_caller_and_generation_and_expire() {
        let cache = ResponseCache::default();
        let alice = Caller {
            user: Some("alice".into()),
            ..Caller::default()
        };
        let ttl = Duration::from_millis(200);
        cache.put(&alice, "/api/skills", 3, Bytes::from_static(b"[]"));
        assert_eq!(
            cache.get(&alice, "/api/skills", 3, ttl).as_deref(),
            Some(&b"[]"[..])
        );
        assert!(
            cache.get(&alice, "/api/skills", 4, ttl).is_none(),
            "a change invalidates"
        );
        assert!(
            cache
                .get(&Caller::default(), "/api/skills", 3, ttl)
                .is_none(),
            "per caller"
        );
        assert!(
            cache.get(&alice, "/api/skills?tag=x", 3, ttl).is_none(),
            "per target"
        );
        std::thread::sleep(ttl + Duration::from_millis(50));
        assert!(
            cache.get(&alice, "/api/skills", 3, ttl).is_none(),
            "expires"
        );
    }
}
