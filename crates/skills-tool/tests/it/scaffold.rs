//! `skills new` and `skills instructions`.

use std::path::Path;

use crate::{rules_of, skills, skills_with, snapshot};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// `skills new` in a project (with `.git`) writes to the project's `.agents/skills`, where
/// `list` and `show` look: it wrote `./pdf-forms`, which neither found. Its placeholder
/// description fails lint until it is written; then the skill lints clean, even `--strict`.
#[test]
fn new_scaffolds_a_skill_where_discovery_finds_it() {
    let t = temp();
    std::fs::create_dir_all(t.path().join(".git")).unwrap();
    std::fs::create_dir_all(t.path().join("sub/dir")).unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env: &[(&str, &Path)] = &[("HOME", &home)];
    let run = skills_with(
        &t.path().join("sub/dir"),
        &["new", "pdf-forms", "--with", "scripts,references,assets"],
        env,
    );
    run.assert_code(0);
    assert!(
        run.stderr
            .starts_with("created ../../.agents/skills/pdf-forms\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    let dir = t.path().join(".agents/skills/pdf-forms");
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
    // Found from anywhere in the project.
    for cwd in [t.path().to_path_buf(), t.path().join("sub/dir")] {
        let list = skills_with(&cwd, &["list", "--format", "json"], env);
        list.assert_code(0);
        assert_eq!(
            list.json()["skills"][0]["id"],
            "pdf-forms",
            "{}",
            list.stdout
        );
        skills_with(&cwd, &["show", "pdf-forms", "--view", "card"], env).assert_code(0);
    }
    let lint = |strict: bool| {
        let mut args = vec!["lint", "--no-config", "--format", "json"];
        if strict {
            args.push("--strict");
        }
        args.push(".agents/skills/pdf-forms");
        skills(t.path(), &args)
    };
    let run = lint(false);
    run.assert_code(1);
    assert_eq!(
        rules_of(&run.json()),
        ["description-placeholder"],
        "{}",
        run.stdout
    );
    snapshot(
        "scaffold__new_skill_md",
        "skills new pdf-forms --with scripts,references,assets",
        None,
        &std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
    );
    // Described, it lints clean.
    let md = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
    let start = md.find("description: ").unwrap();
    let end = start + md[start..].find('\n').unwrap();
    let described = format!(
        "{}description: Fill PDF forms from a table of values. Use when the user asks to fill a PDF form.{}",
        &md[..start],
        &md[end..]
    );
    std::fs::write(dir.join("SKILL.md"), described).unwrap();
    let run = lint(true);
    run.assert_code(0);
    assert_eq!(run.json()["summary"]["warnings"], 0, "{}", run.stdout);
    // No temporary directory is left beside it.
    let names: Vec<String> = std::fs::read_dir(t.path().join(".agents/skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["pdf-forms"]);
}

/// Outside a repository the project is the current directory; `--skills-dir` moves where
/// discovery looks, and so where the skill goes; `--path` puts it anywhere, with a note
/// when no root is there.
#[test]
fn new_writes_to_the_root_discovery_searches_or_to_path() {
    let t = temp();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env: &[(&str, &Path)] = &[("HOME", &home)];
    skills_with(t.path(), &["new", "one"], env).assert_code(0);
    assert!(t.path().join(".agents/skills/one/SKILL.md").is_file());
    let run = skills_with(t.path(), &["--skills-dir", "vendor", "new", "two"], env);
    run.assert_code(0);
    assert!(
        run.stderr.starts_with("created vendor/two\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    assert!(t.path().join("vendor/two/SKILL.md").is_file());
    let run = skills_with(t.path(), &["new", "three", "--path", "drafts"], env);
    run.assert_code(0);
    assert!(t.path().join("drafts/three/SKILL.md").is_file());
    assert!(
        run.stderr.contains(
            "note: `skills list` and `skills show` do not look in drafts: move the skill to .agents/skills/, or pass --skills-dir drafts"
        ),
        "{}",
        run.stderr
    );
    // `--path` into a root: no note.
    let run = skills_with(t.path(), &["new", "four", "--path", ".claude/skills"], env);
    run.assert_code(0);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    // A skill made outside the roots: `show` says where it is, and the roots once.
    std::fs::create_dir_all(t.path().join("five")).unwrap();
    std::fs::write(
        t.path().join("five/SKILL.md"),
        "---\nname: five\ndescription: Five. Use when asked.\n---\nBody.\n",
    )
    .unwrap();
    let run = skills_with(t.path(), &["show", "five"], env);
    run.assert_code(1);
    let text = crate::unwrapped(&run.stderr);
    assert!(
        text.contains("`five/` in the current directory holds a SKILL.md, but no skills root does: move it to .agents/skills/five, or pass --skills-dir ."),
        "{}",
        run.stderr
    );
}

/// With no skill in any root, `show` listed the roots it looked in twice (its own list,
/// then "no skills found. Looked in: ..." as the help).
#[test]
fn show_with_no_skills_lists_the_roots_once() {
    let t = temp();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = skills_with(t.path(), &["show", "pdf-forms"], &[("HOME", &home)]);
    run.assert_code(1);
    assert_eq!(
        run.stderr.matches(".agents/skills (project)").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        crate::unwrapped(&run.stderr).contains("Create one with `skills new NAME`"),
        "{}",
        run.stderr
    );
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
    let taken = t.path().join(".agents/skills/taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("keep.txt"), "mine").unwrap();
    let run = skills(t.path(), &["new", "taken"]);
    run.assert_code(2);
    assert!(run.stderr.contains("already exists"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(taken.join("keep.txt")).unwrap(),
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
    // A CRLF file stays CRLF: no bare LF line among the lines written.
    assert!(
        !once.replace("\r\n", "").contains('\n'),
        "LF lines in a CRLF file: {once:?}"
    );
    let once_lf = once.replace("\r\n", "\n");
    assert!(once_lf.contains(&skills_export::instructions(true)));
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
    assert!(!twice.replace("\r\n", "").contains('\n'), "{twice:?}");
    assert_eq!(twice.matches("<skills-mcp-instructions>").count(), 1);
    assert_eq!(twice.matches("<available_skills>").count(), 1);
    assert!(twice.contains("<name>beta</name>") && !twice.contains("## Old notes"));
    assert!(twice.starts_with(before));
}

/// `skills ARGS` in `cwd` under `umask MASK` (set by a shell, as a user's login sets it).
#[cfg(unix)]
fn skills_under_umask(cwd: &Path, mask: &str, args: &[&str]) -> crate::Run {
    let exe = assert_cmd::cargo::cargo_bin!("skills");
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
        .arg(exe)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    crate::Run {
        command: format!("umask {mask}; skills {}", args.join(" ")),
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// A file `--write` creates gets the mode `touch` gives it (0666 less the umask), not the
/// 0600 of a temporary file; a file that exists keeps its own, whatever the umask.
#[cfg(unix)]
#[test]
fn instructions_write_creates_files_with_the_umask_and_keeps_modes() {
    use std::os::unix::fs::PermissionsExt;
    let t = temp();
    let write = |mask: &str, file: &str| {
        skills_under_umask(
            t.path(),
            mask,
            &["--skills-dir", "none", "instructions", "--write", file],
        )
        .assert_code(0);
    };
    write("022", "AGENTS.md");
    assert_eq!(mode(&t.path().join("AGENTS.md")), 0o644);
    write("027", "CLAUDE.md");
    assert_eq!(mode(&t.path().join("CLAUDE.md")), 0o640);

    for (existing, mask) in [(0o600, "022"), (0o664, "022"), (0o660, "077")] {
        let file = t.path().join(format!("kept-{existing:o}.md"));
        std::fs::write(&file, "# Mine\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(existing)).unwrap();
        write(mask, file.file_name().unwrap().to_str().unwrap());
        assert_eq!(mode(&file), existing, "umask {mask}");
        assert!(
            std::fs::read_to_string(&file)
                .unwrap()
                .starts_with("# Mine\n")
        );
    }

    // Every command that writes a user's file goes through the same helper: `skills man`.
    skills_under_umask(t.path(), "022", &["man", "--out", "man"]).assert_code(0);
    let page = t.path().join("man/skills.1");
    assert_eq!(mode(&page), 0o644);
}

/// `--catalog --write`: the file is meant to be committed, so a skill's location is
/// relative to the file when it is in the project, `~/…` when it is the user's own, and
/// nobody's home directory is written into it.
#[test]
fn instructions_catalog_written_has_paths_relative_to_the_file() {
    let t = temp();
    let project = t.path().join("app");
    let home = t.path().join("home");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join("docs")).unwrap();
    skill(&project.join(".agents/skills"), "alpha");
    skill(&home.join(".agents/skills"), "beta");
    let env = [("HOME", home.as_path())];
    for (file, alpha) in [
        ("AGENTS.md", ".agents/skills/alpha/SKILL.md"),
        ("docs/AGENTS.md", "../.agents/skills/alpha/SKILL.md"),
    ] {
        crate::skills_with(
            &project,
            &["instructions", "--catalog", "--write", file],
            &env,
        )
        .assert_code(0);
        let text = std::fs::read_to_string(project.join(file)).unwrap();
        assert!(
            text.contains(&format!("<location>{alpha}</location>")),
            "{file}: {text}"
        );
        assert!(
            text.contains("<location>~/.agents/skills/beta/SKILL.md</location>"),
            "{file}: {text}"
        );
        let root = t.path().to_string_lossy();
        assert!(!text.contains(root.as_ref()), "{file}: {text}");
    }
    // Printed, the catalog is `skills list --format xml`'s, absolute paths and all.
    let printed = crate::skills_with(&project, &["instructions", "--catalog"], &env);
    let abs = project.join(".agents/skills/alpha/SKILL.md");
    assert!(
        printed
            .stdout
            .contains(&format!("<location>{}</location>", abs.display())),
        "{}",
        printed.stdout
    );
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
