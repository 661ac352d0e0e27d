//! `skills mcp --audit SEVERITY`: skills whose audit (`skills-audit`) finds anything at or
//! above the severity are not served: not listed by `list_skills`, the router prompt or
//! `skills/list`, and refused by every tool and method that loads one. Each is named on
//! stderr once, with its findings, when it is first refused (again if its files change).
//!
//! A skill's verdict is kept while its files stat the same (each file's [`Stamp`], from the
//! file policy's listing), so a request costs a listing and a `stat` per file, and an edit
//! is audited again before the next request serves it.
//!
//! The server holds its gate as a [`Refusals`] made by [`crate::Config::audit`] alone, so a
//! binary that never calls that (`skills-mcp`, which hands `--audit` to `skills mcp`) links
//! none of the audit: its parsers and their grammar tables are a fifth of the binary
//! (docs/performance.md, "Building").

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use skills_audit::{Auditor, Severity};
use skills_core::Stamp;
use skills_discovery::Skill;

/// Each file of a skill with its stamp: what a verdict was made for.
type Stamps = Vec<(String, Option<Stamp>)>;

/// What the server asks of its audit gate: why a skill is not served, if it is not.
pub(crate) trait Refusals: std::fmt::Debug + Send + Sync {
    /// Why `skill` is not served, or `None` when it is.
    fn refusal(&self, skill: &Skill) -> Option<String>;
}

/// The gate that refuses skills with findings at or above `at`, as the server holds it.
pub(crate) fn gate(at: Severity) -> std::sync::Arc<dyn Refusals> {
    std::sync::Arc::new(Gate::new(at))
}

/// The audit gate of one server.
#[derive(Debug)]
pub(crate) struct Gate {
    at: Severity,
    auditor: Auditor,
    /// By skill directory: the files' stamps when audited, and why it is refused (`None`:
    /// served).
    verdicts: Mutex<HashMap<std::path::PathBuf, (Stamps, Option<String>)>>,
}

impl Gate {
    /// A gate that refuses skills with findings at or above `at`. Only the user's own
    /// configuration could suppress a finding, and a server has none: the skill's inline
    /// markers are not honoured (its author wrote them).
    pub(crate) fn new(at: Severity) -> Self {
        let mut config = skills_audit::Config::new();
        config.inline = false;
        Self {
            at,
            auditor: Auditor::new(config),
            verdicts: Mutex::new(HashMap::new()),
        }
    }
}

impl Refusals for Gate {
    fn refusal(&self, skill: &Skill) -> Option<String> {
        let dir = skill.dir.as_path();
        let stamps = stamps(dir);
        let mut verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((seen, verdict)) = verdicts.get(dir)
            && *seen == stamps
        {
            return verdict.clone();
        }
        let verdict = self.audit(skill);
        if let Some(why) = &verdict {
            tracing::warn!(skill = %skill.skill_md.display(), "not served: {why}");
        }
        verdicts.insert(dir.to_path_buf(), (stamps, verdict.clone()));
        verdict
    }
}

impl Gate {
    fn audit(&self, skill: &Skill) -> Option<String> {
        let report = match self.auditor.audit_dir(&skill.dir) {
            Ok(report) => report,
            Err(e) => return Some(format!("its files could not be audited: {e}")),
        };
        let found: Vec<String> = report
            .at_least(self.at)
            .map(|f| {
                let at = if f.line > 0 {
                    format!("{}:{}", f.path, f.line)
                } else {
                    f.path.clone()
                };
                format!("{at} {} {} ({})", f.severity, f.rule, f.message)
            })
            .collect();
        if found.is_empty() {
            return None;
        }
        Some(format!(
            "the audit found {} finding(s) at or above {} (--audit {}): {}",
            found.len(),
            self.at,
            self.at,
            found.join("; ")
        ))
    }
}

/// Each file of the skill (the file policy's listing) with its stamp.
fn stamps(dir: &Path) -> Stamps {
    match skills_core::files::list(dir) {
        Ok(listing) => listing
            .files
            .iter()
            .map(|f| (f.path.clone(), Stamp::read(&f.real)))
            .collect(),
        Err(_) => Vec::new(),
    }
}
