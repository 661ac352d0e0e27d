//! `skills completions` and `skills man`: generated from the clap definitions in `args.rs`,
//! so they can never disagree with `--help`.

use std::path::Path;

use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// The whole command line, as clap builds it, without the `help` subcommand (`--help`
/// already says everything, and it would get a completion and a page of its own).
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// `cmd` without its hidden subcommands (`man`, for packagers): completion scripts offer
/// every subcommand they are given, hidden or not.
fn without_hidden(cmd: &clap::Command) -> clap::Command {
    let mut visible = clap::Command::new("skills")
        .disable_help_subcommand(true)
        .version(env!("SKILLS_VERSION"));
    for arg in cmd.get_arguments() {
        visible = visible.arg(arg.clone());
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        visible = visible.subcommand(sub.clone());
    }
    visible.build();
    visible
}

pub(crate) fn completions(args: &CompletionsArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    // From the definitions before clap adds `--help` and `--version` (`build` adds them).
    let mut cmd = without_hidden(&Cli::command());
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "skills", &mut out);
    printer.out(&String::from_utf8_lossy(&out))?;
    Ok(ExitStatus::Success)
}

pub(crate) fn man(args: &ManArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let cmd = command();
    let Some(dir) = &args.out else {
        let text =
            page(&cmd).map_err(|e| errors::plain(format!("cannot render skills.1: {e}"), ""))?;
        printer.out(&text)?;
        return Ok(ExitStatus::Success);
    };
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, &e))?;
    let mut written = Vec::new();
    write_pages(&cmd, dir, &mut written)?;
    if !printer.ui().quiet() {
        let mut text = String::new();
        for path in &written {
            text.push_str(&format!("wrote {}\n", render::path_str(path)));
        }
        printer.out(&text)?;
    }
    Ok(ExitStatus::Success)
}

/// One page for `cmd` and one for each of its visible subcommands, depth first.
fn write_pages(
    cmd: &clap::Command,
    dir: &Path,
    written: &mut Vec<std::path::PathBuf>,
) -> Result<(), miette::Report> {
    let man = clap_mangen::Man::new(cmd.clone());
    let path = dir.join(man.get_filename());
    let text = page(cmd).map_err(|e| write_error(&path, &e))?;
    skills_core::durable::write_atomically(&path, text.as_bytes())
        .map_err(|e| write_error(&path, &e))?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    Ok(())
}

/// The roff source of `cmd`'s page.
pub(crate) fn page(cmd: &clap::Command) -> std::io::Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .source(format!("skills {}", env!("SKILLS_VERSION")))
        .manual("skills manual")
        .render(&mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn write_error(path: &Path, e: &std::io::Error) -> miette::Report {
    errors::plain(
        format!("cannot write {}: {e}", path.display()),
        "pass a writable directory with --out",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The visible commands, as the user types them.
    fn visible(cmd: &clap::Command) -> Vec<String> {
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect()
    }

    #[test]
    fn every_page_has_the_standard_sections() {
        let cmd = command();
        let names = visible(&cmd);
        assert!(names.contains(&"lint".to_string()) && names.contains(&"completions".to_string()));
        assert!(!names.contains(&"man".to_string()), "man is for packagers");
        let main = page(&cmd).unwrap();
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS"] {
            assert!(main.contains(section), "skills.1 lacks {section}");
        }
        for name in &names {
            assert!(
                main.contains(&format!("skills\\-{name}(1)")),
                "skills.1 lacks {name}"
            );
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let text = page(sub).unwrap();
            let title = format!("\n.TH skills-{} 1 ", sub.get_name());
            assert!(text.contains(&title), "{title}: {}", &text[..120]);
            assert!(text.contains(&format!("\"skills {}\"", env!("SKILLS_VERSION"))));
            assert!(text.contains(".SH SYNOPSIS"));
        }
    }
}
