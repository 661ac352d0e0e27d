//! `skills sync` in a project locked by npm `skills`: its `skills-lock.json` (real ones,
//! written by npm `skills` 1.7.4 beside a copy of the `add` fixture's repository:
//! `testdata/npm-skills/README.md`) installs what it locks, `--write-lock` switches the
//! project to `skills.lock`, and a hostile one is refused before anything is written.

use std::path::Path;

use crate::add::{World, link, skill_md, tree, write};
use crate::testdata;

/// The repository npm `skills` was run against when it wrote `git.json`.
const NPM_REPO_URL: &str = "file:///tmp/npm-skills2/w/repo";

fn npm_lock(w: &World, file: &str) {
    let text = std::fs::read_to_string(testdata().join("npm-skills").join(file)).unwrap();
    std::fs::write(
        w.project.join("skills-lock.json"),
        text.replace(NPM_REPO_URL, &w.url()),
    )
    .unwrap();
}

#[cfg(unix)]
#[test]
fn a_project_locked_by_npm_skills_syncs_and_switches_to_skills_lock() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    // `skills add ../repo`: the source is a path relative to the lock.
    npm_lock(&w, "local.json");

    let synced = w.run(&["sync"]);
    synced.assert_code(0);
    assert_eq!(
        synced.stdout,
        "installed docx -> .agents/skills/docx (linked into claude-code)\n\
         installed pdf -> .agents/skills/pdf (linked into claude-code)\n"
    );
    assert!(
        synced
            .stderr
            .contains("no skills.lock: installing the 2 skill(s) of skills-lock.json")
            && synced
                .stderr
                .contains("`skills sync --write-lock` writes skills.lock"),
        "{}",
        synced.stderr
    );
    assert!(
        w.project
            .join(".agents/skills/pdf/scripts/fill.py")
            .is_file()
    );
    assert_eq!(
        link(&w.project.join(".claude/skills/pdf")),
        Path::new("../../.agents/skills/pdf")
    );
    assert!(
        !w.project.join("skills.lock").exists(),
        "not without --write-lock"
    );

    // What does not read npm `skills`' lock says so, rather than "nothing differs".
    let check = w.run(&["check"]);
    check.assert_code(2);
    assert!(
        check.stderr.contains("which `check` does not read"),
        "{}",
        check.stderr
    );
    let frozen = w.run(&["sync", "--frozen"]);
    frozen.assert_code(2);
    assert!(
        frozen.stderr.contains("sync --write-lock"),
        "{}",
        frozen.stderr
    );

    let switched = w.run(&["sync", "--write-lock"]);
    switched.assert_code(0);
    assert!(
        switched.stderr.contains("wrote skills.lock (2 skill(s)"),
        "{}",
        switched.stderr
    );
    let lock = w.lock();
    assert!(
        lock.contains(
            "[skills.pdf]\nsource = \"../repo\"\npath = \"skills/pdf\"\nhash = \"sha256:"
        ) && lock.contains("agents = [\"claude-code\"]"),
        "{lock}"
    );

    // From now on skills.lock is read: npm's lock is ignored (even broken), and a lost
    // skill comes back from skills.lock.
    std::fs::write(w.project.join("skills-lock.json"), "{not json").unwrap();
    std::fs::remove_dir_all(w.project.join(".agents/skills/pdf")).unwrap();
    let again = w.run(&["sync"]);
    again.assert_code(0);
    assert_eq!(again.stdout, "2 skill(s) match skills.lock (1 fixed)\n");
    assert!(
        again.stderr.contains(
            "note: skills-lock.json (npm `skills`' lock) is ignored: skills.lock is read"
        ) && again.stderr.contains("restored pdf"),
        "{}",
        again.stderr
    );
    w.run(&["sync", "--frozen"]).assert_code(0);
    w.run(&["check"]).assert_code(0);
    let twice = w.run(&["sync", "--write-lock"]);
    twice.assert_code(0);
    assert!(
        twice.stderr.contains("--write-lock has nothing to do"),
        "{}",
        twice.stderr
    );
    assert_eq!(w.lock(), lock);
}

/// npm `skills` installing for Claude Code alone copies each skill into `.claude/skills`:
/// those copies become links to the canonical copy, one edited since is kept (and its
/// skill not installed) unless --force, and a source that changed since it was locked is
/// refused, its files not being the ones `computedHash` pins.
#[cfg(unix)]
#[test]
fn npm_skills_copies_become_links_and_a_changed_source_is_refused() {
    let w = World::new();
    npm_lock(&w, "git.json");
    for name in ["pdf", "docx"] {
        let from = w.repo.join("skills").join(name);
        let to = w.project.join(".claude/skills").join(name);
        for entry in ["SKILL.md", "scripts/fill.py"] {
            if from.join(entry).is_file() {
                write(
                    &to.join(entry),
                    &std::fs::read_to_string(from.join(entry)).unwrap(),
                );
            }
        }
    }
    let docx_copy = w.project.join(".claude/skills/docx/SKILL.md");
    std::fs::write(&docx_copy, "my edit\n").unwrap();

    let kept = w.run(&["sync", "--write-lock"]);
    kept.assert_code(1);
    assert!(
        kept.stderr.contains(
            "error: docx not installed: .claude/skills/docx holds other files (SKILL.md); pass --force to replace them"
        ) && kept.stderr.contains("skills.lock not written"),
        "{}",
        kept.stderr
    );
    assert_eq!(std::fs::read_to_string(&docx_copy).unwrap(), "my edit\n");
    assert!(!w.project.join(".agents/skills/docx").exists());
    assert!(!w.project.join("skills.lock").exists());
    // The identical copy was taken over: a link now.
    assert_eq!(
        link(&w.project.join(".claude/skills/pdf")),
        Path::new("../../.agents/skills/pdf")
    );

    // The source moves on: npm's lock pins no commit, only the files' digest.
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        &skill_md("pdf", "Version two."),
    );
    w.commit("two");
    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    let changed = w.run(&["sync"]);
    changed.assert_code(1);
    assert!(
        changed
            .stderr
            .contains("error: pdf not installed: its files in")
            && changed.stderr.contains("(computedHash differs)")
            && changed
                .stderr
                .contains("--force installs what the source has now"),
        "{}",
        changed.stderr
    );
    assert!(!w.project.join(".agents/skills/pdf").exists());

    // --force takes the source as it is now, over the edited copy too.
    let forced = w.run(&["sync", "--force", "--write-lock"]);
    forced.assert_code(0);
    assert!(
        std::fs::read_to_string(w.project.join(".agents/skills/pdf/SKILL.md"))
            .unwrap()
            .contains("Version two.")
    );
    assert_eq!(
        link(&w.project.join(".claude/skills/docx")),
        Path::new("../../.agents/skills/docx")
    );
    assert!(w.lock().contains(&format!("url = \"{}\"", w.url())));
}

/// `skills-lock.json` comes with the repository, as `skills.lock` does: a name that is a
/// path, a file too big to be a lock, fields of the wrong type, a `skillPath` out of the
/// source, and the name npm `skills` itself wrote for a skill whose `name` is not valid are
/// each refused with the file, the place and the entry, before anything is fetched or
/// written.
#[cfg(unix)]
#[test]
fn a_hostile_npm_lock_is_refused_and_nothing_is_written() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    let hash = "0".repeat(64);
    let entry = |name: &str, fields: &str| {
        format!(
            "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"{name}\": {{\n      \"source\": \"{}\",\n      \"sourceType\": \"git\",\n      \"computedHash\": \"{hash}\"{fields}\n    }}\n  }}\n}}\n",
            w.url()
        )
    };
    let real = std::fs::read_to_string(testdata().join("npm-skills/all-with-an-invalid-name.json"))
        .unwrap();
    let huge = format!("{{\"version\": 1, \"pad\": \"{}\"}}", "x".repeat(17 << 20));
    for (text, says) in [
        (
            entry("../../x", ""),
            "skills-lock.json:4:5: skill `../../x`: not a skill name",
        ),
        (
            entry("pdf", "").replace("\"git\"", "3"),
            "skills-lock.json:6:21: skill `pdf`: `sourceType` must be a string, not a number",
        ),
        (
            entry("pdf", ",\n      \"skillPath\": \"../../../etc/SKILL.md\""),
            "skills-lock.json:8:20: skill `pdf`: `skillPath` must be the skill's SKILL.md inside its source",
        ),
        (
            entry("pdf", ",\n      \"sourceUrl\": \"ext::sh -c x\""),
            "skill `pdf`: `sourceUrl` must be a repository URL",
        ),
        (
            "{\n  \"version\": 1,\n  \"skills\": [\"pdf\"]\n}\n".to_string(),
            "skills-lock.json:3:3: `skills` must be an object, not an array",
        ),
        (
            real,
            "skills-lock.json:4:5: skill `Broken_Name`: not a skill name",
        ),
        (huge, "over the limit"),
    ] {
        std::fs::write(w.project.join("skills-lock.json"), &text).unwrap();
        let before = tree(&w.project);
        for args in [vec!["sync"], vec!["sync", "--write-lock"]] {
            let run = w.run(&args);
            run.assert_code(2);
            assert!(run.stderr.contains(says), "{says}: {}", run.stderr);
            assert!(
                run.stderr.contains("skills-lock.json"),
                "names the file: {}",
                run.stderr
            );
            assert_eq!(tree(&w.project), before, "{says} {args:?}");
            assert!(!w.cache.join("git").exists(), "nothing fetched: {says}");
        }
    }
}

/// What skills cannot install from an entry (a site's well-known index, a skill with lint
/// errors) is named with the way out; the other skills are installed, and no skills.lock is
/// written that would leave those out.
#[cfg(unix)]
#[test]
fn entries_skills_cannot_install_are_named_and_the_others_installed() {
    let w = World::new();
    let url = w.url();
    // `broken`'s digest is the one npm `skills` recorded for skills/broken (as
    // `Broken_Name`, in all-with-an-invalid-name.json).
    std::fs::write(
        w.project.join("skills-lock.json"),
        format!(
            r#"{{
  "version": 1,
  "skills": {{
    "broken": {{
      "source": "{url}",
      "sourceUrl": "{url}",
      "sourceType": "git",
      "skillPath": "skills/broken/SKILL.md",
      "computedHash": "b16fde9a0fe0ae4b71cae94628a10542d005476e90307a7a0d400ff595b66a89"
    }},
    "docx": {{
      "source": "../repo",
      "sourceType": "local",
      "computedHash": "5fc42b508a72670ebb60f212abb6cf6cbd70014c9a4ffaa08a32f5f2197cf563"
    }},
    "mint": {{
      "source": "mintlify.com",
      "sourceUrl": "https://mintlify.com/docs",
      "sourceType": "well-known",
      "computedHash": "{}"
    }}
  }}
}}
"#,
            "0".repeat(64)
        ),
    )
    .unwrap();
    let run = w.run(&["sync", "--write-lock"]);
    run.assert_code(1);
    assert_eq!(
        run.stdout, "installed docx -> .agents/skills/docx\n",
        "{}",
        run.stderr
    );
    for says in [
        "error: broken not installed: lint errors: name-",
        "--skill broken --allow-lint-errors` installs it",
        "error: mint not installed: it comes from a site's /.well-known skills index, which skills does not read (sourceType `well-known`)",
        "2 of 3 skill(s) of skills-lock.json not installed",
        "error: skills.lock not written",
    ] {
        assert!(run.stderr.contains(says), "{says}: {}", run.stderr);
    }
    assert!(!w.project.join(".agents/skills/broken").exists());
    assert!(!w.project.join("skills.lock").exists());
}
