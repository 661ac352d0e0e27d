//! Tests on temporary project and home trees (never the real home).

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::test_support::{custom, ids, md, skill, tmp, write};

/// Scans `roots`, with kernel change notification when `watch` (which must then be on:
/// the refresh tests run both ways).
fn scan(roots: &Roots, watch: bool) -> Index {
    let mut index = Index::scan(roots);
    if watch {
        assert!(
            cfg!(not(target_os = "linux")) || index.watch(),
            "watch is on"
        );
    }
    index
}

#[test]
fn default_roots_and_priority_order() {
    let t = tmp();
    let (proj, home) = (t.path().join("proj"), t.path().join("home"));
    fs::create_dir_all(proj.join(".git")).unwrap();
    for (base, sub, id) in [
        (&home, ".claude/skills", "f"),
        (&home, ".agent/skills", "e"),
        (&home, ".agents/skills", "d"),
        (&proj, ".claude/skills", "c"),
        (&proj, ".agent/skills", "b"),
        (&proj, ".agents/skills", "z"),
        (&proj, ".agents/skills", "a"),
    ] {
        skill(&base.join(sub).join(id));
    }
    let roots = Roots::default_for(&proj, Some(&home));
    let paths: Vec<(PathBuf, Scope)> = roots.iter().map(|r| (r.path.clone(), r.scope)).collect();
    assert_eq!(
        paths,
        [
            (proj.join(".agents/skills"), Scope::Project),
            (proj.join(".agent/skills"), Scope::Project),
            (proj.join(".claude/skills"), Scope::Project),
            (home.join(".agents/skills"), Scope::Global),
            (home.join(".agent/skills"), Scope::Global),
            (home.join(".claude/skills"), Scope::Global),
        ]
    );
    let index = Index::scan(&roots);
    assert_eq!(ids(index.skills()), ["a", "z", "b", "c", "d", "e", "f"]);
    assert!(index.warnings().is_empty(), "{:?}", index.warnings());
    let a = index.get("a").unwrap();
    assert_eq!(a.skill_md, proj.join(".agents/skills/a/SKILL.md"));
    assert_eq!(a.dir, proj.join(".agents/skills/a"));
    assert_eq!(a.root, proj.join(".agents/skills"));
    assert_eq!(a.name, "a");
    assert_eq!(a.description, "Does things. Use when asked.");
    assert!(!a.flat);
    assert_eq!(index.get("f").unwrap().scope, Scope::Global);

    // No home: project roots only. Home as cwd: each root once, as a project root.
    assert_eq!(Roots::default_for(&proj, None).as_slice().len(), 3);
    let same = Roots::default_for(&home, Some(&home));
    assert_eq!(same.as_slice().len(), 3);
    assert!(same.iter().all(|r| r.scope == Scope::Project));
}

#[test]
fn project_roots_walk_up_to_the_repository_root_and_stop() {
    let t = tmp();
    let outer = t.path().join("outer");
    let repo = outer.join("repo");
    let cwd = repo.join("sub/dir");
    fs::create_dir_all(&cwd).unwrap();
    // A worktree's `.git` is a file.
    write(&repo.join(".git"), "gitdir: /elsewhere\n");
    skill(&outer.join(".agents/skills/outside"));
    skill(&repo.join(".agents/skills/top"));
    skill(&repo.join(".claude/skills/shared"));
    skill(&cwd.join(".claude/skills/shared"));
    skill(&cwd.join(".claude/skills/deep"));
    let roots = Roots::default_for(&cwd, None);
    let dirs: Vec<&Path> = roots
        .iter()
        .map(|r| r.path.parent().unwrap().parent().unwrap())
        .collect();
    assert_eq!(dirs.len(), 9);
    assert_eq!(
        (dirs[0], dirs[3], dirs[6]),
        (cwd.as_path(), repo.join("sub").as_path(), repo.as_path())
    );
    let index = Index::scan(&roots);
    assert_eq!(ids(index.skills()), ["deep", "shared", "top"]);
    // The closest `shared` wins; the repository root's is shadowed.
    assert_eq!(
        index.get("shared").unwrap().dir,
        cwd.join(".claude/skills/shared")
    );
    assert_eq!(index.all().count(), 4);

    // Without a `.git` ancestor only the current directory is a project directory.
    let t = tmp();
    let cwd = t.path().join("x/y");
    fs::create_dir_all(&cwd).unwrap();
    skill(&t.path().join("x/.agents/skills/parent"));
    skill(&cwd.join(".agents/skills/here"));
    let roots = Roots::default_for(&cwd, None);
    assert_eq!(roots.as_slice().len(), 3);
    assert_eq!(ids(Index::scan(&roots).skills()), ["here"]);
}

#[cfg(unix)]
#[test]
fn the_same_skill_through_a_symlink_is_one_skill() {
    use std::os::unix::fs::symlink;
    let t = tmp();
    let (proj, home) = (t.path().join("proj"), t.path().join("home"));
    fs::create_dir_all(proj.join(".git")).unwrap();
    // npm `skills`: a copy in .agents/skills, linked from .claude/skills.
    skill(&proj.join(".agents/skills/pdf"));
    fs::create_dir_all(proj.join(".claude/skills")).unwrap();
    symlink("../../.agents/skills/pdf", proj.join(".claude/skills/pdf")).unwrap();
    // A whole global root linked to another.
    skill(&home.join(".agents/skills/git"));
    fs::create_dir_all(home.join(".claude")).unwrap();
    symlink(home.join(".agents/skills"), home.join(".claude/skills")).unwrap();

    let index = Index::scan(&Roots::default_for(&proj, Some(&home)));
    assert_eq!(ids(index.all()), ["pdf", "git"]);
    assert_eq!(ids(index.skills()), ["pdf", "git"]);
    assert!(index.warnings().is_empty(), "{:?}", index.warnings());
    assert_eq!(
        index.get("pdf").unwrap().dir,
        proj.join(".agents/skills/pdf")
    );

    // Only the linked root: the link is followed and the skill found there.
    let index = Index::scan(&custom(&[&proj.join(".claude/skills")]));
    assert_eq!(
        index.get("pdf").unwrap().skill_md,
        proj.join(".claude/skills/pdf/SKILL.md")
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_not_followed() {
    use std::os::unix::fs::symlink;
    let t = tmp();
    let root = t.path().join("skills");
    fs::create_dir_all(root.join("group")).unwrap();
    symlink("..", root.join("group/up")).unwrap();
    skill(&root.join("group/real"));
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.skills()), ["real"]);
    assert!(
        index
            .warnings()
            .iter()
            .any(|w| matches!(w, Warning::SymlinkLoop { path } if path.ends_with("group/up")))
    );
}

#[test]
fn a_different_skill_with_the_same_id_is_shadowed() {
    let t = tmp();
    let (proj, home) = (t.path().join("proj"), t.path().join("home"));
    let winner = skill(&proj.join(".claude/skills/git"));
    let loser = home.join(".agents/skills/Git/SKILL.md");
    write(&loser, &md("git", "The global one. Use when asked."));
    let index = Index::scan(&Roots::default_for(&proj, Some(&home)));
    assert_eq!(ids(index.skills()), ["git"]);
    assert_eq!(index.get("GIT").unwrap().skill_md, winner);
    let all: Vec<&Skill> = index.all().collect();
    assert_eq!(ids(all.iter().copied()), ["git", "Git"]);
    assert_eq!(ids(index.shadowed()), ["Git"]);
    assert_eq!(all[1].shadowed_by.as_deref(), Some(winner.as_path()));
    assert_eq!(all[1].scope, Scope::Global);
    assert_eq!(
        index.warnings(),
        [Warning::Shadowed {
            id: "Git".into(),
            path: loser.clone(),
            by: winner.clone()
        }]
    );
    assert!(index.warnings()[0].to_string().contains("shadowed by"));
}

#[test]
fn flat_files_in_a_root() {
    let t = tmp();
    let root = t.path().join("skills");
    write(
        &root.join("git-pr.md"),
        &md("git-pr", "Open PRs. Use when asked."),
    );
    write(
        &root.join("container-health.md"),
        "---\ndescription: Check containers.\n---\nbody\n",
    );
    write(
        &root.join("named.md"),
        &md("other-name", "Named differently."),
    );
    write(&root.join("README.md"), &md("readme", "Not a skill."));
    write(&root.join("claude.MD"), &md("claude", "Not a skill."));
    write(&root.join("notes.md"), "# Just notes\n");
    write(&root.join("no-desc.md"), "---\nname: x\n---\n");
    write(
        &root.join("sub/nested.md"),
        &md("nested", "Not directly in a root."),
    );
    write(&root.join("SKILL.md"), &md("skills", "Misplaced."));
    // A directory skill and a flat file with the same id: the directory wins.
    skill(&root.join("both"));
    write(&root.join("both.md"), &md("both", "The flat one."));

    let index = Index::scan(&custom(&[&root]));
    assert_eq!(
        ids(index.skills()),
        ["both", "container-health", "git-pr", "named"]
    );
    let health = index.get("container-health").unwrap();
    assert!(health.flat);
    assert_eq!(health.name, "container-health");
    assert_eq!(health.dir, root);
    assert_eq!(health.skill_md, root.join("container-health.md"));
    assert_eq!(index.get("named").unwrap().name, "other-name");
    // The frontmatter name finds it too.
    assert_eq!(index.get("Other-Name").unwrap().id, "named");
    assert!(!index.get("both").unwrap().flat);
    assert_eq!(
        index
            .all()
            .find(|s| s.flat && s.id == "both")
            .unwrap()
            .shadowed_by,
        Some(root.join("both/SKILL.md"))
    );
    let skipped: Vec<(&str, &SkipReason)> = index
        .skipped()
        .iter()
        .map(|s| (s.id.as_str(), &s.reason))
        .collect();
    assert_eq!(
        skipped,
        [
            ("no-desc", &SkipReason::MissingDescription),
            ("notes", &SkipReason::NoFrontmatter)
        ]
    );
    assert!(
        index.warnings().iter().any(
            |w| matches!(w, Warning::SkillMdInRoot { path } if path == &root.join("SKILL.md"))
        )
    );
    assert_eq!(
        index.get("git-pr").unwrap().files().unwrap(),
        [SkillFile {
            path: "git-pr.md".into(),
            size: md("git-pr", "Open PRs. Use when asked.").len() as u64
        }]
    );
}

#[cfg(unix)]
#[test]
fn skill_md_that_is_not_a_file_is_a_warning_and_never_opened() {
    let t = tmp();
    let root = t.path().join("skills");
    fs::create_dir_all(root.join("dir/SKILL.md")).unwrap();
    fs::create_dir_all(root.join("pipe")).unwrap();
    let fifo = root.join("pipe/SKILL.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let index = Index::scan(&custom(&[&root]));
    assert!(index.skills().is_empty());
    let mut expected = vec![root.join("dir/SKILL.md")];
    if made {
        expected.push(fifo);
    }
    let mut warned: Vec<PathBuf> = index
        .warnings()
        .iter()
        .filter(|w| matches!(w, Warning::SkillMdNotAFile { .. }))
        .map(|w| w.path().to_path_buf())
        .collect();
    warned.sort();
    assert_eq!(warned, expected);
    assert!(
        Warning::SkillMdNotAFile {
            path: root.join("dir/SKILL.md")
        }
        .to_string()
        .ends_with("dir/SKILL.md: not a regular file, so its directory is not a skill; make SKILL.md a file")
    );
}

#[test]
fn malformed_skills_are_skipped_with_reasons() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("good"));
    write(
        &root.join("colon/SKILL.md"),
        "---\nname: colon\ndescription: Use when: asked\n---\n",
    );
    write(&root.join("no-name/SKILL.md"), "---\ndescription: d\n---\n");
    write(&root.join("no-desc/SKILL.md"), "---\nname: no-desc\n---\n");
    write(
        &root.join("empty-desc/SKILL.md"),
        "---\nname: e\ndescription: \"\"\n---\n",
    );
    write(
        &root.join("list-name/SKILL.md"),
        "---\nname: [a]\ndescription: d\n---\n",
    );
    write(&root.join("no-fm/SKILL.md"), "# Title\n");
    fs::create_dir_all(root.join("binary")).unwrap();
    fs::write(root.join("binary/SKILL.md"), b"---\nname: \xff\n---\n").unwrap();

    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.skills()), ["good"]);
    let reasons: Vec<(&str, String)> = index
        .skipped()
        .iter()
        .map(|s| (s.id.as_str(), s.reason.to_string()))
        .collect();
    assert_eq!(reasons.len(), 7, "{reasons:?}");
    let reason = |id: &str| reasons.iter().find(|(i, _)| *i == id).unwrap().1.clone();
    assert!(
        reason("colon").starts_with("invalid YAML in frontmatter"),
        "{}",
        reason("colon")
    );
    assert_eq!(reason("no-name"), "missing name");
    assert_eq!(reason("no-desc"), "missing description");
    assert_eq!(reason("empty-desc"), "`description` is empty");
    assert_eq!(reason("list-name"), "`name` is not a string");
    assert!(reason("no-fm").contains("must start with a `---` line"));
    assert!(reason("binary").contains("not valid UTF-8"));
    let skipped = &index.skipped()[0];
    assert_eq!(
        (skipped.root.as_path(), skipped.scope),
        (root.as_path(), Scope::Custom)
    );
    // Each skip is also a warning that says why.
    let warnings: Vec<String> = index.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 7);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("skipped skill `no-desc`") && w.ends_with("missing description"))
    );
}

#[cfg(unix)]
#[test]
fn unreadable_roots_and_directories_are_warnings() {
    use std::os::unix::fs::PermissionsExt;
    let t = tmp();
    let (locked, open) = (t.path().join("locked"), t.path().join("open"));
    skill(&locked.join("hidden"));
    skill(&open.join("visible"));
    fs::create_dir_all(open.join("group/inner")).unwrap();
    skill(&open.join("group/inner/deep"));
    let secret = skill(&open.join("secret"));
    let lock = |p: &Path, mode| fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
    lock(&locked, 0o000);
    lock(&open.join("group"), 0o000);
    lock(&secret, 0o000);
    // Running as root, permissions are not enforced: nothing to check then.
    let enforced = fs::read_dir(&locked).is_err();
    let index = Index::scan(&custom(&[&locked, &open, &t.path().join("missing")]));
    lock(&locked, 0o755);
    lock(&open.join("group"), 0o755);
    lock(&secret, 0o644);
    if !enforced {
        return;
    }
    assert_eq!(ids(index.skills()), ["visible"]);
    let w = index.warnings();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(matches!(&w[0], Warning::UnreadableRoot { root, .. } if root == &locked));
    assert!(matches!(&w[1], Warning::UnreadableDir { path, .. } if path == &open.join("group")));
    assert!(w[0].to_string().starts_with("cannot read skills root"));
    assert!(matches!(
        &index.skipped()[0].reason,
        SkipReason::Unreadable(_)
    ));
    assert!(
        w[2].to_string()
            .contains("cannot read the file: Permission denied"),
        "{}",
        w[2]
    );

    // Readable again: the refresh notices (the change time moved) and finds them.
    let mut index = index;
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(ids(index.skills()), ["hidden", "deep", "secret", "visible"]);
    assert!(index.warnings().is_empty());
}

#[test]
fn lookup_ignores_case() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("PDF-Processing"));
    skill(&root.join("git"));
    write(&root.join("Deploy.md"), &md("deploy", "Deploys."));
    let roots = custom(&[&root]);
    let index = Index::scan(&roots);
    for q in ["pdf-processing", "PDF-PROCESSING", "Pdf-Processing"] {
        assert_eq!(index.get(q).unwrap().id, "PDF-Processing");
        assert_eq!(roots.find(q).unwrap().id, "PDF-Processing", "{q}");
    }
    assert_eq!(roots.find("GIT").unwrap().dir, root.join("git"));
    assert_eq!(
        roots.find("deploy").unwrap().skill_md,
        root.join("Deploy.md")
    );
    assert_eq!(roots.find("DEPLOY").unwrap().id, "Deploy");
    assert!(roots.find("nope").is_none());
    assert!(index.get("nope").is_none());
}

#[test]
fn find_agrees_with_the_scan_on_priority() {
    let t = tmp();
    let (proj, home) = (t.path().join("proj"), t.path().join("home"));
    skill(&proj.join(".claude/skills/git"));
    skill(&home.join(".agents/skills/git"));
    // A malformed direct hit is passed over, as the scan skips it.
    write(
        &proj.join(".agents/skills/pdf/SKILL.md"),
        "---\nname: pdf\n---\n",
    );
    skill(&home.join(".claude/skills/pdf"));
    // Nested below a root: only the full scan finds it.
    skill(&home.join(".agent/skills/group/nested"));
    // Nested in the project, direct in the home: the project's still wins.
    skill(&proj.join(".agents/skills/group/deploy"));
    skill(&home.join(".agents/skills/deploy"));
    let roots = Roots::default_for(&proj, Some(&home));
    let index = Index::scan(&roots);
    assert_eq!(roots.find("deploy").unwrap().scope, Scope::Project);
    for id in ["git", "pdf", "nested", "deploy"] {
        assert_eq!(roots.find(id).as_ref(), index.get(id), "{id}");
    }
    assert_eq!(roots.find("git").unwrap().scope, Scope::Project);
    assert_eq!(
        roots.find("pdf").unwrap().dir,
        home.join(".claude/skills/pdf")
    );
}

#[test]
fn hostile_names_never_reach_the_file_system() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("real"));
    // What `root/../x` and `root/a/b` would reach if names were joined onto the root.
    skill(&t.path().join("x"));
    skill(&root.join("a/b"));
    write(&t.path().join("x.md"), &md("x", "Outside."));
    let roots = custom(&[&root]);
    let index = Index::scan(&roots);
    for name in [
        "../x",
        "a/b",
        "/etc/passwd",
        "x\0y",
        ".",
        "..",
        "",
        "a\\b",
        "./real",
        "real/",
    ] {
        assert!(roots.find(name).is_none(), "{name:?}");
        assert!(index.get(name).is_none(), "{name:?}");
    }
    assert!(roots.find("real").is_some());
    // `b` is a nested skill, found by its id.
    assert_eq!(index.get("b").unwrap().dir, root.join("a/b"));
}

#[test]
fn depth_is_bounded_and_nested_skills_belong_to_their_parent() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("1/2/3/4/5/six"));
    skill(&root.join("a/b/c/d/e/f/seven"));
    skill(&root.join("outer"));
    skill(&root.join("outer/inner"));
    skill(&root.join("outer/scripts/x/inner2"));
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.skills()), ["outer", "six"]);
    assert_eq!(index.get("six").unwrap().dir, root.join("1/2/3/4/5/six"));
}

#[test]
fn gitignore_node_modules_and_git_are_skipped_hidden_dirs_entered() {
    let t = tmp();
    let root = t.path().join("skills");
    write(&root.join(".gitignore"), "ignored/\n");
    write(&root.join("group/.ignore"), "*-draft\n");
    skill(&root.join("ignored/a"));
    skill(&root.join("group/b-draft"));
    skill(&root.join("group/b"));
    skill(&root.join("node_modules/c"));
    skill(&root.join("x/node_modules/d"));
    skill(&root.join(".git/e"));
    skill(&root.join(".hidden/f"));
    let roots = custom(&[&root]);
    let index = Index::scan(&roots);
    assert_eq!(ids(index.skills()), ["b", "f"]);
    assert!(roots.find("a").is_none());
    assert!(roots.find("node_modules").is_none());
    // A .gitignore above the root does not apply inside it.
    write(&t.path().join(".gitignore"), "skills\n*\n");
    assert_eq!(ids(Index::scan(&roots).skills()), ["b", "f"]);
}

#[test]
fn refresh_sees_added_edited_and_removed_skills() {
    for watch in [false, true] {
        let t = tmp();
        let root = t.path().join("skills");
        for i in 0..20 {
            skill(&root.join(format!("s{i:02}")));
        }
        skill(&root.join("group/nested"));
        let mut index = scan(&custom(&[&root]), watch);
        assert_eq!(index.skills().len(), 21);
        let parsed = index.stats().parsed;
        assert_eq!(parsed, 21);

        // Added, at the top and nested.
        skill(&root.join("added"));
        skill(&root.join("group/added2"));
        assert_eq!(index.refresh(), Changed::Yes);
        assert!(index.get("added").is_some() && index.get("added2").is_some());
        assert_eq!(
            index.stats().parsed,
            parsed + 2,
            "only the new skills are parsed"
        );

        // Edited description: re-parsed alone, and a change.
        let file = root.join("s05/SKILL.md");
        write(
            &file,
            &md("s05", "A new and longer description. Use when asked."),
        );
        let before = index.stats();
        assert_eq!(index.refresh(), Changed::Yes);
        assert_eq!(
            index.get("s05").unwrap().description,
            "A new and longer description. Use when asked."
        );
        assert_eq!(index.stats().parsed, before.parsed + 1);
        assert_eq!(
            index.stats().read_dirs,
            before.read_dirs,
            "no directory listed again"
        );

        // Edited body only: parsed again, but the list of skills is the same.
        write(
            &file,
            "---\nname: s05\ndescription: A new and longer description. Use when asked.\n---\nNew body, longer.\n",
        );
        assert_eq!(index.refresh(), Changed::No);
        assert_eq!(
            index.get("s05").unwrap().body().unwrap(),
            "New body, longer.\n"
        );

        // Removed, including by deleting just its SKILL.md.
        fs::remove_dir_all(root.join("s07")).unwrap();
        fs::remove_file(root.join("group/nested/SKILL.md")).unwrap();
        assert_eq!(index.refresh(), Changed::Yes);
        assert!(index.get("s07").is_none() && index.get("nested").is_none());
        assert_eq!(index.skills().len(), 21);

        // Broken, then fixed.
        write(&root.join("s01/SKILL.md"), "---\nname: s01\n---\n");
        assert_eq!(index.refresh(), Changed::Yes);
        assert!(index.get("s01").is_none());
        assert_eq!(index.skipped().len(), 1);
        skill(&root.join("s01"));
        assert_eq!(index.refresh(), Changed::Yes);
        assert!(index.get("s01").is_some() && index.skipped().is_empty());
    }
}

#[test]
fn refresh_without_changes_reads_and_parses_nothing() {
    for watch in [false, true] {
        let t = tmp();
        let root = t.path().join("skills");
        for i in 0..100 {
            skill(&root.join(format!("group{}/s{i}", i % 7)));
        }
        write(&root.join("flat.md"), &md("flat", "Flat."));
        let mut index = scan(&custom(&[&root, &t.path().join("missing")]), watch);
        assert_eq!(index.skills().len(), 101);
        let stats = index.stats();
        for _ in 0..3 {
            assert_eq!(index.refresh(), Changed::No);
        }
        assert_eq!(index.stats(), stats);

        // A new file inside a skill (not a skill change) lists one directory again, parses none.
        write(&root.join("group0/s0/scripts/run.sh"), "echo\n");
        write(&root.join("group0/s0/notes.txt"), "x\n");
        assert_eq!(index.refresh(), Changed::No);
        assert_eq!(index.stats().parsed, stats.parsed);
    }
}

#[test]
fn refresh_sees_roots_appear_and_disappear() {
    for watch in [false, true] {
        let t = tmp();
        let (first, second) = (t.path().join("first"), t.path().join("second"));
        skill(&second.join("tool"));
        let mut index = scan(&custom(&[&first, &second]), watch);
        assert_eq!(index.get("tool").unwrap().root, second);
        skill(&first.join("tool"));
        assert_eq!(index.refresh(), Changed::Yes);
        assert_eq!(index.get("tool").unwrap().root, first);
        assert_eq!(index.all().count(), 2);
        fs::remove_dir_all(&first).unwrap();
        assert_eq!(index.refresh(), Changed::Yes);
        assert_eq!(index.get("tool").unwrap().root, second);
        fs::remove_dir_all(&second).unwrap();
        assert_eq!(index.refresh(), Changed::Yes);
        assert!(index.skills().is_empty());
    }
}

#[test]
fn refresh_follows_ignore_rule_changes() {
    for watch in [false, true] {
        let t = tmp();
        let root = t.path().join("skills");
        write(&root.join("group/.gitignore"), "secret\n");
        skill(&root.join("group/secret"));
        skill(&root.join("group/sub/also"));
        let mut index = scan(&custom(&[&root]), watch);
        assert_eq!(ids(index.skills()), ["also"]);
        // Edited in place: the directory's mtime does not move, the file's does.
        write(
            &root.join("group/.gitignore"),
            "# nothing ignored now\nsub\n",
        );
        assert_eq!(index.refresh(), Changed::Yes);
        assert_eq!(ids(index.skills()), ["secret"]);
    }
}

#[test]
fn suggestions() {
    let t = tmp();
    let root = t.path().join("skills");
    for id in ["git", "pdf-processing", "mcp-builder", "postgres", "docx"] {
        skill(&root.join(id));
    }
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(index.suggest("gti"), ["git"]);
    assert_eq!(index.suggest("MCP-Buidler"), ["mcp-builder"]);
    assert_eq!(index.suggest("pdf"), ["pdf-processing"]);
    assert_eq!(index.suggest("postgresql"), ["postgres"]);
    assert!(index.suggest("kubernetes").is_empty());
    assert!(index.suggest("").is_empty());
    assert!(index.suggest("xyz").is_empty());
}

#[cfg(unix)]
#[test]
fn files_are_listed_without_leaving_the_skill() {
    use std::os::unix::fs::symlink;
    let t = tmp();
    let dir = t.path().join("skills/pdf");
    skill(&dir);
    write(&dir.join("scripts/fill.py"), "print()\n");
    write(&dir.join("references/FORMS.md"), "# Forms\n");
    write(&dir.join("assets/logo.svg"), "<svg/>");
    write(&dir.join("notes/todo.txt"), "x");
    write(&dir.join(".gitignore"), "*.pyc\n");
    write(&dir.join("scripts/fill.pyc"), "bytecode");
    write(&dir.join("node_modules/x/index.js"), "");
    write(&t.path().join("secret.txt"), "outside");
    symlink(t.path().join("secret.txt"), dir.join("assets/secret.txt")).unwrap();
    symlink("../references/FORMS.md", dir.join("assets/forms.md")).unwrap();
    symlink(t.path(), dir.join("escape")).unwrap();
    let index = Index::scan(&custom(&[&t.path().join("skills")]));
    let files = index.get("pdf").unwrap().files().unwrap();
    let listed: Vec<(&str, FileGroup)> = files
        .iter()
        .map(|f| (f.path.to_str().unwrap(), f.group()))
        .collect();
    assert_eq!(
        listed,
        [
            (".gitignore", FileGroup::Other),
            ("SKILL.md", FileGroup::Other),
            ("assets/forms.md", FileGroup::Assets),
            ("assets/logo.svg", FileGroup::Assets),
            ("notes/todo.txt", FileGroup::Other),
            ("references/FORMS.md", FileGroup::References),
            ("scripts/fill.py", FileGroup::Scripts),
        ]
    );
    assert_eq!(files[2].size, 8);
}

#[test]
fn reading_on_demand() {
    let t = tmp();
    let root = t.path().join("skills");
    let path = skill(&root.join("git"));
    let index = Index::scan(&custom(&[&root]));
    let git = index.get("git").unwrap();
    assert_eq!(git.read().unwrap(), fs::read_to_string(&path).unwrap());
    assert_eq!(git.parse().unwrap().name(), Some("git"));
    assert_eq!(git.body().unwrap(), "# git\n");
    fs::remove_file(&path).unwrap();
    let err = git.read().unwrap_err();
    assert!(matches!(err, DiscoveryError::Io { .. }));
    assert!(err.to_string().starts_with("cannot read "));
}

#[test]
fn explicit_roots_replace_the_defaults() {
    let t = tmp();
    let (cwd, home) = (t.path().join("cwd"), t.path().join("home"));
    let dirs = [
        PathBuf::from("a"),
        PathBuf::from("/abs/b"),
        PathBuf::from("~/c"),
    ];
    let roots = Roots::resolve(&cwd, Some(&home), &dirs, Some("/env/x".as_ref()));
    let paths: Vec<&Path> = roots.iter().map(|r| r.path.as_path()).collect();
    assert_eq!(
        paths,
        [cwd.join("a"), PathBuf::from("/abs/b"), home.join("c")]
    );
    assert!(roots.iter().all(|r| r.scope == Scope::Custom));

    let env = std::env::join_paths(["/env/x", "", "rel", "/env/x"]).unwrap();
    let roots = Roots::resolve(&cwd, Some(&home), &[], Some(&env));
    let paths: Vec<&Path> = roots.iter().map(|r| r.path.as_path()).collect();
    assert_eq!(paths, [PathBuf::from("/env/x"), cwd.join("rel")]);

    let empty = Roots::resolve(&cwd, Some(&home), &[], Some("".as_ref()));
    assert_eq!(empty, Roots::default_for(&cwd, Some(&home)));
    assert_eq!(
        Roots::resolve(&cwd, None, &[], None),
        Roots::default_for(&cwd, None)
    );
}

#[test]
fn many_skills_find_is_fast_and_scan_is_complete() {
    let t = tmp();
    let root = t.path().join("skills");
    for i in 0..2000 {
        skill(&root.join(format!("skill-{i:04}")));
    }
    let roots = custom(&[&t.path().join("empty"), &root]);
    let started = std::time::Instant::now();
    let found = roots.find("SKILL-1999").unwrap();
    let elapsed = started.elapsed();
    assert_eq!(found.id, "skill-1999");
    // Generous: the target is well under 5 ms, but CI machines are noisy.
    assert!(
        elapsed < std::time::Duration::from_millis(200),
        "{elapsed:?}"
    );
    let index = Index::scan(&roots);
    assert_eq!(index.skills().len(), 2000);
    assert_eq!(index.skills()[0].id, "skill-0000");
}

#[test]
fn huge_trees_without_skills_are_cut_short() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("a-skill"));
    for i in 0..=MAX_DIRS {
        fs::create_dir_all(root.join(format!("d{i:05}"))).unwrap();
    }
    skill(&root.join("zz/late"));
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.skills()), ["a-skill"]);
    assert_eq!(
        index.warnings(),
        [Warning::TooManyDirs {
            root: root.clone(),
            limit: MAX_DIRS
        }]
    );
}

#[test]
fn the_index_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Index>();
    shareable::<Roots>();
    shareable::<Skill>();
    shareable::<Warning>();
    shareable::<DiscoveryError>();
}

#[test]
#[cfg(target_os = "linux")]
fn watched_refreshes_skip_the_stat_pass_until_something_changes() {
    let t = tmp();
    let root = t.path().join("skills");
    for i in 0..50 {
        skill(&root.join(format!("s{i:02}")));
    }
    let mut index = scan(&custom(&[&root]), true);
    // The first refresh after `watch` checks what happened before the watches existed.
    assert_eq!(index.refresh(), Changed::No);
    let passes = index.passes();
    for _ in 0..5 {
        assert_eq!(index.refresh(), Changed::No);
    }
    assert_eq!(index.passes(), passes, "no stat pass while nothing changed");

    // Reading files is not a change.
    index.get("s01").unwrap().read().unwrap();
    assert_eq!(index.refresh(), Changed::No);
    assert_eq!(index.passes(), passes);

    // A change wakes it: an in-place edit of a description, same size.
    write(
        &root.join("s03/SKILL.md"),
        &md("s03", "Does thinks. Use when asked."),
    );
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(
        index.get("s03").unwrap().description,
        "Does thinks. Use when asked."
    );
    assert!(index.passes() > passes);
    assert!(index.is_watching());
}

#[test]
#[cfg(target_os = "linux")]
fn watched_refreshes_see_what_appears_under_new_directories() {
    let t = tmp();
    // A root three levels below anything that exists.
    let root = t.path().join("a/b/skills");
    let mut index = scan(&custom(&[&root]), true);
    assert_eq!(index.refresh(), Changed::No);
    fs::create_dir(t.path().join("a")).unwrap();
    assert_eq!(index.refresh(), Changed::No);
    fs::create_dir(t.path().join("a/b")).unwrap();
    assert_eq!(index.refresh(), Changed::No);
    skill(&root.join("late"));
    assert_eq!(index.refresh(), Changed::Yes);
    assert!(index.get("late").is_some());

    // A skill directory deleted and made again is watched again: its next edit is seen.
    fs::remove_dir_all(root.join("late")).unwrap();
    assert_eq!(index.refresh(), Changed::Yes);
    skill(&root.join("late"));
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(index.refresh(), Changed::No);
    write(&root.join("late/SKILL.md"), &md("late", "Edited again."));
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(index.get("late").unwrap().description, "Edited again.");

    // Unrelated activity beside the root does not cost a pass.
    let passes = index.passes();
    write(&t.path().join("a/b/notes.txt"), "x");
    assert_eq!(index.refresh(), Changed::No);
    assert_eq!(index.passes(), passes);
}

#[test]
#[cfg(target_os = "linux")]
fn watched_refreshes_follow_symlinked_skill_files() {
    let t = tmp();
    let shared = t.path().join("shared/tool.md");
    write(&shared, &md("tool", "Shared tool."));
    let root = t.path().join("skills");
    fs::create_dir_all(root.join("tool")).unwrap();
    std::os::unix::fs::symlink(&shared, root.join("tool/SKILL.md")).unwrap();
    let mut index = scan(&custom(&[&root]), true);
    assert_eq!(index.refresh(), Changed::No);
    write(&shared, &md("tool", "Shared tool, edited."));
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(
        index.get("tool").unwrap().description,
        "Shared tool, edited."
    );
}

#[test]
#[cfg(target_os = "linux")]
fn dangling_symlinks_keep_the_stat_pass() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("one"));
    std::os::unix::fs::symlink(t.path().join("later"), root.join("later")).unwrap();
    let mut index = Index::scan(&custom(&[&root]));
    assert!(
        !index.watch(),
        "a dangling symlink may resolve through a change anywhere"
    );
    skill(&t.path().join("later"));
    assert_eq!(index.refresh(), Changed::Yes);
    assert!(index.get("later").is_some());
}

#[test]
#[cfg(target_os = "linux")]
fn watched_refreshes_follow_hard_linked_skill_files() {
    let t = tmp();
    let elsewhere = t.path().join("elsewhere/tool.md");
    write(&elsewhere, &md("tool", "Linked tool."));
    let root = t.path().join("skills");
    fs::create_dir_all(root.join("tool")).unwrap();
    fs::hard_link(&elsewhere, root.join("tool/SKILL.md")).unwrap();
    let mut index = scan(&custom(&[&root]), true);
    assert_eq!(index.refresh(), Changed::No);
    // Written through the other name: only a watch on the file itself sees it.
    fs::OpenOptions::new()
        .write(true)
        .open(&elsewhere)
        .and_then(|mut f| {
            use std::io::Write as _;
            f.write_all(md("tool", "Linked tool, edited.").as_bytes())
        })
        .unwrap();
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(
        index.get("tool").unwrap().description,
        "Linked tool, edited."
    );
}

#[test]
fn staging_directories_of_killed_runs_are_not_skills() {
    let t = tmp();
    let root = t.path().join("skills");
    skill(&root.join("real"));
    // What a killed `skills install` or `skills new` leaves behind until its next run.
    write(
        &root.join(".skills-install-4242-abc/real/SKILL.md"),
        &md("real", "Half-installed copy."),
    );
    write(
        &root.join(".skills-new-4242-xyz/SKILL.md"),
        &md("draft", "Half-made skill."),
    );
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.all()), ["real"]);
    assert!(index.warnings().is_empty(), "{:?}", index.warnings());
}

#[test]
fn a_sequential_index_finds_and_refreshes_what_a_parallel_one_does() {
    let t = tmp();
    let root = t.path().join("skills");
    // More skill files than the walk parses on the calling thread anyway.
    for k in 0..100 {
        skill(&root.join(format!("s{k:03}")));
    }
    write(&root.join("bad/SKILL.md"), "---\nname: bad\n---\n");
    let roots = custom(&[&root]);
    let parallel = Index::scan(&roots);
    let mut sequential = Index::scan_with(&roots, ScanOptions::default().parallel(false));
    assert_eq!(parallel.skills().len(), 100);
    assert_eq!(sequential.skills(), parallel.skills());
    assert_eq!(sequential.skipped(), parallel.skipped());

    write(
        &root.join("s042/SKILL.md"),
        &md("s042", "Changed. Use when asked."),
    );
    assert_eq!(sequential.refresh(), Changed::Yes);
    assert_eq!(
        sequential.get("s042").map(|s| s.description.as_str()),
        Some("Changed. Use when asked.")
    );
    assert_eq!(sequential.refresh(), Changed::No);
}

#[cfg(target_os = "linux")]
#[test]
fn a_dir_watch_reports_every_key_of_a_shared_directory() {
    let t = tmp();
    let (shared, own) = (t.path().join("shared"), t.path().join("own"));
    fs::create_dir_all(&shared).unwrap();
    fs::create_dir_all(&own).unwrap();
    let mut watch = DirWatch::new().unwrap();
    watch.add("a", &shared).unwrap();
    watch.add("b", &shared).unwrap();
    watch.add("b", &shared).unwrap();
    watch.add("c", &own).unwrap();
    let keys = |watch: &mut DirWatch<&'static str>| match watch.changed().unwrap() {
        Changes::Keys(keys) => {
            let mut keys: Vec<_> = keys.into_iter().collect();
            keys.sort_unstable();
            keys
        }
        Changes::All => panic!("the queue did not overflow"),
    };
    assert!(keys(&mut watch).is_empty());

    write(&shared.join("notes.md"), "new");
    assert_eq!(keys(&mut watch), ["a", "b"]);
    write(&own.join("notes.md"), "new");
    assert_eq!(keys(&mut watch), ["c"]);

    // A directory removed and made again is another directory: its watch is gone, with
    // every key it had, and the new one reports nothing until it is added.
    fs::remove_dir_all(&shared).unwrap();
    assert_eq!(keys(&mut watch), ["a", "b"]);
    fs::create_dir_all(&shared).unwrap();
    write(&shared.join("notes.md"), "again");
    assert!(keys(&mut watch).is_empty());
    watch.add("b", &shared).unwrap();
    write(&shared.join("notes.md"), "and again");
    assert_eq!(keys(&mut watch), ["b"]);
}

#[test]
fn lookups_ignore_case_and_take_the_first_by_priority() {
    let t = tmp();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    let named = |path: PathBuf, name: &str| write(&path, &md(name, "Does things. Use when asked."));
    // Enough skills that the lookups search, not scan.
    for k in 0..40 {
        skill(&b.join(format!("f{k:02}")));
    }
    // Names equal but for case, in two roots: the higher-priority root's skill.
    named(a.join("one/SKILL.md"), "Shared");
    named(b.join("two/SKILL.md"), "shared");
    // ... and within one root: the first id.
    named(b.join("m-first/SKILL.md"), "Twin");
    named(b.join("z-second/SKILL.md"), "TWIN");
    // An id wins over a name.
    named(b.join("twin/SKILL.md"), "something-else");
    // Not ASCII.
    named(a.join("Émile/SKILL.md"), "ΣΟΦΙΑ");
    let index = Index::scan(&custom(&[&a, &b]));
    let id = |query: &str| index.get(query).map(|s| s.id.as_str());
    assert_eq!(id("SHARED"), Some("one"));
    assert_eq!(id("shared"), Some("one"));
    assert_eq!(id("Twin"), Some("twin"));
    assert_eq!(id("SOMETHING-ELSE"), Some("twin"));
    assert_eq!(id("m-FIRST"), Some("m-first"));
    assert_eq!(id("éMILE"), Some("Émile"));
    assert_eq!(id("σοφια"), Some("Émile"));
    assert_eq!(id("F07"), Some("f07"));
    assert_eq!(id("f40"), None);
    assert_eq!(id(""), None);

    // Remove the id match: the name lookup now answers, with the first of the twins.
    fs::remove_dir_all(b.join("twin")).unwrap();
    let index = Index::scan(&custom(&[&a, &b]));
    assert_eq!(index.get("twin").map(|s| s.id.as_str()), Some("m-first"));
}

#[test]
fn a_flat_skills_directory_is_its_root_as_given() {
    let t = tmp();
    let root = t.path().join("skills");
    write(
        &root.join("notes.md"),
        &md("notes", "Notes. Use when asked."),
    );
    let given = PathBuf::from(format!("{}/", root.display()));
    let index = Index::scan(&custom(&[&given]));
    let notes = index.get("notes").unwrap();
    assert!(notes.flat);
    assert_eq!(notes.dir.as_os_str(), given.as_os_str());
}
