//! Context packages (seed 000): `tools.json` and `resources.json` in `testdata/context`,
//! linted (valid and broken packages) and shown by `skills show --view summary`.

use crate::{rules_of, skills, snapshot, testdata};

#[test]
fn valid_packages_lint_clean() {
    let run = skills(
        &testdata().join("context"),
        &[
            "lint",
            "--no-config",
            "--strict",
            "--format",
            "json",
            "skills",
        ],
    );
    run.assert_code(0).assert_quiet();
    assert_eq!(rules_of(&run.json()), Vec::<&str>::new());
}

#[test]
fn broken_packages_report_every_rule() {
    let run = skills(
        &testdata().join("context"),
        &["lint", "--no-config", "--format", "json", "broken"],
    );
    run.assert_code(1).assert_quiet();
    let doc = run.json();
    let mut found = rules_of(&doc);
    found.sort_unstable();
    assert_eq!(
        found,
        [
            "resource-duplicate",
            "resource-missing",
            "resource-uri-invalid",
            "tool-duplicate",
            "tool-name-invalid",
            "tool-schema-invalid",
            "tool-shadows-universal",
            "tools-json-invalid",
        ]
    );
    // The syntax error points at its line and column.
    let syntax = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "tools-json-invalid")
        .unwrap();
    assert_eq!(
        (syntax["line"].as_u64(), syntax["column"].as_u64()),
        (Some(3), Some(1))
    );
}

#[test]
fn show_summary_lists_tools_and_resources() {
    let root = testdata().join("context");
    let args = [
        "--skills-dir",
        "skills",
        "show",
        "trino-debug",
        "--view",
        "summary",
    ];
    let run = skills(&root, &args);
    run.assert_code(0).assert_quiet();
    assert!(
        run.stdout
            .contains("tools:\n  get_explain_plan  Return the distributed plan")
    );
    assert!(
        run.stdout
            .contains("resources:\n  resource://trino/optimization_rules.md  ")
    );
    snapshot(
        "context__show_summary_text",
        &run.command,
        Some(&root),
        &run.stdout,
    );

    let run = skills(&root, &[&args[..], &["--format", "json"]].concat());
    run.assert_code(0).assert_quiet();
    let card = run.json();
    assert_eq!(card["tools"][1]["name"], "run_query");
    assert_eq!(card["tools"][0]["inputSchema"]["required"][0], "query");
    assert_eq!(card["resources"][1]["uri"], "references/limits.md");
    snapshot(
        "context__show_summary_json",
        &run.command,
        Some(&root),
        &run.stdout,
    );

    // A skill without context files has neither field, and the card view never shows them.
    let run = skills(
        &root,
        &[
            "--skills-dir",
            "skills",
            "show",
            "content-creation",
            "--view",
            "summary",
            "--format",
            "json",
        ],
    );
    let card = run.json();
    assert!(card.get("tools").is_none() && card.get("resources").is_none());
    let run = skills(
        &root,
        &[
            "--skills-dir",
            "skills",
            "show",
            "trino-debug",
            "--view",
            "card",
            "--format",
            "json",
        ],
    );
    assert!(run.json().get("tools").is_none());
}
