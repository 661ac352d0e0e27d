//! Every error of the command itself as the user reads it: the message and the help line
//! that says how to fix it. The help texts live here, in one place, so the same library
//! error reads the same in every command.

use skills_core::durable::TargetError;
use skills_lint::{ConfigError, LintError};
use skills_package::PackageError;
use skills_prompt::PromptError;
use skills_url::UrlError;

use crate::render::{self, snippet::Snippet};

/// A message and its help.
pub(crate) fn plain(message: impl Into<String>, help: impl Into<String>) -> miette::Report {
    // Messages quote paths, arguments and what files say: shown, never obeyed, by a
    // terminal (`skills url $'\e]0;x\a'` set the window's title).
    let help = crate::render::terminal_safe(&help.into()).into_owned();
    let message = crate::render::terminal_safe(&message.into()).into_owned();
    let mut d = miette::MietteDiagnostic::new(message);
    if !help.is_empty() {
        d = d.with_help(help);
    }
    miette::Report::new(d)
}

/// A packaging or installing error, with its fix where the message does not already say it.
pub(crate) fn package(e: &PackageError) -> miette::Report {
    let help = match e {
        PackageError::SymlinkEscape { .. }
        | PackageError::SymlinkLoop { .. }
        | PackageError::SymlinkCycle { .. } => {
            "a skill must be self-contained: packages and installs never follow links out of it"
        }
        PackageError::Io { .. } | PackageError::Zip { .. } => {
            "check that the paths exist and are readable and writable"
        }
        _ => "see docs/package.md",
    };
    plain(e.to_string(), help)
}

/// A prompt error with its help line (the library's, which the `skills-mcp` binary prints
/// too).
pub(crate) fn prompt(e: &PromptError) -> miette::Report {
    plain(e.to_string(), e.help())
}

/// A lint run that could not start on its paths.
pub(crate) fn lint(e: &LintError) -> miette::Report {
    let help = match e {
        LintError::NotFound { .. } => {
            "check the path; `skills lint` with no path lints the current directory"
        }
        LintError::NotASkill { .. } => {
            "pass a skill directory, a SKILL.md file, a flat NAME.md skill, or a directory that \
             contains skills (README.md, AGENTS.md, CLAUDE.md, LICENSE.md and CHANGELOG.md are \
             documentation, never skills)"
        }
        _ => "check that the path is readable",
    };
    plain(e.to_string(), help)
}

/// `--explain` of a rule that does not exist.
pub(crate) fn unknown_rule(id: &str) -> miette::Report {
    plain(
        format!("unknown rule `{id}`"),
        match skills_lint::suggest(id) {
            Some(s) => format!("did you mean `{s}`? `skills lint --rules` lists every rule id"),
            None => "`skills lint --rules` lists every rule id".to_string(),
        },
    )
}

/// A skill that was found but cannot be read or shown.
pub(crate) fn unreadable_skill(
    skill: &skills_discovery::Skill,
    e: &dyn std::fmt::Display,
) -> miette::Report {
    plain(
        format!("cannot show `{}`: {e}", skill.id),
        format!(
            "`skills lint {}` explains what is wrong",
            render::display_path(&skill.dir)
        ),
    )
}

/// How to go on when `--write` refuses its target.
pub(crate) fn target_help(e: &TargetError) -> String {
    match e {
        TargetError::NotRegular { .. } => {
            "--write only updates regular files; print to stdout instead and redirect it".into()
        }
        TargetError::ReadOnly { path, .. } => format!(
            "it was left unchanged; make it writable first (chmod u+w {}) if it should be updated",
            path.display()
        ),
        TargetError::HardLinked { .. } => "it was left unchanged: writing a new file would split the names \
             (the others would keep the old text); update a copy and move it over, or remove the other links"
            .into(),
        TargetError::Io { .. } => "check that the path is readable; nothing was written".into(),
        _ => "nothing was written".into(),
    }
}

/// A URL that cannot be translated, with a label under the offending character when there
/// is one.
pub(crate) fn url(e: &UrlError) -> miette::Report {
    let mut d = miette::MietteDiagnostic::new(
        crate::render::terminal_safe(&format!("cannot translate the URL: {e}")).into_owned(),
    )
    .with_help(crate::render::terminal_safe(e.help()).into_owned());
    if let Some(offset) = e.offset() {
        let len = e
            .input()
            .get(offset..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8);
        let (code, span) = Snippet::new(String::new(), e.input(), offset..offset + len, None, None);
        d = d.with_label(miette::LabeledSpan::at(span, "here"));
        return miette::Report::new(d).with_source_code(code);
    }
    miette::Report::new(d)
}

/// A bad `skills.toml` (or a bad rule id in the flags), as a report with the source.
pub(crate) fn config(e: ConfigError) -> miette::Report {
    match e {
        ConfigError::Parse {
            path,
            message,
            span,
            text,
        } => {
            let name = render::relative(&path);
            let mut d = miette::MietteDiagnostic::new(format!("invalid {name}: {message}"))
                .with_help("the [lint] table takes `strict = true|false`, `profile = \"spec\"|\"claude-code\"` and `deny`, `warn`, `allow` lists of rule ids");
            let Some(span) = span else {
                return miette::Report::new(d);
            };
            let (code, span) = Snippet::new(name, &text, span, None, None);
            d = d.with_label(miette::LabeledSpan::at(span, "here"));
            miette::Report::new(d).with_source_code(code)
        }
        ConfigError::UnknownRuleIn {
            path,
            id,
            suggestion,
            span,
            text,
        } => {
            let name = render::relative(&path);
            let shown = ConfigError::UnknownRule {
                id: id.clone(),
                suggestion,
            };
            let mut d = miette::MietteDiagnostic::new(format!("{name}: {shown}")).with_help(
                match suggestion {
                    Some(s) => format!("write `{s}`; `skills lint --rules` lists every rule id"),
                    None => "`skills lint --rules` lists every rule id".to_string(),
                },
            );
            let (code, span) = Snippet::new(name, &text, span, None, None);
            d = d.with_label(miette::LabeledSpan::at(span, "not a rule"));
            miette::Report::new(d).with_source_code(code)
        }
        other => {
            let help = match &other {
                ConfigError::UnknownRule { .. } => "`skills lint --rules` lists every rule id",
                _ => "check the file",
            };
            miette::Report::new(miette::MietteDiagnostic::new(other.to_string()).with_help(help))
        }
    }
}
