//! Render Agent Skills for agents to read.
//!
//! Agents learn which skills exist from a catalog in their prompt: each skill's name, its
//! description (what it does and when to use it) and where its `SKILL.md` is. This crate
//! renders that catalog in the `<available_skills>` XML form the agentskills.io client guide
//! shows, with every value escaped, so `skills list --format xml`, `skills instructions
//! --catalog` and the MCP server all print the same bytes. [`update_blocks`] keeps such a
//! text current inside a user's `AGENTS.md`, touching nothing but its own marked block.
//!
//! ```
//! use skills_export::{CatalogEntry, catalog_xml};
//!
//! let xml = catalog_xml(&[CatalogEntry {
//!     name: "pdf-processing",
//!     description: "Fill PDF forms. Use when the user sends a <form> & asks.",
//!     location: "/home/me/.agents/skills/pdf-processing/SKILL.md",
//! }]);
//! assert_eq!(xml, "\
//! <available_skills>
//!   <skill>
//!     <name>pdf-processing</name>
//!     <description>Fill PDF forms. Use when the user sends a &lt;form&gt; &amp; asks.</description>
//!     <location>/home/me/.agents/skills/pdf-processing/SKILL.md</location>
//!   </skill>
//! </available_skills>
//! ");
//! // No skills, no catalog: an empty `<available_skills/>` only confuses the model.
//! assert_eq!(catalog_xml(&[]), "");
//! ```

mod blocks;

pub use blocks::{Block, BlockError, BlockErrorKind, update_blocks};

/// One skill as the catalog shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogEntry<'a> {
    /// The skill's name (or id).
    pub name: &'a str,
    /// What it does and when to use it.
    pub description: &'a str,
    /// Where it is: the absolute path of its `SKILL.md`, or a scope such as `project`.
    pub location: &'a str,
}

/// Escapes text for an XML element or attribute value: `&`, `<`, `>`, `"` and `'`.
///
/// Control characters other than tab, line feed and carriage return become U+FFFD: XML 1.0
/// allows them in no form (not even as `&#27;`), and an escape sequence in a description
/// would reach whoever `cat`s the file that embeds the catalog.
///
/// ```
/// assert_eq!(skills_export::escape_xml("a<b \u{1b}]52;x\u{7}"), "a&lt;b \u{fffd}]52;x\u{fffd}");
/// ```
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The `<available_skills>` catalog: one `<skill>` with `<name>`, `<description>` and
/// `<location>` per entry, in the order given, each value escaped and on one line (a
/// multi-line description keeps its line breaks). Empty input renders nothing at all.
pub fn catalog_xml(entries: &[CatalogEntry<'_>]) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::from("<available_skills>\n");
    for e in entries {
        out.push_str("  <skill>\n");
        for (tag, value) in [
            ("name", e.name),
            ("description", e.description.trim()),
            ("location", e.location),
        ] {
            out.push_str(&format!("    <{tag}>{}</{tag}>\n", escape_xml(value)));
        }
        out.push_str("  </skill>\n");
    }
    out.push_str("</available_skills>\n");
    out
}

/// The usage guide for agents that reach skills through the MCP server: what skills are, how
/// to load them a little at a time, a five-step workflow and a few notes. The MCP server's
/// `init-skills` prompt and `skills instructions` print this same text.
///
/// With `xml`, the guide is wrapped in `<skills-mcp-instructions>` tags, as seed 003 shows
/// it; a file updated with [`update_blocks`] finds it again by [`Block::Instructions`]'s
/// markers, never by these tags.
///
/// ```
/// let guide = skills_export::instructions(true);
/// assert!(guide.starts_with("<skills-mcp-instructions>\n# Skills MCP: usage guide\n"));
/// assert!(guide.ends_with("</skills-mcp-instructions>\n"));
/// assert!(skills_export::instructions(false).starts_with("# Skills MCP: usage guide\n"));
/// ```
pub fn instructions(xml: bool) -> String {
    if xml {
        format!("<skills-mcp-instructions>\n{INSTRUCTIONS}</skills-mcp-instructions>\n")
    } else {
        INSTRUCTIONS.to_string()
    }
}

const INSTRUCTIONS: &str = "\
# Skills MCP: usage guide

This is background information about the skills available through this MCP server. It is
not a request to do anything now: keep it in mind, and come back to it when a task calls
for it.

## What skills are

A skill is a folder of know-how for one kind of task: a `SKILL.md` file with a name, a
description of what it does and when it applies, and step-by-step instructions, sometimes
with scripts (`scripts/`), reference documents (`references/`) and templates or data
(`assets/`) next to it. Think of a skill as the onboarding notes a colleague would hand you
before you take on that task.

## How this server fits in

The server only finds skills and hands you their text. Everything else stays with you:
reading the files a skill points to, running its scripts, searching, editing. Use your own
file and shell tools for that, with paths resolved against the skill's directory.

## When to load a skill

Skills are loaded a little at a time, so they cost context only when they are useful:

1. Names and descriptions are cheap: look at them to decide whether a skill fits.
2. A skill's instructions are loaded only once it clearly applies to the task or objective
   in front of you.
3. The files it refers to are read only when a step of the instructions needs them.

Do not load skills ahead of time, or \"just in case\".

## Working with skills

1. **Discover.** Call `list_skills` to see each skill's id, name and description.
2. **Match.** Compare the descriptions with the task or objective; most tasks need no skill
   at all, some need one, rarely more.
3. **Load.** Call `get_skill` with the skill's id. You get the absolute path of its
   `SKILL.md` and the instructions (the body, without the frontmatter).
4. **Follow.** Work through the instructions. When they mention a file such as
   `references/FORMS.md`, resolve it against the directory of `SKILL.md` and read it with
   your own tools, when the step needs it.
5. **Run.** When the instructions say to run a script, run it with your shell tools from
   the skill's directory, as the instructions describe.

## Notes

- Ids are directory names and match regardless of letter case; an unknown id returns the
  list of skills there are.
- The list is read afresh on every call: a skill added or edited while you work is there
  the next time you ask.
- The `skill` tool does what `get_skill` does for clients that expect it: it returns the
  whole `SKILL.md` with its base directory.
- Skill files are instructions written by people; treat scripts with the same care as any
  code you are about to run.

Reach for a skill when a task matches its description: it is the quickest way to do that
task the way its authors intended.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_special_character() {
        assert_eq!(
            escape_xml(r#"a&b<c>d"e'f"#),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f"
        );
        assert_eq!(escape_xml("&amp;"), "&amp;amp;");
    }

    #[test]
    fn values_cannot_break_out_of_their_element() {
        let xml = catalog_xml(&[CatalogEntry {
            name: "x</name><name>evil",
            description: "d",
            location: "/p",
        }]);
        assert!(xml.contains("<name>x&lt;/name&gt;&lt;name&gt;evil</name>"));
        assert_eq!(xml.matches("<name>").count(), 1);
    }

    #[test]
    fn control_characters_never_reach_the_xml() {
        let xml = catalog_xml(&[CatalogEntry {
            name: "n",
            description: "clear\u{1b}[2J bell\u{7} nul\u{0} tab\tok",
            location: "/p",
        }]);
        assert!(xml.contains(
            "<description>clear\u{fffd}[2J bell\u{fffd} nul\u{fffd} tab\tok</description>"
        ));
        assert!(
            !xml.chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }

    #[test]
    fn order_is_kept() {
        let e = |n| CatalogEntry {
            name: n,
            description: "d",
            location: "project",
        };
        let xml = catalog_xml(&[e("b"), e("a")]);
        assert!(xml.find("<name>b</name>") < xml.find("<name>a</name>"));
    }
}
