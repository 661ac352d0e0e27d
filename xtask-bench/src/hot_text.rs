//! `cargo xtask hot-text [--skills N] [--corpus DIR]...`: writes
//! `crates/skills-tool/link/skills-mcp-hot.txt`, the symbol ordering file that lays out the
//! functions `skills-mcp` runs in a session first in its text, so that they share as few
//! pages as possible (docs/performance.md, "MCP server"; skills-tool's `build.rs` says
//! when it is used).
//!
//! For the `release` profile (what `cargo install` builds) and `dist` (releases and the
//! benchmarks), it builds `skills-mcp` with its symbols, serves the generated tree of
//! `bench mcp` and real skills (`--corpus DIR`, by default `../shared/corpus-large/antigravity`
//! when it is there) under Valgrind's callgrind while a client makes the requests of a
//! session (every list, every prompt, `get_skill` of each skill, the other tools once), and
//! reads the functions that ran. The file names each one exactly, as the linker looks it up
//! (the names carry a hash of the build's settings and dependencies: those of both profiles
//! are listed, and a name a build lacks is passed over). After a dependency or profile change
//! the names go stale and the layout with them: run it again; `bench mcp` shows the peak
//! resident memory it buys.
//!
//! Needs `valgrind` (Debian's package) on Linux x86_64.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::bench::mcp::{self, Server};
use crate::bench::{flags, generate_tree, positive};
use crate::{cargo, run_checked, target_dir, workspace_root};

/// Where the ordering file goes, from the workspace root.
const ORDER: &str = "crates/skills-tool/link/skills-mcp-hot.txt";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut skills = 1_000;
    let mut corpora = Vec::new();
    let usage = "cargo xtask hot-text [--skills N] [--corpus DIR]...";
    for (flag, value) in flags(args, &["--skills", "--corpus"], usage)? {
        match flag {
            "--skills" => skills = positive(&value, flag)?,
            _ => corpora.push(PathBuf::from(value)),
        }
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        bail!("`valgrind` is not installed (apt-get install valgrind)");
    }
    // The bench's generated tree, and real skills: their frontmatter, Markdown and files
    // take paths the generated ones do not.
    let mut roots = vec![generate_tree(skills)?.join("skills")];
    if corpora.is_empty() {
        corpora.push(workspace_root().join("../shared/corpus-large/antigravity"));
    }
    for corpus in corpora {
        if corpus.is_dir() {
            roots.push(corpus);
        } else {
            eprintln!("note: {} is not a directory, left out", corpus.display());
        }
    }
    let mut exact = Vec::new();
    for profile in ["release", "dist"] {
        let exe = build(profile)?;
        // The functions of every session first, then those of the occasional requests: a
        // session that makes none of those has all it runs in the first pages.
        let (mut common, mut all) = (Vec::new(), Vec::new());
        for root in &roots {
            common.extend(executed(&exe, root, Session::Common)?);
            all.extend(executed(&exe, root, Session::Full)?);
        }
        let common_set: HashSet<&String> = common.iter().collect();
        let more: HashSet<&String> = all.iter().filter(|f| !common_set.contains(f)).collect();
        eprintln!(
            "{profile}: {} functions ran, {} more with the occasional requests",
            common_set.len(),
            more.len()
        );
        exact.extend(common);
        exact.extend(all);
    }
    let order = order(&exact);
    let path = workspace_root().join(ORDER);
    std::fs::write(&path, order).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Builds `skills-mcp` of `profile` with its symbols (`dist` keeps them; `release` strips
/// them, so that link alone is redone without), laid out by the linker alone: Valgrind
/// attributes the code of a second executable section to no object.
fn build(profile: &str) -> Result<PathBuf> {
    eprintln!("building skills-mcp ({profile}) with symbols...");
    let mut command = cargo(["rustc", "--profile", profile, "-p", "skills-tool"]);
    command.args(["--bin", "skills-mcp", "--", "-C", "strip=none"]);
    command.env("SKILLS_NO_HOT_TEXT", "1");
    run_checked(&mut command)?;
    let exe = target_dir()?.join(profile).join("skills-mcp");
    if !exe.is_file() {
        bail!("built skills-mcp but {} does not exist", exe.display());
    }
    Ok(exe)
}

/// What a client asks in the profiled session.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Session {
    /// What every client does: the lists, every page of them, a resource, each skill once.
    Common,
    /// And the rest: the prompts and the other tools.
    Full,
}

/// The mangled names of the functions of `exe` that ran while serving `root` a session,
/// in the order callgrind first reports them.
fn executed(exe: &Path, root: &Path, kind: Session) -> Result<Vec<String>> {
    let out = target_dir()?.join("hot-text.callgrind");
    let mut command = Command::new("valgrind");
    command
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .args(["--demangle=no", "--quiet"])
        .arg(exe)
        .arg("--skills-dir")
        .arg(root)
        .args(["--log-level", "off"]);
    let mut server = Server::spawn(command)?;
    session(&mut server, kind)?;
    server.stop()?;
    let text =
        std::fs::read_to_string(&out).with_context(|| format!("cannot read {}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    Ok(functions_of(&text, exe))
}

/// The requests of a session of `kind`: each skill `skills/list` names is fetched once.
fn session(server: &mut Server, kind: Session) -> Result<()> {
    mcp::initialize(server)?;
    server.call("ping", json!({}))?;
    server.call("tools/list", json!({}))?;
    server.call("resources/templates/list", json!({}))?;
    let mut ids = Vec::new();
    for method in ["resources/list", "skills/list"] {
        let mut params = json!({});
        loop {
            let (page, _) = server.call(method, params)?;
            if method == "skills/list" {
                let skills = page.get("skills").and_then(Value::as_array);
                ids.extend(skills.into_iter().flatten().filter_map(skill_id));
            }
            match page.get("nextCursor") {
                Some(cursor) => params = json!({"cursor": cursor}),
                None => break,
            }
        }
    }
    if let Some(id) = ids.first() {
        let uri = format!("skill://{id}/SKILL.md");
        server.call("resources/read", json!({"uri": uri}))?;
    }
    for id in &ids {
        server.call(
            "tools/call",
            json!({"name": "get_skill", "arguments": {"id": id}}),
        )?;
    }
    if kind == Session::Common {
        return Ok(());
    }
    let (prompts, _) = server.call("prompts/list", json!({}))?;
    for prompt in prompts
        .get("prompts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = prompt.get("name").and_then(Value::as_str) {
            server.call("prompts/get", json!({"name": name}))?;
        }
    }
    let name = ids.first().map_or("", String::as_str);
    for (tool, arguments) in [
        ("list_skills", json!({})),
        ("skill", json!({"name": name})),
        ("view_skill", json!({"skill_name": name})),
    ] {
        server.call("tools/call", json!({"name": tool, "arguments": arguments}))?;
    }
    Ok(())
}

/// The id of a skill of a `skills/list` page: its directory, from `skill://<id>/SKILL.md`.
fn skill_id(skill: &Value) -> Option<String> {
    let uri = skill.get("uri")?.as_str()?;
    let id = uri.strip_prefix("skill://")?.strip_suffix("/SKILL.md")?;
    Some(id.to_string())
}

/// The functions of the object `exe` that ran, from a callgrind profile: each `fn=` line
/// while the current `ob=` is `exe` (or an object it has no name for). Callgrind names each object and function once, as
/// `ob=(id) name` (or `cob=`, `fn=`, `cfn=`), and by `(id)` alone after that.
fn functions_of(profile: &str, exe: &Path) -> Vec<String> {
    let exe = exe.to_string_lossy();
    let mut objects: HashMap<&str, &str> = HashMap::new();
    let mut functions: HashMap<&str, &str> = HashMap::new();
    let mut in_exe = false;
    let mut seen = HashSet::new();
    let mut names = HashSet::new();
    let mut ran = Vec::new();
    for line in profile.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (id, name) = match value.strip_prefix('(').and_then(|v| v.split_once(')')) {
            Some((id, name)) => (id, name.trim_start()),
            None => (value, value),
        };
        match key {
            "ob" | "cob" => {
                if !name.is_empty() && name != id {
                    objects.insert(id, name);
                }
                if key == "ob" {
                    // An object callgrind could not name is code it found outside the
                    // mappings it knows, which can only be the executable's.
                    in_exe = objects.get(id).is_none_or(|object| *object == exe);
                }
            }
            "fn" | "cfn" => {
                if !name.is_empty() && name != id {
                    functions.insert(id, name);
                }
                if key == "fn"
                    && in_exe
                    && seen.insert(id)
                    && let Some(name) = functions.get(id)
                {
                    // Callgrind tells recursion levels apart with a `'N` suffix.
                    let name = name.split('\'').next().unwrap_or(name);
                    if is_symbol(name) && names.insert(name) {
                        ran.push(name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    ran
}

/// A name the linker could have given a section: callgrind also reports addresses it has
/// no symbol for (`0x...`) and `(below main)`.
fn is_symbol(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with("0x")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// The symbol ordering file: each function's name once, in the order given, under a
/// comment (`#`, which LLD's reader skips). The linker places the section that holds each
/// symbol in that order ahead of the rest of its output section, whatever the section is
/// called (LLVM names a `#[cold]` function's `.text.unlikely.<name>`).
fn order(exact: &[String]) -> String {
    let mut out = String::from(
        "# Written by `cargo xtask hot-text`: do not edit. The functions skills-mcp runs in a\n\
         # session, laid out first in its text (crates/skills-tool/build.rs says when this is\n\
         # used; docs/performance.md, \"MCP server\", what it saves).\n",
    );
    let mut seen = HashSet::new();
    for name in exact {
        if seen.insert(name.as_str()) {
            out.push_str(name);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_of_reads_the_objects_own_functions_once() {
        let profile = "ob=(1) /lib/libc.so.6\nfn=(1) malloc\n0 3\nob=(2) /t/skills-mcp\n\
                       fn=(2) _ZN3foo3bar17h0123456789abcdefE\n0 1\ncob=(1)\ncfn=(1)\n\
                       cfn=(3) _ZN3foo3baz17h0123456789abcdefE'2\nfn=(4) 0x0000000000351a80\n\
                       fn=(5) (below main)\nob=(1)\nfn=(6) pow\nob=(2)\nfn=(3)\nfn=(2)\n";
        assert_eq!(
            functions_of(profile, Path::new("/t/skills-mcp")),
            [
                "_ZN3foo3bar17h0123456789abcdefE",
                "_ZN3foo3baz17h0123456789abcdefE"
            ]
        );
    }

    #[test]
    fn the_order_names_each_symbol_once_in_order() {
        let order = order(&[
            "_ZN3foo3bar17h0123456789abcdefE".to_string(),
            "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal".to_string(),
            "_ZN3foo3bar17h0123456789abcdefE".to_string(),
            "_ZN3foo3bar17hfedcba9876543210E".to_string(),
        ]);
        let lines: Vec<&str> = order.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "_ZN3foo3bar17h0123456789abcdefE",
                "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal",
                "_ZN3foo3bar17hfedcba9876543210E",
            ]
        );
        assert!(order.starts_with("# Written by `cargo xtask hot-text`"));
    }
}
