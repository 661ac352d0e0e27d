//! The cursor of a list page, shared by the API (`http.rs`) and the pages (`web.rs`):
//! base64url without padding, so a client treats it as opaque and a name with `&` or `#`
//! needs no escaping in a URL. A list by name continues after the page's last name; a list
//! in another order (relevance, rating, updated) from a position, written `+N` (no skill
//! name starts with `+`).

use base64::Engine;

use crate::error::RegistryError;

/// The cursor that continues a list after `name`.
pub(crate) fn encode(name: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(name)
}

/// The cursor that continues a list at position `offset`.
pub(crate) fn encode_offset(offset: u32) -> String {
    encode(&format!("+{offset}"))
}

/// Where a cursor continues a list: after a name, or at a position.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Cursor {
    After(String),
    Offset(u32),
}

/// The place a cursor of [`encode`] or [`encode_offset`] holds.
pub(crate) fn decode_any(cursor: &str) -> Result<Cursor, RegistryError> {
    let text = decode(cursor)?;
    match text.strip_prefix('+') {
        Some(n) => n.parse().map(Cursor::Offset).map_err(|_| {
            RegistryError::Invalid("`cursor` is not one this registry returned".into())
        }),
        None => Ok(Cursor::After(text)),
    }
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
        assert_eq!(decode_any(&encode_offset(48)).unwrap(), Cursor::Offset(48));
        assert_eq!(
            decode_any(&encode("pdf")).unwrap(),
            Cursor::After("pdf".into())
        );
        assert!(decode_any(&encode("+x")).is_err());
        // Valid base64 of bytes that are not UTF-8.
        assert!(decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([0xff])).is_err());
    }
}
