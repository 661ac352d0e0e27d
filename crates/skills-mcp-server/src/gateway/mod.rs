//! `skills mcp --gateway FILE`: seed 000's progressive disclosure as a mechanism. The
//! gateway stands in front of the user's MCP servers (the gateway file lists them, in the
//! format agents use) and shows the agent, at Level 1, `view_skill` and the universal tools
//! only. `view_skill` makes a skill the session's active one: the tools its `tools.json`
//! references (`{"server": "trino", "name": "query"}`, or `"name": "*"`) appear, and the
//! client is told (`notifications/tools/list_changed`). Calls of visible tools are proxied
//! to their server with their progress and cancellation; a call of a tool outside the scope
//! is a tool error that names the skill that has it.

mod downstream;
mod file;
pub(crate) mod wire;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    Resource, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use skills_discovery::{Index, Skill};

pub use file::{
    DEFAULT_CALL_TIMEOUT, Downstream, GatewayFile, GatewayFileError, Transport, Universal,
};

use crate::bounded::ReadAhead;
use crate::server::Res;
use crate::state::Shared;
use crate::tools::{self, Refused};
use downstream::{Server, Servers, tool_error};

/// `view_skill`'s parameter.
const SKILL_NAME: &str = "skill_name";

/// The tool that leaves the active skill.
const LEAVE_SKILL: &str = "leave_skill";

/// The `_meta` key that names a request's active skill: how a 2026-07-28 client, which has
/// no session to hold it, says which skill's scope a request is in (docs/gateway.md).
/// `view_skill` answers with it in its result's `_meta`.
pub(crate) const SCOPE_KEY: &str = "io.github.skills-rs/activeSkill";

/// What a visible tool runs.
#[derive(Clone)]
enum Target {
    ViewSkill,
    LeaveSkill,
    Proxy { server: Arc<Server>, tool: String },
}

impl Target {
    /// Whether both run the same thing.
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::ViewSkill, Self::ViewSkill) | (Self::LeaveSkill, Self::LeaveSkill) => true,
            (
                Self::Proxy { server, tool },
                Self::Proxy {
                    server: other_server,
                    tool: other_tool,
                },
            ) => Arc::ptr_eq(server, other_server) && tool == other_tool,
            _ => false,
        }
    }
}

/// A tool as the agent sees it, and what calling it does.
#[derive(Clone)]
struct Visible {
    tool: Tool,
    target: Target,
}

/// The gateway's MCP server: one per agent session, over the shared downstream servers.
#[derive(Clone)]
pub(crate) struct GatewayServer {
    state: Shared,
    globals: Arc<skills_prompt::Globals>,
    servers: Arc<Servers>,
    /// The id of the session's active skill.
    active: Arc<Mutex<Option<String>>>,
    max_tier: Option<u32>,
    /// Over stdio, the read-ahead of the client's messages: a proxied call is parked
    /// while it waits on its server, and given up soon after the client's stream ends.
    read_ahead: Option<ReadAhead>,
    /// Ends the listen streams when the server stops.
    stopping: crate::subscribe::Stopping,
}

/// After the client's stream ends, how long the calls in flight have to be answered
/// before they are cancelled (downstream too) and the gateway exits. rmcp waits at most
/// 5 s for the answers; a client that closed its side rarely reads them.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

/// The tools of each server of `file`, by name, as the gateway would list them: each is
/// started (or connected to) as the gateway does, within `timeout`, asked for its tools and
/// stopped. `Err` says why a server could not be listed. What `skills lint --gateway`
/// checks `tools.json` references against. Needs a tokio runtime.
pub async fn list_tools(
    file: &GatewayFile,
    timeout: std::time::Duration,
) -> Vec<(String, Result<Vec<String>, String>)> {
    list_tools_boxed(file, timeout).await
}

/// Each server's name and its tools, or why they could not be listed.
type Listings = Vec<(String, Result<Vec<String>, String>)>;

// The body of `list_tools`, boxed where it is made, so the MCP client is compiled here and
// not again in each crate that lists (docs/performance.md, "Building").
fn list_tools_boxed(
    file: &GatewayFile,
    timeout: std::time::Duration,
) -> crate::Boxed<'_, Listings> {
    Box::pin(async move {
        let listings = file.servers.iter().map(|spec| {
            let spec = spec.clone();
            tokio::spawn(async move {
                let listed = tokio::time::timeout(timeout, downstream::list_once(&spec)).await;
                let listed = listed.unwrap_or_else(|_| {
                    Err(format!("no answer within {} s", timeout.as_secs_f64()))
                });
                (spec.name, listed)
            })
        });
        let handles: Vec<_> = listings.collect();
        let mut out = Vec::new();
        for (handle, spec) in handles.into_iter().zip(&file.servers) {
            out.push(
                handle.await.unwrap_or_else(|e| {
                    (spec.name.clone(), Err(format!("the listing failed: {e}")))
                }),
            );
        }
        out
    })
}

/// Starts or connects to the servers of `file`, for [`GatewayServer::new`].
pub(crate) async fn start(file: &GatewayFile) -> Arc<Servers> {
    Arc::new(Servers::start(&file.servers).await)
}

impl GatewayServer {
    pub(crate) fn new(
        config: &crate::Config,
        servers: Arc<Servers>,
        read_ahead: Option<ReadAhead>,
    ) -> Self {
        Self {
            state: Shared::scan(&config.roots, config.max_tier, config.gate.clone()),
            globals: Arc::new(config.globals.clone()),
            servers,
            active: Arc::new(Mutex::new(None)),
            max_tier: config.max_tier,
            read_ahead,
            stopping: crate::subscribe::stopping(),
        }
    }

    /// The active skill `context` is judged against: the skill its `_meta` names under
    /// [`SCOPE_KEY`] (`null`: none), else the session's (2025-11-25), else none (a
    /// 2026-07-28 request has no session). A name that is not a skill's, or a skill above
    /// the tier served, is an error (`-32602`): what `view_skill` would refuse, `_meta`
    /// cannot enter.
    fn scope(&self, context: &RequestContext<RoleServer>) -> Result<Option<String>, ErrorData> {
        let Some(named) = context.meta.0.get(SCOPE_KEY) else {
            return Ok(if crate::state::is_stateless(context) {
                None
            } else {
                self.active()
            });
        };
        let id = match named {
            serde_json::Value::Null => return Ok(None),
            serde_json::Value::String(id) => id,
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "`_meta` {SCOPE_KEY:?} must be a skill's name (a string) or null, not {}",
                        crate::text::clip(&other.to_string())
                    ),
                    None,
                ));
            }
        };
        let state = self.state.lock();
        let Some(skill) = state.index.get(id) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "`_meta` {SCOPE_KEY:?} names skill {:?}, which this gateway does not have: call view_skill with a skill's name, and send the name its result's `_meta` gives",
                    crate::text::clip(id)
                ),
                None,
            ));
        };
        if self.max_tier.is_some() {
            let declared = skill.read().ok().and_then(|s| crate::tier::declared(&s));
            if let Some(why) = crate::tier::refusal(&skill.id, declared, self.max_tier) {
                return Err(ErrorData::invalid_params(why, None));
            }
        }
        Ok(Some(skill.id.clone()))
    }

    /// Resolves when the answer to a proxied request is no longer wanted: the client
    /// cancelled it, or its stream ended [`DRAIN`] ago.
    async fn given_up(&self, cancelled: impl std::future::Future<Output = ()>) {
        let gone = async {
            match &self.read_ahead {
                Some(read_ahead) => {
                    read_ahead.closed().await;
                    tokio::time::sleep(DRAIN).await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = cancelled => {}
            () = gone => {}
        }
    }

    /// Runs `proxied`, a request that waits on a downstream server, parked: its wait
    /// does not stop the reading of the client (see [`crate::bounded`]).
    async fn parked<T>(
        &self,
        id: &rmcp::model::RequestId,
        proxied: impl std::future::Future<Output = T>,
    ) -> T {
        if let Some(read_ahead) = &self.read_ahead {
            read_ahead.park(id);
        }
        let out = proxied.await;
        if let Some(read_ahead) = &self.read_ahead {
            read_ahead.unpark(id);
        }
        out
    }

    fn active(&self) -> Option<String> {
        self.active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The downstream tools `reference` names (a `tools.json` entry with a `server`):
    /// one, or all of the server's for `"name": "*"`; none when the server or the tool is
    /// not there (the log says so).
    fn resolve(&self, reference: &skills_prompt::Tool, owner: &str) -> Vec<Visible> {
        let Some(server_name) = reference.server() else {
            return Vec::new();
        };
        let Some(server) = self.servers.get(server_name) else {
            tracing::warn!(
                "[gateway] {owner} references tool `{}` of server `{server_name}`, which the gateway file does not list",
                reference.name
            );
            return Vec::new();
        };
        let tools = server.tools();
        let chosen: Vec<Tool> = if reference.name == "*" {
            tools
        } else {
            let found: Vec<Tool> = tools
                .into_iter()
                .filter(|t| t.name == reference.name)
                .collect();
            if found.is_empty() {
                tracing::warn!(
                    "[gateway] {owner} references tool `{}`, which server `{server_name}` does not offer",
                    reference.name
                );
            }
            found
        };
        chosen
            .into_iter()
            .map(|tool| Visible {
                target: Target::Proxy {
                    server: Arc::clone(server),
                    tool: tool.name.to_string(),
                },
                tool,
            })
            .collect()
    }

    /// The downstream resources `reference` names (a `resources.json` entry with a
    /// `server`): one by URI, or all of the server's for `"uri": "*"`.
    fn resolve_resource(
        &self,
        reference: &skills_prompt::Resource,
        owner: &str,
    ) -> Vec<(Resource, Arc<Server>)> {
        let Some(server_name) = reference.server() else {
            return Vec::new();
        };
        let Some(server) = self.servers.get(server_name) else {
            tracing::warn!(
                "[gateway] {owner} references resource `{}` of server `{server_name}`, which the gateway file does not list",
                reference.uri
            );
            return Vec::new();
        };
        server
            .resources()
            .into_iter()
            .filter(|r| reference.uri == "*" || r.uri == reference.uri)
            .map(|r| (r, Arc::clone(server)))
            .collect()
    }

    /// The scoped resources of `skill`: the downstream resources its `resources.json`
    /// references.
    fn scoped_resources(&self, skill: &Skill) -> Vec<(Resource, Arc<Server>)> {
        match skills_prompt::load_package(skill) {
            Ok((_, resources)) => resources
                .iter()
                .flat_map(|r| self.resolve_resource(r, &format!("skill `{}`", skill.id)))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The resources the session sees: the global references, then the active skill's.
    fn visible_resources(
        &self,
        index: &Index,
        active: Option<&str>,
    ) -> Vec<(Resource, Arc<Server>)> {
        let mut all: Vec<(Resource, Arc<Server>)> = self
            .globals
            .resources
            .iter()
            .flat_map(|r| self.resolve_resource(r, "--resources"))
            .collect();
        if let Some(skill) = active.and_then(|id| index.get(id).cloned()) {
            all.extend(self.scoped_resources(&skill));
        }
        let mut seen = std::collections::HashSet::new();
        all.retain(|(r, _)| seen.insert(r.uri.clone()));
        all
    }

    /// The scoped tools of `skill`: the downstream tools its `tools.json` references.
    fn scoped(&self, skill: &Skill) -> Vec<Visible> {
        match skills_prompt::load_package(skill) {
            Ok((tools, _)) => tools
                .iter()
                .flat_map(|t| self.resolve(t, &format!("skill `{}`", skill.id)))
                .collect(),
            Err(e) => {
                tracing::warn!("[gateway] skill `{}`: {e}", skill.id);
                Vec::new()
            }
        }
    }

    /// What the agent sees now: `view_skill`, `leave_skill` when a skill is active, the
    /// universal tools, and the active skill's scoped tools; the first of a name wins.
    fn visible(&self, index: &Index, active: Option<&str>) -> Vec<Visible> {
        let mut all = vec![Visible {
            tool: tools::view_skill_tool(),
            target: Target::ViewSkill,
        }];
        let active = active.and_then(|id| index.get(id).cloned());
        if active.is_some() {
            all.push(Visible {
                tool: leave_skill_tool(),
                target: Target::LeaveSkill,
            });
        }
        for server in &self.servers.servers {
            for tool in server.tools() {
                if server.spec.universal.includes(&tool.name) {
                    all.push(Visible {
                        target: Target::Proxy {
                            server: Arc::clone(server),
                            tool: tool.name.to_string(),
                        },
                        tool,
                    });
                }
            }
        }
        for global in &self.globals.tools {
            all.extend(self.resolve(global, "--tools"));
        }
        if let Some(skill) = &active {
            all.extend(self.scoped(skill));
        }
        let mut seen = std::collections::HashSet::new();
        all.retain(|v| {
            let first = seen.insert(v.tool.name.to_string());
            if !first {
                tracing::debug!("[gateway] a second tool named `{}` is hidden", v.tool.name);
            }
            first
        });
        all
    }

    /// The skills whose scope has a tool named `name`.
    fn skills_with(&self, index: &Index, name: &str) -> Vec<String> {
        index
            .skills()
            .iter()
            .filter(|skill| self.scoped(skill).iter().any(|v| v.tool.name == name))
            .map(|skill| skill.id.clone())
            .collect()
    }

    /// The servers that are not running and have a tool named `name` (their universal
    /// tools name it, or a skill's `tools.json` references it of them), or else those that
    /// may have it (all their tools are universal), each said with why. Their tools are not
    /// listed, so a call of one would otherwise be an unknown tool.
    fn down_servers_with(&self, name: &str) -> Vec<String> {
        let referenced: Vec<String> = {
            let state = self.state.lock();
            state
                .index
                .skills()
                .iter()
                .filter_map(|skill| skills_prompt::load_package(skill).ok())
                .flat_map(|(tools, _)| tools)
                .filter(|t| t.name == name)
                .filter_map(|t| t.server().map(str::to_string))
                .collect()
        };
        let mut named = Vec::new();
        let mut maybe = Vec::new();
        for server in &self.servers.servers {
            let Some(why) = server.down() else {
                continue;
            };
            let spec = &server.spec;
            let listed = match &spec.universal {
                Universal::Tools(names) => names.iter().any(|n| n == name),
                _ => false,
            };
            if listed || referenced.contains(&spec.name) {
                named.push(format!(
                    "it is a tool of MCP server `{}`, which is not running ({why})",
                    spec.name
                ));
            } else if spec.universal == Universal::All {
                maybe.push(format!(
                    "MCP server `{}`, whose tools are all universal, is not running ({why}), so its tools are not listed",
                    spec.name
                ));
            }
        }
        // A server known to have the tool says it all; the others only may have it.
        if named.is_empty() { maybe } else { named }
    }

    /// Makes `id` the active skill (or none), and tells the client its tools changed.
    async fn set_active(&self, id: Option<String>, peer: &rmcp::Peer<RoleServer>) {
        *self.active.lock().unwrap_or_else(|e| e.into_inner()) = id;
        if let Err(e) = peer.notify_tool_list_changed().await {
            tracing::debug!("cannot send tools/list_changed: {e}");
        }
        if let Err(e) = peer.notify_resource_list_changed().await {
            tracing::debug!("cannot send resources/list_changed: {e}");
        }
    }

    async fn view_skill(
        &self,
        args: Option<&rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, Refused> {
        tools::only(args, &[SKILL_NAME])?;
        let wanted = tools::required(args, SKILL_NAME)?;
        let (result, activated) = {
            let state = self.state.lock();
            let index = &state.index;
            let Some(skill) = index.get(wanted) else {
                return Ok(tools::not_found(wanted, index));
            };
            if let Some(why) = state.catalog.gate.as_ref().and_then(|g| g.refusal(skill)) {
                return Ok(tool_error(format!(
                    "Skill '{}' is not served: {why}",
                    skill.id
                )));
            }
            if self.max_tier.is_some() {
                let declared = skill.read().ok().and_then(|s| crate::tier::declared(&s));
                if let Some(why) = crate::tier::refusal(&skill.id, declared, self.max_tier) {
                    return Ok(tool_error(why));
                }
            }
            // The prompt describes the tools a call of each name runs: a scoped tool whose
            // name a universal tool (or an earlier one) already has is hidden, as it is
            // from `tools/list`.
            let shown = self.visible(index, Some(&skill.id));
            let scoped: Vec<Visible> = self
                .scoped(skill)
                .into_iter()
                .filter(|v| {
                    shown
                        .iter()
                        .any(|s| s.tool.name == v.tool.name && s.target.same(&v.target))
                })
                .collect();
            let resolved: Vec<skills_prompt::Tool> =
                scoped.iter().filter_map(|v| convert(&v.tool)).collect();
            let resources: Vec<skills_prompt::Resource> = self
                .scoped_resources(skill)
                .iter()
                .filter_map(|(r, _)| convert(r))
                .collect();
            let result = tools::view_skill_with(
                skill,
                index,
                state.catalog.gate.as_deref(),
                &self.globals,
                |ctx| {
                    // References become the downstream tools and resources they name;
                    // definitions stay.
                    ctx.scoped_tools.retain(|t| t.server().is_none());
                    ctx.scoped_tools.extend(resolved);
                    ctx.scoped_resources.retain(|r| r.server().is_none());
                    ctx.scoped_resources.extend(resources);
                },
            )?;
            let ok = result.is_error != Some(true);
            (result, ok.then(|| (skill.id.clone(), scoped.len())))
        };
        let mut result = result;
        if let Some((id, count)) = activated {
            tracing::info!("[gateway] scope: skill={id} tools={count}");
            result.meta = Some(scope_meta(Some(&id)));
            // A 2026-07-28 request has no session to hold the scope: its client sends the
            // `_meta` above with the requests that are in it.
            if !crate::state::is_stateless(context) {
                self.set_active(Some(id), &context.peer).await;
            }
        }
        Ok(result)
    }
}

/// An rmcp definition as the prompt crate's (the same JSON shape).
fn convert<T: serde::de::DeserializeOwned>(value: &impl serde::Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// The `_meta` of a result that enters `skill` (or leaves the scope: `None`).
fn scope_meta(skill: Option<&str>) -> rmcp::model::MetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert(SCOPE_KEY.to_string(), json!(skill));
    rmcp::model::MetaObject(meta)
}

fn leave_skill_tool() -> Tool {
    Tool::new(
        LEAVE_SKILL,
        "Leave the active skill: its scoped tools are removed and the tools are the router's \
         again (Level 1). Call view_skill to enter another skill instead.",
        tools::object(json!({"type": "object", "properties": {}, "additionalProperties": false})),
    )
    .with_title("Leave skill")
}

impl ServerHandler for GatewayServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "skills-gateway",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(
            "A gateway to MCP servers scoped by Agent Skills: call view_skill with a skill's \
             name to load its instructions; its tools then appear in tools/list. leave_skill \
             returns to the router.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListToolsResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let active = self.scope(&context)?;
        let tools = {
            let state = self.state.lock();
            self.visible(&state.index, active.as_deref())
        };
        Ok(ListToolsResult::with_all_items(
            tools.into_iter().map(|v| v.tool).collect(),
        ))
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(crate::subscribe::accepted())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Res<()> {
        crate::subscribe::listen(
            &self.state,
            context,
            None,
            self.stopping.clone(),
            Some(self.servers.changes.subscribe()),
        )
        .await
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // Told when a downstream server's tools or resources change.
        self.servers
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(context.peer);
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListResourcesResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let active = self.scope(&context)?;
        let resources = {
            let state = self.state.lock();
            self.visible_resources(&state.index, active.as_deref())
        };
        Ok(ListResourcesResult::with_all_items(
            resources.into_iter().map(|(r, _)| r).collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceResponse> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let uri = request.uri;
        let active = self.scope(&context)?;
        let (found, elsewhere) = {
            let state = self.state.lock();
            let found = self
                .visible_resources(&state.index, active.as_deref())
                .into_iter()
                .find(|(r, _)| r.uri == uri);
            let elsewhere: Vec<String> = if found.is_none() {
                state
                    .index
                    .skills()
                    .iter()
                    .filter(|s| self.scoped_resources(s).iter().any(|(r, _)| r.uri == uri))
                    .map(|s| s.id.clone())
                    .collect()
            } else {
                Vec::new()
            };
            (found, elsewhere)
        };
        let Some((_, server)) = found else {
            let shown = crate::text::clip(&uri);
            tracing::info!(
                "[gateway] skill={} resource={shown} refused: {}",
                active.as_deref().unwrap_or("-"),
                if elsewhere.is_empty() {
                    "unknown resource"
                } else {
                    "outside the scope"
                }
            );
            return Err(match elsewhere.first() {
                Some(skill) => ErrorData::invalid_params(
                    format!(
                        "resource {shown:?} is not in the current scope: it belongs to skill `{skill}`; call view_skill with skill_name \"{skill}\" first"
                    ),
                    None,
                ),
                None => ErrorData::resource_not_found(
                    format!("no resource {shown:?}"),
                    Some(json!({"uri": uri})),
                ),
            });
        };
        let started = Instant::now();
        let result = self
            .parked(
                &context.id,
                server.read(&uri, self.given_up(context.ct.cancelled())),
            )
            .await;
        tracing::info!(
            "[gateway] skill={} resource={} server={} duration={:.1}ms outcome={}",
            active.as_deref().unwrap_or("-"),
            crate::text::clip(&uri),
            server.spec.name,
            started.elapsed().as_secs_f64() * 1000.0,
            if result.is_ok() { "ok" } else { "error" }
        );
        result.map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<CallToolResponse> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let name = request.name.to_string();
        let active = self.scope(&context)?;
        let (visible, scoped_elsewhere) = {
            let state = self.state.lock();
            let visible = self.visible(&state.index, active.as_deref());
            let found = visible.into_iter().find(|v| v.tool.name == name);
            let elsewhere = if found.is_none() {
                self.skills_with(&state.index, &name)
            } else {
                Vec::new()
            };
            (found, elsewhere)
        };
        let args = request.arguments.as_ref();
        let refused = |why: String| {
            tool_error(format!(
                "Invalid arguments for `{name}`: {why}. Call it again with the arguments its input schema describes."
            ))
        };
        let Some(visible) = visible else {
            if scoped_elsewhere.is_empty() {
                let down = self.down_servers_with(&name);
                if !down.is_empty() {
                    tracing::info!(
                        "[gateway] skill={} tool={} refused: its server is not running",
                        active.as_deref().unwrap_or("-"),
                        crate::text::clip(&name)
                    );
                    return Ok(tool_error(format!(
                        "Tool `{}` is not available: {}.",
                        crate::text::clip(&name),
                        down.join("; ")
                    ))
                    .into());
                }
                tracing::info!(
                    "[gateway] skill={} tool={} refused: unknown tool",
                    active.as_deref().unwrap_or("-"),
                    crate::text::clip(&name)
                );
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {:?}", crate::text::clip(&name)),
                    None,
                ));
            }
            tracing::info!(
                "[gateway] skill={} tool={name} refused: outside the scope",
                active.as_deref().unwrap_or("-")
            );
            return Ok(tool_error(format!(
                "Tool `{name}` is not available {}: it belongs to skill {}. Call view_skill with skill_name \"{}\" first{}.",
                match &active {
                    Some(id) => format!("in the scope of skill `{id}`"),
                    None => "at the router (Level 1)".to_string(),
                },
                scoped_elsewhere
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                scoped_elsewhere.first().map_or("", String::as_str),
                if crate::state::is_stateless(&context) {
                    format!(
                        ", then send the `_meta` its result gives (\"{SCOPE_KEY}\": \"{}\") with this call",
                        scoped_elsewhere.first().map_or("", String::as_str)
                    )
                } else {
                    String::new()
                },
            ))
            .into());
        };
        match visible.target {
            Target::ViewSkill => match self.view_skill(args, &context).await {
                Ok(result) => Ok(result.into()),
                Err(Refused::Input(why)) => Ok(refused(why).into()),
                Err(Refused::Protocol(e)) => Err(e),
            },
            Target::LeaveSkill => {
                match tools::only(args, &[]) {
                    Ok(()) => {}
                    Err(Refused::Input(why)) => return Ok(refused(why).into()),
                    Err(Refused::Protocol(e)) => return Err(e),
                }
                let left = active;
                tracing::info!(
                    "[gateway] scope: left skill={}",
                    left.as_deref().unwrap_or("-")
                );
                if !crate::state::is_stateless(&context) {
                    self.set_active(None, &context.peer).await;
                }
                let mut result = CallToolResult::success(vec![rmcp::model::ContentBlock::text(
                    format!(
                        "Left skill `{}`; the router's tools are back. Call view_skill to load another skill.",
                        left.as_deref().unwrap_or("-")
                    ),
                )]);
                result.meta = Some(scope_meta(None));
                Ok(result.into())
            }
            Target::Proxy { server, tool } => {
                let started = Instant::now();
                let upstream = context
                    .meta
                    .get_progress_token()
                    .map(|token| (context.peer.clone(), token));
                let (result, outcome) = self
                    .parked(
                        &context.id,
                        server.call(
                            &tool,
                            request.arguments,
                            upstream,
                            self.given_up(context.ct.cancelled()),
                        ),
                    )
                    .await;
                let outcome = match (&result, outcome) {
                    (_, Some(outcome)) => outcome,
                    (Ok(r), None) if r.is_error == Some(true) => "tool-error",
                    (Ok(_), None) => "ok",
                    (Err(_), None) => "error",
                };
                tracing::info!(
                    "[gateway] skill={} tool={tool} server={} duration={:.1}ms outcome={outcome}",
                    active.as_deref().unwrap_or("-"),
                    server.spec.name,
                    started.elapsed().as_secs_f64() * 1000.0
                );
                result.map(Into::into)
            }
        }
    }
}
