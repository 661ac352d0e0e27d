//! `--help` as a person reads it, over the clap definitions of `args.rs`: `skills --help`
//! lists the commands by what they are for (as cargo and uv group theirs) and the global
//! options once; a command's help names them in one line instead of listing them again.
//! Drawn at the width the rest of the output gets ([`crate::printer::width`]), at most
//! [`MAX_WIDTH`].

use std::fmt::Write as _;

use clap::CommandFactory as _;

use crate::args::Cli;

/// The widest help is drawn (lines longer than this are hard to read).
const MAX_WIDTH: usize = 100;

/// The commands of `skills --help`, by what a person is doing; a test holds it to the
/// commands there are (one a command not listed here would still be shown, under the
/// last group).
const GROUPS: &[(&str, &[&str])] = &[
    (
        "Writing skills",
        &["new", "lint", "package", "publish", "yank", "unpublish"],
    ),
    (
        "Installing skills",
        &[
            "add", "install", "sync", "check", "update", "remove", "search", "rate",
        ],
    ),
    (
        "Inspecting skills",
        &["list", "show", "audit", "doctor", "url"],
    ),
    (
        "Serving skills to agents",
        &["mcp", "instructions", "prompt", "registry"],
    ),
    ("Other", &["completions", "help"]),
];

/// The `skills` command as `run` parses it: with its help laid out for `width` columns,
/// in colour or not as `--color` says (`None`: clap asks the terminal and `NO_COLOR`).
pub(crate) fn command(width: usize, color: Option<bool>) -> clap::Command {
    let width = width.min(MAX_WIDTH);
    // `skills lint --version` is the version of `skills`, not of a "skills-lint".
    let mut cmd = Cli::command()
        .term_width(width)
        .mut_subcommands(|sub| sub.display_name("skills"));
    if let Some(color) = color {
        cmd = cmd.color(if color {
            clap::ColorChoice::Always
        } else {
            clap::ColorChoice::Never
        });
    }
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let footer = footer(&globals);
    for sub in cmd.get_subcommands_mut() {
        only_here(sub, &globals, &footer);
    }
    cmd.build();
    let template = format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{}{}\n{{options}}{{after-help}}",
        groups(&cmd, width),
        heading(&cmd, "Global options"),
    );
    cmd.help_template(template)
}

/// `NAME:` styled as clap styles its headings.
fn heading(cmd: &clap::Command, name: &str) -> String {
    let style = cmd.get_styles().get_header();
    format!("{}{name}:{}", style.render(), style.render_reset())
}

/// The line a command's help has instead of the global options: their flags, and where
/// they are explained.
fn footer(globals: &[clap::Arg]) -> String {
    let flags: Vec<String> = globals
        .iter()
        .filter_map(|a| {
            a.get_short()
                .map(|s| format!("-{s}"))
                .or_else(|| a.get_long().map(|l| format!("--{l}")))
        })
        .collect();
    let (last, first) = flags
        .split_last()
        .map_or(("", &[][..]), |(l, f)| (l.as_str(), f));
    format!(
        "Also takes {} and {last} (see `skills --help`).",
        first.join(", ")
    )
}

/// Gives `cmd` (and its subcommands) the global options hidden, before clap builds it:
/// they are taken there as everywhere (clap propagates a global option to a subcommand
/// by cloning it in, and leaves one the subcommand already has), and the footer names
/// them instead of a section of their own.
fn only_here(cmd: &mut clap::Command, globals: &[clap::Arg], footer: &str) {
    let mut owned = std::mem::take(cmd);
    for arg in globals {
        owned = owned.arg(arg.clone().hide(true));
    }
    let join = |text: Option<&clap::builder::StyledStr>| match text {
        Some(text) => format!("{}\n\n{footer}", text.ansi()),
        None => footer.to_string(),
    };
    let after = join(owned.get_after_help());
    let after_long = owned.get_after_long_help().map(|t| join(Some(t)));
    owned = owned.after_help(after);
    if let Some(long) = after_long {
        owned = owned.after_long_help(long);
    }
    for sub in owned.get_subcommands_mut() {
        only_here(sub, globals, footer);
    }
    *cmd = owned;
}

/// The commands of `cmd`, under the headings of [`GROUPS`], as clap lists commands: the
/// name, then the summary, wrapped to `width` beside the names.
fn groups(cmd: &clap::Command, width: usize) -> String {
    let visible: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let name_w = visible
        .iter()
        .map(|s| s.get_name().len())
        .max()
        .unwrap_or(0);
    let literal = cmd.get_styles().get_literal();
    let indent = 2 + name_w + 2;
    let options = textwrap::Options::new(width.saturating_sub(indent).max(20));
    let mut out = String::new();
    let last = GROUPS.len().saturating_sub(1);
    for (n, (title, names)) in GROUPS.iter().enumerate() {
        let mut members: Vec<&clap::Command> = names
            .iter()
            .filter_map(|name| visible.iter().copied().find(|s| s.get_name() == *name))
            .collect();
        if n == last {
            // Nothing is left out: a command no group names goes in the last.
            members.extend(
                visible
                    .iter()
                    .copied()
                    .filter(|s| !GROUPS.iter().any(|(_, g)| g.contains(&s.get_name()))),
            );
        }
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{}", heading(cmd, title));
        for sub in members {
            let name = sub.get_name();
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            let mut lines = textwrap::wrap(&about, &options).into_iter();
            let _ = writeln!(
                out,
                "  {}{name}{}{}  {}",
                literal.render(),
                literal.render_reset(),
                " ".repeat(name_w - name.len()),
                lines.next().unwrap_or_default()
            );
            for line in lines {
                let _ = writeln!(out, "{}{line}", " ".repeat(indent));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command is in one group of `skills --help`, and every name there is a command.
    #[test]
    fn the_groups_hold_every_command_once() {
        let mut cmd = Cli::command();
        cmd.build();
        let mut commands: Vec<&str> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(clap::Command::get_name)
            .collect();
        let mut grouped: Vec<&str> = GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        commands.sort_unstable();
        grouped.sort_unstable();
        assert_eq!(commands, grouped);
    }

    /// The global options are listed by `skills --help` alone, and taken everywhere.
    #[test]
    fn global_options_are_listed_once() {
        let mut cmd = command(100, Some(false));
        let top = cmd.render_long_help().to_string();
        assert!(top.contains("Global options:\n  -q, --quiet"), "{top}");
        for (name, help) in [
            (
                "lint",
                cmd.find_subcommand_mut("lint")
                    .map(|c| c.render_long_help()),
            ),
            (
                "mcp",
                cmd.find_subcommand_mut("mcp").map(|c| c.render_long_help()),
            ),
            (
                "list",
                cmd.find_subcommand_mut("list").map(|c| c.render_help()),
            ),
        ] {
            let help = help.unwrap().to_string();
            assert!(!help.contains("--quiet"), "{name}: {help}");
            assert!(!help.contains("Global options:"), "{name}: {help}");
            assert!(
                help.trim_end().ends_with(
                    "Also takes -q, -v, --color and --skills-dir (see `skills --help`)."
                ),
                "{name}: {help}"
            );
        }
        let matches = command(100, Some(false))
            .try_get_matches_from([
                "skills",
                "list",
                "--color",
                "never",
                "-q",
                "--skills-dir",
                "x",
            ])
            .unwrap();
        assert!(matches.get_flag("quiet"));
    }
}
