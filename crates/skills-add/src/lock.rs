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

/// The most bytes of a lock file read: one of ten thousand skills is about 3 MB, and a lock
/// that is a link to `/dev/zero` must not be read forever.
const MAX_LOCK_BYTES: u64 = 16 * 1024 * 1024;

const HEADER: &str = "\
# skills.lock: the skills `skills add` installed here. Commit it: `skills sync` installs
# the same ones, `skills sync --frozen` fails when the folders differ from it.
";

/// A lock file: every locked skill by name.
///
/// A lock arrives with the repository (a pull request can change it), so nothing in it is
/// trusted: every way of reading one ([`Lock::parse`], [`Lock::read`], serde) refuses an
/// entry whose name is not a valid skill name (names become folders: `../x` or
/// `/repo/.git/hooks` would be written to) or whose path, URL, ref, commit or digest is not
/// of its form, before any of it is used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "Unchecked")]
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
    /// The base URL of the skills registry `source` was looked up in, for a registry skill
    /// (`source` is then its name there): `sync`, `check` and `update` ask that registry
    /// again, whatever registry the environment names. Locks written before it was recorded
    /// have none, and fall back to the configured registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// The registry version installed, for a skill hosted there (`NAME@VERSION`): `sync`
    /// installs that version again, yanked or not; `update` moves to the latest. Its
    /// files' digest is [`Locked::hash`], the registry's digest of the version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The skill's directory in the source, `/`-separated (`skills/pdf`; empty for the
    /// source's root).
    #[serde(default)]
    pub path: String,
    /// [`tree_hash`](crate::tree_hash) of the installed files.
    pub hash: String,
    /// The agents it is linked into beside the canonical folder, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// How many lint errors the user accepted when it was installed (`--allow-lint-errors`);
    /// `sync` installs this version again without asking.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lint_errors: u32,
    /// The audit risks the user accepted when it was installed (`--allow-risk RULE`), and the
    /// digest of the files they were accepted for: `sync` installs those files again without
    /// asking, and a skill whose files changed is asked about again. Locks written before the
    /// audit have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_risk: Option<AcceptedRisks>,
}

/// Audit findings a user accepted for one version of a skill (`skills add --allow-risk RULE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AcceptedRisks {
    /// The audit rules accepted, by id (`download-exec`), sorted.
    pub rules: Vec<String>,
    /// The audit's digest of the files they were accepted for (`sha256:` and 64 lowercase
    /// hexadecimal digits): `skills_audit::Report::digest`.
    pub digest: String,
}

impl AcceptedRisks {
    /// `rules` (sorted, each once) accepted for the files of `digest`.
    #[must_use]
    pub fn new(mut rules: Vec<String>, digest: impl Into<String>) -> Self {
        rules.sort();
        rules.dedup();
        Self {
            rules,
            digest: digest.into(),
        }
    }

    /// The rules accepted for the files of `digest`: none when the files differ.
    #[must_use]
    pub fn for_digest(&self, digest: &str) -> &[String] {
        if self.digest == digest {
            &self.rules
        } else {
            &[]
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if takes a reference.
fn is_zero(n: &u32) -> bool {
    *n == 0
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
            registry: None,
            version: None,
            path: path.into(),
            hash: hash.into(),
            agents: Vec::new(),
            lint_errors: 0,
            allow_risk: None,
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
    /// [`AddError::Lock`] for a file that is not a lock file of this version, or holds an
    /// entry that cannot be trusted (with line and column), [`AddError::Io`] when it cannot
    /// be read, is not a regular file, or is over 16 MiB.
    pub fn read(path: &Path) -> Result<Self, AddError> {
        let bytes = match skills_core::read_bounded(path, MAX_LOCK_BYTES) {
            Ok(bytes) => bytes,
            Err(skills_core::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::new());
            }
            Err(skills_core::ReadError::Io(e)) => return Err(AddError::io(path, e)),
            Err(e) => return Err(AddError::io(path, std::io::Error::other(e))),
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let (line, column) = skills_frontmatter::line_col(
                &String::from_utf8_lossy(e.as_bytes()),
                e.utf8_error().valid_up_to(),
            );
            AddError::Lock {
                path: path.to_path_buf(),
                line,
                column,
                message: "the file is not UTF-8 text".to_string(),
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses `text`, the contents of `path`.
    ///
    /// # Errors
    ///
    /// [`AddError::Lock`] as for [`Lock::read`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, AddError> {
        let lock: Unchecked = toml::from_str(text).map_err(|e: toml::de::Error| {
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
        for (name, entry) in &lock.skills {
            if let Err(invalid) = check_entry(name, entry) {
                let (line, column) = invalid
                    .span(text, name)
                    .map_or((1, 1), |at| skills_frontmatter::line_col(text, at));
                return Err(AddError::Lock {
                    path: path.to_path_buf(),
                    line,
                    column,
                    message: invalid.message,
                });
            }
        }
        Ok(Self {
            version: lock.version,
            skills: lock.skills,
        })
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

/// A lock as it reads, before its entries are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Unchecked {
    version: u32,
    #[serde(default)]
    skills: BTreeMap<String, Locked>,
}

impl TryFrom<Unchecked> for Lock {
    type Error = String;

    fn try_from(lock: Unchecked) -> Result<Self, String> {
        for (name, entry) in &lock.skills {
            check_entry(name, entry).map_err(|invalid| invalid.message)?;
        }
        Ok(Self {
            version: lock.version,
            skills: lock.skills,
        })
    }
}

/// An entry that cannot be trusted: the field (`None` for its name) and why.
struct Invalid {
    field: Option<&'static str>,
    message: String,
}

impl Invalid {
    /// Where in `text` the offending key or value of the entry `name` is. Found again on
    /// this rare path rather than carried by every entry.
    fn span(&self, text: &str, name: &str) -> Option<usize> {
        let document = toml::de::DeTable::parse(text).ok()?;
        let (_, skills) = document
            .get_ref()
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == "skills")?;
        let toml::de::DeValue::Table(skills) = skills.get_ref() else {
            return None;
        };
        let (key, entry) = skills.iter().find(|(k, _)| k.get_ref().as_ref() == name)?;
        let Some(field) = self.field else {
            return Some(key.span().start);
        };
        let toml::de::DeValue::Table(entry) = entry.get_ref() else {
            return Some(key.span().start);
        };
        entry
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == field)
            .map_or(Some(key.span().start), |(_, value)| {
                Some(value.span().start)
            })
    }
}

/// Whether `text` can be a registry version: 1 to 64 of letters, digits, `.`, `_`, `+`,
/// `-`, starting with a letter or digit (it becomes a URL path segment).
fn is_version(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
}

/// Checks what of a lock entry becomes a path, a command argument or a digest to compare.
fn check_entry(name: &str, entry: &Locked) -> Result<(), Invalid> {
    let invalid = |field, message: String| Err(Invalid { field, message });
    if !skills_frontmatter::is_valid_name(name) {
        return invalid(
            None,
            format!(
                "`{}` is not a skill name: each name in a lock becomes a folder, so it must be one (lowercase letters, digits and single hyphens, at most 64 characters); a lock that names paths was not written by `skills add`",
                crate::clip(&name.escape_debug().to_string(), 80)
            ),
        );
    }
    if !is_inner_path(&entry.path) {
        return invalid(
            Some("path"),
            format!(
                "`path` of `{name}` must be a `/`-separated path inside the source, without `.` or `..` parts (it is `{}`)",
                crate::clip(&entry.path.escape_debug().to_string(), 80)
            ),
        );
    }
    if entry.source.is_empty() || entry.source.chars().any(char::is_control) {
        return invalid(
            Some("source"),
            format!("`source` of `{name}` must be a source as `skills add` takes it"),
        );
    }
    if let Some(url) = &entry.url
        && !crate::git::is_fetchable_url(url)
    {
        return invalid(
            Some("url"),
            format!(
                "`url` of `{name}` must be a repository URL (https, http, ssh, git or file, or user@host:path), not `{}`",
                crate::clip(&url.escape_debug().to_string(), 80)
            ),
        );
    }
    if let Some(reference) = &entry.reference
        && !crate::git::is_ref_name(reference)
    {
        return invalid(
            Some("ref"),
            format!(
                "`ref` of `{name}` must be a branch, tag or commit name, not `{}`",
                crate::clip(&reference.escape_debug().to_string(), 80)
            ),
        );
    }
    if let Some(version) = &entry.version
        && !is_version(version)
    {
        return invalid(
            Some("version"),
            format!(
                "`version` of `{name}` must be a registry version (letters, digits, `.`, `_`, `+`, `-`, at most 64), not `{}`",
                crate::clip(&version.escape_debug().to_string(), 80)
            ),
        );
    }
    if let Some(commit) = &entry.commit
        && !crate::git::is_commit_like(commit)
    {
        return invalid(
            Some("commit"),
            format!("`commit` of `{name}` must be 7 to 64 hexadecimal digits"),
        );
    }
    if let Some(registry) = &entry.registry
        && !is_registry_url(registry)
    {
        return invalid(
            Some("registry"),
            format!(
                "`registry` of `{name}` must be the http(s) URL of a skills registry, without credentials, query or fragment, of at most {MAX_REGISTRY_URL} bytes (it is `{}`); set it to the registry's URL, or remove the line and name the registry with SKILLS_REGISTRY",
                crate::clip(&registry.escape_debug().to_string(), 80)
            ),
        );
    }
    if !crate::hash::is_digest(&entry.hash) {
        return invalid(
            Some("hash"),
            format!("`hash` of `{name}` must be `sha256:` and 64 lowercase hexadecimal digits"),
        );
    }
    if let Some(risks) = &entry.allow_risk {
        if !crate::hash::is_digest(&risks.digest) {
            return invalid(
                Some("allow_risk"),
                format!(
                    "`allow_risk.digest` of `{name}` must be `sha256:` and 64 lowercase hexadecimal digits"
                ),
            );
        }
        if let Some(rule) = risks.rules.iter().find(|r| !is_rule_id(r)) {
            return invalid(
                Some("allow_risk"),
                format!(
                    "`allow_risk.rules` of `{name}` holds `{}`, which is not an audit rule id (`skills audit --rules` lists them)",
                    crate::clip(&rule.escape_debug().to_string(), 80)
                ),
            );
        }
    }
    if let Some(agent) = entry
        .agents
        .iter()
        .find(|a| a.is_empty() || !a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    {
        return invalid(
            Some("agents"),
            format!(
                "`agents` of `{name}` holds `{}`, which is not an agent id",
                crate::clip(&agent.escape_debug().to_string(), 80)
            ),
        );
    }
    Ok(())
}

/// Whether `rule` has the form of an audit rule id: lowercase ASCII letters and digits in
/// words joined by single hyphens, at most 64 bytes. Whether it names a rule is the audit's to
/// say: a rule this version does not know accepts nothing.
fn is_rule_id(rule: &str) -> bool {
    rule.len() <= 64
        && !rule.is_empty()
        && rule.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The longest registry URL read from a lock: a registry's base URL is short, and a longer
/// value was not written by `skills add`.
const MAX_REGISTRY_URL: usize = 2048;

/// Whether `url` can be the base URL of a skills registry that a lock names: `http://` or
/// `https://` and a host, no user name or password (a lock is committed: credentials in it
/// would be published, and the token has its own variable), no query or fragment (the API's
/// paths are appended to it), no whitespace, control characters or backslashes, at most
/// 2048 bytes.
///
/// ```
/// use skills_add::is_registry_url;
///
/// assert!(is_registry_url("https://skills.acme.internal"));
/// assert!(is_registry_url("http://127.0.0.1:8470/registry"));
/// assert!(!is_registry_url("https://user:secret@skills.acme.internal"));
/// assert!(!is_registry_url("file:///etc/passwd"));
/// ```
#[must_use]
pub fn is_registry_url(url: &str) -> bool {
    if url.len() > MAX_REGISTRY_URL
        || url
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || matches!(c, '?' | '#' | '\\'))
    {
        return false;
    }
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or_default();
    !authority.is_empty() && !authority.starts_with(':') && !authority.contains('@')
}

/// Whether `path` is empty or `/`-separated names that stay inside the directory they are
/// joined to: no root, no drive, no `.`, `..`, empty or backslashed parts.
pub(crate) fn is_inner_path(path: &str) -> bool {
    path.is_empty()
        || path.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && !part.contains(['\\', ':'])
                && !part.chars().any(char::is_control)
        })
}

/// Held while a command reads, changes and writes a lock: a second `skills add` in the same
/// project waits for the first instead of installing skills the last writer's lock forgets.
/// Released when dropped (or when the process dies: it is an advisory file lock).
#[derive(Debug)]
pub struct LockGuard {
    _file: std::fs::File,
}

/// Takes the lock of the lock file `lock`, waiting for another process that holds it. The
/// lock is a file under `cache` (`projects/<digest of the path>.lock`), so nothing is added
/// to the project; the same kind of lock [`git::fetch`](crate::git::fetch) takes on a cache
/// entry.
///
/// # Errors
///
/// [`AddError::Io`] when the lock file cannot be created or locked.
pub fn hold(cache: &Path, lock: &Path) -> Result<LockGuard, AddError> {
    let absolute = std::path::absolute(lock).unwrap_or_else(|_| lock.to_path_buf());
    let digest = skills_core::digest::sha256_hex(absolute.as_os_str().as_encoded_bytes());
    let dir = cache.join("projects");
    std::fs::create_dir_all(&dir).map_err(|e| AddError::io(&dir, e))?;
    let path = dir.join(format!("{}.lock", digest.get(..20).unwrap_or(&digest)));
    let file = std::fs::File::create(&path).map_err(|e| AddError::io(&path, e))?;
    file.lock().map_err(|e| AddError::io(&path, e))?;
    Ok(LockGuard { _file: file })
}

/// Where the user's lock lives for `--global` installs: `$XDG_STATE_HOME/skills/skills.lock`,
/// else `~/.local/state/skills/skills.lock`.
#[must_use]
pub fn global_lock_path(home: &Path) -> PathBuf {
    skills_core::fs::state_dir(home).join(LOCK_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_sorted_and_reads_back() {
        let mut lock = Lock::new();
        let mut pdf = Locked::new("o/r", "skills/pdf", format!("sha256:{}", "a".repeat(64)));
        pdf.url = Some("https://github.com/o/r.git".into());
        pdf.commit = Some("0123abc".into());
        pdf.agents = vec!["claude-code".into()];
        lock.skills.insert("pdf".into(), pdf);
        lock.skills.insert(
            "docx".into(),
            Locked::new("./local", "", format!("sha256:{}", "b".repeat(64))),
        );
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

    /// A lock from a pull request: each entry that would become a path outside the skills
    /// folder, or an argument git could run, is refused at the key or value that is wrong.
    #[test]
    fn entries_that_cannot_be_trusted_are_refused_where_they_are() {
        let hash = format!("sha256:{}", "0".repeat(64));
        let entry = |key: &str, extra: &str| {
            format!(
                "version = 1\n\n[skills.{key}]\nsource = \"o/r\"\npath = \"skills/x\"\nhash = \"{hash}\"\n{extra}"
            )
        };
        let fine = entry(
            "pdf",
            "url = \"https://github.com/o/r.git\"\ncommit = \"0123abc\"\nversion = \"1.2.0-rc.1\"\n",
        );
        assert_eq!(
            Lock::parse(&fine, Path::new("skills.lock"))
                .unwrap()
                .skills
                .len(),
            1
        );
        for (text, at, says) in [
            (
                entry("\"/abs/project/.git/hooks\"", ""),
                "3:9",
                "is not a skill name",
            ),
            (entry("\"../../../x\"", ""), "3:9", "is not a skill name"),
            (entry("\"PDF\"", ""), "3:9", "is not a skill name"),
            (entry("\"a/b\"", ""), "3:9", "is not a skill name"),
            (
                entry("pdf", "").replace("skills/x", "../../etc"),
                "5:8",
                "`path` of `pdf`",
            ),
            (
                entry("pdf", "").replace("skills/x", "/etc"),
                "5:8",
                "`path`",
            ),
            (entry("pdf", "url = \"ext::sh -c x\"\n"), "7:7", "`url`"),
            (entry("pdf", "url = \"-oProxyCommand=x\"\n"), "7:7", "`url`"),
            (entry("pdf", "ref = \"--upload-pack=x\"\n"), "7:7", "`ref`"),
            (entry("pdf", "commit = \"HEAD; rm\"\n"), "7:10", "`commit`"),
            (
                entry("pdf", "version = \"../1\"\n"),
                "7:11",
                "`version` of `pdf`",
            ),
            (
                entry("pdf", "version = \"\"\n"),
                "7:11",
                "`version` of `pdf`",
            ),
            (entry("pdf", "agents = [\"../x\"]\n"), "7:10", "`agents`"),
            (entry("pdf", "").replace(&hash, "sha256:x"), "6:8", "`hash`"),
            (
                entry("pdf", "registry = \"file:///etc/passwd\"\n"),
                "7:12",
                "`registry` of `pdf`",
            ),
            (
                entry("pdf", "registry = \"https://me:pw@skills.acme.internal\"\n"),
                "7:12",
                "without credentials",
            ),
            (
                entry(
                    "pdf",
                    &format!("registry = \"https://a.b/{}\"\n", "x".repeat(3000)),
                ),
                "7:12",
                "at most 2048 bytes",
            ),
        ] {
            let e = Lock::parse(&text, Path::new("skills.lock")).unwrap_err();
            let e = e.to_string();
            assert!(
                e.starts_with(&format!("skills.lock:{at}: ")),
                "{at}: {e}\n{text}"
            );
            assert!(e.contains(says), "{says}: {e}");
            // Serde readers of a lock are held to the same rules.
            assert!(toml::from_str::<Lock>(&text).is_err(), "{text}");
        }
    }

    /// A registry skill's entry keeps the registry it came from, and reads back.
    #[test]
    fn a_registry_is_recorded_and_read_back() {
        let mut lock = Lock::new();
        let mut entry = Locked::new("brainstorming", "", format!("sha256:{}", "c".repeat(64)));
        entry.registry = Some("https://skills.acme.internal".into());
        lock.skills.insert("brainstorming".into(), entry);
        let text = lock.to_text();
        assert!(
            text.contains("registry = \"https://skills.acme.internal\"\n"),
            "{text}"
        );
        assert_eq!(Lock::parse(&text, Path::new("skills.lock")).unwrap(), lock);
    }

    /// Accepted risks are recorded with their digest and read back; a lock without them (from
    /// before the audit) reads as before, and a malformed one is refused where it is.
    #[test]
    fn accepted_risks_are_recorded_and_read_back() {
        let hash = format!("sha256:{}", "d".repeat(64));
        let mut lock = Lock::new();
        let mut entry = Locked::new("o/r", "skills/setup", hash.clone());
        entry.allow_risk = Some(AcceptedRisks::new(
            vec![
                "persistence".into(),
                "download-exec".into(),
                "persistence".into(),
            ],
            hash.clone(),
        ));
        lock.skills.insert("setup".into(), entry);
        let text = lock.to_text();
        assert!(
            text.contains(&format!(
                "[skills.setup.allow_risk]\nrules = [\"download-exec\", \"persistence\"]\ndigest = \"{hash}\"\n"
            )),
            "{text}"
        );
        let back = Lock::parse(&text, Path::new("skills.lock")).unwrap();
        assert_eq!(back, lock);
        let risks = back.skills["setup"].allow_risk.as_ref().unwrap();
        assert_eq!(risks.for_digest(&hash), ["download-exec", "persistence"]);
        assert!(
            risks
                .for_digest(&format!("sha256:{}", "e".repeat(64)))
                .is_empty()
        );
        let old = format!("version = 1\n[skills.setup]\nsource = \"o/r\"\nhash = \"{hash}\"\n");
        assert_eq!(
            Lock::parse(&old, Path::new("skills.lock")).unwrap().skills["setup"].allow_risk,
            None
        );
        for (bad, at, says) in [
            (
                text.replace("\"download-exec\"", "\"Download exec\""),
                "10:1",
                "not an audit rule id",
            ),
            (
                text.replace(&format!("digest = \"{hash}"), "digest = \"x"),
                "10:1",
                "`allow_risk.digest`",
            ),
        ] {
            let e = Lock::parse(&bad, Path::new("skills.lock"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{e}\n{bad}");
            assert!(e.starts_with(&format!("skills.lock:{at}: ")), "{e}\n{bad}");
        }
    }

    #[test]
    fn registry_urls() {
        for fine in [
            "https://skills.acme.internal",
            "HTTP://127.0.0.1:8470",
            "http://[::1]:8470/registry/",
        ] {
            assert!(is_registry_url(fine), "{fine}");
        }
        for bad in [
            "",
            "skills.acme.internal",
            "ftp://h",
            "https://",
            "https://:443",
            "https:///x",
            "https://u@h",
            "https://u:p@h/x",
            "https://h/x?token=1",
            "https://h/#x",
            "https://h/x y",
            "https://h\\x",
            "https://h/\u{7}",
            "-oProxyCommand=x",
        ] {
            assert!(!is_registry_url(bad), "{bad:?}");
        }
        assert!(is_registry_url(&format!("https://h/{}", "x".repeat(2000))));
        assert!(!is_registry_url(&format!("https://h/{}", "x".repeat(2048))));
    }

    #[test]
    fn a_lock_that_is_not_a_regular_file_is_not_read() {
        let e = Lock::read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
