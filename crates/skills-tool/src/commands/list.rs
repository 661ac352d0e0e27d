//! `skills list`.

use std::borrow::Cow;
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

/// Paths are text in JSON: one that is not UTF-8 is shown with U+FFFD in place of the
/// bytes that are not (a warning names it), never an error that loses the whole document.
#[derive(Serialize)]
struct RootItem<'a> {
    path: Cow<'a, str>,
    scope: &'a str,
}

#[derive(Serialize)]
struct SkillItem<'a> {
    id: &'a str,
    name: &'a str,
    description: &'a str,
    path: Cow<'a, str>,
    base_dir: Cow<'a, str>,
    root: Cow<'a, str>,
    scope: &'a str,
    shadowed_by: Option<Cow<'a, str>>,
    installed: Option<InstalledItem<'a>>,
}

/// What `skills.lock` says of a skill `skills add` installed.
#[derive(Serialize)]
struct InstalledItem<'a> {
    source: &'a str,
    commit: Option<&'a str>,
    agents: &'a [String],
}

/// The locked skills of the project's and the user's lock files, by the canonical path of
/// their installed directory: what `skills add` installed, and where from.
#[derive(Default)]
struct Installed {
    locks: Vec<(std::path::PathBuf, skills_add::Lock)>,
    by_dir: std::collections::HashMap<std::path::PathBuf, (usize, String)>,
}

impl Installed {
    /// Reads the locks that exist; an unreadable lock is a warning, not a failure of `list`.
    fn read(printer: &Printer) -> Self {
        let mut out = Self::default();
        let project = crate::settings::project_root().ok();
        let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
        let candidates = [
            project.map(|p| {
                (
                    p.join(skills_add::LOCK_FILE),
                    p.join(skills_add::UNIVERSAL_DIR),
                )
            }),
            home.map(|h| {
                (
                    skills_add::global_lock_path(&h),
                    h.join(skills_add::UNIVERSAL_DIR),
                )
            }),
        ];
        for (lock_path, root) in candidates.into_iter().flatten() {
            if !lock_path.is_file() {
                continue;
            }
            match skills_add::Lock::read(&lock_path) {
                Ok(lock) => {
                    let at = out.locks.len();
                    for name in lock.skills.keys() {
                        if let Ok(dir) = std::fs::canonicalize(root.join(name)) {
                            out.by_dir.insert(dir, (at, name.clone()));
                        }
                    }
                    out.locks.push((lock_path, lock));
                }
                Err(e) => printer.warn(&e.to_string()),
            }
        }
        out
    }

    /// The lock entry of the skill in `dir` (or a link to it).
    fn get(&self, dir: &Path) -> Option<&skills_add::Locked> {
        if self.by_dir.is_empty() {
            return None;
        }
        let dir = std::fs::canonicalize(dir).ok()?;
        let (at, name) = self.by_dir.get(&dir)?;
        self.locks.get(*at)?.1.skills.get(name)
    }
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
    let installed = Installed::read(printer);
    let skills: Vec<&Skill> = if args.all {
        index.all().collect()
    } else {
        index.skills().iter().collect()
    };
    report_non_utf8(&skills, printer);
    let text = match args.format {
        ListFormat::Json => json(&index, &skills, &installed),
        ListFormat::Xml => render::skills::catalog(&index),
        ListFormat::Table => {
            report_warnings(&index, args.all, printer);
            let listed_skipped = args.all && !index.skipped().is_empty();
            if index.skills().is_empty() && !listed_skipped {
                printer.status(&format!("{}\n", render::skills::nothing_found(roots)));
                return Ok(ExitStatus::Success);
            }
            table(&index, &skills, &installed, args.all, printer.ui().width)
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

/// A skill whose path is not UTF-8 is listed all the same (JSON and XML hold text, so the
/// bytes that are not UTF-8 are shown as U+FFFD), with a warning: that path cannot be
/// opened as printed.
fn report_non_utf8(skills: &[&Skill], printer: &Printer) {
    for s in skills.iter().filter(|s| s.skill_md.to_str().is_none()) {
        printer.warn(&render::terminal_safe(&format!(
            "{}: the path is not UTF-8; JSON and XML show it with U+FFFD in place of the bytes \
             that are not, so it cannot be opened as printed: rename it",
            s.skill_md.display()
        )));
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

fn json(index: &Index, skills: &[&Skill], installed: &Installed) -> String {
    let doc = Document {
        version: SCHEMA_VERSION,
        roots: index
            .roots()
            .iter()
            .map(|r| RootItem {
                path: r.path.to_string_lossy(),
                scope: r.scope.as_str(),
            })
            .collect(),
        skills: skills
            .iter()
            .map(|s| SkillItem {
                id: &s.id,
                name: &s.name,
                description: &s.description,
                path: s.skill_md.to_string_lossy(),
                base_dir: s.dir.to_string_lossy(),
                root: s.root.to_string_lossy(),
                scope: s.scope.as_str(),
                shadowed_by: s.shadowed_by.as_deref().map(Path::to_string_lossy),
                installed: installed.get(&s.dir).map(|l| InstalledItem {
                    source: &l.source,
                    commit: l.commit.as_deref(),
                    agents: &l.agents,
                }),
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

fn table(
    index: &Index,
    skills: &[&Skill],
    installed: &Installed,
    all: bool,
    width: usize,
) -> String {
    // Where the root is, then, for what `skills add` installed, where it came from and the
    // agents it is linked into.
    let source = |s: &Skill| {
        let root = format!("{} {}", s.scope, display_path(&s.root));
        match installed.get(&s.dir) {
            None => root,
            Some(l) if l.agents.is_empty() => format!("{root} <- {}", l.source),
            Some(l) => format!("{root} <- {} -> {}", l.source, l.agents.join(", ")),
        }
    };
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
        .clamp(2, 40)
        .min(width / 3);
    let src_w = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let desc_w = rows
        .iter()
        .map(|r| r.1.lines().next().unwrap_or_default().chars().count())
        .max()
        .unwrap_or(11)
        .max("DESCRIPTION".len());
    let layout = Layout::fit(width, id_w, desc_w, src_w);
    let mut out = layout.row("ID", "DESCRIPTION", "SOURCE");
    for (id, desc, src) in rows {
        out.push_str(&layout.row(&id, &desc, &src));
    }
    out
}

/// The widths of the columns, so that no line is wider than the terminal (as `ls` keeps
/// to it): the source is shown whole when it fits beside at least [`MIN_DESC`] columns of
/// description, and the description takes the rest (never padded past its longest line);
/// only below that is the source cut from its start (`…` then the end of the path), and when
/// even that does not fit it is left out.
struct Layout {
    id: usize,
    desc: usize,
    /// `None`: no source column.
    src: Option<usize>,
}

/// The narrowest description column worth showing.
const MIN_DESC: usize = 20;
/// The narrowest source column worth showing (`project …/skills`).
const MIN_SRC: usize = 12;

impl Layout {
    /// `desc` and `src` are the widest description and source of the rows.
    fn fit(width: usize, id: usize, desc: usize, src: usize) -> Self {
        // Two spaces between columns.
        let left = width.saturating_sub(id + 2);
        // The room the description keeps: [`MIN_DESC`], or less when no line is as long.
        let kept = desc.min(MIN_DESC);
        if left >= kept + 2 + src {
            return Self {
                id,
                desc: (left - 2 - src).min(desc),
                src: Some(src),
            };
        }
        let src_room = left.saturating_sub(kept + 2);
        if src_room >= MIN_SRC {
            return Self {
                id,
                desc: kept,
                src: Some(src_room),
            };
        }
        Self {
            id,
            desc: left.max(1),
            src: None,
        }
    }

    fn row(&self, id: &str, desc: &str, src: &str) -> String {
        let (id_w, desc_w) = (self.id, self.desc);
        let (id, desc) = (cut(id, id_w), cut(desc, desc_w));
        match self.src {
            Some(src_w) => format!("{id:id_w$}  {desc:desc_w$}  {}\n", cut_start(src, src_w)),
            None => format!("{}\n", format!("{id:id_w$}  {desc}").trim_end()),
        }
    }
}

/// Cuts `text` to `width` characters from its start, beginning with `…` when cut: the end
/// of a path says more than its start.
fn cut_start(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    let keep = width.saturating_sub(1);
    let mut out = String::from("…");
    out.extend(text.chars().skip(n - keep));
    out
}

#[cfg(test)]
mod tests {
    use super::{Layout, cut, cut_start};

    #[test]
    fn no_row_is_wider_than_the_terminal() {
        let source = "project /home/someone/work/a-rather-long-project/.agents/skills";
        for width in 40..=140 {
            let layout = Layout::fit(width, 22, 200, source.chars().count());
            for row in [
                layout.row("ID", "DESCRIPTION", "SOURCE"),
                layout.row(
                    "a-skill-with-a-long-id",
                    "Does a great many things. Use when the user asks for any of them.",
                    source,
                ),
            ] {
                let len = row.trim_end().chars().count();
                assert!(len <= width, "width {width}: {len} chars: {row:?}");
            }
        }
        assert_eq!(cut_start("project /a/b/skills", 12), "…/a/b/skills");
        assert_eq!(cut_start("short", 12), "short");
    }

    /// At 160 columns a 60-character source was cut from its start while the description
    /// was padded: the source now comes whole, and the description is never padded past
    /// its longest line.
    #[test]
    fn the_source_is_whole_when_the_description_has_room_and_nothing_is_padded() {
        let source = "project /home/someone/work/a-rather-long-project-name/.agents/skills";
        let layout = Layout::fit(160, 10, 40, source.chars().count());
        assert_eq!(
            (layout.desc, layout.src),
            (40, Some(source.chars().count()))
        );
        let row = layout.row("pdf", "Fills PDF forms.", source);
        assert!(row.trim_end().ends_with(source), "{row:?}");
        // Long descriptions give way to the source down to 20 columns, then the source is cut.
        let layout = Layout::fit(110, 10, 300, source.chars().count());
        assert_eq!(layout.src, Some(source.chars().count()));
        let layout = Layout::fit(80, 10, 300, source.chars().count());
        assert_eq!(layout.desc, 20);
        assert!(layout.src.is_some_and(|w| w < source.chars().count()));
    }

    /// At 70 columns a description of 6 characters was padded to 20 and the source cut
    /// to make room for the padding.
    #[test]
    fn a_short_description_is_not_padded_to_cut_the_source() {
        let source = "custom a-very-long-directory-name-for-testing/skills";
        let n = source.chars().count();
        let layout = Layout::fit(70, 2, "DESCRIPTION".len(), n);
        assert_eq!((layout.desc, layout.src), (11, Some(n)));
        let row = layout.row("x", "Short.", source);
        assert!(row.trim_end().ends_with(source), "{row:?}");
        // Narrower still, the source is cut, the description still unpadded.
        let layout = Layout::fit(40, 2, 11, n);
        assert_eq!((layout.desc, layout.src), (11, Some(40 - 4 - 13)));
    }

    #[test]
    fn cut_keeps_short_text_and_marks_long() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("0123456789abc", 10), "012345678…");
        assert_eq!(cut("\n  first line\nsecond", 40), "first line");
    }
}
