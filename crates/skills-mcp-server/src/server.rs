//! The rmcp handler: tools, the prompt, and the skills extension methods.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, Implementation, JsonObject, ListPromptsResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig, Skill as WireSkill, SkillFrontmatter, SkillResource, SkillResources, Tool,
    ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use skills_discovery::{Changed, Changes, DirWatch, Index, ScanOptions, Skill};

use crate::Config;
use crate::catalog::{self, Cache, Cached, Manifest};
use crate::text;

/// How long clients may cache `skills/list` and `skills/get` results. The server re-reads
/// the disk on every request, so a short time keeps hosts close to it.
const TTL_MS: u64 = 30_000;

/// The name of the usage-guide prompt.
const PROMPT: &str = "init-skills";

/// The name of the Level-1 router prompt (seed 000).
const ROUTER_PROMPT: &str = "skills-router";

/// What the server knows between requests.
#[derive(Debug)]
struct State {
    index: Index,
    /// Apart from the index, so that a request can borrow skills from the index while it
    /// updates the catalog.
    catalog: Catalog,
}

/// What the server keeps about the skills it serves over the extension.
#[derive(Debug)]
struct Catalog {
    /// The served skills' manifests and digests, kept while their files stat the same.
    cache: Cache,
    /// Skills already reported as not served, with the reason (each said once).
    reported: HashSet<(String, String)>,
    /// Change notification on the served skills' directories, by skill id (Linux).
    dirs: Option<DirWatch<String>>,
}

/// The MCP server over one discovery index.
#[derive(Debug, Clone)]
pub(crate) struct SkillsServer {
    state: Arc<Mutex<State>>,
    page_size: usize,
    globals: Arc<skills_prompt::Globals>,
}

type Res<T> = Result<T, ErrorData>;

impl SkillsServer {
    pub(crate) fn new(config: &Config) -> Self {
        // On this thread: the server is single-threaded, and worker threads would keep the
        // memory of the parse for the life of the process.
        let mut index = Index::scan_with(&config.roots, ScanOptions::default().parallel(false));
        for warning in index.warnings() {
            tracing::warn!("{warning}");
        }
        // With kernel change notification the refresh before each request costs one read
        // of an empty queue instead of a stat per skill; without it, it still works.
        let watching = index.watch();
        tracing::info!(skills = index.skills().len(), watching, "skills found");
        Self {
            state: Arc::new(Mutex::new(State {
                index,
                catalog: Catalog {
                    cache: Cache::default(),
                    reported: HashSet::new(),
                    dirs: DirWatch::new().ok(),
                },
            })),
            page_size: config.page_size.max(1),
            globals: Arc::new(config.globals.clone()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the index usable: it is only ever replaced
        // whole by `refresh`.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Brings the index up to date and, when the set of skills changed, tells the client.
    async fn refresh(&self, peer: &Peer<RoleServer>) {
        let changed = {
            let mut guard = self.lock();
            let state = &mut *guard;
            let changed = state.index.refresh();
            Self::untrust_changed(&mut state.catalog);
            if changed == Changed::Yes {
                for warning in state.index.warnings() {
                    tracing::warn!("{warning}");
                }
                // Forget the skills that are gone.
                let ids: HashSet<&str> =
                    state.index.skills().iter().map(|s| s.id.as_str()).collect();
                state.catalog.cache.retain(|id| ids.contains(id));
            }
            changed
        };
        if changed == Changed::Yes {
            tracing::info!("the skills changed; notifying the client");
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!("cannot send tools/list_changed: {e}");
            }
            if let Err(e) = peer.notify_resource_list_changed().await {
                tracing::debug!("cannot send resources/list_changed: {e}");
            }
        }
    }

    fn tools(index: &Index) -> Vec<Tool> {
        let annotations = |title: &str| {
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false)
        };
        let summary = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The skill identifier (directory name)"},
                "name": {"type": "string", "description": "The name from the frontmatter"},
                "description": {"type": "string", "description": "What the skill does and when to use it"}
            },
            "required": ["id", "name", "description"]
        });
        vec![
            Tool::new(
                "list_skills",
                "List all available skills with their names and descriptions. Skills are \
                 specialized packages of instructions, scripts, and resources for specific \
                 tasks. Use this to discover what skills are available.",
                object(json!({"type": "object", "properties": {}, "additionalProperties": false})),
            )
            .with_title("List skills")
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {"skills": {"type": "array", "items": summary}},
                "required": ["skills"]
            }))))
            .with_annotations(annotations("List skills")),
            Tool::new(
                "get_skill",
                "Get the full instructions (SKILL.md content) for a specific skill. Returns the \
                 skill content along with the absolute path to the skill file, enabling you to \
                 resolve and read any referenced resources (references/, scripts/, assets/) \
                 using your own file-reading tools.",
                object(json!({
                    "type": "object",
                    "properties": {"id": {
                        "type": "string", "minLength": 1,
                        "description": "The skill identifier (directory name), any letter case"
                    }},
                    "required": ["id"],
                    "additionalProperties": false
                })),
            )
            .with_title("Get skill")
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Absolute path of the SKILL.md"},
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "content": {"type": "string", "description": "The body, without the frontmatter"}
                },
                "required": ["path", "name", "description", "content"]
            }))))
            .with_annotations(annotations("Get skill")),
            Tool::new(
                "skill",
                text::skill_tool_description(index),
                object(json!({
                    "type": "object",
                    "properties": {"name": {
                        "type": "string", "minLength": 1,
                        "description": "Name of the skill to load (case-insensitive)"
                    }},
                    "required": ["name"],
                    "additionalProperties": false
                })),
            )
            .with_title("Load Skill")
            .with_annotations(annotations("Load Skill")),
            view_skill_tool().with_annotations(annotations("View skill")),
        ]
    }

    fn call(&self, name: &str, args: Option<&JsonObject>) -> Res<CallToolResult> {
        let state = self.lock();
        let index = &state.index;
        match name {
            skills_prompt::VIEW_SKILL => {
                only(args, &["skill_name"])?;
                let wanted = required(args, "skill_name")?;
                let Some(skill) = index.get(wanted) else {
                    return Ok(not_found(wanted, index));
                };
                self.view_skill(skill, index)
            }
            "list_skills" => {
                only(args, &[])?;
                let skills: Vec<Value> = index
                    .skills()
                    .iter()
                    .map(|s| json!({"id": s.id, "name": s.name, "description": s.description}))
                    .collect();
                let text = to_json(&skills)?;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(json!({ "skills": skills }));
                Ok(result)
            }
            "get_skill" => {
                only(args, &["id"])?;
                let id = required(args, "id")?;
                let Some(skill) = index.get(id) else {
                    return Ok(not_found(id, index));
                };
                let body = match skill.body() {
                    Ok(body) => body,
                    Err(e) => return Ok(unreadable(skill, &e)),
                };
                let value = json!({
                    "path": absolute(&skill.skill_md),
                    "name": skill.name,
                    "description": skill.description,
                    "content": body,
                });
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(to_json(&value)?)]);
                result.structured_content = Some(value);
                Ok(result)
            }
            "skill" => {
                only(args, &["name"])?;
                let wanted = required(args, "name")?;
                let Some(skill) = index.get(wanted) else {
                    return Ok(not_found(wanted, index));
                };
                let source = match skill.read() {
                    Ok(source) => source,
                    Err(e) => return Ok(unreadable(skill, &e)),
                };
                let text = format!(
                    "Loading: {}\nBase directory: {}\n\n{source}",
                    skill.id,
                    absolute(&skill.dir)
                );
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            other => Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}: the tools are list_skills, get_skill and skill",
                    text::clip(other)
                ),
                None,
            )),
        }
    }

    /// The manifest of an active skill, when it is served; the reason it is not is logged
    /// once. Built again only when a file or directory of the skill stats differently.
    fn served(state: &mut Catalog, skill: &Skill) -> Option<Arc<Manifest>> {
        if let Some(cached) = state.cache.get(&skill.id)
            && cached.same_skill(skill)
        {
            if cached.trusted {
                return Some(Arc::clone(&cached.manifest));
            }
            if cached.is_fresh(skill) {
                let manifest = Arc::clone(&cached.manifest);
                Self::trust(state, skill);
                return Some(manifest);
            }
        }
        match Cached::build(skill) {
            Ok(cached) => {
                let manifest = Arc::clone(&cached.manifest);
                state.cache.insert(cached);
                Self::trust(state, skill);
                Some(manifest)
            }
            Err(reason) => {
                state.cache.remove(&skill.id);
                if state
                    .reported
                    .insert((skill.id.clone(), reason.to_string()))
                {
                    tracing::warn!(
                        skill = %skill.skill_md.display(),
                        "not served over the skills extension (still available to the tools): {reason}"
                    );
                }
                None
            }
        }
    }

    /// Forgets the trust of skills whose directories changed (all of them when the
    /// kernel's queue overflowed; and the watch, when it failed).
    fn untrust_changed(state: &mut Catalog) {
        let Some(watch) = &mut state.dirs else {
            return;
        };
        let untrust = |cached: &mut Cached| cached.trusted = false;
        match watch.changed() {
            Ok(Changes::Keys(ids)) => {
                for id in ids {
                    state.cache.get_mut(&id).map(untrust);
                }
            }
            Ok(Changes::All) => state.cache.iter_mut().for_each(untrust),
            Err(e) => {
                tracing::warn!("change notification failed, checking files by stat: {e}");
                state.dirs = None;
                state.cache.iter_mut().for_each(untrust);
            }
        }
    }

    /// Watches a cached skill's directories and, once they are watched and it still stats
    /// as built, trusts it: later requests serve it without a `stat` until an event about
    /// one of its directories arrives. Checked after the watch is added, so a change in
    /// between is not missed.
    fn trust(state: &mut Catalog, skill: &Skill) {
        let (Some(watch), Some(cached)) = (&mut state.dirs, state.cache.get_mut(&skill.id)) else {
            return;
        };
        let watched = match cached.watch_paths() {
            Some(mut paths) => paths.all(|path| watch.add(skill.id.clone(), &path).is_ok()),
            None => return,
        };
        cached.trusted = watched && cached.is_fresh(skill);
    }

    /// The served skill whose id is exactly `id`.
    fn served_by_id<'a>(
        index: &'a Index,
        catalog: &mut Catalog,
        id: &str,
    ) -> Option<(&'a Skill, Arc<Manifest>)> {
        if !catalog::is_spec_name(id) {
            return None;
        }
        let skill = index.get(id).filter(|s| s.id == id)?;
        let manifest = Self::served(catalog, skill)?;
        Some((skill, manifest))
    }

    /// The wire entry of a served skill, with every file's digest. `None` (logged) when a
    /// file cannot be read now.
    fn entry(state: &mut Catalog, skill: &Skill, manifest: &Manifest) -> Option<WireSkill> {
        let cached = state.cache.get_mut(&manifest.id)?;
        if let Err(e) = cached.digests() {
            tracing::warn!(skill = %manifest.skill_uri(), "cannot read a file: {e}");
            return None;
        }
        if !cached.stamps_complete() {
            // A file changed between its stat and its hash: rebuild next time.
            cached.trusted = false;
        }
        let digests = cached.digests().ok()?;
        let resources: Vec<SkillResource> = manifest
            .files
            .iter()
            .zip(digests)
            .map(|(file, (hash, size))| {
                SkillResource::new(manifest.uri(file), catalog::digest_text(hash), *size)
            })
            .collect();
        // The manifest is only built when the frontmatter's name is the id; the index holds
        // the description. They are two reads of SKILL.md (the index's at its last refresh,
        // the manifest's when built), so an edit landing between them can mix two versions
        // in one answer; the next request sees the edit in both.
        let mut frontmatter = SkillFrontmatter::new(&*manifest.id, &skill.description);
        frontmatter.extra = manifest.extra();
        Some(WireSkill::new(
            manifest.skill_uri(),
            frontmatter,
            SkillResources::Files(resources),
        ))
    }

    /// The Level-2 prompt of `skill` as text, its scoped tools and resources as structured
    /// content. A broken `tools.json` or `resources.json` is an error result that says why.
    fn view_skill(&self, skill: &Skill, index: &Index) -> Res<CallToolResult> {
        use skills_prompt::{Builtin, Context, render_builtin};
        let rendered = Context::skill(skill, index.skills(), &self.globals)
            .and_then(|ctx| render_builtin(Builtin::Skill, &ctx).map(|text| (ctx, text)));
        let (ctx, text) = match rendered {
            Ok(done) => done,
            Err(e) => {
                tracing::warn!(skill = %skill.skill_md.display(), "cannot build the Level-2 prompt: {e}");
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "Skill '{}' could not be loaded: {e}",
                    skill.id
                ))]));
            }
        };
        let structured = json!({
            "skill": {"id": skill.id, "name": skill.name, "description": skill.description},
            "scoped_tools": ctx.scoped_tools,
            "scoped_resources": ctx.scoped_resources,
        });
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        Ok(result)
    }

    /// The Level-1 router prompt over the current index.
    fn router_prompt(&self) -> Res<String> {
        use skills_prompt::{Builtin, Context, render_builtin};
        let state = self.lock();
        Context::router(state.index.skills(), &self.globals)
            .and_then(|ctx| render_builtin(Builtin::Router, &ctx))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    fn page(&self, request: Option<&PaginatedRequestParams>, total: usize) -> Res<(usize, usize)> {
        let start = match request.and_then(|r| r.cursor.as_deref()) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&n| n <= total)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("invalid cursor {:?}", text::clip(cursor)),
                        None,
                    )
                })?,
        };
        Ok((start, start.saturating_add(self.page_size).min(total)))
    }

    fn list_skills_page(&self, request: Option<&PaginatedRequestParams>) -> Res<ListSkillsResult> {
        let mut guard = self.lock();
        let State { index, catalog } = &mut *guard;
        let total = index.skills().len();
        let (start, end) = self.page(request, total)?;
        let page = index.skills().get(start..end).unwrap_or_default();
        let mut skills = Vec::with_capacity(page.len());
        for skill in page {
            if let Some(manifest) = Self::served(catalog, skill)
                && let Some(entry) = Self::entry(catalog, skill, &manifest)
            {
                skills.push(entry);
            }
        }
        let mut result = ListSkillsResult::with_all_items(skills)
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = (end < total).then(|| end.to_string());
        Ok(result)
    }

    fn get_skill_entry(&self, uri: &str) -> Res<GetSkillResult> {
        let unknown = || {
            ErrorData::invalid_params(format!("No skill is served at {}", text::clip(uri)), None)
        };
        let (id, rest) = catalog::split_uri(uri).ok_or_else(unknown)?;
        if rest != Some("SKILL.md") {
            return Err(unknown());
        }
        let mut guard = self.lock();
        let State { index, catalog } = &mut *guard;
        let (skill, manifest) = Self::served_by_id(index, catalog, id).ok_or_else(unknown)?;
        let entry = Self::entry(catalog, skill, &manifest).ok_or_else(|| {
            ErrorData::internal_error(
                format!("cannot read the files of {}", text::clip(uri)),
                None,
            )
        })?;
        Ok(GetSkillResult::new(entry)
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    fn list_resources_page(
        &self,
        request: Option<&PaginatedRequestParams>,
    ) -> Res<ListResourcesResult> {
        let mut guard = self.lock();
        let State { index, catalog } = &mut *guard;
        let total = index.skills().len();
        let (start, end) = self.page(request, total)?;
        let page = index.skills().get(start..end).unwrap_or_default();
        let mut resources = Vec::new();
        for skill in page {
            let Some(manifest) = Self::served(catalog, skill) else {
                continue;
            };
            for file in &manifest.files {
                let resource = if &*file.rel == "SKILL.md" {
                    Resource::new(manifest.skill_uri(), &skill.name)
                        .with_description(&skill.description)
                } else {
                    Resource::new(manifest.uri(file), &*file.rel)
                };
                let resource = resource.with_size(file.size);
                resources.push(match catalog::mime_type(&file.rel) {
                    Some(mime) => resource.with_mime_type(mime),
                    None => resource,
                });
            }
        }
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = (end < total).then(|| end.to_string());
        Ok(result)
    }

    fn read(&self, uri: &str) -> Res<ReadResourceResult> {
        let unknown = || {
            ErrorData::invalid_params(
                format!("No resource is served at {}", text::clip(uri)),
                None,
            )
        };
        let (id, _) = catalog::split_uri(uri).ok_or_else(unknown)?;
        let (path, rel) = {
            let mut guard = self.lock();
            let State { index, catalog } = &mut *guard;
            let (_, manifest) = Self::served_by_id(index, catalog, id).ok_or_else(unknown)?;
            let file = manifest.file(uri).ok_or_else(unknown)?;
            (manifest.path(file), file.rel.clone())
        };
        let bytes = catalog::read_limited(&path).map_err(|e| {
            tracing::warn!(file = %path.display(), "cannot read: {e}");
            unknown()
        })?;
        let mime = catalog::mime_type(&rel);
        let contents = match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => {
                ResourceContents::text(text, uri).with_mime_type(mime.unwrap_or("text/plain"))
            }
            Ok(text) => ResourceContents::blob(STANDARD.encode(text.as_bytes()), uri)
                .with_mime_type(mime.unwrap_or("application/octet-stream")),
            Err(e) => ResourceContents::blob(STANDARD.encode(e.as_bytes()), uri)
                .with_mime_type(mime.unwrap_or("application/octet-stream")),
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }

    fn read_directory(&self, uri: &str) -> Res<ReadResourceDirectoryResult> {
        let not_dir = || {
            ErrorData::invalid_params(
                format!("{} is not a directory resource", text::clip(uri)),
                None,
            )
        };
        let (id, rest) = catalog::split_uri(uri).ok_or_else(not_dir)?;
        let manifest = {
            let mut guard = self.lock();
            let State { index, catalog } = &mut *guard;
            Self::served_by_id(index, catalog, id)
                .ok_or_else(not_dir)?
                .1
        };
        let dirs = manifest.dirs();
        // The directory asked for, relative, as its generated URI must match exactly.
        let rel = dirs
            .iter()
            .copied()
            .find(|d| manifest.dir_uri(d) == uri)
            .ok_or_else(not_dir)?;
        let _ = rest;
        let parent_of = |path: &str| path.rsplit_once('/').map_or("", |(p, _)| p).to_string();
        let mut children = Vec::new();
        for dir in dirs.iter().filter(|d| !d.is_empty() && parent_of(d) == rel) {
            let name = dir.rsplit('/').next().unwrap_or(dir);
            children.push(
                Resource::new(manifest.dir_uri(dir), name)
                    .with_mime_type(rmcp::model::DIRECTORY_MIME_TYPE),
            );
        }
        for file in manifest.files.iter().filter(|f| parent_of(&f.rel) == rel) {
            let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
            let resource = Resource::new(manifest.uri(file), name).with_size(file.size);
            children.push(match catalog::mime_type(&file.rel) {
                Some(mime) => resource.with_mime_type(mime),
                None => resource,
            });
        }
        Ok(ListResourcesResult::with_all_items(children))
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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListToolsResult> {
        self.refresh(&context.peer).await;
        let tools = Self::tools(&self.lock().index);
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<CallToolResponse> {
        self.refresh(&context.peer).await;
        self.call(&request.name, request.arguments.as_ref())
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Res<ListPromptsResult> {
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                PROMPT,
                Some(
                    "Background on working with skills through this server: what they are, \
                     when to load one, and the workflow.",
                ),
                None,
            )
            .with_title("Skills usage guide"),
            Prompt::new(
                ROUTER_PROMPT,
                Some(
                    "The Level-1 router prompt: every skill's name and description, the \
                     universal tools (view_skill first) and the global resources. Call \
                     view_skill to get a skill's Level-2 prompt.",
                ),
                None,
            )
            .with_title("Skills router (Level 1)"),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetPromptResponse> {
        let (text, description) = match request.name.as_str() {
            PROMPT => (
                skills_export::instructions(true),
                "How to work with skills through this server",
            ),
            ROUTER_PROMPT => {
                self.refresh(&context.peer).await;
                (
                    self.router_prompt()?,
                    "The Level-1 router prompt over the skills served now",
                )
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown prompt {other:?}: the prompts are {PROMPT} and {ROUTER_PROMPT}"
                    ),
                    None,
                ));
            }
        };
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        result.description = Some(description.to_string());
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListResourcesResult> {
        self.refresh(&context.peer).await;
        self.list_resources_page(request.as_ref())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceResponse> {
        self.refresh(&context.peer).await;
        self.read(&request.uri).map(Into::into)
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Res<ListSkillsResult> {
        self.refresh(&context.peer).await;
        self.list_skills_page(request.as_ref())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<GetSkillResult> {
        self.refresh(&context.peer).await;
        self.get_skill_entry(&request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Res<ReadResourceDirectoryResult> {
        self.refresh(&context.peer).await;
        self.read_directory(&request.uri)
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// seed 000's `view_skill`, as [`skills_prompt::view_skill`] defines it, with an output
/// schema for its structured content.
fn view_skill_tool() -> Tool {
    let def = skills_prompt::view_skill();
    let items = json!({"type": "array", "items": {"type": "object"}});
    let mut tool = Tool::new(def.name, def.description, object(def.input_schema))
        .with_raw_output_schema(Arc::new(object(json!({
            "type": "object",
            "properties": {
                "skill": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "name": {"type": "string"},
                        "description": {"type": "string"}
                    },
                    "required": ["id", "name", "description"]
                },
                "scoped_tools": items,
                "scoped_resources": items
            },
            "required": ["skill", "scoped_tools", "scoped_resources"]
        }))));
    if let Some(title) = def.title {
        tool = tool.with_title(title);
    }
    tool
}

fn to_json(value: &impl serde::Serialize) -> Res<String> {
    serde_json::to_string_pretty(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// The path made absolute (against the current directory), as text.
fn absolute(path: &std::path::Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Rejects arguments other than `allowed` (the input schemas are strict).
fn only(args: Option<&JsonObject>, allowed: &[&str]) -> Res<()> {
    if let Some(extra) = args
        .into_iter()
        .flat_map(|a| a.keys())
        .find(|k| !allowed.contains(&k.as_str()))
    {
        return Err(ErrorData::invalid_params(
            format!("unknown parameter `{}`", text::clip(extra)),
            None,
        ));
    }
    Ok(())
}

/// The non-empty string parameter `key`.
fn required<'a>(args: Option<&'a JsonObject>, key: &str) -> Res<&'a str> {
    match args.and_then(|a| a.get(key)) {
        None | Some(Value::Null) => Err(ErrorData::invalid_params(
            format!("missing required parameter `{key}`"),
            None,
        )),
        Some(Value::String(s)) if s.is_empty() => Err(ErrorData::invalid_params(
            format!("parameter `{key}` cannot be empty"),
            None,
        )),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ErrorData::invalid_params(
            format!("parameter `{key}` must be a string"),
            None,
        )),
    }
}

fn not_found(name: &str, index: &Index) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text::not_found(name, index))])
}

fn unreadable(skill: &Skill, error: &skills_discovery::DiscoveryError) -> CallToolResult {
    tracing::warn!(skill = %skill.skill_md.display(), "cannot read: {error}");
    CallToolResult::error(vec![ContentBlock::text(format!(
        "Skill '{}' could not be read: {error}",
        skill.id
    ))])
}
