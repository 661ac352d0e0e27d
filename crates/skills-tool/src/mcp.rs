//! `skills mcp`: the MCP server on stdin/stdout (all the work is in `skills-mcp-server`).

use skills_mcp_server::{Config, LogLevel};

use crate::cli::{self, McpArgs};
use crate::{Status, Ui};

/// Ready-to-paste client configurations, shown by `skills mcp --help`.
pub(crate) const CLIENT_CONFIGS: &str = "\
Client configuration (the client starts the server; add --skills-dir DIR to serve one folder,
--tools FILE and --resources FILE to give the skills-router prompt and view_skill global tools
and resources):

  Claude Code:
    claude mcp add skills -- skills mcp

  Claude Desktop (claude_desktop_config.json):
    {
      \"mcpServers\": {
        \"skills\": { \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

  Cursor (.cursor/mcp.json):
    {
      \"mcpServers\": {
        \"skills\": { \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

  VS Code (.vscode/mcp.json):
    {
      \"servers\": {
        \"skills\": { \"type\": \"stdio\", \"command\": \"skills\", \"args\": [\"mcp\"] }
      }
    }

Tools, prompt and methods, with examples: docs/mcp.md.";

/// `skills mcp`: hands over to the `skills-mcp` binary beside this one when there is one
/// (the server's process then maps only the server's code: a few megabytes less resident
/// memory, see docs/performance.md), else serves in this process.
pub(crate) fn run(
    args: &McpArgs,
    skills_dirs: &[std::path::PathBuf],
    roots: skills_discovery::Roots,
    ui: Ui,
) -> Status {
    let level = log_level(args, ui);
    #[cfg(unix)]
    if let Some(server) = sibling() {
        use clap::ValueEnum as _;
        use std::os::unix::process::CommandExt as _;
        let mut command = std::process::Command::new(&server);
        for dir in skills_dirs {
            command.arg("--skills-dir").arg(dir);
        }
        if let Some(value) = level.to_possible_value() {
            command.args(["--log-level", value.get_name()]);
        }
        if let Some(tools) = &args.tools {
            command.arg("--tools").arg(tools);
        }
        if let Some(resources) = &args.resources {
            command.arg("--resources").arg(resources);
        }
        // Only returns on failure; then serve here instead.
        let error = command.exec();
        if !ui.quiet() {
            eprintln!(
                "note: cannot run {}: {error}; serving from skills itself",
                server.display()
            );
        }
    }
    #[cfg(not(unix))]
    let _ = skills_dirs;
    serve(args, level, roots, ui)
}

/// `skills-mcp` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let server = exe.with_file_name(format!("skills-mcp{}", std::env::consts::EXE_SUFFIX));
    (server != exe && server.is_file()).then_some(server)
}

/// The log level: --log-level wins; otherwise -q and -v move the default (warn) one step.
fn log_level(args: &McpArgs, ui: Ui) -> cli::LogLevel {
    args.log_level.unwrap_or(if ui.quiet() {
        cli::LogLevel::Error
    } else if ui.verbose() {
        cli::LogLevel::Info
    } else {
        cli::LogLevel::Warn
    })
}

/// Runs the server in this process until the client disconnects.
pub(crate) fn serve(
    args: &McpArgs,
    chosen: cli::LogLevel,
    roots: skills_discovery::Roots,
    ui: Ui,
) -> Status {
    // Bad global files are refused before the client connects, with the file and line.
    let globals =
        match crate::prompt::load_globals(args.tools.as_deref(), args.resources.as_deref()) {
            Ok(globals) => globals,
            Err(e) => return crate::prompt::fail_prompt(ui, &e),
        };
    let level = match chosen {
        cli::LogLevel::Off => LogLevel::Off,
        cli::LogLevel::Error => LogLevel::Error,
        cli::LogLevel::Warn => LogLevel::Warn,
        cli::LogLevel::Info => LogLevel::Info,
        cli::LogLevel::Debug => LogLevel::Debug,
        cli::LogLevel::Trace => LogLevel::Trace,
    };
    match skills_mcp_server::serve_stdio(Config::new(roots).log_level(level).globals(globals)) {
        Ok(()) => Status::Success,
        Err(e) => {
            eprintln!("error: skills mcp: {e}");
            Status::Error
        }
    }
}
