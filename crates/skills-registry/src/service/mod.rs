//! What the registry does, independent of HTTP: the [`Registry`], its configuration and its
//! reads. The rest is by concern, each an `impl` block of its own over the same `Registry`:
//!
//! - `access`: who may read at all, who may change a skill, and what access a registration
//!   may ask for;
//! - `register`: registration, update, deletion and enabling (fetch, lint, fill the card);
//! - `ratings`: a user's stars and every rating of a skill;
//! - `health`: the health of a skill, checked on demand and by the background loop;
//! - `tokens`: API tokens and authentication (and OIDC, through `oidc.rs`);
//! - `tools`: which tools a skill names that the registry's known MCP servers have;
//! - `changes`: hearing what other processes on the same database changed;
//! - `any`: the entry points a binary calls on the registry over [`AnyStore`](crate::AnyStore),
//!   compiled in this crate.

use std::sync::Arc;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::fetch::FetchPolicy;
use crate::model::SkillCard;
use crate::store::{ListQuery, Store};

mod access;
mod any;
mod changes;
mod health;
mod hosting;
mod ratings;
mod register;
pub(crate) use register::refresh_from_content;
mod tokens;
mod tools;

pub use hosting::{DISCOVERY_SCHEMA, MAX_UPLOAD, PublishOptions, Published, VersionDetail};
pub use register::Registration;
pub(crate) use register::lint as lint_skill_md;
pub use tokens::TOKEN_CACHE_TTL;
pub use tools::{KnownServer, ToolStatus};

/// How a registry behaves: its name, who may read, what it may fetch.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RegistryConfig {
    /// This registry's name: the `registry_name` of the skills registered here.
    pub name: String,
    /// Anonymous callers may read public skills.
    pub public_read: bool,
    /// What registration and health checks may fetch.
    pub fetch: FetchPolicy,
    /// How long a health answer is served from the cache, in milliseconds.
    pub health_ttl_ms: i64,
    /// How many health checks the background checker runs at once (at least 1).
    pub health_concurrency: usize,
    /// The MCP servers the registry knows, for `GET …/tools`.
    pub servers: Vec<KnownServer>,
    /// How long a cached read is served at most when nothing changed through this
    /// registry and no change watch runs ([`Registry::run_change_watch`]): short
    /// ([`SHARED_RESPONSE_TTL`](crate::SHARED_RESPONSE_TTL)) when other servers may write
    /// the same database unheard, long when this one is its only writer. While the watch
    /// hears every change, cached reads live up to
    /// [`LOCAL_RESPONSE_TTL`](crate::LOCAL_RESPONSE_TTL) (or this, when longer).
    pub response_ttl: std::time::Duration,
    /// OIDC tokens accepted beside the registry's own API tokens.
    pub oidc: Option<crate::oidc::OidcConfig>,
    /// The federation peers whose exported skills are imported.
    pub peers: Vec<crate::federation::Peer>,
    /// How `/mcp` answers: the hosts and browser origins it accepts beside loopback ones,
    /// the session timeout and caps, the largest request. Its `connections` are not used:
    /// the server's are [`RegistryConfig::connections`].
    pub mcp: skills_mcp_server::HttpOptions,
    /// The registry's own directory: `/mcp` writes each caller's view of the skills (their
    /// private and group `SKILL.md` too) under `mcp-views/` there, 0700, emptied when the
    /// router is made; one server per directory (a lock says so). `None`: a private
    /// directory in the system's temporary directory, made on first use.
    pub state_dir: Option<std::path::PathBuf>,
    /// How the server bounds connections ([`http::serve`](crate::http::serve)): the
    /// header-read (and keep-alive idle) timeout, the most connections at once.
    pub connections: skills_mcp_server::ConnectionLimits,
    /// Registrations (and updates, and federation imports) whose audit finds anything at or
    /// above this severity are refused; `None` takes every skill and records its audit.
    pub audit_refuse_at: Option<skills_audit::Severity>,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        Self {
            name: "local".to_string(),
            public_read: false,
            fetch: FetchPolicy::default(),
            health_ttl_ms: 5 * 60 * 1000,
            health_concurrency: 8,
            servers: Vec::new(),
            response_ttl: crate::cache::SHARED_RESPONSE_TTL,
            oidc: None,
            peers: Vec::new(),
            mcp: skills_mcp_server::HttpOptions::default(),
            connections: skills_mcp_server::ConnectionLimits::default(),
            state_dir: None,
            audit_refuse_at: None,
        }
    }
}

/// The registry: a store and the rules around it.
#[derive(Debug)]
pub struct Registry<S> {
    store: S,
    config: RegistryConfig,
    tokens: tokens::TokenCache,
    oidc: Option<crate::oidc::Verifier>,
    /// Bumped after every change this registry makes: what the response cache keys on.
    generation: std::sync::atomic::AtomicU64,
    responses: crate::cache::ResponseCache,
    /// Set while [`Registry::run_change_watch`] hears every change made to the database.
    watching: std::sync::atomic::AtomicBool,
}

impl<S: Store> Registry<S> {
    /// A registry over `store`.
    pub fn new(store: S, config: RegistryConfig) -> Arc<Self> {
        let oidc = config
            .oidc
            .clone()
            .map(|oidc| crate::oidc::Verifier::new(oidc, &config.fetch));
        Arc::new(Self {
            store,
            config,
            tokens: tokens::TokenCache::default(),
            oidc,
            generation: std::sync::atomic::AtomicU64::new(0),
            responses: crate::cache::ResponseCache::default(),
            watching: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The configuration.
    pub fn config(&self) -> &RegistryConfig {
        &self.config
    }

    /// How many changes this registry has made: cached reads older than the current value
    /// are not served.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Marks that the data changed (after the change is committed).
    pub(crate) fn changed(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// How long a cached read may be served: [`RegistryConfig::response_ttl`], or the
    /// safety net of [`LOCAL_RESPONSE_TTL`](crate::LOCAL_RESPONSE_TTL) while the change
    /// watch hears every change (each moves the generation).
    pub(crate) fn response_ttl(&self) -> std::time::Duration {
        if self.watching.load(std::sync::atomic::Ordering::Acquire) {
            self.config
                .response_ttl
                .max(crate::cache::LOCAL_RESPONSE_TTL)
        } else {
            self.config.response_ttl
        }
    }

    /// The response cache of reads (`http.rs`).
    pub(crate) fn responses(&self) -> &crate::cache::ResponseCache {
        &self.responses
    }

    /// The skill `name` as `caller` may see it.
    ///
    /// # Errors
    ///
    /// [`RegistryError::NotFound`] when there is none or the caller may not see it.
    pub async fn get(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        self.readable(caller)?;
        // The rule is applied by the query: a hidden skill is read no more than a missing
        // one, so how long the 404 takes does not say which it is.
        self.store
            .get_visible(name, caller)
            .await?
            .ok_or_else(|| RegistryError::NotFound(name.to_string()))
    }

    /// The cached `SKILL.md` of `name` and its version.
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn content(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<(String, String), RegistryError> {
        self.get(caller, name).await?;
        self.store
            .content(name)
            .await?
            .ok_or_else(|| RegistryError::NotFound(name.to_string()))
    }

    /// The skills `caller` may see that match `query`, and the cursor of the next page.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Unauthorized`] for an anonymous caller of a registry without
    /// public reads.
    pub async fn list(
        &self,
        caller: &Caller,
        query: &ListQuery,
    ) -> Result<(Vec<SkillCard>, Option<String>), RegistryError> {
        self.readable(caller)?;
        let cards = self.store.list(&one_more(query), caller).await?;
        Ok(page(cards, query, |card| card))
    }

    /// How many skills `caller` may see match `query` (on every page).
    ///
    /// # Errors
    ///
    /// As [`Registry::list`].
    pub async fn count(&self, caller: &Caller, query: &ListQuery) -> Result<u64, RegistryError> {
        self.readable(caller)?;
        Ok(self.store.count(query, caller).await?)
    }

    /// As [`Registry::get`], with the cached `SKILL.md`: the card and the content of a
    /// full view, read together.
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub(crate) async fn get_full(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<(SkillCard, String), RegistryError> {
        self.readable(caller)?;
        match self.store.get_visible_full(name, caller).await? {
            Some((card, Some(content))) => Ok((card, content)),
            _ => Err(RegistryError::NotFound(name.to_string())),
        }
    }

    /// As [`Registry::list`], each card with its cached `SKILL.md`, read by the query that
    /// reads the page.
    ///
    /// # Errors
    ///
    /// As [`Registry::list`].
    pub(crate) async fn list_full(
        &self,
        caller: &Caller,
        query: &ListQuery,
    ) -> Result<(Vec<(SkillCard, Option<String>)>, Option<String>), RegistryError> {
        self.readable(caller)?;
        let cards = self.store.list_full(&one_more(query), caller).await?;
        Ok(page(cards, query, |(card, _)| card))
    }
}

/// `query` asking for one card more than its page: whether that one comes says whether
/// there is a next page.
fn one_more(query: &ListQuery) -> ListQuery {
    let mut ask = query.clone();
    ask.limit = query.limit.saturating_add(1);
    ask
}

/// The page of `query.limit` among `items` (read with [`one_more`]), and the cursor of the
/// next page when there is one (encoded): after the name of the page's last card in a list
/// by name, else the position after the page.
fn page<T>(
    mut items: Vec<T>,
    query: &ListQuery,
    card: impl Fn(&T) -> &SkillCard,
) -> (Vec<T>, Option<String>) {
    let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
    let next = if items.len() > limit {
        items.truncate(limit);
        if query.sort.effective(query.q.as_deref()) == crate::store::Sort::Name {
            items
                .last()
                .map(|item| crate::cursor::encode(&card(item).name))
        } else {
            Some(crate::cursor::encode_offset(
                query.offset.saturating_add(query.limit),
            ))
        }
    } else {
        None
    };
    (items, next)
}
