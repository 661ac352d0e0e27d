//! The frontmatter YAML, parsed with tight budgets into a tree that remembers where every
//! node came from.

use std::fmt;
use std::ops::Range;

mod simple;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Spanned, budget::Budget};

/// A YAML value from the frontmatter, with the byte span of every node.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// `~`, `null` or an empty value.
    Null,
    /// `true` or `false` (YAML 1.2: `yes`/`no` are strings).
    Bool(bool),
    /// An integer or a float, as JSON would carry it.
    Number(serde_json::Number),
    /// Any string scalar, plain, quoted or block.
    String(String),
    /// A sequence.
    Sequence(Vec<Node>),
    /// A mapping, keys in source order.
    Mapping(Vec<(Node, Node)>),
}

/// A [`Value`] and the byte range of the file it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Byte range into the whole `SKILL.md` text. For a scalar, the scalar's text; for a block
    /// collection, where it starts (possibly empty).
    pub span: Range<usize>,
}

impl Value {
    /// The YAML type name, for messages: `string`, `number`, `boolean`, `null`, `sequence`,
    /// `mapping`.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Sequence(_) => "sequence",
            Value::Mapping(_) => "mapping",
        }
    }

    /// The string, if this is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as JSON, as a YAML 1.2 parser reads it (numbers stay numbers).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Sequence(items) => items.iter().map(|n| n.value.to_json()).collect(),
            Value::Mapping(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.value.key_string(), v.value.to_json()))
                    .collect(),
            ),
        }
    }

    /// How a mapping key is written as a JSON object key.
    pub(crate) fn key_string(&self) -> String {
        match self {
            Value::String(s) => s.clone(),
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            other => other.to_json().to_string(),
        }
    }
}

/// A parsed node before its span is made absolute.
struct Raw(Value);

/// Byte offset of a 1-based line and 1-based character column in `text`.
pub(crate) fn offset_of(text: &str, line: u64, column: u64) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i as u64 + 1 == line {
            let col = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
            return offset
                + l.char_indices()
                    .nth(col)
                    .map_or(l.trim_end_matches(['\n', '\r']).len(), |(b, _)| b);
        }
        offset += l.len();
    }
    text.len()
}

// The tree is built in two passes: the visitor records spans relative to the YAML slice
// (serde-saphyr knows nothing of the file around it), then `rebase` makes them absolute.
impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw(Value::Number(v.into())))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Raw, E> {
        Ok(Raw(serde_json::Number::from_i128(v).map_or_else(
            || Value::String(v.to_string()),
            Value::Number,
        )))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Raw, E> {
        Ok(Raw(serde_json::Number::from_u128(v).map_or_else(
            || Value::String(v.to_string()),
            Value::Number,
        )))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw(Value::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Raw, E> {
        Ok(Raw(Value::String(v)))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Raw, E> {
        Ok(Raw(Value::String(String::from_utf8_lossy(v).into_owned())))
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
            items.push(pending(item));
        }
        Ok(Raw(Value::Sequence(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Raw>>()? {
            let value = map.next_value::<Spanned<Raw>>()?;
            entries.push((pending(key), pending(value)));
        }
        Ok(Raw(Value::Mapping(entries)))
    }
}

/// Children are stored with spans relative to the YAML slice (base 0) and made absolute by
/// [`rebase`] once the slice's offset in the file is applied.
fn pending(spanned: Spanned<Raw>) -> Node {
    let loc = spanned.referenced;
    let start = loc
        .span()
        .byte_offset()
        .and_then(|o| usize::try_from(o).ok());
    let len = loc
        .span()
        .byte_len()
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(0);
    // A missing byte offset is encoded as an empty range at usize::MAX with the line and
    // column packed in, resolved by `rebase` with the YAML text at hand.
    match start {
        Some(s) => Node {
            value: spanned.value.0,
            span: s..s.saturating_add(len),
        },
        None => Node {
            value: spanned.value.0,
            span: usize::MAX - usize::try_from(loc.line()).unwrap_or(0)
                ..usize::MAX - usize::try_from(loc.column()).unwrap_or(0),
        },
    }
}

fn rebase(node: &mut Node, base: usize, yaml: &str) {
    let (start, end) = if node.span.start > yaml.len() {
        // Packed line/column from `pending`.
        let line = usize::MAX - node.span.start;
        let column = usize::MAX - node.span.end;
        let s = offset_of(yaml, line as u64, column as u64);
        (s, s)
    } else {
        (node.span.start, node.span.end.min(yaml.len()))
    };
    node.span = base + start..base + end;
    match &mut node.value {
        Value::Sequence(items) => items.iter_mut().for_each(|n| rebase(n, base, yaml)),
        Value::Mapping(entries) => entries.iter_mut().for_each(|(k, v)| {
            rebase(k, base, yaml);
            rebase(v, base, yaml);
        }),
        _ => {}
    }
}

/// Budgets for untrusted frontmatter: a real `SKILL.md` frontmatter is a dozen short keys, so
/// these are generous for it and tiny for a bomb.
fn options() -> serde_saphyr::Options {
    let mut budget = Budget::default();
    budget.max_depth = 32;
    budget.max_nodes = 10_000;
    budget.max_events = 50_000;
    budget.max_anchors = 64;
    budget.max_aliases = 256;
    budget.max_documents = 1;
    budget.max_total_scalar_bytes = 1 << 20;
    let mut opts = serde_saphyr::Options::default();
    opts.budget = Some(budget);
    opts.strict_booleans = true;
    opts.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    opts.alias_limits.max_total_replayed_events = 4_096;
    opts.alias_limits.max_replay_stack_depth = 8;
    opts
}

/// What went wrong in the YAML, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum YamlErrorKind {
    Syntax,
    DuplicateKey,
    TooComplex,
}

/// A YAML error with its position relative to the YAML slice.
#[derive(Debug, Clone)]
pub(crate) struct YamlError {
    pub(crate) kind: YamlErrorKind,
    pub(crate) message: String,
    /// Byte offset into the YAML slice.
    pub(crate) offset: usize,
}

/// Parses the YAML slice that starts at byte `base` of the file.
pub(crate) fn parse(yaml: &str, base: usize) -> Result<Node, YamlError> {
    if let Some(mut node) = simple::parse(yaml) {
        rebase(&mut node, base, yaml);
        return Ok(node);
    }
    full(yaml, base)
}

/// [`parse`] by serde-saphyr alone.
fn full(yaml: &str, base: usize) -> Result<Node, YamlError> {
    match serde_saphyr::from_str_with_options::<Spanned<Raw>>(yaml, options()) {
        Ok(root) => {
            let mut node = pending(root);
            rebase(&mut node, base, yaml);
            Ok(node)
        }
        Err(err) => Err(classify(&err, yaml)),
    }
}

fn classify(err: &serde_saphyr::Error, yaml: &str) -> YamlError {
    let mut inner = err.without_snippet();
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = inner
    {
        inner = error;
    }
    let offset = err.location().map_or(0, |loc| {
        loc.span()
            .byte_offset()
            .and_then(|o| usize::try_from(o).ok())
            .unwrap_or_else(|| offset_of(yaml, loc.line(), loc.column()))
    });
    let text = inner.to_string();
    // serde-saphyr appends " at line L, column C"; diagnostics carry the position themselves.
    // For duplicate keys it also advises its caller to "set DuplicateKeyPolicy in Options",
    // which means nothing to the author of a SKILL.md.
    let message = text
        .find(" at line ")
        .map_or(text.as_str(), |i| text.get(..i).unwrap_or(&text));
    let message = message
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(message);
    let message = match inner {
        serde_saphyr::Error::NonFiniteFloat { value, .. } => not_finite(value),
        // The parser's own words are its internals (`budget breached: Depth { depth: 33 }`):
        // said in the author's terms, with the limit.
        serde_saphyr::Error::Budget { breach, .. } => budget_message(breach),
        serde_saphyr::Error::AliasReplayLimitExceeded { .. }
        | serde_saphyr::Error::AliasExpansionLimitExceeded { .. }
        | serde_saphyr::Error::AliasReplayStackDepthExceeded { .. }
        | serde_saphyr::Error::AliasReplayCounterOverflow { .. } => {
            "its aliases (`*name`) expand to more than 4,096 values, or nest more than 8 deep; write the values out".to_string()
        }
        // Parser messages may quote the offending text, whose length the file chose.
        _ => clip(message, MAX_MESSAGE),
    };
    let kind = match inner {
        serde_saphyr::Error::DuplicateMappingKey { .. } => YamlErrorKind::DuplicateKey,
        serde_saphyr::Error::Budget { .. }
        | serde_saphyr::Error::AliasReplayLimitExceeded { .. }
        | serde_saphyr::Error::AliasExpansionLimitExceeded { .. }
        | serde_saphyr::Error::AliasReplayStackDepthExceeded { .. }
        | serde_saphyr::Error::AliasReplayCounterOverflow { .. } => YamlErrorKind::TooComplex,
        _ if message.contains("recursion limit")
            || message.contains("budget")
            || message.starts_with("alias ") =>
        {
            YamlErrorKind::TooComplex
        }
        _ if message.starts_with("duplicate mapping key") => YamlErrorKind::DuplicateKey,
        _ => YamlErrorKind::Syntax,
    };
    YamlError {
        kind,
        message,
        offset: offset.min(yaml.len()),
    }
}

/// What a breached budget of [`options`] means to the author of a `SKILL.md`.
fn budget_message(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    match breach {
        B::Depth { .. } => "it nests deeper than 32 levels".to_string(),
        B::Aliases { .. } | B::Anchors { .. } | B::AliasAnchorRatio { .. } | B::MergeKeys { .. } => {
            "it has more anchors (`&name`, at most 64) or aliases (`*name`, at most 256) than a frontmatter needs".to_string()
        }
        B::ScalarBytes { .. } | B::InputBytes { .. } => {
            "its values add up to more than 1 MiB of text".to_string()
        }
        B::Nodes { .. } | B::Events { .. } => {
            "it holds more than 10,000 values; a frontmatter is a few keys".to_string()
        }
        B::Documents { .. } => "it holds more than one YAML document".to_string(),
        _ => "it is more complex than a frontmatter can be".to_string(),
    }
}

/// The longest parser message kept, in characters; the diagnostic shows the place.
const MAX_MESSAGE: usize = 300;

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or_default()),
        None => text.to_string(),
    }
}

/// A number YAML reads as infinite: a literal too large (an integer of a hundred digits is
/// read as a float and overflows) or `.inf`/`.nan`, which JSON cannot carry.
fn not_finite(value: &str) -> String {
    let digits = value.trim_start_matches(['-', '+']);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        format!(
            "a number of {} digits is too large; quote it to keep it as text",
            digits.len()
        )
    } else {
        format!(
            "`{}` is not a finite number; quote it to keep it as text",
            clip(value, 40)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Too-complex frontmatter is said in the author's terms, never the parser's own
    /// (`budget breached: Depth { depth: 33 }`).
    #[test]
    fn too_complex_is_said_without_the_parsers_internals() {
        let deep = format!("a: {}1{}\n", "[".repeat(40), "]".repeat(40));
        let anchors: String = (0..70).map(|i| format!("k{i}: &a{i} v\n")).collect();
        for (yaml, said) in [
            (deep.as_str(), "nests deeper than 32 levels"),
            (anchors.as_str(), "more anchors"),
        ] {
            let error = parse(yaml, 0).unwrap_err();
            assert_eq!(error.kind, YamlErrorKind::TooComplex, "{}", error.message);
            assert!(error.message.contains(said), "{}", error.message);
            assert!(!error.message.contains('{'), "{}", error.message);
        }
    }

    #[test]
    fn huge_and_infinite_numbers_are_named_for_what_they_are() {
        let long = "9".repeat(100_000);
        let err = parse(&format!("n: {long}\n"), 0).unwrap_err();
        assert_eq!(
            err.message,
            "a number of 100000 digits is too large; quote it to keep it as text"
        );
        let err = parse("n: .inf\n", 0).unwrap_err();
        assert_eq!(
            err.message,
            "`.inf` is not a finite number; quote it to keep it as text"
        );
        let err = parse(&format!("n: 1e{long}\n"), 0).unwrap_err();
        assert!(err.message.len() < 100, "{}", err.message);
    }

    #[test]
    fn spans_are_absolute() {
        let yaml = "name: pdf\nmetadata:\n  version: 1.0\n";
        let node = parse(yaml, 4).unwrap();
        let Value::Mapping(entries) = node.value else {
            panic!("not a mapping")
        };
        let (k, v) = &entries[0];
        assert_eq!(k.span, 4..8);
        assert_eq!(v.span, 10..13);
        let Value::Mapping(meta) = &entries[1].1.value else {
            panic!("metadata not a mapping")
        };
        assert_eq!(
            meta[0].1.value,
            Value::Number(serde_json::Number::from_f64(1.0).unwrap())
        );
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let err = parse("name: a\nname: b\n", 0).unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::DuplicateKey);
        assert_eq!(err.message, "duplicate mapping key: name");
        assert_eq!(err.offset, 8);
    }

    #[test]
    fn deep_nesting_is_too_complex() {
        let deep = format!("x: {}", "[".repeat(10_000));
        assert_eq!(parse(&deep, 0).unwrap_err().kind, YamlErrorKind::TooComplex);
    }

    #[test]
    fn offset_of_counts_characters() {
        assert_eq!(offset_of("a: é\nbc: d", 1, 4), 3);
        assert_eq!(offset_of("a: é\nbc: d", 2, 2), 7);
        assert_eq!(offset_of("a", 9, 9), 1);
    }
}
