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
        match &mut self.kind {
            Kind::Human { notes } => human::batch(self.ui, skills, notes),
            Kind::Concise => on_pool(skills, |d| concise::lines(d.iter())),
            Kind::Github => on_pool(skills, |d| github::lines(d.iter())),
            Kind::Json(array) => {
                let indent = array.indent;
                let parts = on_pool_each(skills, |d| Array::part(indent, d.iter().map(json::item)));
                array.join(parts)
            }
            Kind::Sarif(array) => {
                let indent = array.indent;
                let parts =
                    on_pool_each(skills, |d| Array::part(indent, d.iter().map(sarif::result)));
                array.join(parts)
            }
            Kind::Statistics { counter, .. } => {
                counter.add(skills.iter().flat_map(|s| s.diagnostics.iter()));
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

/// Each skill's findings rendered on the pool (the main thread only joins and writes, so
/// the pool is not left waiting on it), in order.
fn on_pool(skills: &[SkillReport], render: impl Fn(&[Diagnostic]) -> String + Sync) -> String {
    on_pool_each(skills, render).concat()
}

fn on_pool_each<T: Send>(
    skills: &[SkillReport],
    render: impl Fn(&[Diagnostic]) -> T + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    skills.par_iter().map(|s| render(&s.diagnostics)).collect()
}

/// Some members of an array, rendered: their text (without the separator before the first)
/// and how many they are.
struct Part {
    text: String,
    count: usize,
}

/// Room made for one rendered array member: a finding in JSON takes 400–700 bytes.
const MEMBER: usize = 768;

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
        let part = Self::part(self.indent, items);
        self.join([part])
    }

    /// `items` indented as members of an array whose line starts `indent` columns in,
    /// without the array: parts are rendered apart (on the pool) and joined in order.
    fn part(indent: usize, items: impl Iterator<Item = impl Serialize>) -> Part {
        let pad = " ".repeat(indent + 2);
        // Sized for members of the usual few hundred bytes: grown from empty, the two buffers
        // were reallocated (and copied) a dozen times per skill.
        let mut out = Vec::with_capacity(items.size_hint().0 * MEMBER);
        let mut text = Vec::with_capacity(MEMBER.min(out.capacity()));
        let mut count = 0;
        for item in items {
            if count > 0 {
                out.extend_from_slice(b",\n");
            }
            count += 1;
            text.clear();
            // Plain structs of strings and numbers into memory: this cannot fail.
            let _ = serde_json::to_writer_pretty(&mut text, &item);
            // A JSON text breaks lines only between tokens (a line break inside a string is
            // written `\n`), so every line break starts a line to indent.
            let mut line = 0;
            for end in memchr::memchr_iter(b'\n', &text) {
                out.extend_from_slice(pad.as_bytes());
                out.extend_from_slice(text.get(line..=end).unwrap_or_default());
                line = end + 1;
            }
            out.extend_from_slice(pad.as_bytes());
            out.extend_from_slice(text.get(line..).unwrap_or_default());
        }
        let text = String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Part { text, count }
    }

    /// `parts` in order, each after the separator that its place in the array needs.
    fn join(&mut self, parts: impl IntoIterator<Item = Part>) -> String {
        let mut out = String::new();
        for part in parts.into_iter().filter(|p| p.count > 0) {
            out.push_str(if self.members == 0 { "\n" } else { ",\n" });
            out.push_str(&part.text);
            self.members += part.count;
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

    /// Three members, their names with what JSON escapes.
    fn three_items() -> [Item; 3] {
        [
            Item {
                name: "a\nline break, \"quotes\" and \\",
                tags: vec![1, 2],
            },
            Item {
                name: "b",
                tags: vec![],
            },
            Item {
                name: "c\r\n",
                tags: vec![3],
            },
        ]
    }

    /// The document written in parts by `members` (given its open array), and the same
    /// document serialized whole with `items`: the two must be equal.
    fn in_parts_and_whole(
        items: &[Item],
        members: impl FnOnce(&mut Array) -> String,
    ) -> (String, String) {
        let doc = |total| Doc {
            version: 1,
            items: [],
            total,
        };
        let mut array = Array::default();
        let mut out = array.open(&doc(0), "items");
        out.push_str(&members(&mut array));
        out.push_str(&array.close(&doc(items.len()), "items"));
        let whole = Whole {
            version: 1,
            items: items.to_vec(),
            total: items.len(),
        };
        (out, serde_json::to_string_pretty(&whole).unwrap() + "\n")
    }

    #[test]
    fn parts_rendered_apart_join_into_the_document_serialized_whole() {
        let items = three_items();
        // Every way of cutting the items into parts (some empty), as skills of a batch
        // with and without findings.
        for cuts in [
            vec![0, 0, 3],
            vec![1, 0, 2],
            vec![3, 0, 0],
            vec![1, 1, 1],
            vec![2, 1],
        ] {
            let (out, whole) = in_parts_and_whole(&items, |array| {
                let mut rest = &items[..];
                let parts: Vec<Part> = cuts
                    .iter()
                    .map(|&n| {
                        let (here, after) = rest.split_at(n);
                        rest = after;
                        Array::part(array.indent, here.iter())
                    })
                    .collect();
                // The first batch takes the first part alone, the next batch the rest.
                let mut parts = parts.into_iter();
                let first = array.join(parts.next());
                first + &array.join(parts)
            });
            assert_eq!(out, whole, "{cuts:?}");
        }
    }

    #[test]
    fn written_in_parts_the_document_is_the_one_serialized_whole() {
        let items = three_items();
        for n in 0..=items.len() {
            let some = &items[..n];
            let (out, whole) = in_parts_and_whole(some, |array| {
                let (first, rest) = some.split_at(n.min(1));
                let first = array.members(first.iter());
                first + &array.members(rest.iter())
            });
            assert_eq!(out, whole, "{n}");
        }
    }
}
