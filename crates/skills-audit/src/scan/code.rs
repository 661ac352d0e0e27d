//! Python and JavaScript, parsed with tree-sitter: what is executed, fetched, decoded,
//! read and sent. One walk, with each language's names in a [`Spec`].

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::FileCtx;
use super::installers;
use super::patterns::{self, Credential};
use crate::{RuleId, Severity};

/// Names that run commands or code: a built name that spells one of them hides an
/// execution.
pub(crate) fn dangerous_name(name: &str) -> bool {
    matches!(
        name,
        "system"
            | "popen"
            | "exec"
            | "eval"
            | "spawn"
            | "execSync"
            | "os"
            | "subprocess"
            | "child_process"
            | "curl"
            | "wget"
            | "sh"
            | "bash"
            | "nc"
            | "python"
            | "python3"
            | "powershell"
            | "Function"
            | "check_output"
            | "run"
            | "Popen"
            | "execv"
            | "execve"
            | "__import__"
            | "compile"
    )
}

/// Function definitions in either grammar: what they contain does not run where they are
/// written.
/// How [`Scan::runs`] names code that is run: downloaded, decoded.
const CODE: (&str, &str) = ("downloaded code", "decoded data");

const FUNCTIONS: &[&str] = &[
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
    "function_declaration",
    "lambda",
    "function_definition",
];

/// A language's node kinds and the names that matter.
pub(crate) struct Spec {
    pub(crate) call: &'static [&'static str],
    pub(crate) function_field: &'static str,
    pub(crate) args_field: &'static str,
    pub(crate) string: &'static [&'static str],
    pub(crate) string_content: &'static [&'static str],
    pub(crate) assignment: &'static [(&'static str, &'static str, &'static str)],
    pub(crate) binary: &'static str,
    /// Calls that run code: `exec`, `eval`.
    pub(crate) exec: fn(&str) -> bool,
    /// Calls that fetch or send over the network.
    pub(crate) net: fn(&str) -> bool,
    /// Calls that decode data.
    pub(crate) decode: fn(&str, &str) -> bool,
    /// Calls that run a shell command line.
    pub(crate) shell: fn(&str) -> bool,
    /// Calls whose name argument, built from pieces, hides what is called.
    pub(crate) lookup: fn(&str) -> bool,
    /// Whole-environment references (`os.environ`, `process.env`).
    pub(crate) environment: &'static str,
    /// Calls that delete a tree.
    pub(crate) rmtree: fn(&str) -> bool,
}

struct Scan<'c, 'a> {
    ctx: &'c mut FileCtx<'a>,
    spec: &'static Spec,
    src: &'a str,
    base: usize,
    /// Variables holding a download (with its URL) or decoded data (`None`).
    tainted: HashMap<String, Option<Option<String>>>,
    private_reads: Vec<Range<usize>>,
    sends: usize,
    decodes: usize,
    long_blobs: Vec<Range<usize>>,
    exfil_reported: bool,
    decode_exec: bool,
    /// String literals naming a file that runs later or configures the agent.
    sensitive_paths: Vec<Range<usize>>,
    /// The script writes files (`open(…, 'w')`, `writeFileSync`).
    writes: bool,
    first_url: Option<String>,
    /// The pieces of a reverse shell: a socket connected, descriptors wired to it
    /// (`os.dup2`, `.pipe(`), and a shell started (where, and by what).
    connects: bool,
    wires: bool,
    shell_started: Option<(Range<usize>, String)>,
}

pub(crate) fn scan(
    ctx: &mut FileCtx<'_>,
    range: Range<usize>,
    spec: &'static Spec,
    tree: Option<Tree>,
) {
    let Some(tree) = tree else { return };
    let src = ctx.text;
    let mut s = Scan {
        ctx,
        spec,
        src,
        base: range.start,
        tainted: HashMap::new(),
        private_reads: Vec::new(),
        sends: 0,
        decodes: 0,
        long_blobs: Vec::new(),
        exfil_reported: false,
        decode_exec: false,
        sensitive_paths: Vec::new(),
        writes: false,
        connects: false,
        wires: false,
        shell_started: None,
        first_url: src
            .get(range.clone())
            .and_then(installers::find_url)
            .map(str::to_string),
    };
    s.walk(tree.root_node());
    if s.connects
        && s.wires
        && let Some((at, how)) = s.shell_started.take()
    {
        s.ctx.push(
            RuleId::DownloadExec,
            Severity::Critical,
            at,
            format!("starts a shell with `{how}` wired to a network socket: a remote shell on this machine"),
        );
    }
    if !s.exfil_reported
        && let Some(first) = s.private_reads.first().cloned()
    {
        if s.sends > 0 {
            s.ctx.push(
                RuleId::CredentialExfiltration,
                Severity::Critical,
                first,
                "private credentials or the whole environment are read here, and the same script sends data over the network".to_string(),
            );
        } else {
            s.ctx.push(
                RuleId::CredentialAccess,
                Severity::Medium,
                first,
                "private credentials are read here".to_string(),
            );
        }
    }
    if s.writes {
        for span in std::mem::take(&mut s.sensitive_paths) {
            let target = s
                .ctx
                .text
                .get(span.clone())
                .unwrap_or_default()
                .trim_matches(['"', '\'', '`'])
                .to_string();
            let (rule, what) = if patterns::agent_config(&target) {
                (
                    RuleId::AgentConfigTamper,
                    format!(
                        "names the agent's own configuration {target}, and the script writes files"
                    ),
                )
            } else {
                (
                    RuleId::Persistence,
                    format!(
                        "names {target}, which runs code again later, and the script writes files"
                    ),
                )
            };
            if !s.ctx.out.iter().any(|f| f.rule == rule) {
                s.ctx.push(rule, Severity::High, span, what);
            }
        }
    }
    if s.decodes > 0
        && !s.decode_exec
        && let Some(blob) = s.long_blobs.first().cloned()
    {
        let len = blob.len();
        s.ctx.push(
            RuleId::EncodedPayload,
            Severity::Medium,
            blob,
            format!("a {len}-character encoded blob, and the script decodes data at run time"),
        );
    }
}

impl<'a> Scan<'_, 'a> {
    /// Node ranges are relative to the parsed slice.
    fn span(&self, node: Node<'_>) -> Range<usize> {
        let r = node.byte_range();
        self.base + r.start..self.base + r.end
    }

    fn text(&self, node: Node<'_>) -> &'a str {
        self.src.get(self.span(node)).unwrap_or_default()
    }

    fn push(&mut self, rule: RuleId, severity: Severity, node: Node<'_>, message: String) {
        let span = self.span(node);
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

    fn is_call(&self, node: Node<'_>) -> bool {
        self.spec.call.contains(&node.kind())
    }

    fn callee(&self, node: Node<'_>) -> String {
        node.child_by_field_name(self.spec.function_field)
            .or_else(|| node.child_by_field_name("constructor"))
            .map(|f| self.text(f).replace([' ', '\n'], ""))
            .unwrap_or_default()
    }

    /// What a subtree does: fetches (with a URL if one is written), decodes.
    fn effects(&self, node: Node<'_>) -> (Option<Option<String>>, bool) {
        let mut fetch = None;
        let mut decode = false;
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if self.is_call(n) {
                let f = self.callee(n);
                let t = self.text(n);
                if (self.spec.net)(&f) {
                    fetch = Some(
                        installers::find_url(t)
                            .map(str::to_string)
                            .or_else(|| self.first_url.clone()),
                    );
                }
                if (self.spec.decode)(&f, t) {
                    decode = true;
                }
            }
            if n.kind() == "identifier"
                && let Some(t) = self.tainted.get(self.text(n))
            {
                match t {
                    Some(url) => fetch = Some(url.clone()),
                    None => decode = true,
                }
            }
            // A function defined here runs later, if ever: `setTimeout(() => fetch(u))` or
            // `const poll = () => fetch(u)` does not run what it fetches.
            if FUNCTIONS.contains(&n.kind()) && n != node {
                continue;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        (fetch, decode)
    }

    /// Reports `runner` running what [`Scan::effects`] found it given, downloaded or
    /// decoded (`what`: how each is named in the message). Whether it reported.
    fn runs(
        &mut self,
        node: Node<'_>,
        (fetch, decode): (Option<Option<String>>, bool),
        (downloaded, decoded): (&str, &str),
        runner: &str,
    ) -> bool {
        if let Some(url) = fetch {
            self.remote(
                node,
                url.as_deref(),
                &format!("runs {downloaded} with `{runner}`"),
            );
        } else if decode {
            self.decode_exec = true;
            self.push(
                RuleId::DecodeExec,
                Severity::Critical,
                node,
                format!("runs {decoded} with `{runner}`"),
            );
        } else {
            return false;
        }
        true
    }

    fn walk(&mut self, node: Node<'_>) {
        let kind = node.kind();
        if self.is_call(node) {
            self.call(node);
        } else if self.spec.string.contains(&kind) {
            self.string(node);
        } else if let Some((_, left, right)) =
            self.spec.assignment.iter().find(|(k, _, _)| *k == kind)
        {
            if let (Some(l), Some(r)) = (
                node.child_by_field_name(left),
                node.child_by_field_name(right),
            ) {
                let (fetch, decode) = self.effects(r);
                let name = self.text(l).to_string();
                if let Some(url) = fetch {
                    self.tainted.insert(name, Some(url));
                } else if decode {
                    self.tainted.insert(name, None);
                }
            }
        } else if self.text(node) == self.spec.environment && self.environment_dumped(node) {
            self.private_reads.push(self.span(node));
        }
        let mut c = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut c).collect();
        for child in children {
            self.walk(child);
        }
    }

    /// `os.environ` / `process.env` taken whole into a serializer or a request (not `.get`,
    /// not an `env=` for a child process).
    fn environment_dumped(&self, node: Node<'_>) -> bool {
        let Some(parent) = node.parent() else {
            return false;
        };
        if !matches!(parent.kind(), "argument_list" | "arguments") {
            return false;
        }
        let Some(call) = parent.parent() else {
            return false;
        };
        let f = self.callee(call);
        f.ends_with("dumps")
            || f.ends_with("stringify")
            || f == "dict"
            || f == "str"
            || f == "repr"
            || f.starts_with("Object.")
            || (self.spec.net)(&f)
    }

    fn string(&mut self, node: Node<'_>) {
        let t = self.text(node);
        if t.len() >= 200 {
            let inner = t.trim_matches(|c| matches!(c, '"' | '\'' | '`' | 'b' | 'r' | 'f'));
            let compact: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
            let encoded = compact.len() >= 200
                && (compact.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_')
                }) && compact.chars().any(|c| c.is_ascii_digit())
                    && compact.chars().any(|c| c.is_ascii_uppercase())
                    && compact.chars().any(|c| c.is_ascii_lowercase()));
            let hex = compact.len() >= 200
                && compact
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || c == '\\' || c == 'x');
            if encoded || hex {
                self.long_blobs.push(self.span(node));
            }
        }
        let inner = t.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
        if !inner.contains('\n')
            && (patterns::agent_config(inner)
                || patterns::autostart(inner)
                || patterns::git_hook(inner)
                || patterns::rc_file(inner))
        {
            self.sensitive_paths.push(self.span(node));
        }
        if patterns::credential(t) == Some(Credential::Private)
            && !t.contains('\n')
            && !patterns::autostart(inner)
        {
            self.private_reads.push(self.span(node));
        }
    }

    fn call(&mut self, node: Node<'_>) {
        let f = self.callee(node);
        let args = node.child_by_field_name(self.spec.args_field);
        let name = f.rsplit('.').next().unwrap_or(&f).to_string();
        match name.as_str() {
            "connect" | "create_connection" | "createConnection" => self.connects = true,
            "dup2" | "pipe" => self.wires = true,
            _ => {}
        }
        // A member `exec` may be a regular expression's (`pattern.exec(text)`): only
        // child_process's, or a bare `exec` (destructured from it), is surely a shell call.
        let member_exec = f != "exec" && name == "exec" && !f.ends_with("child_process.exec");
        if ((self.spec.shell)(&f) || name == "spawn")
            && !member_exec
            && self.shell_started.is_none()
            && let Some(a) = args
        {
            let t = self.text(a);
            let shell = ["/bin/sh", "/bin/bash", "/bin/zsh", "cmd.exe", "powershell"]
                .iter()
                .any(|p| t.contains(p))
                || ["sh", "bash", "zsh"]
                    .iter()
                    .any(|p| t.contains(&format!("'{p}'")) || t.contains(&format!("\"{p}\"")));
            if shell {
                self.shell_started = Some((self.span(node), f.clone()));
            }
        }
        if (self.spec.net)(&f) {
            self.sends += 1;
            if let Some(a) = args {
                // Secrets or the environment in the request itself.
                let at = self.text(a);
                if patterns::credential(at) == Some(Credential::Private)
                    || at.contains(self.spec.environment)
                        && !at.contains(&format!("{}.get", self.spec.environment))
                        && !at.contains(&format!("{}[", self.spec.environment))
                        && !at.contains(&format!("{}.", self.spec.environment))
                {
                    self.exfil_reported = true;
                    self.push(
                        RuleId::CredentialExfiltration,
                        Severity::Critical,
                        node,
                        format!("`{f}` sends secrets over the network"),
                    );
                }
            }
        }
        if (self.spec.decode)(&f, self.text(node)) {
            self.decodes += 1;
        }
        // `fetch(u).then(r => r.text()).then(eval)`: a runner of strings given as a
        // callback runs what the call produces. (The prefilter's `Argument`
        // atoms are these four names.)
        if let Some(a) = args
            && let Some(runner) = {
                let mut c = a.walk();
                a.named_children(&mut c).find(|n| {
                    let t = self.text(*n);
                    n.kind() == "identifier"
                        && matches!(t, "eval" | "exec" | "setTimeout" | "setInterval")
                        && (self.spec.exec)(t)
                })
            }
        {
            let runner = self.text(runner).to_string();
            // The chain before it, or the other arguments (`map(exec, …)`).
            let effects = self.effects(node);
            self.runs(node, effects, CODE, &runner);
        }
        if (self.spec.exec)(&f)
            && let Some(a) = args
        {
            let effects = self.effects(a);
            if !self.runs(node, effects, CODE, &f) && self.built(a).is_some() {
                self.push(
                    RuleId::StringBuiltCommand,
                    Severity::High,
                    node,
                    format!("`{f}` runs code built from pieces"),
                );
            }
        }
        if (self.spec.lookup)(&f)
            && let Some(a) = args
            && let Some(name) = self.built(a)
        {
            let severity = if dangerous_name(&name) {
                Severity::High
            } else {
                Severity::Medium
            };
            self.push(RuleId::StringBuiltCommand, severity, node, format!("`{f}` looks up `{name}`, a name built from pieces, so a search for it finds nothing"));
        }
        if (self.spec.shell)(&f)
            && let Some(a) = args
        {
            // `os.system(b64decode(…))`, `execSync(await (await fetch(u)).text())`: the
            // command line itself downloaded or decoded.
            if !member_exec {
                let effects = self.effects(a);
                self.runs(
                    node,
                    effects,
                    ("a downloaded command line", "a decoded command line"),
                    &f,
                );
            }
            self.shell_args(a);
        }
        if (self.spec.rmtree)(&f)
            && let Some(a) = args
        {
            let t = self.text(a).replace(' ', "");
            if t == "(\"/\")"
                || t == "('/')"
                || t.contains("expanduser(\"~\"))")
                || t.contains("expanduser('~'))")
                || t == "(Path.home())"
                || t == "(os.homedir())"
                || t.contains("os.homedir(),{")
                || t == "(os.environ[\"HOME\"])"
            {
                self.push(
                    RuleId::DestructiveCommand,
                    Severity::Critical,
                    node,
                    format!("`{name}` deletes the home directory or the root"),
                );
            }
        }
        if name == "open"
            || name == "writeFileSync"
            || name == "appendFileSync"
            || name == "writeFile"
            || name == "appendFile"
            || name == "write_text"
        {
            let t = self.text(node).to_string();
            let writes = name != "open"
                || t.contains("'w")
                || t.contains("\"w")
                || t.contains("'a")
                || t.contains("\"a");
            self.writes |= writes;
            if writes
                && let Some(target) = self.strings_in(node).into_iter().find(|s| {
                    patterns::rc_file(s)
                        || patterns::autostart(s)
                        || patterns::git_hook(s)
                        || patterns::agent_config(s)
                })
            {
                let (rule, what) = if patterns::agent_config(&target) {
                    (
                        RuleId::AgentConfigTamper,
                        format!("writes the agent's own configuration {target}"),
                    )
                } else {
                    (
                        RuleId::Persistence,
                        format!("writes {target}, which runs code again later"),
                    )
                };
                self.push(rule, Severity::High, node, what);
            }
        }
    }

    fn strings_in(&self, node: Node<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if self.spec.string.contains(&n.kind()) {
                out.push(
                    self.text(n)
                        .trim_matches(|c| matches!(c, '"' | '\'' | '`'))
                        .to_string(),
                );
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        out
    }

    /// An argument list whose first argument is built: strings joined with `+`, `chr`/
    /// `fromCharCode`, a reversed or joined list.
    fn built(&self, args: Node<'_>) -> Option<String> {
        let mut c = args.walk();
        let first = args
            .named_children(&mut c)
            .find(|n| n.kind() != "comment")?;
        // getattr(obj, name): the name is the second argument.
        let mut c2 = args.walk();
        let second = args.named_children(&mut c2).nth(1);
        [Some(first), second].into_iter().flatten().find_map(|n| {
            // A function given to run later (`setTimeout(() => log(a.join(", ")), 9)`) is
            // code, not a string built from pieces, whatever its body joins.
            if FUNCTIONS.contains(&n.kind()) {
                return None;
            }
            let t = self.text(n);
            let built =
                (n.kind() == self.spec.binary && t.contains('+') && self.strings_in(n).len() >= 2)
                    || t.contains("chr(") && t.matches("chr(").count() >= 3
                    || t.contains("fromCharCode")
                    || t.contains("[::-1]")
                    || (t.contains(".join(") && t.contains('['));
            built.then(|| {
                let mut parts = self.strings_in(n);
                parts.reverse();
                let joined: String = parts.concat();
                if t.contains("[::-1]") {
                    joined.chars().rev().collect()
                } else {
                    joined
                }
            })
        })
    }

    fn shell_args(&mut self, args: Node<'_>) {
        let mut c = args.walk();
        let list: Vec<Node<'_>> = args.named_children(&mut c).collect();
        let Some(first) = list.first().copied() else {
            return;
        };
        let mut strings = Vec::new();
        if self.spec.string.contains(&first.kind()) {
            strings.push(first);
        } else if matches!(first.kind(), "list" | "array") {
            // ["bash", "-c", "…"]: the last string is a command line.
            let mut c = first.walk();
            let items: Vec<Node<'_>> = first.named_children(&mut c).collect();
            let words: Vec<String> = items
                .iter()
                .map(|n| self.text(*n).trim_matches(['"', '\'']).to_string())
                .collect();
            if words.iter().any(|w| w == "-c") {
                strings.extend(items.last().copied());
            } else {
                // A plain argv: as a command line, its words separated by spaces.
                let joined = words.join(" ");
                self.argv(first, &joined);
            }
        }
        // spawn('sh', ['-c', '…'])
        if let Some(second) = list.get(1)
            && matches!(second.kind(), "list" | "array")
            && self.text(*second).contains("-c")
        {
            let mut c = second.walk();
            strings.extend(second.named_children(&mut c).last());
        }
        for s in strings {
            let inner = self.string_inner(s);
            super::shell::scan(self.ctx, inner, 1);
        }
    }

    /// A plain argv list (`["curl", url]`) checked as the command line it is.
    fn argv(&mut self, node: Node<'_>, joined: &str) {
        let first = joined.split(' ').next().unwrap_or_default();
        if matches!(first, "crontab") || (first == "git" && joined.contains("core.hooksPath")) {
            self.push(
                RuleId::Persistence,
                Severity::High,
                node,
                format!("runs `{joined}`"),
            );
        }
        if first == "rm"
            && (joined.contains(" -rf ~")
                || joined.contains(" -rf /") && joined.trim_end().ends_with(" /"))
        {
            self.push(
                RuleId::DestructiveCommand,
                Severity::Critical,
                node,
                format!("runs `{joined}`"),
            );
        }
    }

    /// The content range of a string literal (its quotes left out).
    fn string_inner(&self, node: Node<'_>) -> Range<usize> {
        let mut c = node.walk();
        let parts: Vec<Node<'_>> = node
            .named_children(&mut c)
            .filter(|n| self.spec.string_content.contains(&n.kind()))
            .collect();
        match (parts.first(), parts.last()) {
            (Some(a), Some(b)) => self.base + a.start_byte()..self.base + b.end_byte(),
            _ => {
                let r = self.span(node);
                if r.len() >= 2 {
                    r.start + 1..r.end - 1
                } else {
                    r
                }
            }
        }
    }

    fn remote(&mut self, node: Node<'_>, url: Option<&str>, how: &str) {
        let (severity, message) = match url {
            Some(url) => match installers::allowed(url) {
                Some(i) => (
                    Severity::Medium,
                    format!(
                        "{how} from {}, the {} installer (allow-listed, so reported medium)",
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
}
