//! Keeping the docs honest, and the shape of the code what the docs say it is.
//!
//! - Every file the code map of `docs/ARCHITECTURE.md` names exists. The code map is what a
//!   newcomer reads first; a renamed or deleted file it still names sends them looking for
//!   something that is gone. Each `### \`crates/NAME\`` (or `### \`xtask\``) section names
//!   files in backticks (`walk.rs`, `render/snippet.rs`, `tests/it/fit.rs`); each must
//!   resolve inside that crate: as written from the crate's directory or its `src/`, or, for a
//!   bare file name, as a file of that name anywhere in the crate.
//! - The crate graph in `docs/ARCHITECTURE.md` is the one `cargo metadata` reports
//!   (`cargo xtask tidy --bless` writes it).
//! - The README's crate table names every published crate, and only those.
//! - The dependency table names every `[workspace.dependencies]` entry, and each crate it
//!   says uses one does.
//! - No command of `skills-tool` imports another (what they share lives outside `commands/`).
//! - Each crate the `release` profile builds at `opt-level = "s"` is set back to 3 in `dist`
//!   (releases and benchmarks run the servers at full speed), and only those.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The file extensions a code-map token with a directory must have to be taken for a path.
const EXTENSIONS: [&str; 6] = [".rs", ".toml", ".md", ".yaml", ".yml", ".json"];

/// `cargo xtask tidy [--bless]`: the checks, or (`--bless`) the crate graph written first.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let root = crate::workspace_root();
    match args {
        [] => check(&root),
        [flag] if flag == "--bless" => {
            let path = root.join("docs/ARCHITECTURE.md");
            let text = std::fs::read_to_string(&path)?;
            let graph = crate_graph(&metadata()?);
            std::fs::write(&path, with_graph(&text, &graph)?)?;
            check(&root)
        }
        [other, ..] => bail!("unknown argument `{other}` (expected --bless)"),
    }
}

/// Every check of this module.
pub(crate) fn check(root: &Path) -> Result<()> {
    let path = root.join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let meta = metadata()?;
    let mut problems = Vec::new();
    let graph = crate_graph(&meta);
    if with_graph(&text, &graph)? != text {
        problems.push(
            "docs/ARCHITECTURE.md's crate graph is not the workspace's: run `cargo xtask tidy --bless`"
                .to_string(),
        );
    }
    problems.extend(readme_crates(root, &meta)?);
    problems.extend(dependency_table(root, &text, &meta)?);
    problems.extend(commands_import_no_command(root)?);
    let manifest = root.join("Cargo.toml");
    problems.extend(dist_undoes_size(
        &std::fs::read_to_string(&manifest)
            .with_context(|| format!("cannot read {}", manifest.display()))?,
    )?);
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    code_map(root, &text)
}

/// The crates `release` builds at `s` (for `cargo install`'s build time and size) and the
/// ones `dist` sets back to 3 are the same: one added to the first list alone would make
/// every release and benchmark run it slower without anyone measuring that.
fn dist_undoes_size(manifest: &str) -> Result<Vec<String>> {
    let table: toml::Table = toml::from_str(manifest).context("cannot parse Cargo.toml")?;
    let levels = |profile: &str| -> Vec<(String, toml::Value)> {
        table
            .get("profile")
            .and_then(|p| p.get(profile))
            .and_then(|p| p.get("package"))
            .and_then(toml::Value::as_table)
            .map(|packages| {
                packages
                    .iter()
                    .filter_map(|(name, t)| Some((name.clone(), t.get("opt-level")?.clone())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let size = toml::Value::String("s".to_string());
    let full = toml::Value::Integer(3);
    let release: Vec<_> = levels("release")
        .into_iter()
        .filter(|(_, level)| *level == size)
        .map(|(name, _)| name)
        .collect();
    let dist: Vec<_> = levels("dist")
        .into_iter()
        .filter(|(_, level)| *level == full)
        .map(|(name, _)| name)
        .collect();
    let mut problems = Vec::new();
    for name in release.iter().filter(|name| !dist.contains(name)) {
        problems.push(format!(
            "Cargo.toml: `{name}` is built at `opt-level = \"s\"` in `release` but not set back to 3 in `dist`: add `[profile.dist.package.{name}]` with `opt-level = 3`"
        ));
    }
    for name in dist.iter().filter(|name| !release.contains(name)) {
        problems.push(format!(
            "Cargo.toml: `[profile.dist.package.{name}]` sets `opt-level = 3` but `release` does not build `{name}` at `s`: remove it"
        ));
    }
    Ok(problems)
}

/// The code map's files exist.
fn code_map(root: &Path, text: &str) -> Result<()> {
    let missing = missing_paths(root, text);
    if !missing.is_empty() {
        let list: Vec<String> = missing
            .iter()
            .map(|(section, token)| format!("  {section}: `{token}`"))
            .collect();
        bail!(
            "docs/ARCHITECTURE.md's code map names files that do not exist:\n{}\n\
             fix the names (or the map) in the same commit that moves the files",
            list.join("\n")
        );
    }
    Ok(())
}

/// A workspace package as `cargo metadata --no-deps` tells it.
#[derive(Debug, serde::Deserialize)]
struct Package {
    name: String,
    manifest_path: PathBuf,
    #[serde(default)]
    publish: Option<Vec<String>>,
    dependencies: Vec<Dependency>,
}

#[derive(Debug, serde::Deserialize)]
struct Dependency {
    name: String,
    /// `null` for normal dependencies, `dev` or `build`.
    kind: Option<String>,
    #[serde(default)]
    path: Option<PathBuf>,
}

#[derive(Debug, serde::Deserialize)]
struct Metadata {
    packages: Vec<Package>,
}

fn metadata() -> Result<Metadata> {
    let out = crate::cargo([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ])
    .stderr(std::process::Stdio::inherit())
    .output()
    .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed");
    }
    serde_json::from_slice(&out.stdout).context("cargo metadata's JSON")
}

/// The library and binary crates under `crates/`, by name.
fn crates(meta: &Metadata) -> Vec<&Package> {
    let mut out: Vec<&Package> = meta
        .packages
        .iter()
        .filter(|p| {
            p.manifest_path
                .parent()
                .and_then(Path::parent)
                .is_some_and(|d| d.ends_with("crates"))
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// One line per crate: its name and the workspace crates it depends on (normal
/// dependencies), fewest dependencies first, so each line names only crates above it.
fn crate_graph(meta: &Metadata) -> String {
    let all = crates(meta);
    let internal = |p: &Package| -> Vec<String> {
        let mut deps: Vec<String> = p
            .dependencies
            .iter()
            .filter(|d| d.kind.is_none() && d.path.is_some())
            .map(|d| d.name.clone())
            .collect();
        deps.sort();
        deps.dedup();
        deps
    };
    // Depth in the graph: a crate comes after everything it depends on.
    let mut placed: Vec<(String, Vec<String>)> = Vec::new();
    let mut left: Vec<(String, Vec<String>)> =
        all.iter().map(|p| (p.name.clone(), internal(p))).collect();
    while !left.is_empty() {
        let (ready, rest): (Vec<_>, Vec<_>) = left
            .into_iter()
            .partition(|(_, deps)| deps.iter().all(|d| placed.iter().any(|(n, _)| n == d)));
        if ready.is_empty() {
            // A cycle cannot build; shown as it is rather than looping.
            placed.extend(rest);
            break;
        }
        placed.extend(ready);
        left = rest;
    }
    let width = placed.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut out = String::from("```text\n");
    for (name, deps) in &placed {
        let line = if deps.is_empty() {
            format!("{name}\n")
        } else {
            format!("{name:width$} → {}\n", deps.join(", "))
        };
        out.push_str(&line);
    }
    out.push_str("```\n");
    out
}

const GRAPH_BEGIN: &str =
    "<!-- crate-graph:begin: `cargo xtask tidy --bless` writes this from cargo metadata -->\n";
const GRAPH_END: &str = "<!-- crate-graph:end -->";

/// `text` with the graph between its markers replaced by `graph`.
fn with_graph(text: &str, graph: &str) -> Result<String> {
    let (Some(begin), Some(end)) = (text.find(GRAPH_BEGIN), text.find(GRAPH_END)) else {
        bail!("docs/ARCHITECTURE.md has no crate graph markers ({GRAPH_END} and its begin line)");
    };
    let start = begin + GRAPH_BEGIN.len();
    if end < start {
        bail!("docs/ARCHITECTURE.md's crate graph markers are out of order");
    }
    Ok(format!("{}{graph}{}", &text[..start], &text[end..]))
}

/// The README's crate table against the published crates.
fn readme_crates(root: &Path, meta: &Metadata) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(root.join("README.md"))?;
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| [`"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let mut problems = Vec::new();
    for p in crates(meta) {
        let published = p
            .publish
            .as_ref()
            .is_none_or(|registries| !registries.is_empty());
        match (published, listed.contains(&p.name.as_str())) {
            (true, false) => problems.push(format!(
                "README.md's crate table does not list {}, a published crate",
                p.name
            )),
            (false, true) => problems.push(format!(
                "README.md's crate table lists {}, which is not published",
                p.name
            )),
            _ => {}
        }
    }
    for name in listed {
        if !crates(meta).iter().any(|p| p.name == name) {
            problems.push(format!(
                "README.md's crate table lists {name}, which is no crate"
            ));
        }
    }
    Ok(problems)
}

/// The dependency table (`## Dependencies and why`): every workspace dependency has a row,
/// and a crate a row says uses it does (directly, as a normal, dev or build dependency).
fn dependency_table(root: &Path, text: &str, meta: &Metadata) -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let external: Vec<&str> = manifest
        .split("[workspace.dependencies]")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("skills-"))
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty())
        .collect();
    let section = text
        .split("## Dependencies and why")
        .nth(1)
        .unwrap_or_default()
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let rows: Vec<(Vec<String>, Vec<String>)> = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| crate") && !l.starts_with("| ---"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let deps = cells
                .get(1)?
                .split(',')
                .filter_map(|d| d.split_whitespace().next())
                .map(str::to_string)
                .collect();
            let users = cells
                .get(2)?
                .split([',', '(', ')'])
                .filter_map(|u| u.split_whitespace().next())
                .map(str::to_string)
                .collect();
            Some((deps, users))
        })
        .collect();
    let mut problems = Vec::new();
    for dep in &external {
        if !rows.iter().any(|(deps, _)| deps.iter().any(|d| d == dep)) {
            problems.push(format!(
                "docs/ARCHITECTURE.md's dependency table has no row for `{dep}` ([workspace.dependencies]): say why it is there"
            ));
        }
    }
    let crates = crates(meta);
    let known = |dep: &str| {
        external.contains(&dep)
            || meta
                .packages
                .iter()
                .any(|p| p.dependencies.iter().any(|d| d.name == dep))
    };
    for (deps, users) in &rows {
        // Rows of no crate (`(none new)`, `git (the executable)`) say nothing to check.
        if !deps.iter().any(|d| known(d)) {
            continue;
        }
        for user in users {
            let Some(krate) = crates.iter().find(|p| {
                p.name == format!("skills-{user}") || (user == "tool" && p.name == "skills-tool")
            }) else {
                continue;
            };
            let uses = krate.dependencies.iter().any(|d| deps.contains(&d.name));
            if !uses {
                problems.push(format!(
                    "docs/ARCHITECTURE.md's dependency table says {} uses {}, which it does not depend on",
                    krate.name,
                    deps.join(", ")
                ));
            }
        }
    }
    Ok(problems)
}

/// A command module of `skills-tool` that names another: `super::<command>::` from a file
/// of `commands/`, or `crate::commands::` anywhere in it.
fn commands_import_no_command(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("crates/skills-tool/src/commands");
    let mut commands = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem != "mod" {
            commands.push(stem.to_string());
        }
    }
    let mut problems = Vec::new();
    let mut files = Vec::new();
    collect_rs(&dir, &mut files)?;
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        // A file directly in `commands/` (or a command directory's mod.rs) reaches its
        // siblings through `super::`; a file deeper in, through `super::super::`.
        let depth = file
            .strip_prefix(&dir)
            .map(|r| r.components().count())
            .unwrap_or(1);
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let sibling_prefix = if depth == 1 || (depth == 2 && is_mod) {
            "super::"
        } else {
            "super::super::"
        };
        for command in &commands {
            let own = file
                .strip_prefix(&dir)
                .ok()
                .and_then(|r| r.components().next())
                .and_then(|c| Path::new(c.as_os_str()).file_stem().map(|s| s.to_owned()))
                .is_some_and(|s| s == command.as_str());
            let needle = format!("{sibling_prefix}{command}::");
            if !own && text.contains(&needle) {
                problems.push(format!(
                    "{rel} imports the command `{command}` (`{needle}`): move what they share out of commands/"
                ));
            }
        }
        if text.contains("crate::commands::") {
            problems.push(format!(
                "{rel} names `crate::commands::`: a command imports no other"
            ));
        }
    }
    Ok(problems)
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `(section, token)` for every path named in a crate's section that does not resolve.
fn missing_paths(root: &Path, text: &str) -> Vec<(String, String)> {
    let mut missing = Vec::new();
    let mut section: Option<PathBuf> = None;
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(heading) = line.strip_prefix("### `") {
            section = heading
                .strip_suffix('`')
                .map(|dir| root.join(dir))
                .filter(|dir| dir.join("Cargo.toml").is_file());
            continue;
        }
        if line.starts_with("## ") || line.starts_with("### ") {
            section = None;
            continue;
        }
        let Some(dir) = &section else { continue };
        for token in backticked(line).filter(|t| is_path(t)) {
            if !resolves(root, dir, token) {
                let name = dir.strip_prefix(root).unwrap_or(dir).display().to_string();
                missing.push((name, token.to_string()));
            }
        }
    }
    missing
}

/// The text between each pair of backticks on `line`.
fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// A source file (`walk.rs`), or a path with a directory (`tests/it/fit.rs`,
/// `docs/schemas/lint.schema.json`). A bare `SKILL.md` or `skills.toml` names a kind of
/// user file, not one of ours.
fn is_path(token: &str) -> bool {
    (token.ends_with(".rs")
        || (token.contains('/') && EXTENSIONS.iter().any(|e| token.ends_with(e))))
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !token.starts_with("../")
}

fn resolves(root: &Path, dir: &Path, token: &str) -> bool {
    if dir.join(token).exists() || dir.join("src").join(token).exists() {
        return true;
    }
    // The repository's own files (`Cargo.toml`, `pre-commit/main.rs`) are named from the root.
    if root.join(token).exists() {
        return true;
    }
    !token.contains('/') && contains_file(dir, token)
}

/// Whether a file named `name` is anywhere under `dir` (outside `target/`).
fn contains_file(dir: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if entry.file_name() == name {
            return true;
        }
        path.is_dir() && entry.file_name() != "target" && contains_file(&path, name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn the_code_map_names_only_files_that_exist() {
        let missing = missing_paths(
            &repo(),
            &std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap(),
        );
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn a_file_that_is_gone_is_found() {
        let map = "### `crates/skills-core`\n\n- `durable.rs` and `fs.rs`, `gone.rs`, `src/nope/x.rs`\n\n### `xtask`\n\n`tidy.rs`, `Cargo.toml`\n\n## Other\n\n`elsewhere.rs`\n";
        let missing = missing_paths(&repo(), map);
        assert_eq!(
            missing,
            [
                ("crates/skills-core".to_string(), "gone.rs".to_string()),
                (
                    "crates/skills-core".to_string(),
                    "src/nope/x.rs".to_string()
                ),
            ]
        );
    }

    #[test]
    fn the_workspace_is_tidy() {
        check(&repo()).unwrap();
    }

    #[test]
    fn a_stale_graph_table_or_import_is_found() {
        let meta = metadata().unwrap();
        let graph = crate_graph(&meta);
        assert!(
            graph.contains("skills-lint        → skills-core, skills-frontmatter, skills-schema\n"),
            "{graph}"
        );
        // Crates come after what they depend on.
        let at = |name: &str| graph.find(&format!("\n{name}")).unwrap();
        assert!(at("skills-core") < at("skills-lint"));
        assert!(at("skills-lint") < at("skills-tool"));
        // A table row that names a crate as a user of something it does not depend on.
        let text = "## Dependencies and why\n\n| crate | used by | why |\n| --- | --- | --- |\n| zip | url | no |\n";
        let problems = dependency_table(&repo(), text, &meta).unwrap();
        assert!(
            problems.iter().any(|p| p.contains("skills-url uses zip")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("no row for `serde`")),
            "{problems:?}"
        );
        // A command that reaches into another.
        let t = tempfile_dir();
        let commands = t.join("crates/skills-tool/src/commands");
        std::fs::create_dir_all(commands.join("add")).unwrap();
        std::fs::write(commands.join("lint.rs"), "").unwrap();
        std::fs::write(commands.join("add/mod.rs"), "use super::lint::x;").unwrap();
        std::fs::write(commands.join("add/sync.rs"), "use super::Target;").unwrap();
        std::fs::write(commands.join("list.rs"), "use crate::commands::lint;").unwrap();
        let problems = commands_import_no_command(&t).unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn a_crate_at_s_in_release_alone_is_found() {
        let manifest = "[profile.release.package.a]\nopt-level = \"s\"\n\n[profile.release.package.b]\nopt-level = \"s\"\n\n[profile.release.package.c]\nopt-level = 2\n\n[profile.dist.package.a]\nopt-level = 3\n\n[profile.dist.package.d]\nopt-level = 3\n";
        let problems = dist_undoes_size(manifest).unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("`b` is built at"), "{problems:?}");
        assert!(
            problems[1].contains("[profile.dist.package.d]"),
            "{problems:?}"
        );
        let fixed = format!("{manifest}\n[profile.dist.package.b]\nopt-level = 3\n")
            .replace("[profile.dist.package.d]\nopt-level = 3\n", "");
        assert_eq!(dist_undoes_size(&fixed).unwrap(), Vec::<String>::new());
    }

    /// A fresh directory under the target dir's temporary area (xtask has no tempfile).
    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-tidy-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
