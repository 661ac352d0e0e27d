//! Tokens: the registry's own API tokens (issued, revoked, cached once found) and
//! authentication, which sends them to the store and any other bearer token to OIDC.

use std::collections::HashMap;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::store::{Store, TokenRecord};

use super::Registry;

/// How long a token, once found, is taken on trust without asking the store again: a
/// token revoked by another process (`skills registry token revoke`, another server) is
/// refused within this at most; at once while the server watches the database for
/// changes ([`Registry::run_change_watch`]).
pub const TOKEN_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a verified OIDC token is taken on trust at most (never past its `exp`).
const JWT_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(60);

/// Tokens found recently, by hash, and until when they are trusted. Bounded: cleared whole
/// when full.
pub(super) type TokenCache = std::sync::Mutex<HashMap<String, (Caller, std::time::Instant)>>;
const TOKEN_CACHE_MAX: usize = 10_000;

impl<S: Store> Registry<S> {
    /// Issues a token for `user`: the token (shown once) and its record.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Invalid`] for an empty user name, [`RegistryError::Store`].
    pub async fn create_token(
        &self,
        user: &str,
        groups: Vec<String>,
        admin: bool,
    ) -> Result<(String, TokenRecord), RegistryError> {
        let user = user.trim();
        if user.is_empty() {
            return Err(RegistryError::Invalid("a token needs a user name".into()));
        }
        let (token, id) = crate::token::generate()?;
        let record = TokenRecord::new(
            id,
            crate::token::hash(&token),
            user.to_string(),
            groups,
            admin,
        );
        self.store.insert_token(&record).await?;
        Ok((token, record))
    }

    /// The caller a bearer token stands for: one of the registry's API tokens, or a JWT
    /// of the configured OIDC issuer. `None` for an unknown or revoked API token.
    ///
    /// # Errors
    ///
    /// [`RegistryError::InvalidToken`] for a JWT that does not verify (or any token that
    /// is not an API token when OIDC is not configured),
    /// [`RegistryError::IdentityProvider`] when the issuer's keys cannot be fetched,
    /// [`RegistryError::Store`].
    pub async fn authenticate(&self, token: &str) -> Result<Option<Caller>, RegistryError> {
        let hash = crate::token::hash(token);
        let now = std::time::Instant::now();
        if let Ok(cache) = self.tokens.lock()
            && let Some((caller, until)) = cache.get(&hash)
            && now < *until
        {
            return Ok(Some(caller.clone()));
        }
        let (caller, until) = if token.starts_with(crate::token::TOKEN_PREFIX) {
            let Some(record) = self.store.token_by_hash(&hash).await? else {
                return Ok(None);
            };
            let caller = Caller {
                user: Some(record.user),
                groups: record.groups,
                admin: record.admin,
            };
            (caller, now + TOKEN_CACHE_TTL)
        } else if let Some(oidc) = &self.oidc {
            let verified = oidc.verify(token).await.map_err(|e| match e {
                crate::oidc::OidcError::Invalid(reason) => RegistryError::InvalidToken(reason),
                crate::oidc::OidcError::Unavailable(_) => {
                    RegistryError::IdentityProvider(e.to_string())
                }
            })?;
            let left = verified
                .expires
                .saturating_sub(crate::time::unix_seconds())
                .min(JWT_CACHE_TTL.as_secs());
            (verified.caller, now + std::time::Duration::from_secs(left))
        } else {
            return Err(RegistryError::InvalidToken(format!(
                "not one of this registry's API tokens (`{}…`), and no OIDC issuer is configured",
                crate::token::TOKEN_PREFIX
            )));
        };
        if let Ok(mut cache) = self.tokens.lock() {
            if cache.len() >= TOKEN_CACHE_MAX {
                cache.clear();
            }
            cache.insert(hash, (caller.clone(), until));
        }
        Ok(Some(caller))
    }

    /// Fetches the OIDC issuer's keys now, when OIDC is configured: how many signing keys
    /// it publishes. A server calls this at start so a wrong issuer shows at once rather
    /// than at the first token.
    ///
    /// # Errors
    ///
    /// [`RegistryError::IdentityProvider`] when the discovery document or the keys cannot
    /// be fetched or read.
    pub async fn fetch_identity_provider_keys(&self) -> Result<Option<usize>, RegistryError> {
        match &self.oidc {
            Some(oidc) => oidc
                .prefetch()
                .await
                .map(Some)
                .map_err(|e| RegistryError::IdentityProvider(e.to_string())),
            None => Ok(None),
        }
    }

    /// Revokes the token `id`; this registry refuses it from the next request on.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`].
    pub async fn revoke_token(&self, id: &str) -> Result<bool, RegistryError> {
        let revoked = self.store.revoke_token(id).await?;
        self.forget_tokens();
        Ok(revoked)
    }

    /// Empties the token cache: the next request with each token asks the store again.
    pub(crate) fn forget_tokens(&self) {
        if let Ok(mut cache) = self.tokens.lock() {
            cache.clear();
        }
    }
}
