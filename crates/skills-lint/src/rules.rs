//! The rule registry: every rule's id, default severity and documentation.
//!
//! `docs/lint-rules.md` is generated from [`RULES`] by `cargo xtask lint-docs`, so the table
//! here is the single source of truth for what `skills lint` checks.

use skills_frontmatter::Check;

use crate::diagnostic::Severity;

/// What a rule needs to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The `SKILL.md` file alone (implemented in `skills-frontmatter`).
    File,
    /// The skill's directory: its files and the files the body points at.
    Directory,
    /// Every skill of the run together.
    Run,
}

/// The rules `skills-lint` itself implements (directory and run scope), around the
/// frontmatter's checks in documentation order: the checks come from
/// [`skills_frontmatter::for_each_check!`], so each rule is declared once. A new rule is a
/// line here (or in that list), its implementation, and its [`RULES`] entry.
macro_rules! define_rule_ids {
    (
        before: [$($b:ident = $bid:literal,)*]
        after: [$($a:ident = $aid:literal,)*]
        [$($c:ident = $cid:literal,)*]
    ) => {
        /// Every rule, by identity: the frontmatter's [`Check`]s and the directory and run
        /// rules.
        ///
        /// A diagnostic carries one, severities are configured per one, and its [`Rule`]
        /// (label, help, documentation) is one lookup away: nothing matches rule ids as
        /// strings at run time. Its kebab-case form ([`RuleId::as_str`], also `Display` and
        /// `FromStr`) never changes once released. Ordered by that form, so output sorted by
        /// rule stays as it was.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // Each variant is documented by its rule in [`RULES`].
        pub enum RuleId {
            $($b,)*
            $($c,)*
            $($a,)*
        }

        impl RuleId {
            /// Every rule id, in documentation order (the order of [`RULES`]).
            pub const ALL: &'static [RuleId] = &[$(RuleId::$b,)* $(RuleId::$c,)* $(RuleId::$a,)*];

            /// The stable kebab-case id.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$b => $bid,)*
                    $(RuleId::$c => $cid,)*
                    $(RuleId::$a => $aid,)*
                }
            }
        }

        impl From<Check> for RuleId {
            fn from(check: Check) -> Self {
                match check {
                    $(Check::$c => RuleId::$c,)*
                    // `Check` is non-exhaustive, but both lists are the same list.
                    _ => RuleId::FileUnreadable,
                }
            }
        }
    };
}

skills_frontmatter::for_each_check!(define_rule_ids! {
    before: [
        SkillMdMissing = "skill-md-missing",
        SkillMdLowercase = "skill-md-lowercase",
        SkillMdFlat = "skill-md-flat",
        FileUnreadable = "file-unreadable",
    ]
    after: [
        LinkMissing = "link-missing",
        LinkOutsideSkill = "link-outside-skill",
        ReferenceTooDeep = "reference-too-deep",
        FileNotPackageable = "file-not-packageable",
        TooManyFiles = "too-many-files",
        SkillTooLarge = "skill-too-large",
        ToolsJsonInvalid = "tools-json-invalid",
        ToolNameInvalid = "tool-name-invalid",
        ToolSchemaInvalid = "tool-schema-invalid",
        ToolDuplicate = "tool-duplicate",
        ToolShadowsUniversal = "tool-shadows-universal",
        ToolReferenceUnknown = "tool-reference-unknown",
        ResourcesJsonInvalid = "resources-json-invalid",
        ResourceUriInvalid = "resource-uri-invalid",
        ResourceDuplicate = "resource-duplicate",
        ResourceMissing = "resource-missing",
        DuplicateName = "duplicate-name",
    ]
});

impl RuleId {
    /// The rule's registry entry.
    pub fn rule(self) -> &'static Rule {
        // The variants are declared in the order of RULES (a test holds them together), so
        // the discriminant is the index of the rule.
        RULES.get(self as usize).unwrap_or(&FALLBACK)
    }
}

/// Never used: [`RuleId::rule`] finds every id (a test checks it); this keeps it total.
const FALLBACK: Rule = Rule {
    id: RuleId::SkillMdMissing,
    label: "here",
    default: Error,
    scope: Directory,
    summary: "",
    rationale: "",
    fix: "",
    help: "",
    bad: "",
    good: "",
};

impl PartialOrd for RuleId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RuleId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule id that no rule has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule `{0}`")]
pub struct UnknownRule(pub String);

impl std::str::FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(id: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == id)
            .ok_or_else(|| UnknownRule(id.to_string()))
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A lint rule and its documentation.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The rule's identity; its kebab-case form ([`RuleId::as_str`]) is what output
    /// prints and `--deny`/`--warn`/`--allow` take.
    pub id: RuleId,
    /// The words under the marked text in a human diagnostic (`name`, `not found in the
    /// skill`).
    pub label: &'static str,
    /// Severity unless configured otherwise.
    pub default: Severity,
    /// What it checks.
    pub scope: Scope,
    /// One line: what the rule reports.
    pub summary: &'static str,
    /// Why it matters, with the source (spec, reference validator, clients).
    pub rationale: &'static str,
    /// How to fix a finding, as the docs say it.
    pub fix: &'static str,
    /// The same as a diagnostic's help line (lowercase, no final period), for findings
    /// that have nothing more specific to say.
    pub help: &'static str,
    /// A `SKILL.md` excerpt (or layout) that triggers the rule.
    pub bad: &'static str,
    /// The same, fixed.
    pub good: &'static str,
}

use Scope::{Directory, File, Run};
use Severity::{Error, Warning};

const GOOD_FM: &str = "---\nname: pdf-processing\ndescription: Extract text from PDFs. Use when the user sends a PDF.\n---";

/// Every rule, in documentation order.
pub static RULES: &[Rule] = &[
    Rule {
        id: RuleId::SkillMdMissing,
        label: "here",
        default: Error,
        scope: Directory,
        summary: "A skill directory (or a path given to lint) has no `SKILL.md`.",
        rationale: "The spec: \"a skill is a directory containing, at minimum, a `SKILL.md` file\". Clients look for that exact name; `Skill.md` is missed on case-sensitive filesystems.",
        fix: "Add `SKILL.md` (uppercase) with `name` and `description` frontmatter, or rename the existing file.",
        help: "add `SKILL.md` (uppercase) with `name` and `description` frontmatter, or rename the existing file",
        bad: "pdf-processing/\n  Skill.md",
        good: "pdf-processing/\n  SKILL.md",
    },
    Rule {
        id: RuleId::SkillMdLowercase,
        label: "here",
        default: Warning,
        scope: Directory,
        summary: "The file is named `skill.md` instead of `SKILL.md`.",
        rationale: "The reference validator accepts `skill.md`, but most clients look only for `SKILL.md`.",
        fix: "Rename `skill.md` to `SKILL.md`.",
        help: "rename `skill.md` to `SKILL.md`",
        bad: "pdf-processing/\n  skill.md",
        good: "pdf-processing/\n  SKILL.md",
    },
    Rule {
        id: RuleId::SkillMdFlat,
        label: "here",
        default: Warning,
        scope: Directory,
        summary: "A flat skill file: a `NAME.md` with frontmatter directly in a skills folder, or named to lint, instead of `NAME/SKILL.md`.",
        rationale: "The specification's skill is a directory holding `SKILL.md`: Claude Code, Codex and the other agents that follow it load `.claude/skills/NAME/SKILL.md`, never `.claude/skills/NAME.md`. `skills list`, `show` and `mcp` find flat files, for the agents that keep their skills so (an operations agent's `.claude/skills/git-pr.md`), and lint checks them as the `SKILL.md` of the directory they stand for (`name` held to `NAME`, the file its only file); `skills package` packages one as `NAME/SKILL.md`. Allow the rule where flat files are the convention.",
        fix: "Make it a skill directory: `mkdir NAME && mv NAME.md NAME/SKILL.md`.",
        help: "make it a skill directory: `mkdir NAME && mv NAME.md NAME/SKILL.md`",
        bad: ".claude/skills/git-pr.md",
        good: ".claude/skills/git-pr/SKILL.md",
    },
    Rule {
        id: RuleId::FileUnreadable,
        label: "here",
        default: Error,
        scope: Directory,
        summary: "`SKILL.md` exists but cannot be read (permissions, or it is not a regular file), a file or directory of the skill cannot be read, or a directory lint walks cannot be listed (the skills in it are not checked).",
        rationale: "A client cannot load what it cannot read; without a directory's listing, no link into it can be checked, and a skill in a directory lint cannot read is a skill nobody checked: a CI that passed over it would pass a skill it never saw. `skills package` and `skills install` refuse a skill with a file they cannot read.",
        fix: "Make `SKILL.md` a readable regular file (`chmod a+r SKILL.md`), and the directories readable (`chmod a+rx DIR`); a directory that is not yours to lint can be left out with a `.ignore` file.",
        help: "make `SKILL.md` a readable regular file (`chmod a+r SKILL.md`)",
        bad: "-rw------- root SKILL.md",
        good: "-rw-r--r-- you SKILL.md",
    },
    Rule {
        id: RuleId::FileTooLarge,
        label: "here",
        default: Error,
        scope: File,
        summary: "`SKILL.md` is over 1 MiB and is not read.",
        rationale: "A `SKILL.md` is loaded whole into a model's context; a file this size is a mistake or an attack, and reading it would cost memory for nothing.",
        fix: "Keep `SKILL.md` short and move material into `references/` files.",
        help: "keep `SKILL.md` short and move material into `references/` files",
        bad: "SKILL.md (3 MiB of pasted logs)",
        good: "SKILL.md (200 lines) + references/LOGS.md",
    },
    Rule {
        id: RuleId::InvalidUtf8,
        label: "here",
        default: Error,
        scope: File,
        summary: "`SKILL.md` is not valid UTF-8; the byte offset is reported.",
        rationale: "Every client decodes `SKILL.md` as UTF-8; the reference validator crashes on other encodings.",
        fix: "Re-save the file as UTF-8.",
        help: "re-save the file as UTF-8",
        bad: "description: caf\\xe9 (Latin-1 byte)",
        good: "description: café (UTF-8)",
    },
    Rule {
        id: RuleId::Utf8Bom,
        label: "here",
        default: Warning,
        scope: File,
        summary: "`SKILL.md` starts with a UTF-8 byte order mark.",
        rationale: "The spec does not allow for one, and parsers that require `---` on the first line (the reference validator among them) then see no frontmatter.",
        fix: "Save the file as UTF-8 without a BOM.",
        help: "save the file as UTF-8 without a BOM",
        bad: "\\ufeff---\nname: pdf-processing",
        good: "---\nname: pdf-processing",
    },
    Rule {
        id: RuleId::FrontmatterMissing,
        label: "here",
        default: Error,
        scope: File,
        summary: "`SKILL.md` does not start with a `---` line.",
        rationale: "The spec: \"The `SKILL.md` file must contain YAML frontmatter followed by Markdown content.\" Nothing, not even a blank line, may come before the opening `---`.",
        fix: "Start the file with `---`, the `name` and `description` fields, and a closing `---`.",
        help: "start the file with `---`, the `name` and `description` fields, and a closing `---`",
        bad: "# PDF processing\n\nExtract text from PDFs.",
        good: GOOD_FM,
    },
    Rule {
        id: RuleId::FrontmatterUnclosed,
        label: "opened here",
        default: Error,
        scope: File,
        summary: "The frontmatter has no closing `---` line.",
        rationale: "Without the closing fence the whole file would be read as YAML. Only a line that is exactly `---` (trailing spaces allowed) closes it; `----` or `--- x` do not.",
        fix: "Add a line containing only `---` after the last field.",
        help: "add a line containing only `---` after the last field",
        bad: "---\nname: pdf-processing\ndescription: Extract text from PDFs.\n# PDF",
        good: "---\nname: pdf-processing\ndescription: Extract text from PDFs.\n---\n# PDF",
    },
    Rule {
        id: RuleId::FrontmatterNotMapping,
        label: "here",
        default: Error,
        scope: File,
        summary: "The frontmatter is empty, or is YAML but not a mapping of fields.",
        rationale: "The spec's fields are keys of a YAML mapping; a list or a bare string has none.",
        fix: "Write the frontmatter as `key: value` lines.",
        help: "write the frontmatter as `key: value` lines",
        bad: "---\n- pdf-processing\n---",
        good: GOOD_FM,
    },
    Rule {
        id: RuleId::YamlInvalid,
        label: "here",
        default: Error,
        scope: File,
        summary: "The frontmatter is not valid YAML; the line and column are reported.",
        rationale: "Clients parse the frontmatter with a YAML parser and skip skills they cannot parse. The classic mistake is an unquoted `: ` inside a value.",
        fix: "Fix the syntax at the marked position; quote values containing `: `, `#`, `[` or `{`, or use a block scalar (`>-`).",
        help: "fix the syntax at the marked position; quote values containing `: `, `#`, `[` or `{`, or use a block scalar (`>-`)",
        bad: "description: Use when: the user asks",
        good: "description: \"Use when: the user asks\"",
    },
    Rule {
        id: RuleId::YamlDuplicateKey,
        label: "here",
        default: Error,
        scope: File,
        summary: "A frontmatter key appears twice.",
        rationale: "YAML forbids duplicate keys; lenient parsers silently keep one of the two, so clients disagree on the value.",
        fix: "Remove one of the entries.",
        help: "remove one of the entries",
        bad: "name: pdf\nname: pdf-processing",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::YamlTooComplex,
        label: "here",
        default: Error,
        scope: File,
        summary: "The frontmatter exceeds the parser's budgets: too many anchors or alias expansions, nesting deeper than 32, or over 10,000 nodes.",
        rationale: "A few hundred bytes of aliases can expand to gigabytes (\"billion laughs\"); some YAML libraries then exhaust memory and abort. Real frontmatter never comes close to these limits.",
        fix: "Write plain fields without anchors, aliases or deep nesting.",
        help: "write plain fields without anchors, aliases or deep nesting",
        bad: "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b] # ...",
        good: GOOD_FM,
    },
    Rule {
        id: RuleId::NameMissing,
        label: "name",
        default: Error,
        scope: File,
        summary: "The required `name` field is missing.",
        rationale: "The spec: `name` is required.",
        fix: "Add `name:` with the directory name.",
        help: "add `name:` with the directory name",
        bad: "---\ndescription: Extract text from PDFs.\n---",
        good: GOOD_FM,
    },
    Rule {
        id: RuleId::NameNotString,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` is not a string (a number, a boolean, a list...).",
        rationale: "YAML reads `name: true` as a boolean and `name: [a]` as a list; the spec's name is text.",
        fix: "Quote the value or write it as plain text.",
        help: "quote the value or write it as plain text",
        bad: "name: true",
        good: "name: \"true\"",
    },
    Rule {
        id: RuleId::NameEmpty,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` is empty.",
        rationale: "The spec: \"Must be 1-64 characters\".",
        fix: "Set `name` to the directory name.",
        help: "set `name` to the directory name",
        bad: "name: \"\"",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::NameTooLong,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` is longer than 64 characters (Unicode code points, after NFKC).",
        rationale: "The spec: \"Must be 1-64 characters\". Counted in code points, as the spec and the reference validator do.",
        fix: "Shorten the name and rename the directory to match.",
        help: "shorten the name and rename the directory to match",
        bad: "name: a-very-long-name-that-goes-on-and-on-and-on-well-past-the-sixty-four-limit",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::NameNotLowercase,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` has uppercase letters.",
        rationale: "The spec allows only lowercase letters, digits and hyphens.",
        fix: "Use the lowercase form (the help shows it).",
        help: "use the lowercase form (the help shows it)",
        bad: "name: PDF-Processing",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::NameHyphenEdge,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` starts or ends with a hyphen.",
        rationale: "The spec: \"Must not start or end with a hyphen\".",
        fix: "Remove the leading or trailing hyphen.",
        help: "remove the leading or trailing hyphen",
        bad: "name: -pdf",
        good: "name: pdf",
    },
    Rule {
        id: RuleId::NameConsecutiveHyphens,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` contains `--`.",
        rationale: "The spec: \"Must not contain consecutive hyphens\".",
        fix: "Use single hyphens.",
        help: "use single hyphens",
        bad: "name: pdf--processing",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::NameInvalidChars,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` has characters other than letters, digits and `-` (underscores, spaces, dots...).",
        rationale: "The spec allows only alphanumeric characters and hyphens.",
        fix: "Replace the other characters with hyphens.",
        help: "replace the other characters with hyphens",
        bad: "name: pdf_processing",
        good: "name: pdf-processing",
    },
    Rule {
        id: RuleId::NameNonAscii,
        label: "name",
        default: Warning,
        scope: File,
        summary: "`name` has non-ASCII letters or digits.",
        rationale: "The spec says \"unicode lowercase alphanumeric\" but lists `a-z` and `0-9`; the reference validator accepts any script, while the MCP skills extension, its conformance suite and several clients accept ASCII only.",
        fix: "Use only `a-z`, `0-9` and `-` if the skill should work everywhere.",
        help: "use only `a-z`, `0-9` and `-` if the skill should work everywhere",
        bad: "name: навык",
        good: "name: navyk",
    },
    Rule {
        id: RuleId::NameDirMismatch,
        label: "name",
        default: Error,
        scope: File,
        summary: "`name` differs from the skill's directory name (compared after NFKC normalization).",
        rationale: "The spec: \"Must match the parent directory name\". Clients identify a skill by its directory; a mismatch makes the same skill answer to two names.",
        fix: "Rename the directory or change `name` so they match.",
        help: "rename the directory or change `name` so they match",
        bad: "pdf/SKILL.md:\nname: pdf-processing",
        good: "pdf-processing/SKILL.md:\nname: pdf-processing",
    },
    Rule {
        id: RuleId::DescriptionMissing,
        label: "description",
        default: Error,
        scope: File,
        summary: "The required `description` field is missing.",
        rationale: "The spec: `description` is required; agents choose skills by it, and clients skip skills without one.",
        fix: "Add a description of what the skill does and when to use it.",
        help: "add a description of what the skill does and when to use it",
        bad: "---\nname: pdf-processing\n---",
        good: GOOD_FM,
    },
    Rule {
        id: RuleId::DescriptionNotString,
        label: "description",
        default: Error,
        scope: File,
        summary: "`description` is not a string.",
        rationale: "The spec's description is text; a list or a mapping cannot be shown in a catalog.",
        fix: "Write the description as text (use `>-` for several lines).",
        help: "write the description as text (use `>-` for several lines)",
        bad: "description:\n  - Extract text\n  - Fill forms",
        good: "description: >-\n  Extract text and fill forms. Use when the user sends a PDF.",
    },
    Rule {
        id: RuleId::DescriptionEmpty,
        label: "description",
        default: Error,
        scope: File,
        summary: "`description` is empty or only whitespace.",
        rationale: "The spec: \"Must be 1-1024 characters\" and \"Non-empty\".",
        fix: "Say what the skill does and when to use it.",
        help: "say what the skill does and when to use it",
        bad: "description: \"\"",
        good: "description: Extract text from PDFs. Use when the user sends a PDF.",
    },
    Rule {
        id: RuleId::DescriptionTooLong,
        label: "description",
        default: Error,
        scope: File,
        summary: "`description` is longer than 1024 characters (code points).",
        rationale: "The spec: \"Must be 1-1024 characters\". Every description is in the catalog of every conversation; long ones crowd out the others.",
        fix: "Keep what and when in the description; move details into the body.",
        help: "keep what and when in the description; move details into the body",
        bad: "description: (1,068 characters)",
        good: "description: (under 1,024 characters)",
    },
    Rule {
        id: RuleId::DescriptionXmlChars,
        label: "description",
        default: Warning,
        scope: File,
        summary: "`description` contains `<` or `>`.",
        rationale: "Agents embed descriptions in XML catalogs (`<available_skills>`); Anthropic's validator rejects angle brackets, and naive clients do not escape them.",
        fix: "Reword without angle brackets.",
        help: "reword without angle brackets",
        bad: "description: Converts <input> files. Use when asked.",
        good: "description: Converts input files. Use when asked.",
    },
    Rule {
        id: RuleId::DescriptionNoTrigger,
        label: "description",
        default: Warning,
        scope: File,
        summary: "`description` does not say when to use the skill.",
        rationale: "The spec: the description \"should describe both what the skill does and when to use it\". The check looks for words such as `when`, `use`, `for`, `if`, `before`, `after`.",
        fix: "Add a sentence such as \"Use when the user asks to ...\".",
        help: "add a sentence such as \"Use when the user asks to ...\"",
        bad: "description: PDF utilities.",
        good: "description: PDF utilities. Use when the user asks to extract text or fill a form.",
    },
    Rule {
        id: RuleId::DescriptionPlaceholder,
        label: "placeholder",
        default: Error,
        scope: File,
        summary: "`description` is a placeholder: it starts with `TODO`, `TBD`, `FIXME` or `XXX`, as `skills new` writes it.",
        rationale: "Agents decide whether to load a skill from its description alone: a placeholder makes the skill one no agent picks, or one picked for anything. `skills new` writes one (`TODO: say what ...`) so that a scaffold cannot pass lint, or be packaged or installed, before its author describes it.",
        fix: "Write what the skill does and when to use it.",
        help: "write what the skill does and when to use it: agents pick skills by their description alone",
        bad: "description: \"TODO: say what PDF Forms does, then when to use it: Use when the user asks to ...\"",
        good: "description: Fill PDF forms from a table of values. Use when the user asks to fill a PDF form.",
    },
    Rule {
        id: RuleId::CompatibilityNotString,
        label: "here",
        default: Error,
        scope: File,
        summary: "`compatibility` is not a string.",
        rationale: "The spec: a string of 1-500 characters.",
        fix: "Write it as one line of text.",
        help: "write it as one line of text",
        bad: "compatibility: [python3, poppler]",
        good: "compatibility: Requires python3 and poppler-utils",
    },
    Rule {
        id: RuleId::CompatibilityEmpty,
        label: "here",
        default: Error,
        scope: File,
        summary: "`compatibility` is present but empty.",
        rationale: "The spec: \"Must be 1-500 characters if provided\" (the reference validator misses this).",
        fix: "Remove the field or name the requirements.",
        help: "remove the field or name the requirements",
        bad: "compatibility: \"\"",
        good: "compatibility: Requires network access",
    },
    Rule {
        id: RuleId::CompatibilityTooLong,
        label: "here",
        default: Error,
        scope: File,
        summary: "`compatibility` is longer than 500 characters.",
        rationale: "The spec: \"Must be 1-500 characters if provided\".",
        fix: "Keep it to the environment requirements.",
        help: "keep it to the environment requirements",
        bad: "compatibility: (620 characters)",
        good: "compatibility: Requires python3 and network access",
    },
    Rule {
        id: RuleId::MetadataNotMapping,
        label: "value",
        default: Error,
        scope: File,
        summary: "`metadata` is not a mapping.",
        rationale: "The spec: \"A map from string keys to string values\".",
        fix: "Write `metadata:` followed by indented `key: \"value\"` lines.",
        help: "write `metadata:` followed by indented `key: \"value\"` lines",
        bad: "metadata: author=me",
        good: "metadata:\n  author: me",
    },
    Rule {
        id: RuleId::MetadataValueNotString,
        label: "value",
        default: Error,
        scope: File,
        summary: "A `metadata` value is not a string (an unquoted number or boolean, a list, a nested map).",
        rationale: "The spec: string keys to string values. YAML reads `version: 1.0` as a float, so strict clients reject the skill and others print `1`.",
        fix: "Quote the value.",
        help: "quote the value",
        bad: "metadata:\n  version: 1.0",
        good: "metadata:\n  version: \"1.0\"",
    },
    Rule {
        id: RuleId::MetadataMinTierInvalid,
        label: "value",
        default: Error,
        scope: File,
        summary: "`metadata.min-tier` is not a positive integer.",
        rationale: "Seed 004's tier gate: `skills mcp --tier N` does not serve a skill whose `min-tier` is above `N`. A value it cannot read declares no tier, so the skill would be served to every tier.",
        fix: "Write the lowest tier that may use the skill, quoted.",
        help: "write the lowest tier that may use the skill, quoted",
        bad: "metadata:\n  min-tier: remediation",
        good: "metadata:\n  min-tier: \"2\"",
    },
    Rule {
        id: RuleId::MetadataToolsInvalid,
        label: "value",
        default: Error,
        scope: File,
        summary: "A `metadata.tools.<domain>` fallback chain that cannot be read: a domain that is not lowercase-and-hyphens, an empty chain or entry, an entry that is neither `mcp__<server>__<tool>` nor a command, an entry written twice.",
        rationale: "`skills doctor` walks the chain in the order written and uses the first tool available (seed 004's MCP → CLI → HTTP, made exact). A chain it cannot read is ignored, and the skill falls back to what doctor infers.",
        fix: "Write comma-separated tools in the order to try them.",
        help: "write comma-separated tools in the order to try them",
        bad: "metadata:\n  tools.container: docker ps; podman ps",
        good: "metadata:\n  tools.container: \"mcp__docker__list_containers, docker, podman\"",
    },
    Rule {
        id: RuleId::AllowedToolsNotString,
        label: "here",
        default: Error,
        scope: File,
        summary: "`allowed-tools` is not a string (often a YAML list).",
        rationale: "The spec: \"A space-separated string of tools\" (it was reworded in 2026 to make clear it is one scalar).",
        fix: "Join the tools with spaces.",
        help: "join the tools with spaces",
        bad: "allowed-tools:\n  - Read\n  - Bash(git:*)",
        good: "allowed-tools: Read Bash(git:*)",
    },
    Rule {
        id: RuleId::LicenseNotString,
        label: "here",
        default: Warning,
        scope: File,
        summary: "`license` is not a string.",
        rationale: "The spec: a license name or the name of a bundled license file.",
        fix: "Name one license or file.",
        help: "name one license or file",
        bad: "license: [MIT, Apache-2.0]",
        good: "license: MIT OR Apache-2.0",
    },
    Rule {
        id: RuleId::UnknownField,
        label: "field",
        default: Warning,
        scope: File,
        summary: "A top-level field the spec does not define.",
        rationale: "The spec defines `name`, `description`, `license`, `compatibility`, `metadata` and `allowed-tools`; the reference validator rejects anything else, and clients ignore it.",
        fix: "Move the field under `metadata:`, or fix its spelling.",
        help: "move the field under `metadata:`, or fix its spelling",
        bad: "version: \"1.2\"",
        good: "metadata:\n  version: \"1.2\"",
    },
    Rule {
        id: RuleId::VendorField,
        label: "field",
        default: Warning,
        scope: File,
        summary: "A field one agent understands but the spec does not (`disable-model-invocation`, `user-invocable`, `argument-hint`, `model`...).",
        rationale: "Claude Code and others add their own fields; they work there and are ignored (or rejected) elsewhere.",
        fix: "Keep it if you target that agent, or `--allow vendor-field`.",
        help: "keep it if you target that agent, or `--allow vendor-field`",
        bad: "disable-model-invocation: true",
        good: "(no vendor fields, or the rule allowed in skills.toml)",
    },
    Rule {
        id: RuleId::BodyEmpty,
        label: "here",
        default: Warning,
        scope: File,
        summary: "Nothing after the frontmatter.",
        rationale: "The body is the instructions the agent follows once the skill is active.",
        fix: "Write the instructions.",
        help: "write the instructions",
        bad: "---\nname: pdf-processing\ndescription: ...\n---",
        good: "---\nname: pdf-processing\ndescription: ...\n---\n# PDF processing\n\n1. ...",
    },
    Rule {
        id: RuleId::BodyTooLong,
        label: "limit passed here",
        default: Warning,
        scope: File,
        summary: "The body is over 500 lines.",
        rationale: "The spec: \"Keep your main `SKILL.md` under 500 lines. Move detailed reference material to separate files.\"",
        fix: "Move reference material into `references/` and link it.",
        help: "move reference material into `references/` and link it",
        bad: "SKILL.md with 680 lines",
        good: "SKILL.md with 200 lines + references/API.md",
    },
    Rule {
        id: RuleId::BodyTooManyTokens,
        label: "limit passed here",
        default: Warning,
        scope: File,
        summary: "The body is over about 5,000 tokens, estimated as UTF-8 bytes divided by 4.",
        rationale: "The spec recommends under 5,000 tokens for the instructions, which are loaded whole on activation. Bytes / 4 is the rule of thumb for English text; it is an estimate, not a tokenizer.",
        fix: "Move reference material into `references/` and link it.",
        help: "move reference material into `references/` and link it",
        bad: "SKILL.md body of 30 KB",
        good: "SKILL.md body of 12 KB + references/",
    },
    Rule {
        id: RuleId::ControlChars,
        label: "here",
        default: Error,
        scope: File,
        summary: "`SKILL.md` contains a control character other than tab and line breaks (ESC, BEL, NUL, DEL, C1).",
        rationale: "Skills are printed at terminals and embedded in XML catalogs. ESC starts escape sequences a terminal runs when it prints them (OSC 52 writes the clipboard, `ESC [2J` clears the screen), and XML 1.0 cannot hold BEL, ESC or NUL at all, so a catalog that contains one is invalid. No instruction needs them.",
        fix: "Delete the character; to show an escape sequence, write it as text (`\\e[2J`) in a code block.",
        help: "delete the character; to show an escape sequence, write it as text (`\\e[2J`) in a code block",
        bad: "description: Colours output \\x1b[31mred\\x1b[0m. Use when asked. (with a raw ESC)",
        good: "description: Colours terminal output. Use when asked.",
    },
    Rule {
        id: RuleId::LinkMissing,
        label: "not found in the skill",
        default: Warning,
        scope: Directory,
        summary: "A relative link in the body (`[x](references/FORMS.md)`), or a file path in code (`` `scripts/fill.py` ``, or in a fenced example), names a file that is not in the skill.",
        rationale: "The agent will try to read or run it and fail. Besides links, paths under `scripts/`, `references/` and `assets/` written in backticks or a fenced code block are references, unless they end with `/` (a folder the skill may create when it runs); prose is not (\"see assets/code,\", \"outputs go to assets/output/.\" say where things go).",
        fix: "Add the file or correct the path (paths are relative to the skill directory).",
        help: "add the file or correct the path (paths are relative to the skill directory)",
        bad: "See [forms](references/FORM.md).   (the file is FORMS.md)",
        good: "See [forms](references/FORMS.md).",
    },
    Rule {
        id: RuleId::LinkOutsideSkill,
        label: "outside the skill",
        default: Warning,
        scope: Directory,
        summary: "A link or path in the body is absolute or climbs out of the skill directory, or a symlink in the skill points outside it (it is not followed).",
        rationale: "The spec: reference files \"using relative paths from the skill root\". A skill is installed and packaged as one directory; paths outside it break.",
        fix: "Copy the file into the skill and link it relatively.",
        help: "copy the file into the skill and link it relatively",
        bad: "See [style](../shared/STYLE.md) and /etc/app.conf.",
        good: "See [style](references/STYLE.md).",
    },
    Rule {
        id: RuleId::ReferenceTooDeep,
        label: "nested reference",
        default: Warning,
        scope: Directory,
        summary: "A Markdown file that `SKILL.md` links to links on to further Markdown files in the skill.",
        rationale: "The spec: \"Keep file references one level deep from `SKILL.md`. Avoid deeply nested reference chains.\" Agents may read a linked file only partly and miss what it points to.",
        fix: "Link the nested file directly from `SKILL.md`.",
        help: "link the nested file directly from `SKILL.md`",
        bad: "SKILL.md -> references/a.md -> references/b.md",
        good: "SKILL.md -> references/a.md, SKILL.md -> references/b.md",
    },
    Rule {
        id: RuleId::FileNotPackageable,
        label: "here",
        default: Error,
        scope: Directory,
        summary: "A file of the skill that `skills package` and `skills install` refuse: a name that is not UTF-8, a broken symlink, a symlink to a directory that contains it or links that lead to each other, or an ignore file with an invalid pattern.",
        rationale: "A package holds all of a skill or nothing, so each of these stops `skills package` and `skills install`, and the MCP server leaves the file out. Lint reports them so that a skill that lints clean also packages: a ZIP entry, a `skill://` URI and most agents need a name that is text, and a link that leads nowhere is a file the skill does not have.",
        fix: "Rename the file with UTF-8 characters, remove the broken or looping link (or add what it points to inside the skill), or fix the ignore file's pattern.",
        help: "rename it, remove it, or fix it: `skills package` and `skills install` refuse the skill as it is",
        bad: "scripts/r\\xe9sum\\xe9.py (Latin-1), notes.md -> drafts/gone.md (no such file)",
        good: "scripts/resume.py, notes.md",
    },
    Rule {
        id: RuleId::TooManyFiles,
        label: "here",
        default: Warning,
        scope: Directory,
        summary: "The skill holds more than 512 files.",
        rationale: "The MCP skills extension limits a served skill to 512 resources; hosts need not accept more.",
        fix: "Remove generated or vendored files, or split the skill.",
        help: "remove generated or vendored files, or split the skill",
        bad: "node_modules copied into scripts/",
        good: "scripts/ with the skill's own scripts",
    },
    Rule {
        id: RuleId::SkillTooLarge,
        label: "here",
        default: Warning,
        scope: Directory,
        summary: "The skill's files add up to more than 16 MiB.",
        rationale: "The MCP skills extension limits a served skill to 16 MiB (16,777,216 bytes); hosts need not accept more.",
        fix: "Move large assets out of the skill or fetch them at run time.",
        help: "move large assets out of the skill or fetch them at run time",
        bad: "assets/ with a 40 MB video",
        good: "assets/ with small templates",
    },
    Rule {
        id: RuleId::ToolsJsonInvalid,
        label: "here",
        default: Error,
        scope: Directory,
        summary: "`tools.json` is not a JSON array of tool definitions: a syntax error (with its line and column), another top-level value, an entry that is not an object, or a missing or mistyped `description`, `title` or `annotations`.",
        rationale: "Seed 000's context packages: `tools.json` beside `SKILL.md` lists the MCP tools the skill brings, offered only while the skill is active. A client that cannot parse it loses every tool; the model picks tools by their `description`, so each needs one.",
        fix: "Fix the JSON at the marked position and give each tool a `name`, a `description` and an `inputSchema`.",
        help: "fix the JSON at the marked position and give each tool a `name`, a `description` and an `inputSchema`",
        bad: "tools.json:\n[\n  {\"name\": \"get_explain_plan\", \"inputSchema\": {\"type\": \"object\"},}\n]",
        good: "tools.json:\n[\n  {\n    \"name\": \"get_explain_plan\",\n    \"description\": \"Return the plan of a Trino query.\",\n    \"inputSchema\": {\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}}}\n  }\n]",
    },
    Rule {
        id: RuleId::ToolNameInvalid,
        label: "tool name",
        default: Error,
        scope: Directory,
        summary: "A tool in `tools.json` has no `name`, or a name that breaks MCP's rules: 1 to 128 characters, each `A-Z`, `a-z`, `0-9`, `_`, `-` or `.`.",
        rationale: "The MCP specification (2025-11-25, tool names): names \"SHOULD be between 1 and 128 characters\", using only ASCII letters, digits, underscore, hyphen and dot, no spaces. Clients and model APIs reject or rewrite other names, and the model calls tools by name.",
        fix: "Rename the tool with letters, digits, `_`, `-` and `.` only.",
        help: "rename the tool with letters, digits, `_`, `-` and `.` only",
        bad: "{\"name\": \"get explain plan\", ...}",
        good: "{\"name\": \"get_explain_plan\", ...}",
    },
    Rule {
        id: RuleId::ToolSchemaInvalid,
        label: "schema",
        default: Error,
        scope: Directory,
        summary: "A tool's `inputSchema` (or `outputSchema`) is missing, is not a JSON Schema object with `\"type\": \"object\"` at its root, or does not compile as JSON Schema.",
        rationale: "MCP requires every tool to have an `inputSchema`, an object schema (an empty one for no arguments); `outputSchema` has the same shape. Schemas are compiled with the `jsonschema` crate against their draft's meta-schema (2020-12 unless `$schema` says otherwise), so a misspelt type, a negative `minLength` or a broken `pattern` is caught here rather than by a client at call time. External `$ref`s are not fetched and count as errors.",
        fix: "Write the arguments as the `properties` of an object schema and fix the reported keyword.",
        help: "write the arguments as the `properties` of an object schema and fix the reported keyword",
        bad: "\"inputSchema\": {\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"text\"}}}",
        good: "\"inputSchema\": {\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}}}",
    },
    Rule {
        id: RuleId::ToolDuplicate,
        label: "defined again here",
        default: Error,
        scope: Directory,
        summary: "Two tools in one `tools.json` have the same `name`.",
        rationale: "MCP identifies tools by name within a server; a client keeps one of the two, and which one differs between clients.",
        fix: "Remove one of the definitions, or rename one.",
        help: "remove one of the definitions, or rename one",
        bad: "[{\"name\": \"explain\", ...}, {\"name\": \"explain\", ...}]",
        good: "[{\"name\": \"explain\", ...}, {\"name\": \"explain_analyze\", ...}]",
    },
    Rule {
        id: RuleId::ToolShadowsUniversal,
        label: "a universal tool's name",
        default: Error,
        scope: Directory,
        summary: "A tool in `tools.json` has the name of a universal tool (`view_skill`).",
        rationale: "Seed 000: universal tools are offered in every prompt, Level 1 and Level 2; `view_skill` is the one that loads a skill. A scoped tool with the same name would take its place while the skill is active, and the model could no longer switch skills.",
        fix: "Rename the tool.",
        help: "rename the tool",
        bad: "{\"name\": \"view_skill\", ...}",
        good: "{\"name\": \"view_trino_docs\", ...}",
    },
    Rule {
        id: RuleId::ToolReferenceUnknown,
        label: "not in the gateway",
        default: Error,
        scope: Directory,
        summary: "A `tools.json` reference names a server the gateway file does not list, or a tool that server does not offer (only with `skills lint --gateway FILE`).",
        rationale: "`skills mcp --gateway` shows a skill's scoped tools from the references in its `tools.json`; a reference it cannot resolve is a tool the skill's instructions count on and the agent never gets. `--gateway` lists each server's tools (starting it, as the gateway does) to check them; a server that cannot be listed is checked by name only.",
        fix: "Name a server of the gateway file and one of its tools (or `*`).",
        help: "name a server of the gateway file and one of its tools",
        bad: "{\"server\": \"trino\", \"name\": \"qurey\"}",
        good: "{\"server\": \"trino\", \"name\": \"query\"}",
    },
    Rule {
        id: RuleId::ResourcesJsonInvalid,
        label: "here",
        default: Error,
        scope: Directory,
        summary: "`resources.json` is not a JSON array of resource definitions: a syntax error (with its line and column), another top-level value, an entry that is not an object, or a missing or mistyped `name`, `description` or `mimeType`.",
        rationale: "Seed 000's context packages: `resources.json` beside `SKILL.md` lists the MCP resources the skill brings, `{uri, name, description, mimeType}` each. A client that cannot parse it loses every resource; the model decides what to read by the description.",
        fix: "Fix the JSON at the marked position and give each resource a `uri`, a `name` and a `description`.",
        help: "fix the JSON at the marked position and give each resource a `uri`, a `name` and a `description`",
        bad: "resources.json:\n[{\"uri\": \"resource://trino/rules.md\", \"name\": \"rules\"}",
        good: "resources.json:\n[\n  {\n    \"uri\": \"resource://trino/rules.md\",\n    \"name\": \"rules\",\n    \"description\": \"Trino optimization rules.\",\n    \"mimeType\": \"text/markdown\"\n  }\n]",
    },
    Rule {
        id: RuleId::ResourceUriInvalid,
        label: "uri",
        default: Error,
        scope: Directory,
        summary: "A resource's `uri` is missing, empty, not an RFC 3986 URI reference (spaces, bad escapes), or has no scheme and is not a path inside the skill (`/abs`, `//host`, `../out`).",
        rationale: "MCP identifies resources by URI and clients parse it. A URI with a scheme (`resource://`, `file://`, `https://`) is taken as written; one without a scheme is read as a path relative to the skill directory, so it must stay inside the skill. URIs are parsed with the `fluent-uri` crate.",
        fix: "Give a URI with a scheme, or a relative path inside the skill; percent-encode spaces.",
        help: "give a URI with a scheme, or a relative path inside the skill; percent-encode spaces",
        bad: "\"uri\": \"optimization rules.md\"",
        good: "\"uri\": \"resource://trino/optimization_rules.md\"",
    },
    Rule {
        id: RuleId::ResourceDuplicate,
        label: "listed again here",
        default: Error,
        scope: Directory,
        summary: "Two resources in one `resources.json` have the same `uri`.",
        rationale: "MCP identifies resources by URI; a client lists or reads one of the two.",
        fix: "Remove one of the entries.",
        help: "remove one of the entries",
        bad: "[{\"uri\": \"resource://trino/rules.md\", ...}, {\"uri\": \"resource://trino/rules.md\", ...}]",
        good: "[{\"uri\": \"resource://trino/rules.md\", ...}, {\"uri\": \"resource://trino/limits.md\", ...}]",
    },
    Rule {
        id: RuleId::ResourceMissing,
        label: "not found in the skill",
        default: Error,
        scope: Directory,
        summary: "A resource's `uri` has no scheme and names a file that is not in the skill.",
        rationale: "A relative URI is a file of the skill package (percent-decoded, relative to the skill directory); serving it would fail.",
        fix: "Add the file, or correct the path (relative to the skill directory).",
        help: "add the file, or correct the path (relative to the skill directory)",
        bad: "\"uri\": \"references/rule.md\"   (the file is references/rules.md)",
        good: "\"uri\": \"references/rules.md\"",
    },
    Rule {
        id: RuleId::DuplicateName,
        label: "also used by another skill",
        default: Warning,
        scope: Run,
        summary: "Two skills in one run have the same `name`.",
        rationale: "Clients index skills by name; one of the two will shadow the other.",
        fix: "Rename one of the skills (and its directory).",
        help: "rename one of the skills (and its directory)",
        bad: "a/pdf/SKILL.md and b/pdf/SKILL.md both `name: pdf`",
        good: "a/pdf-forms/ and b/pdf-text/",
    },
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    id.parse::<RuleId>().ok().map(RuleId::rule)
}

/// The id closest to `id`, for "did you mean" suggestions (the one rule of
/// [`skills_core::suggest::closest`], as `skills show` suggests skills).
pub fn suggest(id: &str) -> Option<&'static str> {
    skills_core::suggest::closest(id, RULES.iter().map(|r| r.id.as_str()))
        .into_iter()
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_unknown_id_gets_no_suggestion_at_once() {
        let huge = "x".repeat(10 << 20);
        assert_eq!(suggest(&huge), None);
        assert_eq!(suggest("body-too-lon"), Some("body-too-long"));
    }

    #[test]
    fn every_check_has_a_rule() {
        for &check in Check::ALL {
            let rule = RuleId::from(check).rule();
            assert_eq!(rule.id.as_str(), check.id(), "{check:?}");
            assert_eq!(rule.scope, Scope::File, "{}", rule.id);
        }
    }

    #[test]
    fn rule_ids_and_rules_are_in_one_order() {
        assert_eq!(RuleId::ALL.len(), RULES.len());
        for (i, (&id, rule)) in RuleId::ALL.iter().zip(RULES).enumerate() {
            assert_eq!(id, rule.id, "position {i}");
            assert_eq!(id as usize, i, "{id}: declared out of order");
            assert!(std::ptr::eq(id.rule(), rule), "{id}");
            assert_eq!(id.as_str().parse::<RuleId>(), Ok(id));
        }
        assert!("no-such-rule".parse::<RuleId>().is_err());
    }

    #[test]
    fn every_rule_has_a_label_and_a_help_line() {
        for r in RULES {
            assert!(!r.label.is_empty(), "{}", r.id);
            assert!(
                !r.help.is_empty() && !r.help.ends_with('.'),
                "{}: {:?}",
                r.id,
                r.help
            );
        }
    }

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate {}", r.id);
            assert!(
                r.id.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert!(!r.summary.is_empty() && !r.rationale.is_empty() && !r.fix.is_empty());
            assert!(!r.bad.is_empty() && !r.good.is_empty());
        }
        for r in RULES.iter().filter(|r| r.scope == Scope::File) {
            assert!(
                Check::ALL.iter().any(|c| c.id() == r.id.as_str()),
                "file rule {} has no check",
                r.id
            );
        }
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("name-to-long"), Some("name-too-long"));
        assert_eq!(suggest("zzzzzzzzzzzz"), None);
    }
}
