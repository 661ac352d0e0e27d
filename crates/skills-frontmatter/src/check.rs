//! The checks that need one `SKILL.md` and the name of its directory, nothing more.

use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

use crate::{SkillMd, Value};

/// The one list of the checks this crate performs: each variant of [`Check`] with its rule
/// id, in documentation order. `skills-lint` builds its rule identities from the same list,
/// so a check is declared here once: add it to this list, write it, and document its rule
/// in `skills-lint`'s registry.
///
/// `for_each_check!(callback! { ARGS })` expands to `callback! { ARGS [Variant = "id", ...] }`.
#[macro_export]
macro_rules! for_each_check {
    ($callback:ident ! { $($args:tt)* }) => {
        $callback! { $($args)* [
            FileTooLarge = "file-too-large",
            InvalidUtf8 = "invalid-utf8",
            Utf8Bom = "utf8-bom",
            FrontmatterMissing = "frontmatter-missing",
            FrontmatterUnclosed = "frontmatter-unclosed",
            FrontmatterNotMapping = "frontmatter-not-mapping",
            YamlInvalid = "yaml-invalid",
            YamlDuplicateKey = "yaml-duplicate-key",
            YamlTooComplex = "yaml-too-complex",
            NameMissing = "name-missing",
            NameNotString = "name-not-string",
            NameEmpty = "name-empty",
            NameTooLong = "name-too-long",
            NameNotLowercase = "name-not-lowercase",
            NameHyphenEdge = "name-hyphen-edge",
            NameConsecutiveHyphens = "name-consecutive-hyphens",
            NameInvalidChars = "name-invalid-chars",
            NameNonAscii = "name-non-ascii",
            NameDirMismatch = "name-dir-mismatch",
            DescriptionMissing = "description-missing",
            DescriptionNotString = "description-not-string",
            DescriptionEmpty = "description-empty",
            DescriptionTooLong = "description-too-long",
            DescriptionXmlChars = "description-xml-chars",
            DescriptionNoTrigger = "description-no-trigger",
            DescriptionPlaceholder = "description-placeholder",
            CompatibilityNotString = "compatibility-not-string",
            CompatibilityEmpty = "compatibility-empty",
            CompatibilityTooLong = "compatibility-too-long",
            MetadataNotMapping = "metadata-not-mapping",
            MetadataValueNotString = "metadata-value-not-string",
            MetadataMinTierInvalid = "metadata-min-tier-invalid",
            MetadataToolsInvalid = "metadata-tools-invalid",
            AllowedToolsNotString = "allowed-tools-not-string",
            LicenseNotString = "license-not-string",
            UnknownField = "unknown-field",
            VendorField = "vendor-field",
            BodyEmpty = "body-empty",
            BodyTooLong = "body-too-long",
            BodyTooManyTokens = "body-too-many-tokens",
            ControlChars = "control-chars",
        ] }
    };
}

macro_rules! define_checks {
    ([$($variant:ident = $id:literal,)*]) => {
        /// Every check this crate performs, by stable identity.
        ///
        /// [`Check::id`] is the kebab-case rule id that `skills lint` prints and accepts in
        /// `--deny`/`--warn`/`--allow`; it never changes once released.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[allow(missing_docs)] // Each variant is documented by its rule id and the rule registry.
        pub enum Check {
            $($variant,)*
        }

        impl Check {
            /// All checks, in registry order.
            pub const ALL: &'static [Check] = &[$(Check::$variant,)*];

            /// The stable kebab-case id.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Check::$variant => $id,)*
                }
            }
        }
    };
}

for_each_check!(define_checks! {});

/// One problem found in a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Which check found it.
    pub check: Check,
    /// What is wrong, in one sentence, naming the value.
    pub message: String,
    /// The bytes of `SKILL.md` it is about; `None` for the file as a whole.
    pub span: Option<Range<usize>>,
    /// How to fix this occurrence, when there is something more specific to say than the
    /// rule's general fix.
    pub help: Option<String>,
}

impl Finding {
    fn new(check: Check, message: impl Into<String>, span: Option<Range<usize>>) -> Self {
        Self {
            check,
            message: message.into(),
            span,
            help: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Maximum length of `name`, in Unicode code points.
pub const NAME_MAX_CHARS: usize = 64;
/// Maximum length of `description`, in Unicode code points.
pub const DESCRIPTION_MAX_CHARS: usize = 1024;
/// Maximum length of `compatibility`, in Unicode code points.
pub const COMPATIBILITY_MAX_CHARS: usize = 500;
/// Recommended maximum number of body lines.
pub const BODY_MAX_LINES: usize = 500;
/// Recommended maximum number of body tokens, as estimated by [`estimate_tokens`].
pub const BODY_MAX_TOKENS: usize = 5000;

/// The fields the specification defines.
pub const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Fields that one agent understands and the specification does not, with that agent.
pub const VENDOR_FIELDS: [(&str, &str); 11] = [
    ("disable-model-invocation", "Claude Code"),
    ("user-invocable", "Claude Code"),
    ("argument-hint", "Claude Code"),
    ("model", "Claude Code"),
    ("context", "Claude Code"),
    ("agent", "Claude Code"),
    ("hooks", "Claude Code"),
    ("when_to_use", "Claude Code"),
    ("paths", "Claude Code"),
    (
        "allowed_tools",
        "some agents (the spec spells it allowed-tools)",
    ),
    ("mode", "Claude Code"),
];

/// Estimates how many tokens a text costs a model: one token per four bytes of UTF-8, rounded
/// up. This is the rule of thumb model vendors publish for English prose; it is an estimate,
/// not a tokenizer, and it errs on the high side for code.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Whether `name` follows the specification's name rule exactly as written: 1 to
/// [`NAME_MAX_CHARS`] characters, lowercase letters, digits and single hyphens, no hyphen
/// first or last, and nothing Unicode normalization would change (a fullwidth `ｍ` is
/// not `m`). The checks of [`SkillMd::validate`] report each way a name breaks it; this is
/// the yes/no for callers that only need that (the MCP server, which puts names in URIs,
/// also wants [`str::is_ascii`]).
///
/// ```
/// use skills_frontmatter::is_valid_name;
/// assert!(is_valid_name("pdf-processing") && is_valid_name("v2"));
/// assert!(!is_valid_name("PDF") && !is_valid_name("-pdf") && !is_valid_name("pdf--x"));
/// assert!(!is_valid_name("") && !is_valid_name(&"x".repeat(65)) && !is_valid_name("ｍy"));
/// ```
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= NAME_MAX_CHARS
        && name
            .chars()
            .all(|c| c == '-' || (c.is_alphanumeric() && !c.is_uppercase()))
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && (name.is_ascii() || name.nfkc().eq(name.chars()))
}

/// `text` in Unicode NFKC form. ASCII text is its own NFKC form, and nearly every name is
/// ASCII: normalizing it anyway costs more than the rest of the name checks together.
fn nfkc(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.nfkc().collect())
    }
}

/// Words that show a description says *when* to use the skill.
const TRIGGER_WORDS: [&str; 10] = [
    "when", "use ", "used ", "using", "for ", "if ", "whenever", "before", "after", "during",
];

pub(crate) fn validate(skill: &SkillMd, dir_name: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    if skill.bom {
        out.push(
            Finding::new(
                Check::Utf8Bom,
                "SKILL.md starts with a UTF-8 byte order mark",
                Some(0..3),
            )
            .help("save the file as UTF-8 without a BOM; some parsers then miss the frontmatter"),
        );
    }
    check_fields(skill, &mut out);
    check_name(skill, dir_name, &mut out);
    check_description(skill, &mut out);
    check_optional(skill, &mut out);
    for problem in crate::conventions::problems(skill) {
        let (check, help) = if problem.tier {
            (
                Check::MetadataMinTierInvalid,
                "write the lowest tier that may use the skill as a quoted positive integer: `min-tier: \"2\"`",
            )
        } else {
            (
                Check::MetadataToolsInvalid,
                "write the chain as comma-separated tools in the order to try them: `tools.container: \"mcp__docker__list_containers, docker, podman\"`",
            )
        };
        out.push(Finding::new(check, problem.message, Some(problem.span)).help(help));
    }
    check_body(skill, &mut out);
    check_control_chars(skill, &mut out);
    out
}

fn check_fields(skill: &SkillMd, out: &mut Vec<Finding>) {
    for entry in skill.entries() {
        let key = entry.key.as_str();
        if SPEC_FIELDS.contains(&key) {
            continue;
        }
        let span = Some(entry.key_span.clone());
        if let Some((_, vendor)) = VENDOR_FIELDS.iter().find(|(k, _)| *k == key) {
            out.push(
                Finding::new(
                    Check::VendorField,
                    format!("`{key}` is an extension of {vendor}, not a spec field; other clients ignore it"),
                    span,
                )
                .help(if key == "allowed_tools" {
                    "rename it to `allowed-tools`".to_string()
                } else {
                    format!("keep it if you target {vendor} only; otherwise remove it")
                }),
            );
        } else {
            let close = SPEC_FIELDS
                .iter()
                .find(|f| f.eq_ignore_ascii_case(key) || f.replace('-', "_") == key);
            let help = match close {
                Some(f) => format!("did you mean `{f}`? Field names are case-sensitive"),
                None => format!(
                    "move it under `metadata:`, as an indented `{key}: \"...\"` line; the spec defines only {}",
                    SPEC_FIELDS.join(", ")
                ),
            };
            out.push(
                Finding::new(Check::UnknownField, format!("unknown field `{key}`"), span)
                    .help(help),
            );
        }
    }
}

/// The result of looking up a required string field.
enum Field<'a> {
    Missing,
    NotString(&'a crate::Entry),
    Str(&'a str, Range<usize>),
}

fn string_field<'a>(skill: &'a SkillMd, key: &str) -> Field<'a> {
    match skill.field(key) {
        None => Field::Missing,
        Some(e) => match e.value.as_str() {
            Some(s) => Field::Str(s, e.value_span.clone()),
            None => Field::NotString(e),
        },
    }
}

fn quote_hint(key: &str, entry: &crate::Entry) -> String {
    match &entry.value {
        Value::Null => format!("give `{key}` a value"),
        Value::Bool(_) | Value::Number(_) => {
            format!(
                "quote the value so YAML reads it as text: `{key}: \"{}\"`",
                entry.value.to_json()
            )
        }
        Value::Sequence(_) | Value::Mapping(_) => format!("write `{key}` as a single line of text"),
        Value::String(_) => String::new(),
    }
}

fn check_name(skill: &SkillMd, dir_name: Option<&str>, out: &mut Vec<Finding>) {
    let (raw, span) = match string_field(skill, "name") {
        Field::Missing => {
            out.push(
                Finding::new(
                    Check::NameMissing,
                    "required field `name` is missing",
                    skill.frontmatter_span(),
                )
                .help(match dir_name {
                    Some(d) => format!("add `name: {d}` (the directory name) to the frontmatter"),
                    None => "add `name:` with the skill's directory name".to_string(),
                }),
            );
            return;
        }
        Field::NotString(e) => {
            out.push(
                Finding::new(
                    Check::NameNotString,
                    format!("`name` must be a string, found a {}", e.value.kind()),
                    Some(e.value_span.clone()),
                )
                .help(quote_hint("name", e)),
            );
            return;
        }
        Field::Str(s, span) => (s, span),
    };
    if raw.trim().is_empty() {
        out.push(
            Finding::new(Check::NameEmpty, "`name` is empty", Some(span))
                .help("set `name` to the skill's directory name"),
        );
        return;
    }
    let name: String = nfkc(raw.trim()).into_owned();
    let chars = name.chars().count();
    if chars > NAME_MAX_CHARS {
        out.push(
            Finding::new(
                Check::NameTooLong,
                format!("`name` is {chars} characters long; the limit is {NAME_MAX_CHARS}"),
                Some(span.clone()),
            )
            .help("shorten the name (and rename the directory to match)"),
        );
    }
    if name != name.to_lowercase() {
        out.push(
            Finding::new(
                Check::NameNotLowercase,
                format!("`name` `{name}` is not lowercase"),
                Some(span.clone()),
            )
            .help(format!("use `{}`", name.to_lowercase())),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push(
            Finding::new(
                Check::NameHyphenEdge,
                format!("`name` `{name}` starts or ends with a hyphen"),
                Some(span.clone()),
            )
            .help(format!("use `{}`", name.trim_matches('-'))),
        );
    }
    if name.contains("--") {
        let mut fixed = name.clone();
        while fixed.contains("--") {
            fixed = fixed.replace("--", "-");
        }
        out.push(
            Finding::new(
                Check::NameConsecutiveHyphens,
                format!("`name` `{name}` contains consecutive hyphens"),
                Some(span.clone()),
            )
            .help(format!("use `{fixed}`")),
        );
    }
    let mut bad: Vec<char> = name
        .chars()
        .filter(|c| !c.is_alphanumeric() && *c != '-')
        .collect();
    bad.dedup();
    if !bad.is_empty() {
        let list: Vec<String> = bad.iter().map(|c| format!("{c:?}")).collect();
        let suggestion = suggest_name(&name);
        out.push(
            Finding::new(
                Check::NameInvalidChars,
                format!(
                    "`name` `{name}` contains {}; only letters, digits and `-` are allowed",
                    list.join(", ")
                ),
                Some(span.clone()),
            )
            .help(if suggestion.is_empty() {
                "use lowercase letters, digits and single hyphens".to_string()
            } else {
                format!("use hyphens instead, for example `{suggestion}`")
            }),
        );
    } else if !raw.trim().is_ascii() {
        // Checked as written: fullwidth `ｐｄｆ` is `pdf` only after NFKC, and a client that
        // compares bytes sees the fullwidth letters.
        let written = raw.trim();
        out.push(
            Finding::new(
                Check::NameNonAscii,
                format!("`name` `{written}` has non-ASCII characters"),
                Some(span.clone()),
            )
            .help(if name.is_ascii() && written != name {
                format!("write it as `{name}`: the MCP skills extension and several clients accept only `a-z`, `0-9` and `-`")
            } else {
                "use only `a-z`, `0-9` and `-`: the MCP skills extension and several clients accept nothing else".to_string()
            }),
        );
    }
    if let Some(dir) = dir_name
        && nfkc(dir) != name.as_str()
    {
        out.push(
            Finding::new(
                Check::NameDirMismatch,
                format!("`name` `{name}` does not match the directory name `{dir}`"),
                Some(span),
            )
            .help(mismatch_help(&name, dir)),
        );
    }
}

/// What to do about a name and a directory that differ, offering only valid names: the
/// directory renamed to the name, the name set to the directory's, or, when neither is a
/// valid name, one made from them (`Active Directory Attacks` → `active-directory-attacks`).
fn mismatch_help(name: &str, dir: &str) -> String {
    match (is_valid_name(name), is_valid_name(dir)) {
        (true, true) => format!("rename the directory to `{name}`, or set `name: {dir}`"),
        (true, false) => format!("rename the directory to `{name}`"),
        (false, true) => format!("set `name: {dir}`"),
        (false, false) => {
            let made = [suggest_name(name), suggest_name(dir)]
                .into_iter()
                .find(|s| is_valid_name(s));
            match made {
                Some(s) => format!("set `name: {s}` and rename the directory to `{s}`"),
                None => "give the skill a valid name (lowercase letters, digits and single hyphens) and its directory the same".to_string(),
            }
        }
    }
}

/// Invisible characters that change how text is shown but are not part of it: zero-width
/// spaces and joiners, direction marks and overrides, the BOM, the soft hyphen.
pub(crate) fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// A name with the invalid characters of `name` fixed: invisible characters and combining
/// marks dropped, anything else that is not a letter, digit or `-` turned into `-`, hyphens
/// collapsed and trimmed, lowercased. The suggestion itself passes the name checks (unless
/// it is empty).
fn suggest_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if is_invisible_format(c) || unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        let c = if c.is_alphanumeric() { c } else { '-' };
        if c == '-' && (out.is_empty() || out.ends_with('-')) {
            continue;
        }
        out.extend(c.to_lowercase());
    }
    out.trim_end_matches('-').to_string()
}

/// Words that start a description nobody has written yet (`TODO: say what it does`), as
/// written: a description that begins with `Todo list` is about to-do lists.
const PLACEHOLDER_WORDS: [&str; 4] = ["TODO", "TBD", "FIXME", "XXX"];

/// What `skills new` wrote before it started its placeholder with `TODO`.
const OLD_NEW_PLACEHOLDER: &str = "Replace this with what the skill does";

/// The placeholder `text` is, when it is one: it starts with one of [`PLACEHOLDER_WORDS`]
/// as a word of its own, or is the text an earlier `skills new` wrote.
fn placeholder(text: &str) -> Option<&'static str> {
    let text = text.trim_start();
    let word = PLACEHOLDER_WORDS.into_iter().find(|w| {
        text.strip_prefix(w)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    });
    word.or_else(|| {
        text.starts_with(OLD_NEW_PLACEHOLDER)
            .then_some(OLD_NEW_PLACEHOLDER)
    })
}

fn check_description(skill: &SkillMd, out: &mut Vec<Finding>) {
    let (text, span) = match string_field(skill, "description") {
        Field::Missing => {
            out.push(
                Finding::new(
                    Check::DescriptionMissing,
                    "required field `description` is missing",
                    skill.frontmatter_span(),
                )
                .help("add `description:` saying what the skill does and when to use it"),
            );
            return;
        }
        Field::NotString(e) => {
            out.push(
                Finding::new(
                    Check::DescriptionNotString,
                    format!("`description` must be a string, found a {}", e.value.kind()),
                    Some(e.value_span.clone()),
                )
                .help(quote_hint("description", e)),
            );
            return;
        }
        Field::Str(s, span) => (s, span),
    };
    if text.trim().is_empty() {
        out.push(
            Finding::new(
                Check::DescriptionEmpty,
                "`description` is empty",
                Some(span),
            )
            .help("say what the skill does and when to use it"),
        );
        return;
    }
    let chars = text.chars().count();
    if chars > DESCRIPTION_MAX_CHARS {
        out.push(
            Finding::new(
                Check::DescriptionTooLong,
                format!("`description` is {chars} characters long; the limit is {DESCRIPTION_MAX_CHARS}"),
                Some(span.clone()),
            )
            .help(format!(
                "cut {} characters; move details into the body, which is loaded only when the skill is used",
                chars - DESCRIPTION_MAX_CHARS
            )),
        );
    }
    if text.contains(['<', '>']) {
        out.push(
            Finding::new(
                Check::DescriptionXmlChars,
                "`description` contains `<` or `>`",
                Some(span.clone()),
            )
            .help("reword without angle brackets: agents embed descriptions in XML catalogs"),
        );
    }
    if let Some(marker) = placeholder(text) {
        out.push(
            Finding::new(
                Check::DescriptionPlaceholder,
                format!("`description` is a placeholder (`{marker}`), not a description"),
                Some(span.clone()),
            )
            .help("write what the skill does and when to use it: agents pick skills by their description alone"),
        );
    }
    let lower = text.to_lowercase();
    if !TRIGGER_WORDS.iter().any(|w| lower.contains(w)) {
        out.push(
            Finding::new(Check::DescriptionNoTrigger, "`description` does not say when to use the skill", Some(span))
                .help("add a sentence such as \"Use when the user asks to ...\" so agents know when to load it"),
        );
    }
}

fn check_optional(skill: &SkillMd, out: &mut Vec<Finding>) {
    if let Some(e) = skill.field("compatibility") {
        match e.value.as_str() {
            None => out.push(
                Finding::new(
                    Check::CompatibilityNotString,
                    format!(
                        "`compatibility` must be a string, found a {}",
                        e.value.kind()
                    ),
                    Some(e.value_span.clone()),
                )
                .help(quote_hint("compatibility", e)),
            ),
            Some(s) if s.trim().is_empty() => out.push(
                Finding::new(
                    Check::CompatibilityEmpty,
                    "`compatibility` is empty",
                    Some(e.value_span.clone()),
                )
                .help("remove the field, or name the environment the skill needs"),
            ),
            Some(s) => {
                let chars = s.chars().count();
                if chars > COMPATIBILITY_MAX_CHARS {
                    out.push(
                        Finding::new(
                            Check::CompatibilityTooLong,
                            format!("`compatibility` is {chars} characters long; the limit is {COMPATIBILITY_MAX_CHARS}"),
                            Some(e.value_span.clone()),
                        )
                        .help("keep it to the environment requirements; move the rest into the body"),
                    );
                }
            }
        }
    }
    if let Some(e) = skill.field("metadata") {
        match &e.value {
            Value::Mapping(entries) => {
                for (k, v) in entries {
                    if v.value.as_str().is_some() {
                        continue;
                    }
                    let key = k.value.key_string();
                    let help = match &v.value {
                        Value::Number(_) | Value::Bool(_) => format!(
                            "quote it: `{key}: \"{}\"` (YAML reads it as a {})",
                            v.value.to_json(),
                            v.value.kind()
                        ),
                        Value::Null => format!("give `{key}` a value or remove it"),
                        _ => format!(
                            "metadata values are strings: write `{key}` as one string, or split it into flat keys"
                        ),
                    };
                    let span = if v.span.is_empty() {
                        k.span.clone()
                    } else {
                        v.span.clone()
                    };
                    out.push(
                        Finding::new(
                            Check::MetadataValueNotString,
                            format!(
                                "`metadata.{key}` must be a string, found a {}",
                                v.value.kind()
                            ),
                            Some(span),
                        )
                        .help(help),
                    );
                }
            }
            other => out.push(
                Finding::new(
                    Check::MetadataNotMapping,
                    format!(
                        "`metadata` must be a mapping of strings to strings, found a {}",
                        other.kind()
                    ),
                    Some(if e.value_span.is_empty() {
                        e.key_span.clone()
                    } else {
                        e.value_span.clone()
                    }),
                )
                .help("write it as `metadata:` followed by indented `key: \"value\"` lines"),
            ),
        }
    }
    if let Some(e) = skill.field("allowed-tools")
        && e.value.as_str().is_none()
    {
        let help = match &e.value {
            Value::Sequence(items) => {
                let joined: Vec<String> = items
                    .iter()
                    .map(|n| {
                        n.value
                            .as_str()
                            .map_or_else(|| n.value.to_json().to_string(), str::to_string)
                    })
                    .collect();
                format!(
                    "write it as one space-separated string: `allowed-tools: {}`",
                    joined.join(" ")
                )
            }
            _ => {
                "write it as one space-separated string, such as `allowed-tools: Read Bash(git:*)`"
                    .to_string()
            }
        };
        out.push(
            Finding::new(
                Check::AllowedToolsNotString,
                format!(
                    "`allowed-tools` must be a space-separated string, found a {}",
                    e.value.kind()
                ),
                Some(if e.value_span.is_empty() {
                    e.key_span.clone()
                } else {
                    e.value_span.clone()
                }),
            )
            .help(help),
        );
    }
    if let Some(e) = skill.field("license")
        && e.value.as_str().is_none()
    {
        out.push(
            Finding::new(
                Check::LicenseNotString,
                format!("`license` should be a string, found a {}", e.value.kind()),
                Some(if e.value_span.is_empty() {
                    e.key_span.clone()
                } else {
                    e.value_span.clone()
                }),
            )
            .help("name one license (`license: MIT`) or a bundled file (`license: LICENSE.txt`)"),
        );
    }
}

fn check_body(skill: &SkillMd, out: &mut Vec<Finding>) {
    let body = skill.body();
    if body.trim().is_empty() {
        out.push(
            Finding::new(
                Check::BodyEmpty,
                "the body after the frontmatter is empty",
                Some(skill.closing_fence()),
            )
            .help("write the instructions the agent follows once the skill is activated"),
        );
        return;
    }
    // Same count as `str::lines`, with memchr: this runs on every body.
    let lines =
        memchr::memchr_iter(b'\n', body.as_bytes()).count() + usize::from(!body.ends_with('\n'));
    if lines > BODY_MAX_LINES {
        out.push(
            Finding::new(
                Check::BodyTooLong,
                format!("the body is {lines} lines long; keep SKILL.md under {BODY_MAX_LINES}"),
                Some(line_at(skill, nth_line_start(body, BODY_MAX_LINES))),
            )
            .help("move detailed material into `references/` files and link them from SKILL.md"),
        );
    }
    let tokens = estimate_tokens(body);
    if tokens > BODY_MAX_TOKENS {
        out.push(
            Finding::new(
                Check::BodyTooManyTokens,
                format!("the body is about {tokens} tokens (bytes / 4); keep it under {BODY_MAX_TOKENS}"),
                Some(line_at(skill, BODY_MAX_TOKENS * 4)),
            )
            .help("the whole body is loaded when the skill activates: move reference material into `references/`"),
        );
    }
}

/// Whether `c` is a control character no `SKILL.md` needs: C0 but tab, line feed and
/// carriage return (those have their own rules), DEL, and C1. ESC starts the terminal
/// sequences (OSC 52 writes the clipboard, `ESC [2J` clears the screen), BEL and NUL are
/// invalid in the XML catalogs the description goes into. `control_chars` finds these in
/// the bytes; this is the definition the tests hold it to.
#[cfg(test)]
fn is_control_char(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// How a control character is shown in a message: its name where it has a well-known one.
fn control_name(c: char) -> String {
    let name = match c {
        '\0' => "NUL",
        '\u{7}' => "BEL",
        '\u{8}' => "BS",
        '\u{b}' => "VT",
        '\u{c}' => "FF",
        '\u{1b}' => "ESC",
        '\u{7f}' => "DEL",
        _ => return format!("U+{:04X}", u32::from(c)),
    };
    format!("{name} (U+{:04X})", u32::from(c))
}

/// The first control character in a frontmatter value (strings in lists and maps too) and
/// where that string is. YAML itself refuses them raw, so they come from escapes in
/// double-quoted strings (`"\e[2J"`, `"\a"`, `"\x1b"`).
fn first_control(value: &Value, span: &Range<usize>) -> Option<(char, Range<usize>)> {
    match value {
        // The byte scan clears nearly every string without decoding a character.
        Value::String(s) => control_chars(s).next().map(|(_, c)| (c, span.clone())),
        Value::Sequence(items) => items.iter().find_map(|n| first_control(&n.value, &n.span)),
        Value::Mapping(pairs) => pairs.iter().find_map(|(k, v)| {
            first_control(&k.value, &k.span).or_else(|| first_control(&v.value, &v.span))
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

const CONTROL_HELP: &str = "delete it: terminals run escape sequences when they print them, and XML catalogs cannot hold them; to show one, write it as text in a code block";

/// One finding per frontmatter field and one for the body, at the first control character
/// of each with the count: a body full of escape sequences is one finding, not thousands.
fn check_control_chars(skill: &SkillMd, out: &mut Vec<Finding>) {
    for entry in skill.entries() {
        if let Some((c, span)) = first_control(&entry.value, &entry.value_span) {
            out.push(
                Finding::new(
                    Check::ControlChars,
                    format!(
                        "`{}` contains the control character {}",
                        entry.key,
                        control_name(c)
                    ),
                    Some(span),
                )
                .help(CONTROL_HELP),
            );
        }
    }
    let body = skill.body();
    let mut found = control_chars(body);
    let Some((at, c)) = found.next() else { return };
    let more = match found.count() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let at = skill.body_span().start + at;
    out.push(
        Finding::new(
            Check::ControlChars,
            format!(
                "the body contains the control character {}{more}",
                control_name(c)
            ),
            Some(at..at + c.len_utf8()),
        )
        .help(CONTROL_HELP),
    );
}

/// The control characters of `text` (C0 but tab, line feed and carriage return; DEL; C1)
/// with their byte offsets, found without decoding characters: in UTF-8, C0 and DEL are the
/// bytes themselves and a C1 character `U+0080..=U+009F` is `0xC2` followed by its code
/// point's own byte. Chunks [`suspect_chunk`] clears are skipped whole, and the rest is
/// read byte by byte: a body with a `©`, a `°` or a no-break space (whose UTF-8
/// starts with `0xC2` too) used to be decoded a character at a time.
fn control_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let bytes = text.as_bytes();
    bytes
        .chunks(64)
        .enumerate()
        .filter(|(_, chunk)| suspect_chunk(chunk))
        .flat_map(move |(n, chunk)| {
            let base = n * 64;
            chunk.iter().enumerate().filter_map(move |(i, &b)| {
                let at = base + i;
                let c = match b {
                    b'\t' | b'\n' | b'\r' => return None,
                    0x00..=0x1f | 0x7f => char::from(b),
                    // The next byte may be in the next chunk: read it from the whole text.
                    0xc2 => match bytes.get(at + 1) {
                        Some(&next @ 0x80..=0x9f) => char::from(next),
                        _ => return None,
                    },
                    _ => return None,
                };
                Some((at, c))
            })
        })
}

/// Whether a chunk of at most 64 bytes may hold a control character: a C0 byte but tab, line
/// feed and carriage return, DEL, or 0xC2 (the first byte of every C1 character, and of
/// other characters too). Every body goes through this, so it folds the chunk without an
/// early exit, which the compiler turns into vector instructions (a short-circuiting `any`
/// runs a byte at a time, and was most of the time spent validating a file).
#[inline(always)]
fn suspect_chunk(chunk: &[u8]) -> bool {
    let suspect =
        |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) | (b == 0x7f) | (b == 0xc2);
    chunk.iter().fold(false, |seen, &b| seen | suspect(b))
}

/// Byte offset (within `body`) of the start of line `n` (0-based).
fn nth_line_start(body: &str, n: usize) -> usize {
    memchr::memchr_iter(b'\n', body.as_bytes())
        .nth(n.saturating_sub(1))
        .map_or(body.len(), |i| i + 1)
}

/// The span of the body line that contains body offset `offset`, as a file range.
fn line_at(skill: &SkillMd, offset: usize) -> Range<usize> {
    let body = skill.body();
    let base = skill.body_span().start;
    let mut at = offset.min(body.len());
    while !body.is_char_boundary(at) {
        at -= 1;
    }
    let start = body
        .get(..at)
        .and_then(|b| b.rfind('\n'))
        .map_or(0, |i| i + 1);
    let end = body
        .get(start..)
        .and_then(|b| b.find('\n'))
        .map_or(body.len(), |i| start + i);
    base + start..base + end.trim_end_cr(body)
}

trait TrimCr {
    fn trim_end_cr(self, text: &str) -> usize;
}

impl TrimCr for usize {
    fn trim_end_cr(self, text: &str) -> usize {
        if self > 0 && text.as_bytes().get(self - 1) == Some(&b'\r') {
            self - 1
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_mismatch_suggests_only_valid_names() {
        assert_eq!(
            mismatch_help("pdf", "pdf-tools"),
            "rename the directory to `pdf`, or set `name: pdf-tools`"
        );
        assert_eq!(
            mismatch_help("Active Directory Attacks", "active-directory"),
            "set `name: active-directory`"
        );
        assert_eq!(
            mismatch_help("Active Directory Attacks", "Active Directory Attacks"),
            "set `name: active-directory-attacks` and rename the directory to `active-directory-attacks`"
        );
        assert_eq!(
            mismatch_help("pdf", "Download (1)"),
            "rename the directory to `pdf`"
        );
        assert!(mismatch_help("!!!", "???").starts_with("give the skill a valid name"));
    }

    use super::*;

    fn checks_of(name: &str, dir: &str) -> Vec<Check> {
        let md =
            format!("---\nname: {name}\ndescription: Does things. Use when needed.\n---\nbody\n");
        let skill = SkillMd::parse_str(md).unwrap();
        validate(&skill, Some(dir))
            .iter()
            .map(|f| f.check)
            .collect()
    }

    #[test]
    fn names_are_compared_in_nfkc_form_whether_ascii_or_not() {
        assert!(!checks_of("pdf", "pdf").contains(&Check::NameDirMismatch));
        assert!(checks_of("pdf", "pdg").contains(&Check::NameDirMismatch));
        // Fullwidth letters are `pdf` after NFKC: the directory matches, the name is not
        // portable as written.
        let fullwidth = checks_of("\u{ff50}\u{ff44}\u{ff46}", "pdf");
        assert!(
            !fullwidth.contains(&Check::NameDirMismatch),
            "{fullwidth:?}"
        );
        assert!(fullwidth.contains(&Check::NameNonAscii), "{fullwidth:?}");
        assert!(!checks_of("pdf", "\u{ff50}\u{ff44}\u{ff46}").contains(&Check::NameDirMismatch));
        assert!(is_valid_name("pdf") && !is_valid_name("\u{ff50}df"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        #[test]
        fn control_chars_are_the_decoded_ones(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::range('\u{0}', '\u{200}'),
                    proptest::char::any(),
                ],
                0..300,
            )
        ) {
            let text: String = chars.into_iter().collect();
            let decoded: Vec<(usize, char)> =
                text.char_indices().filter(|&(_, c)| is_control_char(c)).collect();
            proptest::prop_assert_eq!(control_chars(&text).collect::<Vec<_>>(), decoded);
        }
    }

    #[test]
    fn a_c1_character_split_across_chunks_is_found() {
        for at in [62, 63, 64] {
            let text = format!("{}\u{85}{}", "a".repeat(at), "b".repeat(70));
            assert_eq!(control_chars(&text).collect::<Vec<_>>(), [(at, '\u{85}')]);
            let text = format!("{}\u{a9}{}", "a".repeat(at), "b".repeat(70));
            assert_eq!(control_chars(&text).count(), 0, "{at}");
        }
    }

    #[test]
    fn the_chunked_control_scan_agrees_with_the_plain_one_at_every_position() {
        let plain = |bytes: &[u8]| {
            bytes.iter().any(|&b| {
                (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f || b == 0xc2
            })
        };
        for len in [0, 1, 63, 64, 65, 200] {
            let clean = vec![b'a'; len];
            assert!(!clean.chunks(64).any(suspect_chunk), "{len}");
            for at in 0..len {
                for b in [0x00, 0x1b, 0x7f, 0xc2, b'\t', b'\n', b'\r', 0xc3] {
                    let mut bytes = clean.clone();
                    if let Some(slot) = bytes.get_mut(at) {
                        *slot = b;
                    }
                    assert_eq!(
                        bytes.chunks(64).any(suspect_chunk),
                        plain(&bytes),
                        "{len} {at} {b}"
                    );
                }
            }
        }
    }
}
