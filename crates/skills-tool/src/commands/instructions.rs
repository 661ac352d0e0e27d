//! `skills instructions`: the usage guide for agents, optionally with the skills catalog,
//! printed or written into a file such as `AGENTS.md`.

use std::path::{Component, Path, PathBuf};

use skills_core::{ReadError, durable};
use skills_discovery::{Index, Roots};
use skills_export::Block;

use crate::args::InstructionsArgs;
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

pub(crate) fn run(
    args: &InstructionsArgs,
    roots: &Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let guide = skills_export::instructions(!args.no_xml);
    let catalog = match (args.catalog, &args.write) {
        (false, _) => String::new(),
        (true, None) => render::skills::catalog(&Index::scan(roots)),
        (true, Some(file)) => catalog_for(file, &Index::scan(roots)),
    };
    let Some(file) = &args.write else {
        let mut text = guide;
        if !catalog.is_empty() {
            text.push('\n');
            text.push_str(&catalog);
        }
        printer.out(&text)?;
        return Ok(ExitStatus::Success);
    };
    let changed = update(file, &guide, args.catalog.then_some(catalog.as_str()))?;
    printer.status(&if changed {
        format!("updated {}\n", file.display())
    } else {
        format!("{} is up to date\n", file.display())
    });
    Ok(ExitStatus::Success)
}

/// The largest file `--write` reads: an instructions file is a page of text, not a data set.
const MAX_FILE: u64 = 16 << 20;

/// Updates `file`'s instructions block (and its catalog block, when `catalog` is given: an
/// empty one removes it). Says whether the file changed; writes nothing on any error.
fn update(file: &Path, guide: &str, catalog: Option<&str>) -> Result<bool, miette::Report> {
    let refuse = |message: String, help: String| errors::plain(message, help);
    durable::check_target(file).map_err(|e| refuse(e.to_string(), errors::target_help(&e)))?;
    let existing = match skills_core::read_bounded(file, MAX_FILE) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            refuse(
                format!("{} is not UTF-8 text", file.display()),
                "--write only edits text files; print with `skills instructions` and paste instead"
                    .into(),
            )
        })?,
        Err(ReadError::TooLarge { size, .. }) => {
            return Err(refuse(
                format!(
                    "{} is {size} bytes; --write reads files up to {MAX_FILE} bytes",
                    file.display(),
                ),
                "print with `skills instructions` and paste the block instead".into(),
            ));
        }
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(refuse(
                format!("cannot read {}: {e}", file.display()),
                IO_HELP.into(),
            ));
        }
    };
    let mut updates = vec![(Block::Instructions, Some(guide))];
    if let Some(catalog) = catalog {
        updates.push((Block::Catalog, Some(catalog).filter(|c| !c.is_empty())));
    }
    let updated = skills_export::update_blocks(&existing, &updates).map_err(|e| {
        let name = render::path_str(file);
        let (code, span) =
            render::snippet::Snippet::new(name, &existing, e.span.clone(), Some(1), None);
        let message = format!("{}: {e}; nothing was written", file.display());
        miette::Report::new(
            miette::MietteDiagnostic::new(message)
                .with_help(format!(
                    "{}; skills only replaces the text between its `<!-- skills:begin ... -->` and \
                     `<!-- skills:end ... -->` lines (lines inside code blocks do not count)",
                    e.help()
                ))
                .with_label(miette::LabeledSpan::at(span, "this marker")),
        )
        .with_source_code(code)
    })?;
    if updated == existing {
        return Ok(false);
    }
    durable::write_atomically(file, updated.as_bytes()).map_err(|e| {
        refuse(
            format!("cannot write {}: {e}", file.display()),
            IO_HELP.into(),
        )
    })?;
    Ok(true)
}

const IO_HELP: &str = "check that the directory exists and is writable; the file was not changed";

/// The catalog as written into `file`, a file meant to be committed: each `<location>` is
/// relative to the file's directory when the skill is in the same project (the file's git
/// repository, or its directory outside one), `~/…` when it is under the home directory
/// (where each reader has their own), and absolute only otherwise. An absolute path would
/// put one person's home into everyone's copy, and be wrong on every other machine.
fn catalog_for(file: &Path, index: &Index) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let base = lexical(&cwd.join(file));
    let base = base.parent().unwrap_or(&base);
    let home = std::env::home_dir()
        .filter(|h| h.is_absolute())
        .map(|h| lexical(&h));
    let project = project_of(base);
    let locations: Vec<String> = index
        .skills()
        .iter()
        .map(|s| {
            location(
                &lexical(&cwd.join(&s.skill_md)),
                base,
                &project,
                home.as_deref(),
            )
        })
        .collect();
    crate::render::skills::catalog_at(index, &locations)
}

/// The directory whose skills are the file's own: the nearest ancestor of `dir` (itself
/// included) holding `.git`, or `dir`.
fn project_of(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .unwrap_or(dir)
        .to_path_buf()
}

/// Where `skill_md` is, as seen from `base` (all paths absolute and lexical): relative
/// inside `project`, `~/…` under `home`, else absolute; `/`-separated.
fn location(skill_md: &Path, base: &Path, project: &Path, home: Option<&Path>) -> String {
    let slashed = |p: &Path| {
        p.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    };
    if skill_md.starts_with(project) {
        let shared = base
            .components()
            .zip(skill_md.components())
            .take_while(|(a, b)| a == b)
            .count();
        let ups = base.components().count().saturating_sub(shared);
        let mut parts: Vec<String> = vec!["..".to_string(); ups];
        parts.extend(
            skill_md
                .components()
                .skip(shared)
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        );
        return parts.join("/");
    }
    if let Some(rest) = home.and_then(|h| skill_md.strip_prefix(h).ok()) {
        return format!("~/{}", slashed(rest));
    }
    skill_md.to_string_lossy().into_owned()
}

/// `path` with `.` dropped and `..` taken out lexically (the file may not exist yet).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn locations_are_relative_inside_the_project_and_tilde_at_home() {
        let home = Path::new("/home/me");
        let project = Path::new("/home/me/work/app");
        let at = |skill: &str, base: &str| {
            location(Path::new(skill), Path::new(base), project, Some(home))
        };
        let md = "/home/me/work/app/.agents/skills/pdf/SKILL.md";
        assert_eq!(at(md, "/home/me/work/app"), ".agents/skills/pdf/SKILL.md");
        // A file in a subdirectory of the project climbs to the skills of its root.
        assert_eq!(
            at(md, "/home/me/work/app/docs"),
            "../.agents/skills/pdf/SKILL.md"
        );
        // The user's own skills: wherever each reader's home is.
        assert_eq!(
            at("/home/me/.agents/skills/git/SKILL.md", "/home/me/work/app"),
            "~/.agents/skills/git/SKILL.md"
        );
        // Neither: nothing better than the path itself.
        assert_eq!(
            at("/opt/skills/x/SKILL.md", "/home/me/work/app"),
            "/opt/skills/x/SKILL.md"
        );
        assert_eq!(
            lexical(Path::new("/a/./b/../c/SKILL.md")),
            Path::new("/a/c/SKILL.md")
        );
    }
}
