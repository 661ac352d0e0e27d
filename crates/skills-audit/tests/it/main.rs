//! The integration tests of skills-audit, one binary: each module is one concern.

mod cases;
mod labelled;
mod nested;
mod prefilter;
mod rules;
mod rules_doc;
