//! Collecting a skill's files and writing a reproducible archive.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use skills_core::files::{self, Problem};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::PackageError;

pub use skills_core::files::{SkipReason, Skipped};

/// The deflate level: fixed, so the same input gives the same bytes.
const COMPRESSION_LEVEL: i64 = 6;

/// Seconds from the Unix epoch to 1980-01-01, the earliest time a ZIP file can hold.
const ZIP_EPOCH: u64 = 315_532_800;

/// One file of a skill, as it goes into an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path relative to the skill directory, `/`-separated (`scripts/run.sh`).
    pub path: String,
    /// The file whose content is stored (the target, for a symlink inside the skill).
    pub source: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Whether any executable bit is set (stored as mode 0755, else 0644).
    pub executable: bool,
}

/// The files of a skill that a package holds, and those left out for a reason worth saying.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collected {
    /// The files packaged, sorted by path.
    pub entries: Vec<Entry>,
    /// Files left out although no ignore file excludes them, sorted by path.
    pub skipped: Vec<Skipped>,
}

/// The archive format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// `<id>.skill`: a ZIP file under the extension Claude's upload and Anthropic's packager use.
    #[default]
    Skill,
    /// `<id>.zip`: the same bytes under the usual extension.
    Zip,
}

impl Format {
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Skill => "skill",
            Format::Zip => "zip",
        }
    }
}

/// How to package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The archive format.
    pub format: Format,
    /// The timestamp of every entry, in seconds since the Unix epoch (see
    /// [`source_date_epoch`]); `None` is 1980-01-01 00:00:00. ZIP times have a 2-second
    /// resolution and cover 1980 to 2107; times outside are clamped.
    pub mtime: Option<u64>,
}

/// What [`package`] wrote.
#[derive(Debug, Clone)]
pub struct Packaged {
    /// The skill's id: its directory name, the top-level folder in the archive.
    pub id: String,
    /// The archive written.
    pub archive: PathBuf,
    /// The files stored, in archive order.
    pub entries: Vec<Entry>,
    /// Files left out although no ignore file excludes them.
    pub skipped: Vec<Skipped>,
}

/// `SOURCE_DATE_EPOCH` from the environment, when set to a number of seconds.
pub fn source_date_epoch() -> Option<u64> {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse().ok())
}

/// The id of the skill in `dir`: the directory's name (resolving `.` and `..`).
///
/// # Errors
///
/// [`PackageError::NotADirectory`] when the path has no name even resolved, and
/// [`PackageError::NonUtf8Name`] when the name is not UTF-8.
pub fn skill_id(dir: &Path) -> Result<String, PackageError> {
    let named = match dir.components().next_back() {
        Some(Component::Normal(name)) => Some(name.to_os_string()),
        _ => fs::canonicalize(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_os_string())),
    };
    let Some(name) = named else {
        return Err(PackageError::NotADirectory {
            path: dir.to_path_buf(),
        });
    };
    name.into_string().map_err(|_| PackageError::NonUtf8Name {
        path: dir.to_path_buf(),
    })
}

/// The files of the skill in `dir` that a package holds, sorted by path: [`collect_all`]
/// without the list of skipped files.
///
/// # Errors
///
/// Those of [`collect_all`].
pub fn collect(dir: &Path) -> Result<Vec<Entry>, PackageError> {
    collect_all(dir).map(|c| c.entries)
}

/// The files of the skill in `dir` that a package holds, and the files left out that the
/// user should hear about: the one file policy of [`skills_core::files`] (what `skills
/// lint` checks and `skills show` and the MCP server list), and all or nothing.
///
/// That is: `.git`, `__pycache__`, `node_modules`, `.DS_Store` and `*.pyc` left out; what a
/// `.gitignore`, `.ignore` or `.skillignore` in the skill (in any of its directories)
/// excludes; what the enclosing git repository ignores ([`skills_core::RepoRules`]); and,
/// unless one of those includes them with a `!pattern`, names that look like secrets
/// (`.env*`, `*.pem`, `id_*`, reported in [`Collected::skipped`]). A symlink to a file or
/// directory inside the skill is followed (its target's content is stored under the link's
/// path); sockets, FIFOs and devices are skipped and reported. A hard link is an ordinary
/// file: its content is packaged wherever its other names are.
///
/// # Errors
///
/// Anything that would leave a file out of the listing is refused, naming the path:
/// [`PackageError::SymlinkEscape`] for a symlink that points outside the skill,
/// [`PackageError::SymlinkLoop`] for one that points to a directory containing it,
/// [`PackageError::SymlinkCycle`] for links that lead to each other,
/// [`PackageError::BrokenSymlink`], [`PackageError::NonUtf8Name`], an invalid ignore file
/// ([`PackageError::Ignore`]), or an I/O error.
pub fn collect_all(dir: &Path) -> Result<Collected, PackageError> {
    let meta = fs::metadata(dir).map_err(|_| PackageError::NotADirectory {
        path: dir.to_path_buf(),
    })?;
    if !meta.is_dir() {
        return Err(PackageError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let listing = files::list(dir).map_err(|e| PackageError::io(dir, e))?;
    // A package is all of the skill or nothing: anything that kept a file out is an error.
    if let Some(problem) = listing.problems.into_iter().next() {
        return Err(refusal(dir, problem));
    }
    let entries = listing
        .files
        .into_iter()
        .map(|f| Entry {
            path: f.path,
            source: f.real,
            size: f.size,
            executable: f.executable,
        })
        .collect();
    Ok(Collected {
        entries,
        skipped: listing.skipped,
    })
}

/// The error for a problem of the listing, naming the path as the user gave it.
fn refusal(dir: &Path, problem: Problem) -> PackageError {
    let shown = |rel: &str| dir.join(rel);
    match problem {
        Problem::SymlinkEscape { link, target } => PackageError::SymlinkEscape {
            link: shown(&link),
            target,
        },
        Problem::SymlinkLoop { link } => PackageError::SymlinkLoop { link: shown(&link) },
        Problem::SymlinkCycle { link } => PackageError::SymlinkCycle { link: shown(&link) },
        Problem::BrokenSymlink { link } => PackageError::BrokenSymlink { link: shown(&link) },
        Problem::NonUtf8Name { path } => PackageError::NonUtf8Name { path },
        Problem::InvalidIgnoreFile { path, message } => PackageError::Ignore { path, message },
        Problem::Unreadable { path, error } => PackageError::io(shown(&path), error),
        _ => PackageError::io(dir, io::Error::other("the skill's files cannot be listed")),
    }
}

/// Packages the skill in `dir` into `out_dir/<id>.skill` (or `.zip`), replacing an archive
/// of the same name. Does not lint: lint first.
///
/// Entries are `<id>/<path>` for each file of [`collect`], in that order, deflated at a fixed
/// level, stamped with [`Options::mtime`], mode 0755 when the file has an executable bit and
/// 0644 otherwise; no directory entries, no comment. The archive is written to a temporary
/// file in `out_dir` and renamed into place, so on failure no partial archive is left.
///
/// # Errors
///
/// Those of [`collect`], and I/O or ZIP errors naming the file.
pub fn package(dir: &Path, out_dir: &Path, options: &Options) -> Result<Packaged, PackageError> {
    let id = skill_id(dir)?;
    let collected = collect_all(dir)?;
    write_archive(id, collected, out_dir, options)
}

/// The flat skill in `file` (seed 004's `NAME.md`, its frontmatter and instructions) as
/// the skill directory it stands for: its id is the file's stem, its one entry `SKILL.md`,
/// holding the file's bytes.
///
/// # Errors
///
/// [`PackageError::NonUtf8Name`] when the stem is not UTF-8 (or there is none),
/// [`PackageError::SymlinkEscape`] when `file` is a symlink that leads out of its folder
/// (what discovery never reads), and an I/O error when it is not a readable regular file.
pub fn collect_flat(file: &Path) -> Result<(String, Vec<Entry>), PackageError> {
    let id = file
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| PackageError::NonUtf8Name {
            path: file.to_path_buf(),
        })?;
    let lmeta = fs::symlink_metadata(file).map_err(|e| PackageError::io(file, e))?;
    if lmeta.file_type().is_symlink() {
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let target = fs::canonicalize(file).map_err(|_| PackageError::BrokenSymlink {
            link: file.to_path_buf(),
        })?;
        let folder = fs::canonicalize(folder).map_err(|e| PackageError::io(folder, e))?;
        if !target.starts_with(&folder) {
            return Err(PackageError::SymlinkEscape {
                link: file.to_path_buf(),
                target,
            });
        }
    }
    let meta = fs::metadata(file).map_err(|e| PackageError::io(file, e))?;
    if !meta.is_file() {
        return Err(PackageError::io(
            file,
            io::Error::other(format!(
                "it is {}, not a regular file",
                skills_core::describe_file_type(meta.file_type())
            )),
        ));
    }
    let entry = Entry {
        path: skills_core::layout::SKILL_MD.to_string(),
        source: file.to_path_buf(),
        size: meta.len(),
        executable: false,
    };
    Ok((id.to_string(), vec![entry]))
}

/// Packages the flat skill in `file` into `out_dir/<stem>.skill` (or `.zip`): an archive
/// with one entry, `<stem>/SKILL.md`, as [`package`] writes a skill directory holding only
/// that file. Does not lint: lint first.
///
/// # Errors
///
/// Those of [`collect_flat`], and I/O or ZIP errors naming the file.
pub fn package_flat(
    file: &Path,
    out_dir: &Path,
    options: &Options,
) -> Result<Packaged, PackageError> {
    let (id, entries) = collect_flat(file)?;
    let collected = Collected {
        entries,
        skipped: Vec::new(),
    };
    write_archive(id, collected, out_dir, options)
}

/// Writes the archive of skill `id` holding `collected`, replacing `out_dir/<id>.<ext>`.
fn write_archive(
    id: String,
    collected: Collected,
    out_dir: &Path,
    options: &Options,
) -> Result<Packaged, PackageError> {
    let Collected {
        mut entries,
        skipped,
    } = collected;
    let archive = out_dir.join(format!("{id}.{}", options.format.extension()));
    // An earlier archive written inside the skill is not part of it.
    if let Ok(existing) = fs::canonicalize(&archive) {
        entries.retain(|e| e.source != existing);
    }
    // What `skills install` accepts (the default unpack limits): refused here, not there.
    let limits = crate::Limits::default();
    if entries.len() > limits.max_entries {
        return Err(PackageError::TooManyEntries {
            count: entries.len(),
            limit: limits.max_entries,
        });
    }
    if entries.iter().map(|e| e.size).sum::<u64>() > limits.max_bytes {
        return Err(PackageError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    // A temporary file left by a killed run for the same archive is removed first.
    let base = format!(".{id}.skills-tmp-");
    let _ = skills_core::durable::remove_stale(out_dir, &base);
    let mut tmp = tempfile::Builder::new()
        .prefix(&skills_core::durable::temp_prefix(&base))
        .suffix(".tmp")
        .tempfile_in(out_dir)
        .map_err(|e| PackageError::io(out_dir, e))?;
    write_zip(tmp.as_file_mut(), &id, &entries, options.mtime, &archive)?;
    set_readable(tmp.as_file()).map_err(|e| PackageError::io(tmp.path(), e))?;
    tmp.persist(&archive)
        .map_err(|e| PackageError::io(&archive, e.error))?;
    skills_core::durable::sync_dir(out_dir).map_err(|e| PackageError::io(out_dir, e))?;
    Ok(Packaged {
        skipped,
        id,
        archive,
        entries,
    })
}

fn write_zip(
    file: &mut fs::File,
    id: &str,
    entries: &[Entry],
    mtime: Option<u64>,
    archive: &Path,
) -> Result<(), PackageError> {
    let zip_err = |source| PackageError::Zip {
        path: archive.to_path_buf(),
        source,
    };
    let time = zip_time(mtime);
    let mut out = Archive::new(file);
    let written = write_entries(&mut out, id, entries, time);
    // A write error is the archive's, whichever call met it (`io::copy` does not say which
    // side failed, and the zip writer may meet it first).
    if let Some(failed) = out.failed {
        return Err(PackageError::io(archive, failed.error()));
    }
    written.map_err(|e| match e {
        PackageError::Zip { source, .. } => zip_err(source),
        other => other,
    })?;
    file.flush().map_err(|e| PackageError::io(archive, e))?;
    file.sync_all().map_err(|e| PackageError::io(archive, e))
}

/// The archive file as the zip writer sees it. After the first failed write or seek, it
/// writes nothing more and only keeps the position (the zip writer asserts on it): the zip
/// writer's `Drop` finishes an archive that `finish` could not, and would print its own
/// complaint to stderr ("ZipWriter::drop: failed to finalize archive") on top of our
/// error. The temporary file is removed anyway.
struct Archive<'a> {
    file: &'a mut fs::File,
    failed: Option<Failed>,
    /// Where the zip writer is, and the end of what it wrote, as it believes.
    pos: u64,
    end: u64,
}

/// The first error writing the archive, kept to be reported once the zip writer is gone.
#[derive(Clone, Copy)]
struct Failed {
    kind: io::ErrorKind,
    os: Option<i32>,
}

impl Failed {
    fn error(self) -> io::Error {
        self.os
            .map_or_else(|| self.kind.into(), io::Error::from_raw_os_error)
    }
}

impl<'a> Archive<'a> {
    fn new(file: &'a mut fs::File) -> Self {
        Self {
            file,
            failed: None,
            pos: 0,
            end: 0,
        }
    }

    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            self.failed.get_or_insert(Failed {
                kind: e.kind(),
                os: e.raw_os_error(),
            });
        }
        result
    }

    fn moved(&mut self, pos: u64) {
        self.pos = pos;
        self.end = self.end.max(pos);
    }
}

impl io::Write for Archive<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = if self.failed.is_some() {
            buf.len()
        } else {
            let result = self.file.write(buf);
            self.note(result)?
        };
        self.moved(self.pos.saturating_add(n as u64));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed.is_some() {
            return Ok(());
        }
        let result = self.file.flush();
        self.note(result)
    }
}

impl io::Seek for Archive<'_> {
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        let pos = if self.failed.is_some() {
            let target = match to {
                io::SeekFrom::Start(n) => Some(n),
                io::SeekFrom::Current(d) => self.pos.checked_add_signed(d),
                io::SeekFrom::End(d) => self.end.checked_add_signed(d),
            };
            target.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?
        } else {
            let result = self.file.seek(to);
            self.note(result)?
        };
        self.moved(pos);
        Ok(pos)
    }
}

fn write_entries(
    out: &mut Archive<'_>,
    id: &str,
    entries: &[Entry],
    time: DateTime,
) -> Result<(), PackageError> {
    // The path is filled in by the caller, which knows the archive's.
    let zip_err = |source| PackageError::Zip {
        path: std::path::PathBuf::new(),
        source,
    };
    let mut zip = ZipWriter::new(out);
    for entry in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .compression_level(Some(COMPRESSION_LEVEL))
            .last_modified_time(time)
            .unix_permissions(if entry.executable { 0o755 } else { 0o644 })
            .large_file(entry.size >= u64::from(u32::MAX));
        zip.start_file(format!("{id}/{}", entry.path), options)
            .map_err(zip_err)?;
        let mut source =
            fs::File::open(&entry.source).map_err(|e| PackageError::io(&entry.source, e))?;
        io::copy(&mut source, &mut zip).map_err(|e| PackageError::io(&entry.source, e))?;
    }
    zip.finish().map_err(zip_err)?;
    Ok(())
}

/// Temporary files are created 0600; an archive is for sharing.
#[cfg(unix)]
fn set_readable(file: &fs::File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_readable(_file: &fs::File) -> io::Result<()> {
    Ok(())
}

/// The ZIP timestamp for `epoch` seconds (UTC), clamped to what ZIP can hold.
fn zip_time(epoch: Option<u64>) -> DateTime {
    let Some(secs) = epoch.filter(|s| *s > ZIP_EPOCH) else {
        return DateTime::default();
    };
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let (hour, minute, second) = (rem / 3600, rem % 3600 / 60, rem % 60);
    if y > 2107 {
        return DateTime::from_date_and_time(2107, 12, 31, 23, 59, 58).unwrap_or_default();
    }
    DateTime::from_date_and_time(
        u16::try_from(y).unwrap_or(1980),
        u8::try_from(m).unwrap_or(1),
        u8::try_from(d).unwrap_or(1),
        u8::try_from(hour).unwrap_or(0),
        u8::try_from(minute).unwrap_or(0),
        u8::try_from(second).unwrap_or(0),
    )
    .unwrap_or_default()
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(3652), (1980, 1, 1));
        // 2024-02-29
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn zip_times() {
        assert_eq!(zip_time(None), DateTime::default());
        assert_eq!(zip_time(Some(0)), DateTime::default());
        let t = zip_time(Some(1_700_000_000)); // 2023-11-14 22:13:20 UTC
        assert_eq!(
            (
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            ),
            (2023, 11, 14, 22, 13, 20)
        );
        assert_eq!(zip_time(Some(u64::MAX)).year(), 2107);
    }
}
