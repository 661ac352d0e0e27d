//! Context packages (seed 000): the optional `tools.json` and `resources.json` beside a
//! skill's `SKILL.md`, which scope MCP tools and resources to the skill.
//!
//! The checks are pure functions over the file's text (and, for resources, a predicate that
//! says whether a file exists in the skill), so they are tested without a file system;
//! [`check_context`] reads the files and turns their [`Finding`]s into diagnostics.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;
use skills_frontmatter::MAX_FILE_BYTES;

use super::{closest_file, exists, file_size};
use crate::diagnostic::{Diagnostic, Text};
use crate::io::read_sized;
use crate::linter::Linter;
use crate::walk;

/// The file that lists a skill's scoped MCP tools.
pub const TOOLS_FILE: &str = "tools.json";
/// The file that lists a skill's scoped MCP resources.
pub const RESOURCES_FILE: &str = "resources.json";
/// The tools every prompt offers, whatever the skill: a skill's own tool with one of these
/// names would shadow it. `view_skill` loads a skill's Level-2 prompt (seed 000).
pub const UNIVERSAL_TOOLS: &[&str] = &["view_skill"];
/// MCP's limit on the length of a tool name.
pub const TOOL_NAME_MAX: usize = 128;

/// One problem found in a context file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) rule: &'static str,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    /// Byte range in the file's text; `None` for the file as a whole.
    pub(crate) span: Option<Range<usize>>,
}

impl Finding {
    fn new(rule: &'static str, message: String, span: Option<Range<usize>>) -> Self {
        Self {
            rule,
            message,
            help: None,
            span,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// `tools.json` and `resources.json`, when the skill has them: read within the size limit
/// every file has, then checked by [`check_tools`] and [`check_resources`].
pub(crate) fn check_context(linter: &Linter, skill: &walk::SkillDir, out: &mut Vec<Diagnostic>) {
    for (file, rule) in [
        (TOOLS_FILE, "tools-json-invalid"),
        (RESOURCES_FILE, "resources-json-invalid"),
    ] {
        let path = skill.dir.join(file);
        let Some(size) = file_size(skill, &path) else {
            continue;
        };
        let content = if size > MAX_FILE_BYTES {
            Err(format!(
                "{file} is {size} bytes; files over {MAX_FILE_BYTES} bytes are not read"
            ))
        } else {
            read_sized(&path, size)
                .map_err(|e| format!("cannot read {file}: {e}"))
                .and_then(|b| {
                    String::from_utf8(b).map_err(|e| {
                        format!(
                            "{file} is not valid UTF-8 (byte {})",
                            e.utf8_error().valid_up_to()
                        )
                    })
                })
        };
        let text = match content {
            Ok(t) => t,
            Err(message) => {
                out.extend(linter.diagnostic(rule, message, None, path, None, None));
                continue;
            }
        };
        let findings = if file == TOOLS_FILE {
            check_tools(&text)
        } else {
            let exists = |rel: &str| exists(skill, &skill.dir.join(rel));
            let closest = |rel: &str| closest_file(skill, rel);
            check_resources(&text, &exists, &closest)
        };
        let source = Text::new(&text);
        for f in findings {
            out.extend(linter.diagnostic(
                f.rule,
                f.message,
                f.help,
                path.clone(),
                f.span,
                Some(&source),
            ));
        }
    }
}

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

/// The byte offset of `part` (a slice of `whole`) in `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    (part.as_ptr() as usize)
        .saturating_sub(whole.as_ptr() as usize)
        .min(whole.len())
}

/// The span of a raw JSON value in the file.
fn span_of(whole: &str, raw: &RawValue) -> Range<usize> {
    let text = raw.get().trim();
    let start = offset_in(whole, text);
    start..start + text.len()
}

/// The span of the first character of a raw JSON value (the `{` of an object), so a finding
/// about a missing field marks one character, not the whole definition.
fn head_of(whole: &str, raw: &RawValue) -> Range<usize> {
    let span = span_of(whole, raw);
    span.start..(span.start + 1).min(span.end)
}

/// serde_json's 1-based line and byte column, as a span of one character.
fn syntax_span(text: &str, line: usize, column: usize) -> Range<usize> {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let len = text
        .get(at..)
        .and_then(|t| t.chars().next())
        .map_or(0, char::len_utf8);
    at..at + len
}

/// Parses a context file into its array elements, or the finding that says why it is not a
/// JSON array (`rule` is the file's `*-json-invalid` rule).
fn elements<'a>(
    text: &'a str,
    rule: &'static str,
    file: &str,
) -> Result<Vec<&'a RawValue>, Finding> {
    let raw: &RawValue = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        Finding::new(
            rule,
            format!("{file} is not valid JSON: {message}"),
            Some(syntax_span(text, e.line(), e.column())),
        )
        .help("fix the JSON syntax at the marked position (no trailing commas, no comments, double quotes)")
    })?;
    if !raw.get().trim_start().starts_with('[') {
        return Err(Finding::new(
            rule,
            format!("{file} must hold a JSON array of definitions"),
            Some(head_of(text, raw)),
        )
        .help("wrap the definitions in `[` and `]`"));
    }
    serde_json::from_str(raw.get())
        .map(|items: Vec<&RawValue>| items)
        .map_err(|e| Finding::new(rule, format!("{file}: {e}"), None))
}

/// An element's fields, with the raw text of each value (for spans).
type Fields<'a> = BTreeMap<String, &'a RawValue>;

fn fields<'a>(
    text: &'a str,
    item: &'a RawValue,
    rule: &'static str,
    what: &str,
    index: usize,
) -> Result<Fields<'a>, Finding> {
    serde_json::from_str::<Fields<'a>>(item.get()).map_err(|_| {
        Finding::new(
            rule,
            format!("{what} #{} is not a JSON object", index + 1),
            Some(span_of(text, item)),
        )
        .help(format!("write each {what} as an object with named fields"))
    })
}

fn value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A required string field: its value and span, or a finding.
fn required_str<'a>(
    text: &str,
    item: &RawValue,
    fields: &Fields<'a>,
    key: &str,
    rule: &'static str,
    what: &str,
) -> Result<(String, Range<usize>), Finding> {
    let Some(raw) = fields.get(key) else {
        return Err(Finding::new(
            rule,
            format!("{what} has no `{key}`"),
            Some(head_of(text, item)),
        )
        .help(format!("add a `\"{key}\": \"...\"` field")));
    };
    match value(raw) {
        Value::String(s) => Ok((s, span_of(text, raw))),
        v => Err(Finding::new(
            rule,
            format!("`{key}` of {what} is {}, not a string", kind(&v)),
            Some(span_of(text, raw)),
        )
        .help(format!("write `{key}` as a JSON string"))),
    }
}

/// Checks the text of a `tools.json`.
pub(crate) fn check_tools(text: &str) -> Vec<Finding> {
    const RULE: &str = "tools-json-invalid";
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
        match required_str(text, item, &fields, "name", "tool-name-invalid", &what) {
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
                "tool-name-invalid",
                format!("tool name `{name}` {why}"),
                Some(span.clone()),
            )
            .help(help),
        );
    }
    if UNIVERSAL_TOOLS.contains(&name) {
        out.push(
            Finding::new(
                "tool-shadows-universal",
                format!("`{name}` is a universal tool; a skill's tool cannot take its name"),
                Some(span.clone()),
            )
            .help(format!("rename the tool, e.g. `{name}_local`")),
        );
    }
    if let Some(first) = seen.get(name) {
        out.push(
            Finding::new(
                "tool-duplicate",
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
    const RULE: &str = "tools-json-invalid";
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
                "tool-schema-invalid",
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

/// An MCP tool schema: a JSON Schema object whose root type is `object`, compiled with the
/// `jsonschema` crate (which validates it against its meta-schema).
fn check_schema(text: &str, raw: &RawValue, key: &str, what: &str) -> Option<Finding> {
    const RULE: &str = "tool-schema-invalid";
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
    match schema_options().build(&schema) {
        Ok(_) => None,
        Err(e) => {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at `{at}`")
            };
            // A pattern that is valid ECMA-262 but over the size limit is reported as "not a
            // regex" too; the help says both.
            let pattern = at.ends_with("/pattern`") || at.contains("/patternProperties/");
            let help = if pattern {
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

/// How schemas are compiled: the default pattern engine (ECMA-262 look-around needs
/// fancy-regex), with the compiled size of each `pattern` bounded. Unbounded, a 388-byte
/// `"(?<=\\w{1,20000})b"` took 3 s and 2 GB to compile, and any `tools.json` in a pull
/// request or a downloaded archive is compiled by `lint`, `package` and `install`.
fn schema_options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options().with_pattern_options(
        jsonschema::PatternOptions::fancy_regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT),
    )
}

/// Bytes a compiled `pattern` may take (the regex engine's own default is 10 MiB per regex,
/// which a schema with many patterns multiplies).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Checks the text of a `resources.json`; `exists` says whether a path relative to the
/// skill directory names a file of the skill.
pub(crate) fn check_resources(
    text: &str,
    exists: &dyn Fn(&str) -> bool,
    closest: &dyn Fn(&str) -> Option<String>,
) -> Vec<Finding> {
    const RULE: &str = "resources-json-invalid";
    let items = match elements(text, RULE, RESOURCES_FILE) {
        Ok(items) => items,
        Err(f) => return vec![f],
    };
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let fields = match fields(text, item, RULE, "resource", i) {
            Ok(f) => f,
            Err(f) => {
                out.push(f);
                continue;
            }
        };
        let mut what = format!("resource #{}", i + 1);
        match required_str(text, item, &fields, "uri", "resource-uri-invalid", &what) {
            Ok((uri, span)) => {
                what = format!("resource `{uri}`");
                out.extend(check_uri(&uri, span.clone(), exists, closest));
                if let Some(first) = seen.get(&uri) {
                    out.push(
                        Finding::new(
                            "resource-duplicate",
                            format!(
                                "resource `{uri}` is already listed (resource #{})",
                                first + 1
                            ),
                            Some(span),
                        )
                        .help("remove one of the entries"),
                    );
                } else {
                    seen.insert(uri, i);
                }
            }
            Err(f) => out.push(f),
        }
        match required_str(text, item, &fields, "name", RULE, &what) {
            Ok((n, span)) if n.trim().is_empty() => out.push(
                Finding::new(RULE, format!("`name` of {what} is empty"), Some(span))
                    .help("name the resource"),
            ),
            Ok(_) => {}
            Err(f) => out.push(f),
        }
        match required_str(text, item, &fields, "description", RULE, &what) {
            Ok(_) => {}
            Err(f) => out
                .push(f.help("add `\"description\"`: what the resource holds and when to read it")),
        }
        if let Some(raw) = fields.get("mimeType") {
            let v = value(raw);
            if !v.is_string() {
                out.push(
                    Finding::new(
                        RULE,
                        format!("`mimeType` of {what} is {}, not a string", kind(&v)),
                        Some(span_of(text, raw)),
                    )
                    .help("write the MIME type as a string, e.g. `\"text/markdown\"`"),
                );
            }
        }
    }
    out
}

/// `uri` must be an RFC 3986 URI reference: with a scheme (`resource://`, `file:`,
/// `https:` ...), or a relative path that names a file in the skill.
fn check_uri(
    uri: &str,
    span: Range<usize>,
    exists: &dyn Fn(&str) -> bool,
    closest: &dyn Fn(&str) -> Option<String>,
) -> Option<Finding> {
    const RULE: &str = "resource-uri-invalid";
    if uri.trim().is_empty() {
        return Some(
            Finding::new(
                RULE,
                "the resource's `uri` is empty".to_string(),
                Some(span),
            )
            .help("give a URI such as `resource://my-skill/rules.md`, or a path in the skill"),
        );
    }
    let parsed = match fluent_uri::UriRef::parse(uri) {
        Ok(u) => u,
        Err(e) => {
            let hint = if uri.contains(char::is_whitespace) {
                "percent-encode spaces as `%20`"
            } else {
                "write an RFC 3986 URI, e.g. `resource://my-skill/rules.md`"
            };
            return Some(
                Finding::new(RULE, format!("`{uri}` is not a valid URI: {e}"), Some(span))
                    .help(hint),
            );
        }
    };
    if parsed.has_scheme() {
        return None;
    }
    if parsed.has_authority() || uri.starts_with('/') {
        return Some(
            Finding::new(
                RULE,
                format!("`{uri}` has no scheme and is not a path relative to the skill"),
                Some(span),
            )
            .help("add a scheme (`resource://`, `file://`, `https://`) or use a path relative to the skill directory"),
        );
    }
    let path = parsed.path().decode().to_string_lossy();
    let Some(resolved) = skills_frontmatter::resolve_reference(&path).filter(|p| !p.is_empty())
    else {
        return Some(
            Finding::new(
                RULE,
                format!("`{uri}` climbs out of the skill directory"),
                Some(span),
            )
            .help("copy the file into the skill, or give it a URI with a scheme"),
        );
    };
    if exists(&resolved) {
        return None;
    }
    let help = match closest(&resolved) {
        Some(c) => format!("did you mean `{c}`? Paths are relative to the skill directory"),
        None => "add the file, or correct the path (relative to the skill directory)".to_string(),
    };
    Some(
        Finding::new(
            "resource-missing",
            format!("`{uri}` does not exist in the skill"),
            Some(span),
        )
        .help(help),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(found: &[Finding]) -> Vec<&'static str> {
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
        assert_eq!(rules(&found), ["tool-schema-invalid"]);
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
        assert_eq!(rules(&check_tools(fine)), Vec::<&str>::new());
    }

    #[test]
    fn valid_tools_pass() {
        let text = format!("[{}, {}]", tool("a"), tool("b.c-d_e"));
        assert_eq!(rules(&check_tools(&text)), Vec::<&str>::new());
        assert_eq!(rules(&check_tools("[]")), Vec::<&str>::new());
    }

    #[test]
    fn syntax_error_points_at_line_and_column() {
        let text = "[\n  {\"name\": \"a\",}\n]";
        let found = check_tools(text);
        assert_eq!(rules(&found), ["tools-json-invalid"]);
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
        assert_eq!(rules(&found), ["tools-json-invalid"]);
    }

    #[test]
    fn shapes() {
        assert_eq!(rules(&check_tools("{}")), ["tools-json-invalid"]);
        assert_eq!(rules(&check_tools("[1]")), ["tools-json-invalid"]);
        let found = check_tools(&format!(
            r#"[{{"description": "x", "inputSchema": {SCHEMA}}}]"#
        ));
        assert_eq!(rules(&found), ["tool-name-invalid"]);
        let found = check_tools(r#"[{"name": "a", "description": "x"}]"#);
        assert_eq!(rules(&found), ["tool-schema-invalid"]);
        let found = check_tools(&format!(
            r#"[{{"name": "a", "title": 1, "annotations": [], "inputSchema": {SCHEMA}}}]"#
        ));
        assert_eq!(
            rules(&found),
            [
                "tools-json-invalid",
                "tools-json-invalid",
                "tools-json-invalid"
            ]
        );
    }

    #[test]
    fn names() {
        for bad in ["", "get plan", "ünï", &"x".repeat(129)] {
            let found = check_tools(&format!("[{}]", tool(bad)));
            assert_eq!(rules(&found), ["tool-name-invalid"], "{bad:?}");
        }
        assert!(is_valid_tool_name(&"x".repeat(128)));
        let found = check_tools(&format!("[{}, {}]", tool("a"), tool("a")));
        assert_eq!(rules(&found), ["tool-duplicate"]);
        let found = check_tools(&format!("[{}]", tool("view_skill")));
        assert_eq!(rules(&found), ["tool-shadows-universal"]);
    }

    #[test]
    fn schemas_are_compiled() {
        let with = |schema: &str| {
            check_tools(&format!(
                r#"[{{"name": "a", "description": "x", "inputSchema": {schema}}}]"#
            ))
        };
        assert_eq!(rules(&with(r#"{"type": "object"}"#)), Vec::<&str>::new());
        assert_eq!(rules(&with("true")), ["tool-schema-invalid"]);
        assert_eq!(
            rules(&with(r#"{"type": "string"}"#)),
            ["tool-schema-invalid"]
        );
        let found = with(r#"{"type": "object", "properties": {"q": {"type": "strng"}}}"#);
        assert_eq!(rules(&found), ["tool-schema-invalid"]);
        let found = with(r#"{"type": "object", "properties": {"q": {"minLength": -1}}}"#);
        assert_eq!(rules(&found), ["tool-schema-invalid"]);
        let found = with(r#"{"type": "object", "properties": {"q": {"pattern": "("}}}"#);
        assert_eq!(rules(&found), ["tool-schema-invalid"]);
    }

    #[test]
    fn resources() {
        let exists = |p: &str| p == "references/rules.md";
        let closest = |_: &str| Some("references/rules.md".to_string());
        let check = |text: &str| check_resources(text, &exists, &closest);
        let res = |uri: &str| {
            format!(
                r#"{{"uri": "{uri}", "name": "n", "description": "d", "mimeType": "text/markdown"}}"#
            )
        };
        let ok = format!(
            "[{}, {}, {}]",
            res("resource://trino/rules.md"),
            res("references/rules.md"),
            res("./references/rules.md?x#y")
        );
        assert_eq!(rules(&check(&ok)), Vec::<&str>::new());
        assert_eq!(
            rules(&check(&format!("[{}]", res("rules.md")))),
            ["resource-missing"]
        );
        for bad in [
            "",
            "has space.md",
            "/etc/passwd",
            "//host/x",
            "../out.md",
            "a:b c",
        ] {
            let found = check(&format!("[{}]", res(bad)));
            assert_eq!(rules(&found), ["resource-uri-invalid"], "{bad:?}");
        }
        let dup = format!("[{}, {}]", res("resource://a"), res("resource://a"));
        assert_eq!(rules(&check(&dup)), ["resource-duplicate"]);
        assert_eq!(
            rules(&check(r#"[{"uri": "resource://a", "mimeType": 1}]"#)),
            [
                "resources-json-invalid",
                "resources-json-invalid",
                "resources-json-invalid"
            ]
        );
        assert_eq!(rules(&check("[1,]")), ["resources-json-invalid"]);
    }
}
