//! `skills url`.

use serde::Serialize;
use skills_url::Translation;

use crate::args::{UrlArgs, UrlFormat};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;

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

pub(crate) fn run(args: &UrlArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let t = skills_url::to_raw(&args.url).map_err(|e| errors::url(&e))?;
    let text = match args.format {
        UrlFormat::Text => format!("{}\n", t.raw),
        UrlFormat::Json => json(&t),
    };
    printer.out(&text)?;
    Ok(ExitStatus::Success)
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
