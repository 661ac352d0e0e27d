//! Hostile and broken inputs through `skills lint`, `skills list` and `skills show`: each
//! gives a clear message (the file, the line and column where there is one, the fix), and
//! the process neither panics nor hangs (every run has a 60-second timeout, so a hang fails
//! the test instead of blocking the suite).
//!
//! Parser-level cases live in the owning crates: the alias bomb and deep nesting in
//! `skills-frontmatter` (`billion_laughs_fails_fast`, `deep_nesting_fails`, and the property
//! test `tests/never_panics.rs`), lone CR, NUL and Unicode names in its unit tests; an
//! unreadable `SKILL.md` in `generated.rs` (`file_unreadable`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Run, diagnostics, rules_of, skills, snapshot};

/// Writes `dir/SKILL.md` (creating `dir`) with `bytes`; returns `dir`.
fn write_md(dir: &Path, bytes: &[u8]) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("SKILL.md"), bytes).unwrap();
    dir.to_path_buf()
}

fn clean_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: A test skill. Use when testing.\n---\nFollow the steps.\n"
    )
}

/// `skills lint --no-config --format json skills` in `root`: the run and its document.
fn lint_json(root: &Path) -> (Run, serde_json::Value) {
    let run = skills(root, &["lint", "--no-config", "--format", "json", "skills"]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let doc = run.json();
    (run, doc)
}

/// `skills lint --no-config skills` in `root`, human output, snapshotted as `name`.
fn lint_human_snapshot(root: &Path, name: &str, code: i32) -> Run {
    let run = skills(
        root,
        &[
            "lint",
            "--no-config",
            "--format",
            "human",
            "--color",
            "never",
            "skills",
        ],
    );
    run.assert_code(code).assert_quiet();
    snapshot(name, &run.command, Some(root), &run.stdout);
    run
}

/// `skills --skills-dir skills ARGS` in `root`.
fn in_root(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["--skills-dir", "skills"];
    all.extend_from_slice(args);
    let run = skills(root, &all);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

/// The single diagnostic of a JSON lint document, checked to be `rule`.
#[track_caller]
fn only(doc: &serde_json::Value, rule: &str) -> serde_json::Value {
    assert_eq!(rules_of(doc), [rule], "{doc:#}");
    diagnostics(doc)[0].clone()
}

/// A skill directory whose name is not UTF-8 beside a valid one: `list --format json`
/// printed only `{"error":"path contains invalid UTF-8 characters"}` (exit 0, the valid
/// skills lost) and the XML an empty `<location>`. Both now list every skill, the name
/// with U+FFFD for the bytes that are not UTF-8, and warn.
#[cfg(unix)]
#[test]
fn a_skill_directory_not_in_utf8_is_listed_with_a_warning() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = tempfile::tempdir().unwrap();
    write_md(&t.path().join("skills/good"), clean_md("good").as_bytes());
    let bad = t.path().join("skills").join(OsStr::from_bytes(b"bad\xff"));
    write_md(&bad, clean_md("bad").as_bytes());
    let json = in_root(t.path(), &["list", "--format", "json"]);
    json.assert_code(0);
    let doc = json.json();
    let paths: Vec<&str> = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 2, "{}", json.stdout);
    assert!(
        paths[0].ends_with("/skills/bad\u{fffd}/SKILL.md"),
        "{paths:?}"
    );
    assert!(paths[1].ends_with("/skills/good/SKILL.md"), "{paths:?}");
    assert_eq!(
        doc["skills"][0]["base_dir"],
        paths[0].trim_end_matches("/SKILL.md")
    );
    let warning = |run: &Run| {
        assert_eq!(run.stderr.matches("warning: ").count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("bad\u{fffd}/SKILL.md: the path is not UTF-8"),
            "{}",
            run.stderr
        );
    };
    warning(&json);
    let xml = in_root(t.path(), &["list", "--format", "xml"]);
    xml.assert_code(0);
    assert!(
        !xml.stdout.contains("<location></location>"),
        "{}",
        xml.stdout
    );
    assert!(
        xml.stdout
            .contains("/skills/bad\u{fffd}/SKILL.md</location>"),
        "{}",
        xml.stdout
    );
    warning(&xml);
    let table = in_root(t.path(), &["list"]);
    table.assert_code(0);
    assert!(table.stdout.contains("good"), "{}", table.stdout);
    warning(&table);
}

#[test]
fn a_1_gib_skill_md_is_refused_by_its_size() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("skills/huge");
    fs::create_dir_all(&dir).unwrap();
    // Sparse: 1 GiB in the metadata, no block on disk. Reading it whole would cost 1 GiB.
    let f = fs::File::create(dir.join("SKILL.md")).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);

    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "file-too-large");
    assert_eq!(d["path"], "skills/huge/SKILL.md");
    assert_eq!(
        d["message"],
        "SKILL.md is 1073741824 bytes; files over 1048576 bytes are not read"
    );
    lint_human_snapshot(t.path(), "adversarial__huge__human", 1);

    let list = in_root(t.path(), &["list", "--all", "--format", "json"]);
    list.assert_code(0);
    assert!(
        list.stdout
            .contains("SKILL.md is 1073741824 bytes; files over 1048576 bytes are refused"),
        "{}",
        list.stdout
    );
    // A skill that exists but cannot be shown: "not found" (1), with the reason.
    let show = in_root(t.path(), &["show", "huge"]);
    show.assert_code(1);
    assert!(
        show.stderr.contains("exists but was skipped"),
        "{}",
        show.stderr
    );
    assert!(show.stderr.contains("skills lint"), "{}", show.stderr);
}

/// A billion-laughs document: nine levels of nine aliases each.
fn alias_bomb() -> String {
    let mut text = String::from(
        "---\nname: bomb\ndescription: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    let mut prev = 'a';
    for c in "bcdefghi".chars() {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        text.push_str(&format!("{c}: &{c} [{refs}]\n"));
        prev = c;
    }
    text.push_str("---\nBody.\n");
    text
}

#[test]
fn an_alias_bomb_is_refused_with_its_position() {
    let t = tempfile::tempdir().unwrap();
    write_md(&t.path().join("skills/bomb"), alias_bomb().as_bytes());
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "yaml-too-complex");
    assert_eq!(d["path"], "skills/bomb/SKILL.md");
    assert!(d["line"].as_u64().unwrap() > 3, "{d:#}");
    assert!(d["help"].as_str().unwrap().contains("no anchors/aliases"));
    lint_human_snapshot(t.path(), "adversarial__alias_bomb__human", 1);

    let list = in_root(t.path(), &["list", "--all"]);
    list.assert_code(0);
    assert!(
        list.stdout
            .contains("[skipped: frontmatter YAML is too complex"),
        "{}",
        list.stdout
    );
    in_root(t.path(), &["show", "bomb"]).assert_code(1);
}

#[test]
fn nesting_10000_deep_is_refused_not_a_stack_overflow() {
    let t = tempfile::tempdir().unwrap();
    let text = format!(
        "---\nname: deep\ndescription: {}{}\n---\nBody.\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    write_md(&t.path().join("skills/deep"), text.as_bytes());
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "yaml-too-complex");
    assert_eq!(d["line"], 3);
    // Block nesting too.
    let mut block = String::from("---\nname: deep\ndescription: ok. Use when testing.\nx:\n");
    for depth in 1..10_000 {
        block.push_str(&" ".repeat(depth.min(200)));
        block.push_str("- \n");
    }
    block.push_str("---\nBody.\n");
    write_md(&t.path().join("skills/deep"), block.as_bytes());
    let (run, _) = lint_json(t.path());
    run.assert_code(1);
    in_root(t.path(), &["list", "--all"]).assert_code(0);
}

#[test]
fn a_nul_byte_is_a_yaml_error_at_its_position() {
    let t = tempfile::tempdir().unwrap();
    write_md(
        &t.path().join("skills/nul"),
        b"---\nname: nul\ndescription: has a \0 byte. Use when testing.\n---\nBody.\n",
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "yaml-invalid");
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (3.into(), 20.into())
    );
    // The NUL is not sent to the terminal: the snippet shows `?`.
    let human = lint_human_snapshot(t.path(), "adversarial__nul__human", 1);
    assert!(!human.stdout.contains('\0'));
}

#[test]
fn invalid_utf8_names_the_byte() {
    let t = tempfile::tempdir().unwrap();
    write_md(
        &t.path().join("skills/latin1"),
        b"---\nname: latin1\ndescription: caf\xe9 au lait. Use when testing.\n---\nBody.\n",
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "invalid-utf8");
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (3.into(), 17.into())
    );
    assert_eq!(d["help"], "save the file as UTF-8");
    lint_human_snapshot(t.path(), "adversarial__invalid_utf8__human", 1);
    let list = in_root(t.path(), &["list", "--all"]);
    assert!(
        list.stdout
            .contains("[skipped: SKILL.md is not valid UTF-8"),
        "{}",
        list.stdout
    );
}

#[test]
fn crlf_is_fine_and_lone_cr_is_named() {
    let t = tempfile::tempdir().unwrap();
    write_md(
        &t.path().join("skills/crlf"),
        clean_md("crlf").replace('\n', "\r\n").as_bytes(),
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(0);
    assert_eq!(rules_of(&doc), Vec::<&str>::new());
    let list = in_root(t.path(), &["list", "--format", "json"]);
    assert!(
        list.stdout.contains("\"A test skill. Use when testing.\""),
        "{}",
        list.stdout
    );

    fs::remove_dir_all(t.path().join("skills/crlf")).unwrap();
    write_md(
        &t.path().join("skills/cr"),
        clean_md("cr").replace('\n', "\r").as_bytes(),
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "frontmatter-missing");
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (1.into(), 4.into())
    );
    assert!(d["message"].as_str().unwrap().contains("CR line endings"));
    // The lone CRs are masked in the snippet, so the line is not overwritten on a terminal.
    let human = lint_human_snapshot(t.path(), "adversarial__lone_cr__human", 1);
    assert!(!human.stdout.contains('\r'));
}

#[test]
fn a_bom_is_a_warning_and_the_skill_still_loads() {
    let t = tempfile::tempdir().unwrap();
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend_from_slice(clean_md("bom").as_bytes());
    write_md(&t.path().join("skills/bom"), &bytes);
    let (run, doc) = lint_json(t.path());
    run.assert_code(0);
    let d = only(&doc, "utf8-bom");
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (1.into(), 1.into())
    );
    let show = in_root(
        t.path(),
        &["show", "bom", "--view", "summary", "--format", "json"],
    );
    show.assert_code(0);
    assert_eq!(show.json()["name"], "bom");
}

#[cfg(unix)]
#[test]
fn a_skill_md_that_is_a_directory_or_a_fifo_is_named_and_never_blocks() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir_all(t.path().join("skills/folder/SKILL.md")).unwrap();
    fs::create_dir_all(t.path().join("skills/pipe")).unwrap();
    let fifo = t.path().join("skills/pipe/SKILL.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());

    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let found: Vec<(String, String)> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "skills/folder/SKILL.md".to_string(),
                "SKILL.md is a directory, not a regular file; it is not read".to_string()
            ),
            (
                "skills/pipe/SKILL.md".to_string(),
                "SKILL.md is a named pipe (FIFO), not a regular file; it is not read".to_string()
            ),
        ]
    );
    lint_human_snapshot(t.path(), "adversarial__not_a_file__human", 1);
    // Given directly, the FIFO is reported too (it used to be skipped: "0 skills", exit 0).
    let direct = skills(
        t.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "json",
            "skills/pipe/SKILL.md",
        ],
    );
    direct.assert_code(1);
    assert_eq!(rules_of(&direct.json()), ["file-unreadable"]);

    let list = in_root(t.path(), &["list"]);
    list.assert_code(0);
    assert!(
        list.stderr.contains(
            "skills/pipe/SKILL.md: not a regular file, so its directory is not a skill; make SKILL.md a file"
        ),
        "{}",
        list.stderr
    );
    assert!(
        list.stderr
            .contains("skills/folder/SKILL.md: not a regular file"),
        "{}",
        list.stderr
    );
    in_root(t.path(), &["show", "pipe"]).assert_code(1);
    // `audit` names it for what it is, not "no SKILL.md".
    let audit = skills(t.path(), &["audit", "skills/pipe"]);
    audit.assert_code(2);
    assert!(
        audit.stderr.contains("a named pipe (FIFO), not a file"),
        "{}",
        audit.stderr
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_end_and_links_out_of_a_skill_are_not_followed() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let skill = write_md(&t.path().join("skills/loopy"), clean_md("loopy").as_bytes());
    fs::create_dir(skill.join("sub")).unwrap();
    symlink("..", skill.join("sub/up")).unwrap();
    symlink("self", skill.join("self")).unwrap();
    // Outside the root: many files and a secret the skill must not reach.
    let outside = t.path().join("outside");
    fs::create_dir_all(outside.join("bulk")).unwrap();
    for i in 0..600 {
        fs::write(outside.join(format!("bulk/{i}.txt")), "x").unwrap();
    }
    fs::write(outside.join("secret.txt"), "TOP SECRET").unwrap();
    let out = write_md(&t.path().join("skills/out"), clean_md("out").as_bytes());
    symlink(outside.join("bulk"), out.join("bulk")).unwrap();
    symlink(outside.join("secret.txt"), out.join("secret.txt")).unwrap();

    let (run, doc) = lint_json(t.path());
    // The loops end, and are what `skills package` refuses: errors (they linted clean).
    run.assert_code(1);
    // The 600 files behind the link are not counted (no too-many-files): not walked.
    assert_eq!(
        rules_of(&doc),
        [
            "file-not-packageable",
            "file-not-packageable",
            "link-outside-skill",
            "link-outside-skill"
        ],
        "{doc:#}"
    );
    let paths: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "skills/loopy/self",
            "skills/loopy/sub/up",
            "skills/out/bulk",
            "skills/out/secret.txt"
        ]
    );
    // Not a snapshot: the message holds the absolute target, so its wrapping depends on
    // where the temporary directory is.
    let run = skills(
        t.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "human",
            "--color",
            "never",
            "skills",
        ],
    );
    run.assert_code(1).assert_quiet();
    let flat = crate::unwrapped(&run.stdout);
    let outside = outside.canonicalize().unwrap();
    for link in ["bulk", "secret.txt"] {
        let expected = format!(
            "⚠ skills/out/{link}: `{link}` is a symlink to {}, outside the skill; it is not followed help: copy the files into the skill, or remove the link: `skills package` and `skills install` refuse links out of a skill",
            outside.join(link).display()
        );
        assert!(flat.contains(&expected), "{expected}\n{}", run.stdout);
    }

    let list = in_root(t.path(), &["list"]);
    list.assert_code(0);
    let show = in_root(
        t.path(),
        &["show", "out", "--view", "full", "--format", "json"],
    );
    show.assert_code(0);
    assert!(!show.stdout.contains("bulk/"), "{}", show.stdout);
    assert!(!show.stdout.contains("TOP SECRET"));
    in_root(t.path(), &["show", "loopy", "--view", "full"]).assert_code(0);
}

#[test]
fn a_skill_of_100000_files_is_linted_listed_and_refused_by_package() {
    let t = tempfile::tempdir().unwrap();
    let skill = write_md(&t.path().join("skills/crowd"), clean_md("crowd").as_bytes());
    let assets = skill.join("assets");
    fs::create_dir(&assets).unwrap();
    for i in 0..100_000 {
        fs::File::create(assets.join(format!("{i:06}"))).unwrap();
    }
    let (run, doc) = lint_json(t.path());
    run.assert_code(0);
    let d = only(&doc, "too-many-files");
    assert_eq!(
        d["message"],
        "the skill holds 100001 files; the MCP skills extension serves at most 512"
    );
    in_root(t.path(), &["list"]).assert_code(0);
    in_root(t.path(), &["show", "crowd", "--view", "summary"]).assert_code(0);
    let run = skills(t.path(), &["package", "skills/crowd", "-o", "dist"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("archive has 100001 entries; at most 2000 are allowed"),
        "{}",
        run.stderr
    );
    assert!(!t.path().join("dist/crowd.skill").exists());
}

#[test]
fn unicode_oddities_in_names_are_named_with_a_fix_that_lints_clean() {
    let t = tempfile::tempdir().unwrap();
    let cases = [
        ("combining", "pdf\u{301}-tool"),
        ("fullwidth", "\u{ff50}\u{ff44}\u{ff46}"),
        ("rtl", "pdf\u{202e}-tool"),
        ("zwj", "pdf\u{200d}-tool"),
    ];
    for (_, name) in cases {
        write_md(
            &t.path().join("skills").join(name),
            clean_md(name).as_bytes(),
        );
    }
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let mut found: Vec<(String, String, String)> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    let expected = [
        (
            "name-invalid-chars",
            "`name` `pdf\u{200d}-tool` contains '\\u{200d}'; only letters, digits and `-` are allowed",
            "use hyphens instead, for example `pdf-tool`",
        ),
        (
            "name-invalid-chars",
            "`name` `pdf\u{202e}-tool` contains '\\u{202e}'; only letters, digits and `-` are allowed",
            "use hyphens instead, for example `pdf-tool`",
        ),
        (
            "name-invalid-chars",
            "`name` `pdf\u{301}-tool` contains '\\u{301}'; only letters, digits and `-` are allowed",
            "use hyphens instead, for example `pdf-tool`",
        ),
        (
            "name-non-ascii",
            "`name` `\u{ff50}\u{ff44}\u{ff46}` has non-ASCII characters",
            "write it as `pdf`: the MCP skills extension and several clients accept only `a-z`, `0-9` and `-`",
        ),
    ];
    let mut expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    expected.sort();
    assert_eq!(found, expected);
    // On a terminal, the right-to-left override is shown, not obeyed.
    let human = lint_human_snapshot(t.path(), "adversarial__unicode_names__human", 1);
    assert!(!human.stdout.contains('\u{202e}'));
    let list = in_root(t.path(), &["list"]);
    list.assert_code(0);
    assert!(!list.stdout.contains('\u{202e}'), "{}", list.stdout);
    assert!(list.stdout.contains("pdf\\u{202e}-tool"), "{}", list.stdout);
    // JSON keeps the exact text.
    let json = in_root(t.path(), &["list", "--format", "json"]);
    assert!(json.json().to_string().contains('\u{202e}'));
}

#[test]
fn terminal_escapes_in_a_description_are_shown_not_obeyed() {
    let t = tempfile::tempdir().unwrap();
    write_md(
        &t.path().join("skills/evil"),
        b"---\nname: evil\ndescription: \"Red \\e[31mTEXT\\e[0m, title \\e]0;pwned\\a. Use when testing.\"\n---\nBody.\n",
    );
    let list = in_root(t.path(), &["list"]);
    list.assert_code(0);
    assert!(!list.stdout.contains('\u{1b}') && !list.stdout.contains('\u{7}'));
    snapshot(
        "adversarial__escapes__list",
        &list.command,
        Some(t.path()),
        &list.stdout,
    );
    let show = in_root(t.path(), &["show", "evil", "--view", "summary"]);
    show.assert_code(0);
    assert!(!show.stdout.contains('\u{1b}'), "{}", show.stdout);
    assert!(
        show.stdout.contains("Red \\u{1b}[31mTEXT"),
        "{}",
        show.stdout
    );
}

#[test]
fn control_characters_are_lint_errors_and_show_escapes_them_at_a_terminal() {
    let t = tempfile::tempdir().unwrap();
    // OSC 52 (write the clipboard) in the description, clear-screen in the body.
    write_md(
        &t.path().join("skills/evil"),
        b"---\nname: evil\ndescription: \"Copies \\e]52;c;ZWNobyBo\\a. Use when testing.\"\n---\nBody.\x1b[2J\x1b[H\r\n",
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    assert_eq!(
        rules_of(&doc),
        ["control-chars", "control-chars"],
        "{doc:#}"
    );
    let messages: Vec<_> = diagnostics(&doc)
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        messages[1].contains("ESC (U+001B) and 1 more"),
        "{messages:?}"
    );

    // Piped, `show` is the file byte for byte; at a terminal (a pty from `script`) no
    // control character reaches it.
    let piped = in_root(t.path(), &["show", "evil"]);
    assert!(piped.stdout.contains("\x1b[2J"));
    let out = at_a_terminal(t.path(), "show evil");
    assert!(out.contains("Body.\\u{1b}[2J"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");

    // The XML catalogs cannot hold them (XML 1.0): U+FFFD in their place, in the catalog
    // printed and in the one written into AGENTS.md.
    let xml = in_root(t.path(), &["list", "--format", "xml"]);
    xml.assert_code(0);
    assert!(
        xml.stdout
            .contains("Copies \u{fffd}]52;c;ZWNobyBo\u{fffd}."),
        "{}",
        xml.stdout
    );
    in_root(
        t.path(),
        &["instructions", "--catalog", "--write", "AGENTS.md"],
    )
    .assert_code(0);
    let agents = fs::read_to_string(t.path().join("AGENTS.md")).unwrap();
    assert!(agents.contains("\u{fffd}]52;c;"), "{agents}");
    assert!(!agents.contains(['\u{1b}', '\u{7}']), "{agents:?}");
}

/// A `name` is quoted in a finding's message and in its help (the fix: `use \`demo…\``),
/// and a directory's name in every format's path: each escaped, on one line. The help
/// sent OSC 52 (write the clipboard) raw, a CRLF in a name forged an output line, and
/// `--format github` passed ESC and BEL through. `prompt NAME` at a terminal escapes as
/// `show` does.
#[test]
fn names_in_messages_helps_and_paths_are_escaped_in_every_format() {
    let t = tempfile::tempdir().unwrap();
    write_md(
        &t.path().join("skills/osc"),
        b"---\nname: \"Demo\\e]52;c;ZWNobyBwd25lZA==\\a\"\ndescription: A fine description here. Use when testing.\n---\nBody \x1b[31mred\x1b[0m.\n",
    );
    write_md(
        &t.path().join("skills/crlf"),
        b"---\nname: \"ok\\r\\nFAKE\"\ndescription: A fine description here. Use when testing.\n---\nBody.\n",
    );
    let evil_dir = "esc\u{1b}]0;PWNED\u{7}\u{1b}[31mevil\nline";
    write_md(
        &t.path().join("skills").join(evil_dir),
        clean_md("evil").as_bytes(),
    );
    let raw = |out: &str| out.contains(['\u{1b}', '\u{7}', '\r']);
    for format in ["human", "concise", "github"] {
        let run = in_root(t.path(), &["lint", "skills", "--format", format]);
        run.assert_code(1);
        let out = format!("{}{}", run.stdout, run.stderr);
        assert!(!raw(&out), "{format}: {out:?}");
        assert!(!out.contains("\nFAKE"), "{format}: {out:?}");
    }
    // concise: one line per finding, whatever the directory is called.
    let concise = in_root(t.path(), &["lint", "skills", "--format", "concise"]);
    assert!(
        concise
            .stdout
            .lines()
            .all(|l| l.starts_with("skills/") || l.starts_with("checked ")),
        "{}",
        concise.stdout
    );

    let out = at_a_terminal(t.path(), "prompt osc");
    assert!(out.contains("Body \\u{1b}[31mred"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");

    // Arguments are quoted back escaped too: an error's message, a path made.
    let title = "\u{1b}]0;PWNED\u{7}";
    for args in [
        vec!["url", title],
        vec!["lint", title],
        vec!["new", "x", "--path", title],
    ] {
        let run = in_root(t.path(), &args);
        let out = format!("{}{}", run.stdout, run.stderr);
        assert!(!raw(&out), "{args:?}: {out:?}");
        assert!(out.contains("\\u{1b}]0;PWNED"), "{args:?}: {out:?}");
    }
}

/// A directory lint cannot read is a `file-unreadable` error: lint said nothing and
/// exited 0, so a CI passed over skills it never saw. Inside a skill it is one too, as
/// `skills package` refuses such a skill. `list` warns and lists the rest.
#[cfg(unix)]
#[test]
fn unreadable_directories_are_reported_and_fail_lint() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    write_md(&t.path().join("skills/fine"), clean_md("fine").as_bytes());
    let locked_skill = write_md(
        &t.path().join("skills/locked"),
        clean_md("locked").as_bytes(),
    );
    fs::create_dir(locked_skill.join("assets")).unwrap();
    fs::write(locked_skill.join("assets/a.txt"), "x").unwrap();
    let group = t.path().join("skills/group");
    write_md(&group.join("inner"), clean_md("inner").as_bytes());
    for dir in [&locked_skill.join("assets"), &group] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o000)).unwrap();
    }
    let run = crate::unprivileged(
        t.path(),
        &["lint", "--no-config", "--format", "json", "skills"],
    );
    let human = crate::unprivileged(t.path(), &["lint", "--no-config", "skills"]);
    let package = crate::unprivileged(t.path(), &["package", "skills/locked", "-o", "dist"]);
    let list = crate::unprivileged(t.path(), &["--skills-dir", "skills", "list"]);
    for dir in [&locked_skill.join("assets"), &group] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (Some(run), Some(human), Some(package), Some(list)) = (run, human, package, list) else {
        crate::no_data_loss::skipped(
            "unreadable_directories_are_reported_and_fail_lint",
            "running as root, and the binary cannot run as nobody here (no setpriv, or a private TMPDIR)",
        );
        return;
    };
    run.assert_code(1);
    let doc = run.json();
    let found: Vec<(&str, &str, &str)> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["path"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "file-unreadable",
                "skills/locked/assets",
                "`assets` cannot be read (Permission denied (os error 13)); `skills package` and `skills install` refuse the skill while it is there"
            ),
            (
                "file-unreadable",
                "skills/group",
                "cannot read this directory (Permission denied (os error 13)): the skills in it are not checked"
            ),
        ],
        "{}",
        run.stdout
    );
    assert_eq!(doc["summary"]["skills"], 2, "{}", run.stdout);
    human.assert_code(1);
    assert!(
        crate::unwrapped(&human.stdout).contains("skills/group: cannot read this directory"),
        "{}",
        human.stdout
    );
    // What lint reports is what package refuses.
    package.assert_code(1);
    assert!(
        package.stderr.contains("file-unreadable"),
        "{}",
        package.stderr
    );
    list.assert_code(0);
    assert!(
        list.stdout.contains("fine") && list.stdout.contains("locked"),
        "{}",
        list.stdout
    );
    assert!(
        list.stderr.contains("skills/group: Permission denied"),
        "{}",
        list.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_context_file_does_not_block_show_or_prompt() {
    let t = tempfile::tempdir().unwrap();
    let skill = write_md(&t.path().join("skills/ctx"), clean_md("ctx").as_bytes());
    let status = std::process::Command::new("mkfifo")
        .arg(skill.join("tools.json"))
        .status()
        .unwrap();
    assert!(status.success());
    // Both used to wait forever for a writer on the pipe.
    let show = in_root(t.path(), &["show", "ctx", "--view", "summary"]);
    show.assert_code(0);
    assert!(show.stdout.starts_with("ctx\n"), "{}", show.stdout);
    let prompt = in_root(t.path(), &["prompt", "ctx"]);
    prompt.assert_code(2);
    assert!(
        crate::unwrapped(&prompt.stderr)
            .contains("tools.json: a named pipe (FIFO), not a regular file"),
        "{}",
        prompt.stderr
    );
    // Lint only reads regular files: the skill itself is clean.
    let (run, doc) = lint_json(t.path());
    run.assert_code(0);
    assert_eq!(rules_of(&doc), Vec::<&str>::new());
}

/// The output of one run, checked to be a clean exit with `code` and no panic.
#[track_caller]
/// `skills --skills-dir skills ARGS` in `root` at a terminal (a pty from `script`): what
/// the terminal was sent.
fn at_a_terminal(root: &Path, args: &str) -> String {
    let exe = assert_cmd::cargo::cargo_bin!("skills");
    let tty = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("{} --skills-dir skills {args}", exe.display()),
            "/dev/null",
        ])
        .current_dir(root)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    String::from_utf8_lossy(&tty.stdout).into_owned()
}

fn no_panic(run: &Run, code: i32) {
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("internal error"),
        "{}",
        run.stderr
    );
    run.assert_code(code);
}

#[test]
fn a_finding_past_column_65535_renders_a_window_of_its_line() {
    // miette's format width is a u16: this panicked with exit 101 in human output.
    let t = tempfile::tempdir().unwrap();
    let body = "word ".repeat(14_000);
    let text = format!("{}{body}[x](missing.md)\n", clean_md("long"));
    write_md(&t.path().join("skills/long"), text.as_bytes());
    let run = in_root(
        t.path(),
        &["lint", "--no-config", "--color", "never", "skills"],
    );
    no_panic(&run, 0);
    // The true line and column (characters, as JSON has them), a cut line, a bounded output.
    assert!(
        run.stdout.contains("[skills/long/SKILL.md:6:70005]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("│ …") && run.stdout.contains("[x](missing.md)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.len() < 4_000, "{} bytes", run.stdout.len());
    let (_, doc) = lint_json(t.path());
    let d = diagnostics(&doc)
        .iter()
        .find(|d| d["rule"] == "link-missing")
        .cloned()
        .unwrap();
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(6), Some(70_005))
    );
}

#[test]
fn a_frontmatter_error_at_column_70000_is_reported_by_package_and_install() {
    let t = tempfile::tempdir().unwrap();
    let long = "d".repeat(70_000);
    let text = format!("---\nname: wide\ndescription: {long} x: y\n---\nBody.\n");
    let dir = write_md(&t.path().join("wide"), text.as_bytes());
    for args in [
        vec!["package", "wide", "-o", "dist"],
        vec!["install", "wide", "--to", "installed"],
    ] {
        let run = skills(t.path(), &args);
        no_panic(&run, 1);
        assert!(run.stderr.contains("yaml-invalid"), "{}", run.stderr);
        assert!(
            run.stderr.contains("wide/SKILL.md:3:70016]"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.len() < 4_000,
            "{} bytes of stderr",
            run.stderr.len()
        );
    }
    assert!(dir.join("SKILL.md").is_file());
    assert!(!t.path().join("dist").join("wide.skill").exists());
    assert!(!t.path().join("installed/wide").exists());
}

/// A one-line `tools.json` with `n` tools whose names are invalid.
fn bad_tools(n: usize) -> String {
    let tools: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"bad tool {i}!","description":"Does thing number {i} of many, at length.","inputSchema":{{"type":"object"}}}}"#
            )
        })
        .collect();
    format!("[{}]", tools.join(","))
}

#[test]
fn thousands_of_findings_on_one_long_line_are_bounded_and_counted() {
    let t = tempfile::tempdir().unwrap();
    let dir = write_md(&t.path().join("skills/many"), clean_md("many").as_bytes());
    let tools = bad_tools(5_000);
    assert!(tools.len() > 500_000);
    fs::write(dir.join("tools.json"), &tools).unwrap();
    let run = in_root(
        t.path(),
        &["lint", "--no-config", "--color", "never", "skills"],
    );
    no_panic(&run, 1);
    // Ten drawn, the rest counted in one line; the summary still counts them all.
    assert_eq!(
        run.stdout.matches("tool-name-invalid\n").count(),
        10,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("skills/many/tools.json: 4990 more `tool-name-invalid` findings not shown (--format json lists every finding)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("checked 1 skill: 5000 errors"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.len() < 20_000, "{} bytes", run.stdout.len());
    let (_, doc) = lint_json(t.path());
    assert_eq!(rules_of(&doc).len(), 5_000);
}

/// 388 bytes of `tools.json` that made the schema compiler allocate 2 GB.
const REGEX_BOMB: &str = r#"[{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string","pattern":"(?<=\\w{1,20000})b"}}}}]"#;

#[test]
fn a_schema_pattern_too_large_to_compile_is_a_finding_everywhere() {
    let t = tempfile::tempdir().unwrap();
    let dir = write_md(&t.path().join("skills/rx"), clean_md("rx").as_bytes());
    fs::write(dir.join("tools.json"), REGEX_BOMB).unwrap();
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let d = only(&doc, "tool-schema-invalid");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("/properties/q/pattern"),
        "{d}"
    );
    assert!(d["help"].as_str().unwrap().contains("within 1 MiB"), "{d}");
    // package and install lint first, so they refuse it the same way.
    let package = skills(t.path(), &["package", "skills/rx", "-o", "dist"]);
    no_panic(&package, 1);
    assert!(
        package.stderr.contains("tool-schema-invalid"),
        "{}",
        package.stderr
    );
    let install = skills(t.path(), &["install", "skills/rx", "--to", "installed"]);
    no_panic(&install, 1);
    assert!(!t.path().join("installed/rx").exists());
}

#[test]
fn secrets_and_special_files_are_not_packaged_or_installed_and_are_named() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let git = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(git.success());
    fs::write(root.join(".gitignore"), ".env\n").unwrap();
    fs::write(root.join(".git/info/exclude"), "*.secret\n").unwrap();
    let dir = write_md(&root.join("skills/demo"), clean_md("demo").as_bytes());
    for (name, text) in [
        (".env", "TOKEN=1\n"),
        ("keys.secret", "k\n"),
        ("id_rsa", "k\n"),
        (".env.example", "TOKEN=\n"),
        (".skillignore", "!.env.example\n"),
    ] {
        fs::write(dir.join(name), text).unwrap();
    }
    #[cfg(unix)]
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.join("pipe"))
            .status()
            .unwrap()
            .success()
    );

    let package = skills(root, &["package", "skills/demo", "-o", "dist"]);
    no_panic(&package, 0);
    let bytes = fs::read(root.join("dist/demo.skill")).unwrap();
    let names: Vec<String> = crate::package::entries(&bytes)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        ["demo/.env.example", "demo/.skillignore", "demo/SKILL.md"]
    );
    // Ignored by git: left out silently, as git does. By name or by type: said.
    assert!(
        package.stderr.contains(
            "warning: demo/id_rsa: not included: its name looks like a secret (.env*, *.pem, id_*); \
             to include it, add `!id_rsa` to the skill's .skillignore"
        ),
        "{}",
        package.stderr
    );
    #[cfg(unix)]
    assert!(
        package
            .stderr
            .contains("warning: demo/pipe: not included: it is a named pipe (FIFO)"),
        "{}",
        package.stderr
    );
    assert!(!package.stderr.contains(".env:") && !package.stderr.contains("keys.secret"));

    let install = skills(root, &["install", "skills/demo", "--to", "installed"]);
    no_panic(&install, 0);
    let mut installed: Vec<String> = fs::read_dir(root.join("installed/demo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    installed.sort();
    assert_eq!(installed, [".env.example", ".skillignore", "SKILL.md"]);
    assert!(
        install.stderr.contains("demo/id_rsa: not included"),
        "{}",
        install.stderr
    );
}

#[test]
fn a_huge_rule_name_in_skills_toml_is_refused_at_once_and_shortened() {
    let t = tempfile::tempdir().unwrap();
    write_md(&t.path().join("skills/a"), clean_md("a").as_bytes());
    let id = "x".repeat(1 << 20);
    fs::write(
        t.path().join("skills.toml"),
        format!("[lint]\nallow = [\"{id}\"]\n"),
    )
    .unwrap();
    let run = skills(t.path(), &["lint", "skills"]);
    no_panic(&run, 2);
    // Named where it is written now, so the message may wrap before its size.
    assert!(
        crate::unwrapped(&run.stderr).contains("xxxx… (1048576 bytes)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.len() < 1_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
}

#[cfg(unix)]
#[test]
fn a_huge_integer_and_a_cycle_of_links_are_named_for_what_they_are() {
    let t = tempfile::tempdir().unwrap();
    // A 100,000-digit integer is not a "non-finite float", and the message does not
    // quote it whole.
    write_md(
        &t.path().join("skills/big"),
        format!(
            "---\nname: big\ndescription: Use when testing.\nmetadata:\n  n: {}\n---\nBody.\n",
            "9".repeat(100_000)
        )
        .as_bytes(),
    );
    let (run, doc) = lint_json(t.path());
    run.assert_code(1);
    let message = only(&doc, "yaml-invalid")["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("100000 digits is too large; quote it"),
        "{message}"
    );
    assert!(message.len() < 200, "{} bytes", message.len());

    // Two links that lead to each other are a cycle, not "a directory that contains it".
    let dir = write_md(&t.path().join("cycle"), clean_md("cycle").as_bytes());
    std::os::unix::fs::symlink("b", dir.join("a")).unwrap();
    std::os::unix::fs::symlink("a", dir.join("b")).unwrap();
    // Lint says so first (`file-not-packageable`); without it, package names the cycle.
    let run = skills(t.path(), &["package", "cycle", "-o", "dist"]);
    run.assert_code(1);
    assert!(
        crate::unwrapped(&run.stderr).contains("`a` is one of symlinks that lead to each other"),
        "{}",
        run.stderr
    );
    let run = skills(t.path(), &["package", "cycle", "--no-lint", "-o", "dist"]);
    run.assert_code(2);
    assert!(run.stderr.contains("a cycle of symlinks"), "{}", run.stderr);
    assert!(!run.stderr.contains("contains it"), "{}", run.stderr);
}

/// `SKILL.md -> /proc/self/environ` (here a secrets file outside the skill): it was reported
/// as "not followed", then the next diagnostic quoted its first line (`CI_SECRET_TOKEN=…`)
/// in `lint` and `add --list`/`--all`. A link out of the skill is never read: `lint` says
/// so as one error, `list` and `show` skip the skill naming the link, and no output holds
/// the secret.
#[cfg(unix)]
#[test]
fn a_skill_md_linked_out_of_its_skill_is_never_read() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let secret = root.join("secrets.env");
    fs::write(&secret, "CI_SECRET_TOKEN=hunter2-do-not-print\n").unwrap();
    let skill = root.join("skills/leak");
    fs::create_dir_all(&skill).unwrap();
    std::os::unix::fs::symlink(&secret, skill.join("SKILL.md")).unwrap();
    write_md(&root.join("skills/fine"), clean_md("fine").as_bytes());
    let leaked = |run: &Run| {
        assert!(
            !run.stdout.contains("hunter2") && !run.stderr.contains("hunter2"),
            "{}: {}{}",
            run.command,
            run.stdout,
            run.stderr
        );
    };
    let lint = skills(
        &root,
        &["lint", "--no-config", "--color", "never", "skills"],
    );
    lint.assert_code(1);
    leaked(&lint);
    assert!(
        crate::unwrapped(&lint.stdout).contains("SKILL.md is a symlink to")
            && crate::unwrapped(&lint.stdout).contains("outside the skill; it is not read"),
        "{}",
        lint.stdout
    );
    let (json, doc) = lint_json(&root);
    leaked(&json);
    assert_eq!(rules_of(&doc), ["file-unreadable"]);
    for args in [
        vec!["list", "--all"],
        vec!["list", "--all", "--format", "json"],
        vec!["show", "leak"],
    ] {
        let run = in_root(&root, &args);
        leaked(&run);
    }
    let listed = skills(&root, &["add", "skills", "--list"]);
    leaked(&listed);
}
