//! Which of a project's MCP configuration files the user trusts to start their servers.
//!
//! A `.mcp.json` arrives with a clone: a command it names is the repository's code. The
//! agents ask before they start a project's servers; `skills doctor --probe` does the same.
//! A decision is remembered by the file's absolute path and the SHA-256 of its bytes, so a
//! file changed since (a pull request) is not trusted until it is trusted again.
//!
//! ```
//! use skills_doctor::trust::{Trust, Trusted};
//!
//! let dir = tempfile::tempdir()?;
//! let config = dir.path().join(".mcp.json");
//! std::fs::write(&config, r#"{"mcpServers": {}}"#)?;
//! let store = dir.path().join("trusted-mcp.json");
//!
//! let mut trusted = Trusted::load(&store)?;
//! assert_eq!(trusted.check(&config), Trust::Unknown);
//! trusted.trust(&config)?;
//! trusted.save()?;
//! assert_eq!(Trusted::load(&store)?.check(&config), Trust::Trusted);
//! std::fs::write(&config, r#"{"mcpServers": {"x": {"command": "touch"}}}"#)?;
//! assert_eq!(Trusted::load(&store)?.check(&config), Trust::Changed);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::DoctorError;

/// The store's file name under the user's state directory.
pub const FILE: &str = "trusted-mcp.json";

/// The most bytes of a store read (one entry is about 150 bytes).
const MAX_STORE_BYTES: u64 = 8 * 1024 * 1024;

/// What the user said of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trust {
    /// Trusted, and unchanged since.
    Trusted,
    /// Trusted once, but its bytes changed since.
    Changed,
    /// Never trusted (or it cannot be read).
    Unknown,
}

/// The remembered decisions, and where they are kept.
#[derive(Debug, Clone)]
pub struct Trusted {
    path: PathBuf,
    files: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    /// Absolute path → `sha256:` hex of the bytes trusted.
    files: BTreeMap<String, String>,
}

/// `$XDG_STATE_HOME/skills/trusted-mcp.json`, else `~/.local/state/skills/trusted-mcp.json`:
/// the user's own state, never the project's.
#[must_use]
pub fn default_path(home: &Path) -> PathBuf {
    skills_core::fs::state_dir(home).join(FILE)
}

fn digest_of(file: &Path) -> Option<String> {
    let bytes = skills_core::read_bounded(file, 64 * 1024 * 1024).ok()?;
    Some(format!(
        "sha256:{}",
        skills_core::digest::sha256_hex(&bytes)
    ))
}

fn key(file: &Path) -> String {
    std::path::absolute(file)
        .unwrap_or_else(|_| file.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

impl Trusted {
    /// The decisions kept at `path` (none when it does not exist).
    ///
    /// # Errors
    ///
    /// [`DoctorError::Config`] for a store that cannot be read or is not one.
    pub fn load(path: &Path) -> Result<Self, DoctorError> {
        let failed = |message: String| DoctorError::Config {
            path: path.to_path_buf(),
            message,
        };
        let files = match skills_core::read_bounded(path, MAX_STORE_BYTES) {
            Ok(bytes) => {
                let stored: Stored = serde_json::from_slice(&bytes)
                    .map_err(|e| failed(format!("not a trust store: {e}")))?;
                stored.files
            }
            Err(skills_core::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                BTreeMap::new()
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        Ok(Self {
            path: path.to_path_buf(),
            files,
        })
    }

    /// Whether `file`, as its bytes are now, is trusted.
    #[must_use]
    pub fn check(&self, file: &Path) -> Trust {
        let Some(kept) = self.files.get(&key(file)) else {
            return Trust::Unknown;
        };
        match digest_of(file) {
            Some(now) if now == *kept => Trust::Trusted,
            _ => Trust::Changed,
        }
    }

    /// Trusts `file` as its bytes are now (kept by [`Trusted::save`]).
    ///
    /// # Errors
    ///
    /// [`DoctorError::Config`] when `file` cannot be read.
    pub fn trust(&mut self, file: &Path) -> Result<(), DoctorError> {
        let digest = digest_of(file).ok_or_else(|| DoctorError::Config {
            path: file.to_path_buf(),
            message: "cannot be read, so it cannot be trusted".to_string(),
        })?;
        self.files.insert(key(file), digest);
        Ok(())
    }

    /// Writes the decisions back, atomically.
    ///
    /// # Errors
    ///
    /// [`DoctorError::Config`] when the store cannot be written.
    pub fn save(&self) -> Result<(), DoctorError> {
        let failed = |message: String| DoctorError::Config {
            path: self.path.clone(),
            message,
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| failed(e.to_string()))?;
        }
        let stored = Stored {
            version: 1,
            files: self.files.clone(),
        };
        let text = serde_json::to_string_pretty(&stored).map_err(|e| failed(e.to_string()))?;
        skills_core::durable::write_atomically(&self.path, format!("{text}\n").as_bytes())
            .map_err(|e| failed(e.to_string()))
    }
}
