//! Context packages (seed 000): the optional `tools.json` and `resources.json` beside a
//! skill's `SKILL.md`, which scope MCP tools and resources to the skill.
//!
//! The checks of each file ([`tools`], [`resources`]) are pure functions over its text (and,
//! for resources, a predicate that says whether a file exists in the skill), so they are
//! tested without a file system; they share the JSON helpers here, which keep the span of
//! every value. [`check_context`] reads the files and turns their [`Finding`]s into
//! diagnostics.

use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;
use skills_frontmatter::MAX_FILE_BYTES;

use super::{closest_file, exists, file_size};
use crate::diagnostic::{Diagnostic, Text};
use crate::linter::Linter;
use crate::walk;

pub(crate) mod resources;
pub(crate) mod tools;

use crate::rules::RuleId;
use resources::{RESOURCES_FILE, check_resources};
use tools::{TOOLS_FILE, check_tools};

/// One problem found in a context file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) rule: RuleId,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    /// Byte range in the file's text; `None` for the file as a whole.
    pub(crate) span: Option<Range<usize>>,
}

impl Finding {
    fn new(rule: RuleId, message: String, span: Option<Range<usize>>) -> Self {
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
        (TOOLS_FILE, RuleId::ToolsJsonInvalid),
        (RESOURCES_FILE, RuleId::ResourcesJsonInvalid),
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
            skill
                .read(&path, size, MAX_FILE_BYTES)
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
            check_tools(&text, linter.downstreams())
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
fn elements<'a>(text: &'a str, rule: RuleId, file: &str) -> Result<Vec<&'a RawValue>, Finding> {
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
    rule: RuleId,
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
    rule: RuleId,
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
