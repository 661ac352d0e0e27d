//! The coding agents and where each reads skills: the one table `skills add` links by.
//!
//! [`AGENTS`] covers every agent the npm `skills` tool (1.7.4) installs into, under the same
//! `--agent` ids, so a project or a habit moves between the two tools unchanged.
//! `docs/add.md` shows the table; a test of this crate (`tests/agents_doc.rs`) writes that
//! section from it and fails when the page differs.

use std::ffi::OsString;
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
    /// The skills folder it reads for the user, relative to the home directory; `None` for
    /// an agent that reads skills in a project only.
    pub global_dir: Option<&'static str>,
    /// The folder, relative to the home directory, whose presence says the user has the
    /// agent (`.claude`); `None` where no link is needed, or where nothing under the home
    /// directory says so (such an agent is linked when `--agent` names it).
    pub global_marker: Option<&'static str>,
    /// The environment variable that moves the agent's folder under the home directory
    /// (`CLAUDE_CONFIG_DIR` for `~/.claude`).
    pub home_var: Option<HomeVar>,
}

/// An environment variable that, set to an absolute path, stands for a folder under the
/// home directory in an agent's global folder and marker: `CLAUDE_CONFIG_DIR` for `.claude`,
/// `XDG_CONFIG_HOME` for `.config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HomeVar {
    /// The variable (`CLAUDE_CONFIG_DIR`).
    pub name: &'static str,
    /// The folder under the home directory it replaces (`.claude`).
    pub replaces: &'static str,
}

impl Agent {
    /// The folder this agent reads in `scope`, under `base` (the project root or the home
    /// directory), with the agent's [`HomeVar`] read from the environment; `None` for the
    /// global folder of an agent that has none.
    #[must_use]
    pub fn dir(&self, scope: Scope, base: &Path) -> Option<PathBuf> {
        self.dir_with(scope, base, |name| std::env::var_os(name))
    }

    /// [`Agent::dir`] with the environment given as a lookup (tests, or a caller that
    /// resolves variables its own way).
    #[must_use]
    pub fn dir_with(
        &self,
        scope: Scope,
        base: &Path,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Option<PathBuf> {
        match scope {
            Scope::Project => Some(base.join(self.project_dir)),
            Scope::Global => self.global_dir.map(|dir| self.under_home(dir, base, &env)),
        }
    }

    /// Whether the agent reads the canonical copy itself in `scope` (no link needed).
    #[must_use]
    pub fn reads_universal(&self, scope: Scope) -> bool {
        match scope {
            Scope::Project => self.project_dir == UNIVERSAL_DIR,
            Scope::Global => self.global_dir == Some(UNIVERSAL_DIR),
        }
    }

    /// The folder, relative to the project root, whose presence says the project uses the
    /// agent: the dot-folder its project skills folder is in (`.claude` for
    /// `.claude/skills`). `None` when that folder is the universal one, or not a dot-folder
    /// (`skills`, `data/skills`: too common to say which agent a project uses).
    #[must_use]
    pub fn project_marker(&self) -> Option<&'static str> {
        if self.project_dir == UNIVERSAL_DIR {
            return None;
        }
        let first = self.project_dir.split('/').next()?;
        first.starts_with('.').then_some(first)
    }

    /// Whether the agent's marker folder exists under `base` in `scope`.
    #[must_use]
    pub fn detected(&self, scope: Scope, base: &Path) -> bool {
        self.detected_with(scope, base, |name| std::env::var_os(name))
    }

    /// [`Agent::detected`] with the environment given as a lookup.
    #[must_use]
    pub fn detected_with(
        &self,
        scope: Scope,
        base: &Path,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> bool {
        let marker = match scope {
            Scope::Project => self.project_marker().map(|m| base.join(m)),
            Scope::Global => self.global_marker.map(|m| self.under_home(m, base, &env)),
        };
        marker.is_some_and(|m| m.is_dir())
    }

    /// `rel` under `home`, or under the agent's variable where it is set to an absolute path
    /// and `rel` is in the folder it replaces (a relative value is ignored, as the XDG rules
    /// say: it would depend on the current directory).
    fn under_home(
        &self,
        rel: &str,
        home: &Path,
        env: &impl Fn(&str) -> Option<OsString>,
    ) -> PathBuf {
        if let Some(var) = self.home_var
            && let Some(rest) = strip_dir(rel, var.replaces)
            && let Some(value) = env(var.name).map(PathBuf::from).filter(|p| p.is_absolute())
        {
            return if rest.is_empty() {
                value
            } else {
                value.join(rest)
            };
        }
        home.join(rel)
    }
}

/// `path` without the leading folder `dir` (whole components only): `.claude/skills` less
/// `.claude` is `skills`, `.claude` less `.claude` is empty, `.claudex` less `.claude` is
/// nothing.
fn strip_dir<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(dir)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix('/')
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

/// A row of the table; the [`HomeVar`] is added by [`Agent::var`].
const fn agent(
    id: &'static str,
    name: &'static str,
    project_dir: &'static str,
    global_dir: Option<&'static str>,
    global_marker: Option<&'static str>,
) -> Agent {
    Agent {
        id,
        name,
        project_dir,
        global_dir,
        global_marker,
        home_var: None,
    }
}

impl Agent {
    const fn var(mut self, name: &'static str, replaces: &'static str) -> Self {
        self.home_var = Some(HomeVar { name, replaces });
        self
    }
}

/// The universal folder, shorter for the table.
const U: &str = UNIVERSAL_DIR;
/// The XDG configuration folder, which `XDG_CONFIG_HOME` moves.
const XDG: &str = "XDG_CONFIG_HOME";

/// Every agent `skills add` knows: `universal` first, then by id.
///
/// The facts come from the npm `skills` tool's own table (1.7.4): the ids, names and
/// folders, the folder under the home directory that says an agent is there, and the
/// variables that move it. Where an agent's documentation says it reads `.agents/skills`
/// (and `~/.agents/skills`) itself, that is its folder here and it needs no link: Codex,
/// Cursor, Gemini CLI, GitHub Copilot and OpenCode (npm `skills` names their own global
/// folders, but never links into them either). Detection in a project is the dot-folder
/// of the agent's project folder ([`Agent::project_marker`]), which is what npm `skills`
/// requires too before it links there.
#[rustfmt::skip]
pub const AGENTS: &[Agent] = &[
    //    --agent            name                                   project folder             global folder, under ~                 detected by, under ~
    agent("universal",       "Any agent that reads .agents/skills", U,                         Some(U),                               None),
    agent("adal",            "AdaL",                                ".adal/skills",            Some(".adal/skills"),                  Some(".adal")),
    agent("aider-desk",      "AiderDesk",                           ".aider-desk/skills",      Some(".aider-desk/skills"),            Some(".aider-desk")),
    agent("amp",             "Amp",                                 U,                         Some(".config/agents/skills"),         Some(".config/amp")).var(XDG, ".config"),
    agent("antigravity",     "Antigravity",                         U,                         Some(".gemini/antigravity/skills"),    Some(".gemini/antigravity")),
    agent("antigravity-cli", "Antigravity CLI",                     U,                         Some(".gemini/antigravity-cli/skills"), Some(".gemini/antigravity-cli")),
    agent("astrbot",         "AstrBot",                             "data/skills",             Some(".astrbot/data/skills"),          Some(".astrbot")),
    agent("augment",         "Augment",                             ".augment/skills",         Some(".augment/skills"),               Some(".augment")),
    agent("autohand-code",   "Autohand Code CLI",                   ".autohand/skills",        Some(".autohand/skills"),              Some(".autohand")).var("AUTOHAND_HOME", ".autohand"),
    agent("bob",             "IBM Bob",                             ".bob/skills",             Some(".bob/skills"),                   Some(".bob")),
    agent("claude-code",     "Claude Code",                         ".claude/skills",          Some(".claude/skills"),                Some(".claude")).var("CLAUDE_CONFIG_DIR", ".claude"),
    agent("cline",           "Cline",                               U,                         Some(U),                               None),
    agent("codearts-agent",  "CodeArts Agent",                      ".codeartsdoer/skills",    Some(".codeartsdoer/skills"),          Some(".codeartsdoer")),
    agent("codebuddy",       "CodeBuddy",                           ".codebuddy/skills",       Some(".codebuddy/skills"),             Some(".codebuddy")),
    agent("codemaker",       "Codemaker",                           ".codemaker/skills",       Some(".codemaker/skills"),             Some(".codemaker")),
    agent("codestudio",      "Code Studio",                         ".codestudio/skills",      Some(".codestudio/skills"),            Some(".codestudio")),
    agent("codex",           "Codex",                               U,                         Some(U),                               None),
    agent("command-code",    "Command Code",                        ".commandcode/skills",     Some(".commandcode/skills"),           Some(".commandcode")),
    agent("continue",        "Continue",                            ".continue/skills",        Some(".continue/skills"),              Some(".continue")),
    agent("cortex",          "Cortex Code",                         ".cortex/skills",          Some(".snowflake/cortex/skills"),      Some(".snowflake/cortex")),
    agent("crush",           "Crush",                               ".crush/skills",           Some(".config/crush/skills"),          Some(".config/crush")),
    agent("cursor",          "Cursor",                              U,                         Some(U),                               None),
    agent("deepagents",      "Deep Agents",                         U,                         Some(".deepagents/agent/skills"),      Some(".deepagents")),
    agent("devin",           "Devin for Terminal",                  ".devin/skills",           Some(".config/devin/skills"),          Some(".config/devin")).var(XDG, ".config"),
    agent("dexto",           "Dexto",                               U,                         Some(U),                               None),
    agent("droid",           "Droid",                               U,                         Some(".factory/skills"),               Some(".factory")),
    agent("eve",             "Eve",                                 "agent/skills",            None,                                  None),
    agent("firebender",      "Firebender",                          U,                         Some(".firebender/skills"),            Some(".firebender")),
    agent("forgecode",       "ForgeCode",                           ".forge/skills",           Some(".forge/skills"),                 Some(".forge")),
    agent("fx",              "fx",                                  U,                         Some(U),                               None),
    agent("gemini-cli",      "Gemini CLI",                          U,                         Some(U),                               None),
    agent("github-copilot",  "GitHub Copilot",                      U,                         Some(U),                               None),
    agent("goose",           "Goose",                               ".goose/skills",           Some(".config/goose/skills"),          Some(".config/goose")).var(XDG, ".config"),
    agent("grok",            "Grok Build",                          ".grok/skills",            Some(".grok/skills"),                  Some(".grok")).var("GROK_HOME", ".grok"),
    agent("hermes-agent",    "Hermes Agent",                        ".hermes/skills",          Some(".hermes/skills"),                Some(".hermes")).var("HERMES_HOME", ".hermes"),
    agent("iflow-cli",       "iFlow CLI",                           ".iflow/skills",           Some(".iflow/skills"),                 Some(".iflow")),
    agent("inference-sh",    "inference.sh",                        ".inferencesh/skills",     Some(".inferencesh/skills"),           Some(".inferencesh")),
    agent("jazz",            "Jazz",                                ".jazz/skills",            Some(".jazz/skills"),                  Some(".jazz")),
    agent("junie",           "Junie",                               ".junie/skills",           Some(".junie/skills"),                 Some(".junie")),
    agent("kilo",            "Kilo Code",                           U,                         Some(".kilo/skills"),                  Some(".kilo")),
    agent("kimchi",          "Kimchi",                              ".kimchi/skills",          Some(".config/kimchi/harness/skills"), Some(".config/kimchi")),
    agent("kimi-code-cli",   "Kimi Code CLI",                       U,                         Some(U),                               None),
    agent("kiro-cli",        "Kiro CLI",                            ".kiro/skills",            Some(".kiro/skills"),                  Some(".kiro")),
    agent("kode",            "Kode",                                ".kode/skills",            Some(".kode/skills"),                  Some(".kode")),
    agent("lingma",          "Lingma",                              ".lingma/skills",          Some(".lingma/skills"),                Some(".lingma")),
    agent("loaf",            "Loaf",                                U,                         Some(U),                               None),
    agent("mcpjam",          "MCPJam",                              ".mcpjam/skills",          Some(".mcpjam/skills"),                Some(".mcpjam")),
    agent("minimax-code",    "MiniMax Code",                        ".minimax/skills",         Some(".minimax/skills"),               Some(".minimax")),
    agent("mistral-vibe",    "Mistral Vibe",                        ".vibe/skills",            Some(".vibe/skills"),                  Some(".vibe")).var("VIBE_HOME", ".vibe"),
    agent("moxby",           "Moxby",                               ".moxby/skills",           Some(".moxby/skills"),                 Some(".moxby")),
    agent("mux",             "Mux",                                 ".mux/skills",             Some(".mux/skills"),                   Some(".mux")),
    agent("neovate",         "Neovate",                             ".neovate/skills",         Some(".neovate/skills"),               Some(".neovate")),
    agent("ona",             "Ona",                                 ".ona/skills",             Some(".ona/skills"),                   Some(".ona")),
    agent("openclaw",        "OpenClaw",                            "skills",                  Some(".openclaw/skills"),              Some(".openclaw")),
    agent("opencode",        "OpenCode",                            U,                         Some(U),                               None),
    agent("openhands",       "OpenHands",                           ".openhands/skills",       Some(".openhands/skills"),             Some(".openhands")),
    agent("pi",              "Pi",                                  U,                         Some(U),                               None),
    agent("pochi",           "Pochi",                               ".pochi/skills",           Some(".pochi/skills"),                 Some(".pochi")),
    agent("posit-assistant", "Posit Assistant",                     ".posit/assistant/skills", Some(".posit/assistant/skills"),       Some(".posit/assistant")),
    agent("promptscript",    "PromptScript",                        U,                         None,                                  None),
    agent("qoder",           "Qoder",                               ".qoder/skills",           Some(".qoder/skills"),                 Some(".qoder")),
    agent("qoder-cn",        "Qoder CN",                            ".qoder/skills",           Some(".qoder-cn/skills"),              Some(".qoder-cn")),
    agent("qwen-code",       "Qwen Code",                           ".qwen/skills",            Some(".qwen/skills"),                  Some(".qwen")),
    agent("reasonix",        "Reasonix",                            ".reasonix/skills",        Some(".reasonix/skills"),              Some(".reasonix")),
    agent("replit",          "Replit",                              U,                         Some(".config/agents/skills"),         None).var(XDG, ".config"),
    agent("roo",             "Roo Code",                            ".roo/skills",             Some(".roo/skills"),                   Some(".roo")),
    agent("rovodev",         "Rovo Dev",                            ".rovodev/skills",         Some(".rovodev/skills"),               Some(".rovodev")),
    agent("sarvam-code",     "Sarvam Code",                         U,                         Some(U),                               None),
    agent("tabnine-cli",     "Tabnine CLI",                         ".tabnine/agent/skills",   Some(".tabnine/agent/skills"),         Some(".tabnine")),
    agent("terramind",       "Terramind",                           ".terramind/skills",       Some(".terramind/skills"),             Some(".terramind")),
    agent("tinycloud",       "Tinycloud",                           ".tinycloud/skills",       Some(".tinycloud/skills"),             Some(".tinycloud")),
    agent("trae",            "Trae",                                ".trae/skills",            Some(".trae/skills"),                  Some(".trae")),
    agent("trae-cn",         "Trae CN",                             ".trae/skills",            Some(".trae-cn/skills"),               Some(".trae-cn")),
    agent("warp",            "Warp",                                U,                         Some(U),                               None),
    agent("windsurf",        "Windsurf",                            ".windsurf/skills",        Some(".codeium/windsurf/skills"),      Some(".codeium/windsurf")),
    agent("zcode",           "ZCode",                               ".zcode/skills",           Some(".zcode/skills"),                 Some(".zcode")),
    agent("zed",             "Zed",                                 U,                         Some(U),                               None),
    agent("zencoder",        "Zencoder",                            ".zencoder/skills",        Some(".zencoder/skills"),              Some(".zencoder")),
    agent("zenflow",         "Zenflow",                             ".zencoder/skills",        Some(".zencoder/skills"),              Some(".zencoder")),
];

/// The agents that need a link somewhere but are never detected: their folder says nothing
/// about which agent a project uses (`skills`, `data/skills`, `agent/skills`), or nothing
/// under the home directory marks them (Replit runs in its own workspaces). `--agent`
/// links them.
pub const NAMED_ONLY: &[&str] = &["astrbot", "eve", "openclaw", "replit"];

/// The agent with this id, any letter case.
#[must_use]
pub fn by_id(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|a| a.id.eq_ignore_ascii_case(id))
}

/// The agents found under `base` in `scope` that need a link: their marker folder exists
/// and they do not read the canonical folder. Agents that share a folder (`trae` and
/// `trae-cn` in a project) are one link: the first in the table stands for them.
#[must_use]
pub fn detected(scope: Scope, base: &Path) -> Vec<&'static Agent> {
    detected_with(scope, base, |name| std::env::var_os(name))
}

/// [`detected`] with the environment given as a lookup.
#[must_use]
pub fn detected_with(
    scope: Scope,
    base: &Path,
    env: impl Fn(&str) -> Option<OsString>,
) -> Vec<&'static Agent> {
    let mut out: Vec<&'static Agent> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for agent in AGENTS {
        if agent.reads_universal(scope) || !agent.detected_with(scope, base, &env) {
            continue;
        }
        let Some(dir) = agent.dir_with(scope, base, &env) else {
            continue;
        };
        if !dirs.contains(&dir) {
            dirs.push(dir);
            out.push(agent);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<OsString> {
        None
    }

    #[test]
    fn the_table_is_sound() {
        assert_eq!(AGENTS.first().map(|a| a.id), Some("universal"));
        let ids: Vec<&str> = AGENTS.iter().skip(1).map(|a| a.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "sorted by id, each once");
        for a in AGENTS {
            assert!(
                a.id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                a.id
            );
            for dir in std::iter::once(a.project_dir).chain(a.global_dir) {
                assert!(!dir.starts_with('/') && !dir.contains(".."), "{dir}");
                assert!(dir.ends_with("skills"), "{dir}");
            }
            // An agent that needs a link can be detected, or is listed as one that is not.
            let named_only = NAMED_ONLY.contains(&a.id);
            let project_link = !a.reads_universal(Scope::Project);
            let global_link = a.global_dir.is_some() && !a.reads_universal(Scope::Global);
            if (project_link && a.project_marker().is_none())
                || (global_link && a.global_marker.is_none())
            {
                assert!(named_only, "{} cannot be detected", a.id);
            }
            // A marker is there only to be used.
            if !global_link {
                assert!(a.global_marker.is_none(), "{}", a.id);
            }
            if let Some(var) = a.home_var {
                assert!(
                    a.global_dir
                        .into_iter()
                        .chain(a.global_marker)
                        .any(|p| strip_dir(p, var.replaces).is_some()),
                    "{}: {} moves nothing",
                    a.id,
                    var.name
                );
            }
        }
        for id in NAMED_ONLY {
            assert!(by_id(id).is_some(), "{id}");
        }
        assert_eq!(by_id("Claude-Code").map(|a| a.name), Some("Claude Code"));
        assert!(by_id("nope").is_none());
    }

    #[test]
    fn project_markers() {
        let marker = |id| by_id(id).and_then(Agent::project_marker);
        assert_eq!(marker("claude-code"), Some(".claude"));
        assert_eq!(marker("tabnine-cli"), Some(".tabnine"));
        assert_eq!(marker("codex"), None);
        assert_eq!(marker("openclaw"), None);
        assert_eq!(marker("astrbot"), None);
    }

    #[test]
    fn detection_needs_the_marker_folder_and_one_agent_a_folder() {
        let t = tempfile::tempdir().unwrap();
        assert!(detected_with(Scope::Project, t.path(), no_env).is_empty());
        for dir in [".claude", ".windsurf", ".trae", "skills"] {
            std::fs::create_dir(t.path().join(dir)).unwrap();
        }
        let ids: Vec<&str> = detected_with(Scope::Project, t.path(), no_env)
            .iter()
            .map(|a| a.id)
            .collect();
        // trae-cn reads .trae/skills too: one link there. A `skills` folder is no sign of
        // OpenClaw.
        assert_eq!(ids, ["claude-code", "trae", "windsurf"]);
        std::fs::create_dir_all(t.path().join(".config/goose")).unwrap();
        std::fs::create_dir_all(t.path().join(".cursor")).unwrap();
        let ids: Vec<&str> = detected_with(Scope::Global, t.path(), no_env)
            .iter()
            .map(|a| a.id)
            .collect();
        // The same folders as a home: `.claude` and `.trae` say so there too; Cursor reads
        // ~/.agents/skills itself and needs no link.
        assert_eq!(ids, ["claude-code", "goose", "trae"]);
    }

    #[test]
    fn variables_move_the_folders_under_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let elsewhere = t.path().join("claude-config");
        let xdg = t.path().join("xdg");
        let env = |name: &str| match name {
            "CLAUDE_CONFIG_DIR" => Some(elsewhere.clone().into_os_string()),
            "XDG_CONFIG_HOME" => Some(xdg.clone().into_os_string()),
            "GROK_HOME" => Some(OsString::from("relative/grok")),
            _ => None,
        };
        let dir = |id| by_id(id).and_then(|a| a.dir_with(Scope::Global, &home, env));
        assert_eq!(dir("claude-code"), Some(elsewhere.join("skills")));
        assert_eq!(dir("goose"), Some(xdg.join("goose/skills")));
        // A relative value is ignored; a folder the variable does not cover stays put.
        assert_eq!(dir("grok"), Some(home.join(".grok/skills")));
        assert_eq!(dir("crush"), Some(home.join(".config/crush/skills")));
        assert_eq!(dir("eve"), None);
        assert_eq!(
            by_id("eve").and_then(|a| a.dir_with(Scope::Project, &home, env)),
            Some(home.join("agent/skills"))
        );
        // Detection follows the variable: the config folder is where it points.
        std::fs::create_dir_all(&elsewhere).unwrap();
        let ids: Vec<&str> = detected_with(Scope::Global, &home, env)
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, ["claude-code"]);
        assert_eq!(strip_dir(".claudex/skills", ".claude"), None);
        assert_eq!(strip_dir(".claude", ".claude"), Some(""));
    }
}
