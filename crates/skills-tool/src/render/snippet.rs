//! The source miette quotes under a diagnostic: a window of a few lines around the span,
//! each line cut to a window of columns, never the whole file.
//!
//! Handing miette the whole text made every diagnostic cost a scan from the start of the
//! file (quadratic in the number of findings), printed lines of any length (a 650 KB
//! one-line `tools.json`, once per finding), and panicked on a column past 65,535 (Rust's
//! format width limit). A [`Snippet`] holds only the lines shown, so each diagnostic costs
//! the size of its window.

use std::ops::Range;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Lines longer than this many characters are cut, when the width of the screen is not
/// known (a pipe, a file).
const MAX_LINE: usize = 160;
/// How many characters of a cut line are shown.
const SHOWN: usize = 120;
/// How many of them come before the span's start.
const LEAD: usize = 40;
/// The fewest columns of a line shown on a narrow terminal.
const MIN_SHOWN: usize = 10;
/// Columns a tab takes (miette's default tab width).
const TAB: usize = 4;
/// A span over more lines than this is shortened to its first line.
const MAX_SPAN_LINES: usize = 12;
/// Lines shown before and after the span (miette's default context).
const CONTEXT: usize = 1;
const ELLIPSIS: &str = "…";
/// Columns the ellipsis takes on a screen.
const ELLIPSIS_COLUMNS: usize = 1;

/// One line of the window: where it came from and how it was cut.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Byte offset of the line's start in the original text.
    orig_start: usize,
    /// Byte offset, within the original line, where the shown part starts.
    cut: usize,
    /// Byte offset of this line in the window.
    start: usize,
    /// Bytes before the shown part in the window (an ellipsis, or nothing).
    prefix: usize,
    /// Bytes of the original line shown.
    shown: usize,
}

/// A window of a source text that miette reads as if it were the whole file: line numbers
/// and the header's column are those of the original (the column in characters, as the
/// JSON output counts them).
#[derive(Debug, Clone)]
pub(crate) struct Snippet {
    name: String,
    text: String,
    /// 0-based number of the window's first line in the original.
    first_line: usize,
    /// Where the label starts in the window, and its 0-based character column in the original.
    label_start: usize,
    label_column: usize,
}

impl Snippet {
    /// The window of `source` around `span`, named `name`, and the span within it.
    /// `column` is the span start's 1-based character column when the caller knows it.
    /// `fit` is the terminal the window is drawn on, when its width is known: each line is
    /// then cut to fit beside miette's gutter, in display columns, and a cut line starts
    /// close enough to the span for the label to fit beside its underline; otherwise a line
    /// is cut only past [`MAX_LINE`] characters. Characters that could take over a terminal are
    /// masked first (`?`, same length).
    pub(crate) fn new(
        name: String,
        source: &str,
        span: Range<usize>,
        column: Option<usize>,
        fit: Option<Fit>,
    ) -> (Self, SourceSpan) {
        let len = source.len();
        let mut start = floor_char(source, span.start.min(len));
        let mut end = floor_char(source, span.end.clamp(start, len));
        let bytes = source.as_bytes();
        let line_start =
            memchr::memrchr(b'\n', bytes.get(..start).unwrap_or_default()).map_or(0, |i| i + 1);
        let first_line_no =
            memchr::memchr_iter(b'\n', bytes.get(..line_start).unwrap_or_default()).count();

        // The span's lines, at most MAX_SPAN_LINES of them, then the context around them.
        let mut span_lines = vec![line_start];
        let mut at = line_start;
        while let Some(nl) = memchr::memchr(b'\n', bytes.get(at..).unwrap_or_default()) {
            let next = at + nl + 1;
            if next > end.saturating_sub(1) || next >= len {
                break;
            }
            if span_lines.len() == MAX_SPAN_LINES {
                // Too long to quote: mark where it starts, to the end of its first line.
                end = line_end(bytes, line_start);
                span_lines.truncate(1);
                break;
            }
            span_lines.push(next);
            at = next;
        }
        let last_span_line = span_lines.last().copied().unwrap_or(line_start);
        let mut starts = Vec::new();
        let mut before = line_start;
        for _ in 0..CONTEXT {
            if before == 0 {
                break;
            }
            before = memchr::memrchr(b'\n', bytes.get(..before - 1).unwrap_or_default())
                .map_or(0, |i| i + 1);
            starts.push(before);
        }
        starts.reverse();
        let first_line = first_line_no - starts.len();
        starts.extend(&span_lines);
        let mut after = last_span_line;
        for _ in 0..CONTEXT {
            match memchr::memchr(b'\n', bytes.get(after..).unwrap_or_default()) {
                Some(nl) if after + nl + 1 < len => {
                    after += nl + 1;
                    starts.push(after);
                }
                _ => break,
            }
        }

        // The columns shown: the same window on every long line, placed at the span start.
        let start_col_chars = column.map_or_else(
            || {
                source
                    .get(line_start..start)
                    .map_or(0, |s| s.chars().count())
            },
            |c| c.saturating_sub(1),
        );
        let (window, lead_in) = match fit {
            Some(Fit { width, label }) => {
                // miette's gutter: a space, the widest line number, ` │ `; a span over
                // several lines adds its bracket (`╭─▶ `).
                let last_line = first_line_no + span_lines.len() + CONTEXT;
                let mut gutter = digits(last_line) + 4;
                if span_lines.len() > 1 {
                    gutter += 4;
                }
                let room = width.saturating_sub(gutter);
                let mut window = Window::columns(room);
                let lead_in = source
                    .get(line_start..start)
                    .map_or(0, |s| s.chars().map(window.measure).sum::<usize>());
                // The label goes after `╰── ` at the middle of the underline: start a cut
                // line close enough to the span for it to fit (it cannot when it is wider
                // than about half the room). The span's width is counted up to what the
                // window can show: a span may be a whole long line.
                let mut span_cols = 0;
                for c in source
                    .get(start..end.min(line_end(bytes, line_start)))
                    .unwrap_or_default()
                    .chars()
                {
                    span_cols += (window.measure)(c);
                    if span_cols > window.shown {
                        break;
                    }
                }
                let span_cols = span_cols.max(1);
                let label_end = |lead: usize| {
                    let underline = span_cols.min(window.shown.saturating_sub(lead));
                    ELLIPSIS_COLUMNS + lead + underline / 2 + 4 + label
                };
                while window.lead > 0 && label_end(window.lead) > room {
                    window.lead -= 1;
                }
                // A line short enough to show whole, with its span so far right that the
                // label would run past the edge, is cut too.
                let in_place = lead_in + span_cols.min(room.saturating_sub(lead_in)) / 2 + 4;
                if lead_in > window.lead && in_place + label > room {
                    window.max = 0;
                }
                (window, lead_in)
            }
            None => (Window::CHARACTERS, start_col_chars),
        };
        let from = lead_in.saturating_sub(window.lead);

        // Room for every line whole, or cut with its two ellipses, and its line ending.
        let room = starts
            .iter()
            .map(|&s| (line_end(bytes, s) - s).min(window.shown * 4) + 2 * ELLIPSIS.len() + 2)
            .sum();
        let mut text = String::with_capacity(room);
        let mut lines = Vec::with_capacity(starts.len());
        for &s in &starts {
            let e = line_end(bytes, s);
            let body = source.get(s..e).unwrap_or_default();
            let (cut, shown) = window.cut(body, from);
            let prefix = if cut > 0 { ELLIPSIS.len() } else { 0 };
            lines.push(Line {
                orig_start: s,
                cut,
                start: text.len(),
                prefix,
                shown,
            });
            if cut > 0 {
                text.push_str(ELLIPSIS);
            }
            text.push_str(body.get(cut..cut + shown).unwrap_or_default());
            if cut + shown < body.len() {
                text.push_str(ELLIPSIS);
            }
            // The original line ending, so miette counts lines as in the file.
            let ending = source.get(e..).map_or("", |rest| {
                if rest.starts_with("\r\n") {
                    "\r\n"
                } else if rest.starts_with('\n') {
                    "\n"
                } else {
                    ""
                }
            });
            text.push_str(ending);
        }
        let text = match crate::render::terminal_safe_same_len(&text) {
            std::borrow::Cow::Owned(masked) => masked,
            std::borrow::Cow::Borrowed(_) => text,
        };
        let map = |offset: usize| -> usize {
            let Some(line) = lines.iter().rev().find(|l| l.orig_start <= offset) else {
                return 0;
            };
            let within = offset - line.orig_start;
            if within == 0 {
                // A span that ends where a line starts ends before that line's ellipsis:
                // after it, miette would draw the span over two lines.
                return line.start;
            }
            let shown = within.clamp(line.cut, line.cut + line.shown) - line.cut;
            line.start + line.prefix + shown
        };
        start = map(start);
        end = map(end).max(start);
        let snippet = Self {
            name,
            text,
            first_line,
            label_start: start,
            label_column: start_col_chars,
        };
        (snippet, SourceSpan::from(start..end))
    }
}

impl Snippet {
    /// The name shown in the header (a path).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The window's text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// 0-based number, in the original, of the window's first line.
    pub(crate) fn first_line(&self) -> usize {
        self.first_line
    }

    /// Where the label starts in the window.
    pub(crate) fn label_start(&self) -> usize {
        self.label_start
    }

    /// The label start's 0-based character column in the original.
    pub(crate) fn label_column(&self) -> usize {
        self.label_column
    }
}

/// The end of the line that starts at `start` (before its `\r\n` or `\n`).
fn line_end(bytes: &[u8], start: usize) -> usize {
    let e = memchr::memchr(b'\n', bytes.get(start..).unwrap_or_default())
        .map_or(bytes.len(), |i| start + i);
    if e > start && bytes.get(e - 1) == Some(&b'\r') && e < bytes.len() {
        e - 1
    } else {
        e
    }
}

/// The terminal a window is drawn on: its width and the width of the label drawn under the
/// span (`╰── label`, at the middle of the underline).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fit {
    pub(crate) width: usize,
    pub(crate) label: usize,
}

/// How long lines are cut: past `max` of a measure (characters, or columns on a screen),
/// to `shown` of it, `lead` of them before the span's start.
#[derive(Debug, Clone, Copy)]
struct Window {
    max: usize,
    shown: usize,
    lead: usize,
    measure: fn(char) -> usize,
}

impl Window {
    /// For a pipe or a file: characters, each counted once.
    const CHARACTERS: Self = Self {
        max: MAX_LINE,
        shown: SHOWN,
        lead: LEAD,
        measure: |_| 1,
    };

    /// For `room` columns of a screen: a line that fits is whole, a longer one shows what
    /// fits between its two ellipses.
    fn columns(room: usize) -> Self {
        let shown = room.saturating_sub(2).clamp(MIN_SHOWN, SHOWN);
        Self {
            max: room.clamp(MIN_SHOWN, MAX_LINE),
            shown,
            lead: LEAD.min(shown / 3),
            measure: columns,
        }
    }

    /// The byte offset and length of the part of `line` to show: all of it when it is at
    /// most `max` long, else `shown` of it from `from` on (or from the start, when the line
    /// ends first).
    fn cut(&self, line: &str, from: usize) -> (usize, usize) {
        let mut long = 0;
        // No character is wider than its UTF-8 bytes but a tab.
        if (line.len() <= self.max && memchr::memchr(b'\t', line.as_bytes()).is_none())
            || line.chars().all(|c| {
                long += (self.measure)(c);
                long <= self.max
            })
        {
            return (0, line.len());
        }
        let mut at = 0;
        let cut = line
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(line.len()))
            .zip(line.chars().map(Some).chain(std::iter::once(None)))
            .find_map(|(i, c)| {
                if at >= from {
                    return Some(i);
                }
                at += c.map_or(0, self.measure);
                None
            });
        let Some(cut) = cut else {
            return (0, self.take(line));
        };
        (cut, line.get(cut..).map_or(0, |rest| self.take(rest)))
    }

    /// The byte length of the longest start of `s` at most `shown` long.
    fn take(&self, s: &str) -> usize {
        let mut used = 0;
        for (i, c) in s.char_indices() {
            used += (self.measure)(c);
            if used > self.shown {
                return i;
            }
        }
        s.len()
    }
}

/// The columns `c` takes on a terminal once drawn: a tab as miette expands it, a control
/// character as the `?` that masks it.
fn columns(c: char) -> usize {
    match c {
        '\t' => TAB,
        c if c.is_control() => 1,
        c => unicode_width::UnicodeWidthChar::width(c).unwrap_or(1),
    }
}

/// How many decimal digits `n` is written with.
fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        let column = if context_lines_before > 0 {
            0
        } else if span.offset() == self.label_start {
            self.label_column
        } else {
            inner.column()
        };
        let (data, span, line, count) = (
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.line_count(),
        );
        // No name, no name in the header (`[1:5]`, as for a command-line argument).
        Ok(Box::new(if self.name.is_empty() {
            MietteSpanContents::new(data, span, line, column, count)
        } else {
            MietteSpanContents::new_named(self.name.clone(), data, span, line, column, count)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(name: &str, source: &str, span: Range<usize>) -> String {
        drawn(name, source, span, "here", 100, None)
    }

    /// `source`'s window around `span` drawn by miette at `width` columns, labelled
    /// `label`, fitted to the terminal when `fit` says so.
    fn drawn(
        name: &str,
        source: &str,
        span: Range<usize>,
        label: &str,
        width: usize,
        fit: Option<Fit>,
    ) -> String {
        let (code, span) = Snippet::new(name.into(), source, span, None, fit);
        let diag =
            miette::MietteDiagnostic::new("m").with_label(miette::LabeledSpan::at(span, label));
        let report = miette::Report::new(diag).with_source_code(code);
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(width)
            .render_report(&mut out, report.as_ref())
            .unwrap();
        out
    }

    #[test]
    fn a_span_ending_where_a_cut_line_starts_stays_on_its_line() {
        // Found by the drawing proptest: the end was placed after the next line's ellipsis,
        // and miette drew a span over two lines that the gutter had no room for.
        for ending in ["\n", "\r\n"] {
            let long = "x".repeat(200);
            let source = format!("{long}{ending}{long}");
            let next = long.len() + ending.len();
            let out = render("f", &source, 130..next);
            assert!(!out.contains('▶'), "{ending:?}: {out}");
            assert!(out.contains(" 2 │ …x"), "{ending:?}: {out}");
        }
    }

    #[test]
    fn short_files_render_as_before() {
        let source = "a: 1\nb: 2\nc: 3\nd: 4\n";
        let (code, span) = Snippet::new("f".into(), source, 10..14, None, None);
        // One line of context each side, as miette shows; the span moves with the window.
        assert_eq!(code.text, "b: 2\nc: 3\nd: 4\n");
        assert_eq!((span.offset(), span.len()), (5, 4));
        assert_eq!(code.first_line, 1);
        let out = render("f", source, 10..14);
        assert!(out.contains("[f:3:1]"), "{out}");
        assert!(
            out.contains(" 2 │ b: 2") && out.contains(" 4 │ d: 4"),
            "{out}"
        );
    }

    #[test]
    fn a_far_column_renders_a_window_with_the_true_position() {
        // The column that used to panic miette: past 65,535.
        let line = "x".repeat(70_000) + "BAD" + &"y".repeat(5_000);
        let source = format!("first\n{line}\nlast\n");
        let at = 6 + 70_000;
        let out = render("tools.json", &source, at..at + 3);
        assert!(out.contains("[tools.json:2:70001]"), "{out}");
        assert!(out.contains("…") && out.contains("BAD"), "{out}");
        assert!(out.len() < 2_000, "{} bytes", out.len());
    }

    #[test]
    fn multibyte_text_keeps_character_columns_and_boundaries() {
        let line = "é".repeat(1_000) + "[x](missing.md)" + &"é".repeat(1_000);
        let at = 2_000;
        let out = render("SKILL.md", &line, at..at + 15);
        assert!(out.contains("[SKILL.md:1:1001]"), "{out}");
        assert!(out.contains("[x](missing.md)"), "{out}");
        // A span that starts inside a character is moved to its start, never split.
        let (code, span) = Snippet::new("f".into(), &line, 1..3, None, None);
        assert!(code.text.is_char_boundary(span.offset()));
    }

    #[test]
    fn on_a_narrow_terminal_the_line_and_the_label_fit() {
        // A link far into a long line, its label under the middle of its underline.
        let line = "words before it ".repeat(20)
            + "[code-reviewer.md](../requesting-code-review/code-reviewer.md)"
            + &" and after".repeat(20);
        let at = line.find('[').unwrap();
        let label = "outside the skill";
        // (Under about twice the label's width the underline's middle is too far right
        // whatever the window: a 40-column terminal wraps this label.)
        for width in [60, 80, 100] {
            let fit = Fit {
                width,
                label: label.len(),
            };
            let out = drawn("f", &line, at..at + 62, label, width, Some(fit));
            for l in out.lines().filter(|l| l.contains('│') || l.contains('·')) {
                let w = unicode_width::UnicodeWidthStr::width(l);
                assert!(w <= width, "{width} columns: {w} in\n{out}");
            }
            assert!(out.contains(label), "{out}");
        }
        // A line that fits, its link at the far end: cut before the link instead.
        let line = "see ".repeat(12) + "[x](missing.md)";
        let at = line.find('[').unwrap();
        let label = "not found in the skill";
        let fit = Fit {
            width: 70,
            label: label.len(),
        };
        let out = drawn("f", &line, at..at + 15, label, 70, Some(fit));
        assert!(
            out.contains("…") && out.contains("[x](missing.md)"),
            "{out}"
        );
        for l in out.lines() {
            assert!(unicode_width::UnicodeWidthStr::width(l) <= 70, "{out}");
        }
    }

    #[test]
    fn a_span_over_many_lines_is_shortened_to_its_first() {
        let source: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let (code, span) = Snippet::new("f".into(), &source, 7..source.len() - 1, None, None);
        assert_eq!(code.text.lines().count(), 3);
        assert_eq!(
            code.text.get(span.offset()..span.offset() + span.len()),
            Some("line 1")
        );
    }

    #[test]
    fn spans_at_the_edges_and_out_of_range_are_clamped() {
        for (source, span) in [
            ("", 0..0),
            ("abc", 3..3),
            ("abc", 5..9),
            ("a\n", 2..2),
            ("a\r\nb", 1..4),
        ] {
            let (code, span) = Snippet::new("f".into(), source, span, None, None);
            assert!(span.offset() + span.len() <= code.text.len());
            let _ = render("f", source, span.offset()..span.offset() + span.len());
        }
    }
}
