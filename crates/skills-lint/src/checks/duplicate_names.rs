//! `duplicate-name`, the one rule that needs the whole run: two skills with the same `name`.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use foldhash::fast::RandomState;

use crate::diagnostic::{Identity, Named, SkillReport, sort_diagnostics};
use crate::linter::Linter;
use crate::rules::RuleId;
use crate::walk::{FileEntry, SkillDir};

/// The first skill of a name in the run.
pub(crate) struct First {
    skill_md: PathBuf,
    dir: PathBuf,
    identity: Option<Identity>,
}

/// What the run has reported so far: the first skill of each name, and the skills without
/// a name (whose `SKILL.md` has none, or does not parse) by the digest of their `SKILL.md`;
/// and what it has read: the first skill of each identity.
///
/// Hashed with foldhash, seeded per process: the run's one thread looks up every skill in
/// them, and SipHash's share of that was most of it.
#[derive(Default)]
pub(crate) struct Seen {
    by_name: HashMap<String, First, RandomState>,
    /// The directories of `by_name`.
    firsts: HashSet<PathBuf, RandomState>,
    nameless: HashMap<[u8; 32], PathBuf>,
    /// The directory of the first skill of each [`Identity`] fingerprint.
    earliest: HashMap<u128, PathBuf, RandomState>,
}

/// For each skill of `listed` (a batch, in the run's order), the first skill of the run
/// with its identity when it is not that skill: the skill it may be a copy of, which it
/// needs no linting to be compared with ([`compare_ahead`], [`is_copy`]). Their `SKILL.md`
/// are the same bytes, so they have the same name; if that earlier skill is the first of
/// its name, [`decide`] would leave the later one out as an identical copy whatever its
/// findings, when its other files are the same too.
pub(crate) fn plan(listed: &[SkillDir], seen: &mut Seen) -> Vec<Option<PathBuf>> {
    listed
        .iter()
        .map(|skill| {
            let identity = skill.identity()?;
            match seen.earliest.entry(identity.fingerprint) {
                Entry::Vacant(slot) => {
                    slot.insert(skill.dir.clone());
                    None
                }
                Entry::Occupied(first) => Some(first.get().clone()),
            }
        })
        .collect()
}

/// Whether `skill`, planned as a possible copy of the earlier skill in `first`
/// ([`plan`]), is one [`decide`] would leave out: `first` is the first skill of its name
/// (which [`decide`] has seen by now), and they have the same files (by `ahead`, from
/// [`compare_ahead`]).
pub(crate) fn is_copy(
    skill: &SkillDir,
    first: &Path,
    seen: &Seen,
    ahead: &HashMap<PathBuf, bool>,
) -> bool {
    let Some(identity) = skill.identity() else {
        return false;
    };
    seen.firsts.contains(first)
        && (identity.skill_md_only || ahead.get(&skill.dir).copied().unwrap_or(false))
}

/// Whether `report`, a skill without a name, is one the run reported already: the same
/// directory through a link, or an identical copy (the same `SKILL.md`, then the same
/// files). Its `SKILL.md` is read again to compare: skills without a name are the rare
/// broken ones, and the run would otherwise report each of its findings twice.
fn seen_nameless(report: &SkillReport, nameless: &mut HashMap<[u8; 32], PathBuf>) -> bool {
    // Never through a link out of the skill (which lint reports and never reads).
    let Ok(bytes) = skills_core::fs::read_bounded_in(
        &report.skill_md,
        &report.dir,
        skills_frontmatter::MAX_FILE_BYTES,
    ) else {
        return false;
    };
    let digest = skills_core::digest::sha256_parts(&[&bytes]);
    match nameless.entry(digest) {
        Entry::Vacant(slot) => {
            slot.insert(report.dir.clone());
            false
        }
        Entry::Occupied(first) => skills_core::files::same_skill(first.get(), &report.dir),
    }
}

/// What the run does with a report ([`decide`]).
pub(crate) enum Decision {
    /// The first skill of its name, or a skill without a name not reached before: kept.
    Keep,
    /// The skill reported already (through a link, or an identical copy): left out.
    Drop,
    /// Kept, with a `duplicate-name` finding pointing at the first skill of its name,
    /// whose `SKILL.md` this is ([`report_duplicate`]).
    Duplicate(PathBuf),
}

/// Whether `report` is a duplicate of an earlier skill of the run with its name; otherwise
/// remembers it as the first of its name. Reports come in the run's order (by directory),
/// so which skill counts as the first does not depend on thread timing, and only the names
/// seen so far are kept (with their directories), not the reports.
///
/// The report leaves the run ([`Decision::Drop`]) when the earlier skill of its name is
/// this one (the same directory through a link, as `skills add` links agents' folders, or
/// an identical copy), which is one skill, linted once. Their [`Identity`]s tell most
/// pairs apart; only identical skills with files besides `SKILL.md` are compared on disk,
/// by [`compare_ahead`] before the batch is checked (the notion of
/// [`skills_core::files::same_skill`]: the same files, path and bytes).
///
/// `ahead` holds what [`compare_ahead`] found on disk for this batch, by the report's
/// directory; a pair it does not hold is compared here.
///
/// Only this decision needs the run's order: the finding itself ([`report_duplicate`])
/// depends on nothing else, so a batch decides on one thread and reports on the pool (a
/// crawl of 15,652 forks spent 27 ms of its one thread building findings in this loop).
pub(crate) fn decide(
    report: &SkillReport,
    named: Option<&Named>,
    seen: &mut Seen,
    ahead: &HashMap<PathBuf, bool>,
) -> Decision {
    let Some(name) = &report.name else {
        // Without a name there is no duplicate to report, but the same skill reached twice
        // is still one skill.
        return if seen_nameless(report, &mut seen.nameless) {
            Decision::Drop
        } else {
            Decision::Keep
        };
    };
    let identity = named.map(|n| &n.identity);
    // Looked up before inserting: most skills of a crawl of forks share a name already seen.
    let Some(First {
        skill_md: first,
        dir: first_dir,
        identity: first_identity,
    }) = seen.by_name.get(name)
    else {
        seen.by_name.insert(
            name.clone(),
            First {
                skill_md: report.skill_md.clone(),
                dir: report.dir.clone(),
                identity: identity.cloned(),
            },
        );
        seen.firsts.insert(report.dir.clone());
        return Decision::Keep;
    };
    let same = match (identity, first_identity) {
        (Some(this), Some(that)) if this == that => {
            this.skill_md_only
                || ahead
                    .get(&report.dir)
                    .copied()
                    .unwrap_or_else(|| skills_core::files::same_skill(first_dir, &report.dir))
        }
        _ => false,
    };
    if same {
        return Decision::Drop;
    }
    Decision::Duplicate(first.clone())
}

/// Adds the `duplicate-name` finding [`decide`] called for to `report`: another skill, whose
/// `SKILL.md` is `first`, came first with its name.
pub(crate) fn report_duplicate(
    linter: &Linter,
    report: &mut SkillReport,
    named: Option<Named>,
    first: &Path,
) {
    let Some(name) = &report.name else {
        return;
    };
    // Named as the report's own paths are shown: `skills lint .` gives `./a/SKILL.md`, and
    // every renderer writes that path as `a/SKILL.md`.
    let message = format!(
        "another skill is also named `{name}`: {}",
        first.strip_prefix(".").unwrap_or(first).display()
    );
    let (site, source) = match named {
        Some(Named { site, source, .. }) => (Some(site), source),
        None => (None, None),
    };
    let path = report.skill_md.clone();
    if let Some(d) = linter.diagnostic_at(RuleId::DuplicateName, message, None, path, site, source)
    {
        report.diagnostics.push(d);
        sort_diagnostics(&mut report.diagnostics);
    }
}

/// The on-disk comparisons [`is_copy`] and [`decide`] will need for `listed`, made on
/// rayon's pool: for each skill [`plan`] found a possible copy of an earlier skill (in an
/// earlier batch, or earlier in this one) and which has files besides `SKILL.md`, whether
/// the two directories hold the same files, by the later skill's directory.
///
/// A crawl of forks holds many such copies (30 copies of corpus-large: 16,211 skills that
/// match an earlier one). Compared a pair at a time in the run's order, each pair listed
/// both skills from scratch and read both byte for byte, and that was most of the run; here
/// each skill's files are read once, as the run listed them (an earlier skill of an earlier
/// batch is listed again, with the run's `lister`), and hashed as the identity is
/// ([`crate::linter::Fingerprint`]). Each `SKILL.md` is left out: the identity holds its
/// bytes (as lint read them), and only skills of equal identities are compared, so reading
/// it again, one file in four of such a crawl, would tell nothing new.
pub(crate) fn compare_ahead(
    listed: &[SkillDir],
    plan: &[Option<PathBuf>],
    lister: &skills_core::files::Lister,
) -> HashMap<PathBuf, bool> {
    use rayon::prelude::*;
    let in_batch: HashMap<&Path, &SkillDir> = listed
        .iter()
        .map(|skill| (skill.dir.as_path(), skill))
        .collect();
    let mut pairs: Vec<(&Path, &SkillDir)> = Vec::new();
    for (skill, first) in listed.iter().zip(plan) {
        if let (Some(first), Some(identity)) = (first, skill.identity())
            && !identity.skill_md_only
        {
            pairs.push((first.as_path(), skill));
        }
    }
    // Each directory once, with the name of its `SKILL.md` (the same in both of a pair:
    // their identities hold the same file names).
    let mut dirs: Vec<(&Path, Option<&str>)> = pairs
        .iter()
        .flat_map(|&(first, skill)| {
            let md = skill.skill_md.file_name().and_then(|name| name.to_str());
            [(first, md), (skill.dir.as_path(), md)]
        })
        .collect();
    dirs.sort_unstable();
    dirs.dedup_by_key(|&mut (dir, _)| dir);
    let contents: HashMap<&Path, Option<u128>> = dirs
        .into_par_iter()
        .map(|(dir, skill_md)| {
            let files = in_batch
                .get(dir)
                .map(|skill| skill.files())
                .filter(|files| !files.is_empty());
            (dir, contents(lister, dir, skill_md, files))
        })
        .collect();
    pairs
        .into_iter()
        .map(|(first, skill)| {
            let same = matches!(
                (contents.get(first), contents.get(skill.dir.as_path())),
                (Some(Some(a)), Some(Some(b))) if a == b
            );
            (skill.dir.clone(), same)
        })
        .collect()
}

/// A hash of every file of the skill in `dir` but `skill_md` (the name of its `SKILL.md`,
/// whose bytes the identity holds), path and bytes: its `files` as the run listed them, or
/// as `lister` lists them now; `None` when it cannot be listed or read whole (then it is no
/// copy of anything).
fn contents(
    lister: &skills_core::files::Lister,
    dir: &Path,
    skill_md: Option<&str>,
    files: Option<&[FileEntry]>,
) -> Option<u128> {
    let listing;
    let files: Vec<(&str, &Path, u64)> = match files {
        Some(files) => files
            .iter()
            .map(|f| (f.rel.as_str(), f.path.as_path(), f.size))
            .collect(),
        None => {
            listing = lister.list(dir).ok()?;
            listing
                .files
                .iter()
                .map(|f| (f.path.as_str(), f.real.as_path(), f.size))
                .collect()
        }
    };
    let total: u64 = files.iter().map(|&(_, _, size)| size).sum();
    if total > skills_core::layout::MAX_SKILL_BYTES {
        return None;
    }
    let mut hash = crate::linter::Fingerprint::new();
    for (rel, path, size) in files {
        // By the path in the skill, as both listings write it (the one of the run, and
        // the lister's, whose file paths are canonical).
        if Some(rel) == skill_md {
            continue;
        }
        // As listed: never more than the listing's size, so a file that grew since (or
        // a huge one) costs no more memory than the total checked above.
        let bytes = skills_core::fs::read_listed(path, size, skills_core::layout::MAX_SKILL_BYTES);
        hash.part(rel.as_bytes());
        hash.part(&bytes.ok()?);
    }
    Some(hash.finish())
}
