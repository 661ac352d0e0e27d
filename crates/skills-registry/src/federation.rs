//! Federation (seed 001): a registry pulls the skills other registries export.
//!
//! A peer is configured with `[[peers]]` (name, URL, token, and what to take: every
//! exported skill, a whitelist of names, or the skills with one of some tags). A sync asks
//! the peer for what it exports (`GET /api/skills?exportable=true`: public, enabled, and
//! registered there, never what the peer itself imported, so nothing loops and nobody's
//! skills are passed off as another registry's), then:
//!
//! - a skill new here is added with the peer's attribution (`registry_name` is the peer's
//!   name), its `SKILL.md` fetched from the peer and checked against the peer's
//!   `content_version`;
//! - a skill whose `content_version` changed at the peer is updated;
//! - a skill the peer no longer exports (or the filter no longer takes) is removed;
//! - a name registered here, or imported from another peer, is left alone and reported.
//!
//! Imported skills are read-only here (update and delete answer `403`) and are never
//! exported again. A peer that cannot be reached or answers garbage changes nothing: the
//! sync stops before any write, and the report says why.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::error::RegistryError;
use crate::fetch::FetchPolicy;
use crate::model::{HealthStatus, SkillCard, Visibility};
use crate::service::Registry;
use crate::store::{Job, Store};

/// Skills asked for per page of a peer's export.
const PAGE: u32 = 200;
/// The largest page of a peer's export read.
const MAX_PAGE_BYTES: u64 = 8 * 1024 * 1024;
/// Pages read from one peer at most in one sync (a peer that pages forever is garbage).
const MAX_PAGES: usize = 10_000;
/// The most bytes of pages read from one peer in one sync: everything is read before
/// anything is written, so this bounds a sync's memory (a peer answering 7 MB pages
/// forever grew it by 9 MB a page, towards 80 GB).
const MAX_EXPORT_BYTES: usize = 64 * 1024 * 1024;

/// A federation peer (`[[peers]]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Peer {
    /// Its name here: the `registry_name` of the skills imported from it.
    pub name: String,
    /// Its base URL (`https://skills.partner.example`).
    pub url: String,
    /// A token of the peer, sent as `Authorization: Bearer`.
    #[serde(default)]
    pub token: Option<String>,
    /// Which of its exported skills to take.
    #[serde(default)]
    pub mode: PeerMode,
    /// The names taken in `whitelist` mode.
    #[serde(default)]
    pub names: Vec<String>,
    /// The tags taken in `tags` mode (a skill with any of them).
    #[serde(default)]
    pub tags: Vec<String>,
}

impl Peer {
    /// A peer named `name` at `url` that takes everything it exports.
    #[must_use]
    pub fn new(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            url: url.into(),
            token: None,
            mode: PeerMode::All,
            names: Vec::new(),
            tags: Vec::new(),
        }
    }

    /// Whether the settings can work, or what is wrong.
    ///
    /// # Errors
    ///
    /// A message naming the setting.
    pub fn check(&self, own_name: &str) -> Result<(), String> {
        if self.name.trim().is_empty() || self.name == own_name {
            return Err(format!(
                "peer `{}`: the name must be set, and not this registry's own (`{own_name}`)",
                self.name
            ));
        }
        let lower = self.url.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://")) {
            return Err(format!("peer `{}`: `url` must be http(s)", self.name));
        }
        match self.mode {
            PeerMode::Whitelist if self.names.is_empty() => Err(format!(
                "peer `{}`: mode `whitelist` needs `names`",
                self.name
            )),
            PeerMode::Tags if self.tags.is_empty() => {
                Err(format!("peer `{}`: mode `tags` needs `tags`", self.name))
            }
            _ => Ok(()),
        }
    }

    fn takes(&self, card: &SkillCard) -> bool {
        match self.mode {
            PeerMode::All => true,
            PeerMode::Whitelist => self.names.contains(&card.name),
            PeerMode::Tags => card.tags.iter().any(|t| self.tags.contains(t)),
        }
    }

    fn base(&self) -> &str {
        self.url.trim_end_matches('/')
    }
}

/// Which exported skills of a peer are taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PeerMode {
    /// Every exported skill.
    #[default]
    All,
    /// Those named in `names`.
    Whitelist,
    /// Those with one of `tags`.
    Tags,
}

/// What a sync with one peer did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncReport {
    /// The peer.
    pub peer: String,
    /// Skills imported for the first time.
    pub added: Vec<String>,
    /// Skills whose content changed at the peer.
    pub updated: Vec<String>,
    /// Skills the peer no longer exports (or the filter no longer takes).
    pub removed: Vec<String>,
    /// Skills left alone, and why (a name registered here, a content that does not match).
    pub skipped: Vec<(String, String)>,
    /// Why the peer could not be synced; nothing was changed then.
    pub error: Option<String>,
}

impl<S: Store> Registry<S> {
    /// Syncs with every configured peer, one after the other, after waiting for any other
    /// process on the database that is syncing (`skills registry sync` beside a server).
    pub async fn sync_peers(&self) -> Vec<SyncReport> {
        let lock = match self.store().begin_job(Job::Sync, None).await {
            Ok(lock) => lock,
            Err(e) => {
                // The sync itself will say what is wrong with the database.
                tracing::warn!(error = %e, "cannot lock the sync against other servers");
                None
            }
        };
        let reports = self.sync_each().await;
        if let Some(lock) = lock {
            lock.release().await;
        }
        reports
    }

    async fn sync_each(&self) -> Vec<SyncReport> {
        let mut reports = Vec::new();
        for peer in &self.config().peers {
            reports.push(self.sync_peer(peer).await);
        }
        reports
    }

    /// Syncs with `peer`: imports what it exports and the filter takes, updates what
    /// changed, removes what it dropped.
    pub async fn sync_peer(&self, peer: &Peer) -> SyncReport {
        let mut report = SyncReport {
            peer: peer.name.clone(),
            ..SyncReport::default()
        };
        if let Err(e) = self.sync_into(peer, &mut report).await {
            report.error = Some(e.to_string());
        }
        if !(report.added.is_empty() && report.updated.is_empty() && report.removed.is_empty()) {
            self.changed();
        }
        report
    }

    async fn sync_into(&self, peer: &Peer, report: &mut SyncReport) -> Result<(), RegistryError> {
        let mut policy = self.config().fetch.clone();
        if let Ok(uri) = peer.base().parse::<axum::http::Uri>()
            && let Some(authority) = uri.authority()
        {
            policy.trust_hosts.push(authority.as_str().to_string());
        }
        // Everything is read before anything is written: a peer that fails half-way
        // leaves this registry as it was.
        let exported = self.exported(peer, &policy).await?;
        let wanted: Vec<&SkillCard> = exported.iter().filter(|c| peer.takes(c)).collect();
        let here: HashMap<String, String> = self
            .store()
            .imported(&peer.name)
            .await?
            .into_iter()
            .collect();
        let wanted_names: HashSet<&str> = wanted.iter().map(|c| c.name.as_str()).collect();
        for card in wanted {
            let known = here.get(&card.name);
            if known == Some(&card.content_version) {
                continue;
            }
            if known.is_none()
                && let Some(existing) = self.store().get(&card.name).await?
            {
                let why = match self.store().imported_from(&card.name).await? {
                    Some(other) => format!("imported from the peer `{other}`"),
                    None if existing.registry_name == peer.name => {
                        // A sync stopped between the insert and the mark: adopt it.
                        self.store().mark_imported(&card.name, &peer.name).await?;
                        continue;
                    }
                    None => "a skill of that name is registered here".to_string(),
                };
                report.skipped.push((card.name.clone(), why));
                continue;
            }
            let content = match self.peer_content(peer, &policy, card).await {
                Ok(content) => content,
                Err(why) => {
                    report.skipped.push((card.name.clone(), why));
                    continue;
                }
            };
            let mut local = imported_card(card, &peer.name);
            // What the card says of the skill is what its verified SKILL.md says.
            crate::service::refresh_from_content(&mut local, &content);
            // The peer's result is kept; this registry audits the content itself.
            local.peer_audit = card.audit.clone();
            match self.audit_content(&card.name, &content) {
                Ok(audit) => local.audit = Some(audit),
                Err(refused) => {
                    report
                        .skipped
                        .push((card.name.clone(), refused.to_string()));
                    continue;
                }
            }
            if known.is_some() {
                self.store().update(&local, &content).await?;
                report.updated.push(card.name.clone());
            } else {
                self.store().insert(&local, &content).await?;
                self.store().mark_imported(&card.name, &peer.name).await?;
                report.added.push(card.name.clone());
            }
        }
        for name in here.keys().filter(|n| !wanted_names.contains(n.as_str())) {
            if self.store().delete(name).await? {
                report.removed.push(name.clone());
            }
        }
        report.removed.sort();
        Ok(())
    }

    /// Every card `peer` exports, page by page.
    async fn exported(
        &self,
        peer: &Peer,
        policy: &FetchPolicy,
    ) -> Result<Vec<SkillCard>, RegistryError> {
        let mut cards = Vec::new();
        let mut cursor: Option<String> = None;
        let mut read = 0usize;
        for _ in 0..MAX_PAGES {
            let mut url = format!(
                "{}/api/skills?exportable=true&view=summary&limit={PAGE}",
                peer.base()
            );
            if let Some(cursor) = &cursor {
                url.push_str(&format!("&cursor={cursor}"));
            }
            let mut policy = policy.clone();
            policy.max_bytes = MAX_PAGE_BYTES;
            let body = fetch_blocking(url.clone(), peer.token.clone(), policy).await?;
            read = read.saturating_add(body.len());
            if read > MAX_EXPORT_BYTES {
                return Err(RegistryError::Invalid(format!(
                    "{}: its export is over {} MiB; nothing was imported",
                    peer.base(),
                    MAX_EXPORT_BYTES >> 20
                )));
            }
            let page: Value = serde_json::from_slice(&body).map_err(|e| {
                RegistryError::Invalid(format!("{url}: not a page of a skills registry: {e}"))
            })?;
            let skills = page
                .get("skills")
                .and_then(Value::as_array)
                .ok_or_else(|| RegistryError::Invalid(format!("{url}: no `skills` list")))?;
            if skills.len() > PAGE as usize {
                return Err(RegistryError::Invalid(format!(
                    "{url}: {} skills in a page asked for {PAGE}; nothing was imported",
                    skills.len()
                )));
            }
            for skill in skills {
                let mut skill = skill.clone();
                if let Value::Object(map) = &mut skill {
                    map.entry("rating_details")
                        .or_insert(Value::Array(Vec::new()));
                }
                let card: SkillCard = serde_json::from_value(skill)
                    .map_err(|e| RegistryError::Invalid(format!("{url}: not a skill card: {e}")))?;
                cards.push(card);
            }
            match page.get("next_cursor").and_then(Value::as_str) {
                // Cursors are base64url; anything else is not one of a skills registry.
                Some(next)
                    if !next.is_empty()
                        && next
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
                {
                    cursor = Some(next.to_string());
                }
                Some(_) => {
                    return Err(RegistryError::Invalid(format!("{url}: a malformed cursor")));
                }
                None => return Ok(cards),
            }
        }
        Err(RegistryError::Invalid(format!(
            "{}: more than {MAX_PAGES} pages",
            peer.base()
        )))
    }

    /// The `SKILL.md` of `card` at `peer`, when it is what the card says it is.
    async fn peer_content(
        &self,
        peer: &Peer,
        policy: &FetchPolicy,
        card: &SkillCard,
    ) -> Result<String, String> {
        if !skills_frontmatter::is_valid_name(&card.name) {
            return Err("not a valid skill name".to_string());
        }
        let url = format!("{}/api/skills/{}/content", peer.base(), card.name);
        let body = fetch_blocking(url, peer.token.clone(), policy.clone())
            .await
            .map_err(|e| e.to_string())?;
        if skills_core::digest::sha256_hex(&body) != card.content_version {
            return Err("its SKILL.md does not match the peer's content_version".to_string());
        }
        let text = String::from_utf8(body).map_err(|_| "its SKILL.md is not UTF-8".to_string())?;
        let md = skills_frontmatter::SkillMd::parse(text.as_bytes())
            .map_err(|e| format!("its SKILL.md does not parse: {e}"))?;
        if md.name() != Some(card.name.as_str()) {
            return Err("its SKILL.md names another skill".to_string());
        }
        Ok(text)
    }

    /// Syncs with every peer every `every`, logging what changed; runs until dropped.
    pub async fn run_sync(self: Arc<Self>, every: std::time::Duration) {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // One sync per interval among the servers on this database, not one each.
            match self.store().begin_job(Job::Sync, Some(every)).await {
                Ok(Some(lock)) => {
                    for report in self.sync_each().await {
                        log(&report);
                    }
                    lock.release().await;
                }
                Ok(None) => tracing::info!("sync: another server syncs, or just did"),
                Err(e) => tracing::warn!(error = %e, "sync skipped: the database is away"),
            }
        }
    }
}

/// A report in the server's log.
fn log(report: &SyncReport) {
    if let Some(error) = &report.error {
        tracing::warn!(peer = %report.peer, %error, "sync failed; nothing changed");
        return;
    }
    for (name, why) in &report.skipped {
        tracing::warn!(peer = %report.peer, skill = %name, reason = %why, "sync skipped");
    }
    if !(report.added.is_empty() && report.updated.is_empty() && report.removed.is_empty()) {
        tracing::info!(
            peer = %report.peer,
            added = report.added.len(),
            updated = report.updated.len(),
            removed = report.removed.len(),
            "synced"
        );
    }
}

/// The peer's card as it is kept here: the peer's attribution, public, enabled, not yet
/// checked by this registry's health checker, unrated here.
fn imported_card(card: &SkillCard, peer: &str) -> SkillCard {
    let mut local = card.clone();
    // Links a page shows and a client follows: http(s) or nothing (a peer's
    // `javascript:` is not passed on).
    let web = |url: &str| {
        let lower = url.trim_start().to_ascii_lowercase();
        lower.starts_with("https://") || lower.starts_with("http://")
    };
    for url in [&mut local.skill_md_url, &mut local.skill_md_raw_url] {
        if !web(url) {
            url.clear();
        }
    }
    if local.repository_url.as_deref().is_some_and(|u| !web(u)) {
        local.repository_url = None;
    }
    local.registry_name = peer.to_string();
    local.visibility = Visibility::Public;
    local.allowed_groups = Vec::new();
    local.is_enabled = true;
    local.health_status = HealthStatus::Unknown;
    local.last_checked_time = None;
    local.num_stars = 0.0;
    local.rating_details = Vec::new();
    local
}

async fn fetch_blocking(
    url: String,
    token: Option<String>,
    policy: FetchPolicy,
) -> Result<Vec<u8>, RegistryError> {
    tokio::task::spawn_blocking(move || {
        crate::fetch::get_with_token(&url, token.as_deref(), &policy).map(|f| f.body)
    })
    .await
    .map_err(|e| RegistryError::Internal(e.to_string()))?
    .map_err(RegistryError::from)
}
