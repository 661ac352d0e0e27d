//! Seed 004's fallback chain, MCP → CLI → HTTP, walked for each domain a skill needs; or
//! the chain the skill declares, walked as written.

use serde::Serialize;
use skills_frontmatter::conventions::ChainTool;

use crate::domains::Domain;
use crate::inventory::{Inventory, Server};
use crate::needs::{Evidence, Needs};

/// The kind of tool a domain resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A configured MCP server's tool.
    Mcp,
    /// A command on `PATH`.
    Cli,
    /// `curl` or `wget` against the service's HTTP API.
    Http,
}

impl Kind {
    /// `MCP`, `CLI`, `HTTP`, as seed 004's log lines write them.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Mcp => "MCP",
            Self::Cli => "CLI",
            Self::Http => "HTTP",
        }
    }
}

/// What one domain of a skill resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Resolution {
    /// The domain.
    pub domain: String,
    /// The tool used (`mcp__docker__list_containers`, `docker`, `curl`), and its kind;
    /// `None` when nothing is available.
    pub using: Option<(String, Kind)>,
    /// Whether a preferred kind was skipped (the skill falls back).
    pub fallback: bool,
    /// What was not there, for the warning or the error (`no MCP server docker or podman`).
    pub missing: Vec<String>,
    /// The configured servers that could not serve (`MCP server kubernetes cannot start
    /// (`kubectl-mcp` is not on PATH)`): also in `missing`, and said in the error line.
    pub unusable: Vec<String>,
    /// What to install or configure when nothing is available.
    pub fix: String,
}

impl Resolution {
    /// Seed 004's observability line for skill `skill`:
    /// `[skill:NAME] Using: TOOL (KIND)`, `[skill:NAME] WARNING: … falling back to TOOL
    /// (KIND)`, or `[skill:NAME] ERROR: …`.
    #[must_use]
    pub fn line(&self, skill: &str) -> String {
        match &self.using {
            Some((tool, kind)) if !self.fallback => {
                format!("[skill:{skill}] Using: {tool} ({})", kind.label())
            }
            Some((tool, kind)) => format!(
                "[skill:{skill}] WARNING: {} for {}, falling back to {tool} ({})",
                self.missing.join(", "),
                self.domain,
                kind.label()
            ),
            None if self.unusable.is_empty() => format!(
                "[skill:{skill}] ERROR: nothing available for {}: {}",
                self.domain, self.fix
            ),
            None => format!(
                "[skill:{skill}] ERROR: nothing available for {} ({}): {}",
                self.domain,
                self.unusable.join(", "),
                self.fix
            ),
        }
    }
}

/// What to install or configure for `domain`.
fn fix(domain: &Domain) -> String {
    let mut ways = Vec::new();
    if !domain.mcp.is_empty() {
        ways.push(format!(
            "configure an MCP server named {}",
            or_list(&domain.mcp)
        ));
    }
    if !domain.cli.is_empty() {
        ways.push(format!("install {}", or_list(&domain.cli)));
    }
    if domain.http {
        ways.push("install curl or wget".to_string());
    }
    ways.join(", or ")
}

fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The commands that stand for plain HTTP.
const HTTP_CLIENTS: [&str; 2] = ["curl", "wget"];

/// Walks a declared chain in its order: the first tool here wins.
fn walk_chain(domain: &str, chain: &[ChainTool], inventory: &Inventory) -> Resolution {
    let mut missing = Vec::new();
    let mut unusable = Vec::new();
    let mut servers = Vec::new();
    let mut commands = Vec::new();
    for entry in chain {
        let using = match entry {
            ChainTool::Mcp { server, tool } => {
                servers.push(server.clone());
                match inventory
                    .servers
                    .iter()
                    .find(|s| s.name.eq_ignore_ascii_case(server))
                {
                    None => {
                        missing.push(format!("no MCP server {server}"));
                        None
                    }
                    Some(s) => match (why_unusable(s), &s.tools, tool) {
                        (Some(why), _, _) => {
                            missing.push(why.clone());
                            unusable.push(why);
                            None
                        }
                        (None, Some(offered), Some(tool)) if !offered.contains(tool) => {
                            let why = format!("{entry} not offered by MCP server {}", s.name);
                            missing.push(why.clone());
                            unusable.push(why);
                            None
                        }
                        _ => Some((
                            format!("mcp__{}__{}", s.name, tool.as_deref().unwrap_or("*")),
                            Kind::Mcp,
                        )),
                    },
                }
            }
            ChainTool::Command(command) => {
                commands.push(command.clone());
                if inventory.clis.contains_key(command) {
                    let kind = if HTTP_CLIENTS.contains(&command.as_str()) && domain != "http" {
                        Kind::Http
                    } else {
                        Kind::Cli
                    };
                    Some((command.clone(), kind))
                } else {
                    missing.push(format!("no {command}"));
                    None
                }
            }
            other => {
                missing.push(format!(
                    "{other} is a kind of tool this version cannot look for"
                ));
                None
            }
        };
        if using.is_some() {
            return Resolution {
                domain: domain.to_string(),
                fallback: !missing.is_empty(),
                using,
                missing,
                unusable,
                fix: String::new(),
            };
        }
    }
    let mut ways = Vec::new();
    if !servers.is_empty() {
        ways.push(format!(
            "configure an MCP server named {}",
            or_list(&servers)
        ));
    }
    if !commands.is_empty() {
        ways.push(format!("install {}", or_list(&commands)));
    }
    Resolution {
        domain: domain.to_string(),
        using: None,
        fallback: false,
        missing,
        unusable,
        fix: ways.join(", or "),
    }
}

/// Why a configured server cannot serve here, when it cannot: its probe got no answer, or,
/// unprobed, its command is not there ([`Server::unavailable`]). A server whose tools a
/// probe listed can.
fn why_unusable(server: &Server) -> Option<String> {
    match (&server.probe_error, &server.tools, &server.unavailable) {
        (Some(error), _, _) => Some(format!(
            "MCP server {} did not answer ({error})",
            server.name
        )),
        (None, None, Some(why)) => Some(format!("MCP server {} cannot start ({why})", server.name)),
        _ => None,
    }
}

/// The commands the skill itself shows for a domain: `Bash(gh:*)` in its `allowed-tools`,
/// the commands of its shell blocks, its scripts' interpreters.
fn commands_shown(evidence: &[Evidence]) -> Vec<&str> {
    evidence
        .iter()
        .filter_map(|e| match e {
            Evidence::AllowedTools { tool } => tool
                .strip_prefix("Bash(")
                .and_then(|rest| rest.split([':', ' ', ')']).next()),
            Evidence::CodeBlock { command, .. } => Some(command.as_str()),
            Evidence::Shebang { interpreter, .. } => Some(interpreter.as_str()),
            _ => None,
        })
        .collect()
}

/// Walks MCP → CLI → HTTP for every domain `needs` names (a declared chain as written).
#[must_use]
pub fn resolve(needs: &Needs, inventory: &Inventory, domains: &[Domain]) -> Vec<Resolution> {
    let mut out = Vec::new();
    for name in needs.domains.keys() {
        if let Some(chain) = needs.chains.get(name) {
            out.push(walk_chain(name, chain, inventory));
            continue;
        }
        let Some(domain) = domains.iter().find(|d| &d.name == name) else {
            continue;
        };
        let mut missing = Vec::new();
        let servers: Vec<&crate::inventory::Server> = domain
            .mcp
            .iter()
            .filter_map(|m| {
                inventory
                    .servers
                    .iter()
                    .find(|s| s.name.eq_ignore_ascii_case(m))
            })
            .collect();
        let named = needs.mcp_tools.get(name);
        let mut unusable = Vec::new();
        let mut chosen = None;
        for server in &servers {
            if let Some(why) = why_unusable(server) {
                missing.push(why.clone());
                unusable.push(why);
                continue;
            }
            let prefix = format!("mcp__{}__", server.name);
            // The tools the skill names for this server, if it names any.
            let wanted: Vec<&String> = named
                .into_iter()
                .flatten()
                .filter(|t| t.starts_with(&prefix))
                .collect();
            let tool = match (&server.tools, wanted.first()) {
                (_, None) => format!("{prefix}*"),
                (None, Some(first)) => (*first).clone(),
                // Probed: one of the named tools must be among the server's.
                (Some(offered), Some(_)) => match wanted.iter().find(|t| {
                    t.strip_prefix(&prefix)
                        .is_some_and(|bare| offered.iter().any(|o| o == bare))
                }) {
                    Some(found) => (*found).clone(),
                    None => {
                        let list: Vec<String> = wanted.iter().map(|t| (*t).clone()).collect();
                        let why = format!(
                            "{} not offered by MCP server {}",
                            or_list(&list),
                            server.name
                        );
                        missing.push(why.clone());
                        unusable.push(why);
                        continue;
                    }
                },
            };
            chosen = Some(tool);
            break;
        }
        if let Some(tool) = chosen {
            out.push(Resolution {
                domain: name.clone(),
                using: Some((tool, Kind::Mcp)),
                fallback: !missing.is_empty(),
                missing,
                unusable,
                fix: String::new(),
            });
            continue;
        }
        if servers.is_empty() && !domain.mcp.is_empty() {
            missing.push(format!("no MCP server {}", or_list(&domain.mcp)));
        }
        // A skill that shows commands of the domain and names none of its MCP tools prefers
        // the CLI: the commands it shows come first, and using a command of the domain is
        // no fallback (a configured server that cannot serve still is worth the warning).
        let shown: Vec<&str> = needs
            .domains
            .get(name)
            .map(|evidence| commands_shown(evidence))
            .unwrap_or_default()
            .into_iter()
            .filter(|c| domain.cli.iter().any(|d| d == c))
            .collect();
        let prefers_cli = named.is_none_or(Vec::is_empty) && !shown.is_empty();
        let found = |c: &&String| inventory.clis.contains_key(c.as_str());
        let cli = domain
            .cli
            .iter()
            .filter(|c| prefers_cli && shown.contains(&c.as_str()))
            .find(found)
            .or_else(|| domain.cli.iter().find(found));
        if let Some(cli) = cli {
            // Another command of the domain than the one the skill shows (`python3` for
            // `python`) is the same kind of tool: no warning either.
            out.push(Resolution {
                domain: name.clone(),
                fallback: if prefers_cli {
                    !unusable.is_empty()
                } else {
                    !missing.is_empty()
                },
                using: Some((cli.clone(), Kind::Cli)),
                missing,
                unusable,
                fix: String::new(),
            });
            continue;
        }
        if !domain.cli.is_empty() {
            missing.push(format!("no {}", or_list(&domain.cli)));
        }
        let http = HTTP_CLIENTS
            .into_iter()
            .find(|c| domain.http && inventory.clis.contains_key(*c));
        out.push(Resolution {
            domain: name.clone(),
            fallback: http.is_some() && !missing.is_empty(),
            using: http.map(|c| (c.to_string(), Kind::Http)),
            missing,
            unusable,
            fix: fix(domain),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{Cli, Server, Transport};

    fn inventory(servers: &[(&str, Option<&[&str]>)], clis: &[&str]) -> Inventory {
        let mut out = Inventory::default();
        for (name, tools) in servers {
            out.servers.push(Server {
                name: (*name).to_string(),
                file: ".mcp.json".into(),
                project: true,
                agent: "claude-code",
                transport: Transport::Http {
                    url: "http://127.0.0.1:1/mcp".into(),
                },
                tools: tools.map(|t| t.iter().map(|s| (*s).to_string()).collect()),
                probe_error: None,
                not_started: None,
                unavailable: None,
            });
        }
        for cli in clis {
            out.clis.insert(
                (*cli).to_string(),
                Cli {
                    name: (*cli).to_string(),
                    path: format!("/usr/bin/{cli}").into(),
                    version: None,
                },
            );
        }
        out
    }

    /// A skill that shows `python` and `tea` and names no MCP tool: the CLI is its choice,
    /// whichever command of the domain is here, and no MCP server missing is a warning. A
    /// skill that names an MCP tool and gets the CLI is warned.
    #[test]
    fn a_skill_that_shows_a_cli_prefers_it() {
        let all = crate::domains::builtin();
        let text = "---\nname: x\ndescription: d\nallowed-tools: Bash(tea:*)\n---\n```bash\npython scripts/run.py\n```\n";
        let needs = crate::needs::needs(text, None, &all);
        let lines: Vec<String> = resolve(&needs, &inventory(&[], &["python3", "tea"]), &all)
            .iter()
            .map(|r| r.line("x"))
            .collect();
        assert_eq!(
            lines,
            [
                "[skill:x] Using: tea (CLI)",
                "[skill:x] Using: python3 (CLI)"
            ]
        );
        let mcp = "---\nname: x\ndescription: d\nallowed-tools: mcp__gitea__create_pull_request Bash(tea:*)\n---\n";
        let needs = crate::needs::needs(mcp, None, &all);
        let r = resolve(&needs, &inventory(&[], &["tea"]), &all);
        assert_eq!(
            r[0].line("x"),
            "[skill:x] WARNING: no MCP server gitea for git-gitea, falling back to tea (CLI)"
        );
    }

    fn chain(text: &str) -> Vec<ChainTool> {
        skills_frontmatter::conventions::parse_chain(text).unwrap()
    }

    #[test]
    fn a_declared_chain_is_walked_as_written() {
        let tools = chain("mcp__docker__restart_container, podman, docker, curl");
        // The server is there but, probed, does not offer the tool: podman is not there,
        // docker is.
        let here = inventory(
            &[("docker", Some(&["list_containers"]))],
            &["docker", "curl"],
        );
        let r = walk_chain("container", &tools, &here);
        assert_eq!(r.using, Some(("docker".to_string(), Kind::Cli)));
        assert_eq!(
            r.line("container-ops"),
            "[skill:container-ops] WARNING: mcp__docker__restart_container not offered by MCP server docker, no podman for container, falling back to docker (CLI)"
        );
        // Not probed: the configured server is taken at its word.
        let here = inventory(&[("Docker", None)], &[]);
        let r = walk_chain("container", &tools, &here);
        assert_eq!(
            r.line("container-ops"),
            "[skill:container-ops] Using: mcp__Docker__restart_container (MCP)"
        );
        // Only curl: the HTTP fallback.
        let r = walk_chain("container", &tools, &inventory(&[], &["curl"]));
        assert_eq!(r.using, Some(("curl".to_string(), Kind::Http)));
        // Nothing: what to do, from the chain itself.
        let r = walk_chain("container", &tools, &inventory(&[], &[]));
        assert_eq!(
            r.line("container-ops"),
            "[skill:container-ops] ERROR: nothing available for container: configure an MCP server named docker, or install podman, docker or curl"
        );
    }
}
