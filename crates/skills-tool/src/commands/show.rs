//! `skills show NAME`.

use serde::Serialize;
use skills_discovery::{FileGroup, Roots, Skill, SkillFile};
use skills_frontmatter::SkillMd;

use crate::args::{ShowArgs, ShowFormat, View};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render::{self, display_path};

pub(crate) fn run(args: &ShowArgs, roots: &Roots, printer: &Printer) -> Result<ExitStatus, Error> {
    // One id resolved per root first: no full scan for the common case.
    let Some(skill) = roots.find(&args.name) else {
        return Ok(render::skills::not_found(&args.name, roots, printer));
    };
    let result = match (args.view, args.format) {
        (None, ShowFormat::Text) => raw(&skill, printer.stdout_is_terminal()),
        (view, ShowFormat::Text) => card(&skill, view.unwrap_or(View::Full))
            .map(|c| render::terminal_safe(&c.text()).into_owned()),
        (view, ShowFormat::Json) => card(&skill, view.unwrap_or(View::Full)).map(|c| c.json()),
    };
    let text = result.map_err(|e| errors::unreadable_skill(&skill, &e))?;
    printer.out(&text)?;
    Ok(ExitStatus::Success)
}

/// The whole file: byte for byte when piped; at a terminal with a header, and with control
/// characters shown as `\u{1b}`-style escapes (a skill's ESC sequences could clear the
/// screen or write the clipboard when printed raw).
fn raw(skill: &Skill, terminal: bool) -> Result<String, skills_discovery::DiscoveryError> {
    let text = skill.read()?;
    if terminal {
        let shown = format!(
            "# {} ({} {})\n# {}\n\n{text}",
            skill.id,
            skill.scope,
            display_path(&skill.root),
            skill.skill_md.display()
        );
        Ok(render::terminal_safe(&shown).into_owned())
    } else {
        Ok(text)
    }
}

/// A tool named in `allowed-tools`, in the shape of seed 001's `ToolReference`.
#[derive(Serialize)]
struct ToolReference {
    tool_name: String,
    capabilities: Vec<String>,
}

/// `Bash(git:*) Read` → `Bash` with capability `git:*`, and `Read`: the split the registry
/// makes too (`skills_frontmatter::parse_allowed_tools`).
fn tool_references(allowed: &str) -> Vec<ToolReference> {
    skills_frontmatter::parse_allowed_tools(allowed)
        .into_iter()
        .map(|t| ToolReference {
            tool_name: t.name.to_string(),
            capabilities: t.capabilities.into_iter().map(str::to_string).collect(),
        })
        .collect()
}

#[derive(Serialize)]
struct FileItem {
    path: String,
    size: u64,
    group: &'static str,
}

/// Seed 001's SkillCard, as much of it as a local skill can fill. Fields beyond the view are
/// left out.
#[derive(Serialize)]
struct Card {
    id: String,
    name: String,
    description: String,
    path: String,
    scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    skill_md_url: Option<String>,
    tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compatibility: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_tools: Option<Vec<ToolReference>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<FileItem>>,
    /// `tools.json` and `resources.json` (seed 000's context packages), as written, when the
    /// skill has them and they hold a JSON array.
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    #[serde(skip)]
    view: Option<View>,
}

fn group_name(g: FileGroup) -> &'static str {
    match g {
        FileGroup::Scripts => "scripts",
        FileGroup::References => "references",
        FileGroup::Assets => "assets",
        _ => "other",
    }
}

/// Tags from `metadata.tags`: a comma- or space-separated string.
fn tags(md: &SkillMd) -> Vec<String> {
    md.metadata()
        .into_iter()
        .find(|(k, _)| k == "tags")
        .map(|(_, v)| {
            v.split([',', ' '])
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn card(skill: &Skill, view: View) -> Result<Card, skills_discovery::DiscoveryError> {
    let md = skill.parse()?;
    let summary = matches!(view, View::Summary | View::Full);
    let files: Option<Vec<SkillFile>> = if summary { Some(skill.files()?) } else { None };
    Ok(Card {
        id: skill.id.clone(),
        name: skill.name.clone(),
        description: skill.description.clone(),
        path: skill.skill_md.display().to_string(),
        scope: skill.scope.as_str(),
        skill_md_url: None,
        tags: tags(&md),
        license: md.license().filter(|_| summary).map(str::to_string),
        compatibility: md.compatibility().filter(|_| summary).map(str::to_string),
        allowed_tools: md.allowed_tools().filter(|_| summary).map(tool_references),
        metadata: summary
            .then(|| md.field("metadata").map(|e| e.value.to_json()))
            .flatten()
            .and_then(|v| match v {
                serde_json::Value::Object(m) => Some(m),
                _ => None,
            }),
        files: files.map(|fs| {
            fs.iter()
                .map(|f| FileItem {
                    path: f.path.to_string_lossy().replace('\\', "/"),
                    size: f.size,
                    group: group_name(f.group()),
                })
                .collect()
        }),
        tools: summary
            .then(|| context_file(skill, skills_lint::TOOLS_FILE))
            .flatten(),
        resources: summary
            .then(|| context_file(skill, skills_lint::RESOURCES_FILE))
            .flatten(),
        content: (view == View::Full).then(|| md.body().to_string()),
        view: Some(view),
    })
}

/// The entries of a context file of the skill; `None` when it is absent or not a JSON array
/// (`skills lint` says what is wrong with it).
fn context_file(skill: &Skill, file: &str) -> Option<Vec<serde_json::Value>> {
    if skill.flat {
        return None;
    }
    // Bounded, and never a FIFO: `show` must not block or read a huge file whole.
    let text = skills_prompt::read_context_file(&skill.dir.join(file)).ok()?;
    serde_json::from_str(&text).ok()
}

/// `key` of a context entry, as one line of text.
fn field<'a>(entry: &'a serde_json::Value, key: &str) -> &'a str {
    entry.get(key).and_then(|v| v.as_str()).unwrap_or_default()
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

impl Card {
    fn json(&self) -> String {
        serde_json::to_string_pretty(self)
            .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
    }

    fn text(&self) -> String {
        let mut out = format!("{}\n", self.name);
        if self.name != self.id {
            out.push_str(&format!("id: {}\n", self.id));
        }
        for line in self.description.trim().lines() {
            out.push_str(&format!("  {}\n", line.trim()));
        }
        if !self.tags.is_empty() {
            out.push_str(&format!("tags: {}\n", self.tags.join(", ")));
        }
        // Every view: the card is id, name, description, path, scope and tags.
        out.push_str(&format!("path: {} ({})\n", self.path, self.scope));
        if matches!(self.view, Some(View::Summary | View::Full)) {
            if let Some(l) = &self.license {
                out.push_str(&format!("license: {l}\n"));
            }
            if let Some(c) = &self.compatibility {
                out.push_str(&format!("compatibility: {c}\n"));
            }
            if let Some(tools) = &self.allowed_tools {
                let names: Vec<String> = tools
                    .iter()
                    .map(|t| {
                        if t.capabilities.is_empty() {
                            t.tool_name.clone()
                        } else {
                            format!("{}({})", t.tool_name, t.capabilities.join(","))
                        }
                    })
                    .collect();
                out.push_str(&format!("allowed-tools: {}\n", names.join(" ")));
            }
            if let Some(meta) = &self.metadata {
                out.push_str("metadata:\n");
                for (k, v) in meta {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    out.push_str(&format!("  {k}: {v}\n"));
                }
            }
            if let Some(files) = &self.files {
                out.push_str("files:\n");
                for group in ["scripts", "references", "assets", "other"] {
                    let in_group: Vec<&FileItem> =
                        files.iter().filter(|f| f.group == group).collect();
                    if in_group.is_empty() {
                        continue;
                    }
                    out.push_str(&format!("  {group}:\n"));
                    for f in in_group {
                        out.push_str(&format!("    {}  {}\n", f.path, human_size(f.size)));
                    }
                }
            }
        }
        for (label, entries, key) in [
            ("tools", &self.tools, "name"),
            ("resources", &self.resources, "uri"),
        ] {
            if let Some(entries) = entries.as_ref().filter(|e| !e.is_empty()) {
                out.push_str(&format!("{label}:\n"));
                for e in entries {
                    let description = field(e, "description").lines().next().unwrap_or_default();
                    out.push_str(&format!("  {}  {description}\n", field(e, key)));
                }
            }
        }
        if let Some(body) = &self.content {
            out.push('\n');
            out.push_str(body);
            if !body.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_tools_become_tool_references() {
        let refs = tool_references("Read Bash(git commit:*) Bash(jq:*,ls)");
        let names: Vec<&str> = refs.iter().map(|r| r.tool_name.as_str()).collect();
        assert_eq!(names, ["Read", "Bash", "Bash"]);
        assert_eq!(refs[1].capabilities, ["git commit:*"]);
        assert_eq!(refs[2].capabilities, ["jq:*", "ls"]);
    }

    #[test]
    fn sizes() {
        assert_eq!(human_size(10), "10 B");
        assert_eq!(human_size(2048), "2.0 KiB");
    }
}
