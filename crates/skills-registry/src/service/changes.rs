//! Changes made elsewhere: another server on the same PostgreSQL, or another process on
//! the same SQLite file (`skills registry sync` from cron, `skills registry token revoke`).
//! [`Registry::run_change_watch`] hears them through [`Store::watch`] and drops what the
//! caches hold: a change to the skills moves the generation (cached answers and `/mcp`'s
//! views key on it), a change to the tokens empties the token cache.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::store::{Changed, Store, StoreError};

use super::Registry;

/// The longest wait between two attempts to watch again after the watch failed.
const MAX_RETRY: Duration = Duration::from_secs(30);

impl<S: Store> Registry<S> {
    /// Watches the database for changes until `stop` resolves: what `skills registry
    /// serve` runs beside the API (and stops, then awaits, before closing the store: the
    /// watch's own connection is closed by then, so SQLite's last connection to close is
    /// the pool's, which checkpoints the WAL into the file). While the watch runs, every
    /// change any process makes is heard within milliseconds, and cached reads live up to
    /// the long safety TTL; while it cannot (the database is away),
    /// [`RegistryConfig::response_ttl`](super::RegistryConfig) bounds them again, and the
    /// caches are dropped whole when it resumes.
    pub async fn run_change_watch(self: std::sync::Arc<Self>, stop: impl Future<Output = ()>) {
        let mut stop = std::pin::pin!(stop);
        let mut retry = Duration::from_secs(1);
        let mut failed = false;
        loop {
            let watched = tokio::select! {
                () = &mut stop => return,
                watched = self.store.watch() => watched,
            };
            match watched {
                Ok(mut changes) => {
                    if failed {
                        tracing::info!("watching the database for changes again");
                    }
                    // What changed before the watch started, or while it was down, was
                    // not heard.
                    self.dropped(Changed::everything());
                    self.watching.store(true, Ordering::Release);
                    retry = Duration::from_secs(1);
                    let error = loop {
                        let next = tokio::select! {
                            () = &mut stop => {
                                self.watching.store(false, Ordering::Release);
                                changes.close().await;
                                return;
                            }
                            next = changes.next() => next,
                        };
                        match next {
                            Ok(changed) => self.dropped(changed),
                            Err(e) => break e,
                        }
                    };
                    self.watching.store(false, Ordering::Release);
                    self.dropped(Changed::everything());
                    if matches!(error, StoreError::Database(sqlx::Error::PoolClosed)) {
                        return; // the store was closed under the watch
                    }
                    tracing::warn!(error = %error, "the change watch stopped; watching again");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot watch the database for changes");
                }
            }
            failed = true;
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep(retry) => {}
            }
            retry = (retry * 2).min(MAX_RETRY);
        }
    }

    /// Drops what the caches hold of what `changed` touched.
    fn dropped(&self, changed: Changed) {
        if changed.skills {
            self.changed();
        }
        if changed.tokens {
            self.forget_tokens();
        }
    }
}
