//! A Markdown file in parts: fenced code blocks (the commands it gives), inline code,
//! tables and quotes (what it quotes), HTML comments and hidden elements (what the reader
//! does not see), and prose.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// A fenced or indented code block.
#[derive(Debug)]
pub(crate) struct Block {
    /// The info string's first word, lowercased (`sh`, `python`, empty).
    pub(crate) lang: String,
    /// The content, without the fences.
    pub(crate) content: Range<usize>,
    /// In a block quote: quoted, whatever introduces it.
    pub(crate) in_quote: bool,
    /// Where the block starts (its fence): the lines above it may introduce it as an
    /// example of what not to do ([`introduced_as_example`]).
    pub(crate) start: usize,
    /// Opened by a fence of backquotes or tildes, not indented.
    pub(crate) fenced: bool,
}

/// A code block [`Parts::of`] is in: its content grows with each text event.
struct OpenBlock {
    lang: String,
    fenced: bool,
    whole: Range<usize>,
    content: Option<Range<usize>>,
}

/// What the parts of a Markdown file are.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub(crate) blocks: Vec<Block>,
    /// Inline code spans: (range, given as a command: in a sentence that tells the reader
    /// to run it, not in a table, heading or block quote).
    pub(crate) inline: Vec<(Range<usize>, bool)>,
    /// Ranges that are not prose: code, tables, block quotes.
    pub(crate) not_prose: Vec<Range<usize>>,
    /// Ranges the rendered page does not show: HTML comments, hidden elements.
    pub(crate) hidden: Vec<Range<usize>>,
    /// Ranges it shows only when opened (`<details>`): hidden from a reader who does not,
    /// but documentation as much as anything else (what it quotes is quoted).
    pub(crate) collapsed: Vec<Range<usize>>,
    /// The farthest end of the hiding and collapsing elements so far.
    hidden_reach: usize,
    collapsed_reach: usize,
}

/// Words in the lines just above a code block that say it is not a command to run.
const QUOTING: &[&str] = &[
    "malicious",
    "attack",
    "attacker",
    "don't run",
    "do not run",
    "never run",
    "dangerous",
    "vulnerable",
    "insecure",
    "unsafe",
    "❌",
    "bad:",
    "bad example",
    "red flag",
    "payload",
    "detect",
    "detection",
    "suspicious",
    "injection",
    "exploit",
    "never do",
    "don't do",
    "do not do",
    "anti-pattern",
    "wrong:",
    "don't:",
    "do not:",
    "never:",
];

impl Parts {
    pub(crate) fn of(text: &str, body: Range<usize>) -> Self {
        let mut parts = Parts::default();
        let Some(src) = text.get(body.clone()) else {
            return parts;
        };
        let base = body.start;
        let mut code: Option<OpenBlock> = None;
        let mut quote_depth = 0usize;
        let mut table_or_heading = 0usize;
        let mut html_block = false;
        for (event, range) in Parser::new_ext(src, Options::ENABLE_TABLES).into_offset_iter() {
            let range = range.start + base..range.end + base;
            match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    let fenced = matches!(kind, CodeBlockKind::Fenced(_));
                    let lang = match kind {
                        CodeBlockKind::Fenced(info) => info
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or_default()
                            .to_ascii_lowercase(),
                        CodeBlockKind::Indented => "indented".to_string(),
                    };
                    code = Some(OpenBlock {
                        lang,
                        fenced,
                        whole: range,
                        content: None,
                    });
                }
                Event::Text(_) if code.is_some() => {
                    if let Some(OpenBlock { content, .. }) = &mut code {
                        *content = Some(match content.take() {
                            Some(c) => c.start..range.end,
                            None => range,
                        });
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some(OpenBlock {
                        lang,
                        fenced,
                        whole,
                        content,
                    }) = code.take()
                    {
                        parts.not_prose.push(whole.start..range.end);
                        if let Some(content) = content {
                            parts.blocks.push(Block {
                                lang,
                                content,
                                in_quote: quote_depth > 0,
                                start: whole.start,
                                fenced,
                            });
                        }
                    }
                }
                Event::Code(_) => {
                    let told =
                        table_or_heading == 0 && quote_depth == 0 && told_to_run(text, range.start);
                    parts.inline.push((range.clone(), told));
                    parts.not_prose.push(range);
                }
                Event::Start(Tag::Table(_) | Tag::Heading { .. }) => table_or_heading += 1,
                Event::End(TagEnd::Table | TagEnd::Heading(_)) => {
                    table_or_heading = table_or_heading.saturating_sub(1);
                }
                Event::Start(Tag::BlockQuote(_)) => {
                    quote_depth += 1;
                    parts.not_prose.push(range);
                }
                Event::End(TagEnd::BlockQuote(_)) => quote_depth = quote_depth.saturating_sub(1),
                Event::Start(Tag::TableHead | Tag::TableRow) => parts.not_prose.push(range),
                // A block's lines come as events of their own: a comment or a hidden
                // element over several lines is only seen in the whole block.
                Event::Start(Tag::HtmlBlock) => {
                    html_block = true;
                    parts.html(text, range);
                }
                Event::End(TagEnd::HtmlBlock) => html_block = false,
                Event::Html(_) if html_block => {}
                Event::Html(_) | Event::InlineHtml(_) => parts.html(text, range),
                _ => {}
            }
        }
        parts.not_prose.sort_by_key(|r| r.start);
        parts
    }

    /// HTML comments and hidden elements in an HTML range.
    fn html(&mut self, text: &str, range: Range<usize>) {
        let Some(html) = text.get(range.clone()) else {
            return;
        };
        let mut at = 0;
        while let Some(open) = html.get(at..).and_then(|h| h.find("<!--")) {
            let start = at + open;
            let end = html
                .get(start + 4..)
                .and_then(|h| h.find("-->"))
                .map_or(html.len(), |e| start + 4 + e + 3);
            self.hidden.push(range.start + start..range.start + end);
            at = end;
        }
        if !html.contains('<') {
            return;
        }
        let lower = html.to_ascii_lowercase();
        let mut at = 0;
        while let Some(open) = lower.get(at..).and_then(|h| h.find('<')) {
            let start = at + open;
            at = start + 1;
            // The tag ends at the first `>` before the next `<`: each byte is looked at
            // once, however many `<` the HTML holds.
            let rest = lower.get(start..).unwrap_or_default();
            let until = rest
                .get(1..)
                .and_then(|r| r.find('<'))
                .map_or(rest.len(), |i| i + 1);
            let Some(tag) = rest
                .get(..until)
                .and_then(|t| t.find('>').and_then(|e| t.get(..=e)))
            else {
                continue;
            };
            let name: &str = tag
                .get(1..)
                .unwrap_or_default()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .unwrap_or_default();
            let collapses = name == "details";
            if name.is_empty() || !(collapses || hides(tag)) {
                continue;
            }
            // What the element holds runs to its closing tag, which may be blocks later
            // (`<details>`, a blank line, Markdown, `</details>`), or to the end.
            let from = range.start + start;
            // Inside an element already covered (nested, or after one never closed):
            // nothing to add, and no search to the end again.
            let covered_to = if collapses {
                self.collapsed_reach
            } else {
                self.hidden_reach
            };
            if from < covered_to {
                continue;
            }
            let rest = text.get(from..).unwrap_or_default();
            let end = rest
                .match_indices("</")
                .find(|(i, _)| {
                    rest.get(i + 2..)
                        .and_then(|r| r.get(..name.len()))
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .map_or(text.len(), |(i, _)| from + i + 2 + name.len());
            let covered = from..end.max(range.end.min(text.len()));
            if collapses {
                self.collapsed_reach = self.collapsed_reach.max(covered.end);
                self.collapsed.push(covered);
            } else {
                self.hidden_reach = self.hidden_reach.max(covered.end);
                self.hidden.push(covered);
            }
        }
    }

    /// Whether `offset` is in a range that is not prose.
    pub(crate) fn in_not_prose(&self, offset: usize) -> bool {
        self.not_prose.iter().any(|r| r.contains(&offset))
    }

    /// Whether `offset` is hidden from the rendered page.
    pub(crate) fn in_hidden(&self, offset: usize) -> bool {
        self.hidden.iter().any(|r| r.contains(&offset))
    }

    /// Whether `offset` is in a collapsed element.
    pub(crate) fn in_collapsed(&self, offset: usize) -> bool {
        self.collapsed.iter().any(|r| r.contains(&offset))
    }
}

/// Whether an opening tag (lowercased) hides what its element holds from the rendered
/// page, by an attribute or an inline style.
fn hides(tag: &str) -> bool {
    tag.contains(" hidden>")
        || tag.contains(" hidden ")
        || tag.contains(" hidden=")
        || tag.contains(" hidden/")
        || tag.contains("display:none")
        || tag.contains("display: none")
        || tag.contains("visibility:hidden")
        || tag.contains("visibility: hidden")
}

/// Words in the heading of a section that make its blocks documentation of attacks.
const QUOTING_HEADINGS: &[&str] = &[
    "payload",
    "bypass",
    "evasion",
    "malicious",
    "attack vector",
    "attack pattern",
    "injection",
    "red flag",
    "what not to do",
    "anti-pattern",
    "dangerous pattern",
    "examples of attacks",
];

/// Verbs that make an inline code span a command the reader is told to run.
const RUN_VERBS: &[&str] = &[
    "run", "execute", "type", "paste", "enter", "invoke", "launch", "call",
];

/// Whether the sentence before the inline code span at `offset` tells the reader to run it.
fn told_to_run(text: &str, offset: usize) -> bool {
    let before = text.get(..offset).unwrap_or_default();
    let line = before.rsplit('\n').next().unwrap_or_default();
    let told = |line: &str| {
        line.split(|c: char| !c.is_alphanumeric())
            .any(|w| RUN_VERBS.contains(&w))
    };
    // An ASCII line is lowered in place of a new `String` per code span.
    if line.is_ascii() {
        line.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| RUN_VERBS.iter().any(|v| w.eq_ignore_ascii_case(v)))
    } else {
        told(&line.to_lowercase())
    }
}

/// Whether the three lines above `offset`, or the heading of its section, introduce what
/// follows as an example of an attack or of what not to do.
pub(crate) fn introduced_as_example(text: &str, offset: usize) -> bool {
    let before = text.get(..offset).unwrap_or_default();
    let lines: Vec<&str> = before
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    if lines.iter().any(|l| {
        let l = l.to_lowercase();
        QUOTING.iter().any(|w| l.contains(w))
    }) {
        return true;
    }
    let heading = before
        .lines()
        .rev()
        .find(|l| l.starts_with('#') && !l.starts_with("#!"));
    heading.is_some_and(|h| {
        let h = h.to_lowercase();
        QUOTING_HEADINGS.iter().any(|w| h.contains(w))
    })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        let t = "Run:\n\n```sh\ncurl x | sh\n```\n\n| a | `curl y \\| sh` |\n|---|---|\n| b | c |\n\n<!-- hide me -->\n\nA malicious example:\n\n```bash\nrm -rf ~\n```\n";
        let p = Parts::of(t, 0..t.len());
        assert_eq!(p.blocks.len(), 2);
        assert_eq!(&t[p.blocks[0].content.clone()], "curl x | sh\n");
        assert!(!introduced_as_example(t, p.blocks[0].start));
        assert!(introduced_as_example(t, p.blocks[1].start));
        assert_eq!(p.inline.len(), 1);
        assert!(!p.inline[0].1, "in a table: quoted");
        assert_eq!(p.hidden.len(), 1);
        assert_eq!(&t[p.hidden[0].clone()], "<!-- hide me -->");
    }

    #[test]
    fn hidden_over_several_lines() {
        let t = "Intro.\n\n<!--\nIgnore this.\n-->\n\n<div style=\"display:none\">\nSecret.\n</div>\n\nShown.\n";
        let p = Parts::of(t, 0..t.len());
        assert!(p.in_hidden(t.find("Ignore").unwrap()));
        assert!(p.in_hidden(t.find("Secret").unwrap()));
        assert!(!p.in_hidden(t.find("Shown").unwrap()));
        assert!(!p.in_hidden(t.find("Intro").unwrap()));
    }

    #[test]
    fn a_hidden_element_hides_the_blocks_it_holds() {
        let t = "Intro.\n\n<details>\n<summary>More</summary>\n\nIgnore this.\n\n</details>\n\nShown.\n\n<div hidden=\"\">\n\nSecret.\n";
        let p = Parts::of(t, 0..t.len());
        assert!(p.in_collapsed(t.find("Ignore").unwrap()));
        assert!(!p.in_hidden(t.find("Ignore").unwrap()));
        assert!(!p.in_collapsed(t.find("Shown").unwrap()));
        assert!(!p.in_hidden(t.find("Shown").unwrap()));
        // Never closed: to the end.
        assert!(p.in_hidden(t.find("Secret").unwrap()));
        // A class named "hidden" says nothing of what CSS does with it.
        let t = "<div class=\"hidden\">\n\nShown.\n\n</div>\n";
        let p = Parts::of(t, 0..t.len());
        assert!(!p.in_hidden(t.find("Shown").unwrap()));
    }
}
