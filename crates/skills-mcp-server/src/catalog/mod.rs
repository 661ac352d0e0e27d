//! The MCP Skills extension's (SEP-2640) data over a discovery index: which skills are served,
//! their manifests (`skill://<id>/...` URIs with sha256 digests, and the directories a
//! manifest implies) and the bounded file reads; `extension.rs` answers the requests with
//! them.
//!
//! URIs are never turned into paths. A request's URI is compared with the URIs generated from
//! a served skill's file list ([`Skill::files`](skills_discovery::Skill::files), which keeps
//! symlinks that leave the skill out), and only a file found in that list is read, by the path
//! the list holds.

mod cache;
mod manifest;
mod uri;

use std::path::Path;

pub(crate) use cache::{Cache, Cached};
pub(crate) use manifest::{Manifest, Sha, digest_text, is_spec_name};
pub(crate) use uri::split_uri;

use manifest::MAX_BYTES;

/// Reads a served file of at most [`MAX_BYTES`] (a regular file: a FIFO put in its place
/// is refused, not waited on).
pub(crate) fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    skills_core::read_bounded(path, MAX_BYTES).map_err(|e| match e {
        skills_core::ReadError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })
}

/// The MIME type for a file name, by extension; `None` when unknown.
pub(crate) fn mime_type(rel: &str) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" | "bash" => "application/x-sh",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types() {
        assert_eq!(mime_type("SKILL.md"), Some("text/markdown"));
        assert_eq!(mime_type("scripts/run.PY"), Some("text/x-python"));
        assert_eq!(mime_type("LICENSE"), None);
    }
}
