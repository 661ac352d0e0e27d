//! Read and validate one Agent Skills `SKILL.md`.
//!
//! A `SKILL.md` is YAML frontmatter between two `---` lines, then Markdown
//! ([agentskills.io/specification](https://agentskills.io/specification)). This crate turns
//! its bytes into a [`SkillMd`] that remembers the byte span of the frontmatter, of every key
//! and of every value, so a diagnostic can point at the exact text; and it runs every rule that
//! needs nothing but the file and its directory's name ([`SkillMd::validate`]).
//!
//! It does no I/O: callers read the file (refusing ones over [`MAX_FILE_BYTES`] before they
//! read them whole) and hand over the bytes.
//!
//! ```
//! use skills_frontmatter::{Check, SkillMd};
//!
//! let text = "---\nname: pdf-processing\ndescription: Fill PDF forms. Use when the user sends a PDF.\n---\n# PDF\n";
//! let skill = SkillMd::parse(text.as_bytes())?;
//! assert_eq!(skill.name(), Some("pdf-processing"));
//! assert_eq!(&text[skill.field("name").unwrap().value_span.clone()], "pdf-processing");
//! assert_eq!(skill.body(), "# PDF\n");
//!
//! // The directory is called `pdf`, so the name does not match it.
//! let findings = skill.validate(Some("pdf"));
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].check, Check::NameDirMismatch);
//! assert_eq!(findings[0].check.id(), "name-dir-mismatch");
//! # Ok::<(), skills_frontmatter::ParseError>(())
//! ```
//!
//! Parsing is strict where the specification and safety demand it and tolerant elsewhere:
//! fences are whole lines (a `---` inside a value is text), CRLF is fine, a UTF-8 byte order
//! mark is accepted and reported, duplicate keys are errors, and YAML anchors, aliases, depth
//! and node counts are bounded so a "billion laughs" frontmatter fails in microseconds.

use std::ops::Range;

mod check;
pub mod conventions;
mod refs;
mod split;
mod yaml;

pub use check::{
    BODY_MAX_LINES, BODY_MAX_TOKENS, COMPATIBILITY_MAX_CHARS, Check, DESCRIPTION_MAX_CHARS,
    Finding, NAME_MAX_CHARS, SPEC_FIELDS, VENDOR_FIELDS, estimate_tokens, is_valid_name,
};
pub use refs::{Reference, ReferenceKind, resolve as resolve_reference};
pub use yaml::{Node, Value};

/// Files larger than this (1 MiB) are refused before they are parsed.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Why a `SKILL.md` could not be parsed at all. Every variant carries the byte span it is
/// about, relative to the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The file is over [`MAX_FILE_BYTES`].
    #[error("SKILL.md is {size} bytes; files over {limit} bytes are refused")]
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The bytes are not UTF-8.
    #[error("SKILL.md is not valid UTF-8: invalid byte at offset {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// The first line is not `---`.
    #[error("SKILL.md must start with a `---` line that opens the YAML frontmatter")]
    MissingFrontmatter {
        /// The first line.
        span: Range<usize>,
    },
    /// The file uses lone `\r` (classic Mac) line endings, so no fence line can be found.
    /// Reported under the `frontmatter-missing` rule.
    #[error(
        "SKILL.md uses CR line endings (a lone `\\r` after the first `---`), so its frontmatter cannot be found"
    )]
    CrLineEndings {
        /// The first `\r`.
        span: Range<usize>,
    },
    /// No closing `---` line.
    #[error("the frontmatter opened here is never closed with a `---` line")]
    Unclosed {
        /// The opening fence.
        span: Range<usize>,
    },
    /// The YAML does not parse.
    #[error("invalid YAML in frontmatter: {message}")]
    InvalidYaml {
        /// The parser's message, without position.
        message: String,
        /// Where the parser stopped (possibly empty).
        span: Range<usize>,
    },
    /// A key appears twice.
    #[error("duplicate key `{key}` in frontmatter")]
    DuplicateKey {
        /// The key.
        key: String,
        /// The second occurrence.
        span: Range<usize>,
    },
    /// The YAML breaks the alias, anchor, depth or node budget.
    #[error("frontmatter YAML is too complex: {message}")]
    TooComplex {
        /// Which budget, from the parser.
        message: String,
        /// Where the parser stopped.
        span: Range<usize>,
    },
    /// The frontmatter is empty or is not a mapping.
    #[error("frontmatter must be a YAML mapping of fields, found {found}")]
    NotMapping {
        /// What was found: `nothing`, `a sequence`, `a string`...
        found: &'static str,
        /// The YAML text.
        span: Range<usize>,
    },
}

impl ParseError {
    /// The rule this error is reported under.
    pub fn check(&self) -> Check {
        match self {
            ParseError::TooLarge { .. } => Check::FileTooLarge,
            ParseError::InvalidUtf8 { .. } => Check::InvalidUtf8,
            ParseError::MissingFrontmatter { .. } | ParseError::CrLineEndings { .. } => {
                Check::FrontmatterMissing
            }
            ParseError::Unclosed { .. } => Check::FrontmatterUnclosed,
            ParseError::InvalidYaml { .. } => Check::YamlInvalid,
            ParseError::DuplicateKey { .. } => Check::YamlDuplicateKey,
            ParseError::TooComplex { .. } => Check::YamlTooComplex,
            ParseError::NotMapping { .. } => Check::FrontmatterNotMapping,
        }
    }

    /// The bytes of the file the error is about, if any.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            ParseError::TooLarge { .. } => None,
            ParseError::InvalidUtf8 { offset } => Some(*offset..offset + 1),
            ParseError::MissingFrontmatter { span }
            | ParseError::CrLineEndings { span }
            | ParseError::Unclosed { span }
            | ParseError::InvalidYaml { span, .. }
            | ParseError::DuplicateKey { span, .. }
            | ParseError::TooComplex { span, .. }
            | ParseError::NotMapping { span, .. } => Some(span.clone()),
        }
    }

    /// How to fix it.
    pub fn help(&self) -> String {
        match self {
            ParseError::TooLarge { .. } => {
                "keep SKILL.md small and move material into `references/` files".to_string()
            }
            ParseError::InvalidUtf8 { .. } => "save the file as UTF-8".to_string(),
            ParseError::MissingFrontmatter { .. } => {
                "start the file with `---`, then `name:` and `description:`, then `---`; nothing may come before the first `---`".to_string()
            }
            ParseError::CrLineEndings { .. } => {
                "save the file with LF (Unix) or CRLF (Windows) line endings".to_string()
            }
            ParseError::Unclosed { .. } => {
                "add a line containing only `---` after the last frontmatter field".to_string()
            }
            ParseError::InvalidYaml { message, .. } => {
                if message.contains("mapping values are not allowed") {
                    "a value containing `: ` must be quoted: `description: \"Use when: ...\"`, or written as a block (`description: >-`)".to_string()
                } else if message.contains("tab") {
                    "indent with spaces, not tabs".to_string()
                } else {
                    "fix the YAML syntax at the marked position; quote values that contain `:`, `#`, `[` or `{`".to_string()
                }
            }
            ParseError::DuplicateKey { .. } => "remove one of the two entries".to_string(),
            ParseError::TooComplex { .. } => {
                "write the frontmatter as plain fields: no anchors/aliases bombs and no deep nesting".to_string()
            }
            ParseError::NotMapping { .. } => {
                "write the frontmatter as `key: value` lines, at least `name:` and `description:`".to_string()
            }
        }
    }
}

/// One top-level frontmatter field.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key, as text.
    pub key: String,
    /// Byte range of the key in the file.
    pub key_span: Range<usize>,
    /// The value, with spans of its own nodes.
    pub value: Value,
    /// Byte range of the value in the file (for a block collection, possibly empty at its
    /// start).
    pub value_span: Range<usize>,
}

/// A parsed `SKILL.md`: the text, the frontmatter fields in source order, the body, and
/// where each of them sits in the file.
#[derive(Debug, Clone)]
pub struct SkillMd {
    source: String,
    bom: bool,
    opening: Range<usize>,
    yaml: Range<usize>,
    closing: Range<usize>,
    body: Range<usize>,
    entries: Vec<Entry>,
}

impl SkillMd {
    /// Parses the bytes of a `SKILL.md`.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when the file is too large, not UTF-8, has no or unclosed frontmatter,
    /// or its frontmatter is not a YAML mapping within the budgets.
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let size = bytes.len() as u64;
        if size > MAX_FILE_BYTES {
            return Err(ParseError::TooLarge {
                size,
                limit: MAX_FILE_BYTES,
            });
        }
        let source = std::str::from_utf8(bytes)
            .map_err(|e| ParseError::InvalidUtf8 {
                offset: e.valid_up_to(),
            })?
            .to_string();
        Self::parse_str(source)
    }

    /// Parses the bytes of a `SKILL.md` read into a `Vec`, without copying them.
    ///
    /// # Errors
    ///
    /// As [`SkillMd::parse`].
    pub fn parse_vec(bytes: Vec<u8>) -> Result<Self, ParseError> {
        let size = bytes.len() as u64;
        if size > MAX_FILE_BYTES {
            return Err(ParseError::TooLarge {
                size,
                limit: MAX_FILE_BYTES,
            });
        }
        let source = String::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
            offset: e.utf8_error().valid_up_to(),
        })?;
        Self::parse_str(source)
    }

    /// Parses an already-decoded `SKILL.md`.
    ///
    /// # Errors
    ///
    /// As [`SkillMd::parse`], except for the size and encoding checks.
    pub fn parse_str(source: impl Into<String>) -> Result<Self, ParseError> {
        let source: String = source.into();
        let bom = source.starts_with('\u{feff}');
        let start = if bom { 3 } else { 0 };
        let fences = split::split(&source, start).map_err(|e| match e {
            split::FenceError::Missing(span) => ParseError::MissingFrontmatter { span },
            split::FenceError::Unclosed(span) => ParseError::Unclosed { span },
            split::FenceError::CrLineEndings(span) => ParseError::CrLineEndings { span },
        })?;
        let yaml_text = source.get(fences.yaml.clone()).unwrap_or("");
        let root = yaml::parse(yaml_text, fences.yaml.start).map_err(|e| {
            let at = fences.yaml.start + e.offset;
            let end = source
                .get(at..)
                .and_then(|s| s.chars().next())
                .map_or(at, |c| at + c.len_utf8());
            let span = at..end;
            match e.kind {
                yaml::YamlErrorKind::Syntax => ParseError::InvalidYaml {
                    message: e.message,
                    span,
                },
                yaml::YamlErrorKind::DuplicateKey => {
                    // The parser points at the start of the second key: mark the whole key.
                    let rest = source.get(at..).unwrap_or("");
                    let len = rest.find([':', '\n', '\r']).unwrap_or(rest.len());
                    let key = rest.get(..len).unwrap_or("").trim_end();
                    ParseError::DuplicateKey {
                        key: key.trim_matches(['"', '\'']).to_string(),
                        span: at..at + key.len().max(end - at),
                    }
                }
                yaml::YamlErrorKind::TooComplex => ParseError::TooComplex {
                    message: e.message,
                    span,
                },
            }
        })?;
        let entries = match root.value {
            Value::Mapping(entries) if !entries.is_empty() => {
                let mut entries: Vec<Entry> = entries
                    .into_iter()
                    .map(|(k, v)| Entry {
                        key: k.value.key_string(),
                        key_span: k.span,
                        value: v.value,
                        value_span: v.span,
                    })
                    .collect();
                widen_collection_spans(&source, &mut entries, fences.yaml.end);
                entries
            }
            other => {
                let blank = yaml_text
                    .lines()
                    .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
                let found = match other {
                    _ if blank => "nothing",
                    Value::Mapping(_) => "an empty mapping",
                    Value::Sequence(_) => "a sequence",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    Value::Null => "null",
                };
                return Err(ParseError::NotMapping {
                    found,
                    span: if blank {
                        fences.opening.start..fences.closing.end
                    } else {
                        fences.yaml
                    },
                });
            }
        };
        Ok(Self {
            source,
            bom,
            opening: fences.opening,
            yaml: fences.yaml,
            closing: fences.closing,
            body: fences.body,
            entries,
        })
    }

    /// The whole file as text (including a BOM, if there was one), so spans index into it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the file starts with a UTF-8 byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// The top-level fields, in source order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// One top-level field by exact key.
    pub fn field(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.field(key).and_then(|e| e.value.as_str())
    }

    /// `name`, if it is a string.
    pub fn name(&self) -> Option<&str> {
        self.str_field("name")
    }

    /// `description`, if it is a string.
    pub fn description(&self) -> Option<&str> {
        self.str_field("description")
    }

    /// `license`, if it is a string.
    pub fn license(&self) -> Option<&str> {
        self.str_field("license")
    }

    /// `compatibility`, if it is a string.
    pub fn compatibility(&self) -> Option<&str> {
        self.str_field("compatibility")
    }

    /// `allowed-tools`, if it is a string ([`parse_allowed_tools`] splits it).
    pub fn allowed_tools(&self) -> Option<&str> {
        self.str_field("allowed-tools")
    }

    /// The string entries of `metadata`, in source order; non-string values are left out (the
    /// `metadata-value-not-string` rule reports them).
    pub fn metadata(&self) -> Vec<(String, &str)> {
        match self.field("metadata").map(|e| &e.value) {
            Some(Value::Mapping(entries)) => entries
                .iter()
                .filter_map(|(k, v)| v.value.as_str().map(|s| (k.value.key_string(), s)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The whole frontmatter as JSON, every field verbatim and in order, values typed as a
    /// YAML 1.2 parser reads them (`version: 1.0` is the number `1.0`).
    pub fn frontmatter_json(&self) -> serde_json::Map<String, serde_json::Value> {
        self.entries
            .iter()
            .map(|e| (e.key.clone(), e.value.to_json()))
            .collect()
    }

    /// The frontmatter YAML text, between the fences.
    pub fn frontmatter_text(&self) -> &str {
        self.source.get(self.yaml.clone()).unwrap_or("")
    }

    /// Byte range of the frontmatter YAML.
    pub fn frontmatter_range(&self) -> Range<usize> {
        self.yaml.clone()
    }

    /// Byte range of the opening fence line.
    pub fn opening_fence(&self) -> Range<usize> {
        self.opening.clone()
    }

    /// Byte range of the closing fence line.
    pub fn closing_fence(&self) -> Range<usize> {
        self.closing.clone()
    }

    /// The Markdown body after the closing fence, untouched (line endings kept).
    pub fn body(&self) -> &str {
        self.source.get(self.body.clone()).unwrap_or("")
    }

    /// Byte range of the body.
    pub fn body_span(&self) -> Range<usize> {
        self.body.clone()
    }

    /// Where a whole-frontmatter finding (a missing field) points: the opening fence.
    pub(crate) fn frontmatter_span(&self) -> Option<Range<usize>> {
        Some(self.opening.clone())
    }

    /// Runs every check that needs only this file and, when given, the name of its directory
    /// (for `name-dir-mismatch`). Findings come in a fixed order: encoding, fields, name,
    /// description, optional fields, body.
    pub fn validate(&self, dir_name: Option<&str>) -> Vec<Finding> {
        check::validate(self, dir_name)
    }

    /// The local files the body refers to: Markdown links and images with relative targets,
    /// and `scripts/…`, `references/…`, `assets/…` file paths written as code (in backticks
    /// or a fenced block; not prose, not a path ending with `/`). Spans are file offsets.
    pub fn references(&self) -> Vec<Reference> {
        refs::find(self.body(), self.body.start)
    }
}

/// The parser gives a sequence or mapping value only its starting position. Widen it to the
/// whole value: up to the next top-level key (or the end of the frontmatter), without trailing
/// blank lines and comments, so a diagnostic underlines all of `[a, b]` or a block list.
fn widen_collection_spans(source: &str, entries: &mut [Entry], yaml_end: usize) {
    let next_keys: Vec<usize> = entries
        .iter()
        .skip(1)
        .map(|e| e.key_span.start)
        .chain(std::iter::once(yaml_end))
        .collect();
    for (entry, next) in entries.iter_mut().zip(next_keys) {
        if !matches!(entry.value, Value::Sequence(_) | Value::Mapping(_)) {
            continue;
        }
        let start = entry.value_span.start.max(entry.key_span.end);
        let Some(text) = source.get(start..next) else {
            continue;
        };
        // End after the last line that is neither blank nor a comment.
        let mut end = 0;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let t = line.trim();
            if !t.is_empty() && !t.starts_with('#') {
                end = offset + line.len();
            }
            offset += line.len();
        }
        let value = text.get(..end).unwrap_or("").trim_end();
        // Skip the `:` and spaces after the key when the value starts on the key's line.
        let lead = value.len() - value.trim_start_matches([':', ' ', '\t']).len();
        if value.len() > lead {
            entry.value_span = start + lead..start + value.len();
        }
    }
}

/// One tool of an `allowed-tools` value: `Bash(git commit:*, gh:*)` is the tool `Bash` with
/// the capabilities `git commit:*` and `gh:*`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AllowedTool<'a> {
    /// The tool's name (`Read`, `Bash`, `mcp__github__create_issue`).
    pub name: &'a str,
    /// The comma-separated filters in parentheses, trimmed; empty without parentheses.
    pub capabilities: Vec<&'a str>,
}

/// The tools of an `allowed-tools` value: separated by spaces outside parentheses, so a
/// capability may hold spaces (`Bash(git commit:*)`).
///
/// ```
/// let tools = skills_frontmatter::parse_allowed_tools("Bash(git commit:*, gh:*) Read");
/// assert_eq!(tools[0].name, "Bash");
/// assert_eq!(tools[0].capabilities, ["git commit:*", "gh:*"]);
/// assert_eq!(tools[1].name, "Read");
/// assert!(tools[1].capabilities.is_empty());
/// ```
#[must_use]
pub fn parse_allowed_tools(value: &str) -> Vec<AllowedTool<'_>> {
    let mut out = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        let mut depth = 0usize;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c.is_whitespace() && depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at(end);
        rest = tail.trim_start();
        out.push(match token.split_once('(') {
            Some((name, caps)) => AllowedTool {
                name,
                capabilities: caps
                    .strip_suffix(')')
                    .unwrap_or(caps)
                    .split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect(),
            },
            None => AllowedTool {
                name: token,
                capabilities: Vec::new(),
            },
        });
    }
    out
}

/// Finds local file references in any Markdown text (for files other than `SKILL.md`).
pub fn find_references(markdown: &str) -> Vec<Reference> {
    refs::find(markdown, 0)
}

/// Line and column lookups for many offsets into one text, each in time independent of
/// the file's size: [`line_col`] scans from the start, so a file with thousands of findings
/// (a one-line `tools.json` with 5,000 bad tools) cost quadratic time.
///
/// ```
/// use skills_frontmatter::{LineIndex, line_col};
///
/// let text = "name: é\ndescription: x\n";
/// let index = LineIndex::new(text);
/// assert_eq!(index.line_col(text, 21), (2, 13));
/// assert_eq!(index.line_col(text, 21), line_col(text, 21));
/// ```
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of each line's start.
    starts: Vec<usize>,
    /// Characters before each [`LineIndex::BLOCK`]-byte boundary, counted the first time a
    /// column is asked for on a line longer than two blocks: most lines are counted
    /// directly, and most texts never need this.
    chars_before: std::sync::OnceLock<Vec<usize>>,
}

impl LineIndex {
    const BLOCK: usize = 4096;

    /// Indexes the lines of `text` in one pass.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        // Counted first (a vector scan) so the offsets go into one allocation.
        let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        Self {
            starts,
            chars_before: std::sync::OnceLock::new(),
        }
    }

    /// Characters in `bytes[start..offset]`, both character boundaries: counted directly
    /// within two blocks, else from the block counts, so a 70,000-column line costs no more
    /// per finding than a short one.
    fn chars_between(&self, bytes: &[u8], start: usize, offset: usize) -> usize {
        if offset - start <= 2 * Self::BLOCK {
            return bytes.get(start..offset).map_or(0, chars_in);
        }
        let before = self.chars_before.get_or_init(|| {
            let mut count = 0;
            bytes
                .chunks(Self::BLOCK)
                .map(|block| {
                    let here = count;
                    count += chars_in(block);
                    here
                })
                .collect()
        });
        let chars_to = |offset: usize| {
            let block = offset / Self::BLOCK;
            before.get(block).copied().unwrap_or(0)
                + bytes.get(block * Self::BLOCK..offset).map_or(0, chars_in)
        };
        chars_to(offset) - chars_to(start)
    }

    /// The same as [`line_col`] for the text this index was built from.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let column = self.chars_between(text.as_bytes(), start, offset) + 1;
        (line, column)
    }
}

/// Characters in UTF-8 bytes: every byte that does not continue a character starts one.
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The 1-based line and 1-based column (in characters) of byte `offset` in `text`.
/// Offsets past the end map to the end; an offset inside a character maps to that character.
/// For many offsets into one text, build a [`LineIndex`].
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = text.get(..offset).unwrap_or("");
    let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_tools_split_outside_parentheses() {
        let tools = parse_allowed_tools("  Bash(git commit:*)   Read mcp__gh__create_issue ");
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        assert_eq!(names, ["Bash", "Read", "mcp__gh__create_issue"]);
        assert_eq!(tools[0].capabilities, ["git commit:*"]);
        assert!(parse_allowed_tools(" ").is_empty());
        // An unclosed parenthesis keeps the rest as the tool's capabilities.
        let open = parse_allowed_tools("Bash(git:* Read");
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].capabilities, ["git:* Read"]);
        assert_eq!(
            parse_allowed_tools("Bash()")[0].capabilities,
            Vec::<&str>::new()
        );
    }

    #[test]
    fn the_line_index_agrees_with_line_col_everywhere() {
        let long = "é".repeat(5_000) + "x\r\n" + &"a".repeat(9_000) + "\n\nñ";
        for text in ["", "a", "\n", "a\nb\n", "é\nü\u{1F600}x\n", long.as_str()] {
            let index = LineIndex::new(text);
            for offset in 0..=text.len() + 2 {
                assert_eq!(
                    index.line_col(text, offset),
                    line_col(text, offset),
                    "{offset}"
                );
            }
        }
    }

    fn parse(text: &str) -> Result<SkillMd, ParseError> {
        SkillMd::parse(text.as_bytes())
    }

    fn ids(text: &str, dir: &str) -> Vec<&'static str> {
        parse(text)
            .unwrap()
            .validate(Some(dir))
            .into_iter()
            .map(|f| f.check.id())
            .collect()
    }

    const GOOD: &str =
        "---\nname: my-skill\ndescription: Does things. Use when asked.\n---\n# Body\n";

    #[test]
    fn good_skill_is_clean() {
        assert!(ids(GOOD, "my-skill").is_empty());
    }

    #[test]
    fn dashes_inside_a_value_are_text() {
        let s = parse("---\nname: a\ndescription: before --- after\n---\nbody\n").unwrap();
        assert_eq!(s.description(), Some("before --- after"));
    }

    #[test]
    fn crlf_parses_and_keeps_body() {
        let s = parse("---\r\nname: a\r\ndescription: b\r\n---\r\nline\r\n").unwrap();
        assert_eq!(s.name(), Some("a"));
        assert_eq!(s.body(), "line\r\n");
    }

    #[test]
    fn bom_is_tolerated_and_reported() {
        let text = format!("\u{feff}{GOOD}");
        let s = parse(&text).unwrap();
        assert!(s.has_bom());
        assert_eq!(s.name(), Some("my-skill"));
        assert_eq!(ids(&text, "my-skill"), ["utf8-bom"]);
    }

    #[test]
    fn lone_cr_line_endings_are_named() {
        let err = parse("---\rname: a\rdescription: b\r---\rbody\r").unwrap_err();
        assert_eq!(err, ParseError::CrLineEndings { span: 3..4 });
        assert_eq!(err.check(), Check::FrontmatterMissing);
        assert!(err.to_string().contains("CR line endings"), "{err}");
        assert!(err.help().contains("LF"), "{}", err.help());
    }

    #[test]
    fn nul_byte_is_a_yaml_error_at_its_position() {
        let text = "---\nname: a\ndescription: x\0y\n---\nbody\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.check(), Check::YamlInvalid);
        let span = err.span().unwrap();
        assert_eq!(&text[span], "\0");
    }

    /// The findings of the name checks for `name` in a directory of the same name.
    fn name_findings(name: &str) -> Vec<(&'static str, String, String)> {
        let text =
            format!("---\nname: \"{name}\"\ndescription: Probe. Use when asked.\n---\nbody\n");
        parse(&text)
            .unwrap()
            .validate(Some(name))
            .into_iter()
            .filter(|f| f.check.id().starts_with("name-"))
            .map(|f| (f.check.id(), f.message, f.help.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn unicode_oddities_in_names_get_a_valid_suggestion() {
        for (name, bad, suggestion) in [
            ("pdf\u{301}-tool", "'\\u{301}'", "pdf-tool"),
            ("pdf\u{200d}-tool", "'\\u{200d}'", "pdf-tool"),
            ("pdf\u{202e}-tool", "'\\u{202e}'", "pdf-tool"),
            ("pdf\u{200b}", "'\\u{200b}'", "pdf"),
            ("pdf tool", "' '", "pdf-tool"),
            ("pdf - tool", "' '", "pdf-tool"),
        ] {
            let found = name_findings(name);
            assert_eq!(found.len(), 1, "{name:?}: {found:?}");
            let (id, message, help) = &found[0];
            assert_eq!(*id, "name-invalid-chars", "{name:?}");
            assert!(message.contains(bad), "{name:?}: {message}");
            assert_eq!(
                *help,
                format!("use hyphens instead, for example `{suggestion}`"),
                "{name:?}"
            );
            // The suggestion itself is a clean name.
            assert!(name_findings(suggestion).is_empty(), "{suggestion}");
        }
        let found = name_findings("\u{200b}\u{200d}");
        assert_eq!(
            found[0].2,
            "use lowercase letters, digits and single hyphens"
        );
    }

    #[test]
    fn fullwidth_name_is_non_ascii_as_written() {
        let found = name_findings("\u{ff50}\u{ff44}\u{ff46}");
        assert_eq!(found.len(), 1, "{found:?}");
        let (id, message, help) = &found[0];
        assert_eq!(*id, "name-non-ascii");
        assert!(message.contains("\u{ff50}\u{ff44}\u{ff46}"), "{message}");
        assert!(help.starts_with("write it as `pdf`"), "{help}");
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let mut bytes = b"---\nname: caf".to_vec();
        bytes.push(0xe9);
        assert_eq!(
            SkillMd::parse(&bytes).unwrap_err(),
            ParseError::InvalidUtf8 { offset: 13 }
        );
    }

    #[test]
    fn too_large_is_refused() {
        let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
        assert!(matches!(
            SkillMd::parse(&big),
            Err(ParseError::TooLarge { .. })
        ));
    }

    #[test]
    fn structural_errors() {
        assert!(matches!(
            parse("# no frontmatter"),
            Err(ParseError::MissingFrontmatter { .. })
        ));
        assert!(matches!(
            parse("---\nname: a\n"),
            Err(ParseError::Unclosed { .. })
        ));
        assert!(matches!(
            parse("---\n- a\n---\n"),
            Err(ParseError::NotMapping {
                found: "a sequence",
                ..
            })
        ));
        assert!(matches!(
            parse("---\n---\n"),
            Err(ParseError::NotMapping {
                found: "nothing",
                ..
            })
        ));
        let err = parse("---\nname: a\nname: b\n---\n").unwrap_err();
        assert_eq!(err.check(), Check::YamlDuplicateKey);
        assert_eq!(err.span(), Some(12..16));
        assert_eq!(err.to_string(), "duplicate key `name` in frontmatter");
    }

    #[test]
    fn unquoted_colon_points_at_the_colon() {
        let text = "---\nname: a\ndescription: Use when: asked\n---\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.check(), Check::YamlInvalid);
        let span = err.span().unwrap();
        assert_eq!(line_col(text, span.start), (3, 22));
        assert!(err.help().contains("quoted"));
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let mut text = String::from(
            "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for i in 1..9u8 {
            let (p, n) = ((b'a' + i - 1) as char, (b'a' + i) as char);
            text.push_str(&format!(
                "{n}: &{n} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            ));
        }
        text.push_str("---\n");
        let started = std::time::Instant::now();
        let err = parse(&text).unwrap_err();
        assert_eq!(err.check(), Check::YamlTooComplex, "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn deep_nesting_fails() {
        let text = format!("---\nx: {}\n---\n", "[".repeat(10_000));
        assert_eq!(parse(&text).unwrap_err().check(), Check::YamlTooComplex);
    }

    #[test]
    fn spans_for_keys_and_values() {
        let s = parse(GOOD).unwrap();
        let e = s.field("description").unwrap();
        assert_eq!(&GOOD[e.key_span.clone()], "description");
        assert_eq!(&GOOD[e.value_span.clone()], "Does things. Use when asked.");
        assert_eq!(line_col(GOOD, e.value_span.start), (3, 14));
    }

    #[test]
    fn name_rules() {
        let with = |name: &str, dir: &str| {
            ids(
                &format!("---\nname: {name}\ndescription: Use when asked.\n---\nbody\n"),
                dir,
            )
        };
        assert_eq!(
            with("-Bad--Name_", "-Bad--Name_"),
            [
                "name-not-lowercase",
                "name-hyphen-edge",
                "name-consecutive-hyphens",
                "name-invalid-chars"
            ]
        );
        assert_eq!(with(&"a".repeat(65), &"a".repeat(65)), ["name-too-long"]);
        assert!(with(&"a".repeat(64), &"a".repeat(64)).is_empty());
        assert_eq!(with("other", "dir"), ["name-dir-mismatch"]);
        assert_eq!(with("навык", "навык"), ["name-non-ascii"]);
        assert_eq!(
            with("НАВЫК", "НАВЫК"),
            ["name-not-lowercase", "name-non-ascii"]
        );
        // NFKC: fullwidth letters equal their ASCII forms, as in the reference validator, so
        // the directory matches; but the name as written (and sent to clients) is not ASCII.
        assert_eq!(with("ｍｙ-skill", "my-skill"), ["name-non-ascii"]);
        assert_eq!(with("\"123\"", "123"), Vec::<&str>::new());
        assert_eq!(with("true", "true"), ["name-not-string"]);
        assert_eq!(with("\"\"", "x"), ["name-empty"]);
    }

    #[test]
    fn control_characters_are_found_in_values_and_the_body() {
        let with = |text: &str| ids(text, "s");
        let clean = "---\nname: s\ndescription: Use when asked.\n---\nbody\ttabbed\r\n";
        assert!(with(clean).is_empty());
        // YAML refuses them raw, so in the frontmatter they come from escapes.
        assert_eq!(
            with("---\nname: s\ndescription: \"Use when \\e[2J asked.\"\n---\nbody\n"),
            ["control-chars"]
        );
        assert_eq!(
            with("---\nname: s\ndescription: Use when.\nmetadata:\n  k: \"\\a\"\n---\nbody\n"),
            ["control-chars"]
        );
        // A body full of them is one finding, with the count.
        let skill = parse(&format!(
            "---\nname: s\ndescription: Use when.\n---\nbody{}\n",
            "\u{1b}]52;c;x\u{7}".repeat(100)
        ))
        .unwrap();
        let found = skill.validate(Some("s"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].message.contains("ESC (U+001B) and 199 more"),
            "{found:?}"
        );
        assert_eq!(
            with("---\nname: s\ndescription: Use when.\n---\nC1 \u{9b}\n"),
            ["control-chars"]
        );
    }

    #[test]
    fn description_and_optional_rules() {
        let with = |fields: &str| ids(&format!("---\nname: s\n{fields}\n---\nbody\n"), "s");
        assert_eq!(with("description: x"), ["description-no-trigger"]);
        // What `skills new` writes, and what an author leaves for later.
        for placeholder in [
            "\"TODO: say what X does, then when to use it: Use when the user asks to ...\"",
            "\"  FIXME - Use when asked\"",
            "TBD. Use when asked.",
            "XXX use when needed",
            "Replace this with what the skill does and when to use it. Use when the user asks for X.",
        ] {
            assert_eq!(
                with(&format!("description: {placeholder}")),
                ["description-placeholder"],
                "{placeholder}"
            );
        }
        assert_eq!(
            with("description: TODO"),
            ["description-placeholder", "description-no-trigger"]
        );
        // Words that only begin with one, and the word later on, are descriptions.
        for fine in [
            "Todo lists, with items to add and check. Use when asked.",
            "TODOs in code, found. Use when asked.",
            "Finds TODO comments. Use when asked.",
            "XXXL sizes. Use when asked.",
        ] {
            assert!(with(&format!("description: {fine}")).is_empty(), "{fine}");
        }
        assert_eq!(
            with(&format!("description: {}when", "x".repeat(1021))),
            ["description-too-long"]
        );
        assert!(with(&format!("description: {}when", "x".repeat(1020))).is_empty());
        assert_eq!(with("description: Use <b> when"), ["description-xml-chars"]);
        assert_eq!(with("description: \"\""), ["description-empty"]);
        assert_eq!(with("description: [a]"), ["description-not-string"]);
        assert_eq!(
            with("description: Use when.\ncompatibility: \"\""),
            ["compatibility-empty"]
        );
        assert_eq!(
            with("description: Use when.\ncompatibility: 3"),
            ["compatibility-not-string"]
        );
        assert_eq!(
            with(&format!(
                "description: Use when.\ncompatibility: {}",
                "x".repeat(501)
            )),
            ["compatibility-too-long"]
        );
        assert_eq!(
            with("description: Use when.\nmetadata:\n  version: 1.0"),
            ["metadata-value-not-string"]
        );
        assert_eq!(
            with("description: Use when.\nmetadata: x"),
            ["metadata-not-mapping"]
        );
        assert_eq!(
            with("description: Use when.\nallowed-tools: [Read, Bash]"),
            ["allowed-tools-not-string"]
        );
        assert_eq!(
            with("description: Use when.\nlicense: [MIT]"),
            ["license-not-string"]
        );
        assert_eq!(
            with("description: Use when.\nversion: 1"),
            ["unknown-field"]
        );
        assert_eq!(
            with("description: Use when.\nmodel: opus"),
            ["vendor-field"]
        );
        assert_eq!(
            ids("---\ndescription: Use when.\n---\nb\n", "s"),
            ["name-missing"]
        );
        assert_eq!(ids("---\nname: s\n---\nb\n", "s"), ["description-missing"]);
    }

    #[test]
    fn metadata_hint_says_to_quote() {
        let s = parse("---\nname: s\ndescription: Use when.\nmetadata:\n  version: 1.0\n---\nb\n")
            .unwrap();
        let f = &s.validate(Some("s"))[0];
        assert_eq!(
            f.help.as_deref(),
            Some("quote it: `version: \"1.0\"` (YAML reads it as a number)")
        );
        assert_eq!(&s.source()[f.span.clone().unwrap()], "1.0");
    }

    #[test]
    fn body_rules() {
        let body = "line\n".repeat(501);
        let text = format!("---\nname: s\ndescription: Use when.\n---\n{body}");
        let s = parse(&text).unwrap();
        let f = s.validate(Some("s"));
        assert_eq!(f[0].check, Check::BodyTooLong);
        assert_eq!(line_col(&text, f[0].span.clone().unwrap().start).0, 4 + 501);
        assert_eq!(
            ids("---\nname: s\ndescription: Use when.\n---\n\n", "s"),
            ["body-empty"]
        );
        let long = "word ".repeat(4001);
        assert_eq!(
            ids(
                &format!("---\nname: s\ndescription: Use when.\n---\n{long}\n"),
                "s"
            ),
            ["body-too-many-tokens"]
        );
    }

    #[test]
    fn frontmatter_json_is_verbatim_and_typed() {
        let s = parse("---\nname: s\ndescription: d\nmetadata:\n  version: 1.0\n  tags: [a, b]\nx-custom: true\n---\n").unwrap();
        assert_eq!(
            serde_json::Value::Object(s.frontmatter_json()).to_string(),
            r#"{"name":"s","description":"d","metadata":{"version":1.0,"tags":["a","b"]},"x-custom":true}"#
        );
    }

    #[test]
    fn collection_values_span_the_whole_value() {
        let text = "---\nname: s\ndescription:\n  - a\n  - b\n\n# note\nlicense: [MIT, X]\nmetadata: {a: 1}\n---\n";
        let s = parse(text).unwrap();
        let span = |k: &str| &text[s.field(k).unwrap().value_span.clone()];
        assert_eq!(span("description"), "- a\n  - b");
        assert_eq!(span("license"), "[MIT, X]");
        assert_eq!(span("metadata"), "{a: 1}");
        assert_eq!(span("name"), "s");
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
