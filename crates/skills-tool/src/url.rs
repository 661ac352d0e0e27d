//! `skills url`.

use clap::{Args, ValueEnum};
use serde::Serialize;
use skills_url::{Translation, UrlError};

use crate::{Status, Ui, emit, fail};

/// `skills url URL [--format text|json]` (wired into `cli::Command` as `Url`).
#[derive(Debug, Args)]
pub(crate) struct UrlArgs {
    /// A GitHub, GitHub Enterprise, GitLab, Bitbucket or gist URL of a SKILL.md (blob) or of
    /// a skill directory (tree); raw URLs and other hosts are printed unchanged.
    pub(crate) url: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = UrlFormat::Text)]
    pub(crate) format: UrlFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UrlFormat {
    /// The raw URL alone.
    Text,
    /// input, raw, repository, host, reference, path and trusted (docs/url.md).
    Json,
}

/// The `--format json` document (described in docs/url.md).
#[derive(Serialize)]
struct Document<'a> {
    input: &'a str,
    raw: &'a str,
    repository: Option<&'a str>,
    host: &'a str,
    reference: Option<&'a str>,
    path: Option<&'a str>,
    trusted: bool,
}

pub(crate) fn run(args: &UrlArgs, ui: Ui) -> Status {
    let t = match skills_url::to_raw(&args.url) {
        Ok(t) => t,
        Err(e) => return fail(ui, report(&e)),
    };
    let text = match args.format {
        UrlFormat::Text => format!("{}\n", t.raw),
        UrlFormat::Json => json(&t),
    };
    match emit(&text) {
        Ok(()) | Err(Status::Success) => Status::Success,
        Err(s) => s,
    }
}

fn json(t: &Translation) -> String {
    let doc = Document {
        input: &t.input,
        raw: &t.raw,
        repository: t.repository.as_deref(),
        host: t.host.as_str(),
        reference: t.reference.as_deref(),
        path: t.path.as_deref(),
        trusted: skills_url::is_trusted(&t.raw, &[]),
    };
    serde_json::to_string_pretty(&doc)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
}

/// The error with its help line, and a label under the offending character when there is one.
fn report(e: &UrlError) -> miette::Report {
    let mut d =
        miette::MietteDiagnostic::new(format!("cannot translate the URL: {e}")).with_help(e.help());
    if let Some(offset) = e.offset() {
        let len = e
            .input()
            .get(offset..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8);
        let (code, span) = crate::render::snippet::Snippet::new(
            String::new(),
            e.input(),
            offset..offset + len,
            None,
        );
        d = d.with_label(miette::LabeledSpan::at(span, "here"));
        return miette::Report::new(d).with_source_code(code);
    }
    miette::Report::new(d)
}
