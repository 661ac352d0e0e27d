//! The names and limits of a skill directory that every crate agrees on.

use std::ffi::OsStr;

/// The file that makes a directory a skill.
pub const SKILL_MD: &str = "SKILL.md";

/// A skill's tool definitions (a JSON array of MCP tools; seed 002's context package).
pub const TOOLS_FILE: &str = "tools.json";

/// A skill's resource definitions (a JSON array of MCP resources).
pub const RESOURCES_FILE: &str = "resources.json";

/// Directories no walker enters: version control and installed packages are never part of
/// a skill, and they can hold more files than everything else together.
pub const SKIP_DIRS: [&str; 2] = [".git", "node_modules"];

/// Whether a directory name is one of [`SKIP_DIRS`].
pub fn is_skipped_dir(name: &OsStr) -> bool {
    SKIP_DIRS.iter().any(|d| name == *d)
}

/// At most this many files are listed in one skill (lint's `too-many-files`, what MCP
/// serves): a real skill has a few dozen.
pub const MAX_SKILL_FILES: usize = 512;

/// At most this many bytes in one skill's files together (lint's `skill-too-large`, what
/// MCP hashes and serves).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// Whether a file name is `SKILL.md` in any letter case (the spec's name; lint reports
/// other cases, discovery accepts them as the agents do).
pub fn is_skill_md(name: &OsStr) -> bool {
    name.eq_ignore_ascii_case(SKILL_MD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_skill_md(OsStr::new("SKILL.md")) && is_skill_md(OsStr::new("skill.MD")));
        assert!(!is_skill_md(OsStr::new("SKILL.md.bak")));
        assert!(is_skipped_dir(OsStr::new(".git")) && !is_skipped_dir(OsStr::new(".github")));
    }
}
