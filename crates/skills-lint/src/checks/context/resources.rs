//! `resources.json`: the MCP resources a skill scopes to itself (`resources-json-invalid`,
//! `resource-uri-invalid`, `resource-duplicate`, `resource-missing`): definitions, and
//! references to a downstream server's resources (`{"server": "trino", "uri": "…"}`, `"*"`
//! for all of them) that `skills mcp --gateway` reads from it.

use std::collections::HashMap;
use std::ops::Range;

use super::{Finding, elements, fields, kind, required_str, span_of, value};
use crate::rules::RuleId;

pub use skills_core::layout::RESOURCES_FILE;

/// Checks the text of a `resources.json`; `exists` says whether a path relative to the
/// skill directory names a file of the skill.
pub(crate) fn check_resources(
    text: &str,
    exists: &dyn Fn(&str) -> bool,
    closest: &dyn Fn(&str) -> Option<String>,
) -> Vec<Finding> {
    const RULE: RuleId = RuleId::ResourcesJsonInvalid;
    let items = match elements(text, RULE, RESOURCES_FILE) {
        Ok(items) => items,
        Err(f) => return vec![f],
    };
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let fields = match fields(text, item, RULE, "resource", i) {
            Ok(f) => f,
            Err(f) => {
                out.push(f);
                continue;
            }
        };
        let mut what = format!("resource #{}", i + 1);
        if let Some(raw) = fields.get("server") {
            let server = value(raw);
            if !server.as_str().is_some_and(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            }) {
                out.push(
                    Finding::new(
                        RULE,
                        format!("`server` of {what} must name a downstream MCP server (letters, digits, `-`, `_`)"),
                        Some(span_of(text, raw)),
                    )
                    .help("write the server's name as the gateway file's `mcpServers` has it"),
                );
                continue;
            }
            match required_str(
                text,
                item,
                &fields,
                "uri",
                RuleId::ResourceUriInvalid,
                &what,
            ) {
                Ok((uri, span)) if uri.trim().is_empty() => out.push(
                    Finding::new(
                        RuleId::ResourceUriInvalid,
                        format!("the `uri` of {what} is empty"),
                        Some(span),
                    )
                    .help("give the URI of one of the server's resources, or `*` for all of them"),
                ),
                Ok((uri, span)) => {
                    let key = format!("{}/{uri}", server.as_str().unwrap_or_default());
                    if let Some(first) = seen.get(&key) {
                        out.push(
                            Finding::new(
                                RuleId::ResourceDuplicate,
                                format!(
                                    "resource `{uri}` is already referenced (resource #{})",
                                    first + 1
                                ),
                                Some(span),
                            )
                            .help("remove one of the references"),
                        );
                    } else {
                        seen.insert(key, i);
                    }
                }
                Err(f) => out.push(f),
            }
            continue;
        }
        match required_str(
            text,
            item,
            &fields,
            "uri",
            RuleId::ResourceUriInvalid,
            &what,
        ) {
            Ok((uri, span)) => {
                what = format!("resource `{uri}`");
                out.extend(check_uri(&uri, span.clone(), exists, closest));
                if let Some(first) = seen.get(&uri) {
                    out.push(
                        Finding::new(
                            RuleId::ResourceDuplicate,
                            format!(
                                "resource `{uri}` is already listed (resource #{})",
                                first + 1
                            ),
                            Some(span),
                        )
                        .help("remove one of the entries"),
                    );
                } else {
                    seen.insert(uri, i);
                }
            }
            Err(f) => out.push(f),
        }
        match required_str(text, item, &fields, "name", RULE, &what) {
            Ok((n, span)) if n.trim().is_empty() => out.push(
                Finding::new(RULE, format!("`name` of {what} is empty"), Some(span))
                    .help("name the resource"),
            ),
            Ok(_) => {}
            Err(f) => out.push(f),
        }
        match required_str(text, item, &fields, "description", RULE, &what) {
            Ok(_) => {}
            Err(f) => out
                .push(f.help("add `\"description\"`: what the resource holds and when to read it")),
        }
        if let Some(raw) = fields.get("mimeType") {
            let v = value(raw);
            if !v.is_string() {
                out.push(
                    Finding::new(
                        RULE,
                        format!("`mimeType` of {what} is {}, not a string", kind(&v)),
                        Some(span_of(text, raw)),
                    )
                    .help("write the MIME type as a string, e.g. `\"text/markdown\"`"),
                );
            }
        }
    }
    out
}

/// `uri` must be an RFC 3986 URI reference: with a scheme (`resource://`, `file:`,
/// `https:` ...), or a relative path that names a file in the skill.
fn check_uri(
    uri: &str,
    span: Range<usize>,
    exists: &dyn Fn(&str) -> bool,
    closest: &dyn Fn(&str) -> Option<String>,
) -> Option<Finding> {
    const RULE: RuleId = RuleId::ResourceUriInvalid;
    if uri.trim().is_empty() {
        return Some(
            Finding::new(
                RULE,
                "the resource's `uri` is empty".to_string(),
                Some(span),
            )
            .help("give a URI such as `resource://my-skill/rules.md`, or a path in the skill"),
        );
    }
    let parsed = match fluent_uri::UriRef::parse(uri) {
        Ok(u) => u,
        Err(e) => {
            let hint = if uri.contains(char::is_whitespace) {
                "percent-encode spaces as `%20`"
            } else {
                "write an RFC 3986 URI, e.g. `resource://my-skill/rules.md`"
            };
            return Some(
                Finding::new(RULE, format!("`{uri}` is not a valid URI: {e}"), Some(span))
                    .help(hint),
            );
        }
    };
    if parsed.has_scheme() {
        return None;
    }
    if parsed.has_authority() || uri.starts_with('/') {
        return Some(
            Finding::new(
                RULE,
                format!("`{uri}` has no scheme and is not a path relative to the skill"),
                Some(span),
            )
            .help("add a scheme (`resource://`, `file://`, `https://`) or use a path relative to the skill directory"),
        );
    }
    let path = parsed.path().decode().to_string_lossy();
    let Some(resolved) = skills_frontmatter::resolve_reference(&path).filter(|p| !p.is_empty())
    else {
        return Some(
            Finding::new(
                RULE,
                format!("`{uri}` climbs out of the skill directory"),
                Some(span),
            )
            .help("copy the file into the skill, or give it a URI with a scheme"),
        );
    };
    if exists(&resolved) {
        return None;
    }
    let help = match closest(&resolved) {
        Some(c) => format!("did you mean `{c}`? Paths are relative to the skill directory"),
        None => "add the file, or correct the path (relative to the skill directory)".to_string(),
    };
    Some(
        Finding::new(
            RuleId::ResourceMissing,
            format!("`{uri}` does not exist in the skill"),
            Some(span),
        )
        .help(help),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(found: &[Finding]) -> Vec<RuleId> {
        found.iter().map(|f| f.rule).collect()
    }

    #[test]
    fn references_to_a_downstream_server() {
        let none = |_: &str| false;
        let closest = |_: &str| None;
        let check = |text: &str| rules(&check_resources(text, &none, &closest));
        assert_eq!(
            check(
                r#"[{"server": "trino", "uri": "*"}, {"server": "trino", "uri": "trino://rules.md"}]"#
            ),
            Vec::<RuleId>::new()
        );
        assert_eq!(
            check(r#"[{"server": "a b", "uri": "*"}]"#),
            [RuleId::ResourcesJsonInvalid]
        );
        assert_eq!(
            check(r#"[{"server": "t", "uri": ""}]"#),
            [RuleId::ResourceUriInvalid]
        );
        assert_eq!(
            check(r#"[{"server": "t", "uri": "x://a"}, {"server": "t", "uri": "x://a"}]"#),
            [RuleId::ResourceDuplicate]
        );
    }

    #[test]
    fn resources() {
        let exists = |p: &str| p == "references/rules.md";
        let closest = |_: &str| Some("references/rules.md".to_string());
        let check = |text: &str| check_resources(text, &exists, &closest);
        let res = |uri: &str| {
            format!(
                r#"{{"uri": "{uri}", "name": "n", "description": "d", "mimeType": "text/markdown"}}"#
            )
        };
        let ok = format!(
            "[{}, {}, {}]",
            res("resource://trino/rules.md"),
            res("references/rules.md"),
            res("./references/rules.md?x#y")
        );
        assert_eq!(rules(&check(&ok)), Vec::<RuleId>::new());
        assert_eq!(
            rules(&check(&format!("[{}]", res("rules.md")))),
            [RuleId::ResourceMissing]
        );
        for bad in [
            "",
            "has space.md",
            "/etc/passwd",
            "//host/x",
            "../out.md",
            "a:b c",
        ] {
            let found = check(&format!("[{}]", res(bad)));
            assert_eq!(rules(&found), [RuleId::ResourceUriInvalid], "{bad:?}");
        }
        let dup = format!("[{}, {}]", res("resource://a"), res("resource://a"));
        assert_eq!(rules(&check(&dup)), [RuleId::ResourceDuplicate]);
        assert_eq!(
            rules(&check(r#"[{"uri": "resource://a", "mimeType": 1}]"#)),
            [
                RuleId::ResourcesJsonInvalid,
                RuleId::ResourcesJsonInvalid,
                RuleId::ResourcesJsonInvalid
            ]
        );
        assert_eq!(rules(&check("[1,]")), [RuleId::ResourcesJsonInvalid]);
    }
}
