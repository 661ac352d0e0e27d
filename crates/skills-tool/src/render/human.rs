//! Diagnostics for people: miette's graphical report per finding (drawn by `graphical.rs`
//! when the finding has the common shape, else by miette), then a summary line.

use std::collections::HashMap;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};
use skills_lint::{Diagnostic, Report, Severity, SkillReport};

use super::{graphical, path_str};
use crate::printer::Ui;

fn theme(ui: Ui) -> GraphicalTheme {
    if ui.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    }
}

fn handler(ui: Ui) -> GraphicalReportHandler {
    GraphicalReportHandler::new_themed(theme(ui))
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
    trim_end_from(out, start);
}

fn trim_end_from(out: &mut String, start: usize) {
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

impl Finding {
    /// The parts [`graphical::draw`] draws; `None` for a shape it leaves to miette.
    fn parts(&self) -> Option<graphical::Parts<'_>> {
        let inner = &self.inner;
        let label = match (inner.labels.as_deref(), &self.code) {
            (None, None) => None,
            (Some([label]), Some(code)) => Some((code, *label.inner(), label.label()?)),
            _ => return None,
        };
        Some(graphical::Parts {
            code: inner.code.as_deref()?,
            error: match inner.severity? {
                miette::Severity::Error => true,
                miette::Severity::Warning => false,
                miette::Severity::Advice => return None,
            },
            message: &inner.message,
            help: inner.help.as_deref()?,
            label,
        })
    }
}

/// `width`: the terminal's, when the source window must fit it ([`Ui::width_stated`]).
fn finding(d: &Diagnostic, width: Option<usize>) -> Finding {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    };
    // A message or help quotes the skill's text (a `name`): one line each, escaped.
    let path = super::terminal_safe_line(&path_str(&d.path)).into_owned();
    let spanned = d.span.clone().zip(d.source.clone());
    let message = if spanned.is_some() {
        super::terminal_safe_line(&d.message).into_owned()
    } else {
        format!("{path}: {}", super::terminal_safe_line(&d.message))
    };
    let inner = MietteDiagnostic::new(message)
        .with_code(d.rule.as_str())
        .with_severity(severity)
        .with_help(super::terminal_safe_line(&d.help).into_owned());
    match spanned {
        Some((span, source)) => {
            let column = d.start.map(|p| p.column);
            let label = d.rule.rule().label;
            let fit = width.map(|width| super::snippet::Fit {
                width,
                label: unicode_width::UnicodeWidthStr::width(label),
            });
            let (code, span) = super::snippet::Snippet::new(path, &source, span, column, fit);
            Finding {
                inner: inner.with_label(LabeledSpan::at(span, label)),
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
    let pens = Pens::new(ui);
    let groups: Vec<Drawn> = skills
        .par_iter()
        .map(|skill| draw(&pens, &skill.diagnostics))
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
    let last = draw(&Pens::new(ui), other);
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

/// What findings are drawn with, made once per batch and shared by the pool: a theme and
/// two handlers per skill were a few percent of a report.
struct Pens {
    ui: Ui,
    theme: GraphicalTheme,
    wrapping: GraphicalReportHandler,
    /// Wrapping segments every line by Unicode's rules (5% of a run with many findings); a
    /// finding whose texts are shorter in bytes than the width has nothing to wrap (a
    /// character is never wider on screen than its UTF-8 bytes).
    plain: GraphicalReportHandler,
}

impl Pens {
    fn new(ui: Ui) -> Self {
        Self {
            ui,
            theme: theme(ui),
            wrapping: handler(ui),
            plain: handler(ui).with_wrap_lines(false),
        }
    }
}

fn draw(pens: &Pens, diagnostics: &[Diagnostic]) -> Drawn {
    let Pens {
        ui,
        theme,
        wrapping,
        plain,
    } = pens;
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
        let fits = fits(d);
        let finding = finding(d, ui.width_stated.then_some(ui.width));
        let look = graphical::Look {
            theme,
            width: ui.width,
            wrap: !fits,
        };
        let start = text.len();
        // Most findings are drawn directly, the rest by miette: the same text either way.
        match finding.parts() {
            Some(parts) if graphical::draw(&mut text, &look, &parts) => {
                trim_end_from(&mut text, start);
            }
            _ => render_into(&mut text, if fits { plain } else { wrapping }, &finding),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::printer::Verbosity;
    use proptest::prelude::*;

    struct Case<'a> {
        error: bool,
        message: &'a str,
        help: &'a str,
        source: &'a str,
        span: std::ops::Range<usize>,
        label: &'a str,
    }

    fn finding_of(case: &Case<'_>, width: Option<usize>) -> Finding {
        let severity = if case.error {
            miette::Severity::Error
        } else {
            miette::Severity::Warning
        };
        let inner = MietteDiagnostic::new(case.message)
            .with_code("some-rule")
            .with_severity(severity)
            .with_help(case.help);
        let (code, span) = super::super::snippet::Snippet::new(
            "skills/a/SKILL.md".to_string(),
            case.source,
            case.span.clone(),
            None,
            width.map(|width| super::super::snippet::Fit {
                width,
                label: unicode_width::UnicodeWidthStr::width(case.label),
            }),
        );
        Finding {
            inner: inner.with_label(LabeledSpan::at(span, case.label)),
            code: Some(code),
        }
    }

    /// The finding drawn directly (`None` when left to miette) and drawn by miette.
    fn both(case: &Case<'_>, color: bool, width: usize, wrap: bool) -> (Option<String>, String) {
        both_of(&finding_of(case, None), color, width, wrap)
    }

    fn both_of(
        finding: &Finding,
        color: bool,
        width: usize,
        wrap: bool,
    ) -> (Option<String>, String) {
        let ui = Ui {
            color,
            width,
            width_stated: true,
            verbosity: Verbosity::Normal,
        };
        let theme = theme(ui);
        let look = graphical::Look {
            theme: &theme,
            width,
            wrap,
        };
        let mut direct = String::new();
        let drawn = finding
            .parts()
            .is_some_and(|parts| graphical::draw(&mut direct, &look, &parts));
        trim_end_from(&mut direct, 0);
        let mut by_miette = String::new();
        render_into(&mut by_miette, &handler(ui).with_wrap_lines(wrap), finding);
        (drawn.then_some(direct), by_miette)
    }

    const FRONTMATTER: &str =
        "---\nname: Active Directory\ndescription: Audits AD.\nsource: vibeship\n---\n\n# Title\n";

    #[test]
    fn common_findings_are_drawn_directly_and_as_miette_draws_them() {
        let cases = [
            // A field's value, a whole key, an empty span, the first and the last line.
            (7..23, "name"),
            (59..65, "field"),
            (59..59, "here"),
            (0..3, "fence"),
            (76..83, "heading"),
            // Past the end, and over its own line break.
            (81..84, "end"),
            (52..59, "value"),
        ];
        for (span, label) in cases {
            for (error, color, wrap, width) in [
                (true, false, false, 100),
                (false, true, false, 100),
                (true, true, true, 30),
                (false, false, true, 24),
            ] {
                let case = Case {
                    error,
                    message: "`name` `Active Directory` does not match the directory name `a`",
                    help: "rename the directory to `Active Directory`, or set `name: a`",
                    source: FRONTMATTER,
                    span: span.clone(),
                    label,
                };
                let (direct, by_miette) = both(&case, color, width, wrap);
                let Some(direct) = direct else {
                    panic!("{span:?} was left to miette:\n{by_miette}");
                };
                assert_eq!(direct, by_miette, "{span:?} color {color} wrap {wrap}");
            }
        }
    }

    #[test]
    fn a_finding_without_source_is_drawn_directly_too() {
        let finding = Finding {
            inner: MietteDiagnostic::new("skills/a: the directory has no SKILL.md")
                .with_code("skill-md-missing")
                .with_severity(miette::Severity::Error)
                .with_help("add a SKILL.md with `name` and `description`, or remove the folder"),
            code: None,
        };
        for (color, wrap, width) in [(false, false, 100), (true, true, 30)] {
            let (direct, by_miette) = both_of(&finding, color, width, wrap);
            assert_eq!(direct.as_deref(), Some(by_miette.as_str()));
        }
    }

    #[test]
    fn other_shapes_are_left_to_miette() {
        // A label over two lines, a carriage return in the window, a label of two lines.
        for (source, span, label) in [
            (FRONTMATTER, 7..40, "name"),
            ("---\r\nname: x\r\n---\r\n", 11..12, "name"),
            (FRONTMATTER, 7..23, "two\nlines"),
        ] {
            let case = Case {
                error: true,
                message: "m",
                help: "h",
                source,
                span,
                label,
            };
            let (direct, _) = both(&case, false, 80, false);
            assert_eq!(direct, None, "{source:?}");
        }
    }

    /// Text made of up to `max` of `pieces`, each chosen at random.
    fn text_of(pieces: Vec<&'static str>, max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(pieces), 0..max)
            .prop_map(|parts| parts.concat())
    }

    /// Source text made of the characters that move columns: tabs, wide and zero-width
    /// characters, combining marks, escapes (masked), carriage returns, blank lines, and
    /// lines long enough to be cut.
    fn source_text() -> impl Strategy<Value = String> {
        let long_line: &'static str = "x".repeat(170).leak();
        // Short in bytes, wide on a screen.
        let tabs: &'static str = "\t".repeat(45).leak();
        text_of(
            vec![
                "a",
                "name: ",
                " ",
                "\t",
                "\n",
                "\n\n",
                "\r\n",
                "é",
                "…",
                "漢字",
                "🎉",
                "e\u{301}",
                "\u{200b}",
                "\u{1b}[31m",
                long_line,
                tabs,
            ],
            40,
        )
    }

    fn words() -> impl Strategy<Value = String> {
        text_of(
            vec![
                "word",
                "`a-rule-id`",
                "skills/some-long-directory-name/SKILL.md",
                "é",
                " ",
                "  ",
                "\n",
            ],
            30,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        #[test]
        fn direct_drawing_equals_miette(
            source in source_text(),
            start in 0usize..400,
            len in 0usize..60,
            message in words(),
            help in words(),
            label in prop_oneof![Just(""), Just("name"), Just("a longer label")],
            error in any::<bool>(),
            color in any::<bool>(),
            wrap in any::<bool>(),
            width in 10usize..120,
        ) {
            let case = Case {
                error,
                message: &message,
                help: &help,
                source: &source,
                span: start..start + len,
                label,
            };
            let (direct, by_miette) = both(&case, color, width, wrap);
            if let Some(direct) = direct {
                prop_assert_eq!(direct, by_miette);
            }
            // The window cut to fit the width: drawn alike, and each quoted line fits.
            let fitted = finding_of(&case, Some(width));
            let (direct, by_miette) = both_of(&fitted, color, width, wrap);
            if let Some(direct) = direct {
                prop_assert_eq!(&direct, &by_miette);
            }
            if width >= 40 && !color {
                // The quoted lines: a line number, then the gutter.
                let quoted = |l: &&str| {
                    l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(" │ ")
                };
                for line in by_miette.lines().filter(quoted) {
                    prop_assert!(
                        unicode_width::UnicodeWidthStr::width(line) <= width,
                        "{} columns: {}", width, line
                    );
                }
            }
        }
    }
}
