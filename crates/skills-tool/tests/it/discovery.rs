//! `skills list` and `skills show` through the real binary, on home and project trees built
//! in a temporary directory.
//!
//! Every run gets `HOME` pointing into the temporary tree, `SKILLS_PATH` removed and a
//! temporary project as its working directory, so nothing here reads the real home or the
//! repository's own `.agents/skills`. The tree of [`Tree::standard`]:
//!
//! ```text
//! [BASE]/
//!   .agents/skills/outside/          above the repository root: never found
//!   home/                            $HOME
//!     .agents/skills/pdf-processing/ shadowed by the project's
//!     .claude/skills/git-commit/     a long description, cut in the table
//!   project/                         the working directory
//!     .git/                          the repository root: walking up stops here
//!     .agents/skills/
//!       pdf-processing/              SKILL.md, scripts/, references/, assets/, LICENSE.txt
//!       deploy.md                    a flat skill
//!       README.md                    documentation, not a skill
//!       notes.md                     no frontmatter: skipped
//!       broken/SKILL.md              no description: skipped
//!     .claude/skills/review/         a description with `<`, `&` and quotes
//! ```
//!
//! Outputs are snapshotted with the temporary paths replaced by `[HOME]`, `[PROJECT]` and
//! `[BASE]`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::{Run, regex_escape};

/// A temporary home and project.
pub(crate) struct Tree {
    _tmp: tempfile::TempDir,
    /// The temporary directory (canonical), parent of `home` and `project`.
    base: PathBuf,
    home: PathBuf,
    project: PathBuf,
}

const PDF_MD: &str = "\
---
name: pdf-processing
description: Extract text and tables from PDF files, fill PDF forms. Use when the user sends a PDF or asks about forms.
license: Apache-2.0. See LICENSE.txt
compatibility: Requires python3 and the pypdf package
allowed-tools: Read Bash(python3:*) Bash(pdftotext:*,qpdf)
metadata:
  author: example-org
  version: \"1.2\"
  tags: pdf, forms
---
# PDF processing

Run `scripts/fill_form.py` to fill a form; field names are in
[the forms reference](references/FORMS.md).
";

const DEPLOY_MD: &str = "\
---
description: Deploy the application to staging or production. Use when asked to deploy.
---
# Deploy

Run the pipeline.
";

const REVIEW_MD: &str = "\
---
name: review
description: Review a diff for <script> tags & \"quoted\" 'strings'. Use when asked to review.
---
# Review
";

const GIT_MD: &str = "\
---
name: git-commit
description: Write a commit message that follows the repository's conventions, stage the right files, and commit; never push unless asked. Use when the user asks to commit.
---
# Git commit
";

/// A minimal valid `SKILL.md`.
fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

impl Tree {
    /// An empty home and an empty project (with `.git`).
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let home = base.join("home");
        let project = base.join("project");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(project.join(".git")).unwrap();
        Self {
            _tmp: tmp,
            base,
            home,
            project,
        }
    }

    /// The tree of the module documentation.
    pub(crate) fn standard() -> Self {
        let t = Self::new();
        let pdf = t.project.join(".agents/skills/pdf-processing");
        t.write(&pdf.join("SKILL.md"), PDF_MD);
        t.write(
            &pdf.join("scripts/fill_form.py"),
            "#!/usr/bin/env python3\nprint('fill')\n",
        );
        t.write(
            &pdf.join("references/FORMS.md"),
            "# Forms\n\nField names.\n",
        );
        t.write(&pdf.join("assets/template.txt"), "Name: ____\n");
        t.write(&pdf.join("LICENSE.txt"), "Apache License 2.0\n");
        let root = t.project.join(".agents/skills");
        t.write(&root.join("deploy.md"), DEPLOY_MD);
        t.write(&root.join("README.md"), "# My skills\n\nNot a skill.\n");
        t.write(&root.join("notes.md"), "# Notes\n\nNo frontmatter here.\n");
        t.write(
            &root.join("broken/SKILL.md"),
            "---\nname: broken\n---\n# Broken\n",
        );
        t.write(&t.project.join(".claude/skills/review/SKILL.md"), REVIEW_MD);
        t.write(
            &t.home.join(".agents/skills/pdf-processing/SKILL.md"),
            &skill_md(
                "pdf-processing",
                "The global copy of the PDF skill. Use when there is no project one.",
            ),
        );
        t.write(&t.home.join(".claude/skills/git-commit/SKILL.md"), GIT_MD);
        t.write(
            &t.base.join(".agents/skills/outside/SKILL.md"),
            &skill_md("outside", "Above the repository. Use never."),
        );
        t
    }

    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Writes `dir/SKILL.md` with a minimal skill named after `dir`.
    fn skill(&self, dir: &Path, description: &str) {
        let name = dir.file_name().unwrap().to_str().unwrap();
        self.write(&dir.join("SKILL.md"), &skill_md(name, description));
    }

    /// Runs `skills ARGS` in `cwd` with this tree's home, no `SKILLS_PATH`, no colors and 100
    /// columns.
    fn output(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("skills");
        cmd.current_dir(cwd)
            .args(args)
            .env("HOME", &self.home)
            .env_remove("SKILLS_PATH")
            .env_remove("USERPROFILE")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR")
            .timeout(Duration::from_secs(60));
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn run_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let output = self.output(cwd, args, env);
        Run {
            command: format!("skills {}", args.join(" ")),
            code: output.status.code().expect("killed by a signal"),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// Runs `skills ARGS` in the project root.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_env(&self.project, args, &[])
    }

    /// Snapshots `text` with the temporary paths replaced by placeholders.
    fn snapshot(&self, name: &str, command: &str, text: &str) {
        let mut settings = insta::Settings::clone_current();
        settings.set_description(command);
        settings.set_omit_expression(true);
        settings.add_filter(&regex_escape(&self.home.to_string_lossy()), "[HOME]");
        settings.add_filter(&regex_escape(&self.project.to_string_lossy()), "[PROJECT]");
        settings.add_filter(&regex_escape(&self.base.to_string_lossy()), "[BASE]");
        settings.bind(|| insta::assert_snapshot!(name, text));
    }
}

/// The ids of a `list --format json` document's skills, with `*` after shadowed ones.
fn listed(doc: &Value) -> Vec<String> {
    doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap();
            if s["shadowed_by"].is_null() {
                id.to_string()
            } else {
                format!("{id}*")
            }
        })
        .collect()
}

/// `(id, reason)` of a `list --format json` document's skipped skills.
fn skipped(doc: &Value) -> Vec<(String, String)> {
    doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The first column of a `list` table, header left out.
fn table_ids(table: &str) -> Vec<&str> {
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect()
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

// `skills list`.

#[test]
fn list_table_is_sorted_by_priority_then_id() {
    let t = Tree::standard();
    let run = t.run(&["list"]);
    run.assert_code(0);
    assert_eq!(
        table_ids(&run.stdout),
        ["deploy", "pdf-processing", "review", "git-commit"]
    );
    // Source: scope and root, relative to the project, or `~/` under the home.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("ID "), "{}", run.stdout);
    assert!(lines[2].ends_with("project .agents/skills"), "{}", lines[2]);
    assert!(lines[3].ends_with("project .claude/skills"), "{}", lines[3]);
    assert!(
        lines[4].ends_with("global ~/.claude/skills"),
        "{}",
        lines[4]
    );
    // Shadowed and skipped skills are left out, with a note on stderr.
    assert_eq!(
        run.stderr,
        "note: 1 shadowed and 2 skipped skills not shown; `skills list --all` lists them\n"
    );
    assert!(!run.stdout.contains("outside"));
    t.snapshot("list_table", &run.command, &run.stdout);
}

#[test]
fn list_table_cuts_descriptions_to_columns() {
    let t = Tree::standard();
    for columns in [40, 50, 60, 70, 100, 200] {
        let run = t.run_env(&t.project, &["list"], &[("COLUMNS", &columns.to_string())]);
        run.assert_code(0);
        assert_fits(&run.stdout, columns);
        let git = run
            .stdout
            .lines()
            .find(|l| l.starts_with("git-commit"))
            .unwrap();
        if columns == 200 {
            assert!(git.contains("Use when the user asks to commit."), "{git}");
            assert!(!git.contains('…'), "{git}");
        } else {
            assert!(git.contains("Write a commit"), "{git}");
            assert!(git.contains('…'), "{git}");
        }
    }
    // Narrower, as `ls` does: the source is cut from its start, then left out; no line
    // is wider than the terminal.
    let run = t.run_env(&t.project, &["list"], &[("COLUMNS", "60")]);
    let git = run
        .stdout
        .lines()
        .find(|l| l.starts_with("git-commit"))
        .unwrap();
    assert!(git.contains("  Write a commit message that…  …"), "{git}");
    let run = t.run_env(&t.project, &["list"], &[("COLUMNS", "40")]);
    assert!(!run.stdout.contains("SOURCE"), "{}", run.stdout);
}

/// Every line of `text` fits in `columns` terminal columns (a CJK character takes two).
#[track_caller]
fn assert_fits(text: &str, columns: usize) {
    use unicode_width::UnicodeWidthStr as _;
    for line in text.lines() {
        assert!(
            line.width() <= columns,
            "{columns} columns: {} in\n{line}\n{text}",
            line.width()
        );
    }
}

/// The table at 60, 100 and 160 columns, with a description in Japanese (two columns a
/// character: measured by characters, its rows overflowed the terminal) and a skill
/// `skills add` installed, whose source is long (at 160 columns the description was cut to
/// 20 columns while the source took the rest).
#[test]
fn list_fits_60_100_and_160_columns() {
    let t = Tree::new();
    let root = t.project.join(".agents/skills");
    t.skill(
        &root.join("pdf-forms-ja"),
        "PDFのフォームに記入し、表とテキストを抽出します。PDFが送られたとき、またはフォームについて聞かれたときに使います。",
    );
    t.skill(
        &root.join("git-commit"),
        "Write a commit message that follows the repository's conventions, stage the right files, and commit; never push unless asked. Use when the user asks to commit.",
    );
    t.skill(&root.join("deploy"), "Deploy to staging. Use when asked.");
    t.write(
        &t.project.join("skills.lock"),
        &format!(
            "version = 1\n\n[skills.git-commit]\nsource = \"acme-corporation/agent-skills\"\n\
             path = \"skills/git-commit\"\nhash = \"sha256:{}\"\n\
             agents = [\"claude-code\", \"cursor\", \"windsurf\", \"goose\"]\n",
            "0".repeat(64)
        ),
    );
    for columns in [60, 100, 160] {
        let run = t.run_env(&t.project, &["list"], &[("COLUMNS", &columns.to_string())]);
        run.assert_code(0).assert_quiet();
        assert_fits(&run.stdout, columns);
        t.snapshot(
            &format!("list_{columns}_columns"),
            &format!("COLUMNS={columns} {}", run.command),
            &run.stdout,
        );
    }
    // docs/discovery.md shows the 60 columns, run by doc_examples.rs on the same skills
    // (testdata/docs/discovery).
    // At 160 columns the description has the room: the whole of a long English one, and
    // the source of the installed skill is what is cut.
    let run = t.run_env(&t.project, &["list"], &[("COLUMNS", "160")]);
    let git = run
        .stdout
        .lines()
        .find(|l| l.starts_with("git-commit"))
        .unwrap();
    assert!(git.contains("stage the right files"), "{git}");
    assert!(
        git.ends_with("  project .agents/skills <- acme-corporation/agen…"),
        "{git}"
    );
}

#[test]
fn list_all_adds_shadowed_and_skipped_with_the_reason() {
    let t = Tree::standard();
    let run = t.run(&["list", "--all"]);
    run.assert_code(0).assert_quiet();
    assert_eq!(
        table_ids(&run.stdout),
        [
            "deploy",
            "pdf-processing",
            "review",
            "pdf-processing",
            "git-commit",
            "broken",
            "notes"
        ]
    );
    let shadowed = run.stdout.lines().nth(4).unwrap();
    assert!(
        shadowed.contains("[shadowed by .agents/skills/pdf-processing/SKILL.md]"),
        "{shadowed}"
    );
    assert!(shadowed.ends_with("global ~/.agents/skills"), "{shadowed}");
    assert!(
        run.stdout.contains("[skipped: missing description]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("[skipped: no frontmatter"),
        "{}",
        run.stdout
    );
    t.snapshot("list_all_table", &run.command, &run.stdout);
}

#[test]
fn list_json() {
    let t = Tree::standard();
    let run = t.run(&["list", "--format", "json"]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(
        listed(&doc),
        ["deploy", "pdf-processing", "review", "git-commit"]
    );
    // The six default roots: the project's, then the home's.
    let roots: Vec<(&str, &str)> = doc["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap(), r["scope"].as_str().unwrap()))
        .collect();
    let p = |s: &str| t.project.join(s).to_str().unwrap().to_string();
    let h = |s: &str| t.home.join(s).to_str().unwrap().to_string();
    assert_eq!(
        roots,
        [
            (p(".agents/skills").as_str(), "project"),
            (p(".agent/skills").as_str(), "project"),
            (p(".claude/skills").as_str(), "project"),
            (h(".agents/skills").as_str(), "global"),
            (h(".agent/skills").as_str(), "global"),
            (h(".claude/skills").as_str(), "global"),
        ]
    );
    // Every field of a skill; the schema is the same for every skill.
    let deploy = &doc["skills"][0];
    assert_eq!(deploy["id"], "deploy");
    assert_eq!(
        deploy["name"], "deploy",
        "a flat skill's name defaults to its id"
    );
    assert_eq!(deploy["path"], p(".agents/skills/deploy.md"));
    assert_eq!(deploy["base_dir"], p(".agents/skills"));
    assert_eq!(deploy["root"], p(".agents/skills"));
    assert_eq!(deploy["scope"], "project");
    assert!(deploy["shadowed_by"].is_null());
    for skill in doc["skills"].as_array().unwrap() {
        let keys: Vec<&String> = skill.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "id",
                "name",
                "description",
                "path",
                "base_dir",
                "root",
                "scope",
                "shadowed_by",
                "installed"
            ]
        );
    }
    // Skipped skills are always in the document, with the reason.
    assert_eq!(
        skipped(&doc),
        [
            ("broken".to_string(), "missing description".to_string()),
            (
                "notes".to_string(),
                "no frontmatter, so not a skill (a flat skill file starts with `---`)".to_string()
            )
        ]
    );
    let broken = &doc["skipped"][0];
    assert_eq!(broken["path"], p(".agents/skills/broken/SKILL.md"));
    assert_eq!(broken["root"], p(".agents/skills"));
    assert_eq!(broken["scope"], "project");
    t.snapshot("list_json", &run.command, &run.stdout);

    // --all adds the shadowed skill, pointing at its winner.
    let run = t.run(&["list", "--all", "--format", "json"]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(
        listed(&doc),
        [
            "deploy",
            "pdf-processing",
            "review",
            "pdf-processing*",
            "git-commit"
        ]
    );
    let shadowed = &doc["skills"][3];
    assert_eq!(shadowed["scope"], "global");
    assert_eq!(
        shadowed["path"],
        h(".agents/skills/pdf-processing/SKILL.md")
    );
    assert_eq!(
        shadowed["shadowed_by"],
        p(".agents/skills/pdf-processing/SKILL.md")
    );
    t.snapshot("list_all_json", &run.command, &run.stdout);
}

#[test]
fn list_xml_is_the_escaped_catalog() {
    let t = Tree::standard();
    let run = t.run(&["list", "--format", "xml"]);
    run.assert_code(0).assert_quiet();
    assert!(run.stdout.starts_with("<available_skills>\n"));
    assert!(run.stdout.ends_with("</available_skills>\n"));
    assert_eq!(run.stdout.matches("<skill>").count(), 4, "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "<description>Review a diff for &lt;script&gt; tags &amp; &quot;quoted&quot; &apos;strings&apos;. Use when asked to review.</description>"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("<script>"));
    let location = format!(
        "<location>{}</location>",
        path_str(&t.project.join(".agents/skills/pdf-processing/SKILL.md"))
    );
    assert!(run.stdout.contains(&location), "{}", run.stdout);
    t.snapshot("list_xml", &run.command, &run.stdout);
}

#[test]
fn list_without_skills_names_the_roots_and_exits_0() {
    let t = Tree::new();
    let run = t.run(&["list"]);
    run.assert_code(0);
    assert_eq!(run.stdout, "");
    for root in [
        ".agents/skills (project)",
        ".claude/skills (project)",
        "~/.agents/skills (global)",
        "~/.claude/skills (global)",
    ] {
        assert!(run.stderr.contains(root), "{root} in\n{}", run.stderr);
    }
    t.snapshot("list_nothing_found", &run.command, &run.stderr);

    // JSON: an empty list, still with the roots; XML: nothing at all.
    let run = t.run(&["list", "--format", "json"]);
    run.assert_code(0);
    let doc = run.json();
    assert_eq!(doc["skills"], Value::Array(Vec::new()));
    assert_eq!(doc["skipped"], Value::Array(Vec::new()));
    assert_eq!(doc["roots"].as_array().unwrap().len(), 6);
    let run = t.run(&["list", "--format", "xml"]);
    run.assert_code(0);
    assert_eq!(run.stdout, "");
}

#[test]
fn project_skills_win_over_global_ones() {
    let t = Tree::standard();
    let doc = t.run(&["list", "--format", "json"]).json();
    let pdf = &doc["skills"][1];
    assert_eq!(pdf["id"], "pdf-processing");
    assert_eq!(pdf["scope"], "project");
    // Within a scope, .agents/skills before .agent/skills before .claude/skills.
    t.skill(
        &t.project.join(".claude/skills/deploy"),
        "Claude's deploy. Use never.",
    );
    t.skill(
        &t.project.join(".agent/skills/review"),
        "Legacy review. Use when asked.",
    );
    let doc = t.run(&["list", "--all", "--format", "json"]).json();
    assert_eq!(
        listed(&doc),
        [
            "deploy",
            "pdf-processing",
            "review",
            "deploy*",
            "review*",
            "pdf-processing*",
            "git-commit"
        ]
    );
    assert_eq!(
        doc["skills"][2]["root"],
        path_str(&t.project.join(".agent/skills"))
    );
    // Shown as the project's too.
    let run = t.run(&["show", "PDF-Processing"]);
    run.assert_code(0);
    assert_eq!(run.stdout, PDF_MD);
}

#[test]
fn walks_up_from_a_subdirectory_to_the_repository_root() {
    let t = Tree::standard();
    let sub = t.project.join("a/b");
    fs::create_dir_all(&sub).unwrap();
    // A skill in a directory between the working directory and the repository root ranks
    // above the root's.
    t.skill(
        &t.project.join("a/.agents/skills/review"),
        "The nearer review. Use when asked.",
    );
    let run = t.run_env(&sub, &["list", "--format", "json"], &[]);
    run.assert_code(0);
    let doc = run.json();
    assert_eq!(
        listed(&doc),
        ["review", "deploy", "pdf-processing", "git-commit"]
    );
    assert_eq!(
        doc["skills"][0]["path"],
        path_str(&t.project.join("a/.agents/skills/review/SKILL.md"))
    );
    assert_eq!(doc["skills"][1]["scope"], "project");
    // The roots: a/b, a, and the repository root, then the home; nothing above `.git`.
    let roots: Vec<&str> = doc["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(roots.len(), 12, "{roots:#?}");
    assert_eq!(roots[0], path_str(&sub.join(".agents/skills")));
    assert_eq!(roots[8], path_str(&t.project.join(".claude/skills")));
    assert!(
        !roots
            .iter()
            .any(|r| r.starts_with(path_str(&t.base.join(".agents"))))
    );
    assert!(!run.stdout.contains("outside"));

    // `show` finds the repository root's skill from the subdirectory, and not one above it.
    let run = t.run_env(&sub, &["show", "deploy"], &[]);
    run.assert_code(0);
    assert_eq!(run.stdout, DEPLOY_MD);
    t.run_env(&sub, &["show", "outside"], &[]).assert_code(1);

    // Without a `.git`, only the working directory is a project directory.
    fs::remove_dir(t.project.join(".git")).unwrap();
    let doc = t.run_env(&sub, &["list", "--format", "json"], &[]).json();
    assert_eq!(listed(&doc), ["pdf-processing", "git-commit"]);
    assert_eq!(doc["roots"].as_array().unwrap().len(), 6);
}

#[cfg(unix)]
#[test]
fn a_skill_linked_from_another_root_is_listed_once() {
    let t = Tree::standard();
    // What `npx skills add` does: the skill in .agents/skills, a link in .claude/skills.
    std::os::unix::fs::symlink(
        "../../.agents/skills/pdf-processing",
        t.project.join(".claude/skills/pdf-processing"),
    )
    .unwrap();
    // And a whole root linked to another.
    fs::create_dir_all(t.project.join(".agent")).unwrap();
    std::os::unix::fs::symlink("../.agents/skills", t.project.join(".agent/skills")).unwrap();
    let run = t.run(&["list", "--all", "--format", "json"]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    // Once, where first found; not shadowed by itself; the global copy still shadowed.
    assert_eq!(
        listed(&doc),
        [
            "deploy",
            "pdf-processing",
            "review",
            "pdf-processing*",
            "git-commit"
        ]
    );
    assert_eq!(
        doc["skills"][1]["path"],
        path_str(&t.project.join(".agents/skills/pdf-processing/SKILL.md"))
    );
    // The skipped skills are reported once too.
    assert_eq!(skipped(&doc).len(), 2);
    let run = t.run(&["list"]);
    assert_eq!(
        table_ids(&run.stdout),
        ["deploy", "pdf-processing", "review", "git-commit"]
    );
    assert!(
        run.stderr.contains("1 shadowed and 2 skipped"),
        "{}",
        run.stderr
    );

    // A skill reached only through a link is found, under the link's path.
    fs::remove_dir_all(t.project.join(".agents/skills/pdf-processing")).unwrap();
    t.skill(
        &t.base.join("store/pdf-processing"),
        "Stored elsewhere. Use when linked.",
    );
    fs::remove_file(t.project.join(".claude/skills/pdf-processing")).unwrap();
    std::os::unix::fs::symlink(
        t.base.join("store/pdf-processing"),
        t.project.join(".claude/skills/pdf-processing"),
    )
    .unwrap();
    let run = t.run(&["show", "pdf-processing", "--format", "json"]);
    run.assert_code(0);
    assert_eq!(
        run.json()["path"],
        path_str(&t.project.join(".claude/skills/pdf-processing/SKILL.md"))
    );
}

#[test]
fn shadowed_global_skill_appears_only_with_all() {
    let t = Tree::standard();
    let run = t.run(&["list"]);
    assert_eq!(
        run.stdout.matches("pdf-processing").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("global copy"));
    let run = t.run(&["list", "--all"]);
    assert_eq!(
        run.stdout.matches("pdf-processing").count(),
        3,
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("[shadowed by "), "{}", run.stdout);
    // `show` gives the winner.
    let run = t.run(&["show", "pdf-processing", "--view", "card"]);
    run.assert_code(0);
    assert!(run.stdout.contains("Extract text"), "{}", run.stdout);
}

#[test]
fn flat_files_are_skills() {
    let t = Tree::standard();
    let run = t.run(&["show", "deploy", "--view", "summary", "--format", "json"]);
    run.assert_code(0);
    let card = run.json();
    assert_eq!(card["id"], "deploy");
    assert_eq!(card["name"], "deploy");
    assert_eq!(
        card["path"],
        path_str(&t.project.join(".agents/skills/deploy.md"))
    );
    assert_eq!(card["files"][0]["path"], "deploy.md");
    assert_eq!(card["files"].as_array().unwrap().len(), 1);
    // The raw file, byte for byte.
    assert_eq!(t.run(&["show", "Deploy"]).stdout, DEPLOY_MD);
    // Documentation files are not skills, and not reported as skipped.
    let doc = t.run(&["list", "--all", "--format", "json"]).json();
    assert!(!listed(&doc).contains(&"README".to_string()));
    assert!(!skipped(&doc).iter().any(|(id, _)| id == "README"));
    t.run(&["show", "README"]).assert_code(1);
    // A flat file with a frontmatter `name` keeps its file stem as the id.
    t.write(
        &t.project.join(".agents/skills/release.md"),
        "---\nname: ship-it\ndescription: Release. Use when asked to release.\n---\nShip.\n",
    );
    let doc = t.run(&["list", "--format", "json"]).json();
    let release = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "release")
        .unwrap();
    assert_eq!(release["name"], "ship-it");
}

/// What `list` shows, `lint` checks and `package` packages: a flat skill was listed, while
/// `lint` said `skill-md-missing` (of the folder) and `lint NAME.md` and `package NAME.md`
/// exited 2. Each is now checked as the `SKILL.md` of the directory it stands for, and
/// `skill-md-flat` says why agents that follow the specification do not load it.
#[test]
fn flat_files_are_linted_and_packaged_as_the_skill_they_stand_for() {
    let t = Tree::standard();
    // deploy.md has no `name`: the SKILL.md it stands for would need one.
    let rules = |run: &Run| -> Vec<(String, String)> {
        crate::diagnostics(&run.json())
            .iter()
            .map(|d| {
                (
                    d["path"].as_str().unwrap().to_string(),
                    d["rule"].as_str().unwrap().to_string(),
                )
            })
            .filter(|(path, _)| path.starts_with(".agents/skills/deploy"))
            .collect()
    };
    let flat = |rule: &str| (".agents/skills/deploy.md".to_string(), rule.to_string());
    let run = t.run(&["lint", "--format", "json", "--no-config"]);
    run.assert_code(1);
    assert_eq!(rules(&run), [flat("skill-md-flat"), flat("name-missing")]);
    // README.md and notes.md (no frontmatter) are not skills for lint either.
    assert!(
        !run.stdout.contains("README.md") && !run.stdout.contains("notes.md"),
        "{}",
        run.stdout
    );
    let run = t.run(&[
        "lint",
        "--format",
        "json",
        "--no-config",
        ".agents/skills/deploy.md",
    ]);
    run.assert_code(1);
    assert_eq!(rules(&run), [flat("skill-md-flat"), flat("name-missing")]);
    // Named, it lints clean of errors and packages as deploy/SKILL.md.
    let file = t.project.join(".agents/skills/deploy.md");
    let named = DEPLOY_MD.replacen("---\n", "---\nname: deploy\n", 1);
    fs::write(&file, &named).unwrap();
    let run = t.run(&[
        "lint",
        "--format",
        "json",
        "--no-config",
        ".agents/skills/deploy.md",
    ]);
    run.assert_code(0);
    assert_eq!(rules(&run), [flat("skill-md-flat")]);
    let run = t.run(&[
        "package",
        ".agents/skills/deploy.md",
        "-o",
        "dist",
        "--list",
    ]);
    run.assert_code(0);
    let listed = format!("deploy/SKILL.md\n1 file, {} bytes\n", named.len());
    assert!(run.stdout.ends_with(&listed), "{}", run.stdout);
    let run = t.run(&["package", ".agents/skills/deploy.md", "-o", "dist"]);
    run.assert_code(0);
    assert!(
        t.project.join("dist/deploy.skill").is_file(),
        "{}",
        run.stderr
    );
    // Installed, it is a skill directory, which lints without `skill-md-flat`.
    let run = t.run(&["install", "dist/deploy.skill", "--to", "installed"]);
    run.assert_code(0);
    let run = t.run(&[
        "lint",
        "--format",
        "json",
        "--no-config",
        "installed/deploy",
    ]);
    run.assert_code(0);
    assert!(crate::diagnostics(&run.json()).is_empty(), "{}", run.stdout);
    // `--skills-dir DIR lint`: DIR is a root, its flat files skills, as `list` has them.
    t.write(
        &t.base.join("ops/git-pr.md"),
        "---\nname: git-pr\ndescription: Open a PR. Use when asked.\n---\nBody.\n",
    );
    let ops = path_str(&t.base.join("ops")).to_string();
    let run = t.run(&[
        "--skills-dir",
        &ops,
        "lint",
        "--format",
        "json",
        "--no-config",
    ]);
    run.assert_code(0);
    assert_eq!(crate::rules_of(&run.json()), ["skill-md-flat"]);
    t.run(&["lint", "--no-config", &ops]).assert_code(1);
    // Documentation is never a skill.
    let run = t.run(&["lint", ".agents/skills/README.md"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("documentation, never skills"),
        "{}",
        run.stderr
    );
}

#[test]
fn nested_skills_are_found_to_depth_six() {
    let t = Tree::new();
    let root = t.project.join(".agents/skills");
    t.skill(&root.join("group/one"), "Depth two. Use when nested.");
    t.skill(&root.join("1/2/3/4/5/six"), "Depth six. Use when deep.");
    t.skill(&root.join("1/2/3/4/5/6/seven"), "Depth seven. Use never.");
    // A skill inside a skill is one of its files, not a skill.
    t.skill(&root.join("group/one/inner"), "Inside another. Use never.");
    let doc = t.run(&["list", "--all", "--format", "json"]).json();
    assert_eq!(listed(&doc), ["one", "six"]);
    t.run(&["show", "six"]).assert_code(0);
    t.run(&["show", "seven"]).assert_code(1);
    t.run(&["show", "inner"]).assert_code(1);
}

#[test]
fn skipped_skills_are_noted_and_listed_with_all() {
    let t = Tree::new();
    let root = t.project.join(".agents/skills");
    t.skill(&root.join("good"), "A good skill. Use when testing.");
    t.write(&root.join("yaml/SKILL.md"), "---\nname: [unclosed\n---\n");
    t.write(
        &root.join("nameless/SKILL.md"),
        "---\ndescription: No name.\n---\n",
    );
    t.write(&root.join("empty/SKILL.md"), "");
    // A skipped skill does not shadow a valid one with the same id further down.
    t.write(
        &root.join("git-commit/SKILL.md"),
        "---\nname: git-commit\n---\n",
    );
    t.write(&t.home.join(".agents/skills/git-commit/SKILL.md"), GIT_MD);
    let run = t.run(&["list"]);
    run.assert_code(0);
    assert_eq!(table_ids(&run.stdout), ["good", "git-commit"]);
    assert_eq!(
        run.stderr,
        "note: 4 skipped skills not shown; `skills list --all` lists them\n"
    );
    let run = t.run(&["list", "--all"]);
    run.assert_code(0).assert_quiet();
    t.snapshot("skipped_all_table", &run.command, &run.stdout);
    let doc = t.run(&["list", "--format", "json"]).json();
    let ids: Vec<String> = skipped(&doc).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["empty", "git-commit", "nameless", "yaml"]);
    // `show` of the global one works; of a skipped one, it says why.
    let run = t.run(&["show", "git-commit", "--format", "json", "--view", "card"]);
    run.assert_code(0);
    assert_eq!(run.json()["scope"], "global");
    let run = t.run(&["show", "YAML"]);
    run.assert_code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("skill `yaml` exists but was skipped: invalid YAML in frontmatter"),
        "{}",
        run.stderr
    );
    t.snapshot("show_skipped", &run.command, &run.stderr);
}

#[test]
fn a_root_that_is_not_a_directory_is_a_warning() {
    let t = Tree::new();
    t.write(&t.project.join(".agents/skills"), "not a directory\n");
    t.skill(
        &t.home.join(".claude/skills/git-commit"),
        "Commit. Use when asked.",
    );
    let warning = format!(
        "warning: cannot read skills root {}: not a directory\n",
        t.project.join(".agents/skills").display()
    );
    let run = t.run(&["list"]);
    run.assert_code(0);
    assert_eq!(table_ids(&run.stdout), ["git-commit"]);
    assert_eq!(run.stderr, warning);
    // In every format: stdout stays a clean document.
    let run = t.run(&["list", "--format", "json"]);
    run.assert_code(0);
    assert_eq!(listed(&run.json()), ["git-commit"]);
    assert_eq!(run.stderr, warning);
    let run = t.run(&["list", "--format", "xml"]);
    run.assert_code(0);
    assert!(
        run.stdout.starts_with("<available_skills>"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, warning);
}

#[cfg(unix)]
#[test]
fn an_unreadable_root_is_a_warning() {
    use std::os::unix::fs::PermissionsExt;

    let t = Tree::standard();
    let root = t.project.join(".claude/skills");
    fs::set_permissions(&root, fs::Permissions::from_mode(0o000)).unwrap();
    let restore = || fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    if fs::read_dir(&root).is_ok() {
        // Running as root (or with CAP_DAC_READ_SEARCH): permissions do not stop reading.
        restore();
        eprintln!(
            "skipped: {} is still readable after chmod 000",
            root.display()
        );
        return;
    }
    let run = t.run(&["list"]);
    restore();
    run.assert_code(0);
    assert_eq!(
        table_ids(&run.stdout),
        ["deploy", "pdf-processing", "git-commit"]
    );
    assert!(
        run.stderr.starts_with(&format!(
            "warning: cannot read skills root {}",
            root.display()
        )),
        "{}",
        run.stderr
    );
}

// `skills show`.

#[test]
fn show_prints_the_file_byte_for_byte_when_piped() {
    let t = Tree::standard();
    // CRLF, no final newline, non-ASCII, trailing spaces: all kept.
    let odd = "---\r\nname: odd\r\ndescription: Ünïcode and CRLF. Use when odd.  \r\n---\r\n# Odd\r\n\r\ntext without final newline  ";
    let path = t.project.join(".agents/skills/odd/SKILL.md");
    t.write(&path, odd);
    for (name, file) in [
        (
            "pdf-processing",
            t.project.join(".agents/skills/pdf-processing/SKILL.md"),
        ),
        ("odd", path),
        ("deploy", t.project.join(".agents/skills/deploy.md")),
    ] {
        let out = t.output(&t.project, &["show", name], &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, fs::read(&file).unwrap(), "skills show {name}");
        assert!(out.stderr.is_empty());
    }
}

#[test]
fn show_is_case_insensitive() {
    let t = Tree::standard();
    // A directory spelt with capitals on disk.
    t.skill(
        &t.home.join(".claude/skills/Data-Viz"),
        "Charts. Use when plotting.",
    );
    for name in ["pdf-processing", "PDF-PROCESSING", "Pdf-Processing"] {
        let run = t.run(&["show", name, "--view", "card", "--format", "json"]);
        run.assert_code(0);
        assert_eq!(run.json()["id"], "pdf-processing");
    }
    for name in ["data-viz", "DATA-VIZ", "Data-Viz"] {
        let run = t.run(&["show", name, "--view", "card", "--format", "json"]);
        run.assert_code(0);
        assert_eq!(run.json()["id"], "Data-Viz");
    }
}

#[test]
fn show_views_as_text() {
    let t = Tree::standard();
    let run = t.run(&["show", "pdf-processing", "--view", "card"]);
    run.assert_code(0).assert_quiet();
    assert!(
        run.stdout.starts_with("pdf-processing\n  Extract text"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("tags: pdf, forms"), "{}", run.stdout);
    // The card is id, name, description, path, scope and tags, in text as in JSON.
    assert!(
        run.stdout.contains("path: ") && run.stdout.contains("/SKILL.md (project)\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("license:"), "{}", run.stdout);
    t.snapshot("show_card_text", &run.command, &run.stdout);

    let run = t.run(&["show", "pdf-processing", "--view", "summary"]);
    run.assert_code(0).assert_quiet();
    for part in [
        "license: Apache-2.0. See LICENSE.txt",
        "compatibility: Requires python3",
        "allowed-tools: Read Bash(python3:*) Bash(pdftotext:*,qpdf)",
        "  author: example-org",
        "scripts:\n    scripts/fill_form.py",
        "references:\n    references/FORMS.md",
        "assets:\n    assets/template.txt",
    ] {
        assert!(run.stdout.contains(part), "{part} in\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("# PDF processing"), "{}", run.stdout);
    t.snapshot("show_summary_text", &run.command, &run.stdout);

    let run = t.run(&["show", "pdf-processing", "--view", "full"]);
    run.assert_code(0).assert_quiet();
    assert!(
        run.stdout
            .ends_with("[the forms reference](references/FORMS.md).\n")
    );
    t.snapshot("show_full_text", &run.command, &run.stdout);
}

#[test]
fn show_views_as_json() {
    let t = Tree::standard();
    let run = t.run(&[
        "show",
        "pdf-processing",
        "--view",
        "card",
        "--format",
        "json",
    ]);
    run.assert_code(0).assert_quiet();
    let card = run.json();
    let keys: Vec<&String> = card.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "name", "description", "path", "scope", "tags"]);
    assert_eq!(card["tags"], serde_json::json!(["pdf", "forms"]));
    t.snapshot("show_card_json", &run.command, &run.stdout);

    let run = t.run(&[
        "show",
        "pdf-processing",
        "--view",
        "summary",
        "--format",
        "json",
    ]);
    run.assert_code(0).assert_quiet();
    let card = run.json();
    let keys: Vec<&String> = card.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "description",
            "path",
            "scope",
            "tags",
            "license",
            "compatibility",
            "allowed_tools",
            "metadata",
            "files"
        ]
    );
    assert_eq!(
        card["allowed_tools"],
        serde_json::json!([
            {"tool_name": "Read", "capabilities": []},
            {"tool_name": "Bash", "capabilities": ["python3:*"]},
            {"tool_name": "Bash", "capabilities": ["pdftotext:*", "qpdf"]},
        ])
    );
    assert_eq!(card["metadata"]["version"], "1.2");
    let files: Vec<(&str, &str)> = card["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["group"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("LICENSE.txt", "other"),
            ("SKILL.md", "other"),
            ("assets/template.txt", "assets"),
            ("references/FORMS.md", "references"),
            ("scripts/fill_form.py", "scripts"),
        ]
    );
    assert_eq!(card["files"][1]["size"], PDF_MD.len());
    t.snapshot("show_summary_json", &run.command, &run.stdout);

    // --format json without --view is the full card.
    for args in [
        &[
            "show",
            "pdf-processing",
            "--view",
            "full",
            "--format",
            "json",
        ][..],
        &["show", "pdf-processing", "--format", "json"][..],
    ] {
        let run = t.run(args);
        run.assert_code(0).assert_quiet();
        let card = run.json();
        let body = PDF_MD.split_once("---\n# ").unwrap().1;
        assert_eq!(card["content"], format!("# {body}"));
        t.snapshot(
            "show_full_json",
            "skills show pdf-processing --format json",
            &run.stdout,
        );
    }
}

#[test]
fn show_not_found_names_the_roots_and_suggests() {
    let t = Tree::standard();
    let run = t.run(&["show", "pdf-procesing"]);
    run.assert_code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("skill `pdf-procesing` not found"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean `pdf-processing`?"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("~/.claude/skills (global)"),
        "{}",
        run.stderr
    );
    t.snapshot("show_not_found", &run.command, &run.stderr);

    // Nothing close: no suggestion, a pointer to `skills list`.
    let run = t.run(&["show", "zzzzzzzz"]);
    run.assert_code(1);
    assert!(!run.stderr.contains("did you mean"), "{}", run.stderr);
    assert!(run.stderr.contains("`skills list`"), "{}", run.stderr);

    // No skills at all: where to put one.
    let empty = Tree::new();
    let run = empty.run(&["show", "pdf"]);
    run.assert_code(1);
    assert!(
        crate::unwrapped(&run.stderr).contains("Create one with `skills new NAME`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("~/.claude/skills").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn show_refuses_hostile_names_without_reading_outside() {
    let t = Tree::standard();
    let root = t.project.join(".agents/skills");
    // Valid skills at each place a hostile name would reach if joined onto a root.
    let outside = t.base.join("elsewhere/secret");
    t.skill(&outside, "SECRET. Use never.");
    t.skill(&t.project.join(".agents/x"), "SECRET. Use never."); // root/../x
    t.skill(&root.join("a/b"), "SECRET nested. Use never."); // root/a/b
    t.write(
        &root.join("SKILL.md"),
        &skill_md("skills", "SECRET root. Use never."),
    ); // root/.
    t.write(
        &t.project.join(".agents/SKILL.md"),
        &skill_md("agents", "SECRET. Use never."),
    ); // root/..
    let outside_abs = outside.to_str().unwrap().to_string();
    for name in [
        "../x",
        "a/b",
        "/etc/passwd",
        outside_abs.as_str(),
        ".",
        "..",
        "",
        "..\\x",
        "../../../../../../../../etc/passwd",
    ] {
        let run = t.run(&["show", name]);
        run.assert_code(1);
        assert_eq!(run.stdout, "", "skills show {name:?}");
        assert!(!run.stderr.contains("SECRET"), "{}", run.stderr);
        assert!(run.stderr.contains("not found"), "{name:?}: {}", run.stderr);
        let run = t.run(&["show", name, "--format", "json"]);
        run.assert_code(1);
        assert_eq!(run.stdout, "");
    }
    // (A name with a NUL cannot be passed in argv.)
    // The nested skill is reachable by its own id, as it should be.
    t.run(&["show", "b"]).assert_code(0);
}

#[test]
fn show_usage_errors_exit_2() {
    let t = Tree::standard();
    t.run(&["show"]).assert_code(2);
    t.run(&["show", "deploy", "--view", "everything"])
        .assert_code(2);
    t.run(&["show", "deploy", "--format", "xml"]).assert_code(2);
    t.run(&["list", "--format", "yaml"]).assert_code(2);
}

// Explicit roots.

#[test]
fn skills_dir_replaces_the_defaults_in_the_order_given() {
    let t = Tree::standard();
    let a = t.base.join("a");
    let b = t.base.join("b");
    t.skill(&a.join("shared"), "From A. Use when A.");
    t.skill(&a.join("only-a"), "Only in A. Use when A.");
    t.skill(&b.join("shared"), "From B. Use when B.");
    t.skill(&b.join("only-b"), "Only in B. Use when B.");
    let (a_s, b_s) = (path_str(&a), path_str(&b));

    let run = t.run(&[
        "--skills-dir",
        a_s,
        "--skills-dir",
        b_s,
        "list",
        "--all",
        "--format",
        "json",
    ]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(listed(&doc), ["only-a", "shared", "only-b", "shared*"]);
    assert_eq!(doc["skills"][1]["description"], "From A. Use when A.");
    assert_eq!(doc["skills"][1]["scope"], "custom");
    let roots: Vec<&str> = doc["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(roots, [a_s, b_s]);
    assert!(
        doc["roots"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["scope"] == "custom")
    );
    // None of the default roots' skills (and none skipped there).
    assert!(skipped(&doc).is_empty());

    // The other order, after the subcommand, and relative to the working directory.
    let run = t.run_env(
        &t.base,
        &[
            "list",
            "--skills-dir",
            "b",
            "--skills-dir",
            "./a",
            "--format",
            "json",
        ],
        &[],
    );
    let doc = run.json();
    assert_eq!(listed(&doc), ["only-b", "shared", "only-a"]);
    assert_eq!(doc["skills"][1]["description"], "From B. Use when B.");
    let run = t.run(&[
        "--skills-dir",
        b_s,
        "--skills-dir",
        a_s,
        "show",
        "SHARED",
        "--view",
        "card",
    ]);
    run.assert_code(0);
    assert!(run.stdout.contains("From B."), "{}", run.stdout);
    // The defaults are not searched.
    t.run(&["--skills-dir", a_s, "show", "deploy"])
        .assert_code(1);

    // `~` is the home directory.
    t.skill(&t.home.join("custom/tilde"), "Under the home. Use when ~.");
    let doc = t
        .run(&["list", "--skills-dir", "~/custom", "--format", "json"])
        .json();
    assert_eq!(listed(&doc), ["tilde"]);
    assert_eq!(doc["roots"][0]["path"], path_str(&t.home.join("custom")));

    // A root that does not exist: nothing found, exit 0, the message names it.
    let run = t.run(&["list", "--skills-dir", "missing"]);
    run.assert_code(0);
    assert!(run.stderr.contains("missing (custom)"), "{}", run.stderr);
}

/// A directory named with `--skills-dir` (or in `SKILLS_PATH`) that does not exist is a
/// warning in every format: a typo read as "no skills", silently in JSON and XML.
#[test]
fn a_named_root_that_does_not_exist_is_a_warning() {
    let t = Tree::standard();
    let a = t.base.join("a");
    t.skill(&a.join("here"), "Here. Use when asked.");
    let warning = "warning: --skills-dir missing: no such directory; no skills are read from it\n";
    for format in ["table", "json", "xml"] {
        let run = t.run(&[
            "--skills-dir",
            "missing",
            "--skills-dir",
            path_str(&a),
            "list",
            "--format",
            format,
        ]);
        run.assert_code(0);
        assert_eq!(run.stderr, warning, "{format}");
        assert!(run.stdout.contains("here"), "{format}: {}", run.stdout);
    }
    let run = t.run(&["--skills-dir", "missing", "show", "here"]);
    run.assert_code(1);
    assert!(run.stderr.starts_with(warning), "{}", run.stderr);
    let run = t.run_env(
        &t.project,
        &["list", "--format", "json"],
        &[("SKILLS_PATH", "gone")],
    );
    run.assert_code(0);
    assert_eq!(
        run.stderr,
        "warning: SKILLS_PATH gone: no such directory; no skills are read from it\n"
    );
    // The default roots that do not exist say nothing: most projects lack some.
    t.run(&["list", "--format", "json"]).assert_quiet();
    // Nor does one that exists, empty.
    fs::create_dir_all(t.base.join("empty")).unwrap();
    t.run(&[
        "--skills-dir",
        path_str(&t.base.join("empty")),
        "list",
        "--format",
        "json",
    ])
    .assert_quiet();
}

#[test]
fn skills_path_replaces_the_defaults_and_yields_to_the_flag() {
    let t = Tree::standard();
    let a = t.base.join("a");
    let b = t.base.join("b");
    t.skill(&a.join("shared"), "From A. Use when A.");
    t.skill(&b.join("shared"), "From B. Use when B.");
    t.skill(&b.join("only-b"), "Only in B. Use when B.");
    let joined = std::env::join_paths([&b, &a]).unwrap();
    let joined = joined.to_str().unwrap();

    let run = t.run_env(
        &t.project,
        &["list", "--all", "--format", "json"],
        &[("SKILLS_PATH", joined)],
    );
    run.assert_code(0);
    let doc = run.json();
    assert_eq!(listed(&doc), ["only-b", "shared", "shared*"]);
    assert_eq!(doc["skills"][1]["description"], "From B. Use when B.");
    assert_eq!(doc["roots"].as_array().unwrap().len(), 2);
    let run = t.run_env(&t.project, &["show", "shared"], &[("SKILLS_PATH", joined)]);
    assert!(run.stdout.contains("From B."), "{}", run.stdout);

    // --skills-dir wins over SKILLS_PATH.
    let run = t.run_env(
        &t.project,
        &["list", "--skills-dir", path_str(&a), "--format", "json"],
        &[("SKILLS_PATH", joined)],
    );
    assert_eq!(listed(&run.json()), ["shared"]);
    assert_eq!(
        run.json()["skills"][0]["description"],
        "From A. Use when A."
    );

    // An empty SKILLS_PATH is as if unset: the defaults.
    let run = t.run_env(
        &t.project,
        &["list", "--format", "json"],
        &[("SKILLS_PATH", "")],
    );
    assert_eq!(
        listed(&run.json()),
        ["deploy", "pdf-processing", "review", "git-commit"]
    );
}
