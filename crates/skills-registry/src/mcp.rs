//! The registry's skills over MCP, at `/mcp`: the server of `skills mcp --http`
//! ([`skills_mcp_server`]: the seed 002/003 tools, the `skills-router` prompt and the
//! SEP-2640 skills extension), over the skills the caller may see.
//!
//! Each caller (a [`Caller`]: user, groups, admin) gets a view: a directory holding the
//! cached `SKILL.md` of every enabled skill they may see, kept in step with the database
//! before each request, and an MCP endpoint of its own over that directory. So a caller
//! never sees another's skills, a session started with one token cannot be used with
//! another (the other caller's endpoint does not know it), and the server's index, its
//! change notifications (`notifications/tools/list_changed` when a skill appears or goes)
//! and its digests (the `content_version` of the card) work as they do over local skills.
//! The tools name files by `skill://` URI, not by the view's path.
//!
//! Files change only by rename: a new skill's directory is written aside and renamed into
//! the view whole, an update renames a new `SKILL.md` over the old one, a removal renames
//! the directory out before deleting it. Views idle for longer than the session timeout
//! are dropped with their sessions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::response::Response;
use tower::ServiceExt as _;

use crate::error::RegistryError;
use crate::service::Registry;
use crate::store::{Caller, ListQuery, Store};

/// How many cards one store query of a sync reads.
const PAGE: u32 = 500;

/// How often idle views are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Every caller's view, and where they live.
#[derive(Debug)]
pub(crate) struct Views {
    options: skills_mcp_server::HttpOptions,
    /// The session caps, shared by every view's endpoint: per user, and in all.
    sessions: skills_mcp_server::SessionLimits,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Made on first use: a registry that is never asked over MCP writes nothing.
    root: Option<tempfile::TempDir>,
    views: HashMap<Caller, Arc<View>>,
    next_id: u64,
    swept: Option<Instant>,
}

/// One caller's skills and MCP endpoint.
#[derive(Debug)]
struct View {
    /// The skills root the endpoint serves: `<name>/SKILL.md` for each skill.
    dir: PathBuf,
    /// Where files are written before they are renamed into `dir` (same file system).
    staging: PathBuf,
    endpoint: axum::Router,
    synced: tokio::sync::Mutex<Synced>,
    last_used: Mutex<Instant>,
}

/// What a view's directory holds, and when it was last brought up to date.
#[derive(Debug, Default)]
struct Synced {
    /// `content_version` of each skill written, by name.
    written: HashMap<String, String>,
    /// The registry's generation and the time of the last sync.
    at: Option<(u64, Instant)>,
}

impl Views {
    pub(crate) fn new(options: skills_mcp_server::HttpOptions) -> Self {
        Self {
            sessions: skills_mcp_server::SessionLimits::new(
                options.max_sessions_per_caller,
                options.max_sessions,
            ),
            options,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every change under the lock leaves the map consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view of `caller`, made when they have none; idle views are dropped on the way.
    fn view(&self, caller: &Caller) -> std::io::Result<Arc<View>> {
        let now = Instant::now();
        let mut inner = self.lock();
        if inner
            .swept
            .is_none_or(|at| now.duration_since(at) >= SWEEP_EVERY)
        {
            inner.swept = Some(now);
            let idle = self.options.session_idle;
            inner
                .views
                .retain(|_, view| now.duration_since(*view.touched()) < idle);
        }
        if let Some(view) = inner.views.get(caller) {
            *view.touched() = now;
            return Ok(Arc::clone(view));
        }
        if inner.root.is_none() {
            inner.root = Some(tempfile::Builder::new().prefix("skills-mcp-").tempdir()?);
        }
        let root = inner.root.as_ref().map(|r| r.path().to_path_buf());
        let root = root.ok_or_else(|| std::io::Error::other("no view directory"))?;
        inner.next_id += 1;
        let dir = root.join(inner.next_id.to_string());
        let staging = root.join(format!("{}.staging", inner.next_id));
        std::fs::create_dir(&dir)?;
        std::fs::create_dir(&staging)?;
        // A remote caller learns nothing of the server's machine: no tool inventory.
        let config = skills_mcp_server::Config::new(skills_discovery::Roots::custom([&dir]))
            .locations(skills_mcp_server::Locations::Uris)
            .tool_inventory(false);
        let view = Arc::new(View {
            endpoint: skills_mcp_server::http_router_for(
                config,
                self.options.clone(),
                &self.sessions,
                // A user's sessions count against them, whatever their token's groups;
                // anonymous readers share a view, and are told apart by address.
                caller
                    .user
                    .as_ref()
                    .map(|user| format!("user {user}"))
                    .as_deref(),
            ),
            dir,
            staging,
            synced: tokio::sync::Mutex::default(),
            last_used: Mutex::new(now),
        });
        inner.views.insert(caller.clone(), Arc::clone(&view));
        Ok(view)
    }
}

impl View {
    fn touched(&self) -> MutexGuard<'_, Instant> {
        self.last_used.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for View {
    fn drop(&mut self) {
        // The sessions ended with the endpoint; the files go with them.
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

/// Answers an MCP request of `caller` at `/mcp`.
pub(crate) async fn handle<S: Store>(
    registry: &Registry<S>,
    views: &Views,
    caller: &Caller,
    request: Request,
) -> Result<Response, RegistryError> {
    let view = views.view(caller).map_err(unavailable)?;
    sync(registry, &view, caller).await?;
    let host = request
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let response = match view.endpoint.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.status() == axum::http::StatusCode::FORBIDDEN {
        // rmcp's answer names no setting; the operator reads the log.
        tracing::warn!(
            "MCP request refused (Host {:?}): add the host the registry is reached by to \
             `allowed_hosts` in the [mcp] table of the config file (and a browser's origin \
             to `allowed_origins`)",
            host.unwrap_or_default()
        );
    }
    Ok(response)
}

fn unavailable(error: std::io::Error) -> RegistryError {
    RegistryError::Internal(format!("cannot prepare the MCP view: {error}"))
}

/// Brings `view` in step with what `caller` may see: the enabled skills, each with its
/// cached `SKILL.md`. Skipped while nothing changed through this registry and the last sync
/// is younger than the response cache's expiry (other servers may share the database).
async fn sync<S: Store>(
    registry: &Registry<S>,
    view: &View,
    caller: &Caller,
) -> Result<(), RegistryError> {
    let mut synced = view.synced.lock().await;
    let generation = registry.generation();
    if let Some((at_generation, at)) = synced.at
        && at_generation == generation
        && at.elapsed() < registry.config().response_ttl
    {
        return Ok(());
    }
    let mut wanted: HashMap<String, String> = HashMap::new();
    let mut query = ListQuery {
        enabled: Some(true),
        limit: PAGE,
        ..ListQuery::default()
    };
    loop {
        let (cards, next) = registry.list(caller, &query).await?;
        for card in cards {
            // The name is a directory name below: only what the spec allows.
            if card.name.is_ascii() && skills_frontmatter::is_valid_name(&card.name) {
                wanted.insert(card.name, card.content_version);
            }
        }
        match next {
            Some(after) => query.after = Some(after),
            None => break,
        }
    }
    let mut writes = Vec::new();
    for (name, version) in &wanted {
        if synced.written.get(name) == Some(version) {
            continue;
        }
        if let Some((content, version)) = registry.store().content(name).await? {
            writes.push((name.clone(), content, version));
        }
    }
    let removals: Vec<String> = synced
        .written
        .keys()
        .filter(|name| !wanted.contains_key(*name))
        .cloned()
        .collect();
    if !writes.is_empty() || !removals.is_empty() {
        let (dir, staging) = (view.dir.clone(), view.staging.clone());
        let written = writes
            .iter()
            .map(|(name, _, version)| (name.clone(), version.clone()))
            .collect::<Vec<_>>();
        tokio::task::spawn_blocking(move || apply(&dir, &staging, &writes, &removals))
            .await
            .map_err(|e| RegistryError::Internal(format!("the MCP view's update failed: {e}")))?
            .map_err(unavailable)?;
        synced.written.retain(|name, _| wanted.contains_key(name));
        synced.written.extend(written);
    }
    synced.at = Some((generation, Instant::now()));
    Ok(())
}

/// Writes `writes` (name, content, version) into `dir` and removes `removals`, each by
/// rename through `staging`.
fn apply(
    dir: &Path,
    staging: &Path,
    writes: &[(String, String, String)],
    removals: &[String],
) -> std::io::Result<()> {
    for name in removals {
        let target = dir.join(name);
        if target.exists() {
            let aside = tempfile::Builder::new().tempdir_in(staging)?;
            let moved = aside.path().join(name);
            std::fs::rename(&target, &moved)?;
            drop(aside);
        }
    }
    for (name, content, _) in writes {
        let target = dir.join(name);
        if target.is_dir() {
            let mut file = tempfile::NamedTempFile::new_in(staging)?;
            std::io::Write::write_all(&mut file, content.as_bytes())?;
            file.persist(target.join("SKILL.md")).map_err(|e| e.error)?;
        } else {
            let fresh = tempfile::Builder::new().tempdir_in(staging)?;
            std::fs::write(fresh.path().join("SKILL.md"), content)?;
            std::fs::rename(fresh.keep(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_change_by_rename_only() {
        let root = tempfile::tempdir().unwrap();
        let (dir, staging) = (root.path().join("v"), root.path().join("s"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::create_dir(&staging).unwrap();
        let write = |name: &str, text: &str| (name.to_string(), text.to_string(), String::new());
        apply(&dir, &staging, &[write("a", "one"), write("b", "two")], &[]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("a/SKILL.md")).unwrap(),
            "one"
        );
        apply(&dir, &staging, &[write("a", "three")], &["b".to_string()]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("a/SKILL.md")).unwrap(),
            "three"
        );
        assert!(!dir.join("b").exists());
        let mut left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["a"]);
        assert_eq!(
            std::fs::read_dir(&staging).unwrap().count(),
            0,
            "nothing left aside"
        );
        // Removing what is already gone is not an error.
        apply(&dir, &staging, &[], &["b".to_string()]).unwrap();
    }
}
