//! Serialized answers to reads (`GET /api/skills`, `GET /api/skills/{name}`), kept until
//! the registry changes anything or for the configured TTL
//! ([`RegistryConfig::response_ttl`](crate::RegistryConfig)), whichever comes first.
//!
//! Reads outnumber writes by far, and an answer costs a query and a serialization per
//! card; a cached one costs a hash lookup. Entries are per caller (what one sees, another
//! may not) and per request target. A change made through this registry, or made elsewhere
//! and heard by the change watch (another server on the same PostgreSQL, another process
//! writing the SQLite file), invalidates every entry at once (the generation moves on); the
//! TTL bounds how long a change goes unseen when the watch cannot hear it.
//!
//! The store is `quick_cache`'s: bounded in bytes, evicting the entries least likely to be
//! asked for again one by one (S3-FIFO), and holding a placeholder for a key being computed
//! so that clients that miss it together wait for the first one's answer rather than each
//! asking the database (a page expiring under 64 clients was 64 identical queries).

use std::time::{Duration, Instant};

use axum::body::Bytes;
use quick_cache::sync::{Cache, EntryAction, EntryResult, PlaceholderGuard};

use crate::caller::Caller;

/// The TTL when several servers may share the database (PostgreSQL) and the change watch
/// is not listening: how long a change made by another server goes unseen at most.
pub const SHARED_RESPONSE_TTL: Duration = Duration::from_secs(1);

/// The TTL when every change is heard (made through this server, or heard by the change
/// watch): a safety net only.
pub const LOCAL_RESPONSE_TTL: Duration = Duration::from_secs(60);

/// Bytes kept at most, counting each entry's body, target and bookkeeping.
const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// What an entry costs beside its body and target (the key's caller, the map's slot).
const ENTRY_OVERHEAD: u64 = 128;

/// What an answer is cached under: who asked, and the request target (path and query).
type Key = (Caller, String);

#[derive(Debug, Clone)]
struct Entry {
    generation: u64,
    stored: Instant,
    body: Bytes,
}

#[derive(Debug, Clone, Copy, Default)]
struct Weight;

impl quick_cache::Weighter<Key, Entry> for Weight {
    fn weight(&self, key: &Key, entry: &Entry) -> u64 {
        (entry.body.len() + key.1.len()) as u64 + ENTRY_OVERHEAD
    }
}

type Store = Cache<Key, Entry, Weight>;

#[derive(Debug)]
pub(crate) struct ResponseCache {
    entries: Store,
}

impl Default for ResponseCache {
    fn default() -> Self {
        // The estimate sizes the tables: a card's answer is about a kilobyte.
        let items = usize::try_from(MAX_BYTES / 1024).unwrap_or(8192);
        Self {
            entries: Cache::with_weighter(items, MAX_BYTES, Weight),
        }
    }
}

/// A miss: the right to compute the answer, which others asking for it wait on.
pub(crate) struct Slot<'a> {
    guard: PlaceholderGuard<
        'a,
        Key,
        Entry,
        Weight,
        quick_cache::DefaultHashBuilder,
        quick_cache::sync::DefaultLifecycle<Key, Entry>,
    >,
    generation: u64,
}

impl Slot<'_> {
    /// Keeps `body` as the answer, and wakes those waiting for it.
    pub(crate) fn fill(self, body: Bytes) {
        let _ = self.guard.insert(Entry {
            generation: self.generation,
            stored: Instant::now(),
            body,
        });
    }
}

impl ResponseCache {
    /// The body cached for `caller` and `target` at `generation` and younger than `ttl`;
    /// otherwise a [`Slot`] to fill, after waiting for whoever is computing it already.
    pub(crate) async fn lookup(
        &self,
        caller: &Caller,
        target: &str,
        generation: u64,
        ttl: Duration,
    ) -> Result<Bytes, Slot<'_>> {
        let fresh = |entry: &Entry| entry.generation == generation && entry.stored.elapsed() < ttl;
        // A lookup by borrowed parts would need a key type of our own; the clone is cheap
        // beside the query it saves.
        let key = (caller.clone(), target.to_string());
        if let Some(entry) = self.entries.get(&key)
            && fresh(&entry)
        {
            return Ok(entry.body);
        }
        let found = self.entries.entry_async(&key, |_, entry| {
            if fresh(entry) {
                EntryAction::Retain(entry.body.clone())
            } else {
                EntryAction::ReplaceWithGuard
            }
        });
        match found.await {
            EntryResult::Retained(body) => Ok(body),
            EntryResult::Replaced(guard, _) | EntryResult::Vacant(guard) => {
                Err(Slot { guard, generation })
            }
            // Not asked to remove, and the async form has no timeout: computed anew.
            EntryResult::Removed(..) | EntryResult::Timeout => {
                self.entries.remove(&key);
                match self.entries.get_value_or_guard_async(&key).await {
                    Ok(entry) => Ok(entry.body),
                    Err(guard) => Err(Slot { guard, generation }),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

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
                    if let Err(slot) = cache.lookup(&caller, "/p", 1, ttl).await {
                        computed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        slot.fill(Bytes::from_static(b"x"));
                    }
                });
            }
            while tasks.join_next().await.is_some() {}
        });
        assert_eq!(computed.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn entries_are_per_caller_and_generation_and_expire() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let cache = ResponseCache::default();
            let alice = Caller {
                user: Some("alice".into()),
                ..Caller::default()
            };
            let ttl = Duration::from_millis(200);
            let hit = |caller: Caller, target: &'static str, generation| {
                let cache = &cache;
                async move { cache.lookup(&caller, target, generation, ttl).await.ok() }
            };
            if let Err(slot) = cache.lookup(&alice, "/api/skills", 3, ttl).await {
                slot.fill(Bytes::from_static(b"[]"));
            }
            assert_eq!(
                hit(alice.clone(), "/api/skills", 3).await.as_deref(),
                Some(&b"[]"[..])
            );
            assert!(
                hit(alice.clone(), "/api/skills", 4).await.is_none(),
                "a change invalidates"
            );
            assert!(
                hit(Caller::default(), "/api/skills", 4).await.is_none(),
                "per caller"
            );
            assert!(
                hit(alice.clone(), "/api/skills?tag=x", 4).await.is_none(),
                "per target"
            );
            if let Err(slot) = cache.lookup(&alice, "/api/skills", 4, ttl).await {
                slot.fill(Bytes::from_static(b"[1]"));
            }
            assert_eq!(
                hit(alice.clone(), "/api/skills", 4).await.as_deref(),
                Some(&b"[1]"[..])
            );
            tokio::time::sleep(ttl + Duration::from_millis(50)).await;
            assert!(
                hit(alice.clone(), "/api/skills", 4).await.is_none(),
                "expires"
            );
        });
    }

    #[test]
    fn the_cache_is_bounded_in_bytes() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let cache = ResponseCache::default();
        let body = Bytes::from(vec![b'x'; 64 * 1024]);
        runtime.block_on(async {
            for i in 0..1000 {
                let target = format!("/api/skills?page={i}");
                if let Err(slot) = cache
                    .lookup(&Caller::default(), &target, 1, LOCAL_RESPONSE_TTL)
                    .await
                {
                    slot.fill(body.clone());
                }
            }
        });
        assert!(
            cache.entries.weight() <= MAX_BYTES,
            "{}",
            cache.entries.weight()
        );
        assert!(
            cache.entries.len() > 10,
            "evicted one by one, not all at once"
        );
    }
}
