//! The domains of seed 004 (git-github, container, database, ...) and the MCP servers and
//! command-line tools that serve each: one table, extended from `skills.toml`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::DoctorError;

/// A domain: the MCP servers and CLIs that can do its work, in the order they are tried
/// within their kind, and whether plain HTTP (`curl` or `wget`) is a last resort.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Domain {
    /// `git-github`, `container`, ...
    pub name: String,
    /// MCP server names (the `<server>` of `mcp__<server>__<tool>`), any letter case.
    #[serde(default)]
    pub mcp: Vec<String>,
    /// Executables on `PATH`.
    #[serde(default)]
    pub cli: Vec<String>,
    /// Whether `curl` or `wget` can stand in when nothing else is there.
    #[serde(default)]
    pub http: bool,
}

impl Domain {
    fn new(name: &str, mcp: &[&str], cli: &[&str], http: bool) -> Self {
        Self {
            name: name.to_string(),
            mcp: mcp.iter().map(|s| (*s).to_string()).collect(),
            cli: cli.iter().map(|s| (*s).to_string()).collect(),
            http,
        }
    }
}

/// The built-in domains (docs/doctor.md lists them).
#[must_use]
pub fn builtin() -> Vec<Domain> {
    vec![
        Domain::new("git-github", &["github"], &["gh"], true),
        Domain::new("git-gitea", &["gitea"], &["tea"], true),
        Domain::new("git-gitlab", &["gitlab"], &["glab"], true),
        Domain::new("git", &[], &["git"], false),
        Domain::new(
            "container",
            &["docker", "podman"],
            &["docker", "podman"],
            false,
        ),
        Domain::new("kubernetes", &["kubernetes", "k8s"], &["kubectl"], false),
        Domain::new(
            "database",
            &["postgres", "postgresql", "mysql", "sqlite"],
            &["psql", "mysql", "sqlite3"],
            false,
        ),
        Domain::new("cache", &["redis"], &["redis-cli"], false),
        Domain::new("http", &["fetch"], &["curl", "wget"], false),
        Domain::new(
            "browser",
            &["chrome-devtools", "playwright", "puppeteer"],
            &[],
            false,
        ),
        Domain::new("json", &[], &["jq"], false),
        Domain::new("python", &[], &["python3", "python"], false),
        Domain::new("node", &[], &["node"], false),
    ]
}

/// `builtin()` with `extra` merged in: a domain of the same name is replaced, a new one
/// added.
#[must_use]
pub fn with(extra: &[Domain]) -> Vec<Domain> {
    let mut all = builtin();
    for domain in extra {
        match all.iter_mut().find(|d| d.name == domain.name) {
            Some(existing) => *existing = domain.clone(),
            None => all.push(domain.clone()),
        }
    }
    all
}

/// The file [`nearest`] looks for (the one `skills lint` reads its `[lint]` table from).
pub const CONFIG_FILE: &str = "skills.toml";

/// The `[[doctor.domains]]` of a `skills.toml` (`path` names it in errors); the other
/// tables are left to their readers.
///
/// # Errors
///
/// Text that is not TOML, or a `[doctor]` table with a wrong key or type.
pub fn from_toml(text: &str, path: &Path) -> Result<Vec<Domain>, DoctorError> {
    #[derive(Deserialize, Default)]
    struct File {
        #[serde(default)]
        doctor: Section,
    }
    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields)]
    struct Section {
        #[serde(default)]
        domains: Vec<Domain>,
    }
    let file: File = toml::from_str(text).map_err(|e| DoctorError::Config {
        path: path.to_path_buf(),
        message: format!("[doctor]: {}", e.message()),
    })?;
    for domain in &file.doctor.domains {
        if let Some(cli) = domain
            .cli
            .iter()
            .find(|c| !crate::inventory::is_command_name(c))
        {
            return Err(DoctorError::Config {
                path: path.to_path_buf(),
                message: format!(
                    "[doctor]: domain `{}` names the CLI `{}`: a CLI is a bare command name looked up on PATH, never a path (a repository's skills.toml could otherwise name a program of its own to run)",
                    domain.name,
                    cli.escape_debug()
                ),
            });
        }
    }
    Ok(file.doctor.domains)
}

/// The built-in table with the `[[doctor.domains]]` of the nearest `skills.toml` from
/// `start` up merged in ([`with`]), and that file, when there is one.
///
/// # Errors
///
/// A `skills.toml` that cannot be read, or whose `[doctor]` table is wrong.
pub fn nearest(start: &Path) -> Result<(Vec<Domain>, Option<PathBuf>), DoctorError> {
    let Some(path) = start
        .ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
    else {
        return Ok((builtin(), None));
    };
    let text = crate::inventory::read_config(&path)?.unwrap_or_default();
    Ok((with(&from_toml(&text, &path)?), Some(path)))
}

/// The domain an MCP server serves.
#[must_use]
pub fn of_server<'a>(domains: &'a [Domain], server: &str) -> Option<&'a Domain> {
    domains
        .iter()
        .find(|d| d.mcp.iter().any(|m| m.eq_ignore_ascii_case(server)))
}

/// The domain a command serves (the first that lists it).
#[must_use]
pub fn of_cli<'a>(domains: &'a [Domain], command: &str) -> Option<&'a Domain> {
    domains.iter().find(|d| d.cli.iter().any(|c| c == command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_skills_toml_extends_the_table() {
        let t = tempfile::tempdir().unwrap();
        let deep = t.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(nearest(&deep).unwrap(), (builtin(), None));
        std::fs::write(
            t.path().join(CONFIG_FILE),
            "[lint]\nwarn = []\n\n[[doctor.domains]]\nname = \"json\"\ncli = [\"jaq\"]\n",
        )
        .unwrap();
        let (domains, file) = nearest(&deep).unwrap();
        assert_eq!(file, Some(t.path().join(CONFIG_FILE)));
        assert_eq!(
            of_cli(&domains, "jaq").map(|d| d.name.as_str()),
            Some("json")
        );
        assert_eq!(of_cli(&domains, "jq"), None);
        std::fs::write(t.path().join(CONFIG_FILE), "[[doctor.domains]]\nname = 1\n").unwrap();
        let error = nearest(&deep).unwrap_err().to_string();
        assert!(
            error.contains("skills.toml: [doctor]: invalid type"),
            "{error}"
        );
    }
}
