//! `skills-lock.json`, the project lock of the npm `skills` tool (1.7): read so that
//! `skills sync` installs what a project locked with it. Never written.
//!
//! Its shape, as npm `skills` 1.7.4 writes it (`JSON.stringify(lock, null, 2)`, keys
//! sorted):
//!
//! ```json
//! {
//!   "version": 1,
//!   "skills": {
//!     "pdf": {
//!       "source": "file:///srv/skills",
//!       "sourceUrl": "file:///srv/skills",
//!       "sourceType": "git",
//!       "skillPath": "skills/pdf/SKILL.md",
//!       "computedHash": "b7903184c54fb40f2a8f2cec3f2d14fd1d1fe16a091a16155018043c2d94d911"
//!     }
//!   }
//! }
//! ```
//!
//! `sourceType` is `github` (`source` is `owner/repo`), `gitlab` or `git` (`source` and
//! `sourceUrl` the repository URL), `local` (`source` a path, relative to the lock's
//! directory), `well-known` (a site's skill index) or `node_modules` (a skill shipped in an
//! npm package). `ref` is the branch or tag asked for; `skillPath` the skill's `SKILL.md` in
//! the repository (not written for local sources). There is no commit: `computedHash` is
//! all that pins a version ([`npm_folder_hash`] says how it is computed).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::AddError;

/// The name of npm `skills`' project lock, at the project root.
pub const NPM_LOCK_FILE: &str = "skills-lock.json";

/// The format version npm `skills` 1.7 writes, the one read.
const VERSION: u64 = 1;

/// The most bytes read: an entry is about 250 bytes, so this is tens of thousands of
/// skills, and a lock that is a link to `/dev/zero` must not be read forever.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// npm `skills`' project lock, checked: every entry kept can be fetched without harm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NpmLock {
    /// The skills, by name (the name each installs as).
    pub skills: BTreeMap<String, NpmLocked>,
}

/// One skill of [`NpmLock`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NpmLocked {
    /// `sourceType` as written.
    pub source_type: String,
    /// `source` as written.
    pub source: String,
    /// Where the skill is fetched from.
    pub origin: NpmOrigin,
    /// The skill's directory in its source, `/`-separated (`skillPath` without its
    /// `SKILL.md`; empty for the root), when the lock records it.
    pub path: Option<String>,
    /// `computedHash`: 64 lowercase hexadecimal digits.
    pub computed_hash: String,
}

/// Where an [`NpmLocked`] skill comes from. Closed: a source of any other kind is
/// [`NpmOrigin::Unsupported`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NpmOrigin {
    /// A git repository: what `git` clones, and the ref asked for (the default branch when
    /// `None`).
    Git {
        /// A URL [`git::fetch`](crate::git::fetch) accepts.
        url: String,
        /// A ref name.
        reference: Option<String>,
    },
    /// A local directory, as written: relative to the lock's directory when relative.
    Dir(PathBuf),
    /// A kind of source this crate does not install from (`well-known`, `node_modules`, one
    /// it does not know): why, for a message.
    Unsupported(String),
}

/// How a skill's files compare with the `computedHash` of its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashCheck {
    /// The files are the ones locked.
    Same,
    /// They are not: the digest of what is there.
    Differs(String),
    /// The digest cannot be reproduced for these files: why.
    Unknown(String),
}

impl NpmLock {
    /// Reads `path`.
    ///
    /// # Errors
    ///
    /// [`AddError::NpmLock`] for a file that is not such a lock, or holds an entry that
    /// cannot be trusted (a name that is not a valid skill name, a `skillPath` that leaves
    /// its source, a URL `git` must not be given, a field of the wrong type), with the line
    /// and column; [`AddError::Io`] when it cannot be read, is not a regular file, or is over
    /// 16 MiB.
    pub fn read(path: &Path) -> Result<Self, AddError> {
        let bytes = match skills_core::read_bounded(path, MAX_BYTES) {
            Ok(bytes) => bytes,
            Err(skills_core::ReadError::Io(e)) => return Err(AddError::io(path, e)),
            Err(e) => return Err(AddError::io(path, std::io::Error::other(e))),
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let (line, column) = skills_frontmatter::line_col(
                &String::from_utf8_lossy(e.as_bytes()),
                e.utf8_error().valid_up_to(),
            );
            npm_error(
                path,
                (line, column),
                None,
                "the file is not UTF-8 text".into(),
            )
        })?;
        Self::parse(&text, path)
    }

    /// Parses `text`, the contents of `path`.
    ///
    /// # Errors
    ///
    /// [`AddError::NpmLock`] as for [`NpmLock::read`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, AddError> {
        // Typed by hand from the JSON values, not by derive: each message then names the
        // entry and the field that is wrong, which serde's would not.
        let document: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            // serde_json ends its message with the place, which the error already leads with.
            let message = e.to_string();
            let place = format!(" at line {} column {}", e.line(), e.column());
            npm_error(
                path,
                (e.line().max(1), e.column().max(1)),
                None,
                format!(
                    "not JSON: {}",
                    message.strip_suffix(&place).unwrap_or(&message)
                ),
            )
        })?;
        let serde_json::Value::Object(document) = document else {
            return Err(npm_error(
                path,
                (1, 1),
                None,
                "not a lock: a JSON object with `version` and `skills` was expected".into(),
            ));
        };
        let at_key = |key: &str| key_offset(text, 0, key).map_or((1, 1), |o| line_col(text, o));
        match document.get("version") {
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(VERSION) => {}
            Some(other) => {
                return Err(npm_error(
                    path,
                    at_key("version"),
                    None,
                    format!(
                        "`version` {} is not one skills reads (it reads {VERSION}, what npm `skills` 1.7 writes)",
                        clip_json(other)
                    ),
                ));
            }
            None => {
                return Err(npm_error(
                    path,
                    (1, 1),
                    None,
                    "no `version`: not a lock npm `skills` wrote".into(),
                ));
            }
        }
        let skills = match document.get("skills") {
            Some(serde_json::Value::Object(skills)) => skills,
            Some(other) => {
                return Err(npm_error(
                    path,
                    at_key("skills"),
                    None,
                    format!("`skills` must be an object, not {}", kind(other)),
                ));
            }
            None => {
                return Err(npm_error(
                    path,
                    (1, 1),
                    None,
                    "no `skills`: not a lock npm `skills` wrote".into(),
                ));
            }
        };
        let skills_at = key_offset(text, 0, "skills").unwrap_or(0);
        let mut out = BTreeMap::new();
        for (name, value) in skills {
            let entry = check_entry(name, value).map_err(|invalid| {
                let entry_at = key_offset(text, skills_at, name);
                let at = match (entry_at, invalid.field) {
                    (Some(entry_at), Some(field)) => key_offset(text, entry_at, field)
                        .map(|o| value_offset(text, o))
                        .unwrap_or(entry_at),
                    (Some(entry_at), None) => entry_at,
                    (None, _) => skills_at,
                };
                npm_error(
                    path,
                    line_col(text, at),
                    Some(name),
                    format!(
                        "skill `{}`: {}",
                        crate::clip(&name.escape_debug().to_string(), 80),
                        invalid.message
                    ),
                )
            })?;
            out.insert(name.clone(), entry);
        }
        Ok(Self { skills: out })
    }
}

impl NpmLocked {
    /// Compares the skill in `dir` (its folder in the fetched source) with `computedHash`:
    /// [`npm_folder_hash`] of it. npm `skills` may have taken a `github` skill's digest from
    /// the skills.sh download service instead, whose files leave out `metadata.json` and
    /// `__pycache__`; that digest is accepted too.
    ///
    /// # Errors
    ///
    /// An I/O error reading `dir`.
    pub fn check_hash(&self, dir: &Path) -> std::io::Result<HashCheck> {
        let Some(all) = hash_of(dir, Kept::Folder)? else {
            return Ok(HashCheck::Unknown(UNREPRODUCIBLE.into()));
        };
        if all == self.computed_hash {
            return Ok(HashCheck::Same);
        }
        if self.source_type == "github"
            && hash_of(dir, Kept::Snapshot)?.is_some_and(|h| h == self.computed_hash)
        {
            return Ok(HashCheck::Same);
        }
        Ok(HashCheck::Differs(all))
    }
}

const UNREPRODUCIBLE: &str = "a file name is not printable ASCII, and npm `skills` orders file names by the collation of the locale it ran in";

/// The digest npm `skills` 1.7 records as `computedHash` for the skill folder `dir`, or
/// `None` when it cannot be reproduced for its file names.
///
/// npm `skills` hashes with SHA-256 each regular file under the folder (symbolic links and
/// the folders `.git` and `node_modules` left out), fed as its `/`-separated relative path
/// then its bytes, nothing between, in the order of `String.prototype.localeCompare` on the
/// paths. That order is the Unicode collation of the locale Node runs in (`LANG`), not byte
/// order: `scripts/run.py` comes before `SKILL.md`. For paths of printable ASCII it is
/// reproduced here as the root collation orders them (what Node uses under `C`, `C.UTF-8`,
/// `en_US` and no `LANG`: punctuation, then digits, then letters without regard to case,
/// then lower case before upper); other file names give `None`. A lock written under a
/// locale that orders letters otherwise (`cs`, `da`, `et`, ...) can give another digest for
/// the same files.
///
/// ```
/// let t = tempfile::tempdir()?;
/// std::fs::create_dir(t.path().join("scripts"))?;
/// std::fs::write(t.path().join("SKILL.md"), "---\nname: x\n---\n")?;
/// std::fs::write(t.path().join("scripts/run.py"), "print(1)\n")?;
/// let digest = skills_add::npm_folder_hash(t.path())?.unwrap();
/// assert_eq!(digest.len(), 64);
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// An I/O error reading `dir` or a file in it.
pub fn npm_folder_hash(dir: &Path) -> std::io::Result<Option<String>> {
    hash_of(dir, Kept::Folder)
}

/// Which files a digest covers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kept {
    /// npm `skills`' folder walk: all but `.git` and `node_modules`.
    Folder,
    /// The skills.sh download snapshot: all but `.git`, `__pycache__`, `__pypackages__` and
    /// files named `metadata.json`.
    Snapshot,
}

fn hash_of(dir: &Path, kept: Kept) -> std::io::Result<Option<String>> {
    let mut files = Vec::new();
    if !collect(dir, "", kept, &mut files)? {
        return Ok(None);
    }
    files.sort_by(|a, b| root_collation(a, b));
    let mut sha = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    for rel in &files {
        sha.update(rel.as_bytes());
        let mut file = std::fs::File::open(dir.join(rel))?;
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            sha.update(buffer.get(..n).unwrap_or_default());
        }
    }
    Ok(Some(skills_core::digest::hex(&sha.finalize())))
}

/// The regular files under `dir` as `prefix/…` paths; `false` when a name is not printable
/// ASCII (the order of such names is not reproduced).
fn collect(dir: &Path, prefix: &str, kept: Kept, out: &mut Vec<String>) -> std::io::Result<bool> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| (0x20..0x7f).contains(&b)))
        else {
            return Ok(false);
        };
        let rel = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        // Not followed: npm `skills` takes only what `readdir` calls a file or a directory,
        // and a link is neither.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let skipped = match kept {
                Kept::Folder => ["node_modules", ".git"].contains(&name),
                Kept::Snapshot => [".git", "__pycache__", "__pypackages__"].contains(&name),
            };
            if !skipped && !collect(&entry.path(), &rel, kept, out)? {
                return Ok(false);
            }
        } else if kind.is_file() && !(kept == Kept::Snapshot && name == "metadata.json") {
            out.push(rel);
        }
    }
    Ok(true)
}

/// Printable ASCII in the order of the Unicode root collation (CLDR), as ICU ranks it: the
/// primary weight of each character. Letters of either case share one.
const PRIMARY_ORDER: &[u8] =
    b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

fn primary(b: u8) -> usize {
    let b = b.to_ascii_lowercase();
    PRIMARY_ORDER
        .iter()
        .position(|&c| c == b)
        .unwrap_or(PRIMARY_ORDER.len())
}

/// Two printable-ASCII strings compared as `localeCompare` does in the root locale: by
/// primary weights over the whole string first (a shorter prefix first), then, the
/// letters being the same, lower case before upper case at the first difference.
fn root_collation(a: &str, b: &str) -> std::cmp::Ordering {
    let primaries = |s: &str| s.bytes().map(primary).collect::<Vec<_>>();
    primaries(a).cmp(&primaries(b)).then_with(|| {
        let upper = |s: &str| {
            s.bytes()
                .map(|c| c.is_ascii_uppercase())
                .collect::<Vec<_>>()
        };
        upper(a).cmp(&upper(b))
    })
}

/// An entry that cannot be trusted: the field (`None` for its name) and why.
struct Invalid {
    field: Option<&'static str>,
    message: String,
}

fn check_entry(name: &str, value: &serde_json::Value) -> Result<NpmLocked, Invalid> {
    let invalid = |field, message: String| Invalid { field, message };
    if !skills_frontmatter::is_valid_name(name) {
        return Err(invalid(
            None,
            "not a skill name skills installs under (lowercase letters, digits and single hyphens, at most 64 characters; the name becomes a folder); remove the entry and `skills add` the skill from its source".into(),
        ));
    }
    let serde_json::Value::Object(entry) = value else {
        return Err(invalid(
            None,
            format!("must be an object, not {}", kind(value)),
        ));
    };
    let string = |field: &'static str| -> Result<Option<&str>, Invalid> {
        match entry.get(field) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) if s.len() <= 4096 => Ok(Some(s)),
            Some(serde_json::Value::String(_)) => Err(invalid(
                Some(field),
                format!("`{field}` is over 4096 bytes"),
            )),
            Some(other) => Err(invalid(
                Some(field),
                format!("`{field}` must be a string, not {}", kind(other)),
            )),
        }
    };
    let required = |field: &'static str| -> Result<&str, Invalid> {
        string(field)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| invalid(Some(field), format!("`{field}` is missing")))
    };
    let source = required("source")?;
    if source.chars().any(char::is_control) {
        return Err(invalid(
            Some("source"),
            "`source` holds control characters".into(),
        ));
    }
    let source_type = required("sourceType")?;
    if source_type.len() > 64
        || !source_type
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(invalid(
            Some("sourceType"),
            format!(
                "`sourceType` `{}` is not a source type",
                crate::clip(&source_type.escape_debug().to_string(), 40)
            ),
        ));
    }
    let computed_hash = required("computedHash")?;
    if computed_hash.len() != 64
        || !computed_hash
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(invalid(
            Some("computedHash"),
            "`computedHash` must be 64 lowercase hexadecimal digits (a SHA-256)".into(),
        ));
    }
    let path = match string("skillPath")? {
        None => None,
        Some(skill_md) => {
            // `skills/pdf/SKILL.md`: the folder is what is fetched and installed.
            let dir = match skill_md.rsplit_once('/') {
                Some((dir, file)) if file.eq_ignore_ascii_case("SKILL.md") => Some(dir),
                None if skill_md.eq_ignore_ascii_case("SKILL.md") => Some(""),
                _ => None,
            };
            match dir {
                Some(dir) if crate::lock::is_inner_path(dir) => Some(dir.to_string()),
                _ => {
                    return Err(invalid(
                        Some("skillPath"),
                        format!(
                            "`skillPath` must be the skill's SKILL.md inside its source, a `/`-separated path without `.` or `..` parts (it is `{}`)",
                            crate::clip(&skill_md.escape_debug().to_string(), 80)
                        ),
                    ));
                }
            }
        }
    };
    let reference = string("ref")?.filter(|r| !r.is_empty());
    if let Some(reference) = reference
        && !crate::git::is_ref_name(reference)
    {
        return Err(invalid(
            Some("ref"),
            format!(
                "`ref` must be a branch, tag or commit name, not `{}`",
                crate::clip(&reference.escape_debug().to_string(), 80)
            ),
        ));
    }
    let reference = reference.map(str::to_string);
    let origin = match source_type {
        "github" => {
            // npm `skills` writes a github.com repository as `owner/repo`.
            let parts: Vec<&str> = source.split('/').collect();
            let ok = parts.len() == 2
                && parts.iter().all(|p| {
                    !p.is_empty()
                        && *p != "."
                        && *p != ".."
                        && p.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                });
            if !ok {
                return Err(invalid(
                    Some("source"),
                    format!(
                        "a `github` source must be `owner/repo`, not `{}`",
                        crate::clip(&source.escape_debug().to_string(), 80)
                    ),
                ));
            }
            NpmOrigin::Git {
                url: format!("https://github.com/{}.git", source.trim_end_matches(".git")),
                reference,
            }
        }
        "gitlab" | "git" => {
            // `sourceUrl` is what npm `skills` clones; `source` is the same URL, or a
            // shorthand it cannot clone either.
            let (field, url) = match string("sourceUrl")?.filter(|u| !u.is_empty()) {
                Some(url) => ("sourceUrl", url),
                None => ("source", source),
            };
            if !crate::git::is_fetchable_url(url) {
                return Err(invalid(
                    Some(field),
                    format!(
                        "`{field}` must be a repository URL (https, http, ssh, git or file, or user@host:path), not `{}`",
                        crate::clip(&url.escape_debug().to_string(), 80)
                    ),
                ));
            }
            NpmOrigin::Git {
                url: url.to_string(),
                reference,
            }
        }
        "local" => NpmOrigin::Dir(PathBuf::from(source)),
        "well-known" => NpmOrigin::Unsupported(
            "it comes from a site's /.well-known skills index, which skills does not read".into(),
        ),
        "node_modules" => NpmOrigin::Unsupported(
            "it comes from an npm package in node_modules, which skills does not install from"
                .into(),
        ),
        other => NpmOrigin::Unsupported(format!("skills does not know the source type `{other}`")),
    };
    Ok(NpmLocked {
        source_type: source_type.to_string(),
        source: source.to_string(),
        origin,
        path,
        computed_hash: computed_hash.to_string(),
    })
}

fn npm_error(
    path: &Path,
    (line, column): (usize, usize),
    entry: Option<&str>,
    message: String,
) -> AddError {
    AddError::NpmLock {
        path: path.to_path_buf(),
        line,
        column,
        entry: entry.map(str::to_string),
        message,
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    skills_frontmatter::line_col(text, offset)
}

/// Where the object key `key` is written in `text` at or after `from`: its opening quote.
/// Found again on this rare path (an error) rather than carried by every value; a key
/// written with escapes is not found, and the caller says less precisely where.
fn key_offset(text: &str, from: usize, key: &str) -> Option<usize> {
    let quoted = serde_json::to_string(key).ok()?;
    let mut at = from;
    while let Some(found) = text.get(at..)?.find(&quoted) {
        let start = at + found;
        let after = start + quoted.len();
        if text.get(after..)?.trim_start().starts_with(':') {
            return Some(start);
        }
        at = after;
    }
    None
}

/// The value after the key at `key_at`.
fn value_offset(text: &str, key_at: usize) -> usize {
    text.get(key_at..)
        .and_then(|rest| rest.find(':'))
        .map(|colon| {
            let after = key_at + colon + 1;
            let rest = text.get(after..).unwrap_or_default();
            after + (rest.len() - rest.trim_start().len())
        })
        .unwrap_or(key_at)
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn clip_json(value: &serde_json::Value) -> String {
    crate::clip(&value.to_string(), 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What npm `skills` 1.7.4 wrote for `add ../repo` and `add file:///…/repo` (step 1 of
    /// the work on issue 34: run here, `skills` beside this crate's fixtures).
    const LOCAL: &str = r#"{
  "version": 1,
  "skills": {
    "docx": {
      "source": "../repo",
      "sourceType": "local",
      "computedHash": "5fc42b508a72670ebb60f212abb6cf6cbd70014c9a4ffaa08a32f5f2197cf563"
    },
    "pdf": {
      "source": "file:///srv/repo",
      "sourceUrl": "file:///srv/repo",
      "sourceType": "git",
      "skillPath": "skills/pdf/SKILL.md",
      "computedHash": "b7903184c54fb40f2a8f2cec3f2d14fd1d1fe16a091a16155018043c2d94d911"
    }
  }
}
"#;

    fn parse(text: &str) -> Result<NpmLock, AddError> {
        NpmLock::parse(text, Path::new("skills-lock.json"))
    }

    #[test]
    fn what_npm_skills_writes_reads() {
        let lock = parse(LOCAL).unwrap();
        let docx = &lock.skills["docx"];
        assert_eq!(docx.origin, NpmOrigin::Dir(PathBuf::from("../repo")));
        assert_eq!(docx.path, None);
        let pdf = &lock.skills["pdf"];
        assert_eq!(
            pdf.origin,
            NpmOrigin::Git {
                url: "file:///srv/repo".into(),
                reference: None
            }
        );
        assert_eq!(pdf.path.as_deref(), Some("skills/pdf"));
        let github = parse(
            r#"{"version":1,"skills":{"pdf":{"source":"anthropics/skills","ref":"v2","sourceType":"github","skillPath":"SKILL.md","computedHash":"0000000000000000000000000000000000000000000000000000000000000000","via":"x"}}}"#,
        )
        .unwrap();
        assert_eq!(
            github.skills["pdf"].origin,
            NpmOrigin::Git {
                url: "https://github.com/anthropics/skills.git".into(),
                reference: Some("v2".into())
            }
        );
        assert_eq!(github.skills["pdf"].path.as_deref(), Some(""));
    }

    /// The lock comes with the repository: each entry that would become a folder outside
    /// the skills folder, or an argument git could run, is refused where it is written.
    #[test]
    fn entries_that_cannot_be_trusted_are_refused_where_they_are() {
        let hash = "0".repeat(64);
        let entry = |name: &str, fields: &str| {
            format!(
                "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"{name}\": {{\n      \"source\": \"o/r\",\n      \"sourceType\": \"github\",\n      \"computedHash\": \"{hash}\"{fields}\n    }}\n  }}\n}}\n"
            )
        };
        assert!(parse(&entry("pdf", "")).is_ok());
        for (text, at, says) in [
            (entry("../../x", ""), "4:5", "not a skill name"),
            (entry("Active Directory", ""), "4:5", "not a skill name"),
            (
                entry("pdf", ",\n      \"skillPath\": \"../../etc/SKILL.md\""),
                "8:20",
                "`skillPath`",
            ),
            (
                entry("pdf", ",\n      \"skillPath\": \"/etc/SKILL.md\""),
                "8:20",
                "`skillPath`",
            ),
            (
                entry("pdf", ",\n      \"skillPath\": \"skills/pdf/run.sh\""),
                "8:20",
                "`skillPath`",
            ),
            (
                entry("pdf", ",\n      \"ref\": \"--upload-pack=x\""),
                "8:14",
                "`ref`",
            ),
            (
                entry("pdf", ",\n      \"skillPath\": 3"),
                "8:20",
                "must be a string, not a number",
            ),
            (
                entry("pdf", "").replace("\"o/r\"", "\"../r\""),
                "5:17",
                "`owner/repo`",
            ),
            (
                entry("pdf", "").replace("\"o/r\"", "[\"o/r\"]"),
                "5:17",
                "`source` must be a string, not an array",
            ),
            (
                entry("pdf", ",\n      \"sourceUrl\": \"ext::sh -c x\"").replace("github", "git"),
                "8:20",
                "`sourceUrl` must be a repository URL",
            ),
            (
                entry("pdf", "")
                    .replace("github", "git")
                    .replace("o/r", "-oProxyCommand=x"),
                "5:17",
                "`source` must be a repository URL",
            ),
            (
                entry("pdf", "").replace(&hash, "sha256:x"),
                "7:23",
                "`computedHash`",
            ),
            (
                entry("pdf", "").replace(",\n      \"sourceType\": \"github\"", ""),
                "4:5",
                "`sourceType` is missing",
            ),
            (
                entry("pdf", "").replace("\"version\": 1", "\"version\": 2"),
                "2:3",
                "`version` 2",
            ),
            (
                entry("pdf", "").replace("\"version\": 1", "\"version\": \"1\""),
                "2:3",
                "`version` \"1\"",
            ),
            ("[1]".to_string(), "1:1", "not a lock"),
            (
                "{\"version\": 1, \"skills\": {\"pdf\": ".to_string(),
                "1:33",
                "not JSON: EOF while parsing a value",
            ),
            (
                "{\"version\": 1, \"skills\": []}".to_string(),
                "1:16",
                "`skills` must be an object",
            ),
        ] {
            let e = parse(&text).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("skills-lock.json:{at}: ")),
                "{at}: {e}\n{text}"
            );
            assert!(e.contains(says), "{says}: {e}");
        }
    }

    #[test]
    fn sources_it_does_not_install_from_are_kept_and_said() {
        let lock = parse(r#"{"version":1,"skills":{"a":{"source":"mintlify.com","sourceUrl":"https://mintlify.com/","sourceType":"well-known","computedHash":"0000000000000000000000000000000000000000000000000000000000000000"},"b":{"source":"some-pkg","sourceType":"node_modules","skillPath":"skills/b/SKILL.md","computedHash":"0000000000000000000000000000000000000000000000000000000000000000"}}}"#).unwrap();
        for name in ["a", "b"] {
            assert!(
                matches!(lock.skills[name].origin, NpmOrigin::Unsupported(_)),
                "{name}"
            );
        }
    }

    #[test]
    fn a_lock_that_is_not_a_regular_file_is_not_read() {
        let e = NpmLock::read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    /// The order Node 22.23 (ICU 78.3, no `LANG`) gives these paths with `localeCompare`, printed
    /// by it: `[...].sort((a, b) => a.localeCompare(b))`.
    #[test]
    fn paths_are_ordered_as_node_orders_them() {
        let node = [
            "_a",
            "-a",
            ".hidden",
            "a",
            "A",
            "a_b",
            "a-b",
            "a.b",
            "a/b",
            "a0",
            "ab",
            "aB",
            "Ab",
            "AB",
            "b",
            "run.sh",
            "scripts/fill.py",
            "SKILL.md",
            "z",
        ];
        let mut ours = node.to_vec();
        ours.reverse();
        ours.sort_by(|a, b| root_collation(a, b));
        assert_eq!(ours, node);
    }

    /// The digests npm `skills` 1.7.4 recorded for two skills of the fixture it was run on.
    #[test]
    fn the_digest_is_the_one_npm_skills_records() {
        let t = tempfile::tempdir().unwrap();
        let pdf = t.path().join("pdf");
        std::fs::create_dir_all(pdf.join("scripts")).unwrap();
        std::fs::write(
            pdf.join("SKILL.md"),
            "---\nname: pdf\ndescription: Does pdf work. Use when pdf is asked for.\n---\n# pdf\n\nVersion one.\n",
        )
        .unwrap();
        std::fs::write(pdf.join("scripts/fill.py"), "print('fill')\n").unwrap();
        assert_eq!(
            npm_folder_hash(&pdf).unwrap().as_deref(),
            Some("b7903184c54fb40f2a8f2cec3f2d14fd1d1fe16a091a16155018043c2d94d911")
        );
        let lock = parse(LOCAL).unwrap();
        assert_eq!(
            lock.skills["pdf"].check_hash(&pdf).unwrap(),
            HashCheck::Same
        );
        // A `.git` or `node_modules` folder does not count; another file does.
        std::fs::create_dir_all(pdf.join("node_modules/x")).unwrap();
        std::fs::write(pdf.join("node_modules/x/y.js"), "1").unwrap();
        assert_eq!(
            lock.skills["pdf"].check_hash(&pdf).unwrap(),
            HashCheck::Same
        );
        std::fs::write(pdf.join("notes.md"), "more").unwrap();
        assert!(matches!(
            lock.skills["pdf"].check_hash(&pdf).unwrap(),
            HashCheck::Differs(_)
        ));
        std::fs::remove_file(pdf.join("notes.md")).unwrap();
        std::fs::write(pdf.join("café.md"), "more").unwrap();
        assert!(matches!(
            lock.skills["pdf"].check_hash(&pdf).unwrap(),
            HashCheck::Unknown(_)
        ));
    }
}
