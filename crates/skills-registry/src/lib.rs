//! A registry of Agent Skills that a team runs: seed 001's SkillCards, registered by the URL
//! of their `SKILL.md`, shown in three views, with visibility (public, private, group),
//! ratings, health checks and a REST API, over SQLite (embedded, the default) or
//! PostgreSQL.
//!
//! The parts, each usable alone:
//!
//! - [`model`]: the [`SkillCard`] and its views.
//! - [`store`]: the [`Store`] trait and its two implementations, [`SqliteStore`] and
//!   [`PostgresStore`], with embedded migrations.
//! - [`Registry`]: the rules, independent of HTTP: registration fetches the file through
//!   [`fetch`] (trusted hosts, every redirect re-checked, private addresses refused),
//!   parses and lints it with `skills-frontmatter` and `skills-lint`, and fills the card;
//!   who may see and change what; ratings; health.
//! - [`oidc`]: bearer JWTs of an OIDC issuer, checked against its published keys, beside
//!   the registry's own API tokens.
//! - [`federation`]: pulling the skills other registries export (seed 001's peers).
//! - [`web`]: the pages at `/` and `/skills/{name}`, server-rendered, sanitized.
//! - [`http`]: the axum router, errors as `application/problem+json`; and `/mcp`, the
//!   skills each caller may see over MCP's Streamable HTTP transport, served by
//!   [`skills_mcp_server`].
//!
//! `skills registry serve` is these parts put together; a test or another program can do
//! the same:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use skills_registry::{Registry, RegistryConfig, SqliteStore, Store};
//!
//! let store = SqliteStore::open("sqlite://skills-registry.db").await?;
//! store.migrate().await?;
//! let registry = Registry::new(store, RegistryConfig::default());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8470").await?;
//! let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
//! let limits = registry.config().connections.clone();
//! let router = skills_registry::http::router(registry);
//! skills_registry::http::serve(listener, router, &limits, shutdown).await?;
//! # Ok(())
//! # }
//! ```

mod cache;
mod caller;
pub mod config;
mod cursor;
mod error;
pub mod federation;
pub mod fetch;
pub mod http;
mod jwt_crypto;
mod mcp;
pub mod model;
pub mod oidc;
mod service;
pub mod store;
mod time;
mod token;
pub mod web;

pub use cache::{LOCAL_RESPONSE_TTL, SHARED_RESPONSE_TTL};
pub use error::RegistryError;
pub use federation::{Peer, PeerMode, SyncReport};
pub use model::{
    CompatibilityRequirement, FileRecord, HealthStatus, RatingDetail, RequirementType, SkillCard,
    ToolReference, VersionRecord, View, Visibility,
};
pub use oidc::OidcConfig;
pub use service::{
    DISCOVERY_SCHEMA, KnownServer, MAX_UPLOAD, PublishOptions, Published, Registration, Registry,
    RegistryConfig, TOKEN_CACHE_TTL, ToolStatus, VersionDetail,
};
pub use store::{
    AnyStore, Caller, Changed, Changes, Job, JobLock, ListQuery, PostgresStore, Publication, Sort,
    SqliteStore, Store, StoreError, TokenRecord,
};
pub use time::rfc3339;
pub use token::TOKEN_PREFIX;
