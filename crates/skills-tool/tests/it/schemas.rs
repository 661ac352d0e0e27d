//! The JSON Schemas of `docs/schemas/` against real output: every `--format json` document
//! the binary prints for the fixtures (good and bad skills, context packages, each
//! `--view`, `list --all` with shadowed and skipped skills) must validate against its
//! schema, and each schema must be a valid draft 2020-12 schema.
//!
//! The schemas are closed (`additionalProperties: false`) and name their required fields, so
//! a renamed, added or removed field fails here until the schema (and its documentation) is
//! updated. `args.rs`'s unit test `every_json_output_has_a_schema` checks that every
//! `--format json` the CLI offers has a file here.

use std::path::{Path, PathBuf};

use jsonschema::Validator;
use serde_json::Value;

use crate::discovery::Tree;
use crate::{Run, skills, testdata};

/// Every schema in `docs/schemas/`, each validated against output below.
const SCHEMAS: &[&str] = &[
    "lint",
    "lint-statistics",
    "lint-rules",
    "audit",
    "audit-rules",
    "list",
    "show",
    "url",
    "prompt",
    "prompt-stats",
    "search",
    "doctor",
];

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas")
}

fn load(name: &str) -> Value {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn compile(name: &str, schema: &Value) -> Validator {
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{name}.schema.json: {e}"))
}

/// Fails with every error when `run`'s stdout does not validate against `validator`.
#[track_caller]
fn check_with(validator: &Validator, schema: &str, run: &Run) -> Value {
    let doc = run.json();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("  at `{}`: {e}", e.instance_path()))
        .take(20)
        .collect();
    assert!(
        errors.is_empty(),
        "the output of `{}` does not match docs/schemas/{schema}.schema.json:\n{}\n--- output\n{}",
        run.command,
        errors.join("\n"),
        run.stdout
    );
    doc
}

/// Checks `run`'s output against `docs/schemas/<schema>.schema.json`, returns the document.
#[track_caller]
pub(crate) fn check(schema: &str, run: &Run) -> Value {
    check_with(&compile(schema, &load(schema)), schema, run)
}

#[test]
fn schema_files_are_draft_2020_12_with_ids_titles_and_descriptions() {
    let mut files: Vec<String> = std::fs::read_dir(schema_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = SCHEMAS.iter().map(|s| format!("{s}.schema.json")).collect();
    expected.sort();
    assert_eq!(files, expected, "docs/schemas/ and SCHEMAS differ");
    for name in SCHEMAS {
        let schema = load(name);
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{name}.schema.json is not a valid draft 2020-12 schema: {e}");
        }
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        let id = schema["$id"].as_str().unwrap_or_default();
        assert!(
            id.starts_with("https://")
                && id.ends_with(&format!("/docs/schemas/{name}.schema.json")),
            "{name}: $id {id}"
        );
        for key in ["title", "description"] {
            assert!(schema[key].is_string(), "{name}: no {key}");
        }
    }
}

#[test]
fn audit_json_matches_its_schema() {
    // Bad and good fixtures of every rule, a suppression, an archive-free tree of many.
    let run = skills(
        &testdata().join("audit"),
        &["audit", "rules", "--format", "json"],
    );
    run.assert_code(1);
    let doc = check("audit", &run);
    assert!(doc["skills"].as_array().unwrap().len() >= 2 * skills_audit::RULES.len());
    let rules = skills(&testdata(), &["audit", "--rules", "--format", "json"]);
    rules.assert_code(0);
    check("audit-rules", &rules);
}

#[test]
fn lint_rules_json_matches_its_schema() {
    let run = skills(&testdata(), &["lint", "--rules", "--format", "json"]);
    run.assert_code(0);
    let doc = check("lint-rules", &run);
    assert_eq!(
        doc["rules"].as_array().unwrap().len(),
        skills_lint::RULES.len()
    );
}

#[test]
fn lint_statistics_json_matches_its_schema() {
    let run = skills(
        &testdata(),
        &["lint", "--statistics", "--format", "json", "rules"],
    );
    run.assert_code(1);
    let doc = check("lint-statistics", &run);
    let rules = doc["rules"].as_array().unwrap();
    assert!(rules.len() > 20, "{doc:#}");
    let counts: Vec<u64> = rules.iter().map(|r| r["count"].as_u64().unwrap()).collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "most first: {counts:?}"
    );
    let total: u64 = counts.iter().sum();
    assert_eq!(
        total,
        doc["errors"].as_u64().unwrap() + doc["warnings"].as_u64().unwrap()
    );
}

#[test]
fn lint_json_matches_its_schema() {
    let data = testdata();
    // Every rule's bad and good fixtures: findings with and without positions, both severities.
    let run = skills(&data, &["lint", "--format", "json", "rules"]);
    run.assert_code(1);
    let doc = check("lint", &run);
    let diags = doc["diagnostics"].as_array().unwrap();
    assert!(
        diags.iter().any(|d| d["line"].is_null()),
        "no finding without a position"
    );
    assert!(
        diags.iter().any(|d| d["line"].is_u64()),
        "no finding with a position"
    );
    assert!(
        diags.iter().any(|d| d["severity"] == "warning"),
        "no warning"
    );
    assert!(diags.iter().any(|d| d["severity"] == "error"), "no error");
    // Clean skills: an empty list. Context packages, good and broken.
    check(
        "lint",
        skills(&data, &["lint", "--format", "json", "cli/good"]).assert_code(0),
    );
    check(
        "lint",
        skills(&data, &["lint", "--format", "json", "context/skills"]).assert_code(0),
    );
    check(
        "lint",
        skills(&data, &["lint", "--format", "json", "context/broken"]).assert_code(1),
    );
}

#[test]
fn list_json_matches_its_schema() {
    let t = Tree::standard();
    let doc = check("list", t.run(&["list", "--format", "json"]).assert_code(0));
    assert!(
        !doc["skipped"].as_array().unwrap().is_empty(),
        "no skipped skill"
    );
    let all = check(
        "list",
        t.run(&["list", "--all", "--format", "json"]).assert_code(0),
    );
    let listed = all["skills"].as_array().unwrap();
    assert!(
        listed.iter().any(|s| s["shadowed_by"].is_string()),
        "no shadowed skill"
    );
    let scopes: Vec<&str> = listed
        .iter()
        .map(|s| s["scope"].as_str().unwrap())
        .collect();
    assert!(
        scopes.contains(&"project") && scopes.contains(&"global"),
        "{scopes:?}"
    );
    // Custom roots, one that does not exist, skills skipped for bad YAML.
    let data = testdata();
    let run = skills(
        &data,
        &[
            "--skills-dir",
            "cli/mixed",
            "--skills-dir",
            "cli/configured",
            "--skills-dir",
            "rules/yaml-invalid/bad",
            "--skills-dir",
            "no-such-root",
            "list",
            "--all",
            "--format",
            "json",
        ],
    );
    check("list", run.assert_code(0));
}

#[test]
fn show_json_matches_its_schema_in_every_view() {
    let schema = load("show");
    let any_view = compile("show", &schema);
    // The same schema with the top level narrowed to one view's definition.
    let view = |name: &str| {
        let mut one = schema.clone();
        let obj = one.as_object_mut().unwrap();
        obj.remove("oneOf");
        obj.insert("$ref".into(), Value::from(format!("#/$defs/{name}")));
        compile("show", &one)
    };
    let data = testdata();
    let cases: [(&str, &str); 4] = [
        ("examples", "pdf-processing"), // license, compatibility, allowed tools, metadata
        ("context/skills", "trino-debug"), // tools.json and resources.json
        ("context/skills", "content-creation"),
        ("cli/good", "crlf-endings"),
    ];
    for (root, id) in cases {
        for (flag, def) in [
            (Some("card"), "card"),
            (Some("summary"), "summary"),
            (Some("full"), "full"),
            (None, "full"),
        ] {
            let mut args = vec!["--skills-dir", root, "show", id, "--format", "json"];
            if let Some(v) = flag {
                args.extend(["--view", v]);
            }
            let run = skills(&data, &args);
            run.assert_code(0);
            check_with(&any_view, "show", &run);
            check_with(&view(def), &format!("show (view {def})"), &run);
        }
    }
    // A flat skill, and the fields only some skills have.
    let t = Tree::standard();
    let flat = t.run(&["show", "deploy", "--format", "json"]);
    check_with(&view("full"), "show", flat.assert_code(0));
    let pdf = check_with(
        &view("summary"),
        "show",
        skills(
            &data,
            &[
                "--skills-dir",
                "examples",
                "show",
                "pdf-processing",
                "--view",
                "summary",
                "--format",
                "json",
            ],
        )
        .assert_code(0),
    );
    for key in ["license", "compatibility", "allowed_tools", "metadata"] {
        assert!(pdf.get(key).is_some(), "pdf-processing has no {key}");
    }
}

#[test]
fn url_json_matches_its_schema() {
    let urls = [
        "https://github.com/anthropics/skills/blob/main/skills/pdf/SKILL.md",
        "https://github.com/anthropics/skills/tree/main/skills/pdf/",
        "https://github.com/anthropics/skills",
        "https://raw.githubusercontent.com/o/r/main/SKILL.md",
        "https://github.acme.com/team/repo/blob/main/SKILL.md",
        "https://gitlab.com/group/sub/project/-/tree/main/skills/pdf",
        "https://bitbucket.org/org/repo/src/main/skills/name/SKILL.md",
        "https://gist.github.com/octocat/aa5a315d61ae9438b18d",
        "https://example.com/skills/pdf/SKILL.md",
    ];
    let validator = compile("url", &load("url"));
    let mut hosts = Vec::new();
    for url in urls {
        let run = skills(&std::env::temp_dir(), &["url", "--format", "json", url]);
        let doc = check_with(&validator, "url", run.assert_code(0));
        hosts.push(doc["host"].as_str().unwrap().to_string());
    }
    hosts.sort();
    hosts.dedup();
    assert_eq!(
        hosts,
        [
            "bitbucket",
            "gist",
            "github",
            "github-enterprise",
            "gitlab",
            "other"
        ],
        "not every host kind was seen"
    );
}

#[test]
fn prompt_json_matches_its_schema() {
    let data = testdata();
    let context = compile("prompt", &load("prompt"));
    let stats = compile("prompt-stats", &load("prompt-stats"));
    let globals = [
        "--tools",
        "context/global/tools.json",
        "--resources",
        "context/global/resources.json",
    ];
    for target in ["router", "trino-debug", "content-creation"] {
        for with_globals in [false, true] {
            let mut args = vec!["--skills-dir", "context/skills", "prompt", target];
            if with_globals {
                args.extend(globals);
            }
            let mut json = args.clone();
            json.extend(["--format", "json"]);
            let doc = check_with(&context, "prompt", skills(&data, &json).assert_code(0));
            assert_eq!(doc["level"], if target == "router" { 1 } else { 2 });
            json.push("--stats");
            check_with(&stats, "prompt-stats", skills(&data, &json).assert_code(0));
        }
    }
    // No skills at all: the router alone.
    let empty = tempfile::tempdir().unwrap();
    let root = empty.path().to_str().unwrap();
    let run = skills(
        &data,
        &["--skills-dir", root, "prompt", "router", "--format", "json"],
    );
    check_with(&context, "prompt", run.assert_code(0));
}
