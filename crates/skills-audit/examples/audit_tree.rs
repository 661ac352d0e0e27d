//! Audits every skill under the given paths on all cores and prints the totals and the
//! time: the engine alone, without the command's rendering (docs/performance.md, "Audit").
//!
//! `cargo run --release -p skills-audit --example audit_tree -- DIR...`

#![allow(clippy::print_stdout, clippy::unwrap_used, missing_docs)]

use rayon::prelude::*;
use skills_audit::{Auditor, Config, Severity, Target};

fn main() {
    let start = std::time::Instant::now();
    let auditor = Auditor::new(Config::new());
    let mut targets = Vec::new();
    for path in std::env::args().skip(1) {
        targets.extend(skills_audit::find_outer_targets(path.as_ref()).unwrap());
    }
    let lister = skills_core::files::Lister::new();
    let reports: Vec<_> = targets
        .par_iter()
        .filter_map(|t| match t {
            Target::Skill(dir) => auditor.audit_dir_nested(dir, &lister).ok(),
            _ => None,
        })
        .flatten()
        .collect();
    let elapsed = start.elapsed();
    let files: usize = reports.iter().map(|(_, r)| r.files).sum();
    let flagged: Vec<_> = reports
        .iter()
        .filter(|(_, r)| r.max_severity() >= Some(Severity::High))
        .collect();
    println!(
        "{} skills, {files} files, {} with a high or critical finding, in {:.1} ms",
        reports.len(),
        flagged.len(),
        elapsed.as_secs_f64() * 1000.0
    );
    for (dir, r) in flagged {
        println!("  {}: {:?}", dir.display(), r.max_severity());
    }
}
