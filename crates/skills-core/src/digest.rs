//! SHA-256 written as lowercase hex: the one spelling of a digest that lock files, the
//! registry, trust records and caches share.

use sha2::Digest as _;

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
///
/// ```
/// assert_eq!(
///     skills_core::digest::sha256_hex(b""),
///     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha2::Sha256::digest(bytes))
}

/// The SHA-256 of `parts` one after the other, each preceded by its length (so that
/// `["ab", "c"]` and `["a", "bc"]` differ): a fingerprint of several things at once.
///
/// ```
/// use skills_core::digest::sha256_parts;
/// assert_ne!(sha256_parts(&[b"ab", b"c"]), sha256_parts(&[b"a", b"bc"]));
/// assert_eq!(sha256_parts(&[b"x"]), sha256_parts(&[b"x"]));
/// ```
#[must_use]
pub fn sha256_parts(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// `bytes` as lowercase hex, two digits a byte.
///
/// ```
/// assert_eq!(skills_core::digest::hex(&[0, 0xab, 0x10]), "00ab10");
/// ```
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    let digit = |n: u8| char::from_digit(u32::from(n), 16).unwrap_or('0');
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(digit(b >> 4));
        out.push(digit(b & 0xf));
    }
    out
}
