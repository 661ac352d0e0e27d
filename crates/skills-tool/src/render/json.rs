//! `--format json`: one document, schema version 1 (documented in docs/lint.md), written as
//! the skills are linted.

use serde::Serialize;
use skills_lint::Diagnostic;

use super::path_str;
use super::stream::Totals;

/// Bumped on any incompatible change to the shape below.
pub(crate) const SCHEMA_VERSION: u32 = skills_lint::JSON_SCHEMA_VERSION;

/// The document, `diagnostics` empty: the stream writes its members one by one. The
/// summary comes last, once the run is over.
#[derive(Serialize)]
pub(crate) struct Document {
    version: u32,
    diagnostics: [(); 0],
    summary: Summary,
}

#[derive(Serialize)]
struct Summary {
    skills: usize,
    errors: usize,
    warnings: usize,
}

/// The document around its findings, with `totals` in the summary.
pub(crate) fn document(totals: &Totals) -> Document {
    Document {
        version: SCHEMA_VERSION,
        diagnostics: [],
        summary: Summary {
            skills: totals.skills,
            errors: totals.errors,
            warnings: totals.warnings,
        },
    }
}

/// One finding as the document lists it.
pub(crate) fn item(d: &Diagnostic) -> skills_lint::JsonFinding<'_> {
    d.to_json(path_str(&d.path))
}
