//! The OpenAPI document tells the truth: every endpoint it lists is routed, and what the
//! server answers validates against the schemas it gives. The copy under `docs/` is the
//! same document.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use crate::support;

use serde_json::{Value, json};
use skills_registry::http::{ENDPOINTS, OPENAPI};
use support::{Backend, Harness, skill_md};

fn document() -> Value {
    serde_json::from_str(OPENAPI).unwrap()
}

/// Why `instance` does not validate against `#/components/schemas/NAME` (refs resolve in
/// the document), or `None`.
fn errors(name: &str, instance: &Value) -> Option<String> {
    let doc = document();
    let schema = json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"],
    });
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    validator.validate(instance).err().map(|e| e.to_string())
}

#[track_caller]
fn check(name: &str, instance: &Value) {
    if let Some(e) = errors(name, instance) {
        panic!("{name}: {e}\n{instance:#}");
    }
}

#[test]
fn the_copy_in_docs_is_the_served_document() {
    let docs =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/registry-openapi.json");
    let Ok(copy) = std::fs::read_to_string(&docs) else {
        // Outside the repository (a published crate) there is no docs/.
        assert!(
            !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../Cargo.toml")
                .is_file()
        );
        return;
    };
    assert!(
        copy == OPENAPI,
        "docs/registry-openapi.json differs from crates/skills-registry/src/openapi.json: copy it over"
    );
    assert_eq!(document()["openapi"], "3.1.0");
}

#[test]
fn every_documented_endpoint_is_routed_and_answers_in_its_schemas() {
    let h = Harness::start_with(&Backend::Sqlite, |c, _| {
        c.servers = vec![skills_registry::KnownServer::new(
            "/servers/x",
            vec!["t".into()],
        )];
    });
    let admin = h.client("root", &[], true);
    let path = "/o/r/main/s/SKILL.md";
    h.serve(
        path,
        &skill_md(
            "s",
            "Does s. Use when s.",
            "allowed-tools: Read mcp__x__t\nmetadata:\n  tags: a b\n",
        ),
    );
    let created = admin.post("/api/skills", &json!({"skill_md_url": h.url(path)}));
    assert_eq!(created.status, 201);
    check("SummaryView", &created.json());

    for (method, template) in ENDPOINTS {
        let target = template
            .replace("{name}", "s")
            .replace("{version}", "1")
            .replace("{*path}", "SKILL.md");
        let reply = match method {
            "GET" => admin.get(&target),
            "HEAD" => admin.head(&target),
            "POST" if target.ends_with("/rate") => admin.post(&target, &json!({"rating": 4})),
            // Not an archive: refused, but routed.
            "POST" if target.ends_with("/versions") => admin.post(&target, &json!({})),
            "POST" => admin.post(&target, &json!({"skill_md_url": h.url(path)})),
            "PUT" => admin.put(&target, &json!({})),
            "DELETE" => continue, // below, last
            other => panic!("{other}"),
        };
        assert_ne!(reply.status, 405, "{method} {template}");
        assert!(
            !(reply.status == 404 && reply.body.contains("no such endpoint")),
            "{method} {template} is documented but not routed"
        );
    }

    check("SkillList", &admin.get("/api/skills").json());
    check("SkillList", &admin.get("/api/skills?view=summary").json());
    check(
        "SkillList",
        &admin.get("/api/skills?view=full&limit=1").json(),
    );
    check("CardView", &admin.get("/api/skills/s?view=card").json());
    let summary = admin.get("/api/skills/s").json();
    check("SummaryView", &summary);
    // The views are strict: one never passes for another, nor a card with a wrong type.
    assert!(errors("CardView", &summary).is_some());
    assert!(errors("FullView", &summary).is_some());
    let mut broken = summary.clone();
    broken["num_stars"] = json!("five");
    assert!(errors("SummaryView", &broken).is_some());
    check("FullView", &admin.get("/api/skills/s?view=full").json());
    check(
        "Rating",
        &admin
            .post("/api/skills/s/rate", &json!({"rating": 5}))
            .json(),
    );
    check("Rating", &admin.get("/api/skills/s/rating").json());
    check("Health", &admin.get("/api/skills/s/health").json());
    check("Tools", &admin.get("/api/skills/s/tools").json());
    check(
        "SummaryView",
        &admin.put("/api/skills/s/disable", &json!(null)).json(),
    );
    check(
        "SummaryView",
        &admin.put("/api/skills/s/enable", &json!(null)).json(),
    );
    for (reply, status) in [
        (support::Client::anonymous(&h).get("/api/skills"), 401),
        (admin.get("/api/skills/nothing"), 404),
        (admin.get("/api/skills?limit=0"), 400),
        (
            admin.post("/api/skills", &json!({"skill_md_url": h.url(path)})),
            409,
        ),
    ] {
        assert_eq!(reply.status, status, "{}", reply.body);
        assert_eq!(reply.header("content-type"), "application/problem+json");
        check("Problem", &reply.json());
    }
    h.serve("/o/r/main/bad/SKILL.md", "---\nname: Bad\n---\n");
    let lint = admin.post(
        "/api/skills",
        &json!({"skill_md_url": h.url("/o/r/main/bad/SKILL.md")}),
    );
    assert_eq!(lint.status, 422);
    check("LintProblem", &lint.json());

    let served = admin.get("/api/openapi.json");
    assert_eq!(served.header("content-type"), "application/json");
    assert_eq!(served.json(), document());
    assert_eq!(admin.delete("/api/skills/s").status, 204);
}
