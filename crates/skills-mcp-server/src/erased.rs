//! One transport type per role, whatever carries the messages.
//!
//! rmcp's service loop (`serve_inner` and the tasks it spawns) is generic over the service
//! and the transport, and was compiled once for each pair this crate serves or connects
//! with: ten copies of about 25,000 lines of LLVM IR each, the largest part of the crate's
//! build (docs/performance.md, "Building"). Behind [`Erased`] every transport of a role is
//! one type, and behind `into_dyn` every client handler one service, so the loop is compiled
//! once a role; behind [`Handler`] both servers are one handler type. The price is one boxed
//! future per message sent or received and per request handled.

use std::borrow::Cow;
use std::future::Future;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, ListPromptsResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SubscriptionFilter,
};
use rmcp::service::{
    NotificationContext, RequestContext, RxJsonRpcMessage, ServiceRole, SubscriptionContext,
    TxJsonRpcMessage,
};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::Boxed;

/// Any transport of role `R`, behind one type.
pub(crate) struct Erased<R: ServiceRole> {
    inner: Box<dyn Object<R>>,
    name: Cow<'static, str>,
}

impl<R: ServiceRole> Erased<R> {
    /// Erases `transport` (anything rmcp can serve over).
    pub(crate) fn new<T, E, A>(transport: T) -> Self
    where
        T: IntoTransport<R, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let transport = transport.into_transport();
        let name = type_name_of(&transport);
        Self {
            inner: Box::new(transport),
            name,
        }
    }
}

fn type_name_of<T>(_: &T) -> Cow<'static, str> {
    Cow::Borrowed(std::any::type_name::<T>())
}

/// The object-safe side of [`Transport`]: the same three calls, their futures boxed.
trait Object<R: ServiceRole>: Send {
    fn send(&mut self, item: TxJsonRpcMessage<R>) -> Boxed<'static, Result<(), std::io::Error>>;
    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<R>>>;
    fn close(&mut self) -> Boxed<'_, Result<(), std::io::Error>>;
}

impl<R, T> Object<R> for T
where
    R: ServiceRole,
    T: Transport<R> + 'static,
{
    fn send(&mut self, item: TxJsonRpcMessage<R>) -> Boxed<'static, Result<(), std::io::Error>> {
        let sent = Transport::send(self, item);
        Box::pin(async move { sent.await.map_err(io_error) })
    }

    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<R>>> {
        Box::pin(Transport::receive(self))
    }

    fn close(&mut self) -> Boxed<'_, Result<(), std::io::Error>> {
        Box::pin(async move { Transport::close(self).await.map_err(io_error) })
    }
}

/// `error` as an `io::Error`: itself when it is one (a pipe's `BrokenPipe` stays that),
/// else wrapped (`get_ref` gives it back, as `client_error` does).
fn io_error<E: std::error::Error + Send + Sync + 'static>(error: E) -> std::io::Error {
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(error);
    match boxed.downcast::<std::io::Error>() {
        Ok(io) => *io,
        Err(other) => std::io::Error::other(other),
    }
}

impl<R: ServiceRole> Transport<R> for Erased<R> {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        Cow::Borrowed("erased")
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<R>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<R: ServiceRole> std::fmt::Debug for Erased<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Erased")
            .field("transport", &self.name)
            .finish()
    }
}

/// Any of this crate's servers (the skills server, the gateway), behind one
/// [`ServerHandler`] type: rmcp's service loop, its HTTP service and its request dispatch are
/// compiled once for it, and a binary that never makes a gateway links none of the
/// gateway's code (the choice is made where a [`Handler`] is made, see [`crate::Makers`]).
///
/// It forwards every method either server implements; the others keep rmcp's defaults, as
/// both servers do.
pub(crate) struct Handler(Box<dyn DynHandler>);

impl Handler {
    pub(crate) fn new(server: impl ServerHandler + 'static) -> Self {
        Self(Box::new(server))
    }
}

type Res<T> = Result<T, ErrorData>;

/// The object-safe side of the [`ServerHandler`] methods our servers implement.
trait DynHandler: Send + Sync {
    fn get_info(&self) -> ServerConfig;
    fn on_initialized(&self, context: NotificationContext<RoleServer>) -> Boxed<'_, ()>;
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter>;
    fn listen(&self, context: SubscriptionContext) -> Boxed<'_, Res<()>>;
    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListToolsResult>>;
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<CallToolResponse>>;
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListPromptsResult>>;
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<GetPromptResponse>>;
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListResourcesResult>>;
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ReadResourceResponse>>;
    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListSkillsResult>>;
    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<GetSkillResult>>;
    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ReadResourceDirectoryResult>>;
}

impl<H: ServerHandler + 'static> DynHandler for H {
    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(self)
    }
    fn on_initialized(&self, context: NotificationContext<RoleServer>) -> Boxed<'_, ()> {
        Box::pin(ServerHandler::on_initialized(self, context))
    }
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        ServerHandler::accepted_subscription_filter(self, requested)
    }
    fn listen(&self, context: SubscriptionContext) -> Boxed<'_, Res<()>> {
        Box::pin(ServerHandler::listen(self, context))
    }
    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListToolsResult>> {
        Box::pin(ServerHandler::list_tools(self, request, context))
    }
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<CallToolResponse>> {
        Box::pin(ServerHandler::call_tool(self, request, context))
    }
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListPromptsResult>> {
        Box::pin(ServerHandler::list_prompts(self, request, context))
    }
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<GetPromptResponse>> {
        Box::pin(ServerHandler::get_prompt(self, request, context))
    }
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListResourcesResult>> {
        Box::pin(ServerHandler::list_resources(self, request, context))
    }
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ReadResourceResponse>> {
        Box::pin(ServerHandler::read_resource(self, request, context))
    }
    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ListSkillsResult>> {
        Box::pin(ServerHandler::list_skills(self, request, context))
    }
    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<GetSkillResult>> {
        Box::pin(ServerHandler::get_skill(self, request, context))
    }
    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Boxed<'_, Res<ReadResourceDirectoryResult>> {
        Box::pin(ServerHandler::read_resource_directory(
            self, request, context,
        ))
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.0.on_initialized(context).await;
    }
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.0.accepted_subscription_filter(requested)
    }
    async fn listen(&self, context: SubscriptionContext) -> Res<()> {
        self.0.listen(context).await
    }
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListToolsResult> {
        self.0.list_tools(request, context).await
    }
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<CallToolResponse> {
        self.0.call_tool(request, context).await
    }
    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListPromptsResult> {
        self.0.list_prompts(request, context).await
    }
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetPromptResponse> {
        self.0.get_prompt(request, context).await
    }
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListResourcesResult> {
        self.0.list_resources(request, context).await
    }
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceResponse> {
        self.0.read_resource(request, context).await
    }
    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListSkillsResult> {
        self.0.list_skills(request, context).await
    }
    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetSkillResult> {
        self.0.get_skill(request, context).await
    }
    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceDirectoryResult> {
        self.0.read_resource_directory(request, context).await
    }
}
