//! Severity configuration: `skills.toml` and the `--deny`/`--warn`/`--allow`/`--strict` flags.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diagnostic::Severity;
use crate::rules::{self, RuleId};

/// The file name of the configuration file.
pub const CONFIG_FILE: &str = "skills.toml";

/// What to do with a rule's findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Report as an error.
    Deny,
    /// Report as a warning.
    Warn,
    /// Do not report.
    Allow,
}

/// Which agent's frontmatter extensions a project expects (`[lint] profile`).
///
/// Most skills published today are written for Claude Code and carry its fields
/// (`disable-model-invocation`, `allowed_tools`...); a project that targets it does not want
/// a `vendor-field` warning on each. The other checks are the same in every profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Profile {
    /// The specification alone: every vendor field is reported (the default).
    #[default]
    Spec,
    /// Claude Code's fields are expected: `vendor-field` reports only other agents' fields.
    ClaudeCode,
}

impl Profile {
    /// Whether the frontmatter field `key` is an extension this profile expects.
    pub fn expects_field(self, key: &str) -> bool {
        match self {
            Self::Spec => false,
            Self::ClaudeCode => skills_frontmatter::VENDOR_FIELDS
                .iter()
                .any(|(field, vendor)| *field == key && *vendor == "Claude Code"),
        }
    }
}

/// Which rules report at which severity, and whether warnings fail the run.
#[derive(Debug, Clone, Default)]
pub struct Config {
    levels: HashMap<RuleId, Level>,
    /// Warnings fail the run too.
    pub strict: bool,
    /// Which agent's extensions are expected.
    pub profile: Profile,
    /// The configuration file this was read from, if any.
    pub source: Option<PathBuf>,
}

/// `id` as a message shows it: a hostile `skills.toml` can hold a 10 MB "rule id".
fn shorten(id: &str) -> String {
    const MAX: usize = 64;
    match id.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}… ({} bytes)", id.get(..cut).unwrap_or(""), id.len()),
        None => id.to_string(),
    }
}

/// A problem with the configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A rule id that does not exist.
    #[error("unknown rule `{}`{}", shorten(id), suggestion.map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownRule {
        /// The id as given.
        id: String,
        /// The closest real id.
        suggestion: Option<&'static str>,
    },
    /// A rule id in `skills.toml` that does not exist, with where it is written.
    #[error("{}: unknown rule `{}`{}", path.display(), shorten(id), suggestion.map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownRuleIn {
        /// The file.
        path: PathBuf,
        /// The id as written.
        id: String,
        /// The closest real id.
        suggestion: Option<&'static str>,
        /// Byte range of the id (with its quotes) in the file.
        span: std::ops::Range<usize>,
        /// The file's text, for rendering.
        text: String,
    },
    /// `skills.toml` could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `skills.toml` is not valid.
    #[error("invalid {}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, from the TOML parser.
        message: String,
        /// Byte range of the problem in the file.
        span: Option<std::ops::Range<usize>>,
        /// The file's text, for rendering.
        text: String,
    },
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    lint: LintSection,
    /// `[registry]`: read by the `skills` registry client, not by lint.
    #[serde(default)]
    #[allow(dead_code)]
    registry: Option<toml::Table>,
    /// `[doctor]`: read by `skills doctor`, not by lint.
    #[serde(default)]
    #[allow(dead_code)]
    doctor: Option<toml::Table>,
    /// `[audit]`: read by `skills audit` and the installers' audit (`skills-audit`), not
    /// by lint.
    #[serde(default)]
    #[allow(dead_code)]
    audit: Option<toml::Table>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LintSection {
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    deny: Vec<toml::Spanned<String>>,
    #[serde(default)]
    warn: Vec<toml::Spanned<String>>,
    #[serde(default)]
    allow: Vec<toml::Spanned<String>>,
    #[serde(default)]
    profile: Profile,
}

impl Config {
    /// Sets the level of one rule.
    ///
    /// # Errors
    ///
    /// [`ConfigError::UnknownRule`] when no rule has this id.
    pub fn set(&mut self, id: &str, level: Level) -> Result<(), ConfigError> {
        let rule = rules::rule(id).ok_or_else(|| ConfigError::UnknownRule {
            id: id.to_string(),
            suggestion: rules::suggest(id),
        })?;
        self.levels.insert(rule.id, level);
        Ok(())
    }

    /// The severity a rule reports at, or `None` when it is allowed.
    pub fn severity(&self, id: RuleId) -> Option<Severity> {
        match self.levels.get(&id) {
            Some(Level::Deny) => Some(Severity::Error),
            Some(Level::Warn) => Some(Severity::Warning),
            Some(Level::Allow) => None,
            None => Some(id.rule().default),
        }
    }

    /// Reads a `skills.toml`. Within the file, `allow` is applied first, then `warn`, then
    /// `deny`, so a rule named twice ends at the stricter level.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, is not valid TOML, has unknown keys, or names an unknown
    /// rule.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text, path)
    }

    /// Parses the text of a `skills.toml` (`path` is only used in errors).
    ///
    /// # Errors
    ///
    /// As [`Config::from_file`].
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let file: File = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.message().to_string(),
            span: e.span(),
            text: text.to_string(),
        })?;
        let mut config = Config {
            strict: file.lint.strict,
            profile: file.lint.profile,
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        for (ids, level) in [
            (&file.lint.allow, Level::Allow),
            (&file.lint.warn, Level::Warn),
            (&file.lint.deny, Level::Deny),
        ] {
            for spanned in ids {
                // Named where it is written: the file, line and column.
                let span = spanned.span();
                config.set(spanned.get_ref(), level).map_err(|e| match e {
                    ConfigError::UnknownRule { id, suggestion } => ConfigError::UnknownRuleIn {
                        path: path.to_path_buf(),
                        id,
                        suggestion,
                        span,
                        text: text.to_string(),
                    },
                    other => other,
                })?;
            }
        }
        Ok(config)
    }

    /// Finds the nearest `skills.toml` in `start` or its ancestors and reads it; the default
    /// configuration when there is none.
    ///
    /// # Errors
    ///
    /// As [`Config::from_file`], for the file found.
    pub fn discover(start: &Path) -> Result<Self, ConfigError> {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        for dir in start.ancestors() {
            let candidate = dir.join(CONFIG_FILE);
            if candidate.is_file() {
                return Self::from_file(&candidate);
            }
        }
        Ok(Config::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles() {
        let c = Config::from_toml(
            "[lint]\nprofile = \"claude-code\"\n",
            Path::new("skills.toml"),
        )
        .unwrap();
        assert_eq!(c.profile, Profile::ClaudeCode);
        assert!(c.profile.expects_field("disable-model-invocation"));
        assert!(
            !c.profile.expects_field("allowed_tools"),
            "not Claude Code's"
        );
        assert!(!Profile::Spec.expects_field("model"));
        let bad = Config::from_toml("[lint]\nprofile = \"cursor\"\n", Path::new("skills.toml"))
            .unwrap_err();
        assert!(bad.to_string().contains("claude-code"), "{bad}");
    }

    #[test]
    fn the_registry_table_is_the_clients() {
        let c = Config::from_toml(
            "[registry]\nurl = \"http://127.0.0.1:8470\"\n[lint]\nstrict = true\n",
            Path::new("skills.toml"),
        );
        assert!(c.is_ok_and(|c| c.strict));
        assert!(Config::from_toml("[registri]\n", Path::new("skills.toml")).is_err());
    }

    #[test]
    fn levels_from_toml() {
        let c = Config::from_toml(
            "[lint]\nstrict = true\nallow = [\"vendor-field\"]\ndeny = [\"body-too-long\"]\n",
            Path::new("skills.toml"),
        )
        .unwrap();
        assert!(c.strict);
        assert_eq!(c.severity(RuleId::VendorField), None);
        assert_eq!(c.severity(RuleId::BodyTooLong), Some(Severity::Error));
        assert_eq!(c.severity(RuleId::NameMissing), Some(Severity::Error));
        assert_eq!(c.severity(RuleId::UnknownField), Some(Severity::Warning));
    }

    #[test]
    fn unknown_rules_and_keys_are_errors() {
        let text = "[lint]\nallow = [\"name-to-long\"]\n";
        let err = Config::from_toml(text, Path::new("s.toml")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.toml: unknown rule `name-to-long`; did you mean `name-too-long`?"
        );
        // Where it is written, for the file, line and column.
        let ConfigError::UnknownRuleIn { span, .. } = err else {
            panic!("{err:?}");
        };
        assert_eq!(&text[span], "\"name-to-long\"");
        let err = Config::from_toml("[lint]\nalow = []\n", Path::new("s.toml")).unwrap_err();
        assert!(
            matches!(err, ConfigError::Parse { span: Some(_), .. }),
            "{err}"
        );
    }
}
