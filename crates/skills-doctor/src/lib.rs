//! Which tool each skill will use on this machine: seed 004's tool inventory (the MCP
//! servers the agents are configured with, the CLIs on `PATH`), what each skill needs (its
//! `allowed-tools`, the commands of its shell blocks, its scripts' interpreters), and the
//! fallback chain MCP → CLI → HTTP walked for each domain it needs. The library under
//! `skills doctor`.
//!
//! ```
//! use skills_doctor::{domains, inventory, needs, resolve};
//!
//! let text = "---\nname: git-pr\ndescription: d\nallowed-tools: Bash(gh:*) mcp__github__create_pull_request\n---\nBody\n";
//! let all = domains::builtin();
//! let needs = needs::needs(text, None, &all);
//! let places = inventory::Places::here(std::env::temp_dir());
//! let inventory = inventory::build(&places, &["gh"]);
//! for resolution in resolve::resolve(&needs, &inventory, &all) {
//!     println!("{}", resolution.line("git-pr"));
//! }
//! ```

pub mod domains;
pub mod inventory;
pub mod needs;
mod report;
pub mod resolve;
pub mod trust;

pub use report::{DomainReport, SkillReport, report};

use std::path::PathBuf;

/// What can go wrong reading the agents' configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DoctorError {
    /// A configuration file that cannot be read or parsed.
    #[error("{}: {message}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Every command some built-in or extra domain names, sorted and once each: what
/// [`inventory::build`] looks for on `PATH`.
#[must_use]
pub fn commands(domains: &[domains::Domain]) -> Vec<&str> {
    let mut all: Vec<&str> = domains
        .iter()
        .flat_map(|d| d.cli.iter().map(String::as_str))
        .chain(["curl", "wget"])
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}
