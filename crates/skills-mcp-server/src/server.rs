//! The rmcp handler: what the server announces, and which module answers each request
//! (`tools`, `prompts`, `extension`) after the index is brought up to date (`state`).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::state::Shared;
use crate::{Config, Locations, extension, prompts, tools};

/// What every request answers with: a result, or a JSON-RPC error for the client.
pub(crate) type Res<T> = Result<T, ErrorData>;

/// The MCP server over one discovery index.
#[derive(Debug, Clone)]
pub(crate) struct SkillsServer {
    state: Shared,
    page_size: usize,
    globals: Arc<skills_prompt::Globals>,
    locations: Locations,
    /// `None` when the `tool_inventory` tool is not offered.
    inventory: Option<crate::inventory::Cached>,
    max_tier: Option<u32>,
    /// Run before each look for changes of a `subscriptions/listen` stream.
    before_look: Option<crate::BeforeLook>,
    /// Ends the listen streams when the server stops.
    stopping: crate::subscribe::Stopping,
}

impl SkillsServer {
    pub(crate) fn new(config: &Config) -> Self {
        Self {
            state: Shared::scan(&config.roots, config.max_tier, config.gate.clone()),
            page_size: config.page_size.max(1),
            globals: Arc::new(config.globals.clone()),
            locations: config.locations,
            inventory: config
                .tool_inventory
                .then(crate::inventory::Cached::default),
            max_tier: config.max_tier,
            before_look: config.before_look.clone(),
            stopping: crate::subscribe::stopping(),
        }
    }
}

impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_skills_with_directory_read()
                .build(),
        )
        .with_server_info(Implementation::new(
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(
            "Agent Skills: folders of instructions for specific tasks. Call list_skills to see \
             them, get_skill (or skill) to load one when a task matches its description; the \
             init-skills prompt explains the workflow.",
        )
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(crate::subscribe::accepted())
    }

    async fn listen(&self, context: SubscriptionContext) -> Res<()> {
        crate::subscribe::listen(
            &self.state,
            context,
            self.before_look.as_ref(),
            self.stopping.clone(),
            None,
        )
        .await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListToolsResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let mut tools = tools::list(&self.state.lock().index, self.locations);
        if self.inventory.is_none() {
            tools.retain(|t| t.name != "tool_inventory");
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<CallToolResponse> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        let state = self.state.lock();
        let args = request.arguments.as_ref();
        let tools = tools::Tools {
            index: &state.index,
            gate: state.catalog.gate.as_deref(),
            globals: &self.globals,
            locations: self.locations,
            inventory: self.inventory.as_ref(),
            max_tier: self.max_tier,
        };
        tools.call(&request.name, args).map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Res<ListPromptsResult> {
        Ok(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetPromptResponse> {
        prompts::get(
            &self.state,
            &self.globals,
            &request.name,
            crate::state::session_peer(&context),
        )
        .await
        .map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListResourcesResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        extension::list_resources(&self.state, self.page_size, request.as_ref())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceResponse> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        extension::read(&self.state, &request.uri).map(Into::into)
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListSkillsResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        extension::list_skills(&self.state, self.page_size, request.as_ref())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetSkillResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        extension::get_skill(&self.state, &request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceDirectoryResult> {
        self.state
            .refresh(crate::state::session_peer(&context))
            .await;
        extension::read_directory(&self.state, &request.uri)
    }
}
