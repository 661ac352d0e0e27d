//! API tokens: random, shown once, stored as a SHA-256 only.

use base64::Engine;

use crate::error::RegistryError;

/// The prefix of every token, so a leaked one is recognisable (and secret scanners can
/// look for it).
pub const TOKEN_PREFIX: &str = "skr_";

/// A new token and its public id.
pub(crate) fn generate() -> Result<(String, String), RegistryError> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| RegistryError::Internal(e.to_string()))?;
    let mut id = [0u8; 6];
    getrandom::fill(&mut id).map_err(|e| RegistryError::Internal(e.to_string()))?;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    Ok((
        format!("{TOKEN_PREFIX}{}", b64.encode(secret)),
        format!("tok_{}", b64.encode(id)),
    ))
}

/// The stored form of `token`.
pub(crate) fn hash(token: &str) -> String {
    skills_core::digest::sha256_hex(token.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, id_a) = generate().unwrap();
        let (b, id_b) = generate().unwrap();
        assert_ne!(a, b);
        assert_ne!(id_a, id_b);
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == TOKEN_PREFIX.len() + 43);
        assert_eq!(hash(&a).len(), 64);
        assert_ne!(hash(&a), hash(&b));
    }
}
