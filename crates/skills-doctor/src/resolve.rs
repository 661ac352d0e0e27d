//! Seed 004's fallback chain, MCP → CLI → HTTP, walked for each domain a skill needs.

use serde::Serialize;

use crate::domains::Domain;
use crate::inventory::Inventory;
use crate::needs::Needs;

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
}

impl Resolution {
    /// Seed 004's observability line for skill `skill`:
    /// `[skill:NAME] Using: TOOL (KIND)`, `[skill:NAME] WARNING: … falling back to TOOL
    /// (KIND)`, or `[skill:NAME] ERROR: …`.
    #[must_use]
    pub fn line(&self, skill: &str, domains: &[Domain]) -> String {
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
            None => {
                let fix = domains
                    .iter()
                    .find(|d| d.name == self.domain)
                    .map(fix)
                    .unwrap_or_default();
                format!(
                    "[skill:{skill}] ERROR: nothing available for {}: {fix}",
                    self.domain
                )
            }
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

/// Walks MCP → CLI → HTTP for every domain `needs` names.
#[must_use]
pub fn resolve(needs: &Needs, inventory: &Inventory, domains: &[Domain]) -> Vec<Resolution> {
    let mut out = Vec::new();
    for name in needs.domains.keys() {
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
        let mut chosen = None;
        for server in &servers {
            if let Some(error) = &server.probe_error {
                missing.push(format!(
                    "MCP server {} did not answer ({error})",
                    server.name
                ));
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
                        missing.push(format!(
                            "{} not offered by MCP server {}",
                            or_list(&list),
                            server.name
                        ));
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
            });
            continue;
        }
        if servers.is_empty() && !domain.mcp.is_empty() {
            missing.push(format!("no MCP server {}", or_list(&domain.mcp)));
        }
        if let Some(cli) = domain.cli.iter().find(|c| inventory.clis.contains_key(*c)) {
            out.push(Resolution {
                domain: name.clone(),
                fallback: !missing.is_empty(),
                using: Some((cli.clone(), Kind::Cli)),
                missing,
            });
            continue;
        }
        if !domain.cli.is_empty() {
            missing.push(format!("no {}", or_list(&domain.cli)));
        }
        let http = ["curl", "wget"]
            .into_iter()
            .find(|c| domain.http && inventory.clis.contains_key(*c));
        out.push(Resolution {
            domain: name.clone(),
            fallback: http.is_some() && !missing.is_empty(),
            using: http.map(|c| (c.to_string(), Kind::Http)),
            missing,
        });
    }
    out
}
