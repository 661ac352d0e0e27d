//! Tool availability: the MCP servers a registry knows, and which of a skill's tools they
//! have (`GET …/tools`).

use serde::Deserialize;

use crate::model::SkillCard;
use crate::store::Store;

use super::Registry;

/// An MCP server the registry knows (`[[servers]]` in its config), and its tools.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KnownServer {
    /// Its path (`/servers/github`).
    pub path: String,
    /// The tools it exposes.
    pub tools: Vec<String>,
}

impl KnownServer {
    /// A server at `path` with `tools`.
    #[must_use]
    pub fn new(path: impl Into<String>, tools: Vec<String>) -> Self {
        Self {
            path: path.into(),
            tools,
        }
    }

    /// The last segment of its path: what `mcp__<server>__<tool>` names.
    fn short_name(&self) -> &str {
        self.path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
    }
}

/// Whether a tool a skill needs is there (`GET …/tools`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ToolStatus {
    /// The tool.
    pub tool_name: String,
    /// The server that has it, or that the skill names.
    pub server_path: Option<String>,
    /// `available`; `tool-missing` (the server is known, the tool is not among its tools);
    /// `server-unknown` (the skill names a server the registry does not know); or
    /// `not-found` (no known server has a tool of that name: an agent's built-in tool such
    /// as `Read`, or a server nobody registered).
    pub status: &'static str,
    /// `status == "available"`.
    pub available: bool,
}

impl<S: Store> Registry<S> {
    /// For each tool `card` references, whether a known MCP server exposes it (seed 001's
    /// tool validation).
    #[must_use]
    pub fn tool_availability(&self, card: &SkillCard) -> Vec<ToolStatus> {
        let servers = &self.config.servers;
        card.allowed_tools
            .iter()
            .map(|tool| {
                let status = |server: Option<&KnownServer>, status: &'static str| ToolStatus {
                    tool_name: tool.tool_name.clone(),
                    server_path: server
                        .map(|s| s.path.clone())
                        .or_else(|| tool.server_path.clone()),
                    status,
                    available: status == "available",
                };
                if let Some(path) = &tool.server_path {
                    return match servers.iter().find(|s| &s.path == path) {
                        Some(s) if s.tools.contains(&tool.tool_name) => {
                            status(Some(s), "available")
                        }
                        Some(s) => status(Some(s), "tool-missing"),
                        None => status(None, "server-unknown"),
                    };
                }
                // `mcp__<server>__<tool>`, as agents name MCP tools.
                if let Some((server, name)) = tool
                    .tool_name
                    .strip_prefix("mcp__")
                    .and_then(|rest| rest.split_once("__"))
                {
                    return match servers.iter().find(|s| s.short_name() == server) {
                        Some(s) if s.tools.iter().any(|t| t == name) => {
                            status(Some(s), "available")
                        }
                        Some(s) => status(Some(s), "tool-missing"),
                        None => status(None, "server-unknown"),
                    };
                }
                match servers.iter().find(|s| s.tools.contains(&tool.tool_name)) {
                    Some(s) => status(Some(s), "available"),
                    None => status(None, "not-found"),
                }
            })
            .collect()
    }
}
