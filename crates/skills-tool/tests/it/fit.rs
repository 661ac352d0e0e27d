//! Fitting in: `--version`, `-q`/`-v`, `skills completions`, `skills man`, and the
//! pre-commit hook and GitHub Action at the repository root.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{skills, testdata};

fn repo() -> PathBuf {
    testdata().join("..")
}

fn cli() -> PathBuf {
    testdata().join("cli")
}

/// The commands `skills --help` lists (in groups, between the usage line and the global
/// options), without `help` itself.
fn commands() -> Vec<String> {
    let run = skills(&cli(), &["--help"]);
    run.assert_code(0);
    let listing = run
        .stdout
        .split_once("\nUsage:")
        .and_then(|(_, rest)| rest.split_once("\nGlobal options:"))
        .map(|(groups, _)| groups)
        .expect("no command groups");
    let names: Vec<String> = listing
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    assert!(names.len() >= 11, "{names:?}");
    names
}

// --version

#[test]
fn version_names_the_package_version_and_the_commit() {
    let run = skills(&cli(), &["--version"]);
    run.assert_code(0).assert_quiet();
    let prefix = format!("skills {}", env!("CARGO_PKG_VERSION"));
    assert!(run.stdout.starts_with(&prefix), "{}", run.stdout);
    let rest = run.stdout[prefix.len()..].trim_end();
    // Built from a git checkout (as these tests are, unless run from a packaged crate), the
    // version carries HEAD's short hash and date; otherwise nothing follows.
    let head = std::process::Command::new("git")
        .args(["log", "-1", "--date=short", "--format=%h %cd"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(head) if !head.is_empty() => assert_eq!(rest, format!(" ({head})")),
        _ => assert_eq!(rest, ""),
    }
    // Every command reports the same version.
    let lint = skills(&cli(), &["lint", "--version"]);
    assert!(
        lint.stdout.contains(&run.stdout["skills ".len()..]),
        "{}",
        lint.stdout
    );
}

// -q and -v

#[test]
fn quiet_lint_prints_findings_without_the_summary() {
    let normal = skills(&cli(), &["lint", "--no-config", "mixed"]);
    let quiet = skills(&cli(), &["lint", "--no-config", "-q", "mixed"]);
    normal.assert_code(1);
    quiet.assert_code(1).assert_quiet();
    assert!(
        normal
            .stdout
            .contains("\nchecked 3 skills: 1 error, 1 warning\n")
    );
    assert!(!quiet.stdout.contains("checked"), "{}", quiet.stdout);
    assert!(quiet.stdout.contains("name-dir-mismatch") && quiet.stdout.contains("vendor-field"));
    // Exactly the summary is gone.
    let summary = "checked 3 skills: 1 error, 1 warning\n";
    assert_eq!(normal.stdout.replace(summary, ""), quiet.stdout);

    // A clean tree says nothing at all; the exit code is the answer.
    let clean = skills(&cli(), &["--quiet", "lint", "--no-config", "mixed/ok"]);
    clean.assert_code(0).assert_quiet();
    assert_eq!(clean.stdout, "");
}

#[test]
fn verbose_lint_lists_each_skill_on_stderr() {
    let normal = skills(
        &cli(),
        &["lint", "--no-config", "--format", "json", "mixed"],
    );
    let verbose = skills(
        &cli(),
        &["lint", "--no-config", "--format", "json", "-v", "mixed"],
    );
    verbose.assert_code(1);
    // stdout is the same document; the detail is on stderr.
    assert_eq!(normal.stdout, verbose.stdout);
    assert_eq!(normal.stderr, "");
    let lines: Vec<&str> = verbose.stderr.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "checked mixed/forms: 1 error, 0 warnings",
            "checked mixed/notes: 0 errors, 1 warning",
            "checked mixed/ok: 0 errors, 0 warnings",
        ],
        "{}",
        verbose.stderr
    );
    assert_eq!(lines.len(), 4, "{}", verbose.stderr);
    assert!(
        lines[3].starts_with("linted 3 skills in ") && lines[3].ends_with(" ms"),
        "{}",
        lines[3]
    );
}

#[test]
fn verbose_mcp_logs_info() {
    // No client: the server starts, logs, and stops at the end of stdin (exit 2).
    let mcp = |global: &[&str], args: &[&str]| {
        let mut all = global.to_vec();
        all.extend(["mcp", "--skills-dir", "mixed"]);
        all.extend(args);
        let run = skills(&cli(), &all);
        run.assert_code(2);
        assert!(
            run.stderr
                .contains("error: skills mcp: the MCP session failed")
        );
        run.stderr
    };
    let found = "INFO skills found skills=3";
    assert!(mcp(&["-v"], &[]).contains(found));
    assert!(!mcp(&[], &[]).contains(found));
    // --log-level wins over -v.
    assert!(!mcp(&["-v"], &["--log-level", "warn"]).contains(found));
    assert!(mcp(&[], &["--log-level", "info"]).contains(found));
    // -q keeps errors (checked in `mcp`).
    mcp(&["-q"], &[]);
}

/// `skills-mcp` reads its own command line (no clap in the server's binary): the same
/// options, help with the client configurations, usage errors with exit 2; and a bad
/// `--tools` file handed over by `skills mcp` is refused before serving.
#[test]
fn the_server_binary_has_a_command_line_of_its_own() {
    let server = |args: &[&str]| {
        assert_cmd::cargo::cargo_bin_cmd!("skills-mcp")
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap()
    };
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();

    let help = server(&["--help"]);
    assert!(help.status.success());
    let out = text(&help.stdout);
    for wanted in [
        "Usage: skills-mcp",
        "--skills-dir <DIR>",
        "--log-level",
        "Claude Code:",
    ] {
        assert!(out.contains(wanted), "{wanted}: {out}");
    }
    let version = server(&["--version"]);
    assert!(version.status.success());
    assert!(text(&version.stdout).starts_with("skills-mcp "));

    let bogus = server(&["--bogus"]);
    assert_eq!(bogus.status.code(), Some(2));
    let err = text(&bogus.stderr);
    assert!(
        err.contains("invalid option '--bogus'") && err.contains("--help"),
        "{err}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("tools.json");
    std::fs::write(&bad, "[{\n").unwrap();
    let run = skills(
        &cli(),
        &[
            "mcp",
            "--skills-dir",
            "mixed",
            "--tools",
            bad.to_str().unwrap(),
        ],
    );
    run.assert_code(2);
    let shown = format!("{}:2:", bad.display());
    assert!(run.stderr.contains(&shown), "{}", run.stderr);
    assert!(run.stderr.contains("help:"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn quiet_and_verbose_exclude_each_other() {
    let run = skills(&cli(), &["-q", "-v", "lint", "mixed"]);
    run.assert_code(2);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

#[test]
fn quiet_drops_notes_of_other_commands() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let dir_arg = empty.to_str().unwrap();

    // list: "no skills found" is a note.
    let normal = skills(dir.path(), &["--skills-dir", dir_arg, "list"]);
    normal.assert_code(0);
    assert!(
        normal.stderr.contains("no skills found"),
        "{}",
        normal.stderr
    );
    let quiet = skills(dir.path(), &["--skills-dir", dir_arg, "list", "-q"]);
    quiet.assert_code(0).assert_quiet();

    // new: "created" and "next:" are notes; the skill is still created.
    let normal = skills(dir.path(), &["new", "one"]);
    normal.assert_code(0);
    assert!(normal.stderr.starts_with("created "), "{}", normal.stderr);
    let quiet = skills(dir.path(), &["-q", "new", "two"]);
    quiet.assert_code(0).assert_quiet();
    assert!(dir.path().join(".agents/skills/two/SKILL.md").is_file());
}

// Completions and man pages

#[test]
fn completions_cover_every_command_in_every_shell() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = skills(&cli(), &["completions", shell]);
        run.assert_code(0).assert_quiet();
        for command in &commands {
            assert!(
                run.stdout.contains(command.as_str()),
                "{shell} completion lacks `{command}`"
            );
        }
        // And the options of a subcommand.
        assert!(run.stdout.contains("no-config"), "{shell}: no lint options");
        // Not the hidden `man`, which is for packagers.
        assert!(
            !run.stdout
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == "man"),
            "{shell} completion offers the hidden `man`"
        );
    }
    // bash: one case per subcommand.
    let bash = skills(&cli(), &["completions", "bash"]).stdout;
    for command in &commands {
        assert!(
            bash.contains(&format!("skills,{command})")),
            "bash completion has no case for {command}"
        );
    }
    assert!(
        bash.contains("complete -F _skills"),
        "not registered for `skills`"
    );

    let unknown = skills(&cli(), &["completions", "tcsh"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("possible values"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn man_page_has_the_sections_and_every_command() {
    let run = skills(&cli(), &["man"]);
    run.assert_code(0).assert_quiet();
    let page = &run.stdout;
    assert!(page.contains(".TH skills 1 "), "{}", &page[..200]);
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS"] {
        assert!(page.contains(section), "skills.1 lacks {section}");
    }
    for command in commands() {
        assert!(
            page.contains(&format!("skills\\-{command}(1)")),
            "skills.1 does not refer to skills-{command}(1)"
        );
    }
    // Packagers' command: not in the help, but documented in the README.
    assert!(!skills(&cli(), &["--help"]).stdout.contains("  man "));
}

#[test]
fn man_out_writes_one_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man/man1");
    let run = skills(dir.path(), &["man", "--out", out.to_str().unwrap()]);
    run.assert_code(0).assert_quiet();
    let files: BTreeSet<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut expected: BTreeSet<String> =
        commands().iter().map(|c| format!("skills-{c}.1")).collect();
    expected.insert("skills.1".to_string());
    // Commands with subcommands get a page per subcommand too.
    for nested in [
        "registry-serve",
        "registry-migrate",
        "registry-sync",
        "registry-token",
        "registry-token-create",
        "registry-token-list",
        "registry-token-revoke",
    ] {
        expected.insert(format!("skills-{nested}.1"));
    }
    assert_eq!(files, expected);
    assert_eq!(run.stdout.lines().count(), expected.len(), "{}", run.stdout);
    let lint = std::fs::read_to_string(out.join("skills-lint.1")).unwrap();
    assert!(lint.starts_with(".ie") && lint.contains("\n.TH skills-lint 1 "));
    assert!(lint.contains("\\-\\-format") && lint.contains(".SH SYNOPSIS"));
}

// The pre-commit hook and the GitHub Action

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `--flags` that `skills lint --help` lists.
fn lint_flags() -> BTreeSet<String> {
    let help = skills(&cli(), &["lint", "--help"]).stdout;
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '=')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .collect()
}

#[test]
fn pre_commit_hook_runs_the_root_packages_binary() {
    let hooks = yaml(&repo().join(".pre-commit-hooks.yaml"));
    let hooks = hooks.as_array().expect("a list of hooks");
    assert_eq!(hooks.len(), 2);
    // The second hook audits the tree with the same binary; any staged file runs it (a
    // script changes what a skill does as much as its SKILL.md).
    let audit = &hooks[1];
    assert_eq!(audit["id"], "skills-audit");
    assert_eq!(audit["language"], "rust");
    assert_eq!(audit["pass_filenames"], false);
    assert!(audit.get("files").is_none() && audit.get("args").is_none());
    let hook = &hooks[0];
    assert_eq!(hook["id"], "skills-lint");
    assert_eq!(hook["language"], "rust");
    assert_eq!(hook["pass_filenames"], false);

    // `language: rust` installs the package at the repository root; its binary must be the
    // one the entry runs, and it must be the `skills` command.
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let bins = manifest["bin"]
        .as_array()
        .expect("the root package has a [[bin]]");
    let bin = bins[0]["name"].as_str().unwrap();
    let main = std::fs::read_to_string(repo().join(bins[0]["path"].as_str().unwrap())).unwrap();
    assert!(main.contains("skills_tool::run(std::env::args_os())"));
    let entry = hook["entry"].as_str().unwrap();
    assert_eq!(entry, format!("{bin} lint"));
    assert_eq!(audit["entry"].as_str().unwrap(), format!("{bin} audit"));

    // `files` names the files lint reads.
    let files = hook["files"].as_str().unwrap();
    for name in [
        "SKILL\\.md",
        "skills\\.toml",
        "tools\\.json",
        "resources\\.json",
    ] {
        assert!(files.contains(name), "files lacks {name}: {files}");
    }
    // Extra arguments from a user's config come after `lint`; they must be lint's.
    assert!(hook.get("args").is_none());
}

#[test]
fn github_action_installs_and_runs_skills_lint() {
    let action = yaml(&repo().join("action.yml"));
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().unwrap();
    assert_eq!(inputs["format"]["default"], "github");
    assert_eq!(inputs["path"]["default"], ".");
    assert!(inputs.contains_key("args"));

    let steps = action["runs"]["steps"].as_array().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    let install = runs
        .iter()
        .find(|r| r.contains("cargo install"))
        .expect("no install step");
    assert!(install.contains("--locked"), "{install}");
    let path = install
        .split("--path ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap();
    assert!(
        repo().join(path).join("Cargo.toml").is_file(),
        "the action installs from `{path}`, which is not a crate"
    );
    let manifest = std::fs::read_to_string(repo().join(path).join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("name = \"skills\""),
        "{path} does not build `skills`"
    );

    let lint = runs
        .iter()
        .find(|r| r.contains(" lint "))
        .expect("no lint step");
    assert!(
        lint.contains("/bin/skills\" lint --format \"$FORMAT\""),
        "{lint}"
    );
    let flags = lint_flags();
    for word in lint.split_whitespace().filter(|w| w.starts_with("--")) {
        if word == "--" {
            continue;
        }
        assert!(
            flags.contains(word),
            "the action passes {word}, unknown to skills lint"
        );
    }
    // Every format the input documents exists.
    let help = skills(&cli(), &["lint", "--help"]).stdout;
    for format in ["github", "human", "json", "sarif"] {
        assert!(help.contains(format), "{format}");
        assert!(
            inputs["format"]["description"]
                .as_str()
                .unwrap()
                .contains(format)
        );
    }
    // The audit step: on by default, on the same paths and format, failing at high, and
    // run after a lint that failed too.
    assert_eq!(inputs["audit"]["default"], "true");
    assert_eq!(inputs["audit-fail-on"]["default"], "high");
    let audit = steps
        .iter()
        .find(|s| s["run"].as_str().is_some_and(|r| r.contains(" audit ")))
        .expect("no audit step");
    let run = audit["run"].as_str().unwrap();
    assert!(
        run.contains("/bin/skills\" audit --format \"$FORMAT\" --fail-on \"$FAIL_ON\"")
            && run.contains("-- $PATHS"),
        "{run}"
    );
    let when = audit["if"].as_str().unwrap();
    assert!(
        when.contains("!cancelled()") && when.contains("inputs.audit == 'true'"),
        "{when}"
    );
    assert_eq!(audit["env"]["PATHS"], "${{ inputs.path }}");
    // Inputs never pasted into a script (injection): only through env.
    for run in &runs {
        assert!(
            !run.contains("${{ inputs."),
            "an input is pasted into a script: {run}"
        );
    }
}
