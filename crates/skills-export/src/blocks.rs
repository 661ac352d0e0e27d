//! Blocks that `skills` owns inside a file the user owns (`AGENTS.md`, `CLAUDE.md`).
//!
//! A block is found only by its two marker lines, which carry our name, and only outside
//! code blocks. A tag such as `<available_skills>` is never enough: people quote it in
//! documentation and in fenced examples, and replacing "from the tag to the next closing
//! tag" once deleted a user's hand-written section. Anything that is not exactly one begin
//! marker followed by one end marker is refused, so the caller can stop before writing.

use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag};

/// A block `skills` writes into a Markdown file and later replaces in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Block {
    /// The usage guide of [`crate::instructions`].
    Instructions,
    /// The `<available_skills>` catalog of [`crate::catalog_xml`].
    Catalog,
}

impl Block {
    /// The line that opens the block, e.g. `<!-- skills:begin instructions -->`.
    pub fn begin_marker(self) -> &'static str {
        match self {
            Self::Instructions => "<!-- skills:begin instructions -->",
            Self::Catalog => "<!-- skills:begin catalog -->",
        }
    }

    /// The line that closes the block, e.g. `<!-- skills:end instructions -->`.
    pub fn end_marker(self) -> &'static str {
        match self {
            Self::Instructions => "<!-- skills:end instructions -->",
            Self::Catalog => "<!-- skills:end catalog -->",
        }
    }

    fn all() -> [Self; 2] {
        [Self::Instructions, Self::Catalog]
    }
}

/// Why a file's blocks cannot be updated safely. Nothing should be written: the caller
/// cannot tell which text is the user's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
#[non_exhaustive]
pub struct BlockError {
    /// What is wrong.
    pub kind: BlockErrorKind,
    /// The 1-based line of the marker at fault.
    pub line: usize,
    /// The marker line's byte range in the text.
    pub span: Range<usize>,
}

/// The ways a file's markers can be ambiguous.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BlockErrorKind {
    /// A begin marker with no end marker after it.
    #[error("`{marker}` is not closed by `{expected}`")]
    Unclosed {
        /// The begin marker.
        marker: &'static str,
        /// The end marker that was not found.
        expected: &'static str,
    },
    /// An end marker with no begin marker before it.
    #[error("`{marker}` has no `{expected}` before it")]
    Unopened {
        /// The end marker.
        marker: &'static str,
        /// The begin marker that was not found.
        expected: &'static str,
    },
    /// A second block of the same kind.
    #[error("`{marker}` appears again (the first is on line {first})")]
    Repeated {
        /// The begin marker.
        marker: &'static str,
        /// The line of the first one.
        first: usize,
    },
    /// A marker of another block inside this one.
    #[error("`{marker}` is inside the block that starts on line {outer}")]
    Nested {
        /// The marker found inside.
        marker: &'static str,
        /// The line of the enclosing block's begin marker.
        outer: usize,
    },
}

impl BlockError {
    /// How to fix the file, for a help line.
    pub fn help(&self) -> &'static str {
        match self.kind {
            BlockErrorKind::Unclosed { .. } | BlockErrorKind::Unopened { .. } => {
                "add the missing marker line, or delete the lone one and run again to append a fresh block"
            }
            BlockErrorKind::Repeated { .. } => {
                "keep one block: delete the other, markers included, then run again"
            }
            BlockErrorKind::Nested { .. } => {
                "move the inner block out (markers included), or delete it and run again"
            }
        }
    }
}

/// One marker line found outside code.
#[derive(Debug, Clone)]
struct Marker {
    block: Block,
    begin: bool,
    line: usize,
    /// The whole line, its line break included.
    range: Range<usize>,
}

/// The whole-line byte range (line break included) of each block in `text`, or why they
/// are ambiguous.
fn locate(text: &str) -> Result<Vec<(Block, Range<usize>)>, BlockError> {
    let markers = markers(text);
    let mut found: Vec<(Block, Range<usize>, usize)> = Vec::new();
    let mut open: Option<&Marker> = None;
    for m in &markers {
        match open {
            None if m.begin => {
                if let Some((_, _, first)) = found.iter().find(|(b, _, _)| *b == m.block) {
                    return Err(err(
                        m,
                        BlockErrorKind::Repeated {
                            marker: m.block.begin_marker(),
                            first: *first,
                        },
                    ));
                }
                open = Some(m);
            }
            None => {
                return Err(err(
                    m,
                    BlockErrorKind::Unopened {
                        marker: m.block.end_marker(),
                        expected: m.block.begin_marker(),
                    },
                ));
            }
            Some(o) if !m.begin && m.block == o.block => {
                found.push((o.block, o.range.start..m.range.end, o.line));
                open = None;
            }
            Some(o) => {
                let marker = if m.begin {
                    m.block.begin_marker()
                } else {
                    m.block.end_marker()
                };
                return Err(err(
                    m,
                    BlockErrorKind::Nested {
                        marker,
                        outer: o.line,
                    },
                ));
            }
        }
    }
    if let Some(o) = open {
        return Err(err(
            o,
            BlockErrorKind::Unclosed {
                marker: o.block.begin_marker(),
                expected: o.block.end_marker(),
            },
        ));
    }
    Ok(found.into_iter().map(|(b, r, _)| (b, r)).collect())
}

fn err(m: &Marker, kind: BlockErrorKind) -> BlockError {
    BlockError {
        kind,
        line: m.line,
        span: m.range.clone(),
    }
}

/// Every marker line outside fenced and indented code blocks, in order. Inside one of our
/// blocks, code is not tracked: the block's text is ours, and an unbalanced fence in a
/// skill's description must not hide the end marker.
fn markers(text: &str) -> Vec<Marker> {
    // Cheap exit for the common file with no marker at all.
    if !text.contains("<!-- skills:") {
        return Vec::new();
    }
    let code = code_ranges(text);
    let mut code = code.iter().peekable();
    let mut out = Vec::new();
    let mut offset = 0;
    let mut inside: Option<Block> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        while code.next_if(|r| r.end <= start).is_some() {}
        let in_code = code.peek().is_some_and(|r| r.start <= start);
        let bare = line.trim_end_matches(['\n', '\r', ' ', '\t']);
        let Some((block, begin)) = Block::all().into_iter().find_map(|b| {
            if bare == b.begin_marker() {
                Some((b, true))
            } else if bare == b.end_marker() {
                Some((b, false))
            } else {
                None
            }
        }) else {
            continue;
        };
        let counts = match inside {
            // Inside our block only its own end marker matters, and any other marker is
            // reported (nested), whatever a fence in between says.
            Some(open) => !begin && block == open || !in_code,
            None => !in_code,
        };
        if !counts {
            continue;
        }
        inside = match (inside, begin) {
            (None, true) => Some(block),
            (Some(open), false) if open == block => None,
            (current, _) => current,
        };
        out.push(Marker {
            block,
            begin,
            line: i + 1,
            range: start..offset,
        });
    }
    out
}

/// Byte ranges of the code blocks (fenced and indented), sorted, as CommonMark sees them.
fn code_ranges(text: &str) -> Vec<Range<usize>> {
    Parser::new(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_)) => Some(range),
            _ => None,
        })
        .collect()
}

/// Puts each block's new content into `text`: `Some(content)` replaces the block (markers
/// kept) or, when the file has none, appends it after a blank line; `None` removes the
/// block, markers and all. Everything outside the blocks is kept byte for byte, so running
/// the same update twice changes nothing. The lines written (markers, content, the blank
/// line before a new block) end as the text's first line does: a CRLF file stays CRLF.
///
/// `content` is the text between the markers and should end with a line break.
///
/// # Errors
///
/// When a marker is unclosed, unopened, repeated or nested in another block: the file's
/// blocks are ambiguous and nothing should be written.
///
/// ```
/// use skills_export::{Block, update_blocks};
///
/// let agents = "# Project\n\n```\n<!-- skills:begin catalog -->\n```\n";
/// let once = update_blocks(agents, &[(Block::Catalog, Some("v1\n"))])?;
/// assert_eq!(
///     once,
///     "# Project\n\n```\n<!-- skills:begin catalog -->\n```\n\n\
///      <!-- skills:begin catalog -->\nv1\n<!-- skills:end catalog -->\n"
/// );
/// let twice = update_blocks(&once, &[(Block::Catalog, Some("v2\n"))])?;
/// assert!(twice.starts_with(agents));
/// assert!(twice.ends_with("\nv2\n<!-- skills:end catalog -->\n"));
///
/// // A CRLF file gets CRLF lines.
/// let windows = update_blocks("# Project\r\n", &[(Block::Catalog, Some("v1\n"))])?;
/// assert_eq!(
///     windows,
///     "# Project\r\n\r\n<!-- skills:begin catalog -->\r\nv1\r\n<!-- skills:end catalog -->\r\n"
/// );
///
/// // A lone marker outside code: whose text follows it is unclear, so nothing is done.
/// let err = update_blocks("<!-- skills:begin catalog -->\nmine\n", &[(Block::Catalog, None)]);
/// assert_eq!(err.unwrap_err().line, 1);
/// # Ok::<(), skills_export::BlockError>(())
/// ```
pub fn update_blocks(text: &str, updates: &[(Block, Option<&str>)]) -> Result<String, BlockError> {
    let found = locate(text)?;
    let nl = line_break(text);
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    // Blocks in file order, each replaced or removed where it is.
    for (block, range) in &found {
        let Some((_, content)) = updates.iter().find(|(b, _)| b == block) else {
            continue;
        };
        out.push_str(text.get(at..range.start).unwrap_or(""));
        if let Some(content) = content {
            push_block(&mut out, *block, content, nl);
        }
        at = range.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    // New blocks go at the end, in the order asked for.
    for (block, content) in updates {
        let Some(content) = content else { continue };
        if found.iter().any(|(b, _)| b == block) {
            continue;
        }
        if !out.is_empty() {
            if !out.ends_with('\n') {
                out.push_str(nl);
            }
            if !(out.ends_with("\n\n") || out.ends_with("\n\r\n")) {
                out.push_str(nl);
            }
        }
        push_block(&mut out, *block, content, nl);
    }
    Ok(out)
}

/// The line break of `text`'s first line, `\r\n` or `\n` (also for a text without one).
fn line_break(text: &str) -> &'static str {
    match text.split_once('\n') {
        Some((first, _)) if first.ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// The block's lines, each ending with `nl` (the content's last line gets one if it has
/// none).
fn push_block(out: &mut String, block: Block, content: &str, nl: &str) {
    out.push_str(block.begin_marker());
    out.push_str(nl);
    for line in content.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(text) => {
                out.push_str(text.strip_suffix('\r').unwrap_or(text));
                out.push_str(nl);
            }
            None => {
                out.push_str(line);
                out.push_str(nl);
            }
        }
    }
    out.push_str(block.end_marker());
    out.push_str(nl);
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "<!-- skills:begin instructions -->";
    const E: &str = "<!-- skills:end instructions -->";

    fn ins(text: &str, content: &str) -> Result<String, BlockError> {
        update_blocks(text, &[(Block::Instructions, Some(content))])
    }

    #[test]
    fn appends_then_replaces_in_place() {
        let once = ins("# Notes\n", "v1\n").unwrap();
        assert_eq!(once, format!("# Notes\n\n{B}\nv1\n{E}\n"));
        let edited = format!("{once}\n## Mine\nkeep\n");
        let twice = ins(&edited, "v2\n").unwrap();
        assert_eq!(twice, format!("# Notes\n\n{B}\nv2\n{E}\n\n## Mine\nkeep\n"));
        assert_eq!(ins(&twice, "v2\n").unwrap(), twice);
        // CRLF files and trailing spaces after a marker are recognised; the rest is kept,
        // and the block is written with the file's line breaks.
        let crlf = format!("a\r\n{B}  \r\nold\r\n{E}\r\nb\r\n");
        assert_eq!(
            ins(&crlf, "new\n").unwrap(),
            format!("a\r\n{B}\r\nnew\r\n{E}\r\nb\r\n")
        );
        assert_eq!(ins("", "x\n").unwrap(), format!("{B}\nx\n{E}\n"));
        assert_eq!(
            ins("no newline", "x\n").unwrap(),
            format!("no newline\n\n{B}\nx\n{E}\n")
        );
    }

    #[test]
    fn blocks_take_the_line_breaks_of_the_first_line() {
        // Appended to a CRLF file: the blank line, the markers and every content line.
        let out = ins("# Notes\r\nmine", "one\ntwo\r\nthree").unwrap();
        assert_eq!(
            out,
            format!("# Notes\r\nmine\r\n\r\n{B}\r\none\r\ntwo\r\nthree\r\n{E}\r\n")
        );
        assert_eq!(ins(&out, "one\ntwo\r\nthree").unwrap(), out, "idempotent");
        // A block an older version wrote with LF lines into a CRLF file is mended.
        let old = format!("a\r\n\r\n{B}\nv\n{E}\nb\r\n");
        assert_eq!(
            ins(&old, "v\n").unwrap(),
            format!("a\r\n\r\n{B}\r\nv\r\n{E}\r\nb\r\n")
        );
        // A blank last line in CRLF counts as the blank line before a new block.
        let out = ins("a\r\n\r\n", "v\n").unwrap();
        assert_eq!(out, format!("a\r\n\r\n{B}\r\nv\r\n{E}\r\n"));
        // An LF file, or one line without a break, stays LF.
        assert_eq!(
            ins("a\nb\r\n", "v\n").unwrap(),
            format!("a\nb\r\n\n{B}\nv\n{E}\n")
        );
        assert_eq!(ins("a", "v\n").unwrap(), format!("a\n\n{B}\nv\n{E}\n"));
    }

    #[test]
    fn the_old_tags_alone_are_never_a_block() {
        // The case that lost a user's section: a lone opening tag, then hand-written text.
        let text = "Uses <available_skills>:\n<available_skills>\n\n## Mine\nkeep\n";
        let out = update_blocks(
            text,
            &[(
                Block::Catalog,
                Some("<available_skills>\n</available_skills>\n"),
            )],
        )
        .unwrap();
        assert!(out.starts_with(text), "{out}");
        let again = update_blocks(
            &out,
            &[(
                Block::Catalog,
                Some("<available_skills>\n</available_skills>\n"),
            )],
        )
        .unwrap();
        assert_eq!(again, out);
    }

    #[test]
    fn markers_in_code_belong_to_the_user() {
        let fenced = format!("# Doc\n\n```md\n{B}\nexample\n{E}\n```\n\n~~~\n{B}\n~~~\n");
        let indented = format!("Example:\n\n    {B}\n    x\n");
        for text in [fenced, indented] {
            let out = ins(&text, "real\n").unwrap();
            assert!(out.starts_with(&text), "{out}");
            assert!(out.ends_with(&format!("\n{B}\nreal\n{E}\n")), "{out}");
            assert_eq!(ins(&out, "real\n").unwrap(), out);
        }
        // A fence inside a list item, closed by a line at column 0 (CommonMark ends the item).
        let list = format!("1. step\n\n   ```\n   {B}\n   ```\n");
        let out = ins(&list, "real\n").unwrap();
        assert!(out.starts_with(&list));
    }

    #[test]
    fn an_unbalanced_fence_inside_our_block_does_not_hide_its_end() {
        let first = ins("# Notes\n", "desc\n\n```\n").unwrap();
        let second = ins(&first, "fixed\n").unwrap();
        assert_eq!(second, format!("# Notes\n\n{B}\nfixed\n{E}\n"));
    }

    #[test]
    fn ambiguous_markers_are_refused() {
        let unclosed = format!("x\n{B}\nmine\n");
        let e = ins(&unclosed, "v\n").unwrap_err();
        assert_eq!((e.line, e.span.clone()), (2, 2..2 + B.len() + 1));
        assert!(matches!(e.kind, BlockErrorKind::Unclosed { .. }));
        assert!(
            e.to_string()
                .starts_with("line 2: `<!-- skills:begin instructions -->` is not closed")
        );

        let unopened = format!("mine\n{E}\n");
        assert!(matches!(
            ins(&unopened, "v\n").unwrap_err().kind,
            BlockErrorKind::Unopened { .. }
        ));

        let twice = format!("{B}\na\n{E}\n{B}\nb\n{E}\n");
        let e = ins(&twice, "v\n").unwrap_err();
        assert_eq!(
            e.kind,
            BlockErrorKind::Repeated {
                marker: B,
                first: 1
            }
        );
        assert_eq!(e.line, 4);

        let nested =
            format!("{B}\n<!-- skills:begin catalog -->\nx\n<!-- skills:end catalog -->\n{E}\n");
        let e = ins(&nested, "v\n").unwrap_err();
        assert!(
            matches!(e.kind, BlockErrorKind::Nested { outer: 1, .. }),
            "{e}"
        );
        // Refused even when only the other block is being updated.
        assert!(update_blocks(&nested, &[(Block::Catalog, None)]).is_err());
    }

    #[test]
    fn removing_a_block_takes_its_markers_and_nothing_else() {
        let text = "a\n<!-- skills:begin catalog -->\nx\n<!-- skills:end catalog -->\nb\n";
        assert_eq!(
            update_blocks(text, &[(Block::Catalog, None)]).unwrap(),
            "a\nb\n"
        );
        assert_eq!(
            update_blocks("a\n", &[(Block::Catalog, None)]).unwrap(),
            "a\n"
        );
    }

    #[test]
    fn two_blocks_keep_their_places() {
        let text = format!(
            "top\n<!-- skills:begin catalog -->\nc1\n<!-- skills:end catalog -->\nmid\n{B}\ni1\n{E}\nend\n"
        );
        let out = update_blocks(
            &text,
            &[
                (Block::Instructions, Some("i2\n")),
                (Block::Catalog, Some("c2\n")),
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            format!(
                "top\n<!-- skills:begin catalog -->\nc2\n<!-- skills:end catalog -->\nmid\n{B}\ni2\n{E}\nend\n"
            )
        );
    }
}
