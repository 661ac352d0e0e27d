//! `skills add` and `skills sync` as a user drives them: from git repositories these tests
//! create (served over `file://`), into project trees and fake homes with several agents'
//! folders. Each run gets its own repository cache and home, so nothing outside the
//! temporary directory is read or written.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Run, skills_with};

/// A project, a home, a cache and a repository of skills, all under one temporary directory.
pub(crate) struct World {
    _dir: tempfile::TempDir,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) cache: PathBuf,
    pub(crate) repo: PathBuf,
}

pub(crate) fn skill_md(name: &str, body: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Does {name} work. Use when {name} is asked for.\n---\n# {name}\n\n{body}\n"
    )
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

impl World {
    /// The repository: `skills/pdf`, `skills/docx` and `skills/broken` (a lint error) on
    /// `main`, tagged `v1`.
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (project, home, cache, repo) = (
            root.join("project"),
            root.join("home"),
            root.join("cache"),
            root.join("repo"),
        );
        for d in [&project, &home, &repo] {
            std::fs::create_dir_all(d).unwrap();
        }
        git(&project, &["init", "-q"]);
        git(&repo, &["init", "-q", "-b", "main"]);
        write(
            &repo.join("skills/pdf/SKILL.md"),
            &skill_md("pdf", "Version one."),
        );
        write(&repo.join("skills/pdf/scripts/fill.py"), "print('fill')\n");
        write(
            &repo.join("skills/docx/SKILL.md"),
            &skill_md("docx", "Edit."),
        );
        write(
            &repo.join("skills/broken/SKILL.md"),
            "---\nname: Broken_Name\ndescription: x\n---\nBody.\n",
        );
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "one"]);
        git(&repo, &["tag", "v1"]);
        Self {
            _dir: dir,
            project,
            home,
            cache,
            repo,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("file://{}", self.repo.display())
    }

    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.project, args)
    }

    fn run_in(&self, cwd: &Path, args: &[&str]) -> Run {
        self.run_with(cwd, args, &[])
    }

    /// [`World::run_in`] with more environment variables.
    fn run_with(&self, cwd: &Path, args: &[&str], more: &[(&str, &Path)]) -> Run {
        let state = self.home.join(".local/state");
        let cache = self.home.join(".cache");
        let mut env: Vec<(&str, &Path)> = vec![
            ("HOME", &self.home),
            ("SKILLS_CACHE_DIR", &self.cache),
            ("XDG_STATE_HOME", &state),
            ("XDG_CACHE_HOME", &cache),
            // Outputs here hold temporary paths, whose length depends on `TMPDIR`
            // (`cargo xtask ci` puts it on a tmpfs): wide enough that none is wrapped
            // or cut, so the assertions see each line whole.
            ("COLUMNS", Path::new("400")),
        ];
        env.extend_from_slice(more);
        skills_with(cwd, args, &env)
    }

    pub(crate) fn commit(&self, message: &str) -> String {
        git(&self.repo, &["add", "-A"]);
        git(&self.repo, &["commit", "-q", "-m", message]);
        git(&self.repo, &["rev-parse", "HEAD"])
    }

    pub(crate) fn lock(&self) -> String {
        std::fs::read_to_string(self.project.join("skills.lock")).unwrap()
    }
}

pub(crate) fn link(path: &Path) -> PathBuf {
    std::fs::read_link(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(unix)]
#[test]
fn add_from_a_repository_into_every_agent_and_lock_it() {
    let w = World::new();
    let url = w.url();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    std::fs::create_dir_all(w.project.join(".windsurf")).unwrap();

    // --list shows what is there and installs nothing.
    let listed = w.run(&["add", &url, "--list"]);
    listed.assert_code(0);
    let (first, rest) = listed.stdout.split_once('\n').unwrap();
    assert!(
        first.starts_with("broken  skills/broken  (refused: lint errors: name-"),
        "{first}"
    );
    assert_eq!(
        rest,
        "    x\n\
         docx  skills/docx\n    Does docx work. Use when docx is asked for.\n\
         pdf  skills/pdf\n    Does pdf work. Use when pdf is asked for.\n"
    );
    assert!(!w.project.join(".agents").exists());
    assert!(!w.project.join("skills.lock").exists());

    // Several skills and no choice: nothing is asked, nothing installed.
    let ambiguous = w.run(&["add", &url]);
    ambiguous.assert_code(2);
    assert!(
        ambiguous.stderr.contains("has 3 skills: broken, docx, pdf")
            && ambiguous.stderr.contains("--skill NAME"),
        "{}",
        ambiguous.stderr
    );
    let unknown = w.run(&["add", &url, "--skill", "pfd"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("did you mean `pdf`?"),
        "{}",
        unknown.stderr
    );

    // One skill: the canonical copy, a relative link for each detected agent, the lock.
    let added = w.run(&["add", &url, "--skill", "pdf"]);
    added.assert_code(0);
    let commit = git(&w.repo, &["rev-parse", "HEAD"]);
    assert_eq!(
        added.stdout,
        format!(
            "added pdf @ {} -> .agents/skills/pdf (linked into claude-code, windsurf)\n",
            &commit[..12]
        )
    );
    let canonical = w.project.join(".agents/skills/pdf");
    assert!(canonical.join("scripts/fill.py").is_file());
    assert_eq!(
        link(&w.project.join(".claude/skills/pdf")),
        Path::new("../../.agents/skills/pdf")
    );
    assert_eq!(
        link(&w.project.join(".windsurf/skills/pdf")),
        Path::new("../../.agents/skills/pdf")
    );
    let lock = w.lock();
    assert!(lock.starts_with("# skills.lock"), "{lock}");
    assert!(
        lock.contains(&format!(
            "[skills.pdf]\nsource = \"{url}\"\nurl = \"{url}\"\ncommit = \"{commit}\"\npath = \"skills/pdf\"\nhash = \"sha256:"
        )),
        "{lock}"
    );
    assert!(
        lock.contains("agents = [\"claude-code\", \"windsurf\"]"),
        "{lock}"
    );

    // `skills list` says where it came from and which agents have it.
    let listed = w.run(&["list", "--format", "json"]);
    listed.assert_code(0);
    let doc = listed.json();
    let pdf = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "pdf" && s["scope"] == "project")
        .unwrap();
    assert_eq!(
        pdf["installed"],
        serde_json::json!({"source": url, "commit": commit, "agents": ["claude-code", "windsurf"]})
    );
    let table = w.run(&["list"]);
    // The source column is at most 60 wide, cut from its start (`…` and the end): how much
    // of the URL shows depends on the length of the temporary path.
    let row = table
        .stdout
        .lines()
        .find(|l| l.starts_with("pdf "))
        .unwrap();
    let whole = format!("<- {url} -> claude-code, windsurf");
    let shown = row.rsplit_once('…').map_or(row, |(_, end)| end);
    assert!(
        row.ends_with(&whole) || whole.ends_with(shown),
        "{}",
        table.stdout
    );

    // A skill with lint errors is refused and leaves nothing behind.
    let broken = w.run(&["add", &url, "--skill", "broken"]);
    broken.assert_code(1);
    assert!(
        broken
            .stderr
            .contains("broken not added: the skill has lint errors"),
        "{}",
        broken.stderr
    );
    assert!(!w.project.join(".agents/skills/broken").exists());
    assert!(!w.lock().contains("[skills.broken]"));

    // A ref: the tag still has version one after main moves on; the lock keeps the ref.
    write(
        &w.repo.join("skills/docx/SKILL.md"),
        &skill_md("docx", "Version two."),
    );
    w.commit("two");
    let tagged = w.run(&[
        "add",
        &format!("{url}#v1"),
        "--skill",
        "docx",
        "--agent",
        "claude-code",
    ]);
    tagged.assert_code(0);
    let docx = std::fs::read_to_string(w.project.join(".agents/skills/docx/SKILL.md")).unwrap();
    assert!(docx.contains("Edit."), "{docx}");
    let lock = w.lock();
    assert!(lock.contains("ref = \"v1\""), "{lock}");
    assert!(lock.find("[skills.docx]").unwrap() < lock.find("[skills.pdf]").unwrap());
    // --agent names the agents: windsurf was detected but not asked for.
    assert!(!w.project.join(".windsurf/skills/docx").exists());

    // Adding again updates in place (the lock says the skill is ours).
    let again = w.run(&["add", &url, "--skill", "docx", "--agent", "claude-code"]);
    again.assert_code(0);
    let docx = std::fs::read_to_string(w.project.join(".agents/skills/docx/SKILL.md")).unwrap();
    assert!(docx.contains("Version two."), "{docx}");
}

#[cfg(unix)]
#[test]
fn a_users_own_skill_is_never_replaced_unasked() {
    let w = World::new();
    let url = w.url();
    let own = w.project.join(".claude/skills/pdf");
    write(&own.join("SKILL.md"), &skill_md("pdf", "Mine."));
    let refused = w.run(&["add", &url, "--skill", "pdf"]);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("already exists and is not a link")
            && refused.stderr.contains("--force"),
        "{}",
        refused.stderr
    );
    assert!(
        std::fs::read_to_string(own.join("SKILL.md"))
            .unwrap()
            .contains("Mine.")
    );
    // --copy with --force: a real directory with the installed files.
    let forced = w.run(&["add", &url, "--skill", "pdf", "--copy", "--force"]);
    forced.assert_code(0);
    assert!(!std::fs::symlink_metadata(&own).unwrap().is_symlink());
    assert!(
        std::fs::read_to_string(own.join("SKILL.md"))
            .unwrap()
            .contains("Version one.")
    );
    let leftovers: Vec<_> = std::fs::read_dir(w.project.join(".claude/skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["pdf"]);
}

/// One skill of a collection that cannot be installed is that skill's failure: `add --all`
/// stopped at it (exit 2), and the skills after it were never tried.
#[cfg(unix)]
#[test]
fn one_skill_that_cannot_be_installed_does_not_stop_the_others() {
    let w = World::new();
    write(
        &w.repo.join("skills/aaa-bad/SKILL.md"),
        &skill_md("aaa-bad", "Bad."),
    );
    std::os::unix::fs::symlink("/etc", w.repo.join("skills/aaa-bad/etc")).unwrap();
    w.commit("a skill linking out");
    let run = w.run(&["add", &w.url(), "--all"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("aaa-bad"), "{}", run.stderr);
    for added in ["pdf", "docx"] {
        assert!(
            w.project
                .join(".agents/skills")
                .join(added)
                .join("SKILL.md")
                .is_file(),
            "{added}: {}",
            run.stderr
        );
    }
    assert!(!w.project.join(".agents/skills/aaa-bad").exists());
}

/// A lock whose local source is `/` (or any folder that holds the project): nothing is
/// searched below it. `sync` and `check` walked the whole machine.
#[test]
fn a_lock_naming_the_root_as_its_source_walks_nothing() {
    let w = World::new();
    let hash = format!("sha256:{}", "0".repeat(64));
    write(
        &w.project.join("skills.lock"),
        &format!("version = 1\n[skills.x]\nsource = \"/\"\npath = \"\"\nhash = \"{hash}\"\n"),
    );
    for command in ["sync", "check"] {
        let run = w.run(&[command]);
        assert_ne!(run.code, 0, "{command}: {}", run.stderr);
        assert!(
            run.stdout.contains("no skill at") || run.stderr.contains("no skill at"),
            "{command}: {}",
            run.stderr
        );
    }
    std::fs::remove_file(w.project.join("skills.lock")).unwrap();
    write(
        &w.project.join("skills-lock.json"),
        &format!(
            "{{\"version\":1,\"skills\":{{\"x\":{{\"source\":\"/\",\"sourceType\":\"local\",\"computedHash\":\"{}\"}}}}}}",
            "0".repeat(64)
        ),
    );
    let run = w.run(&["sync"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("holds the project itself"),
        "{}",
        run.stderr
    );
}

/// Being in the lock (which comes with a clone) does not make a folder ours: edits to the
/// installed copy, and a file or link of the user's where an agent's link was, are kept by
/// `add` again, `sync`, `update` and `remove` unless --force. Each of them replaced or
/// deleted them without a word.
#[cfg(unix)]
#[test]
fn locked_skills_changed_by_hand_are_kept_unless_forced() {
    let w = World::new();
    let url = w.url();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&["add", &url, "--skill", "pdf"]).assert_code(0);
    let canonical = w.project.join(".agents/skills/pdf/SKILL.md");
    let agent = w.project.join(".claude/skills/pdf");
    assert!(std::fs::symlink_metadata(&agent).unwrap().is_symlink());
    let edited = format!(
        "{}\nMy notes.\n",
        std::fs::read_to_string(&canonical).unwrap()
    );
    std::fs::write(&canonical, &edited).unwrap();

    // `add` again keeps the edit.
    let again = w.run(&["add", &url, "--skill", "pdf"]);
    assert_ne!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("was modified here"),
        "{}",
        again.stderr
    );
    assert_eq!(std::fs::read_to_string(&canonical).unwrap(), edited);
    // `remove` keeps it too, and says so.
    let removed = w.run(&["remove", "pdf"]);
    removed.assert_code(2);
    assert!(removed.stderr.contains("--force"), "{}", removed.stderr);
    assert_eq!(std::fs::read_to_string(&canonical).unwrap(), edited);

    // A file of the user's where claude-code's link was: `sync` and `update` keep it.
    w.run(&["add", &url, "--skill", "pdf", "--force"])
        .assert_code(0);
    std::fs::remove_file(&agent).unwrap();
    std::fs::write(&agent, "my own notes\n").unwrap();
    let synced = w.run(&["sync"]);
    assert_ne!(synced.code, 0, "{}", synced.stderr);
    assert!(
        synced.stderr.contains("not what `skills add` put there"),
        "{}",
        synced.stderr
    );
    assert_eq!(std::fs::read_to_string(&agent).unwrap(), "my own notes\n");
    let updated = w.run(&["update"]);
    assert_ne!(updated.code, 0, "{}", updated.stderr);
    assert_eq!(std::fs::read_to_string(&agent).unwrap(), "my own notes\n");

    // A link written otherwise (absolute, as other installers make it) that leads to the
    // installed copy is ours: fixed without --force.
    std::fs::remove_file(&agent).unwrap();
    std::os::unix::fs::symlink(w.project.join(".agents/skills/pdf"), &agent).unwrap();
    let relinked = w.run(&["sync"]);
    relinked.assert_code(0);
    assert!(std::fs::read_link(&agent).unwrap().is_relative());
    std::fs::remove_file(&agent).unwrap();
    std::fs::write(&agent, "my own notes\n").unwrap();

    // Asked for, they go.
    w.run(&["sync", "--force"]).assert_code(0);
    assert!(std::fs::symlink_metadata(&agent).unwrap().is_symlink());
    std::fs::write(&canonical, &edited).unwrap();
    w.run(&["remove", "pdf", "--force"]).assert_code(0);
    assert!(!canonical.exists());
}

#[cfg(unix)]
#[test]
fn global_installs_go_under_home_with_their_own_lock() {
    let w = World::new();
    std::fs::create_dir_all(w.home.join(".codeium/windsurf")).unwrap();
    let added = w.run(&["add", &w.url(), "--skill", "pdf", "--global"]);
    added.assert_code(0);
    assert!(w.home.join(".agents/skills/pdf/SKILL.md").is_file());
    assert_eq!(
        link(&w.home.join(".codeium/windsurf/skills/pdf")),
        Path::new("../../../.agents/skills/pdf")
    );
    let lock = std::fs::read_to_string(w.home.join(".local/state/skills/skills.lock")).unwrap();
    assert!(lock.contains("[skills.pdf]"), "{lock}");
    assert!(!w.project.join("skills.lock").exists());
    w.run(&["sync", "--frozen", "--global"]).assert_code(0);
}

#[cfg(unix)]
#[test]
fn sync_restores_what_the_lock_says_and_frozen_only_reports() {
    let w = World::new();
    let url = w.url();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&["add", &url, "--all"]).assert_code(1); // broken is refused
    let lock = w.lock();
    assert!(
        lock.contains("[skills.docx]") && lock.contains("[skills.pdf]"),
        "{lock}"
    );
    let synced = w.run(&["sync", "--frozen"]);
    synced.assert_code(0);
    assert_eq!(synced.stdout, "2 skill(s) match skills.lock\n");

    // The source moves on; the lock keeps the project on its commit.
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        &skill_md("pdf", "Version two."),
    );
    w.commit("two");

    // A tampered skill and a lost link: --frozen reports both and changes nothing.
    let pdf_md = w.project.join(".agents/skills/pdf/SKILL.md");
    std::fs::write(&pdf_md, "tampered").unwrap();
    std::fs::remove_file(w.project.join(".claude/skills/docx")).unwrap();
    let frozen = w.run(&["sync", "--frozen"]);
    frozen.assert_code(1);
    assert!(
        frozen.stderr.contains("drift: pdf: modified")
            && frozen
                .stderr
                .contains("drift: docx: not in Claude Code's folder")
            && frozen.stderr.contains("in 2 place(s); run `skills sync`"),
        "{}",
        frozen.stderr
    );
    assert_eq!(std::fs::read_to_string(&pdf_md).unwrap(), "tampered");

    // sync puts back the link, but not over hand edits: it names the edited files and
    // leaves them (it overwrote them without a word before), as `update` does.
    let kept = w.run(&["sync"]);
    kept.assert_code(1);
    assert!(
        kept.stderr.contains(
            "error: pdf was modified here (SKILL.md); not restored (pass --force to replace the changes)"
        ),
        "{}",
        kept.stderr
    );
    assert_eq!(std::fs::read_to_string(&pdf_md).unwrap(), "tampered");
    assert_eq!(
        link(&w.project.join(".claude/skills/docx")),
        Path::new("../../.agents/skills/docx")
    );
    // --force puts back the locked version (not the source's newer one).
    let fixed = w.run(&["sync", "--force"]);
    fixed.assert_code(0);
    assert!(
        std::fs::read_to_string(&pdf_md)
            .unwrap()
            .contains("Version one.")
    );
    w.run(&["sync", "--frozen"]).assert_code(0);

    // A new clone: the lock and nothing else, and an empty cache.
    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    std::fs::remove_dir_all(w.project.join(".claude/skills")).unwrap();
    std::fs::remove_dir_all(&w.cache).unwrap();
    w.run(&["sync"]).assert_code(0);
    assert!(
        std::fs::read_to_string(&pdf_md)
            .unwrap()
            .contains("Version one.")
    );
    w.run(&["sync", "--frozen"]).assert_code(0);
    assert_eq!(w.lock(), lock, "sync does not rewrite the lock");
}

#[cfg(unix)]
#[test]
fn bad_sources_and_locks_are_clear_errors() {
    let w = World::new();
    let missing = w.run(&["add", &format!("file://{}/nope", w.project.display())]);
    missing.assert_code(2);
    assert!(
        missing.stderr.contains("git failed for file://"),
        "{}",
        missing.stderr
    );
    let no_ref = w.run(&["add", &format!("{}#no-such-tag", w.url())]);
    no_ref.assert_code(2);
    assert!(no_ref.stderr.contains("no-such-tag"), "{}", no_ref.stderr);
    std::fs::write(
        w.project.join("skills.lock"),
        "version = 1\n[skills.pdf]\nsource = 3\n",
    )
    .unwrap();
    let bad_lock = w.run(&["sync"]);
    bad_lock.assert_code(2);
    assert!(
        bad_lock.stderr.contains("skills.lock:3:10:"),
        "{}",
        bad_lock.stderr
    );
}

#[cfg(unix)]
#[test]
fn check_update_and_remove() {
    let w = World::new();
    let url = w.url();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&["add", &url, "--skill", "pdf", "--skill", "docx"])
        .assert_code(0);
    let first = git(&w.repo, &["rev-parse", "HEAD"]);
    let checked = w.run(&["check"]);
    checked.assert_code(0);
    assert_eq!(checked.stdout, "docx: up to date\npdf: up to date\n");

    // The source moves on, and docx is edited here.
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        &skill_md("pdf", "Version two."),
    );
    let second = w.commit("two");
    let docx_md = w.project.join(".agents/skills/docx/SKILL.md");
    std::fs::write(&docx_md, skill_md("docx", "My own notes.")).unwrap();
    let checked = w.run(&["check"]);
    checked.assert_code(1);
    assert_eq!(
        checked.stdout,
        format!(
            "docx: modified here\npdf: changed at the source ({} -> {})\n",
            &first[..12],
            &second[..12]
        )
    );

    // update takes the source's version, but not over changes made here.
    let updated = w.run(&["update"]);
    updated.assert_code(1);
    assert!(
        updated.stdout.contains(&format!(
            "updated pdf {} -> {}",
            &first[..12],
            &second[..12]
        )),
        "{}",
        updated.stdout
    );
    assert!(
        updated.stderr.contains("docx was modified here"),
        "{}",
        updated.stderr
    );
    assert!(
        std::fs::read_to_string(&docx_md)
            .unwrap()
            .contains("My own notes.")
    );
    let pdf = std::fs::read_to_string(w.project.join(".claude/skills/pdf/SKILL.md")).unwrap();
    assert!(
        pdf.contains("Version two."),
        "the link shows the new version: {pdf}"
    );
    assert!(w.lock().contains(&format!("commit = \"{second}\"")));
    w.run(&["update", "docx", "--force"]).assert_code(0);
    assert!(std::fs::read_to_string(&docx_md).unwrap().contains("Edit."));
    w.run(&["check"]).assert_code(0);
    w.run(&["sync", "--frozen"]).assert_code(0);

    // A new version with lint errors is refused; the installed one and the lock stay.
    let before = w.lock();
    write(
        &w.repo.join("skills/pdf/SKILL.md"),
        "---\nname: pdf\n---\nNo description.\n",
    );
    w.commit("broken");
    let refused = w.run(&["update", "pdf"]);
    refused.assert_code(1);
    assert!(
        refused
            .stderr
            .contains("pdf not updated: the new version has lint errors"),
        "{}",
        refused.stderr
    );
    assert_eq!(w.lock(), before);
    assert!(
        std::fs::read_to_string(w.project.join(".agents/skills/pdf/SKILL.md"))
            .unwrap()
            .contains("Version two.")
    );

    // A skill the source moved: check says so.
    git(&w.repo, &["mv", "skills/docx", "skills/word"]);
    w.commit("moved");
    let moved = w.run(&["check", "docx"]);
    moved.assert_code(1);
    assert!(
        moved
            .stdout
            .contains("docx: cannot check the source: no skill at `skills/docx`"),
        "{}",
        moved.stdout
    );

    // A folder source locked as written (`./vendor/skills`) is named as a path, without the
    // `/./` of the join (`<project>/./vendor/skills` it was).
    write(
        &w.project.join("vendor/skills/notes/SKILL.md"),
        &skill_md("notes", "Notes."),
    );
    w.run(&["add", "./vendor/skills", "--all"]).assert_code(0);
    std::fs::remove_dir_all(w.project.join("vendor/skills/notes")).unwrap();
    let gone = w.run(&["check", "notes"]);
    gone.assert_code(1);
    let vendor = w.project.join("vendor/skills");
    assert_eq!(
        gone.stdout,
        format!(
            "notes: cannot check the source: no skill at `notes` in {}\n",
            vendor.display()
        )
    );

    // remove: the link, the canonical copy, the lock entry.
    let removed = w.run(&["remove", "pdf"]);
    removed.assert_code(0);
    assert_eq!(
        removed.stdout,
        "removed pdf from .agents/skills and from claude-code\n"
    );
    assert!(std::fs::symlink_metadata(w.project.join(".claude/skills/pdf")).is_err());
    assert!(!w.project.join(".agents/skills/pdf").exists());
    assert!(!w.lock().contains("[skills.pdf]"));
    assert!(w.lock().contains("[skills.docx]"));
    let unknown = w.run(&["remove", "pfd"]);
    unknown.assert_code(2);
    assert!(
        unknown
            .stderr
            .contains("no skill `pfd` in skills.lock or .agents/skills"),
        "{}",
        unknown.stderr
    );
}

/// A big skill, so that an update spends a while copying.
#[cfg(target_os = "linux")]
fn big(repo: &Path, body: &str) {
    write(&repo.join("skills/pdf/SKILL.md"), &skill_md("pdf", body));
    for i in 0..1500 {
        write(
            &repo.join(format!("skills/pdf/assets/{i:04}.txt")),
            &format!("{body} {i}\n"),
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn update_killed_at_any_point_leaves_the_old_version_or_the_new_one() {
    let w = World::new();
    big(&w.repo, "Old.");
    w.commit("big");
    w.run(&["add", &w.url(), "--skill", "pdf"]).assert_code(0);
    big(&w.repo, "New.");
    w.commit("new");
    let root = w.project.join(".agents/skills");
    let staging = || {
        std::fs::read_dir(&root).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".skills-install-")
        })
    };
    let points: [Option<&dyn Fn() -> bool>; 2] = [None, Some(&staging)];
    for ready in points {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
            .current_dir(&w.project)
            .args(["update", "pdf"])
            .env("HOME", &w.home)
            .env("SKILLS_CACHE_DIR", &w.cache)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        if let Some(ready) = ready {
            while !ready() && child.try_wait().unwrap().is_none() {
                std::thread::yield_now();
            }
        }
        let _ = child.kill();
        child.wait().unwrap();
        let md = std::fs::read_to_string(root.join("pdf/SKILL.md")).unwrap();
        let word = if md.contains("New.") { "New." } else { "Old." };
        assert!(md.contains(word), "{md}");
        // Whole: every asset of one version.
        let assets = std::fs::read_dir(root.join("pdf/assets")).unwrap().count();
        assert_eq!(assets, 1500);
        let one = std::fs::read_to_string(root.join("pdf/assets/0700.txt")).unwrap();
        assert_eq!(one, format!("{word} 700\n"));
        // The next run finishes the job and leaves nothing aside.
        w.run(&["update", "pdf"]).assert_code(0);
        w.run(&["sync", "--frozen"]).assert_code(0);
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["pdf"]);
        // Back to the old version for the next round.
        git(&w.repo, &["revert", "--no-edit", "HEAD"]);
        w.run(&["update", "pdf"]).assert_code(0);
        git(&w.repo, &["revert", "--no-edit", "HEAD"]);
    }
}

#[cfg(unix)]
#[test]
fn plugin_manifests_and_deleted_skills() {
    let w = World::new();
    write(
        &w.repo.join(".claude-plugin/marketplace.json"),
        r#"{"plugins": [{"name": "tools", "source": "./", "skills": ["./.internal/secret"]}]}"#,
    );
    write(
        &w.repo.join(".internal/secret/SKILL.md"),
        &skill_md("secret", "Hidden."),
    );
    w.commit("plugin");
    let listed = w.run(&["add", &w.url(), "--list"]);
    listed.assert_code(0);
    assert!(
        listed.stdout.contains("secret  .internal/secret\n"),
        "{}",
        listed.stdout
    );
    w.run(&["add", &w.url(), "--skill", "secret"])
        .assert_code(0);
    assert!(
        w.lock().contains("path = \".internal/secret\""),
        "{}",
        w.lock()
    );

    // The source deletes it: check says so; the lock still installs the locked commit.
    git(&w.repo, &["rm", "-r", "-q", ".internal"]);
    w.commit("deleted");
    let checked = w.run(&["check"]);
    checked.assert_code(1);
    assert!(
        checked
            .stdout
            .contains("secret: cannot check the source: no skill at `.internal/secret`"),
        "{}",
        checked.stdout
    );
    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    w.run(&["sync"]).assert_code(0);
    assert!(w.project.join(".agents/skills/secret/SKILL.md").is_file());

    // A manifest that is not JSON is named with its line and column.
    write(&w.repo.join(".claude-plugin/plugin.json"), "{ nope");
    w.commit("bad manifest");
    let bad = w.run(&["add", &w.url(), "--list"]);
    bad.assert_code(2);
    assert!(
        bad.stderr.contains("plugin.json:1:3: key must be a"),
        "{}",
        bad.stderr
    );
}

/// `owner/repo/path` and `owner/repo@skill` as GitHub shorthands, served from a local bare
/// repository through git's own `url.<base>.insteadOf` (no network): a path is checked out
/// sparsely, and the lock keeps the GitHub URL.
#[cfg(unix)]
#[test]
fn github_shorthands_with_a_path_check_out_only_that_path() {
    let w = World::new();
    let root = w.repo.parent().unwrap().to_path_buf();
    let bare = root.join("gh/o/r.git");
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        &root,
        &[
            "clone",
            "-q",
            "--bare",
            w.repo.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let config = root.join("gitconfig");
    std::fs::write(
        &config,
        format!(
            "[url \"file://{}/gh/\"]\n\tinsteadOf = https://github.com/\n",
            root.display()
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        skills_with(
            &w.project,
            args,
            &[
                ("HOME", &w.home),
                ("SKILLS_CACHE_DIR", &w.cache),
                ("GIT_CONFIG_GLOBAL", &config),
            ],
        )
    };
    run(&["add", "o/r/skills/pdf"]).assert_code(0);
    let lock = w.lock();
    assert!(
        lock.contains("source = \"o/r/skills/pdf\"\nurl = \"https://github.com/o/r.git\"")
            && lock.contains("path = \"skills/pdf\""),
        "{lock}"
    );
    // Only the path was checked out.
    let checkout = std::fs::read_dir(w.cache.join("git"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    assert!(checkout.join("skills/pdf/SKILL.md").is_file());
    assert!(!checkout.join("skills/docx").exists());

    run(&["add", "o/r@docx"]).assert_code(0);
    assert!(w.project.join(".agents/skills/docx/SKILL.md").is_file());
    assert!(
        checkout.join("skills/docx/SKILL.md").is_file(),
        "a whole checkout again"
    );

    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    run(&["sync"]).assert_code(0);
    run(&["sync", "--frozen"]).assert_code(0);
    assert!(
        w.project
            .join(".agents/skills/pdf/scripts/fill.py")
            .is_file()
    );
}

/// Everything under `dir`, as sorted relative paths: what a command must not change.
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            out.push(path.strip_prefix(root).unwrap().display().to_string());
            if path.is_dir() && !path.is_symlink() {
                walk(&path, root, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A lock arrives with pull requests (issue 33): a tampered one named folders anywhere as
/// skills, and `sync` wrote an attacker's executable git hook into `.git/hooks` before it
/// compared digests; `check` wrote into the folder a name named; `remove ../../important`
/// deleted the project's `important/`. Every such lock is refused when read, with the line
/// and column of the name, before anything is fetched, written or deleted.
#[cfg(unix)]
/// A link in a repository that leads out of its checkout (to the user's own skills, to
/// `/`) is not followed: `add` copied a private skill from HOME and locked it as the
/// repository's, and a link to `/` walked the whole machine.
#[cfg(unix)]
#[test]
fn links_that_leave_the_repository_bring_nothing_in() {
    let w = World::new();
    write(
        &w.home.join(".claude/skills/private/SKILL.md"),
        &skill_md("private", "API_KEY=hunter2"),
    );
    let home_skills = w.home.join(".claude/skills");
    std::os::unix::fs::symlink(&home_skills, w.repo.join("skills/more")).unwrap();
    std::os::unix::fs::symlink("/", w.repo.join("skills/root")).unwrap();
    w.commit("links out");
    let listed = w.run(&["add", &w.url(), "--list"]);
    listed.assert_code(0);
    assert!(listed.stdout.contains("pdf"), "{}", listed.stdout);
    assert!(!listed.stdout.contains("private"), "{}", listed.stdout);
    let added = w.run(&["add", &w.url(), "--all", "--allow-lint-errors"]);
    assert!(
        !w.project.join(".agents/skills/private").exists(),
        "{}",
        added.stderr
    );
    assert!(!w.lock().contains("private"));
}

#[test]
fn a_tampered_lock_writes_and_deletes_nothing_anywhere() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    write(&w.repo.join("hooks/SKILL.md"), &skill_md("hooks", "Hooks."));
    let hook = w.repo.join("hooks/post-checkout");
    write(&hook, "#!/bin/sh\ntouch \"$HOME/pwned\"\n");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.commit("a hook");
    let url = w.url();
    let important = w.project.join("important");
    write(&important.join("keep.txt"), "mine\n");
    let outside = w.project.parent().unwrap().join("x");
    let tmp = w.project.parent().unwrap().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let hooks = w.project.join(".git/hooks");
    let hash = format!("sha256:{}", "0".repeat(64));
    for key in [
        hooks.display().to_string(),
        "../../../x".to_string(),
        "../../important".to_string(),
        "..".to_string(),
    ] {
        std::fs::write(
            w.project.join("skills.lock"),
            format!(
                "version = 1\n\n[skills.\"{key}\"]\nsource = \"{url}\"\nurl = \"{url}\"\npath = \"hooks\"\nhash = \"{hash}\"\n"
            ),
        )
        .unwrap();
        let before = tree(&w.project);
        for args in [
            vec!["sync"],
            vec!["sync", "--frozen"],
            vec!["check"],
            vec!["update"],
            vec!["remove", key.as_str()],
            vec!["add", url.as_str(), "--skill", "hooks"],
        ] {
            let run = skills_with(
                &w.project,
                &args,
                &[
                    ("HOME", &w.home),
                    ("SKILLS_CACHE_DIR", &w.cache),
                    ("TMPDIR", &tmp),
                    ("COLUMNS", Path::new("400")),
                ],
            );
            run.assert_code(2);
            assert!(
                run.stderr.contains("skills.lock:3:9:")
                    && run.stderr.contains("is not a skill name"),
                "{key} {args:?}: {}",
                run.stderr
            );
            assert_eq!(tree(&w.project), before, "{key} {args:?}");
            assert!(!outside.exists() && !w.home.join("pwned").exists());
            assert_eq!(tree(&tmp), Vec::<String>::new(), "{args:?} wrote to TMPDIR");
        }
    }
    assert_eq!(
        std::fs::read_to_string(important.join("keep.txt")).unwrap(),
        "mine\n"
    );
}

/// A path in a lock entry is the skill's folder in its source; one that climbs out of the
/// checkout (`../..`) or is absolute is refused at its value.
#[cfg(unix)]
#[test]
fn a_lock_path_or_url_that_leaves_its_source_is_refused() {
    let w = World::new();
    let hash = format!("sha256:{}", "0".repeat(64));
    for (field, value, at) in [
        ("path", "../../../../etc", "skills.lock:6:8:"),
        ("path", "/etc", "skills.lock:6:8:"),
        ("url", "ext::sh -c touch% /tmp/pwned", "skills.lock:5:7:"),
    ] {
        let mut entry = vec![
            ("source", "o/r".to_string()),
            ("url", w.url()),
            ("path", "skills/pdf".to_string()),
            ("hash", hash.clone()),
        ];
        for (k, v) in &mut entry {
            if *k == field {
                *v = value.to_string();
            }
        }
        let body: String = entry
            .iter()
            .map(|(k, v)| format!("{k} = \"{v}\"\n"))
            .collect();
        std::fs::write(
            w.project.join("skills.lock"),
            format!("version = 1\n\n[skills.pdf]\n{body}"),
        )
        .unwrap();
        let run = w.run(&["sync"]);
        run.assert_code(2);
        assert!(
            run.stderr.contains(at) && run.stderr.contains(&format!("`{field}` of `pdf`")),
            "{field}: {}",
            run.stderr
        );
        assert!(!w.project.join(".agents").exists());
    }
}

/// A lock's `registry` is where `sync`, `check` and `update` send requests (and, when it is
/// the configured registry, the token): one that is not a plain http(s) URL of at most
/// 2048 bytes, or that carries credentials, is refused at its value with the fix, and
/// nothing is fetched or written.
#[cfg(unix)]
#[test]
fn a_hostile_registry_in_a_lock_is_refused() {
    let w = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let hash = format!("sha256:{}", "0".repeat(64));
    for value in [
        format!("http://alice:hunter2@127.0.0.1:{port}"),
        "file:///etc/passwd".to_string(),
        format!("http://127.0.0.1:{port}/?next=x"),
        format!("http://127.0.0.1:{port}/{}", "x".repeat(3000)),
    ] {
        std::fs::write(
            w.project.join("skills.lock"),
            format!(
                "version = 1\n\n[skills.demo]\nsource = \"demo\"\nregistry = \"{value}\"\nhash = \"{hash}\"\n"
            ),
        )
        .unwrap();
        for command in ["sync", "check", "update"] {
            let run = w.run(&[command]);
            run.assert_code(2);
            assert!(
                run.stderr.contains("skills.lock:5:12: `registry` of `demo` must be the http(s) URL of a skills registry")
                    && run.stderr.contains("set it to the registry's URL"),
                "{command} {value}: {}",
                run.stderr
            );
        }
        assert!(!w.project.join(".agents").exists());
    }
    assert_eq!(
        listener.accept().map_err(|e| e.kind()).err(),
        Some(std::io::ErrorKind::WouldBlock),
        "something connected to the locked registry"
    );
}

/// A lock that is a link to `/dev/zero` (git can commit one) is refused, not read forever.
#[cfg(unix)]
#[test]
fn a_lock_that_is_not_a_regular_file_is_refused() {
    let w = World::new();
    std::os::unix::fs::symlink("/dev/zero", w.project.join("skills.lock")).unwrap();
    for args in [vec!["sync"], vec!["check"], vec!["list"]] {
        let run = w.run(&args);
        if args == ["list"] {
            // `list` only reads the lock for its SOURCE column: it lists, and says why not.
            run.assert_code(0);
            continue;
        }
        run.assert_code(2);
        assert!(
            run.stderr.contains("not a regular file"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// `.agents` committed as a symbolic link to a folder of the user's: `add` and `sync` would
/// write skills there. They refuse, naming the link's target, and write nothing.
#[cfg(unix)]
#[test]
fn a_project_folder_linked_out_of_the_project_is_not_written_through() {
    let w = World::new();
    let elsewhere = w.project.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, w.project.join(".agents")).unwrap();
    let run = w.run(&["add", &w.url(), "--skill", "pdf"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("leads outside the project") && run.stderr.contains("elsewhere"),
        "{}",
        run.stderr
    );
    assert_eq!(tree(&elsewhere), Vec::<String>::new());
    // An agent's folder too.
    std::fs::remove_file(w.project.join(".agents")).unwrap();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, w.project.join(".claude/skills")).unwrap();
    let run = w.run(&["add", &w.url(), "--skill", "pdf", "--agent", "claude-code"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("leads outside the project"),
        "{}",
        run.stderr
    );
    assert_eq!(tree(&elsewhere), Vec::<String>::new());
}

/// Two `skills add` runs at once in one project: each waits for the other's lock, so every
/// skill either installed is in `skills.lock` (50 installed and 25 locked before).
#[cfg(unix)]
#[test]
fn two_adds_at_once_lock_every_skill_they_install() {
    let w = World::new();
    for i in 0..40 {
        write(
            &w.repo.join(format!("many/s{i:02}/SKILL.md")),
            &skill_md(&format!("s{i:02}"), "Many."),
        );
    }
    w.commit("many");
    let spawn = |range: std::ops::Range<usize>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
        command
            .current_dir(&w.project)
            // A directory source: no repository cache lock to take turns on.
            .args(["add", &w.repo.join("many").display().to_string()])
            .env("HOME", &w.home)
            .env("SKILLS_CACHE_DIR", &w.cache)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        for i in range {
            command.args(["--skill", &format!("s{i:02}")]);
        }
        command.spawn().unwrap()
    };
    let (a, b) = (spawn(0..20), spawn(20..40));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let lock = w.lock();
    for i in 0..40 {
        assert!(
            lock.contains(&format!("[skills.s{i:02}]")),
            "s{i:02} missing:\n{lock}"
        );
    }
    w.run(&["sync", "--frozen"]).assert_code(0);
}

/// A `skills add` killed after it put a skill in place and before it wrote the lock: the
/// next run recognises the same files and finishes the job instead of asking for --force.
#[cfg(unix)]
#[test]
fn an_add_killed_before_its_lock_is_finished_by_the_next_run() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&[
        "add",
        &w.url(),
        "--skill",
        "pdf",
        "--copy",
        "--agent",
        "claude-code",
    ])
    .assert_code(0);
    // What the kill leaves: the skill and its copy in place, no lock.
    std::fs::remove_file(w.project.join("skills.lock")).unwrap();
    let again = w.run(&[
        "add",
        &w.url(),
        "--skill",
        "pdf",
        "--copy",
        "--agent",
        "claude-code",
    ]);
    again.assert_code(0);
    assert!(w.lock().contains("[skills.pdf]"), "{}", w.lock());
    // A skill of the same name that is not the same files is still the user's own.
    std::fs::remove_file(w.project.join("skills.lock")).unwrap();
    write(
        &w.project.join(".agents/skills/pdf/SKILL.md"),
        &skill_md("pdf", "Mine."),
    );
    let mine = w.run(&["add", &w.url(), "--skill", "pdf"]);
    mine.assert_code(2);
    assert!(mine.stderr.contains("--force"), "{}", mine.stderr);
}

/// A hand edit in an agent's copy (`--copy`): `sync --frozen` and `check` both say it is
/// modified (one said "not in the folder", the other "up to date"); `sync` names the file
/// and keeps it unless --force.
#[cfg(unix)]
#[test]
fn an_edited_agent_copy_is_modified_for_sync_and_check_alike() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&[
        "add",
        &w.url(),
        "--skill",
        "pdf",
        "--copy",
        "--agent",
        "claude-code",
    ])
    .assert_code(0);
    let copy = w.project.join(".claude/skills/pdf/scripts/fill.py");
    std::fs::write(&copy, "print('mine')\n").unwrap();
    let frozen = w.run(&["sync", "--frozen"]);
    frozen.assert_code(1);
    assert!(
        frozen
            .stderr
            .contains("drift: pdf: modified in Claude Code's folder (.claude/skills/pdf)"),
        "{}",
        frozen.stderr
    );
    let check = w.run(&["check"]);
    check.assert_code(1);
    assert_eq!(check.stdout, "pdf: modified in Claude Code's folder\n");
    let sync = w.run(&["sync"]);
    sync.assert_code(1);
    assert!(
        sync.stderr.contains("scripts/fill.py") && sync.stderr.contains("--force"),
        "{}",
        sync.stderr
    );
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), "print('mine')\n");
    w.run(&["sync", "--force"]).assert_code(0);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), "print('fill')\n");
    w.run(&["check"]).assert_code(0);
}

/// `check`, `update` and `sync` of many skills from one repository fetch it once (check of
/// 511 skills printed 511 `fetching` lines and took 8 minutes).
#[cfg(unix)]
#[test]
fn many_skills_from_one_source_are_fetched_once_a_run() {
    let w = World::new();
    for i in 0..30 {
        write(
            &w.repo.join(format!("many/s{i:02}/SKILL.md")),
            &skill_md(&format!("s{i:02}"), "Many."),
        );
    }
    w.commit("many");
    w.run(&["add", &w.url(), "--all"]).assert_code(1); // broken is refused
    for args in [vec!["check"], vec!["update"]] {
        let run = w.run(&args);
        run.assert_code(0);
        assert_eq!(
            run.stderr.matches("fetching ").count(),
            1,
            "{args:?}: {}",
            run.stderr
        );
    }
    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    let sync = w.run(&["sync"]);
    sync.assert_code(0);
    assert_eq!(
        sync.stderr.matches("fetching ").count(),
        1,
        "{}",
        sync.stderr
    );
    assert!(
        sync.stdout.starts_with("32 skill(s) match"),
        "{}",
        sync.stdout
    );
}

/// What `skills add` lays out (the canonical copy, a link for one agent, a copy for another)
/// is one skill to every command: `lint --strict` passes and counts it once (it reported
/// `duplicate-name` and exited 1), `list --all` shows it once, not shadowed by itself.
#[cfg(unix)]
#[test]
fn what_add_lays_out_is_one_skill_to_lint_and_list() {
    let w = World::new();
    std::fs::create_dir_all(w.project.join(".claude")).unwrap();
    w.run(&["add", &w.url(), "--skill", "pdf", "--agent", "claude-code"])
        .assert_code(0);
    w.run(&[
        "add",
        &w.url(),
        "--skill",
        "pdf",
        "--copy",
        "--agent",
        "windsurf",
    ])
    .assert_code(0);
    let lint = w.run(&["lint", "--strict"]);
    lint.assert_code(0);
    assert!(
        lint.stdout
            .contains("checked 1 skill: 0 errors, 0 warnings"),
        "{}{}",
        lint.stdout,
        lint.stderr
    );
    let list = w.run(&["list", "--all", "--format", "json"]);
    list.assert_code(0);
    let doc: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    let skills = doc["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{}", list.stdout);
}

/// `--copy` says the agents got copies (it said "linked into"); a misspelt `--agent` is
/// refused before the fetch, with a did-you-mean; `./repo@skill` picks one skill of a local
/// directory as `owner/repo@skill` does (it was "No such file or directory").
#[cfg(unix)]
#[test]
fn copies_are_called_copies_agents_are_checked_first_and_local_at_skill_works() {
    let w = World::new();
    let copied = w.run(&[
        "add",
        &w.url(),
        "--skill",
        "pdf",
        "--copy",
        "--agent",
        "claude-code",
        "--agent",
        "windsurf",
    ]);
    copied.assert_code(0);
    assert!(
        copied
            .stdout
            .contains("(copied into claude-code, windsurf)"),
        "{}",
        copied.stdout
    );
    let misspelt = w.run(&["add", &w.url(), "--skill", "docx", "--agent", "claud-code"]);
    misspelt.assert_code(2);
    assert!(
        misspelt.stderr.contains("did you mean `claude-code`?")
            && !misspelt.stderr.contains("fetching"),
        "{}",
        misspelt.stderr
    );
    let local = format!("{}@docx", w.repo.join("skills").display());
    let added = w.run(&["add", &local]);
    added.assert_code(0);
    assert!(
        added.stdout.starts_with("added docx -> "),
        "{}",
        added.stdout
    );
    assert!(w.project.join(".agents/skills/docx/SKILL.md").is_file());
}

/// A skill `skills install` put in `.agents/skills` has no lock entry: `skills remove` takes
/// it away all the same (it said "not in skills.lock", and nothing else could); an unknown
/// name still gets a did-you-mean.
#[cfg(unix)]
#[test]
fn remove_takes_away_a_skill_install_put_there() {
    let w = World::new();
    let docx = w.repo.join("skills/docx").display().to_string();
    w.run(&["install", &docx]).assert_code(0);
    assert!(w.project.join(".agents/skills/docx/SKILL.md").is_file());
    let typo = w.run(&["remove", "dcx"]);
    typo.assert_code(2);
    assert!(
        typo.stderr.contains("did you mean `docx`?"),
        "{}",
        typo.stderr
    );
    let removed = w.run(&["remove", "docx"]);
    removed.assert_code(0);
    assert_eq!(
        removed.stdout,
        "removed docx from .agents/skills (it was not in the lock)\n"
    );
    assert!(!w.project.join(".agents/skills/docx").exists());
}

/// 45 of 559 real skills could not be added at all: the project's `[lint]` settings now
/// apply (what it allows is no error), `--list` says which skills would be refused and why,
/// and `--allow-lint-errors` installs one with its errors counted and locked, so `sync`
/// puts that version back without asking.
#[cfg(unix)]
#[test]
fn lint_errors_follow_the_projects_settings_and_can_be_accepted() {
    let w = World::new();
    let listed = w.run(&["add", &w.url(), "--list"]);
    listed.assert_code(0);
    assert!(
        listed
            .stdout
            .starts_with("broken  skills/broken  (refused: lint errors: "),
        "{}",
        listed.stdout
    );
    let refused = w.run(&["add", &w.url(), "--skill", "broken"]);
    refused.assert_code(1);
    assert!(
        refused.stderr.contains("--allow-lint-errors"),
        "{}",
        refused.stderr
    );
    // Named in the source, not in the repository cache.
    let unwrapped = crate::unwrapped(&refused.stderr);
    assert!(
        unwrapped.contains(&format!("{}:skills/broken/SKILL.md", w.url()))
            && !unwrapped.contains(&w.cache.display().to_string()),
        "{}",
        refused.stderr
    );
    let accepted = w.run(&["add", &w.url(), "--skill", "broken", "--allow-lint-errors"]);
    accepted.assert_code(0);
    assert!(
        accepted
            .stderr
            .contains("lint error(s); added as --allow-lint-errors asks"),
        "{}",
        accepted.stderr
    );
    assert!(w.lock().contains("lint_errors = "), "{}", w.lock());
    std::fs::remove_dir_all(w.project.join(".agents")).unwrap();
    w.run(&["sync"]).assert_code(0);
    assert!(w.project.join(".agents/skills/broken/SKILL.md").is_file());

    // A project that allows what the skill breaks takes it without the flag.
    let other = World::new();
    let rules: Vec<String> = listed
        .stdout
        .lines()
        .next()
        .unwrap()
        .split("lint errors: ")
        .nth(1)
        .unwrap()
        .trim_end_matches(')')
        .split(", ")
        .map(|r| format!("\"{r}\""))
        .collect();
    std::fs::write(
        other.project.join("skills.toml"),
        format!("[lint]\nallow = [{}]\n", rules.join(", ")),
    )
    .unwrap();
    other
        .run(&["add", &other.url(), "--skill", "broken"])
        .assert_code(0);
}

/// `add --all` over a collection says one line per refused skill and a total at the end
/// (over 559 skills it wrote 1,806 lines, a report and "checked 1 skill" per refused one,
/// and no total).
#[cfg(unix)]
#[test]
fn add_all_says_one_line_per_refused_skill_and_a_total() {
    let w = World::new();
    let run = w.run(&["add", &w.url(), "--all"]);
    run.assert_code(1);
    let refused: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(refused.len(), 1, "{}", run.stderr);
    assert!(
        refused[0].starts_with("error: broken not added: lint errors: name-")
            && refused[0].ends_with(&format!("({}:skills/broken/SKILL.md)", w.url())),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("checked 1 skill"), "{}", run.stderr);
    assert!(
        run.stderr
            .lines()
            .last()
            .unwrap()
            .starts_with("added 2 skill(s), 1 refused (the lines above say why)"),
        "{}",
        run.stderr
    );
}

/// Two skills of one source that install under one name (a real collection held two
/// `internal-comms`): `add --all` added both, the second over the first, and locked one.
/// The first is added, the second refused naming both.
#[cfg(unix)]
#[test]
fn two_skills_of_one_name_in_a_source_are_not_added_over_each_other() {
    let w = World::new();
    write(
        &w.repo.join("more/pdf/SKILL.md"),
        &skill_md("pdf", "Another pdf."),
    );
    w.commit("two pdfs");
    let run = w.run(&["add", &w.url(), "--all"]);
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("error: pdf not added from skills/pdf: more/pdf in the source has that name too, and was added"),
        "{}",
        run.stderr
    );
    assert!(
        std::fs::read_to_string(w.project.join(".agents/skills/pdf/SKILL.md"))
            .unwrap()
            .contains("Another pdf."),
        "the first in the source's order stays"
    );
}

/// `--all --allow-lint-errors` says of each skill with errors that it was added, not that
/// it was not (it printed "not added" for the 46 skills it then added).
#[cfg(unix)]
#[test]
fn add_all_with_allow_lint_errors_says_added_not_refused() {
    let w = World::new();
    let run = w.run(&["add", &w.url(), "--all", "--allow-lint-errors"]);
    run.assert_code(0);
    assert!(!run.stderr.contains("not added"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: broken has lint errors: name-")
            && run.stderr.lines().last().unwrap() == "added 3 skill(s)",
        "{}",
        run.stderr
    );
}

/// Every agent npm `skills` installs into is covered (it was 12 of about 80): a newly
/// covered agent's folder in the project is found and linked; agents that share a folder
/// get one link and both are locked; `CLAUDE_CONFIG_DIR` moves Claude Code's global folder;
/// an agent without a global folder is refused with `--global`; a misspelt id of a new
/// agent gets a did-you-mean.
#[cfg(unix)]
#[test]
fn every_agent_of_npm_skills_is_covered() {
    let w = World::new();
    let url = w.url();
    for dir in [".kiro", ".trae", ".tabnine"] {
        std::fs::create_dir_all(w.project.join(dir)).unwrap();
    }
    let added = w.run(&["add", &url, "--skill", "pdf"]);
    added.assert_code(0);
    assert!(
        added
            .stdout
            .contains("(linked into kiro-cli, tabnine-cli, trae)\n"),
        "{}",
        added.stdout
    );
    for (at, to) in [
        (".kiro/skills/pdf", "../../.agents/skills/pdf"),
        (".trae/skills/pdf", "../../.agents/skills/pdf"),
        (".tabnine/agent/skills/pdf", "../../../.agents/skills/pdf"),
    ] {
        assert_eq!(link(&w.project.join(at)), Path::new(to), "{at}");
    }

    // Trae and Trae CN read .trae/skills: one link, both agents locked.
    let both = w.run(&[
        "add", &url, "--skill", "docx", "--agent", "trae", "--agent", "trae-cn",
    ]);
    both.assert_code(0);
    assert!(
        both.stdout.contains("(linked into trae, trae-cn)\n"),
        "{}",
        both.stdout
    );
    assert!(
        w.lock().contains("agents = [\"trae\", \"trae-cn\"]"),
        "{}",
        w.lock()
    );
    w.run(&["sync", "--frozen"]).assert_code(0);
    let removed = w.run(&["remove", "docx"]);
    removed.assert_code(0);
    assert!(!w.project.join(".trae/skills/docx").exists());

    // Claude Code's folder is where CLAUDE_CONFIG_DIR says, and its presence there is what
    // says Claude Code is used.
    let claude = w.home.join("config/claude");
    std::fs::create_dir_all(&claude).unwrap();
    let global = w.run_with(
        &w.project,
        &["add", &url, "--skill", "pdf", "--global"],
        &[("CLAUDE_CONFIG_DIR", &claude)],
    );
    global.assert_code(0);
    assert!(
        global.stdout.contains("(linked into claude-code)\n"),
        "{}",
        global.stdout
    );
    assert_eq!(
        link(&claude.join("skills/pdf")),
        Path::new("../../../.agents/skills/pdf")
    );
    assert!(!w.home.join(".claude").exists());

    let eve = w.run(&["add", &url, "--skill", "pdf", "--global", "--agent", "eve"]);
    eve.assert_code(2);
    assert!(
        eve.stderr.contains("reads skills in a project only"),
        "{}",
        eve.stderr
    );
    let misspelt = w.run(&["add", &url, "--skill", "pdf", "--agent", "mistral-vib"]);
    misspelt.assert_code(2);
    assert!(
        misspelt.stderr.contains("did you mean `mistral-vibe`?"),
        "{}",
        misspelt.stderr
    );
}
