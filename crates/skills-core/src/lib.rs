//! What every `skills-*` crate shares about a skill's files, so that each answer exists once:
//!
//! - [`layout`]: the names and limits of a skill directory (`SKILL.md`, `tools.json`, the
//!   directories no walker enters, 512 files / 16 MiB);
//! - [`files`]: which files belong to a skill, the one listing lint, package, show and the
//!   MCP server share (built on [`RepoRules`] and [`is_secret`], below); a
//!   [`files::Lister`] lists many skills in one run, sharing what sibling skills have in
//!   common;
//! - [`fs`]: reads that are bounded and never block on a FIFO ([`read_bounded`]), [`Stamp`]s
//!   that notice a change, [`describe_file_type`];
//! - [`durable`]: writes that a crash, a kill or a full disk cannot half-do
//!   ([`durable::write_atomically`]), and the staging prefixes of killed runs;
//! - [`suggest`]: one "did you mean" for every command;
//! - [`digest`]: SHA-256 as lowercase hex, spelled once.
//!
//! ## Which files belong to a skill
//!
//! A skill directory usually lives in a git repository. Which of its files belong to it is
//! decided in layers, the deepest with an opinion winning, as git decides:
//!
//! 1. the skill's own ignore files (read by each walker as it enters a directory);
//! 2. the repository's rules above the skill: [`RepoRules`] (the `.gitignore` files of the
//!    directories between the repository root and the skill, `.git/info/exclude`, and the
//!    user's global excludes file);
//! 3. well-known secret names ([`is_secret`]): left out unless a rule above includes them
//!    explicitly with a `!pattern`.
//!
//! Without layer 2, a `.env` that git reports as ignored went into the `.skill` archive, was
//! copied by `skills install DIR` and was served over MCP.
//!
//! ```
//! use std::path::Path;
//! use skills_core::{RepoRules, Verdict, is_secret};
//!
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::create_dir_all(repo.path().join("skills/pdf"))?;
//! std::fs::write(repo.path().join(".gitignore"), "*.secret\n")?;
//!
//! let rules = RepoRules::for_skill(&repo.path().join("skills/pdf"));
//! assert_eq!(rules.matched(Path::new("keys.secret"), false), Verdict::Ignore);
//! assert_eq!(rules.matched(Path::new("SKILL.md"), false), Verdict::None);
//! assert!(is_secret(".env.local") && is_secret("server.pem") && !is_secret("SKILL.md"));
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod digest;
pub mod durable;
pub mod files;
pub mod fs;
pub mod layout;
mod policy;
pub mod suggest;

pub use fs::{Identity, ReadError, Stamp, describe_file_type, read_bounded, read_listed};
pub use policy::{RepoRules, SECRET_PATTERNS, Verdict, is_secret};
