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
//!
//! The views hold private and group skills, so no one else may read them: every directory
//! is made 0700 and every file 0600 (the umask would leave them world-readable), under
//! `mcp-views/` in the registry's state directory ([`RegistryConfig::state_dir`]), which
//! is emptied when the router is made, so what a killed server left is gone at the next
//! start. A lock file beside it keeps a second server from emptying the views of a running
//! one. Without a state directory (a library caller's default) they go to a private
//! directory in the system's temporary directory, removed when the views are dropped.
//!
//! [`RegistryConfig::state_dir`]: crate::RegistryConfig::state_dir

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::response::Response;
use tower::ServiceExt as _;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::service::Registry;
use crate::store::{ListQuery, Store};

/// How many cards one store query of a sync reads.
const PAGE: u32 = 500;

/// How often idle views are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The directory of the views under the state directory, and its lock file.
const VIEWS_DIR: &str = "mcp-views";
const VIEWS_LOCK: &str = "mcp-views.lock";

/// Every caller's view, and where they live.
#[derive(Debug)]
pub(crate) struct Views {
    options: skills_mcp_server::HttpOptions,
    /// The session caps, shared by every view's endpoint: per user, and in all.
    sessions: skills_mcp_server::SessionLimits,
    place: Place,
    inner: Mutex<Inner>,
}

/// Where the views are written.
#[derive(Debug)]
enum Place {
    /// `mcp-views/` of the state directory, emptied at start; the lock is held while the
    /// views live.
    State { dir: PathBuf, _lock: File },
    /// A private temporary directory, made on first use (`Inner::temp`).
    Temp,
    /// The state directory could not be prepared: why, for each MCP request's log.
    Broken(String),
}

#[derive(Debug, Default)]
struct Inner {
    /// Made on first use: a registry that is never asked over MCP writes nothing.
    temp: Option<tempfile::TempDir>,
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
    /// The views of a registry with `state_dir`, whose `mcp-views/` is locked and emptied
    /// now.
    ///
    /// # Errors
    ///
    /// The state directory cannot be made, locked (another server uses it) or emptied.
    pub(crate) fn open(
        options: skills_mcp_server::HttpOptions,
        state_dir: Option<&Path>,
    ) -> std::io::Result<Self> {
        let place = match state_dir {
            Some(state) => {
                let (dir, lock) = prepare(state)?;
                Place::State { dir, _lock: lock }
            }
            None => Place::Temp,
        };
        Ok(Self::with_place(options, place))
    }

    /// As [`Views::open`], answering each MCP request with the error when it fails.
    pub(crate) fn open_or_broken(
        options: skills_mcp_server::HttpOptions,
        state_dir: Option<&Path>,
    ) -> Self {
        match Self::open(options.clone(), state_dir) {
            Ok(views) => views,
            Err(error) => {
                let why = state_error(state_dir, &error);
                tracing::error!("MCP is unavailable: {why}");
                Self::with_place(options, Place::Broken(why))
            }
        }
    }

    fn with_place(options: skills_mcp_server::HttpOptions, place: Place) -> Self {
        Self {
            sessions: skills_mcp_server::SessionLimits::new(
                options.max_sessions_per_caller,
                options.max_sessions,
            ),
            options,
            place,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every change under the lock leaves the map consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view of `caller`, made when they have none (its endpoint's listen streams
    /// run what `before_look` makes of it before each look for changes); idle views are
    /// dropped on the way.
    fn view(
        &self,
        caller: &Caller,
        before_look: impl FnOnce(Weak<View>) -> skills_mcp_server::BeforeLook,
    ) -> std::io::Result<Arc<View>> {
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
        let root = match &self.place {
            Place::State { dir, .. } => dir.clone(),
            Place::Broken(why) => return Err(std::io::Error::other(why.clone())),
            Place::Temp => match &inner.temp {
                Some(temp) => temp.path().to_path_buf(),
                None => {
                    let temp = private_builder().prefix("skills-mcp-").tempdir()?;
                    let path = temp.path().to_path_buf();
                    inner.temp = Some(temp);
                    path
                }
            },
        };
        inner.next_id += 1;
        let dir = root.join(inner.next_id.to_string());
        let staging = root.join(format!("{}.staging", inner.next_id));
        create_private_dir(&dir)?;
        create_private_dir(&staging)?;
        let view = Arc::new_cyclic(|weak| {
            // A remote caller learns nothing of the server's machine: no tool inventory.
            // A listen stream (MCP 2026-07-28) brings the view in step with the database
            // before each look, as a request does before it is answered.
            let config = skills_mcp_server::Config::new(skills_discovery::Roots::custom([&dir]))
                .locations(skills_mcp_server::Locations::Uris)
                .tool_inventory(false)
                .before_look(Some(before_look(weak.clone())));
            View {
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
            }
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
    registry: &Arc<Registry<S>>,
    views: &Views,
    caller: &Caller,
    request: Request,
) -> Result<Response, RegistryError> {
    let view = views
        .view(caller, |view| before_look(registry, view, caller))
        .map_err(unavailable)?;
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

/// What a listen stream of `caller`'s view runs before each look for changes: the sync a
/// request runs before it is answered, so that a skill published, changed or removed
/// through the registry reaches the stream (within the sync's own expiry when another
/// server wrote it). A failed sync is logged; the stream goes on. The stream keeps its
/// view: a view in use is not idle.
fn before_look<S: Store>(
    registry: &Arc<Registry<S>>,
    view: Weak<View>,
    caller: &Caller,
) -> skills_mcp_server::BeforeLook {
    let registry = Arc::clone(registry);
    let caller = caller.clone();
    skills_mcp_server::BeforeLook::new(move || {
        let (registry, view, caller) = (Arc::clone(&registry), view.clone(), caller.clone());
        Box::pin(async move {
            let Some(view) = view.upgrade() else {
                return;
            };
            // An open stream is a use: its view is not dropped as idle under it.
            *view.touched() = Instant::now();
            if let Err(e) = sync(&registry, &view, &caller).await {
                // Four times a second per stream: the requests of the caller say it louder.
                tracing::debug!("MCP listen stream: the view could not be brought up to date: {e}");
            }
        })
    })
}

/// Makes `state` (0700 when new), takes the lock beside `mcp-views/`, and empties it:
/// `mcp-views/`'s path and the held lock.
fn prepare(state: &Path) -> std::io::Result<(PathBuf, File)> {
    if !state.is_dir() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(state)?;
    }
    let lock = private_file_options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(state.join(VIEWS_LOCK))?;
    lock.try_lock().map_err(|e| match e {
        std::fs::TryLockError::WouldBlock => std::io::Error::new(
            std::io::ErrorKind::ResourceBusy,
            "another server uses it (each server needs a state directory of its own)",
        ),
        std::fs::TryLockError::Error(e) => e,
    })?;
    let dir = state.join(VIEWS_DIR);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    create_private_dir(&dir)?;
    Ok((dir, lock))
}

/// Why the views under `state_dir` cannot be prepared, naming the directory.
fn state_error(state_dir: Option<&Path>, error: &std::io::Error) -> String {
    let dir = state_dir
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!("state directory {dir}: {error}")
}

/// A directory only its owner may enter.
fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

/// A temporary directory (or file) builder whose directories only their owner may enter.
fn private_builder<'a, 'b>() -> tempfile::Builder<'a, 'b> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    builder
}

/// Files only their owner may read.
fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

fn unavailable(error: std::io::Error) -> RegistryError {
    RegistryError::Internal(format!("cannot prepare the MCP view: {error}"))
}

/// Brings `view` in step with what `caller` may see: the enabled skills, each with its
/// cached `SKILL.md`. Skipped while the registry's generation has not moved and the last
/// sync is younger than the response cache's expiry: the generation moves with every
/// change, made here or (heard by the change watch) by another server or process on the
/// same database, so the expiry is the long safety one while the watch runs and the short
/// one while it cannot.
async fn sync<S: Store>(
    registry: &Registry<S>,
    view: &View,
    caller: &Caller,
) -> Result<(), RegistryError> {
    let mut synced = view.synced.lock().await;
    let generation = registry.generation();
    if let Some((at_generation, at)) = synced.at
        && at_generation == generation
        && at.elapsed() < registry.response_ttl()
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
        // A list by name continues after its last name.
        let last = cards.last().map(|card| card.name.clone());
        for card in cards {
            // The name is a directory name below: only what the spec allows.
            if card.name.is_ascii() && skills_frontmatter::is_valid_name(&card.name) {
                // A hosted skill's other files change with its version, not its SKILL.md.
                let key = if card.hosted {
                    format!("{} {}", card.content_version, card.updated_at)
                } else {
                    card.content_version
                };
                wanted.insert(card.name, key);
            }
        }
        match (next, last) {
            (Some(_), Some(after)) => query.after = Some(after),
            _ => break,
        }
    }
    let mut writes = Vec::new();
    for (name, version) in &wanted {
        if synced.written.get(name) == Some(version) {
            continue;
        }
        let Some((content, _)) = registry.store().content(name).await? else {
            continue;
        };
        // A hosted skill brings every file of its latest version; one registered by URL
        // its cached SKILL.md.
        let mut files = vec![("SKILL.md".to_string(), content.into_bytes())];
        if let Some(files_of) = hosted_files(registry, caller, name).await? {
            files = files_of;
        }
        writes.push((name.clone(), files, version.clone()));
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

/// The files of the latest version of the hosted skill `name` (`None` for one registered by
/// URL, or one whose every version is yanked), each checked against its digest.
async fn hosted_files<S: Store>(
    registry: &Registry<S>,
    caller: &Caller,
    name: &str,
) -> Result<Option<Vec<(String, Vec<u8>)>>, RegistryError> {
    let detail = match registry.version(caller, name, "latest").await {
        Ok(detail) => detail,
        Err(RegistryError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut files = Vec::with_capacity(detail.files.len());
    for file in detail.files {
        let (_, bytes) = registry
            .file(caller, name, &detail.version.version, &file.path)
            .await?;
        files.push((file.path, bytes));
    }
    Ok(Some(files))
}

/// A skill's files to write: name, `(path, bytes)` of each file, and the key it was
/// written for.
type Write = (String, Vec<(String, Vec<u8>)>, String);

/// Writes `writes` into `dir` and removes `removals`, each by rename through `staging`: a
/// skill's new directory is made whole aside, then renamed over the old one (set aside
/// first, and removed).
fn apply(dir: &Path, staging: &Path, writes: &[Write], removals: &[String]) -> std::io::Result<()> {
    for name in removals {
        let target = dir.join(name);
        if target.exists() {
            let aside = private_builder().tempdir_in(staging)?;
            let moved = aside.path().join(name);
            std::fs::rename(&target, &moved)?;
            drop(aside);
        }
    }
    for (name, files, _) in writes {
        let target = dir.join(name);
        let fresh = private_builder().tempdir_in(staging)?;
        for (path, bytes) in files {
            // Paths come from the registry's own listing of an unpacked archive: relative,
            // `/`-separated, no `..` (skills_package::unpack checked each).
            let to = fresh.path().join(path);
            if let Some(parent) = to.parent() {
                let mut builder = std::fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
                builder.create(parent)?;
            }
            let mut file = private_file_options()
                .write(true)
                .create_new(true)
                .open(&to)?;
            std::io::Write::write_all(&mut file, bytes)?;
        }
        if target.exists() {
            let aside = private_builder().tempdir_in(staging)?;
            std::fs::rename(&target, aside.path().join(name))?;
            std::fs::rename(fresh.keep(), &target)?;
            drop(aside);
        } else {
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
        let write = |name: &str, text: &str| {
            (
                name.to_string(),
                vec![("SKILL.md".to_string(), text.as_bytes().to_vec())],
                String::new(),
            )
        };
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
