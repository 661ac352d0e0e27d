//! Progressive-disclosure prompts for Agent Skills (seed 000's context packages).
//!
//! A skill directory is a *context package*: the body of its `SKILL.md` is a specialist
//! persona, an optional `tools.json` lists MCP tools scoped to it and an optional
//! `resources.json` lists MCP resources scoped to it. An application first shows a light
//! **Level-1 router** prompt (every skill's name and description, the universal tools,
//! the global resources); when the model calls `view_skill`, it re-prompts with the
//! **Level-2** prompt of that skill (persona, scoped and universal tools, scoped and global
//! resources).
//!
//! This crate builds the [`Context`] of either prompt from discovered skills and renders it
//! with the built-in templates or any Jinja2 template (minijinja, strict undefined
//! values). It never prints; the `skills prompt` command and the MCP server use it.
//!
//! ```
//! use skills_prompt::{Builtin, Context, Globals, Resource, render_builtin};
//!
//! let globals = Globals {
//!     tools: Vec::new(),
//!     resources: vec![Resource::new("resource://global/style.md", "style", "House <style> guide")],
//! };
//! let ctx = Context::router(&[], &globals)?;
//! assert_eq!(ctx.universal_tools[0].name, "view_skill");
//! let prompt = render_builtin(Builtin::Router, &ctx)?;
//! assert!(prompt.contains("<uri>resource://global/style.md</uri>"));
//! assert!(prompt.contains("House &lt;style&gt; guide"));
//!
//! // Any Jinja2 template sees the same variables.
//! let text = skills_prompt::render_template(
//!     "mine.txt",
//!     "{% for t in universal_tools %}{{ t.name }}{% endfor %}",
//!     &ctx,
//! )?;
//! assert_eq!(text, "view_skill");
//! # Ok::<(), skills_prompt::PromptError>(())
//! ```

use std::path::{Path, PathBuf};

use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueOrKwargs};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use skills_discovery::Skill;

/// The name of the universal tool that loads a skill's Level-2 prompt.
pub const VIEW_SKILL: &str = "view_skill";
pub use skills_core::layout::{RESOURCES_FILE, TOOLS_FILE};
/// The largest `tools.json` or `resources.json` read (1 MiB, as `SKILL.md`).
pub const MAX_CONTEXT_FILE_BYTES: u64 = 1024 * 1024;

/// The built-in Level-1 template (XML sections, values escaped).
pub const ROUTER_TEMPLATE: &str = include_str!("templates/router.xml.j2");
/// The built-in Level-2 template (XML sections, values escaped).
pub const SKILL_TEMPLATE: &str = include_str!("templates/skill.xml.j2");

/// An MCP tool definition, as `tools.json` holds it. Fields this crate does not know
/// (`_meta`, `icons`, ...) are kept in `extra` and written back out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tool {
    /// The tool's name (MCP: 1-128 of `A-Za-z0-9_.-`).
    pub name: String,
    /// A display name, or `null`.
    #[serde(default)]
    pub title: Option<String>,
    /// What it does and when to call it (empty when missing).
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of its arguments.
    #[serde(rename = "inputSchema", default = "empty_object_schema")]
    pub input_schema: Value,
    /// The JSON Schema of its structured result, or `null`.
    #[serde(rename = "outputSchema", default)]
    pub output_schema: Option<Value>,
    /// MCP tool annotations (`readOnlyHint`, ...), or `null`.
    #[serde(default)]
    pub annotations: Option<Value>,
    /// Any other fields, as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tool {
    /// The downstream MCP server of a reference (`{"server": "trino", "name": "query"}`, or
    /// `"name": "*"` for all of its tools): a tool `skills mcp --gateway` takes from that
    /// server instead of defining it here. `None` for a definition.
    #[must_use]
    pub fn server(&self) -> Option<&str> {
        self.extra.get("server").and_then(Value::as_str)
    }
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

/// An MCP resource definition, as `resources.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Resource {
    /// Its URI (or a path relative to the skill directory).
    pub uri: String,
    /// Its name (empty in a reference, which takes the server's).
    #[serde(default)]
    pub name: String,
    /// What it holds (empty when missing).
    #[serde(default)]
    pub description: String,
    /// Its MIME type, or `null`.
    #[serde(rename = "mimeType", default)]
    pub mime_type: Option<String>,
    /// Any other fields, as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Resource {
    /// The downstream MCP server of a reference (`{"server": "trino", "uri": "…"}`, or
    /// `"uri": "*"` for all of its resources), which `skills mcp --gateway` reads from that
    /// server. `None` for a definition.
    #[must_use]
    pub fn server(&self) -> Option<&str> {
        self.extra.get("server").and_then(Value::as_str)
    }

    /// A resource with a URI, a name and a description.
    pub fn new(uri: &str, name: &str, description: &str) -> Self {
        Self {
            uri: uri.to_string(),
            name: name.to_string(),
            description: description.to_string(),
            mime_type: None,
            extra: Map::new(),
        }
    }
}

/// The universal `view_skill` tool, offered first in every prompt.
pub fn view_skill() -> Tool {
    Tool {
        name: VIEW_SKILL.to_string(),
        title: Some("View skill".to_string()),
        description: "Load a skill: switch to its Level-2 prompt (instructions, tools and resources). Call it with the name of a skill from <available_skills>.".to_string(),
        input_schema: serde_json::json!({
            "type": "object",
            "properties": {
                "skill_name": {"type": "string", "description": "The skill's name, as listed"}
            },
            "required": ["skill_name"]
        }),
        output_schema: None,
        annotations: Some(serde_json::json!({"readOnlyHint": true})),
        extra: Map::new(),
    }
}

/// Tools and resources given to the application as a whole (`--tools`, `--resources`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Globals {
    /// Universal tools after `view_skill`.
    pub tools: Vec<Tool>,
    /// Global resources.
    pub resources: Vec<Resource>,
}

impl Globals {
    /// The universal tools of the JSON file `tools` and the global resources of
    /// `resources` (each a JSON array of MCP definitions; either may be absent), checked
    /// as the router will use them: a name that clashes with `view_skill` or another is
    /// refused here, at start, rather than when the first prompt is rendered.
    ///
    /// ```no_run
    /// use std::path::Path;
    /// let globals = skills_prompt::Globals::load(Some(Path::new("tools.json")), None)?;
    /// println!("{} universal tools", globals.tools.len());
    /// # Ok::<(), skills_prompt::PromptError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PromptError`] naming the file (and the line and column where the JSON is wrong)
    /// when a file cannot be read or parsed, or a name clashes.
    pub fn load(tools: Option<&Path>, resources: Option<&Path>) -> Result<Self, PromptError> {
        let globals = Self {
            tools: match tools {
                Some(p) => load_tools(p)?,
                None => Vec::new(),
            },
            resources: match resources {
                Some(p) => load_resources(p)?,
                None => Vec::new(),
            },
        };
        Context::router(&[], &globals)?;
        Ok(globals)
    }
}

/// Why a context could not be built or rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// A file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file is over [`MAX_CONTEXT_FILE_BYTES`].
    #[error("{}: {size} bytes; files over {MAX_CONTEXT_FILE_BYTES} bytes are not read", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
    },
    /// A `tools.json` or `resources.json` is not the expected JSON.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Two universal tools, or a scoped and a universal tool, share a name.
    #[error("tool `{name}` is defined twice ({place})")]
    DuplicateTool {
        /// The name.
        name: String,
        /// Where the second one comes from.
        place: String,
    },
    /// A skill's `SKILL.md` cannot be read or parsed.
    #[error(transparent)]
    Skill(#[from] skills_discovery::DiscoveryError),
    /// A template does not parse or fails to render.
    #[error("{name}:{line}: {message}")]
    Template {
        /// The template's name (its file name for `--template`).
        name: String,
        /// 1-based line in the template (0 when unknown).
        line: usize,
        /// What went wrong, with the template line quoted when known.
        message: String,
        /// The kind of mistake, which decides the help line.
        fault: TemplateFault,
    },
}

/// The kind of mistake a template made, for [`PromptError::help`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateFault {
    /// It does not parse.
    Syntax,
    /// A variable or attribute that does not exist (undefined values are errors).
    Undefined,
    /// A filter that does not exist (`{{ x | nope }}`).
    UnknownFilter,
    /// A test that does not exist (`{% if x is nope %}`).
    UnknownTest,
    /// A function or method that does not exist (`{{ nope() }}`, `{{ x.nope() }}`).
    UnknownFunction,
    /// Anything else: a wrong argument, an operation on a value of the wrong type.
    Other,
}

/// The filters a template can use beyond minijinja's core: Jinja2's that minijinja keeps
/// in its contrib crate or behind its `json` feature (`truncate` and `wordwrap` are ours,
/// to Jinja2's definitions), and two of ours beyond Jinja2 (`xml`, `json`).
/// Every Jinja2 built-in filter minijinja implements is there too ([`BUILTIN_FILTERS`]).
pub const EXTRA_FILTERS: &[&str] = &[
    "tojson",
    "truncate",
    "wordwrap",
    "wordcount",
    "filesizeformat",
    "striptags",
    "pluralize",
    "xml",
    "json",
];

/// Jinja2's built-in filters as minijinja implements them (what "did you mean" compares an
/// unknown filter's name with, together with [`EXTRA_FILTERS`]).
#[rustfmt::skip]
pub const BUILTIN_FILTERS: &[&str] = &[
    "abs", "attr", "batch", "bool", "capitalize", "chain", "count", "d", "default", "dictsort",
    "e", "escape", "first", "float", "format", "groupby", "indent", "int", "items", "join",
    "last", "length", "lines", "list", "lower", "map", "max", "min", "pprint", "reject",
    "rejectattr", "replace", "reverse", "round", "safe", "select", "selectattr", "slice",
    "sort", "split", "string", "sum", "title", "trim", "unique", "upper", "urlencode", "zip",
];

impl PromptError {
    /// How to fix it, in one line: for a help line under the message (as `skills prompt`,
    /// `skills mcp` and the `skills-mcp` server print it).
    pub fn help(&self) -> &'static str {
        match self {
            Self::Template { fault, .. } => match fault {
                TemplateFault::Syntax => {
                    "check the line's tags: `{{ ... }}` prints a value, `{% ... %}` is a statement \
                     that needs its `{% end... %}`, `{# ... #}` is a comment"
                }
                TemplateFault::Undefined => {
                    "the template's variables are listed in docs/prompt.md; test an optional one \
                     with `{% if x is defined %}`"
                }
                TemplateFault::UnknownFilter => {
                    "the filters are Jinja2's built-ins (tojson, truncate and wordwrap \
                     included) and xml and json; docs/prompt.md lists them"
                }
                TemplateFault::UnknownTest => {
                    "the tests are Jinja2's built-ins (`is defined`, `is none`, `is string`, \
                     ...); docs/prompt.md lists them"
                }
                TemplateFault::UnknownFunction => {
                    "the functions are Jinja2's range, dict and namespace, and the methods \
                     Python's string, list and dict methods (`x.upper()`, `d.items()`); \
                     docs/prompt.md lists them"
                }
                _ => "the template's variables and filters are listed in docs/prompt.md",
            },
            Self::Io { .. } => "check the path",
            _ => {
                "`skills lint` explains what is wrong with a skill's tools.json or resources.json; \
                 --tools and --resources files are JSON arrays of MCP definitions (docs/prompt.md)"
            }
        }
    }
}

/// One skill as the prompts list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The frontmatter `name`.
    pub name: String,
    /// The frontmatter `description`.
    pub description: String,
    /// The id lookups match (the directory name).
    pub id: String,
    /// The `SKILL.md` path.
    pub location: String,
}

impl SkillEntry {
    fn of(skill: &Skill) -> Self {
        Self {
            name: skill.name.clone(),
            description: skill.description.trim().to_string(),
            id: skill.id.clone(),
            location: skill.skill_md.to_string_lossy().into_owned(),
        }
    }
}

/// Everything a prompt template sees. Both levels fill every variable, so one template can
/// serve both and strict undefined checks never trip on a missing one: the router has no
/// `skill`, an empty `skill_persona_text` and no scoped tools or resources.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Context {
    /// 1 for the router, 2 for one skill.
    pub level: u8,
    /// The skill of a Level-2 context.
    pub skill: Option<SkillEntry>,
    /// Every discovered skill, in priority order.
    pub skills: Vec<SkillEntry>,
    /// `view_skill`, then the global tools.
    pub universal_tools: Vec<Tool>,
    /// The global resources.
    pub global_resources: Vec<Resource>,
    /// The body of the skill's `SKILL.md` (Level 2), trimmed.
    pub skill_persona_text: String,
    /// The skill's `tools.json`.
    pub scoped_tools: Vec<Tool>,
    /// The skill's `resources.json`.
    pub scoped_resources: Vec<Resource>,
}

impl Context {
    /// The Level-1 router context.
    ///
    /// # Errors
    ///
    /// [`PromptError::DuplicateTool`] when a global tool is named `view_skill` or two share
    /// a name.
    pub fn router(skills: &[Skill], globals: &Globals) -> Result<Self, PromptError> {
        Ok(Self {
            level: 1,
            skill: None,
            skills: skills.iter().map(SkillEntry::of).collect(),
            universal_tools: universal_tools(globals)?,
            global_resources: globals.resources.clone(),
            skill_persona_text: String::new(),
            scoped_tools: Vec::new(),
            scoped_resources: Vec::new(),
        })
    }

    /// The Level-2 context of `skill`: its body, its `tools.json` and `resources.json`
    /// (absent files are empty lists), and what the router offers.
    ///
    /// # Errors
    ///
    /// [`PromptError`] when `SKILL.md` or a context file cannot be read or parsed, or a
    /// scoped tool has a universal tool's name.
    pub fn skill(skill: &Skill, skills: &[Skill], globals: &Globals) -> Result<Self, PromptError> {
        let mut ctx = Self::router(skills, globals)?;
        let (mut tools, mut resources) = load_package(skill)?;
        describe_references(&mut tools, &mut resources);
        for t in &tools {
            if ctx.universal_tools.iter().any(|u| u.name == t.name) {
                return Err(PromptError::DuplicateTool {
                    name: t.name.clone(),
                    place: format!("{} of `{}` and a universal tool", TOOLS_FILE, skill.id),
                });
            }
        }
        ctx.level = 2;
        ctx.skill = Some(SkillEntry::of(skill));
        ctx.skill_persona_text = skill.body()?.trim().to_string();
        ctx.scoped_tools = tools;
        ctx.scoped_resources = resources;
        Ok(ctx)
    }
}

/// Says what a reference to a downstream server's tool or resource is, where it says
/// nothing itself: outside `skills mcp --gateway` (which shows the server's own definitions
/// instead) it is a name and a server, not a tool the prompt can describe.
fn describe_references(tools: &mut [Tool], resources: &mut [Resource]) {
    for tool in tools.iter_mut() {
        let Some(server) = tool.server().map(str::to_string) else {
            continue;
        };
        if tool.description.trim().is_empty() {
            tool.description = if tool.name == "*" {
                format!(
                    "Every tool of the MCP server `{server}`, served through `skills mcp --gateway`."
                )
            } else {
                format!(
                    "Tool `{}` of the MCP server `{server}`, served through `skills mcp --gateway`.",
                    tool.name
                )
            };
        }
    }
    for resource in resources.iter_mut() {
        let Some(server) = resource.server().map(str::to_string) else {
            continue;
        };
        if resource.name.trim().is_empty() {
            resource.name.clone_from(&resource.uri);
        }
        if resource.description.trim().is_empty() {
            resource.description = format!(
                "Resource of the MCP server `{server}`, read through `skills mcp --gateway`."
            );
        }
    }
}

fn universal_tools(globals: &Globals) -> Result<Vec<Tool>, PromptError> {
    let mut tools = vec![view_skill()];
    for t in &globals.tools {
        if tools.iter().any(|u| u.name == t.name) {
            return Err(PromptError::DuplicateTool {
                name: t.name.clone(),
                place: "global tools".to_string(),
            });
        }
        tools.push(t.clone());
    }
    Ok(tools)
}

/// A skill's `tools.json` and `resources.json`; an absent file (or a flat skill) gives an
/// empty list.
///
/// # Errors
///
/// [`PromptError`] when a file exists but cannot be read or parsed.
pub fn load_package(skill: &Skill) -> Result<(Vec<Tool>, Vec<Resource>), PromptError> {
    if skill.flat {
        return Ok((Vec::new(), Vec::new()));
    }
    let tools = skill.dir.join(TOOLS_FILE);
    let resources = skill.dir.join(RESOURCES_FILE);
    Ok((
        if tools.exists() {
            load_tools(&tools)?
        } else {
            Vec::new()
        },
        if resources.exists() {
            load_resources(&resources)?
        } else {
            Vec::new()
        },
    ))
}

/// Reads a tools file (a JSON array of MCP tool definitions).
///
/// # Errors
///
/// [`PromptError::Io`], [`PromptError::TooLarge`] or [`PromptError::Json`].
pub fn load_tools(path: &Path) -> Result<Vec<Tool>, PromptError> {
    parse_file(path)
}

/// Reads a resources file (a JSON array of MCP resource definitions).
///
/// # Errors
///
/// [`PromptError::Io`], [`PromptError::TooLarge`] or [`PromptError::Json`].
pub fn load_resources(path: &Path) -> Result<Vec<Resource>, PromptError> {
    parse_file(path)
}

fn parse_file<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, PromptError> {
    let io = |source| PromptError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = read_context_file(path).map_err(|e| match e {
        ContextRead::Io(source) => io(source),
        ContextRead::TooLarge(size) => PromptError::TooLarge {
            path: path.to_path_buf(),
            size,
        },
    })?;
    serde_json::from_str(&text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_string();
        PromptError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message,
        }
    })
}

/// Why [`read_context_file`] failed.
#[derive(Debug)]
pub enum ContextRead {
    /// Not readable, not a regular file, or not UTF-8.
    Io(std::io::Error),
    /// Over [`MAX_CONTEXT_FILE_BYTES`]: the size in bytes.
    TooLarge(u64),
}

/// Reads a context file (`tools.json`, `resources.json`) of at most
/// [`MAX_CONTEXT_FILE_BYTES`]. Anything but a regular file (a FIFO, a directory) is refused
/// before it is opened, so a FIFO cannot block the caller; never more than the limit plus one
/// byte is read, even from a file that grew since it was measured.
///
/// # Errors
///
/// [`ContextRead`].
pub fn read_context_file(path: &Path) -> Result<String, ContextRead> {
    let bytes = skills_core::read_bounded(path, MAX_CONTEXT_FILE_BYTES).map_err(|e| match e {
        skills_core::ReadError::TooLarge { size, .. } => ContextRead::TooLarge(size),
        skills_core::ReadError::Io(e) => ContextRead::Io(e),
        other => ContextRead::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{other}; it is not read"),
        )),
    })?;
    String::from_utf8(bytes).map_err(|_| {
        ContextRead::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Which built-in template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// Level 1: [`ROUTER_TEMPLATE`].
    Router,
    /// Level 2: [`SKILL_TEMPLATE`].
    Skill,
}

/// Renders a built-in template: values are escaped for XML, except the persona, which is
/// the skill's Markdown instructions, kept verbatim.
///
/// # Errors
///
/// [`PromptError::Template`] (a bug, or a context that lacks a skill for Level 2).
pub fn render_builtin(which: Builtin, ctx: &Context) -> Result<String, PromptError> {
    let (name, source) = match which {
        Builtin::Router => ("router.xml.j2", ROUTER_TEMPLATE),
        Builtin::Skill => ("skill.xml.j2", SKILL_TEMPLATE),
    };
    let mut env = environment();
    let mut syntax = minijinja::syntax::SyntaxConfig::builder();
    syntax.trim_blocks(true).lstrip_blocks(true);
    if let Ok(s) = syntax.build() {
        env.set_syntax(s);
    }
    render(&env, name, source, ctx)
}

/// Renders a user's Jinja2 template with the context's variables (`skills`,
/// `universal_tools`, `global_resources`, `skill_persona_text`, `scoped_tools`,
/// `scoped_resources`, `skill`, `level`). Undefined variables and attributes are errors.
/// Whitespace follows Jinja2's defaults. A `name` ending in `.xml` (or `.xml.j2`,
/// `.xml.jinja`, `.xml.jinja2`) escapes every value for XML like the built-ins; other
/// templates print values as they are, and can escape with the `xml` filter.
///
/// # Errors
///
/// [`PromptError::Template`] with the template line.
pub fn render_template(name: &str, source: &str, ctx: &Context) -> Result<String, PromptError> {
    render(&environment(), name, source, ctx)
}

fn render(
    env: &Environment<'_>,
    name: &str,
    source: &str,
    ctx: &Context,
) -> Result<String, PromptError> {
    let error = |e: minijinja::Error| template_error(name, source, &e);
    let tmpl = env.template_from_named_str(name, source).map_err(error)?;
    tmpl.render(minijinja::value::Serde(ctx)).map_err(error)
}

fn is_xml_name(name: &str) -> bool {
    let base = [".j2", ".jinja2", ".jinja"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    base.ends_with(".xml")
}

const XML: &str = "xml";

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|name| {
        if is_xml_name(name) {
            AutoEscape::Custom(XML.into())
        } else {
            AutoEscape::None
        }
    });
    env.set_formatter(|out, state, value| {
        let xml = matches!(state.auto_escape(), AutoEscape::Custom(n) if n == XML);
        if xml && !value.is_safe() {
            let text = if value.is_none() {
                String::new()
            } else {
                value.to_string()
            };
            out.write_str(&skills_export::escape_xml(&text))
                .map_err(minijinja::Error::from)
        } else {
            minijinja::escape_formatter(out, state, value)
        }
    });
    // Jinja2's filters beyond minijinja's core (truncate, wordwrap, ...), and Python's
    // methods on strings, lists and dicts (`x.upper()`, `d.items()`).
    minijinja_contrib::add_to_environment(&mut env);
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    // Jinja2 templates write `truncate(80)` and `wordwrap(40)`; the contrib crate's take
    // keywords only (and its wordwrap would bring textwrap's optimal fit to the whole tree).
    env.add_filter("truncate", truncate);
    env.add_filter("wordwrap", wordwrap);
    // `xml`: escape for XML in any template; `json`: compact JSON, safe inside an XML
    // element (`&`, `<`, `>` escaped).
    env.add_filter(XML, |v: JinjaValue| {
        JinjaValue::from_safe_string(skills_export::escape_xml(&v.to_string()))
    });
    env.add_filter(
        "json",
        |v: JinjaValue| -> Result<JinjaValue, minijinja::Error> {
            let text = serde_json::to_string(&v).map_err(|e| {
                minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
            })?;
            let text = text
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            Ok(JinjaValue::from_safe_string(text))
        },
    );
    env
}

/// `args`, Jinja2's positional arguments and then its keyword arguments, as keyword
/// arguments only: each positional one named after its place in `names` (the filter's
/// signature in Jinja2).
fn as_keywords(names: &[&str], args: Rest<ValueOrKwargs>) -> Result<Kwargs, minijinja::Error> {
    use minijinja::value::ArgType;
    use minijinja::{Error, ErrorKind};
    let args = args.into_values();
    let (positional, keywords) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args.as_slice(), None),
    };
    if positional.len() > names.len() {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("at most {} arguments: {}", names.len(), names.join(", ")),
        ));
    }
    let mut all: Vec<(String, JinjaValue)> = names
        .iter()
        .zip(positional)
        .map(|(name, value)| ((*name).to_string(), value.clone()))
        .collect();
    if let Some(keywords) = keywords {
        let keywords = Kwargs::from_value(Some(keywords))?;
        for key in keywords.args() {
            if all.iter().any(|(k, _)| k == key) {
                return Err(Error::new(
                    ErrorKind::TooManyArguments,
                    format!("`{key}` is given twice"),
                ));
            }
            all.push((key.to_string(), keywords.get::<JinjaValue>(key)?));
        }
    }
    Ok(all.into_iter().collect())
}

/// Jinja2's `truncate(s, length=255, killwords=False, end='...', leeway=5)`: a text longer
/// than `length + leeway` characters is cut to `length` characters, `end` included, at the
/// last space unless `killwords`.
fn truncate(value: &JinjaValue, args: Rest<ValueOrKwargs>) -> Result<JinjaValue, minijinja::Error> {
    use minijinja::{Error, ErrorKind};
    let kwargs = as_keywords(&["length", "killwords", "end", "leeway"], args)?;
    let length = kwargs.get::<Option<usize>>("length")?.unwrap_or(255);
    let killwords = kwargs.get::<Option<bool>>("killwords")?.unwrap_or(false);
    let end = kwargs.get::<Option<&str>>("end")?.unwrap_or("...");
    let leeway = kwargs.get::<Option<usize>>("leeway")?.unwrap_or(5);
    kwargs.assert_all_used()?;
    if value.is_none() {
        return Ok(JinjaValue::from(""));
    }
    let Some(text) = value.as_str() else {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("truncate takes a string, not {}", value.kind()),
        ));
    };
    let Some(room) = length.checked_sub(end.chars().count()) else {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("the length ({length}) is shorter than the end ({end:?})"),
        ));
    };
    if text.chars().count() <= length.saturating_add(leeway) {
        return Ok(value.clone());
    }
    let kept: String = text.chars().take(room).collect();
    let kept = match kept.rsplit_once(' ') {
        Some((words, _)) if !killwords => words,
        _ => kept.as_str(),
    };
    Ok(JinjaValue::from(format!("{kept}{end}")))
}

/// Jinja2's `wordwrap(s, width=79, break_long_words=True, wrapstring='\n',
/// break_on_hyphens=True)`: each line of `s` wrapped on its own, first fit at spaces (as
/// Python's `textwrap`), the pieces joined with `wrapstring`.
fn wordwrap(value: &JinjaValue, args: Rest<ValueOrKwargs>) -> Result<JinjaValue, minijinja::Error> {
    let names = [
        "width",
        "break_long_words",
        "wrapstring",
        "break_on_hyphens",
    ];
    let kwargs = as_keywords(&names, args)?;
    let width = kwargs.get::<Option<usize>>("width")?.unwrap_or(79);
    let break_words = kwargs
        .get::<Option<bool>>("break_long_words")?
        .unwrap_or(true);
    let wrapstring = kwargs.get::<Option<&str>>("wrapstring")?.unwrap_or("\n");
    let hyphens = kwargs
        .get::<Option<bool>>("break_on_hyphens")?
        .unwrap_or(true);
    kwargs.assert_all_used()?;
    let text = value.as_str().unwrap_or_default();
    let options = textwrap::Options::new(width.max(1))
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .break_words(break_words)
        .word_splitter(if hyphens {
            textwrap::WordSplitter::HyphenSplitter
        } else {
            textwrap::WordSplitter::NoHyphenation
        });
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else {
                textwrap::wrap(line, &options).join(wrapstring)
            }
        })
        .collect();
    Ok(JinjaValue::from(lines.join(wrapstring)))
}

fn template_error(name: &str, source: &str, e: &minijinja::Error) -> PromptError {
    use minijinja::ErrorKind;
    let line = e.line().unwrap_or(0);
    let fault = match e.kind() {
        ErrorKind::SyntaxError | ErrorKind::BadEscape | ErrorKind::InvalidDelimiter => {
            TemplateFault::Syntax
        }
        ErrorKind::UndefinedError => TemplateFault::Undefined,
        ErrorKind::UnknownFilter => TemplateFault::UnknownFilter,
        ErrorKind::UnknownTest => TemplateFault::UnknownTest,
        ErrorKind::UnknownFunction | ErrorKind::UnknownMethod => TemplateFault::UnknownFunction,
        _ => TemplateFault::Other,
    };
    let mut message = e.kind().to_string();
    if let Some(detail) = e.detail() {
        message = format!("{message}: {detail}");
    }
    if fault == TemplateFault::UnknownFilter
        && let Some(unknown) = e
            .detail()
            .and_then(|d| d.strip_prefix("filter "))
            .and_then(|d| d.strip_suffix(" is unknown"))
        && let Some(close) = skills_core::suggest::closest(
            unknown,
            EXTRA_FILTERS.iter().chain(BUILTIN_FILTERS).copied(),
        )
        .first()
    {
        message = format!("{message}; did you mean `{close}`?");
    }
    if let Some(text) = line.checked_sub(1).and_then(|i| source.lines().nth(i)) {
        message = format!("{message}\n  {line} | {text}");
    }
    PromptError::Template {
        name: e.name().unwrap_or(name).to_string(),
        line,
        message,
        fault,
    }
}

/// Token estimates of progressive disclosure (bytes / 4, see
/// [`skills_frontmatter::estimate_tokens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stats {
    /// The rendered prompt asked for (the router, or one skill's Level 2).
    pub prompt_tokens: usize,
    /// The Level-1 router prompt.
    pub level1_tokens: usize,
    /// Everything at once: the router plus every skill's body, `tools.json` and
    /// `resources.json` (compact JSON), as a prompt without progressive disclosure holds.
    pub full_tokens: usize,
    /// `full_tokens - level1_tokens`.
    pub saved_tokens: usize,
    /// The saving in percent of `full_tokens`, rounded down.
    pub saved_percent: usize,
    /// How many skills.
    pub skills: usize,
}

/// Estimates what the router costs against loading every skill in full; `prompt` is the
/// rendered prompt being reported on.
///
/// # Errors
///
/// [`PromptError`] when a skill or its context files cannot be read.
pub fn stats(prompt: &str, skills: &[Skill], globals: &Globals) -> Result<Stats, PromptError> {
    use skills_frontmatter::estimate_tokens;
    let level1 = estimate_tokens(&render_builtin(
        Builtin::Router,
        &Context::router(skills, globals)?,
    )?);
    let mut full = level1;
    for skill in skills {
        full += estimate_tokens(&skill.body()?);
        let (tools, resources) = load_package(skill)?;
        for text in [
            serde_json::to_string(&tools).unwrap_or_default(),
            serde_json::to_string(&resources).unwrap_or_default(),
        ] {
            if text != "[]" {
                full += estimate_tokens(&text);
            }
        }
    }
    let saved = full.saturating_sub(level1);
    Ok(Stats {
        prompt_tokens: estimate_tokens(prompt),
        level1_tokens: level1,
        full_tokens: full,
        saved_tokens: saved,
        saved_percent: (saved * 100).checked_div(full).unwrap_or(0),
        skills: skills.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        let globals = Globals {
            tools: vec![Tool {
                name: "fetch_url".to_string(),
                title: None,
                description: "Fetch a page & return <text>.".to_string(),
                input_schema: empty_object_schema(),
                output_schema: None,
                annotations: None,
                extra: Map::new(),
            }],
            resources: Vec::new(),
        };
        Context::router(&[], &globals).unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn context_files_that_are_fifos_or_too_large_are_refused_without_blocking() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("tools.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let err = load_tools(&fifo).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        let dir = t.path().join("resources.json");
        std::fs::create_dir(&dir).unwrap();
        assert!(matches!(load_resources(&dir), Err(PromptError::Io { .. })));
        let big = t.path().join("big.json");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_CONTEXT_FILE_BYTES + 1).unwrap();
        assert!(matches!(
            load_tools(&big),
            Err(PromptError::TooLarge { size, .. }) if size == MAX_CONTEXT_FILE_BYTES + 1
        ));
    }

    #[test]
    fn universal_tool_list_matches_the_linter() {
        assert_eq!(skills_lint::UNIVERSAL_TOOLS, [VIEW_SKILL]);
        assert!(skills_lint::is_valid_tool_name(&view_skill().name));
    }

    #[test]
    fn builtins_escape_values() {
        let out = render_builtin(Builtin::Router, &ctx()).unwrap();
        assert!(
            out.contains("Fetch a page &amp; return &lt;text&gt;."),
            "{out}"
        );
        assert!(
            out.contains(r#"<parameters>{"type":"object"}</parameters>"#),
            "{out}"
        );
    }

    #[test]
    fn user_templates_are_raw_unless_xml() {
        let src = "{% for t in universal_tools %}{{ t.description }}|{% endfor %}";
        let out = render_template("t.txt", src, &ctx()).unwrap();
        assert!(out.ends_with("Fetch a page & return <text>.|"), "{out}");
        let out = render_template("t.xml.j2", src, &ctx()).unwrap();
        assert!(
            out.ends_with("Fetch a page &amp; return &lt;text&gt;.|"),
            "{out}"
        );
        let out = render_template("t.txt", "{{ '<a>' | xml }}", &ctx()).unwrap();
        assert_eq!(out, "&lt;a&gt;");
    }

    #[test]
    fn errors_name_the_line() {
        let err = render_template("t.j2", "ok\n{{ nope }}\n", &ctx()).unwrap_err();
        let PromptError::Template {
            name,
            line,
            message,
            fault,
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!(*fault, TemplateFault::Undefined);
        assert_eq!((name.as_str(), *line), ("t.j2", 2));
        assert!(message.contains("undefined"), "{message}");
        assert!(message.contains("2 | {{ nope }}"), "{message}");
        let err = render_template("t.j2", "a\nb\n{% for x in %}", &ctx()).unwrap_err();
        assert!(err.to_string().starts_with("t.j2:3: syntax error"), "{err}");
        let err = render_template("t.j2", "{{ skills[0].nme }}", &ctx()).unwrap_err();
        assert!(err.to_string().starts_with("t.j2:1:"), "{err}");
    }

    /// The filters Jinja2 templates use that minijinja keeps out of its core: each renders
    /// as Jinja2 renders it.
    #[test]
    fn jinja2_filters_beyond_minijinja_core_work() {
        let cases = [
            (
                "{{ 'Fetch a page and return text' | truncate(13) }}",
                "Fetch a...",
            ),
            (
                "{{ 'Fetch a page' | truncate(9, true, '>') }}",
                "Fetch a page",
            ),
            (
                "{{ 'Fetch a page' | truncate(9, true, '>', 0) }}",
                "Fetch a >",
            ),
            (
                "{{ 'Fetch a page' | truncate(length=9, leeway=0) }}",
                "Fetch...",
            ),
            ("{{ 'Fetch' | truncate(3) }}", "Fetch"),
            (
                "{{ 'one two three four' | wordwrap(9) }}",
                "one two\nthree\nfour",
            ),
            (
                "{{ 'one two three' | wordwrap(width=7, wrapstring='|') }}",
                "one two|three",
            ),
            // First fit, as Python's textwrap (optimal fit would balance the lines).
            ("{{ 'aaa bb cc ddddd' | wordwrap(10) }}", "aaa bb cc\nddddd"),
            ("{{ 'a\n\nb' | wordwrap(5) }}", "a\n\nb"),
            ("{{ 'one two three' | wordcount }}", "3"),
            ("{{ 2048 | filesizeformat }}", "2.0 kB"),
            ("{{ 2048 | filesizeformat(true) }}", "2.0 KiB"),
            ("{{ 'a b' | urlencode }}", "a%20b"),
            ("{{ '<b>bold</b>  text' | striptags }}", "bold text"),
            ("{{ {'a': '<x>'} | tojson }}", r#"{"a": "\u003cx\u003e"}"#),
            ("{{ [1, 2] | tojson(indent=2) }}", "[\n  1,\n  2\n]"),
            ("{{ 2 | pluralize('y', 'ies') }}", "ies"),
            // Python's methods, as Jinja2 runs them.
            ("{{ 'a,b'.split(',') | join('+') }}", "a+b"),
            (
                "{{ 'skill'.upper() }}{{ 'x'.startswith('x') }}",
                "SKILLTrue",
            ),
            (
                "{% for k, v in {'a': 1}.items() %}{{ k }}={{ v }}{% endfor %}",
                "a=1",
            ),
        ];
        for (src, want) in cases {
            let out =
                render_template("t.txt", src, &ctx()).unwrap_or_else(|e| panic!("{src}: {e}"));
            assert_eq!(out, want, "{src}");
        }
        // Every filter named to the user (help, docs, "did you mean") exists.
        for name in EXTRA_FILTERS.iter().chain(BUILTIN_FILTERS) {
            let src = format!("{{{{ x | {name} }}}}");
            if let Err(PromptError::Template { fault, message, .. }) =
                render_template("t.txt", &src, &ctx())
            {
                assert_ne!(fault, TemplateFault::UnknownFilter, "{name}: {message}");
            }
        }
    }

    #[test]
    fn unknown_names_get_help_about_them() {
        let err = render_template("t.j2", "{{ skills | tojosn }}", &ctx()).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "t.j2:1: unknown filter: filter tojosn is unknown; did you mean `tojson`?"
            ),
            "{err}"
        );
        assert!(err.help().contains("filters"), "{}", err.help());
        let err = render_template("t.j2", "{{ skills | nothing_like_it }}", &ctx()).unwrap_err();
        assert!(!err.to_string().contains("did you mean"), "{err}");
        let err = render_template("t.j2", "{% if level is nope %}{% endif %}", &ctx()).unwrap_err();
        assert!(err.help().contains("tests"), "{}", err.help());
        let err = render_template("t.j2", "{{ nope() }}", &ctx()).unwrap_err();
        assert!(err.help().contains("functions"), "{}", err.help());
        let err = render_template("t.j2", "{% for x in %}", &ctx()).unwrap_err();
        assert!(err.help().contains("tags"), "{}", err.help());
    }

    #[test]
    fn duplicate_universal_tools_are_errors() {
        let globals = Globals {
            tools: vec![view_skill()],
            resources: Vec::new(),
        };
        assert!(matches!(
            Context::router(&[], &globals),
            Err(PromptError::DuplicateTool { .. })
        ));
    }
}
