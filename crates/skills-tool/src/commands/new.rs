//! `skills new NAME`: scaffold a skill where discovery finds it, which lints clean once its
//! description is written.

use std::path::{Path, PathBuf};

use skills_core::durable::{self, NEW_PREFIX};
use skills_discovery::{Roots, Scope};
use skills_frontmatter::SkillMd;

use crate::args::{Folder, NewArgs};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// How the description `skills new` writes starts: `skills lint` reports it
/// (`description-placeholder`) until the author writes a real one.
const PLACEHOLDER: &str = "TODO: say";

fn skill_md(name: &str, with: &[Folder]) -> String {
    let title: String = name
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        })
        .collect::<Vec<_>>()
        .join(" ");
    let mut steps = vec![
        "1. First step: say what to do, and how to tell it worked.".to_string(),
        "2. Next step. Keep each step one action.".to_string(),
    ];
    if with.contains(&Folder::Scripts) {
        steps.push(
            "3. Run `python3 scripts/example.py` from the skill directory and read its output."
                .to_string(),
        );
    }
    let mut resources = String::new();
    if with.contains(&Folder::References) {
        resources.push_str(
            "- Details that are not needed every time: [the reference](references/REFERENCE.md).\n",
        );
    }
    if with.contains(&Folder::Assets) {
        resources.push_str("- A starting point for the output: `assets/template.md`.\n");
    }
    if !resources.is_empty() {
        resources = format!("\n## Resources\n\n{resources}");
    }
    format!(
        "---\n\
name: {name}\n\
description: \"{PLACEHOLDER} what {title} does, then when to use it: Use when the user asks to ...\"\n\
---\n\
\n\
# {title}\n\
\n\
One or two sentences on what this skill is for. Agents read the description above to decide\n\
whether to load the skill, and this body once they have.\n\
\n\
## Instructions\n\
\n\
{steps}\n\
\n\
## Examples\n\
\n\
Input: a typical request.\n\
Output: what a good result looks like.\n\
\n\
## Edge cases\n\
\n\
- What to do when the input is missing or malformed.\n\
{resources}",
        steps = steps.join("\n"),
    )
}

/// The name checks of `skills lint`, run on the name alone.
fn check_name(name: &str) -> Result<(), miette::Report> {
    let probe = format!(
        "---\nname: \"{}\"\ndescription: Probe. Use when asked.\n---\nbody\n",
        name.replace('\\', "\\\\").replace('"', "\\\"")
    );
    let parsed =
        SkillMd::parse(probe.as_bytes()).map_err(|e| miette::Report::msg(e.to_string()))?;
    let mut errors: Vec<_> = parsed
        .validate(Some(name))
        .into_iter()
        .filter(|f| f.check.id().starts_with("name-") && f.check.id() != "name-non-ascii")
        .collect();
    // The invalid-characters finding suggests a name that fixes case too: show it first.
    errors.sort_by_key(|f| f.check.id() != "name-invalid-chars");
    match errors.first() {
        None => Ok(()),
        Some(f) => Err(miette::Report::new(
            miette::MietteDiagnostic::new(format!("invalid skill name: {}", f.message))
                .with_code(f.check.id())
                .with_help(f.help.clone().unwrap_or_else(|| {
                    "use lowercase letters, digits and single hyphens".to_string()
                })),
        )),
    }
}

fn create(root: &Path, name: &str, with: &[Folder]) -> std::io::Result<PathBuf> {
    let target = root.join(name);
    // Build beside the target and rename into place: no half-made skill is ever visible.
    let _ = durable::remove_stale(root, NEW_PREFIX);
    let tmp = tempfile::Builder::new()
        .prefix(&durable::temp_prefix(NEW_PREFIX))
        .tempdir_in(root)?;
    std::fs::write(tmp.path().join("SKILL.md"), skill_md(name, with))?;
    if with.contains(&Folder::Scripts) {
        let dir = tmp.path().join("scripts");
        std::fs::create_dir(&dir)?;
        let script = dir.join("example.py");
        std::fs::write(
            &script,
            "#!/usr/bin/env python3\n\"\"\"An example script: replace it with one the instructions run.\"\"\"\n\nprint(\"hello from the skill\")\n",
        )?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    if with.contains(&Folder::References) {
        let dir = tmp.path().join("references");
        std::fs::create_dir(&dir)?;
        std::fs::write(
            dir.join("REFERENCE.md"),
            "# Reference\n\nMaterial the agent reads only when a step needs it. Keep each file on one topic.\n",
        )?;
    }
    if with.contains(&Folder::Assets) {
        let dir = tmp.path().join("assets");
        std::fs::create_dir(&dir)?;
        std::fs::write(
            dir.join("template.md"),
            "# Title\n\nA template the skill's output starts from.\n",
        )?;
    }
    // On disk before it becomes visible; `rename` onto an existing non-empty directory
    // fails, so a race cannot overwrite one.
    durable::sync_tree(tmp.path())?;
    let made = tmp.keep();
    if let Err(e) = std::fs::rename(&made, &target) {
        let _ = std::fs::remove_dir_all(&made);
        return Err(e);
    }
    durable::sync_dir(root)?;
    Ok(target)
}

/// Where the skill goes: `--path`, else the first root `--skills-dir` (or `SKILLS_PATH`)
/// names, else the project's `.agents/skills` (the repository root's, else the current
/// directory's), the root `skills install` writes to: a root discovery searches.
fn parent_dir(args: &NewArgs, roots: &Roots) -> Result<PathBuf, Error> {
    if let Some(path) = &args.path {
        return Ok(path.clone());
    }
    if let Some(first) = roots.iter().find(|r| r.scope == Scope::Custom) {
        return Ok(first.path.clone());
    }
    Ok(crate::settings::project_root()?.join(".agents/skills"))
}

/// `path` as the messages show it: relative to the current directory (`..` where it is
/// above it) when the two share more than the file system root, else as it is.
fn shown(path: &Path) -> String {
    use std::path::Component;
    let Some((path, cwd)) = std::env::current_dir()
        .ok()
        .and_then(|cwd| Some((std::path::absolute(path).ok()?, cwd)))
    else {
        return render::path_str(path);
    };
    let (mut p, mut c) = (path.components().peekable(), cwd.components().peekable());
    let mut shared = 0;
    while let (Some(a), Some(b)) = (p.peek(), c.peek())
        && a == b
    {
        shared += usize::from(matches!(a, Component::Normal(_)));
        p.next();
        c.next();
    }
    if shared == 0 {
        return render::path_str(&path);
    }
    let mut rel = std::path::PathBuf::new();
    for _ in c {
        rel.push("..");
    }
    rel.extend(p);
    render::path_str(&rel)
}

/// Whether discovery searches `dir` for skills: one of `roots`, compared as absolute paths.
fn is_root(dir: &Path, roots: &Roots) -> bool {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let dir = absolute(dir);
    roots.iter().any(|r| absolute(&r.path) == dir)
}

pub(crate) fn run(args: &NewArgs, roots: &Roots, printer: &Printer) -> Result<ExitStatus, Error> {
    check_name(&args.name)?;
    let parent = parent_dir(args, roots)?;
    let target = parent.join(&args.name);
    if target.exists() {
        return Err(errors::plain(
            format!("{} already exists", target.display()),
            "choose another name or --path; `skills new` never overwrites",
        )
        .into());
    }
    std::fs::create_dir_all(&parent)
        .map_err(|e| errors::plain(format!("cannot create {}: {e}", parent.display()), ""))?;
    let dir = create(&parent, &args.name, &args.with).map_err(|e| {
        errors::plain(
            format!("cannot create {}: {e}", target.display()),
            "check that the directory is writable; nothing was left behind",
        )
    })?;
    // The path is the user's argument: shown, never obeyed, by the terminal.
    let made = crate::render::terminal_safe(&shown(&dir)).into_owned();
    printer.status(&format!(
        "created {made}\nnext: write its description in {made}/SKILL.md\n      \
         (`skills lint` reports the placeholder until you do)\n",
    ));
    if !is_root(&parent, roots) {
        let parent = crate::render::terminal_safe(&shown(&parent)).into_owned();
        printer.note(&format!(
            "`skills list` and `skills show` do not look in {parent}: move the skill to \
             .agents/skills/, or pass --skills-dir {parent}",
        ));
    }
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_like_lint_does() {
        assert!(check_name("pdf-processing").is_ok());
        for bad in ["PDF", "-pdf", "pdf--x", "pdf_x", "", "a/b", "..", "x\"y"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
