//! The labelled set, `testdata/audit/labelled/`: malicious skills of every category and
//! tricky-benign ones (security documentation quoting payloads, allow-listed installers,
//! `.env` API keys, PATH exports...). A malicious skill is caught when it has a finding at
//! or above high; a benign skill with one is a false positive. Below the thresholds this
//! test fails; `cargo xtask bench audit` prints the same figures beside Cisco's scanner.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr
)]
// MAX_FALSE_POSITIVES is 0 today; the comparison stays written as a bound.
#![allow(clippy::absurd_extreme_comparisons)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skills_audit::{Auditor, Config, Severity};

#[derive(serde::Deserialize)]
struct Label {
    label: String,
    category: String,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/audit/labelled")
}

/// At least this share of the malicious skills caught.
const MIN_RECALL: f64 = 0.95;
/// At most this many benign skills with a high or critical finding.
const MAX_FALSE_POSITIVES: usize = 0;

#[test]
fn recall_and_false_positives() {
    let text = std::fs::read_to_string(dir().join("labels.toml")).unwrap();
    let labels: BTreeMap<String, Label> = toml::from_str(&text).unwrap();
    let auditor = Auditor::new(Config::new());
    let (mut caught, mut malicious, mut fp, mut benign) = (0, 0, Vec::new(), 0);
    let mut missed = Vec::new();
    let mut categories: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (name, label) in &labels {
        let report = auditor.audit_dir(&dir().join(name)).unwrap();
        let flagged = report.max_severity() >= Some(Severity::High);
        match label.label.as_str() {
            "malicious" => {
                malicious += 1;
                let c = categories.entry(label.category.as_str()).or_default();
                c.1 += 1;
                if flagged {
                    caught += 1;
                    c.0 += 1;
                } else {
                    missed.push(format!("{name}: {:?}", report.findings));
                }
            }
            "benign" => {
                benign += 1;
                if flagged {
                    fp.push(format!(
                        "{name}: {:#?}",
                        report.at_least(Severity::High).collect::<Vec<_>>()
                    ));
                }
            }
            other => panic!("{name}: label `{other}`"),
        }
    }
    for entry in std::fs::read_dir(dir()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                labels.contains_key(&name),
                "{name} has no label in labels.toml"
            );
        }
    }
    let recall = caught as f64 / malicious as f64;
    eprintln!("labelled set: {malicious} malicious, {benign} benign");
    eprintln!(
        "recall {caught}/{malicious} = {recall:.3}; false positives {}/{benign}",
        fp.len()
    );
    for (cat, (c, n)) in &categories {
        eprintln!("  {cat}: {c}/{n}");
    }
    assert!(
        recall >= MIN_RECALL,
        "recall {recall:.3} is below {MIN_RECALL}; missed:\n{}",
        missed.join("\n")
    );
    assert!(
        fp.len() <= MAX_FALSE_POSITIVES,
        "{} false positives (at most {MAX_FALSE_POSITIVES}):\n{}",
        fp.len(),
        fp.join("\n")
    );
    // Every category of the issue has malicious examples.
    for cat in [
        "instructions",
        "remote-code",
        "exfiltration",
        "persistence",
        "destructive",
        "secrets",
        "obfuscation",
        "grants",
    ] {
        assert!(
            categories.contains_key(cat),
            "no malicious example of {cat}"
        );
    }
}
