//! What this machine and project have: the MCP servers the agents are configured with (read
//! from each agent's own files, nothing started) and the command-line tools on `PATH`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::DoctorError;

/// An MCP server configured for an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Server {
    /// Its name in the configuration: the `<server>` of `mcp__<server>__<tool>`.
    pub name: String,
    /// The file it is configured in.
    pub file: PathBuf,
    /// Which agent's file that is (`claude-code`, `cursor`, ...).
    pub agent: &'static str,
    /// Whether the file is the project's (`.mcp.json`, `.cursor/mcp.json`, ...): it arrives
    /// with a clone, so its servers are started only once the user trusts the file
    /// ([`crate::trust`]), as the agents themselves ask before they start them.
    pub project: bool,
    /// How it is reached: the command line of a stdio server, or the URL of an HTTP one.
    pub transport: Transport,
    /// Its tools (as the server names them; agents see `mcp__<server>__<tool>`), when
    /// known: after a probe that got an answer.
    pub tools: Option<Vec<String>>,
    /// Why a probe got no answer, when one did not.
    pub probe_error: Option<String>,
    /// Why `--probe` did not start it (a project's file the user has not trusted): it is
    /// then taken at its word, as without `--probe`.
    pub not_started: Option<String>,
    /// Why it cannot be started here, found without running anything: the `command` of a
    /// stdio server is not on `PATH`, or not an executable file. Such a server serves no
    /// skill (a probe that got its tools says otherwise).
    pub unavailable: Option<String>,
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Transport {
    /// A process speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// Streamable HTTP (or SSE) at a URL.
    Http {
        /// The URL.
        url: String,
    },
}

/// A command-line tool found on `PATH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Cli {
    /// Its name (`gh`).
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// The first line of its `--version` (`--probe` only: nothing is run otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The tools of this machine and project.
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct Inventory {
    /// Configured MCP servers, by name (the first file that configures a name wins; the
    /// others are in `shadowed`).
    pub servers: Vec<Server>,
    /// Servers of a name configured again in a later file.
    pub shadowed: Vec<Server>,
    /// The tools found on `PATH`, by name.
    pub clis: BTreeMap<String, Cli>,
    /// Configuration files that could not be read, and why.
    pub problems: Vec<String>,
}

/// Where to look.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Places {
    /// The project's root.
    pub project: PathBuf,
    /// The home directory.
    pub home: Option<PathBuf>,
    /// The directories of `PATH`, in order.
    pub path: Vec<PathBuf>,
}

impl Places {
    /// `project`, the home directory and `PATH` of this process.
    #[must_use]
    pub fn here(project: PathBuf) -> Self {
        Self {
            project,
            home: std::env::home_dir().filter(|h| !h.as_os_str().is_empty()),
            path: std::env::var_os("PATH")
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default(),
        }
    }
}

/// The most bytes of an agent's configuration file read: `~/.claude.json` keeps every
/// project's history and reaches megabytes; a link to `/dev/zero` must not be read forever.
const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// The project's files that configure MCP servers, for each agent: `(agent, path, key)`.
/// They arrive with a clone, so what they name is not run before the user trusts them.
#[must_use]
pub fn project_files(project: &Path) -> Vec<(&'static str, PathBuf, &'static str)> {
    vec![
        ("claude-code", project.join(".mcp.json"), "mcpServers"),
        (
            "claude-ops",
            project.join(".claude-ops/mcp.json"),
            "mcpServers",
        ),
        ("cursor", project.join(".cursor/mcp.json"), "mcpServers"),
        ("vscode", project.join(".vscode/mcp.json"), "servers"),
    ]
}

/// The files each agent keeps MCP servers in, in the order they are read (project files
/// first): `(agent, path, key)`, where `key` is the object holding the servers.
fn config_files(places: &Places) -> Vec<(&'static str, PathBuf, &'static str)> {
    let mut files = project_files(&places.project);
    if let Some(h) = &places.home {
        files.extend([
            ("claude-code", h.join(".claude.json"), "mcpServers"),
            ("cursor", h.join(".cursor/mcp.json"), "mcpServers"),
            ("gemini-cli", h.join(".gemini/settings.json"), "mcpServers"),
            (
                "claude-desktop",
                h.join(".config/Claude/claude_desktop_config.json"),
                "mcpServers",
            ),
            (
                "claude-desktop",
                h.join("Library/Application Support/Claude/claude_desktop_config.json"),
                "mcpServers",
            ),
        ]);
    }
    files
}

/// Builds the inventory: reads every agent's MCP configuration and looks for each of
/// `commands` on `PATH`. Nothing is started.
#[must_use]
pub fn build(places: &Places, commands: &[&str]) -> Inventory {
    let mut inv = Inventory::default();
    // Names already configured, lowercased: a set, so 80,000 servers take 80,000 look-ups
    // (a scan of the list for each was quadratic: 26 s).
    let mut seen = HashSet::new();
    let project_count = project_files(&places.project).len();
    for (i, (agent, file, key)) in config_files(places).into_iter().enumerate() {
        let project = i < project_count;
        match read_json(&file) {
            Ok(None) => {}
            Ok(Some(doc)) => {
                let mut add = |servers| {
                    for server in servers_of(agent, &file, servers, project) {
                        push(&mut inv, &mut seen, server);
                    }
                };
                add(doc.get(key));
                // ~/.claude.json keeps per-project servers under projects."<abs path>".
                if file.file_name().is_some_and(|n| n == ".claude.json") {
                    let project = doc
                        .get("projects")
                        .and_then(|p| p.get(places.project.to_string_lossy().as_ref()));
                    add(project.and_then(|p| p.get(key)));
                }
            }
            Err(e) => inv.problems.push(e.to_string()),
        }
    }
    if let Some(home) = &places.home {
        let codex = home.join(".codex/config.toml");
        match read_codex(&codex) {
            Ok(servers) => {
                for server in servers {
                    push(&mut inv, &mut seen, server);
                }
            }
            Err(e) => inv.problems.push(e.to_string()),
        }
    }
    check_commands(&mut inv.servers, places);
    for name in commands {
        if let Some(path) = which(&places.path, name) {
            inv.clis.insert(
                (*name).to_string(),
                Cli {
                    name: (*name).to_string(),
                    path,
                    version: None,
                },
            );
        }
    }
    inv
}

/// Marks each stdio server whose `command` cannot be found ([`Server::unavailable`]): a
/// bare name is looked up on `PATH` as the agents would, a path is checked where it points
/// (a relative one from the project, where the agents start their servers). Nothing is run.
/// Each command is looked up once, however many servers name it.
fn check_commands(servers: &mut [Server], places: &Places) {
    let mut seen: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    for server in servers {
        let Transport::Stdio { command, .. } = &server.transport else {
            continue;
        };
        let why = seen
            .entry(command.clone())
            .or_insert_with(|| missing_command(command, places))
            .clone();
        server.unavailable = why;
    }
}

/// Why `command` cannot be started, or `None` when it can be found.
fn missing_command(command: &str, places: &Places) -> Option<String> {
    if command.contains('/') || (cfg!(windows) && command.contains('\\')) {
        let path = places.project.join(command);
        return match std::fs::metadata(&path) {
            Err(_) => Some(format!("`{command}` does not exist")),
            Ok(_) if !is_executable(&path) => {
                Some(format!("`{command}` is not an executable file"))
            }
            Ok(_) => None,
        };
    }
    if which(&places.path, command).is_some() {
        None
    } else {
        Some(format!("`{command}` is not on PATH"))
    }
}

/// Fills in each CLI's version: the first line its `--version` prints (`kubectl version
/// --client`), all at once, each stopped at `timeout`. This runs the programs: `skills
/// doctor` does it only under `--probe`.
pub fn probe_versions(inv: &mut Inventory, timeout: std::time::Duration) {
    std::thread::scope(|scope| {
        for cli in inv.clis.values_mut() {
            scope.spawn(move || cli.version = version_of(&cli.name, &cli.path, timeout));
        }
    });
}

fn version_of(name: &str, path: &Path, timeout: std::time::Duration) -> Option<String> {
    use std::process::{Command, Stdio};
    let args: &[&str] = match name {
        "kubectl" => &["version", "--client"],
        _ => &["--version"],
    };
    let mut child = Command::new(path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            _ => {
                // Too slow (or not waitable): not worth a hang.
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    // Some programs (python2, java) print their version on stderr.
    let text = read_some(child.stdout.take()) + &read_some(child.stderr.take());
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(120).collect())
}

/// The first 4 KiB of a finished child's pipe.
fn read_some(pipe: Option<impl std::io::Read>) -> String {
    use std::io::Read as _;
    let mut buf = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.take(4096).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn push(inv: &mut Inventory, seen: &mut HashSet<String>, server: Server) {
    if seen.insert(server.name.to_ascii_lowercase()) {
        inv.servers.push(server);
    } else {
        inv.shadowed.push(server);
    }
}

/// The servers of one `mcpServers`-style object.
fn servers_of(
    agent: &'static str,
    file: &Path,
    servers: Option<&Value>,
    project: bool,
) -> Vec<Server> {
    let Some(Value::Object(servers)) = servers else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(servers.len());
    for (name, config) in servers {
        let transport = match (
            config.get("command"),
            config.get("url").or_else(|| config.get("httpUrl")),
        ) {
            (Some(Value::String(command)), _) => Transport::Stdio {
                command: command.clone(),
                args: config
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            (_, Some(Value::String(url))) => Transport::Http { url: url.clone() },
            _ => continue,
        };
        out.push(Server {
            name: name.clone(),
            file: file.to_path_buf(),
            agent,
            project,
            transport,
            tools: None,
            probe_error: None,
            not_started: None,
            unavailable: None,
        });
    }
    out
}

/// The text of a configuration file: `None` when there is none; regular files of at most
/// [`MAX_CONFIG_BYTES`] only (a `.mcp.json` committed as a link to `/dev/zero` was read
/// without bound).
pub(crate) fn read_config(file: &Path) -> Result<Option<String>, DoctorError> {
    let failed = |message: String| DoctorError::Config {
        path: file.to_path_buf(),
        message,
    };
    let bytes = match skills_core::read_bounded(file, MAX_CONFIG_BYTES) {
        Ok(bytes) => bytes,
        Err(skills_core::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(failed(e.to_string())),
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| failed("not UTF-8 text".to_string()))
}

fn read_json(file: &Path) -> Result<Option<Value>, DoctorError> {
    let Some(text) = read_config(file)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| DoctorError::Config {
            path: file.to_path_buf(),
            message: {
                // serde_json's text ends with the position, said first here.
                let text = e.to_string();
                let what = text
                    .rsplit_once(" at line ")
                    .map_or(text.as_str(), |(m, _)| m);
                format!("line {}, column {}: not JSON: {what}", e.line(), e.column())
            },
        })
}

/// `[mcp_servers.NAME]` tables of Codex's `config.toml`.
fn read_codex(file: &Path) -> Result<Vec<Server>, DoctorError> {
    let Some(text) = read_config(file)? else {
        return Ok(Vec::new());
    };
    let doc: toml::Table =
        toml::from_str(&text).map_err(|e: toml::de::Error| DoctorError::Config {
            path: file.to_path_buf(),
            message: e.message().to_string(),
        })?;
    let mut out = Vec::new();
    let Some(toml::Value::Table(servers)) = doc.get("mcp_servers") else {
        return Ok(out);
    };
    for (name, config) in servers {
        let transport = match (config.get("command"), config.get("url")) {
            (Some(toml::Value::String(command)), _) => Transport::Stdio {
                command: command.clone(),
                args: config
                    .get("args")
                    .and_then(toml::Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(toml::Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            (_, Some(toml::Value::String(url))) => Transport::Http { url: url.clone() },
            _ => continue,
        };
        out.push(Server {
            name: name.clone(),
            file: file.to_path_buf(),
            agent: "codex",
            project: false,
            transport,
            tools: None,
            probe_error: None,
            not_started: None,
            unavailable: None,
        });
    }
    Ok(out)
}

/// Whether `name` is a bare command name, looked up on `PATH`: never a path (`/abs/evil.sh`,
/// `../../evil.sh`, `bin/x`), which a repository's `skills.toml` could name to have it run.
#[must_use]
pub fn is_command_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.starts_with('-')
        && !name.contains(['/', '\\', '\0'])
        && !name.chars().any(char::is_control)
}

/// The first `dir/name` of `path` that is an executable file; nothing for a name that is
/// not a bare command name.
fn which(path: &[PathBuf], name: &str) -> Option<PathBuf> {
    if !is_command_name(name) {
        return None;
    }
    // A relative entry of PATH (`.`, empty) would find the project's own files.
    path.iter()
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.with_extension("exe").is_file() || path.is_file()
}
