//! Data to text: lint reports (human in miette's graphical format, concise, JSON, GitHub
//! annotations, SARIF, statistics), source snippets, and the small formatting rules every
//! command shares (paths, terminal safety). Nothing here prints.

pub(crate) mod audit;
pub(crate) mod cells;
pub(crate) mod concise;
pub(crate) mod github;
pub(crate) mod graphical;
pub(crate) mod human;
pub(crate) mod json;
pub(crate) mod rules;
pub(crate) mod sarif;
pub(crate) mod skills;
pub(crate) mod snippet;
pub(crate) mod statistics;
pub(crate) mod stream;

/// The first `n` of `items` joined with `, `, then `and N more` for the rest: a message
/// names a few files, not a thousand.
pub(crate) fn first_few<S: AsRef<str>>(items: &[S], n: usize) -> String {
    let mut text = items
        .iter()
        .take(n)
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    let more = items.len().saturating_sub(n);
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// An error of the command itself (not a finding), drawn as a diagnostic on stderr.
pub(crate) fn print_error(printer: &crate::printer::Printer, report: &dyn miette::Diagnostic) {
    printer.err(&format!(
        "{}\n",
        human::report_to_string(printer.ui(), report)
    ));
}

/// A path as printed: `/`-separated on every platform, so output and snapshots agree.
pub(crate) fn path_str(path: &std::path::Path) -> String {
    let s = path.to_string_lossy();
    let s = s.strip_prefix("./").unwrap_or(&s);
    s.replace('\\', "/")
}

/// Whether `c` could take over a terminal or hide text: control characters other than
/// newline and tab (escape sequences, carriage return, backspace, bell) and the Unicode
/// bidirectional embeddings, overrides and isolates ("Trojan Source").
fn is_unsafe_for_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `text` holds no character [`is_unsafe_for_terminal`], read from its bytes: every
/// message, path and source window drawn goes through here, and decoding them a character
/// at a time was a twentieth of a human report. In UTF-8 the unsafe characters are a C0 byte
/// or DEL, `0xC2` then `0x80..=0x9F` (C1), or `0xE2` then `0x80 0xAA..=0xAE` or
/// `0x81 0xA6..=0xA9` (the bidirectional controls); 64-byte chunks without any of those
/// first bytes are cleared whole (the fold vectorizes, an early exit would not).
fn is_terminal_safe(text: &str) -> bool {
    let bytes = text.as_bytes();
    let suspect =
        |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2);
    let first_byte_unsafe = |at: usize, b: u8| {
        let next = |n: usize| bytes.get(at + n).copied().unwrap_or(0);
        match b {
            b'\n' | b'\t' => false,
            0x00..=0x1f | 0x7f => true,
            0xc2 => matches!(next(1), 0x80..=0x9f),
            0xe2 => matches!(
                (next(1), next(2)),
                (0x80, 0xaa..=0xae) | (0x81, 0xa6..=0xa9)
            ),
            _ => false,
        }
    };
    bytes.chunks(64).enumerate().all(|(n, chunk)| {
        !chunk.iter().fold(false, |seen, &b| seen | suspect(b))
            || !chunk
                .iter()
                .enumerate()
                .any(|(i, &b)| first_byte_unsafe(n * 64 + i, b))
    })
}

/// `text` with every character that could take over a terminal written as a visible
/// `\u{..}` escape. Skill names and descriptions come from files anyone can write.
pub(crate) fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if is_terminal_safe(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // A CR that ends a CRLF line is a line ending; a lone one would overwrite the line.
        let crlf = c == '\r' && chars.peek() == Some(&'\n');
        if is_unsafe_for_terminal(c) && !crlf {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`terminal_safe`] for text shown on one line (a message, a help, a path): a line break
/// is escaped too, so a name read from a file cannot forge a line of the output.
pub(crate) fn terminal_safe_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['\n', '\r']) {
        return terminal_safe(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if matches!(c, '\n' | '\r') {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(terminal_safe(&out).into_owned())
}

/// `text` with the same characters masked, keeping every byte offset (spans into the text
/// stay valid): each becomes `?` repeated to its UTF-8 length. The `\r` of a CRLF is kept.
pub(crate) fn terminal_safe_same_len(text: &str) -> std::borrow::Cow<'_, str> {
    if is_terminal_safe(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // A CR that ends a CRLF line is a line ending; a lone one would overwrite the line.
        let crlf = c == '\r' && chars.peek() == Some(&'\n');
        if is_unsafe_for_terminal(c) && !crlf {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A path for people: relative to the current directory when below it, `~/...` when below
/// the home directory, else absolute.
pub(crate) fn display_path(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().ok();
    if let Some(rel) = cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()) {
        let s = rel.display().to_string();
        return if s.is_empty() { ".".to_string() } else { s };
    }
    let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
    if let Some(rel) = home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

/// `path` relative to the current directory when it is inside it, with `/` separators.
pub(crate) fn relative(path: &std::path::Path) -> String {
    let rel = std::env::current_dir().ok().and_then(|cwd| {
        path.strip_prefix(cwd)
            .ok()
            .map(std::path::Path::to_path_buf)
    });
    path_str(rel.as_deref().unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        #[test]
        fn the_byte_scan_agrees_with_the_characters(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::range('\u{0}', '\u{200}'),
                    proptest::char::range('\u{2000}', '\u{2100}'),
                    proptest::char::any(),
                ],
                0..200,
            )
        ) {
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(
                is_terminal_safe(&text),
                !text.chars().any(is_unsafe_for_terminal)
            );
        }
    }

    #[test]
    fn an_unsafe_character_across_two_chunks_is_seen() {
        for at in 60..66 {
            for c in ['\u{85}', '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}'] {
                let text = format!("{}{c}{}", "a".repeat(at), "b".repeat(70));
                assert!(!is_terminal_safe(&text), "{at} {c:?}");
            }
            for c in ['\u{a9}', '\u{2014}', '\u{2029}', '\u{206a}', '\u{2192}'] {
                let text = format!("{}{c}{}", "a".repeat(at), "b".repeat(70));
                assert!(is_terminal_safe(&text), "{at} {c:?}");
            }
        }
    }

    #[test]
    fn terminal_escapes_are_made_visible() {
        assert_eq!(terminal_safe("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            terminal_safe("red \u{1b}[31mX\u{7}\r"),
            "red \\u{1b}[31mX\\u{7}\\u{d}"
        );
        assert_eq!(terminal_safe("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(terminal_safe("crlf\r\n\u{7}"), "crlf\r\n\\u{7}");
        let masked = terminal_safe_same_len("a\u{1b}]0;t\u{7}\u{202e}\u{85}z\r\n");
        assert_eq!(masked, "a?]0;t??????z\r\n");
        assert_eq!(terminal_safe_same_len("---\rname\r\n"), "---?name\r\n");
        assert_eq!(masked.len(), "a\u{1b}]0;t\u{7}\u{202e}\u{85}z\r\n".len());
    }
}
