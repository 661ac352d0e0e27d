//! The `.gitignore` and `.ignore` files inside a root, read the same way by the walk and by
//! [`crate::Roots::find`], so that the fast lookup never finds what a scan would ignore.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use skills_core::Stamp;

/// Ignore files read in one directory, with their stamps (`None`: could not be stat'ed).
pub(crate) type IgnoreFiles = Vec<(PathBuf, Option<Stamp>)>;

/// Reads `.gitignore` and then `.ignore` in `dir` (the latter wins, as in ripgrep) when the
/// directory listing has them.
pub(crate) fn read_ignore_files(
    dir: &Path,
    names: &[OsString],
) -> (Option<Arc<Gitignore>>, IgnoreFiles) {
    let mut files = Vec::new();
    let mut builder = GitignoreBuilder::new(dir);
    for name in [".gitignore", ".ignore"] {
        if names.iter().any(|n| n == name) {
            let path = dir.join(name);
            let stamp = Stamp::read(&path);
            // A partly invalid file still contributes its valid lines, as in git.
            let _partial = builder.add(&path);
            files.push((path, stamp));
        }
    }
    if files.is_empty() {
        return (None, files);
    }
    let ignore = builder.build().ok().filter(|g| !g.is_empty()).map(Arc::new);
    (ignore, files)
}

/// Whether the innermost rule that matches `path` ignores it.
pub(crate) fn is_ignored(stack: &[Arc<Gitignore>], path: &Path, is_dir: bool) -> bool {
    for ignore in stack.iter().rev() {
        match ignore.matched(path, is_dir) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}
