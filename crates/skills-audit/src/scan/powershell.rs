//! PowerShell has no grammar here: its download-and-run idioms are read from the text of
//! each statement (`iex (iwr …)`, `Invoke-Expression (New-Object Net.WebClient).DownloadString(…)`,
//! `irm … | iex`).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::FileCtx;
use super::installers;
use crate::{RuleId, Severity};

#[allow(clippy::unwrap_used)] // A constant pattern; the test compiles it.
static EXEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:iex|invoke-expression)(?-u:\b)|\|\s*iex(?-u:\b)|&\s*\(\s*\[scriptblock\]::create")
        .unwrap()
});
#[allow(clippy::unwrap_used)]
static FETCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:iwr|irm|curl|wget|invoke-webrequest|invoke-restmethod)(?-u:\b)|downloadstring|downloadfile|net\.webclient").unwrap()
});
#[allow(clippy::unwrap_used)]
static DECODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)frombase64string|-enc(?:odedcommand)?\s+[A-Za-z0-9+/=]{20,}").unwrap()
});

pub(crate) fn scan(ctx: &mut FileCtx<'_>, range: Range<usize>) {
    let Some(src) = ctx.text.get(range.clone()) else {
        return;
    };
    let mut offset = range.start;
    for line in src.split_inclusive(['\n', ';']) {
        let span = offset..offset + line.trim_end().len();
        offset += line.len();
        let runs = EXEC.is_match(line);
        if runs && FETCH.is_match(line) {
            let url = installers::find_url(line);
            let (severity, message) = match url.map(|u| (u, installers::allowed(u))) {
                Some((u, Some(i))) => (
                    Severity::Medium,
                    format!(
                        "downloads code and runs it with Invoke-Expression from {}, the {} installer (allow-listed, so reported medium)",
                        installers::host(u).unwrap_or(u),
                        i.name
                    ),
                ),
                Some((u, None)) => (
                    Severity::Critical,
                    format!(
                        "downloads code and runs it with Invoke-Expression from {}",
                        installers::host(u).unwrap_or(u)
                    ),
                ),
                None => (
                    Severity::Critical,
                    "downloads code and runs it with Invoke-Expression".to_string(),
                ),
            };
            ctx.push(RuleId::DownloadExec, severity, span, message);
        } else if DECODE.is_match(line) && (runs || line.to_ascii_lowercase().contains("-enc")) {
            ctx.push(
                RuleId::DecodeExec,
                Severity::Critical,
                span,
                "runs base64-encoded PowerShell".to_string(),
            );
        }
    }
}
