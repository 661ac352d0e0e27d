//! The examples of the docs, run, so that none can drift from the binary. Every fenced block
//! of `README.md` and `docs/*.md` that shows a command at a `$ ` prompt is a transcript: it
//! must be a `console` block, and it is run unless an HTML comment on the line above says
//! `<!-- not run: WHY -->`. The convention, for whoever writes the next example, is in
//! docs/ARCHITECTURE.md (Testing):
//!
//! - `$ skills ARGS` is run (words split as a shell does, `'…'` and `"…"` quoting, a `# …`
//!   comment left out; `NAME=value` words before `skills` set environment variables);
//!   `? N` on the next line is the exit status it must have (0 when there is none); every
//!   line after it up to the next `$` is what it prints, stdout and stderr as a terminal
//!   shows them (both go to one file).
//! - In the text, `[..]` stands for any part of a line, a line `...` for any lines, and
//!   `[ROOT]` for the directory the block runs in.
//! - Each block runs in a fresh copy of its doc's fixture, `testdata/docs/<stem>/` (or the
//!   tree [`FIXTURES`] names; an empty directory when there is neither), or of the directory
//!   of it that `<!-- run in: DIR -->` above the block names; its commands share that copy,
//!   as in one shell. Nothing of the machine reaches `skills`: the environment is only
//!   `HOME` (the fixture's `home/`, copied beside the working directory so that it shows as
//!   `~`), `PATH` (its `bin/`, likewise), `TMPDIR` (beside them), `COLUMNS=100` and
//!   `NO_COLOR=1`.
//! - A `sh` block is a list of commands to type, not run; each `skills` command in it must
//!   parse.

use std::io::{Read as _, Seek as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::testdata;

/// The docs whose examples run in a tree of `testdata/` other than `docs/<stem>/`.
const FIXTURES: &[(&str, &str)] = &[("docs/lint.md", "cli"), ("docs/prompt.md", "context")];

/// How long one command may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The repository's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `README.md` and `docs/*.md`, as paths relative to the repository, sorted.
fn docs() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(workspace().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// A fenced code block of a doc.
#[derive(Debug, PartialEq)]
struct Block {
    /// The line of the opening fence, from 1.
    line: usize,
    /// What follows the opening fence (`console`, `sh`, `text`...).
    info: String,
    /// What the HTML comment on the line above the fence says, if there is one.
    comment: Option<String>,
    /// The lines inside, without the indentation of the fence.
    body: Vec<String>,
}

impl Block {
    /// A transcript shows a command at a `$ ` prompt.
    fn is_transcript(&self) -> bool {
        self.body.iter().any(|l| l.starts_with("$ "))
    }

    /// The marker above the block: why it is not run, or where it runs.
    fn marker(&self) -> Option<Marker<'_>> {
        let comment = self.comment.as_deref()?;
        if let Some(why) = comment.strip_prefix("not run:") {
            Some(Marker::NotRun(why.trim()))
        } else {
            comment
                .strip_prefix("run in:")
                .map(|dir| Marker::RunIn(dir.trim()))
        }
    }
}

#[derive(Debug, PartialEq)]
enum Marker<'a> {
    NotRun(&'a str),
    RunIn(&'a str),
}

/// The fenced blocks of a Markdown text (fences of three backticks, indented or not).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    let mut previous = "";
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let comment = previous
                        .trim()
                        .strip_prefix("<!--")
                        .and_then(|c| c.strip_suffix("-->"))
                        .map(|c| c.trim().to_string());
                    let block = Block {
                        line: i + 1,
                        info: info.trim().to_string(),
                        comment,
                        body: Vec::new(),
                    };
                    open = Some((indent, block));
                }
            }
            Some((fence, block)) => {
                if trimmed == "```" {
                    out.extend(open.take().map(|(_, block)| block));
                } else {
                    block.body.push(line[indent.min(*fence)..].to_string());
                }
            }
        }
        previous = line;
    }
    out
}

/// One command of a transcript and what it must do.
#[derive(Debug, PartialEq)]
struct Example {
    /// Its line in the doc, from 1.
    line: usize,
    command: String,
    status: i32,
    /// What it prints, line by line (wildcards unexpanded), without trailing empty lines.
    output: Vec<String>,
    /// The line of the doc where that starts.
    output_line: usize,
}

/// The commands of a transcript (`block_line` is the line of its fence).
fn examples(body: &[String], block_line: usize) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    for (i, line) in body.iter().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                line: block_line + 1 + i,
                command: command.to_string(),
                status: 0,
                output: Vec::new(),
                output_line: block_line + 2 + i,
            });
        } else if let Some(example) = out.last_mut() {
            match line.strip_prefix("? ") {
                Some(status) if example.output.is_empty() => {
                    example.status = status.trim().parse().unwrap_or_else(|_| {
                        panic!(
                            "line {}: `? {status}` is no exit status",
                            block_line + 1 + i
                        )
                    });
                    example.output_line += 1;
                }
                _ => example.output.push(line.clone()),
            }
        }
    }
    for example in &mut out {
        while example.output.last().is_some_and(String::is_empty) {
            example.output.pop();
        }
    }
    out
}

/// `line` split into words as a POSIX shell splits a simple command: white space outside
/// quotes separates, `'...'` and `"..."` quote (no escapes or expansions inside: the docs
/// need none), and a `#` that starts a word starts a comment, left out.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '#') if word.is_none() => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "unclosed quote in {line:?}");
    out.extend(word);
    out
}

/// The `NAME=value` words before the program, and the rest.
fn environment(words: &[String]) -> (Vec<(&str, &str)>, &[String]) {
    let mut env = Vec::new();
    for (i, word) in words.iter().enumerate() {
        match word.split_once('=') {
            Some((name, value)) if is_variable(name) => {
                env.push((name, value));
            }
            _ => return (env, &words[i..]),
        }
    }
    (env, &[])
}

/// Whether `name` is an environment variable's name as the docs write them (`COLUMNS`).
fn is_variable(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether `line` is what `pattern` shows, `[..]` standing for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let Some(mut rest) = line.strip_prefix(parts.next().unwrap_or_default()) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether `lines` are what `patterns` show, a line `...` standing for any lines.
fn lines_match(patterns: &[String], lines: &[&str]) -> bool {
    match patterns.split_first() {
        None => lines.is_empty(),
        Some((pattern, rest)) if pattern == "..." => {
            (0..=lines.len()).any(|skip| lines_match(rest, &lines[skip..]))
        }
        Some((pattern, rest)) => lines
            .split_first()
            .is_some_and(|(line, others)| line_matches(pattern, line) && lines_match(rest, others)),
    }
}

/// Where `lines` first differ from `patterns` (an index into both), when no `...` makes
/// that a guess.
fn first_difference(patterns: &[String], lines: &[&str]) -> Option<usize> {
    if patterns.iter().any(|p| p == "...") {
        return None;
    }
    (0..patterns.len().max(lines.len())).find(|&i| match (patterns.get(i), lines.get(i)) {
        (Some(pattern), Some(line)) => !line_matches(pattern, line),
        _ => true,
    })
}

/// A fresh copy of a doc's fixture, and the environment `skills` runs in.
struct Sandbox {
    _dir: tempfile::TempDir,
    /// The copy of the fixture but its `home/` and `bin/` (`[ROOT]`).
    root: PathBuf,
    /// `HOME`: the copy of the fixture's `home/`, outside the working directory so that
    /// paths below it are shown as `~/…`, as on a real machine.
    home: PathBuf,
    /// `PATH`: the copy of its `bin/`.
    bin: PathBuf,
    tmp: PathBuf,
}

impl Sandbox {
    fn new(fixture: Option<&Path>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let sandbox = Self {
            _dir: dir,
            root: base.join("root"),
            home: base.join("home"),
            bin: base.join("bin"),
            tmp: base.join("tmp"),
        };
        for dir in [&sandbox.root, &sandbox.home, &sandbox.tmp] {
            std::fs::create_dir(dir).unwrap();
        }
        if let Some(fixture) = fixture {
            for entry in std::fs::read_dir(fixture).unwrap() {
                let entry = entry.unwrap();
                let target = match entry.file_name().to_str() {
                    Some("home") => sandbox.home.clone(),
                    Some("bin") => sandbox.bin.clone(),
                    _ => sandbox.root.join(entry.file_name()),
                };
                copy(&entry.path(), &target);
            }
        }
        sandbox
    }

    /// Runs one command line in the copy: its exit status and what it printed, with the
    /// copy's path as `[ROOT]`.
    fn run(&self, command: &str) -> Result<(i32, String), String> {
        let words = words(command);
        let (env, words) = environment(&words);
        let Some(("skills", args)) = words.split_first().map(|(p, a)| (p.as_str(), a)) else {
            return Err(format!("`{command}` does not run skills"));
        };
        let mut out = tempfile::tempfile_in(&self.tmp).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", &self.bin)
            .env("TMPDIR", &self.tmp)
            .env("COLUMNS", "100")
            .env("NO_COLOR", "1")
            .envs(env)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out.try_clone().unwrap())
            .spawn()
            .map_err(|e| format!("cannot start skills: {e}"))?;
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`{command}` ran for more than {TIMEOUT:?}"));
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut printed = String::new();
        out.rewind().unwrap();
        out.read_to_string(&mut printed)
            .map_err(|e| format!("`{command}` printed something that is not UTF-8 ({e})"))?;
        let printed = printed.replace(&self.root.to_string_lossy().into_owned(), "[ROOT]");
        Ok((status.code().unwrap_or(-1), printed))
    }
}

/// Copies `from` (a file, or a tree of directories and files; modes kept) to `to`.
fn copy(from: &Path, to: &Path) {
    let kind = std::fs::symlink_metadata(from).unwrap().file_type();
    if kind.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        assert!(kind.is_file(), "{}: fixtures hold files", from.display());
        std::fs::copy(from, to).unwrap();
    }
}

/// The fixture of `doc`, if it has one.
fn fixture(doc: &str) -> Option<PathBuf> {
    if let Some((_, tree)) = FIXTURES.iter().find(|(d, _)| *d == doc) {
        return Some(testdata().join(tree));
    }
    let stem = Path::new(doc).file_stem()?;
    let dir = testdata().join("docs").join(stem);
    dir.is_dir().then_some(dir)
}

/// Runs the transcripts of `doc` that are to be run: what differs from the text, one
/// message per command.
fn check(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(workspace().join(doc)).unwrap();
    let fixture = fixture(doc);
    let mut failures = Vec::new();
    for block in blocks(&text) {
        if !block.is_transcript() || matches!(block.marker(), Some(Marker::NotRun(_))) {
            continue;
        }
        let sandbox = Sandbox::new(
            match block.marker() {
                Some(Marker::RunIn(dir)) => fixture.as_ref().map(|f| f.join(dir)),
                _ => fixture.clone(),
            }
            .as_deref(),
        );
        for example in examples(&block.body, block.line) {
            let place = format!("{doc}:{}: `{}`", example.line, example.command);
            let (status, printed) = match sandbox.run(&example.command) {
                Ok(done) => done,
                Err(e) => {
                    failures.push(format!("{place}: {e}"));
                    continue;
                }
            };
            let mut lines: Vec<&str> = printed.lines().collect();
            while lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            if status != example.status {
                failures.push(format!(
                    "{place} exits {status}, not {} as the doc says; it prints\n{}",
                    example.status,
                    lines.join("\n"),
                ));
            } else if !lines_match(&example.output, &lines) {
                let at = first_difference(&example.output, &lines)
                    .map(|i| format!(" (from line {} on)", example.output_line + i))
                    .unwrap_or_default();
                failures.push(format!(
                    "{place} prints something else than the doc shows{at}\n\
                     --- the doc\n{}\n--- skills\n{}",
                    example.output.join("\n"),
                    lines.join("\n"),
                ));
            }
        }
    }
    failures
}

/// Every transcript of the docs is run, and prints what the doc shows. (Unix: the docs show
/// Unix paths, and the fixtures' `bin/` holds shell scripts.)
#[cfg(unix)]
#[test]
fn the_docs_examples_print_what_they_show() {
    let failures: Vec<String> = docs().iter().flat_map(|doc| check(doc)).collect();
    assert!(
        failures.is_empty(),
        "{} examples of the docs are not what skills does (fix the text or the binary):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// `line` cut where a shell ends a command of a list or pipeline (`;`, `|`, `&&`, `||`)
/// outside quotes.
fn parts(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ';' | '|' | '&') => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&line[start..]);
    out
}

/// The `skills` commands of a `sh` block, the lists of commands to type (one a line, a
/// `# comment` after it): each with its line. A line is cut into [`parts`], each a command,
/// and a command at a redirection (`> FILE`); one that needs a shell to expand it (`$(…)`,
/// `$VAR`) is left out.
fn commands(body: &[String], block_line: usize) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (i, line) in body.iter().enumerate() {
        for part in parts(line) {
            // Other programs' lines (curl's JSON spans lines) are not split into words.
            let program = part
                .split_whitespace()
                .find(|w| !w.split_once('=').is_some_and(|(n, _)| is_variable(n)));
            if program != Some("skills") {
                continue;
            }
            let words = words(part);
            let (_, words) = environment(&words);
            if words.first().map(String::as_str) != Some("skills")
                || words.iter().any(|w| w.contains('$') || w.contains('`'))
            {
                continue;
            }
            let args = words
                .iter()
                .skip(1)
                .take_while(|w| !w.starts_with('>'))
                .cloned()
                .collect();
            out.push((block_line + 1 + i, args));
        }
    }
    out
}

/// Every `skills` command a `sh` block lists is one the binary accepts: its subcommands,
/// flags and values parse (run with `--help` after them, which clap answers once it has
/// parsed what comes before, without running anything), so a renamed flag or command in a
/// list of examples fails here.
#[test]
fn the_docs_command_lists_parse() {
    let empty = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(workspace().join(&doc)).unwrap();
        for block in blocks(&text).into_iter().filter(|b| b.info == "sh") {
            for (line, args) in commands(&block.body, block.line) {
                let out = Command::new(env!("CARGO_BIN_EXE_skills"))
                    .args(&args)
                    .arg("--help")
                    .current_dir(empty.path())
                    .env_clear()
                    .env("HOME", empty.path())
                    .env("NO_COLOR", "1")
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                checked += 1;
                if !out.status.success() {
                    problems.push(format!(
                        "{doc}:{line}: `skills {}` is not a command skills accepts:\n{}",
                        args.join(" "),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        checked > 50,
        "only {checked} commands found in the docs' lists"
    );
}

/// The convention holds: a block that shows `$ ` commands is a `console` block, a `console` block
/// is a transcript, one that is not run says why, a directory to run in exists, and every
/// fixture belongs to a doc.
#[test]
fn every_transcript_is_run_or_says_why() {
    let mut problems = Vec::new();
    let mut ran = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(workspace().join(&doc)).unwrap();
        for block in blocks(&text) {
            let place = format!("{doc}:{}", block.line);
            let console = block.info == "console";
            if block.is_transcript() && !console {
                problems.push(format!(
                    "{place}: a block that shows `$ ` commands is a ```console block, run by the tests"
                ));
            }
            if console && !block.body.first().is_some_and(|l| l.starts_with("$ ")) {
                problems.push(format!(
                    "{place}: a ```console block starts with the `$ ` command whose output it shows"
                ));
            }
            match block.marker() {
                Some(Marker::NotRun("")) => {
                    problems.push(format!("{place}: `<!-- not run: WHY -->` needs its why"));
                }
                Some(Marker::RunIn(dir)) => {
                    let fixture = fixture(&doc);
                    if !console || !fixture.is_some_and(|f| f.join(dir).is_dir()) {
                        problems.push(format!(
                            "{place}: `run in: {dir}` names no directory of the doc's fixture before a ```console block"
                        ));
                    }
                }
                Some(Marker::NotRun(_)) => {}
                None if console => ran += 1,
                None => {}
            }
            if console {
                for example in examples(&block.body, block.line) {
                    let words = words(&example.command);
                    if environment(&words).1.first().map(String::as_str) != Some("skills") {
                        problems.push(format!(
                            "{doc}:{}: `{}`: an example runs `skills`",
                            example.line, example.command
                        ));
                    }
                }
            }
        }
    }
    let stems: Vec<String> = docs()
        .iter()
        .filter_map(|d| Some(Path::new(d).file_stem()?.to_string_lossy().into_owned()))
        .collect();
    for entry in std::fs::read_dir(testdata().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !stems.contains(&name) {
            problems.push(format!("testdata/docs/{name} is the fixture of no doc"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(ran > 0, "no example of the docs is run");
}

#[test]
fn the_parsers_and_the_wildcards_read_what_the_docs_write() {
    assert_eq!(
        words(r#"skills url "a b" 'c"d' e"#),
        ["skills", "url", "a b", "c\"d", "e"]
    );
    assert_eq!(words("skills  x ''"), ["skills", "x", ""]);
    assert_eq!(words("skills list   # at 60 columns"), ["skills", "list"]);
    assert_eq!(words("skills x a#b '#'"), ["skills", "x", "a#b", "#"]);
    let line = words("COLUMNS=60 A_1=x=y skills list COLUMNS=1");
    let (env, rest) = environment(&line);
    assert_eq!(env, [("COLUMNS", "60"), ("A_1", "x=y")]);
    assert_eq!(rest, ["skills", "list", "COLUMNS=1"]);

    let doc = "text\n<!-- not run: needs a network -->\n```console\n$ skills a\n? 1\none\n\n\
               two\n? x\n\n$ skills b\n```\n  ```sh\n  $ no\n    indented\n  ```\n";
    let found = blocks(doc);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].marker(), Some(Marker::NotRun("needs a network")));
    assert_eq!((found[0].line, found[0].info.as_str()), (3, "console"));
    assert_eq!((found[1].line, found[1].info.as_str()), (13, "sh"));
    assert_eq!(found[1].body, ["$ no", "  indented"]);
    assert!(found[1].is_transcript() && found[1].marker().is_none());
    assert_eq!(
        examples(&found[0].body, found[0].line),
        [
            Example {
                line: 4,
                command: "skills a".into(),
                status: 1,
                output: vec!["one".into(), String::new(), "two".into(), "? x".into()],
                output_line: 6,
            },
            Example {
                line: 11,
                command: "skills b".into(),
                status: 0,
                output: vec![],
                output_line: 12,
            }
        ]
    );

    assert!(line_matches(
        "skills 0.1.0 ([..])",
        "skills 0.1.0 (f1f9941 2026-11-23)"
    ));
    assert!(line_matches("a[..]b[..]c", "a-b-b-c"));
    assert!(line_matches("[..]", ""));
    assert!(!line_matches("a[..]b", "a-c"));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert!(!line_matches("exact", "exact "));
    let patterns: Vec<String> = ["first", "...", "last"].map(String::from).into();
    let body: Vec<String> = [
        "skills lint --strict                # a comment",
        "skills completions bash > ~/.bash; skills -q lint && skills -v lint",
        "SOURCE_DATE_EPOCH=$(git log -1) skills package x",
        "SKILLS_PATH=a:b skills show pdf | head",
        "grep -E 'a|b' x || skills list",
        "cargo xtask ci",
    ]
    .map(String::from)
    .into();
    let found: Vec<(usize, String)> = commands(&body, 10)
        .into_iter()
        .map(|(line, args)| (line, args.join(" ")))
        .collect();
    assert_eq!(
        found,
        [
            (11, "lint --strict".to_string()),
            (12, "completions bash".to_string()),
            (12, "-q lint".to_string()),
            (12, "-v lint".to_string()),
            (14, "show pdf".to_string()),
            (15, "list".to_string()),
        ]
    );

    assert!(lines_match(&patterns, &["first", "last"]));
    assert!(lines_match(&patterns, &["first", "a", "b", "last"]));
    assert!(!lines_match(&patterns, &["first", "a"]));
    assert!(!lines_match(&patterns[..1], &["first", "more"]));
    let patterns: Vec<String> = ["a", "b[..]"].map(String::from).into();
    assert_eq!(first_difference(&patterns, &["a", "bc"]), None);
    assert_eq!(first_difference(&patterns, &["a", "c"]), Some(1));
    assert_eq!(first_difference(&patterns, &["a"]), Some(1));
    assert_eq!(first_difference(&patterns, &["a", "b", "c"]), Some(2));
}
