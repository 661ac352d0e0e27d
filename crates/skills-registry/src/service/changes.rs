//! Changes made elsewhere: another server on the same PostgreSQL, or another process on
//! the same SQLite file (`skills registry sync` from cron, `skills registry token revoke`).
//! [`Registry::run_change_watch`] hears them through [`Store::watch`] and drops what the
//! caches hold: a change to the skills moves the generation (cached answers and `/mcp`'s
//! views key on it), a change to the tokens empties the token cache.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::store::{Changed, Store, StoreError};

use super::Registry;

/// The longest wait between two attempts to watch again after the watch failed.
const MAX_RETRY: Duration = Duration::from_secs(30);

impl<S: Store> Registry<S> {
    /// Watches the database for changes, forever: what `skills registry serve` runs beside
    /// the API. While the watch runs, every change any process makes is heard within
    /// milliseconds, and cached reads live up to the long safety TTL; while it cannot (the
    /// database is away), [`RegistryConfig::response_ttl`](super::RegistryConfig) bounds
    /// them again, and the caches are dropped whole when it resumes.
    pub async fn run_change_watch(self: std::sync::Arc<Self>) {
        let mut retry = Duration::from_secs(1);
        loop {
            match self.store.watch().await {
                Ok(mut changes) => {
                    // What changed before the watch started, or while it was down, was
                    // not heard.
                    self.dropped(Changed::everything());
                    self.watching.store(true, Ordering::Release);
                    retry = Duration::from_secs(1);
                    let error = loop {
                        match changes.next().await {
                            Ok(changed) => self.dropped(changed),
                            Err(e) => break e,
                        }
                    };
                    self.watching.store(false, Ordering::Release);
                    self.dropped(Changed::everything());
                    if matches!(error, StoreError::Database(sqlx::Error::PoolClosed)) {
                        return; // the server is stopping
                    }
                    tracing::warn!(error = %error, "the change watch stopped; watching again");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot watch the database for changes");
                }
            }
            tokio::time::sleep(retry).await;
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
