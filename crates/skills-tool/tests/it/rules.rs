//! Every rule of the registry against its fixtures: `testdata/rules/<rule>/bad` is a
//! minimal tree that triggers that rule and nothing else, `good` is the same tree fixed.
//!
//! The test iterates [`skills_lint::RULES`], so a new rule without fixtures fails it.

use skills_lint::{RULES, Rule, Severity};

use crate::{diagnostics, rules_of, skills, snapshot, testdata};

/// Rules whose trees cannot be committed as plain files; `generated.rs` builds them.
pub(crate) const GENERATED: [&str; 5] = [
    "file-too-large",
    "file-unreadable",
    "file-not-packageable",
    "too-many-files",
    "skill-too-large",
];

/// Rules that need `skills lint --gateway FILE` and its downstream MCP servers:
/// `tests/gateway.rs` runs them against real ones.
pub(crate) const GATEWAY_ONLY: [&str; 1] = ["tool-reference-unknown"];

/// The exit code a tree whose only findings are `rule`'s gets without `--strict`.
fn exit_code(rule: &Rule) -> i32 {
    match rule.default {
        Severity::Error => 1,
        Severity::Warning => 0,
    }
}

fn check_rule(rule: &Rule) {
    let id = rule.id.as_str();
    let dir = testdata().join("rules").join(id);
    for kind in ["bad", "good"] {
        assert!(
            dir.join(kind).is_dir(),
            "no fixture testdata/rules/{id}/{kind}: add one, or list the rule in GENERATED with a test in generated.rs"
        );
    }
    let code = exit_code(rule);

    // bad, as JSON: only this rule, at its default severity.
    let args = ["lint", "--no-config", "--format", "json", "bad"];
    let run = skills(&dir, &args);
    run.assert_code(code).assert_quiet();
    let doc = run.json();
    let found = rules_of(&doc);
    assert!(
        found.contains(&id),
        "{id}: bad/ does not trigger the rule; it reports {found:?}"
    );
    assert!(
        found.iter().all(|r| *r == id),
        "{id}: bad/ triggers other rules too: {found:?}"
    );
    for d in diagnostics(&doc) {
        assert_eq!(d["severity"], rule.default.as_str(), "{id}: severity");
    }
    snapshot(
        &format!("rules__{id}__json"),
        &run.command,
        None,
        &run.stdout,
    );

    // bad, for people.
    let args = [
        "lint",
        "--no-config",
        "--format",
        "human",
        "--color",
        "never",
        "bad",
    ];
    let run = skills(&dir, &args);
    run.assert_code(code).assert_quiet();
    assert!(run.stdout.contains(id), "{id}: human output lacks the id");
    snapshot(
        &format!("rules__{id}__human"),
        &run.command,
        None,
        &run.stdout,
    );

    // good: no finding at all, not even a warning.
    let args = [
        "lint",
        "--no-config",
        "--strict",
        "--format",
        "json",
        "good",
    ];
    let run = skills(&dir, &args);
    run.assert_code(0).assert_quiet();
    let doc = run.json();
    assert_eq!(
        rules_of(&doc),
        Vec::<&str>::new(),
        "{id}: good/ is not clean"
    );
    assert!(
        doc["summary"]["skills"].as_u64() >= Some(1),
        "{id}: good/ has no skill"
    );
}

#[test]
fn every_rule_fires_on_bad_and_not_on_good() {
    let mut failed = Vec::new();
    for rule in RULES
        .iter()
        .filter(|r| !GENERATED.contains(&r.id.as_str()) && !GATEWAY_ONLY.contains(&r.id.as_str()))
    {
        // Check every rule, then report all the failures (their panics are printed above).
        if std::panic::catch_unwind(|| check_rule(rule)).is_err() {
            failed.push(rule.id.as_str());
        }
    }
    assert!(
        failed.is_empty(),
        "rules failing their fixtures: {failed:?}"
    );
}

#[test]
fn fixtures_match_the_registry() {
    for id in GENERATED {
        assert!(
            RULES.iter().any(|r| r.id.as_str() == id),
            "GENERATED lists unknown rule {id}"
        );
        assert!(
            !testdata().join("rules").join(id).exists(),
            "{id} is generated; remove testdata/rules/{id}"
        );
    }
    for entry in std::fs::read_dir(testdata().join("rules")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        assert!(
            RULES.iter().any(|r| r.id.as_str() == name),
            "testdata/rules/{name} is not a rule id"
        );
        let mut kinds: Vec<String> = std::fs::read_dir(entry.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        kinds.sort();
        assert_eq!(kinds, ["bad", "good"], "testdata/rules/{name}");
    }
}

/// The fixtures whose point is their raw bytes: `testdata/.gitattributes` (`* -text`) keeps
/// git from normalizing them.
#[test]
fn fixture_bytes_survive_checkout() {
    let read = |rel: &str| std::fs::read(testdata().join(rel)).unwrap();
    let bom = read("rules/utf8-bom/bad/pdf-processing/SKILL.md");
    assert!(bom.starts_with(b"\xEF\xBB\xBF---\n"));
    let latin1 = read("rules/invalid-utf8/bad/pdf-processing/SKILL.md");
    assert!(latin1.contains(&0xE9) && std::str::from_utf8(&latin1).is_err());
    let crlf = read("cli/good/crlf-endings/SKILL.md");
    let lf = crlf.iter().filter(|&&b| b == b'\n').count();
    let cr_lf = crlf.windows(2).filter(|w| w == b"\r\n").count();
    assert!(lf > 0 && lf == cr_lf, "CRLF fixture lost its CRs");
}
