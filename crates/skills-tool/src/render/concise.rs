//! `--format concise`: one line per finding, `path:line:col: rule message`, for big runs
//! and for tools that read `file:line:col` (editors, `grep`), as ruff's concise output.

use std::borrow::Cow;
use std::fmt::Write as _;

use skills_lint::Diagnostic;

use super::{path_str, terminal_safe, terminal_safe_line};

/// One line per finding of `diagnostics`, written straight into one buffer: the format is
/// for runs with tens of thousands of findings.
pub(crate) fn lines<'a>(diagnostics: impl Iterator<Item = &'a Diagnostic>) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&terminal_safe_line(&path_str(&d.path)));
        if let Some(p) = d.start {
            let _ = write!(out, ":{}:{}", p.line, p.column);
        }
        // Messages quote the skill's text: never send its control characters to a terminal,
        // nor a line break that would split one finding over two lines.
        let message = if d.message.contains(['\n', '\r']) {
            Cow::Owned(d.message.replace(['\n', '\r'], " "))
        } else {
            Cow::Borrowed(d.message.as_str())
        };
        let _ = writeln!(out, ": {} {}", d.rule, terminal_safe(&message));
    }
    out
}
