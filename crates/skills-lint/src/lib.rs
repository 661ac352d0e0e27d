//! Lint Agent Skills: every rule of the specification and its best practices, over one skill
//! or a whole tree of them.
//!
//! `skills-frontmatter` checks what one `SKILL.md` can tell; this crate adds the rules that
//! need the skill's directory (missing `SKILL.md`, links to files that do not exist, size
//! limits) and the whole run (duplicate names), holds the [rule registry](RULES) with each
//! rule's documentation, applies the severity [configuration](Config), and returns
//! [`Diagnostic`]s with file, byte span, line and column. It never prints: rendering is the
//! caller's (the `skills` CLI uses miette, JSON, GitHub annotations or SARIF). For large trees,
//! [`Linter::lint_paths_each`] hands the reports over in ordered batches as they are linted,
//! so a caller can write them out with memory that does not grow with the findings. A
//! `SKILL.md` that is not on disk (fetched, uploaded) is linted from its bytes by
//! [`Linter::lint_source`].
//!
//! ```
//! use skills_lint::{Config, Linter, RuleId, Severity};
//!
//! let dir = tempfile::tempdir()?;
//! let skill = dir.path().join("pdf-processing");
//! std::fs::create_dir(&skill)?;
//! std::fs::write(
//!     skill.join("SKILL.md"),
//!     "---\nname: pdf-processing\ndescription: Fill PDF forms. Use when asked.\n---\nSee [forms](references/FORMS.md).\n",
//! )?;
//!
//! let report = Linter::new(Config::default()).lint_paths(&[dir.path().to_path_buf()])?;
//! assert_eq!(report.skills.len(), 1);
//! let d = &report.skills[0].diagnostics[0];
//! assert_eq!((d.rule, d.severity), (RuleId::LinkMissing, Severity::Warning));
//! assert_eq!(d.start.map(|p| (p.line, p.column)), Some((5, 13)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checks;
mod config;
mod diagnostic;
mod linter;
mod rules;
#[cfg(test)]
mod test_support;
mod walk;

pub use checks::context::resources::RESOURCES_FILE;
pub use checks::context::tools::{
    Downstreams, TOOL_NAME_MAX, TOOLS_FILE, UNIVERSAL_TOOLS, is_valid_tool_name,
};
pub use checks::size::{MAX_SKILL_BYTES, MAX_SKILL_FILES};
pub use config::{CONFIG_FILE, Config, ConfigError, Level, Profile};
pub use diagnostic::{
    Diagnostic, JSON_SCHEMA_VERSION, JsonFinding, Position, Report, Severity, SkillReport,
};
pub use linter::{LintError, Linter};
pub use rules::{RULES, Rule, RuleId, Scope, UnknownRule, rule, suggest};
