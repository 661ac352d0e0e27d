//! `skills new` and `skills instructions`.

use std::path::Path;

use crate::{skills, snapshot};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn new_scaffolds_a_skill_that_lints_clean() {
    let t = temp();
    skills(
        t.path(),
        &["new", "pdf-forms", "--with", "scripts,references,assets"],
    )
    .assert_code(0);
    let dir = t.path().join("pdf-forms");
    for f in [
        "SKILL.md",
        "scripts/example.py",
        "references/REFERENCE.md",
        "assets/template.md",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("scripts/example.py"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the script is executable");
    }
    let lint = skills(
        t.path(),
        &[
            "lint",
            "--strict",
            "--no-config",
            "--format",
            "json",
            "pdf-forms",
        ],
    );
    lint.assert_code(0);
    assert_eq!(lint.json()["summary"]["warnings"], 0, "{}", lint.stdout);
    snapshot(
        "scaffold__new_skill_md",
        "skills new pdf-forms --with scripts,references,assets",
        None,
        &std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
    );
    // No temporary directory is left beside it.
    let names: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["pdf-forms"]);
}

#[test]
fn new_refuses_bad_names_and_existing_directories() {
    let t = temp();
    let run = skills(t.path(), &["new", "PDF_Forms"]);
    run.assert_code(2);
    assert!(run.stderr.contains("name-invalid-chars"), "{}", run.stderr);
    assert!(
        run.stderr.contains("pdf-forms"),
        "suggests a valid name: {}",
        run.stderr
    );
    for bad in ["../escape", "a/b", "-x", "x--y", ""] {
        skills(t.path(), &["new", bad]).assert_code(2);
    }
    assert!(!t.path().join("../escape").exists());
    std::fs::create_dir(t.path().join("taken")).unwrap();
    std::fs::write(t.path().join("taken/keep.txt"), "mine").unwrap();
    let run = skills(t.path(), &["new", "taken"]);
    run.assert_code(2);
    assert!(run.stderr.contains("already exists"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(t.path().join("taken/keep.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn instructions_are_the_shared_guide() {
    let t = temp();
    let run = skills(t.path(), &["instructions"]);
    run.assert_code(0).assert_quiet();
    assert_eq!(run.stdout, skills_export::instructions(true));
    let plain = skills(t.path(), &["instructions", "--no-xml"]);
    assert_eq!(plain.stdout, skills_export::instructions(false));
    assert!(!plain.stdout.contains("<skills-mcp-instructions>"));
}

fn skill(root: &Path, name: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Does {name} <things>. Use when asked.\n---\nBody.\n"
        ),
    )
    .unwrap();
}

#[test]
fn instructions_catalog_lists_the_discovered_skills() {
    let t = temp();
    skill(&t.path().join("skills"), "alpha");
    let run = skills(
        t.path(),
        &["--skills-dir", "skills", "instructions", "--catalog"],
    );
    run.assert_code(0);
    assert!(run.stdout.starts_with(&skills_export::instructions(true)));
    assert!(run.stdout.contains("<name>alpha</name>"));
    assert!(
        run.stdout.contains("Does alpha &lt;things&gt;."),
        "escaped: {}",
        run.stdout
    );
    // The same catalog as `skills list --format xml`.
    let xml = skills(
        t.path(),
        &["--skills-dir", "skills", "list", "--format", "xml"],
    );
    assert!(run.stdout.ends_with(&xml.stdout));
}

#[test]
fn instructions_write_updates_the_block_in_place_and_is_idempotent() {
    let t = temp();
    skill(&t.path().join("skills"), "alpha");
    let file = t.path().join("AGENTS.md");
    // CRLF text and no final line break: the rest must stay byte for byte.
    let before = "# Agents\r\n\r\nKeep this line.\r\nAnd this";
    std::fs::write(&file, before).unwrap();
    let write = |t: &Path| {
        skills(
            t,
            &[
                "--skills-dir",
                "skills",
                "instructions",
                "--catalog",
                "--write",
                "AGENTS.md",
            ],
        )
    };
    write(t.path()).assert_code(0);
    let once = std::fs::read_to_string(&file).unwrap();
    assert!(
        once.starts_with(before),
        "the existing text is kept: {once:?}"
    );
    assert!(once.contains(&skills_export::instructions(true)));
    assert!(once.contains("<name>alpha</name>"));
    write(t.path()).assert_code(0);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        once,
        "a second run changes nothing"
    );

    // A new skill updates the catalog block; an old guide block is replaced, not duplicated.
    skill(&t.path().join("skills"), "beta");
    let edited = once.replace("## Notes", "## Old notes");
    std::fs::write(&file, &edited).unwrap();
    write(t.path()).assert_code(0);
    let twice = std::fs::read_to_string(&file).unwrap();
    assert_eq!(twice.matches("<skills-mcp-instructions>").count(), 1);
    assert_eq!(twice.matches("<available_skills>").count(), 1);
    assert!(twice.contains("<name>beta</name>") && !twice.contains("## Old notes"));
    assert!(twice.starts_with(before));
}

#[test]
fn instructions_write_leaves_the_file_alone_on_failure() {
    let t = temp();
    let run = skills(
        t.path(),
        &["instructions", "--write", "missing-dir/AGENTS.md"],
    );
    run.assert_code(2);
    assert!(!t.path().join("missing-dir").exists());
    // --no-xml cannot be written: the block could not be found again.
    skills(
        t.path(),
        &["instructions", "--no-xml", "--write", "AGENTS.md"],
    )
    .assert_code(2);
    assert!(!t.path().join("AGENTS.md").exists());
}
