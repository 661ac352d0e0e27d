//! A finding drawn in miette's graphical format without going through miette, for the shape
//! nearly every lint finding has: a code, a severity, a message, a help text, and at most one
//! label on one line of a [`Snippet`].
//!
//! miette draws any diagnostic: labels over many lines, causes, related reports, gutters. For
//! that it reads the source three times per diagnostic, copies every line character by
//! character and formats each piece into a `String` of its own; on a run with tens of
//! thousands of findings that was most of the time a human report took beyond the JSON one
//! (issue 13). Here the one shape is drawn straight into the output. Anything else (a label
//! over several lines, a carriage return or escape in the window, a snippet without a name)
//! answers `false` and the caller hands the finding to miette. Tests hold the two equal, in
//! color and without, wrapped and not (`tests` below, and a property test over random
//! windows).

use std::fmt::Write as _;

use miette::{GraphicalTheme, SourceSpan};
use owo_colors::OwoColorize;
use unicode_width::UnicodeWidthChar;

use super::snippet::Snippet;

/// Columns a tab advances to the next multiple of (miette's default).
const TAB_WIDTH: usize = 4;

/// How findings are drawn: the theme, the terminal width and whether long texts wrap.
pub(crate) struct Look<'a> {
    pub(crate) theme: &'a GraphicalTheme,
    pub(crate) width: usize,
    pub(crate) wrap: bool,
}

/// The parts of one finding.
pub(crate) struct Parts<'a> {
    pub(crate) code: &'a str,
    pub(crate) error: bool,
    pub(crate) message: &'a str,
    pub(crate) help: &'a str,
    /// The source window, the label's span in it, and the label's text.
    pub(crate) label: Option<(&'a Snippet, SourceSpan, &'a str)>,
}

/// Appends the finding to `out` as miette's graphical handler would, and answers `true`; or
/// leaves `out` as it was and answers `false` when the finding is not of the shape drawn here.
pub(crate) fn draw(out: &mut String, look: &Look<'_>, parts: &Parts<'_>) -> bool {
    let start = out.len();
    if draw_unchecked(out, look, parts).is_none() {
        out.truncate(start);
        return false;
    }
    true
}

fn draw_unchecked(out: &mut String, look: &Look<'_>, parts: &Parts<'_>) -> Option<()> {
    let styles = &look.theme.styles;
    let chars = &look.theme.characters;
    let (severity, icon) = if parts.error {
        (styles.error, &chars.error)
    } else {
        (styles.warning, &chars.warning)
    };
    paint(out, parts.code, severity);
    out.push_str("\n\n");
    let mut first = String::from("  ");
    paint(&mut first, icon, severity);
    first.push(' ');
    let mut rest = String::from("  ");
    paint(&mut rest, chars.vbar.encode_utf8(&mut [0; 4]), severity);
    rest.push(' ');
    wrapped(out, look, parts.message, &first, &rest);
    out.push('\n');
    if let Some((snippet, span, label)) = parts.label {
        source_window(out, look, snippet, span, label)?;
    }
    let mut help = String::new();
    paint(&mut help, "  help: ", styles.help);
    wrapped(out, look, parts.help, &help, "        ");
    out.push('\n');
    Some(())
}

/// `text` with `first` before its first line and `rest` before the others: filled to the
/// width when wrapping, else line by line as written (an indent alone is trimmed).
fn wrapped(out: &mut String, look: &Look<'_>, text: &str, first: &str, rest: &str) {
    if look.wrap && fits_as_is(text, first, look.width) {
        // Nearly every message and help text: textwrap would give it back unchanged, after
        // splitting it into words and joining them again (a tenth of drawing a finding).
        out.push_str(first);
        out.push_str(text);
        return;
    }
    if look.wrap {
        if ascii_lines(text) {
            fill_ascii(out, text, look.width.saturating_sub(2), first, rest);
            return;
        }
        let options = textwrap::Options::new(look.width.saturating_sub(2))
            .initial_indent(first)
            .subsequent_indent(rest)
            .break_words(true)
            .word_separator(textwrap::WordSeparator::AsciiSpace)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        out.push_str(&textwrap::fill(text, options));
        return;
    }
    for (i, line) in text.split_terminator('\n').enumerate() {
        let indent = if i == 0 {
            first
        } else {
            out.push('\n');
            rest
        };
        if line.trim().is_empty() {
            out.push_str(indent.trim_end());
        } else {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    if text.ends_with('\n') {
        out.push('\n');
    }
}

/// Whether `text` is lines of printable ASCII (a column a byte, no escapes).
fn ascii_lines(text: &str) -> bool {
    text.bytes().all(|b| b == b'\n' || matches!(b, b' '..=b'~'))
}

/// What `textwrap::fill` makes of `text` with the options `wrapped` gives it (first fit,
/// words split at spaces and broken when longer than a line, no hyphenation), for text of
/// printable ASCII, where a byte is a column (the indents are measured as textwrap does,
/// so they may hold an icon or colours). textwrap's general path splits the text into
/// words, measures each with Unicode widths and builds a line at a time: the longer
/// messages of a big run spent a twentieth of drawing in it. Its rules, kept here to the
/// letter (a property test holds the two together):
/// - each input line is wrapped on its own; the first output line of the whole text takes
///   `first`, every other `rest`, but the first line of each input line is filled to the
///   first width (textwrap counts lines per input line);
/// - a line shorter than the width, with no indent to add, is kept without its trailing
///   spaces;
/// - words longer than the second width are cut into pieces of that width (at least one
///   character);
/// - with a non-empty `first`, an empty word leads each input line, so its first word may
///   go to a second line;
/// - a line ends before a word that would pass the width, unless it is the line's first;
///   the spaces after a line's last word are dropped.
fn fill_ascii(out: &mut String, text: &str, width: usize, first: &str, rest: &str) {
    if text.len() < width && !text.contains('\n') && first.is_empty() {
        out.push_str(text.trim_end_matches(' '));
        return;
    }
    let first_width = width.saturating_sub(textwrap::core::display_width(first));
    let rest_width = width.saturating_sub(textwrap::core::display_width(rest));
    let mut emitted = false;
    // A word: the bytes of the line it covers, and how many of them are trailing spaces.
    let mut words: Vec<(usize, usize, usize)> = Vec::new();
    for line in text.split('\n') {
        let indent = if emitted { rest } else { first };
        if line.len() < width && indent.is_empty() {
            if emitted {
                out.push('\n');
            }
            out.push_str(line.trim_end_matches(' '));
            emitted = true;
            continue;
        }
        words.clear();
        if !first.is_empty() {
            words.push((0, 0, 0));
        }
        let bytes = line.as_bytes();
        let piece = rest_width.max(1);
        let mut start = 0;
        while start < bytes.len() {
            let word_end = bytes
                .get(start..)
                .and_then(|b| b.iter().position(|&c| c == b' '))
                .map_or(bytes.len(), |i| start + i);
            // A run of leading spaces is a word of its own, of width zero.
            let space_end = bytes
                .get(word_end..)
                .and_then(|b| b.iter().position(|&c| c != b' '))
                .map_or(bytes.len(), |i| word_end + i);
            // A word wider than a line is cut into pieces of its width (textwrap breaks
            // only words wider than the line, and its pieces hold one character at least).
            let mut at = start;
            while word_end - at > piece {
                words.push((at, at + piece, 0));
                at += piece;
            }
            words.push((at, word_end, space_end - word_end));
            start = space_end;
        }
        // First fit.
        let mut lines_here = 0;
        let mut line_start = 0;
        let mut used = 0;
        let flush = |out: &mut String, emitted: &mut bool, slice: &[(usize, usize, usize)]| {
            if *emitted {
                out.push('\n');
            }
            if let (Some(&(from, _, _)), Some(&(_, to, _))) = (slice.first(), slice.last()) {
                out.push_str(if *emitted { rest } else { first });
                out.push_str(line.get(from..to).unwrap_or_default());
            }
            *emitted = true;
        };
        for (idx, &(from, to, spaces)) in words.iter().enumerate() {
            let limit = if lines_here == 0 {
                first_width
            } else {
                rest_width
            };
            if used + (to - from) > limit && idx > line_start {
                flush(
                    out,
                    &mut emitted,
                    words.get(line_start..idx).unwrap_or_default(),
                );
                lines_here += 1;
                line_start = idx;
                used = 0;
            }
            used += (to - from) + spaces;
        }
        flush(
            out,
            &mut emitted,
            words.get(line_start..).unwrap_or_default(),
        );
    }
}

/// Whether `text` after `first` is one line that textwrap, filling to `width`, would leave
/// as it is: one line, not ending in a space (which it trims), with room to spare. A text
/// is never wider in columns than it is long in bytes.
fn fits_as_is(text: &str, first: &str, width: usize) -> bool {
    !text.ends_with(' ')
        && !text.contains('\n')
        && textwrap::core::display_width(first) + text.len() < width.saturating_sub(2)
}

/// The boxed source lines with the label under its line; `None` when the label is not on
/// one line of the window (miette draws those with a gutter).
fn source_window(
    out: &mut String,
    look: &Look<'_>,
    snippet: &Snippet,
    span: SourceSpan,
    label: &str,
) -> Option<()> {
    let styles = &look.theme.styles;
    let chars = &look.theme.characters;
    let style = *styles.highlights.first()?;
    if snippet.name().is_empty() || label.contains('\n') || span.offset() != snippet.label_start() {
        return None;
    }
    // The lines miette quotes: the window's, read as miette reads them.
    let (at, len) = (span.offset(), span.len());
    let text = snippet.text();
    if text.contains(['\r', '\x1b']) {
        return None;
    }
    let (data, first) = context(text, at, len)?;
    let mut lines = Vec::new();
    let mut offset = first.offset;
    let mut labelled = None;
    for (i, piece) in data.split_inclusive('\n').enumerate() {
        let line = Line {
            number: snippet.first_line() + first.line + i + 1,
            offset,
            length: piece.len(),
            text: piece.strip_suffix('\n').unwrap_or(piece),
        };
        offset += piece.len();
        if line.shows(at, len) {
            if !line.holds(at, len) {
                return None;
            }
            labelled = Some(i);
        }
        lines.push(line);
    }
    let digits = lines.last().map_or(1, |l| decimal_digits(l.number));
    let before = snippet.text().get(..at)?;
    let line_no = snippet.first_line() + memchr::memchr_iter(b'\n', before.as_bytes()).count();
    spaces(out, digits + 2);
    out.push(chars.ltop);
    out.push(chars.hbar);
    out.push('[');
    paint_fmt(
        out,
        format_args!(
            "{}:{}:{}",
            snippet.name(),
            line_no + 1,
            snippet.label_column() + 1
        ),
        styles.link,
    );
    out.push_str("]\n");
    for (i, line) in lines.iter().enumerate() {
        out.push(' ');
        if styles.linum.is_plain() {
            let _ = write!(out, "{:digits$}", line.number);
        } else {
            let _ = write!(out, "{:digits$}", line.number.style(styles.linum));
        }
        out.push(' ');
        out.push(chars.vbar);
        out.push(' ');
        if memchr::memchr(b'\t', line.text.as_bytes()).is_none() {
            // Only a tab needs the column it starts at; the widths of the others are not
            // worth computing.
            out.push_str(line.text);
        } else {
            let mut column = 0;
            for c in line.text.chars() {
                let w = width(c, column);
                column += w;
                if c == '\t' {
                    out.extend(std::iter::repeat_n(' ', w));
                } else {
                    out.push(c);
                }
            }
        }
        out.push('\n');
        if labelled != Some(i) {
            continue;
        }
        let start = line.column_of(at, true)?;
        let end = if len == 0 {
            start + 1
        } else {
            line.column_of(at + len, false)?.max(start + 1)
        };
        let mid = (start + end) / 2;
        let mark = if len == 0 {
            chars.uarrow
        } else {
            chars.underbar
        };
        let mut underline = String::new();
        spaces(&mut underline, start);
        underline.extend(std::iter::repeat_n(chars.underline, mid - start));
        underline.push(mark);
        underline.extend(std::iter::repeat_n(chars.underline, end - mid - 1));
        gutter_break(out, digits, chars.vbar_break);
        paint(out, &underline, style);
        out.push('\n');
        let mut text = String::new();
        text.push(chars.lbot);
        text.extend(std::iter::repeat_n(chars.hbar, 2));
        text.push(' ');
        paint(&mut text, label, style);
        gutter_break(out, digits, chars.vbar_break);
        spaces(out, mid);
        paint(out, &text, style);
        out.push('\n');
    }
    spaces(out, digits + 2);
    out.push(chars.lbot);
    out.extend(std::iter::repeat_n(chars.hbar, 4));
    out.push('\n');
    Some(())
}

/// `text` in `style`. A plain style (no colour: output to a file or a pipe, `NO_COLOR`)
/// writes the text as it is; through owo-colors it would cost a formatter call per piece,
/// which made formatting a twentieth of drawing a finding.
fn paint(out: &mut String, text: &str, style: owo_colors::Style) {
    if style.is_plain() {
        out.push_str(text);
    } else {
        let _ = write!(out, "{}", text.style(style));
    }
}

/// [`paint`] for a text still to be formatted.
fn paint_fmt(out: &mut String, text: std::fmt::Arguments<'_>, style: owo_colors::Style) {
    if style.is_plain() {
        let _ = out.write_fmt(text);
    } else {
        let _ = write!(out, "{}", text.style(style));
    }
}

fn spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// The gutter of a line drawn under a source line: ` `, `digits` spaces, ` `, the break, ` `.
fn gutter_break(out: &mut String, digits: usize, vbar_break: char) {
    out.push(' ');
    spaces(out, digits);
    out.push(' ');
    out.push(vbar_break);
    out.push(' ');
}

/// Where the quoted lines start in a window: the byte offset and the 0-based line number.
struct Start {
    offset: usize,
    line: usize,
}

/// The lines miette's `SourceCode for str` quotes around a label at `at` of `len` bytes with
/// one line of context each side, for a text without carriage returns: from the line before
/// the label's through the line after the one its last byte is on (an empty label ends a
/// byte early), each with its line break. `None` when the label lies past the text (miette's
/// `OutOfBounds`). miette finds them going through the text a byte at a time, a tenth of
/// drawing a finding; line breaks are all that matter.
fn context(text: &str, at: usize, len: usize) -> Option<(&str, Start)> {
    let bytes = text.as_bytes();
    let last = (at + len).saturating_sub(1);
    if last > bytes.len() {
        return None;
    }
    let before = bytes.get(..at.min(bytes.len()))?;
    let lines_before = memchr::memchr_iter(b'\n', before).count();
    // The start of the line before the label's: after the second-to-last break before it
    // (the text's start when there are fewer).
    let offset = memchr::memrchr_iter(b'\n', before)
        .nth(1)
        .map_or(0, |i| i + 1);
    // The end: after the second line break past the label's last byte.
    let end = bytes
        .get(last + 1..)
        .and_then(|rest| memchr::memchr_iter(b'\n', rest).nth(1))
        .map_or(bytes.len(), |i| last + 1 + i + 1);
    let start = Start {
        offset,
        line: lines_before.saturating_sub(1),
    };
    Some((text.get(start.offset..end)?, start))
}

/// One quoted line: its number (1-based), where it starts in the window, its length with
/// its line break, and its text without.
struct Line<'a> {
    number: usize,
    offset: usize,
    length: usize,
    text: &'a str,
}

impl Line<'_> {
    /// Whether a label at `at` of `len` bytes is drawn on this line: it starts, passes or
    /// ends here (an empty label counts as one byte).
    fn shows(&self, at: usize, len: usize) -> bool {
        let end = at + len.max(1);
        let line_end = self.offset + self.length;
        (at >= self.offset && at < line_end)
            || (at < self.offset && end > line_end)
            || (end > self.offset && end <= line_end)
    }

    /// Whether the label lies within this line, its line break included.
    fn holds(&self, at: usize, len: usize) -> bool {
        at >= self.offset && at + len <= self.offset + self.length
    }

    /// The screen column of byte `offset` of the window on this line: a character cut by it
    /// counts from its first column (`start`) or after its last; the line break is one
    /// column past the text.
    fn column_of(&self, offset: usize, start: bool) -> Option<usize> {
        let mut i = offset.checked_sub(self.offset)?;
        if i > self.length {
            return None;
        }
        while i <= self.text.len() && !self.text.is_char_boundary(i) {
            i = if start { i - 1 } else { i + 1 };
        }
        let shown = self.text.get(..i.min(self.text.len()))?;
        let mut column = 0;
        for c in shown.chars() {
            column += width(c, column);
        }
        Some(if i > self.text.len() {
            column + 1
        } else {
            column
        })
    }
}

/// Columns `c` takes at screen column `column`.
fn width(c: char, column: usize) -> usize {
    if c == '\t' {
        TAB_WIDTH - column % TAB_WIDTH
    } else {
        c.width().unwrap_or(0)
    }
}

fn decimal_digits(mut n: usize) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::SourceCode;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]
        #[test]
        fn context_is_the_lines_miette_reads(
            text in "[a\n\u{e9}]{0,24}",
            at in 0usize..28,
            len in 0usize..8,
        ) {
            let theirs = text
                .as_str()
                .read_span(&SourceSpan::from(at..at + len), 1, 1)
                .ok()
                .map(|c| {
                    let data = std::str::from_utf8(c.data()).unwrap_or("!").to_string();
                    (data, c.span().offset(), c.line())
                });
            let ours = context(&text, at, len)
                .map(|(data, start)| (data.to_string(), start.offset, start.line));
            prop_assert_eq!(ours, theirs);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn ascii_filling_is_what_textwrap_makes_of_it(
            // Short words and runs of spaces meet the edges of lines and the width often;
            // any printable ASCII with line breaks; long words that must be broken.
            text in prop_oneof![
                "[ ab\n]{0,40}",
                "[ -~\n]{0,90}",
                "(a{0,12} {0,3}){0,6}",
            ],
            // Plain indents, and the ones drawn: an icon, colours.
            first in prop_oneof!["[ x]{0,6}", "[ \u{26a0}\u{d7}\u{4e2d}]{0,4}", Just("  \x1b[33m!\x1b[0m ".to_string())],
            rest in prop_oneof!["[ y]{0,6}", "[ \u{2502}]{0,4}", Just("  \x1b[31m\u{2502}\x1b[0m ".to_string())],
            width in 0usize..24,
        ) {
            let mut ours = String::new();
            fill_ascii(&mut ours, &text, width, &first, &rest);
            let options = textwrap::Options::new(width)
                .initial_indent(&first)
                .subsequent_indent(&rest)
                .break_words(true)
                .word_separator(textwrap::WordSeparator::AsciiSpace)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            prop_assert_eq!(ours, textwrap::fill(&text, options));
        }
    }

    proptest! {
        #[test]
        fn a_line_that_fits_is_what_textwrap_makes_of_it(
            // Any printable ASCII; short runs of words and spaces, which meet the edges of
            // the line and the width far more often; and line breaks and characters whose
            // width is not one.
            text in prop_oneof!["[ -~]{0,40}", "[ ab]{0,12}", "[ a\n\t\u{1b}\u{e9}\u{4e2d}]{0,12}"],
            first in prop_oneof![Just("  help: "), Just("  \u{26a0} "), Just("  \x1b[33m!\x1b[0m ")],
            width in 0usize..60,
        ) {
            let theme = GraphicalTheme::unicode_nocolor();
            let look = Look { theme: &theme, width, wrap: true };
            let mut ours = String::new();
            wrapped(&mut ours, &look, &text, first, "        ");
            let options = textwrap::Options::new(width.saturating_sub(2))
                .initial_indent(first)
                .subsequent_indent("        ")
                .break_words(true)
                .word_separator(textwrap::WordSeparator::AsciiSpace)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            prop_assert_eq!(ours, textwrap::fill(&text, options));
        }
    }
}
