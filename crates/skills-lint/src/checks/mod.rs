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
pub(crate) mod files;
pub(crate) mod links;
pub(crate) mod size;
pub(crate) mod skill_md;

/// Whether a file or directory exists in the skill: a file of the skill's listing (the one
/// file policy, no system call), or a directory on disk (an empty one has no files to
/// list; a skill in memory has none). A file on disk that the listing leaves out (ignored,
/// secret-looking) does not count: the package would not have it.
pub(crate) fn exists(skill: &walk::SkillDir, full: &Path) -> bool {
    presence(skill, full) == Presence::Present
}

/// What [`exists`] found, telling a file the listing leaves out from a missing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// In the listing, or a directory on disk.
    Present,
    /// A file on disk that the listing leaves out.
    LeftOut,
    /// Neither.
    Missing,
}

/// [`exists`], and for what is not there, whether disk has it as a file. One `stat` at
/// most: in a crawl of `SKILL.md`-only skills every reference is missing, and two calls
/// (directory? file?) per reference were a third of the run's system calls.
pub(crate) fn presence(skill: &walk::SkillDir, full: &Path) -> Presence {
    let files = skill.files();
    let exact = walk::key(full);
    let i = files.partition_point(|f| walk::key(&f.path) < exact);
    let hit = files.get(i).is_some_and(|f| {
        let k = walk::key(&f.path);
        // The file itself, or a file inside a directory of that name.
        k == exact || k.starts_with(&walk::prefix(full))
    });
    if hit {
        return Presence::Present;
    }
    if !skill.on_disk() {
        return Presence::Missing;
    }
    match std::fs::metadata(full) {
        Ok(m) if m.is_dir() => Presence::Present,
        Ok(m) if m.is_file() => Presence::LeftOut,
        _ => Presence::Missing,
    }
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
    let wanted_bag = Bag::of(&wanted_lower);
    // The files are sorted, so the first to reach a score is the one to keep among equals;
    // a file can only win by scoring below the best so far, and the length difference and
    // the letters each has that the other lacks bound its distance from below: nearly every
    // file is passed over without computing it (the distance was a sixteenth of a lint
    // run's CPU over a large tree with many broken links, and most have no close file).
    let mut best: Option<(usize, &str)> = None;
    for f in skill.files() {
        let p = f.rel.as_str();
        let score = if p.rsplit('/').next() == wanted_name {
            0
        } else {
            let beat = best.map_or(3, |(score, _)| score.saturating_sub(1));
            if p.chars().count().abs_diff(wanted_chars) > beat
                || wanted_bag
                    .as_ref()
                    .is_some_and(|bag| bag.fewest_edits(p) > beat)
            {
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

/// How many times each ASCII character occurs in a lowercase text: a lower bound of the
/// edit distance to another text that needs no table. An insertion or a deletion changes
/// one count by one, a substitution one count up and another down, a swap none; so the
/// characters one text has more of than the other, counted on the side with more of them,
/// are at least as many as the edits between the two.
struct Bag([u32; 128]);

impl Bag {
    /// The bag of `lower` (already lowercase); `None` when it is not all ASCII.
    fn of(lower: &str) -> Option<Self> {
        let mut counts = [0; 128];
        for b in lower.bytes() {
            *counts.get_mut(usize::from(b))? += 1;
        }
        Some(Self(counts))
    }

    /// A lower bound of the edits that turn `path`, lowercased, into the text of this bag
    /// (never more than their distance); `0`, no bound, when `path` is not all ASCII.
    fn fewest_edits(&self, path: &str) -> usize {
        let mut theirs = [0u32; 128];
        for b in path.bytes() {
            match theirs.get_mut(usize::from(b.to_ascii_lowercase())) {
                Some(count) => *count += 1,
                None => return 0,
            }
        }
        let (mut more, mut fewer) = (0, 0);
        for (&ours, &theirs) in self.0.iter().zip(&theirs) {
            more += ours.saturating_sub(theirs);
            fewer += theirs.saturating_sub(ours);
        }
        usize::try_from(more.max(fewer)).unwrap_or(usize::MAX)
    }
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
    fn the_bag_never_bounds_above_the_distance() {
        // Every pair of texts of up to four characters over an alphabet with a letter case
        // and a separator: the bound may be low, never above the real distance.
        let alphabet = ['a', 'b', 'B', '/'];
        let mut texts = vec![String::new()];
        let mut last = texts.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(last.iter().cloned());
        }
        let mut tight = 0;
        for a in &texts {
            let a_lower = a.to_lowercase();
            let bag = Bag::of(&a_lower).unwrap();
            for b in &texts {
                let d = skills_core::suggest::distance(&b.to_lowercase(), &a_lower);
                let bound = bag.fewest_edits(b);
                assert!(bound <= d, "{b:?} -> {a:?}: bound {bound}, distance {d}");
                tight += usize::from(bound == d && d > 0);
            }
        }
        // And it is a bound worth having: most pairs at some distance get it exactly.
        assert!(tight > texts.len() * texts.len() / 4, "{tight}");
        assert!(Bag::of("é").is_none());
        let abc = Bag::of("abc").unwrap();
        assert_eq!(abc.fewest_edits("xyzé"), 0, "no bound past ASCII");
        assert_eq!(abc.fewest_edits("XYZ"), 3);
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
