//! `skills list`.

use std::path::Path;

use serde::Serialize;
use skills_discovery::{Index, Roots, Skill, Warning};
use skills_export::CatalogEntry;

use crate::cli::{ListArgs, ListFormat};
use crate::{Status, Ui, emit};

/// Bumped on any incompatible change to the JSON below.
const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    roots: Vec<RootItem<'a>>,
    skills: Vec<SkillItem<'a>>,
    skipped: Vec<SkippedItem>,
}

#[derive(Serialize)]
struct RootItem<'a> {
    path: &'a Path,
    scope: &'a str,
}

#[derive(Serialize)]
struct SkillItem<'a> {
    id: &'a str,
    name: &'a str,
    description: &'a str,
    path: &'a Path,
    base_dir: &'a Path,
    root: &'a Path,
    scope: &'a str,
    shadowed_by: Option<&'a Path>,
}

#[derive(Serialize)]
struct SkippedItem {
    id: String,
    path: String,
    root: String,
    scope: &'static str,
    reason: String,
}

pub(crate) fn run(args: &ListArgs, roots: &Roots, ui: Ui) -> Status {
    let index = Index::scan(roots);
    // Whatever the format: JSON and XML have no place for them, and stdout stays clean.
    report_problems(&index);
    let skills: Vec<&Skill> = if args.all {
        index.all().collect()
    } else {
        index.skills().iter().collect()
    };
    let text = match args.format {
        ListFormat::Json => json(&index, &skills),
        ListFormat::Xml => catalog(&index),
        ListFormat::Table => {
            if !ui.quiet() {
                report_warnings(&index, args.all);
            }
            let listed_skipped = args.all && !index.skipped().is_empty();
            if index.skills().is_empty() && !listed_skipped {
                if !ui.quiet() {
                    eprintln!("{}", nothing_found(roots));
                }
                return Status::Success;
            }
            table(&index, &skills, args.all)
        }
    };
    match emit(&text) {
        Ok(()) | Err(Status::Success) => Status::Success,
        Err(s) => s,
    }
}

/// The `<available_skills>` catalog of the active skills, located by the absolute path of
/// their `SKILL.md` (shared with `skills instructions --catalog`).
pub(crate) fn catalog(index: &Index) -> String {
    let entries: Vec<CatalogEntry<'_>> = index
        .skills()
        .iter()
        .map(|s| CatalogEntry {
            name: &s.name,
            description: &s.description,
            location: s.skill_md.to_str().unwrap_or_default(),
        })
        .collect();
    skills_export::catalog_xml(&entries)
}

/// Problems that are not skills of their own (unreadable roots and directories, symlink
/// loops, ...) go to stderr.
fn report_problems(index: &Index) {
    for w in index.warnings() {
        match w {
            Warning::Skipped(_) | Warning::Shadowed { .. } => {}
            other => eprintln!("warning: {other}"),
        }
    }
}

/// Shadowed and skipped skills are summed up on stderr unless `--all` lists them.
fn report_warnings(index: &Index, all: bool) {
    if all {
        return;
    }
    let shadowed = index.shadowed().len();
    let skipped = index.skipped().len();
    let mut parts = Vec::new();
    if shadowed > 0 {
        parts.push(format!("{shadowed} shadowed"));
    }
    if skipped > 0 {
        parts.push(format!("{skipped} skipped"));
    }
    if !parts.is_empty() {
        let n = shadowed + skipped;
        eprintln!(
            "note: {} skill{} not shown; `skills list --all` lists {}",
            parts.join(" and "),
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" }
        );
    }
}

pub(crate) fn nothing_found(roots: &Roots) -> String {
    let mut out = String::from("no skills found. Looked in:\n");
    for r in roots {
        out.push_str(&format!("  {} ({})\n", display_path(&r.path), r.scope));
    }
    out.push_str("Create one with a SKILL.md in .agents/skills/<name>/, or point --skills-dir at your skills.");
    out
}

/// A path for people: relative to the current directory when below it, `~/...` when below
/// the home directory, else absolute.
pub(crate) fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    if let Some(rel) = cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()) {
        let s = rel.display().to_string();
        return if s.is_empty() { ".".to_string() } else { s };
    }
    let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
    if let Some(rel) = home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

fn json(index: &Index, skills: &[&Skill]) -> String {
    let doc = Document {
        version: SCHEMA_VERSION,
        roots: index
            .roots()
            .iter()
            .map(|r| RootItem {
                path: &r.path,
                scope: r.scope.as_str(),
            })
            .collect(),
        skills: skills
            .iter()
            .map(|s| SkillItem {
                id: &s.id,
                name: &s.name,
                description: &s.description,
                path: &s.skill_md,
                base_dir: &s.dir,
                root: &s.root,
                scope: s.scope.as_str(),
                shadowed_by: s.shadowed_by.as_deref(),
            })
            .collect(),
        skipped: index
            .skipped()
            .iter()
            .map(|s| SkippedItem {
                id: s.id.clone(),
                path: s.path.display().to_string(),
                root: s.root.display().to_string(),
                scope: s.scope.as_str(),
                reason: s.reason.to_string(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
}

/// Cuts `text` to `width` characters, ending with `…` when cut.
fn cut(text: &str, width: usize) -> String {
    let first_line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first_line.chars().count() <= width {
        return first_line.to_string();
    }
    let mut out: String = first_line.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn table(index: &Index, skills: &[&Skill], all: bool) -> String {
    let width = crate::width();
    let source = |s: &Skill| format!("{} {}", s.scope, display_path(&s.root));
    let mut rows: Vec<(String, String, String)> = skills
        .iter()
        .map(|s| {
            let desc = match &s.shadowed_by {
                Some(by) => format!("[shadowed by {}] {}", display_path(by), s.description),
                None => s.description.clone(),
            };
            (s.id.clone(), desc, source(s))
        })
        .collect();
    if all {
        rows.extend(index.skipped().iter().map(|s| {
            (
                s.id.clone(),
                format!("[skipped: {}]", s.reason),
                format!("{} {}", s.scope, display_path(&s.root)),
            )
        }));
    }
    // Names and descriptions are anyone's text: no escape sequence reaches the terminal
    // (escaped before the columns are measured).
    for row in &mut rows {
        for cell in [&mut row.0, &mut row.1, &mut row.2] {
            if let std::borrow::Cow::Owned(safe) = crate::render::terminal_safe(cell) {
                *cell = safe;
            }
        }
    }
    let id_w = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(2)
        .clamp(2, 40);
    let src_w = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 60);
    let desc_w = width.saturating_sub(id_w + src_w + 4).max(20);
    let mut out = format!("{:id_w$}  {:desc_w$}  {}\n", "ID", "DESCRIPTION", "SOURCE");
    for (id, desc, src) in rows {
        let desc = cut(&desc, desc_w);
        out.push_str(&format!(
            "{:id_w$}  {desc:desc_w$}  {src}\n",
            cut(&id, id_w)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_keeps_short_text_and_marks_long() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("0123456789abc", 10), "012345678…");
        assert_eq!(cut("\n  first line\nsecond", 40), "first line");
    }
}
