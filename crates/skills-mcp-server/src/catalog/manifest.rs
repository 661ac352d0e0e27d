//! Whether a skill can be served over the extension and, when it can, what is kept of it:
//! its files as relative paths, its frontmatter, and the sha256 digests of its files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use skills_discovery::{DiscoveryError, Skill};
use skills_frontmatter::SkillMd;

/// Most files one skill may have to be served (the extension's limit, `SKILL.md` counted).
const MAX_FILES: usize = skills_core::layout::MAX_SKILL_FILES;
/// Most bytes one skill may have to be served (the extension's limit).
pub(super) const MAX_BYTES: u64 = skills_core::layout::MAX_SKILL_BYTES;

/// One file of a served skill. Its URI and path are derived when needed ([`Manifest::uri`],
/// [`Manifest::path`]): a server keeps the manifest of every skill it served for its whole
/// life, so it holds only what cannot be derived.
#[derive(Debug, Clone)]
pub(crate) struct ServedFile {
    /// Path relative to the skill directory, `/`-separated, normal components only (taken
    /// from the file list, never from a URI).
    pub(crate) rel: Box<str>,
    /// Its size when listed.
    pub(crate) size: u64,
}

/// A skill that can be served over the extension: its id, frontmatter and files.
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    /// The skill's id (a valid spec name, equal to its frontmatter `name`).
    pub(crate) id: Box<str>,
    /// The skill's directory, as the index found it.
    pub(super) dir: Box<Path>,
    /// The frontmatter's fields other than `name` (the id) and `description` (the index
    /// holds it), as JSON, in file order.
    extra: Box<[(Box<str>, serde_json::Value)]>,
    /// Every file, `SKILL.md` first, then sorted.
    pub(crate) files: Box<[ServedFile]>,
}

impl Manifest {
    /// Where a file is on disk: its listed relative path below the skill's directory.
    pub(crate) fn path(&self, file: &ServedFile) -> PathBuf {
        self.dir.join(&*file.rel)
    }

    /// Whether this was built for `skill`'s file: another `SKILL.md` winning the id is
    /// another skill. (A manifest is only built for a `SKILL.md` in the skill's directory.)
    pub(crate) fn is_for(&self, skill: &Skill) -> bool {
        *self.dir == *skill.dir
            && skill.skill_md.file_name().and_then(|n| n.to_str()) == Some("SKILL.md")
    }

    /// The frontmatter's fields other than `name` and `description`.
    pub(crate) fn extra(&self) -> serde_json::Map<String, serde_json::Value> {
        self.extra
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    /// The directories of the skill (relative, `/`-separated; `""` is the skill's root).
    pub(crate) fn dirs(&self) -> BTreeSet<&str> {
        let mut dirs = BTreeSet::from([""]);
        for file in &self.files {
            let mut rel = &*file.rel;
            while let Some((parent, _)) = rel.rsplit_once('/') {
                dirs.insert(parent);
                rel = parent;
            }
        }
        dirs
    }
}

/// Whether `id` can name a served skill: the specification's name rule
/// ([`skills_frontmatter::is_valid_name`]), in ASCII, since it becomes part of every URI.
pub(crate) fn is_spec_name(id: &str) -> bool {
    id.is_ascii() && skills_frontmatter::is_valid_name(id)
}

/// Why a skill is not served over the extension (the tools still offer it). The texts end
/// a log line that names the skill's `SKILL.md`, so they say "its".
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotServed {
    /// A `NAME.md` directly in a root: the extension serves directories.
    #[error("a flat NAME.md file, not a skill directory")]
    Flat,
    /// The directory name, which becomes the id in every URI, breaks the spec's name rule.
    #[error(
        "its directory name {id:?} is not a valid skill name (lowercase letters, digits and single hyphens, at most 64)"
    )]
    InvalidName { id: String },
    /// Discovery accepts other spellings (`skill.md`); the extension names the file `SKILL.md`.
    #[error("its SKILL.md is not spelled SKILL.md")]
    MisspelledSkillMd,
    /// `SKILL.md` cannot be read or its frontmatter parsed.
    #[error(transparent)]
    Parse(DiscoveryError),
    /// The frontmatter lacks `name` or `description`, or holds a non-string there.
    #[error("its frontmatter has no string {field}")]
    MissingField { field: &'static str },
    /// The frontmatter `name` differs from the directory name (the id).
    #[error("its frontmatter name is not its directory name {id:?}")]
    NameMismatch { id: String },
    /// The skill's files cannot be listed.
    #[error(transparent)]
    List(DiscoveryError),
    /// More files than the extension allows.
    #[error("{count} files, over the extension's limit of {MAX_FILES}")]
    TooManyFiles { count: usize },
    /// More bytes than the extension allows.
    #[error("{total} bytes, over the extension's limit of {MAX_BYTES}")]
    TooLarge { total: u64 },
    /// A file whose path a URI cannot carry.
    #[error("the file name {:?} is not UTF-8", .path.display())]
    NonUtf8Name { path: PathBuf },
    /// The listing left `SKILL.md` out (an ignore file can).
    #[error("its SKILL.md is not among its files")]
    SkillMdNotListed,
}

/// Builds the manifest of a skill, or says why it is not served over the extension.
pub(super) fn manifest(skill: &Skill) -> Result<Manifest, NotServed> {
    if skill.flat {
        return Err(NotServed::Flat);
    }
    if !is_spec_name(&skill.id) {
        return Err(NotServed::InvalidName {
            id: skill.id.clone(),
        });
    }
    if skill.skill_md.file_name().and_then(|n| n.to_str()) != Some("SKILL.md") {
        return Err(NotServed::MisspelledSkillMd);
    }
    let md = skill.parse().map_err(NotServed::Parse)?;
    let frontmatter = md_frontmatter(&md)?;
    if frontmatter.get("name").and_then(|v| v.as_str()) != Some(skill.id.as_str()) {
        return Err(NotServed::NameMismatch {
            id: skill.id.clone(),
        });
    }
    let listed = skill.files().map_err(NotServed::List)?;
    if listed.len() > MAX_FILES {
        return Err(NotServed::TooManyFiles {
            count: listed.len(),
        });
    }
    let total: u64 = listed.iter().map(|f| f.size).sum();
    if total > MAX_BYTES {
        return Err(NotServed::TooLarge { total });
    }
    let mut files = Vec::with_capacity(listed.len());
    for file in listed {
        let Some(rel) = rel_string(&file.path) else {
            return Err(NotServed::NonUtf8Name { path: file.path });
        };
        files.push(ServedFile {
            rel: rel.into_boxed_str(),
            size: file.size,
        });
    }
    // SKILL.md first, the rest as listed (sorted).
    files.sort_by_key(|f| &*f.rel != "SKILL.md");
    if files.first().map(|f| &*f.rel) != Some("SKILL.md") {
        return Err(NotServed::SkillMdNotListed);
    }
    Ok(Manifest {
        id: skill.id.clone().into_boxed_str(),
        dir: skill.dir.clone().into_boxed_path(),
        extra: frontmatter
            .into_iter()
            .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
            .map(|(k, v)| (k.into_boxed_str(), v))
            .collect(),
        files: files.into_boxed_slice(),
    })
}

fn md_frontmatter(md: &SkillMd) -> Result<serde_json::Map<String, serde_json::Value>, NotServed> {
    let json = md.frontmatter_json();
    for field in ["name", "description"] {
        if !json.get(field).is_some_and(|v| v.is_string()) {
            return Err(NotServed::MissingField { field });
        }
    }
    Ok(json)
}

/// A relative path as `/`-separated UTF-8, made of normal components only.
fn rel_string(path: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::Normal(part) => parts.push(part.to_str()?),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// A SHA-256 digest, kept as bytes (a third of its text form).
pub(crate) type Sha = [u8; 32];

/// `sha256:<hex>`, as the extension writes a digest.
pub(crate) fn digest_text(hash: &Sha) -> String {
    format!("sha256:{}", skills_core::digest::hex(hash))
}

/// `sha256:<hex>` of some bytes.
#[cfg(test)]
pub(super) fn digest(bytes: &[u8]) -> String {
    digest_text(&Sha256::digest(bytes).into())
}

/// The digest and size of a regular file of at most [`MAX_BYTES`], streamed through a small
/// buffer rather than read whole.
pub(super) fn hash_file(path: &Path) -> std::io::Result<(Sha, u64)> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut hasher = Sha256::new();
    let size = std::io::copy(&mut file.take(MAX_BYTES + 1), &mut hasher)?;
    if size > MAX_BYTES {
        return Err(std::io::Error::other("larger than 16 MiB"));
    }
    Ok((hasher.finalize().into(), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_names() {
        for ok in ["a", "pdf", "pdf-processing", "a1", &"a".repeat(64)] {
            assert!(is_spec_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a_b",
            "a/b",
            "..",
            &"a".repeat(65),
            "é",
        ] {
            assert!(!is_spec_name(bad), "{bad}");
        }
    }

    /// The reasons end up in the log; their wording is the one the server always had.
    #[test]
    fn reasons_read_as_before() {
        for (reason, text) in [
            (
                NotServed::Flat,
                "a flat NAME.md file, not a skill directory",
            ),
            (
                NotServed::InvalidName { id: "PDF".into() },
                "its directory name \"PDF\" is not a valid skill name (lowercase letters, digits and single hyphens, at most 64)",
            ),
            (
                NotServed::MisspelledSkillMd,
                "its SKILL.md is not spelled SKILL.md",
            ),
            (
                NotServed::MissingField {
                    field: "description",
                },
                "its frontmatter has no string description",
            ),
            (
                NotServed::NameMismatch { id: "pdf".into() },
                "its frontmatter name is not its directory name \"pdf\"",
            ),
            (
                NotServed::TooManyFiles { count: 513 },
                "513 files, over the extension's limit of 512",
            ),
            (
                NotServed::TooLarge { total: 16_777_217 },
                "16777217 bytes, over the extension's limit of 16777216",
            ),
            (
                NotServed::NonUtf8Name {
                    path: PathBuf::from("a/b c.md"),
                },
                "the file name \"a/b c.md\" is not UTF-8",
            ),
            (
                NotServed::SkillMdNotListed,
                "its SKILL.md is not among its files",
            ),
        ] {
            assert_eq!(reason.to_string(), text);
        }
    }

    #[test]
    fn digest_format() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
