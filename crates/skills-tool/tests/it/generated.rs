//! The rules whose trees cannot be committed: a `SKILL.md` over 1 MiB, a skill of more than
//! 512 files or 16 MiB (sparse files, so it costs no disk), an unreadable `SKILL.md`. Each
//! tree is built in a temporary directory as `bad/<skill>/`, and the binary runs there, so
//! the output has the same relative paths as the committed fixtures.

use std::fs;
use std::path::{Path, PathBuf};

use skills_frontmatter::MAX_FILE_BYTES;
use skills_lint::{MAX_SKILL_BYTES, MAX_SKILL_FILES};

use crate::{Run, diagnostics, rules_of, skills, snapshot};

/// A clean `SKILL.md` for `name`.
fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Exercises a size limit. Use when testing the linter.\n---\n# {name}\n\nFollow the steps.\n"
    )
}

/// Creates `bad/<name>/SKILL.md` under `root`; returns the skill directory.
fn write_skill(root: &Path, name: &str) -> PathBuf {
    let dir = root.join("bad").join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), skill_md(name)).unwrap();
    dir
}

/// Lints `bad` under `root` as JSON with `--strict`; the rule ids reported.
fn lint_strict(root: &Path) -> (Run, Vec<String>) {
    let run = skills(
        root,
        &["lint", "--no-config", "--strict", "--format", "json", "bad"],
    );
    run.assert_quiet();
    let rules = rules_of(&run.json())
        .into_iter()
        .map(str::to_string)
        .collect();
    (run, rules)
}

/// Lints `bad` under `root`, checks that `rule` is all it reports, with exit `code`, and
/// snapshots the JSON and human outputs as `generated__<rule>__{json,human}`.
fn check_and_snapshot(root: &Path, rule: &str, code: i32) {
    let run = skills(root, &["lint", "--no-config", "--format", "json", "bad"]);
    run.assert_code(code).assert_quiet();
    assert_eq!(rules_of(&run.json()), [rule], "{}", run.stdout);
    snapshot(
        &format!("generated__{rule}__json"),
        &run.command,
        Some(root),
        &run.stdout,
    );
    let run = skills(
        root,
        &[
            "lint",
            "--no-config",
            "--format",
            "human",
            "--color",
            "never",
            "bad",
        ],
    );
    run.assert_code(code).assert_quiet();
    snapshot(
        &format!("generated__{rule}__human"),
        &run.command,
        Some(root),
        &run.stdout,
    );
}

#[test]
fn file_too_large() {
    let t = tempfile::tempdir().unwrap();
    let dir = write_skill(t.path(), "huge");
    let limit = usize::try_from(MAX_FILE_BYTES).unwrap();
    let mut text = skill_md("huge");
    while text.len() < limit {
        text.push_str("Pasted log line.\n");
    }
    text.truncate(limit);

    // Exactly the limit is read (its body is then too long, which other rules report).
    fs::write(dir.join("SKILL.md"), &text).unwrap();
    let (_, rules) = lint_strict(t.path());
    assert!(!rules.contains(&"file-too-large".to_string()), "{rules:?}");
    assert!(
        rules.contains(&"body-too-many-tokens".to_string()),
        "{rules:?}"
    );

    // One byte more is refused before it is read.
    text.push('\n');
    fs::write(dir.join("SKILL.md"), &text).unwrap();
    check_and_snapshot(t.path(), "file-too-large", 1);
}

#[test]
fn too_many_files() {
    let t = tempfile::tempdir().unwrap();
    let dir = write_skill(t.path(), "crowded");
    let assets = dir.join("assets");
    fs::create_dir(&assets).unwrap();
    // SKILL.md and MAX_SKILL_FILES - 1 assets: exactly the limit.
    for i in 1..MAX_SKILL_FILES {
        fs::write(assets.join(format!("{i:03}.txt")), "").unwrap();
    }
    let (run, rules) = lint_strict(t.path());
    run.assert_code(0);
    assert!(rules.is_empty(), "{rules:?}");

    fs::write(assets.join(format!("{MAX_SKILL_FILES}.txt")), "").unwrap();
    check_and_snapshot(t.path(), "too-many-files", 0);
}

#[test]
fn skill_too_large() {
    let t = tempfile::tempdir().unwrap();
    let dir = write_skill(t.path(), "heavy");
    let assets = dir.join("assets");
    fs::create_dir(&assets).unwrap();
    let md_len = fs::metadata(dir.join("SKILL.md")).unwrap().len();
    // A sparse file: the size is in the metadata, no block is written.
    let video = fs::File::create(assets.join("video.mp4")).unwrap();
    video.set_len(MAX_SKILL_BYTES - md_len).unwrap();
    let (run, rules) = lint_strict(t.path());
    run.assert_code(0);
    assert!(
        rules.is_empty(),
        "exactly 16 MiB is within the limit: {rules:?}"
    );

    video.set_len(MAX_SKILL_BYTES - md_len + 1).unwrap();
    check_and_snapshot(t.path(), "skill-too-large", 0);
}

#[cfg(unix)]
#[test]
fn file_unreadable() {
    use std::os::unix::fs::PermissionsExt;

    let t = tempfile::tempdir().unwrap();
    let dir = write_skill(t.path(), "locked");
    let md = dir.join("SKILL.md");
    fs::set_permissions(&md, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&md).is_ok() {
        // Root (and CAP_DAC_OVERRIDE) reads anything: there is nothing to test.
        eprintln!("file_unreadable: skipped, SKILL.md is readable despite mode 000 (root?)");
        return;
    }
    let run = skills(
        t.path(),
        &["lint", "--no-config", "--format", "json", "bad"],
    );
    run.assert_code(1).assert_quiet();
    let doc = run.json();
    assert_eq!(rules_of(&doc), ["file-unreadable"], "{}", run.stdout);
    let d = &diagnostics(&doc)[0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["path"], "bad/locked/SKILL.md");
    assert_eq!(d["line"], serde_json::Value::Null);
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("cannot read SKILL.md: "), "{message}");
    let human = skills(
        t.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "human",
            "--color",
            "never",
            "bad",
        ],
    );
    human.assert_code(1).assert_quiet();
    assert!(
        human
            .stdout
            .contains("bad/locked/SKILL.md: cannot read SKILL.md: "),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .ends_with("checked 1 skill: 1 error, 0 warnings\n")
    );
}

/// `file-not-packageable`: a file name that is not UTF-8, a broken symlink and a link to a
/// directory that contains it. Each linted clean, then `skills package` refused the skill;
/// lint now reports each, and the skill fixed lints clean and packages.
#[cfg(unix)]
#[test]
fn file_not_packageable() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let t = tempfile::tempdir().unwrap();
    let dir = write_skill(t.path(), "odd");
    let latin1 = dir.join(OsStr::from_bytes(b"r\xe9sum\xe9.txt"));
    fs::write(&latin1, "x").unwrap();
    std::os::unix::fs::symlink("drafts/gone.md", dir.join("notes.md")).unwrap();
    fs::create_dir(dir.join("nested")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("nested/up")).unwrap();
    let run = skills(
        t.path(),
        &["lint", "--no-config", "--format", "json", "bad"],
    );
    run.assert_code(1).assert_quiet();
    snapshot(
        "generated__file-not-packageable__json",
        &run.command,
        Some(t.path()),
        &run.stdout,
    );
    let human = skills(
        t.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "human",
            "--color",
            "never",
            "bad",
        ],
    );
    human.assert_code(1).assert_quiet();
    snapshot(
        "generated__file-not-packageable__human",
        &human.command,
        Some(t.path()),
        &human.stdout,
    );
    let doc = run.json();
    let found: Vec<(&str, &str)> = diagnostics(&doc)
        .iter()
        .map(|d| (d["path"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    let refused = "`skills package` and `skills install` refuse the skill while it is there";
    assert_eq!(
        found,
        [
            (
                "bad/odd/nested/up",
                format!("`nested/up` is a symlink to a directory that contains it; {refused}")
                    .as_str()
            ),
            (
                "bad/odd/notes.md",
                format!("`notes.md` is a symlink to nothing (its target does not exist); {refused}")
                    .as_str()
            ),
            (
                "bad/odd/r\u{fffd}sum\u{fffd}.txt",
                format!("`r\u{fffd}sum\u{fffd}.txt`: the file name is not UTF-8 (shown with U+FFFD where it is not); {refused}")
                    .as_str()
            ),
        ]
    );
    // Package refuses each, and lint says so first.
    let package = skills(t.path(), &["package", "bad/odd", "--no-lint", "-o", "dist"]);
    package.assert_code(2);
    let package = skills(t.path(), &["package", "bad/odd", "-o", "dist"]);
    package.assert_code(1);
    assert!(
        package.stderr.contains("file-not-packageable"),
        "{}",
        package.stderr
    );
    // Fixed, it lints clean and packages.
    fs::rename(&latin1, dir.join("resume.txt")).unwrap();
    fs::remove_file(dir.join("notes.md")).unwrap();
    fs::remove_file(dir.join("nested/up")).unwrap();
    let (run, rules) = lint_strict(t.path());
    run.assert_code(0);
    assert!(rules.is_empty(), "{rules:?}");
    skills(t.path(), &["package", "bad/odd", "-o", "dist"]).assert_code(0);
}

/// More skills than one batch of the streamed output (1,024): every format still writes one
/// whole document, with every finding, in order, and the totals of the whole run.
#[test]
fn output_streamed_over_several_batches_is_one_whole_document() {
    let t = tempfile::tempdir().unwrap();
    let count = 1_100;
    for i in 0..count {
        write_skill(t.path(), &format!("s{i:04}"));
    }
    // One finding in the first batch and one in the last.
    for name in ["s0000", "s1099"] {
        let md = t.path().join("bad").join(name).join("SKILL.md");
        fs::write(&md, skill_md(name) + "See [gone](references/gone.md).\n").unwrap();
    }
    let json = skills(
        t.path(),
        &["lint", "--no-config", "--format", "json", "bad"],
    );
    json.assert_code(0);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["summary"]["skills"], count);
    assert_eq!(doc["summary"]["warnings"], 2);
    let paths: Vec<&str> = diagnostics(&doc)
        .iter()
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(paths, ["bad/s0000/SKILL.md", "bad/s1099/SKILL.md"]);

    let sarif = skills(
        t.path(),
        &["lint", "--no-config", "--format", "sarif", "bad"],
    );
    let doc: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(2));

    let concise = skills(
        t.path(),
        &["lint", "--no-config", "--format", "concise", "bad"],
    );
    let lines: Vec<&str> = concise.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", concise.stdout);
    assert!(
        lines[1].starts_with("bad/s1099/SKILL.md:8:"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "checked 1100 skills: 0 errors, 2 warnings");
}
