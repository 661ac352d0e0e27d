//! Packaging and unpacking, end to end on temporary trees.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fs;
use std::io::{Cursor, Write};
use std::path::Path;

use skills_package::{
    Limits, Options, PackageError, collect, install_dir, package, package_flat, unpack,
};
use zip::write::SimpleFileOptions;

fn skill(root: &Path, id: &str) -> std::path::PathBuf {
    let dir = root.join(id);
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {id}\ndescription: Test skill. Use when testing.\n---\nBody.\n"),
    )
    .unwrap();
    fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            dir.join("scripts/run.sh"),
            fs::Permissions::from_mode(0o700),
        )
        .unwrap();
    }
    dir
}

fn paths(dir: &Path) -> Vec<String> {
    collect(dir).unwrap().into_iter().map(|e| e.path).collect()
}

#[test]
fn excludes_and_ignore_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = skill(tmp.path(), "demo");
    for f in [
        ".git/config",
        "__pycache__/x.cpython.pyc",
        "node_modules/a/index.js",
        ".DS_Store",
        "scripts/mod.pyc",
        "scripts/keep.py",
        "build/out.txt",
        "notes.tmp",
        "references/.gitignore",
        "references/secret.md",
        "references/ok.md",
        ".hidden",
    ] {
        let p = dir.join(f);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "x").unwrap();
    }
    fs::write(dir.join(".gitignore"), "build/\n*.tmp\n").unwrap();
    fs::write(dir.join(".skillignore"), ".hidden\n").unwrap();
    fs::write(dir.join("references/.gitignore"), "secret.md\n").unwrap();
    assert_eq!(
        paths(&dir),
        [
            ".gitignore",
            ".skillignore",
            "SKILL.md",
            "references/.gitignore",
            "references/ok.md",
            "scripts/keep.py",
            "scripts/run.sh"
        ]
    );
}

#[test]
fn reproducible_and_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = skill(tmp.path(), "demo");
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    let options = Options {
        mtime: Some(1_700_000_000),
        ..Options::default()
    };
    let a = fs::read(package(&dir, &out, &options).unwrap().archive).unwrap();
    // Touch a file: mtimes on disk must not matter.
    let f = fs::File::options()
        .write(true)
        .open(dir.join("SKILL.md"))
        .unwrap();
    f.set_modified(
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000),
    )
    .unwrap();
    let b = fs::read(package(&dir, &out, &options).unwrap().archive).unwrap();
    assert_eq!(a, b);
    let mut zip = zip::ZipArchive::new(Cursor::new(a)).unwrap();
    let names: Vec<String> = zip.file_names().map(|n| n.unwrap().into_owned()).collect();
    assert_eq!(names.len(), 2);
    let md = zip.by_name("demo/SKILL.md").unwrap();
    assert_eq!(md.unix_mode().unwrap() & 0o777, 0o644);
    assert_eq!(md.last_modified().unwrap().year(), 2023);
    drop(md);
    let sh = zip.by_name("demo/scripts/run.sh").unwrap();
    if cfg!(unix) {
        assert_eq!(sh.unix_mode().unwrap() & 0o777, 0o755);
    }
    // No temporary files left behind.
    assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
}

#[cfg(unix)]
/// A flat skill file (seed 004's `NAME.md`) is packaged as the skill directory it stands
/// for: one entry, `NAME/SKILL.md`, with the file's bytes, which installs as a skill.
#[test]
fn a_flat_skill_is_packaged_as_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(".claude/skills");
    fs::create_dir_all(&root).unwrap();
    let text = "---\nname: git-pr\ndescription: Open a PR. Use when asked.\n---\nBody.\n";
    fs::write(root.join("git-pr.md"), text).unwrap();
    let out = tmp.path().join("dist");
    fs::create_dir(&out).unwrap();
    let packaged = package_flat(&root.join("git-pr.md"), &out, &Options::default()).unwrap();
    assert_eq!(packaged.id, "git-pr");
    assert_eq!(packaged.archive, out.join("git-pr.skill"));
    let dest = tempfile::tempdir().unwrap();
    let file = fs::File::open(&packaged.archive).unwrap();
    let id = unpack(file, &packaged.archive, dest.path(), &Limits::default()).unwrap();
    assert_eq!(id, "git-pr");
    assert_eq!(
        fs::read_to_string(dest.path().join("git-pr/SKILL.md")).unwrap(),
        text
    );
    // The same bytes as a directory holding only that SKILL.md.
    let dir = tmp.path().join("as-dir/git-pr");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), text).unwrap();
    let out2 = tmp.path().join("dist2");
    fs::create_dir(&out2).unwrap();
    let from_dir = package(&dir, &out2, &Options::default()).unwrap();
    assert_eq!(
        fs::read(&packaged.archive).unwrap(),
        fs::read(&from_dir.archive).unwrap()
    );
    // A link out of its folder is never read.
    #[cfg(unix)]
    {
        fs::write(tmp.path().join("secret.md"), "---\n").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret.md"), root.join("leak.md")).unwrap();
        assert!(matches!(
            package_flat(&root.join("leak.md"), &out, &Options::default()),
            Err(PackageError::SymlinkEscape { .. })
        ));
    }
}

#[test]
fn symlinks() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let dir = skill(tmp.path(), "demo");
    symlink("SKILL.md", dir.join("alias.md")).unwrap();
    assert_eq!(paths(&dir), ["SKILL.md", "alias.md", "scripts/run.sh"]);

    fs::write(tmp.path().join("secret"), "s").unwrap();
    symlink("../secret", dir.join("leak")).unwrap();
    match collect(&dir) {
        Err(PackageError::SymlinkEscape { link, .. }) => assert!(link.ends_with("leak")),
        other => panic!("{other:?}"),
    }
    fs::remove_file(dir.join("leak")).unwrap();

    symlink("..", dir.join("scripts/up")).unwrap();
    assert!(matches!(
        collect(&dir),
        Err(PackageError::SymlinkLoop { .. })
    ));
    fs::remove_file(dir.join("scripts/up")).unwrap();

    // Links that lead to each other (ELOOP) are a cycle, not a link to an ancestor.
    symlink("self", dir.join("self")).unwrap();
    assert!(matches!(
        collect(&dir),
        Err(PackageError::SymlinkCycle { .. })
    ));
    fs::remove_file(dir.join("self")).unwrap();
    symlink("b", dir.join("a")).unwrap();
    symlink("a", dir.join("b")).unwrap();
    let e = collect(&dir).unwrap_err();
    assert!(matches!(e, PackageError::SymlinkCycle { .. }), "{e:?}");
    assert!(e.to_string().contains("a cycle of symlinks"), "{e}");
    assert!(!e.to_string().contains("contains it"), "{e}");
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(*name, SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn try_unpack(bytes: Vec<u8>, limits: &Limits) -> Result<String, PackageError> {
    let dest = tempfile::tempdir().unwrap();
    unpack(
        Cursor::new(bytes),
        Path::new("x.skill"),
        dest.path(),
        limits,
    )
}

#[test]
fn zip_slip_refused() {
    for name in [
        "../evil",
        "demo/../../evil",
        "/etc/evil",
        "C:/evil",
        "demo\\..\\evil",
        "demo/a\0b",
    ] {
        let bytes = zip_of(&[("demo/SKILL.md", b"x"), (name, b"x")]);
        match try_unpack(bytes, &Limits::default()) {
            Err(PackageError::UnsafeEntry { .. }) => {}
            other => panic!("{name:?}: {other:?}"),
        }
    }
}

#[test]
fn symlink_entry_refused() {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.start_file("demo/SKILL.md", SimpleFileOptions::default())
        .unwrap();
    w.add_symlink("demo/link", "/etc/passwd", SimpleFileOptions::default())
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert!(matches!(
        try_unpack(bytes, &Limits::default()),
        Err(PackageError::UnsafeEntry { .. })
    ));
}

#[test]
fn bombs_refused() {
    let big = vec![0u8; 1 << 20];
    let bytes = zip_of(&[("demo/SKILL.md", b"x"), ("demo/zeros", &big)]);
    let limits = Limits {
        max_bytes: 1000,
        max_entries: 10,
    };
    assert!(matches!(
        try_unpack(bytes.clone(), &limits),
        Err(PackageError::TooLarge { .. })
    ));
    let names: Vec<String> = (0..20).map(|i| format!("demo/f{i}")).collect();
    let many: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    assert!(matches!(
        try_unpack(zip_of(&many), &limits),
        Err(PackageError::TooManyEntries { .. })
    ));
}

#[test]
fn layouts() {
    assert_eq!(
        try_unpack(zip_of(&[("demo/SKILL.md", b"x")]), &Limits::default()).unwrap(),
        "demo"
    );
    assert_eq!(
        try_unpack(
            zip_of(&[("SKILL.md", b"x"), ("a/b", b"x")]),
            &Limits::default()
        )
        .unwrap(),
        "x"
    );
    assert!(matches!(
        try_unpack(
            zip_of(&[("a/SKILL.md", b"x"), ("b/c", b"x")]),
            &Limits::default()
        ),
        Err(PackageError::Layout { .. })
    ));
}

#[test]
fn install_refuses_overwrite_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    fs::create_dir(&root).unwrap();
    let staged = skill(&root.join(".stage1"), "demo");
    let target = install_dir(&staged, &root, "demo", false).unwrap();
    assert!(target.join("SKILL.md").is_file());
    let staged = skill(&root.join(".stage2"), "demo");
    fs::write(staged.join("new.md"), "new").unwrap();
    assert!(matches!(
        install_dir(&staged, &root, "demo", false),
        Err(PackageError::AlreadyInstalled { .. })
    ));
    assert!(!target.join("new.md").exists());
    install_dir(&staged, &root, "demo", true).unwrap();
    assert!(target.join("new.md").is_file());
    // Only the skill and the two (now empty) staging dirs remain: the old copy is gone.
    let mut left: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, [".stage1", ".stage2", "demo"]);
}

#[test]
fn more_files_than_install_accepts_is_refused_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let dir = skill(t.path(), "crowded");
    fs::create_dir(dir.join("assets")).unwrap();
    let limit = Limits::default().max_entries;
    // SKILL.md, scripts/run.sh and `limit - 1` assets: one entry too many.
    for i in 0..limit - 1 {
        fs::write(dir.join(format!("assets/{i}.txt")), "").unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let err = package(&dir, out.path(), &Options::default()).unwrap_err();
    assert!(
        matches!(err, PackageError::TooManyEntries { count, limit: l } if count == limit + 1 && l == limit),
        "{err}"
    );
    assert_eq!(fs::read_dir(out.path()).unwrap().count(), 0);
    fs::remove_file(dir.join("assets/0.txt")).unwrap();
    package(&dir, out.path(), &Options::default()).unwrap();
}

#[test]
fn a_temporary_file_left_by_a_killed_run_is_removed() {
    let t = tempfile::tempdir().unwrap();
    let dir = skill(t.path(), "hello");
    let out = tempfile::tempdir().unwrap();
    // A dead process's leftover (pid beyond any pid_max) and a live one's (ours).
    let stale = out.path().join(".hello.skills-tmp-999999999-abc.tmp");
    fs::write(&stale, "half an archive").unwrap();
    let live = out
        .path()
        .join(format!(".hello.skills-tmp-{}-xyz.tmp", std::process::id()));
    fs::write(&live, "another run").unwrap();
    package(&dir, out.path(), &Options::default()).unwrap();
    assert_eq!(stale.exists(), !cfg!(target_os = "linux"));
    assert!(live.exists());
}
