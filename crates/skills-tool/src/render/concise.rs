//! `--format concise`: one line per finding, `path:line:col: rule message`, for big runs
//! and for tools that read `file:line:col` (editors, `grep`), as ruff's concise output.

use skills_lint::Diagnostic;

use super::{path_str, terminal_safe};

/// One line per finding of `diagnostics`.
pub(crate) fn lines<'a>(diagnostics: impl Iterator<Item = &'a Diagnostic>) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let path = path_str(&d.path);
        let place = match d.start {
            Some(p) => format!("{path}:{}:{}", p.line, p.column),
            None => path,
        };
        // Messages quote the skill's text: never send its control characters to a terminal,
        // nor a line break that would split one finding over two lines.
        let message = d.message.replace(['\n', '\r'], " ");
        out.push_str(&format!(
            "{}: {} {}\n",
            terminal_safe(&place),
            d.rule,
            terminal_safe(&message)
        ));
    }
    out
}
