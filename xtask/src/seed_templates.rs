//! `cargo xtask seed-templates DIR`: renders the Jinja templates of seed 000 (the
//! ```` ```jinja ```` blocks of `DIR/000_*.txt`), unchanged, through the real
//! `skills prompt --template` on a small generated skill tree, and fails on any error.
//!
//! The seeds live outside the repository, so this runs in `.ci/run`, not in `cargo test`;
//! their text is read at run time and never copied into the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask seed-templates DIR";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let [dir] = args else {
        bail!("{USAGE}");
    };
    let seed = find_seed(Path::new(dir))?;
    let text = std::fs::read_to_string(&seed)
        .with_context(|| format!("cannot read {}", seed.display()))?;
    let templates = jinja_blocks(&text);
    if templates.len() != 2 {
        bail!(
            "{}: expected 2 ```jinja blocks (router and Level 2), found {}",
            seed.display(),
            templates.len()
        );
    }
    let target = super::target_dir()?;
    let root = &target.join("seed-templates");
    if root.exists() {
        std::fs::remove_dir_all(root)
            .with_context(|| format!("cannot remove {}", root.display()))?;
    }
    write_tree(root)?;
    let exe = xtask::build_skills_dev()?;
    for (i, (target, must)) in [
        (
            "router",
            &[
                "<available_skills>",
                "<name>trino-debug</name>",
                "<name>fetch_url</name>",
                "resource://global/style_guide.md",
            ][..],
        ),
        (
            "trino-debug",
            &[
                "Trino query optimization expert",
                "<name>get_explain_plan</name>",
                "resource://trino/optimization_rules.md",
                "resource://global/style_guide.md",
            ][..],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let template = root.join(format!("seed-{i}.jinja2"));
        std::fs::write(&template, templates.get(i).map_or("", String::as_str))?;
        let mut cmd = Command::new(&exe);
        cmd.current_dir(root).args([
            "--skills-dir",
            "skills",
            "prompt",
            target,
            "--tools",
            "global-tools.json",
            "--resources",
            "global-resources.json",
            "--template",
        ]);
        cmd.arg(&template);
        let out = cmd
            .output()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            bail!(
                "seed template {} (`skills prompt {target}`) failed ({}):\n{}",
                i + 1,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        for m in must {
            if !stdout.contains(m) {
                bail!(
                    "seed template {} (`skills prompt {target}`) lacks `{m}`:\n{stdout}",
                    i + 1
                );
            }
        }
        eprintln!(
            "seed template {} renders with `skills prompt {target}` ({} bytes)",
            i + 1,
            stdout.len()
        );
    }
    Ok(())
}

/// `DIR/000_*.txt`.
fn find_seed(dir: &Path) -> Result<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("000_") && n.ends_with(".txt"))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .next()
        .with_context(|| format!("no 000_*.txt in {}", dir.display()))
}

/// The bodies of the ```` ```jinja ```` fenced blocks, as written.
fn jinja_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim() == "```jinja" => current = Some(String::new()),
            Some(body) if line.trim() == "```" => {
                blocks.push(std::mem::take(body));
                current = None;
            }
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Two skills (one a full context package), global tools and resources.
fn write_tree(root: &Path) -> Result<()> {
    let files: [(&str, &str); 6] = [
        (
            "skills/trino-debug/SKILL.md",
            "---\nname: trino-debug\ndescription: Debug slow Trino queries. Use when a query is slow.\n---\nYou are a Trino query optimization expert.\n",
        ),
        (
            "skills/trino-debug/tools.json",
            r#"[{"name": "get_explain_plan", "description": "Return a query's plan.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}]"#,
        ),
        (
            "skills/trino-debug/resources.json",
            r#"[{"uri": "resource://trino/optimization_rules.md", "name": "rules", "description": "Optimization rules.", "mimeType": "text/markdown"}]"#,
        ),
        (
            "skills/content-creation/SKILL.md",
            "---\nname: content-creation\ndescription: Draft posts. Use when asked to write content.\n---\nYou are a technical writer.\n",
        ),
        (
            "global-tools.json",
            r#"[{"name": "fetch_url", "description": "Fetch a page.", "inputSchema": {"type": "object"}}]"#,
        ),
        (
            "global-resources.json",
            r#"[{"uri": "resource://global/style_guide.md", "name": "style", "description": "Style guide."}]"#,
        ),
    ];
    for (rel, text) in files {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_jinja_blocks() {
        let text = "x\n```jinja\n{{ a }}\n```\n```text\nno\n```\n```jinja\nb\n```\n";
        assert_eq!(jinja_blocks(text), ["{{ a }}\n", "b\n"]);
    }
}
