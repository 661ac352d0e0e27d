//! `skills registry`: serve a registry, migrate its database, manage its tokens, sync its
//! federation peers (all the work is in `skills-registry`).

use skills_registry::config::{ConfigError, ConfigFile};
use skills_registry::{AnyStore, Registry, RegistryConfig, Store, StoreError};

use crate::args::{
    RegistryArgs, RegistryCommand, RegistryDbArgs, RegistryServeArgs, RegistrySyncArgs,
    TokenCommand, TokenCreateArgs, TokenFormat, TokenListArgs, TokenRevokeArgs,
};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;

/// Where the registry listens without `--listen` or `listen`.
const DEFAULT_LISTEN: &str = "127.0.0.1:8470";
/// How often the peers are synced without `sync_interval_secs`.
const DEFAULT_SYNC_INTERVAL_SECS: u64 = 300;

/// How often the background health checker runs without `health_interval_secs`.
const DEFAULT_HEALTH_INTERVAL_SECS: u64 = 60;
/// The database without `--database` or `database`.
const DEFAULT_DATABASE: &str = "sqlite://skills-registry.db";

pub(crate) fn run(args: &RegistryArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| errors::plain(format!("cannot start the async runtime: {e}"), ""))?;
    runtime.block_on(async {
        match &args.command {
            RegistryCommand::Serve(args) => serve(args, printer).await,
            RegistryCommand::Migrate(args) => migrate(args, printer).await,
            RegistryCommand::Sync(args) => sync(args, printer).await,
            RegistryCommand::Token(token) => match &token.command {
                TokenCommand::Create(args) => token_create(args, printer).await,
                TokenCommand::List(args) => token_list(args, printer).await,
                TokenCommand::Revoke(args) => token_revoke(args, printer).await,
            },
        }
    })
}

fn config_error(e: &ConfigError) -> Error {
    errors::plain(
        e.to_string(),
        "see docs/registry.md for the configuration file's keys",
    )
    .into()
}

fn store_error(e: &StoreError, url: &str) -> Error {
    let help = match e {
        StoreError::UnsupportedUrl(_) => "use sqlite://PATH or postgres://USER:PASSWORD@HOST/DB",
        StoreError::Missing(_) => {
            "run it where the registry's database is, or name it as `skills registry serve` does: --database URL or --config FILE"
        }
        StoreError::Outdated { .. } => {
            "`skills registry migrate` (with the same --database or --config) brings it up to date"
        }
        _ => "check that the database exists and is reachable, and the URL's user and password",
    };
    let message = match e {
        // The path says it all; the URL around it adds nothing.
        StoreError::Missing(_) => e.to_string(),
        _ => format!("{}: {e}", redact(url)),
    };
    errors::plain(message, help).into()
}

/// The state directory without `state_dir`: `<file>.state` beside a SQLite database file,
/// so that each database (one server each) has its own; else `skills-registry.state` here.
fn default_state_dir(url: &str) -> std::path::PathBuf {
    let file = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or_default())
        .filter(|path| !path.is_empty() && !path.starts_with(":memory:"));
    match file {
        Some(path) => std::path::PathBuf::from(format!("{path}.state")),
        None => std::path::PathBuf::from("skills-registry.state"),
    }
}

/// A database URL without its password, for messages.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_string(),
    }
}

/// The configuration file, when one is named.
fn file_config(db: &RegistryDbArgs) -> Result<ConfigFile, Error> {
    match &db.config {
        Some(path) => ConfigFile::read(path).map_err(|e| config_error(&e)),
        None => Ok(ConfigFile::default()),
    }
}

/// The database's URL: the flag, then the file, then the default.
fn database_url(db: &RegistryDbArgs, file: &ConfigFile) -> String {
    db.database
        .clone()
        .or_else(|| file.database.clone())
        .unwrap_or_else(|| DEFAULT_DATABASE.to_string())
}

/// Opens an existing database, read-only or not, without creating or migrating it: the
/// token commands other than `create` have nothing to do with a registry that is not there.
async fn open_existing(
    db: &RegistryDbArgs,
    file: &ConfigFile,
    read_only: bool,
) -> Result<(AnyStore, String), Error> {
    let url = database_url(db, file);
    let store = AnyStore::open_existing(&url, read_only)
        .await
        .map_err(|e| store_error(&e, &url))?;
    Ok((store, url))
}

/// Opens the database (flag, then file, then the default) and applies its migrations.
async fn open(db: &RegistryDbArgs, file: &ConfigFile) -> Result<(AnyStore, String), Error> {
    let url = database_url(db, file);
    let store = AnyStore::open(&url)
        .await
        .map_err(|e| store_error(&e, &url))?;
    store.migrate().await.map_err(|e| store_error(&e, &url))?;
    Ok((store, url))
}

async fn migrate(args: &RegistryDbArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let file = file_config(args)?;
    let (store, url) = open(args, &file).await?;
    store.close().await;
    printer.status(&format!("{}: migrations applied\n", redact(&url)));
    Ok(ExitStatus::Success)
}

/// The settings `serve` and `sync` share: name, fetch rules, health, servers, OIDC, peers
/// (each checked, the file named in errors).
fn registry_config(
    db: &RegistryDbArgs,
    file: &ConfigFile,
    name: Option<String>,
    trust_hosts: &[String],
    allow_loopback: bool,
) -> Result<RegistryConfig, Error> {
    let source = || {
        db.config
            .as_deref()
            .unwrap_or_else(|| std::path::Path::new("config"))
            .display()
            .to_string()
    };
    let mut config = RegistryConfig::default();
    if let Some(name) = name.or_else(|| file.name.clone()) {
        config.name = name;
    }
    config.fetch.trust_hosts = file.trust_hosts.clone().unwrap_or_default();
    config.fetch.trust_hosts.extend(trust_hosts.iter().cloned());
    config.fetch.allow_loopback = allow_loopback || file.allow_loopback.unwrap_or(false);
    if let Some(concurrency) = file.health_concurrency {
        config.health_concurrency = concurrency.max(1);
    }
    if let Some(ttl) = file.health_ttl_secs {
        config.health_ttl_ms = i64::try_from(ttl.saturating_mul(1000)).unwrap_or(i64::MAX);
    }
    config.servers = file.servers.clone();
    if let Some(oidc) = &file.oidc {
        oidc.check(config.fetch.allow_loopback).map_err(|e| {
            errors::plain(
                format!("{}: [oidc]: {e}", source()),
                "see docs/registry.md#oidc-tokens for the settings of each provider",
            )
        })?;
        config.oidc = Some(oidc.clone());
    }
    for peer in &file.peers {
        peer.check(&config.name).map_err(|e| {
            errors::plain(
                format!("{}: [[peers]]: {e}", source()),
                "see docs/registry.md#federation for a peer's keys",
            )
        })?;
    }
    config.peers = file.peers.clone();
    if let Some(mcp) = &file.mcp {
        config.mcp = mcp.apply(config.mcp);
    }
    if let Some(secs) = file.header_timeout_secs {
        config.connections.header_timeout = std::time::Duration::from_secs(secs.max(1));
    }
    if let Some(secs) = file.body_timeout_secs {
        config.connections.body_timeout = std::time::Duration::from_secs(secs.max(1));
    }
    if let Some(max) = file.max_connections {
        config.connections.max_connections = max.max(1);
    }
    Ok(config)
}

/// `skills registry sync`: one sync with every peer, reported; exit 1 when a peer failed.
async fn sync(args: &RegistrySyncArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let file = file_config(&args.db)?;
    let config = registry_config(&args.db, &file, None, &[], args.allow_loopback)?;
    if config.peers.is_empty() {
        return Err(errors::plain(
            "no peers to sync with",
            "add [[peers]] to the configuration file (--config FILE); docs/registry.md#federation",
        )
        .into());
    }
    let (store, _) = open(&args.db, &file).await?;
    let registry = Registry::new(store, config);
    let mut failed = false;
    for report in registry.sync_peers_boxed().await {
        let mut text = format!("{}: ", report.peer);
        match &report.error {
            Some(error) => {
                failed = true;
                text.push_str(&format!("failed, nothing changed: {error}\n"));
            }
            None => {
                text.push_str(&format!(
                    "{} added, {} updated, {} removed\n",
                    report.added.len(),
                    report.updated.len(),
                    report.removed.len()
                ));
                for (name, list) in [
                    ("added", &report.added),
                    ("updated", &report.updated),
                    ("removed", &report.removed),
                ] {
                    if !list.is_empty() {
                        text.push_str(&format!("  {name}: {}\n", list.join(", ")));
                    }
                }
                for (skill, why) in &report.skipped {
                    text.push_str(&format!("  skipped {skill}: {why}\n"));
                }
            }
        }
        printer.out(&crate::render::terminal_safe(&text))?;
    }
    registry.store().close().await;
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

async fn serve(args: &RegistryServeArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    init_logging(printer);
    let file = file_config(&args.db)?;
    let (store, url) = open(&args.db, &file).await?;
    let kind = store.kind();
    let mut config = registry_config(
        &args.db,
        &file,
        args.name.clone(),
        &args.trust_hosts,
        args.allow_loopback,
    )?;
    config.public_read = args.public_read || file.public_read.unwrap_or(false);
    config.audit_refuse_at = args.audit_refuse_at.or(file.audit_refuse_at);
    config.state_dir = Some(
        file.state_dir
            .clone()
            .unwrap_or_else(|| default_state_dir(&url)),
    );
    // Cached reads expire soon where a change made elsewhere could go unheard: on
    // PostgreSQL, shared by several servers, while the change watch (below) is not
    // listening. A SQLite file is served by one server, and the other processes that write
    // it (`skills registry sync`, `token revoke`) are heard by the watch.
    if matches!(store, AnyStore::Sqlite(_)) {
        config.response_ttl = skills_registry::LOCAL_RESPONSE_TTL;
    }
    let listen = args
        .listen
        .clone()
        .or_else(|| file.listen.clone())
        .unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let listener = tokio::net::TcpListener::bind(&listen).await.map_err(|e| {
        errors::plain(
            format!("cannot listen on {listen}: {e}"),
            "pass another --listen ADDR (host:port; port 0 picks a free one)",
        )
    })?;
    let address = listener
        .local_addr()
        .map_or_else(|_| listen.clone(), |a| a.to_string());
    // `/mcp` checks the Host header against DNS rebinding: the address it was bound to by
    // name is one it is reached by.
    if let Ok(bound) = listener.local_addr()
        && !bound.ip().is_unspecified()
    {
        config.mcp.allowed_hosts.push(bound.ip().to_string());
    }
    // Before the address is announced: a SIGTERM from then on stops the server gracefully.
    let stop = skills_mcp_server::stop_signal();
    printer.status(&format!(
        "skills registry `{}` listening on http://{address} ({kind}: {})\n",
        config.name,
        redact(&url)
    ));
    printer.status(&format!("MCP (Streamable HTTP) at http://{address}/mcp\n"));
    printer.status(&format!(
        "web pages at http://{address}/, the API's documentation at http://{address}/api/docs\n"
    ));
    printer.status(if config.public_read {
        "anonymous reads: on (public skills are shown without a token)\n"
    } else {
        "anonymous reads: off (every call and page needs a token; --public-read turns them on)\n"
    });
    // The same database the server opened: a token made elsewhere is unknown here.
    let same = match (&args.db.database, &args.db.config) {
        (Some(database), _) => format!(" --database {}", redact(database)),
        (None, Some(config)) => format!(" --config {}", config.display()),
        (None, None) => String::new(),
    };
    printer.status(&format!(
        "make a token: skills registry token create --user NAME{same}\n"
    ));
    let issuer = config.oidc.as_ref().map(|o| o.issuer.clone());
    let registry = Registry::new(store, config);
    if let Some(issuer) = issuer {
        match registry.fetch_identity_provider_keys_boxed().await {
            Ok(keys) => printer.status(&format!(
                "accepting OIDC tokens of {issuer} ({} signing key(s))\n",
                keys.unwrap_or(0)
            )),
            // Not fatal: the provider may come back; until then its tokens get a 503.
            Err(e) => printer.warn(&format!("OIDC: {e}")),
        }
    }
    // Stopped, and awaited, before the store closes (below).
    let (stop_watch, stopped) = tokio::sync::oneshot::channel::<()>();
    let watch = registry.spawn_change_watch(async {
        let _ = stopped.await;
    });
    let sync_every = file
        .sync_interval_secs
        .unwrap_or(DEFAULT_SYNC_INTERVAL_SECS);
    if sync_every > 0 && !registry.config().peers.is_empty() {
        // Ends with the runtime, when serving has stopped.
        registry.spawn_sync(std::time::Duration::from_secs(sync_every));
    }
    let interval = file
        .health_interval_secs
        .unwrap_or(DEFAULT_HEALTH_INTERVAL_SECS);
    if interval > 0 {
        // Ends with the runtime, when serving has stopped.
        registry.spawn_health_checker(std::time::Duration::from_secs(interval));
    }
    let router =
        skills_registry::http::try_router_any(std::sync::Arc::clone(&registry)).map_err(|e| {
            errors::plain(
                e.to_string(),
                "set state_dir in the configuration file to a directory of this server's own",
            )
        })?;
    let limits = registry.config().connections.clone();
    skills_registry::http::serve(listener, router, &limits, stop)
        .await
        .map_err(|e| errors::plain(format!("the server stopped: {e}"), ""))?;
    let _ = stop_watch.send(());
    let _ = watch.await;
    registry.store().close().await;
    printer.status("skills registry: stopped\n");
    Ok(ExitStatus::Success)
}

/// The server's log on stderr, through the printer's writer: warnings and errors, or info
/// and up with `-v`.
fn init_logging(printer: &Printer) {
    let level = if printer.ui().verbose() {
        tracing::Level::INFO
    } else {
        tracing::Level::WARN
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(|| StderrLines)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

/// An `io::Write` onto the printer's stderr.
struct StderrLines;

impl std::io::Write for StderrLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        crate::printer::plain_stderr(String::from_utf8_lossy(buf).trim_end_matches('\n'));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

async fn token_create(args: &TokenCreateArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let file = file_config(&args.db)?;
    let (store, _) = open(&args.db, &file).await?;
    let registry = Registry::new(store, RegistryConfig::default());
    let (token, record) = registry
        .create_token_boxed(&args.user, args.groups.clone(), args.admin)
        .await
        .map_err(|e| errors::plain(e.to_string(), "pass --user NAME"))?;
    registry.store().close().await;
    printer.out(&format!("{token}\n"))?;
    printer.note(&format!(
        "token {} for {}{}{}: this is the only time it is shown; send it as `Authorization: Bearer <token>`",
        record.id,
        record.user,
        if record.groups.is_empty() {
            String::new()
        } else {
            format!(" (groups: {})", record.groups.join(", "))
        },
        if record.admin { ", admin" } else { "" },
    ));
    Ok(ExitStatus::Success)
}

async fn token_list(args: &TokenListArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let file = file_config(&args.db)?;
    let (store, url) = open_existing(&args.db, &file, true).await?;
    let tokens = store.tokens().await.map_err(|e| store_error(&e, &url))?;
    store.close().await;
    let time = |ms: Option<i64>| ms.map(skills_registry::rfc3339).unwrap_or_default();
    if args.format == TokenFormat::Json {
        let items: Vec<serde_json::Value> = tokens
            .iter()
            .map(|t| {
                serde_json::json!({
                    "id": t.id,
                    "user": t.user,
                    "groups": t.groups,
                    "admin": t.admin,
                    "created_at": time(Some(t.created_at)),
                    "revoked_at": t.revoked_at.map(skills_registry::rfc3339),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into());
        printer.out(&format!("{text}\n"))?;
        return Ok(ExitStatus::Success);
    }
    if tokens.is_empty() {
        printer.status(&format!(
            "{} has no tokens; `skills registry token create --user NAME` makes one\n",
            redact(&url)
        ));
        return Ok(ExitStatus::Success);
    }
    let rows: Vec<[String; 6]> = tokens
        .iter()
        .map(|t| {
            [
                t.id.clone(),
                t.user.clone(),
                t.groups.join(","),
                if t.admin { "yes".into() } else { String::new() },
                time(Some(t.created_at)),
                time(t.revoked_at),
            ]
        })
        .collect();
    let header = ["ID", "USER", "GROUPS", "ADMIN", "CREATED", "REVOKED"].map(String::from);
    let mut widths = header.each_ref().map(String::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    printer.out(&out)?;
    Ok(ExitStatus::Success)
}

async fn token_revoke(args: &TokenRevokeArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let file = file_config(&args.db)?;
    let (store, url) = open_existing(&args.db, &file, false).await?;
    let revoked = store
        .revoke_token(&args.id)
        .await
        .map_err(|e| store_error(&e, &url))?;
    store.close().await;
    if revoked {
        printer.status(&format!("revoked {}\n", args.id));
        Ok(ExitStatus::Success)
    } else {
        Err(errors::plain(
            format!("no unrevoked token `{}`", args.id),
            "`skills registry token list` shows the ids",
        )
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact("postgres://me:secret@db.example:5432/skills"),
            "postgres://me:***@db.example:5432/skills"
        );
        assert_eq!(
            redact("sqlite://skills-registry.db"),
            "sqlite://skills-registry.db"
        );
        assert_eq!(redact("postgres://db/skills"), "postgres://db/skills");
    }

    #[test]
    fn the_default_database_is_a_file_here() {
        assert!(
            std::path::Path::new(DEFAULT_DATABASE.trim_start_matches("sqlite://")).is_relative()
        );
    }

    #[test]
    fn the_state_directory_is_beside_a_sqlite_file() {
        let state = |url| default_state_dir(url).display().to_string();
        assert_eq!(
            state("sqlite://skills-registry.db"),
            "skills-registry.db.state"
        );
        assert_eq!(
            state("sqlite:///var/lib/r/r.db?mode=rwc"),
            "/var/lib/r/r.db.state"
        );
        assert_eq!(state("sqlite::memory:"), "skills-registry.state");
        assert_eq!(state("postgres://u:p@db/skills"), "skills-registry.state");
    }
}
