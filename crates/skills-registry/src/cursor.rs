//! The cursor of a list page, shared by the API (`http.rs`) and the pages (`web.rs`): the
//! last name of the page, base64url without padding, so a client treats it as opaque and
//! a name with `&` or `#` needs no escaping in a URL.

use base64::Engine;

use crate::error::RegistryError;

/// The cursor that continues a list after `name`.
pub(crate) fn encode(name: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(name)
}

/// The name a cursor of [`encode`] holds.
pub(crate) fn decode(cursor: &str) -> Result<String, RegistryError> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| RegistryError::Invalid("`cursor` is not one this registry returned".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_what_they_did_not_make() {
        for name in ["pdf", "a&b#c", "é"] {
            assert_eq!(decode(&encode(name)).unwrap(), name);
        }
        assert!(matches!(
            decode("not base64!"),
            Err(RegistryError::Invalid(_))
        ));
        // Valid base64 of bytes that are not UTF-8.
        assert!(decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([0xff])).is_err());
    }
}
