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

/// Runs the server until the client disconnects.
pub(crate) fn run(args: &McpArgs, roots: skills_discovery::Roots, ui: Ui) -> Status {
    // Bad global files are refused before the client connects, with the file and line.
    let globals =
        match crate::prompt::load_globals(args.tools.as_deref(), args.resources.as_deref()) {
            Ok(globals) => globals,
            Err(e) => return crate::prompt::fail_prompt(ui, &e),
        };
    // --log-level wins; otherwise -q and -v move the default (warn) one step.
    let chosen = args.log_level.unwrap_or(if ui.quiet() {
        cli::LogLevel::Error
    } else if ui.verbose() {
        cli::LogLevel::Info
    } else {
        cli::LogLevel::Warn
    });
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
