//! `tools.json`: the MCP tools a skill scopes to itself (`tools-json-invalid`,
//! `tool-name-invalid`, `tool-schema-invalid`, `tool-duplicate`, `tool-shadows-universal`):
//! definitions, and references to a downstream server's tools (`{"server": "trino",
//! "name": "query"}`, `"name": "*"` for all of them) that `skills mcp --gateway` proxies.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Fields, Finding, elements, fields, head_of, kind, required_str, span_of, value};
use crate::rules::RuleId;

pub use skills_core::layout::TOOLS_FILE;
/// The tools every prompt offers, whatever the skill: a skill's own tool with one of these
/// names would shadow it. `view_skill` loads a skill's Level-2 prompt (seed 000).
pub const UNIVERSAL_TOOLS: &[&str] = &["view_skill"];
/// MCP's limit on the length of a tool name.
pub const TOOL_NAME_MAX: usize = 128;

/// Whether `name` follows MCP's tool-name rules: 1 to 128 characters, each an ASCII letter,
/// digit, `_`, `-` or `.`.
///
/// ```
/// use skills_lint::is_valid_tool_name;
///
/// assert!(is_valid_tool_name("get_explain_plan"));
/// assert!(is_valid_tool_name("admin.tools-list"));
/// assert!(!is_valid_tool_name("get plan"));
/// assert!(!is_valid_tool_name(""));
/// ```
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= TOOL_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

/// The downstream MCP servers `skills mcp --gateway` would proxy (its gateway file), and
/// their tools where they are known: what `tool-reference-unknown` holds `tools.json`
/// references to (`skills lint --gateway FILE`).
///
/// ```
/// use skills_lint::Downstreams;
///
/// let servers = Downstreams::new()
///     .server("trino", Some(["query", "explain"]))
///     .server("github", None::<[&str; 0]>); // tools unknown: only the name is checked
/// assert!(servers.has_server("trino"));
/// assert_eq!(servers.tools("trino").map(|t| t.len()), Some(2));
/// assert_eq!(servers.tools("github"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Downstreams {
    servers: std::collections::BTreeMap<String, Option<std::collections::BTreeSet<String>>>,
}

impl Downstreams {
    /// No servers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds server `name` and its tools (`None` when they could not be listed).
    #[must_use]
    pub fn server<T: Into<String>>(
        mut self,
        name: impl Into<String>,
        tools: Option<impl IntoIterator<Item = T>>,
    ) -> Self {
        self.servers.insert(
            name.into(),
            tools.map(|t| t.into_iter().map(Into::into).collect()),
        );
        self
    }

    /// Whether the gateway file lists server `name`.
    #[must_use]
    pub fn has_server(&self, name: &str) -> bool {
        self.servers.contains_key(name)
    }

    /// The tools of server `name`, when known.
    #[must_use]
    pub fn tools(&self, name: &str) -> Option<&std::collections::BTreeSet<String>> {
        self.servers.get(name).and_then(Option::as_ref)
    }
}

/// Checks the text of a `tools.json`; references are held to `downstreams` when given.
pub(crate) fn check_tools(text: &str, downstreams: Option<&Downstreams>) -> Vec<Finding> {
    const RULE: RuleId = RuleId::ToolsJsonInvalid;
    let items = match elements(text, RULE, TOOLS_FILE) {
        Ok(items) => items,
        Err(f) => return vec![f],
    };
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let fields = match fields(text, item, RULE, "tool", i) {
            Ok(f) => f,
            Err(f) => {
                out.push(f);
                continue;
            }
        };
        let what = format!("tool #{}", i + 1);
        if let Some(raw) = fields.get("server") {
            let reference = Reference {
                text,
                item,
                fields: &fields,
                what: &what,
                index: i,
            };
            check_reference(&reference, raw, downstreams, &mut seen, &mut out);
            continue;
        }
        match required_str(text, item, &fields, "name", RuleId::ToolNameInvalid, &what) {
            Ok((name, span)) => {
                let what = format!("tool `{name}`");
                check_tool_name(&name, span, i, &mut seen, &mut out);
                check_tool_fields(text, item, &fields, &what, &mut out);
            }
            Err(f) => {
                out.push(f);
                check_tool_fields(text, item, &fields, &what, &mut out);
            }
        }
    }
    out
}

/// Whether `name` can name a downstream server: letters, digits, `-` and `_`, as the
/// gateway file's keys.
fn is_valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// One reference entry of a `tools.json`, and where it is.
struct Reference<'a> {
    text: &'a str,
    item: &'a RawValue,
    fields: &'a Fields<'a>,
    what: &'a str,
    index: usize,
}

/// A reference (`{"server": …, "name": …}`): the server's name, the tool's name (or `*`),
/// no schema of its own (the server's is used), not twice, and, with `downstreams`, a
/// server and tool the gateway has.
fn check_reference(
    reference: &Reference<'_>,
    server_raw: &RawValue,
    downstreams: Option<&Downstreams>,
    seen: &mut HashMap<String, usize>,
    out: &mut Vec<Finding>,
) {
    const RULE: RuleId = RuleId::ToolsJsonInvalid;
    let Reference {
        text,
        item,
        fields,
        what,
        index,
    } = *reference;
    let server = match value(server_raw) {
        Value::String(s) if is_valid_server_name(&s) => s,
        other => {
            out.push(
                Finding::new(
                    RULE,
                    format!(
                        "`server` of {what} must name a downstream MCP server (letters, digits, `-`, `_`), found {}",
                        match &other {
                            Value::String(s) => format!("`{s}`"),
                            v => kind(v).to_string(),
                        }
                    ),
                    Some(span_of(text, server_raw)),
                )
                .help("write the server's name as the gateway file's `mcpServers` has it, e.g. `\"server\": \"trino\"`"),
            );
            return;
        }
    };
    let (name, span) = match required_str(text, item, fields, "name", RuleId::ToolNameInvalid, what)
    {
        Ok(found) => found,
        Err(f) => {
            out.push(f.help(format!(
                "name the tool of `{server}` to take, or `\"*\"` for all of its tools"
            )));
            return;
        }
    };
    if name != "*" && !is_valid_tool_name(&name) {
        out.push(
            Finding::new(
                RuleId::ToolNameInvalid,
                format!("tool name `{name}` of the reference to `{server}` is not an MCP tool name"),
                Some(span.clone()),
            )
            .help("name one tool of the server (1 to 128 of `A-Z a-z 0-9 _ - .`), or `*` for all of them"),
        );
    }
    for key in ["inputSchema", "outputSchema"] {
        if let Some(raw) = fields.get(key) {
            out.push(
                Finding::new(
                    RULE,
                    format!("{what} references `{name}` of `{server}` and also has an `{key}`"),
                    Some(span_of(text, raw)),
                )
                .help(format!(
                    "remove `{key}`: a reference takes the server's own; or remove `server` to define the tool here"
                )),
            );
        }
    }
    if let Some(known) = downstreams {
        check_known(known, &server, &name, server_raw, &span, text, out);
    }
    let key = format!("{server}/{name}");
    if let Some(first) = seen.get(&key) {
        out.push(
            Finding::new(
                RuleId::ToolDuplicate,
                format!(
                    "tool `{name}` of `{server}` is already referenced (tool #{})",
                    first + 1
                ),
                Some(span),
            )
            .help("remove one of the references"),
        );
    } else {
        seen.insert(key, index);
    }
}

/// `tool-reference-unknown`: the server is in the gateway file, and offers the tool.
fn check_known(
    known: &Downstreams,
    server: &str,
    name: &str,
    server_raw: &RawValue,
    name_span: &Range<usize>,
    text: &str,
    out: &mut Vec<Finding>,
) {
    const RULE: RuleId = RuleId::ToolReferenceUnknown;
    if !known.has_server(server) {
        let names = known.servers.keys().map(String::as_str);
        let hint = match skills_core::suggest::closest(server, names).first() {
            Some(close) => format!("did you mean `{close}`? "),
            None => String::new(),
        };
        out.push(
            Finding::new(
                RULE,
                format!("server `{server}` is not in the gateway file"),
                Some(span_of(text, server_raw)),
            )
            .help(format!(
                "{hint}name a server of the gateway file's `mcpServers`, or add `{server}` there"
            )),
        );
        return;
    }
    let Some(tools) = known.tools(server) else {
        return;
    };
    if name == "*" || tools.contains(name) {
        return;
    }
    let hint = match skills_core::suggest::closest(name, tools.iter().map(String::as_str)).first() {
        Some(close) => format!("did you mean `{close}`? "),
        None => String::new(),
    };
    out.push(
        Finding::new(
            RULE,
            format!("server `{server}` has no tool `{name}`"),
            Some(name_span.clone()),
        )
        .help(format!(
            "{hint}name one of its {} tools, or `*` for all of them",
            tools.len()
        )),
    );
}

fn check_tool_name(
    name: &str,
    span: Range<usize>,
    index: usize,
    seen: &mut HashMap<String, usize>,
    out: &mut Vec<Finding>,
) {
    if !is_valid_tool_name(name) {
        let why = if name.is_empty() {
            "is empty".to_string()
        } else if name.len() > TOOL_NAME_MAX {
            format!("is {} bytes long; MCP allows {TOOL_NAME_MAX}", name.len())
        } else {
            let bad: String = name
                .chars()
                .filter(|c| !(c.is_ascii_alphanumeric() || "_-.".contains(*c)))
                .take(1)
                .collect();
            format!("contains `{bad}`")
        };
        let fixed: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .take(TOOL_NAME_MAX)
            .collect();
        let help = if fixed.is_empty() {
            "name the tool with 1 to 128 of `A-Z a-z 0-9 _ - .`".to_string()
        } else {
            format!("use only `A-Z a-z 0-9 _ - .`, e.g. `{fixed}`")
        };
        out.push(
            Finding::new(
                RuleId::ToolNameInvalid,
                format!("tool name `{name}` {why}"),
                Some(span.clone()),
            )
            .help(help),
        );
    }
    if UNIVERSAL_TOOLS.contains(&name) {
        out.push(
            Finding::new(
                RuleId::ToolShadowsUniversal,
                format!("`{name}` is a universal tool; a skill's tool cannot take its name"),
                Some(span.clone()),
            )
            .help(format!("rename the tool, e.g. `{name}_local`")),
        );
    }
    if let Some(first) = seen.get(name) {
        out.push(
            Finding::new(
                RuleId::ToolDuplicate,
                format!("tool `{name}` is already defined (tool #{})", first + 1),
                Some(span),
            )
            .help("remove one of the definitions, or rename one"),
        );
    } else {
        seen.insert(name.to_string(), index);
    }
}

fn check_tool_fields(
    text: &str,
    item: &RawValue,
    fields: &Fields<'_>,
    what: &str,
    out: &mut Vec<Finding>,
) {
    const RULE: RuleId = RuleId::ToolsJsonInvalid;
    match required_str(text, item, fields, "description", RULE, what) {
        Ok((d, span)) if d.trim().is_empty() => out.push(
            Finding::new(
                RULE,
                format!("`description` of {what} is empty"),
                Some(span),
            )
            .help("say what the tool does and when to call it"),
        ),
        Ok(_) => {}
        Err(f) => out.push(f.help("add `\"description\"`: what the tool does and when to call it")),
    }
    if let Some(raw) = fields.get("title") {
        let v = value(raw);
        if !v.is_string() {
            out.push(
                Finding::new(
                    RULE,
                    format!("`title` of {what} is {}, not a string", kind(&v)),
                    Some(span_of(text, raw)),
                )
                .help("write `title` as a JSON string"),
            );
        }
    }
    if let Some(raw) = fields.get("annotations") {
        let v = value(raw);
        if !v.is_object() {
            out.push(
                Finding::new(
                    RULE,
                    format!("`annotations` of {what} is {}, not an object", kind(&v)),
                    Some(span_of(text, raw)),
                )
                .help("write `annotations` as an object, e.g. `{\"readOnlyHint\": true}`"),
            );
        }
    }
    match fields.get("inputSchema") {
        Some(raw) => out.extend(check_schema(text, raw, "inputSchema", what)),
        None => out.push(
            Finding::new(
                RuleId::ToolSchemaInvalid,
                format!("{what} has no `inputSchema`"),
                Some(head_of(text, item)),
            )
            .help("add `\"inputSchema\": {\"type\": \"object\", \"properties\": {...}}` (MCP requires one, even for no arguments)"),
        ),
    }
    if let Some(raw) = fields.get("outputSchema") {
        out.extend(check_schema(text, raw, "outputSchema", what));
    }
}

/// An MCP tool schema: a JSON Schema object whose root type is `object` that compiles
/// (`skills_schema::check`: its meta-schema, its patterns, its references).
fn check_schema(text: &str, raw: &RawValue, key: &str, what: &str) -> Option<Finding> {
    const RULE: RuleId = RuleId::ToolSchemaInvalid;
    let span = Some(span_of(text, raw));
    let schema = value(raw);
    if !schema.is_object() {
        return Some(
            Finding::new(
                RULE,
                format!(
                    "`{key}` of {what} is {}, not a JSON Schema object",
                    kind(&schema)
                ),
                span,
            )
            .help("write the schema as an object: `{\"type\": \"object\", \"properties\": {...}}`"),
        );
    }
    if schema.get("type") != Some(&Value::String("object".to_string())) {
        return Some(
            Finding::new(
                RULE,
                format!("`{key}` of {what} must have `\"type\": \"object\"` at its root (MCP)"),
                span,
            )
            .help("describe the arguments as the properties of one object"),
        );
    }
    match skills_schema::check(&schema) {
        Ok(()) => None,
        Err(e) => {
            let at = if e.instance_path.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", e.instance_path)
            };
            // A pattern that is valid ECMA-262 but over the size limit is reported as "not a
            // regex" too; the help says both.
            let help = if e.is_pattern() {
                "write a valid, smaller regular expression: each pattern must compile within 1 MiB, \
                 and counted repetitions such as `\\w{1,20000}` (above all inside look-arounds) exceed it"
            } else {
                "fix the schema; external `$ref`s are not resolved"
            };
            Some(
                Finding::new(
                    RULE,
                    format!("`{key}` of {what} is not a valid JSON Schema{at}: {e}"),
                    span,
                )
                .help(help),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_tools(text: &str) -> Vec<Finding> {
        super::check_tools(text, None)
    }

    fn rules(found: &[Finding]) -> Vec<RuleId> {
        found.iter().map(|f| f.rule).collect()
    }

    const SCHEMA: &str = r#"{"type": "object", "properties": {"q": {"type": "string"}}}"#;

    fn tool(name: &str) -> String {
        format!(r#"{{"name": "{name}", "description": "Does x.", "inputSchema": {SCHEMA}}}"#)
    }

    #[test]
    fn a_pattern_too_large_to_compile_is_a_finding_not_gigabytes() {
        // 388 bytes that compiled to 2 GB before patterns were bounded.
        let bomb = r#"[{"name": "t", "description": "d", "inputSchema": {"type": "object",
            "properties": {"q": {"type": "string", "pattern": "(?<=\\w{1,20000})b"}}}}]"#;
        let found = check_tools(bomb);
        assert_eq!(rules(&found), [RuleId::ToolSchemaInvalid]);
        assert!(
            found[0].message.contains("/properties/q/pattern"),
            "{}",
            found[0].message
        );
        assert!(
            found[0]
                .help
                .as_deref()
                .unwrap_or("")
                .contains("within 1 MiB")
        );
        // Ordinary look-arounds and repetitions still compile.
        let fine = r#"[{"name": "t", "description": "d", "inputSchema": {"type": "object",
            "properties": {"q": {"type": "string", "pattern": "^(?=.*\\d)\\w{1,64}$"}},
            "patternProperties": {"^x-[a-z]{1,32}$": {}}}}]"#;
        assert_eq!(rules(&check_tools(fine)), Vec::<RuleId>::new());
    }

    #[test]
    fn valid_tools_pass() {
        let text = format!("[{}, {}]", tool("a"), tool("b.c-d_e"));
        assert_eq!(rules(&check_tools(&text)), Vec::<RuleId>::new());
        assert_eq!(rules(&check_tools("[]")), Vec::<RuleId>::new());
    }

    #[test]
    fn syntax_error_points_at_line_and_column() {
        let text = "[\n  {\"name\": \"a\",}\n]";
        let found = check_tools(text);
        assert_eq!(rules(&found), [RuleId::ToolsJsonInvalid]);
        let span = found[0].span.clone().unwrap();
        assert_eq!(&text[span], "}");
        assert!(
            !found[0].message.contains(" at line "),
            "{}",
            found[0].message
        );
        // Empty file: line 1 column 0.
        assert_eq!(check_tools("")[0].span, Some(0..0));
        // Multi-byte text before the error stays on a char boundary.
        let found = check_tools("[\"é\" x]");
        assert_eq!(rules(&found), [RuleId::ToolsJsonInvalid]);
    }

    #[test]
    fn shapes() {
        assert_eq!(rules(&check_tools("{}")), [RuleId::ToolsJsonInvalid]);
        assert_eq!(rules(&check_tools("[1]")), [RuleId::ToolsJsonInvalid]);
        let found = check_tools(&format!(
            r#"[{{"description": "x", "inputSchema": {SCHEMA}}}]"#
        ));
        assert_eq!(rules(&found), [RuleId::ToolNameInvalid]);
        let found = check_tools(r#"[{"name": "a", "description": "x"}]"#);
        assert_eq!(rules(&found), [RuleId::ToolSchemaInvalid]);
        let found = check_tools(&format!(
            r#"[{{"name": "a", "title": 1, "annotations": [], "inputSchema": {SCHEMA}}}]"#
        ));
        assert_eq!(
            rules(&found),
            [
                RuleId::ToolsJsonInvalid,
                RuleId::ToolsJsonInvalid,
                RuleId::ToolsJsonInvalid
            ]
        );
    }

    #[test]
    fn references_to_a_downstream_server() {
        let ok = r#"[{"server": "trino", "name": "*"}, {"server": "fetch", "name": "fetch", "description": "Why here."}]"#;
        assert_eq!(rules(&check_tools(ok)), Vec::<RuleId>::new());
        let found = check_tools(r#"[{"server": "a b", "name": "q"}]"#);
        assert_eq!(rules(&found), [RuleId::ToolsJsonInvalid]);
        let found = check_tools(r#"[{"server": "trino"}]"#);
        assert_eq!(rules(&found), [RuleId::ToolNameInvalid]);
        let found = check_tools(r#"[{"server": "trino", "name": "get plan"}]"#);
        assert_eq!(rules(&found), [RuleId::ToolNameInvalid]);
        let found = check_tools(&format!(
            r#"[{{"server": "trino", "name": "q", "inputSchema": {SCHEMA}}}]"#
        ));
        assert_eq!(rules(&found), [RuleId::ToolsJsonInvalid]);
        let text = r#"[{"server": "trino", "name": "q"}, {"server": "trino", "name": "q"}]"#;
        let found = check_tools(text);
        assert_eq!(rules(&found), [RuleId::ToolDuplicate]);
        assert_eq!(&text[found[0].span.clone().unwrap()], "\"q\"");
        // The same name from another server, or defined here, is another tool.
        let text = format!(
            r#"[{{"server": "trino", "name": "q"}}, {{"server": "pg", "name": "q"}}, {}]"#,
            tool("r")
        );
        assert_eq!(rules(&check_tools(&text)), Vec::<RuleId>::new());
    }

    #[test]
    fn references_held_to_the_gateway() {
        let known = Downstreams::new()
            .server("trino", Some(["query", "explain"]))
            .server("github", None::<[&str; 0]>);
        let text = r#"[{"server": "trino", "name": "qurey"}, {"server": "trinoo", "name": "query"},
                       {"server": "trino", "name": "*"}, {"server": "github", "name": "anything"},
                       {"server": "trino", "name": "explain"}]"#;
        let found = super::check_tools(text, Some(&known));
        assert_eq!(
            rules(&found),
            [RuleId::ToolReferenceUnknown, RuleId::ToolReferenceUnknown]
        );
        assert_eq!(found[0].message, "server `trino` has no tool `qurey`");
        assert!(
            found[0]
                .help
                .as_deref()
                .unwrap()
                .starts_with("did you mean `query`?")
        );
        assert_eq!(&text[found[0].span.clone().unwrap()], "\"qurey\"");
        assert_eq!(
            found[1].message,
            "server `trinoo` is not in the gateway file"
        );
        assert!(
            found[1]
                .help
                .as_deref()
                .unwrap()
                .starts_with("did you mean `trino`?")
        );
        // Without the gateway, nothing is known and nothing is reported.
        assert_eq!(rules(&check_tools(text)), Vec::<RuleId>::new());
    }

    #[test]
    fn names() {
        for bad in ["", "get plan", "ünï", &"x".repeat(129)] {
            let found = check_tools(&format!("[{}]", tool(bad)));
            assert_eq!(rules(&found), [RuleId::ToolNameInvalid], "{bad:?}");
        }
        assert!(is_valid_tool_name(&"x".repeat(128)));
        let found = check_tools(&format!("[{}, {}]", tool("a"), tool("a")));
        assert_eq!(rules(&found), [RuleId::ToolDuplicate]);
        let found = check_tools(&format!("[{}]", tool("view_skill")));
        assert_eq!(rules(&found), [RuleId::ToolShadowsUniversal]);
    }

    #[test]
    fn schemas_are_compiled() {
        let with = |schema: &str| {
            check_tools(&format!(
                r#"[{{"name": "a", "description": "x", "inputSchema": {schema}}}]"#
            ))
        };
        assert_eq!(rules(&with(r#"{"type": "object"}"#)), Vec::<RuleId>::new());
        assert_eq!(rules(&with("true")), [RuleId::ToolSchemaInvalid]);
        assert_eq!(
            rules(&with(r#"{"type": "string"}"#)),
            [RuleId::ToolSchemaInvalid]
        );
        let found = with(r#"{"type": "object", "properties": {"q": {"type": "strng"}}}"#);
        assert_eq!(rules(&found), [RuleId::ToolSchemaInvalid]);
        let found = with(r#"{"type": "object", "properties": {"q": {"minLength": -1}}}"#);
        assert_eq!(rules(&found), [RuleId::ToolSchemaInvalid]);
        let found = with(r#"{"type": "object", "properties": {"q": {"pattern": "("}}}"#);
        assert_eq!(rules(&found), [RuleId::ToolSchemaInvalid]);
    }
}
