//! The command line: exit codes, flags, `skills.toml`, formats, help and ordering, on the
//! trees in `testdata/cli/`:
//!
//! - `mixed/`: three skills, one error (`name-dir-mismatch`) and one warning (`vendor-field`).
//! - `several/`: five skills, nested and hidden, one error and five warnings.
//! - `configured/`: a `skills.toml` that denies `vendor-field` and allows
//!   `description-no-trigger`, over a skill with both.
//! - `strict-config/`: `strict = true` over a skill with a warning.
//! - `bad-config/`: a `skills.toml` with a misspelt key on line 3.
//! - `good/`: a CRLF file and `---` inside values; both lint clean.
//! - `no-skill/`: a directory without any `SKILL.md`.

use std::path::PathBuf;

use serde_json::Value;
use skills_lint::RULES;

use crate::{Run, diagnostics, rules_of, skills, snapshot, testdata};

fn cli() -> PathBuf {
    testdata().join("cli")
}

fn lint(args: &[&str]) -> Run {
    let mut all = vec!["lint"];
    all.extend_from_slice(args);
    skills(&cli(), &all)
}

/// `(rule, severity)` of every diagnostic.
fn findings(run: &Run) -> Vec<(String, String)> {
    diagnostics(&run.json())
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
        .collect()
}

// Exit codes and errors of the command itself.

#[test]
fn missing_path_exits_2() {
    let run = lint(&["--no-config", "does-not-exist"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("does-not-exist: no such file or directory")
    );
    snapshot("cli__missing_path", &run.command, None, &run.stderr);
    // The documents are written as skills are linted: a run that cannot start writes none
    // of theirs, not an opened one.
    for format in ["json", "sarif"] {
        let run = lint(&["--no-config", "--format", format, "does-not-exist"]);
        run.assert_code(2);
        assert_eq!(run.stdout, "", "{format}");
    }
}

#[test]
fn file_that_is_not_skill_md_exits_2() {
    let run = lint(&["--no-config", "no-skill/README.md"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains(
            "no-skill/README.md: not a SKILL.md, a flat skill file (NAME.md) or a directory"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn unknown_rule_in_flags_exits_2_with_a_suggestion() {
    let run = lint(&["--no-config", "--deny", "name-to-long", "mixed"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("did you mean `name-too-long`?"),
        "{}",
        run.stderr
    );
    snapshot("cli__unknown_rule", &run.command, None, &run.stderr);

    // With nothing close, no suggestion.
    let run = lint(&["--no-config", "--allow", "zzzzzzzzzzzz", "mixed"]);
    run.assert_code(2);
    assert!(run.stderr.contains("unknown rule `zzzzzzzzzzzz`"));
    assert!(!run.stderr.contains("did you mean"), "{}", run.stderr);
}

/// An unknown rule id in `skills.toml` was an error without the file or the line
/// (docs/lint.md says both): it is now named where it is written.
#[test]
fn an_unknown_rule_in_skills_toml_is_named_where_it_is_written() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("skills.toml"),
        "[lint]\nstrict = false\ndeny = [\"vendor-field\", \"name-to-long\"]\n",
    )
    .unwrap();
    let run = skills(t.path(), &["lint"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    let text = crate::unwrapped(&run.stderr);
    for part in [
        "skills.toml: unknown rule `name-to-long`; did you mean `name-too-long`?",
        "[skills.toml:3:25]",
        "help: write `name-too-long`; `skills lint --rules` lists every rule id",
    ] {
        assert!(text.contains(part), "{part}\n{}", run.stderr);
    }
    snapshot(
        "cli__unknown_rule_in_skills_toml",
        &run.command,
        None,
        &run.stderr,
    );
}

#[test]
fn bad_skills_toml_exits_2_showing_file_and_line() {
    let run = lint(&["bad-config"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("bad-config/skills.toml:3:1"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("unknown field `denny`"),
        "{}",
        run.stderr
    );
    snapshot("cli__bad_config", &run.command, Some(&cli()), &run.stderr);
    // --no-config skips the file.
    lint(&["--no-config", "bad-config"]).assert_code(0);
}

#[test]
fn bad_arguments_exit_2() {
    let run = lint(&["--format", "yaml", "mixed"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("invalid value 'yaml'"),
        "{}",
        run.stderr
    );
    // --explain takes no other argument.
    lint(&["--explain", "name-too-long", "--strict"]).assert_code(2);
}

// Severities: --strict, --allow/--warn/--deny, skills.toml.

#[test]
fn strict_turns_warnings_into_failure() {
    lint(&["--no-config", "mixed/notes"])
        .assert_code(0)
        .assert_quiet();
    let run = lint(&["--no-config", "--strict", "--format", "json", "mixed/notes"]);
    run.assert_code(1).assert_quiet();
    // The findings are unchanged: still a warning, not an error.
    assert_eq!(findings(&run), pairs(&[("vendor-field", "warning")]));
}

#[test]
fn allow_removes_findings_and_deny_warn_change_severity() {
    let run = lint(&["--no-config", "--format", "json", "mixed"]);
    run.assert_code(1);
    assert_eq!(
        findings(&run),
        pairs(&[("name-dir-mismatch", "error"), ("vendor-field", "warning")])
    );

    let run = lint(&[
        "--no-config",
        "--allow",
        "vendor-field",
        "--format",
        "json",
        "mixed",
    ]);
    run.assert_code(1);
    assert_eq!(findings(&run), pairs(&[("name-dir-mismatch", "error")]));
    assert_eq!(run.json()["summary"]["warnings"], 0);

    let run = lint(&[
        "--no-config",
        "-A",
        "vendor-field",
        "--warn",
        "name-dir-mismatch",
        "--format",
        "json",
        "mixed",
    ]);
    run.assert_code(0);
    assert_eq!(findings(&run), pairs(&[("name-dir-mismatch", "warning")]));

    let run = lint(&[
        "--no-config",
        "-D",
        "vendor-field",
        "--format",
        "json",
        "mixed/notes",
    ]);
    run.assert_code(1);
    assert_eq!(findings(&run), pairs(&[("vendor-field", "error")]));

    // A rule named by two flags ends at the stricter level.
    let run = lint(&[
        "--no-config",
        "--allow",
        "vendor-field",
        "--deny",
        "vendor-field",
        "--format",
        "json",
        "mixed/notes",
    ]);
    run.assert_code(1);
    assert_eq!(findings(&run), pairs(&[("vendor-field", "error")]));
}

#[test]
fn skills_toml_in_the_tree_sets_severities() {
    // deny = ["vendor-field"], allow = ["description-no-trigger"]
    let run = lint(&["--format", "json", "configured"]);
    run.assert_code(1).assert_quiet();
    assert_eq!(findings(&run), pairs(&[("vendor-field", "error")]));

    // Found from a SKILL.md path too, and from the current directory.
    let run = lint(&["--format", "json", "configured/notes/SKILL.md"]);
    run.assert_code(1);
    assert_eq!(findings(&run), pairs(&[("vendor-field", "error")]));
    let run = skills(&cli().join("configured"), &["lint", "--format", "json"]);
    run.assert_code(1);
    assert_eq!(findings(&run), pairs(&[("vendor-field", "error")]));

    // Without the file: the defaults.
    let run = lint(&["--no-config", "--format", "json", "configured"]);
    run.assert_code(0);
    assert_eq!(
        findings(&run),
        pairs(&[
            ("description-no-trigger", "warning"),
            ("vendor-field", "warning")
        ])
    );

    // Flags override the file.
    let run = lint(&["--warn", "vendor-field", "--format", "json", "configured"]);
    run.assert_code(0);
    assert_eq!(findings(&run), pairs(&[("vendor-field", "warning")]));
}

#[test]
fn skills_toml_strict() {
    let run = lint(&["--format", "json", "strict-config"]);
    run.assert_code(1).assert_quiet();
    assert_eq!(findings(&run), pairs(&[("vendor-field", "warning")]));
    lint(&["--no-config", "strict-config"]).assert_code(0);
}

// Output formats.

#[test]
fn github_format() {
    let run = lint(&["--no-config", "--format", "github", "mixed"]);
    run.assert_code(1).assert_quiet();
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("::error file=mixed/forms/SKILL.md,line=2,")
    );
    snapshot("cli__github", &run.command, None, &run.stdout);
}

#[test]
fn concise_format_is_one_line_per_finding() {
    let run = lint(&["--no-config", "--format", "concise", "mixed"]);
    run.assert_code(1).assert_quiet();
    let lines: Vec<&str> = run.stdout.lines().collect();
    // Two findings, then the summary.
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(
        lines[0].starts_with("mixed/forms/SKILL.md:2:"),
        "{}",
        run.stdout
    );
    assert!(lines[2].starts_with("checked "), "{}", run.stdout);
    snapshot("cli__concise", &run.command, None, &run.stdout);
    let quiet = lint(&["--no-config", "--format", "concise", "-q", "mixed"]);
    assert_eq!(quiet.stdout.lines().count(), 2, "{}", quiet.stdout);
}

#[test]
fn statistics_count_findings_per_rule() {
    let run = lint(&["--no-config", "--statistics", "mixed"]);
    run.assert_code(1).assert_quiet();
    snapshot("cli__statistics", &run.command, None, &run.stdout);
    let json = lint(&["--no-config", "--statistics", "--format", "json", "mixed"]);
    json.assert_code(1);
    let doc = json.json();
    let total: u64 = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 2, "{doc:#}");
    // Annotations and SARIF have no place for counts: refused before linting.
    let github = lint(&["--no-config", "--statistics", "--format", "github", "mixed"]);
    github.assert_code(2);
    assert!(github.stderr.contains("--statistics"), "{}", github.stderr);
}

#[test]
fn sarif_format() {
    let run = lint(&["--no-config", "--format", "sarif", "mixed"]);
    run.assert_code(1).assert_quiet();
    let mut doc = run.json();
    assert_eq!(doc["version"], "2.1.0");
    let run0 = &doc["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "skills");
    assert_eq!(run0["results"].as_array().unwrap().len(), 2);

    // The driver lists every rule, in registry order, so ruleIndex points into it.
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), RULES.len());
    for (sarif, rule) in rules.iter().zip(RULES) {
        assert_eq!(sarif["id"], rule.id.as_str());
        assert_eq!(sarif["shortDescription"]["text"], rule.summary);
        assert_eq!(
            sarif["defaultConfiguration"]["level"],
            rule.default.as_str()
        );
    }
    for result in run0["results"].as_array().unwrap() {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }

    // Snapshot the document with the rule documentation (checked above) and the version
    // (which changes with every release) elided.
    let driver = &mut doc["runs"][0]["tool"]["driver"];
    driver["rules"] = Value::String(format!("[{} rules]", RULES.len()));
    driver["version"] = Value::String("[VERSION]".to_string());
    let text = serde_json::to_string_pretty(&doc).unwrap();
    snapshot("cli__sarif", &run.command, None, &text);
}

#[test]
fn human_format_of_a_directory_without_skills() {
    let run = lint(&["--no-config", "--color", "never", "no-skill"]);
    run.assert_code(1).assert_quiet();
    snapshot("cli__no_skill", &run.command, None, &run.stdout);
}

#[test]
fn good_files_lint_clean() {
    // CRLF line endings, `---` inside a description and inside a block scalar, a thematic
    // break in the body.
    let run = lint(&["--no-config", "--strict", "--format", "json", "good"]);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(rules_of(&doc), Vec::<&str>::new(), "{}", run.stdout);
    assert_eq!(doc["summary"]["skills"], 2);
    let run = lint(&["--no-config", "--strict", "good"]);
    run.assert_code(0);
    assert_eq!(run.stdout, "checked 2 skills: 0 errors, 0 warnings\n");
}

// Paths, order and summary.

#[test]
fn no_path_lints_the_current_directory() {
    let mixed = cli().join("mixed");
    let implicit = skills(&mixed, &["lint", "--no-config", "--format", "json"]);
    let explicit = skills(&mixed, &["lint", "--no-config", "--format", "json", "."]);
    implicit.assert_code(1).assert_quiet();
    assert_eq!(implicit.stdout, explicit.stdout);
    // Paths are relative to the current directory, without a `./` prefix.
    let doc = implicit.json();
    let paths: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["forms/SKILL.md", "notes/SKILL.md"]);
}

#[test]
fn a_concise_line_never_breaks_nor_carries_control_characters() {
    // A key quoted in the message with a line break and an escape in it.
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("s")).unwrap();
    std::fs::write(
        t.path().join("s/SKILL.md"),
        "---\nname: s\ndescription: Does x. Use when asked.\n\"a\\nb\\u001b\": v\n---\nBody.\n",
    )
    .unwrap();
    let run = skills(
        t.path(),
        &["lint", "--no-config", "--format", "concise", "s"],
    );
    assert_eq!(
        run.stdout,
        "s/SKILL.md:4:1: unknown-field unknown field `a b\\u{1b}`\n\
         checked 1 skill: 0 errors, 1 warning\n"
    );
}

#[test]
fn a_duplicate_name_points_at_the_other_skill_as_paths_are_shown() {
    let t = tempfile::tempdir().unwrap();
    for dir in ["a", "b"] {
        std::fs::create_dir(t.path().join(dir)).unwrap();
        std::fs::write(
            t.path().join(dir).join("SKILL.md"),
            // Two skills of one name, not one skill twice: their bodies differ.
            format!(
                "---\nname: same\ndescription: Does it. Use when asked.\n---\nBody of {dir}.\n"
            ),
        )
        .unwrap();
    }
    let run = skills(t.path(), &["lint", "--no-config", "--format", "json", "."]);
    let doc = run.json();
    let found: Vec<(&str, &str)> = diagnostics(&doc)
        .iter()
        .filter(|d| d["rule"] == "duplicate-name")
        .map(|d| (d["path"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [(
            "b/SKILL.md",
            "another skill is also named `same`: a/SKILL.md"
        )]
    );
}

#[test]
fn output_is_sorted_by_path_and_position() {
    let args = ["--no-config", "--format", "json", "several"];
    let first = lint(&args);
    first.assert_code(1).assert_quiet();
    for _ in 0..3 {
        assert_eq!(
            lint(&args).stdout,
            first.stdout,
            "output changed between runs"
        );
    }
    let doc = first.json();
    let keys: Vec<(String, u64)> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        rules_of(&doc),
        [
            "body-empty",
            "description-no-trigger",
            "unknown-field",
            "name-dir-mismatch",
            "unknown-field",
            "vendor-field"
        ]
    );
    let run = lint(&["--no-config", "--color", "never", "several"]);
    run.assert_code(1);
    snapshot("cli__several", &run.command, None, &run.stdout);
}

#[test]
fn summary_line() {
    let last = |run: &Run| run.stdout.lines().last().unwrap_or("").to_string();
    assert_eq!(
        last(&lint(&["--no-config", "several"])),
        "checked 5 skills: 1 error, 5 warnings"
    );
    assert_eq!(
        last(&lint(&["--no-config", "mixed"])),
        "checked 3 skills: 1 error, 1 warning"
    );
    assert_eq!(
        last(&lint(&["--no-config", "mixed/notes"])),
        "checked 1 skill: 0 errors, 1 warning"
    );
    let doc = lint(&["--no-config", "--format", "json", "several"]).json();
    assert_eq!(
        doc["summary"],
        serde_json::json!({"skills": 5, "errors": 1, "warnings": 5})
    );
}

/// Two paths to the same skill lint it once.
#[test]
fn overlapping_paths_are_linted_once() {
    let run = lint(&[
        "--no-config",
        "--format",
        "json",
        "mixed",
        "mixed/notes",
        "mixed/notes/SKILL.md",
    ]);
    run.assert_code(1);
    assert_eq!(run.json()["summary"]["skills"], 3);
    assert_eq!(rules_of(&run.json()), ["name-dir-mismatch", "vendor-field"]);
}

// Documentation.

#[test]
fn explain() {
    let run = lint(&["--explain", "name-too-long"]);
    run.assert_code(0).assert_quiet();
    snapshot("cli__explain", &run.command, None, &run.stdout);

    let run = lint(&["--explain", "name-to-long"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    snapshot("cli__explain_unknown", &run.command, None, &run.stderr);
}

/// `--explain` and `--rules` run nothing, but take the global options wherever they are
/// written (`--explain X --color always` was refused with exit 2), and refuse a lint run's.
#[test]
fn explain_and_rules_take_global_options_after_the_subcommand() {
    for args in [
        &["--explain", "name-too-long", "--color", "always"][..],
        &["--explain", "name-too-long", "-q", "--color", "never"],
        &["--rules", "--color", "never"],
        &["--rules", "--format", "json", "-q"],
    ] {
        lint(args).assert_code(0).assert_quiet();
    }
    for args in [
        &["--explain", "name-too-long", "mixed"][..],
        &["--rules", "mixed"],
        &["--rules", "--deny", "vendor-field"],
        &["--rules", "--explain", "name-too-long"],
        &["--rules", "--statistics"],
    ] {
        lint(args).assert_code(2);
    }
    let run = lint(&["--rules", "--format", "sarif"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("--rules prints a table"),
        "{}",
        run.stderr
    );
}

/// `skills lint --rules` lists every rule of the registry, which no command did: an unknown
/// `--explain` pointed to a Markdown file.
#[test]
fn rules_lists_every_rule() {
    let run = lint(&["--rules"]);
    run.assert_code(0).assert_quiet();
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .take(RULES.len())
        .collect();
    let ids: Vec<&str> = RULES.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(rows, ids);
    for line in run.stdout.lines() {
        assert!(line.chars().count() <= 100, "{line:?}");
    }
    snapshot("cli__lint_rules", &run.command, None, &run.stdout);
    // -q: the rules alone, no count or pointer.
    let quiet = lint(&["--rules", "-q"]);
    assert_eq!(
        quiet.stdout.lines().count(),
        RULES.len() + 1,
        "{}",
        quiet.stdout
    );
    let json = lint(&["--rules", "--format", "json"]);
    json.assert_code(0).assert_quiet();
    let doc = json.json();
    let listed: Vec<&str> = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ids);
    let unknown = lint(&["--explain", "nope-nope"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("skills lint --rules") && !unknown.stderr.contains(".md"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn every_rule_can_be_explained() {
    for rule in RULES {
        let run = lint(&["--explain", rule.id.as_str()]);
        run.assert_code(0).assert_quiet();
        assert!(
            run.stdout.starts_with(&format!(
                "{} ({} by default)\n",
                rule.id,
                rule.default.as_str()
            )),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn help() {
    let run = skills(&cli(), &["--help"]);
    run.assert_code(0).assert_quiet();
    snapshot("cli__help", &run.command, None, &run.stdout);
    // The README shows it as it is: doc_examples.rs runs its `$ skills --help`.
    let run = skills(&cli(), &["lint", "--help"]);
    run.assert_code(0).assert_quiet();
    snapshot("cli__lint_help", &run.command, None, &run.stdout);
    // --version: fit::version_names_the_package_version_and_the_commit.
}

/// `skills lint | head`: a reader that goes away is not an error (no exit 2, no message),
/// and the exit code still reports the findings.
#[test]
fn closed_stdout() {
    let run = |args: &[&str]| {
        let (reader, writer) = std::io::pipe().unwrap();
        // Close the read end first, so every write fails with EPIPE.
        drop(reader);
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin!("skills"))
            .current_dir(cli())
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    assert_eq!(
        run(&["lint", "--no-config", "mixed"]),
        (Some(1), String::new())
    );
    assert_eq!(
        run(&["lint", "--no-config", "--format", "json", "mixed/notes"]),
        (Some(0), String::new())
    );
    assert_eq!(
        run(&["lint", "--explain", "name-too-long"]),
        (Some(0), String::new())
    );
}

/// The long options listed in one section (`Options:`, `Global options:`) of a help text.
fn options_in(help: &str, section: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != section)
        .skip(1)
        .take_while(|l| !l.ends_with(':') || l.starts_with(' '))
        .filter_map(|l| {
            let l = l.trim_start();
            // `-h, --help`: the short form first.
            let l = match l.split_once(", ") {
                Some((short, long)) if short.len() == 2 && short.starts_with('-') => long,
                _ => l,
            };
            l.strip_prefix("--")
                .map(|rest| rest.split([' ', '=', '<']).next().unwrap_or("").to_string())
        })
        .filter(|o| !o.is_empty())
        .collect()
}

/// `skills-mcp` (its own lexopt parser, so the server's binary links no clap) takes every
/// option of `skills mcp` (clap), with the same values, and its help names them.
#[test]
fn skills_mcp_takes_every_option_of_skills_mcp() {
    let t = tempfile::tempdir().unwrap();
    let clap_help = skills(t.path(), &["mcp", "--help"]).stdout;
    let mut options = options_in(&clap_help, "Options:");
    options.retain(|o| o != "help" && o != "version");
    options.push("skills-dir".to_string());
    assert!(
        options.len() >= 4 && options.contains(&"log-level".to_string()),
        "{options:?}\n{clap_help}"
    );
    let server = std::process::Command::new(env!("CARGO_BIN_EXE_skills-mcp"))
        .arg("--help")
        .output()
        .unwrap();
    let server_help = String::from_utf8(server.stdout).unwrap();
    for option in &options {
        assert!(
            server_help.contains(&format!("--{option}")),
            "skills-mcp --help lacks --{option}:\n{server_help}"
        );
        // Taken (with a value), then `--help` ends the parse before anything is served.
        let value = match option.as_str() {
            "log-level" => "info",
            "tier" => "2",
            "audit" => "high",
            _ => "x",
        };
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_skills-mcp"))
            .args([&format!("--{option}"), value, "--help"])
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(0),
            "skills-mcp --{option} {value}: {run:?}"
        );
    }
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_skills-mcp"))
        .args(["--log-level", "loud"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("possible values"));
}

#[test]
fn lint_without_paths_lints_the_skills_dirs_and_versions_say_skills() {
    // The global --skills-dir is what lint checks when no PATH is given.
    let run = skills(
        &cli(),
        &["--skills-dir", "mixed", "lint", "--format", "json"],
    );
    run.assert_code(1);
    assert_eq!(run.json()["summary"]["skills"], 3, "{}", run.stdout);
    // Every command's --version is the version of `skills`.
    for command in ["lint", "list", "mcp"] {
        let version = skills(&cli(), &[command, "--version"]);
        version.assert_code(0);
        assert!(
            version.stdout.starts_with("skills "),
            "{command}: {}",
            version.stdout
        );
    }
}

#[test]
fn the_claude_code_profile_expects_its_fields_only() {
    let t = tempfile::tempdir().unwrap();
    let skill = t.path().join("skills/deploy");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: deploy\ndescription: Deploys. Use when asked.\nmodel: opus\nallowed_tools: Bash\n---\nBody.\n",
    )
    .unwrap();
    let vendor = |run: &Run| -> Vec<String> {
        diagnostics(&run.json())
            .iter()
            .filter(|d| d["rule"] == "vendor-field")
            .map(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .split('`')
                    .nth(1)
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let spec = skills(t.path(), &["lint", "--format", "json", "skills"]);
    assert_eq!(vendor(&spec), ["model", "allowed_tools"]);
    std::fs::write(
        t.path().join("skills.toml"),
        "[lint]\nprofile = \"claude-code\"\n",
    )
    .unwrap();
    let claude = skills(t.path(), &["lint", "--format", "json", "skills"]);
    assert_eq!(vendor(&claude), ["allowed_tools"], "{}", claude.stdout);
    std::fs::write(
        t.path().join("skills.toml"),
        "[lint]\nprofile = \"cursor\"\n",
    )
    .unwrap();
    let bad = skills(t.path(), &["lint", "skills"]);
    bad.assert_code(2);
    assert!(bad.stderr.contains("claude-code"), "{}", bad.stderr);
}
