//! The rules the linter adds to `skills-frontmatter`'s, one module per family: `SKILL.md`
//! itself ([`skill_md`], which also runs the file-scope rules at their configured
//! severities), what the skill links to ([`links`]), its size ([`size`]), its context package
//! ([`context`]), and the one rule of the whole run ([`duplicate_names`]).
//!
//! Each family is a module of plain functions that take the [`Linter`](crate::Linter), whose
//! configuration decides each finding's severity (or drops it), and push the diagnostics they
//! find; the linter calls them in a fixed order and sorts the result.

use std::path::Path;

use crate::walk;

pub(crate) mod context;
pub(crate) mod duplicate_names;
pub(crate) mod links;
pub(crate) mod size;
pub(crate) mod skill_md;

/// Whether a file or directory exists in the skill: a file of the skill's listing (the one
/// file policy, no system call), or a directory on disk (an empty one has no files to
/// list). A file on disk that the listing leaves out (ignored, secret-looking) does not
/// count: the package would not have it.
pub(crate) fn exists(skill: &walk::SkillDir, full: &Path) -> bool {
    let files = skill.files();
    let exact = walk::key(full);
    let i = files.partition_point(|f| walk::key(&f.path) < exact);
    let hit = files.get(i).is_some_and(|f| {
        let k = walk::key(&f.path);
        // The file itself, or a file inside a directory of that name.
        k == exact || k.starts_with(&walk::prefix(full))
    });
    hit || full.is_dir()
}

/// The size of a file the walk found directly in the skill, by binary search (no system
/// call); `None` when there is no such file.
pub(crate) fn file_size(skill: &walk::SkillDir, full: &Path) -> Option<u64> {
    let files = skill.files();
    let exact = walk::key(full);
    let i = files.partition_point(|f| walk::key(&f.path) < exact);
    files
        .get(i)
        .filter(|f| walk::key(&f.path) == exact)
        .map(|f| f.size)
}

/// The skill file whose relative path is closest to `wanted`, for "did you mean": the same
/// path in another letter case, the same file name in another folder, or a path a few edits
/// away.
pub(crate) fn closest_file(skill: &walk::SkillDir, wanted: &str) -> Option<String> {
    let wanted_lower = wanted.to_lowercase();
    let wanted_chars = wanted_lower.chars().count();
    let wanted_name = wanted.rsplit('/').next();
    // The files are sorted, so the first to reach a score is the one to keep among equals;
    // a file can only win by scoring below the best so far, and the length difference
    // bounds its distance from below: most files are passed over without computing it (it
    // was a sixth of a lint run over a large tree with many broken links).
    let mut best: Option<(usize, &str)> = None;
    for f in skill.files() {
        let p = f.rel.as_str();
        let score = if p.rsplit('/').next() == wanted_name {
            0
        } else {
            let beat = best.map_or(3, |(score, _)| score.saturating_sub(1));
            if p.chars().count().abs_diff(wanted_chars) > beat {
                continue;
            }
            let lower = p.to_lowercase();
            if lower == wanted_lower {
                0
            } else {
                skills_core::suggest::distance(&lower, &wanted_lower)
            }
        };
        if score <= 3 && best.is_none_or(|(b, _)| score < b) {
            best = Some((score, p));
            if score == 0 {
                break;
            }
        }
    }
    best.map(|(_, p)| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{skill, write};

    fn listed(files: &[&str]) -> (tempfile::TempDir, walk::SkillDir) {
        let t = tempfile::tempdir().unwrap();
        skill(t.path(), "s", "body\n");
        for f in files {
            write(t.path(), &format!("s/{f}"), "x");
        }
        let lister = skills_core::files::Lister::new();
        let (dir, _) = walk::SkillDir::list(&walk::Found::at(&t.path().join("s")), &lister);
        (t, dir)
    }

    #[test]
    fn the_closest_file_is_the_first_of_the_best() {
        let (_t, s) = listed(&[
            "a/guide.md",
            "references/guida.md",
            "references/guidb.md",
            "x/guide.md",
        ]);
        for (wanted, closest, why) in [
            (
                "references/guide.md",
                Some("a/guide.md"),
                "the same file name elsewhere beats any edit distance; the first wins",
            ),
            (
                "references/guidc.md",
                Some("references/guida.md"),
                "one edit away from two: the first",
            ),
            (
                "references/guidbx.md",
                Some("references/guidb.md"),
                "fewer edits beat an earlier file",
            ),
            (
                "REFERENCES/GUIDB.MD",
                Some("references/guidb.md"),
                "letter case alone",
            ),
            (
                "elsewhere/nothing-like-it.txt",
                None,
                "nothing within three edits",
            ),
        ] {
            assert_eq!(closest_file(&s, wanted).as_deref(), closest, "{why}");
        }
    }
}
