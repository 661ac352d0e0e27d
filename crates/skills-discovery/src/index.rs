//! The in-memory index of every skill under a list of roots.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::meta::skill_id;
use crate::roots::Roots;
use crate::walk::{Entry, RootWalk, WalkStats};
use crate::watch::Watch;
use crate::{Scope, Skill, Skipped, Warning};
use skills_core::Identity;

/// Whether a [`Index::refresh`] changed the list of active skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Changed {
    /// The active skills (ids, names, descriptions and `SKILL.md` paths) are as they were.
    /// A skill's body may still have changed; it is read on demand anyway.
    No,
    /// A skill appeared, disappeared, or its name, description or winning file changed: an
    /// MCP server sends `notifications/tools/list_changed` (or `resources/list_changed`).
    Yes,
}

/// How an [`Index`] does its work ([`Index::scan_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanOptions {
    /// Whether many skill files are parsed, and many files `stat`ed by a refresh, in
    /// parallel on rayon's global thread pool (the default). Off, everything happens on the
    /// calling thread: slower on large trees, but no worker threads are started, and a
    /// process that must stay small (an MCP server) does not keep their memory.
    pub parallel: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self { parallel: true }
    }
}

impl ScanOptions {
    /// Sets [`ScanOptions::parallel`].
    #[must_use]
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }
}

/// Every skill found under a list of [`Roots`], with what was skipped and why.
///
/// Only metadata is held (id, name, description, paths, scope); bodies are read on demand
/// with [`Skill::read`]. [`Index::refresh`] brings it up to date cheaply: with nothing
/// changed on disk it costs one `stat` per directory and skill file walked.
#[derive(Debug)]
pub struct Index {
    roots: Roots,
    walks: Vec<RootWalk>,
    /// The active skills, in priority order.
    active: Vec<Skill>,
    /// The shadowed skills, in priority order. Each skill is held once: a long-lived index
    /// (an MCP server's) holds thousands.
    shadowed: Vec<Skill>,
    /// Every skill in priority order: where it is in `active` or `shadowed`.
    order: Vec<Slot>,
    /// Positions in `active`, sorted by id ignoring case (the first of equal ids first).
    by_id: Vec<u32>,
    /// Positions in `active`, sorted by name ignoring case (the first of equal names first).
    by_name: Vec<u32>,
    skipped: Vec<Skipped>,
    warnings: Vec<Warning>,
    stats: WalkStats,
    options: ScanOptions,
    /// Kernel change notification gating the `stat` pass of [`Index::refresh`]
    /// ([`Index::watch`]).
    watch: Option<Watch>,
    /// How many `stat` passes refreshes ran, for tests.
    #[cfg(test)]
    passes: usize,
}

impl Index {
    /// Scans every root, in priority order.
    ///
    /// A root that does not exist is skipped silently; one that cannot be read is reported
    /// in [`Index::warnings`]. Nothing here fails: problems become warnings and skipped
    /// skills.
    pub fn scan(roots: &Roots) -> Self {
        Self::scan_with(roots, ScanOptions::default())
    }

    /// [`Index::scan`], with options that also apply to every [`Index::refresh`].
    ///
    /// ```
    /// use skills_discovery::{Index, Roots, ScanOptions};
    ///
    /// // A long-lived, single-threaded process (an MCP server) keeps to its own thread.
    /// let index = Index::scan_with(&Roots::custom(["skills"]), ScanOptions::default().parallel(false));
    /// # let _ = index;
    /// ```
    pub fn scan_with(roots: &Roots, options: ScanOptions) -> Self {
        let mut stats = WalkStats::default();
        let walks = roots
            .iter()
            .map(|root| RootWalk::walk(&root.path, None, &mut stats, options.parallel))
            .collect();
        let mut index = Self {
            roots: roots.clone(),
            walks,
            active: Vec::new(),
            shadowed: Vec::new(),
            order: Vec::new(),
            by_id: Vec::new(),
            by_name: Vec::new(),
            skipped: Vec::new(),
            warnings: Vec::new(),
            stats,
            options,
            watch: None,
            #[cfg(test)]
            passes: 0,
        };
        index.assemble();
        index
    }

    /// The roots this index was scanned from.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// The active skills (not shadowed), sorted by root priority and then by id.
    pub fn skills(&self) -> &[Skill] {
        &self.active
    }

    /// Every skill, shadowed ones included (with [`Skill::shadowed_by`] set), sorted by root
    /// priority and then by id.
    pub fn all(&self) -> impl DoubleEndedIterator<Item = &Skill> + '_ {
        self.order.iter().filter_map(move |slot| match *slot {
            Slot::Active(i) => self.active.get(i as usize),
            Slot::Shadowed(i) => self.shadowed.get(i as usize),
        })
    }

    /// The shadowed skills (those with [`Skill::shadowed_by`] set), sorted by root priority
    /// and then by id.
    pub fn shadowed(&self) -> &[Skill] {
        &self.shadowed
    }

    /// The skills left out because their file could not be read or parsed, or lacks a name
    /// or description.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Everything worth telling the user: unreadable roots and directories, symlink loops,
    /// skipped skills (also in [`Index::skipped`]) and shadowed skills. Root by root.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The active skill with this id, ignoring case; failing that, the first active skill
    /// whose frontmatter `name` is this, ignoring case. The name is only compared with what
    /// the index holds, never joined onto a path.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.lookup(&self.by_id, name, |s| &s.id)
            .or_else(|| self.lookup(&self.by_name, name, |s| &s.name))
    }

    /// The first skill in `sorted` (positions in `active`, sorted by `field` ignoring case)
    /// whose `field` is `key`, ignoring case.
    fn lookup(&self, sorted: &[u32], key: &str, field: fn(&Skill) -> &String) -> Option<&Skill> {
        let skill = |&i: &u32| self.active.get(i as usize);
        let first = sorted.partition_point(|i| {
            skill(i).is_some_and(|s| cmp_ignoring_case(field(s), key) == Ordering::Less)
        });
        sorted
            .get(first)
            .and_then(skill)
            .filter(|s| cmp_ignoring_case(field(s), key) == Ordering::Equal)
    }

    /// Ids of active skills close to `name`, for "did you mean": an edit distance (ignoring
    /// case, a swap of two letters counting once) of at most 3 and at most half the longer
    /// string, or one containing the other (when that one has 3 characters or more).
    /// Closest first, then by priority.
    pub fn suggest(&self, name: &str) -> Vec<&str> {
        skills_core::suggest::closest(name, self.active.iter().map(|s| s.id.as_str()))
    }

    /// Brings the index up to date with the disk and says whether the active skills changed.
    ///
    /// Every directory walked, ignore file and skill file is `stat`ed. If none changed (and no
    /// root appeared or disappeared), that is all: nothing is read or parsed. Otherwise the
    /// roots that changed are walked again, but a directory whose modification time (and
    /// inode and change time, on Unix) is as before is not listed again, and a skill file
    /// that is as before is not read or parsed again: only new and changed skills are.
    ///
    /// After [`Index::watch`], a refresh first asks the kernel whether anything under the
    /// index changed, and skips the `stat` pass when nothing did.
    pub fn refresh(&mut self) -> Changed {
        if let Some(watch) = &mut self.watch {
            match watch.changed() {
                Ok(false) => return Changed::No,
                Ok(true) => {}
                Err(_) => self.watch = None,
            }
        }
        #[cfg(test)]
        {
            self.passes += 1;
        }
        let changed = self.stat_pass();
        // After any pass, not only one that found a change: a pass woken by a directory
        // created above a missing root finds nothing yet, but that directory must now be
        // watched. The kernel answers re-added watches with their existing descriptors.
        self.rewatch();
        changed
    }

    /// Asks the kernel (inotify, on Linux) to report changes to everything the index
    /// depends on, so that [`Index::refresh`] can skip its `stat` pass while nothing
    /// changed: for a long-lived process that refreshes often (an MCP server refreshes
    /// before every request), that pass is most of the cost of a request. Changes are
    /// still noticed at the next refresh, exactly as without it.
    ///
    /// Returns whether notification is on. It is not on other systems, nor when the kernel
    /// refuses a watch (the per-user watch limit, a directory that cannot be read) or the
    /// tree has dangling symlinks (their target may appear anywhere); it turns itself off
    /// if the kernel later refuses one. Without it, refresh `stat`s everything as before.
    /// It holds one file descriptor and about one watch per skill directory (plus one per
    /// skill file that is a symlink or has other hard links).
    pub fn watch(&mut self) -> bool {
        if self.watch.is_none() {
            self.watch = Watch::new().ok();
            self.rewatch();
        }
        self.watch.is_some()
    }

    /// Whether [`Index::watch`] is on.
    pub fn is_watching(&self) -> bool {
        self.watch.is_some()
    }

    /// (Re)adds the watches for what the walks recorded; turns the gate off when that
    /// cannot cover every change.
    fn rewatch(&mut self) {
        let Some(watch) = &mut self.watch else {
            return;
        };
        let mut targets = Vec::new();
        for (root, walk) in self.roots.as_slice().iter().zip(&self.walks) {
            match walk.watch_targets(&root.path) {
                Some(more) => targets.extend(more),
                None => {
                    self.watch = None;
                    return;
                }
            }
        }
        if watch.add(targets).is_err() {
            self.watch = None;
        }
    }

    /// The `stat` pass: walks again the roots where anything changed.
    fn stat_pass(&mut self) -> Changed {
        let mut any = false;
        for (root, walk) in self.roots.as_slice().iter().zip(self.walks.iter_mut()) {
            if !walk.unchanged(&root.path, self.options.parallel) {
                let previous = std::mem::take(walk);
                *walk = RootWalk::walk(
                    &root.path,
                    Some(previous),
                    &mut self.stats,
                    self.options.parallel,
                );
                any = true;
            }
        }
        if !any {
            return Changed::No;
        }
        let before = std::mem::take(&mut self.active);
        self.assemble();
        if signature(&self.active) == signature(&before) {
            Changed::No
        } else {
            Changed::Yes
        }
    }

    /// How many `stat` passes refreshes ran.
    #[cfg(test)]
    pub(crate) fn passes(&self) -> usize {
        self.passes
    }

    /// How many directories were listed and skill files parsed since the scan began.
    #[cfg(test)]
    pub(crate) fn stats(&self) -> WalkStats {
        self.stats
    }

    /// Builds the lists from the walks: priority order, symlink duplicates dropped, the
    /// first skill of each id active and later ones shadowed.
    fn assemble(&mut self) {
        let mut active = Vec::new();
        let mut shadowed = Vec::new();
        let mut order = Vec::new();
        let mut skipped = Vec::new();
        let mut warnings = Vec::new();
        let mut seen: HashSet<&Identity> = HashSet::new();
        // Lower-case id to the winning skill's file and scope.
        let mut winners: HashMap<String, (&Path, Scope)> = HashMap::new();
        for (root, walk) in self.roots.as_slice().iter().zip(&self.walks) {
            warnings.extend(walk.warnings(&root.path));
            let mut entries: Vec<(String, String, &PathBuf, &Entry)> = walk
                .entries
                .iter()
                .map(|(path, entry)| {
                    let id = skill_id(path, Entry::dir(path), entry.flat);
                    (id.to_lowercase(), id, path, entry)
                })
                .collect();
            // Within a root: by id; a directory before a flat file; shallower first.
            entries.sort_unstable_by(|(ka, _, pa, a), (kb, _, pb, b)| {
                (ka, a.flat, a.depth, pa).cmp(&(kb, b.flat, b.depth, pb))
            });
            for (key, id, path, entry) in entries {
                if !seen.insert(&entry.identity) {
                    // The same directory (or file) reached again through a symlink.
                    continue;
                }
                match &entry.outcome {
                    Err(reason) => {
                        let s = Skipped {
                            id,
                            path: path.clone(),
                            root: root.path.clone(),
                            scope: root.scope,
                            flat: entry.flat,
                            reason: (**reason).clone(),
                        };
                        warnings.push(Warning::Skipped(s.clone()));
                        skipped.push(s);
                    }
                    Ok(meta) => {
                        let winner = winners.get(&key).copied();
                        // The same skill again in the same scope (an agent's copy that
                        // `skills add --copy` made, identical to the one that wins) is that
                        // skill, not its shadow; links to it were dropped above by identity.
                        // A project's copy of a global skill stays the global one's shadow.
                        if let Some((by, scope)) = winner
                            && scope == root.scope
                            && !entry.flat
                            && skills_core::files::same_skill(Entry::dir(by), Entry::dir(path))
                        {
                            continue;
                        }
                        let shadowed_by = winner.map(|(by, _)| by.to_path_buf());
                        if let Some(by) = &shadowed_by {
                            warnings.push(Warning::Shadowed {
                                id: id.clone(),
                                path: path.clone(),
                                by: by.clone(),
                            });
                        } else {
                            winners.insert(key, (path, root.scope));
                        }
                        let skill = Skill {
                            id,
                            name: meta.name.clone(),
                            description: meta.description.clone(),
                            skill_md: path.clone(),
                            // A flat skill's directory is its root, spelled as given.
                            dir: if entry.flat {
                                root.path.clone()
                            } else {
                                Entry::dir(path).to_path_buf()
                            },
                            root: root.path.clone(),
                            scope: root.scope,
                            flat: entry.flat,
                            shadowed_by,
                        };
                        let (list, slot): (&mut Vec<Skill>, fn(u32) -> Slot) =
                            if skill.shadowed_by.is_some() {
                                (&mut shadowed, Slot::Shadowed)
                            } else {
                                (&mut active, Slot::Active)
                            };
                        // More than u32::MAX skills cannot be walked (MAX_DIRS, memory).
                        order.push(slot(u32::try_from(list.len()).unwrap_or(u32::MAX)));
                        list.push(skill);
                    }
                }
            }
        }
        let positions = 0..u32::try_from(active.len()).unwrap_or(u32::MAX);
        let sorted_by = |field: fn(&Skill) -> &String| {
            let mut sorted: Vec<u32> = positions.clone().collect();
            // Stable: the first of equal keys (the one with priority) stays first.
            sorted.sort_by(
                |&a, &b| match (active.get(a as usize), active.get(b as usize)) {
                    (Some(a), Some(b)) => cmp_ignoring_case(field(a), field(b)),
                    _ => Ordering::Equal,
                },
            );
            sorted
        };
        self.by_id = sorted_by(|s| &s.id);
        self.by_name = sorted_by(|s| &s.name);
        active.shrink_to_fit();
        shadowed.shrink_to_fit();
        order.shrink_to_fit();
        self.active = active;
        self.shadowed = shadowed;
        self.order = order;
        self.skipped = skipped;
        self.warnings = warnings;
    }
}

/// Where a skill of [`Index::all`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Active(u32),
    Shadowed(u32),
}

/// Compares two strings ignoring case, as `str::to_lowercase` does; without allocating when
/// both are ASCII (almost every id and name).
fn cmp_ignoring_case(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.bytes()
            .map(|c| c.to_ascii_lowercase())
            .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
    } else {
        a.to_lowercase().cmp(&b.to_lowercase())
    }
}

/// What [`Changed`] compares: the active skills' ids, names, descriptions and files.
fn signature(skills: &[Skill]) -> Vec<(&str, &str, &str, &std::path::Path)> {
    skills
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.name.as_str(),
                s.description.as_str(),
                s.skill_md.as_path(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use crate::test_support::{custom, ids, md, skill, tmp, write};
    use crate::{Index, Roots, Scope, Skill, Warning};

    #[cfg(unix)]
    #[test]
    fn the_same_skill_through_a_symlink_is_one_skill() {
        use std::os::unix::fs::symlink;
        let t = tmp();
        let (proj, home) = (t.path().join("proj"), t.path().join("home"));
        fs::create_dir_all(proj.join(".git")).unwrap();
        // npm `skills`: a copy in .agents/skills, linked from .claude/skills.
        skill(&proj.join(".agents/skills/pdf"));
        fs::create_dir_all(proj.join(".claude/skills")).unwrap();
        symlink("../../.agents/skills/pdf", proj.join(".claude/skills/pdf")).unwrap();
        // A whole global root linked to another.
        skill(&home.join(".agents/skills/git"));
        fs::create_dir_all(home.join(".claude")).unwrap();
        symlink(home.join(".agents/skills"), home.join(".claude/skills")).unwrap();

        let index = Index::scan(&Roots::default_for(&proj, Some(&home)));
        assert_eq!(ids(index.all()), ["pdf", "git"]);
        assert_eq!(ids(index.skills()), ["pdf", "git"]);
        assert!(index.warnings().is_empty(), "{:?}", index.warnings());
        assert_eq!(
            index.get("pdf").unwrap().dir,
            proj.join(".agents/skills/pdf")
        );

        // Only the linked root: the link is followed and the skill found there.
        let index = Index::scan(&custom(&[&proj.join(".claude/skills")]));
        assert_eq!(
            index.get("pdf").unwrap().skill_md,
            proj.join(".claude/skills/pdf/SKILL.md")
        );
    }

    #[test]
    fn a_different_skill_with_the_same_id_is_shadowed() {
        let t = tmp();
        let (proj, home) = (t.path().join("proj"), t.path().join("home"));
        let winner = skill(&proj.join(".claude/skills/git"));
        let loser = home.join(".agents/skills/Git/SKILL.md");
        write(&loser, &md("git", "The global one. Use when asked."));
        let index = Index::scan(&Roots::default_for(&proj, Some(&home)));
        assert_eq!(ids(index.skills()), ["git"]);
        assert_eq!(index.get("GIT").unwrap().skill_md, winner);
        let all: Vec<&Skill> = index.all().collect();
        assert_eq!(ids(all.iter().copied()), ["git", "Git"]);
        assert_eq!(ids(index.shadowed()), ["Git"]);
        assert_eq!(all[1].shadowed_by.as_deref(), Some(winner.as_path()));
        assert_eq!(all[1].scope, Scope::Global);
        assert_eq!(
            index.warnings(),
            [Warning::Shadowed {
                id: "Git".into(),
                path: loser.clone(),
                by: winner.clone()
            }]
        );
        assert!(index.warnings()[0].to_string().contains("shadowed by"));
    }

    #[test]
    fn lookups_ignore_case_and_take_the_first_by_priority() {
        let t = tmp();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        let named =
            |path: PathBuf, name: &str| write(&path, &md(name, "Does things. Use when asked."));
        // Enough skills that the lookups search, not scan.
        for k in 0..40 {
            skill(&b.join(format!("f{k:02}")));
        }
        // Names equal but for case, in two roots: the higher-priority root's skill.
        named(a.join("one/SKILL.md"), "Shared");
        named(b.join("two/SKILL.md"), "shared");
        // ... and within one root: the first id.
        named(b.join("m-first/SKILL.md"), "Twin");
        named(b.join("z-second/SKILL.md"), "TWIN");
        // An id wins over a name.
        named(b.join("twin/SKILL.md"), "something-else");
        // Not ASCII.
        named(a.join("Émile/SKILL.md"), "ΣΟΦΙΑ");
        let index = Index::scan(&custom(&[&a, &b]));
        let id = |query: &str| index.get(query).map(|s| s.id.as_str());
        assert_eq!(id("SHARED"), Some("one"));
        assert_eq!(id("shared"), Some("one"));
        assert_eq!(id("Twin"), Some("twin"));
        assert_eq!(id("SOMETHING-ELSE"), Some("twin"));
        assert_eq!(id("m-FIRST"), Some("m-first"));
        assert_eq!(id("éMILE"), Some("Émile"));
        assert_eq!(id("σοφια"), Some("Émile"));
        assert_eq!(id("F07"), Some("f07"));
        assert_eq!(id("f40"), None);
        assert_eq!(id(""), None);

        // Remove the id match: the name lookup now answers, with the first of the twins.
        fs::remove_dir_all(b.join("twin")).unwrap();
        let index = Index::scan(&custom(&[&a, &b]));
        assert_eq!(index.get("twin").map(|s| s.id.as_str()), Some("m-first"));
    }

    #[test]
    fn a_flat_skills_directory_is_its_root_as_given() {
        let t = tmp();
        let root = t.path().join("skills");
        write(
            &root.join("notes.md"),
            &md("notes", "Notes. Use when asked."),
        );
        let given = PathBuf::from(format!("{}/", root.display()));
        let index = Index::scan(&custom(&[&given]));
        let notes = index.get("notes").unwrap();
        assert!(notes.flat);
        assert_eq!(notes.dir.as_os_str(), given.as_os_str());
    }

    #[test]
    fn suggestions() {
        let t = tmp();
        let root = t.path().join("skills");
        for id in ["git", "pdf-processing", "mcp-builder", "postgres", "docx"] {
            skill(&root.join(id));
        }
        let index = Index::scan(&custom(&[&root]));
        assert_eq!(index.suggest("gti"), ["git"]);
        assert_eq!(index.suggest("MCP-Buidler"), ["mcp-builder"]);
        assert_eq!(index.suggest("pdf"), ["pdf-processing"]);
        assert_eq!(index.suggest("postgresql"), ["postgres"]);
        assert!(index.suggest("kubernetes").is_empty());
        assert!(index.suggest("").is_empty());
        assert!(index.suggest("xyz").is_empty());
    }
}
