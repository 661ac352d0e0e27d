//! The gateway's side as a client: one MCP session per downstream server, started (stdio)
//! or connected (Streamable HTTP) at start, its tools listed, its calls proxied with their
//! progress and cancellation, and restarted once when it dies under a call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock,
    ProgressNotificationParam, ProgressToken, ReadResourceRequestParams, ReadResourceResult,
    Resource, ServerResult, Tool,
};
use rmcp::service::{DynService, NotificationContext, Peer, PeerRequestOptions, RunningService};

use crate::erased::Erased;
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServiceError, ServiceExt as _};

use super::file::{Downstream as Spec, Transport};
use super::wire;

/// How long a downstream server has to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How many calls (and resource reads) may wait on one server at once. Each holds little
/// while it waits, but its answer may be up to 16 MiB; and a server that never answers
/// must not hold the gateway's other servers up, hence a cap per server. Calls over it are
/// refused at once with a tool error.
pub(crate) const MAX_CALLS: usize = 64;

/// How long a cancellation may take to be handed to a server: one that does not read its
/// input must not hold the call that is being given up.
const CANCEL_SEND: Duration = Duration::from_secs(5);

/// A downstream request's progress token, with its server's index (each server's session
/// numbers its tokens from the same start).
type Key = (usize, ProgressToken);
/// The agent's session and its token, where a downstream request's progress goes.
type Route = (Peer<RoleServer>, ProgressToken);

/// Where downstream progress notifications go (to a [`Route`]; the tests use text).
#[derive(Clone)]
struct Routes<R = Route>(Arc<Mutex<RouteTable<R>>>);

impl<R> Default for Routes<R> {
    fn default() -> Self {
        Self(Arc::new(Mutex::new(RouteTable {
            routes: HashMap::new(),
            early: std::collections::VecDeque::new(),
        })))
    }
}

struct RouteTable<R> {
    routes: HashMap<Key, R>,
    /// Progress that came before its route: rmcp picks a request's token as it sends it, so
    /// the route is recorded just after, and a quick server can report in between. Kept
    /// (the last [`EARLY`]) and delivered when the route is recorded.
    early: std::collections::VecDeque<(Key, ProgressNotificationParam)>,
}

/// How many early notifications are kept.
const EARLY: usize = 64;

impl<R: Clone> Routes<R> {
    fn table(&self) -> std::sync::MutexGuard<'_, RouteTable<R>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records where `key`'s progress goes; the notifications that came before it.
    fn insert(&self, key: Key, route: R) -> Vec<ProgressNotificationParam> {
        let mut table = self.table();
        table.routes.insert(key.clone(), route);
        let (mine, others) = std::mem::take(&mut table.early)
            .into_iter()
            .partition(|(k, _)| *k == key);
        table.early = others;
        mine.into_iter().map(|(_, p)| p).collect()
    }

    fn remove(&self, key: &Key) {
        let mut table = self.table();
        table.routes.remove(key);
        table.early.retain(|(k, _)| k != key);
    }

    /// Where `params` goes now; `None` (and kept for later) when its route is not known yet.
    fn route(&self, key: Key, params: &ProgressNotificationParam) -> Option<R> {
        let mut table = self.table();
        if let Some(route) = table.routes.get(&key) {
            return Some(route.clone());
        }
        if table.early.len() == EARLY {
            table.early.pop_front();
        }
        table.early.push_back((key, params.clone()));
        None
    }
}

/// Sends `params` to the agent's session under the agent's token.
async fn forward(route: &Route, params: ProgressNotificationParam) {
    let (peer, token) = route;
    let mut forwarded = params;
    forwarded.progress_token = token.clone();
    let _ = peer.notify_progress(forwarded).await;
}

/// The agents' sessions, told when a downstream server's tools or resources change.
pub(crate) type Sessions = Arc<Mutex<Vec<Peer<RoleServer>>>>;

/// How many times the downstream servers' tools and resources changed: what the
/// 2026-07-28 clients' `subscriptions/listen` streams follow (they have no session to tell).
pub(crate) type Changes = Arc<tokio::sync::watch::Sender<(u64, u64)>>;

/// The client handler of one downstream session: forwards progress to the agent, and
/// follows the server's list changes.
#[derive(Clone)]
struct Forwarder {
    index: usize,
    name: String,
    routes: Routes,
    tools: Arc<Mutex<Vec<Tool>>>,
    resources: Arc<Mutex<Vec<Resource>>>,
    sessions: Sessions,
    changes: Changes,
    relists: Relists,
    /// Progress notifications being written to the agent ([`MAX_FORWARDING`]).
    forwarding: Arc<std::sync::atomic::AtomicUsize>,
}

impl Forwarder {
    /// Lists the server's tools (or resources) again while changes keep coming, one
    /// listing at a time, and tells the agents' sessions after each.
    async fn relist(&self, peer: Peer<RoleClient>, tools: bool) {
        let relist = if tools {
            &self.relists.tools
        } else {
            &self.relists.resources
        };
        loop {
            while relist.take() {
                // A pause gathers a burst of changes into one listing.
                tokio::time::sleep(RELIST_PAUSE).await;
                relist.take();
                let listed = tokio::time::timeout(LIST_TIMEOUT, async {
                    if tools {
                        list_tools(&peer).await.map(|l| {
                            let count = l.items.len();
                            *self.tools.lock().unwrap_or_else(|e| e.into_inner()) = l.items;
                            (count, l.cut)
                        })
                    } else {
                        list_resources(&peer).await.map(|l| {
                            let count = l.items.len();
                            *self.resources.lock().unwrap_or_else(|e| e.into_inner()) = l.items;
                            (count, l.cut)
                        })
                    }
                })
                .await;
                let what = if tools { "tools" } else { "resources" };
                match listed {
                    Ok(Ok((count, cut))) => {
                        if let Some(why) = cut {
                            tracing::warn!(
                                "[gateway] server={}: {what}/list stopped after {why}; {count} {what} kept",
                                self.name
                            );
                        }
                        tracing::info!(
                            "[gateway] server={} {what} changed: {count} {what}",
                            self.name
                        );
                        self.tell_sessions(tools).await;
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(
                            "[gateway] server={}: {what}/list failed: {}",
                            self.name,
                            crate::client_error::service(&e)
                        );
                    }
                    Err(_) => tracing::warn!(
                        "[gateway] server={}: {what}/list took over {} s; the last list is kept",
                        self.name,
                        LIST_TIMEOUT.as_secs()
                    ),
                }
            }
            if relist.finish() {
                break;
            }
        }
    }

    /// Tells every agent session that its lists may have changed; forgets closed ones.
    async fn tell_sessions(&self, tools: bool) {
        self.changes.send_modify(|(t, r)| {
            if tools {
                *t += 1;
            } else {
                *r += 1;
            }
        });
        let peers: Vec<Peer<RoleServer>> = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut gone = Vec::new();
        for (i, peer) in peers.iter().enumerate() {
            let sent = if tools {
                peer.notify_tool_list_changed().await
            } else {
                peer.notify_resource_list_changed().await
            };
            if sent.is_err() {
                gone.push(i);
            }
        }
        if !gone.is_empty() {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let mut i = 0;
            sessions.retain(|_| {
                let keep = !gone.contains(&i);
                i += 1;
                keep
            });
        }
    }
}

impl ClientHandler for Forwarder {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        // Coalesced: a server may announce changes far faster than it can be listed (a
        // flood of them once grew the gateway to gigabytes, a listing per notification).
        // Listed on a task of its own: the session that delivers this notification is the
        // one that must deliver the answers.
        if self.relists.tools.changed() {
            let this = self.clone();
            tokio::spawn(async move { this.relist(context.peer, true).await });
        }
    }

    async fn on_resource_list_changed(&self, context: NotificationContext<RoleClient>) {
        if self.relists.resources.changed() {
            let this = self.clone();
            tokio::spawn(async move { this.relist(context.peer, false).await });
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let key = (self.index, params.progress_token.clone());
        if let Some(route) = self.routes.route(key, &params) {
            // rmcp runs each notification on a task of its own, and a forward waits until
            // the agent's side has written it: with an agent that reads slowly (or not at
            // all), a server's flood of progress was queued without end (100,000 took
            // the gateway to 700 MB). Progress is advisory: past a few in flight, drop it.
            let Some(_forwarding) = Forwarding::start(&self.forwarding) else {
                tracing::debug!(
                    "[gateway] server={}: progress dropped, the agent is not keeping up",
                    self.name
                );
                return;
            };
            forward(&route, params).await;
        }
    }
}

/// How many progress notifications of one session may wait to be written to the agent.
const MAX_FORWARDING: usize = 64;

/// One progress notification on its way to the agent, counted while it is.
struct Forwarding(Arc<std::sync::atomic::AtomicUsize>);

impl Forwarding {
    fn start(count: &Arc<std::sync::atomic::AtomicUsize>) -> Option<Self> {
        use std::sync::atomic::Ordering::SeqCst;
        count
            .fetch_update(SeqCst, SeqCst, |n| (n < MAX_FORWARDING).then_some(n + 1))
            .ok()
            .map(|_| Self(Arc::clone(count)))
    }
}

impl Drop for Forwarding {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// How long one listing of a server's tools or resources may take, after a change.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// The most pages one listing reads: a server that answers `nextCursor` forever is cut.
const MAX_PAGES: usize = 100;
/// The most one listing keeps, as JSON: tool definitions are a few kilobytes each.
const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;
/// How long a re-listing waits for more changes first.
const RELIST_PAUSE: Duration = Duration::from_millis(50);

/// What a listing read, and why it stopped early if it did.
struct Listed<T> {
    items: Vec<T>,
    cut: Option<String>,
}

/// Reads pages (`page(cursor)` gives one page and the next cursor) up to [`MAX_PAGES`] and
/// [`MAX_LIST_BYTES`].
async fn list_pages<T, F, Fut>(mut page: F) -> Result<Listed<T>, ServiceError>
where
    T: serde::Serialize,
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut bytes = 0usize;
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let (got, next) = page(cursor.take()).await?;
        for item in got {
            bytes = bytes.saturating_add(serde_json::to_vec(&item).map_or(0, |v| v.len()));
            if bytes > MAX_LIST_BYTES {
                let cut = format!("{} MiB of definitions", MAX_LIST_BYTES >> 20);
                return Ok(Listed {
                    items,
                    cut: Some(cut),
                });
            }
            items.push(item);
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(Listed { items, cut: None }),
        }
    }
    Ok(Listed {
        items,
        cut: Some(format!("{MAX_PAGES} pages")),
    })
}

async fn list_tools(peer: &Peer<RoleClient>) -> Result<Listed<Tool>, ServiceError> {
    list_pages(|cursor| async move {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
        let page = peer.list_tools(Some(params)).await?;
        let tools = page
            .tools
            .into_iter()
            .filter(|tool| match tool_name_refusal(&tool.name) {
                Some(why) => {
                    let shown: String = tool.name.chars().take(64).collect();
                    tracing::warn!(
                        "[gateway] a downstream tool is left out: {why} (`{}`)",
                        shown.escape_debug()
                    );
                    false
                }
                None => true,
            })
            .collect();
        Ok((tools, page.next_cursor))
    })
    .await
}

/// Why a downstream tool's name is not shown to the agent: MCP's names are 1 to 128 of
/// `A-Z a-z 0-9 _ - .` (a name with a newline, an escape or a right-to-left override would
/// be drawn in the agent's context as something else), and the gateway's own tools are
/// not a downstream server's to take.
pub(crate) fn tool_name_refusal(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 128 {
        return Some("a tool name is 1 to 128 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Some("a tool name is made of A-Z, a-z, 0-9, `_`, `-` and `.`");
    }
    if [skills_prompt::VIEW_SKILL, super::LEAVE_SKILL].contains(&name) {
        return Some("the gateway's own tools have that name");
    }
    None
}

async fn list_resources(peer: &Peer<RoleClient>) -> Result<Listed<Resource>, ServiceError> {
    list_pages(|cursor| async move {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
        let page = peer.list_resources(Some(params)).await?;
        Ok((page.resources, page.next_cursor))
    })
    .await
}

/// A session's pending re-listings, of its server's tools and of its resources.
#[derive(Clone, Default)]
struct Relists {
    tools: Arc<Relist>,
    resources: Arc<Relist>,
}

/// At most one re-listing runs at a time; a change announced while it runs makes it list
/// once more when it is done, however many changes there were.
#[derive(Default)]
struct Relist {
    running: std::sync::atomic::AtomicBool,
    changed: std::sync::atomic::AtomicBool,
}

impl Relist {
    /// Notes a change; `true` when none runs and the caller is to start one.
    fn changed(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.changed.store(true, SeqCst);
        self.running
            .compare_exchange(false, true, SeqCst, SeqCst)
            .is_ok()
    }

    /// Takes the noted change: `true` when there is one to list.
    fn take(&self) -> bool {
        self.changed
            .swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    /// Ends the re-listing: `false` when a change came after the last [`Relist::take`]
    /// and its notifier started nothing (this one ran), so the caller lists again.
    fn finish(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.running.store(false, SeqCst);
        !(self.changed.load(SeqCst)
            && self
                .running
                .compare_exchange(false, true, SeqCst, SeqCst)
                .is_ok())
    }
}

/// A live session, and the child process behind a stdio one (killed when dropped).
struct Live {
    session: RunningService<RoleClient, Box<dyn DynService<RoleClient>>>,
    _child: Option<tokio::process::Child>,
}

/// One downstream server: its description, its session (or why there is none), its tools.
pub(crate) struct Server {
    pub(crate) spec: Spec,
    index: usize,
    routes: Routes,
    live: tokio::sync::Mutex<Result<Live, String>>,
    /// Why it is not running, after a start or restart that failed (what `live` holds, for
    /// a look without waiting on a restart).
    down: Mutex<Option<String>>,
    /// Bumped at every (re)start, so that two calls that saw the same crash restart once.
    generation: std::sync::atomic::AtomicU64,
    tools: Arc<Mutex<Vec<Tool>>>,
    resources: Arc<Mutex<Vec<Resource>>>,
    sessions: Sessions,
    changes: Changes,
    /// The calls waiting on it ([`MAX_CALLS`]).
    calls: Arc<tokio::sync::Semaphore>,
}

/// Every downstream server of the gateway file.
pub(crate) struct Servers {
    pub(crate) servers: Vec<Arc<Server>>,
    /// The agents' sessions (over HTTP, several), for list changes.
    pub(crate) sessions: Sessions,
    /// The list changes, for the 2026-07-28 clients' listen streams.
    pub(crate) changes: Changes,
}

impl Servers {
    /// Starts or connects to every server, at once; one that fails is logged and kept,
    /// down, so that a call to its tools says why.
    pub(crate) async fn start(specs: &[Spec]) -> Self {
        let routes = Routes::default();
        let sessions = Sessions::default();
        let changes: Changes = Arc::new(tokio::sync::watch::Sender::new((0, 0)));
        let servers: Vec<Arc<Server>> = specs
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                Arc::new(Server {
                    spec: spec.clone(),
                    index,
                    routes: routes.clone(),
                    live: tokio::sync::Mutex::new(Err("not started".to_string())),
                    down: Mutex::new(None),
                    generation: std::sync::atomic::AtomicU64::new(0),
                    tools: Arc::default(),
                    resources: Arc::default(),
                    sessions: Arc::clone(&sessions),
                    changes: Arc::clone(&changes),
                    calls: Arc::new(tokio::sync::Semaphore::new(MAX_CALLS)),
                })
            })
            .collect();
        // All at once: a slow server does not hold the others up.
        let starts: Vec<_> = servers
            .iter()
            .map(|s| {
                let s = Arc::clone(s);
                tokio::spawn(async move { s.restart(0).await })
            })
            .collect();
        for (server, start) in servers.iter().zip(starts) {
            let outcome = start
                .await
                .unwrap_or_else(|e| Err(format!("its start failed: {e}")));
            match outcome {
                Ok(count) => tracing::info!(
                    "[gateway] server={} started, {count} tools",
                    server.spec.name
                ),
                Err(why) => {
                    tracing::warn!("[gateway] server={} not started: {why}", server.spec.name)
                }
            }
        }
        Self {
            servers,
            sessions,
            changes,
        }
    }

    /// The server named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<Server>> {
        self.servers.iter().find(|s| s.spec.name == name)
    }
}

/// The names of the tools of the server `spec` describes: started (or connected to), listed,
/// stopped.
pub(crate) async fn list_once(spec: &Spec) -> Result<Vec<String>, String> {
    let server = Server {
        spec: spec.clone(),
        index: 0,
        routes: Routes::default(),
        live: tokio::sync::Mutex::new(Err("not started".to_string())),
        down: Mutex::new(None),
        generation: std::sync::atomic::AtomicU64::new(0),
        tools: Arc::default(),
        resources: Arc::default(),
        sessions: Sessions::default(),
        changes: Arc::new(tokio::sync::watch::Sender::new((0, 0))),
        calls: Arc::new(tokio::sync::Semaphore::new(MAX_CALLS)),
    };
    let (live, tools, _) = server.connect().await?;
    let _ = live.session.cancel().await;
    Ok(tools.into_iter().map(|t| t.name.to_string()).collect())
}

impl Server {
    /// The tools it listed at its last start.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        self.tools.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The resources it listed at its last start (none when it has no resources).
    pub(crate) fn resources(&self) -> Vec<Resource> {
        self.resources
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// (Re)starts the session, unless another call already did since `seen` (the
    /// generation the caller saw fail); the number of tools listed.
    async fn restart(&self, seen: u64) -> Result<usize, String> {
        use std::sync::atomic::Ordering;
        let mut live = self.live.lock().await;
        if self.generation.load(Ordering::SeqCst) != seen {
            return live
                .as_ref()
                .map(|_| self.tools().len())
                .map_err(Clone::clone);
        }
        // The old session (and its child) go first.
        *live = Err("restarting".to_string());
        let started = tokio::time::timeout(START_TIMEOUT, self.connect()).await;
        let outcome = match started {
            Ok(Ok((new, tools, resources))) => {
                let count = tools.len();
                *self.tools.lock().unwrap_or_else(|e| e.into_inner()) = tools;
                *self.resources.lock().unwrap_or_else(|e| e.into_inner()) = resources;
                *live = Ok(new);
                Ok(count)
            }
            Ok(Err(why)) => {
                *live = Err(why.clone());
                Err(why)
            }
            Err(_) => {
                let why = format!("no answer within {} s", START_TIMEOUT.as_secs());
                *live = Err(why.clone());
                Err(why)
            }
        };
        *self.down.lock().unwrap_or_else(|e| e.into_inner()) = outcome.as_ref().err().cloned();
        self.generation.fetch_add(1, Ordering::SeqCst);
        outcome
    }

    /// Why it is not running, when its last start or restart failed.
    pub(crate) fn down(&self) -> Option<String> {
        self.down.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    async fn connect(&self) -> Result<(Live, Vec<Tool>, Vec<Resource>), String> {
        let handler = Forwarder {
            index: self.index,
            name: self.spec.name.clone(),
            routes: self.routes.clone(),
            tools: Arc::clone(&self.tools),
            resources: Arc::clone(&self.resources),
            sessions: Arc::clone(&self.sessions),
            changes: Arc::clone(&self.changes),
            // Per session: a re-listing still running on a session that died (it fails
            // soon) must not hold up the next session's.
            relists: Relists::default(),
            forwarding: Arc::default(),
        };
        let (session, child) = match &self.spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    // Its log is the agent's to read, as with any MCP server it starts.
                    .stderr(std::process::Stdio::inherit())
                    .kill_on_drop(true);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let mut child = cmd
                    .spawn()
                    .map_err(|e| format!("cannot start `{command}`: {e}"))?;
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err("no pipes to the server".to_string());
                };
                let session = handler
                    .into_dyn()
                    .serve(Erased::new(wire::ChildLines::new(
                        &self.spec.name,
                        stdout,
                        stdin,
                    )))
                    .await
                    .map_err(|e| {
                        format!("the MCP session failed: {}", crate::client_error::init(&e))
                    })?;
                (session, Some(child))
            }
            Transport::Http { url, headers } => {
                use rmcp::transport::StreamableHttpClientTransport;
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let name = axum::http::HeaderName::try_from(name.as_str())
                        .map_err(|e| format!("header `{name}`: {e}"))?;
                    let value = axum::http::HeaderValue::try_from(value.as_str())
                        .map_err(|e| format!("header `{name}`: {e}"))?;
                    custom.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom);
                crate::tls::ensure_provider();
                let transport = StreamableHttpClientTransport::from_config(config);
                let session = handler
                    .into_dyn()
                    .serve(Erased::new(transport))
                    .await
                    .map_err(|e| {
                        format!("the MCP session failed: {}", crate::client_error::init(&e))
                    })?;
                (session, None)
            }
        };
        let tools = list_tools(session.peer())
            .await
            .map_err(|e| format!("tools/list failed: {}", crate::client_error::service(&e)))?;
        if let Some(why) = tools.cut {
            tracing::warn!(
                "[gateway] server={}: tools/list stopped after {why}; {} tools kept",
                self.spec.name,
                tools.items.len()
            );
        }
        let has_resources = session
            .peer_info()
            .is_some_and(|info| info.capabilities.resources.is_some());
        let resources = if has_resources {
            let listed = list_resources(session.peer()).await.map_err(|e| {
                format!(
                    "resources/list failed: {}",
                    crate::client_error::service(&e)
                )
            })?;
            if let Some(why) = listed.cut {
                tracing::warn!(
                    "[gateway] server={}: resources/list stopped after {why}; {} resources kept",
                    self.spec.name,
                    listed.items.len()
                );
            }
            listed.items
        } else {
            Vec::new()
        };
        let tools = tools.items;
        Ok((
            Live {
                session,
                _child: child,
            },
            tools,
            resources,
        ))
    }

    /// Calls tool `name` with `arguments`: its result as the server gave it; a server that
    /// is down, or dies under the call (it is restarted once), is a tool error that says
    /// so. Progress the agent asked for (`upstream`) is forwarded; `cancel` (the agent
    /// cancelled, or is gone) cancels the call downstream, and so does the server's
    /// `callTimeout`. Also what to log as the outcome when the result does not say it.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
        upstream: Option<(Peer<RoleServer>, ProgressToken)>,
        cancel: impl std::future::Future<Output = ()>,
    ) -> (Result<CallToolResult, ErrorData>, Option<&'static str>) {
        let Ok(_slot) = Arc::clone(&self.calls).try_acquire_owned() else {
            return (Ok(self.busy(name)), Some("busy"));
        };
        let limit = self.spec.call_timeout;
        let deadline = tokio::time::Instant::now() + limit;
        let mut cancel = std::pin::pin!(cancel);
        let timed_out = || {
            tracing::warn!(
                "[gateway] server={} tool={name}: no answer within {}; cancelled",
                self.spec.name,
                seconds(limit)
            );
            let text = format!(
                "MCP server `{}` did not answer the call of `{name}` within {} (its `callTimeout` in the gateway file); the call was cancelled.",
                self.spec.name,
                seconds(limit)
            );
            (Ok(tool_error(text)), Some("timeout"))
        };
        let cancelled = || {
            (
                Ok(tool_error(format!("The call of `{name}` was cancelled."))),
                Some("cancelled"),
            )
        };
        // A restart holds the session for up to START_TIMEOUT: that too is waiting.
        let current = tokio::select! {
            current = self.current() => current,
            () = &mut cancel => return cancelled(),
            () = tokio::time::sleep_until(deadline) => return timed_out(),
        };
        let (peer, generation) = match current {
            Ok(current) => current,
            Err(why) => {
                let text = format!(
                    "MCP server `{}` is not running ({why}); tool `{name}` cannot be called.",
                    self.spec.name
                );
                return (Ok(tool_error(text)), None);
            }
        };
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = arguments;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let sent = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(e) => return (Ok(tool_error(self.died(name, generation, &e).await)), None),
        };
        let key = (self.index, handle.progress_token.clone());
        if let Some(route) = upstream {
            for early in self.routes.insert(key.clone(), route.clone()) {
                forward(&route, early).await;
            }
        }
        let id = handle.id.clone();
        let outcome = tokio::select! {
            response = handle.await_response() => Ok(response),
            () = &mut cancel => Err("cancelled by the client"),
            () = tokio::time::sleep_until(deadline) => Err("timed out"),
        };
        self.routes.remove(&key);
        let response = match outcome {
            Ok(response) => response,
            Err(reason) => {
                // Given up here: so is the downstream call (which also lets rmcp forget it).
                let notice = rmcp::model::CancelledNotificationParam::new(
                    Some(id),
                    Some(reason.to_string()),
                );
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(CANCEL_SEND, peer.notify_cancelled(notice)).await;
                });
                return if reason == "timed out" {
                    timed_out()
                } else {
                    cancelled()
                };
            }
        };
        let result = match response {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(_) => Ok(tool_error(format!(
                "MCP server `{}` answered the call of `{name}` with something else than a tool result.",
                self.spec.name
            ))),
            Err(ServiceError::McpError(e)) => match wire::oversized(&e) {
                Some(bytes) => Ok(tool_error(format!(
                    "MCP server `{}` answered the call of `{name}` with a message over {} MiB ({bytes} bytes read), which the gateway does not read; ask for less (a narrower query, a page).",
                    self.spec.name,
                    wire::MAX_MESSAGE >> 20
                ))),
                None => Err(e),
            },
            Err(e) => Ok(tool_error(self.died(name, generation, &e).await)),
        };
        (result, None)
    }

    /// The refusal of a call over [`MAX_CALLS`].
    fn busy(&self, name: &str) -> CallToolResult {
        tracing::warn!(
            "[gateway] server={} tool={name}: refused, {MAX_CALLS} calls in flight",
            self.spec.name
        );
        tool_error(format!(
            "MCP server `{}` has {MAX_CALLS} calls in flight, the most the gateway lets wait on one server; call `{name}` again once one has been answered.",
            self.spec.name
        ))
    }

    /// The live session's peer and the generation it belongs to, or why there is none.
    async fn current(&self) -> Result<(Peer<RoleClient>, u64), String> {
        use std::sync::atomic::Ordering;
        let live = self.live.lock().await;
        match &*live {
            Ok(live) => Ok((
                live.session.peer().clone(),
                self.generation.load(Ordering::SeqCst),
            )),
            Err(why) => Err(why.clone()),
        }
    }

    /// Reads resource `uri` from the server: its contents as the server gave them; a server
    /// that is down or dies under the read (restarted once), or does not answer within its
    /// `callTimeout`, is an error that says so.
    pub(crate) async fn read(
        &self,
        uri: &str,
        cancel: impl std::future::Future<Output = ()>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let Ok(_slot) = Arc::clone(&self.calls).try_acquire_owned() else {
            return Err(ErrorData::internal_error(
                format!(
                    "MCP server `{}` has {MAX_CALLS} requests in flight, the most the gateway allows; read the resource again once one has been answered",
                    self.spec.name
                ),
                None,
            ));
        };
        let limit = self.spec.call_timeout;
        let timed_out = || {
            ErrorData::internal_error(
                format!(
                    "MCP server `{}` did not answer the read of a resource within {} (its `callTimeout` in the gateway file)",
                    self.spec.name,
                    seconds(limit)
                ),
                None,
            )
        };
        let cancelled = || ErrorData::internal_error("the read was cancelled", None);
        let deadline = tokio::time::Instant::now() + limit;
        let mut cancel = std::pin::pin!(cancel);
        let current = tokio::select! {
            current = self.current() => current,
            () = &mut cancel => return Err(cancelled()),
            () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
        };
        let (peer, generation) = current.map_err(|why| {
            ErrorData::internal_error(
                format!("MCP server `{}` is not running ({why})", self.spec.name),
                None,
            )
        })?;
        // rmcp cancels the request downstream when its future is dropped. A restart (in
        // `died`) is never dropped half-way: it would leave the server marked restarting.
        let response = tokio::select! {
            response = peer.read_resource(ReadResourceRequestParams::new(uri.to_string())) => response,
            () = &mut cancel => return Err(cancelled()),
            () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
        };
        match response {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(e)) => Err(e),
            Err(e) => Err(ErrorData::internal_error(
                self.died(uri, generation, &e).await,
                None,
            )),
        }
    }

    /// What to tell of a request (of tool or resource `name`) the server died under, after
    /// restarting it once.
    async fn died(&self, name: &str, generation: u64, error: &ServiceError) -> String {
        let error = crate::client_error::service(error);
        let restarted = self.restart(generation).await;
        tracing::warn!(
            "[gateway] server={} tool={name} failed ({error}); restart: {}",
            self.spec.name,
            match &restarted {
                Ok(_) => "ok".to_string(),
                Err(why) => why.clone(),
            }
        );
        match restarted {
            Ok(_) => format!(
                "MCP server `{}` stopped during the call of `{name}` ({error}); it was restarted: call the tool again if it is safe to repeat.",
                self.spec.name
            ),
            Err(why) => format!(
                "MCP server `{}` stopped during the call of `{name}` ({error}) and could not be restarted: {why}",
                self.spec.name
            ),
        }
    }
}

/// `limit` as the gateway file gives it: `120 s`, `0.5 s`.
fn seconds(limit: Duration) -> String {
    format!("{} s", limit.as_secs_f64())
}

/// A tool result with `isError: true` and this text.
pub(crate) fn tool_error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(token: i64, step: f64) -> ProgressNotificationParam {
        ProgressNotificationParam::new(
            ProgressToken(rmcp::model::NumberOrString::Number(token)),
            step,
        )
    }

    /// Names a downstream server may not give its tools: empty, over 128 characters, with
    /// characters MCP does not name (a newline, an escape, a right-to-left override), or
    /// the gateway's own.
    #[test]
    fn hostile_tool_names_are_left_out() {
        for fine in ["echo", "run_query", "db.query-2", &"x".repeat(128)] {
            assert_eq!(tool_name_refusal(fine), None, "{fine}");
        }
        for bad in [
            "",
            &"x".repeat(129),
            "x\n\u{1b}[31mred",
            "evil\u{202e}",
            "a b",
            "view_skill",
            "leave_skill",
        ] {
            assert!(tool_name_refusal(bad).is_some(), "{bad:?}");
        }
    }

    /// One re-listing at a time: changes while it runs make it run once more, and a change
    /// that comes as it ends is not lost.
    #[test]
    fn relists_are_coalesced() {
        let relist = Relist::default();
        assert!(relist.changed(), "the first change starts a re-listing");
        assert!(!relist.changed(), "one runs already");
        assert!(relist.take());
        assert!(!relist.take());
        // Changes during the listing: one more listing, however many there were.
        assert!(!relist.changed());
        assert!(!relist.changed());
        assert!(relist.take());
        assert!(!relist.take());
        assert!(relist.finish(), "nothing changed since: done");
        assert!(relist.changed(), "a later change starts another");
        // A change that came after the last take, before the end: the runner goes on.
        assert!(relist.take());
        assert!(!relist.changed());
        assert!(!relist.finish());
        assert!(relist.take());
        assert!(relist.finish());
    }

    /// Progress that comes before its route is recorded is delivered with it, in order; a
    /// route's own progress goes straight through; the early queue is bounded.
    #[test]
    fn early_progress_waits_for_its_route() {
        let routes: Routes<&str> = Routes::default();
        let key = |token: i64| (0, ProgressToken(rmcp::model::NumberOrString::Number(token)));
        assert_eq!(routes.route(key(1), &progress(1, 1.0)), None);
        assert_eq!(routes.route(key(2), &progress(2, 1.0)), None);
        assert_eq!(routes.route(key(1), &progress(1, 2.0)), None);
        let early = routes.insert(key(1), "agent");
        let steps: Vec<f64> = early.iter().map(|p| p.progress).collect();
        assert_eq!(steps, [1.0, 2.0]);
        assert_eq!(routes.route(key(1), &progress(1, 3.0)), Some("agent"));
        // The same token of another server is another request.
        assert_eq!(routes.route((1, key(1).1), &progress(1, 1.0)), None);
        routes.remove(&key(2));
        for step in 0..100 {
            let _ = routes.route(key(9), &progress(9, f64::from(step)));
        }
        assert_eq!(routes.table().early.len(), EARLY);
        assert_eq!(
            routes.insert(key(9), "agent").first().map(|p| p.progress),
            Some(36.0)
        );
    }
}
