//! The MCP Skills extension (SEP-2640) over a discovery index: which skills are served, their
//! manifests (`skill://<id>/...` URIs with sha256 digests), file reads and directory listings.
//!
//! URIs are never turned into paths. A request's URI is compared with the URIs generated from
//! a served skill's file list ([`Skill::files`], which keeps symlinks that leave the skill out),
//! and only a file found in that list is read, by the path the list holds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use skills_discovery::Skill;
use skills_frontmatter::SkillMd;

/// The URI scheme of served skills.
pub(crate) const SCHEME: &str = "skill://";
/// Most files one skill may have to be served (the extension's limit, `SKILL.md` counted).
pub(crate) const MAX_FILES: usize = 512;
/// Most bytes one skill may have to be served (the extension's limit).
pub(crate) const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a served skill.
#[derive(Debug, Clone)]
pub(crate) struct ServedFile {
    /// Path relative to the skill directory, `/`-separated.
    pub(crate) rel: String,
    /// `skill://<id>/<rel>`, percent-encoded where needed.
    pub(crate) uri: String,
    /// Where it is on disk (taken from the file list, never from a URI).
    pub(crate) path: PathBuf,
    /// Its size when listed.
    pub(crate) size: u64,
}

/// A skill that can be served over the extension: its URI, frontmatter and files.
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    /// The skill's id (a valid spec name, equal to its frontmatter `name`).
    pub(crate) id: String,
    /// `skill://<id>/SKILL.md`.
    pub(crate) uri: String,
    /// The frontmatter, every field as JSON.
    pub(crate) frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Every file, `SKILL.md` first, then sorted.
    pub(crate) files: Vec<ServedFile>,
}

impl Manifest {
    /// The skill's description from its frontmatter.
    pub(crate) fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(|v| v.as_str())
            .unwrap_or("")
    }

    /// The file at exactly this URI.
    pub(crate) fn file(&self, uri: &str) -> Option<&ServedFile> {
        self.files.iter().find(|f| f.uri == uri)
    }

    /// The directories of the skill (relative, `/`-separated; `""` is the skill's root).
    pub(crate) fn dirs(&self) -> BTreeSet<&str> {
        let mut dirs = BTreeSet::from([""]);
        for file in &self.files {
            let mut rel = file.rel.as_str();
            while let Some((parent, _)) = rel.rsplit_once('/') {
                dirs.insert(parent);
                rel = parent;
            }
        }
        dirs
    }

    /// The URI of a directory (`rel` relative to the skill, `""` for its root).
    pub(crate) fn dir_uri(&self, rel: &str) -> String {
        if rel.is_empty() {
            format!("{SCHEME}{}", self.id)
        } else {
            format!("{SCHEME}{}/{}", self.id, encode(rel))
        }
    }
}

/// Whether `id` is a valid skill name by the specification, in ASCII: lowercase letters,
/// digits and single hyphens, 1 to 64 characters, no hyphen first or last.
pub(crate) fn is_spec_name(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
}

/// Percent-encodes a relative path for a URI, keeping unreserved characters and `/`.
fn encode(rel: &str) -> String {
    let mut out = String::with_capacity(rel.len());
    for byte in rel.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Builds the manifest of a skill, or says why it is not served over the extension.
pub(crate) fn manifest(skill: &Skill) -> Result<Manifest, String> {
    if skill.flat {
        return Err("a flat NAME.md file, not a skill directory".to_string());
    }
    if !is_spec_name(&skill.id) {
        return Err(format!(
            "its directory name {:?} is not a valid skill name (lowercase letters, digits and single hyphens, at most 64)",
            skill.id
        ));
    }
    if skill.skill_md.file_name().and_then(|n| n.to_str()) != Some("SKILL.md") {
        return Err("its SKILL.md is not spelled SKILL.md".to_string());
    }
    let md = skill.parse().map_err(|e| e.to_string())?;
    let frontmatter = md_frontmatter(&md)?;
    if frontmatter.get("name").and_then(|v| v.as_str()) != Some(skill.id.as_str()) {
        return Err(format!(
            "its frontmatter name is not its directory name {:?}",
            skill.id
        ));
    }
    let listed = skill.files().map_err(|e| e.to_string())?;
    if listed.len() > MAX_FILES {
        return Err(format!(
            "{} files, over the extension's limit of {MAX_FILES}",
            listed.len()
        ));
    }
    let total: u64 = listed.iter().map(|f| f.size).sum();
    if total > MAX_BYTES {
        return Err(format!(
            "{total} bytes, over the extension's limit of {MAX_BYTES}"
        ));
    }
    let uri = format!("{SCHEME}{}/SKILL.md", skill.id);
    let mut files = Vec::with_capacity(listed.len());
    for file in listed {
        let Some(rel) = rel_string(&file.path) else {
            return Err(format!(
                "the file name {:?} is not UTF-8",
                file.path.display()
            ));
        };
        let file_uri = format!("{SCHEME}{}/{}", skill.id, encode(&rel));
        files.push(ServedFile {
            path: skill.dir.join(&file.path),
            uri: file_uri,
            rel,
            size: file.size,
        });
    }
    // SKILL.md first, the rest as listed (sorted).
    files.sort_by_key(|f| f.rel != "SKILL.md");
    if files.first().map(|f| f.rel.as_str()) != Some("SKILL.md") {
        return Err("its SKILL.md is not among its files".to_string());
    }
    Ok(Manifest {
        id: skill.id.clone(),
        uri,
        frontmatter,
        files,
    })
}

fn md_frontmatter(md: &SkillMd) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let json = md.frontmatter_json();
    for key in ["name", "description"] {
        if !json.get(key).is_some_and(|v| v.is_string()) {
            return Err(format!("its frontmatter has no string {key}"));
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

/// `sha256:<hex>` of some bytes.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// What a `stat` says about a file or directory, to notice that it changed: its size and
/// modification time, and on Unix its inode and change time (a file replaced by another, or
/// rewritten within one mtime tick with a `chmod`, is noticed too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    ino: u64,
    #[cfg(unix)]
    ctime: (i64, i64),
}

impl Stamp {
    /// `stat` (following symlinks), or `None` when the path cannot be stat'ed.
    pub(crate) fn read(path: &Path) -> Option<Self> {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            ino: meta.ino(),
            #[cfg(unix)]
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }
}

/// A served skill's manifest and file digests, kept between requests with the stamps they
/// were made from: every directory of the skill (a file added, removed or renamed changes
/// its directory's stamp), every ignore file, and every listed file. While all of them stat
/// the same, the skill is not listed, parsed or hashed again.
#[derive(Debug)]
pub(crate) struct Cached {
    /// The `SKILL.md` the manifest was built from (another one winning is another skill).
    skill_md: PathBuf,
    pub(crate) manifest: Arc<Manifest>,
    /// Directories and ignore files, with their stamps when listed.
    watched: Vec<(PathBuf, Option<Stamp>)>,
    /// Each file's stamp (as [`Manifest::files`]); `None` never matches.
    stamps: Vec<Option<Stamp>>,
    /// Each file's digest and size, once computed.
    digests: Option<Vec<(String, u64)>>,
}

impl Cached {
    /// Lists and parses a skill. `Err` says why it is not served over the extension.
    pub(crate) fn build(skill: &Skill) -> Result<Self, String> {
        // Stamps first: a change during the listing shows as a changed stamp next time.
        let mut watched = Vec::new();
        if !skill.flat {
            watch(&skill.dir, 0, &mut watched);
        }
        let mut manifest = manifest(skill)?;
        let mut stamps = Vec::with_capacity(manifest.files.len());
        for file in &mut manifest.files {
            let stamp = Stamp::read(&file.path);
            if let Some(stamp) = stamp {
                file.size = stamp.len;
            }
            stamps.push(stamp);
        }
        Ok(Self {
            skill_md: skill.skill_md.clone(),
            manifest: Arc::new(manifest),
            watched,
            stamps,
            digests: None,
        })
    }

    /// Whether this was built for the same `SKILL.md` (another one winning is another skill).
    pub(crate) fn same_skill(&self, skill: &Skill) -> bool {
        self.skill_md == skill.skill_md
    }

    /// The directories (and ignore files) whose changes make this stale: what a change
    /// watch must cover for the manifest to be trusted without `stat`s. `None` for a flat
    /// skill, whose file sits in a root among others.
    pub(crate) fn watch_paths(&self) -> Option<impl Iterator<Item = &Path>> {
        (!self.watched.is_empty()).then(|| self.watched.iter().map(|(p, _)| p.as_path()))
    }

    /// Whether every file was stat'ed and, once hashed, still had that size.
    pub(crate) fn stamps_complete(&self) -> bool {
        self.stamps.iter().all(Option::is_some)
    }

    /// Whether nothing the manifest was built from changed on disk (one `stat` per
    /// directory, ignore file and file of the skill).
    pub(crate) fn is_fresh(&self, skill: &Skill) -> bool {
        self.same_skill(skill)
            && self
                .watched
                .iter()
                .all(|(path, stamp)| stamp.is_some() && Stamp::read(path) == *stamp)
            && self
                .manifest
                .files
                .iter()
                .zip(&self.stamps)
                .all(|(file, stamp)| stamp.is_some() && Stamp::read(&file.path) == *stamp)
    }

    /// Every file's digest and size, hashed once. A file that changed since it was stat'ed
    /// is hashed as it is now and the skill rebuilt on the next request.
    pub(crate) fn digests(&mut self) -> std::io::Result<&[(String, u64)]> {
        if self.digests.is_none() {
            let mut digests = Vec::with_capacity(self.manifest.files.len());
            for (file, stamp) in self.manifest.files.iter().zip(&mut self.stamps) {
                let bytes = read_limited(&file.path)?;
                let size = bytes.len() as u64;
                if stamp.is_none_or(|s| s.len != size) {
                    *stamp = None;
                }
                digests.push((digest(&bytes), size));
            }
            self.digests = Some(digests);
        }
        Ok(self.digests.as_deref().unwrap_or_default())
    }
}

/// Records the stamps of `dir`, its ignore files and every directory below it (not through
/// symlinks, not into `.git` or `node_modules`), as deep as [`Skill::files`] lists.
fn watch(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, Option<Stamp>)>) {
    out.push((dir.to_path_buf(), Stamp::read(dir)));
    for name in [".gitignore", ".ignore"] {
        let path = dir.join(name);
        if let Some(stamp) = Stamp::read(&path) {
            out.push((path, Some(stamp)));
        }
    }
    if depth >= WATCH_DEPTH {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        if name == ".git" || name == "node_modules" {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            watch(&entry.path(), depth + 1, out);
        }
    }
}

/// How deep [`watch`] goes (as deep as the discovery crate lists a skill's files).
const WATCH_DEPTH: usize = 16;

/// Reads a file of at most [`MAX_BYTES`].
pub(crate) fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(std::io::Error::other("larger than 16 MiB"));
    }
    Ok(bytes)
}

/// The MIME type for a file name, by extension; `None` when unknown.
pub(crate) fn mime_type(rel: &str) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" | "bash" => "application/x-sh",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}

/// Splits `skill://<id>[/<rest>]` into the id and the rest (without its leading `/`).
pub(crate) fn split_uri(uri: &str) -> Option<(&str, Option<&str>)> {
    let tail = uri.strip_prefix(SCHEME)?;
    Some(match tail.split_once('/') {
        Some((id, rest)) => (id, Some(rest)),
        None => (tail, None),
    })
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

    #[test]
    fn uris_are_encoded_and_split() {
        assert_eq!(encode("a b/ü.md"), "a%20b/%C3%BC.md");
        assert_eq!(
            split_uri("skill://x/SKILL.md"),
            Some(("x", Some("SKILL.md")))
        );
        assert_eq!(split_uri("skill://x"), Some(("x", None)));
        assert_eq!(split_uri("file:///etc/passwd"), None);
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime_type("SKILL.md"), Some("text/markdown"));
        assert_eq!(mime_type("scripts/run.PY"), Some("text/x-python"));
        assert_eq!(mime_type("LICENSE"), None);
    }

    #[test]
    fn digest_format() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use skills_discovery::{Index, Roots};

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn skill(root: &Path) -> Skill {
        let index = Index::scan(&Roots::custom([root]));
        index.get("pdf").unwrap().clone()
    }

    fn resource_digests(cached: &mut Cached) -> Vec<(String, String)> {
        let uris: Vec<String> = cached
            .manifest
            .files
            .iter()
            .map(|f| f.uri.clone())
            .collect();
        let digests = cached.digests().unwrap();
        uris.into_iter()
            .zip(digests.iter().map(|(d, _)| d.clone()))
            .collect()
    }

    #[test]
    fn a_cached_skill_goes_stale_when_any_of_its_files_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pdf");
        write(
            &dir.join("SKILL.md"),
            "---\nname: pdf\ndescription: PDFs.\n---\nBody\n",
        );
        write(&dir.join("references/FORMS.md"), "# Forms\n");
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        let s = skill(tmp.path());
        let mut cached = Cached::build(&s).unwrap();
        let before = resource_digests(&mut cached);
        assert_eq!(before.len(), 2);
        assert!(cached.is_fresh(&s));

        // An edited file (same size, so only the stamp tells).
        write(&dir.join("references/FORMS.md"), "# Forma\n");
        assert!(!cached.is_fresh(&s));
        let mut cached = Cached::build(&s).unwrap();
        let after = resource_digests(&mut cached);
        assert_eq!(after[0], before[0]);
        assert_ne!(after[1].1, before[1].1);
        assert_eq!(after[1].1, digest(b"# Forma\n"));
        assert!(cached.is_fresh(&s));

        // A file added in a directory that held no file yet.
        write(&dir.join("assets/logo.txt"), "logo");
        assert!(!cached.is_fresh(&s));
        let mut cached = Cached::build(&s).unwrap();
        assert_eq!(resource_digests(&mut cached).len(), 3);

        // A new ignore file, and a file removed.
        write(&dir.join(".ignore"), "assets/\n");
        assert!(!cached.is_fresh(&s));
        let cached = Cached::build(&s).unwrap();
        std::fs::remove_file(dir.join("references/FORMS.md")).unwrap();
        assert!(!cached.is_fresh(&s));
        let cached = Cached::build(&s).unwrap();
        let rels: Vec<&str> = cached
            .manifest
            .files
            .iter()
            .map(|f| f.rel.as_str())
            .collect();
        assert_eq!(rels, ["SKILL.md", ".ignore"]);
    }
}
