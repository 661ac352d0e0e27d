//! The frontmatter most skills have, read without the YAML parser.
//!
//! Parsing the YAML was the largest single cost of linting a real collection (a sixth of the
//! CPU time), and nearly every frontmatter is a few `key: value` lines, with perhaps a
//! `metadata:` mapping indented by two spaces. This reads exactly that shape and nothing
//! else: ASCII keys, plain scalars that can only be strings, quoted strings without escapes,
//! and a root value folded (`>`) or literal (`|`) over lines of one indentation. Anything it
//! is not sure of (a comment, another block scalar, a flow collection, a tab, a value that
//! could be a number, a boolean or null, a duplicate key, another indentation) returns
//! `None`, and serde-saphyr reads the text. What it returns is what serde-saphyr returns,
//! spans included; the tests hold the two equal.

use super::{Node, Value};

/// Longer frontmatters go to the parser, whose budgets apply to them.
const MAX_BYTES: usize = 16 * 1024;
/// More entries than any real frontmatter; the parser's node budget is 10,000.
const MAX_ENTRIES: usize = 256;

/// The tree serde-saphyr would build from `yaml`, spans relative to it, or `None` when
/// `yaml` is not of the simple shape.
pub(super) fn parse(yaml: &str) -> Option<Node> {
    if yaml.len() > MAX_BYTES {
        return None;
    }
    let mut root: Vec<(Node, Node)> = Vec::new();
    // The root entry whose value is the mapping being read, and that mapping.
    let mut nested: Option<(Node, Vec<(Node, Node)>)> = None;
    // The last root entry's value is a plain scalar, which indented lines continue.
    let mut open = false;
    // A blank line since the last entry (a blank line inside a scalar is a line break).
    let mut blank = false;
    // The root entry whose value is a block scalar, while its lines are read.
    let mut block: Option<Block> = None;
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let text = line.strip_suffix('\n').unwrap_or(line);
        if let Some(open_block) = block.as_mut() {
            if text.starts_with(' ') {
                open_block.line(line, start)?;
                continue;
            }
            // A blank line in or after the block changes its value by rules not taken here.
            if text.is_empty() {
                return None;
            }
            root.push(block.take()?.finish()?);
        }
        if text.is_empty() {
            blank = true;
            continue;
        }
        if open && text.starts_with(' ') {
            if blank {
                return None;
            }
            let (_, value) = root.last_mut()?;
            continue_scalar(value, text, start)?;
            continue;
        }
        (open, blank) = (false, false);
        let (indent, body) = match text.strip_prefix("  ") {
            Some(rest) => (2, rest),
            None => (0, text),
        };
        if indent == 0
            && let Some(header) = Block::header(body, start)
        {
            if let Some((key, entries)) = nested.take() {
                close(&mut root, key, entries)?;
            }
            if root.len() == MAX_ENTRIES || has_key(&root, &header.key) {
                return None;
            }
            block = Some(header);
            continue;
        }
        let (key, value) = entry(body, start + indent)?;
        if indent == 2 {
            let (_, entries) = nested.as_mut()?;
            if entries.len() == MAX_ENTRIES || has_key(entries, &key) {
                return None;
            }
            entries.push((key, value?));
            continue;
        }
        if let Some((key, entries)) = nested.take() {
            close(&mut root, key, entries)?;
        }
        if root.len() == MAX_ENTRIES || has_key(&root, &key) {
            return None;
        }
        match value {
            Some(value) => {
                open = yaml
                    .as_bytes()
                    .get(value.span.start)
                    .is_some_and(|b| !matches!(b, b'"' | b'\''));
                root.push((key, value));
            }
            None => nested = Some((key, Vec::new())),
        }
    }
    if let Some(open_block) = block.take() {
        root.push(open_block.finish()?);
    }
    if let Some((key, entries)) = nested.take() {
        close(&mut root, key, entries)?;
    }
    let start = root.first()?.0.span.start;
    Some(Node {
        value: Value::Mapping(root),
        span: start..start,
    })
}

/// A root entry whose value is a block scalar: `key: >` (folded: its lines join with
/// spaces) or `key: |` (literal: they keep their line breaks), each with `-` to drop the
/// final line break. Only lines of one indentation, without a tab or trailing white space,
/// are taken; a more indented line, a blank line or an indentation indicator is not.
struct Block {
    key: Node,
    folded: bool,
    /// `-`: the value does not end with a line break.
    strip: bool,
    /// The indentation of the first line, which every line must have.
    indent: Option<usize>,
    value: String,
    /// From the first line's text to the end of the last line, its line break included.
    span: std::ops::Range<usize>,
}

impl Block {
    /// The block that `body` (a root line at byte `at`) opens, if it is `key: >`, `key: >-`,
    /// `key: |` or `key: |-`.
    fn header(body: &str, at: usize) -> Option<Self> {
        let (name, indicator) = body.split_once(':')?;
        let (folded, strip) = match indicator {
            " >" => (true, false),
            " >-" => (true, true),
            " |" => (false, false),
            " |-" => (false, true),
            _ => return None,
        };
        if !is_key(name) {
            return None;
        }
        Some(Self {
            key: Node {
                value: Value::String(name.to_string()),
                span: at..at + name.len(),
            },
            folded,
            strip,
            indent: None,
            value: String::new(),
            span: 0..0,
        })
    }

    /// Takes `line` (at byte `at`, its line break included), which starts with a space.
    fn line(&mut self, line: &str, at: usize) -> Option<()> {
        // The last line of the text must end with a break, as the value then does.
        let text = line.strip_suffix('\n')?;
        let content = text.trim_start_matches(' ');
        let indent = text.len() - content.len();
        if *self.indent.get_or_insert(indent) != indent
            || content.is_empty()
            || content.ends_with(' ')
            || !content.chars().all(printable)
            || self.value.len() + content.len() > MAX_BYTES
        {
            return None;
        }
        if self.value.is_empty() {
            self.span.start = at + indent;
        } else {
            self.value.push(if self.folded { ' ' } else { '\n' });
        }
        self.value.push_str(content);
        self.span.end = at + line.len();
        Some(())
    }

    /// The entry, once the block has ended; `None` for a block without lines.
    fn finish(mut self) -> Option<(Node, Node)> {
        self.indent?;
        if !self.strip {
            self.value.push('\n');
        }
        Some((
            self.key,
            Node {
                value: Value::String(self.value),
                span: self.span,
            },
        ))
    }
}

/// Ends the nested mapping of `key`: a key with nothing under it is null, left to the parser.
fn close(root: &mut Vec<(Node, Node)>, key: Node, entries: Vec<(Node, Node)>) -> Option<()> {
    if has_key(root, &key) {
        return None;
    }
    let start = entries.first()?.0.span.start;
    root.push((
        key,
        Node {
            value: Value::Mapping(entries),
            span: start..start,
        },
    ));
    Some(())
}

fn has_key(entries: &[(Node, Node)], key: &Node) -> bool {
    entries.iter().any(|(k, _)| k.value == key.value)
}

/// Adds the line `text` (at byte `at`), indented, to the plain scalar `value`: YAML folds
/// the line break into a space and drops the indentation and trailing spaces.
fn continue_scalar(value: &mut Node, text: &str, at: usize) -> Option<()> {
    let content = text.trim_start_matches(' ');
    let content_at = at + (text.len() - content.len());
    let content = content.trim_end_matches(' ');
    let first = content.chars().next()?;
    let plain = content.chars().all(printable)
        && !"-?:,[]{}#&*!|>%@`'\"".contains(first)
        && !content.contains(": ")
        && !content.contains(" #")
        && !content.ends_with(':');
    let Value::String(joined) = &mut value.value else {
        return None;
    };
    if !plain || joined.len() + content.len() > MAX_BYTES {
        return None;
    }
    joined.push(' ');
    joined.push_str(content);
    value.span.end = content_at + content.len();
    Some(())
}

/// `key: value` (the value `Some`) or `key:` (`None`: a nested mapping follows) at byte `at`.
/// The outer `None`: not of the simple shape.
fn entry(body: &str, at: usize) -> Option<(Node, Option<Node>)> {
    let colon = body.find(':')?;
    let name = body.get(..colon)?;
    if !is_key(name) {
        return None;
    }
    let key = Node {
        value: Value::String(name.to_string()),
        span: at..at + colon,
    };
    let rest = body.get(colon + 1..)?;
    if rest.is_empty() {
        return Some((key, None));
    }
    let raw = rest.strip_prefix(' ')?.trim_end_matches(' ');
    if raw.starts_with(' ') {
        return None;
    }
    let value_at = at + colon + 2;
    let value = scalar(raw)?;
    Some((
        key,
        Some(Node {
            value: Value::String(value.to_string()),
            span: value_at..value_at + raw.len(),
        }),
    ))
}

/// A key that can only be that string: ASCII letters, digits, `_` and `-`, not starting with
/// a digit or `-`, and not a word YAML may read as null or a boolean.
fn is_key(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !is_special_word(name)
}

/// The string a scalar stands for, when it can only be that string: a quoted string with no
/// escape and no line break, or a plain scalar that no YAML schema reads as anything else.
fn scalar(raw: &str) -> Option<&str> {
    if !raw.chars().all(printable) {
        return None;
    }
    for quote in ['"', '\''] {
        if raw.starts_with(quote) {
            let inner = raw.strip_prefix(quote)?.strip_suffix(quote)?;
            let plain = !inner.contains([quote, '\\']);
            return plain.then_some(inner);
        }
    }
    let first = raw.chars().next()?;
    let plain = !"-?:,[]{}#&*!|>%@`.+~".contains(first)
        && !first.is_ascii_digit()
        && !raw.contains(": ")
        && !raw.contains(" #")
        && !raw.ends_with(':')
        && !is_special_word(raw);
    plain.then_some(raw)
}

/// Null, a boolean, or a float in some YAML schema (1.1's `yes`/`on` and friends included),
/// in any letter case: left to the parser.
fn is_special_word(text: &str) -> bool {
    const WORDS: [&str; 12] = [
        "null", "true", "false", "yes", "no", "on", "off", "y", "n", "nan", "inf", "infinity",
    ];
    text.len() <= 8 && WORDS.iter().any(|w| w.eq_ignore_ascii_case(text))
}

/// A character YAML allows in a scalar on one line, outside the ones a parser may treat
/// specially (line separators, the byte order mark).
fn printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::parse;

    /// `parse` agrees with serde-saphyr whenever it answers, and answers for `must` inputs.
    fn same(yaml: &str) -> bool {
        let Some(mut fast) = parse(yaml) else {
            return false;
        };
        super::super::rebase(&mut fast, 7, yaml);
        let full = super::super::full(yaml, 7);
        assert_eq!(Some(&fast), full.as_ref().ok(), "{yaml:?}");
        true
    }

    #[test]
    fn the_common_shapes_are_read_as_the_parser_reads_them() {
        for yaml in [
            "name: pdf\ndescription: Fills PDF forms. Use when asked.\n",
            "name: pdf\ndescription: \"Quoted: with a colon\"\nlicense: 'MIT'\n",
            "name: pdf\nmetadata:\n  author: me\n  version: \"1.0\"\nlicense: MIT  \n",
            "\nname: a\n\ndescription: b\nmetadata:\n  k: v\n\n  j: w\n",
            "name: a\ndescription: Émigré — naïve 日本語 ✓ a:b c#d http://x.y/z?q=1\n",
            "name: a\nallowed-tools: Read Bash(git:*) Write\n",
            "name: a\ndescription: yes sir\nx_y: No way\n",
            "name: a\ndescription: Builds APIs with FastAPI,\n  SQLAlchemy 2.0, and\n    Pydantic.  \nlicense: MIT\n",
            "description: one\n two\n\nname: a\n",
            "name: a\ndescription: >\n  Folds these: # all\n  into one line.\nlicense: MIT\n",
            "description: >-\n   three spaces\n   each\nmetadata:\n  k: v\n",
            "metadata:\n  k: v\ndescription: |\n  keeps  its\n  breaks\n",
            "description: |-\n  - a list? no, text\n",
        ] {
            assert!(same(yaml), "not read: {yaml:?}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_parser() {
        for yaml in [
            "",
            "\n\n",
            "# a comment\nname: a\n",
            "name: a # comment\n",
            "name: >\n",
            "name: >\nnext: a\n",
            "name: >+\n  keep\n",
            "name: >2\n  indicator\n",
            "name: > # comment\n  folded\n",
            "name: >\n  one\n\n  blank between\n",
            "name: >\n  one\n\nnext: a\n",
            "name: >\n  one\n    more indented\n",
            "name: >\n   one\n  less indented\n",
            "name: >\n  trailing \n",
            "name: >\n  \ttab\n",
            "name: >\n  no final break",
            "name: >\n  a\nname: b\n",
            "  nested: >\n    folded\n",
            "name: [a, b]\n",
            "name: {a: b}\n",
            "name: \"esc\\\"aped\"\n",
            "name: \"a\" \"b\"\n",
            "name: 'it''s'\n",
            "version: 1.0\n",
            "n: 12\n",
            "n: -1\n",
            "n: .inf\n",
            "n: ~\n",
            "n: null\n",
            "n: True\n",
            "n: off\n",
            "n:\n",
            "n:  two spaces\n",
            "n: a: b\n",
            "n: trailing:\n",
            "name: a\nname: b\n",
            "metadata:\n  a: b\n  a: c\n",
            "metadata:\n    four: spaces\n",
            "metadata:\n  deeper:\n    k: v\n",
            "  indented: first\n",
            "description: one\n\n  two after a blank line\n",
            "description: one\n  - two\n",
            "description: one\n  two: three\n",
            "description: one\n  # comment\n",
            "description: \"one\"\n  two\n",
            "metadata:\n  k: one\n    two\n",
            "1: one\n",
            "-key: x\n",
            "true: x\n",
            "name:\ta\n",
            "name: a\r\n",
            "name: a\u{2028}b\n",
            "name: \u{feff}a\n",
            "name: &anchor a\n",
            "name: *alias\n",
            "name: !tag a\n",
            "name: a\n---\nb: c\n",
            "- a\n- b\n",
            "key with space: a\n",
            "\"quoted\": key\n",
        ] {
            let answered = parse(yaml).is_some();
            assert!(!answered || same(yaml), "{yaml:?}");
            assert!(
                !answered,
                "read, but the shape was not meant to be: {yaml:?}"
            );
        }
    }

    #[test]
    fn every_real_frontmatter_in_the_test_data_is_read_alike() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut read = 0;
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.file_name().is_some_and(|n| n == "SKILL.md")
                    && let Ok(text) = std::fs::read_to_string(&path)
                    && let Some(rest) = text.strip_prefix("---\n")
                    && let Some(end) = rest.find("\n---")
                {
                    read += usize::from(same(rest.get(..=end).unwrap_or_default()));
                }
            }
        }
        assert!(read > 50, "only {read} frontmatters took the simple path");
    }

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_][a-z0-9_-]{0,6}: [ -~]{0,12}".prop_map(|s| s),
            "  [a-z][a-z0-9]{0,4}: [ -~]{0,8}".prop_map(|s| s),
            "[a-z]{1,5}:".prop_map(|s| s),
            " {1,4}[ -~]{0,12}".prop_map(|s| s),
            "[a-z]{1,5}: \"[ -~]{0,8}\"".prop_map(|s| s),
            "[a-z]{1,5}: '[ -~]{0,8}'".prop_map(|s| s),
            "[a-z]{1,5}: [>|][-+]?".prop_map(|s| s),
            Just(String::new()),
            "[ -~]{0,10}".prop_map(|s| s),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]

        #[test]
        fn whatever_it_reads_the_parser_reads_alike(lines in prop::collection::vec(fragment(), 1..8)) {
            let yaml = lines.join("\n") + "\n";
            same(&yaml);
        }
    }
}
