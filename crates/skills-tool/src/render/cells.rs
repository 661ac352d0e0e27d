//! Text measured in terminal cells, for tables: a CJK character or an emoji takes two
//! columns, a combining mark none, and a column cut or padded by characters comes out the
//! wrong width. The widths are `unicode-width`'s, as miette's (render/graphical.rs).

use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

/// How many columns `text` takes at a terminal. Control characters count as none: table
/// cells are made [`super::terminal_safe`] and [`one_line`] first.
pub(crate) fn width(text: &str) -> usize {
    text.width()
}

/// The first line of `text` that is not blank, trimmed, with tabs made spaces (a tab's
/// width depends on the column it starts at): what a table cell shows of a description.
pub(crate) fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.contains('\t') {
        std::borrow::Cow::Owned(line.replace('\t', " "))
    } else {
        std::borrow::Cow::Borrowed(line)
    }
}

/// `text` cut to at most `columns` columns, ending with `…` when cut (never a wide
/// character split or pushed past the edge).
pub(crate) fn cut_end(text: &str, columns: usize) -> std::borrow::Cow<'_, str> {
    if width(text) <= columns {
        return std::borrow::Cow::Borrowed(text);
    }
    let room = columns.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    if columns > 0 {
        out.push('…');
    }
    std::borrow::Cow::Owned(out)
}

/// `text` cut to at most `columns` columns from its start, beginning with `…` when cut: the
/// end of a path says more than its start.
pub(crate) fn cut_start(text: &str, columns: usize) -> std::borrow::Cow<'_, str> {
    if width(text) <= columns {
        return std::borrow::Cow::Borrowed(text);
    }
    let room = columns.saturating_sub(1);
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        kept.push(c);
    }
    let mut out = String::new();
    if columns > 0 {
        out.push('…');
    }
    out.extend(kept.into_iter().rev());
    std::borrow::Cow::Owned(out)
}

/// `text` followed by spaces up to `columns` columns (`format!`'s `{:w$}` counts
/// characters, so a CJK cell came out twice as wide as its column).
pub(crate) fn pad(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len() + columns);
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        columns.saturating_sub(width(text)),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(width("pdf"), 3);
        assert_eq!(width("PDFフォーム"), 11);
        assert_eq!(width("e\u{301}"), 1);
        // Cut: never a column past the edge, and the mark always shown.
        assert_eq!(cut_end("PDFフォームに記入", 8), "PDFフォ…");
        assert_eq!(cut_end("PDFフォームに記入", 7), "PDFフ…");
        // A wide character that would pass the edge is left out: one column short.
        assert_eq!(cut_end("PDFフォームに記入", 9), "PDFフォ…");
        assert_eq!(width(&cut_end("PDFフォームに記入", 9)), 8);
        assert_eq!(cut_end("フォーム", 8), "フォーム");
        assert_eq!(cut_end("short", 10), "short");
        assert_eq!(cut_end("0123456789abc", 10), "012345678…");
        assert_eq!(cut_end("abc", 0), "");
        assert_eq!(cut_start("project /a/b/skills", 12), "…/a/b/skills");
        assert_eq!(cut_start("~/スキル/skills", 10), "…ル/skills");
        assert_eq!(cut_start("short", 12), "short");
        assert_eq!(pad("フォーム", 10), "フォーム  ");
        assert_eq!(pad("toolong", 3), "toolong");
    }

    #[test]
    fn a_cell_is_the_first_line_that_says_something() {
        assert_eq!(one_line("\n  first\tline \nsecond"), "first line");
        assert_eq!(one_line(""), "");
    }

    proptest::proptest! {
        #[test]
        fn a_cut_is_never_wider_than_asked(
            text in "[a-zé\u{301}フォーム😀 ]{0,40}",
            columns in 0usize..30,
        ) {
            proptest::prop_assert!(width(&cut_end(&text, columns)) <= columns);
            proptest::prop_assert!(width(&cut_start(&text, columns)) <= columns);
            proptest::prop_assert_eq!(width(&pad(&cut_end(&text, columns), columns)), columns);
        }
    }
}
