//! `skills mcp`: the MCP server on stdin/stdout (all the work is in `skills-mcp-server`).

use skills_mcp_server::{Config, LogLevel};
use skills_prompt::Globals;

use crate::args::McpArgs;
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::{Printer, Ui};

/// `skills mcp`: hands over to the `skills-mcp` binary beside this one when there is one
/// (the server's process then maps only the server's code: a few megabytes less resident
/// memory, see docs/performance.md), else serves in this process.
pub(crate) fn run(
    args: &McpArgs,
    skills_dirs: &[std::path::PathBuf],
    roots: skills_discovery::Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let level = log_level(args, printer.ui());
    // A bad gateway file is refused before the client connects, with the file and line.
    let gateway = args
        .gateway
        .as_deref()
        .map(skills_mcp_server::gateway::GatewayFile::load)
        .transpose()
        .map_err(|e| errors::plain(e.to_string(), e.help))?;
    #[cfg(unix)]
    if let Some(server) = sibling() {
        use std::os::unix::process::CommandExt as _;
        let mut command = std::process::Command::new(&server);
        for dir in skills_dirs {
            command.arg("--skills-dir").arg(dir);
        }
        command.args(["--log-level", level.as_str()]);
        if let Some(tools) = &args.tools {
            command.arg("--tools").arg(tools);
        }
        if let Some(resources) = &args.resources {
            command.arg("--resources").arg(resources);
        }
        if let Some(http) = &args.http {
            command.arg("--http").arg(http);
        }
        for host in &args.allow_hosts {
            command.arg("--allow-host").arg(host);
        }
        for origin in &args.allow_origins {
            command.arg("--allow-origin").arg(origin);
        }
        if let Some(tier) = args.tier {
            command.arg("--tier").arg(tier.to_string());
        }
        if let Some(file) = &args.gateway {
            command.arg("--gateway").arg(file);
        }
        // Only returns on failure; then serve here instead.
        let error = command.exec();
        printer.note(&format!(
            "cannot run {}: {error}; serving from skills itself",
            server.display()
        ));
    }
    #[cfg(not(unix))]
    let _ = skills_dirs;
    // Bad global files are refused before the client connects, with the file and line.
    let globals = Globals::load(args.tools.as_deref(), args.resources.as_deref())
        .map_err(|e| errors::prompt(&e))?;
    let config = Config::new(roots)
        .log_level(level)
        .globals(globals)
        .max_tier(args.tier)
        .gateway(gateway);
    match &args.http {
        Some(address) => {
            let mut options = skills_mcp_server::HttpOptions::default();
            options.allowed_hosts.clone_from(&args.allow_hosts);
            options.allowed_origins.clone_from(&args.allow_origins);
            skills_mcp_server::serve_http_until_signal(config, address, options, |at| {
                printer.status(&format!("skills mcp: Streamable HTTP at http://{at}/mcp\n"));
            })
            .map_err(|e| {
                errors::plain(
                    format!("skills mcp --http {address}: {e}"),
                    "pass another --http ADDR (host:port; port 0 picks a free one)",
                )
            })?;
        }
        None => serve(config).map_err(|e| errors::plain(e, ""))?,
    }
    Ok(ExitStatus::Success)
}

/// `skills-mcp` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let server = exe.with_file_name(format!("skills-mcp{}", std::env::consts::EXE_SUFFIX));
    (server != exe && server.is_file()).then_some(server)
}

/// The log level: --log-level wins; otherwise -q and -v move the default one step. The
/// default is warn, and info for a gateway, whose one line per scope change and call is
/// its log (docs/gateway.md).
fn log_level(args: &McpArgs, ui: Ui) -> LogLevel {
    let default = if args.gateway.is_some() {
        LogLevel::Info
    } else {
        LogLevel::Warn
    };
    args.log_level.unwrap_or(if ui.quiet() {
        LogLevel::Error
    } else if ui.verbose() {
        LogLevel::Info
    } else {
        default
    })
}

/// Runs the server in this process until the client disconnects.
fn serve(config: Config) -> Result<(), String> {
    skills_mcp_server::serve_stdio(config).map_err(|e| format!("skills mcp: {e}"))
}
