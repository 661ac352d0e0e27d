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
    dir: Box<Path>,
    /// The frontmatter's fields other than `name` (the id) and `description` (the index
    /// holds it), as JSON, in file order.
    extra: Box<[(Box<str>, serde_json::Value)]>,
    /// Every file, `SKILL.md` first, then sorted.
    pub(crate) files: Box<[ServedFile]>,
}

impl Manifest {
    /// `skill://<id>/SKILL.md`.
    pub(crate) fn skill_uri(&self) -> String {
        format!("{SCHEME}{}/SKILL.md", self.id)
    }

    /// `skill://<id>/<rel>`, percent-encoded where needed.
    pub(crate) fn uri(&self, file: &ServedFile) -> String {
        format!("{SCHEME}{}/{}", self.id, encode(&file.rel))
    }

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

    /// The file at exactly this URI (compared without building every file's URI).
    pub(crate) fn file(&self, uri: &str) -> Option<&ServedFile> {
        let rest = uri
            .strip_prefix(SCHEME)?
            .strip_prefix(&*self.id)?
            .strip_prefix('/')?;
        self.files.iter().find(|f| is_encoding_of(rest, &f.rel))
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

/// Whether a byte stays as it is in a URI path: unreserved characters and `/`.
fn is_kept(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/')
}

/// The hexadecimal digit of a nibble (the low four bits of `n`).
fn hex_digit(n: u8, upper: bool) -> u8 {
    match n & 0xf {
        d @ 0..=9 => b'0' + d,
        d if upper => b'A' + (d - 10),
        d => b'a' + (d - 10),
    }
}

/// The `%XX` escape of a byte.
fn escape(byte: u8) -> [u8; 3] {
    [b'%', hex_digit(byte >> 4, true), hex_digit(byte, true)]
}

/// Percent-encodes a relative path for a URI, keeping unreserved characters and `/`.
fn encode(rel: &str) -> String {
    let mut out = String::with_capacity(rel.len());
    for byte in rel.bytes() {
        if is_kept(byte) {
            out.push(char::from(byte));
        } else {
            out.extend(escape(byte).map(char::from));
        }
    }
    out
}

/// Whether `encoded` is exactly [`encode`]`(rel)`.
fn is_encoding_of(encoded: &str, rel: &str) -> bool {
    let mut rest = encoded.as_bytes();
    for byte in rel.bytes() {
        let matched = if is_kept(byte) {
            rest.split_first()
                .filter(|(first, _)| **first == byte)
                .map(|(_, tail)| tail)
        } else {
            rest.split_at_checked(3)
                .filter(|(head, _)| *head == escape(byte))
                .map(|(_, tail)| tail)
        };
        match matched {
            Some(tail) => rest = tail,
            None => return false,
        }
    }
    rest.is_empty()
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
    let mut files = Vec::with_capacity(listed.len());
    for file in listed {
        let Some(rel) = rel_string(&file.path) else {
            return Err(format!(
                "the file name {:?} is not UTF-8",
                file.path.display()
            ));
        };
        files.push(ServedFile {
            rel: rel.into_boxed_str(),
            size: file.size,
        });
    }
    // SKILL.md first, the rest as listed (sorted).
    files.sort_by_key(|f| &*f.rel != "SKILL.md");
    if files.first().map(|f| &*f.rel) != Some("SKILL.md") {
        return Err("its SKILL.md is not among its files".to_string());
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

/// A SHA-256 digest, kept as bytes (a third of its text form).
pub(crate) type Sha = [u8; 32];

/// `sha256:<hex>`, as the extension writes a digest.
pub(crate) fn digest_text(hash: &Sha) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push(char::from(hex_digit(byte >> 4, false)));
        out.push(char::from(hex_digit(*byte, false)));
    }
    out
}

/// `sha256:<hex>` of some bytes.
#[cfg(test)]
pub(crate) fn digest(bytes: &[u8]) -> String {
    digest_text(&Sha256::digest(bytes).into())
}

/// The digest and size of a regular file of at most [`MAX_BYTES`], streamed through a small
/// buffer rather than read whole.
fn hash_file(path: &Path) -> std::io::Result<(Sha, u64)> {
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
    pub(crate) manifest: Arc<Manifest>,
    /// Directories and ignore files, relative to the skill's directory (`""` is the
    /// directory itself), with their stamps when listed.
    watched: Box<[(Box<Path>, Option<Stamp>)]>,
    /// Each file's stamp (as [`Manifest::files`]); `None` never matches.
    stamps: Box<[Option<Stamp>]>,
    /// Each file's digest and size, once computed.
    digests: Option<Box<[(Sha, u64)]>>,
    /// Whether its directories are watched and unchanged since it was last checked: then
    /// it is served without a `stat`.
    pub(crate) trusted: bool,
}

impl Cached {
    /// Lists and parses a skill. `Err` says why it is not served over the extension.
    pub(crate) fn build(skill: &Skill) -> Result<Self, String> {
        // Stamps first: a change during the listing shows as a changed stamp next time.
        let mut watched = Vec::new();
        if !skill.flat {
            watch(&skill.dir, Path::new(""), 0, &mut watched);
        }
        let mut manifest = manifest(skill)?;
        let mut stamps = Vec::with_capacity(manifest.files.len());
        for i in 0..manifest.files.len() {
            let stamp = manifest
                .files
                .get(i)
                .and_then(|file| Stamp::read(&manifest.path(file)));
            if let (Some(stamp), Some(file)) = (stamp, manifest.files.get_mut(i)) {
                file.size = stamp.len;
            }
            stamps.push(stamp);
        }
        Ok(Self {
            manifest: Arc::new(manifest),
            watched: watched.into_boxed_slice(),
            stamps: stamps.into_boxed_slice(),
            digests: None,
            trusted: false,
        })
    }

    /// Whether this was built for the same `SKILL.md` (another one winning is another skill).
    pub(crate) fn same_skill(&self, skill: &Skill) -> bool {
        self.manifest.is_for(skill)
    }

    /// The directories (and ignore files) whose changes make this stale: what a change
    /// watch must cover for the manifest to be trusted without `stat`s. `None` for a flat
    /// skill, whose file sits in a root among others.
    pub(crate) fn watch_paths(&self) -> Option<impl Iterator<Item = PathBuf> + '_> {
        let dir = &self.manifest.dir;
        (!self.watched.is_empty()).then(|| self.watched.iter().map(|(rel, _)| dir.join(rel)))
    }

    /// Whether every file was stat'ed and, once hashed, still had that size.
    pub(crate) fn stamps_complete(&self) -> bool {
        self.stamps.iter().all(Option::is_some)
    }

    /// Whether nothing the manifest was built from changed on disk (one `stat` per
    /// directory, ignore file and file of the skill).
    pub(crate) fn is_fresh(&self, skill: &Skill) -> bool {
        let manifest = &self.manifest;
        self.same_skill(skill)
            && self.watched.iter().all(|(rel, stamp)| {
                stamp.is_some() && Stamp::read(&manifest.dir.join(rel)) == *stamp
            })
            && manifest
                .files
                .iter()
                .zip(&self.stamps)
                .all(|(file, stamp)| stamp.is_some() && Stamp::read(&manifest.path(file)) == *stamp)
    }

    /// Every file's digest and size, hashed once. A file that changed since it was stat'ed
    /// is hashed as it is now and the skill rebuilt on the next request.
    pub(crate) fn digests(&mut self) -> std::io::Result<&[(Sha, u64)]> {
        if self.digests.is_none() {
            let mut digests = Vec::with_capacity(self.manifest.files.len());
            for (file, stamp) in self.manifest.files.iter().zip(self.stamps.iter_mut()) {
                let (hash, size) = hash_file(&self.manifest.path(file))?;
                if stamp.is_none_or(|s| s.len != size) {
                    *stamp = None;
                }
                digests.push((hash, size));
            }
            self.digests = Some(digests.into_boxed_slice());
        }
        Ok(self.digests.as_deref().unwrap_or_default())
    }
}

/// The cached skills, sorted by id. A vector rather than a hash map: a server keeps one entry
/// per skill it served for its whole life, and a hash table of them would stand about half
/// empty; a lookup is a binary search over ids.
#[derive(Debug, Default)]
pub(crate) struct Cache(Vec<Cached>);

impl Cache {
    fn position(&self, id: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|c| (*c.manifest.id).cmp(id))
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Cached> {
        self.position(id).ok().and_then(|i| self.0.get(i))
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut Cached> {
        self.position(id).ok().and_then(|i| self.0.get_mut(i))
    }

    /// Adds a skill, replacing what was cached for its id.
    pub(crate) fn insert(&mut self, cached: Cached) {
        match self.position(&cached.manifest.id) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    *slot = cached;
                }
            }
            Err(i) => self.0.insert(i, cached),
        }
    }

    pub(crate) fn remove(&mut self, id: &str) {
        if let Ok(i) = self.position(id) {
            self.0.remove(i);
        }
    }

    /// Keeps the skills whose ids `keep` says.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.0.retain(|c| keep(&c.manifest.id));
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Cached> {
        self.0.iter_mut()
    }
}

/// Records the stamps of `dir`, its ignore files and every directory below it (not through
/// symlinks, not into `.git` or `node_modules`), as deep as [`Skill::files`] lists.
fn watch(dir: &Path, rel: &Path, depth: usize, out: &mut Vec<(Box<Path>, Option<Stamp>)>) {
    out.push((rel.into(), Stamp::read(dir)));
    for name in [".gitignore", ".ignore"] {
        if let Some(stamp) = Stamp::read(&dir.join(name)) {
            out.push((rel.join(name).into_boxed_path(), Some(stamp)));
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
            watch(&entry.path(), &rel.join(&name), depth + 1, out);
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
        for rel in ["a b/ü.md", "SKILL.md", "x%41", "", "%"] {
            assert!(is_encoding_of(&encode(rel), rel), "{rel}");
        }
        for (encoded, rel) in [
            // Another spelling of the same bytes is not the file's URI.
            ("a%62", "ab"),
            ("a%20b/%c3%bc.md", "a b/ü.md"),
            ("a b", "a b"),
            ("%2e%2e/x", "../x"),
            ("SKILL.md/", "SKILL.md"),
            ("SKILL.m", "SKILL.md"),
            ("x%4", "x%41"),
        ] {
            assert!(!is_encoding_of(encoded, rel), "{encoded} {rel}");
        }
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
        let manifest = Arc::clone(&cached.manifest);
        let uris = manifest.files.iter().map(|f| manifest.uri(f));
        let digests = cached.digests().unwrap();
        uris.zip(digests.iter().map(|(d, _)| digest_text(d)))
            .collect()
    }

    /// Another skill taking over the id (a higher-priority root) is not the cached one,
    /// even though the cached one's files are all as they were.
    #[test]
    fn a_skill_from_another_directory_is_not_the_cached_one() {
        let tmp = tempfile::tempdir().unwrap();
        let (high, low) = (tmp.path().join("high"), tmp.path().join("low"));
        let text = "---\nname: pdf\ndescription: PDFs.\n---\nBody\n";
        write(&low.join("pdf/SKILL.md"), text);
        let roots = Roots::custom([&high, &low]);
        let before = Index::scan(&roots).get("pdf").unwrap().clone();
        let cached = Cached::build(&before).unwrap();
        assert!(cached.same_skill(&before) && cached.is_fresh(&before));

        write(&high.join("pdf/SKILL.md"), text);
        let after = Index::scan(&roots).get("pdf").unwrap().clone();
        assert_eq!(after.dir, high.join("pdf"));
        assert!(!cached.same_skill(&after));
        assert!(!cached.is_fresh(&after));
        assert!(Cached::build(&after).unwrap().same_skill(&after));
    }

    /// The fields besides name and description go out in the file's order.
    #[test]
    fn extra_frontmatter_fields_keep_their_order() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            &tmp.path().join("pdf/SKILL.md"),
            "---\nname: pdf\nlicense: MIT\ndescription: PDFs.\nmetadata:\n  a: b\nallowed-tools: Read\n---\nBody\n",
        );
        let cached = Cached::build(&skill(tmp.path())).unwrap();
        let extra = cached.manifest.extra();
        let keys: Vec<&str> = extra.keys().map(String::as_str).collect();
        assert_eq!(keys, ["license", "metadata", "allowed-tools"]);
        assert_eq!(extra["metadata"], serde_json::json!({"a": "b"}));
    }

    #[test]
    fn the_cache_finds_replaces_and_forgets_skills_by_id() {
        let tmp = tempfile::tempdir().unwrap();
        for id in ["b", "c", "a"] {
            write(
                &tmp.path().join(id).join("SKILL.md"),
                &format!("---\nname: {id}\ndescription: Skill {id}.\n---\nBody\n"),
            );
        }
        let index = Index::scan(&Roots::custom([tmp.path()]));
        let build = |id: &str| Cached::build(index.get(id).unwrap()).unwrap();
        let mut cache = Cache::default();
        for id in ["c", "a", "b"] {
            cache.insert(build(id));
        }
        let ids = |cache: &Cache| -> Vec<String> {
            cache.0.iter().map(|c| c.manifest.id.to_string()).collect()
        };
        assert_eq!(ids(&cache), ["a", "b", "c"]);
        assert!(cache.get("b").is_some());
        assert!(cache.get("B").is_none() && cache.get("d").is_none());

        // Replacing keeps one entry per id.
        cache.get_mut("b").unwrap().trusted = true;
        cache.insert(build("b"));
        assert_eq!(ids(&cache), ["a", "b", "c"]);
        assert!(!cache.get("b").unwrap().trusted);

        cache.remove("a");
        cache.remove("zzz");
        assert_eq!(ids(&cache), ["b", "c"]);
        cache.retain(|id| id != "c");
        assert_eq!(ids(&cache), ["b"]);
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
        let rels: Vec<&str> = cached.manifest.files.iter().map(|f| &*f.rel).collect();
        assert_eq!(rels, ["SKILL.md", ".ignore"]);
    }
}
