//! `--format github`: workflow commands that GitHub Actions turns into annotations.

use skills_lint::{Diagnostic, Severity};

use super::path_str;

/// Escapes the message part of a workflow command.
fn data(s: &str) -> String {
    // Escapes of the skill's text (ESC, BEL) are shown, not sent: the log may be read
    // at a terminal.
    let escaped = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::terminal_safe(&escaped).into_owned()
}

/// Escapes a property value (`file=`, `title=`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per finding of `diagnostics`.
pub(crate) fn lines<'a>(diagnostics: impl Iterator<Item = &'a Diagnostic>) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut props = vec![format!("file={}", property(&path_str(&d.path)))];
        if let (Some(s), Some(e)) = (d.start, d.end) {
            props.push(format!("line={}", s.line));
            props.push(format!("col={}", s.column));
            props.push(format!("endLine={}", e.line));
            props.push(format!("endColumn={}", e.column));
        }
        props.push(format!(
            "title={}",
            property(&format!("skills lint: {}", d.rule))
        ));
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            data(&format!("{}\nhelp: {}", d.message, d.help))
        ));
    }
    out
}
