//! [`UrlError`]: why a URL cannot be translated.

use crate::HostKind;

/// Why a URL cannot be translated. Every variant carries the input (with any credentials
/// removed) so the message stands on its own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The input is empty or only whitespace.
    #[error("empty URL")]
    Empty,

    /// The input does not start with a scheme such as `https://`, and is not a URL of a
    /// known host that may leave it out (`github.com/o/r/blob/…`).
    #[error("`{input}` is not a URL: it does not start with https://")]
    MissingScheme {
        /// The input.
        input: String,
    },

    /// The scheme is not `http` or `https` (`ftp:`, `ssh:`, `file:`, ...).
    #[error("`{input}`: the scheme `{scheme}` is not supported, only https and http are")]
    UnsupportedScheme {
        /// The input.
        input: String,
        /// The scheme, lowercased.
        scheme: String,
    },

    /// Nothing between `https://` and the path (or no `//` after the scheme).
    #[error("`{input}` has no host")]
    MissingHost {
        /// The input.
        input: String,
    },

    /// The host has characters a host name cannot have, or an empty label.
    #[error("`{input}`: `{host}` is not a valid host")]
    InvalidHost {
        /// The input.
        input: String,
        /// The host as written.
        host: String,
    },

    /// The port is not a number from 0 to 65535.
    #[error("`{input}`: `{port}` is not a valid port")]
    InvalidPort {
        /// The input.
        input: String,
        /// The port as written.
        port: String,
    },

    /// The URL has a `user:password@` part. The input kept here has it replaced by `***`.
    #[error("`{input}` carries credentials (the part before `@`); they are not accepted in URLs")]
    Credentials {
        /// The input, credentials replaced by `***`.
        input: String,
    },

    /// A control character, a backslash or other character no URL may contain.
    #[error("`{input}`: {character:?} at byte {offset} cannot appear in a URL")]
    InvalidCharacter {
        /// The input.
        input: String,
        /// The character.
        character: char,
        /// Its byte offset in the input.
        offset: usize,
    },

    /// A `%` not followed by two hexadecimal digits.
    #[error("`{input}`: the `%` at byte {offset} does not start a percent-encoded byte (%XX)")]
    InvalidPercent {
        /// The input.
        input: String,
        /// Byte offset of the `%` in the input.
        offset: usize,
    },

    /// A `.` or `..` path segment (also percent-encoded): refused rather than resolved, so a
    /// URL cannot climb out of the path it appears to name.
    #[error("`{input}`: `.` and `..` path segments are not accepted")]
    DotSegment {
        /// The input.
        input: String,
    },

    /// A URL of a known host that lacks a part (a ref, a file path, a gist id, ...).
    #[error("`{input}` is an incomplete {host} URL: expected {expected}")]
    Incomplete {
        /// The input.
        input: String,
        /// The host it was recognised as.
        host: HostKind,
        /// The shape that was expected, such as `github.com/OWNER/REPO/blob/REF/PATH`.
        expected: &'static str,
    },

    /// A page of a known host that is neither a file nor a directory (an issue, a user, a
    /// commit, ...).
    #[error("`{input}` is a {host} {what} page, not a file or a directory")]
    NotAFile {
        /// The input.
        input: String,
        /// The host it was recognised as.
        host: HostKind,
        /// What the page is, from the URL (`issues`, `user or organization`, ...).
        what: String,
    },

    /// [`to_repository`](crate::to_repository) on a URL of a host whose repositories are not
    /// known (a plain web server, a GitLab API URL).
    #[error("`{input}`: no repository can be derived from a URL on this host")]
    NoRepository {
        /// The input.
        input: String,
    },
}

impl UrlError {
    /// The input the error is about (with credentials removed); empty for [`UrlError::Empty`].
    #[must_use]
    pub fn input(&self) -> &str {
        match self {
            Self::Empty => "",
            Self::MissingScheme { input }
            | Self::UnsupportedScheme { input, .. }
            | Self::MissingHost { input }
            | Self::InvalidHost { input, .. }
            | Self::InvalidPort { input, .. }
            | Self::Credentials { input }
            | Self::InvalidCharacter { input, .. }
            | Self::InvalidPercent { input, .. }
            | Self::DotSegment { input }
            | Self::Incomplete { input, .. }
            | Self::NotAFile { input, .. }
            | Self::NoRepository { input } => input,
        }
    }

    /// The byte offset in [`input`](Self::input) of the offending character, when the error
    /// is about one.
    #[must_use]
    pub fn offset(&self) -> Option<usize> {
        match self {
            Self::InvalidCharacter { offset, .. } | Self::InvalidPercent { offset, .. } => {
                Some(*offset)
            }
            _ => None,
        }
    }

    /// One line telling the user what to do about it.
    #[must_use]
    pub fn help(&self) -> &'static str {
        match self {
            Self::Empty | Self::MissingHost { .. } => {
                "give a full web URL such as https://github.com/OWNER/REPO/blob/main/skills/NAME/SKILL.md"
            }
            Self::MissingScheme { .. } => {
                "start it with https://; only URLs of GitHub, GitLab, Bitbucket and gists may leave it out"
            }
            Self::UnsupportedScheme { .. } => {
                "use the https:// URL of the file as the forge's web page shows it, not a git or ssh URL"
            }
            Self::InvalidHost { .. } | Self::InvalidPort { .. } => {
                "check the host name: letters, digits, `-` and `.`, with an optional :PORT"
            }
            Self::Credentials { .. } => {
                "remove `user:password@`; tokens do not belong in URLs that are printed and stored"
            }
            Self::InvalidCharacter { .. } => {
                "remove the character, or percent-encode it (a backslash is %5C, a tab %09)"
            }
            Self::InvalidPercent { .. } => "write a literal `%` as %25",
            Self::DotSegment { .. } => "give the path without `.` or `..` segments",
            Self::Incomplete { .. } => {
                "copy the URL of the file (or of the skill's directory) from the address bar"
            }
            Self::NotAFile { .. } => {
                "open the skill's SKILL.md (or its directory) in the browser and copy that URL"
            }
            Self::NoRepository { .. } => {
                "only GitHub, GitHub Enterprise, GitLab, Bitbucket and gist URLs have a known repository"
            }
        }
    }
}
