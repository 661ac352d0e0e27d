//! `skills lint` output written as the skills are linted: a batch of reports at a time
//! (`Linter::lint_paths_each`), so memory stays flat however large the tree, and the first
//! findings appear before the last skill is read.
//!
//! The JSON and SARIF documents are written in three parts around their one growing array:
//! the document is serialized with the array empty and split there, and each member is
//! serialized on its own, indented as it would be inside.

use serde::Serialize;
use skills_lint::{Diagnostic, Report, Severity, SkillReport};

use super::statistics::Counter;
use super::{concise, github, human, json, sarif};
use crate::args::Format;
use crate::printer::Ui;

/// How many skills and findings the run had so far.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Totals {
    pub(crate) skills: usize,
    pub(crate) errors: usize,
    pub(crate) warnings: usize,
}

impl Totals {
    /// The totals of a whole report.
    pub(crate) fn of(report: &Report) -> Self {
        Self {
            skills: report.skills.len(),
            errors: report.errors(),
            warnings: report.warnings(),
        }
    }

    fn add_skills(&mut self, skills: &[SkillReport]) {
        self.skills += skills.len();
        for skill in skills {
            self.add(&skill.diagnostics);
        }
    }

    fn add(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
        }
    }

    /// Whether the run fails: any error, or any warning when `strict`.
    pub(crate) fn failed(&self, strict: bool) -> bool {
        self.errors > 0 || (strict && self.warnings > 0)
    }
}

/// What is written, and what a format keeps between batches.
enum Kind {
    Human {
        notes: String,
    },
    Concise,
    Github,
    Json(Array),
    Sarif(Array),
    /// `--statistics`: counts only, written at the end (`json` for `--format json`).
    Statistics {
        counter: Counter,
        json: bool,
    },
}

/// One run's output, written batch by batch.
pub(crate) struct Stream {
    kind: Kind,
    ui: Ui,
    strict: bool,
    totals: Totals,
    /// Whether what comes before the first finding is written. Not before the first batch:
    /// a run that fails to start (a path that does not exist) writes nothing.
    started: bool,
}

impl Stream {
    /// The output of `format` (`--statistics` replaces the findings by their counts; the
    /// command refuses it with the formats that cannot carry it).
    pub(crate) fn new(format: Format, statistics: bool, ui: Ui, strict: bool) -> Self {
        let kind = match format {
            _ if statistics => Kind::Statistics {
                counter: Counter::default(),
                json: format == Format::Json,
            },
            Format::Human => Kind::Human {
                notes: String::new(),
            },
            Format::Concise => Kind::Concise,
            Format::Github => Kind::Github,
            Format::Json => Kind::Json(Array::default()),
            Format::Sarif => Kind::Sarif(Array::default()),
        };
        Self {
            kind,
            ui,
            strict,
            totals: Totals::default(),
            started: false,
        }
    }

    /// What comes before the first finding, the first time only.
    fn start(&mut self) -> String {
        if std::mem::replace(&mut self.started, true) {
            return String::new();
        }
        match &mut self.kind {
            Kind::Json(array) => array.open(&json::document(&self.totals), "diagnostics"),
            Kind::Sarif(array) => array.open(&sarif::document(), "results"),
            _ => String::new(),
        }
    }

    /// The findings of a batch of skills, in order.
    pub(crate) fn batch(&mut self, skills: &[SkillReport]) -> String {
        let mut out = self.start();
        out.push_str(&self.findings(skills));
        out
    }

    fn findings(&mut self, skills: &[SkillReport]) -> String {
        self.totals.add_skills(skills);
        let all = || skills.iter().flat_map(|s| s.diagnostics.iter());
        match &mut self.kind {
            Kind::Human { notes } => human::batch(self.ui, skills, notes),
            Kind::Concise => concise::lines(all()),
            Kind::Github => github::lines(all()),
            Kind::Json(array) => array.members(all().map(json::item)),
            Kind::Sarif(array) => array.members(all().map(sarif::result)),
            Kind::Statistics { counter, .. } => {
                counter.add(all());
                String::new()
            }
        }
    }

    /// The findings that belong to no skill, and what comes after the last finding.
    pub(crate) fn finish(&mut self, other: &[Diagnostic]) -> String {
        let mut out = self.start();
        out.push_str(&self.end(other));
        out
    }

    fn end(&mut self, other: &[Diagnostic]) -> String {
        self.totals.add(other);
        let (ui, strict, totals) = (self.ui, self.strict, self.totals);
        match &mut self.kind {
            Kind::Human { notes } => human::finish(ui, other, notes, &totals, strict),
            Kind::Concise => {
                let mut out = concise::lines(other.iter());
                if !ui.quiet() {
                    out.push_str(&human::summary(&totals, strict));
                }
                out
            }
            Kind::Github => github::lines(other.iter()),
            Kind::Json(array) => {
                let mut out = array.members(other.iter().map(json::item));
                out.push_str(&array.close(&json::document(&totals), "diagnostics"));
                out
            }
            Kind::Sarif(array) => {
                let mut out = array.members(other.iter().map(sarif::result));
                out.push_str(&array.close(&sarif::document(), "results"));
                out
            }
            Kind::Statistics { counter, json } => {
                counter.add(other.iter());
                if *json {
                    counter.json(&totals)
                } else {
                    counter.human(ui, &totals, strict)
                }
            }
        }
    }

    /// Whether the run fails, by the findings written so far.
    pub(crate) fn failed(&self) -> bool {
        self.totals.failed(self.strict)
    }
}

/// The one array of a pretty-printed JSON document that grows as the run goes.
#[derive(Default)]
struct Array {
    /// The indentation of the line that opens the array.
    indent: usize,
    members: usize,
}

impl Array {
    /// The document up to and including the `[` of its empty array `key`.
    fn open(&mut self, doc: &impl Serialize, key: &str) -> String {
        let (head, indent, _) = split(doc, key);
        self.indent = indent;
        head
    }

    /// `items`, each indented as a member of the array.
    fn members(&mut self, items: impl Iterator<Item = impl Serialize>) -> String {
        let pad = " ".repeat(self.indent + 2);
        let mut out = String::new();
        for item in items {
            out.push_str(if self.members == 0 { "\n" } else { ",\n" });
            self.members += 1;
            // Plain structs of strings and numbers: serializing them cannot fail.
            let text = serde_json::to_string_pretty(&item).unwrap_or_default();
            for (i, line) in text.lines().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&pad);
                out.push_str(line);
            }
        }
        out
    }

    /// The document from the `]` of its array `key` on (`doc` may now hold the totals).
    fn close(&self, doc: &impl Serialize, key: &str) -> String {
        let (_, indent, tail) = split(doc, key);
        if self.members == 0 {
            return tail;
        }
        format!("\n{}{tail}", " ".repeat(indent))
    }
}

/// `doc` pretty-printed and split inside its empty array `key`: the text up to and including
/// `[`, the indentation of the line it is on, and the text from `]` on (with a final line
/// break).
fn split(doc: &impl Serialize, key: &str) -> (String, usize, String) {
    let text = serde_json::to_string_pretty(doc).unwrap_or_default() + "\n";
    let marker = format!("\"{key}\": []");
    let Some(at) = text.find(&marker) else {
        return (text, 0, String::new());
    };
    let bracket = at + marker.len() - 1;
    let line_start = text
        .get(..at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let indent = at - line_start;
    let head = text.get(..bracket).unwrap_or_default().to_string();
    let tail = text.get(bracket..).unwrap_or_default().to_string();
    (head, indent, tail)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[derive(Serialize)]
    struct Doc {
        version: u32,
        items: [(); 0],
        total: usize,
    }

    #[derive(Serialize)]
    struct Whole {
        version: u32,
        items: Vec<Item>,
        total: usize,
    }

    #[derive(Serialize, Clone)]
    struct Item {
        name: &'static str,
        tags: Vec<u32>,
    }

    #[test]
    fn written_in_parts_the_document_is_the_one_serialized_whole() {
        let items = [
            Item {
                name: "a",
                tags: vec![1, 2],
            },
            Item {
                name: "b",
                tags: vec![],
            },
            Item {
                name: "c",
                tags: vec![3],
            },
        ];
        for n in 0..=items.len() {
            let mut array = Array::default();
            let empty = Doc {
                version: 1,
                items: [],
                total: 0,
            };
            let mut out = array.open(&empty, "items");
            let (first, rest) = items.split_at(n.min(1));
            out.push_str(&array.members(first.iter()));
            out.push_str(&array.members(rest.iter().take(n.saturating_sub(1))));
            let done = Doc {
                version: 1,
                items: [],
                total: n,
            };
            out.push_str(&array.close(&done, "items"));
            let whole = Whole {
                version: 1,
                items: items.iter().take(n).cloned().collect(),
                total: n,
            };
            assert_eq!(
                out,
                serde_json::to_string_pretty(&whole).unwrap() + "\n",
                "{n}"
            );
        }
    }
}
