//! Byte offsets to lines and columns, and evidence made safe to show.

/// 1-based line and column (in characters) of byte `offset` in `text` (clamped to the
/// text, and to the character boundary at or before it).
pub(crate) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    LineIndex::new(text).line_col(text, offset)
}

/// Where each line of a text starts, for many lookups in one file.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr_iter(text.as_bytes()).map(|i| i + 1));
        Self { starts }
    }

    pub(crate) fn line_col(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let column = text.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }
}

fn memchr_iter(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| (*b == b'\n').then_some(i))
}

/// `text` clipped to 200 characters on one line, with control, invisible and bidi
/// characters written as `\u{…}`, so evidence cannot hide itself or reorder a terminal.
pub(crate) fn evidence(text: &str) -> String {
    let mut out = String::new();
    for (count, c) in text.trim().chars().enumerate() {
        if count >= 200 {
            out.push('…');
            break;
        }
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() || crate::scan::unicode::is_invisible(c) => {
                out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let t = "ab\ncé d\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 6), (2, 3));
        assert_eq!(line_col(t, 100), (3, 1));
        assert_eq!(evidence("a\u{202E}b\nc"), "a\\u{202E}b c");
    }
}
