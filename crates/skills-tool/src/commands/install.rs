//! `skills install`: the safe reverse of `skills package`.
//!
//! Every source is staged in a temporary directory inside the destination root, linted, and
//! only then renamed into place, so a failed install leaves nothing behind.

use std::fs;
use std::path::{Path, PathBuf};

use skills_lint::{Config, Linter};

use crate::args::InstallArgs;
use crate::errors::{self, plain as error};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;
use crate::settings::project_root;
use crate::stage::{stage_source, staging_in};

pub(crate) fn run(args: &InstallArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let root = destination(args)?;
    let created = !root.exists();
    fs::create_dir_all(&root).map_err(|e| {
        error(
            format!(
                "{}: cannot create the skills directory: {e}",
                root.display()
            ),
            "pass a writable directory with --to",
        )
    })?;
    let result = install_into(args, printer, &root);
    // A failed install into a directory it created leaves no empty directory behind.
    if created && !matches!(result, Ok(ExitStatus::Success)) {
        let _ = fs::remove_dir(&root);
    }
    result
}

fn install_into(args: &InstallArgs, printer: &Printer, root: &Path) -> Result<ExitStatus, Error> {
    let root = root.to_path_buf();
    let staging = staging_in(&root)?;
    let id = stage(args, staging.path(), printer)?;
    let staged = staging.path().join(&id);

    // The destination project's `[lint]` settings say what an error is.
    let config = Config::discover(&root).map_err(errors::config)?;
    let mut report = Linter::new(config)
        .lint_paths(std::slice::from_ref(&staged))
        .map_err(|e| error(e.to_string(), "the staged skill could not be read"))?;
    // Findings name the skill where it is going, not the staging directory.
    let target = root.join(&id);
    crate::stage::rebase_report(&mut report, &staged, &|rest| target.join(rest));
    if report.errors() > 0 {
        printer.err(&render::human::report(printer.ui(), &report, false));
        if !args.allow_lint_errors {
            printer.err(&format!(
                "error: {id} not installed: the skill has lint errors (--allow-lint-errors installs it all the same)\n"
            ));
            return Ok(ExitStatus::Failure);
        }
        printer.warn(&format!(
            "{id} has {} lint error(s); installed as --allow-lint-errors asks\n",
            report.errors()
        ));
    }
    // The audit, before anything is moved: what it finds at or above high is refused unless
    // the user names it. The destination project's `[audit] allow` entries apply.
    let auditor = crate::risk::auditor(Some(&root))?;
    let risk = crate::risk::Risk {
        auditor: &auditor,
        allow: &args.risk.allow_risk,
        locked: None,
    };
    let shown = |path: &str| render::relative(&target.join(path));
    if let crate::risk::Verdict::Refused =
        crate::risk::check(&id, &staged, &root.join(&id), &shown, &risk, printer)?
    {
        return Ok(ExitStatus::Failure);
    }
    // The same skill again is done already: nothing to replace, nothing to refuse.
    let there = root.join(&id);
    if !args.force
        && there.is_dir()
        && skills_add::tree_hash(&there).ok() == skills_add::tree_hash(&staged).ok()
    {
        printer.out(&format!(
            "{id} is installed already, unchanged -> {}\n",
            render::path_str(&there)
        ))?;
        return Ok(ExitStatus::Success);
    }
    let target = skills_package::install_dir(&staged, &root, &id, args.force)
        .map_err(|e| errors::package(&e))?;
    drop(staging);
    printer.out(&format!(
        "installed {id} -> {}\n",
        render::path_str(&target)
    ))?;
    shadow_notice(&id, &target, printer);
    Ok(ExitStatus::Success)
}

/// `--to`, `--global`, or the project's `.agents/skills` (the repository root's, else the
/// current directory's).
fn destination(args: &InstallArgs) -> Result<PathBuf, miette::Report> {
    if let Some(to) = &args.to {
        return Ok(to.clone());
    }
    if args.global {
        let home = std::env::home_dir()
            .filter(|h| !h.as_os_str().is_empty())
            .ok_or_else(|| {
                error(
                    "no home directory".to_string(),
                    "set HOME, or pass --to DIR",
                )
            })?;
        return Ok(home.join(".agents/skills"));
    }
    Ok(project_root()?.join(".agents/skills"))
}

/// Puts the skill from the source into `staging/<id>` and returns the id.
///
/// The id becomes a folder beside the user's other skills (and `--force` replaces what is
/// there), so it must be a skill name: an archive's top folder could be `.git` or `..x`.
fn stage(args: &InstallArgs, staging: &Path, printer: &Printer) -> Result<String, miette::Report> {
    let id = stage_source(&args.source, &args.download, staging, printer)?.id;
    if !skills_frontmatter::is_valid_name(&id) || !id.is_ascii() {
        return Err(error(
            format!(
                "{}: `{}` is not a skill name, so it cannot be the skill's folder; nothing was installed",
                render::terminal_safe(&args.source),
                render::terminal_safe(&id)
            ),
            "name the archive's top folder (or the skill's directory) after the skill: lowercase letters, digits and single hyphens, as its `name`",
        ));
    }
    Ok(id)
}

/// Warns when the skill just installed is not the one agents will load: another skill of
/// its name in a root of higher priority (the project's, say, over `--global`) comes first.
fn shadow_notice(id: &str, target: &Path, printer: &Printer) {
    let index = skills_discovery::Index::scan(&skills_discovery::Roots::from_env(&[]));
    let real = |dir: &Path| fs::canonicalize(dir).ok();
    let here = real(target);
    let Some(winner) = index.get(id) else {
        return;
    };
    if real(&winner.dir) == here {
        return;
    }
    if index.all().any(|s| real(&s.dir) == here) {
        printer.warn(&format!(
            "{id} is shadowed: {} comes first, so agents load that one (`skills list --all` shows both)\n",
            render::relative(&winner.skill_md)
        ));
    }
}
