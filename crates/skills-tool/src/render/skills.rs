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

/// Not found is exit 1, as `grep` has it: the command worked, the answer is no.
pub(crate) fn not_found(
    name: &str,
    roots: &Roots,
    printer: &crate::printer::Printer,
) -> crate::exit::ExitStatus {
    let index = Index::scan(roots);
    let skipped = index
        .skipped()
        .iter()
        .find(|s| s.id.eq_ignore_ascii_case(name));
    let mut message = format!("skill `{name}` not found");
    if let Some(s) = skipped {
        message = format!(
            "skill `{}` exists but was skipped: {} ({})",
            s.id,
            s.reason,
            display_path(&s.path)
        );
    }
    let suggestions = index.suggest(name);
    // A skill made outside the roots (by hand, or by `skills new` before it wrote into
    // .agents/skills): say where it is and how to make it found.
    let here = skills_frontmatter::is_valid_name(name)
        .then(|| std::path::Path::new(name).join(skills_core::layout::SKILL_MD))
        .filter(|md| md.is_file());
    let help = if skipped.is_some() {
        format!(
            "`skills lint {}` shows what to fix",
            display_path(&s_dir(skipped))
        )
    } else if here.is_some() {
        format!(
            "`{name}/` in the current directory holds a SKILL.md, but no skills root does: \
             move it to .agents/skills/{name}, or pass --skills-dir ."
        )
    } else if let Some(first) = suggestions.first() {
        let more: Vec<String> = suggestions
            .iter()
            .skip(1)
            .map(|s| format!("`{s}`"))
            .collect();
        if more.is_empty() {
            format!("did you mean `{first}`?")
        } else {
            format!("did you mean `{first}`? (or {})", more.join(", "))
        }
    } else if index.skills().is_empty() {
        // The roots are listed above: only how to make a skill.
        how_to_create().to_string()
    } else {
        "`skills list` shows the installed skills".to_string()
    };
    let mut looked = String::from("looked in:");
    for r in roots {
        looked.push_str(&format!("\n  {} ({})", display_path(&r.path), r.scope));
    }
    super::print_error(
        printer,
        crate::errors::plain(format!("{message}\n{looked}"), help).as_ref(),
    );
    crate::exit::ExitStatus::Failure
}

fn s_dir(skipped: Option<&skills_discovery::Skipped>) -> std::path::PathBuf {
    skipped
        .and_then(|s| s.path.parent().map(std::path::Path::to_path_buf))
        .unwrap_or_default()
}
