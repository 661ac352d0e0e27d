//! `skills list`.

use std::path::Path;

use serde::Serialize;
use skills_discovery::{Index, Roots, Skill, Warning};

use crate::args::{ListArgs, ListFormat};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render::{self, display_path};

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

pub(crate) fn run(args: &ListArgs, roots: &Roots, printer: &Printer) -> Result<ExitStatus, Error> {
    let index = Index::scan(roots);
    // Whatever the format: JSON and XML have no place for them, and stdout stays clean.
    report_problems(&index, printer);
    let skills: Vec<&Skill> = if args.all {
        index.all().collect()
    } else {
        index.skills().iter().collect()
    };
    let text = match args.format {
        ListFormat::Json => json(&index, &skills),
        ListFormat::Xml => render::skills::catalog(&index),
        ListFormat::Table => {
            report_warnings(&index, args.all, printer);
            let listed_skipped = args.all && !index.skipped().is_empty();
            if index.skills().is_empty() && !listed_skipped {
                printer.status(&format!("{}\n", render::skills::nothing_found(roots)));
                return Ok(ExitStatus::Success);
            }
            table(&index, &skills, args.all, printer.ui().width)
        }
    };
    printer.out(&text)?;
    Ok(ExitStatus::Success)
}

/// Problems that are not skills of their own (unreadable roots and directories, symlink
/// loops, ...) go to stderr.
fn report_problems(index: &Index, printer: &Printer) {
    for w in index.warnings() {
        match w {
            Warning::Skipped(_) | Warning::Shadowed { .. } => {}
            other => printer.warn(&other.to_string()),
        }
    }
}

/// Shadowed and skipped skills are summed up on stderr unless `--all` lists them.
fn report_warnings(index: &Index, all: bool, printer: &Printer) {
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
        printer.note(&format!(
            "{} skill{} not shown; `skills list --all` lists {}",
            parts.join(" and "),
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" }
        ));
    }
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

fn table(index: &Index, skills: &[&Skill], all: bool, width: usize) -> String {
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
            if let std::borrow::Cow::Owned(safe) = render::terminal_safe(cell) {
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
