//! The checks: each file of a skill classified and read by the rules that apply to it.

use std::ops::Range;

use crate::auditor::SourceFile;
use crate::position::{LineIndex, evidence};
use crate::report::Finding;
use crate::{RuleId, Severity};

mod binary;
mod code;
pub(crate) mod installers;
mod js;
mod markdown;
mod patterns;
mod powershell;
mod prefilter;
mod python;
mod shell;
mod text;
pub(crate) mod unicode;

/// A `skills-audit: allow RULE[, RULE] -- reason` marker in a file of the skill.
#[derive(Debug, Clone)]
pub(crate) struct Marker {
    pub(crate) path: String,
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) span: Range<usize>,
    pub(crate) evidence: String,
    pub(crate) rules: Vec<RuleId>,
    pub(crate) reason: Option<String>,
    /// Alone on its line (a comment line): it covers the next line too.
    pub(crate) alone: bool,
}

/// The language of a piece of code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Shell,
    Python,
    JavaScript,
    PowerShell,
}

impl Lang {
    /// A fenced block's info string.
    fn of_fence(lang: &str) -> Option<Self> {
        match lang {
            "" | "sh" | "bash" | "shell" | "zsh" | "console" | "terminal" | "shell-session"
            | "shellsession" | "ksh" | "dash" | "fish" | "command" | "cmd" | "indented" => {
                Some(Self::Shell)
            }
            "py" | "python" | "python3" | "ipython" | "py3" => Some(Self::Python),
            "js" | "javascript" | "node" | "mjs" | "cjs" | "ts" | "typescript" | "jsx" | "tsx" => {
                Some(Self::JavaScript)
            }
            "powershell" | "ps1" | "pwsh" | "ps" => Some(Self::PowerShell),
            _ => None,
        }
    }

    /// A file's name and first line.
    fn of_file(path: &str, text: &str) -> Option<Self> {
        let ext = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "sh" | "bash" | "zsh" | "ksh" | "command" => return Some(Self::Shell),
            "py" | "pyw" => return Some(Self::Python),
            "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => {
                return Some(Self::JavaScript);
            }
            "ps1" | "psm1" => return Some(Self::PowerShell),
            _ => {}
        }
        let first = text.lines().next().unwrap_or_default();
        let shebang = first.strip_prefix("#!")?;
        if shebang.contains("python") {
            Some(Self::Python)
        } else if shebang.contains("node") || shebang.contains("deno") || shebang.contains("bun") {
            Some(Self::JavaScript)
        } else if shebang.contains("pwsh") {
            Some(Self::PowerShell)
        } else if ["sh", "bash", "zsh", "dash", "ksh"].iter().any(|s| {
            shebang.ends_with(s)
                || shebang.contains(&format!("{s} "))
                || shebang.contains(&format!("/{s}"))
        }) {
            Some(Self::Shell)
        } else {
            None
        }
    }
}

/// Whether code is quoted (an example of what not to run), not given to be run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quoted {
    No,
    Yes,
    /// As the lines above the block at this offset introduce it: read only once the block
    /// has a finding, since most have none and the heading above may be far back.
    IfIntroduced(usize),
}

/// What the checks of one file share: where findings go and how positions are found.
pub(crate) struct FileCtx<'a> {
    pub(crate) path: &'a str,
    pub(crate) text: &'a str,
    /// Built on the first position asked for: most files have no finding.
    index: std::cell::OnceCell<LineIndex>,
    pub(crate) out: Vec<Finding>,
    /// Code ranges (blocks, inline code, whole scripts), for [`FileCtx::code_at`].
    code: Vec<Range<usize>>,
    /// Whether the fragment being read is quoted (an example), not a command the skill
    /// gives.
    quoted: Quoted,
    /// A `download-exec` found in something the skill tells the agent to run.
    pub(crate) remote_code: bool,
    /// Code the prefilter rejects is not parsed ([`crate::Config::exhaustive`] off).
    pub(crate) prefilter: bool,
}

impl<'a> FileCtx<'a> {
    fn new(path: &'a str, text: &'a str, prefilter: bool) -> Self {
        Self {
            path,
            text,
            index: std::cell::OnceCell::new(),
            out: Vec::new(),
            code: Vec::new(),
            quoted: Quoted::No,
            remote_code: false,
            prefilter,
        }
    }

    fn line_col(&self, offset: usize) -> (u32, u32) {
        self.index
            .get_or_init(|| LineIndex::new(self.text))
            .line_col(self.text, offset)
    }

    /// Whether `offset` is inside code.
    pub(crate) fn code_at(&self, offset: usize) -> bool {
        self.code.iter().any(|r| r.contains(&offset))
    }

    /// Reports `rule` at `span` of the file.
    pub(crate) fn push(
        &mut self,
        rule: RuleId,
        severity: Severity,
        span: Range<usize>,
        message: String,
    ) {
        let quoted = self.quoted();
        let (severity, message) = if quoted && rule != RuleId::SecretCommitted {
            (
                Severity::Low,
                format!(
                    "{message} (in a block introduced as an example of what not to run; reported low)"
                ),
            )
        } else {
            (severity, message)
        };
        if rule == RuleId::DownloadExec && !quoted {
            self.remote_code = true;
        }
        let (line, column) = self.line_col(span.start);
        let ev = self
            .text
            .get(span.clone())
            .map(evidence)
            .unwrap_or_default();
        let mut f = Finding::new(rule, self.path, message).with_severity(severity);
        f.line = line;
        f.column = column;
        f.span = span;
        f.evidence = ev;
        self.out.push(f);
    }

    /// Whether the fragment being read is quoted, decided now if it was left for later.
    fn quoted(&mut self) -> bool {
        let quoted = match self.quoted {
            Quoted::No => false,
            Quoted::Yes => true,
            Quoted::IfIntroduced(at) => markdown::introduced_as_example(self.text, at),
        };
        self.quoted = if quoted { Quoted::Yes } else { Quoted::No };
        quoted
    }

    /// Runs the code checks of `lang` over `range` of the file.
    pub(crate) fn code(&mut self, lang: Lang, range: Range<usize>, quoted: Quoted) {
        let was = std::mem::replace(&mut self.quoted, quoted);
        self.code.push(range.clone());
        match lang {
            Lang::Shell => shell::scan(self, range, 0),
            Lang::Python => python::scan(self, range),
            Lang::JavaScript => js::scan(self, range),
            Lang::PowerShell => powershell::scan(self, range),
        }
        self.quoted = was;
    }
}

/// What the files of one skill say together.
#[derive(Default)]
struct SkillFacts {
    /// `allowed-tools` grants any shell command: the span in `SKILL.md`.
    shell_grant: Option<(Range<usize>, u32, u32, String)>,
    remote_code: bool,
}

/// Every check over every file of a skill; the inline markers found.
pub(crate) fn scan_skill(
    files: &[SourceFile<'_>],
    exhaustive: bool,
) -> (Vec<Finding>, Vec<Marker>) {
    let mut findings = Vec::new();
    let mut markers = Vec::new();
    let mut facts = SkillFacts::default();
    for file in files {
        if file.bytes.is_empty() {
            continue;
        }
        if let Some(f) = binary::check(file.path, file.bytes, file.executable) {
            findings.extend(f);
            continue;
        }
        // Nearly every file is UTF-8: `from_utf8` checks a word at a time, where the lossy
        // conversion walks it in chunks.
        let text = match std::str::from_utf8(file.bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(file.bytes),
        };
        let mut ctx = FileCtx::new(file.path, &text, !exhaustive);
        markers.extend(find_markers(&ctx));
        scan_text_file(&mut ctx, &mut facts);
        facts.remote_code |= ctx.remote_code;
        findings.append(&mut ctx.out);
    }
    if facts.remote_code
        && let Some((span, line, column, evidence)) = facts.shell_grant
    {
        let mut f = Finding::new(
            RuleId::BroadGrantRemoteCode,
            skills_core::layout::SKILL_MD,
            format!(
                "`allowed-tools` grants any shell command ({evidence}), and the skill runs downloaded code (see its download-exec finding): the download would run without a prompt"
            ),
        );
        f.line = line;
        f.column = column;
        f.span = span;
        f.evidence = evidence;
        findings.push(f);
    }
    (findings, markers)
}

/// A file too large to read as text: what its head says it is. A script (executable, or
/// code by its name or `#!` line) that is not read is high: padding a script past the
/// limit would otherwise hide what it runs from every gate that blocks on high findings.
pub(crate) fn oversized(path: &str, head: &[u8], size: u64, executable: bool) -> Vec<Finding> {
    let mut out = binary::check(path, head, false).unwrap_or_default();
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let script = executable || Lang::of_file(path, &String::from_utf8_lossy(first_line)).is_some();
    let limit = crate::MAX_TEXT_BYTES;
    let finding = if script {
        Finding::new(
            RuleId::FileNotAudited,
            path,
            format!(
                "{path} is a script of {size} bytes, over the {limit} byte limit of the audit: what it runs was not checked"
            ),
        )
        .with_severity(crate::Severity::High)
    } else {
        Finding::new(
            RuleId::FileNotAudited,
            path,
            format!(
                "{path} is {size} bytes, over the {limit} byte limit of the audit; it was not read"
            ),
        )
    };
    out.push(finding);
    out
}

/// A listing problem (a link out of the skill, an unreadable entry) as a finding.
pub(crate) fn problem(problem: &skills_core::files::Problem) -> Option<Finding> {
    use skills_core::files::Problem;
    let (path, what) = match problem {
        Problem::SymlinkEscape { link, target } => (
            link.clone(),
            format!(
                "a symlink to {}, outside the skill; not followed",
                target.display()
            ),
        ),
        Problem::Unreadable { path, error } => (path.clone(), format!("cannot be read: {error}")),
        Problem::NonUtf8Name { path } => (
            path.display().to_string(),
            "its name is not UTF-8".to_string(),
        ),
        _ => return None,
    };
    Some(Finding::new(
        RuleId::FileNotAudited,
        &path,
        format!("{path}: {what}"),
    ))
}

const MARKER: &str = "skills-audit: allow";

fn find_markers(ctx: &FileCtx<'_>) -> Vec<Marker> {
    let (path, text) = (ctx.path, ctx.text);
    let mut out = Vec::new();
    let mut at = 0;
    // Every byte of every file is searched: `memmem`'s vector search, not `str::find`'s
    // Two-Way (1.7% of an audit of corpus-large).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARKER));
    while let Some(found) = text.as_bytes().get(at..).and_then(|t| FINDER.find(t)) {
        let start = at + found;
        let line_end = text
            .get(start..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |e| start + e);
        let rest = text.get(start + MARKER.len()..line_end).unwrap_or_default();
        let rest = rest
            .trim_end()
            .trim_end_matches("-->")
            .trim_end_matches("*/")
            .trim_end();
        let (ids, reason) = match rest.split_once("--") {
            Some((ids, reason)) => (
                ids,
                Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
            ),
            None => (rest, None),
        };
        let rules: Vec<RuleId> = ids
            .split([',', ' '])
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.trim().parse().ok())
            .collect();
        let line_start = text
            .get(..start)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |i| i + 1);
        let before = text.get(line_start..start).unwrap_or_default().trim();
        let alone = before
            .chars()
            .all(|c| matches!(c, '#' | '/' | '<' | '!' | '-' | '*' | ';'));
        let (line, column) = ctx.line_col(start);
        out.push(Marker {
            path: path.to_string(),
            line,
            column,
            span: start..line_end,
            evidence: evidence(text.get(start..line_end).unwrap_or_default()),
            rules,
            reason,
            alone,
        });
        at = line_end.max(start + 1);
    }
    out
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".mdx", ".mdc"]
        .iter()
        .any(|e| lower.ends_with(e))
}

fn is_prose_text(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [
        ".txt",
        ".html",
        ".htm",
        ".rst",
        ".j2",
        ".jinja",
        ".tmpl",
        ".template",
        ".prompt",
    ]
    .iter()
    .any(|e| lower.ends_with(e))
        || !lower.rsplit('/').next().unwrap_or_default().contains('.')
}

fn scan_text_file(ctx: &mut FileCtx<'_>, facts: &mut SkillFacts) {
    let text = ctx.text;
    let path = ctx.path;
    let lang = Lang::of_file(path, text);
    if is_markdown(path) && lang.is_none() {
        let body =
            if path.eq_ignore_ascii_case(skills_core::layout::SKILL_MD) || path.ends_with(".md") {
                frontmatter(ctx, facts)
            } else {
                0..text.len()
            };
        let parts = markdown::Parts::of(text, body.clone());
        for block in &parts.blocks {
            if let Some(lang) = Lang::of_fence(&block.lang) {
                let quoted = if block.in_quote {
                    Quoted::Yes
                } else {
                    Quoted::IfIntroduced(block.start)
                };
                ctx.code(lang, block.content.clone(), quoted);
            }
        }
        for (range, told) in &parts.inline {
            // A command in a sentence that says to run it ("Run `curl … | sh`") is given;
            // one named in passing, in a table or a heading is quoted, and not read.
            if *told {
                let inner = trim_backticks(text, range.clone());
                ctx.code(Lang::Shell, inner, Quoted::No);
            }
        }
        instructions(ctx, body, Some(&parts));
    } else if let Some(lang) = lang {
        ctx.code(lang, 0..text.len(), Quoted::No);
        comment_instructions(ctx, lang);
    } else if is_prose_text(path) {
        let hidden = if path.to_ascii_lowercase().contains(".htm") {
            Some(markdown::Parts::of(text, 0..text.len()))
        } else {
            None
        };
        instructions(ctx, 0..text.len(), hidden.as_ref());
    }
    unicode::scan_invisible(ctx);
    unicode::scan_homoglyphs(ctx);
    for (what, span) in text::secrets(text) {
        ctx.push(
            RuleId::SecretCommitted,
            Severity::High,
            span,
            format!("{what} committed in the skill"),
        );
    }
    patterns::scan_text(ctx);
}

/// Instructions in a script's comment lines (`# Note to the AI agent: …`): an agent that
/// opens the script reads them as it reads prose. Strings are not read: a script that
/// detects injections lists their phrases as data.
fn comment_instructions(ctx: &mut FileCtx<'_>, lang: Lang) {
    let marker = match lang {
        Lang::JavaScript => "//",
        Lang::Shell | Lang::Python | Lang::PowerShell => "#",
    };
    let mut at = 0;
    let mut lines = Vec::new();
    for line in ctx.text.split_inclusive('\n') {
        let body = line.trim_start();
        if body.starts_with(marker) && !body.starts_with("#!") {
            let start = at + (line.len() - body.len());
            lines.push(start..at + line.len());
        }
        at += line.len();
    }
    for line in lines {
        instructions_in(ctx, line, None);
    }
}

fn trim_backticks(text: &str, range: Range<usize>) -> Range<usize> {
    let s = text.get(range.clone()).unwrap_or_default();
    let lead = s.len() - s.trim_start_matches('`').len();
    let trail = s.len() - s.trim_end_matches('`').len();
    if lead + trail >= s.len() {
        return range.start..range.start;
    }
    range.start + lead..range.end - trail
}

/// The frontmatter's checks (description, allowed-tools); the body's range.
fn frontmatter(ctx: &mut FileCtx<'_>, facts: &mut SkillFacts) -> Range<usize> {
    // Frontmatter opens the file (after a byte-order mark) with `---`; the parser takes
    // its own copy of the text, not worth making for the many files without.
    if !ctx
        .text
        .strip_prefix('\u{feff}')
        .unwrap_or(ctx.text)
        .starts_with("---")
    {
        return 0..ctx.text.len();
    }
    let Ok(md) = skills_frontmatter::SkillMd::parse_str(ctx.text.to_string()) else {
        return 0..ctx.text.len();
    };
    let body = md.body_span();
    if let Some(entry) = md.field("description") {
        let span = entry.value_span.clone();
        if let Some(desc) = ctx.text.get(span.clone())
            && let Some(claim) = text::greedy(desc)
        {
            let claim = span.start + claim.start..span.start + claim.end;
            ctx.push(
                RuleId::GreedyDescription,
                Severity::Medium,
                claim,
                "the description asks the agent to load this skill for every task".to_string(),
            );
        }
        instructions(ctx, span, None);
    }
    if ctx.path == skills_core::layout::SKILL_MD
        && let Some(entry) = md.field("allowed-tools")
    {
        let span = entry.value_span.clone();
        let value = ctx.text.get(span.clone()).unwrap_or_default();
        let flat = value
            .replace(['[', ']', '"', '\'', '\n', '-'], " ")
            .replace(',', " ");
        let any_shell = skills_frontmatter::parse_allowed_tools(&flat)
            .iter()
            .any(|t| {
                matches!(
                    t.name,
                    "Bash" | "Shell" | "run_shell_command" | "Terminal" | "shell"
                ) && (t.capabilities.is_empty()
                    || t.capabilities.iter().any(|c| {
                        matches!(
                            c.trim(),
                            "*" | "*:*" | ":*" | "bash:*" | "sh:*" | "bash *" | "sh *" | "**"
                        )
                    }))
            });
        if any_shell {
            let (line, column) = ctx.line_col(span.start);
            facts.shell_grant = Some((span, line, column, evidence(value)));
        }
    }
    body
}

/// Instruction patterns over `range`: reported in prose and in hidden markup, not in
/// code, tables, quotes or quoted phrases.
fn instructions(ctx: &mut FileCtx<'_>, range: Range<usize>, parts: Option<&markdown::Parts>) {
    let segments = match parts {
        Some(parts) if ctx.prefilter => prose_segments(range, parts),
        _ => vec![range],
    };
    for range in segments {
        instructions_in(ctx, range, parts);
    }
}

/// `range` less the content of its fenced code blocks, which is half of the Markdown in
/// real skills. A match that starts in a block is not reported (it is not prose, and no
/// block is in a hidden range; overlapping one, it is kept all the same), and none runs
/// from prose into a block, or out of one: the fence line between is backquotes or
/// tildes, which no instruction pattern takes. Indented blocks have no fence and stay.
fn prose_segments(range: Range<usize>, parts: &markdown::Parts) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = range.start;
    // Sorted by start, with each start's farthest end so far: whether a block meets a
    // hidden range is a binary search, not a pass over all of them per block.
    let mut hidden: Vec<Range<usize>> = parts.hidden.clone();
    hidden.sort_by_key(|h| h.start);
    let mut reach = 0;
    let reach_at: Vec<usize> = hidden
        .iter()
        .map(|h| {
            reach = reach.max(h.end);
            reach
        })
        .collect();
    for block in &parts.blocks {
        let content = &block.content;
        // The hidden ranges that start before the block ends; one of them reaches into it.
        let before = hidden.partition_point(|h| h.start < content.end);
        let hidden = before
            .checked_sub(1)
            .and_then(|i| reach_at.get(i))
            .is_some_and(|&end| end > content.start);
        if block.fenced && !hidden && from <= content.start && content.end <= range.end {
            out.push(from..content.start);
            from = content.end;
        }
    }
    out.push(from..range.end);
    out
}

fn instructions_in(ctx: &mut FileCtx<'_>, range: Range<usize>, parts: Option<&markdown::Parts>) {
    let Some(text) = ctx.text.get(range.clone()) else {
        return;
    };
    for hit in text::instructions(text) {
        let span = range.start + hit.span.start..range.start + hit.span.end;
        let hidden = parts.is_some_and(|p| p.in_hidden(span.start));
        if !hidden
            && (parts.is_some_and(|p| p.in_not_prose(span.start)) || text::quoted(ctx.text, &span))
        {
            continue;
        }
        let what = match hit.rule {
            RuleId::InstructionOverride => "tells the agent to set aside its other instructions",
            RuleId::ConcealFromUser => "tells the agent to keep what it does from the user",
            _ => "imitates a system or developer message",
        };
        if hidden {
            ctx.push(
                RuleId::HiddenInstructions,
                Severity::Critical,
                span,
                format!("hidden from the rendered page (an HTML comment or hidden element), this text {what}"),
            );
        } else if parts.is_some_and(|p| p.in_collapsed(span.start)) {
            ctx.push(
                RuleId::HiddenInstructions,
                Severity::Critical,
                span,
                format!(
                    "collapsed on the rendered page (in a `<details>` element), this text {what}"
                ),
            );
        } else {
            ctx.push(
                hit.rule,
                hit.rule.severity(),
                span,
                format!("this text {what}"),
            );
        }
    }
}
