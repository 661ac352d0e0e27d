//! The agents table of `docs/add.md` is generated from `skills_add::AGENTS`: this test fails
//! when the section between the page's `agents:begin` and `agents:end` markers differs from
//! what the table says, and writes the section instead when `AGENTS_DOCS_WRITE=1` is set.

#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

use std::fmt::Write as _;
use std::path::PathBuf;

use skills_add::agents::NAMED_ONLY;
use skills_add::{AGENTS, Agent, Scope};

/// The page, relative to the workspace root.
const DOCS: &str = "docs/add.md";

/// The variable that makes the test write the section rather than compare it.
const WRITE: &str = "AGENTS_DOCS_WRITE";

const BEGIN: &str = "<!-- agents:begin: generated from skills_add::AGENTS by \
crates/skills-add/tests/agents_doc.rs; AGENTS_DOCS_WRITE=1 cargo test -p skills-add --test \
agents_doc rewrites it -->\n";
const END: &str = "<!-- agents:end -->";

#[test]
fn the_docs_agent_table_is_the_code_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DOCS);
    let committed = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\r\n", "\n");
    let (Some(begin), Some(end)) = (committed.find(BEGIN), committed.find(END)) else {
        panic!("{DOCS} has no agents table markers ({BEGIN} ... {END})");
    };
    let start = begin + BEGIN.len();
    assert!(
        start <= end,
        "{DOCS}: the agents table markers are out of order"
    );
    let table = generate();
    if committed[start..end] == table {
        return;
    }
    if std::env::var_os(WRITE).is_some_and(|v| v == "1") {
        let text = format!("{}{table}{}", &committed[..start], &committed[end..]);
        // Atomically, as every file the project writes: an interrupted run leaves the old page.
        skills_core::durable::write_atomically(&path, text.as_bytes()).unwrap();
        eprintln!("wrote the agents table of {DOCS} ({} agents)", AGENTS.len());
        return;
    }
    panic!(
        "{DOCS}'s agents table is not skills_add::AGENTS: run \
         `{WRITE}=1 cargo test -p skills-add --test agents_doc` and commit the page"
    );
}

/// The section: a count and a row per agent, in the table's order.
fn generate() -> String {
    let mut out = format!("{} agents:\n\n", AGENTS.len());
    out.push_str("| `--agent` | Agent | Project folder | Global folder | Detected by |\n");
    out.push_str("|---|---|---|---|---|\n");
    for a in AGENTS {
        let global = match a.global_dir {
            Some(dir) => under_home(a, dir),
            None => "none (project only)".to_string(),
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| `{}` | {} | `{}` | {global} | {} |",
            a.id,
            a.name,
            a.project_dir,
            detected_by(a)
        );
    }
    out
}

/// `~/rel`, and where the agent's variable moves it, what it becomes.
fn under_home(a: &Agent, rel: &str) -> String {
    let moved = a.home_var.and_then(|var| {
        let rest = rel.strip_prefix(var.replaces)?;
        (rest.is_empty() || rest.starts_with('/')).then(|| format!("${}{rest}", var.name))
    });
    match moved {
        Some(moved) => format!("`~/{rel}` (`{moved}` if set)"),
        None => format!("`~/{rel}`"),
    }
}

/// What says the agent is used, in each scope where it needs a link.
fn detected_by(a: &Agent) -> String {
    let mut parts = Vec::new();
    if !a.reads_universal(Scope::Project) {
        parts.push(match a.project_marker() {
            Some(m) => format!("`{m}`"),
            None => "`--agent` in a project".to_string(),
        });
    }
    if a.global_dir.is_some() && !a.reads_universal(Scope::Global) {
        parts.push(match a.global_marker {
            Some(m) => under_home(a, m),
            None => "`--agent` for `--global`".to_string(),
        });
    }
    assert_eq!(
        parts.iter().any(|p| p.starts_with("`--agent`")),
        NAMED_ONLY.contains(&a.id),
        "{}",
        a.id
    );
    if parts.is_empty() {
        "—".to_string()
    } else {
        parts.join(", ")
    }
}
