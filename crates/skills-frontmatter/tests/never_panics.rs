//! Property tests: no input makes the parser or the checks panic, and every span they report
//! lies inside the file on a character boundary.

use proptest::prelude::*;
use skills_frontmatter::SkillMd;

fn check_all(bytes: &[u8]) {
    match SkillMd::parse(bytes) {
        Ok(skill) => {
            let text = skill.source();
            for f in skill.validate(Some("dir")) {
                if let Some(span) = f.span.clone() {
                    assert!(span.start <= span.end && span.end <= text.len(), "{f:?}");
                    assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                }
            }
            for r in skill.references() {
                assert!(r.span.end <= text.len());
            }
            let _ = skill.frontmatter_json();
        }
        Err(err) => {
            if let (Ok(text), Some(span)) = (std::str::from_utf8(bytes), err.span()) {
                assert!(span.start <= span.end && span.end <= text.len(), "{err:?}");
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            }
        }
    }
}

/// Lines that look like frontmatter, so the generator reaches the YAML parser and the checks.
fn yamlish() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("---".to_string()),
        Just("name: a-b".to_string()),
        Just("description: Use when: x".to_string()),
        Just("metadata:".to_string()),
        Just("  version: 1.0".to_string()),
        Just("- item".to_string()),
        Just("a: &x [1, *x]".to_string()),
        Just("b: *x".to_string()),
        Just("c: |".to_string()),
        Just("  [".to_string()),
        Just("\u{feff}".to_string()),
        Just("see [x](../../etc) scripts/a.py".to_string()),
        "[ -~\\t\u{e9}\u{3000}]{0,30}",
    ];
    prop::collection::vec(line, 0..20).prop_map(|lines| {
        let mut s = String::from("---\n");
        s.push_str(&lines.join("\n"));
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_all(&bytes);
    }

    #[test]
    fn frontmatter_shaped_text(text in yamlish()) {
        check_all(text.as_bytes());
        check_all(text.replace('\n', "\r\n").as_bytes());
    }
}
