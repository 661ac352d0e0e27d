//! What an audit returns.

use std::ops::Range;

use serde::Serialize;

use crate::{RuleId, Severity};

/// One thing the audit found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The rule.
    pub rule: RuleId,
    /// How bad it is here (the rule's default, or lower: an allow-listed installer).
    pub severity: Severity,
    /// The file, relative to the skill, `/`-separated (`scripts/setup.sh`).
    pub path: String,
    /// 1-based line of the evidence's start (0 for a finding about a whole file).
    pub line: u32,
    /// 1-based column, in characters (0 for a finding about a whole file).
    pub column: u32,
    /// The evidence's byte range in the file.
    #[serde(skip)]
    pub span: Range<usize>,
    /// The text found, clipped to 200 characters, control and invisible characters escaped.
    pub evidence: String,
    /// What was found, in this place (names the host, the file, the character).
    pub message: String,
}

impl Finding {
    /// A finding of `rule` at its default severity.
    #[must_use]
    pub fn new(rule: RuleId, path: &str, message: impl Into<String>) -> Self {
        Self {
            rule,
            severity: rule.severity(),
            path: path.to_string(),
            line: 0,
            column: 0,
            span: 0..0,
            evidence: String::new(),
            message: message.into(),
        }
    }

    /// The same finding at another severity.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}

/// How many findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Critical findings.
    pub critical: usize,
    /// High findings.
    pub high: usize,
    /// Medium findings.
    pub medium: usize,
    /// Low findings.
    pub low: usize,
}

impl Counts {
    /// The count of one severity.
    #[must_use]
    pub fn of(&self, severity: Severity) -> usize {
        match severity {
            Severity::Critical => self.critical,
            Severity::High => self.high,
            Severity::Medium => self.medium,
            Severity::Low => self.low,
        }
    }

    /// All findings.
    #[must_use]
    pub fn total(&self) -> usize {
        self.critical + self.high + self.medium + self.low
    }

    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Critical => self.critical += 1,
            Severity::High => self.high += 1,
            Severity::Medium => self.medium += 1,
            Severity::Low => self.low += 1,
        }
    }
}

/// A finding a suppression removed from [`Report::findings`], and the suppression's reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Suppressed {
    /// The finding.
    pub finding: Finding,
    /// The reason the suppression gives.
    pub reason: String,
    /// Where the suppression is: `skills.toml` or the file and line of the inline marker.
    pub by: String,
}

/// The audit of one skill.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// The findings, sorted by path, line, column and rule.
    pub findings: Vec<Finding>,
    /// What suppressions removed, in the same order.
    pub suppressed: Vec<Suppressed>,
    /// How many files were audited.
    pub files: usize,
    /// The SHA-256 of what was audited, lowercase hex: of each file's path, a NUL, its
    /// length as 8 little-endian bytes and its bytes, in path order. The same files give
    /// the same digest on disk, in memory and in an archive, so a decision recorded for a
    /// digest (an accepted risk, a registry card) holds exactly for that content.
    pub digest: String,
}

impl Report {
    /// The highest severity found, `None` when there is no finding.
    #[must_use]
    pub fn max_severity(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// How many findings of each severity.
    #[must_use]
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for f in &self.findings {
            c.add(f.severity);
        }
        c
    }

    /// The findings at or above `severity`.
    pub fn at_least(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity >= severity)
    }
}
