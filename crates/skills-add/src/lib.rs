//! Install Agent Skills from git repositories, directories and archives into every coding
//! agent's skills folder, and keep a lock file of what was installed: the library under
//! `skills add`, `skills sync`, `skills check`, `skills update` and `skills remove`.
//!
//! The parts, each usable alone:
//!
//! - [`parse_source`]: `owner/repo[/path][@skill][#ref]`, git URLs, GitHub / GitLab /
//!   Bitbucket page URLs, paths; [`skill_md_repository`]: the repository, ref and
//!   directory of a `SKILL.md` URL, to fetch the whole skill rather than the file.
//! - [`git::fetch`]: a shallow fetch of one ref with the `git` executable into a cache.
//! - [`AGENTS`]: the agents and the folders each reads; the canonical copy of a skill lives
//!   in [`UNIVERSAL_DIR`], other agents get a relative link ([`place`]).
//! - [`plugin_skill_dirs`]: the skills Claude Code plugin manifests declare.
//! - [`Lock`]: `skills.lock`, sorted, one table per skill; [`tree_hash`] is the digest it
//!   records.
//! - [`NpmLock`]: `skills-lock.json`, the npm `skills` tool's project lock, read (never
//!   written) so a project locked with that tool can be installed; [`npm_folder_hash`] is
//!   its digest.
//!
//! ```
//! use skills_add::{AGENTS, Scope, parse_source, Source};
//!
//! let Source::Git(git) = parse_source("anthropics/skills@pdf") else { unreachable!() };
//! assert_eq!(git.url, "https://github.com/anthropics/skills.git");
//!
//! // Claude Code reads .claude/skills: it gets a link to .agents/skills/NAME.
//! let claude = skills_add::agents::by_id("claude-code").unwrap();
//! assert!(!claude.reads_universal(Scope::Project));
//! assert!(AGENTS.iter().any(|a| a.id == "codex" && a.reads_universal(Scope::Project)));
//! ```

pub mod agents;
pub mod git;
mod hash;
mod lock;
mod npm;
mod place;
mod plugin;
mod source;

use std::path::{Path, PathBuf};

pub use agents::{AGENTS, Agent, HomeVar, Scope, UNIVERSAL_DIR};
pub use hash::{bytes_hash, files_hash, tree_hash};
pub use lock::{
    AcceptedRisks, LOCK_FILE, Lock, LockGuard, Locked, global_lock_path, hold, is_registry_url,
};
pub use npm::{HashCheck, NPM_LOCK_FILE, NpmLock, NpmLocked, NpmOrigin, npm_folder_hash};
pub use place::{AgentState, Placed, place, relative, state, unplace};
pub use plugin::plugin_skill_dirs;
pub use source::{GitSource, Source, parse_source, pasted_url, skill_md_repository};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AddError {
    /// No `git` executable on the `PATH`.
    #[error("git is not installed (or not on the PATH)")]
    GitMissing,
    /// A `git` command failed.
    #[error("git failed for {url}: {message}")]
    Git {
        /// The repository.
        url: String,
        /// What git said.
        message: String,
    },
    /// The lock file cannot be read as one.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The column (1-based).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// npm `skills`' lock (`skills-lock.json`) cannot be read as one, or holds an entry that
    /// cannot be trusted.
    #[error("{}:{line}:{column}: {message}", path.display())]
    NpmLock {
        /// The lock file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The column (1-based).
        column: usize,
        /// The skill whose entry is wrong, when one is.
        entry: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A plugin manifest that is not JSON.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The column (1-based).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Something that is not ours is where a skill would go.
    #[error("{} already exists and is not a link to the installed skill", path.display())]
    Occupied {
        /// The path.
        path: PathBuf,
    },
    /// An agent's folder got neither a link to the skill nor a copy of it.
    #[error("cannot put {name} into {}: cannot link ({link}), and the copy failed: {copy}", dir.display())]
    NotPlaced {
        /// The agent's folder.
        dir: PathBuf,
        /// The skill.
        name: String,
        /// Why the link could not be made.
        link: std::io::Error,
        /// Why the copy made instead failed.
        copy: Box<AddError>,
    },
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl AddError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or(text)),
        None => text.to_string(),
    }
}
