//! What can go wrong in the registry, by kind: each kind is one problem `type` of the HTTP
//! API (RFC 9457), documented in `docs/registry.md`.

use crate::fetch::FetchError;
use crate::store::StoreError;

/// A registry operation's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The request is malformed or names something impossible.
    #[error("{0}")]
    Invalid(String),
    /// The caller must authenticate.
    #[error("authentication required: send `Authorization: Bearer <token>`")]
    Unauthorized,
    /// The bearer token was refused: expired, for another audience, badly signed, ….
    #[error("the token was refused: {0}")]
    InvalidToken(String),
    /// The OIDC issuer's keys could not be fetched, so its tokens cannot be checked.
    #[error("{0}")]
    IdentityProvider(String),
    /// The caller sees the skill but may not do this to it.
    #[error("{0}")]
    Forbidden(String),
    /// No skill of that name the caller may see.
    #[error("no skill named `{0}`")]
    NotFound(String),
    /// The name is taken.
    #[error("a skill named `{0}` is already registered")]
    Conflict(String),
    /// That version of the skill is published already, with other files: a version's files
    /// never change.
    #[error(
        "`{0}` is published already with other files; a version's files never change: set a new `metadata.version` (or leave it out to number versions 1, 2, …)"
    )]
    VersionExists(String),
    /// The upload is not a skill archive the registry takes (too large, unsafe, no
    /// `SKILL.md`, another skill's name).
    #[error("{0}")]
    BadArchive(String),
    /// The `SKILL.md` has lint errors.
    #[error("the SKILL.md has {} lint error(s)", .0.iter().filter(|d| d.severity == skills_lint::Severity::Error).count())]
    Lint(Vec<skills_lint::Diagnostic>),
    /// The `SKILL.md` could not be fetched, or may not be.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Something that should not happen (a task that panicked, a temp dir not created).
    #[error("internal error: {0}")]
    Internal(String),
}
