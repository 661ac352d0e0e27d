//! The registry over the store a binary opens, [`AnyStore`], with what runs for a long time
//! or across an `await` compiled here, in plain (non-generic) functions.
//!
//! `Registry<S>`'s methods are generic over the store, and the body of an `async fn` is
//! compiled in every crate that polls it: `skills registry serve` calling
//! `run_change_watch`, `run_sync` or `sync_peers` directly compiled them again in
//! `skills-tool`, and under them sqlx's PostgreSQL pool and connection: a quarter of that
//! crate's LLVM IR, on the last and longest step of a build. Through these, the caller
//! compiles a call and a boxed future (docs/ARCHITECTURE.md, "Where async code is compiled").

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::Registry;
use crate::error::RegistryError;
use crate::federation::SyncReport;
use crate::store::{AnyStore, TokenRecord};

// Private, so rustdoc shows the public signatures with the type written out.
type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Registry<AnyStore> {
    /// Spawns [`Registry::run_change_watch`] on the current Tokio runtime, until `stop`
    /// completes.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime, as `tokio::spawn`.
    pub fn spawn_change_watch(
        self: &Arc<Self>,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> JoinHandle<()> {
        self.spawn_change_watch_boxed(Box::pin(stop))
    }

    fn spawn_change_watch_boxed(self: &Arc<Self>, stop: Boxed<'static, ()>) -> JoinHandle<()> {
        tokio::spawn(Arc::clone(self).run_change_watch(stop))
    }

    /// Spawns [`Registry::run_sync`] on the current Tokio runtime: a sync with every peer
    /// each `every`, until the runtime stops.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime, as `tokio::spawn`.
    pub fn spawn_sync(self: &Arc<Self>, every: Duration) -> JoinHandle<()> {
        tokio::spawn(Arc::clone(self).run_sync(every))
    }

    /// Spawns [`Registry::run_health_checker`] on the current Tokio runtime: a round of
    /// health checks each `every`, until the runtime stops.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime, as `tokio::spawn`.
    pub fn spawn_health_checker(self: &Arc<Self>, every: Duration) -> JoinHandle<()> {
        tokio::spawn(Arc::clone(self).run_health_checker(every))
    }

    /// [`Registry::sync_peers`], boxed here.
    pub fn sync_peers_boxed(&self) -> Boxed<'_, Vec<SyncReport>> {
        Box::pin(self.sync_peers())
    }

    /// [`Registry::fetch_identity_provider_keys`], boxed here.
    pub fn fetch_identity_provider_keys_boxed(
        &self,
    ) -> Boxed<'_, Result<Option<usize>, RegistryError>> {
        Box::pin(self.fetch_identity_provider_keys())
    }

    /// [`Registry::create_token`], boxed here.
    pub fn create_token_boxed<'a>(
        &'a self,
        user: &'a str,
        groups: Vec<String>,
        admin: bool,
    ) -> Boxed<'a, Result<(String, TokenRecord), RegistryError>> {
        Box::pin(self.create_token(user, groups, admin))
    }
}
