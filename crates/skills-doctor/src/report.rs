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
    /// the CLIs (with the version number of each, when probed).
    #[must_use]
    pub fn summary(&self) -> String {
        let servers: Vec<String> = self
            .servers
            .iter()
            .map(
                |s| match (&s.tools, &s.probe_error, &s.unavailable, &s.not_started) {
                    (Some(tools), _, _, _) => {
                        format!("{} ({}, {} tools)", s.name, s.agent, tools.len())
                    }
                    (None, Some(_), _, _) => format!("{} ({}, no answer)", s.name, s.agent),
                    (None, None, Some(_), _) => {
                        format!("{} ({}, command not found)", s.name, s.agent)
                    }
                    (None, None, None, Some(_)) => format!("{} ({}, not started)", s.name, s.agent),
                    (None, None, None, None) => format!("{} ({})", s.name, s.agent),
                },
            )
            .collect();
        let clis: Vec<String> = self
            .clis
            .values()
            .map(|c| match c.version.as_deref().and_then(version_number) {
                Some(v) => format!("{} {v}", c.name),
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

/// The version number in the first line of a `--version`: `8.5.0` of `curl 8.5.0
/// (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13 …`, `27.3.1` of `Docker version
/// 27.3.1, build ce12230`, `1.7.1` of `jq-1.7.1`, `20.11.1` of `v20.11.1`: the first word
/// (words end at spaces, commas, slashes and parentheses) that starts with digits and dots
/// holding a dot, after a `v` or a `name-`. `None` when the line has none.
fn version_number(line: &str) -> Option<String> {
    line.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '/'))
        .find_map(|word| {
            let word = word.trim_end_matches(['.', ':']);
            let word = word
                .strip_prefix(['v', 'V'])
                .or_else(|| {
                    // `jq-1.7.1`: a name, a hyphen, the number.
                    let (name, rest) = word.split_once('-')?;
                    name.chars()
                        .all(|c| c.is_ascii_alphabetic())
                        .then_some(rest)
                })
                .unwrap_or(word);
            let head = word
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()
                .unwrap_or_default();
            (word.starts_with(|c: char| c.is_ascii_digit()) && head.contains('.'))
                .then(|| word.chars().take(32).collect())
        })
}

#[cfg(test)]
mod tests {
    use super::version_number;

    #[test]
    fn the_version_number_of_a_version_line() {
        for (line, version) in [
            (
                "curl 8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13 zlib/1.3 brotli/1.1.0 zstd/1.5.5",
                Some("8.5.0"),
            ),
            ("Docker version 27.3.1, build ce12230", Some("27.3.1")),
            ("git version 2.43.0", Some("2.43.0")),
            ("jq-1.7.1", Some("1.7.1")),
            ("v20.11.1", Some("20.11.1")),
            ("Client Version: v1.30.2", Some("1.30.2")),
            ("psql (PostgreSQL) 16.2 (Ubuntu 16.2-1)", Some("16.2")),
            ("GNU Wget 1.21.4 built on linux-gnu.", Some("1.21.4")),
            ("gh version 2.45.0 (2024-03-04)", Some("2.45.0")),
            ("Python 3.12.3", Some("3.12.3")),
            ("tea version 0.9.2-rc1", Some("0.9.2-rc1")),
            ("redis-cli 7.0.15", Some("7.0.15")),
            ("x86_64 build 2024", None),
            ("no version here", None),
            ("", None),
        ] {
            assert_eq!(version_number(line).as_deref(), version, "{line}");
        }
    }
}
