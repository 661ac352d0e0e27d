//! The diagnostics model: what a lint run returns, and the source text its positions are
//! computed from.

use crate::rules::RuleId;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Breaks a MUST of the specification (or makes the skill unusable): fails the run.
    Error,
    /// A best practice or a portability problem: fails the run only with `--strict`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A 1-based line and column (the column counts characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in Unicode scalar values.
    pub column: usize,
}

/// One finding.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The rule (its kebab-case id is `rule.as_str()`, and what JSON output carries).
    pub rule: RuleId,
    /// The severity after configuration.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// How to fix it: specific to this finding when possible, else the rule's fix.
    pub help: String,
    /// The file (or, for `skill-md-missing`, the directory) the finding is about, as reached
    /// from the linted path.
    pub path: PathBuf,
    /// Byte range in `path`'s text; `None` for the file as a whole.
    pub span: Option<Range<usize>>,
    /// Where the span starts.
    pub start: Option<Position>,
    /// Where the span ends (exclusive column).
    pub end: Option<Position>,
    /// The text of `path`, for renderers that quote the source: the whole file, or at
    /// least its start through the line after the span (`duplicate-name` carries the
    /// frontmatter only, so a large run does not hold every file it read).
    pub source: Option<Arc<str>>,
}

/// The version of the JSON shape of [`JsonFinding`] and the document `skills lint --format
/// json` writes around it; bumped on any incompatible change.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// A finding as `skills lint --format json` lists it, and as the registry returns a lint
/// failure: one shape wherever findings leave as JSON (documented in `docs/lint.md`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct JsonFinding<'a> {
    /// The file, as the caller names it.
    pub path: String,
    /// The rule.
    pub rule: RuleId,
    /// `error` or `warning`.
    pub severity: &'a str,
    /// What is wrong.
    pub message: &'a str,
    /// Where the span starts (1-based), `null` for the whole file.
    pub line: Option<usize>,
    /// Its column (1-based, in characters).
    pub column: Option<usize>,
    /// Where the span ends.
    pub end_line: Option<usize>,
    /// Its end column (exclusive).
    pub end_column: Option<usize>,
    /// How to fix it.
    pub help: &'a str,
}

impl Diagnostic {
    /// This finding in the JSON shape, its file named `path`.
    #[must_use]
    pub fn to_json(&self, path: String) -> JsonFinding<'_> {
        JsonFinding {
            path,
            rule: self.rule,
            severity: self.severity.as_str(),
            message: &self.message,
            line: self.start.map(|p| p.line),
            column: self.start.map(|p| p.column),
            end_line: self.end.map(|p| p.line),
            end_column: self.end.map(|p| p.column),
            help: &self.help,
        }
    }
}

/// The findings for one skill directory.
#[derive(Debug, Clone)]
pub struct SkillReport {
    /// The skill directory.
    pub dir: PathBuf,
    /// Its `SKILL.md` (or the misspelt file that stands for it).
    pub skill_md: PathBuf,
    /// `name` from the frontmatter, if it parsed.
    pub name: Option<String>,
    /// Findings, ordered by file, then position, then rule.
    pub diagnostics: Vec<Diagnostic>,
}

/// The result of one lint run.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Report {
    /// Every skill found, sorted by directory.
    pub skills: Vec<SkillReport>,
    /// Findings that belong to no skill: a path given to lint that holds no skill.
    pub other: Vec<Diagnostic>,
}

impl Report {
    /// Every diagnostic, in output order (by path, then position).
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.skills
            .iter()
            .flat_map(|s| s.diagnostics.iter())
            .chain(self.other.iter())
    }

    /// How many errors.
    pub fn errors(&self) -> usize {
        self.diagnostics()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// How many warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    /// Whether the run fails: any error, or any warning when `strict`.
    pub fn failed(&self, strict: bool) -> bool {
        self.errors() > 0 || (strict && self.warnings() > 0)
    }
}

/// Puts findings in the order the report promises (file, position, rule), whatever order the
/// checks produced them in.
pub(crate) fn sort_diagnostics(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| (&a.path, a.start, a.rule).cmp(&(&b.path, b.start, b.rule)));
}

/// A span with the positions of its ends, when the text they are in is known.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) span: Range<usize>,
    pub(crate) positions: Option<(Position, Position)>,
}

/// Where a skill's `name` value is, kept from linting it for `duplicate-name`, which needs
/// the whole run.
#[derive(Debug)]
pub(crate) struct Named {
    pub(crate) site: Site,
    /// The text of its SKILL.md through the frontmatter, for the renderers that quote it.
    pub(crate) source: Option<Arc<str>>,
    /// What tells two skills of one name apart without reading them again.
    pub(crate) identity: Identity,
}

/// A skill's contents as far as linting saw them: a 128-bit hash of its `SKILL.md` and of
/// its listing (every path and size). Two skills with different fingerprints are different
/// skills; with equal ones and no file but `SKILL.md`, the same skill (a copy, or the same
/// directory through a link); with other files, those decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) fingerprint: u128,
    /// Whether `SKILL.md` is the skill's only file.
    pub(crate) skill_md_only: bool,
}

/// A file's text, copied into a shared `Arc` only when a diagnostic needs it: most skills
/// have no findings, and copying every file would be wasted work on the hot path.
pub(crate) struct Text<'a> {
    pub(crate) text: &'a str,
    shared: std::cell::OnceCell<Arc<str>>,
    /// Built with the first diagnostic past [`Text::NEAR_START`], so positions cost the
    /// same for the 5,000th.
    index: std::cell::OnceCell<skills_frontmatter::LineIndex>,
}

impl<'a> Text<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            shared: std::cell::OnceCell::new(),
            index: std::cell::OnceCell::new(),
        }
    }

    /// Offsets up to here are positioned by scanning the text before them.
    const NEAR_START: usize = 4096;

    /// The 1-based line and column of byte `offset`. Most findings are in the frontmatter,
    /// at the top: scanning up to them costs less than indexing the whole file, which only
    /// findings further down pay for.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        if offset <= Self::NEAR_START {
            return skills_frontmatter::line_col(self.text, offset);
        }
        self.index
            .get_or_init(|| skills_frontmatter::LineIndex::new(self.text))
            .line_col(self.text, offset)
    }

    /// `span` with its positions in this text.
    pub(crate) fn site(&self, span: Range<usize>) -> Site {
        let position = |offset| {
            let (line, column) = self.line_col(offset);
            Position { line, column }
        };
        Site {
            positions: Some((position(span.start), position(span.end))),
            span,
        }
    }

    /// The shared copy, if a finding made one already.
    pub(crate) fn shared_if_made(&self) -> Option<Arc<str>> {
        self.shared.get().cloned()
    }

    pub(crate) fn shared(&self) -> Arc<str> {
        self.shared.get_or_init(|| Arc::from(self.text)).clone()
    }
}
