//! The `console` examples of the docs, run: each `$ skills ...` line of a ```console block is
//! run, and what follows it (up to the next `$` line) must be exactly what it prints, so an
//! example cannot drift from the binary. A doc's examples run in one directory (a temporary
//! one, or a tree of `testdata/`), named here.

use std::path::Path;

use crate::{skills, testdata};

/// The `(command line, expected stdout)` pairs of `text`'s ```console blocks.
fn examples(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if !in_block {
            in_block = line.trim_start() == "```console";
            continue;
        }
        if line.trim_start() == "```" {
            in_block = false;
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.push((command.to_string(), String::new()));
        } else if let Some((_, expected)) = out.last_mut() {
            expected.push_str(line);
            expected.push('\n');
        }
    }
    for (_, expected) in &mut out {
        let kept = expected.trim_end_matches('\n').len();
        expected.truncate(kept);
        if !expected.is_empty() {
            expected.push('\n');
        }
    }
    out
}

/// `line` split into words as a POSIX shell splits a simple command: white space outside
/// quotes separates, `'...'` and `"..."` quote (no escapes or expansions inside: the docs
/// need none).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
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

/// Runs every console example of `docs/<doc>` in `cwd`.
fn check(doc: &str, cwd: &Path) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let examples = examples(&text);
    assert!(!examples.is_empty(), "{doc} has no console example");
    for (command, expected) in examples {
        let words = words(&command);
        let (program, args) = words.split_first().unwrap();
        assert_eq!(program, "skills", "{doc}: `{command}` does not run skills");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = skills(cwd, &args);
        run.assert_code(0);
        assert_eq!(
            run.stdout, expected,
            "{doc}: `{command}` prints something else than the example"
        );
    }
}

#[test]
fn the_splitter_and_the_parser_read_what_the_docs_write() {
    assert_eq!(
        words(r#"skills url "a b" 'c"d' e"#),
        ["skills", "url", "a b", "c\"d", "e"]
    );
    assert_eq!(words("skills  x ''"), ["skills", "x", ""]);
    let doc = "text\n```console\n$ skills a\none\n\ntwo\n\n$ skills b\n```\n```sh\n$ no\n```\n";
    assert_eq!(
        examples(doc),
        [
            ("skills a".to_string(), "one\n\ntwo\n".to_string()),
            ("skills b".to_string(), String::new())
        ]
    );
}

#[test]
fn url_md() {
    check("url.md", &std::env::temp_dir());
}

#[test]
fn prompt_md() {
    check("prompt.md", &testdata().join("context"));
}
