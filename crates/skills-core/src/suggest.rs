//! "Did you mean": one rule for every command, so `skills show` and `skills lint --explain`
//! suggest alike.

/// The longest query that gets suggestions: nothing this crate names is longer, and the
/// distance table costs the product of the two lengths (a 10 MB rule id took 18 s).
pub const MAX_QUERY_CHARS: usize = 64;

/// The edit distance between `a` and `b` in characters: insertions, deletions,
/// substitutions and swaps of two adjacent characters each count one (optimal string
/// alignment, as `git` and `cargo` suggest).
pub fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The candidates close to `query`, closest first (ties keep the candidates' order):
/// ignoring case, within 3 edits and at most half the longer of the two, or one containing
/// the other when that one has 3 characters or more. A query over [`MAX_QUERY_CHARS`]
/// gets none.
///
/// ```
/// let ids = ["pdf-processing", "mcp-builder", "git"];
/// assert_eq!(skills_core::suggest::closest("mcp-buidler", ids), ["mcp-builder"]);
/// assert_eq!(skills_core::suggest::closest("PDF", ids), ["pdf-processing"]);
/// assert!(skills_core::suggest::closest("zzz", ids).is_empty());
/// ```
pub fn closest<'a>(query: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let query = query.to_lowercase();
    let query_len = query.chars().count();
    if query_len == 0 || query.chars().nth(MAX_QUERY_CHARS).is_some() {
        return Vec::new();
    }
    let mut hits: Vec<(usize, usize, &str)> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(i, candidate)| {
            let lower = candidate.to_lowercase();
            let len = lower.chars().count();
            let d = distance(&query, &lower);
            let close = d <= 3 && d * 2 <= query_len.max(len);
            let contains =
                (query_len >= 3 && lower.contains(&query)) || (len >= 3 && query.contains(&lower));
            (close || contains).then_some((d, i, candidate))
        })
        .collect();
    hits.sort_unstable();
    hits.into_iter().map(|(_, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("git", "git"), 0);
        assert_eq!(distance("gti", "git"), 1);
        assert_eq!(distance("mcp-buidler", "mcp-builder"), 1);
        assert_eq!(distance("pdf", "pdff"), 1);
        assert_eq!(distance("git", "pdf"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_first_and_bounded() {
        let ids = ["name-too-long", "name-empty", "body-too-long"];
        assert_eq!(closest("name-to-long", ids), ["name-too-long"]);
        assert_eq!(closest("body-too-lon", ids), ["body-too-long"]);
        assert!(closest("zzzzzzzzzzzz", ids).is_empty());
        assert!(closest(&"x".repeat(10 << 20), ids).is_empty());
        // Half the length: "ab" is not 2 edits from "xy".
        assert!(closest("ab", ["xy"]).is_empty());
    }
}
