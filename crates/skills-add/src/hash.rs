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
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    for (rel, is_link) in entries {
        let path = dir.join(&rel);
        if is_link {
            let target = std::fs::read_link(&path)?;
            hasher.update(b"l");
            hasher.update(rel.as_bytes());
            hasher.update([0]);
            hasher.update(target.to_string_lossy().as_bytes());
            hasher.update([0]);
            continue;
        }
        let mut file = std::fs::File::open(&path)?;
        let size = file.metadata()?.len();
        hasher.update(b"f");
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update(size.to_be_bytes());
        let mut read = 0u64;
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            read += n as u64;
            hasher.update(buffer.get(..n).unwrap_or_default());
        }
        if read != size {
            return Err(std::io::Error::other(format!(
                "{}: changed while it was read",
                path.display()
            )));
        }
    }
    Ok(format!("sha256:{}", hex(&hasher.finalize())))
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

/// Lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
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
