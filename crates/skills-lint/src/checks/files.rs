//! What `skills package` and `skills install` refuse among a skill's files, besides links
//! out of it (`links.rs`): `file-unreadable` for a file or directory that cannot be read,
//! `file-not-packageable` for a name that is not UTF-8, a broken symlink, a symlink loop or
//! cycle, and an ignore file with an invalid pattern. One finding per problem of the
//! skill's listing (`skills_core::files`), so a skill that lints clean packages.

use std::path::Path;

use skills_core::files::Problem;

use crate::diagnostic::Diagnostic;
use crate::linter::Linter;
use crate::rules::RuleId;
use crate::walk;

/// The refusal every message ends with.
const REFUSED: &str = "`skills package` and `skills install` refuse the skill while it is there";

/// One finding for each problem of `skill`'s listing.
pub(crate) fn check_listing(linter: &Linter, skill: &walk::SkillDir, out: &mut Vec<Diagnostic>) {
    if skill.problems.is_empty() {
        return;
    }
    // Some problems name the file by its real path: shown under the skill's path, as given.
    let real = std::fs::canonicalize(&skill.dir).unwrap_or_else(|_| skill.dir.clone());
    for problem in &skill.problems {
        let (rule, path, message, help) = describe(&skill.dir, &real, problem);
        out.extend(linter.diagnostic(rule, message, Some(help), path, None, None));
    }
}

/// The rule, path, message and help of one problem of the skill at `dir` (`real` once
/// resolved).
fn describe(
    dir: &Path,
    real: &Path,
    problem: &Problem,
) -> (RuleId, std::path::PathBuf, String, String) {
    // A real path as the skill's relative one, when it is inside it.
    let inside = |path: &Path| match path.strip_prefix(real) {
        Ok(rel) => (dir.join(rel), rel.to_string_lossy().into_owned()),
        Err(_) => (path.to_path_buf(), path.to_string_lossy().into_owned()),
    };
    match problem {
        Problem::Unreadable { path, error } => (
            RuleId::FileUnreadable,
            dir.join(path),
            format!("`{path}` cannot be read ({error}); {REFUSED}"),
            "make it readable (`chmod a+r` a file, `chmod a+rx` a directory), or leave it out with a `.skillignore`".to_string(),
        ),
        Problem::NonUtf8Name { path } => {
            let (path, rel) = inside(path);
            (
                RuleId::FileNotPackageable,
                path,
                format!(
                    "`{rel}`: the file name is not UTF-8 (shown with U+FFFD where it is not); {REFUSED}"
                ),
                "rename it with UTF-8 characters: a ZIP entry, a `skill://` URI and most agents need a name that is text".to_string(),
            )
        }
        Problem::BrokenSymlink { link } => (
            RuleId::FileNotPackageable,
            dir.join(link),
            format!("`{link}` is a symlink to nothing (its target does not exist); {REFUSED}"),
            "remove the link, or put what it points to inside the skill".to_string(),
        ),
        Problem::SymlinkLoop { link } => (
            RuleId::FileNotPackageable,
            dir.join(link),
            format!("`{link}` is a symlink to a directory that contains it; {REFUSED}"),
            "remove the link: the skill would hold itself".to_string(),
        ),
        Problem::SymlinkCycle { link } => (
            RuleId::FileNotPackageable,
            dir.join(link),
            format!(
                "`{link}` is one of symlinks that lead to each other and never to a file or directory; {REFUSED}"
            ),
            "remove the links, or point one at a file of the skill".to_string(),
        ),
        Problem::InvalidIgnoreFile { path, message } => {
            let (path, rel) = inside(path);
            (
                RuleId::FileNotPackageable,
                path,
                format!("`{rel}` has an invalid pattern: {message}; {REFUSED}"),
                "fix the pattern (gitignore syntax: https://git-scm.com/docs/gitignore)".to_string(),
            )
        }
        // A link out of the skill is `link-outside-skill` (`links.rs`); a problem added to
        // the listing later is still a refusal.
        _ => (
            RuleId::FileNotPackageable,
            dir.to_path_buf(),
            format!("a file of the skill cannot be packaged; {REFUSED}"),
            "run `skills package --list` on the skill to see which, and why".to_string(),
        ),
    }
}
