//! Unpacking untrusted archives: zip-slip, symlinks and zip bombs refused.

use std::fs;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

use zip::ZipArchive;

use crate::PackageError;

/// Bounds on what an archive may expand to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes all entries may expand to, declared and actual (default 64 MiB).
    pub max_bytes: u64,
    /// The most entries, files and directories (default 2,000).
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 64 * 1024 * 1024,
            max_entries: 2_000,
        }
    }
}

/// One checked entry: its index and its path split into components.
struct Checked {
    index: usize,
    parts: Vec<String>,
    is_dir: bool,
}

impl Checked {
    /// Whether the entry is what packaging leaves out (`.git`, caches), below the
    /// `strip` components of the skill's folder: never unpacked either, since a `.git`
    /// from an archive is a repository whose config runs commands on the next `git status`.
    fn excluded(&self, strip: usize) -> bool {
        self.parts
            .iter()
            .skip(strip)
            .any(|p| skills_core::files::is_excluded(p))
    }
}

/// Unpacks the skill archive read from `reader` into `dest/<id>/` and returns the id.
///
/// Entries must all lie under one top-level directory, which is the id (`hello/SKILL.md`,
/// `hello/scripts/run.sh`), or form a flat skill with `SKILL.md` at the root, which takes the
/// id from `archive`'s file stem. `archive` names the archive in errors.
///
/// Before anything is written, every entry name is checked: absolute paths, drive letters
/// and `:`, backslashes, NUL, empty, `.` and `..` components, names that are not UTF-8, and
/// symlink entries are refused; so are more than [`Limits::max_entries`] entries or declared
/// sizes adding up to more than [`Limits::max_bytes`]. While extracting, the bytes actually
/// written are counted against the same limit, so a lying header does not help. Files are
/// created new (never through an existing file or link), with mode 0755 when the entry has an
/// executable bit and 0644 otherwise. `dest` should be a fresh, empty directory: on error it
/// holds a partial tree for the caller to delete.
///
/// # Errors
///
/// [`PackageError::UnsafeEntry`], [`PackageError::TooManyEntries`],
/// [`PackageError::TooLarge`], [`PackageError::Layout`], and ZIP or I/O errors.
pub fn unpack<R: Read + Seek>(
    mut reader: R,
    archive: &Path,
    dest: &Path,
    limits: &Limits,
) -> Result<String, PackageError> {
    unpack_from(&mut reader, archive, dest, limits)
}

/// A reader of an archive, behind one pointer type: the ZIP code under [`unpack`] and
/// [`read`] is compiled once, here, not again in each crate and for each reader that calls
/// them (a file, bytes in memory).
trait Archive: Read + Seek {}

impl<T: Read + Seek> Archive for T {}

fn unpack_from(
    reader: &mut dyn Archive,
    archive: &Path,
    dest: &Path,
    limits: &Limits,
) -> Result<String, PackageError> {
    let zip_err = |source| PackageError::Zip {
        path: archive.to_path_buf(),
        source,
    };
    let (mut zip, checked) = open_checked(reader, archive, limits)?;
    let (id, strip) = layout(&checked, archive)?;
    let root = dest.join(&id);
    fs::create_dir_all(&root).map_err(|e| PackageError::io(&root, e))?;
    let mut written: u64 = 0;
    for c in &checked {
        if c.excluded(strip) {
            continue;
        }
        let rel: PathBuf = c.parts.iter().skip(strip).collect();
        if rel.as_os_str().is_empty() {
            continue;
        }
        let path = root.join(&rel);
        if c.is_dir {
            fs::create_dir_all(&path).map_err(|e| PackageError::io(&path, e))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| PackageError::io(parent, e))?;
        }
        let mut entry = zip.by_index(c.index).map_err(zip_err)?;
        let executable = entry.unix_mode().is_some_and(|m| m & 0o111 != 0);
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => PackageError::UnsafeEntry {
                    name: c.parts.join("/"),
                    reason: "it appears twice in the archive",
                },
                _ => PackageError::io(&path, e),
            })?;
        let remaining = limits.max_bytes.saturating_sub(written);
        let copied = io::copy(
            &mut (&mut entry).take(remaining.saturating_add(1)),
            &mut file,
        )
        .map_err(|e| PackageError::io(&path, e))?;
        written = written.saturating_add(copied);
        if written > limits.max_bytes {
            return Err(PackageError::TooLarge {
                limit: limits.max_bytes,
            });
        }
        set_mode(&file, executable).map_err(|e| PackageError::io(&path, e))?;
    }
    Ok(id)
}

/// The archive opened and every entry checked (see [`unpack`]); nothing read yet.
fn open_checked<R: Read + Seek>(
    reader: R,
    archive: &Path,
    limits: &Limits,
) -> Result<(ZipArchive<R>, Vec<Checked>), PackageError> {
    let zip_err = |source| PackageError::Zip {
        path: archive.to_path_buf(),
        source,
    };
    let mut zip = ZipArchive::new(reader).map_err(zip_err)?;
    if zip.len() > limits.max_entries {
        return Err(PackageError::TooManyEntries {
            count: zip.len(),
            limit: limits.max_entries,
        });
    }
    // Readers disagree on which of two same-named entries counts (this crate keeps the
    // last, most tools show the first): an archive that says two things is refused.
    if zip.has_duplicate_names() {
        return Err(PackageError::UnsafeEntry {
            name: archive.display().to_string(),
            reason: "two entries have the same name",
        });
    }
    let mut checked = Vec::with_capacity(zip.len());
    // Lowercased names: `SKILL.md` and `skill.md` are one file on macOS and Windows.
    let mut folded = std::collections::HashSet::with_capacity(zip.len());
    let mut declared: u64 = 0;
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(zip_err)?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let unsafe_entry = |reason| PackageError::UnsafeEntry {
            name: name.clone(),
            reason,
        };
        if entry.is_symlink() {
            return Err(unsafe_entry("it is a symlink"));
        }
        let decoded = entry
            .name()
            .map_err(|_| unsafe_entry("its name cannot be decoded"))?;
        let (parts, is_dir) = check_name(&decoded).map_err(unsafe_entry)?;
        if !folded.insert(parts.join("/").to_lowercase()) {
            return Err(unsafe_entry(
                "another entry has the same name but for letter case (one file on macOS and Windows)",
            ));
        }
        declared = declared.saturating_add(entry.size());
        if declared > limits.max_bytes {
            return Err(PackageError::TooLarge {
                limit: limits.max_bytes,
            });
        }
        checked.push(Checked {
            index,
            parts,
            is_dir,
        });
    }
    Ok((zip, checked))
}

/// One file of an archive read into memory by [`read`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveFile {
    /// Its path inside the skill, `/`-separated (the top-level directory left out).
    pub path: String,
    /// Its content.
    pub bytes: Vec<u8>,
    /// Whether its mode has an executable bit.
    pub executable: bool,
}

/// Reads the skill archive from `reader` into memory, with every check of [`unpack`]
/// (entry names, symlinks, duplicates, entry count, declared and actual sizes against
/// `limits`) and nothing written to disk: what `skills audit` reads an archive with.
/// Returns the id and the files, in the archive's order.
///
/// # Errors
///
/// As [`unpack`].
pub fn read<R: Read + Seek>(
    mut reader: R,
    archive: &Path,
    limits: &Limits,
) -> Result<(String, Vec<ArchiveFile>), PackageError> {
    read_from(&mut reader, archive, limits)
}

fn read_from(
    reader: &mut dyn Archive,
    archive: &Path,
    limits: &Limits,
) -> Result<(String, Vec<ArchiveFile>), PackageError> {
    let zip_err = |source| PackageError::Zip {
        path: archive.to_path_buf(),
        source,
    };
    let (mut zip, checked) = open_checked(reader, archive, limits)?;
    let (id, strip) = layout(&checked, archive)?;
    let mut files = Vec::new();
    let mut read: u64 = 0;
    for c in &checked {
        if c.is_dir || c.excluded(strip) {
            continue;
        }
        let path = c
            .parts
            .iter()
            .skip(strip)
            .cloned()
            .collect::<Vec<_>>()
            .join("/");
        if path.is_empty() {
            continue;
        }
        let mut entry = zip.by_index(c.index).map_err(zip_err)?;
        let executable = entry.unix_mode().is_some_and(|m| m & 0o111 != 0);
        let remaining = limits.max_bytes.saturating_sub(read);
        let mut bytes = Vec::new();
        (&mut entry)
            .take(remaining.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| PackageError::io(archive, e))?;
        read = read.saturating_add(bytes.len() as u64);
        if read > limits.max_bytes {
            return Err(PackageError::TooLarge {
                limit: limits.max_bytes,
            });
        }
        files.push(ArchiveFile {
            path,
            bytes,
            executable,
        });
    }
    Ok((id, files))
}

/// Splits an entry name into safe components; `true` for a directory entry (trailing `/`).
fn check_name(name: &str) -> Result<(Vec<String>, bool), &'static str> {
    if name.is_empty() {
        return Err("its name is empty");
    }
    if name.contains('\0') {
        return Err("its name contains NUL");
    }
    if name.contains('\\') {
        return Err("its name contains a backslash");
    }
    if name.contains(':') {
        return Err("its name contains `:` (a drive letter or stream name)");
    }
    if name.starts_with('/') {
        return Err("it is an absolute path");
    }
    let (body, is_dir) = match name.strip_suffix('/') {
        Some(body) => (body, true),
        None => (name, false),
    };
    let mut parts = Vec::new();
    for part in body.split('/') {
        match part {
            "" => return Err("its name has an empty component"),
            "." | ".." => return Err("its name has a `.` or `..` component"),
            p if p.chars().any(char::is_control) => {
                return Err("its name contains a control character");
            }
            p if p.len() > 255 => return Err("a part of its name is longer than 255 bytes"),
            p => parts.push(p.to_string()),
        }
    }
    // The skill's folder, then at most MAX_FILE_DEPTH directories, then the file.
    if parts.len() > skills_core::layout::MAX_FILE_DEPTH + 2 {
        return Err("it is nested more than 32 directories deep");
    }
    const _: () = assert!(
        skills_core::layout::MAX_FILE_DEPTH == 32,
        "the message says 32"
    );
    Ok((parts, is_dir))
}

/// The id, and how many leading components to strip from each entry.
fn layout(entries: &[Checked], archive: &Path) -> Result<(String, usize), PackageError> {
    let Some(first) = entries.first().and_then(|c| c.parts.first()) else {
        return Err(PackageError::Layout {
            reason: "the archive is empty".to_string(),
        });
    };
    let nested = entries
        .iter()
        .all(|c| c.parts.first() == Some(first) && (c.is_dir || c.parts.len() > 1));
    if nested {
        return Ok((first.clone(), 1));
    }
    let flat = entries.iter().any(|c| {
        !c.is_dir && c.parts.len() == 1 && c.parts.first().is_some_and(|p| p == "SKILL.md")
    });
    if flat {
        let stem = archive
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| !s.is_empty() && check_name(s).is_ok_and(|(p, d)| p.len() == 1 && !d));
        return match stem {
            Some(stem) => Ok((stem.to_string(), 0)),
            None => Err(PackageError::Layout {
                reason: format!(
                    "SKILL.md is at the root and the archive name `{}` gives no usable id",
                    archive.display()
                ),
            }),
        };
    }
    Err(PackageError::Layout {
        reason: "entries are under more than one top-level directory, or there are files at the root but no SKILL.md".to_string(),
    })
}

#[cfg(unix)]
fn set_mode(file: &fs::File, executable: bool) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(if executable {
        0o755
    } else {
        0o644
    }))
}

#[cfg(not(unix))]
fn set_mode(_file: &fs::File, _executable: bool) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            check_name("a/b.md"),
            Ok((vec!["a".to_string(), "b.md".to_string()], false))
        );
        assert_eq!(check_name("a/"), Ok((vec!["a".to_string()], true)));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            "C:/x",
            "c:x",
            "a\\..\\x",
            "a\0b",
            "a/\u{1b}b",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} accepted");
        }
        // The skill's folder, 32 directories, the file; one more is refused. A name part
        // the file system cannot hold is refused by name, not by an error of the disk.
        let deep = |n: usize| format!("demo/{}f", "d/".repeat(n));
        assert!(check_name(&deep(32)).is_ok());
        assert!(
            check_name(&deep(33))
                .unwrap_err()
                .contains("32 directories")
        );
        assert!(check_name(&format!("demo/{}", "x".repeat(256))).is_err());
    }

    #[test]
    fn what_packaging_leaves_out_is_not_unpacked() {
        let md: &[u8] = b"---\nname: demo\ndescription: d\n---\n";
        let bytes = zip_of(&[
            ("demo/SKILL.md", md),
            (
                "demo/.git/config",
                b"[core]\n\tfsmonitor = \"touch pwned\"\n",
            ),
            ("demo/.git/HEAD", b"ref: refs/heads/main\n"),
            ("demo/lib/__pycache__/x.pyc", b"\0"),
            ("demo/lib/run.py", b"print()\n"),
        ]);
        let dest = tempfile::tempdir().unwrap();
        let id = unpack(
            std::io::Cursor::new(bytes.clone()),
            Path::new("demo.skill"),
            dest.path(),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(id, "demo");
        let skill = dest.path().join("demo");
        assert!(skill.join("lib/run.py").is_file());
        assert!(!skill.join(".git").exists() && !skill.join("lib/__pycache__").exists());
        let (_, files) = read(
            std::io::Cursor::new(bytes),
            Path::new("demo.skill"),
            &Limits::default(),
        )
        .unwrap();
        let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "lib/run.py"]);
    }

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write as _;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn the_same_name_twice_or_but_for_case_is_refused() {
        let md: &[u8] = b"---\nname: demo\ndescription: d\n---\n";
        // The zip writer refuses a duplicate name, so the second one is renamed in place.
        let mut twice = zip_of(&[("demo/SKILL.md", md), ("demo/SKILX.md", b"evil")]);
        let (from, to) = (b"demo/SKILX.md", b"demo/SKILL.md");
        while let Some(at) = twice.windows(from.len()).position(|w| w == from) {
            twice[at..at + from.len()].copy_from_slice(to);
        }
        let case = zip_of(&[("demo/SKILL.md", md), ("demo/skill.md", b"evil")]);
        for (bytes, reason) in [
            (twice, "two entries have the same name"),
            (case, "another entry has the same name but for letter case"),
        ] {
            let dest = tempfile::tempdir().unwrap();
            let e = unpack(
                std::io::Cursor::new(bytes),
                Path::new("x.skill"),
                dest.path(),
                &Limits::default(),
            )
            .unwrap_err();
            assert!(e.to_string().contains(reason), "{e}");
            assert_eq!(
                fs::read_dir(dest.path()).unwrap().count(),
                0,
                "nothing written"
            );
        }
    }

    /// A ZIP whose headers say its one deflated file holds 11 bytes while it inflates to
    /// 1 MiB of zeros (the CRC is right, so only counting catches it).
    fn lying_zip() -> Vec<u8> {
        use std::io::Write as _;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("bomb/SKILL.md", options).unwrap();
        zip.write_all(&vec![0u8; 1 << 20]).unwrap();
        let mut bytes = zip.finish().unwrap().into_inner();
        let patch = |bytes: &mut Vec<u8>, signature: [u8; 4], offset: usize| {
            let at = bytes
                .windows(4)
                .position(|w| w == signature)
                .expect("header present");
            bytes[at + offset..at + offset + 4].copy_from_slice(&11u32.to_le_bytes());
        };
        // Uncompressed size: local file header at +22, central directory header at +24.
        patch(&mut bytes, [0x50, 0x4b, 0x03, 0x04], 22);
        patch(&mut bytes, [0x50, 0x4b, 0x01, 0x02], 24);
        bytes
    }

    #[test]
    fn a_lying_size_header_does_not_get_past_the_byte_limit() {
        let dest = tempfile::tempdir().unwrap();
        let limits = Limits {
            max_bytes: 64 * 1024,
            ..Limits::default()
        };
        let result = unpack(
            std::io::Cursor::new(lying_zip()),
            Path::new("bomb.zip"),
            dest.path(),
            &limits,
        );
        // Refused by the ZIP reader (it checks what it inflates against the header) or, were
        // that check ever gone, by our count of bytes written; never past the limit on disk.
        let caught = match &result {
            Err(PackageError::TooLarge { .. }) => true,
            Err(PackageError::Io { source, .. }) => source.kind() == io::ErrorKind::InvalidData,
            _ => false,
        };
        assert!(caught, "{result:?}");
        let written = std::fs::metadata(dest.path().join("bomb/SKILL.md"))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(written <= limits.max_bytes + 1, "{written} bytes written");
    }
}
