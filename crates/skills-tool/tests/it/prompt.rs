//! `skills prompt`: the built-in Level-1 and Level-2 prompts, a user template, the JSON
//! context and the token estimates, on the context packages of `testdata/context`.

use crate::{Run, skills, snapshot, testdata};

/// `skills --skills-dir skills prompt ARGS --tools ... --resources ...` in testdata/context.
fn prompt(args: &[&str]) -> Run {
    let mut all = vec!["--skills-dir", "skills", "prompt"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--tools",
        "global/tools.json",
        "--resources",
        "global/resources.json",
    ]);
    skills(&testdata().join("context"), &all)
}

fn snap(name: &str, run: &Run) {
    snapshot(
        name,
        &run.command,
        Some(&testdata().join("context")),
        &run.stdout,
    );
}

#[test]
fn router_prompt() {
    let run = prompt(&["router"]);
    run.assert_code(0).assert_quiet();
    let out = &run.stdout;
    // Seed 000's sections, in its order; view_skill is the first tool.
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no {s} in\n{out}"));
    assert!(at("<available_skills>") < at("<mcp_tools>"));
    assert!(at("<mcp_tools>") < at("<mcp_resources>"));
    assert!(at("<mcp_resources>") < at("## HOW TO WORK"));
    assert!(at("<name>view_skill</name>") < at("<name>fetch_url</name>"));
    assert!(
        !out.contains("get_explain_plan"),
        "scoped tools leak into Level 1"
    );
    snap("prompt__router", &run);
}

#[test]
fn skill_prompt() {
    let run = prompt(&["trino-debug"]);
    run.assert_code(0).assert_quiet();
    let out = &run.stdout;
    assert!(out.starts_with("You are a Trino query optimization expert."));
    // Values are escaped for XML; scoped tools come before the universal ones.
    assert!(out.contains("Run a read-only query &amp; return the first 100 rows (&lt;= 1 MB)."));
    assert!(out.find("<name>run_query</name>") < out.find("<name>view_skill</name>"));
    assert!(
        out.find("resource://trino/optimization_rules.md")
            < out.find("resource://global/style_guide.md")
    );
    snap("prompt__skill", &run);
}

#[test]
fn user_template() {
    let run = prompt(&["trino-debug", "--template", "templates/summary.md.j2"]);
    run.assert_code(0).assert_quiet();
    // Not an .xml template: values as written.
    assert!(
        run.stdout
            .contains("- <references/limits.md> limits [text/markdown]")
    );
    snap("prompt__user_template", &run);

    let run = prompt(&["router", "--template", "templates/broken.j2"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("templates/broken.j2:2: undefined value"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("2 | {{ skill.nmae }}"),
        "{}",
        run.stderr
    );
}

/// Jinja2's filters that minijinja keeps out of its core work in a user's template, with
/// Jinja2's positional arguments; a misspelt one is named, with the filter meant and a help
/// line about filters.
#[test]
fn user_template_filters() {
    let run = prompt(&["trino-debug", "--template", "templates/filters.md.j2"]);
    run.assert_code(0).assert_quiet();
    assert!(
        run.stdout
            .contains("- trino-debug: Debug and optimize slow Trino...\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("Tools: [\"get_explain_plan\", \"run_query\"]")
    );
    assert!(
        run.stdout
            .contains("\nYou are a Trino query optimization expert. Get the\nplan of"),
        "{}",
        run.stdout
    );
    snap("prompt__user_template_filters", &run);

    let run = prompt(&["router", "--template", "templates/typo.j2"]);
    run.assert_code(2);
    let err = crate::unwrapped(&run.stderr);
    assert!(
        err.contains(
            "templates/typo.j2:2: unknown filter: filter tojosn is unknown; did you mean `tojson`?"
        ),
        "{err}"
    );
    assert!(
        err.contains("help: the filters are Jinja2's built-ins"),
        "{err}"
    );
}

#[test]
fn json_context() {
    let run = prompt(&["trino-debug", "--format", "json"]);
    run.assert_code(0).assert_quiet();
    let ctx = run.json();
    let keys: Vec<&String> = ctx.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "level",
            "skill",
            "skills",
            "universal_tools",
            "global_resources",
            "skill_persona_text",
            "scoped_tools",
            "scoped_resources"
        ]
    );
    assert_eq!(ctx["universal_tools"][0]["name"], "view_skill");
    assert_eq!(ctx["scoped_tools"][1]["outputSchema"]["type"], "object");
    snap("prompt__json", &run);

    let run = prompt(&["router", "--format", "json"]);
    let ctx = run.json();
    assert_eq!(
        (ctx["level"].as_u64(), ctx["skill"].is_null()),
        (Some(1), true)
    );
}

#[test]
fn stats() {
    let run = prompt(&["router", "--stats"]);
    run.assert_code(0).assert_quiet();
    snap("prompt__stats", &run);
    let run = prompt(&["router", "--stats", "--format", "json"]);
    let s = run.json();
    let level1 = s["level1_tokens"].as_u64().unwrap();
    let full = s["full_tokens"].as_u64().unwrap();
    assert!(level1 > 0 && full > level1, "{s}");
    assert_eq!(s["saved_tokens"].as_u64(), Some(full - level1));
}

#[test]
fn errors() {
    let run = prompt(&["nope"]);
    run.assert_code(1);
    assert!(
        run.stderr.contains("skill `nope` not found"),
        "{}",
        run.stderr
    );
    // A broken tools.json is an error that points at `skills lint`.
    let run = skills(
        &testdata().join("context"),
        &["--skills-dir", "broken/skills", "prompt", "bad-json"],
    );
    run.assert_code(2);
    assert!(run.stderr.contains("tools.json:3:1"), "{}", run.stderr);
    assert!(run.stderr.contains("skills lint"), "{}", run.stderr);
    // A skill discovery skipped is named as `show` names it, not "not found".
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("skills/broken");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), "---\nname: [broken\n---\nBody.\n").unwrap();
    for command in ["prompt", "show"] {
        let run = skills(t.path(), &["--skills-dir", "skills", command, "broken"]);
        run.assert_code(1);
        assert!(
            run.stderr.contains("exists but was skipped"),
            "{command}: {}",
            run.stderr
        );
    }
}

/// Outside the gateway, a `tools.json` reference (`{"server", "name"}`) is not a tool the
/// prompt can describe: it says what it is and where it is served.
#[test]
fn references_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/trino-debug");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: trino-debug\ndescription: Debug slow Trino queries. Use when a query is slow.\n---\nYou are a Trino expert.\n",
    )
    .unwrap();
    std::fs::write(
        skill.join("tools.json"),
        r#"[{"server": "trino", "name": "query"}, {"server": "fetch", "name": "*"}]"#,
    )
    .unwrap();
    std::fs::write(
        skill.join("resources.json"),
        r#"[{"server": "trino", "uri": "trino://rules.md"}]"#,
    )
    .unwrap();
    let run = skills(
        dir.path(),
        &["--skills-dir", "skills", "prompt", "trino-debug"],
    );
    run.assert_code(0);
    for line in [
        "<description>Tool `query` of the MCP server `trino`, served through `skills mcp --gateway`.</description>",
        "<description>Every tool of the MCP server `fetch`, served through `skills mcp --gateway`.</description>",
        "<uri>trino://rules.md</uri>",
    ] {
        assert!(run.stdout.contains(line), "no {line} in\n{}", run.stdout);
    }
}
