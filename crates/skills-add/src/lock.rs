//! `skills.lock`: what `skills add` installed, from where, at which commit, with which
//! digest, linked into which agents. TOML, one table per skill, sorted by name, so two
//! branches that add different skills merge without a conflict.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::AddError;

/// The name of the project's lock file, at the project root.
pub const LOCK_FILE: &str = "skills.lock";

/// The lock file's format version.
const VERSION: u32 = 1;

const HEADER: &str = "\
# skills.lock: the skills `skills add` installed here. Commit it: `skills sync` installs
# the same ones, `skills sync --frozen` fails when the folders differ from it.
";

/// A lock file: every locked skill by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Lock {
    /// The format version (1).
    pub version: u32,
    /// The skills, by name.
    #[serde(default)]
    pub skills: BTreeMap<String, Locked>,
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Locked {
    /// The source as given to `skills add` (`anthropics/skills`, a URL, a path).
    pub source: String,
    /// The repository `git` fetched, for a git source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The ref asked for (`#ref`), when one was.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The commit installed from, for a git source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The skill's directory in the source, `/`-separated (`skills/pdf`; empty for the
    /// source's root).
    #[serde(default)]
    pub path: String,
    /// [`tree_hash`](crate::tree_hash) of the installed files.
    pub hash: String,
    /// The agents it is linked into beside the canonical folder, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}

impl Locked {
    /// A skill from `source`, installed with digest `hash`.
    #[must_use]
    pub fn new(
        source: impl Into<String>,
        path: impl Into<String>,
        hash: impl Into<String>,
    ) -> Self {
        Self {
            source: source.into(),
            url: None,
            reference: None,
            commit: None,
            path: path.into(),
            hash: hash.into(),
            agents: Vec::new(),
        }
    }
}

impl Lock {
    /// An empty lock.
    #[must_use]
    pub fn new() -> Self {
        Self {
            version: VERSION,
            skills: BTreeMap::new(),
        }
    }

    /// Reads `path`; an empty lock when it does not exist.
    ///
    /// # Errors
    ///
    /// [`AddError::Lock`] for a file that is not a lock file of this version (with line and
    /// column), [`AddError::Io`] when it cannot be read.
    pub fn read(path: &Path) -> Result<Self, AddError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(e) => return Err(AddError::io(path, e)),
        };
        Self::parse(&text, path)
    }

    /// Parses `text`, the contents of `path`.
    ///
    /// # Errors
    ///
    /// [`AddError::Lock`] as for [`Lock::read`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, AddError> {
        let lock: Self = toml::from_str(text).map_err(|e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map(|s| skills_frontmatter::line_col(text, s.start))
                .unwrap_or((1, 1));
            AddError::Lock {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        if lock.version != VERSION {
            return Err(AddError::Lock {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                message: format!(
                    "version {} is not one this skills reads (it reads {VERSION}); update skills",
                    lock.version
                ),
            });
        }
        Ok(lock)
    }

    /// The file's text: the header comment, then `version` and one table per skill, in
    /// name order.
    #[must_use]
    pub fn to_text(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("{HEADER}{body}")
    }

    /// Writes the lock to `path` atomically.
    ///
    /// # Errors
    ///
    /// [`AddError::Io`].
    pub fn write(&self, path: &Path) -> Result<(), AddError> {
        skills_core::durable::write_atomically(path, self.to_text().as_bytes())
            .map_err(|e| AddError::io(path, e))
    }
}

/// Where the user's lock lives for `--global` installs: `$XDG_STATE_HOME/skills/skills.lock`,
/// else `~/.local/state/skills/skills.lock`.
#[must_use]
pub fn global_lock_path(home: &Path) -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.join(".local/state"))
        .join("skills")
        .join(LOCK_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_sorted_and_reads_back() {
        let mut lock = Lock::new();
        let mut pdf = Locked::new("o/r", "skills/pdf", "sha256:aa");
        pdf.url = Some("https://github.com/o/r.git".into());
        pdf.commit = Some("0123".into());
        pdf.agents = vec!["claude-code".into()];
        lock.skills.insert("pdf".into(), pdf);
        lock.skills
            .insert("docx".into(), Locked::new("./local", "", "sha256:bb"));
        let text = lock.to_text();
        assert!(text.starts_with("# skills.lock"), "{text}");
        let docx = text.find("[skills.docx]").unwrap();
        let pdf_at = text.find("[skills.pdf]").unwrap();
        assert!(docx < pdf_at, "{text}");
        assert_eq!(Lock::parse(&text, Path::new("skills.lock")).unwrap(), lock);
    }

    #[test]
    fn errors_say_where() {
        let e = Lock::parse(
            "version = 1\n[skills.pdf]\nsource = 3\n",
            Path::new("skills.lock"),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("skills.lock:3:10: "), "{e}");
        let e = Lock::parse("version = 2\n", Path::new("skills.lock")).unwrap_err();
        assert!(e.to_string().contains("version 2"), "{e}");
    }
}
