//! Kernel change notification (inotify, on Linux) that lets [`crate::Index::refresh`] skip
//! its `stat` pass while nothing the index depends on has changed, and [`DirWatch`], the
//! same for any cache keyed by directories (the MCP server's per-skill file lists).
//!
//! The watch is only a gate in front of the `stat` pass, never a source of truth: any event
//! (or anything unexpected: a full queue, a read error) means "run the pass". What it must
//! guarantee is the converse: a change the pass would notice always leaves an event in the
//! queue before the next refresh. The kernel queues an event inside the system call that
//! makes the change, so a change made before a request was sent is seen by that request.
//!
//! What is watched, for each root (see `RootWalk::watch_targets`):
//! - every directory the walk recorded (the root, searched directories, skill directories):
//!   entries created, deleted, renamed, written or changed in them, ignore files included;
//! - every skill file that is a symlink or has other hard links, so a write through the
//!   link's target or another name is covered (a plain file's changes are reported on its
//!   directory's watch);
//! - the root's parent, or its nearest existing ancestor when the root does not exist, for
//!   events naming the next path component only (the root appearing, vanishing or being
//!   replaced).
//!
//! A walk with dangling symlinks cannot be covered (the target may appear anywhere), and a
//! path the kernel refuses to watch (permissions, the `max_user_watches` limit) turns the
//! gate off for good: the index then `stat`s everything on every refresh, as without it.

use std::ffi::OsStr;
use std::path::Path;

/// One path to watch, and which events on it count. Borrowed from the walk's records: the
/// watch keeps descriptors, not paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    pub(crate) path: &'a Path,
    /// `Some(name)`: only events about the entry `name` of this directory count (an
    /// ancestor of a root); `None`: every event counts.
    pub(crate) only: Option<&'a OsStr>,
}

impl<'a> Target<'a> {
    pub(crate) fn all(path: &'a Path) -> Self {
        Self { path, only: None }
    }
}

/// The targets that cover a root which may not exist: its parent for events about the root's
/// name, or the nearest existing ancestor for events about the next component down.
pub(crate) fn ancestor_target(root: &Path) -> Option<Target<'_>> {
    let mut child = root;
    while let Some(parent) = child.parent() {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if parent.is_dir() {
            return Some(Target {
                path: parent,
                only: child.file_name(),
            });
        }
        child = parent;
    }
    None
}

#[cfg(target_os = "linux")]
pub use linux::DirWatch;
#[cfg(target_os = "linux")]
pub(crate) use linux::Watch;

#[cfg(not(target_os = "linux"))]
pub use other::DirWatch;
#[cfg(not(target_os = "linux"))]
pub(crate) use other::Watch;

/// What a [`DirWatch`] saw since it was last asked.
#[derive(Debug, Clone)]
pub enum Changes<K> {
    /// Changes under these keys (empty: nothing changed).
    Keys(std::collections::HashSet<K>),
    /// Anything may have changed (the kernel's queue overflowed, or this system has no
    /// change notification): check everything.
    All,
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::io;

    use inotify::{Inotify, WatchDescriptor, WatchMask};

    use super::Target;

    /// An inotify instance and what each of its watches is for.
    pub(crate) struct Watch {
        inotify: Inotify,
        /// Per watch descriptor: `None` when every event counts, else the entry names that do.
        filters: HashMap<WatchDescriptor, Option<Vec<OsString>>>,
        /// Set when watches were added since the last pass: what changed between the pass
        /// and the new watches is unknown, so the next refresh runs the pass again.
        dirty: bool,
        buffer: Vec<u8>,
    }

    impl std::fmt::Debug for Watch {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Watch")
                .field("watches", &self.filters.len())
                .field("dirty", &self.dirty)
                .finish_non_exhaustive()
        }
    }

    /// Everything that changes what a `stat` or a directory listing returns.
    fn mask() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
    }

    impl Watch {
        pub(crate) fn new() -> io::Result<Self> {
            Ok(Self {
                inotify: Inotify::init()?,
                filters: HashMap::new(),
                dirty: true,
                // Room for many events per read; the queue is drained in a loop anyway.
                buffer: vec![0; 4096],
            })
        }

        /// Watches every target (again: a path may now be a different directory than when
        /// it was first added; the kernel returns the existing descriptor otherwise).
        /// Called after every pass the gate let through, so only after changes.
        ///
        /// # Errors
        ///
        /// The kernel refused a watch: the caller must stop trusting the gate.
        pub(crate) fn add<'a>(
            &mut self,
            targets: impl IntoIterator<Item = Target<'a>>,
        ) -> io::Result<()> {
            use std::collections::hash_map::Entry;
            for target in targets {
                let wd = self.inotify.watches().add(target.path, mask())?;
                // A descriptor not seen before is a new watch (also a new directory at a
                // path watched before); a known one that now covers more events is as new
                // for those. A known descriptor was watching all along: nothing was missed.
                let widened = match (self.filters.entry(wd), target.only) {
                    (Entry::Vacant(vacant), only) => {
                        vacant.insert(only.map(|name| vec![name.to_os_string()]));
                        true
                    }
                    (Entry::Occupied(mut known), None) => known.insert(None).is_some(),
                    (Entry::Occupied(mut known), Some(name)) => match known.get_mut() {
                        Some(names) if !names.iter().any(|n| n == name) => {
                            names.push(name.to_os_string());
                            true
                        }
                        _ => false,
                    },
                };
                self.dirty |= widened;
            }
            Ok(())
        }

        /// Whether anything that counts happened since the last call (or watches were added
        /// since). Drains the queue.
        ///
        /// # Errors
        ///
        /// Reading the queue failed: the caller must stop trusting the gate.
        pub(crate) fn changed(&mut self) -> io::Result<bool> {
            let mut changed = std::mem::take(&mut self.dirty);
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(changed),
                    Err(e) => return Err(e),
                };
                for event in events {
                    let counts = match self.filters.get(&event.wd) {
                        // An overflow (no descriptor of ours), or a descriptor we no longer
                        // know: assume the worst.
                        None => true,
                        Some(None) => true,
                        Some(Some(names)) => event
                            .name
                            .is_none_or(|n| names.iter().any(|w| w.as_os_str() == n)),
                    };
                    changed |= counts;
                }
            }
        }
    }

    /// Kernel change notification (inotify) on directories, each added under a key, for a
    /// long-lived process that caches what it read from them: ask [`DirWatch::changed`]
    /// before using a cache entry, and check (or rebuild) only the keys it names.
    ///
    /// The kernel queues an event inside the system call that makes a change, so a change
    /// made before `changed` is called is in its answer. Changes made between reading a
    /// directory and adding its watch are not: add the watch, then check the directory
    /// once more before trusting it. Linux only: elsewhere [`DirWatch::new`] fails.
    ///
    /// ```
    /// use skills_discovery::{Changes, DirWatch};
    ///
    /// let dir = std::env::temp_dir().join(format!("dirwatch-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// if let Ok(mut watch) = DirWatch::new() {
    ///     watch.add("pdf-processing", &dir)?;
    ///     std::fs::write(dir.join("notes.md"), "new")?;
    ///     match watch.changed()? {
    ///         Changes::Keys(keys) => assert!(keys.contains("pdf-processing")),
    ///         Changes::All => {} // the queue overflowed: check everything
    ///     }
    /// }
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub struct DirWatch<K> {
        inotify: Inotify,
        /// The first key each directory was added under.
        keys: HashMap<WatchDescriptor, K>,
        /// Further keys of a directory (one reached by two skills through symlinks): rare,
        /// so kept apart rather than making every watch carry a list.
        more: Vec<(WatchDescriptor, K)>,
        buffer: Vec<u8>,
    }

    impl<K> std::fmt::Debug for DirWatch<K> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("DirWatch")
                .field("watches", &self.keys.len())
                .finish_non_exhaustive()
        }
    }

    impl<K: Clone + Eq + std::hash::Hash> DirWatch<K> {
        /// A new, empty watch.
        ///
        /// # Errors
        ///
        /// The kernel has no inotify instance to give (the per-user limit).
        pub fn new() -> io::Result<Self> {
            Ok(Self {
                inotify: Inotify::init()?,
                keys: HashMap::new(),
                more: Vec::new(),
                buffer: vec![0; 4096],
            })
        }

        /// Reports changes in `dir` (its entries created, deleted, renamed, written or
        /// changed; the directory itself deleted, moved or changed) under `key`. Adding the
        /// same directory again for the same key does nothing.
        ///
        /// # Errors
        ///
        /// The kernel refused the watch (permissions, `max_user_watches`): changes in `dir`
        /// will not be reported, so do not rely on the watch for `key`.
        pub fn add(&mut self, key: K, dir: &std::path::Path) -> io::Result<()> {
            let wd = self.inotify.watches().add(dir, mask())?;
            match self.keys.entry(wd) {
                std::collections::hash_map::Entry::Vacant(vacant) => {
                    vacant.insert(key);
                }
                std::collections::hash_map::Entry::Occupied(first) => {
                    let wd = first.key();
                    if *first.get() != key && !self.more.iter().any(|(w, k)| w == wd && *k == key) {
                        self.more.push((wd.clone(), key));
                    }
                }
            }
            Ok(())
        }

        /// What changed since the last call, draining the queue.
        ///
        /// # Errors
        ///
        /// Reading the queue failed: treat everything as changed and stop using the watch.
        pub fn changed(&mut self) -> io::Result<crate::Changes<K>> {
            let mut changed = std::collections::HashSet::new();
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        return Ok(crate::Changes::Keys(changed));
                    }
                    Err(e) => return Err(e),
                };
                let mut gone = Vec::new();
                let mut all = false;
                for event in events {
                    match self.keys.get(&event.wd) {
                        Some(key) => {
                            changed.insert(key.clone());
                            changed.extend(
                                self.more
                                    .iter()
                                    .filter(|(wd, _)| *wd == event.wd)
                                    .map(|(_, k)| k.clone()),
                            );
                        }
                        // An overflow, or a watch we do not know.
                        None => all = true,
                    }
                    if event.mask.contains(inotify::EventMask::IGNORED) {
                        gone.push(event.wd.clone());
                    }
                }
                for wd in gone {
                    self.keys.remove(&wd);
                    self.more.retain(|(w, _)| *w != wd);
                }
                if all {
                    // Drain the rest so the next call starts clean.
                    while self
                        .inotify
                        .read_events(&mut self.buffer)
                        .is_ok_and(|e| e.count() > 0)
                    {}
                    return Ok(crate::Changes::All);
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::io;

    use super::Target;

    /// No kernel notification here: the gate is never on.
    #[derive(Debug)]
    pub(crate) struct Watch;

    impl Watch {
        pub(crate) fn new() -> io::Result<Self> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "change notification is only implemented on Linux",
            ))
        }

        pub(crate) fn add<'a>(
            &mut self,
            _targets: impl IntoIterator<Item = Target<'a>>,
        ) -> io::Result<()> {
            Ok(())
        }

        pub(crate) fn changed(&mut self) -> io::Result<bool> {
            Ok(true)
        }
    }

    /// Kernel change notification on directories: not implemented here.
    #[derive(Debug)]
    pub struct DirWatch<K>(std::marker::PhantomData<K>);

    impl<K> DirWatch<K> {
        /// Always fails here: change notification is only implemented on Linux.
        ///
        /// # Errors
        ///
        /// Always [`io::ErrorKind::Unsupported`].
        pub fn new() -> io::Result<Self> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "change notification is only implemented on Linux",
            ))
        }

        /// Never reached (there is no watch to add to).
        ///
        /// # Errors
        ///
        /// Never.
        pub fn add(&mut self, _key: K, _dir: &std::path::Path) -> io::Result<()> {
            Ok(())
        }

        /// Everything, always.
        ///
        /// # Errors
        ///
        /// Never.
        pub fn changed(&mut self) -> io::Result<crate::Changes<K>> {
            Ok(crate::Changes::All)
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::ffi::OsStr;
    use std::fs;

    use super::{Target, Watch};
    use crate::test_support::{tmp, write};
    use crate::{Changes, DirWatch};

    /// What was added since the last pass may have changed unseen, so the next refresh must
    /// run the pass: a watch on a new descriptor, or one that now counts more events. A
    /// descriptor the watch already had was watching all along.
    #[test]
    fn new_or_widened_watches_make_the_next_refresh_run_the_pass() {
        let t = tempfile::tempdir().unwrap();
        let (top, a) = (t.path(), t.path().join("a"));
        fs::create_dir(&a).unwrap();
        let only = |name: &'static str| Target {
            path: top,
            only: Some(OsStr::new(name)),
        };
        let mut watch = Watch::new().unwrap();
        assert!(watch.changed().unwrap(), "nothing was watched before");
        assert!(!watch.changed().unwrap());

        watch.add([Target::all(&a)]).unwrap();
        assert!(watch.changed().unwrap(), "a new watch");
        watch.add([Target::all(&a)]).unwrap();
        assert!(!watch.changed().unwrap(), "the same watch again");

        watch.add([only("x")]).unwrap();
        assert!(watch.changed().unwrap(), "a new watch for one name");
        watch.add([only("x")]).unwrap();
        assert!(!watch.changed().unwrap());
        watch.add([only("y")]).unwrap();
        assert!(watch.changed().unwrap(), "one more name counts");
        watch.add([Target::all(top)]).unwrap();
        assert!(watch.changed().unwrap(), "every event counts now");
        watch.add([only("x")]).unwrap();
        assert!(!watch.changed().unwrap(), "already counted");

        // A directory removed and made again at the same path is another directory.
        fs::remove_dir(&a).unwrap();
        fs::create_dir(&a).unwrap();
        assert!(watch.changed().unwrap(), "the events of the change");
        watch.add([Target::all(&a)]).unwrap();
        assert!(watch.changed().unwrap(), "a watch on the new directory");
        assert!(!watch.changed().unwrap());
    }

    #[test]
    fn a_dir_watch_reports_every_key_of_a_shared_directory() {
        let t = tmp();
        let (shared, own) = (t.path().join("shared"), t.path().join("own"));
        fs::create_dir_all(&shared).unwrap();
        fs::create_dir_all(&own).unwrap();
        let mut watch = DirWatch::new().unwrap();
        watch.add("a", &shared).unwrap();
        watch.add("b", &shared).unwrap();
        watch.add("b", &shared).unwrap();
        watch.add("c", &own).unwrap();
        let keys = |watch: &mut DirWatch<&'static str>| match watch.changed().unwrap() {
            Changes::Keys(keys) => {
                let mut keys: Vec<_> = keys.into_iter().collect();
                keys.sort_unstable();
                keys
            }
            Changes::All => panic!("the queue did not overflow"),
        };
        assert!(keys(&mut watch).is_empty());

        write(&shared.join("notes.md"), "new");
        assert_eq!(keys(&mut watch), ["a", "b"]);
        write(&own.join("notes.md"), "new");
        assert_eq!(keys(&mut watch), ["c"]);

        // A directory removed and made again is another directory: its watch is gone, with
        // every key it had, and the new one reports nothing until it is added.
        fs::remove_dir_all(&shared).unwrap();
        assert_eq!(keys(&mut watch), ["a", "b"]);
        fs::create_dir_all(&shared).unwrap();
        write(&shared.join("notes.md"), "again");
        assert!(keys(&mut watch).is_empty());
        watch.add("b", &shared).unwrap();
        write(&shared.join("notes.md"), "and again");
        assert_eq!(keys(&mut watch), ["b"]);
    }
}
