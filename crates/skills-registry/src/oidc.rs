//! OIDC bearer tokens: JWTs from a configured issuer (Entra ID, Cognito, Keycloak, …),
//! verified against the issuer's published keys (JWKS).
//!
//! The keys are found through the issuer's discovery document
//! (`{issuer}/.well-known/openid-configuration`, whose `issuer` must be the configured one)
//! unless `jwks_url` names them, fetched with the registry's fetch rules (https, public
//! addresses; the issuer's and the JWKS's hosts are trusted for these fetches), and kept.
//! A token signed with a key the set does not have makes the set be fetched again (the
//! issuer rotated its keys), at most once per [`OidcConfig::min_key_refresh_secs`],
//! whoever asks, so tokens with made-up key ids cannot make the registry hammer the
//! issuer; the set is also fetched again when older than [`MAX_KEY_AGE`], and kept when
//! that fails.
//!
//! A token is accepted when its signature verifies with an asymmetric algorithm (HMAC and
//! `none` never: the keys are public), `iss` is the issuer, `aud` holds the audience,
//! `exp` is in the future and `nbf` (when present) in the past, both with
//! [`OidcConfig::leeway_secs`] of slack. The user is the `user_claim` (`sub` unless
//! configured), the groups the `groups_claim`, and members of an `admin_groups` group are
//! admins.
//!
//! Signatures are checked with `ring` through jsonwebtoken's provider interface (see
//! [`install_crypto_provider`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use crate::caller::Caller;
use crate::fetch::FetchPolicy;

/// Makes `ring` the process's signature code for jsonwebtoken, unless a provider is
/// installed already (then that one is kept). The registry calls it when it starts with
/// OIDC; a program that also signs or verifies JWTs with jsonwebtoken before that (the
/// tests that make tokens, say) calls it first: this build of jsonwebtoken has no
/// backend of its own, only the one installed.
pub fn install_crypto_provider() {
    crate::jwt_crypto::install();
}

/// The key set is fetched again when it is older than this.
pub const MAX_KEY_AGE: Duration = Duration::from_secs(60 * 60);
/// The largest discovery document or key set read.
const MAX_DOCUMENT_BYTES: u64 = 256 * 1024;

/// The algorithms a token may be signed with: asymmetric ones only.
pub(crate) const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Where OIDC tokens come from and how to read them (`[oidc]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct OidcConfig {
    /// The issuer (`iss`), as its discovery document names it:
    /// `https://login.microsoftonline.com/{tenant}/v2.0`,
    /// `https://cognito-idp.{region}.amazonaws.com/{pool}`,
    /// `https://keycloak.example.com/realms/{realm}`.
    pub issuer: String,
    /// The audience the tokens must be for (`aud`): the registry's client or API id.
    pub audience: String,
    /// The claim that names the user (`sub` unless set: `email`, `preferred_username`, …).
    #[serde(default = "default_user_claim")]
    pub user_claim: String,
    /// The claim that lists the user's groups (`groups` unless set; `cognito:groups` on
    /// Cognito, `roles` for Entra app roles). A dotted path (`realm_access.roles`) reaches
    /// into an object when no claim has the whole name.
    #[serde(default = "default_groups_claim")]
    pub groups_claim: String,
    /// Members of any of these groups are admins.
    #[serde(default)]
    pub admin_groups: Vec<String>,
    /// The key set's URL, when it is not to be found by discovery.
    #[serde(default)]
    pub jwks_url: Option<String>,
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    #[serde(default = "default_leeway")]
    pub leeway_secs: u64,
    /// The shortest time between two fetches of the key set, in seconds: a key published
    /// less than this after the last fetch is unknown until then. Issuers publish new keys
    /// well before they sign with them.
    #[serde(default = "default_min_key_refresh")]
    pub min_key_refresh_secs: u64,
}

fn default_user_claim() -> String {
    "sub".to_string()
}

fn default_groups_claim() -> String {
    "groups".to_string()
}

const fn default_leeway() -> u64 {
    60
}

const fn default_min_key_refresh() -> u64 {
    30
}

impl OidcConfig {
    /// Tokens of `issuer` for `audience`, with the defaults.
    #[must_use]
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            user_claim: default_user_claim(),
            groups_claim: default_groups_claim(),
            admin_groups: Vec::new(),
            jwks_url: None,
            leeway_secs: default_leeway(),
            min_key_refresh_secs: default_min_key_refresh(),
        }
    }

    /// Whether the settings can work, or what is wrong with them.
    ///
    /// # Errors
    ///
    /// A message naming the setting: an issuer or key set URL that is not `https` (plain
    /// `http` only to loopback when `allow_loopback`), an empty audience or claim name.
    pub fn check(&self, allow_loopback: bool) -> Result<(), String> {
        check_url("issuer", &self.issuer, allow_loopback)?;
        if let Some(url) = &self.jwks_url {
            check_url("jwks_url", url, allow_loopback)?;
        }
        for (what, value) in [
            ("audience", &self.audience),
            ("user_claim", &self.user_claim),
            ("groups_claim", &self.groups_claim),
        ] {
            if value.trim().is_empty() {
                return Err(format!("`{what}` is empty"));
            }
        }
        Ok(())
    }
}

fn check_url(what: &str, url: &str, allow_loopback: bool) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    let http_ok = allow_loopback && lower.starts_with("http://");
    if !(lower.starts_with("https://") || http_ok) {
        return Err(format!(
            "`{what}` must be an https URL (plain http only to loopback, with allow_loopback): `{url}`"
        ));
    }
    if authority(url).is_none() {
        return Err(format!("`{what}` is not a URL with a host: `{url}`"));
    }
    Ok(())
}

/// `host[:port]` of a URL without credentials.
fn authority(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.parse().ok()?;
    let authority = uri.authority()?.as_str();
    (!authority.contains('@')).then(|| authority.to_string())
}

/// Why a token was not accepted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OidcError {
    /// The token is not good: the caller should get another.
    #[error("{0}")]
    Invalid(String),
    /// The issuer's keys could not be had: nobody's token can be checked.
    #[error("the identity provider's keys could not be fetched: {0}")]
    Unavailable(String),
}

/// One key of the set.
#[derive(Clone)]
struct Key {
    kid: Option<String>,
    /// The algorithm the set pins the key to, if it does.
    algorithm: Option<Algorithm>,
    key: DecodingKey,
}

#[derive(Default)]
struct Keys {
    keys: Arc<Vec<Key>>,
    /// When the set was last fetched successfully.
    fetched: Option<Instant>,
    /// When a fetch was last tried.
    tried: Option<Instant>,
}

/// Verifies tokens of one issuer and keeps its keys.
pub(crate) struct Verifier {
    config: OidcConfig,
    policy: FetchPolicy,
    keys: std::sync::RwLock<Keys>,
    /// Held while fetching, so that a burst of unknown keys fetches once.
    refresh: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("issuer", &self.config.issuer)
            .finish_non_exhaustive()
    }
}

/// A key looked up in the set held now.
struct Lookup {
    key: Option<DecodingKey>,
    /// The set is younger than [`MAX_KEY_AGE`].
    fresh: bool,
    /// The last fetch was tried long enough ago to try again.
    may_fetch: bool,
}

/// What a verified token says, and until when.
pub(crate) struct Verified {
    pub caller: Caller,
    /// `exp`, in seconds since the epoch.
    pub expires: u64,
}

impl Verifier {
    /// A verifier for `config`, fetching under `fetch` (its loopback rule and limits).
    pub(crate) fn new(config: OidcConfig, fetch: &FetchPolicy) -> Self {
        install_crypto_provider();
        let mut policy = fetch.clone();
        policy.max_bytes = MAX_DOCUMENT_BYTES;
        policy.timeout = Duration::from_secs(10);
        policy.trust_hosts.extend(authority(&config.issuer));
        if let Some(url) = &config.jwks_url {
            policy.trust_hosts.extend(authority(url));
        }
        Self {
            config,
            policy,
            keys: std::sync::RwLock::default(),
            refresh: tokio::sync::Mutex::new(()),
        }
    }

    /// The caller `token` stands for.
    pub(crate) async fn verify(&self, token: &str) -> Result<Verified, OidcError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| OidcError::Invalid(format!("not a JWT: {e}")))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(OidcError::Invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&[&self.config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.config.leeway_secs;
        let data = jsonwebtoken::decode::<serde_json::Map<String, Value>>(token, &key, &validation)
            .map_err(|e| OidcError::Invalid(reason(&e)))?;
        let claims = data.claims;
        let user = claim(&claims, &self.config.user_claim)
            .and_then(Value::as_str)
            .filter(|u| !u.trim().is_empty())
            .ok_or_else(|| {
                OidcError::Invalid(format!(
                    "the token has no `{}` claim naming the user",
                    self.config.user_claim
                ))
            })?;
        let groups: Vec<String> = match claim(&claims, &self.config.groups_claim) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            Some(Value::String(group)) => vec![group.clone()],
            _ => Vec::new(),
        };
        let admin = groups.iter().any(|g| self.config.admin_groups.contains(g));
        let expires = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
        Ok(Verified {
            caller: Caller {
                user: Some(user.to_string()),
                groups,
                admin,
            },
            expires,
        })
    }

    /// The key for `kid` and `alg`, fetching the set when it lacks it or is old.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, OidcError> {
        let found = self.lookup(kid, alg);
        match found {
            Lookup {
                key: Some(key),
                fresh: true,
                ..
            } => return Ok(key),
            // A stale key serves until the set can be fetched again.
            Lookup {
                key: Some(key),
                may_fetch: false,
                ..
            } => return Ok(key),
            Lookup {
                key: None,
                may_fetch: false,
                ..
            } => return Err(self.missing(kid)),
            _ => {}
        }
        let _fetching = self.refresh.lock().await;
        // Another request may have fetched while this one waited.
        let again = self.lookup(kid, alg);
        match again {
            Lookup {
                key: Some(key),
                fresh: true,
                ..
            }
            | Lookup {
                key: Some(key),
                may_fetch: false,
                ..
            } => {
                return Ok(key);
            }
            Lookup {
                key: None,
                may_fetch: false,
                ..
            } => return Err(self.missing(kid)),
            _ => {}
        }
        if let Ok(mut state) = self.keys.write() {
            state.tried = Some(Instant::now());
        }
        match self.fetch().await {
            Ok(keys) => {
                if let Ok(mut state) = self.keys.write() {
                    state.keys = Arc::new(keys);
                    state.fetched = Some(Instant::now());
                }
                self.lookup(kid, alg).key.ok_or_else(|| unknown_key(kid))
            }
            Err(e) => {
                tracing::warn!(issuer = %self.config.issuer, error = %e, "oidc keys");
                // An old key still verifies; with none, nobody's token can be checked.
                again.key.ok_or(e)
            }
        }
    }

    /// Why no key is found while the set may not be fetched again yet.
    fn missing(&self, kid: Option<&str>) -> OidcError {
        let fetched = self.keys.read().is_ok_and(|state| state.fetched.is_some());
        if fetched {
            unknown_key(kid)
        } else {
            OidcError::Unavailable(format!(
                "the issuer's keys could not be fetched; the registry tries again {} s after the last attempt",
                self.config.min_key_refresh_secs
            ))
        }
    }

    /// Fetches the key set now (at start, to find a wrong configuration early), unless it
    /// was fetched or tried within the cool-down; how many keys it has.
    pub(crate) async fn prefetch(&self) -> Result<usize, OidcError> {
        let _fetching = self.refresh.lock().await;
        if let Ok(mut state) = self.keys.write() {
            state.tried = Some(Instant::now());
        }
        let keys = self.fetch().await?;
        let count = keys.len();
        if let Ok(mut state) = self.keys.write() {
            state.keys = Arc::new(keys);
            state.fetched = Some(Instant::now());
        }
        Ok(count)
    }

    /// The key for `kid` and `alg` in the set held now.
    fn lookup(&self, kid: Option<&str>, alg: Algorithm) -> Lookup {
        let Ok(state) = self.keys.read() else {
            return Lookup {
                key: None,
                fresh: false,
                may_fetch: false,
            };
        };
        let fits = |k: &&Key| k.algorithm.is_none_or(|a| a == alg);
        let found = match kid {
            Some(kid) => state
                .keys
                .iter()
                .filter(fits)
                .find(|k| k.kid.as_deref() == Some(kid)),
            // Without a `kid`, only a set with one key that fits says which key.
            None => {
                let mut fitting = state.keys.iter().filter(fits);
                match (fitting.next(), fitting.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            }
        };
        Lookup {
            key: found.map(|k| k.key.clone()),
            fresh: state.fetched.is_some_and(|t| t.elapsed() < MAX_KEY_AGE),
            may_fetch: state.tried.is_none_or(|t| {
                t.elapsed() >= Duration::from_secs(self.config.min_key_refresh_secs)
            }),
        }
    }

    /// Fetches the key set (through discovery unless `jwks_url` is set).
    async fn fetch(&self) -> Result<Vec<Key>, OidcError> {
        let config = self.config.clone();
        let policy = self.policy.clone();
        tokio::task::spawn_blocking(move || fetch_keys(&config, policy))
            .await
            .map_err(|e| OidcError::Unavailable(e.to_string()))?
    }
}

fn unknown_key(kid: Option<&str>) -> OidcError {
    OidcError::Invalid(match kid {
        Some(kid) => format!("the token's key `{kid}` is not one of the issuer's keys"),
        None => "the token names no key (`kid`) and the issuer has several".to_string(),
    })
}

/// The discovery document's fields the registry reads.
#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    jwks_uri: String,
}

fn fetch_json<T: serde::de::DeserializeOwned>(
    url: &str,
    policy: &FetchPolicy,
) -> Result<T, OidcError> {
    let fetched =
        crate::fetch::get(url, policy).map_err(|e| OidcError::Unavailable(e.to_string()))?;
    serde_json::from_slice(&fetched.body)
        .map_err(|e| OidcError::Unavailable(format!("{url}: not the JSON expected: {e}")))
}

fn fetch_keys(config: &OidcConfig, mut policy: FetchPolicy) -> Result<Vec<Key>, OidcError> {
    let jwks_url = match &config.jwks_url {
        Some(url) => url.clone(),
        None => {
            let url = format!(
                "{}/.well-known/openid-configuration",
                config.issuer.trim_end_matches('/')
            );
            let discovery: Discovery = fetch_json(&url, &policy)?;
            // OpenID Connect Discovery 1.0 §4.3: the document must be the issuer's own.
            if discovery.issuer != config.issuer {
                return Err(OidcError::Unavailable(format!(
                    "{url} is for issuer `{}`, not `{}`",
                    discovery.issuer, config.issuer
                )));
            }
            check_url("jwks_uri", &discovery.jwks_uri, policy.allow_loopback)
                .map_err(OidcError::Unavailable)?;
            // The issuer vouches for the host of its keys.
            policy.trust_hosts.extend(authority(&discovery.jwks_uri));
            discovery.jwks_uri
        }
    };
    let set: JwkSet = fetch_json(&jwks_url, &policy)?;
    let keys: Vec<Key> = set
        .keys
        .iter()
        .filter(|jwk| !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)))
        .filter(|jwk| !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)))
        .filter_map(|jwk| {
            let algorithm = match jwk.common.key_algorithm {
                Some(alg) => Some(Algorithm::try_from(alg).ok()?),
                None => None,
            };
            if algorithm.is_some_and(|a| !ALGORITHMS.contains(&a)) {
                return None;
            }
            Some(Key {
                kid: jwk.common.key_id.clone(),
                algorithm,
                key: DecodingKey::from_jwk(jwk).ok()?,
            })
        })
        .collect();
    if keys.is_empty() {
        return Err(OidcError::Unavailable(format!(
            "{jwks_url} has no signing key the registry can use"
        )));
    }
    Ok(keys)
}

/// The claim `name`, or the value at its dotted path.
fn claim<'a>(claims: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    if let Some(value) = claims.get(name) {
        return Some(value);
    }
    let mut parts = name.split('.');
    let mut value = claims.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    Some(value)
}

/// A verification failure as the caller should read it.
fn reason(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".to_string(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_string(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".to_string(),
        ErrorKind::InvalidAudience => "the token is for another audience".to_string(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_string(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        _ => format!("the token is not valid: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_found_by_name_then_by_dotted_path() {
        let claims: serde_json::Map<String, Value> = serde_json::from_value(serde_json::json!({
            "cognito:groups": ["a"],
            "realm_access": {"roles": ["b"]},
            "x.y": "whole",
            "x": {"y": "path"},
        }))
        .unwrap_or_default();
        assert_eq!(
            claim(&claims, "cognito:groups"),
            Some(&serde_json::json!(["a"]))
        );
        assert_eq!(
            claim(&claims, "realm_access.roles"),
            Some(&serde_json::json!(["b"]))
        );
        assert_eq!(claim(&claims, "x.y"), Some(&serde_json::json!("whole")));
        assert_eq!(claim(&claims, "realm_access.nothing"), None);
    }

    #[test]
    fn settings_are_checked() {
        let ok = OidcConfig::new("https://idp.example.com/realms/acme", "skills");
        assert_eq!(ok.check(false), Ok(()));
        let http = OidcConfig::new("http://127.0.0.1:9/realms/acme", "skills");
        assert!(http.check(false).is_err_and(|e| e.contains("issuer")));
        assert_eq!(http.check(true), Ok(()));
        let creds = OidcConfig::new("https://u:p@idp.example.com", "skills");
        assert!(creds.check(false).is_err());
        let empty = OidcConfig::new("https://idp.example.com", " ");
        assert!(empty.check(false).is_err_and(|e| e.contains("audience")));
    }
}
