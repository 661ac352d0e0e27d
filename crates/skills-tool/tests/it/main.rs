//! Integration tests of the `skills` binary, run as a user runs it.
//!
//! - `rules`: every rule of the registry against `testdata/rules/<rule>/{bad,good}`.
//! - `generated`: the rules whose trees cannot be committed (huge, numerous or unreadable
//!   files), built in a temporary directory.
//! - `cli`: exit codes, flags, `skills.toml`, output formats, help, ordering.
//! - `discovery`: `skills list` and `skills show` on temporary home and project trees.
//! - `doctor`: `skills doctor` on fake machines (agents' MCP configurations, stub CLIs).
//! - `url`: `skills url`, text and JSON output and its errors.
//! - `scaffold`: `skills new` and `skills instructions`.
//! - `context`: context packages (`tools.json`, `resources.json`): lint and `skills show`.
//! - `prompt`: `skills prompt` (built-in and user templates, JSON context, token estimates).
//! - `package`: `skills package` and `skills install` (with a local HTTP server).
//! - `install_url`: `skills install` of a `SKILL.md` URL: the whole skill from its repository
//!   (bare clones git serves in place of GitHub), the file alone when that cannot be had.
//! - `add`: `skills add` and `skills sync` from git repositories the tests create, into
//!   fake projects and homes with several agents' folders.
//! - `npm_lock`: `skills sync` in a project locked by npm `skills` (`skills-lock.json` as it
//!   writes it, from `testdata/npm-skills/`), and hostile such locks.
//! - `mcp`: `skills mcp` through rmcp's own client over stdio (tools, resources, prompts,
//!   notifications when skills change).
//! - `registry`: `skills registry serve`, `migrate` and `token`, driven over HTTP and stopped
//!   with SIGTERM.
//! - `registry_instances`: several `skills registry serve` on one PostgreSQL database, and
//!   other processes writing a served SQLite file: what one writes, the others see at once.
//! - `schemas`: every `--format json` output against its JSON Schema in `docs/schemas/`.
//! - `terminal` (Unix): `list`, `lint` and `--help` with stdout on a pseudo-terminal of 60,
//!   100 and 160 columns: the terminal's size wins over `$COLUMNS`.
//! - `fit`: `--version`, `-q`/`-v`, completions, man pages, the pre-commit hook and the
//!   GitHub Action.
//! - `adversarial`: hostile inputs (huge, binary, FIFO, symlink loops, Unicode oddities...)
//!   through `lint`, `list` and `show`: a clear message, no panic, no hang.
//! - `no_data_loss`: every command that writes, against a read-only target, a full disk and
//!   a `SIGKILL` midway: the previous state survives and no temporary file is left.
//! - `doc_examples`: the ```console transcripts of `README.md` and `docs/*.md`, run in copies
//!   of their fixtures (`testdata/docs/<doc>/`) and compared with their text.
//!
//! Outputs are compared with insta snapshots in `snapshots/`; regenerate them with
//! `INSTA_UPDATE=always cargo test -p skills-tool --test it` and review the diff.

// The helpers here and in the modules fail the test by panicking, like the tests themselves;
// clippy.toml's allow-*-in-tests settings cover `#[test]` functions only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod add;
mod adversarial;
mod audit;
mod audit_gate;
mod cli;
mod context;
mod discovery;
mod doc_examples;
mod doctor;
mod file_policy;
mod fit;
mod generated;
mod install_url;
mod mcp;
mod no_data_loss;
mod npm_lock;
mod package;
mod prompt;
mod registry;
mod registry_instances;
mod rules;
mod scaffold;
mod schemas;
#[cfg(unix)]
mod terminal;
mod url;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// `testdata/` at the workspace root, canonical so it can be filtered out of outputs.
pub(crate) fn testdata() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    dir.canonicalize().unwrap_or(dir)
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub(crate) struct Run {
    /// The command line, for messages and snapshot descriptions.
    pub(crate) command: String,
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Parses stdout as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "`{}` did not print JSON ({e}):\n{}{}",
                self.command, self.stdout, self.stderr
            )
        })
    }

    /// Checks the exit code, showing the whole output when it is wrong.
    #[track_caller]
    pub(crate) fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code of `{}`\n--- stdout\n{}--- stderr\n{}",
            self.command, self.stdout, self.stderr
        );
        self
    }

    /// Checks that nothing was printed to stderr.
    #[track_caller]
    pub(crate) fn assert_quiet(&self) -> &Self {
        assert_eq!(self.stderr, "", "stderr of `{}`", self.command);
        self
    }
}

/// Runs `skills ARGS` in `cwd` with a fixed environment (no colors, 100 columns), so paths
/// in the output are relative to `cwd` and the output is the same on every machine.
pub(crate) fn skills(cwd: &Path, args: &[&str]) -> Run {
    skills_with(cwd, args, &[])
}

/// [`skills`] with more environment variables.
pub(crate) fn skills_with(cwd: &Path, args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut command = assert_cmd::cargo::cargo_bin_cmd!("skills");
    command
        .current_dir(cwd)
        .args(args)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .timeout(Duration::from_secs(60));
    // The variables that move agents' folders (`CLAUDE_CONFIG_DIR` is set inside Claude
    // Code, `XDG_CONFIG_HOME` on many desktops): the test's home decides, not the machine's.
    for var in skills_add::AGENTS.iter().filter_map(|a| a.home_var) {
        command.env_remove(var.name);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    Run {
        command: format!("skills {}", args.join(" ")),
        code: output.status.code().expect("killed by a signal"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Runs `skills ARGS` in `cwd` as [`skills`] does, but where file modes apply: as root
/// (which reads a mode-000 directory), as the user `nobody` through `setpriv`, with `HOME`
/// set to `cwd`. `None` when that cannot be arranged (no `setpriv`, or it may not switch):
/// the caller skips the case. The tree must be open to others (`chmod 755` the temporary
/// directory), except for what is meant to be unreadable.
#[cfg(unix)]
pub(crate) fn unprivileged(cwd: &Path, args: &[&str]) -> Option<Run> {
    if !no_data_loss::privileged() {
        return Some(skills(cwd, args));
    }
    let setpriv = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"];
    // `nobody` must reach `cwd` (a temporary directory under a private one cannot).
    let reachable = std::process::Command::new("setpriv")
        .args(setpriv)
        .arg("test")
        .arg("-x")
        .arg(cwd)
        .status()
        .is_ok_and(|s| s.success());
    if !reachable {
        return None;
    }
    let bin = assert_cmd::cargo::cargo_bin!("skills");
    let output = std::process::Command::new("setpriv")
        .args(setpriv)
        .arg(bin)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env("HOME", cwd)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("SKILLS_PATH")
        .output()
        .ok()?;
    let stderr = String::from_utf8(output.stderr).unwrap();
    // setpriv itself failed (not permitted here): no run to judge.
    if output.status.code() == Some(127) || stderr.starts_with("setpriv:") {
        return None;
    }
    Some(Run {
        command: format!("skills {}", args.join(" ")),
        code: output.status.code().expect("killed by a signal"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr,
    })
}

/// `text` as one line: the frame of miette's drawing (`│`) dropped and every run of white
/// space made one space, so a message can be looked for whatever the width wrapped.
pub(crate) fn unwrapped(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rule ids of a `--format json` document, in output order.
pub(crate) fn rules_of(doc: &Value) -> Vec<&str> {
    diagnostics(doc)
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect()
}

/// The diagnostics array of a `--format json` document.
pub(crate) fn diagnostics(doc: &Value) -> &[Value] {
    doc["diagnostics"].as_array().expect("no diagnostics array")
}

/// Escapes `text` for use in an insta filter (a regex).
pub(crate) fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Snapshots `text` under `name`, with the command line as the snapshot's description and
/// `root` (a temporary or testdata directory) replaced by `[ROOT]`.
pub(crate) fn snapshot(name: &str, command: &str, root: Option<&Path>, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_description(command);
    settings.set_omit_expression(true);
    if let Some(root) = root {
        settings.add_filter(&regex_escape(&root.to_string_lossy()), "[ROOT]");
    }
    settings.bind(|| insta::assert_snapshot!(name, text));
}
