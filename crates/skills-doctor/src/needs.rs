//! What a skill needs, read from the skill itself: the fallback chains it declares
//! (`metadata.tools.<domain>`), or else what it shows: its `allowed-tools`, the commands of
//! its shell code blocks, and the interpreters of its scripts.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use skills_frontmatter::conventions::ChainTool;

use crate::domains::{self, Domain};

/// Why a skill needs a domain: where it said so.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Evidence {
    /// A declared fallback chain (`metadata.tools.<domain>`).
    Declared {
        /// The key, `metadata.tools.<domain>`.
        key: String,
        /// Its line in `SKILL.md` (1-based).
        line: usize,
    },
    /// An `allowed-tools` entry (`Bash(gh:*)`, `mcp__github__create_pull_request`).
    AllowedTools {
        /// The entry.
        tool: String,
    },
    /// A command in a shell code block of `SKILL.md`.
    CodeBlock {
        /// The command.
        command: String,
        /// Its line in `SKILL.md` (1-based).
        line: usize,
    },
    /// A script's interpreter (its `#!` line).
    Shebang {
        /// The script, relative to the skill.
        script: String,
        /// The interpreter.
        interpreter: String,
    },
}

/// The domains a skill needs, each with the evidence, and the MCP tools it names by domain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Needs {
    /// By domain name.
    pub domains: BTreeMap<String, Vec<Evidence>>,
    /// `mcp__<server>__<tool>` entries of `allowed-tools`, by domain: the tool to name when
    /// the domain is served over MCP.
    pub mcp_tools: BTreeMap<String, Vec<String>>,
    /// The chains the skill declares, by domain: walked as written instead of the domain
    /// table's MCP → CLI → HTTP. A skill that declares any is exact: nothing is inferred.
    #[serde(serialize_with = "as_text")]
    pub chains: BTreeMap<String, Vec<ChainTool>>,
}

/// Chains as the skill writes their entries.
fn as_text<S: serde::Serializer>(
    chains: &BTreeMap<String, Vec<ChainTool>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(chains.iter().map(|(domain, tools)| {
        (
            domain,
            tools.iter().map(ToString::to_string).collect::<Vec<_>>(),
        )
    }))
}

/// Reads what the skill whose `SKILL.md` is `text`, in `dir`, needs.
#[must_use]
pub fn needs(text: &str, dir: Option<&Path>, domains: &[Domain]) -> Needs {
    let mut out = Needs::default();
    let Ok(md) = skills_frontmatter::SkillMd::parse(text.as_bytes()) else {
        return out;
    };
    let chains = md.tool_chains();
    if !chains.is_empty() {
        for chain in chains {
            let line = text
                .get(..chain.key_span.start)
                .map_or(1, |t| t.matches('\n').count() + 1);
            let key = format!(
                "metadata.{}{}",
                skills_frontmatter::conventions::TOOLS_PREFIX,
                chain.domain
            );
            out.domains
                .entry(chain.domain.clone())
                .or_default()
                .push(Evidence::Declared { key, line });
            out.chains.insert(chain.domain, chain.tools);
        }
        return out;
    }
    if let Some(allowed) = md.allowed_tools() {
        for tool in skills_frontmatter::parse_allowed_tools(allowed) {
            allowed_tool(&tool, domains, &mut out);
        }
    }
    let body_start = md.body_span().start;
    let first_body_line = text
        .get(..body_start)
        .map_or(1, |t| t.matches('\n').count() + 1);
    code_blocks(md.body(), first_body_line, domains, &mut out);
    if let Some(dir) = dir {
        shebangs(dir, domains, &mut out);
    }
    out
}

fn add(out: &mut Needs, domain: &Domain, evidence: Evidence) {
    let list = out.domains.entry(domain.name.clone()).or_default();
    if !list.contains(&evidence) {
        list.push(evidence);
    }
}

fn allowed_tool(tool: &skills_frontmatter::AllowedTool<'_>, domains: &[Domain], out: &mut Needs) {
    let name = tool.name;
    if let Some(rest) = name.strip_prefix("mcp__") {
        let server = rest.split("__").next().unwrap_or(rest);
        if let Some(domain) = domains::of_server(domains, server) {
            add(
                out,
                domain,
                Evidence::AllowedTools {
                    tool: name.to_string(),
                },
            );
            out.mcp_tools
                .entry(domain.name.clone())
                .or_default()
                .push(name.to_string());
        }
        return;
    }
    if name == "WebFetch" {
        if let Some(domain) = domains.iter().find(|d| d.name == "http") {
            add(
                out,
                domain,
                Evidence::AllowedTools {
                    tool: name.to_string(),
                },
            );
        }
        return;
    }
    if name != "Bash" {
        return;
    }
    for capability in &tool.capabilities {
        let command = capability
            .split([':', ' '])
            .next()
            .unwrap_or_default()
            .trim();
        if let Some(domain) = domains::of_cli(domains, command) {
            let text = format!("Bash({capability})");
            add(out, domain, Evidence::AllowedTools { tool: text });
        }
    }
}

/// The shells whose code blocks hold commands.
const SHELLS: [&str; 6] = ["bash", "sh", "shell", "zsh", "console", "shell-session"];

fn code_blocks(body: &str, first_line: usize, domains: &[Domain], out: &mut Needs) {
    let mut in_block: Option<bool> = None;
    for (i, line) in body.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed
            .strip_prefix("```")
            .or_else(|| trimmed.strip_prefix("~~~"))
        {
            in_block = match in_block {
                Some(_) => None,
                None => {
                    let lang = info
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    Some(SHELLS.contains(&lang.as_str()))
                }
            };
            continue;
        }
        if in_block != Some(true) {
            continue;
        }
        let line_no = first_line + i;
        let command_line = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
        if command_line.starts_with('#') {
            continue;
        }
        for segment in command_line.split(['|', ';', '&', '(', ')', '`']) {
            let mut words = segment.split_whitespace();
            let first = loop {
                match words.next() {
                    // Environment assignments and wrappers before the command.
                    Some(w)
                        if w.contains('=')
                            || matches!(w, "sudo" | "exec" | "time" | "env" | "command") =>
                    {
                        continue;
                    }
                    other => break other,
                }
            };
            let Some(command) = first else { continue };
            let command = command.rsplit('/').next().unwrap_or(command);
            if let Some(domain) = domains::of_cli(domains, command) {
                add(
                    out,
                    domain,
                    Evidence::CodeBlock {
                        command: command.to_string(),
                        line: line_no,
                    },
                );
            }
        }
    }
}

fn shebangs(dir: &Path, domains: &[Domain], out: &mut Needs) {
    let Ok(listing) = skills_core::files::list(dir) else {
        return;
    };
    for file in listing.files {
        if file.path == "SKILL.md" {
            continue;
        }
        let Ok(head) = read_head(&dir.join(&file.path)) else {
            continue;
        };
        let Some(line) = head.strip_prefix("#!") else {
            continue;
        };
        let line = line.lines().next().unwrap_or_default();
        let mut words = line.split_whitespace();
        let mut program = words
            .next()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default();
        if program == "env" {
            program = words.find(|w| !w.starts_with('-')).unwrap_or_default();
        }
        if let Some(domain) = domains::of_cli(domains, program) {
            add(
                out,
                domain,
                Evidence::Shebang {
                    script: file.path.clone(),
                    interpreter: program.to_string(),
                },
            );
        }
    }
}

/// The first 256 bytes of a file, as text.
fn read_head(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut buffer = [0u8; 256];
    let mut file = std::fs::File::open(path)?;
    let n = file.read(&mut buffer)?;
    Ok(String::from_utf8_lossy(buffer.get(..n).unwrap_or_default()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_chain_is_exact() {
        let text = "---\nname: container-ops\ndescription: d\nallowed-tools: Bash(gh:*)\nmetadata:\n  tools.container: mcp__docker__restart_container, podman\n---\n```bash\njq .\n```\n";
        let needs = needs(text, None, &crate::domains::builtin());
        let names: Vec<&str> = needs.domains.keys().map(String::as_str).collect();
        assert_eq!(names, ["container"]);
        assert_eq!(
            needs.domains["container"],
            [Evidence::Declared {
                key: "metadata.tools.container".into(),
                line: 6
            }]
        );
        assert_eq!(
            needs.chains["container"],
            [
                ChainTool::Mcp {
                    server: "docker".into(),
                    tool: Some("restart_container".into())
                },
                ChainTool::Command("podman".into())
            ]
        );
    }

    #[test]
    fn allowed_tools_code_blocks_and_shebangs() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("scripts")).unwrap();
        std::fs::write(
            t.path().join("scripts/check.py"),
            "#!/usr/bin/env -S python3 -u\nprint(1)\n",
        )
        .unwrap();
        let text = "---\nname: container-health\ndescription: d\nallowed-tools: mcp__docker__list_containers Bash(curl:*) Read\n---\n# Check\n\n```bash\n$ FOO=1 sudo docker ps | jq .\n# psql is a comment\n```\n\n```python\npsql = 1\n```\n";
        std::fs::write(t.path().join("SKILL.md"), text).unwrap();
        let needs = needs(text, Some(t.path()), &crate::domains::builtin());
        let names: Vec<&str> = needs.domains.keys().map(String::as_str).collect();
        assert_eq!(names, ["container", "http", "json", "python"]);
        assert_eq!(
            needs.domains["container"],
            [
                Evidence::AllowedTools {
                    tool: "mcp__docker__list_containers".into()
                },
                Evidence::CodeBlock {
                    command: "docker".into(),
                    line: 9
                },
            ]
        );
        assert_eq!(
            needs.mcp_tools["container"],
            ["mcp__docker__list_containers"]
        );
        assert_eq!(
            needs.domains["python"],
            [Evidence::Shebang {
                script: "scripts/check.py".into(),
                interpreter: "python3".into()
            }]
        );
    }
}
