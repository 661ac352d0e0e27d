//! The gateway file: the downstream MCP servers, in the format agents already use
//! (`{"mcpServers": {NAME: {command, args, env} | {url, headers}}}`, as `.mcp.json`), plus
//! two keys of ours, `universal` and `callTimeout`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// The most a gateway file may weigh: it is a configuration file, not data.
const MAX_BYTES: u64 = 1024 * 1024;

/// A gateway file, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The downstream servers, in the file's order.
    pub servers: Vec<Downstream>,
}

/// One downstream server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Downstream {
    /// Its name: the `server` of a `tools.json` reference.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Which of its tools every scope has (Level 1 included).
    pub universal: Universal,
    /// How long a call of one of its tools (or a read of one of its resources) may wait
    /// for the answer (`callTimeout`, in seconds; [`DEFAULT_CALL_TIMEOUT`] when unset).
    pub call_timeout: Duration,
}

/// How long a call waits for its server's answer when the gateway file does not say.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest `callTimeout`: a day.
const MAX_CALL_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// How a downstream server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// A program speaking MCP on its stdin and stdout, started by the gateway.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it (the gateway's own are inherited).
        env: BTreeMap<String, String>,
        /// Its working directory, when the file names one.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// Its URL.
        url: String,
        /// Headers sent with every request (`Authorization`, ...).
        headers: BTreeMap<String, String>,
    },
}

/// Which tools of a server are universal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Universal {
    /// None: its tools appear only in the scope of a skill that references them.
    #[default]
    None,
    /// All of them (`"universal": true`).
    All,
    /// These (`"universal": ["fetch"]`).
    Tools(Vec<String>),
}

impl Universal {
    /// Whether tool `name` is universal.
    #[must_use]
    pub fn includes(&self, name: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Tools(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Why a gateway file cannot be used: the file, where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GatewayFileError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line and column at fault; `None` when it is the whole file (it cannot
    /// be read, or is too large).
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// `gateway.json:3:5: server …`, or `nope.json: there is no such file` for the whole file.
impl std::fmt::Display for GatewayFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for GatewayFileError {}

impl GatewayFile {
    /// Reads and checks the gateway file at `path`.
    ///
    /// # Errors
    ///
    /// [`GatewayFileError`] when it cannot be read, is not JSON, or a server is not
    /// described as the format says.
    pub fn load(path: &Path) -> Result<Self, GatewayFileError> {
        let whole = |message: String, help: &str| GatewayFileError {
            path: path.to_path_buf(),
            position: None,
            message,
            help: help.to_string(),
        };
        let size = std::fs::metadata(path)
            .map_err(|e| {
                whole(
                    if e.kind() == std::io::ErrorKind::NotFound {
                        "there is no such file".to_string()
                    } else {
                        format!("cannot read it: {e}")
                    },
                    "pass the path of a gateway file: the MCP servers in .mcp.json's format, {\"mcpServers\": {\"NAME\": {\"command\": …}}} (docs/gateway.md)",
                )
            })?
            .len();
        if size > MAX_BYTES {
            return Err(whole(
                format!("it is {size} bytes; a gateway file may be {MAX_BYTES}"),
                "list the downstream servers only",
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            whole(
                format!("cannot read it: {e}"),
                "pass the path of a UTF-8 JSON gateway file",
            )
        })?;
        Self::parse(&text, path)
    }

    /// Checks the text of a gateway file (`path` names it in errors).
    ///
    /// # Errors
    ///
    /// As [`GatewayFile::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, GatewayFileError> {
        let value: Value = serde_json::from_str(text).map_err(|e| GatewayFileError {
            path: path.to_path_buf(),
            position: Some((e.line().max(1), e.column().max(1))),
            message: format!("not JSON: {}", strip_position(&e.to_string())),
            help:
                "write it as `.mcp.json` is written: {\"mcpServers\": {\"NAME\": {\"command\": …}}}"
                    .to_string(),
        })?;
        let at = |needle: &str, message: String, help: &str| GatewayFileError {
            path: path.to_path_buf(),
            position: position(text, needle),
            message,
            help: help.to_string(),
        };
        let Some(servers) = value.get("mcpServers").and_then(Value::as_object) else {
            return Err(at(
                "mcpServers",
                "no `mcpServers` object".to_string(),
                "list the downstream servers under \"mcpServers\", as in .mcp.json",
            ));
        };
        let mut out = Vec::new();
        for (name, spec) in servers {
            let key = format!("\"{name}\"");
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(at(
                    &key,
                    format!("server name `{name}` must be letters, digits, `-` or `_`"),
                    "rename it: tools.json references it as {\"server\": NAME, …}",
                ));
            }
            let Some(spec) = spec.as_object() else {
                return Err(at(
                    &key,
                    format!("server `{name}` is not an object"),
                    "describe it as {\"command\": …, \"args\": […]} or {\"url\": …}",
                ));
            };
            let strings = |field: &str| -> Result<Vec<String>, GatewayFileError> {
                match spec.get(field) {
                    None | Some(Value::Null) => Ok(Vec::new()),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|v| {
                            v.as_str().map(str::to_string).ok_or_else(|| {
                                at(
                                    &key,
                                    format!("`{field}` of server `{name}` holds a non-string"),
                                    "write every item as a JSON string",
                                )
                            })
                        })
                        .collect(),
                    Some(_) => Err(at(
                        &key,
                        format!("`{field}` of server `{name}` is not an array of strings"),
                        "write it as [\"…\", \"…\"]",
                    )),
                }
            };
            let map = |field: &str| -> Result<BTreeMap<String, String>, GatewayFileError> {
                match spec.get(field) {
                    None | Some(Value::Null) => Ok(BTreeMap::new()),
                    Some(Value::Object(entries)) => entries
                        .iter()
                        .map(|(k, v)| {
                            v.as_str()
                                .map(|v| (k.clone(), v.to_string()))
                                .ok_or_else(|| {
                                    at(
                                        &key,
                                        format!("`{field}.{k}` of server `{name}` is not a string"),
                                        "write every value as a JSON string",
                                    )
                                })
                        })
                        .collect(),
                    Some(_) => Err(at(
                        &key,
                        format!("`{field}` of server `{name}` is not an object of strings"),
                        "write it as {\"NAME\": \"value\"}",
                    )),
                }
            };
            let transport = match (spec.get("command"), spec.get("url")) {
                (Some(Value::String(command)), None) if !command.is_empty() => Transport::Stdio {
                    command: command.clone(),
                    args: strings("args")?,
                    env: map("env")?,
                    cwd: spec.get("cwd").and_then(Value::as_str).map(PathBuf::from),
                },
                (None, Some(Value::String(url)))
                    if url.starts_with("http://") || url.starts_with("https://") =>
                {
                    Transport::Http {
                        url: url.clone(),
                        headers: map("headers")?,
                    }
                }
                (Some(_), Some(_)) => {
                    return Err(at(
                        &key,
                        format!("server `{name}` has both `command` and `url`"),
                        "keep `command` for a stdio server, `url` for a Streamable HTTP one",
                    ));
                }
                _ => {
                    return Err(at(
                        &key,
                        format!(
                            "server `{name}` needs a `command` (stdio) or an http(s) `url` (Streamable HTTP)"
                        ),
                        "add \"command\": \"program\" or \"url\": \"https://…/mcp\"",
                    ));
                }
            };
            let universal = match spec.get("universal") {
                None | Some(Value::Null | Value::Bool(false)) => Universal::None,
                Some(Value::Bool(true)) => Universal::All,
                Some(Value::Array(_)) => Universal::Tools(strings("universal")?),
                Some(_) => {
                    return Err(at(
                        &key,
                        format!(
                            "`universal` of server `{name}` must be true, false or a list of tool names"
                        ),
                        "write \"universal\": true, or \"universal\": [\"tool\", …]",
                    ));
                }
            };
            let call_timeout = match spec.get("callTimeout") {
                None | Some(Value::Null) => DEFAULT_CALL_TIMEOUT,
                Some(value) => value
                    .as_f64()
                    .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
                    .filter(|limit| !limit.is_zero() && *limit <= MAX_CALL_TIMEOUT)
                    .ok_or_else(|| {
                        at(
                            &key,
                            format!(
                                "`callTimeout` of server `{name}` must be a number of seconds above 0, at most {}",
                                MAX_CALL_TIMEOUT.as_secs()
                            ),
                            "write \"callTimeout\": 300 for five minutes (the default is 120)",
                        )
                    })?,
            };
            out.push(Downstream {
                name: name.clone(),
                transport,
                universal,
                call_timeout,
            });
        }
        Ok(Self {
            path: path.to_path_buf(),
            servers: out,
        })
    }
}

/// serde_json's message without its " at line L column C" (the error carries those).
fn strip_position(message: &str) -> &str {
    message.rsplit_once(" at line ").map_or(message, |(m, _)| m)
}

/// The line and column of the first `needle` in `text`; `None` when it is not there (the
/// whole file is at fault: it has no `mcpServers`).
fn position(text: &str, needle: &str) -> Option<(usize, usize)> {
    let offset = text.find(needle)?;
    let before = text.get(..offset).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, l)| l)
        .chars()
        .count()
        + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GatewayFile, GatewayFileError> {
        GatewayFile::parse(text, Path::new("gateway.json"))
    }

    #[test]
    fn the_agents_format_with_universal() {
        let file = parse(
            r#"{"mcpServers": {
                "trino": {"command": "trino-mcp", "args": ["--catalog", "hive"], "env": {"TRINO_HOST": "db"}},
                "fetch": {"type": "http", "url": "https://fetch.example/mcp", "headers": {"Authorization": "Bearer x"}, "universal": true},
                "docs": {"command": "docs-mcp", "universal": ["search"], "disabled": false}
            }}"#,
        )
        .unwrap();
        let names: Vec<&str> = file.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["trino", "fetch", "docs"]);
        assert_eq!(file.servers[1].universal, Universal::All);
        assert!(file.servers[2].universal.includes("search"));
        assert!(!file.servers[0].universal.includes("query"));
        assert!(
            matches!(&file.servers[0].transport, Transport::Stdio { env, .. } if env["TRINO_HOST"] == "db")
        );
        assert_eq!(file.servers[0].call_timeout, DEFAULT_CALL_TIMEOUT);
        let file = parse(r#"{"mcpServers": {"a": {"command": "x", "callTimeout": 0.5}}}"#).unwrap();
        assert_eq!(file.servers[0].call_timeout, Duration::from_millis(500));
    }

    #[test]
    fn errors_name_the_place_and_the_fix() {
        let e = parse("{\n  \"mcpServers\": {\n    \"trino\": {\"args\": []}\n  }\n}").unwrap_err();
        assert_eq!(e.position, Some((3, 5)));
        assert!(e.message.contains("needs a `command`"), "{e}");
        let e = parse("{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}").unwrap_err();
        assert!(e.message.contains("letters, digits"), "{e}");
        let e =
            parse("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"universal\": 1}}}").unwrap_err();
        assert!(e.message.contains("universal"), "{e}");
        let e = parse("{\"mcpServers\": {\n,}}").unwrap_err();
        assert_eq!(e.position.map(|(line, _)| line), Some(2));
        assert!(e.to_string().starts_with("gateway.json:2:"), "{e}");
        for bad in ["0", "-1", "\"60\"", "1e9", "true"] {
            let e = parse(&format!(
                "{{\"mcpServers\": {{\"a\": {{\"command\": \"x\", \"callTimeout\": {bad}}}}}}}"
            ))
            .unwrap_err();
            assert!(e.message.contains("callTimeout"), "{bad}: {e}");
        }
        let e = parse("{\"servers\": {}}").unwrap_err();
        assert!(e.message.contains("mcpServers"), "{e}");
    }

    /// A file that is not there is not at 1:1 (it said `nope.json:1:1: cannot read it`).
    #[test]
    fn a_missing_file_has_no_position() {
        let dir = tempfile::tempdir().unwrap();
        let e = GatewayFile::load(&dir.path().join("nope.json")).unwrap_err();
        assert_eq!(e.position, None);
        assert_eq!(
            e.to_string(),
            format!(
                "{}: there is no such file",
                dir.path().join("nope.json").display()
            )
        );
        assert!(e.help.contains("mcpServers"), "{}", e.help);
    }
}
