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

/// A skill's files lie at most this many directories below the skill directory: deeper is
/// not listed (a file in it is unreadable to lint, refused by `package`) and is refused in
/// an archive. Real skills nest a few levels; a walk of an unbounded depth ran in time
/// cubic in it and out of stack (a 1 KB archive of 400 nested directories).
pub const MAX_FILE_DEPTH: usize = 32;

/// At most this many bytes in one skill's files together (lint's `skill-too-large`, what
/// MCP hashes and serves).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// Whether a file name is `SKILL.md` in any letter case (the spec's name; lint reports
/// other cases, discovery accepts them as the agents do).
pub fn is_skill_md(name: &OsStr) -> bool {
    name.eq_ignore_ascii_case(SKILL_MD)
}

/// The skills folders of a project (in each directory from the current one up to the
/// repository root) and of a user (in the home directory), highest priority first: the
/// default roots of discovery.
pub const SKILL_DIRS: [&str; 3] = [".agents/skills", ".agent/skills", ".claude/skills"];

/// The skills folder a repository brings for one run (seed 004's repository-provided
/// skills: `skills show --repo`, `skills doctor --repo`).
pub const REPO_SKILL_DIR: &str = ".claude-ops/skills";

/// Flat `NAME.md` files in a root that are documentation, not skills (compared ignoring
/// case).
pub const NOT_FLAT_SKILLS: [&str; 5] = [
    "README.md",
    "AGENTS.md",
    "CLAUDE.md",
    "LICENSE.md",
    "CHANGELOG.md",
];

/// Whether `name` can be a flat skill file (seed 004's `NAME.md` directly in a root): a
/// UTF-8 name ending in `.md` (any case) that is neither `SKILL.md` nor one of
/// [`NOT_FLAT_SKILLS`]. Whether it is one also takes frontmatter.
pub fn is_flat_skill_name(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let is_md = name.len() > 3
        && name
            .get(name.len() - 3..)
            .is_some_and(|ext| ext.eq_ignore_ascii_case(".md"));
    is_md
        && !is_skill_md(name.as_ref())
        && !NOT_FLAT_SKILLS.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// Whether `dir` is a skills folder by its path: it ends with one of [`SKILL_DIRS`] or
/// [`REPO_SKILL_DIR`] (`~/.claude/skills`, `repo/.claude-ops/skills`). What lint takes for a
/// root, whose `NAME.md` files are flat skills, as discovery does.
pub fn is_skills_folder(dir: &std::path::Path) -> bool {
    SKILL_DIRS
        .iter()
        .chain(std::iter::once(&REPO_SKILL_DIR))
        .any(|folder| dir.ends_with(folder))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_skill_md(OsStr::new("SKILL.md")) && is_skill_md(OsStr::new("skill.MD")));
        assert!(!is_skill_md(OsStr::new("SKILL.md.bak")));
        assert!(is_skipped_dir(OsStr::new(".git")) && !is_skipped_dir(OsStr::new(".github")));
        for flat in ["deploy.md", "git-pr.MD", "x.md"] {
            assert!(is_flat_skill_name(OsStr::new(flat)), "{flat}");
        }
        for not in [
            "SKILL.md",
            "skill.md",
            "readme.md",
            "notes.txt",
            ".md",
            "md",
        ] {
            assert!(!is_flat_skill_name(OsStr::new(not)), "{not}");
        }
        use std::path::Path;
        assert!(is_skills_folder(Path::new("/p/.claude/skills")));
        assert!(is_skills_folder(Path::new(".agents/skills")));
        assert!(is_skills_folder(Path::new("repo/.claude-ops/skills")));
        assert!(!is_skills_folder(Path::new("/p/skills")));
        assert!(!is_skills_folder(Path::new("/p/.claude/skills/x")));
    }
}
