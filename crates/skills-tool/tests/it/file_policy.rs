//! One answer to "which files belong to a skill": `skills lint` (through the links it finds
//! missing), `skills package --list`, `skills show --view summary` and the MCP server
//! (`resources/list`) must list the same files, on a tree built so that the old answers
//! differed: a `.skillignore`d file and a link to it, an `.ignore`d file, a file the
//! repository's `.gitignore` above the skill ignores, a linked directory inside the skill,
//! a Python cache, a secret-looking name.

#![cfg(unix)]

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{diagnostics, skills};

/// Every file of the tree, and whether the one policy keeps it.
const CANDIDATES: &[(&str, bool)] = &[
    ("SKILL.md", true),
    (".skillignore", true),
    (".ignore", true),
    ("docs/kept.md", true),
    ("alias/kept.md", true),
    ("link-to-draft.md", true),
    ("draft.md", false),
    ("notes.tmp", false),
    ("build.log", false),
    ("__pycache__/m.pyc", false),
    (".env", false),
];

fn tree(root: &Path) -> std::path::PathBuf {
    let repo = root.join("repo");
    let skill = repo.join("skills/agree");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(skill.join("docs")).unwrap();
    fs::create_dir_all(skill.join("__pycache__")).unwrap();
    fs::write(repo.join(".gitignore"), "*.log\n").unwrap();
    let links: String = CANDIDATES
        .iter()
        .filter(|(path, _)| !path.starts_with('.') && *path != "SKILL.md")
        .map(|(path, _)| format!("- [{path}]({path})\n"))
        .collect();
    fs::write(
        skill.join("SKILL.md"),
        format!("---\nname: agree\ndescription: Agreement test. Use when testing.\n---\n# Files\n\n{links}"),
    )
    .unwrap();
    fs::write(skill.join(".skillignore"), "draft.md\n").unwrap();
    fs::write(skill.join(".ignore"), "*.tmp\n").unwrap();
    for file in [
        "docs/kept.md",
        "draft.md",
        "notes.tmp",
        "build.log",
        "__pycache__/m.pyc",
        ".env",
    ] {
        fs::write(skill.join(file), "x\n").unwrap();
    }
    symlink("docs", skill.join("alias")).unwrap();
    symlink("draft.md", skill.join("link-to-draft.md")).unwrap();
    skill
}

fn expected() -> BTreeSet<String> {
    CANDIDATES
        .iter()
        .filter(|(_, kept)| *kept)
        .map(|(path, _)| (*path).to_string())
        .collect()
}

#[test]
fn lint_package_show_and_mcp_list_the_same_files() {
    let t = tempfile::tempdir().unwrap();
    let skill = tree(t.path());
    let root = skill.parent().unwrap();

    // package --list: `      size  agree/PATH`.
    let package = skills(root, &["package", "agree", "--list"]);
    package.assert_code(0);
    let packaged: BTreeSet<String> = package
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter_map(|p| p.strip_prefix("agree/"))
        .map(str::to_string)
        .collect();
    assert_eq!(packaged, expected(), "package --list");

    // show --view summary: the files of the SkillCard.
    let show = skills(
        root,
        &[
            "--skills-dir",
            ".",
            "show",
            "agree",
            "--view",
            "summary",
            "--format",
            "json",
        ],
    );
    show.assert_code(0);
    let shown: BTreeSet<String> = show.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(shown, expected(), "show");

    // lint: a link to a file outside the listing is `link-missing`; every other link is fine.
    let lint = skills(root, &["lint", "--no-config", "--format", "json", "agree"]);
    let doc = lint.json();
    let missing: BTreeSet<String> = diagnostics(&doc)
        .iter()
        .filter(|d| d["rule"] == "link-missing")
        .map(|d| {
            let m = d["message"].as_str().unwrap();
            m.split('`').nth(1).unwrap_or(m).to_string()
        })
        .collect();
    let linked_but_left_out: BTreeSet<String> = CANDIDATES
        .iter()
        .filter(|(path, kept)| !kept && !path.starts_with('.'))
        .map(|(path, _)| (*path).to_string())
        .collect();
    assert_eq!(missing, linked_but_left_out, "lint: {doc:#}");

    // MCP: resources/list holds one resource per file.
    let served = mcp_files(root);
    assert_eq!(served, expected(), "mcp resources/list");
}

/// The files the MCP server lists for skill `agree`, as paths in the skill.
fn mcp_files(root: &Path) -> BTreeSet<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["mcp", "--skills-dir", ".", "--log-level", "off"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#,
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut files = BTreeSet::new();
    for line in out.lines() {
        let message: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] != 2 {
            continue;
        }
        for resource in message["result"]["resources"].as_array().unwrap() {
            let uri = resource["uri"].as_str().unwrap();
            if let Some(path) = uri.strip_prefix("skill://agree/") {
                files.insert(path.to_string());
            }
        }
    }
    let _ = child.wait();
    files
}

/// Many projects ignore their agent folders (`.claude/` in `.gitignore`): the skills kept
/// there are still whole. Git's rules above the skill directory must not empty it; rules
/// about the skill's own files still apply.
#[test]
fn a_skill_in_a_gitignored_folder_is_packaged_and_linted_whole() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path();
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::write(repo.join(".gitignore"), ".claude/\n*.log\n").unwrap();
    let skill = repo.join(".claude/skills/demo");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: demo\ndescription: Demo. Use when testing.\n---\nSee [notes](notes.md).\n",
    )
    .unwrap();
    fs::write(skill.join("notes.md"), "x\n").unwrap();
    fs::write(skill.join("debug.log"), "x\n").unwrap();

    let package = skills(repo, &["package", ".claude/skills/demo", "--list"]);
    package.assert_code(0);
    assert!(
        package.stdout.contains("demo/SKILL.md"),
        "{}",
        package.stdout
    );
    assert!(
        package.stdout.contains("demo/notes.md"),
        "{}",
        package.stdout
    );
    assert!(!package.stdout.contains("debug.log"), "{}", package.stdout);
    let lint = skills(repo, &["lint", "--format", "json", ".claude/skills/demo"]);
    lint.assert_code(0);
    assert!(diagnostics(&lint.json()).is_empty(), "{}", lint.stdout);
}
