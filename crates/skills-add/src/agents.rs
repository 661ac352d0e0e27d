//! The coding agents and where each reads skills: the one table `skills add` links by.

use std::path::{Path, PathBuf};

/// The folder every agent that follows the cross-client convention reads, in a project
/// (`.agents/skills`) and under the home directory (`~/.agents/skills`): where the canonical
/// copy of an installed skill lives.
pub const UNIVERSAL_DIR: &str = ".agents/skills";

/// A coding agent and the skills folders it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Agent {
    /// What `--agent` takes (`claude-code`).
    pub id: &'static str,
    /// The product's name (`Claude Code`).
    pub name: &'static str,
    /// The skills folder it reads in a project, relative to the project root.
    pub project_dir: &'static str,
    /// The skills folder it reads for the user, relative to the home directory.
    pub global_dir: &'static str,
    /// The folder, relative to the project root, whose presence says the project uses the
    /// agent (`.claude`); `None` for agents that read the universal folder only.
    pub project_marker: Option<&'static str>,
    /// The folder, relative to the home directory, whose presence says the user has the
    /// agent (`.claude`).
    pub global_marker: Option<&'static str>,
}

impl Agent {
    /// The folder this agent reads in `scope`, under `base` (the project root or the home
    /// directory).
    #[must_use]
    pub fn dir(&self, scope: Scope, base: &Path) -> PathBuf {
        base.join(match scope {
            Scope::Project => self.project_dir,
            Scope::Global => self.global_dir,
        })
    }

    /// Whether the agent reads the canonical copy itself in `scope` (no link needed).
    #[must_use]
    pub fn reads_universal(&self, scope: Scope) -> bool {
        match scope {
            Scope::Project => self.project_dir == UNIVERSAL_DIR,
            Scope::Global => self.global_dir == UNIVERSAL_DIR,
        }
    }

    /// Whether the agent's marker folder exists under `base` in `scope`.
    #[must_use]
    pub fn detected(&self, scope: Scope, base: &Path) -> bool {
        let marker = match scope {
            Scope::Project => self.project_marker,
            Scope::Global => self.global_marker,
        };
        marker.is_some_and(|m| base.join(m).is_dir())
    }
}

/// Where skills are installed: for one project, or for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The project's folders (`.agents/skills`, `.claude/skills`, ...).
    Project,
    /// The user's folders under the home directory (`--global`).
    Global,
}

/// Every agent `skills add` knows, by id. Where an agent reads `.agents/skills` itself (its
/// documentation says so), that is its folder, and it needs no link. Sources: each agent's
/// documentation where it has one, else the folders the npm `skills` tool installs to (see
/// `docs/add.md`).
pub const AGENTS: &[Agent] = &[
    agent(
        "universal",
        "Any agent that reads .agents/skills",
        UNIVERSAL_DIR,
        UNIVERSAL_DIR,
        None,
        None,
    ),
    agent(
        "amp",
        "Amp",
        UNIVERSAL_DIR,
        ".config/agents/skills",
        None,
        Some(".config/amp"),
    ),
    agent(
        "claude-code",
        "Claude Code",
        ".claude/skills",
        ".claude/skills",
        Some(".claude"),
        Some(".claude"),
    ),
    agent("codex", "Codex", UNIVERSAL_DIR, UNIVERSAL_DIR, None, None),
    agent("cursor", "Cursor", UNIVERSAL_DIR, UNIVERSAL_DIR, None, None),
    agent(
        "gemini-cli",
        "Gemini CLI",
        UNIVERSAL_DIR,
        UNIVERSAL_DIR,
        None,
        None,
    ),
    agent(
        "github-copilot",
        "GitHub Copilot",
        UNIVERSAL_DIR,
        UNIVERSAL_DIR,
        None,
        None,
    ),
    agent(
        "goose",
        "Goose",
        ".goose/skills",
        ".config/goose/skills",
        Some(".goose"),
        Some(".config/goose"),
    ),
    agent(
        "kilo",
        "Kilo Code",
        UNIVERSAL_DIR,
        ".kilo/skills",
        None,
        Some(".kilo"),
    ),
    agent(
        "opencode",
        "OpenCode",
        UNIVERSAL_DIR,
        UNIVERSAL_DIR,
        None,
        None,
    ),
    agent(
        "roo",
        "Roo Code",
        ".roo/skills",
        ".roo/skills",
        Some(".roo"),
        Some(".roo"),
    ),
    agent(
        "windsurf",
        "Windsurf",
        ".windsurf/skills",
        ".codeium/windsurf/skills",
        Some(".windsurf"),
        Some(".codeium/windsurf"),
    ),
];

const fn agent(
    id: &'static str,
    name: &'static str,
    project_dir: &'static str,
    global_dir: &'static str,
    project_marker: Option<&'static str>,
    global_marker: Option<&'static str>,
) -> Agent {
    Agent {
        id,
        name,
        project_dir,
        global_dir,
        project_marker,
        global_marker,
    }
}

/// The agent with this id, any letter case.
#[must_use]
pub fn by_id(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|a| a.id.eq_ignore_ascii_case(id))
}

/// The agents found under `base` in `scope` that need a link (their marker folder exists and
/// they do not read the canonical folder).
#[must_use]
pub fn detected(scope: Scope, base: &Path) -> Vec<&'static Agent> {
    AGENTS
        .iter()
        .filter(|a| !a.reads_universal(scope) && a.detected(scope, base))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sound() {
        let mut ids: Vec<&str> = AGENTS.iter().map(|a| a.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), AGENTS.len(), "ids are unique");
        for a in AGENTS {
            assert!(
                a.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                a.id
            );
            for dir in [a.project_dir, a.global_dir] {
                assert!(!dir.starts_with('/') && !dir.contains(".."), "{dir}");
                assert!(dir.ends_with("skills"), "{dir}");
            }
            // An agent that needs a link can be detected.
            if !a.reads_universal(Scope::Project) {
                assert!(a.project_marker.is_some(), "{}", a.id);
            }
            if !a.reads_universal(Scope::Global) {
                assert!(a.global_marker.is_some(), "{}", a.id);
            }
        }
        assert_eq!(by_id("Claude-Code").map(|a| a.name), Some("Claude Code"));
        assert!(by_id("nope").is_none());
    }

    #[test]
    fn detection_needs_the_marker_folder() {
        let t = tempfile::tempdir().unwrap();
        assert!(detected(Scope::Project, t.path()).is_empty());
        std::fs::create_dir(t.path().join(".claude")).unwrap();
        std::fs::create_dir(t.path().join(".windsurf")).unwrap();
        let ids: Vec<&str> = detected(Scope::Project, t.path())
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, ["claude-code", "windsurf"]);
    }
}
