//! The `metadata` keys `skills` gives a meaning to, beyond the specification's free-form map
//! of strings: seed 004's tier gate and per-domain fallback chains.
//!
//! Both stay inside the specification (every value is a string under `metadata`), so any
//! client still loads the skill; `skills lint` checks them (`metadata-min-tier-invalid`,
//! `metadata-tools-invalid`), `skills mcp --tier` enforces the tier and `skills doctor`
//! walks the chains.
//!
//! ```yaml
//! metadata:
//!   min-tier: "2"
//!   tools.container: "mcp__docker__restart_container, docker, podman"
//!   tools.http: "mcp__fetch__fetch, curl, wget"
//! ```
//!
//! A chain is walked in the order written: the first tool available on the machine is the
//! one the skill uses. An entry is an MCP tool as agents name it (`mcp__<server>__<tool>`,
//! or `mcp__<server>__*` for any tool of that server) or a command on `PATH`.
//!
//! ```
//! use skills_frontmatter::SkillMd;
//! use skills_frontmatter::conventions::ChainTool;
//!
//! let text = "---\nname: container-ops\ndescription: d\nmetadata:\n  min-tier: \"2\"\n  tools.container: mcp__docker__restart_container, docker\n---\nBody\n";
//! let skill = SkillMd::parse(text.as_bytes())?;
//! assert_eq!(skill.min_tier(), Some(2));
//! let chains = skill.tool_chains();
//! assert_eq!(chains[0].domain, "container");
//! assert_eq!(chains[0].tools[1], ChainTool::Command("docker".into()));
//! # Ok::<(), skills_frontmatter::ParseError>(())
//! ```

use std::fmt;
use std::ops::Range;

use crate::{SkillMd, Value};

/// The `metadata` key of the lowest tier that may use the skill (a positive integer).
pub const MIN_TIER: &str = "min-tier";

/// The prefix of the `metadata` keys that declare a domain's fallback chain
/// (`tools.<domain>`).
pub const TOOLS_PREFIX: &str = "tools.";

/// One entry of a fallback chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChainTool {
    /// `mcp__<server>__<tool>`; `tool` is `None` for `mcp__<server>__*`.
    Mcp {
        /// The server's name, as configured.
        server: String,
        /// The tool's name; `None` for any tool of the server.
        tool: Option<String>,
    },
    /// A command on `PATH`.
    Command(String),
}

impl fmt::Display for ChainTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mcp { server, tool } => {
                write!(f, "mcp__{server}__{}", tool.as_deref().unwrap_or("*"))
            }
            Self::Command(c) => f.write_str(c),
        }
    }
}

impl ChainTool {
    /// Reads one entry; the error says what is wrong with it.
    ///
    /// # Errors
    ///
    /// An entry that is neither `mcp__<server>__<tool>` nor a command name.
    pub fn parse(entry: &str) -> Result<Self, String> {
        if let Some(rest) = entry.strip_prefix("mcp__") {
            let Some((server, tool)) = rest.split_once("__") else {
                return Err(format!(
                    "`{entry}` names no tool: write `mcp__<server>__<tool>`, or `mcp__<server>__*` for any tool of the server"
                ));
            };
            if server.is_empty() || !server.chars().all(is_name_char) {
                return Err(format!(
                    "`{entry}`: the server name `{server}` must be letters, digits, `-` or `_`"
                ));
            }
            if tool == "*" {
                return Ok(Self::Mcp {
                    server: server.to_string(),
                    tool: None,
                });
            }
            if tool.is_empty() || !tool.chars().all(|c| is_name_char(c) || c == '.') {
                return Err(format!(
                    "`{entry}`: the tool name `{tool}` must be letters, digits, `-`, `_` or `.` (or `*` for any tool)"
                ));
            }
            return Ok(Self::Mcp {
                server: server.to_string(),
                tool: Some(tool.to_string()),
            });
        }
        if entry.contains(char::is_whitespace) {
            return Err(format!(
                "`{entry}` is not one tool: name each MCP tool (`mcp__<server>__<tool>`) or command without arguments, and separate them with commas"
            ));
        }
        if entry.starts_with('-')
            || !entry
                .chars()
                .all(|c| is_name_char(c) || matches!(c, '.' | '+'))
        {
            return Err(format!(
                "`{entry}` is neither an MCP tool (`mcp__<server>__<tool>`) nor a command name"
            ));
        }
        Ok(Self::Command(entry.to_string()))
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// A domain's declared fallback chain (`metadata.tools.<domain>`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolChain {
    /// The domain (`container`, `git-github`, ...).
    pub domain: String,
    /// The tools, in the order they are tried.
    pub tools: Vec<ChainTool>,
    /// Byte range of the key in `SKILL.md`.
    pub key_span: Range<usize>,
}

/// Whether `domain` is a domain name: lowercase letters, digits and single hyphens inside.
fn valid_domain(domain: &str) -> bool {
    !domain.is_empty()
        && !domain.starts_with('-')
        && !domain.ends_with('-')
        && !domain.contains("--")
        && domain
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Reads a chain's value (`"mcp__docker__ps, docker"`): the entries, comma-separated, in
/// order.
///
/// # Errors
///
/// An empty chain, an empty or unreadable entry, or an entry written twice.
pub fn parse_chain(value: &str) -> Result<Vec<ChainTool>, String> {
    let mut tools = Vec::new();
    for entry in value.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err(if value.trim().is_empty() {
                "the chain is empty: name at least one tool".to_string()
            } else {
                "an entry of the chain is empty: separate the tools with single commas".to_string()
            });
        }
        let tool = ChainTool::parse(entry)?;
        if tools.contains(&tool) {
            return Err(format!("`{entry}` is written twice in the chain"));
        }
        tools.push(tool);
    }
    Ok(tools)
}

/// Reads a tier (`"2"`).
///
/// # Errors
///
/// Anything but a positive integer.
pub fn parse_tier(value: &str) -> Result<u32, String> {
    match value.trim().parse::<u32>() {
        Ok(0) => Err("tiers start at 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "`{value}` is not a tier: write a positive integer such as \"2\""
        )),
    }
}

/// A problem with one of these keys: what is wrong, where, and how to fix it.
pub(crate) struct Problem {
    pub(crate) tier: bool,
    pub(crate) message: String,
    pub(crate) span: Range<usize>,
}

/// Every problem with `min-tier` and the `tools.<domain>` keys of `skill`'s `metadata`.
pub(crate) fn problems(skill: &SkillMd) -> Vec<Problem> {
    let mut out = Vec::new();
    for (key, value, span) in entries(skill) {
        let Some(value) = value else { continue };
        if key == MIN_TIER {
            if let Err(message) = parse_tier(value) {
                out.push(Problem {
                    tier: true,
                    message: format!("`metadata.{MIN_TIER}`: {message}"),
                    span,
                });
            }
        } else if let Some(domain) = key.strip_prefix(TOOLS_PREFIX) {
            let result = if valid_domain(domain) {
                parse_chain(value).map(drop)
            } else {
                Err(format!(
                    "`{domain}` is not a domain name: lowercase letters, digits and hyphens, such as `container` or `git-github`"
                ))
            };
            if let Err(message) = result {
                out.push(Problem {
                    tier: false,
                    message: format!("`metadata.{key}`: {message}"),
                    span,
                });
            }
        }
    }
    out
}

/// The entries of `metadata`: key, string value (if it is one), and the span of the value
/// (of the key when the value has none).
fn entries(skill: &SkillMd) -> Vec<(String, Option<&str>, Range<usize>)> {
    match skill.field("metadata").map(|e| &e.value) {
        Some(Value::Mapping(entries)) => entries
            .iter()
            .map(|(k, v)| {
                let span = if v.span.is_empty() {
                    k.span.clone()
                } else {
                    v.span.clone()
                };
                (k.value.key_string(), v.value.as_str(), span)
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl SkillMd {
    /// `metadata.min-tier`, when it is a positive integer (`skills lint` reports any other
    /// value).
    #[must_use]
    pub fn min_tier(&self) -> Option<u32> {
        self.metadata()
            .into_iter()
            .find(|(k, _)| k == MIN_TIER)
            .and_then(|(_, v)| parse_tier(v).ok())
    }

    /// The fallback chains the skill declares (`metadata.tools.<domain>`), in source order;
    /// declarations `skills lint` reports as invalid are left out.
    #[must_use]
    pub fn tool_chains(&self) -> Vec<ToolChain> {
        let Some(Value::Mapping(entries)) = self.field("metadata").map(|e| &e.value) else {
            return Vec::new();
        };
        entries
            .iter()
            .filter_map(|(k, v)| {
                let key = k.value.key_string();
                let domain = key.strip_prefix(TOOLS_PREFIX)?;
                if !valid_domain(domain) {
                    return None;
                }
                let tools = parse_chain(v.value.as_str()?).ok()?;
                Some(ToolChain {
                    domain: domain.to_string(),
                    tools,
                    key_span: k.span.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(meta: &str) -> SkillMd {
        SkillMd::parse(
            format!("---\nname: x\ndescription: d\nmetadata:\n{meta}---\nb\n").as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn entries_of_a_chain() {
        assert_eq!(
            ChainTool::parse("mcp__chrome-devtools__navigate_page").unwrap(),
            ChainTool::Mcp {
                server: "chrome-devtools".into(),
                tool: Some("navigate_page".into())
            }
        );
        assert_eq!(
            ChainTool::parse("mcp__docker__*").unwrap().to_string(),
            "mcp__docker__*"
        );
        assert_eq!(
            ChainTool::parse("redis-cli").unwrap(),
            ChainTool::Command("redis-cli".into())
        );
        for bad in [
            "mcp__docker",
            "mcp____x",
            "mcp__a__",
            "docker ps",
            "-rf",
            "a/b",
        ] {
            assert!(ChainTool::parse(bad).is_err(), "{bad}");
        }
        assert!(parse_chain("gh, gh").unwrap_err().contains("twice"));
        assert!(parse_chain("gh,,tea").unwrap_err().contains("empty"));
        assert!(parse_chain("  ").unwrap_err().contains("empty"));
        assert_eq!(parse_chain("gh ,tea").unwrap().len(), 2);
    }

    #[test]
    fn tiers() {
        assert_eq!(parse_tier(" 3 "), Ok(3));
        assert!(parse_tier("0").is_err());
        assert!(parse_tier("two").is_err());
        assert_eq!(md("  min-tier: \"2\"\n").min_tier(), Some(2));
        assert_eq!(md("  min-tier: high\n").min_tier(), None);
    }

    #[test]
    fn chains_and_problems() {
        let skill = md(
            "  tools.container: mcp__docker__ps, docker\n  tools.Bad: gh\n  tools.http: curl,\n  min-tier: \"0\"\n  author: me\n",
        );
        let chains = skill.tool_chains();
        assert_eq!(chains.len(), 1);
        assert_eq!(chains[0].domain, "container");
        let problems = problems(&skill);
        let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(problems.len(), 3, "{messages:?}");
        assert!(messages[0].contains("`Bad` is not a domain name"));
        assert!(messages[1].contains("metadata.tools.http"));
        assert!(problems[2].tier);
    }
}
