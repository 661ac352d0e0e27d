//! Finding skills under the paths given to lint, with one parallel walk per path.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{WalkBuilder, WalkState};

/// A regular file of a skill.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    pub(crate) path: PathBuf,
    /// The path relative to the skill directory, `/`-separated.
    pub(crate) rel: String,
    pub(crate) size: u64,
}

/// A directory the walk found a `SKILL.md` in (any letter case, or not a regular file).
#[derive(Debug)]
pub(crate) struct Found {
    pub(crate) dir: PathBuf,
    /// The `SKILL.md` the walk saw; the skill's listing may name a better one.
    skill_md: PathBuf,
    /// Set when `skill_md` is not a regular file (a directory, a FIFO...): what it is.
    not_a_file: Option<&'static str>,
    /// Whether the directory itself is a symbolic link, when the walk saw it as an entry.
    is_link: Option<bool>,
    /// A flat skill: `dir` and `skill_md` are both its `NAME.md` file.
    flat: bool,
}

impl Found {
    /// The flat skill in `file` (seed 004's `NAME.md`): the file is the whole skill.
    pub(crate) fn flat(file: &Path) -> Self {
        Self {
            dir: file.to_path_buf(),
            skill_md: file.to_path_buf(),
            not_a_file: None,
            is_link: None,
            flat: true,
        }
    }

    /// A skill the walk saw in `dir`, as if it did.
    #[cfg(test)]
    pub(crate) fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            skill_md: dir.join(skills_core::layout::SKILL_MD),
            not_a_file: None,
            is_link: None,
            flat: false,
        }
    }
}

/// A skill directory and its files under the one file policy.
#[derive(Debug)]
pub(crate) struct SkillDir {
    pub(crate) dir: PathBuf,
    /// The file whose name is `SKILL.md` in any letter case (`SKILL.md` preferred).
    pub(crate) skill_md: PathBuf,
    /// Set when `skill_md` is not a regular file (a directory, a FIFO...): what it is.
    pub(crate) not_a_file: Option<&'static str>,
    /// Symlinks in the skill that point outside it (not followed), with their targets.
    pub(crate) links_out: Vec<(PathBuf, PathBuf)>,
    /// The other problems of the listing: what `skills package` refuses besides links out
    /// (unreadable entries, names that are not UTF-8, broken or looping links, invalid
    /// ignore files), in the order the listing met them.
    pub(crate) problems: Vec<skills_core::files::Problem>,
    /// The skill's files as `skills_core::files` lists them, sorted by path bytes.
    files: Vec<FileEntry>,
    /// Why the directory could not be listed (it vanished or became unreadable after the
    /// walk saw it): its files are unknown.
    pub(crate) unlisted: Option<std::io::Error>,
    /// The text of `SKILL.md` when the skill was given in memory
    /// ([`SkillDir::in_memory`]): then it is the skill's only file, and nothing of the
    /// skill is looked for on disk.
    source: Option<Vec<u8>>,
    /// What tells the skill from an identical copy, made from its `SKILL.md` before it is
    /// linted, with those bytes when there are at most [`KEEP_AHEAD`] of them (linting
    /// reads them from here; larger ones are read again) ([`SkillDir::read_ahead`]).
    ahead: Option<(Option<Vec<u8>>, crate::diagnostic::Identity)>,
    /// A flat skill (seed 004's `NAME.md`): `dir` and `skill_md` are both the file, which
    /// is its only file, as `SKILL.md`.
    pub(crate) flat: bool,
}

/// The largest `SKILL.md` whose bytes [`SkillDir::read_ahead`] keeps until the skill is
/// linted: a batch holds them all, so 1,024 hostile skills of 1 MiB each cost at most
/// 32 MiB, not 1 GiB, while 99% of real ones (corpus-large: median 6 KB, 99th percentile
/// 24 KB) are read once.
const KEEP_AHEAD: usize = 32 * 1024;

impl SkillDir {
    /// Every file of the skill, sorted by path bytes: the listing `skills package` holds
    /// and `skills show` and the MCP server serve, so a file a `.skillignore` leaves out is
    /// not there for a link to point at.
    pub(crate) fn files(&self) -> &[FileEntry] {
        &self.files
    }

    /// A skill at `dir` whose only file is a `SKILL.md` holding `source`, as
    /// [`Linter::lint_source`](crate::Linter::lint_source) lints it: listed as a directory
    /// on disk with that one file would be, and never looked for on disk.
    pub(crate) fn in_memory(dir: &Path, source: Vec<u8>) -> Self {
        let skill_md = dir.join(skills_core::layout::SKILL_MD);
        Self {
            files: vec![FileEntry {
                path: skills_core::fs::join(dir, skills_core::layout::SKILL_MD),
                rel: skills_core::layout::SKILL_MD.to_string(),
                size: u64::try_from(source.len()).unwrap_or(u64::MAX),
            }],
            dir: dir.to_path_buf(),
            skill_md,
            not_a_file: None,
            links_out: Vec::new(),
            problems: Vec::new(),
            unlisted: None,
            source: Some(source),
            ahead: None,
            flat: false,
        }
    }

    /// The flat skill in `file`: the file alone, as the skill's `SKILL.md`. A symlink that
    /// leads out of the file's folder is never read (as discovery never reads it): a link
    /// out of the skill, reported where `SKILL.md` is read.
    fn flat(file: &Path) -> Self {
        let mut skill = SkillDir {
            dir: file.to_path_buf(),
            skill_md: file.to_path_buf(),
            not_a_file: None,
            links_out: Vec::new(),
            problems: Vec::new(),
            files: Vec::new(),
            unlisted: None,
            source: None,
            ahead: None,
            flat: true,
        };
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let linked_out = std::fs::symlink_metadata(file)
            .is_ok_and(|m| m.file_type().is_symlink())
            .then(
                || match (std::fs::canonicalize(file), std::fs::canonicalize(folder)) {
                    (Ok(target), Ok(folder)) => (!target.starts_with(folder)).then_some(target),
                    _ => None,
                },
            )
            .flatten();
        if let Some(target) = linked_out {
            skill.links_out.push((file.to_path_buf(), target));
            return skill;
        }
        match std::fs::metadata(file) {
            Ok(meta) if meta.is_file() => skill.files.push(FileEntry {
                path: file.to_path_buf(),
                rel: skills_core::layout::SKILL_MD.to_string(),
                size: meta.len(),
            }),
            Ok(meta) => skill.not_a_file = Some(skills_core::describe_file_type(meta.file_type())),
            Err(error) => skill.unlisted = Some(error),
        }
        skill
    }

    /// Whether the skill is a directory on disk, which checks may ask about files its
    /// listing leaves out (`false` for a skill given in memory).
    pub(crate) fn on_disk(&self) -> bool {
        self.source.is_none()
    }

    /// The skill's file `path` as [`skills_core::read_listed`] reads it (at most `size`
    /// bytes, nor more than `limit + 1`): from disk, or for a skill in memory from its
    /// `SKILL.md`'s text, its only file.
    pub(crate) fn read(&self, path: &Path, size: u64, limit: u64) -> std::io::Result<Vec<u8>> {
        match &self.source {
            None => match &self.ahead {
                // Read with the same size and limit (`checks::skill_md::read`).
                Some((Some(bytes), _)) if path == self.skill_md => Ok(bytes.clone()),
                _ => skills_core::read_listed(path, size, limit),
            },
            Some(source) if path == self.skill_md => {
                let cap = usize::try_from(size.min(limit.saturating_add(1))).unwrap_or(usize::MAX);
                Ok(source.get(..cap).unwrap_or(source).to_vec())
            }
            Some(_) => Err(std::io::ErrorKind::NotFound.into()),
        }
    }

    /// Reads `SKILL.md` ahead of linting, as linting would read it, and keeps its bytes with
    /// the skill's [`Identity`](crate::diagnostic::Identity) (`None` when there is nothing
    /// to read: see [`crate::checks::skill_md::read`]). A run reads every skill this way
    /// first, so a skill identical to an earlier one is known before it is linted, and not
    /// linted (`duplicate_names::plan`).
    pub(crate) fn read_ahead(&mut self) -> Option<&crate::diagnostic::Identity> {
        let bytes = crate::checks::skill_md::read(self)?.ok()?;
        let identity = crate::linter::identity(self, &bytes);
        let kept = (bytes.len() <= KEEP_AHEAD).then_some(bytes);
        self.ahead = Some((kept, identity));
        self.identity()
    }

    /// What [`SkillDir::read_ahead`] made of the skill.
    pub(crate) fn identity(&self) -> Option<&crate::diagnostic::Identity> {
        self.ahead.as_ref().map(|(_, identity)| identity)
    }

    /// The text of `SKILL.md` when the skill is in memory: borrowed where a disk skill's
    /// would be read again.
    pub(crate) fn source(&self) -> Option<&[u8]> {
        self.source.as_deref()
    }

    /// Lists the skill the walk found in `found.dir`, and the skills nested in it (a
    /// directory below with a `SKILL.md`: the walk stops at a skill, its listing goes on).
    /// When the directory cannot be listed, the skill has no files and says why
    /// ([`SkillDir::unlisted`]).
    pub(crate) fn list(found: &Found, lister: &skills_core::files::Lister) -> (Self, Vec<Found>) {
        if found.flat {
            return (Self::flat(&found.skill_md), Vec::new());
        }
        let mut skill = SkillDir {
            dir: found.dir.clone(),
            skill_md: found.skill_md.clone(),
            not_a_file: found.not_a_file,
            links_out: Vec::new(),
            problems: Vec::new(),
            files: Vec::new(),
            unlisted: None,
            source: None,
            ahead: None,
            flat: false,
        };
        let listed = match found.is_link {
            Some(is_link) => lister.list_entry(&found.dir, is_link),
            None => lister.list(&found.dir),
        };
        let listing = match listed {
            Ok(listing) => listing,
            Err(error) => {
                skill.unlisted = Some(error);
                return (skill, Vec::new());
            }
        };
        let marker = |rel: &str, not_a_file| {
            let rel = Path::new(rel);
            let dir = match rel.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => found.dir.join(parent),
                _ => found.dir.clone(),
            };
            Marker {
                md: found.dir.join(rel),
                dir,
                not_a_file,
                is_link: None,
            }
        };
        let named = |rel: &str| Path::new(rel).file_name().is_some_and(is_skill_md);
        let mut markers: Vec<Marker> = listing
            .files
            .iter()
            .filter(|f| named(&f.path))
            .map(|f| marker(&f.path, None))
            .collect();
        for s in &listing.skipped {
            if let skills_core::files::SkipReason::Special(what) = s.reason
                && named(&s.path)
            {
                markers.push(marker(&s.path, Some(what)));
            }
        }
        skill.files = listing
            .files
            .into_iter()
            .map(|f| FileEntry {
                path: skills_core::fs::join(&found.dir, &f.path),
                rel: f.path,
                size: f.size,
            })
            .collect();
        for problem in listing.problems {
            match problem {
                skills_core::files::Problem::SymlinkEscape { link, target } => {
                    skill.links_out.push((found.dir.join(link), target));
                }
                other => skill.problems.push(other),
            }
        }
        skill
            .links_out
            .sort_unstable_by(|a, b| key(&a.0).cmp(key(&b.0)));
        let mut nested = Vec::new();
        for found_here in skills_in(markers) {
            if found_here.dir == found.dir {
                // The listing's own SKILL.md: a regular file there beats what the walk saw.
                if skill.not_a_file.is_some() || found_here.not_a_file.is_none() {
                    skill.skill_md = found_here.skill_md;
                    skill.not_a_file = found_here.not_a_file;
                }
            } else {
                nested.push(found_here);
            }
        }
        (skill, nested)
    }
}

/// The bytes paths are sorted and compared by.
pub(crate) fn key(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// `dir` with a trailing separator: every path under `dir`, and nothing else, starts with it.
pub(crate) fn prefix(dir: &Path) -> Vec<u8> {
    let mut p = key(dir).to_vec();
    if !p.ends_with(std::path::MAIN_SEPARATOR_STR.as_bytes()) {
        p.extend_from_slice(std::path::MAIN_SEPARATOR_STR.as_bytes());
    }
    p
}

pub(crate) use skills_core::layout::is_skill_md;

/// A `SKILL.md` (any case) the walk or a listing met.
#[derive(Debug)]
struct Marker {
    dir: PathBuf,
    md: PathBuf,
    not_a_file: Option<&'static str>,
    /// Whether `dir` is a symbolic link, when the walk saw it as an entry.
    is_link: Option<bool>,
}

/// Walks `root` (honouring `.gitignore` and `.ignore`, entering hidden directories, skipping
/// `.git` and `node_modules`, following symlinks; a symlink loop, or a link to a directory
/// above the root, is skipped) for skill directories, sorted by path.
///
/// The walk stops at a directory holding `SKILL.md`: the skill's files, and the skills
/// nested in it, come from its listing ([`SkillDir::list`]), so nothing below a skill is
/// read twice. A `SKILL.md` in another letter case is seen only as the walk lists its
/// directory, which it then walks on; a symlink in there that leaves the skill is not
/// followed, so a link to `/usr` does not walk `/usr`.
///
/// With `within`, a symlink is followed only when it resolves inside it.
pub(crate) fn skill_dirs(
    root: &Path,
    threads: usize,
    root_is_folder: bool,
    within: Option<&Path>,
) -> Walked {
    // The root itself: nothing to walk.
    if let Some(marker) = skill_marker(root, None) {
        return Walked {
            skills: skills_in(vec![marker]),
            unreadable: Vec::new(),
        };
    }
    let markers = Arc::new(Mutex::new(Vec::new()));
    let flats = Arc::new(Mutex::new(Vec::new()));
    let unreadable = Arc::new(Mutex::new(Vec::new()));
    let root_is_folder = root_is_folder || skills_core::layout::is_skills_folder(root);
    let (in_filter, owned_root) = (Arc::clone(&markers), root.to_path_buf());
    // `ignore` sees a loop only when a link leads to a directory it entered; a link to a
    // directory above the root (`/`) would walk all of it first.
    let above = skills_core::Identity::of_dirs_above(root);
    let within = within.map(Path::to_path_buf);
    WalkBuilder::new(root)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        .git_global(false)
        .threads(threads)
        // Decided as the parent is read, before the walker reads the directory itself.
        .filter_entry(move |e| {
            let name = e.file_name();
            if e.depth() > 0 && skills_core::layout::is_skipped_dir(name) {
                return false;
            }
            if e.path_is_symlink()
                && within.as_ref().is_some_and(|w| {
                    std::fs::canonicalize(e.path()).is_ok_and(|t| !t.starts_with(w))
                })
            {
                return false;
            }
            if e.path_is_symlink()
                && e.file_type().is_some_and(|t| t.is_dir())
                && skills_core::Stamp::read(e.path())
                    .is_some_and(|s| above.contains(&skills_core::Identity::of(e.path(), &s)))
            {
                return false;
            }
            if e.file_type().is_some_and(|t| t.is_dir())
                && let Some(marker) = skill_marker(e.path(), Some(e.path_is_symlink()))
            {
                if let Ok(mut all) = in_filter.lock() {
                    all.push(marker);
                }
                return false;
            }
            // Not followed, and reported by the skill's listing.
            !(e.depth() > 0
                && e.path_is_symlink()
                && !is_skill_md(name)
                && link_out_of_skill(&owned_root, e.path()))
        })
        .build_parallel()
        .run(|| {
            let markers = Arc::clone(&markers);
            let flats = Arc::clone(&flats);
            let unreadable = Arc::clone(&unreadable);
            Box::new(move |entry| {
                // A flat skill: a `NAME.md` with frontmatter directly in a skills folder.
                if let Ok(entry) = &entry
                    && entry.depth() > 0
                    && entry.file_type().is_some_and(|t| t.is_file())
                    && skills_core::layout::is_flat_skill_name(entry.file_name())
                    && entry.path().parent().is_some_and(|folder| {
                        if entry.depth() == 1 {
                            root_is_folder
                        } else {
                            skills_core::layout::is_skills_folder(folder)
                        }
                    })
                    && starts_with_frontmatter(entry.path())
                    && let Ok(mut all) = flats.lock()
                {
                    all.push(Found::flat(entry.path()));
                }
                // A directory that cannot be read hides its skills: said, never skipped.
                if let Err(error) = &entry
                    && let Some(found) = Unreadable::of(error)
                    && let Ok(mut all) = unreadable.lock()
                {
                    all.push(found);
                }
                // Only a `SKILL.md` in another letter case gets here.
                if let Ok(entry) = entry
                    && entry.depth() > 0
                    && is_skill_md(entry.file_name())
                    && let (Some(file_type), Some(dir)) = (entry.file_type(), entry.path().parent())
                    && let Ok(mut all) = markers.lock()
                {
                    all.push(Marker {
                        dir: dir.to_path_buf(),
                        md: entry.path().to_path_buf(),
                        not_a_file: (!file_type.is_file())
                            .then(|| skills_core::describe_file_type(file_type)),
                        is_link: None,
                    });
                }
                WalkState::Continue
            })
        });
    let markers = markers
        .lock()
        .map(|mut m| std::mem::take(&mut *m))
        .unwrap_or_default();
    let mut unreadable = unreadable
        .lock()
        .map(|mut u| std::mem::take(&mut *u))
        .unwrap_or_default();
    unreadable.sort_unstable_by(|a, b| key(&a.path).cmp(key(&b.path)));
    let mut skills = skills_in(markers);
    if let Ok(mut flats) = flats.lock() {
        skills.append(&mut flats);
        skills.sort_unstable_by(|a, b| key(&a.dir).cmp(key(&b.dir)));
    }
    Walked { skills, unreadable }
}

/// Whether the file starts with a frontmatter fence (after a byte order mark): a flat
/// `NAME.md` without one is a note, not a skill, as discovery has it.
fn starts_with_frontmatter(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 6];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut read = 0;
    while read < head.len() {
        match file.read(head.get_mut(read..).unwrap_or_default()) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    let head = head.get(..read).unwrap_or_default();
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    head.starts_with(b"---")
}

/// What the walk of one path found: the skills, and the directories (or entries) it could
/// not read, sorted by path.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub(crate) skills: Vec<Found>,
    pub(crate) unreadable: Vec<Unreadable>,
}

/// A directory (or an entry of one) the walk could not read: the skills below it are not
/// checked, which the run must say.
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub(crate) path: PathBuf,
    pub(crate) error: String,
}

impl Unreadable {
    /// The path and the system's reason of a walk error that is an I/O error (a symbolic
    /// link loop is not: the walk steps over it, as discovery does).
    fn of(error: &ignore::Error) -> Option<Self> {
        match error {
            ignore::Error::WithPath { path, err } => {
                let io = err.io_error()?;
                Some(Self {
                    path: path.clone(),
                    error: io.to_string(),
                })
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                Self::of(err)
            }
            _ => None,
        }
    }
}

/// The marker of `dir` when it holds `SKILL.md`: one `stat` instead of walking the skill.
fn skill_marker(dir: &Path, is_link: Option<bool>) -> Option<Marker> {
    let md = skills_core::fs::join(dir, skills_core::layout::SKILL_MD);
    let meta = std::fs::metadata(&md).ok()?;
    Some(Marker {
        dir: dir.to_path_buf(),
        not_a_file: (!meta.is_file()).then(|| skills_core::describe_file_type(meta.file_type())),
        md,
        is_link,
    })
}

/// For a symlink at `link` (under `root`): whether it lies inside a skill the walk is
/// walking (one whose `SKILL.md` is not spelt so) and resolves outside it.
fn link_out_of_skill(root: &Path, link: &Path) -> bool {
    let Some(skill) = link
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join("SKILL.md").is_file() || d.join("skill.md").is_file())
    else {
        return false;
    };
    match (std::fs::canonicalize(skill), std::fs::canonicalize(link)) {
        (Ok(skill), Ok(target)) => !target.starts_with(skill),
        _ => false,
    }
}

/// One skill per directory among `markers`, sorted by path: a regular file is preferred,
/// then the exact name `SKILL.md`.
fn skills_in(mut markers: Vec<Marker>) -> Vec<Found> {
    markers.sort_unstable_by(|a, b| key(&a.dir).cmp(key(&b.dir)));
    let mut skills: Vec<Found> = Vec::new();
    for Marker {
        dir,
        md,
        not_a_file,
        is_link,
    } in markers
    {
        if let Some(last) = skills.last_mut()
            && last.dir == dir
        {
            let better = match (last.not_a_file, not_a_file) {
                (Some(_), None) => true,
                (None, Some(_)) => false,
                _ => md.file_name().is_some_and(|n| n == "SKILL.md"),
            };
            if better {
                last.skill_md = md;
                last.not_a_file = not_a_file;
            }
            last.is_link = last.is_link.or(is_link);
            continue;
        }
        skills.push(Found {
            dir,
            skill_md: md,
            not_a_file,
            is_link,
            flat: false,
        });
    }
    skills
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walker reports a directory it cannot read as an I/O error with its path (wrapped
    /// in its depth): that is a finding of the run. A link loop is not: it is stepped over.
    #[test]
    fn a_walk_error_is_unreadable_when_it_is_an_io_error_with_a_path() {
        let denied = ignore::Error::WithDepth {
            depth: 2,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from("skills/group"),
                err: Box::new(ignore::Error::Io(std::io::Error::from(
                    std::io::ErrorKind::PermissionDenied,
                ))),
            }),
        };
        let found = Unreadable::of(&denied).unwrap();
        assert_eq!(found.path, Path::new("skills/group"));
        assert_eq!(found.error, "permission denied");
        let looped = ignore::Error::Loop {
            ancestor: PathBuf::from("a"),
            child: PathBuf::from("a/b/link"),
        };
        assert!(Unreadable::of(&looped).is_none());
    }
}
