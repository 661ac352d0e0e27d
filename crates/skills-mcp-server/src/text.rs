//! The texts the tools show: the `skill` tool's description and the not-found message.

use std::borrow::Cow;

use skills_discovery::{Index, Scope, Skill};
use skills_export::escape_xml;

/// The first part of the `skill` tool's description (seed 002's contract: how the tool is
/// called and what it returns), before the `<available_skills>` list.
const SKILL_TOOL_INTRO: &str = "\
Execute a skill within the main conversation

<skills_instructions>
When users ask you to perform tasks, check if any of the available skills below can help \
complete the task more effectively. Skills provide specialized capabilities and domain \
knowledge.

How to use skills:
- Invoke skills using this tool with the skill name only (no arguments)
- When you invoke a skill, you will see <command-message>The \"{name}\" skill is loading</command-message>
- The skill's prompt will expand and provide detailed instructions on how to complete the task
- Examples:
  - `name: \"pdf\"` - invoke the pdf skill
  - `name: \"xlsx\"` - invoke the xlsx skill

Important:
- Only use skills listed in <available_skills> below
- Do not invoke a skill that is already running
- Do not use this tool for built-in CLI commands (like /help, /clear, etc.)
</skills_instructions>
";

/// Where the `skill` tool's list says a skill lives: `project` or `global` (seed 002's two
/// values) for the default roots, and `custom` for a root the user named (`--skills-dir`,
/// `SKILLS_PATH`): calling it `project` would tell the model something untrue.
pub(crate) fn location(scope: Scope) -> &'static str {
    match scope {
        Scope::Global => "global",
        Scope::Project => "project",
        Scope::Custom => "custom",
    }
}

/// The `skill` tool's description: the instructions, then one `<skill>` per active skill.
pub(crate) fn skill_tool_description(index: &Index) -> String {
    let mut out = String::from(SKILL_TOOL_INTRO);
    out.push_str("\n<available_skills>\n");
    for skill in index.skills() {
        out.push_str("<skill>\n");
        for (tag, value) in [
            ("name", skill.id.as_str()),
            ("description", skill.description.trim()),
            ("location", location(skill.scope)),
        ] {
            out.push_str(&format!("<{tag}>{}</{tag}>\n", escape_xml(value)));
        }
        out.push_str("</skill>\n");
    }
    out.push_str("</available_skills>\n");
    out
}

/// One line per skill: `- id: description`, the description on one line.
fn available(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return "(none)\n".to_string();
    }
    let mut out = String::new();
    for skill in skills {
        let description = skill
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("- {}: {description}\n", skill.id));
    }
    out
}

/// The error text when no skill has the name asked for (seed 002).
pub(crate) fn not_found(name: &str, index: &Index) -> String {
    format!(
        "Skill '{}' not found.\n\nAvailable skills:\n{}\nUse the exact skill name (case-insensitive) to load a skill.",
        clip(name),
        available(index.skills())
    )
}

/// How much of a client's own text (a URI, a name, a cursor) an error message quotes back.
const MAX_QUOTED: usize = 200;

/// `text` as an error message quotes it: the first [`MAX_QUOTED`] characters, then `…`.
/// The client chose the text and its length; answers and logs stay small all the same.
pub(crate) fn clip(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or_default()).into(),
        None => text.into(),
    }
}
