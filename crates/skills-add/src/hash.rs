//! The digest of an installed skill's files, as the lock file records it.

use std::io::Read as _;
use std::path::Path;

use sha2::{Digest as _, Sha256};

/// The digest of the skill in `dir`: `sha256:` and the hex SHA-256 of, for each entry in
/// the byte order of its `/`-separated path relative to `dir`:
///
/// - a regular file: `f`, the path, a NUL byte, its size as 8 bytes big-endian, its bytes;
/// - a symbolic link: `l`, the path, a NUL byte, the link's target as written, a NUL byte.
///
/// Directories contribute only through what they hold; `.git` and `node_modules` are left
/// out. The same files give the same digest on every machine, whatever their times or
/// permissions.
///
/// ```
/// let t = tempfile::tempdir()?;
/// std::fs::write(t.path().join("SKILL.md"), "---\nname: x\n---\n")?;
/// let before = skills_add::tree_hash(t.path())?;
/// assert!(before.starts_with("sha256:"));
/// std::fs::write(t.path().join("notes.md"), "more")?;
/// assert_ne!(skills_add::tree_hash(t.path())?, before);
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// An I/O error reading `dir` or a file in it (a non-UTF-8 name is one).
pub fn tree_hash(dir: &Path) -> std::io::Result<String> {
    let mut entries = Vec::new();
    collect(dir, "", &mut entries)?;
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut digest = Hasher::new();
    for (rel, is_link) in entries {
        let path = dir.join(&rel);
        if is_link {
            digest.link(&rel, &std::fs::read_link(&path)?);
        } else {
            digest.file(&rel, &path)?;
        }
    }
    Ok(digest.finish())
}

/// The digest [`tree_hash`] gives a directory holding exactly `files` as regular files:
/// each `(path, source)` is a `/`-separated path in that tree and the file whose bytes it
/// would have. What a skill would install can then be compared with a lock without
/// copying it anywhere first (`skills check` writes nothing).
///
/// ```
/// let t = tempfile::tempdir()?;
/// std::fs::create_dir(t.path().join("scripts"))?;
/// std::fs::write(t.path().join("scripts/run.sh"), "echo")?;
/// let elsewhere = tempfile::NamedTempFile::new()?;
/// std::fs::write(elsewhere.path(), "echo")?;
/// assert_eq!(
///     skills_add::files_hash([("scripts/run.sh", elsewhere.path())])?,
///     skills_add::tree_hash(t.path())?,
/// );
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// An I/O error reading a file.
pub fn files_hash<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> std::io::Result<String> {
    let mut files: Vec<(&str, &Path)> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut digest = Hasher::new();
    for (rel, source) in files {
        digest.file(rel, source)?;
    }
    Ok(digest.finish())
}

/// The digest [`tree_hash`] gives a directory holding exactly `files` (`/`-separated path,
/// bytes) as regular files: what a registry's version digest is, checked before the files
/// are written anywhere.
///
/// ```
/// let t = tempfile::tempdir()?;
/// std::fs::write(t.path().join("SKILL.md"), "x")?;
/// assert_eq!(skills_add::bytes_hash([("SKILL.md", b"x".as_slice())]), skills_add::tree_hash(t.path())?);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn bytes_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut files: Vec<(&str, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut digest = Hasher::new();
    for (rel, bytes) in files {
        digest.sha.update(b"f");
        digest.sha.update(rel.as_bytes());
        digest.sha.update([0]);
        digest.sha.update((bytes.len() as u64).to_be_bytes());
        digest.sha.update(bytes);
    }
    digest.finish()
}

/// The running digest of [`tree_hash`]'s entries, fed in path order.
struct Hasher {
    sha: Sha256,
    buffer: Vec<u8>,
}

impl Hasher {
    fn new() -> Self {
        Self {
            sha: Sha256::new(),
            buffer: vec![0u8; 64 * 1024],
        }
    }

    fn link(&mut self, rel: &str, target: &Path) {
        self.sha.update(b"l");
        self.sha.update(rel.as_bytes());
        self.sha.update([0]);
        self.sha.update(target.to_string_lossy().as_bytes());
        self.sha.update([0]);
    }

    fn file(&mut self, rel: &str, path: &Path) -> std::io::Result<()> {
        let mut file = std::fs::File::open(path)?;
        let size = file.metadata()?.len();
        self.sha.update(b"f");
        self.sha.update(rel.as_bytes());
        self.sha.update([0]);
        self.sha.update(size.to_be_bytes());
        let mut read = 0u64;
        loop {
            let n = file.read(&mut self.buffer)?;
            if n == 0 {
                break;
            }
            read += n as u64;
            self.sha.update(self.buffer.get(..n).unwrap_or_default());
        }
        if read != size {
            return Err(std::io::Error::other(format!(
                "{}: changed while it was read",
                path.display()
            )));
        }
        Ok(())
    }

    fn finish(self) -> String {
        format!("sha256:{}", skills_core::digest::hex(&self.sha.finalize()))
    }
}

fn collect(dir: &Path, prefix: &str, out: &mut Vec<(String, bool)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_str().ok_or_else(|| {
            std::io::Error::other(format!("{}: the name is not UTF-8", entry.path().display()))
        })?;
        let rel = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            out.push((rel, true));
        } else if kind.is_dir() {
            if skills_core::layout::is_skipped_dir(entry.file_name().as_os_str()) {
                continue;
            }
            collect(&entry.path(), &rel, out)?;
        } else if kind.is_file() {
            out.push((rel, false));
        }
    }
    Ok(())
}

/// Whether `text` is a digest as [`tree_hash`] writes it.
pub(crate) fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_depends_on_names_and_bytes_only() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for t in [&a, &b] {
            std::fs::create_dir_all(t.path().join("scripts")).unwrap();
            std::fs::write(t.path().join("SKILL.md"), "x").unwrap();
            std::fs::write(t.path().join("scripts/run.sh"), "echo").unwrap();
        }
        std::fs::create_dir_all(b.path().join(".git")).unwrap();
        std::fs::write(b.path().join(".git/HEAD"), "ignored").unwrap();
        assert_eq!(tree_hash(a.path()).unwrap(), tree_hash(b.path()).unwrap());
        // Moving bytes between a name and a file changes the digest.
        std::fs::write(b.path().join("scripts/run.sh"), "echo ").unwrap();
        assert_ne!(tree_hash(a.path()).unwrap(), tree_hash(b.path()).unwrap());
        // An empty tree has the digest of nothing.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(
            tree_hash(empty.path()).unwrap(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
