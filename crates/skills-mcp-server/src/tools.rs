//! The tools: `list_skills`, `get_skill` and `skill` for today's clients, seed 000's
//! `view_skill` for progressive disclosure, and the checks of their arguments.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use skills_discovery::{Index, Skill};
use skills_prompt::Globals;

use crate::Locations;
use crate::server::Res;
use crate::text;

/// The tools, with the `skill` tool's description listing the skills in `index`.
pub(crate) fn list(index: &Index, locations: Locations) -> Vec<Tool> {
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
    let (get_skill, path) = match locations {
        Locations::Paths => (
            "Get the full instructions (SKILL.md content) for a specific skill. Returns the \
             skill content along with the absolute path to the skill file, enabling you to \
             resolve and read any referenced resources (references/, scripts/, assets/) \
             using your own file-reading tools.",
            "Absolute path of the SKILL.md",
        ),
        Locations::Uris => (
            "Get the full instructions (SKILL.md content) for a specific skill. Returns the \
             skill content along with the skill:// URI of the skill file; read any \
             referenced resources (references/, scripts/, assets/) with resources/read at \
             URIs relative to it.",
            "The skill:// URI of the SKILL.md",
        ),
    };
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
            get_skill,
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
                "path": {"type": "string", "description": path},
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
            object(skill_schema(locations)),
        )
        .with_title("Load Skill")
        .with_annotations(annotations("Load Skill")),
        view_skill_tool().with_annotations(annotations("View skill")),
        Tool::new(
            "tool_inventory",
            "The tools on this machine: the MCP servers the coding agents are configured \
             with and the CLIs on PATH, grouped by domain (git-github, container, database, \
             http, ...). With skill_name, which tool each domain that skill needs will use \
             here, along MCP -> CLI -> HTTP, as log lines to follow. Built once per session; \
             refresh: true builds it again.",
            object(json!({
                "type": "object",
                "properties": {
                    "skill_name": {
                        "type": "string", "minLength": 1,
                        "description": "A skill to resolve (case-insensitive)"
                    },
                    "refresh": {
                        "type": "boolean",
                        "description": "Build the inventory again (after configuring a server or installing a CLI)"
                    }
                },
                "additionalProperties": false
            })),
        )
        .with_title("Tool inventory")
        .with_raw_output_schema(Arc::new(object(json!({
            "type": "object",
            "properties": {
                "inventory": {"type": "object"},
                "skill": {"type": ["object", "null"]}
            },
            "required": ["inventory", "skill"]
        }))))
        .with_annotations(
            ToolAnnotations::with_title("Tool inventory")
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}

/// The `skill` tool's input: `name`, and on a server on the client's machine `repo`, whose
/// `.claude-ops/skills` override skills of the same name for that call (seed 004's
/// repo-provided skills). A remote server has no repositories of the client's to read.
fn skill_schema(locations: Locations) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "name".to_string(),
        json!({
            "type": "string", "minLength": 1,
            "description": "Name of the skill to load (case-insensitive)"
        }),
    );
    if locations == Locations::Paths {
        properties.insert("repo".to_string(), json!({
            "type": "string", "minLength": 1,
            "description": "Absolute path of the repository being worked on: a skill of this name in its .claude-ops/skills is loaded instead of the baseline one, for this call only"
        }));
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": ["name"],
        "additionalProperties": false
    })
}

/// What a tool call runs on.
pub(crate) struct Tools<'a> {
    pub(crate) index: &'a Index,
    /// The audit gate (`--audit`): the skills it refuses are not listed or loaded.
    pub(crate) gate: Option<&'a dyn crate::audit::Refusals>,
    pub(crate) globals: &'a Globals,
    pub(crate) locations: Locations,
    /// `None` when `tool_inventory` is not offered.
    pub(crate) inventory: Option<&'a crate::inventory::Cached>,
    /// Skills above this tier are refused.
    pub(crate) max_tier: Option<u32>,
}

impl<'a> Tools<'a> {
    /// Runs the tool `name`.
    ///
    /// Arguments that are missing, empty, of the wrong type or unknown are a tool result
    /// with `isError: true` that names the parameter, not a JSON-RPC error: the model reads
    /// a tool result and can call again, while clients turn a JSON-RPC error into an
    /// exception that ends the agent's turn (MCP 2025-11-25, SEP-1303). An unknown tool
    /// stays a protocol error.
    pub(crate) fn call(&self, name: &str, args: Option<&JsonObject>) -> Res<CallToolResult> {
        match self.run(name, args) {
            Ok(result) => Ok(result),
            Err(Refused::Protocol(e)) => Err(e),
            Err(Refused::Input(why)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "Invalid arguments for `{name}`: {why}. Call it again with the arguments its input schema describes."
                ))]))
            }
        }
    }

    /// The skill the string parameter `key` (the tool's only one) names, or the tool result
    /// that says why it is not served.
    fn skill_arg(
        &self,
        args: Option<&JsonObject>,
        key: &str,
    ) -> Result<Result<&'a Skill, CallToolResult>, Refused> {
        only(args, &[key])?;
        let wanted = required(args, key)?;
        Ok(self.served(self.index.get(wanted), wanted).map_err(|e| *e))
    }

    /// `found`, or the tool result that says why it is not served: not found, or above the
    /// tier (seed 004's gate, at every tool that loads a skill).
    fn served<'s>(
        &self,
        found: Option<&'s Skill>,
        wanted: &str,
    ) -> Result<&'s Skill, Box<CallToolResult>> {
        let Some(skill) = found else {
            return Err(Box::new(not_found(wanted, self.index)));
        };
        if let Some(why) = self.gate.and_then(|g| g.refusal(skill)) {
            return Err(Box::new(CallToolResult::error(vec![ContentBlock::text(
                format!("Skill '{}' is not served: {why}", skill.id),
            )])));
        }
        if self.max_tier.is_some() {
            let declared = skill.read().ok().and_then(|s| crate::tier::declared(&s));
            if let Some(why) = crate::tier::refusal(&skill.id, declared, self.max_tier) {
                return Err(Box::new(CallToolResult::error(vec![ContentBlock::text(
                    why,
                )])));
            }
        }
        Ok(skill)
    }

    /// The skills of the repository the `skill` tool's `repo` names (its
    /// `.claude-ops/skills`), when it names one.
    fn repo_skills(&self, args: Option<&JsonObject>) -> Result<Option<Index>, Refused> {
        match args.and_then(|a| a.get("repo")) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => {
                let repo = std::path::Path::new(required(args, "repo")?);
                if !repo.is_absolute() || !repo.is_dir() {
                    return Err(Refused::Input(format!(
                        "parameter `repo` must be the absolute path of a directory (the repository's root), not {:?}",
                        text::clip(&repo.display().to_string())
                    )));
                }
                let root = skills_discovery::Root {
                    path: repo.join(".claude-ops/skills"),
                    scope: skills_discovery::Scope::Project,
                };
                Ok(Some(Index::scan(&skills_discovery::Roots::new([root]))))
            }
        }
    }

    fn run(&self, name: &str, args: Option<&JsonObject>) -> Result<CallToolResult, Refused> {
        let Self {
            index,
            gate,
            globals,
            locations,
            inventory,
            max_tier: _,
        } = *self;
        match name {
            "tool_inventory" => {
                let Some(cached) = inventory else {
                    return Err(Refused::Protocol(ErrorData::invalid_params(
                        "unknown tool \"tool_inventory\"",
                        None,
                    )));
                };
                only(args, &["skill_name", "refresh"])?;
                let refresh = match args.and_then(|a| a.get("refresh")) {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => {
                        return Err(Refused::Input(
                            "parameter `refresh` must be a boolean".to_string(),
                        ));
                    }
                };
                let wanted = match args.and_then(|a| a.get("skill_name")) {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(required(args, "skill_name")?),
                };
                tool_inventory(index, cached, wanted, refresh)
            }
            skills_prompt::VIEW_SKILL => {
                let skill = match self.skill_arg(args, "skill_name")? {
                    Ok(skill) => skill,
                    Err(answer) => return Ok(answer),
                };
                Ok(view_skill(skill, index, gate, globals)?)
            }
            "list_skills" => {
                only(args, &[])?;
                let visible = match gate {
                    None => std::borrow::Cow::Borrowed(index.skills()),
                    Some(gate) => std::borrow::Cow::Owned(
                        index
                            .skills()
                            .iter()
                            .filter(|s| gate.refusal(s).is_none())
                            .cloned()
                            .collect::<Vec<_>>(),
                    ),
                };
                let skills: Vec<Value> = visible
                    .iter()
                    .map(|s| json!({"id": s.id, "name": s.name, "description": s.description}))
                    .collect();
                let text = to_json(&skills)?;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(json!({ "skills": skills }));
                Ok(result)
            }
            "get_skill" => {
                let skill = match self.skill_arg(args, "id")? {
                    Ok(skill) => skill,
                    Err(answer) => return Ok(answer),
                };
                let body = match skill.body() {
                    Ok(body) => body,
                    Err(e) => return Ok(unreadable(skill, &e)),
                };
                let path = match locations {
                    Locations::Paths => absolute(&skill.skill_md),
                    Locations::Uris => format!("skill://{}/SKILL.md", skill.id),
                };
                let value = json!({
                    "path": path,
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
                match locations {
                    Locations::Paths => only(args, &["name", "repo"])?,
                    Locations::Uris => only(args, &["name"])?,
                }
                let wanted = required(args, "name")?;
                let repo = self.repo_skills(args)?;
                let found = repo
                    .as_ref()
                    .and_then(|r| r.get(wanted))
                    .or_else(|| index.get(wanted));
                let skill = match self.served(found, wanted) {
                    Ok(skill) => skill,
                    Err(answer) => return Ok(*answer),
                };
                let source = match skill.read() {
                    Ok(source) => source,
                    Err(e) => return Ok(unreadable(skill, &e)),
                };
                let base = match locations {
                    Locations::Paths => absolute(&skill.dir),
                    Locations::Uris => format!("skill://{}/", skill.id),
                };
                let text = format!("Loading: {}\nBase directory: {base}\n\n{source}", skill.id);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            other => Err(Refused::Protocol(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}: the tools are list_skills, get_skill, skill, view_skill and tool_inventory",
                    text::clip(other)
                ),
                None,
            ))),
        }
    }
}

/// Why a call was not run.
pub(crate) enum Refused {
    /// A protocol error (an unknown tool, a result that cannot be encoded).
    Protocol(ErrorData),
    /// The arguments do not fit the tool's input schema: what is wrong, naming the parameter.
    Input(String),
}

impl From<ErrorData> for Refused {
    fn from(e: ErrorData) -> Self {
        Self::Protocol(e)
    }
}

/// Seed 004's phase 1 in one call: the inventory, and with `wanted` that skill's resolution.
fn tool_inventory(
    index: &Index,
    cached: &crate::inventory::Cached,
    wanted: Option<&str>,
    refresh: bool,
) -> Result<CallToolResult, Refused> {
    let built = cached.get(refresh);
    let (inventory, domains) = &*built;
    let mut text = inventory.summary();
    let report = match wanted {
        None => None,
        Some(wanted) => {
            let Some(skill) = index.get(wanted) else {
                return Ok(not_found(wanted, index));
            };
            let source = match skill.read() {
                Ok(source) => source,
                Err(e) => return Ok(unreadable(skill, &e)),
            };
            let flat = skill.skill_md.file_name().is_some_and(|n| n != "SKILL.md");
            let dir = (!flat).then_some(skill.dir.as_path());
            let report =
                skills_doctor::report(&skill.id, &skill.skill_md, dir, &source, inventory, domains);
            for line in report.lines() {
                text.push_str(&line);
                text.push('\n');
            }
            Some(report)
        }
    };
    let value = json!({"inventory": inventory, "skill": report});
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// The Level-2 prompt of `skill` as text, its scoped tools and resources as structured
/// content. A broken `tools.json` or `resources.json` is an error result that says why.
fn view_skill(
    skill: &Skill,
    index: &Index,
    gate: Option<&dyn crate::audit::Refusals>,
    globals: &Globals,
) -> Res<CallToolResult> {
    view_skill_with(skill, index, gate, globals, |_| {})
}

/// [`view_skill`], with the context changed by `adjust` before it is rendered (the gateway
/// puts the downstream tools a skill references in place of the references).
pub(crate) fn view_skill_with(
    skill: &Skill,
    index: &Index,
    gate: Option<&dyn crate::audit::Refusals>,
    globals: &Globals,
    adjust: impl FnOnce(&mut skills_prompt::Context),
) -> Res<CallToolResult> {
    use skills_prompt::{Builtin, Context, render_builtin};
    let others: std::borrow::Cow<'_, [Skill]> = match gate {
        None => std::borrow::Cow::Borrowed(index.skills()),
        Some(gate) => std::borrow::Cow::Owned(
            index
                .skills()
                .iter()
                .filter(|s| gate.refusal(s).is_none())
                .cloned()
                .collect(),
        ),
    };
    let rendered = Context::skill(skill, &others, globals).and_then(|mut ctx| {
        adjust(&mut ctx);
        render_builtin(Builtin::Skill, &ctx).map(|text| (ctx, text))
    });
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

pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// seed 000's `view_skill`, as [`skills_prompt::view_skill`] defines it, with an output
/// schema for its structured content.
pub(crate) fn view_skill_tool() -> Tool {
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
pub(crate) fn only(args: Option<&JsonObject>, allowed: &[&str]) -> Result<(), Refused> {
    if let Some(extra) = args
        .into_iter()
        .flat_map(|a| a.keys())
        .find(|k| !allowed.contains(&k.as_str()))
    {
        let expected = match allowed {
            [] => "it takes none".to_string(),
            keys => format!("it takes `{}`", keys.join("`, `")),
        };
        return Err(Refused::Input(format!(
            "unknown parameter `{}` ({expected})",
            text::clip(extra)
        )));
    }
    Ok(())
}

/// The non-empty string parameter `key`.
pub(crate) fn required<'a>(args: Option<&'a JsonObject>, key: &str) -> Result<&'a str, Refused> {
    match args.and_then(|a| a.get(key)) {
        None | Some(Value::Null) => Err(Refused::Input(format!(
            "missing required parameter `{key}`"
        ))),
        Some(Value::String(s)) if s.is_empty() => {
            Err(Refused::Input(format!("parameter `{key}` cannot be empty")))
        }
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Refused::Input(format!(
            "parameter `{key}` must be a string"
        ))),
    }
}

pub(crate) fn not_found(name: &str, index: &Index) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text::not_found(name, index))])
}

pub(crate) fn unreadable(
    skill: &Skill,
    error: &skills_discovery::DiscoveryError,
) -> CallToolResult {
    tracing::warn!(skill = %skill.skill_md.display(), "cannot read: {error}");
    CallToolResult::error(vec![ContentBlock::text(format!(
        "Skill '{}' could not be read: {error}",
        skill.id
    ))])
}
