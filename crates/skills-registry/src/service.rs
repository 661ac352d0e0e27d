//! What the registry does, independent of HTTP: registration (fetch, parse, lint, card),
//! the visibility and ownership rules, ratings, health, tokens.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::fetch::{self, FetchPolicy};
use crate::model::{
    CompatibilityRequirement, HealthStatus, RequirementType, SkillCard, ToolReference, Visibility,
};
use crate::store::{ListQuery, Store, TokenRecord};
use crate::time;

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
    /// registry: short ([`SHARED_RESPONSE_TTL`](crate::SHARED_RESPONSE_TTL)) when other
    /// servers may write the same database, long when this one is its only writer.
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
}

/// An MCP server the registry knows (`[[servers]]` in its config), and its tools.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KnownServer {
    /// Its path (`/servers/github`).
    pub path: String,
    /// The tools it exposes.
    pub tools: Vec<String>,
}

impl KnownServer {
    /// A server at `path` with `tools`.
    #[must_use]
    pub fn new(path: impl Into<String>, tools: Vec<String>) -> Self {
        Self {
            path: path.into(),
            tools,
        }
    }

    /// The last segment of its path: what `mcp__<server>__<tool>` names.
    fn short_name(&self) -> &str {
        self.path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
    }
}

/// Whether a tool a skill needs is there (`GET …/tools`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ToolStatus {
    /// The tool.
    pub tool_name: String,
    /// The server that has it, or that the skill names.
    pub server_path: Option<String>,
    /// `available`; `tool-missing` (the server is known, the tool is not among its tools);
    /// `server-unknown` (the skill names a server the registry does not know); or
    /// `not-found` (no known server has a tool of that name: an agent's built-in tool such
    /// as `Read`, or a server nobody registered).
    pub status: &'static str,
    /// `status == "available"`.
    pub available: bool,
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
        }
    }
}

/// A registration request (`POST /api/skills`), and the body of `PUT` (every field
/// optional there: what is left out keeps its value).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Registration {
    /// The skill's `SKILL.md`: a page URL of a known host, or a raw URL.
    pub skill_md_url: Option<String>,
    /// Who may see it; `public` when not given at registration.
    pub visibility: Option<Visibility>,
    /// The groups that may see a `group` skill (required for `group`).
    pub allowed_groups: Option<Vec<String>>,
    /// Tags beside those of `metadata.tags`.
    pub tags: Option<Vec<String>>,
}

impl Registration {
    /// A request to register `url` with the defaults.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            skill_md_url: Some(url.into()),
            ..Self::default()
        }
    }
}

/// Skills checked per round of the background health checker.
const HEALTH_BATCH: u32 = 256;

/// The machine-readable requirements a skill declares: one per tool of each fallback chain
/// (`metadata.tools.<domain>`, see `skills_frontmatter::conventions`). A chain of one tool
/// requires it; in a longer chain any one serves, so each is optional on its own.
fn requirements_of(md: &skills_frontmatter::SkillMd) -> Vec<CompatibilityRequirement> {
    md.tool_chains()
        .iter()
        .flat_map(|chain| {
            let required = chain.tools.len() == 1;
            chain
                .tools
                .iter()
                .map(move |tool| CompatibilityRequirement {
                    kind: RequirementType::Tool,
                    target: tool.to_string(),
                    min_version: None,
                    max_version: None,
                    required,
                })
        })
        .collect()
}

/// Lint rules a registration does not apply: they need the skill's other files, and the
/// registry fetches its `SKILL.md` alone.
const NEEDS_FILES: [&str; 2] = ["link-missing", "reference-too-deep"];

/// How long a token, once found, is taken on trust without asking the store again: a
/// token revoked by another process (`skills registry token revoke`) is refused within this.
pub const TOKEN_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a verified OIDC token is taken on trust at most (never past its `exp`).
const JWT_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(60);

/// Tokens found recently, by hash, and until when they are trusted. Bounded: cleared whole
/// when full.
type TokenCache = std::sync::Mutex<HashMap<String, (Caller, std::time::Instant)>>;
const TOKEN_CACHE_MAX: usize = 10_000;

/// The registry: a store and the rules around it.
#[derive(Debug)]
pub struct Registry<S> {
    store: S,
    config: RegistryConfig,
    tokens: TokenCache,
    oidc: Option<crate::oidc::Verifier>,
    /// Bumped after every change this registry makes: what the response cache keys on.
    generation: std::sync::atomic::AtomicU64,
    responses: crate::cache::ResponseCache,
}

/// A fetched and linted `SKILL.md`, ready to become a card.
struct Checked {
    card: SkillCard,
    content: String,
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
            tokens: TokenCache::default(),
            oidc,
            generation: std::sync::atomic::AtomicU64::new(0),
            responses: crate::cache::ResponseCache::default(),
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

    /// The response cache of reads (`http.rs`).
    pub(crate) fn responses(&self) -> &crate::cache::ResponseCache {
        &self.responses
    }

    fn readable(&self, caller: &Caller) -> Result<(), RegistryError> {
        if caller.user.is_none() && !caller.admin && !self.config.public_read {
            return Err(RegistryError::Unauthorized);
        }
        Ok(())
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

    /// The skill `name` with every rating (`GET …/rating`).
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn rating(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        let mut card = self.get(caller, name).await?;
        card.rating_details = self.store.ratings(name).await?;
        Ok(card)
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
        let mut ask = query.clone();
        ask.limit = query.limit.saturating_add(1);
        let mut cards = self.store.list(&ask, caller).await?;
        let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
        let next = if cards.len() > limit {
            cards.truncate(limit);
            cards.last().map(|c| c.name.clone())
        } else {
            None
        };
        Ok((cards, next))
    }

    /// Registers the skill at `request.skill_md_url` for `caller`, its owner.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Unauthorized`] without a user, [`RegistryError::Invalid`] for a bad
    /// request, [`RegistryError::Fetch`] when the file cannot be fetched,
    /// [`RegistryError::Lint`] when it has errors, [`RegistryError::Conflict`] when the name
    /// is taken.
    pub async fn register(
        &self,
        caller: &Caller,
        request: Registration,
    ) -> Result<SkillCard, RegistryError> {
        let Some(owner) = caller.user.clone() else {
            return Err(RegistryError::Unauthorized);
        };
        let url = request
            .skill_md_url
            .clone()
            .ok_or_else(|| RegistryError::Invalid("`skill_md_url` is required".into()))?;
        let visibility = request.visibility.unwrap_or(Visibility::Public);
        let groups = request.allowed_groups.clone().unwrap_or_default();
        check_access(visibility, &groups)?;
        let checked = self
            .check(
                &url,
                visibility,
                groups,
                request.tags.unwrap_or_default(),
                owner,
            )
            .await?;
        match self.store.insert(&checked.card, &checked.content).await {
            Err(crate::store::StoreError::Conflict(name)) => Err(RegistryError::Conflict(name)),
            other => other.map_err(RegistryError::from),
        }?;
        self.changed();
        self.get(caller, &checked.card.name).await
    }

    /// Refetches and revalidates `name` (from a new URL when `request` names one), and
    /// applies `request`'s access and tags. Only its owner or an admin may.
    ///
    /// # Errors
    ///
    /// As [`Registry::register`], [`RegistryError::NotFound`], [`RegistryError::Forbidden`]
    /// for a caller who sees the skill but does not own it, and [`RegistryError::Invalid`]
    /// when the file now names another skill.
    pub async fn update(
        &self,
        caller: &Caller,
        name: &str,
        request: Registration,
    ) -> Result<SkillCard, RegistryError> {
        let current = self.owned(caller, name).await?;
        let url = request.skill_md_url.unwrap_or(current.skill_md_url.clone());
        let visibility = request.visibility.unwrap_or(current.visibility);
        let groups = request
            .allowed_groups
            .unwrap_or(current.allowed_groups.clone());
        check_access(visibility, &groups)?;
        let extra_tags = request.tags.unwrap_or_default();
        let checked = self
            .check(&url, visibility, groups, extra_tags, current.owner.clone())
            .await?;
        if checked.card.name != name {
            return Err(RegistryError::Invalid(format!(
                "the SKILL.md at {url} is now named `{}`; a skill's name never changes: register it as a new skill",
                checked.card.name
            )));
        }
        if !self.store.update(&checked.card, &checked.content).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.get(caller, name).await
    }

    /// Deletes `name`. Only its owner or an admin may.
    ///
    /// # Errors
    ///
    /// [`RegistryError::NotFound`], [`RegistryError::Forbidden`].
    pub async fn delete(&self, caller: &Caller, name: &str) -> Result<(), RegistryError> {
        self.owned(caller, name).await?;
        if self.store.delete(name).await? {
            self.changed();
            Ok(())
        } else {
            Err(RegistryError::NotFound(name.to_string()))
        }
    }

    /// Enables or disables `name`. Admins only.
    ///
    /// # Errors
    ///
    /// [`RegistryError::NotFound`], [`RegistryError::Forbidden`].
    pub async fn set_enabled(
        &self,
        caller: &Caller,
        name: &str,
        enabled: bool,
    ) -> Result<SkillCard, RegistryError> {
        if caller.user.is_none() && !caller.admin {
            return Err(RegistryError::Unauthorized);
        }
        self.get(caller, name).await?;
        if !caller.admin {
            return Err(RegistryError::Forbidden(
                "only an admin enables or disables skills".into(),
            ));
        }
        if !self.store.set_enabled(name, enabled).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.get(caller, name).await
    }

    /// Sets `caller`'s rating of `name`.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Invalid`] outside 1–5, [`RegistryError::Unauthorized`] without a
    /// user, [`RegistryError::NotFound`].
    pub async fn rate(
        &self,
        caller: &Caller,
        name: &str,
        stars: i64,
    ) -> Result<SkillCard, RegistryError> {
        let Some(user) = caller.user.clone() else {
            return Err(RegistryError::Unauthorized);
        };
        let stars = u8::try_from(stars)
            .ok()
            .filter(|s| (1..=5).contains(s))
            .ok_or_else(|| RegistryError::Invalid("`rating` must be 1 to 5".into()))?;
        self.get(caller, name).await?;
        if !self.store.rate(name, &user, stars).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.rating(caller, name).await
    }

    /// The health of `name`: the cached answer while it is fresher than the TTL, else a
    /// new `HEAD` of its raw URL.
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn health(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        let card = self.get(caller, name).await?;
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
    /// beside the API. Errors are logged and the next round tried.
    pub async fn run_health_checker(self: Arc<Self>, every: std::time::Duration) {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match self
                .check_due_health(HEALTH_BATCH, self.config.health_concurrency)
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::info!(checked = n, "health round"),
                Err(e) => tracing::warn!(error = %e, "health round failed"),
            }
        }
    }

    /// For each tool `card` references, whether a known MCP server exposes it (seed 001's
    /// tool validation).
    #[must_use]
    pub fn tool_availability(&self, card: &SkillCard) -> Vec<ToolStatus> {
        let servers = &self.config.servers;
        card.allowed_tools
            .iter()
            .map(|tool| {
                let status = |server: Option<&KnownServer>, status: &'static str| ToolStatus {
                    tool_name: tool.tool_name.clone(),
                    server_path: server
                        .map(|s| s.path.clone())
                        .or_else(|| tool.server_path.clone()),
                    status,
                    available: status == "available",
                };
                if let Some(path) = &tool.server_path {
                    return match servers.iter().find(|s| &s.path == path) {
                        Some(s) if s.tools.contains(&tool.tool_name) => {
                            status(Some(s), "available")
                        }
                        Some(s) => status(Some(s), "tool-missing"),
                        None => status(None, "server-unknown"),
                    };
                }
                // `mcp__<server>__<tool>`, as agents name MCP tools.
                if let Some((server, name)) = tool
                    .tool_name
                    .strip_prefix("mcp__")
                    .and_then(|rest| rest.split_once("__"))
                {
                    return match servers.iter().find(|s| s.short_name() == server) {
                        Some(s) if s.tools.iter().any(|t| t == name) => {
                            status(Some(s), "available")
                        }
                        Some(s) => status(Some(s), "tool-missing"),
                        None => status(None, "server-unknown"),
                    };
                }
                match servers.iter().find(|s| s.tools.contains(&tool.tool_name)) {
                    Some(s) => status(Some(s), "available"),
                    None => status(None, "not-found"),
                }
            })
            .collect()
    }

    /// The skill, if `caller` may change it.
    async fn owned(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        // Anonymous readers (with public reads on) may see, never change: that asks them
        // to authenticate rather than telling them they are not the owner.
        if caller.user.is_none() && !caller.admin {
            return Err(RegistryError::Unauthorized);
        }
        let card = self.get(caller, name).await?;
        if let Some(peer) = self.store.imported_from(name).await? {
            return Err(RegistryError::Forbidden(format!(
                "`{name}` is imported from the peer `{peer}`: it changes there, and here at the next sync"
            )));
        }
        if caller.admin || caller.user.as_deref() == Some(card.owner.as_str()) {
            Ok(card)
        } else {
            Err(RegistryError::Forbidden(format!(
                "only the owner of `{name}` or an admin may change it"
            )))
        }
    }

    /// Fetches, parses and lints the `SKILL.md` at `url` and fills a card from it.
    async fn check(
        &self,
        url: &str,
        visibility: Visibility,
        allowed_groups: Vec<String>,
        extra_tags: Vec<String>,
        owner: String,
    ) -> Result<Checked, RegistryError> {
        let translation = skills_url::to_raw(url)
            .map_err(|e| RegistryError::Invalid(format!("`skill_md_url`: {e}")))?;
        let raw = translation.raw.clone();
        let policy = self.config.fetch.clone();
        let fetched = tokio::task::spawn_blocking(move || fetch::get(&raw, &policy))
            .await
            .map_err(|e| RegistryError::Internal(e.to_string()))??;
        let dir_name = directory_name(translation.path.as_deref());
        let body = fetched.body;
        let lint_body = body.clone();
        let (diagnostics, name_hint) =
            tokio::task::spawn_blocking(move || lint(&lint_body, dir_name.as_deref()))
                .await
                .map_err(|e| RegistryError::Internal(e.to_string()))??;
        if diagnostics
            .iter()
            .any(|d| d.severity == skills_lint::Severity::Error)
        {
            return Err(RegistryError::Lint(diagnostics));
        }
        let text = String::from_utf8(body)
            .map_err(|_| RegistryError::Invalid("the SKILL.md is not UTF-8".into()))?;
        let md = skills_frontmatter::SkillMd::parse_str(text.clone())
            .map_err(|e| RegistryError::Invalid(format!("the SKILL.md does not parse: {e}")))?;
        let name = md.name().map_or(name_hint, str::to_string);
        let metadata = md.metadata();
        let meta = |key: &str| {
            metadata
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| (*v).to_string())
        };
        let mut tags = split_list(meta("tags").as_deref().unwrap_or_default());
        for tag in extra_tags {
            let tag = tag.trim().to_string();
            if !tag.is_empty() && !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        let now = time::rfc3339(time::now_ms());
        let card = SkillCard {
            path: format!("/skills/{name}"),
            description: md.description().unwrap_or_default().trim().to_string(),
            skill_md_url: translation.input.clone(),
            skill_md_raw_url: translation.raw.clone(),
            repository_url: translation.repository.clone(),
            version: meta("version"),
            author: meta("author"),
            license: md.license().map(str::to_string),
            compatibility: md.compatibility().map(str::to_string),
            tags,
            requirements: requirements_of(&md),
            target_agents: split_list(
                meta("target-agents")
                    .or_else(|| meta("target_agents"))
                    .as_deref()
                    .unwrap_or_default(),
            ),
            allowed_tools: md
                .allowed_tools()
                .map(ToolReference::parse_allowed_tools)
                .unwrap_or_default(),
            visibility,
            allowed_groups,
            owner,
            is_enabled: true,
            registry_name: self.config.name.clone(),
            // The GET above answered 2xx: as good as a health check, and as recent.
            health_status: HealthStatus::Healthy,
            last_checked_time: Some(now.clone()),
            num_stars: 0.0,
            rating_details: Vec::new(),
            content_version: skills_core::digest::sha256_hex(text.as_bytes()),
            content_updated_at: now.clone(),
            created_at: now.clone(),
            updated_at: now,
            name,
        };
        Ok(Checked {
            card,
            content: text,
        })
    }

    /// Issues a token for `user`: the token (shown once) and its record.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Invalid`] for an empty user name, [`RegistryError::Store`].
    pub async fn create_token(
        &self,
        user: &str,
        groups: Vec<String>,
        admin: bool,
    ) -> Result<(String, TokenRecord), RegistryError> {
        let user = user.trim();
        if user.is_empty() {
            return Err(RegistryError::Invalid("a token needs a user name".into()));
        }
        let (token, id) = crate::token::generate()?;
        let record = TokenRecord::new(
            id,
            crate::token::hash(&token),
            user.to_string(),
            groups,
            admin,
        );
        self.store.insert_token(&record).await?;
        Ok((token, record))
    }

    /// The caller a bearer token stands for: one of the registry's API tokens, or a JWT
    /// of the configured OIDC issuer. `None` for an unknown or revoked API token.
    ///
    /// # Errors
    ///
    /// [`RegistryError::InvalidToken`] for a JWT that does not verify (or any token that
    /// is not an API token when OIDC is not configured),
    /// [`RegistryError::IdentityProvider`] when the issuer's keys cannot be fetched,
    /// [`RegistryError::Store`].
    pub async fn authenticate(&self, token: &str) -> Result<Option<Caller>, RegistryError> {
        let hash = crate::token::hash(token);
        let now = std::time::Instant::now();
        if let Ok(cache) = self.tokens.lock()
            && let Some((caller, until)) = cache.get(&hash)
            && now < *until
        {
            return Ok(Some(caller.clone()));
        }
        let (caller, until) = if token.starts_with(crate::token::TOKEN_PREFIX) {
            let Some(record) = self.store.token_by_hash(&hash).await? else {
                return Ok(None);
            };
            let caller = Caller {
                user: Some(record.user),
                groups: record.groups,
                admin: record.admin,
            };
            (caller, now + TOKEN_CACHE_TTL)
        } else if let Some(oidc) = &self.oidc {
            let verified = oidc.verify(token).await.map_err(|e| match e {
                crate::oidc::OidcError::Invalid(reason) => RegistryError::InvalidToken(reason),
                crate::oidc::OidcError::Unavailable(_) => {
                    RegistryError::IdentityProvider(e.to_string())
                }
            })?;
            let left = verified
                .expires
                .saturating_sub(crate::time::unix_seconds())
                .min(JWT_CACHE_TTL.as_secs());
            (verified.caller, now + std::time::Duration::from_secs(left))
        } else {
            return Err(RegistryError::InvalidToken(format!(
                "not one of this registry's API tokens (`{}…`), and no OIDC issuer is configured",
                crate::token::TOKEN_PREFIX
            )));
        };
        if let Ok(mut cache) = self.tokens.lock() {
            if cache.len() >= TOKEN_CACHE_MAX {
                cache.clear();
            }
            cache.insert(hash, (caller.clone(), until));
        }
        Ok(Some(caller))
    }

    /// Fetches the OIDC issuer's keys now, when OIDC is configured: how many signing keys
    /// it publishes. A server calls this at start so a wrong issuer shows at once rather
    /// than at the first token.
    ///
    /// # Errors
    ///
    /// [`RegistryError::IdentityProvider`] when the discovery document or the keys cannot
    /// be fetched or read.
    pub async fn fetch_identity_provider_keys(&self) -> Result<Option<usize>, RegistryError> {
        match &self.oidc {
            Some(oidc) => oidc
                .prefetch()
                .await
                .map(Some)
                .map_err(|e| RegistryError::IdentityProvider(e.to_string())),
            None => Ok(None),
        }
    }

    /// Revokes the token `id`; this registry refuses it from the next request on.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`].
    pub async fn revoke_token(&self, id: &str) -> Result<bool, RegistryError> {
        let revoked = self.store.revoke_token(id).await?;
        if let Ok(mut cache) = self.tokens.lock() {
            cache.clear();
        }
        Ok(revoked)
    }
}

/// `group` needs groups; the others take none.
fn check_access(visibility: Visibility, groups: &[String]) -> Result<(), RegistryError> {
    match (visibility, groups.iter().any(|g| !g.trim().is_empty())) {
        (Visibility::Group, false) => Err(RegistryError::Invalid(
            "`allowed_groups` is required for `group` visibility".into(),
        )),
        (Visibility::Public | Visibility::Private, true) => Err(RegistryError::Invalid(
            "`allowed_groups` applies to `group` visibility only".into(),
        )),
        _ => Ok(()),
    }
}

/// The directory a `SKILL.md` path in a repository names (`skills/pdf/SKILL.md` → `pdf`).
fn directory_name(path: Option<&str>) -> Option<String> {
    let path = path?;
    let mut segments = path.rsplit('/');
    segments.next();
    segments
        .next()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A comma- or space-separated list.
fn split_list(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

/// Lints `body` as the `SKILL.md` of a directory named `dir_name` (or the name it gives
/// itself): the findings, and the name to use when the file has none.
fn lint(
    body: &[u8],
    dir_name: Option<&str>,
) -> Result<(Vec<skills_lint::Diagnostic>, String), RegistryError> {
    let hint = skills_frontmatter::SkillMd::parse(body)
        .ok()
        .and_then(|md| md.name().map(str::to_string));
    let dir = dir_name
        .map(str::to_string)
        .or_else(|| hint.clone())
        .filter(|d| !d.contains(['/', '\\']) && d != "." && d != "..")
        .unwrap_or_else(|| "skill".to_string());
    let temp = tempfile::tempdir().map_err(|e| RegistryError::Internal(e.to_string()))?;
    let skill_dir = temp.path().join(&dir);
    std::fs::create_dir(&skill_dir).map_err(|e| RegistryError::Internal(e.to_string()))?;
    std::fs::write(skill_dir.join("SKILL.md"), body)
        .map_err(|e| RegistryError::Internal(e.to_string()))?;
    let mut config = skills_lint::Config::default();
    for rule in NEEDS_FILES {
        config
            .set(rule, skills_lint::Level::Allow)
            .map_err(|e| RegistryError::Internal(e.to_string()))?;
    }
    let report = skills_lint::Linter::new(config)
        .lint_paths(&[skill_dir])
        .map_err(|e| RegistryError::Internal(e.to_string()))?;
    let diagnostics = report
        .skills
        .into_iter()
        .flat_map(|s| s.diagnostics)
        .chain(report.other)
        .collect();
    Ok((diagnostics, hint.unwrap_or(dir)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_come_from_the_path_in_the_repository() {
        assert_eq!(
            directory_name(Some("skills/pdf/SKILL.md")).as_deref(),
            Some("pdf")
        );
        assert_eq!(directory_name(Some("SKILL.md")), None);
        assert_eq!(directory_name(None), None);
    }

    #[test]
    fn access_rules() {
        assert!(check_access(Visibility::Group, &[]).is_err());
        assert!(check_access(Visibility::Group, &[" ".into()]).is_err());
        assert!(check_access(Visibility::Group, &["eng".into()]).is_ok());
        assert!(check_access(Visibility::Public, &["eng".into()]).is_err());
        assert!(check_access(Visibility::Private, &[]).is_ok());
    }

    #[test]
    fn lists_split_on_commas_and_spaces_once_each() {
        assert_eq!(
            split_list("pdf, forms  pdf,,docs"),
            ["pdf", "forms", "docs"]
        );
        assert!(split_list("").is_empty());
    }
}
