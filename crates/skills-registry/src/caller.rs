//! Who asks: what a bearer token stands for once checked (one of the registry's API tokens,
//! or an OIDC JWT), or an anonymous reader without one. Every rule of the registry, and the
//! store's visibility filter, is decided for a [`Caller`]; it lives apart from both so that
//! authentication, the rules and the SQL share it without one owning it.
//!
//! Public as [`crate::Caller`] and, where it was first defined, `store::Caller`.

/// Who asks, as the rules and the store's queries decide for them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Caller {
    /// The user; `None` for an anonymous reader (who sees public, enabled skills only).
    pub user: Option<String>,
    /// The groups they are in.
    pub groups: Vec<String>,
    /// Admins see everything.
    pub admin: bool,
}
