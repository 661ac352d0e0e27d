//! The driver: a skill's files in, a [`Report`] out.

use std::path::{Path, PathBuf};

use crate::report::{Finding, Report, Suppressed};
use crate::scan::{self, Marker};
use crate::{Config, RuleId, Severity};

/// The most bytes of one file read as text; a larger file is checked for what its first
/// bytes say it is (an executable, an archive) and reported `file-not-audited`.
pub const MAX_TEXT_BYTES: u64 = 1024 * 1024;

/// Why an audit could not run at all. Problems *in* a skill are findings, not errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// A path that cannot be read (does not exist, not a directory, permission).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A path that holds no skill.
    #[error("{} is not a skill: it has no SKILL.md, and no skill below it", path.display())]
    NotASkill {
        /// The path.
        path: PathBuf,
    },
    /// A directory whose `SKILL.md` is not a regular file (a FIFO, a device, a directory):
    /// never opened, so the skill cannot be audited.
    #[error("{}: it is {what}, not a file; it is never opened, so the skill cannot be audited", path.display())]
    SkillMdNotAFile {
        /// The `SKILL.md`.
        path: PathBuf,
        /// What it is (`a named pipe (FIFO)`).
        what: &'static str,
    },
    /// A malformed `[audit]` section.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Config {
        /// The configuration file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: u32,
        /// 1-based column (0 when unknown).
        column: u32,
        /// What is wrong.
        message: String,
    },
}

/// One file of a skill, in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceFile<'a> {
    /// Its path relative to the skill, `/`-separated (`scripts/run.sh`).
    pub path: &'a str,
    /// Its content.
    pub bytes: &'a [u8],
    /// Whether it is executable (an archive entry's mode, a file's permission bits).
    pub executable: bool,
}

impl<'a> SourceFile<'a> {
    /// A file that is not executable.
    #[must_use]
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        Self {
            path,
            bytes,
            executable: false,
        }
    }

    /// The same file, executable or not.
    #[must_use]
    pub fn executable(mut self, executable: bool) -> Self {
        self.executable = executable;
        self
    }
}

/// Files in memory held to the limit a directory's files are read with: one over
/// [`MAX_TEXT_BYTES`] is checked for what its head says it is, reported `file-not-audited`,
/// and not scanned, so an archive audits as its unpacked directory does (a 16 MiB file in
/// an archive took seconds and reported nothing).
fn bounded<'a>(files: &[SourceFile<'a>]) -> (Vec<SourceFile<'a>>, Vec<Finding>) {
    let mut extra = Vec::new();
    let kept = files
        .iter()
        .map(|file| {
            if file.bytes.len() as u64 <= MAX_TEXT_BYTES {
                return *file;
            }
            let head = file.bytes.get(..HEAD_BYTES).unwrap_or(file.bytes);
            extra.extend(scan::oversized(
                file.path,
                head,
                file.bytes.len() as u64,
                file.executable,
            ));
            SourceFile::new(file.path, &[]).executable(file.executable)
        })
        .collect();
    (kept, extra)
}

/// The digest [`Report::digest`] carries, of files given in any order: SHA-256 over each
/// file's path, a NUL, its length as 8 little-endian bytes and its bytes, in path order.
#[must_use]
pub fn digest(files: &[SourceFile<'_>]) -> String {
    let mut sorted: Vec<&SourceFile<'_>> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(b.path));
    let mut parts: Vec<&[u8]> = Vec::with_capacity(sorted.len() * 4);
    let lens: Vec<[u8; 8]> = sorted
        .iter()
        .map(|f| (f.bytes.len() as u64).to_le_bytes())
        .collect();
    for (f, len) in sorted.iter().zip(&lens) {
        parts.push(f.path.as_bytes());
        parts.push(b"\0");
        parts.push(len);
        parts.push(f.bytes);
    }
    skills_core::digest::hex(&skills_core::digest::sha256_parts(&parts))
}

/// Audits skills. Cheap to create, `Sync`: one auditor serves a whole run on many threads.
#[derive(Debug, Clone, Default)]
pub struct Auditor {
    config: Config,
}

impl Auditor {
    /// An auditor with `config`'s suppressions.
    #[must_use]
    pub fn new(config: Config) -> Self {
        Self { config }
    }

    /// Its configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Audits the skill in directory `dir`: every file the file policy of
    /// [`skills_core::files`] counts as the skill's (what `skills package` would ship and
    /// an installer copies), those of skills nested in it included: installing the skill
    /// installs them. [`Auditor::audit_dir_nested`] reports a nested skill apart instead.
    /// A file that cannot be read, or is larger than [`MAX_TEXT_BYTES`], is a
    /// `file-not-audited` finding; so is a symlink out of the skill.
    ///
    /// # Errors
    ///
    /// [`AuditError::Io`] when `dir` cannot be listed.
    pub fn audit_dir(&self, dir: &Path) -> Result<Report, AuditError> {
        self.audit_dir_at(dir, dir)
    }

    /// [`Auditor::audit_dir`] for a skill read from `dir` that sits, or is about to sit, at
    /// `at` (relative to the configuration's directory, or absolute): what an installer has
    /// staged in a temporary directory is matched against `[audit] allow` paths written from
    /// the project's root, as the installed skill will be.
    ///
    /// # Errors
    ///
    /// [`AuditError::Io`] when `dir` cannot be listed.
    pub fn audit_dir_at(&self, dir: &Path, at: &Path) -> Result<Report, AuditError> {
        self.audit_listed(dir, at, &skills_core::files::Lister::new(), false)
    }

    /// [`Auditor::audit_dir`] with a [`Lister`](skills_core::files::Lister) shared by a
    /// run over many skills: the canonical parent of each skill and the repository rules of
    /// its ancestors are read once for all of them, not once per skill (a tree of 559
    /// skills: 10,500 `stat` calls with a lister each, a third of that shared).
    ///
    /// # Errors
    ///
    /// [`AuditError::Io`] when `dir` cannot be listed.
    pub fn audit_dir_in(
        &self,
        dir: &Path,
        lister: &skills_core::files::Lister,
    ) -> Result<Report, AuditError> {
        self.audit_listed(dir, dir, lister, false)
    }

    /// Audits the skill in `dir` and, apart, every skill nested in it (a directory of its
    /// listing holding a `SKILL.md`, at any depth): the outer skill's report leaves their
    /// files to theirs, so a tree's audit reports each file once. The skill is listed once
    /// for all of them, with a [`Lister`](skills_core::files::Lister) shared by the run.
    /// Reports in path order, `dir` first: [`find_outer_targets`](crate::find_outer_targets)
    /// and this are `skills audit`'s reading of a tree.
    ///
    /// # Errors
    ///
    /// [`AuditError::Io`] when `dir` cannot be listed; a nested skill that cannot be listed
    /// is left out.
    pub fn audit_dir_nested(
        &self,
        dir: &Path,
        lister: &skills_core::files::Lister,
    ) -> Result<Vec<(PathBuf, Report)>, AuditError> {
        let listing = lister.list(dir).map_err(|source| AuditError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let nested = nested_dirs(&listing);
        let mut out = vec![(dir.to_path_buf(), self.audit_listing(dir, listing, true))];
        let mut inner: Vec<PathBuf> = nested
            .iter()
            .map(|rel| dir.join(rel.trim_end_matches('/')))
            .collect();
        inner.sort();
        for inner in inner {
            if let Ok(report) = self.audit_listed(&inner, &inner, lister, true) {
                out.push((inner, report));
            }
        }
        Ok(out)
    }

    fn audit_listed(
        &self,
        dir: &Path,
        at: &Path,
        lister: &skills_core::files::Lister,
        leave_nested: bool,
    ) -> Result<Report, AuditError> {
        let listing = lister.list(dir).map_err(|source| AuditError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(self.audit_listing(at, listing, leave_nested))
    }

    /// Audits the files of `listing`, a skill sitting at `at`; those of the skills nested
    /// in it too unless `leave_nested`.
    fn audit_listing(
        &self,
        at: &Path,
        listing: skills_core::files::Listing,
        leave_nested: bool,
    ) -> Report {
        let mut extra = Vec::new();
        let mut contents: Vec<(String, Vec<u8>, bool)> = Vec::with_capacity(listing.files.len());
        let nested = if leave_nested {
            nested_dirs(&listing)
        } else {
            Vec::new()
        };
        for file in &listing.files {
            if nested.iter().any(|n| file.path.starts_with(n.as_str())) {
                continue;
            }
            let limit = MAX_TEXT_BYTES;
            if file.size == 0 {
                // Nothing to read: no `open` for it (a checkout's placeholders, `__init__.py`).
                contents.push((file.path.clone(), Vec::new(), file.executable));
                continue;
            }
            if file.size > limit {
                // The head tells an executable or an archive from text.
                let head = read_head(&file.real).unwrap_or_default();
                extra.extend(scan::oversized(
                    &file.path,
                    &head,
                    file.size,
                    file.executable,
                ));
                contents.push((file.path.clone(), Vec::new(), file.executable));
                continue;
            }
            match skills_core::fs::read_listed(&file.real, file.size, limit) {
                Ok(bytes) => contents.push((file.path.clone(), bytes, file.executable)),
                Err(e) => extra.push(Finding::new(
                    RuleId::FileNotAudited,
                    &file.path,
                    format!("{} could not be read: {e}", file.path),
                )),
            }
        }
        for problem in &listing.problems {
            if let Some(f) = scan::problem(problem) {
                extra.push(f);
            }
        }
        let files: Vec<SourceFile<'_>> = contents
            .iter()
            .map(|(p, b, x)| SourceFile::new(p, b).executable(*x))
            .collect();
        let location = self.location(at);
        self.audit(&files, location.as_deref(), extra)
    }

    /// Audits a skill held in memory: `files` are its files, paths relative to the skill
    /// (what a registry stores, an installer has staged, or an archive holds). Give every
    /// file: a skill's `SKILL.md` alone is [`Auditor::audit_bytes`].
    #[must_use]
    pub fn audit_files(&self, files: &[SourceFile<'_>]) -> Report {
        let (files, extra) = bounded(files);
        self.audit(&files, None, extra)
    }

    /// [`Auditor::audit_files`] for a skill that sits at `dir` (relative to the
    /// configuration's directory, or absolute), so that `[audit] allow` paths written from
    /// the project's root match its files.
    #[must_use]
    pub fn audit_files_at(&self, files: &[SourceFile<'_>], dir: &Path) -> Report {
        let location = self.location(dir);
        let (files, extra) = bounded(files);
        self.audit(&files, location.as_deref(), extra)
    }

    /// Audits a skill that is only its `SKILL.md`, given as bytes.
    #[must_use]
    pub fn audit_bytes(&self, skill_md: &[u8]) -> Report {
        self.audit_files(&[SourceFile::new(skills_core::layout::SKILL_MD, skill_md)])
    }

    /// `dir` relative to the configuration's base, `/`-separated.
    fn location(&self, dir: &Path) -> Option<String> {
        let base = self.config.base.as_deref()?;
        let rel: PathBuf = match dir.strip_prefix(base) {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => {
                // A skill about to be installed is not there yet: its parent is.
                let d = dir.canonicalize().ok().or_else(|| {
                    let parent = dir.parent()?.canonicalize().ok()?;
                    Some(parent.join(dir.file_name()?))
                })?;
                let b = base.canonicalize().ok()?;
                d.strip_prefix(&b).ok()?.to_path_buf()
            }
        };
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        Some(parts.join("/"))
    }

    fn audit(
        &self,
        files: &[SourceFile<'_>],
        location: Option<&str>,
        extra: Vec<Finding>,
    ) -> Report {
        let (mut findings, markers) = scan::scan_skill(files, self.config.exhaustive);
        findings.extend(extra);
        let mut report = Report {
            findings: Vec::new(),
            suppressed: Vec::new(),
            files: files.len(),
            digest: digest(files),
        };
        // Suppressions: the configuration's, then the skill's own markers.
        let mut unsuppressed = Vec::with_capacity(findings.len());
        for finding in findings {
            match self.suppression(&finding, location, &markers) {
                Some((reason, by)) => report.suppressed.push(Suppressed {
                    finding,
                    reason,
                    by,
                }),
                None => unsuppressed.push(finding),
            }
        }
        for allow in &self.config.allow {
            if allow.reason.is_none() {
                // Reported once per skill whose files it names (or every skill, without a
                // path): an entry that suppresses nothing is itself a finding.
                let names_this_skill = allow.path.is_empty()
                    || files.iter().any(|f| {
                        let full = location.map(|l| join(l, f.path));
                        allow.matches(f.path, full.as_deref())
                    });
                if names_this_skill {
                    let at = allow
                        .source
                        .as_ref()
                        .map_or_else(|| "skills.toml".to_string(), |p| p.display().to_string());
                    let mut f = Finding::new(
                        RuleId::SuppressionWithoutReason,
                        &at,
                        format!(
                            "the [audit] allow entry for `{}`{} gives no reason, so it suppresses nothing",
                            allow.rule,
                            if allow.path.is_empty() {
                                String::new()
                            } else {
                                format!(" on `{}`", allow.path)
                            }
                        ),
                    );
                    f.line = allow.line;
                    f.column = u32::from(allow.line > 0);
                    unsuppressed.push(f);
                }
            }
        }
        for m in &markers {
            if m.reason.is_none() {
                let mut f = Finding::new(
                    RuleId::SuppressionWithoutReason,
                    &m.path,
                    "this skills-audit: allow marker gives no reason (write it after `--`), so it suppresses nothing",
                );
                f.line = m.line;
                f.column = m.column;
                f.span = m.span.clone();
                f.evidence = m.evidence.clone();
                unsuppressed.push(f);
            }
        }
        unsuppressed.sort_by(|a, b| {
            (&a.path, a.line, a.column, a.rule).cmp(&(&b.path, b.line, b.column, b.rule))
        });
        unsuppressed.dedup_by(|a, b| {
            a.rule == b.rule
                && a.path == b.path
                && a.span == b.span
                && a.line == b.line
                && a.column == b.column
        });
        report.findings = unsuppressed;
        report
    }

    /// The reason and place of the suppression that removes `finding`, if any.
    fn suppression(
        &self,
        finding: &Finding,
        location: Option<&str>,
        markers: &[Marker],
    ) -> Option<(String, String)> {
        if finding.rule == RuleId::SuppressionWithoutReason {
            return None;
        }
        let full = location.map(|l| join(l, &finding.path));
        for allow in &self.config.allow {
            if allow.rule == finding.rule
                && allow.matches(&finding.path, full.as_deref())
                && let Some(reason) = &allow.reason
            {
                let by = allow.source.as_ref().map_or_else(
                    || "configuration".to_string(),
                    |p| format!("{}:{}", p.display(), allow.line),
                );
                return Some((reason.clone(), by));
            }
        }
        // The skill's own markers never hide a critical finding: its author writes them.
        if !self.config.inline || finding.severity >= Severity::Critical {
            return None;
        }
        markers.iter().find_map(|m| {
            let covers = m.path == finding.path
                && (m.line == finding.line || (m.alone && m.line + 1 == finding.line))
                && m.rules.contains(&finding.rule);
            let reason = m.reason.as_ref()?;
            covers.then(|| (reason.clone(), format!("{}:{}", m.path, m.line)))
        })
    }
}

/// The directories of the skills nested in a listed skill (`sub/dir/`, with its `/`),
/// in path order.
fn nested_dirs(listing: &skills_core::files::Listing) -> Vec<String> {
    listing
        .files
        .iter()
        .filter_map(|f| f.path.strip_suffix(skills_core::layout::SKILL_MD))
        .filter(|dir| !dir.is_empty() && dir.ends_with('/'))
        .map(str::to_string)
        .collect()
}

fn join(location: &str, path: &str) -> String {
    if location.is_empty() {
        path.to_string()
    } else {
        format!("{location}/{path}")
    }
}

/// The first 4 KiB of a file.
/// How much of a file too large to read is looked at: what it is, an executable or an
/// archive, and its `#!` line.
const HEAD_BYTES: usize = 4096;

fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut buf = Vec::with_capacity(HEAD_BYTES);
    std::fs::File::open(path)?
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut buf)?;
    Ok(buf)
}
