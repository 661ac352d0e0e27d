//! One skill's resolution as `skills doctor` and the MCP `tool_inventory` tool report it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::domains::Domain;
use crate::inventory::Inventory;
use crate::needs::{self, Evidence};
use crate::resolve::{self, Kind};

/// What one skill needs and what each need resolves to here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SkillReport {
    /// The skill's id.
    pub name: String,
    /// Its `SKILL.md` (or flat `NAME.md`).
    pub path: PathBuf,
    /// Each domain it needs, by name.
    pub domains: Vec<DomainReport>,
}

/// One domain of a [`SkillReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DomainReport {
    /// The domain.
    pub domain: String,
    /// The tool it resolved to; `None` when nothing is available.
    pub tool: Option<String>,
    /// The tool's kind.
    pub kind: Option<Kind>,
    /// Whether a preferred kind was missing.
    pub fallback: bool,
    /// Seed 004's log line.
    pub line: String,
    /// Where the skill says it needs the domain.
    pub evidence: Vec<Evidence>,
}

/// Resolves the skill `name` (its `SKILL.md` at `path` holding `text`; its directory `dir`
/// when its scripts are its own) against `inventory`.
#[must_use]
pub fn report(
    name: &str,
    path: &Path,
    dir: Option<&Path>,
    text: &str,
    inventory: &Inventory,
    domains: &[Domain],
) -> SkillReport {
    let mut needs = needs::needs(text, dir, domains);
    let domains_out = resolve::resolve(&needs, inventory, domains)
        .into_iter()
        .map(|r| DomainReport {
            line: r.line(name),
            evidence: needs.domains.remove(&r.domain).unwrap_or_default(),
            tool: r.using.as_ref().map(|(t, _)| t.clone()),
            kind: r.using.as_ref().map(|(_, k)| *k),
            fallback: r.fallback,
            domain: r.domain,
        })
        .collect();
    SkillReport {
        name: name.to_string(),
        path: path.to_path_buf(),
        domains: domains_out,
    }
}

impl SkillReport {
    /// Whether a domain it needs has no tool here.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.domains.iter().any(|d| d.tool.is_none())
    }

    /// Its log lines, one a domain (a line that says so when it needs none).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        if self.domains.is_empty() {
            return vec![format!(
                "[skill:{}] needs no tool of a known domain",
                self.name
            )];
        }
        self.domains.iter().map(|d| d.line.clone()).collect()
    }
}

impl Inventory {
    /// The inventory in two lines: the servers (with the agent whose file has each), then
    /// the CLIs.
    #[must_use]
    pub fn summary(&self) -> String {
        let servers: Vec<String> = self
            .servers
            .iter()
            .map(|s| match (&s.tools, &s.probe_error, &s.not_started) {
                (Some(tools), _, _) => {
                    format!("{} ({}, {} tools)", s.name, s.agent, tools.len())
                }
                (None, Some(_), _) => format!("{} ({}, no answer)", s.name, s.agent),
                (None, None, Some(_)) => format!("{} ({}, not started)", s.name, s.agent),
                (None, None, None) => format!("{} ({})", s.name, s.agent),
            })
            .collect();
        let clis: Vec<String> = self
            .clis
            .values()
            .map(|c| match &c.version {
                Some(v) => format!("{} ({v})", c.name),
                None => c.name.clone(),
            })
            .collect();
        let or_none = |v: String| if v.is_empty() { "none".to_string() } else { v };
        format!(
            "MCP servers: {}\nCLIs: {}\n",
            or_none(servers.join(", ")),
            or_none(clis.join(", "))
        )
    }
}
