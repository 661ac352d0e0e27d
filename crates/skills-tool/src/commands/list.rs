//! `skills list`.

use std::borrow::Cow;
use std::path::Path;

use serde::Serialize;
use skills_discovery::{Index, Roots, Skill, Warning};

use crate::args::{ListArgs, ListFormat};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render::{self, cells, display_path};

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

/// What the SOURCE column says of a skill: where its root is, and, for what `skills add`
/// installed, where it came from and the agents it is linked into.
struct Source {
    /// `SCOPE ROOT`.
    root: String,
    /// ` <- SOURCE -> AGENTS` for what `skills add` installed, else empty.
    via: String,
}

/// The fewest columns of [`Source::via`] worth showing once cut.
const MIN_VIA: usize = 10;

impl Source {
    fn width(&self) -> usize {
        cells::width(&self.root) + cells::width(&self.via)
    }

    /// The source in `columns`: whole when it fits; else the root first and the end of
    /// what `skills add` recorded cut, when enough of it shows; else the root alone, cut
    /// from its start (the end of a path says more).
    fn cut(&self, columns: usize) -> std::borrow::Cow<'_, str> {
        if self.via.is_empty() {
            return cells::cut_start(&self.root, columns);
        }
        if cells::width(&self.root) + MIN_VIA <= columns {
            return std::borrow::Cow::Owned(
                cells::cut_end(&format!("{}{}", self.root, self.via), columns).into_owned(),
            );
        }
        cells::cut_start(&self.root, columns)
    }
}

fn table(
    index: &Index,
    skills: &[&Skill],
    installed: &Installed,
    all: bool,
    width: usize,
) -> String {
    let source = |s: &Skill| Source {
        root: format!("{} {}", s.scope, display_path(&s.root)),
        via: match installed.get(&s.dir) {
            None => String::new(),
            Some(l) if l.agents.is_empty() => format!(" <- {}", l.source),
            Some(l) => format!(" <- {} -> {}", l.source, l.agents.join(", ")),
        },
    };
    let mut rows: Vec<(String, String, Source)> = skills
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
                Source {
                    root: format!("{} {}", s.scope, display_path(&s.root)),
                    via: String::new(),
                },
            )
        }));
    }
    // Names and descriptions are anyone's text: no escape sequence reaches the terminal
    // (escaped before the columns are measured), and a cell is one line.
    for row in &mut rows {
        for cell in [&mut row.0, &mut row.1, &mut row.2.root] {
            let line = cells::one_line(&render::terminal_safe(cell)).into_owned();
            *cell = line;
        }
        // (Trimmed, it would lose the space it starts with.)
        let via = render::terminal_safe(&row.2.via).replace(['\n', '\t'], " ");
        row.2.via = via;
    }
    let id_w = rows
        .iter()
        .map(|r| cells::width(&r.0))
        .max()
        .unwrap_or(2)
        .clamp(2, 40)
        .min(width / 3);
    let src_w = rows
        .iter()
        .map(|r| r.2.width())
        .max()
        .unwrap_or(6)
        .max("SOURCE".len());
    let desc_w = rows
        .iter()
        .map(|r| cells::width(&r.1))
        .max()
        .unwrap_or(11)
        .max("DESCRIPTION".len());
    let layout = Layout::fit(width, id_w, desc_w, src_w);
    let header = Source {
        root: "SOURCE".to_string(),
        via: String::new(),
    };
    let mut out = layout.row("ID", "DESCRIPTION", &header);
    for (id, desc, src) in rows {
        out.push_str(&layout.row(&id, &desc, &src));
    }
    out
}

/// The widths of the columns, in terminal cells, so that no line is wider than the
/// terminal (as `ls` keeps to it). The description is what a reader reads, so it comes
/// first: when the description and the source do not both fit whole beside the ID, the
/// source stays whole if it takes at most half the room, and otherwise gets what the
/// longest description leaves, or a third of the room if that is more, and is cut (a root
/// from its start: `…/.agents/skills`); when that leaves less than [`MIN_DESC`] columns of
/// description or [`MIN_SRC`] of source, the source is left out. The description is never
/// padded past its longest line.
struct Layout {
    id: usize,
    desc: usize,
    /// `None`: no source column.
    src: Option<usize>,
}

/// The narrowest description column shown beside a source.
const MIN_DESC: usize = 20;
/// The narrowest source column worth showing (`project …/skills`).
const MIN_SRC: usize = 12;

impl Layout {
    /// `desc` and `src` are the widest description and source of the rows.
    fn fit(width: usize, id: usize, desc: usize, src: usize) -> Self {
        // Two spaces between columns.
        let left = width.saturating_sub(id + 2);
        if desc + 2 + src <= left {
            return Self {
                id,
                desc,
                src: Some(src),
            };
        }
        let room = left.saturating_sub(2);
        let src_w = if src <= room / 2 {
            src
        } else {
            src.min((room / 3).max(room.saturating_sub(desc)))
        };
        let desc_w = room - src_w;
        // A description shorter than MIN_DESC is not padded to it at the source's cost.
        if desc_w >= MIN_DESC.min(desc) && src_w >= MIN_SRC {
            return Self {
                id,
                desc: desc_w,
                src: Some(src_w),
            };
        }
        Self {
            id,
            desc: left.max(1),
            src: None,
        }
    }

    fn row(&self, id: &str, desc: &str, src: &Source) -> String {
        let id = cells::pad(&cells::cut_end(id, self.id), self.id);
        let desc = cells::cut_end(desc, self.desc);
        match self.src {
            Some(src_w) => format!(
                "{id}  {}  {}\n",
                cells::pad(&desc, self.desc),
                src.cut(src_w)
            ),
            None => format!("{}\n", format!("{id}  {desc}").trim_end()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, Source, cells};

    fn root(text: &str) -> Source {
        Source {
            root: text.to_string(),
            via: String::new(),
        }
    }

    #[test]
    fn no_row_is_wider_than_the_terminal() {
        let source = root("project /home/someone/work/a-rather-long-project/.agents/skills");
        let installed = Source {
            root: "project .agents/skills".to_string(),
            via: " <- anthropics/skills -> claude-code, cursor, goose".to_string(),
        };
        for width in 20..=200 {
            for src in [&source, &installed] {
                for desc in [
                    "Does a great many things. Use when the user asks for any of them.",
                    "PDFのフォームに記入し、表とテキストを抽出します。PDFが送られたときに使います。",
                ] {
                    let layout =
                        Layout::fit(width, 22.min(width / 3), cells::width(desc), src.width());
                    for row in [
                        layout.row("ID", "DESCRIPTION", &root("SOURCE")),
                        layout.row("a-skill-with-a-long-id", desc, src),
                    ] {
                        let w = cells::width(row.trim_end());
                        assert!(w <= width, "width {width}: {w} columns: {row:?}");
                    }
                }
            }
        }
    }

    /// At 160 columns the description was cut to 20 columns while the source of an
    /// installed skill took the rest: the description comes first now, the source gets a
    /// third of the room, and is never padded past its longest line.
    #[test]
    fn the_description_gets_the_room() {
        let installed = Source {
            root: "project .agents/skills".to_string(),
            via: format!(
                " <- github.com/someone/skills -> {}",
                ["claude-code", "cursor", "goose", "windsurf", "roo"].join(", ")
            ),
        };
        let long = 300;
        let layout = Layout::fit(160, 20, long, installed.width());
        // 160 - 20 - 2 - 2 = 136: a third for the source, the rest for the description.
        assert_eq!((layout.desc, layout.src), (91, Some(45)));
        let row = layout.row("pdf", "Fills PDF forms.", &installed);
        assert!(
            row.ends_with("  project .agents/skills <- github.com/someone…\n"),
            "{row:?}"
        );
        // A short source is whole, and the description takes the rest.
        let src = root("project .agents/skills");
        let layout = Layout::fit(100, 14, long, src.width());
        assert_eq!((layout.desc, layout.src), (60, Some(22)));
        // A source that takes at most half the room stays whole ("custom skills/skills"
        // cut to "…m skills/skills" saved four columns).
        let layout = Layout::fit(80, 28, long, 20);
        assert_eq!((layout.desc, layout.src), (28, Some(20)));
        // A short description is not padded: the source keeps what it leaves.
        let layout = Layout::fit(160, 20, 40, installed.width());
        assert_eq!((layout.desc, layout.src), (40, Some(96)));
        // Narrow: the source is cut from its start, then left out.
        let layout = Layout::fit(60, 14, long, src.width());
        assert_eq!((layout.desc, layout.src), (28, Some(14)));
        assert!(layout.row("x", "d", &src).ends_with("  …agents/skills\n"));
        // What `skills add` recorded is cut at its end, or left out when little of it
        // would show: the root comes first.
        assert_eq!(
            installed.cut(40),
            "project .agents/skills <- github.com/so…"
        );
        assert_eq!(installed.cut(32), "project .agents/skills <- githu…");
        assert_eq!(installed.cut(31), "project .agents/skills");
        assert_eq!(installed.cut(14), "…agents/skills");
        let layout = Layout::fit(40, 13, long, src.width());
        assert_eq!((layout.desc, layout.src), (25, None));
    }

    /// At 40 columns a description of 11 columns was padded to 20, and the source cut (or
    /// left out) to make room for the padding.
    #[test]
    fn a_short_description_is_not_padded_to_cut_the_source() {
        let src = root("custom a-very-long-directory-name-for-testing/skills");
        let n = src.width();
        let layout = Layout::fit(70, 2, "DESCRIPTION".len(), n);
        assert_eq!((layout.desc, layout.src), (11, Some(n)));
        let layout = Layout::fit(40, 2, 11, n);
        assert_eq!((layout.desc, layout.src), (11, Some(40 - 4 - 13)));
    }
}
