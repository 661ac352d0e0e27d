//! The prefilter that skips parsing code which can hold no finding must not change a
//! finding: every skill of `testdata/audit` (each rule's bad and good fixtures, the
//! labelled set, and `prefilter/`, commands spelled apart and shell inside the strings of
//! Python and JavaScript) audited with it and with `Config::exhaustive` gives the same
//! report.
//! `cargo xtask audit-prefilter DIR…` makes the same comparison on real trees.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use skills_audit::{Auditor, Config, Target};

#[test]
fn prefilter_keeps_every_finding() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/audit");
    let fast = Auditor::new(Config::new());
    let mut config = Config::new();
    config.exhaustive = true;
    let slow = Auditor::new(config);
    let mut skills = 0;
    let mut findings = 0;
    for target in skills_audit::find_targets(&root).unwrap() {
        let Target::Skill(dir) = target else { continue };
        let a = fast.audit_dir(&dir).unwrap();
        let b = slow.audit_dir(&dir).unwrap();
        // The prefilter's own fixtures are each written to have findings to lose.
        if dir.parent().is_some_and(|p| p.ends_with("prefilter")) {
            assert!(!b.findings.is_empty(), "{} has no finding", dir.display());
        }
        assert_eq!(a.findings, b.findings, "{}", dir.display());
        assert_eq!(a.suppressed, b.suppressed, "{}", dir.display());
        skills += 1;
        findings += b.findings.len();
    }
    // The comparison covered the fixtures, and they have findings to lose.
    assert!(
        skills > 100,
        "only {skills} skills under {}",
        root.display()
    );
    assert!(findings > 50, "only {findings} findings");
}
