//! Helpers the linter's tests share: a skill tree written into a temporary directory.

use std::path::Path;

use crate::diagnostic::Report;
use crate::rules::RuleId;

pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

pub(crate) fn rules_of(report: &Report) -> Vec<RuleId> {
    report.diagnostics().map(|d| d.rule).collect()
}

pub(crate) const FM: &str = "---\nname: NAME\ndescription: Does x. Use when asked.\n---\n";

pub(crate) fn skill(root: &Path, name: &str, body: &str) {
    write(
        root,
        &format!("{name}/SKILL.md"),
        &(FM.replace("NAME", name) + body),
    );
}
