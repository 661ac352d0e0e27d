//! What a run is told: the `[audit]` section of `skills.toml`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{AuditError, RuleId};

/// One `[audit] allow` entry: findings of `rule` in files matching `path` are suppressed,
/// for `reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allow {
    /// The rule suppressed.
    pub rule: RuleId,
    /// Which files: a path relative to the directory of `skills.toml` or to the skill
    /// (`skills/setup/scripts/install.sh`, `scripts/install.sh`), a directory ending with `/`,
    /// or a pattern where `*` matches any run of characters (`*/install.sh`). Empty: every
    /// file.
    pub path: String,
    /// Why; an entry without one suppresses nothing and is itself a finding
    /// (`suppression-without-reason`).
    pub reason: Option<String>,
    /// Where the entry was written (the `skills.toml` file), for messages.
    pub source: Option<PathBuf>,
    /// Its 1-based line there (0 when unknown).
    pub line: u32,
}

impl Allow {
    /// An entry for `rule` on `path`, with `reason`.
    #[must_use]
    pub fn new(rule: RuleId, path: &str, reason: Option<&str>) -> Self {
        Self {
            rule,
            path: path.to_string(),
            reason: reason.map(str::to_string),
            source: None,
            line: 0,
        }
    }

    /// Whether the entry names `path` (a file of a skill, relative to the skill) or
    /// `full` (the same file relative to the configuration's directory, when known).
    #[must_use]
    pub fn matches(&self, path: &str, full: Option<&str>) -> bool {
        let pattern = self.path.trim_start_matches("./");
        pattern.is_empty() || glob(pattern, path) || full.is_some_and(|full| glob(pattern, full))
    }
}

/// `*` matches any run of characters (`/` too); a pattern ending with `/` matches the
/// files under it.
fn glob(pattern: &str, path: &str) -> bool {
    if let Some(dir) = pattern.strip_suffix('/')
        && !dir.contains('*')
    {
        return path.starts_with(pattern) || path == dir;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == path;
    };
    if parts.len() == 1 {
        return pattern == path;
    }
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = rest.get(at + part.len()..).unwrap_or(""),
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// How an audit runs: its suppressions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The `[audit] allow` entries.
    pub allow: Vec<Allow>,
    /// The directory `allow` paths are relative to (the directory of `skills.toml`).
    pub base: Option<PathBuf>,
    /// Whether inline `skills-audit: allow` markers in the skill's own files are honoured
    /// (default true). They never suppress a critical finding: the skill's author writes
    /// them, so only the user's `skills.toml` can.
    pub inline: bool,
    /// Parse every piece of code with tree-sitter, also the ones a one-pass prefilter shows
    /// can hold no finding, each to its end (not stopped at a shell block's first error),
    /// and read instructions in code blocks too (default false). The findings are the
    /// same, the audit several times slower: for checking those shortcuts on a tree.
    pub exhaustive: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllow {
    rule: toml::Spanned<String>,
    #[serde(default)]
    path: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAudit {
    #[serde(default)]
    allow: Vec<toml::Spanned<RawAllow>>,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    audit: Option<RawAudit>,
}

impl Config {
    /// The default configuration: no suppressions, inline markers honoured.
    #[must_use]
    pub fn new() -> Self {
        Self {
            allow: Vec::new(),
            base: None,
            inline: true,
            exhaustive: false,
        }
    }

    /// The `[audit]` section of a `skills.toml` (other sections are not looked at), read
    /// from `text`; `path` names the file in errors and is the base of `allow` paths.
    ///
    /// # Errors
    ///
    /// [`AuditError::Config`] with the line and column of a malformed section or an unknown
    /// rule.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, AuditError> {
        let error = |span: Option<std::ops::Range<usize>>, message: String| {
            let (line, column) = span.map_or((0, 0), |s| crate::position::line_col(text, s.start));
            AuditError::Config {
                path: path.to_path_buf(),
                line,
                column,
                message,
            }
        };
        let raw: RawFile =
            toml::from_str(text).map_err(|e| error(e.span(), e.message().to_string()))?;
        let mut config = Self::new();
        config.base = path.parent().map(Path::to_path_buf);
        for entry in raw.audit.unwrap_or_default().allow {
            let span = entry.span();
            let entry = entry.into_inner();
            let rule_span = entry.rule.span();
            let rule: RuleId = entry
                .rule
                .get_ref()
                .parse()
                .map_err(|e: crate::UnknownRule| {
                    let hint = match e.suggestions.first() {
                        Some(s) => format!(" (did you mean `{s}`?)"),
                        None => " (`skills audit --rules` lists them)".to_string(),
                    };
                    error(Some(rule_span), format!("{e}{hint}"))
                })?;
            let (line, _) = crate::position::line_col(text, span.start);
            config.allow.push(Allow {
                rule,
                path: entry.path,
                reason: entry.reason.filter(|r| !r.trim().is_empty()),
                source: Some(path.to_path_buf()),
                line,
            });
        }
        Ok(config)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("scripts/install.sh", "scripts/install.sh"));
        assert!(glob("scripts/", "scripts/a/b.sh"));
        assert!(glob("*/install.sh", "skills/x/install.sh"));
        assert!(glob("*.sh", "a.sh"));
        assert!(!glob("*.sh", "a.py"));
        assert!(!glob("scripts/a.sh", "scripts/b.sh"));
    }

    #[test]
    fn reads_the_audit_section() {
        let text = "[lint]\nstrict = true\n\n[audit]\nallow = [\n  { rule = \"download-exec\", path = \"scripts/\", reason = \"rustup\" },\n  { rule = \"force-push\" },\n]\n";
        let c = Config::from_toml(text, Path::new("/p/skills.toml")).unwrap();
        assert_eq!(c.allow.len(), 2);
        assert_eq!(c.allow[0].rule, RuleId::DownloadExec);
        assert_eq!(c.allow[0].reason.as_deref(), Some("rustup"));
        assert_eq!(c.allow[0].line, 6);
        assert_eq!(c.allow[1].reason, None);
        assert_eq!(c.base.as_deref(), Some(Path::new("/p")));
    }

    #[test]
    fn an_unknown_rule_is_an_error_with_its_place() {
        let text = "[audit]\nallow = [{ rule = \"download-exe\", reason = \"x\" }]\n";
        let e = Config::from_toml(text, Path::new("skills.toml")).unwrap_err();
        let AuditError::Config {
            line,
            column,
            message,
            ..
        } = e
        else {
            panic!()
        };
        assert_eq!((line, column), (2, 19));
        assert!(
            message.contains("did you mean `download-exec`"),
            "{message}"
        );
    }
}
