//! Writing so that a crash, a kill or a full disk never loses the previous state: temporary
//! names that say which process made them (so a later run can clear what a killed one left),
//! `fsync` before a rename, and the directory synced after it.

use std::fs;
use std::io;
use std::path::Path;

/// The prefix of a temporary name for `base` made by this process: `{base}{pid}-`. A run
/// killed with `SIGKILL` cannot remove its temporary files; [`remove_stale`] recognises them
/// by this prefix and the dead process id.
pub fn temp_prefix(base: &str) -> String {
    format!("{base}{}-", std::process::id())
}

/// Removes the entries of `dir` named `{base}{pid}-...` whose process no longer runs (left by
/// a run that was killed), and returns how many it removed. Entries of live processes (a
/// concurrent run) are kept. Only Linux can tell (through `/proc`); elsewhere nothing is
/// removed.
///
/// # Errors
///
/// An I/O error when `dir` cannot be listed; entries that cannot be removed are left alone.
pub fn remove_stale(dir: &Path, base: &str) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(base))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || !process_is_gone(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(e) => Err(e),
        };
        if gone.is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(target_os = "linux")]
fn process_is_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn process_is_gone(_pid: u32) -> bool {
    false
}

/// Flushes the data and metadata of every file and directory under `root` (and `root`) to
/// disk, so a rename that publishes the tree cannot be seen before its contents after a
/// power loss.
///
/// # Errors
///
/// The first I/O error.
pub fn sync_tree(root: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(root)?;
    if meta.is_dir() {
        for entry in fs::read_dir(root)? {
            sync_tree(&entry?.path())?;
        }
        sync_dir(root)
    } else if meta.is_file() {
        fs::File::open(root)?.sync_all()
    } else {
        Ok(())
    }
}

/// Flushes a directory's entries (a rename into it) to disk. A no-op where directories
/// cannot be opened (Windows).
///
/// # Errors
///
/// The I/O error of `fsync`.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Swaps two paths atomically (`renameat2(RENAME_EXCHANGE)`): after it `a` holds what `b`
/// held and the reverse, and no moment exists where either is missing. `Ok(false)` when the
/// system or file system cannot do it (the caller then falls back to two renames).
///
/// # Errors
///
/// Other I/O errors of the exchange.
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(e)
                if e == rustix::io::Errno::INVAL
                    || e == rustix::io::Errno::NOSYS
                    || e == rustix::io::Errno::NOTSUP =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_entries_of_dead_processes_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let dead = t.path().join(".skills-install-999999999-abc");
        fs::create_dir_all(dead.join("x")).unwrap();
        fs::write(dead.join("x/SKILL.md"), "old").unwrap();
        fs::write(t.path().join(".skills-install-999999998-f.tmp"), "x").unwrap();
        let mine = t.path().join(temp_prefix(".skills-install-") + "live");
        fs::create_dir(&mine).unwrap();
        let other = t.path().join(".skills-install-notapid-x");
        fs::create_dir(&other).unwrap();
        let removed = remove_stale(t.path(), ".skills-install-").unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(removed, 2);
            assert!(!dead.exists());
        } else {
            assert_eq!(removed, 0);
        }
        assert!(mine.exists() && other.exists());
    }

    #[test]
    fn exchange_swaps_or_says_it_cannot() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::write(a.join("f"), "new").unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(b.join("f"), "old").unwrap();
        if exchange(&a, &b).unwrap() {
            assert_eq!(fs::read_to_string(b.join("f")).unwrap(), "new");
            assert_eq!(fs::read_to_string(a.join("f")).unwrap(), "old");
        }
        sync_tree(t.path()).unwrap();
    }
}
