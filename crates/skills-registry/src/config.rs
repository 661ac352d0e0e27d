//! The registry's configuration file (`skills registry serve --config FILE`), TOML:
//!
//! ```toml
//! name = "acme"                      # registry_name of the skills registered here
//! listen = "127.0.0.1:8470"
//! database = "sqlite://skills-registry.db"   # or postgres://user:pw@host/db
//! public_read = false                # anonymous callers may read public skills
//! trust_hosts = ["git.acme.internal"] # fetched over https beside the built-in hosts
//! allow_loopback = false             # loopback/private addresses, http to loopback
//! health_ttl_secs = 300
//! health_interval_secs = 60          # background checks of skills older than the TTL (0: off)
//! health_concurrency = 8             # HEAD requests the background checker has in flight
//! state_dir = "skills-registry.db.state" # 0700; /mcp's per-caller views, emptied at start
//! header_timeout_secs = 10           # to send a request's headers, or idle between requests
//! body_timeout_secs = 30            # to send a request's body, from the end of its headers
//! max_connections = 1024             # at once (lowered below the open-file limit)
//!
//! [[servers]]                        # MCP servers, for GET /api/skills/{name}/tools
//! path = "/servers/github"
//! tools = ["create_issue", "list_pull_requests"]
//!
//! [[peers]]                          # federation: import what another registry exports
//! name = "partner"                   # the registry_name of what is imported from it
//! url = "https://skills.partner.example"
//! token = "skr_…"                    # a token of the peer
//! mode = "tags"                      # all | whitelist (names = […]) | tags (tags = […])
//! tags = ["pdf"]
//!
//! [mcp]                              # /mcp: what it answers beside loopback names
//! allowed_hosts = ["skills.acme.com"] # the Host the registry is reached by (a proxy's)
//! allowed_origins = ["https://agent.acme.com"] # browsers that may call it
//! session_idle_secs = 1800
//! max_sessions_per_caller = 100      # a new one past it ends the caller's least recently used
//! max_sessions = 1000                # in all; a new one past it ends the least recently used
//!
//! [oidc]                             # JWTs of an identity provider, beside API tokens
//! issuer = "https://login.microsoftonline.com/TENANT/v2.0"
//! audience = "api://skills-registry"
//! groups_claim = "groups"            # cognito:groups, realm_access.roles, roles, …
//! admin_groups = ["skills-admins"]
//! ```
//!
//! Command-line flags win over the file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::service::KnownServer;

/// The file's settings; each `None` when the file does not set it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ConfigFile {
    /// The registry's name.
    pub name: Option<String>,
    /// The address to listen on.
    pub listen: Option<String>,
    /// The database URL.
    pub database: Option<String>,
    /// Anonymous reads of public skills.
    pub public_read: Option<bool>,
    /// Hosts trusted beside the built-in ones.
    pub trust_hosts: Option<Vec<String>>,
    /// Loopback and private addresses allowed.
    pub allow_loopback: Option<bool>,
    /// How long a health answer is cached.
    pub health_ttl_secs: Option<u64>,
    /// How often the background checker looks for skills due a health check; 0 turns it
    /// off.
    pub health_interval_secs: Option<u64>,
    /// How many health checks the background checker runs at once.
    pub health_concurrency: Option<usize>,
    /// The MCP servers the registry knows.
    #[serde(default)]
    pub servers: Vec<KnownServer>,
    /// The OIDC issuer whose tokens are accepted.
    pub oidc: Option<crate::oidc::OidcConfig>,
    /// Federation peers whose exported skills are imported.
    #[serde(default)]
    pub peers: Vec<crate::federation::Peer>,
    /// How often the peers are synced, in seconds (0: only `skills registry sync`).
    pub sync_interval_secs: Option<u64>,
    /// How `/mcp` answers.
    pub mcp: Option<McpConfig>,
    /// The registry's own directory (`/mcp`'s per-caller views); default: beside a SQLite
    /// database file, `<file>.state`, else `skills-registry.state`.
    pub state_dir: Option<PathBuf>,
    /// How long a client may take to send a request's headers, and leave a keep-alive
    /// connection idle (default 10).
    pub header_timeout_secs: Option<u64>,
    /// How long a client may take to send a request's body (default 30).
    pub body_timeout_secs: Option<u64>,
    /// The most connections served at once (default 1024), lowered below the open-file
    /// limit.
    pub max_connections: Option<usize>,
    /// Refuse skills whose audit finds anything at or above this severity (`low`, `medium`,
    /// `high`, `critical`).
    pub audit_refuse_at: Option<skills_audit::Severity>,
}

/// The `[mcp]` table: how the registry's `/mcp` answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct McpConfig {
    /// `Host` values accepted beside loopback ones (`HOST` or `HOST:PORT`): the name the
    /// registry is reached by. Others are refused, against DNS rebinding.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted beside loopback ones (`https://app.example.com:443`).
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// A session without a request for this long ends (default 1800).
    pub session_idle_secs: Option<u64>,
    /// The most sessions of one user (anonymous readers: of one address) (default 100).
    pub max_sessions_per_caller: Option<usize>,
    /// The most sessions in all (default 1000).
    pub max_sessions: Option<usize>,
}

impl McpConfig {
    /// These settings over `options`.
    #[must_use]
    pub fn apply(
        &self,
        mut options: skills_mcp_server::HttpOptions,
    ) -> skills_mcp_server::HttpOptions {
        options
            .allowed_hosts
            .extend(self.allowed_hosts.iter().cloned());
        options
            .allowed_origins
            .extend(self.allowed_origins.iter().cloned());
        if let Some(secs) = self.session_idle_secs {
            options.session_idle = std::time::Duration::from_secs(secs.max(1));
        }
        if let Some(max) = self.max_sessions_per_caller {
            options.max_sessions_per_caller = max.max(1);
        }
        if let Some(max) = self.max_sessions {
            options.max_sessions = max.max(1);
        }
        options
    }
}

/// A configuration file that cannot be read or parsed: where, and what.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", path.display(), position.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
#[non_exhaustive]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// Line and column (1-based), when the error has a place.
    pub position: Option<(usize, usize)>,
    /// The byte range of the error in the file.
    pub span: Option<std::ops::Range<usize>>,
    /// What is wrong.
    pub message: String,
}

impl ConfigFile {
    /// Reads and parses `path`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when the file cannot be read or is not a valid configuration.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            position: None,
            span: None,
            message: e.to_string(),
        })?;
        Self::parse(&text, path)
    }

    /// Parses `text`, the contents of `path`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for invalid TOML, an unknown key or a value of the wrong type.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e: toml::de::Error| {
            let span = e.span();
            let position = span
                .as_ref()
                .map(|s| skills_frontmatter::line_col(text, s.start));
            ConfigError {
                path: path.to_path_buf(),
                position,
                span,
                message: e.message().to_string(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_file_parses() {
        let text = "name = \"acme\"\nlisten = \"0.0.0.0:9000\"\ntrust_hosts = [\"git.acme\"]\n\n[[servers]]\npath = \"/servers/github\"\ntools = [\"a\"]\n";
        let config = ConfigFile::parse(text, Path::new("r.toml")).unwrap();
        assert_eq!(config.name.as_deref(), Some("acme"));
        assert_eq!(
            config.servers,
            [KnownServer::new("/servers/github", vec!["a".into()])]
        );
        let oidc = "[oidc]\nissuer = \"https://idp.example.com\"\naudience = \"skills\"\ngroups_claim = \"cognito:groups\"\n";
        let config = ConfigFile::parse(oidc, Path::new("r.toml")).unwrap();
        let mut expected = crate::OidcConfig::new("https://idp.example.com", "skills");
        expected.groups_claim = "cognito:groups".to_string();
        assert_eq!(config.oidc, Some(expected));
        let mcp = "[mcp]\nallowed_hosts = [\"skills.acme.com\"]\nsession_idle_secs = 60\nmax_sessions_per_caller = 4\nmax_sessions = 0\n";
        let config = ConfigFile::parse(mcp, Path::new("r.toml")).unwrap();
        let options = config
            .mcp
            .unwrap()
            .apply(skills_mcp_server::HttpOptions::default());
        assert_eq!(options.allowed_hosts, ["skills.acme.com"]);
        assert_eq!(options.session_idle, std::time::Duration::from_secs(60));
        assert_eq!(options.max_sessions_per_caller, 4);
        assert_eq!(options.max_sessions, 1, "at least one");
        let e =
            ConfigFile::parse("[oidc]\nissuer = \"https://x\"\n", Path::new("r.toml")).unwrap_err();
        assert!(e.to_string().contains("missing field `audience`"), "{e}");
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let e =
            ConfigFile::parse("name = \"a\"\nlisen = \"x\"\n", Path::new("r.toml")).unwrap_err();
        assert_eq!(e.position, Some((2, 1)));
        assert!(
            e.to_string()
                .starts_with("r.toml:2:1: unknown field `lisen`"),
            "{e}"
        );
        let e = ConfigFile::parse("public_read = \"yes\"\n", Path::new("r.toml")).unwrap_err();
        assert_eq!(e.position, Some((1, 15)));
    }
}
