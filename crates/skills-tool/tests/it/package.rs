//! `skills package` and `skills install` through the binary.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use crate::{skills, snapshot};

/// A valid skill `root/id` with a script (executable on Unix) and a reference.
pub(crate) fn make_skill(root: &Path, id: &str) -> PathBuf {
    let dir = root.join(id);
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {id}\ndescription: Extract text from PDF files. Use when the user asks about PDFs.\n---\n\n# Demo\n\nRun `scripts/run.sh`; details in [the reference](references/REF.md).\n"
        ),
    )
    .unwrap();
    fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    fs::write(dir.join("references/REF.md"), "# Reference\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            dir.join("scripts/run.sh"),
            fs::Permissions::from_mode(0o750),
        )
        .unwrap();
    }
    dir
}

/// Names and Unix modes of the entries of a ZIP file, in archive order.
pub(crate) fn entries(bytes: &[u8]) -> Vec<(String, u32)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let f = zip.by_index(i).unwrap();
            (
                f.name().unwrap().into_owned(),
                f.unix_mode().unwrap() & 0o777,
            )
        })
        .collect()
}

fn set_mtime(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn package_is_byte_reproducible() {
    let t = tempfile::tempdir().unwrap();
    make_skill(t.path(), "demo");
    let run = skills(t.path(), &["package", "demo", "-o", "out"]);
    run.assert_code(0).assert_quiet();
    assert_eq!(
        run.stdout,
        "packaged demo -> out/demo.skill (3 files, 204 bytes)\n"
    );
    let first = fs::read(t.path().join("out/demo.skill")).unwrap();
    for f in ["SKILL.md", "scripts/run.sh", "references/REF.md"] {
        set_mtime(&t.path().join("demo").join(f), 1_234_567_890);
    }
    skills(t.path(), &["package", "demo", "-o", "out"]).assert_code(0);
    let second = fs::read(t.path().join("out/demo.skill")).unwrap();
    assert!(first == second, "archives differ");
    // --format zip: the same bytes under another name.
    skills(
        t.path(),
        &["package", "demo", "-o", "out", "--format", "zip"],
    )
    .assert_code(0);
    assert!(fs::read(t.path().join("out/demo.zip")).unwrap() == first);
    let exec = if cfg!(unix) { 0o755 } else { 0o644 };
    assert_eq!(
        entries(&first),
        [
            ("demo/SKILL.md".to_string(), 0o644),
            ("demo/references/REF.md".to_string(), 0o644),
            ("demo/scripts/run.sh".to_string(), exec),
        ]
    );
    // Nothing but the archives in the output directory (no temporary files).
    let mut names: Vec<String> = fs::read_dir(t.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["demo.skill", "demo.zip"]);
}

#[test]
fn package_excludes_and_lists() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    for f in [
        ".git/HEAD",
        "__pycache__/m.cpython-312.pyc",
        "node_modules/x/index.js",
        ".DS_Store",
        "scripts/old.pyc",
        "scripts/build/tmp.txt",
        "drafts/idea.md",
    ] {
        let p = dir.join(f);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "x").unwrap();
    }
    fs::write(dir.join(".gitignore"), "build/\n").unwrap();
    fs::write(dir.join(".skillignore"), "drafts/\n.*ignore\n").unwrap();
    let run = skills(t.path(), &["package", "demo", "--list"]);
    run.assert_code(0).assert_quiet();
    snapshot(
        "package__list",
        "skills package demo --list",
        None,
        &run.stdout,
    );
    assert!(
        !t.path().join("demo.skill").exists(),
        "--list wrote an archive"
    );
}

#[cfg(unix)]
#[test]
fn package_refuses_symlink_escape() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    fs::write(t.path().join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink("../../secret.txt", dir.join("references/leak.md")).unwrap();
    let run = skills(t.path(), &["package", "demo", "--no-lint"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("demo/references/leak.md: symlink points outside the skill"),
        "{}",
        run.stderr
    );
    assert!(!t.path().join("demo.skill").exists());
    let names: Vec<_> = fs::read_dir(t.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "a temporary file was left behind");

    // A link inside the skill is stored as the file it points to.
    fs::remove_file(dir.join("references/leak.md")).unwrap();
    std::os::unix::fs::symlink("REF.md", dir.join("references/alias.md")).unwrap();
    skills(t.path(), &["package", "demo"]).assert_code(0);
    let names: Vec<String> = entries(&fs::read(t.path().join("demo.skill")).unwrap())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(names.contains(&"demo/references/alias.md".to_string()));
}

#[test]
fn package_blocked_by_lint_errors() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    fs::write(
        dir.join("SKILL.md"),
        "---\nname: Not_Valid\ndescription: Does things. Use when asked.\n---\nBody.\n",
    )
    .unwrap();
    let run = skills(t.path(), &["package", "demo"]);
    run.assert_code(1);
    assert!(run.stderr.contains("name-"), "{}", run.stderr);
    assert!(run.stderr.contains("not packaged"), "{}", run.stderr);
    assert!(!t.path().join("demo.skill").exists());

    skills(t.path(), &["package", "demo", "--no-lint"]).assert_code(0);
    assert!(t.path().join("demo.skill").is_file());
}

#[test]
fn package_refuses_a_directory_without_skill_md() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir(t.path().join("empty")).unwrap();
    let run = skills(t.path(), &["package", "empty"]);
    run.assert_code(2);
    assert!(run.stderr.contains("no SKILL.md"), "{}", run.stderr);
}
