//! The scenarios that cross modules, on temporary project and home trees (never the real
//! home): default roots and their priority, `find` against a scan, flat files, refresh with
//! and without the watch. A test of one module's behaviour sits in that module.

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
        // Another skill of that name (an identical copy would be the same skill).
        write(
            &first.join("tool/SKILL.md"),
            &md("tool", "The first root's."),
        );
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
    // Skills kept elsewhere (a dotfiles repository) are linked as whole directories: a
    // SKILL.md that is itself a link out of its directory is not read (its target could be
    // any file of the user's).
    let t = tmp();
    let shared = t.path().join("shared/tool/SKILL.md");
    write(&shared, &md("tool", "Shared tool."));
    let root = t.path().join("skills");
    fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(t.path().join("shared/tool"), root.join("tool")).unwrap();
    let mut index = scan(&custom(&[&root]), true);
    assert_eq!(index.refresh(), Changed::No);
    write(&shared, &md("tool", "Shared tool, edited."));
    assert_eq!(index.refresh(), Changed::Yes);
    assert_eq!(
        index.get("tool").unwrap().description,
        "Shared tool, edited."
    );
}

/// `skills add --copy` puts identical copies in agents' folders, and `skills add` links
/// them: either is the one skill, listed once and never as its own shadow.
#[test]
#[cfg(unix)]
fn a_link_or_an_identical_copy_is_the_same_skill_not_its_shadow() {
    let t = tmp();
    let project = t.path().join("project");
    let canonical = project.join(".agents/skills");
    skill(&canonical.join("pdf"));
    fs::create_dir_all(project.join(".claude/skills")).unwrap();
    std::os::unix::fs::symlink(
        "../../.agents/skills/pdf",
        project.join(".claude/skills/pdf"),
    )
    .unwrap();
    skill(&project.join(".windsurf/skills/pdf"));
    let roots = custom(&[
        &canonical,
        &project.join(".claude/skills"),
        &project.join(".windsurf/skills"),
    ]);
    let index = Index::scan(&roots);
    assert_eq!(ids(index.skills()), ["pdf"]);
    assert_eq!(index.all().count(), 1, "{:?}", index.warnings());
    // A copy edited since is another skill of that name: shadowed.
    write(&project.join(".windsurf/skills/pdf/notes.md"), "mine\n");
    let index = Index::scan(&roots);
    assert_eq!(index.all().count(), 2);
}

#[test]
#[cfg(unix)]
fn a_skill_file_linked_out_of_its_directory_is_skipped_unread() {
    let t = tmp();
    let secret = t.path().join("secret.env");
    write(&secret, "TOKEN=hunter2\n");
    let root = t.path().join("skills");
    fs::create_dir_all(root.join("leak")).unwrap();
    std::os::unix::fs::symlink(&secret, root.join("leak/SKILL.md")).unwrap();
    // A link that stays inside the skill is read.
    write(&root.join("inner/docs/real.md"), &md("inner", "Inner."));
    std::os::unix::fs::symlink("docs/real.md", root.join("inner/SKILL.md")).unwrap();
    let index = Index::scan(&custom(&[&root]));
    assert_eq!(ids(index.skills()), ["inner"]);
    let skipped = format!("{:?}", index.skipped());
    assert!(skipped.contains("outside the skill"), "{skipped}");
    assert!(!skipped.contains("hunter2"), "{skipped}");
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
