//! Swapping two directories in one step, for `install --force`.

use std::io;
use std::path::Path;

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
    fn exchange_swaps_or_says_it_cannot() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::write(a.join("f"), "new").unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("f"), "old").unwrap();
        if exchange(&a, &b).unwrap() {
            assert_eq!(std::fs::read_to_string(b.join("f")).unwrap(), "new");
            assert_eq!(std::fs::read_to_string(a.join("f")).unwrap(), "old");
        }
        skills_core::durable::sync_tree(t.path()).unwrap();
    }
}
