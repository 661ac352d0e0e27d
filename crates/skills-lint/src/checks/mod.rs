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
    skill
        .files()
        .iter()
        .filter_map(|f| {
            let p = f.rel.as_str();
            let score = if p.rsplit('/').next() == wanted_name {
                0
            } else if p.chars().count().abs_diff(wanted_chars) > 3 {
                // The length difference bounds the distance from below: most files of a
                // skill are skipped without computing it (it was a sixth of a lint run
                // over a large tree with many broken links).
                return None;
            } else {
                let lower = p.to_lowercase();
                if lower == wanted_lower {
                    0
                } else {
                    skills_core::suggest::distance(&lower, &wanted_lower)
                }
            };
            (score <= 3).then_some((score, p))
        })
        .min()
        .map(|(_, p)| p.to_string())
}
