//! Bytes as a `SKILL.md`: parse, validate (with and without a directory name), references,
//! the JSON view; every span must lie inside the text on character boundaries.

#![no_main]

use std::ops::Range;

use libfuzzer_sys::fuzz_target;
use skills_frontmatter::{SkillMd, find_references, line_col, resolve_reference};

fn check_span(text: &str, span: &Range<usize>, what: &dyn std::fmt::Debug) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "span {span:?} outside the text ({} bytes): {what:?}",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "span {span:?} not on character boundaries: {what:?}"
    );
    let _ = line_col(text, span.start);
}

fuzz_target!(|data: &[u8]| {
    match SkillMd::parse(data) {
        Ok(skill) => {
            let text = skill.source();
            for range in [
                skill.opening_fence(),
                skill.frontmatter_range(),
                skill.closing_fence(),
                skill.body_span(),
            ] {
                check_span(text, &range, &"a part of the file");
            }
            for entry in skill.entries() {
                check_span(text, &entry.key_span, entry);
                check_span(text, &entry.value_span, entry);
            }
            for dir in [Some("fuzz"), skill.name(), None] {
                for finding in skill.validate(dir) {
                    if let Some(span) = &finding.span {
                        check_span(text, span, &finding);
                    }
                    let _ = finding.check.id();
                }
            }
            for reference in skill.references() {
                check_span(text, &reference.span, &reference);
                let _ = resolve_reference(&reference.target);
            }
            let _ = skill.frontmatter_json();
            let _ = skill.metadata();
            let _ = (skill.description(), skill.license(), skill.compatibility());
            let _ = skill.allowed_tools();
        }
        Err(err) => {
            let _ = (err.to_string(), err.help(), err.check());
            if let (Ok(text), Some(span)) = (std::str::from_utf8(data), err.span()) {
                check_span(text, &span, &err);
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        for reference in find_references(text) {
            check_span(text, &reference.span, &reference);
        }
        let _ = resolve_reference(text);
    }
});
