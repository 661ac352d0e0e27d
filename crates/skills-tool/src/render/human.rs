//! Diagnostics for people: miette's graphical report per finding, then a summary line.

use std::collections::HashMap;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};
use skills_lint::{Diagnostic, Report, Severity, SkillReport};

use super::path_str;
use crate::printer::Ui;

fn handler(ui: Ui) -> GraphicalReportHandler {
    let theme = if ui.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(ui.width)
        .with_links(false)
        // Lines break at spaces, as every message and help text is written; Unicode's
        // line-break rules (miette's default) cost a segmenter pass over every line wrapped.
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        // Never at a hyphen: a path or a rule id split there reads as two words and cannot
        // be copied whole.
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// Renders any miette report (used for errors of the command itself).
pub(crate) fn report_to_string(ui: Ui, diag: &dyn miette::Diagnostic) -> String {
    let mut out = String::new();
    render_into(&mut out, &handler(ui), diag);
    out
}

/// Appends `diag` drawn by `handler` to `out`, without trailing white space.
fn render_into(out: &mut String, handler: &GraphicalReportHandler, diag: &dyn miette::Diagnostic) {
    let start = out.len();
    if handler.render_report(out, diag).is_err() {
        out.truncate(start);
        out.push_str(&diag.to_string());
    }
    let end = out.trim_end().len().max(start);
    out.truncate(end);
}

/// One finding as miette draws it. Not a `miette::Report`: creating one asks the global
/// hook for a fresh handler, which reads the terminal's size and colour support with system
/// calls, for every finding.
#[derive(Debug)]
struct Finding {
    inner: MietteDiagnostic,
    code: Option<super::snippet::Snippet>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl std::error::Error for Finding {}

impl miette::Diagnostic for Finding {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner.code()
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.inner.severity()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner.help()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.inner.labels()
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.code.as_ref().map(|c| c as &dyn miette::SourceCode)
    }
}

fn finding(d: &Diagnostic) -> Finding {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    };
    let path = super::terminal_safe(&path_str(&d.path)).into_owned();
    let spanned = d.span.clone().zip(d.source.clone());
    let message = if spanned.is_some() {
        super::terminal_safe(&d.message).into_owned()
    } else {
        format!(
            "{}: {}",
            super::terminal_safe(&path),
            super::terminal_safe(&d.message)
        )
    };
    let inner = MietteDiagnostic::new(message)
        .with_code(d.rule.as_str())
        .with_severity(severity)
        .with_help(d.help.clone());
    match spanned {
        Some((span, source)) => {
            let column = d.start.map(|p| p.column);
            let (code, span) = super::snippet::Snippet::new(path, &source, span, column);
            Finding {
                inner: inner.with_label(LabeledSpan::at(span, d.rule.rule().label)),
                code: Some(code),
            }
        }
        None => Finding { inner, code: None },
    }
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// How many findings of one rule in one file are drawn; the rest are counted. A person
/// learns nothing from the 3,000th copy of the same finding, and drawing each costs time.
pub(crate) const SHOWN_PER_RULE_AND_FILE: usize = 10;

pub(crate) fn report(ui: Ui, report: &Report, strict: bool) -> String {
    let mut notes = String::new();
    let mut out = batch(ui, &report.skills, &mut notes);
    let totals = super::stream::Totals::of(report);
    out.push_str(&finish(ui, &report.other, &notes, &totals, strict));
    out
}

/// The findings of a batch of skills, in order; the notes on findings not drawn are added to
/// `notes`, printed at the end.
pub(crate) fn batch(ui: Ui, skills: &[SkillReport], notes: &mut String) -> String {
    use rayon::prelude::*;
    // Each skill's findings are drawn on the pool (drawing dominates a run with many
    // findings) and joined in order; a file belongs to one skill, so the cap per rule and
    // file is counted per skill.
    let groups: Vec<Drawn> = skills
        .par_iter()
        .map(|skill| draw(ui, &skill.diagnostics))
        .collect();
    let mut out = String::new();
    for group in groups {
        out.push_str(&group.text);
        notes.push_str(&group.notes);
    }
    out
}

/// The findings that belong to no skill, the notes, and the summary line.
pub(crate) fn finish(
    ui: Ui,
    other: &[Diagnostic],
    notes: &str,
    totals: &super::stream::Totals,
    strict: bool,
) -> String {
    let last = draw(ui, other);
    let mut out = last.text;
    let notes = format!("{notes}{}", last.notes);
    if !notes.is_empty() {
        out.push_str(&notes);
        out.push('\n');
    }
    if !ui.quiet() {
        out.push_str(&summary(totals, strict));
    }
    out
}

/// One group's findings drawn, and the notes on those not drawn.
struct Drawn {
    text: String,
    notes: String,
}

fn draw(ui: Ui, diagnostics: &[Diagnostic]) -> Drawn {
    let wrapping = handler(ui);
    // Wrapping segments every line by Unicode's rules (5% of a run with many findings); a
    // finding whose texts are shorter in bytes than the width has nothing to wrap (a
    // character is never wider on screen than its UTF-8 bytes).
    let plain = handler(ui).with_wrap_lines(false);
    let fits = |d: &Diagnostic| {
        let room = ui.width.saturating_sub(12);
        // Without a snippet, the message starts with the path.
        let path = match d.span.is_some() && d.source.is_some() {
            true => 0,
            false => path_str(&d.path).len() + 2,
        };
        d.message.len() + path <= room && d.help.len() <= room
    };
    let mut text = String::new();
    // (file, rule) -> findings seen; the order of first appearance for the notes.
    let mut seen: HashMap<(&std::path::Path, skills_lint::RuleId), usize> = HashMap::new();
    let mut order = Vec::new();
    for d in diagnostics {
        let n = seen.entry((d.path.as_path(), d.rule)).or_insert(0);
        *n += 1;
        if *n == SHOWN_PER_RULE_AND_FILE + 1 {
            order.push((d.path.as_path(), d.rule));
        }
        if *n > SHOWN_PER_RULE_AND_FILE {
            continue;
        }
        let handler = if fits(d) { &plain } else { &wrapping };
        render_into(&mut text, handler, &finding(d));
        text.push_str("\n\n");
    }
    let mut notes = String::new();
    for key in &order {
        let more = seen.get(key).copied().unwrap_or(0) - SHOWN_PER_RULE_AND_FILE;
        notes.push_str(&format!(
            "{}: {more} more `{}` {} not shown (--format json lists every finding)\n",
            super::terminal_safe(&path_str(key.0)),
            key.1,
            if more == 1 { "finding" } else { "findings" },
        ));
    }
    Drawn { text, notes }
}

/// `checked N skills: E errors, W warnings`, the last line of the human formats.
pub(crate) fn summary(totals: &super::stream::Totals, strict: bool) -> String {
    let mut out = format!(
        "checked {}: {}, {}",
        plural(totals.skills, "skill"),
        plural(totals.errors, "error"),
        plural(totals.warnings, "warning"),
    );
    if strict && totals.errors == 0 && totals.warnings > 0 {
        out.push_str(" (--strict: warnings fail the run)");
    }
    out.push('\n');
    out
}
