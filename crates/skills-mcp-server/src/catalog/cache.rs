//! The manifests of served skills, kept between requests while nothing they were built from
//! changed: a `stat` per file and directory, or none while a change watch says nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skills_core::Stamp;
use skills_core::files::{EXCLUDED_NAMES, IGNORE_FILES};
use skills_discovery::Skill;

use super::manifest::{Manifest, NotServed, Sha, hash_file, manifest};

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
    pub(crate) fn build(skill: &Skill) -> Result<Self, NotServed> {
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
                file.size = stamp.len();
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
                if stamp.is_none_or(|s| s.len() != size) {
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
/// symlinks: a linked directory inside the skill is recorded where it really is; not into
/// the names the file policy excludes).
fn watch(dir: &Path, rel: &Path, depth: usize, out: &mut Vec<(Box<Path>, Option<Stamp>)>) {
    out.push((rel.into(), Stamp::read(dir)));
    for name in IGNORE_FILES {
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
        if EXCLUDED_NAMES.iter().any(|x| name == *x) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            watch(&entry.path(), &rel.join(&name), depth + 1, out);
        }
    }
}

/// How deep [`watch`] goes. The listing has no depth limit; a skill deeper than this is
/// still served, its deepest directories checked through their files' own stamps.
const WATCH_DEPTH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::manifest::{digest, digest_text};
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
