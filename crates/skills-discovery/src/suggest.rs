//! Edit distance for "did you mean".

/// The optimal string alignment distance between two strings, in characters: insertions,
/// deletions, substitutions and swaps of two adjacent characters each count one.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    // Three rows: two back (for swaps), previous, current.
    let mut before: Vec<usize> = vec![0; width];
    let mut prev: Vec<usize> = (0..width).collect();
    let mut cur: Vec<usize> = vec![0; width];
    for (i, ca) in a.iter().enumerate() {
        if let Some(first) = cur.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let at = |row: &[usize], k: usize| row.get(k).copied().unwrap_or(usize::MAX / 2);
            let mut d = (at(&prev, j) + usize::from(ca != cb))
                .min(at(&prev, j + 1) + 1)
                .min(at(&cur, j) + 1);
            if i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca) && ca != cb {
                d = d.min(at(&before, j - 1) + 1);
            }
            if let Some(slot) = cur.get_mut(j + 1) {
                *slot = d;
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::distance;

    #[test]
    fn distances() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("git", "git"), 0);
        assert_eq!(distance("gti", "git"), 1);
        assert_eq!(distance("mcp-buidler", "mcp-builder"), 1);
        assert_eq!(distance("pdf", "pdff"), 1);
        assert_eq!(distance("git", "pdf"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
