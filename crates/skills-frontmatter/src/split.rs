//! Splitting a `SKILL.md` into its frontmatter fences and body, by delimiter *lines*.

use std::ops::Range;

/// Where the pieces of a fenced document sit, as byte ranges into the whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fences {
    /// The opening `---` line, without its line ending.
    pub(crate) opening: Range<usize>,
    /// The YAML between the fences (starts after the opening line's ending).
    pub(crate) yaml: Range<usize>,
    /// The closing `---` line, without its line ending.
    pub(crate) closing: Range<usize>,
    /// Everything after the closing line's ending.
    pub(crate) body: Range<usize>,
}

/// Why a text has no usable fences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FenceError {
    /// The first line (after an optional BOM) is not `---`; the range is that first line.
    Missing(Range<usize>),
    /// An opening fence with no closing `---` line; the range is the opening line.
    Unclosed(Range<usize>),
    /// The first line is `---` ended by a lone `\r` (classic Mac line endings): no line of
    /// the file ends where a fence could. The range is that `\r`.
    CrLineEndings(Range<usize>),
}

/// Iterates over lines as `(content_range, next_line_start)`, where the content excludes
/// `\n` and a `\r` before it.
fn lines(text: &str, from: usize) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let (end, next) = match memchr::memchr(b'\n', bytes.get(start..)?) {
            Some(i) => (start + i, start + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        let content_end = if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end - 1
        } else {
            end
        };
        pos = next;
        Some((start..content_end, next))
    })
}

/// A fence line is exactly `---`, optionally followed by spaces or tabs.
fn is_fence(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.bytes().all(|b| b == b' ' || b == b'\t'))
}

/// Splits `text` (which starts at byte `start`, after any BOM) on its fence lines.
///
/// Unlike a search for the first `---` anywhere, a `---` inside a value is text: only a whole
/// line counts as a fence.
pub(crate) fn split(text: &str, start: usize) -> Result<Fences, FenceError> {
    let mut it = lines(text, start);
    let Some((first, yaml_start)) = it.next() else {
        return Err(FenceError::Missing(start..start));
    };
    if !text.get(first.clone()).is_some_and(is_fence) {
        // `---\rname: a\r---\r`: one long "line" starting with a fence and a lone CR.
        let line = text.get(first.clone()).unwrap_or("");
        let after = line
            .strip_prefix("---")
            .map(|rest| rest.trim_start_matches([' ', '\t']));
        if let Some(rest) = after
            && rest.starts_with('\r')
        {
            let cr = first.start + (line.len() - rest.len());
            return Err(FenceError::CrLineEndings(cr..cr + 1));
        }
        return Err(FenceError::Missing(first));
    }
    for (line, next) in it {
        if text.get(line.clone()).is_some_and(is_fence) {
            return Ok(Fences {
                opening: first,
                yaml: yaml_start..line.start,
                closing: line,
                body: next..text.len(),
            });
        }
    }
    Err(FenceError::Unclosed(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (String, String) {
        let f = split(text, 0).unwrap();
        (text[f.yaml].to_string(), text[f.body].to_string())
    }

    #[test]
    fn splits_on_lines_only() {
        let (yaml, body) = parts("---\ndescription: before --- after\n---\n# Body\n");
        assert_eq!(yaml, "description: before --- after\n");
        assert_eq!(body, "# Body\n");
    }

    #[test]
    fn crlf_and_trailing_spaces() {
        let (yaml, body) = parts("---  \r\nname: a\r\n--- \r\nbody\r\n");
        assert_eq!(yaml, "name: a\r\n");
        assert_eq!(body, "body\r\n");
    }

    #[test]
    fn four_dashes_is_not_a_fence() {
        assert!(matches!(
            split("----\nname: a\n---\n", 0),
            Err(FenceError::Missing(_))
        ));
        assert!(matches!(
            split("---\nname: a\n----\n", 0),
            Err(FenceError::Unclosed(_))
        ));
    }

    #[test]
    fn empty_and_unclosed() {
        assert_eq!(split("", 0), Err(FenceError::Missing(0..0)));
        assert_eq!(split("---\nname: a\n", 0), Err(FenceError::Unclosed(0..3)));
        let f = split("---\n---", 0).unwrap();
        assert_eq!(f.yaml, 4..4);
        assert_eq!(f.body, 7..7);
    }

    #[test]
    fn lone_cr_line_endings() {
        assert_eq!(
            split("---\rname: a\r---\rbody\r", 0),
            Err(FenceError::CrLineEndings(3..4))
        );
        assert_eq!(
            split("--- \t\rname: a\r---\r", 0),
            Err(FenceError::CrLineEndings(5..6))
        );
        // CRLF is fine, and a `\r` elsewhere in the first line is not a line ending.
        assert!(split("---\r\nname: a\r\n---\r\n", 0).is_ok());
        assert!(matches!(
            split("--x\rname\n", 0),
            Err(FenceError::Missing(_))
        ));
    }

    #[test]
    fn leading_blank_line_is_missing() {
        assert_eq!(split("\n---\n---\n", 0), Err(FenceError::Missing(0..0)));
    }
}
