//! Texts about the installed skills that more than one command prints.

use skills_discovery::{Index, Roots};
use skills_export::CatalogEntry;

use super::display_path;

/// The `<available_skills>` catalog of the active skills, located by the absolute path of
/// their `SKILL.md` (shared with `skills instructions --catalog`).
pub(crate) fn catalog(index: &Index) -> String {
    // A path that is not UTF-8 has U+FFFD where the bytes are not, never an empty location
    // (`skills list` warns).
    let locations: Vec<_> = index
        .skills()
        .iter()
        .map(|s| s.skill_md.to_string_lossy())
        .collect();
    catalog_at(index, &locations)
}

/// The catalog of `index`'s skills, the i-th at `locations[i]`.
pub(crate) fn catalog_at(index: &Index, locations: &[impl AsRef<str>]) -> String {
    let entries: Vec<CatalogEntry<'_>> = index
        .skills()
        .iter()
        .zip(locations)
        .map(|(s, location)| CatalogEntry {
            name: &s.name,
            description: &s.description,
            location: location.as_ref(),
        })
        .collect();
    skills_export::catalog_xml(&entries)
}

/// What `list`, `show` and `prompt` say when no root holds a skill: where they looked and
/// how to make one.
pub(crate) fn nothing_found(roots: &Roots) -> String {
    let mut out = String::from("no skills found. Looked in:\n");
    for r in roots {
        out.push_str(&format!("  {} ({})\n", display_path(&r.path), r.scope));
    }
    out.push_str(how_to_create());
    out
}

/// How to make a skill discovery finds, for the messages that found none.
pub(crate) fn how_to_create() -> &'static str {
    "Create one with `skills new NAME` (it goes to .agents/skills/NAME), or point --skills-dir at your skills."
}

/// The warning for each file of skill `id` left out although no ignore file names it
/// (`package` and `install`): a file the user expected must not vanish silently.
pub(crate) fn skipped_files(id: &str, skipped: &[skills_package::Skipped]) -> Vec<String> {
    let mut out = Vec::new();
    for s in skipped {
        let name = s.path.rsplit('/').next().unwrap_or(&s.path);
        let hint = match s.reason {
            skills_package::SkipReason::Secret => {
                format!("; to include it, add `!{name}` to the skill's .skillignore")
            }
            _ => String::new(),
        };
        out.push(format!(
            "{id}/{}: not included: {}{hint}",
            super::terminal_safe(&s.path),
            s.reason
        ));
    }
    out
}
