//! The driver: finds the skills under the paths given, lints each one on rayon's pool, runs
//! the rules that need the whole run, and returns the sorted [`Report`].

use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::checks;
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Named, Report, Site, SkillReport, Text, sort_diagnostics};
use crate::rules::RuleId;
use crate::walk;

/// How many skills [`Linter::lint_paths_each`] lints before handing their reports over: large
/// enough to keep every core busy, small enough that memory stays flat.
const BATCH: usize = 1024;

/// The skill directories a run has queued: those the walks found, sorted in the report's
/// order and searched by halves, and those found nested in skills since, in a set.
struct Queued<'a> {
    walked: &'a [(walk::Found, bool)],
    nested: HashSet<PathBuf>,
}

impl Queued<'_> {
    /// Queues `dir`: whether it was not queued before.
    fn insert(&mut self, dir: &Path) -> bool {
        self.walked
            .binary_search_by(|(found, _)| found.dir.as_path().cmp(dir))
            .is_err()
            && self.nested.insert(dir.to_path_buf())
    }
}

/// A report [`duplicate_names::decide`](checks::duplicate_names::decide) kept, with what
/// its `duplicate-name` finding needs when it gets one: its name's site, and the first
/// skill of its name.
type Decided = (SkillReport, Option<(Option<Named>, PathBuf)>);

/// `report` as the run's `duplicate-name` check decides it, in the run's order: left out
/// (`None`), kept, or kept to get its finding on the pool.
fn decided(
    report: SkillReport,
    named: Option<Named>,
    seen: &mut checks::duplicate_names::Seen,
    ahead: &std::collections::HashMap<PathBuf, bool>,
) -> Option<Decided> {
    use checks::duplicate_names::{Decision, decide};
    match decide(&report, named.as_ref(), seen, ahead) {
        Decision::Keep => Some((report, None)),
        Decision::Drop => None,
        Decision::Duplicate(first) => Some((report, Some((named, first)))),
    }
}

/// Why a lint run could not be carried out (as opposed to findings in the skills).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LintError {
    /// A path given to lint does not exist.
    #[error("{}: no such file or directory", path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A file given to lint that is neither a `SKILL.md` nor a flat skill file (`NAME.md`).
    #[error("{}: not a SKILL.md, a flat skill file (NAME.md) or a directory", path.display())]
    NotASkill {
        /// The path as given.
        path: PathBuf,
    },
    /// A path given to lint cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Runs the rules with a configuration.
#[derive(Debug, Clone)]
pub struct Linter {
    config: Config,
    threads: usize,
    sources: bool,
    downstreams: Option<std::sync::Arc<crate::Downstreams>>,
    skills_folders: Vec<PathBuf>,
    /// The directory symlinks must resolve inside to be followed, canonical.
    within: Option<PathBuf>,
}

impl Linter {
    /// A linter using all available cores.
    pub fn new(config: Config) -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            config,
            threads,
            sources: true,
            downstreams: None,
            skills_folders: Vec::new(),
            within: None,
        }
    }

    /// Follows a symbolic link only when it resolves inside `dir`: for a tree that came
    /// from elsewhere (a clone, an unpacked archive), whose links must not bring in the
    /// machine's own files (`skills/more -> ../../../.claude/skills`). By default a link is
    /// followed wherever it leads (a skills folder of links to skills kept elsewhere), but
    /// never to a directory above the walked path.
    ///
    /// # Errors
    ///
    /// When `dir` cannot be resolved (it does not exist).
    pub fn with_links_within(mut self, dir: &Path) -> std::io::Result<Self> {
        self.within = Some(std::fs::canonicalize(dir)?);
        Ok(self)
    }

    /// Takes `folders` for skills folders besides those named so by their path
    /// (`.agents/skills`, `.claude/skills`, `.claude-ops/skills`...): the `NAME.md` files
    /// with frontmatter directly in a skills folder are flat skills (seed 004's format), as
    /// discovery has them. `skills --skills-dir DIR lint` passes its `DIR`s.
    #[must_use]
    pub fn with_skills_folders(mut self, folders: Vec<PathBuf>) -> Self {
        self.skills_folders = folders;
        self
    }

    /// Holds `tools.json` references to the servers of a gateway file and their tools
    /// (`tool-reference-unknown`; `skills lint --gateway FILE`). Without it references are
    /// checked for their shape only.
    #[must_use]
    pub fn with_downstreams(mut self, downstreams: crate::Downstreams) -> Self {
        self.downstreams = Some(std::sync::Arc::new(downstreams));
        self
    }

    /// The servers references are held to, when given.
    pub(crate) fn downstreams(&self) -> Option<&crate::Downstreams> {
        self.downstreams.as_deref()
    }

    /// Whether diagnostics carry the text of their file ([`Diagnostic::source`]), for
    /// renderers that quote it (the default). A run whose output only names positions
    /// (JSON, SARIF, annotations) can leave it out: then the report holds no file's text,
    /// and its memory no longer grows with the size of the files that have findings.
    #[must_use]
    pub fn with_sources(mut self, sources: bool) -> Self {
        self.sources = sources;
        self
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Lints every skill under `paths`. Each path may be a skill directory, a `SKILL.md` file,
    /// or any directory, which is walked for skills (honouring `.gitignore`, entering hidden
    /// directories, skipping `.git` and `node_modules`, following symlinks). Skills are linted
    /// in parallel; the report is sorted by path, so output is deterministic.
    ///
    /// # Errors
    ///
    /// [`LintError`] when a path does not exist, cannot be read, or is a file other than
    /// `SKILL.md`. Problems inside skills are diagnostics, not errors.
    pub fn lint_paths(&self, paths: &[PathBuf]) -> Result<Report, LintError> {
        let mut skills = Vec::new();
        let other = self.lint_paths_each(paths, |batch| skills.extend(batch))?;
        Ok(Report { skills, other })
    }

    /// Lints like [`Linter::lint_paths`], handing the skills' reports to `each` in batches, in
    /// the report's order, while the next batch is linted: memory stays bounded by a batch
    /// (the names seen so far aside), however many skills the paths hold. Returns the
    /// findings that belong to no skill ([`Report::other`]).
    ///
    /// ```
    /// use skills_lint::{Config, Linter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// for name in ["a", "b"] {
    ///     std::fs::create_dir(dir.path().join(name))?;
    ///     std::fs::write(
    ///         dir.path().join(name).join("SKILL.md"),
    ///         format!("---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\nBody.\n"),
    ///     )?;
    /// }
    /// let mut seen = Vec::new();
    /// let other = Linter::new(Config::default())
    ///     .lint_paths_each(&[dir.path().to_path_buf()], |batch| {
    ///         seen.extend(batch.into_iter().map(|r| r.name));
    ///     })?;
    /// assert_eq!(seen, [Some("a".to_string()), Some("b".to_string())]);
    /// assert!(other.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Linter::lint_paths`], before any report is handed over.
    pub fn lint_paths_each(
        &self,
        paths: &[PathBuf],
        mut each: impl FnMut(Vec<SkillReport>),
    ) -> Result<Vec<Diagnostic>, LintError> {
        // Each skill with whether the skills nested in it are linted too (not when the
        // argument named its SKILL.md).
        let mut queue: Vec<(walk::Found, bool)> = Vec::new();
        let mut other = Vec::new();
        for path in paths {
            let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => LintError::NotFound { path: path.clone() },
                _ => LintError::Io {
                    path: path.clone(),
                    source,
                },
            })?;
            let (found, nested) = if meta.is_dir() {
                std::fs::read_dir(path).map_err(|source| LintError::Io {
                    path: path.clone(),
                    source,
                })?;
                let walk::Walked {
                    skills: found,
                    unreadable,
                } = walk::skill_dirs(
                    path,
                    self.threads,
                    self.skills_folders.contains(path),
                    self.within.as_deref(),
                );
                let hidden = !unreadable.is_empty();
                for dir in unreadable {
                    other.extend(self.diagnostic(
                        RuleId::FileUnreadable,
                        format!(
                            "cannot read this directory ({}): the skills in it are not checked",
                            dir.error
                        ),
                        Some("make it readable (`chmod a+rx`), or leave it out of the walk with a `.ignore` file".to_string()),
                        dir.path,
                        None,
                        None,
                    ));
                }
                // A directory that could not be read may hold the skills: said above.
                if found.is_empty() && !hidden {
                    other.extend(self.diagnostic(
                        RuleId::SkillMdMissing,
                        "no SKILL.md found in this directory or below it".to_string(),
                        Some("create `SKILL.md` in the skill directory, or point `skills lint` at the directory that holds your skills".to_string()),
                        path.clone(),
                        None,
                        None,
                    ));
                }
                (found, true)
            } else if path.file_name().is_some_and(walk::is_skill_md) {
                let dir = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let found = walk::skill_dirs(&dir, self.threads, false, self.within.as_deref())
                    .skills
                    .into_iter()
                    .filter(|s| s.dir == dir)
                    .collect();
                (found, false)
            } else if path
                .file_name()
                .is_some_and(skills_core::layout::is_flat_skill_name)
            {
                // A flat skill named on the command line is linted whatever folder it is in.
                (vec![walk::Found::flat(path)], false)
            } else {
                return Err(LintError::NotASkill { path: path.clone() });
            };
            queue.extend(found.into_iter().map(|s| (s, nested)));
        }
        // In the report's order (components, so a nested skill follows the one it is in).
        // The same skill reached through two paths is linted once, as the first path had
        // it: the sort is stable. Sorting and comparing neighbours costs a fraction of
        // hashing every path into a set (12-17 ms for a crawl of 15,652, on one thread).
        queue.sort_by(|a, b| a.0.dir.cmp(&b.0.dir));
        queue.dedup_by(|later, first| later.0.dir == first.0.dir);
        let mut seen = Queued {
            walked: &queue,
            nested: HashSet::new(),
        };
        let lister = skills_core::files::Lister::new();
        // The first skill of each name, in the report's order, for `duplicate-name`.
        let mut seen_skills = checks::duplicate_names::Seen::default();
        for batch in queue.chunks(BATCH) {
            // Every skill of the batch listed and its SKILL.md read, in the report's order
            // (a nested skill sorts right after the skill it is in).
            let mut listed = self.list_batch(batch, &lister, &mut seen);
            listed.sort_by(|a, b| a.dir.cmp(&b.dir));
            // A skill that is one already reported (reached again through a link, or an
            // identical copy in another agent's folder) is left out, not reported twice, and
            // not linted: known before linting, as a crawl of forks is mostly such copies.
            let plan = checks::duplicate_names::plan(&listed, &mut seen_skills);
            let ahead = checks::duplicate_names::compare_ahead(&listed, &plan, &lister);
            let linted: Vec<_> = listed
                .par_iter()
                .zip(&plan)
                .map(|(skill, copy_of)| copy_of.is_none().then(|| self.lint_skill(skill)))
                .collect();
            // Each kept report, with the `duplicate-name` finding it is still to get.
            let mut reports: Vec<Option<Decided>> = Vec::with_capacity(listed.len());
            // Copies of an earlier skill that is not the one `duplicate-name` keeps (it was
            // itself reported as a duplicate), or whose files differ: linted after all.
            let mut late = Vec::new();
            for (i, (linted, copy_of)) in linted.into_iter().zip(&plan).enumerate() {
                let kept = match (linted, copy_of, listed.get(i)) {
                    (Some((report, named)), _, _) => {
                        decided(report, named, &mut seen_skills, &ahead)
                    }
                    (None, Some(first), Some(skill)) => {
                        if !checks::duplicate_names::is_copy(skill, first, &seen_skills, &ahead) {
                            late.push(i);
                        }
                        None
                    }
                    (None, _, _) => None,
                };
                reports.push(kept);
            }
            // Checked after the loop: such a skill is never the first of its name (the
            // earlier copy has its name), so its check changes nothing the loop reads.
            let late_linted: Vec<_> = late
                .par_iter()
                .filter_map(|&i| Some((i, self.lint_skill(listed.get(i)?))))
                .collect();
            for (i, (report, named)) in late_linted {
                if let Some(slot) = reports.get_mut(i) {
                    *slot = decided(report, named, &mut seen_skills, &ahead);
                }
            }
            // The findings decided above, made on the pool.
            reports
                .par_iter_mut()
                .flatten()
                .for_each(|(report, duplicate)| {
                    if let Some((named, first)) = duplicate.take() {
                        checks::duplicate_names::report_duplicate(self, report, named, &first);
                    }
                });
            each(
                reports
                    .into_iter()
                    .flatten()
                    .map(|(report, _)| report)
                    .collect(),
            );
        }
        Ok(other)
    }

    /// Lints `source` as the `SKILL.md` of a skill directory at `dir` that holds no other
    /// file, without the file system: nothing is read, listed or written, and `dir` need
    /// not exist. What a registry that fetched a `SKILL.md` alone can lint, with no
    /// temporary directory to write it to.
    ///
    /// What the file alone tells is checked as [`Linter::lint_paths`] checks it on disk:
    /// size (`file-too-large`), encoding, frontmatter and body, every field rule, and the
    /// name held to `dir`'s last component as to a directory's name (`name-dir-mismatch`;
    /// not checked when `dir` has none, such as `.`). What needs the skill's other files
    /// is not: a link to any other file is `link-missing` (allow the rule to leave those
    /// out), and `reference-too-deep`, `tools.json` and `resources.json`, symlinks leaving
    /// the skill, and `duplicate-name` (a rule of a whole run) never fire. The report's
    /// paths are `dir` and `dir/SKILL.md`, as given.
    ///
    /// ```
    /// use skills_lint::{Config, Linter, RuleId};
    ///
    /// let source = b"---\nname: pdf\ndescription: Fill PDF forms. Use when asked.\n---\nSee [forms](FORMS.md).\n";
    /// let report = Linter::new(Config::default()).lint_source("skills/pdf-tools", source);
    /// let rules: Vec<RuleId> = report.diagnostics.iter().map(|d| d.rule).collect();
    /// assert_eq!(rules, [RuleId::NameDirMismatch, RuleId::LinkMissing]);
    /// assert_eq!(report.name.as_deref(), Some("pdf"));
    /// ```
    #[must_use]
    pub fn lint_source(&self, dir: impl AsRef<Path>, source: &[u8]) -> SkillReport {
        let skill = walk::SkillDir::in_memory(dir.as_ref(), source.to_vec());
        self.lint_skill(&skill).0
    }

    /// Lists `batch` on the pool and reads each `SKILL.md` ([`walk::SkillDir::read_ahead`]),
    /// then the skills nested in its skills, until none is left.
    fn list_batch(
        &self,
        batch: &[(walk::Found, bool)],
        lister: &skills_core::files::Lister,
        seen: &mut Queued<'_>,
    ) -> Vec<walk::SkillDir> {
        let mut listed = Vec::new();
        let mut nested = Self::list_round(batch, lister, seen, &mut listed);
        while !nested.is_empty() {
            nested = Self::list_round(&nested, lister, seen, &mut listed);
        }
        listed
    }

    /// Lists `round` on the pool into `listed`; returns the skills found nested in them (and
    /// not seen before) that are to be linted too.
    fn list_round(
        round: &[(walk::Found, bool)],
        lister: &skills_core::files::Lister,
        seen: &mut Queued<'_>,
        listed: &mut Vec<walk::SkillDir>,
    ) -> Vec<(walk::Found, bool)> {
        let done: Vec<_> = round
            .par_iter()
            .map(|(found, nested)| {
                let (mut skill, inside) = walk::SkillDir::list(found, lister);
                skill.read_ahead();
                (skill, inside, *nested)
            })
            .collect();
        let mut next = Vec::new();
        for (skill, inside, nested) in done {
            listed.push(skill);
            if nested {
                next.extend(
                    inside
                        .into_iter()
                        .filter(|s| seen.insert(&s.dir))
                        .map(|s| (s, true)),
                );
            }
        }
        next
    }

    /// Builds a diagnostic if the rule is not allowed.
    pub(crate) fn diagnostic(
        &self,
        rule_id: RuleId,
        message: String,
        help: Option<String>,
        path: PathBuf,
        span: Option<Range<usize>>,
        source: Option<&Text<'_>>,
    ) -> Option<Diagnostic> {
        let site = span.map(|span| match source {
            Some(text) => text.site(span),
            None => Site {
                span,
                positions: None,
            },
        });
        let source = source.filter(|_| self.sources).map(Text::shared);
        self.diagnostic_at(rule_id, message, help, path, site, source)
    }

    /// Builds a diagnostic whose positions are known, if the rule is not allowed.
    pub(crate) fn diagnostic_at(
        &self,
        rule_id: RuleId,
        message: String,
        help: Option<String>,
        path: PathBuf,
        site: Option<Site>,
        source: Option<Arc<str>>,
    ) -> Option<Diagnostic> {
        let severity = self.config.severity(rule_id)?;
        let help = help
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| rule_id.rule().help.to_string());
        let (span, start, end) = match site {
            Some(Site { span, positions }) => {
                (Some(span), positions.map(|p| p.0), positions.map(|p| p.1))
            }
            None => (None, None, None),
        };
        Some(Diagnostic {
            rule: rule_id,
            severity,
            message,
            help,
            path,
            span,
            start,
            end,
            source: source.filter(|_| self.sources),
        })
    }

    /// The findings for one skill, sorted, and where its `name` value is.
    fn lint_skill(&self, skill: &walk::SkillDir) -> (SkillReport, Option<Named>) {
        let mut report = SkillReport {
            dir: skill.dir.clone(),
            skill_md: skill.skill_md.clone(),
            name: None,
            diagnostics: Vec::new(),
        };
        let mut out = Vec::new();
        if let Some(error) = &skill.unlisted {
            // Without its files, every link would look broken: say why instead.
            out.extend(if skill.flat {
                self.diagnostic(
                    RuleId::FileUnreadable,
                    format!("cannot read the flat skill file: {error}"),
                    Some("make the file readable (or remove it, if it is gone), then lint again".to_string()),
                    skill.dir.clone(),
                    None,
                    None,
                )
            } else {
                self.diagnostic(
                    RuleId::FileUnreadable,
                    format!("the skill directory cannot be listed: {error}"),
                    Some("make the directory readable (or remove it, if it is gone), then lint again".to_string()),
                    skill.dir.clone(),
                    None,
                    None,
                )
            });
            report.diagnostics = out;
            return (report, None);
        }
        checks::skill_md::check_file_name(self, skill, &mut out);
        checks::links::check_links_out(self, skill, &mut out);
        checks::files::check_listing(self, skill, &mut out);
        // Every other rule needs the parsed file: a SKILL.md that cannot be read or parsed
        // gets only the finding that says why.
        let Some(skill_md) = checks::skill_md::parse(self, skill, &mut out) else {
            sort_diagnostics(&mut out);
            report.diagnostics = out;
            return (report, None);
        };
        report.name = skill_md.name().map(str::to_string);
        // One for every finding in SKILL.md, so they share one copy of the source and one
        // line index.
        let text = Some(Text::new(skill_md.source()));
        checks::skill_md::check_file_rules(self, skill, &skill_md, text.as_ref(), &mut out);
        checks::links::check_references(self, skill, &skill_md, text.as_ref(), &mut out);
        checks::size::check_size(self, skill, &mut out);
        checks::context::check_context(self, skill, &mut out);
        sort_diagnostics(&mut out);
        report.diagnostics = out;
        let named = skill_md
            .field("name")
            .zip(text.as_ref())
            .map(|(e, text)| Named {
                identity: skill
                    .identity()
                    .cloned()
                    .unwrap_or_else(|| identity(skill, skill_md.source().as_bytes())),
                site: text.site(e.value_span.clone()),
                // Shared with the file's other findings when it has any; else only the
                // frontmatter the span points into, not a copy of every file of the run.
                source: self.sources.then(|| {
                    text.shared_if_made().unwrap_or_else(|| {
                        let end = skill_md.closing_fence().end;
                        Arc::from(skill_md.source().get(..end).unwrap_or_default())
                    })
                }),
            });
        (report, named)
    }
}

/// The fingerprint of `skill`, whose `SKILL.md` holds `source`: made in the parallel part
/// of the run, so that `duplicate-name` compares two skills of one name without listing and
/// reading both again (a crawl holds thousands of identical forks).
pub(crate) fn identity(skill: &walk::SkillDir, source: &[u8]) -> crate::diagnostic::Identity {
    let mut shape = Vec::new();
    for file in skill.files() {
        shape.extend_from_slice(file.rel.as_bytes());
        shape.push(0);
        shape.extend_from_slice(&file.size.to_le_bytes());
    }
    crate::diagnostic::Identity {
        fingerprint: fingerprint(&[source, &shape]),
        skill_md_only: skill.files().len() == 1,
    }
}

/// 128 bits of `parts` (each preceded by its length). See [`Fingerprint`].
fn fingerprint(parts: &[&[u8]]) -> u128 {
    let mut hash = Fingerprint::new();
    for part in parts {
        hash.part(part);
    }
    hash.finish()
}

/// What tells skills apart in a run (`duplicate-name`): foldhash's quality hasher under two
/// fixed seeds, 128 bits, over parts each preceded by its length. Not SHA-256: a crawl
/// hashes every `SKILL.md` it reads, and SHA-256 was 8.7% of the profile of one
/// (docs/performance.md, "The crawl shape"). The value lives for one run and only tells
/// two skills of one name apart; two different skills that hash alike (a chance of 2^-128
/// a pair, or someone forging the pair) are reported as one.
pub(crate) struct Fingerprint([foldhash::quality::FoldHasher<'static>; 2]);

impl Fingerprint {
    pub(crate) fn new() -> Self {
        use std::hash::BuildHasher as _;
        let hasher = |seed| foldhash::quality::FixedState::with_seed(seed).build_hasher();
        Self([hasher(0x5eed_0001), hasher(0x5eed_0002)])
    }

    pub(crate) fn part(&mut self, bytes: &[u8]) {
        use std::hash::Hasher as _;
        for hasher in &mut self.0 {
            hasher.write_usize(bytes.len());
            hasher.write(bytes);
        }
    }

    pub(crate) fn finish(&self) -> u128 {
        use std::hash::Hasher as _;
        let [a, b] = &self.0;
        (u128::from(a.finish()) << 64) | u128::from(b.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Level;
    use crate::test_support::{FM, rules_of, skill, write};

    #[test]
    fn walks_hidden_dirs_and_skips_node_modules() {
        let t = tempfile::tempdir().unwrap();
        skill(&t.path().join(".claude/skills"), "a", "body\n");
        skill(&t.path().join("node_modules"), "b", "body\n");
        skill(&t.path().join(".git"), "c", "body\n");
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        assert_eq!(report.skills.len(), 1);
        assert!(report.skills[0].dir.ends_with(".claude/skills/a"));
    }

    /// A link to a directory above the root leads over the root again: stepped over like
    /// a loop, never walked (a link to `/` walked the whole machine).
    #[cfg(unix)]
    #[test]
    fn a_link_above_the_root_is_not_walked() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("repo");
        skill(&root, "a", "body\n");
        skill(&t.path().join("elsewhere"), "b", "body\n");
        std::os::unix::fs::symlink(t.path(), root.join("up")).unwrap();
        let report = Linter::new(Config::default())
            .lint_paths(std::slice::from_ref(&root))
            .unwrap();
        let dirs: Vec<_> = report.skills.iter().map(|s| s.dir.clone()).collect();
        assert_eq!(dirs, [root.join("a")]);
    }

    /// Two skills of one name are one skill when they are identical (a copy, or the same
    /// directory through a link), and two when anything differs: the `SKILL.md`, a file's
    /// name, a file's size, or a file's bytes at the same size.
    #[test]
    fn identical_copies_are_one_skill_and_any_difference_makes_two() {
        let lint = |root: &std::path::Path| {
            let report = Linter::new(Config::default())
                .lint_paths(&[root.to_path_buf()])
                .unwrap();
            (report.skills.len(), rules_of(&report))
        };
        let body = "Say hello. See [notes](notes.md).\n";
        let cases: [(&str, &str, Option<&str>); 6] = [
            // (the second copy's body, its notes.md, ...) against the first's.
            (body, "same notes", None),
            (
                "Another body. See [notes](notes.md).\n",
                "same notes",
                Some("SKILL.md differs"),
            ),
            // The files besides SKILL.md are compared without it (the identity holds it).
            (
                "Say HELLO. See [notes](notes.md).\n",
                "same notes",
                Some("SKILL.md differs at the same size"),
            ),
            (
                body,
                "SAME NOTES",
                Some("notes.md differs at the same size"),
            ),
            (body, "longer notes", Some("notes.md differs in size")),
            (body, "", Some("no notes.md")),
        ];
        for (second_body, notes, differs) in cases {
            let t = tempfile::tempdir().unwrap();
            skill(&t.path().join("one"), "x", body);
            write(t.path(), "one/x/notes.md", "same notes");
            skill(&t.path().join("two"), "x", second_body);
            if !notes.is_empty() {
                write(t.path(), "two/x/notes.md", notes);
            }
            let (skills, rules) = lint(t.path());
            match differs {
                None => assert_eq!((skills, rules.as_slice()), (1, &[][..])),
                Some(why) => {
                    assert_eq!(skills, 2, "{why}");
                    assert!(rules.contains(&RuleId::DuplicateName), "{why}: {rules:?}");
                }
            }
        }
        // SKILL.md alone: identical copies are one skill without a second look at the disk.
        let t = tempfile::tempdir().unwrap();
        for copy in ["a", "b", "c"] {
            skill(&t.path().join(copy), "only", "Just this.\n");
        }
        skill(&t.path().join("d"), "only", "Something else.\n");
        let (skills, rules) = lint(t.path());
        assert_eq!(skills, 2);
        assert_eq!(rules, [RuleId::DuplicateName]);
        // The same directory through a link is one skill too.
        #[cfg(unix)]
        {
            let t = tempfile::tempdir().unwrap();
            skill(&t.path().join("real"), "linked", body);
            write(t.path(), "real/linked/notes.md", "notes");
            std::fs::create_dir_all(t.path().join("agent")).unwrap();
            std::os::unix::fs::symlink(t.path().join("real/linked"), t.path().join("agent/linked"))
                .unwrap();
            assert_eq!(lint(t.path()), (1, vec![]));
        }
    }

    /// A `SKILL.md` too large to keep from its first read to its linting is read again, and
    /// its copies are told apart all the same.
    #[test]
    fn a_large_skill_md_is_read_again_and_its_copies_still_compared() {
        let body = format!("{}\n", "Long instructions. ".repeat(2_500));
        assert!(body.len() > 32 * 1024);
        let t = tempfile::tempdir().unwrap();
        for copy in ["a", "b"] {
            skill(&t.path().join(copy), "big", &body);
        }
        // The same size, one letter changed at the end.
        let other = body.replacen("instructions. \n", "instructionS. \n", 1);
        assert_eq!(other.len(), body.len());
        skill(&t.path().join("c"), "big", &other);
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        let dirs: Vec<_> = report.skills.iter().map(|s| s.dir.clone()).collect();
        assert_eq!(dirs, ["a/big", "c/big"].map(|d| t.path().join(d)));
        let duplicates: Vec<_> = report
            .skills
            .iter()
            .map(|s| {
                let rules = s.diagnostics.iter().map(|d| d.rule);
                rules.filter(|&r| r == RuleId::DuplicateName).count()
            })
            .collect();
        assert_eq!(duplicates, [0, 1]);
    }

    /// A copy of a skill that was itself reported as a duplicate (another skill has its name
    /// first) is no copy of that first one: it is linted and reported too, in its place in
    /// the run's order, with its own findings.
    #[test]
    fn a_copy_of_a_duplicate_is_reported_with_its_findings() {
        let t = tempfile::tempdir().unwrap();
        skill(&t.path().join("a"), "x", "The first x.\n");
        // b and c: the same other skill named x, with a broken link.
        for copy in ["b", "c"] {
            skill(
                &t.path().join(copy),
                "x",
                "Another x. See [gone](gone.md).\n",
            );
            write(t.path(), &format!("{copy}/x/notes.md"), "notes");
        }
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        let dirs: Vec<_> = report.skills.iter().map(|s| s.dir.clone()).collect();
        assert_eq!(
            dirs,
            ["a/x", "b/x", "c/x"].map(|d| t.path().join(d)),
            "in the run's order"
        );
        for skill in report.skills.iter().skip(1) {
            let rules: Vec<_> = skill.diagnostics.iter().map(|d| d.rule).collect();
            assert!(rules.contains(&RuleId::DuplicateName), "{rules:?}");
            assert!(rules.len() >= 2, "its own findings too: {rules:?}");
        }
    }

    /// A copy is compared with the first skill of its name when that one was linted in an
    /// earlier batch too ([`BATCH`]; `duplicate_names::compare_ahead` reads both ahead).
    #[test]
    fn copies_are_compared_across_batches() {
        let t = tempfile::tempdir().unwrap();
        let body = "Say hello. See [notes](notes.md).\n";
        skill(&t.path().join("a"), "x", body);
        write(t.path(), "a/x/notes.md", "same notes");
        for k in 0..BATCH {
            skill(&t.path().join("b"), &format!("filler-{k:04}"), "Fill.\n");
        }
        // In the second batch: an identical copy (left out) and one whose notes differ at
        // the same size (a duplicate).
        skill(&t.path().join("c"), "x", body);
        write(t.path(), "c/x/notes.md", "same notes");
        skill(&t.path().join("d"), "x", body);
        write(t.path(), "d/x/notes.md", "SAME NOTES");
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        assert_eq!(report.skills.len(), BATCH + 2);
        let duplicates: Vec<_> = report
            .skills
            .iter()
            .filter(|s| {
                s.diagnostics
                    .iter()
                    .any(|d| d.rule == RuleId::DuplicateName)
            })
            .map(|s| s.dir.clone())
            .collect();
        assert_eq!(duplicates, [t.path().join("d/x")]);
    }

    /// A skill without a name (none, or a frontmatter that does not parse) reached through
    /// two paths, or copied, was reported twice, each finding with it: docs/lint.md says
    /// the same skill is linted once.
    #[test]
    fn a_skill_without_a_name_reached_twice_is_linted_once() {
        for md in [
            "---\ndescription: No name. Use when asked.\n---\nBody.\n",
            "---\nname: [unclosed\n---\nBody.\n",
        ] {
            let t = tempfile::tempdir().unwrap();
            write(t.path(), ".agents/skills/x/SKILL.md", md);
            write(t.path(), ".agents/skills/x/notes.md", "notes");
            // A copy, as `skills add --copy` makes, and a different skill without a name.
            write(t.path(), ".codex/skills/x/SKILL.md", md);
            write(t.path(), ".codex/skills/x/notes.md", "notes");
            write(t.path(), ".other/skills/x/SKILL.md", md);
            write(t.path(), ".other/skills/x/notes.md", "other notes");
            #[cfg(unix)]
            {
                std::fs::create_dir_all(t.path().join(".claude/skills")).unwrap();
                std::os::unix::fs::symlink(
                    t.path().join(".agents/skills/x"),
                    t.path().join(".claude/skills/x"),
                )
                .unwrap();
            }
            let report = Linter::new(Config::default())
                .lint_paths(&[t.path().to_path_buf()])
                .unwrap();
            let dirs: Vec<_> = report
                .skills
                .iter()
                .map(|s| s.dir.strip_prefix(t.path()).unwrap().to_path_buf())
                .collect();
            assert_eq!(
                dirs,
                [
                    PathBuf::from(".agents/skills/x"),
                    PathBuf::from(".other/skills/x")
                ],
                "{md:?}"
            );
            assert_eq!(report.diagnostics().count(), 2, "{md:?}");
        }
    }

    /// Paths that overlap (a tree twice, a skill inside it, a skill nested in another that
    /// its listing finds too) lint each skill once, in the report's order; a skill whose
    /// `SKILL.md` was named first keeps its nested skills out, as the first path said.
    #[test]
    fn overlapping_paths_lint_each_skill_once() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        skill(root, "a", "body\n");
        skill(&root.join("a/inner"), "n", "body\n");
        skill(root, "b", "body\n");
        let dirs = |paths: &[PathBuf]| -> Vec<PathBuf> {
            Linter::new(Config::default())
                .lint_paths(paths)
                .unwrap()
                .skills
                .iter()
                .map(|s| s.dir.strip_prefix(root).unwrap().to_path_buf())
                .collect()
        };
        let all = [root.join("a"), root.join("a/inner/n"), root.join("b")]
            .map(|d| d.strip_prefix(root).unwrap().to_path_buf());
        let paths = [
            root.to_path_buf(),
            root.join("b"),
            root.join("a/inner/n"),
            root.to_path_buf(),
        ];
        assert_eq!(dirs(&paths), all);
        // `a/inner/n` is nested in `a`, whose listing finds it too.
        assert_eq!(dirs(&[root.join("a"), root.join("a/inner/n")]), all[..2]);
        assert_eq!(dirs(&[root.join("a/inner/n"), root.join("a")]), all[..2]);
        // Named by its SKILL.md first: its nested skill is not linted for it.
        assert_eq!(dirs(&[root.join("a/SKILL.md"), root.join("a")]), all[..1]);
    }

    #[test]
    fn honours_gitignore_outside_git() {
        let t = tempfile::tempdir().unwrap();
        skill(t.path(), "a", "body\n");
        skill(t.path(), "ignored", "body\n");
        write(t.path(), ".gitignore", "ignored/\n");
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        assert_eq!(report.skills.len(), 1);
    }

    #[test]
    fn duplicate_names_and_misspelt_file() {
        let t = tempfile::tempdir().unwrap();
        skill(&t.path().join("one"), "x", "body\n");
        skill(&t.path().join("two"), "x", "another body\n");
        write(
            t.path(),
            "three/y/Skill.md",
            &(FM.replace("NAME", "y") + "body\n"),
        );
        write(
            t.path(),
            "four/z/skill.md",
            &(FM.replace("NAME", "z") + "body\n"),
        );
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        assert_eq!(
            rules_of(&report),
            [
                RuleId::SkillMdLowercase,
                RuleId::SkillMdMissing,
                RuleId::DuplicateName
            ]
        );
    }

    #[test]
    fn batches_come_in_order_with_nested_skills_and_duplicates_across_them() {
        let t = tempfile::tempdir().unwrap();
        // More than one batch; `dup` sorts into the last one and repeats the first's name.
        for i in 0..BATCH + 10 {
            skill(t.path(), &format!("s{i:05}"), "body\n");
        }
        // Another skill of that name (an identical copy would be the same skill).
        write(
            t.path(),
            "s99999-dup/SKILL.md",
            &(FM.replace("NAME", "s00000") + "another body\n"),
        );
        // A skill nested in the last skill of the first batch.
        let last_of_first = format!("s{:05}", BATCH - 1);
        skill(&t.path().join(&last_of_first), "inner", "body\n");
        let mut batches = Vec::new();
        let other = Linter::new(Config::default())
            .lint_paths_each(&[t.path().to_path_buf()], |batch| batches.push(batch))
            .unwrap();
        assert!(other.is_empty());
        assert!(batches.len() >= 2, "{}", batches.len());
        let dirs: Vec<PathBuf> = batches.iter().flatten().map(|r| r.dir.clone()).collect();
        let mut sorted = dirs.clone();
        sorted.sort();
        assert_eq!(dirs, sorted, "the report's order, across batches");
        assert_eq!(dirs.len(), BATCH + 12);
        let inner = t.path().join(&last_of_first).join("inner");
        let at = dirs.iter().position(|d| *d == inner).unwrap();
        assert_eq!(dirs[at - 1], t.path().join(&last_of_first));
        let dup = batches.last().unwrap().last().unwrap();
        assert_eq!(dup.dir, t.path().join("s99999-dup"));
        let d = &dup.diagnostics[0];
        assert_eq!(d.rule, RuleId::DuplicateName);
        assert!(d.message.contains("s00000"), "{}", d.message);
        assert_eq!(d.start.map(|p| (p.line, p.column)), Some((2, 7)));
    }

    #[test]
    fn a_skill_gone_before_its_listing_is_reported_not_linted_as_empty() {
        let t = tempfile::tempdir().unwrap();
        let gone = t.path().join("gone");
        let linter = Linter::new(Config::default());
        let lister = skills_core::files::Lister::new();
        let (skill, nested) = walk::SkillDir::list(&walk::Found::at(&gone), &lister);
        assert!(nested.is_empty());
        let (report, named) = linter.lint_skill(&skill);
        assert!(named.is_none());
        let rules: Vec<RuleId> = report.diagnostics.iter().map(|d| d.rule).collect();
        assert_eq!(rules, [RuleId::FileUnreadable]);
        assert!(
            report.diagnostics[0].message.contains("cannot be listed"),
            "{}",
            report.diagnostics[0].message
        );
    }

    /// Flat skills (seed 004's `NAME.md` directly in a skills folder, with frontmatter) are
    /// linted as the `SKILL.md` of the directory they stand for, with `skill-md-flat`;
    /// `lint` said `skill-md-missing` of the folder and exit 2 for the file named, while
    /// `list` showed them.
    #[test]
    fn flat_skills_in_skills_folders_are_linted() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("project/.claude/skills");
        let fm = |name: &str| FM.replace("NAME", name);
        write(
            &folder,
            "deploy.md",
            &(fm("deploy") + "Run the pipeline.\n"),
        );
        write(
            &folder,
            "other.md",
            &(fm("elsewhere") + "See [x](scripts/x.sh).\n"),
        );
        write(
            &folder,
            "notes.md",
            "# Notes, no frontmatter: not a skill\n",
        );
        write(&folder, "README.md", &(fm("readme") + "Documentation.\n"));
        skill(&folder, "dir-skill", "Body.\n");
        // Not a skills folder: a Markdown file with frontmatter is not a skill there.
        write(
            &t.path().join("project/docs"),
            "guide.md",
            &(fm("guide") + "Text.\n"),
        );
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().join("project")])
            .unwrap();
        let found: Vec<(String, RuleId)> = report
            .diagnostics()
            .map(|d| {
                let path = d.path.strip_prefix(&folder).unwrap_or(&d.path);
                (path.display().to_string(), d.rule)
            })
            .collect();
        assert_eq!(
            found,
            [
                ("deploy.md".to_string(), RuleId::SkillMdFlat),
                ("other.md".to_string(), RuleId::SkillMdFlat),
                ("other.md".to_string(), RuleId::NameDirMismatch),
                ("other.md".to_string(), RuleId::LinkMissing),
            ],
        );
        assert_eq!(report.skills.len(), 3, "deploy.md, dir-skill, other.md");
        // Named on the command line, in any folder.
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().join("project/docs/guide.md")])
            .unwrap();
        assert_eq!(rules_of(&report), [RuleId::SkillMdFlat]);
        let err = Linter::new(Config::default())
            .lint_paths(&[folder.join("README.md")])
            .unwrap_err();
        assert!(matches!(err, LintError::NotASkill { .. }));
        // A folder the caller names (`--skills-dir`), whatever its path.
        let vendor = t.path().join("vendor");
        write(&vendor, "tool.md", &(fm("tool") + "Body.\n"));
        let plain = Linter::new(Config::default())
            .lint_paths(std::slice::from_ref(&vendor))
            .unwrap();
        assert_eq!(rules_of(&plain), [RuleId::SkillMdMissing]);
        let named = Linter::new(Config::default())
            .with_skills_folders(vec![vendor.clone()])
            .lint_paths(std::slice::from_ref(&vendor))
            .unwrap();
        assert_eq!(rules_of(&named), [RuleId::SkillMdFlat]);
    }

    #[test]
    fn empty_dir_and_bad_paths() {
        let t = tempfile::tempdir().unwrap();
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().to_path_buf()])
            .unwrap();
        assert_eq!(rules_of(&report), [RuleId::SkillMdMissing]);
        let err = Linter::new(Config::default())
            .lint_paths(&[t.path().join("nope")])
            .unwrap_err();
        assert!(matches!(err, LintError::NotFound { .. }));
        write(t.path(), "README.md", "x");
        let err = Linter::new(Config::default())
            .lint_paths(&[t.path().join("README.md")])
            .unwrap_err();
        assert!(matches!(err, LintError::NotASkill { .. }));
    }

    /// Every field of each diagnostic, to compare two reports (`Diagnostic` has no
    /// `PartialEq`).
    type Said = (
        RuleId,
        crate::diagnostic::Severity,
        String,
        String,
        PathBuf,
        Option<Range<usize>>,
        Option<(usize, usize)>,
        Option<(usize, usize)>,
        Option<String>,
    );

    fn said(report: &SkillReport) -> Vec<Said> {
        report
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.rule,
                    d.severity,
                    d.message.clone(),
                    d.help.clone(),
                    d.path.clone(),
                    d.span.clone(),
                    d.start.map(|p| (p.line, p.column)),
                    d.end.map(|p| (p.line, p.column)),
                    d.source.as_deref().map(str::to_string),
                )
            })
            .collect()
    }

    #[test]
    fn a_source_lints_as_the_same_file_alone_in_a_directory_of_that_name() {
        let oversize = {
            let mut text = FM.replace("NAME", "big").into_bytes();
            text.resize(
                usize::try_from(skills_frontmatter::MAX_FILE_BYTES).unwrap() + 1,
                b'x',
            );
            text
        };
        let cases: [(&str, &str, Vec<u8>, &[RuleId]); 6] = [
            (
                "clean",
                "pdf",
                (FM.replace("NAME", "pdf") + "Body.\n").into_bytes(),
                &[],
            ),
            (
                "a name that is not the directory's, and a missing link",
                "pdf",
                (FM.replace("NAME", "pdf-tools") + "See [a](references/a.md).\n").into_bytes(),
                &[RuleId::NameDirMismatch, RuleId::LinkMissing],
            ),
            (
                "an invalid name",
                "Bad_Name",
                (FM.replace("NAME", "Bad_Name") + "Body.\n").into_bytes(),
                &[RuleId::NameNotLowercase, RuleId::NameInvalidChars],
            ),
            (
                "no description",
                "nodesc",
                b"---\nname: nodesc\n---\nBody.\n".to_vec(),
                &[RuleId::DescriptionMissing],
            ),
            (
                "invalid UTF-8",
                "bytes",
                [FM.replace("NAME", "bytes").as_bytes(), b"Body \xff.\n"].concat(),
                &[RuleId::InvalidUtf8],
            ),
            (
                "over the size limit",
                "big",
                oversize,
                &[RuleId::FileTooLarge],
            ),
        ];
        let linter = Linter::new(Config::default());
        for (what, dir_name, source, rules) in cases {
            let t = tempfile::tempdir().unwrap();
            let dir = t.path().join(dir_name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), &source).unwrap();
            let on_disk = linter.lint_paths(std::slice::from_ref(&dir)).unwrap();
            assert!(on_disk.other.is_empty(), "{what}");
            let [on_disk] = &on_disk.skills[..] else {
                panic!("{what}: one skill on disk");
            };
            std::fs::remove_dir_all(&dir).unwrap();
            let in_memory = linter.lint_source(&dir, &source);
            let got: Vec<RuleId> = in_memory.diagnostics.iter().map(|d| d.rule).collect();
            let mut want = rules.to_vec();
            want.sort_unstable();
            let mut sorted = got.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, want, "{what}: {got:?}");
            assert_eq!(said(&in_memory), said(on_disk), "{what}");
            assert_eq!(
                (&in_memory.dir, &in_memory.skill_md, &in_memory.name),
                (&on_disk.dir, &on_disk.skill_md, &on_disk.name),
                "{what}"
            );
        }
    }

    #[test]
    fn a_source_is_linted_without_reading_the_directory_it_is_said_to_be_in() {
        // A skill on disk at the same path, with the files the source links to, a
        // directory it links to, a nested reference and a broken tools.json: none of it
        // is the source's skill.
        let t = tempfile::tempdir().unwrap();
        skill(t.path(), "s", "Body on disk.\n");
        write(t.path(), "s/references/a.md", "More in [b](b.md).\n");
        write(t.path(), "s/references/b.md", "b\n");
        write(t.path(), "s/assets/logo.txt", "x");
        write(t.path(), "s/tools.json", "not json");
        let dir = t.path().join("s");
        let on_disk = Linter::new(Config::default())
            .lint_paths(std::slice::from_ref(&dir))
            .unwrap();
        assert_eq!(
            rules_of(&on_disk),
            [RuleId::ToolsJsonInvalid],
            "the skill on disk has findings of its own"
        );
        let source = FM.replace("NAME", "s") + "See [a](references/a.md) and [assets](assets/).\n";
        let report = Linter::new(Config::default()).lint_source(&dir, source.as_bytes());
        let got: Vec<(RuleId, &str)> = report
            .diagnostics
            .iter()
            .map(|d| (d.rule, d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    RuleId::LinkMissing,
                    "`references/a.md` does not exist in the skill"
                ),
                (RuleId::LinkMissing, "`assets/` does not exist in the skill"),
            ]
        );
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.source.as_deref() == Some(source.as_str())),
            "quoted from the source, not from the SKILL.md on disk"
        );
        // A directory that is not there is no different, and the text is unchanged.
        let nowhere = t.path().join("missing/s");
        let elsewhere = Linter::new(Config::default()).lint_source(&nowhere, source.as_bytes());
        assert_eq!(
            elsewhere
                .diagnostics
                .iter()
                .map(|d| d.rule)
                .collect::<Vec<_>>(),
            [RuleId::LinkMissing, RuleId::LinkMissing]
        );
        assert!(!nowhere.exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
            FM.replace("NAME", "s") + "Body on disk.\n"
        );
    }

    #[test]
    fn skill_md_file_argument_and_config() {
        let t = tempfile::tempdir().unwrap();
        skill(t.path(), "s", "Run `scripts/missing.py`.\n");
        let mut config = Config::default();
        config.set("link-missing", Level::Deny).unwrap();
        let report = Linter::new(config)
            .lint_paths(&[t.path().join("s/SKILL.md")])
            .unwrap();
        assert_eq!(report.errors(), 1);
        let mut config = Config::default();
        config.set("link-missing", Level::Allow).unwrap();
        let report = Linter::new(config)
            .lint_paths(&[t.path().join("s/SKILL.md")])
            .unwrap();
        assert_eq!(report.diagnostics().count(), 0);
    }
}
