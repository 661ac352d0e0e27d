//! Renderers for lint reports: human (miette), JSON, GitHub annotations, SARIF.

pub(crate) mod github;
pub(crate) mod human;
pub(crate) mod json;
pub(crate) mod sarif;

use skills_lint::ConfigError;

/// A path as printed: `/`-separated on every platform, so output and snapshots agree.
pub(crate) fn path_str(path: &std::path::Path) -> String {
    let s = path.to_string_lossy();
    let s = s.strip_prefix("./").unwrap_or(&s);
    s.replace('\\', "/")
}

/// `path` relative to the current directory when it is below it, as other paths are shown.
fn relative(path: &std::path::Path) -> String {
    let rel = std::env::current_dir().ok().and_then(|cwd| {
        path.strip_prefix(cwd)
            .ok()
            .map(std::path::Path::to_path_buf)
    });
    path_str(rel.as_deref().unwrap_or(path))
}

/// A bad `skills.toml` (or a bad rule id in the flags), as a report with the source.
pub(crate) fn config_error(e: ConfigError) -> miette::Report {
    match e {
        ConfigError::Parse {
            path,
            message,
            span,
            text,
        } => {
            let mut d = miette::MietteDiagnostic::new(format!("invalid {}: {message}", relative(&path)))
                .with_help("the [lint] table takes `strict = true|false` and `deny`, `warn`, `allow` lists of rule ids");
            if let Some(span) = span {
                d = d.with_label(miette::LabeledSpan::at(span, "here"));
            }
            miette::Report::new(d).with_source_code(miette::NamedSource::new(relative(&path), text))
        }
        other => {
            let help = match &other {
                ConfigError::UnknownRule { .. } => {
                    "rule ids are listed by `skills lint --explain RULE` and in docs/lint-rules.md"
                }
                _ => "check the file",
            };
            miette::Report::new(miette::MietteDiagnostic::new(other.to_string()).with_help(help))
        }
    }
}
