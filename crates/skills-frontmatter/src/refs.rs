//! Finding the files a `SKILL.md` body points at: Markdown links and images, and paths under
//! the conventional `scripts/`, `references/` and `assets/` folders written as code (in
//! backticks or a fenced block) that name a file.
//!
//! Prose is not a reference: "see assets/code," or "outputs go to assets/output/." say where
//! things go, not which file the skill holds. A path in code is the skill's own file
//! (`` `scripts/fill.py` ``, `python scripts/fill.py` in a fenced example), unless it ends
//! with `/` (a folder: `` `assets/output/` `` may be made at run time).

use std::ops::Range;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use pulldown_cmark::{Event, Options, Parser, Tag};

/// How a body refers to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReferenceKind {
    /// `[text](path)` or `![alt](path)`.
    Link,
    /// A path written as code (in backticks or a fenced block), such as
    /// `` `scripts/fill.py` ``.
    Bare,
}

/// A local file reference found in a Markdown text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The target as written, without `#fragment` or `?query`.
    pub target: String,
    /// The target resolved against the skill root with `.` and `..` removed, `/`-separated;
    /// `None` when it is absolute or climbs out of the skill directory.
    pub resolved: Option<String>,
    /// Byte range of the target in the text that was scanned (offset by the caller's base).
    pub span: Range<usize>,
    /// Link or bare path.
    pub kind: ReferenceKind,
}

impl Reference {
    /// Whether the target is an absolute path (`/x`, `C:\x`, `\\server`).
    pub fn is_absolute(&self) -> bool {
        let t = self.target.as_str();
        t.starts_with('/')
            || t.starts_with('\\')
            || matches!(t.as_bytes(), [drive, b':', ..] if drive.is_ascii_alphabetic())
    }
}

/// The conventional folders whose bare paths count as references.
const FOLDERS: [&str; 3] = ["scripts/", "references/", "assets/"];

/// The searchers every body is scanned with, built once: building them for each body
/// cost about as much as a scan.
struct Finders {
    /// `](` and `]:`: where a link destination or a link definition may start.
    links: [Finder<'static>; 2],
    /// Runs of three backticks and of three tildes.
    fences: [Finder<'static>; 2],
    /// `s/`, with which every one of [`FOLDERS`] ends: one pass finds them all.
    folder_end: Finder<'static>,
}

static FINDERS: LazyLock<Finders> = LazyLock::new(|| Finders {
    links: ["](", "]:"].map(Finder::new),
    fences: ["```", "~~~"].map(Finder::new),
    folder_end: Finder::new("s/"),
});

/// Where each of [`FOLDERS`] occurs in `text`, in order: the start and the folder. None of
/// them can overlap itself or another, and each ends in `s/`, which none holds elsewhere, so
/// every occurrence is found once, at the `s/` it ends with (three searches of the whole
/// body before, one now).
fn folder_mentions(text: &str) -> impl Iterator<Item = (usize, &'static str)> + '_ {
    let bytes = text.as_bytes();
    FINDERS.folder_end.find_iter(bytes).filter_map(move |at| {
        let before = bytes.get(..at + 2)?;
        FOLDERS
            .iter()
            .find(|folder| before.ends_with(folder.as_bytes()))
            .map(|folder| (at + 2 - folder.len(), *folder))
    })
}

/// Resolves `target` against the skill root. `None` for absolute paths and paths that climb
/// above the root.
pub fn resolve(target: &str) -> Option<String> {
    if target.starts_with('/') || target.starts_with('\\') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

fn has_scheme(dest: &str) -> bool {
    // A scheme is letters, digits, `+`, `-`, `.` before the first `:`, and at least two
    // characters long so `C:/x` stays a (Windows) path.
    match dest.find(':') {
        Some(i) if i >= 2 => dest.get(..i).is_some_and(|s| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        }),
        _ => false,
    }
}

fn strip_suffixes(dest: &str) -> &str {
    let end = dest.find(['#', '?']).unwrap_or(dest.len());
    dest.get(..end).unwrap_or(dest)
}

/// Whether `text` may hold a Markdown link (or link definition) to a local file: some
/// `](dest` or `]: dest` whose destination is neither a URL with a scheme nor a `#fragment`,
/// outside the fenced code blocks [`fenced_code`] is sure of.
///
/// Every inline link or image contains `](` and every link definition `]:`, and autolinks
/// (`<https://...>`) always have a scheme, so a `false` here is never wrong; a `true` (which
/// may come from a code span) just means the real parser decides.
fn may_link_locally(text: &str) -> bool {
    let bytes = text.as_bytes();
    let [link, definition] = &FINDERS.links;
    let candidates = link
        .find_iter(bytes)
        .chain(definition.find_iter(bytes))
        .map(|i| i + 2);
    // Found only when a candidate needs it: most bodies have none.
    let mut code: Option<Vec<Range<usize>>> = None;
    for start in candidates {
        let rest = text.get(start..).unwrap_or("");
        let dest = rest.trim_start_matches([' ', '\t', '<']);
        let end = dest
            .find(|c: char| c.is_whitespace() || c == ')' || c == '>')
            .unwrap_or(dest.len());
        let dest = dest.get(..end).unwrap_or("");
        if dest.starts_with('#') || has_scheme(dest) {
            continue;
        }
        // Code samples are full of `](`: skilled authors show Markdown in fences. A body
        // whose every candidate is inside one need not be parsed (the parse of the few
        // bodies that get this far was most of a lint run's Markdown time).
        let code = code.get_or_insert_with(|| fenced_code(text));
        if !code.iter().any(|r| r.contains(&start)) {
            return true;
        }
    }
    false
}

/// Byte ranges of `text` that are certainly inside a fenced code block, as CommonMark reads
/// it: from an opening fence in column 0 to its closing fence (or the end of the text).
///
/// An opening fence in column 0 opens a block whatever came before: it interrupts a
/// paragraph, cannot continue a list item or a quote lazily, and ends an indented code
/// block. Two things could make the parser see it otherwise, and after either no more
/// ranges are given: a fence of any other shape (indented, in a list item or a quote), which
/// the parser may still be inside; and a line starting with `<`, which may open an HTML block
/// that a fence line would be part of. A closing fence is matched exactly as the
/// specification writes it (up to three spaces, at least as many of the same character,
/// then only spaces and tabs), so a range never ends where the parser's block goes on.
fn fenced_code(text: &str) -> Vec<Range<usize>> {
    fenced_code_until(text).0
}

/// [`fenced_code`], and the offset up to which the ranges are all the fenced blocks there
/// are: past it, a block of another shape may hold text the ranges do not cover (`len`
/// when they cover every one).
fn fenced_code_until(text: &str) -> (Vec<Range<usize>>, usize) {
    let bytes = text.as_bytes();
    // Every run of three backticks or tildes, in order: a fence of a shape not taken here is
    // one of them, found without searching each line.
    let [backticks, tildes] = &FINDERS.fences;
    let mut runs: Vec<usize> = backticks
        .find_iter(bytes)
        .chain(tildes.find_iter(bytes))
        .collect();
    runs.sort_unstable();
    let mut runs = runs.into_iter().peekable();
    let mut ranges = Vec::new();
    // The fence character and length of the open block, and where it starts.
    let mut open: Option<(u8, usize, usize)> = None;
    let mut start = 0;
    let mut sure_until = text.len();
    while let Some(rest) = bytes.get(start..).filter(|r| !r.is_empty()) {
        let end = memchr::memchr(b'\n', rest).map_or(bytes.len(), |i| start + i + 1);
        let line = bytes.get(start..end).unwrap_or_default();
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        let (line_start, fence_at) = (start, open);
        start = end;
        let run_of = |from: usize, c: u8| {
            content
                .get(from..)
                .map_or(0, |r| r.iter().take_while(|&&b| b == c).count())
        };
        if let Some((fence, len, from)) = fence_at {
            let indent = run_of(0, b' ');
            let run = run_of(indent, fence);
            let after = content.get(indent + run..).unwrap_or_default();
            if indent <= 3 && run >= len && after.iter().all(|&b| b == b' ' || b == b'\t') {
                ranges.push(from..end);
                open = None;
            }
            continue;
        }
        while runs.next_if(|&r| r < line_start).is_some() {}
        let first = content.first().copied();
        let run = first.map_or(0, |c| run_of(0, c));
        let info = content.get(run..).unwrap_or_default();
        if let Some(c) = first.filter(|&c| (c == b'`' || c == b'~') && run >= 3)
            && (c == b'~' || !info.contains(&b'`'))
        {
            open = Some((c, run, line_start));
        } else if runs.peek().is_some_and(|&r| r < end)
            || content
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'<')
        {
            sure_until = line_start;
            break;
        }
    }
    if let Some((_, _, from)) = open {
        ranges.push(from..text.len());
    }
    (ranges, sure_until)
}

/// Where code is in a text, as CommonMark reads it: inline code spans and fenced code
/// blocks. Found cheaply where the text is plain ([`Code::cheap`]), else from the parser,
/// once.
struct Code<'t> {
    text: &'t str,
    /// The fenced blocks [`fenced_code_until`] is sure of, and up to where it is.
    fences: Vec<Range<usize>>,
    sure_until: usize,
    /// Code and link ranges from the parser, once it has run.
    parsed: Option<Parsed>,
}

/// What the parser says of a text: its code (spans and fenced blocks) and its links.
#[derive(Default)]
struct Parsed {
    code: Vec<Range<usize>>,
    links: Vec<Range<usize>>,
}

impl Parsed {
    /// Whether a mention at `at` is code, and not inside a link (whose text or destination
    /// it then is).
    fn code_at(&self, at: usize) -> bool {
        self.code.iter().any(|r| r.contains(&at)) && !self.links.iter().any(|r| r.contains(&at))
    }
}

/// Code spans and fenced code blocks, and every link and image, from the parser.
fn parse_code(text: &str) -> Parsed {
    use pulldown_cmark::CodeBlockKind;
    let mut parsed = Parsed::default();
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Code(_) | Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                parsed.code.push(range);
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => parsed.links.push(range),
            _ => {}
        }
    }
    parsed
}

impl<'t> Code<'t> {
    /// The code of a text the parser has read.
    fn parsed(text: &'t str, parsed: Parsed) -> Self {
        Self {
            text,
            fences: Vec::new(),
            sure_until: 0,
            parsed: Some(parsed),
        }
    }

    fn new(text: &'t str) -> Self {
        let (fences, sure_until) = fenced_code_until(text);
        Self {
            text,
            fences,
            sure_until,
            parsed: None,
        }
    }

    /// Whether the text at `at` is code (and not part of a link).
    fn contains(&mut self, at: usize) -> bool {
        if let Some(parsed) = &self.parsed {
            return parsed.code_at(at);
        }
        if let Some(answer) = self.cheap(at) {
            return answer;
        }
        let parsed = self.parsed.insert(parse_code(self.text));
        parsed.code_at(at)
    }

    /// The answer without the parser, when the text around `at` is plain enough to be sure
    /// of it: inside a fenced block it is sure of, code; else, when the lines of its
    /// paragraph up to its own each pair up their backtick runs, with no indented line (an
    /// indented code block, or a continuation), no `<` (HTML, autolinks), no `[` or `]`
    /// before it (a link around it) and no escaped backtick, code when it is between two
    /// runs of its line. Then no code span crosses a line, and the runs pair as CommonMark
    /// pairs them. `None` otherwise: the parser decides (a property test holds the two
    /// equal wherever this answers).
    fn cheap(&self, at: usize) -> Option<bool> {
        if self.fences.iter().any(|r| r.contains(&at)) {
            return Some(true);
        }
        if at >= self.sure_until {
            return None;
        }
        let bytes = self.text.as_bytes();
        // The paragraph around `at`: from the blank line (or fence) before it to the blank
        // line after it.
        let line_start = |i: usize| {
            bytes
                .get(..i)
                .and_then(|b| memchr::memrchr(b'\n', b))
                .map_or(0, |n| n + 1)
        };
        let line_end = |i: usize| {
            bytes
                .get(i..)
                .and_then(|b| memchr::memchr(b'\n', b))
                .map_or(bytes.len(), |n| i + n + 1)
        };
        let blank = |from: usize, to: usize| {
            bytes
                .get(from..to)
                .is_some_and(|l| l.iter().all(u8::is_ascii_whitespace))
        };
        let fence_end_before = self
            .fences
            .iter()
            .map(|r| r.end)
            .filter(|&e| e <= at)
            .max()
            .unwrap_or(0);
        let mut first = line_start(at);
        while first > fence_end_before {
            let prev = line_start(first - 1);
            if blank(prev, first) {
                break;
            }
            first = prev;
        }
        // Its lines up to the mention's: a code span that reaches the mention starts there,
        // and once those lines pair up their runs, no later line can change that.
        let last = line_end(at);
        let mut found = None;
        let mut line = first;
        while line < last {
            let end = line_end(line);
            let content = bytes.get(line..end).unwrap_or_default();
            let lead = content
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            let indented = lead >= 4 || content.get(..lead).is_some_and(|l| l.contains(&b'\t'));
            // A link around the mention opens before it.
            let before = bytes.get(line..at.min(end)).unwrap_or_default();
            if indented
                || content.contains(&b'<')
                || before.iter().any(|b| matches!(b, b'[' | b']'))
                || memchr::memmem::find(content, b"\\`").is_some()
            {
                return None;
            }
            let spans = backtick_spans(content)?;
            if (line..end).contains(&at) {
                let offset = at - line;
                found = Some(spans.iter().any(|r| r.contains(&offset)));
            }
            line = end;
        }
        found
    }
}

/// The code spans of one line, as byte ranges of it (the backticks included): each run of
/// backticks closed by the next run of the same length. `None` when a run is left without
/// its closing run: a span could then cross into another line.
fn backtick_spans(line: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(at) = line.get(i..).and_then(|rest| memchr::memchr(b'`', rest)) {
        let start = i + at;
        let len = line
            .get(start..)
            .map_or(0, |r| r.iter().take_while(|&&b| b == b'`').count());
        runs.push((start, len));
        i = start + len;
    }
    let mut spans = Vec::new();
    let mut k = 0;
    while let Some(&(start, len)) = runs.get(k) {
        let close = runs.iter().skip(k + 1).position(|&(_, l)| l == len)?;
        let (end, end_len) = runs.get(k + 1 + close).copied()?;
        spans.push(start..end + end_len);
        k += close + 2;
    }
    Some(spans)
}

/// Finds every local reference in `text`. Spans are offset by `base`.
pub(crate) fn find(text: &str, base: usize) -> Vec<Reference> {
    use pulldown_cmark::CodeBlockKind;
    let mut out = Vec::new();
    // Where code is: from the parse below when there is one, else built when the first
    // mention of a folder needs it (most bodies have none).
    let mut code: Option<Code<'_>> = None;
    // Markdown parsing is by far the most expensive step of linting a skill, and most bodies
    // link only to web pages, or not at all: parse only when a local link may be there.
    if may_link_locally(text) {
        let mut parsed = Parsed::default();
        for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
            let dest = match &event {
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    dest_url.clone()
                }
                // The same pass says where code is, for the paths below.
                Event::Code(_) | Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                    parsed.code.push(range);
                    continue;
                }
                _ => continue,
            };
            parsed.links.push(range.clone());
            let raw = dest.trim();
            if raw.is_empty() || raw.starts_with('#') || has_scheme(raw) {
                continue;
            }
            let target = strip_suffixes(raw);
            if target.is_empty() {
                continue;
            }
            let target = target.replace("%20", " ");
            // Point at the destination inside `[text](dest)` when it can be found.
            let span = text
                .get(range.clone())
                .and_then(|s| s.rfind(raw))
                .map_or(range.clone(), |i| {
                    range.start + i..range.start + i + raw.len()
                });
            out.push(Reference {
                resolved: resolve(&target),
                target,
                span: base + span.start..base + span.end,
                kind: ReferenceKind::Link,
            });
        }
        code = Some(Code::parsed(text, parsed));
    }
    for (start, folder) in folder_mentions(text) {
        // Part of a longer path or word (`foo/scripts/x`, `myscripts/x`): not ours.
        let before = text.as_bytes().get(start.wrapping_sub(1)).copied();
        if start > 0 && before.is_some_and(|b| b.is_ascii_alphanumeric() || b"/._-~$".contains(&b))
        {
            continue;
        }
        let rest = text.get(start + folder.len()..).unwrap_or("");
        let len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || b"._-/".contains(b))
            .count();
        // Placeholders such as `scripts/<name>.py` or `scripts/*.py` are not files.
        let next = rest.as_bytes().get(len).copied();
        if next.is_some_and(|b| b"*<{[$%".contains(&b)) {
            continue;
        }
        let written = rest.get(..len).unwrap_or("");
        // A folder (`assets/output/`, which the skill may make when it runs) is not a file.
        if written.ends_with('/') {
            continue;
        }
        let path = written.trim_end_matches(['.', '/', '-', '_']);
        if path.is_empty() {
            continue;
        }
        // Prose says where things go ("see assets/code,"); code names the skill's files. A
        // path inside a link is the link's (its text, or its destination, found above).
        if !code.get_or_insert_with(|| Code::new(text)).contains(start) {
            continue;
        }
        let target = format!("{folder}{path}");
        // Already found as a link (a reference-style link's definition, for one).
        if out
            .iter()
            .any(|r: &Reference| r.kind == ReferenceKind::Link && r.target == target)
        {
            continue;
        }
        let end = start + target.len();
        out.push(Reference {
            resolved: resolve(&target),
            target,
            span: base + start..base + end,
            kind: ReferenceKind::Bare,
        });
    }
    out.sort_by_key(|r| r.span.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<String> {
        find(text, 0).into_iter().map(|r| r.target).collect()
    }

    #[test]
    fn links_and_paths_in_code() {
        let text = "See [forms](references/FORMS.md#top) and run `python scripts/fill.py`.\n\
                    ![logo](assets/logo.png)\nAlso scripts/check.sh.\n\n\
                    ```bash\nbash scripts/run.sh --in data/x\n```\n";
        assert_eq!(
            targets(text),
            [
                "references/FORMS.md",
                "scripts/fill.py",
                "assets/logo.png",
                "scripts/run.sh"
            ]
        );
    }

    /// Prose says where things go; only links, and files named in code, are references
    /// (issue 35: `see assets/code,` and `Outputs go to assets/output/.` were `link-missing`).
    #[test]
    fn prose_and_folders_are_not_references() {
        for text in [
            "Keep examples in assets/code, one per file.\n",
            "Outputs go to assets/output/.\n",
            "Put helpers in scripts/ and docs in references/.\n",
            "Write the result to `assets/output/`.\n",
            "```\nmkdir -p assets/output/\n```\n",
            "The references/ directory has the rest.\n",
        ] {
            assert!(targets(text).is_empty(), "{text:?}: {:?}", targets(text));
        }
        // In code, a file, with or without an extension, on any line of a paragraph.
        assert_eq!(
            targets("Run `scripts/sdd-workspace PLAN`,\nthen `scripts/task-brief`.\n"),
            ["scripts/sdd-workspace", "scripts/task-brief"]
        );
        // In a list, a quote, a heading; and where the parser decides (a code span over two
        // lines, an indented fence, HTML nearby).
        assert_eq!(
            targets("- `scripts/a.py`\n> `scripts/b.py`\n# `scripts/c.py`\n"),
            ["scripts/a.py", "scripts/b.py", "scripts/c.py"]
        );
        assert_eq!(
            targets("Run `python\nscripts/d.py` now.\n"),
            ["scripts/d.py"]
        );
        assert_eq!(
            targets("- step\n\n  ```\n  bash scripts/e.sh\n  ```\n"),
            ["scripts/e.sh"]
        );
        assert_eq!(
            targets("Text <b>bold</b> `scripts/f.py` and scripts/g.py\n"),
            ["scripts/f.py"]
        );
        // An HTML block runs to the blank line: its text is not code.
        assert!(targets("<br>\n`scripts/f.py`\n").is_empty());
        // Inside a link's text or destination to a web page: the link, not a file.
        assert!(targets("[`scripts/h.py`](https://x.org/h)\n").is_empty());
    }

    #[test]
    fn ignores_urls_anchors_and_placeholders() {
        let text = "[a](https://x.org/scripts/a.py) [b](#sec) [c](mailto:x@y) \
                    scripts/<name>.py scripts/*.sh ~/.claude/skills/x/scripts/a.py myscripts/x";
        assert!(targets(text).is_empty(), "{:?}", targets(text));
    }

    #[test]
    fn spans_point_at_the_target() {
        let text = "x [guide](references/GUIDE.md) y";
        let r = &find(text, 10)[0];
        assert_eq!(
            &text[r.span.start - 10..r.span.end - 10],
            "references/GUIDE.md"
        );
    }

    #[test]
    fn gate_only_skips_texts_without_local_links() {
        assert!(!may_link_locally(
            "plain text, [web](https://x.org) [top](#a) <https://y>"
        ));
        assert!(!may_link_locally("[ref]: https://x.org/page"));
        assert!(may_link_locally("[a](references/a.md)"));
        assert!(may_link_locally("[a]( <references/a b.md> )"));
        assert!(may_link_locally("[ref]: ./local.md"));
        assert!(may_link_locally("[web](https://x.org) then [a](a.md)"));
        // The gate and the parser agree on a link definition used by a reference link.
        assert_eq!(
            targets("See [the guide][g].\n\n[g]: references/G.md\n"),
            ["references/G.md"]
        );
    }

    #[test]
    fn links_shown_in_fenced_code_need_no_parse() {
        // Every candidate inside a fence opened in column 0.
        assert!(!may_link_locally(
            "Write links so:\n\n```markdown\n[guide](references/guide.md)\n```\n"
        ));
        assert!(!may_link_locally("~~~\n[a](a.md)\n[b]: b.md\n"));
        assert!(!may_link_locally("````md\n```\n[a](a.md)\n```\n````\n"));
        // Outside, or not sure: the parser decides.
        assert!(may_link_locally("```\n[a](a.md)\n```\n[b](b.md)\n"));
        assert!(may_link_locally("- item\n  ```\n  code\n```\n[a](a.md)\n"));
        assert!(may_link_locally("<div>\n```\n[a](a.md)\n```\n"));
        assert!(may_link_locally("```a`b\n[a](a.md)\n```\n"));
        // Indented four spaces, or by a tab, a fence does not close.
        assert!(!may_link_locally("```\n    ```\n[a](a.md)\n```\n"));
        assert!(!may_link_locally("```\n\t```\n[a](a.md)\n"));
        assert!(may_link_locally("```\n   ```  \r\n[a](a.md)\n"));
    }

    /// Whether the Markdown parser finds a link or image to a local file in `text`.
    fn parser_finds_local_link(text: &str) -> bool {
        Parser::new_ext(text, Options::empty()).any(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let raw = dest_url.trim();
                !(raw.is_empty() || raw.starts_with('#') || has_scheme(raw))
            }
            _ => false,
        })
    }

    fn markdown_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just("```".to_string()),
            Just("````".to_string()),
            Just("```md".to_string()),
            Just("~~~".to_string()),
            Just("```a`b".to_string()),
            Just("   ```".to_string()),
            Just("    ```".to_string()),
            Just("\t```".to_string()),
            Just("``` x".to_string()),
            Just("```  ".to_string()),
            Just("- item".to_string()),
            Just("  ```".to_string()),
            Just("> ```".to_string()),
            Just("> quote".to_string()),
            Just("1. step".to_string()),
            Just("<div>".to_string()),
            Just("<!--".to_string()),
            Just("-->".to_string()),
            Just("    indented".to_string()),
            Just(String::new()),
            Just("text".to_string()),
            Just("[a](local.md)".to_string()),
            Just("  [a](local.md)".to_string()),
            Just("`[a](local.md)`".to_string()),
            Just("[r]: local.md".to_string()),
            Just("[x][r]".to_string()),
            Just("```[a](local.md)".to_string()),
            "[ -~]{0,6}".prop_map(|s| s),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]

        /// The gate may send the parser texts without a local link, never hold one back.
        #[test]
        fn the_gate_never_hides_a_link_the_parser_finds(
            lines in proptest::collection::vec(markdown_line(), 1..10),
            crlf in proptest::bool::ANY,
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            if parser_finds_local_link(&text) {
                proptest::prop_assert!(may_link_locally(&text), "{text:?}");
            }
        }
    }

    fn code_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just(String::new()),
            Just("```".to_string()),
            Just("~~~".to_string()),
            Just("  ```".to_string()),
            Just("    indented scripts/a.py".to_string()),
            Just("\tscripts/a.py".to_string()),
            Just("- item `scripts/a.py`".to_string()),
            Just("> `scripts/a.py` quoted".to_string()),
            Just("# `scripts/a.py`".to_string()),
            Just("<div>".to_string()),
            Just("a <b>`scripts/a.py`</b>".to_string()),
            Just("[x](https://x.org) `scripts/a.py`".to_string()),
            Just("[`scripts/a.py`](https://x.org)".to_string()),
            Just("`scripts/a.py` then [x](https://x.org)".to_string()),
            Just("`scripts/a.py` then [x".to_string()),
            Just("and](https://x.org) `scripts/a.py`".to_string()),
            Just("`scripts/a.py` <b title=\"`\">x</b>".to_string()),
            Just("[r]: https://x.org".to_string()),
            Just("plain scripts/a.py text".to_string()),
            Just("`scripts/a.py`".to_string()),
            Just("``scripts/a.py``".to_string()),
            Just("`` `scripts/a.py` ``".to_string()),
            Just("`a` scripts/a.py `b`".to_string()),
            Just("open ` then scripts/a.py".to_string()),
            Just("close ` here".to_string()),
            Just("``".to_string()),
            Just("\\`scripts/a.py`".to_string()),
            Just("1. `scripts/a.py`".to_string()),
            Just("---".to_string()),
            Just("===".to_string()),
            "[ -~]{0,8}".prop_map(|s| s),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]

        /// Wherever the cheap answer is given, it is the parser's: code or not, as
        /// CommonMark reads the text.
        #[test]
        fn the_cheap_answer_is_the_parsers(
            lines in proptest::collection::vec(code_line(), 1..10),
            crlf in proptest::bool::ANY,
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            let code = Code::new(&text);
            let parsed = parse_code(&text);
            for (at, _) in folder_mentions(&text) {
                if let Some(cheap) = code.cheap(at) {
                    proptest::prop_assert_eq!(cheap, parsed.code_at(at), "at {} of {:?}", at, text);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]

        /// One search for `s/` finds what a search for each folder finds.
        #[test]
        fn folder_mentions_are_each_folders_own_matches(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "scripts/", "references/", "assets/", "s/", "/", "s", "script",
                    "reference", "asset", "sscripts/", "assets/s/", "x", " ", "é",
                ]),
                0..12,
            )
        ) {
            let text = pieces.concat();
            let mut each: Vec<(usize, &str)> = FOLDERS
                .iter()
                .flat_map(|folder| {
                    memchr::memmem::find_iter(text.as_bytes(), folder).map(move |at| (at, *folder))
                })
                .collect();
            each.sort_unstable();
            proptest::prop_assert_eq!(folder_mentions(&text).collect::<Vec<_>>(), each);
        }
    }

    #[test]
    fn resolution() {
        assert_eq!(resolve("./a/../b/c.md").as_deref(), Some("b/c.md"));
        assert_eq!(resolve("../x.md"), None);
        assert_eq!(resolve("/etc/passwd"), None);
    }
}
