//! `skill://` URIs: built from a manifest's file list and matched against it, never decoded
//! into a path. Everything that knows the scheme's spelling is here.

use super::manifest::{Manifest, ServedFile};

/// The URI scheme of served skills.
const SCHEME: &str = "skill://";

impl Manifest {
    /// `skill://<id>/SKILL.md`.
    pub(crate) fn skill_uri(&self) -> String {
        format!("{SCHEME}{}/SKILL.md", self.id)
    }

    /// `skill://<id>/<rel>`, percent-encoded where needed.
    pub(crate) fn uri(&self, file: &ServedFile) -> String {
        format!("{SCHEME}{}/{}", self.id, encode(&file.rel))
    }

    /// The file at exactly this URI (compared without building every file's URI).
    pub(crate) fn file(&self, uri: &str) -> Option<&ServedFile> {
        let rest = uri
            .strip_prefix(SCHEME)?
            .strip_prefix(&*self.id)?
            .strip_prefix('/')?;
        self.files.iter().find(|f| is_encoding_of(rest, &f.rel))
    }

    /// The URI of a directory (`rel` relative to the skill, `""` for its root).
    pub(crate) fn dir_uri(&self, rel: &str) -> String {
        if rel.is_empty() {
            format!("{SCHEME}{}", self.id)
        } else {
            format!("{SCHEME}{}/{}", self.id, encode(rel))
        }
    }
}

/// Whether a byte stays as it is in a URI path: unreserved characters and `/`.
fn is_kept(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/')
}

/// The hexadecimal digit of a nibble (the low four bits of `n`).
pub(super) fn hex_digit(n: u8, upper: bool) -> u8 {
    match n & 0xf {
        d @ 0..=9 => b'0' + d,
        d if upper => b'A' + (d - 10),
        d => b'a' + (d - 10),
    }
}

/// The `%XX` escape of a byte.
fn escape(byte: u8) -> [u8; 3] {
    [b'%', hex_digit(byte >> 4, true), hex_digit(byte, true)]
}

/// Percent-encodes a relative path for a URI, keeping unreserved characters and `/`.
fn encode(rel: &str) -> String {
    let mut out = String::with_capacity(rel.len());
    for byte in rel.bytes() {
        if is_kept(byte) {
            out.push(char::from(byte));
        } else {
            out.extend(escape(byte).map(char::from));
        }
    }
    out
}

/// Whether `encoded` is exactly [`encode`]`(rel)`.
fn is_encoding_of(encoded: &str, rel: &str) -> bool {
    let mut rest = encoded.as_bytes();
    for byte in rel.bytes() {
        let matched = if is_kept(byte) {
            rest.split_first()
                .filter(|(first, _)| **first == byte)
                .map(|(_, tail)| tail)
        } else {
            rest.split_at_checked(3)
                .filter(|(head, _)| *head == escape(byte))
                .map(|(_, tail)| tail)
        };
        match matched {
            Some(tail) => rest = tail,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Splits `skill://<id>[/<rest>]` into the id and the rest (without its leading `/`).
pub(crate) fn split_uri(uri: &str) -> Option<(&str, Option<&str>)> {
    let tail = uri.strip_prefix(SCHEME)?;
    Some(match tail.split_once('/') {
        Some((id, rest)) => (id, Some(rest)),
        None => (tail, None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded_and_split() {
        assert_eq!(encode("a b/ü.md"), "a%20b/%C3%BC.md");
        for rel in ["a b/ü.md", "SKILL.md", "x%41", "", "%"] {
            assert!(is_encoding_of(&encode(rel), rel), "{rel}");
        }
        for (encoded, rel) in [
            // Another spelling of the same bytes is not the file's URI.
            ("a%62", "ab"),
            ("a%20b/%c3%bc.md", "a b/ü.md"),
            ("a b", "a b"),
            ("%2e%2e/x", "../x"),
            ("SKILL.md/", "SKILL.md"),
            ("SKILL.m", "SKILL.md"),
            ("x%4", "x%41"),
        ] {
            assert!(!is_encoding_of(encoded, rel), "{encoded} {rel}");
        }
        assert_eq!(
            split_uri("skill://x/SKILL.md"),
            Some(("x", Some("SKILL.md")))
        );
        assert_eq!(split_uri("skill://x"), Some(("x", None)));
        assert_eq!(split_uri("file:///etc/passwd"), None);
    }
}
