//! `skills url` through the binary: the raw URL of each shape, the JSON document, and the
//! errors (exit 2, a message and a help line, nothing on stdout). The translation rules
//! themselves are tested in `skills-url`; these check the wiring and the output.

use std::path::PathBuf;

use crate::{Run, skills, snapshot};

fn cwd() -> PathBuf {
    std::env::temp_dir()
}

fn url(args: &[&str]) -> Run {
    let mut all = vec!["url"];
    all.extend_from_slice(args);
    skills(&cwd(), &all)
}

/// One of each host and form: `input -> output` lines, so one snapshot reads as a table.
#[test]
fn text_prints_the_raw_url() {
    let inputs = [
        "https://github.com/org/repo/blob/main/skills/name/SKILL.md",
        "https://github.com/anthropics/skills/blob/main/skills/pdf/SKILL.md?plain=1#L10-L20",
        "https://github.com/anthropics/skills/tree/main/skills/pdf/",
        "https://github.com/anthropics/skills",
        "https://github.com/o/r/blob/feature/x/SKILL.md",
        "https://github.com/o/r/blob/main/my skills/SKILL.md",
        "https://raw.githubusercontent.com/o/r/main/SKILL.md",
        "https://github.acme.com/team/repo/blob/main/SKILL.md",
        "https://gitlab.com/org/repo/-/blob/main/skills/name/SKILL.md",
        "https://gitlab.com/group/sub/project/-/tree/main/skills/x?ref_type=heads",
        "https://git.example.org/team/skills/-/blob/main/SKILL.md",
        "https://bitbucket.org/org/repo/src/main/skills/name/SKILL.md",
        "https://bitbucket.org/org/repo/src/main/skills/name/",
        "https://gist.github.com/octocat/aa5a315d61ae9438b18d",
        "https://gist.github.com/aa5a315d61ae9438b18d",
        "https://example.com/skills/pdf/SKILL.md",
        // Pasted without the scheme.
        "github.com/o/r/blob/main/x/SKILL.md",
        "gist.github.com/aa5a315d61ae9438b18d",
    ];
    let mut out = String::new();
    for input in inputs {
        let run = url(&[input]);
        run.assert_code(0).assert_quiet();
        assert!(run.stdout.ends_with('\n') && run.stdout.lines().count() == 1);
        out.push_str(&format!("{input}\n  -> {}", run.stdout));
    }
    snapshot("url_text", "skills url URL", None, &out);
}

#[test]
fn json_has_input_raw_repository_and_host() {
    let run = url(&[
        "--format",
        "json",
        "https://github.com/anthropics/skills/tree/main/skills/pdf?tab=readme#x",
    ]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(
        doc["raw"],
        "https://raw.githubusercontent.com/anthropics/skills/main/skills/pdf/SKILL.md"
    );
    snapshot("url_json", &run.command, None, &run.stdout);

    // An unknown host: no repository, not trusted.
    let doc = url(&["--format", "json", "http://example.com/SKILL.md"]).json();
    assert_eq!(doc["host"], "other");
    assert!(doc["repository"].is_null());
    assert_eq!(doc["trusted"], false);
}

#[test]
fn malformed_urls_fail_with_exit_2_and_help() {
    let inputs = [
        "example.com/skills/SKILL.md",
        "git@github.com:o/r.git",
        "https://github.com/o/r/issues/1",
        "https://github.com/o/r/blob/main",
        "https://github.com/o/r/blob/main/100%.md",
        "https://user:secret@gitlab.com/g/p/-/blob/main/SKILL.md",
        "",
    ];
    let mut out = String::new();
    for input in inputs {
        let run = url(&[input]);
        run.assert_code(2);
        assert_eq!(run.stdout, "", "stdout of {input}");
        assert!(run.stderr.contains("help:"), "{}", run.stderr);
        assert!(!run.stderr.contains("secret"), "{}", run.stderr);
        out.push_str(&format!("$ skills url {input:?}\n{}\n", run.stderr));
    }
    snapshot("url_errors", "skills url BAD", None, &out);
}

/// What people paste: a forge's URL without `https://`, a gist without its owner. Both
/// translate, and the JSON says where they will be fetched from (a trusted host).
#[test]
fn pasted_urls_are_accepted() {
    let doc = url(&["--format", "json", "github.com/o/r/blob/main/x/SKILL.md"]).json();
    assert_eq!(doc["input"], "github.com/o/r/blob/main/x/SKILL.md");
    assert_eq!(
        doc["raw"],
        "https://raw.githubusercontent.com/o/r/main/x/SKILL.md"
    );
    assert_eq!(doc["repository"], "https://github.com/o/r");
    assert_eq!(doc["trusted"], true);
    let doc = url(&[
        "--format",
        "json",
        "https://gist.github.com/0123456789abcdef0123456789abcdef",
    ])
    .json();
    assert_eq!(
        doc["raw"],
        "https://gist.github.com/0123456789abcdef0123456789abcdef/raw"
    );
    assert_eq!(doc["host"], "gist");
    assert_eq!(doc["trusted"], true);
}

#[test]
fn help_lists_the_command() {
    let run = skills(&cwd(), &["--help"]);
    assert!(run.stdout.contains("url "), "{}", run.stdout);
    let run = url(&["--help"]);
    run.assert_code(0);
    assert!(run.stdout.contains("--format <FORMAT>"), "{}", run.stdout);
}
