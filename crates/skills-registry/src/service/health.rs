//! Health: whether a skill's `SKILL.md` still answers, checked on demand (`GET …/health`)
//! and by the background checker.

use std::sync::Arc;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::fetch;
use crate::model::{HealthStatus, SkillCard};
use crate::store::{Job, Store};
use crate::time;

use super::Registry;

/// Skills checked per round of the background health checker.
const HEALTH_BATCH: u32 = 256;

impl<S: Store> Registry<S> {
    /// The health of `name`: the cached answer while it is fresher than the TTL, else a
    /// new `HEAD` of its raw URL.
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn health(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        let card = self.get(caller, name).await?;
        // A hosted skill's files are here: there is no URL to check.
        if card.hosted {
            return Ok(card);
        }
        let fresh = card.last_checked_ms().is_some_and(|checked| {
            time::now_ms().saturating_sub(checked) < self.config.health_ttl_ms
        });
        if fresh {
            return Ok(card);
        }
        self.check_health(&card).await?;
        self.get(caller, name).await
    }

    /// `HEAD`s the raw URL of `card` and stores the answer.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] when the answer cannot be stored.
    pub async fn check_health(&self, card: &SkillCard) -> Result<HealthStatus, RegistryError> {
        self.check_url_health(&card.name, &card.skill_md_raw_url)
            .await
    }

    async fn check_url_health(&self, name: &str, url: &str) -> Result<HealthStatus, RegistryError> {
        let url = url.to_string();
        let policy = self.config.fetch.clone();
        let answer = tokio::task::spawn_blocking(move || fetch::head(&url, &policy)).await;
        let status = match answer {
            Ok(Ok(code)) if (200..300).contains(&code) => HealthStatus::Healthy,
            _ => HealthStatus::Unhealthy,
        };
        let before = self.store.get(name).await?.map(|card| card.health_status);
        self.store.set_health(name, status, time::now_ms()).await?;
        // Cached answers show the status: a check that leaves it as it was moves only
        // `last_checked_time`, which they may show late by the response TTL (`…/health`
        // reads the store). Invalidating every answer for every check emptied the cache
        // all through a health round.
        if before != Some(status) {
            self.changed();
        }
        Ok(status)
    }

    /// One round of the background health checker: every skill whose last check is older
    /// than the TTL (or that was never checked), up to `batch` of them, `concurrency` at a
    /// time. Returns how many were checked.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] when the store fails; a source that does not answer is an
    /// unhealthy skill, not an error.
    pub async fn check_due_health(
        self: &Arc<Self>,
        batch: u32,
        concurrency: usize,
    ) -> Result<usize, RegistryError> {
        let before = time::now_ms().saturating_sub(self.config.health_ttl_ms);
        let due = self.store.due_for_health(before, batch).await?;
        let count = due.len();
        let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        for (name, url) in due {
            let registry = Arc::clone(self);
            let permits = Arc::clone(&permits);
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                registry.check_url_health(&name, &url).await
            });
        }
        while let Some(done) = tasks.join_next().await {
            if let Ok(Err(e)) = done {
                return Err(e);
            }
        }
        Ok(count)
    }

    /// Checks due skills forever, a round every `every`: what `skills registry serve` runs
    /// beside the API. The servers sharing a database take turns ([`Store::begin_job`]):
    /// one round at a time, one per interval. Errors are logged and the next round tried.
    pub async fn run_health_checker(self: Arc<Self>, every: std::time::Duration) {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // One round per interval among the servers on this database, not one each.
            let lock = match self.store.begin_job(Job::Health, Some(every)).await {
                Ok(Some(lock)) => lock,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "health round failed");
                    continue;
                }
            };
            match self
                .check_due_health(HEALTH_BATCH, self.config.health_concurrency)
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::info!(checked = n, "health round"),
                Err(e) => tracing::warn!(error = %e, "health round failed"),
            }
            lock.release().await;
        }
    }
}

impl SkillCard {
    /// `last_checked_time` in Unix milliseconds.
    fn last_checked_ms(&self) -> Option<i64> {
        let text = self.last_checked_time.as_deref()?;
        let parsed =
            ::time::OffsetDateTime::parse(text, &::time::format_description::well_known::Rfc3339)
                .ok()?;
        i64::try_from(parsed.unix_timestamp_nanos() / 1_000_000).ok()
    }
}
